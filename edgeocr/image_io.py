"""Turning what users pass (path, bytes, ndarray, PIL image) into pixels the core reads."""

from __future__ import annotations

import io
import os

import numpy as np

from .errors import InvalidInputError

# Decoded images above this many pixels are refused before decoding (a PNG can
# claim 100000x100000 in a 50-byte header). Override per call or with
# EDGEOCR_MAX_IMAGE_PIXELS.
DEFAULT_MAX_PIXELS = 200_000_000


def _max_pixels() -> int:
    try:
        return int(os.environ.get("EDGEOCR_MAX_IMAGE_PIXELS", DEFAULT_MAX_PIXELS))
    except ValueError:
        return DEFAULT_MAX_PIXELS


def _header_size(data: bytes):
    """(w, h) from the image header without decoding pixels, or None if unknown."""
    try:
        from PIL import Image

        Image.MAX_IMAGE_PIXELS = None  # we do our own check, without a warning
        with Image.open(io.BytesIO(data)) as im:
            return im.size
    except Exception:  # noqa: BLE001 - unknown to PIL: let OpenCV try
        return None


def decode_image(data: bytes, what: str = "image bytes") -> np.ndarray:
    """Decode encoded image bytes to a uint8 BGR/gray/BGRA array."""
    import cv2

    if len(data) == 0:
        raise InvalidInputError(f"{what}: empty (0 bytes)")
    # The size is checked from the header before any pixel is decoded. Bytes
    # whose header Pillow cannot parse are refused: OpenCV's decoders trust
    # the sizes such files claim.
    size = _header_size(data)
    if size is None:
        raise InvalidInputError(f"{what}: not a readable image (unknown format or corrupt header)")
    w, h = size
    if w * h > _max_pixels():
        raise InvalidInputError(
            f"{what}: {w}x{h} pixels is more than the limit of {_max_pixels()} "
            "(set EDGEOCR_MAX_IMAGE_PIXELS to raise it)"
        )
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        _check_png_chunks(data, what)
    buf = np.frombuffer(data, dtype=np.uint8)
    try:
        img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    except cv2.error:
        img = None
    if img is None:
        img = _decode_with_pil(data)
    if img is None:
        raise InvalidInputError(f"{what}: not a readable image (truncated, corrupt, or not an image format)")
    return img


def _check_png_chunks(data: bytes, what: str) -> None:
    """Refuse a PNG whose chunk lengths run past the end of the file (a decoder
    would allocate what the length field claims)."""
    pos, n = 8, len(data)
    while pos + 8 <= n:
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        if length > n - pos - 12 + 4 and kind != b"IEND":  # 4 length + 4 type + data + 4 crc
            if pos + 12 + length > n:
                raise InvalidInputError(
                    f"{what}: not a readable image: corrupt PNG: a {kind.decode('latin-1', 'replace')} chunk claims "
                    f"{length} bytes but the file has {n - pos - 12} left"
                )
        if kind == b"IEND":
            return
        pos += 12 + length


def _decode_with_pil(data: bytes):
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as im:
            im.load()
            return pil_to_array(im)
    except Exception:  # noqa: BLE001
        return None


def pil_to_array(im) -> np.ndarray:
    mode = im.mode
    if mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        arr = np.asarray(im)
        return to_uint8(arr)
    if mode not in ("L", "RGB", "RGBA"):
        im = im.convert("RGBA" if "A" in mode or "transparency" in im.info else "RGB")
        mode = im.mode
    arr = np.asarray(im)
    if mode == "RGB":
        arr = arr[:, :, ::-1]
    elif mode == "RGBA":
        arr = arr[:, :, [2, 1, 0, 3]]
    return np.ascontiguousarray(arr)


def to_uint8(arr: np.ndarray) -> np.ndarray:
    """Scale 16-bit / 32-bit integer images to 8 bits (by their type's range)."""
    if arr.dtype == np.uint8:
        return arr
    if arr.dtype == np.uint16:
        return (arr >> 8).astype(np.uint8)
    if arr.dtype.kind in "iu":
        info = np.iinfo(arr.dtype)
        scale = 255.0 / max(1, int(info.max))
        return np.clip(arr.astype(np.float64) * scale, 0, 255).astype(np.uint8)
    raise InvalidInputError(f"image dtype {arr.dtype} is not supported")


def load_image(image) -> np.ndarray:
    """A C-contiguous uint8 array: HxW (gray), HxWx3 (BGR) or HxWx4 (BGRA).

    Accepts a path, encoded bytes, a numpy array (HxW, HxWx1, HxWx3 BGR, HxWx4
    BGRA; uint8, or uint16 scaled to 8 bits) or a PIL image.
    """
    if isinstance(image, (str, os.PathLike)):
        path = os.fspath(image)
        if not os.path.exists(path):
            raise InvalidInputError(f"image file not found: {path}")
        if os.path.isdir(path):
            raise InvalidInputError(f"{path} is a directory, not an image")
        with open(path, "rb") as f:
            data = f.read()
        return load_image_bytes(data, path)
    if isinstance(image, (bytes, bytearray, memoryview)):
        return load_image_bytes(image)
    if isinstance(image, np.ndarray):
        return _check(_from_array(image))
    try:
        from PIL import Image

        if isinstance(image, Image.Image):
            return _check(pil_to_array(image))
    except ImportError:
        pass
    raise InvalidInputError(
        f"cannot read an image from {type(image).__name__}; pass a path, bytes, a numpy array or a PIL image"
    )


def load_image_bytes(data, what: str = "image bytes") -> np.ndarray:
    """:func:`load_image` for encoded bytes; ``what`` names them in errors (e.g. the file they came from)."""
    return _check(decode_image(bytes(data), what))


def _from_array(a: np.ndarray) -> np.ndarray:
    if a.size == 0:
        raise InvalidInputError(f"image array is empty (shape {a.shape})")
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.ndim not in (2, 3):
        raise InvalidInputError(
            f"image array must be HxW or HxWxC, got {a.ndim} dimensions (shape {a.shape}); "
            "for several images use predict_batch"
        )
    if a.ndim == 3 and a.shape[2] not in (3, 4):
        raise InvalidInputError(f"image array must have 1, 3 or 4 channels, got {a.shape[2]} (shape {a.shape})")
    if a.dtype == np.bool_ or a.dtype.kind in "fc":
        raise InvalidInputError(
            f"image array dtype {a.dtype} is not supported: pass uint8 pixels (0-255) "
            "(e.g. (x * 255).clip(0, 255).astype(np.uint8))"
        )
    if a.dtype.kind not in "iu":
        raise InvalidInputError(f"image array dtype {a.dtype} is not supported; pass uint8 pixels")
    if a.dtype != np.uint8:
        if a.dtype.kind == "i" and a.min() < 0:
            raise InvalidInputError(f"image array of {a.dtype} has negative values; pass uint8 pixels")
        a = to_uint8(a)
    return np.ascontiguousarray(a)


def _check(img: np.ndarray) -> np.ndarray:
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.dtype != np.uint8:
        img = to_uint8(img)
    if img.ndim == 3 and img.shape[2] not in (3, 4):
        raise InvalidInputError(f"image has {img.shape[2]} channels; expected 1, 3 or 4")
    if img.shape[0] < 1 or img.shape[1] < 1:
        raise InvalidInputError(f"image is empty ({img.shape[1]}x{img.shape[0]})")
    return np.ascontiguousarray(img)
