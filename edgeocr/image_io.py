"""Turning what users pass (path, bytes, ndarray, PIL image) into pixels the core reads."""

from __future__ import annotations

import io
import os

from ._numpy import np
from .errors import InvalidInputError, UnsupportedError

# Images above this many pixels are refused before anything is decoded or
# copied (a PNG can claim 100000x100000 in a 50-byte header; a numpy view can
# claim 60000x60000 with zero strides). 100 megapixels: an A3 page scanned at
# 600 dpi is 70. Per call: load_image(..., max_pixels=N); per process: the
# EDGEOCR_MAX_IMAGE_PIXELS environment variable; per Predictor: max_image_pixels=.
DEFAULT_MAX_PIXELS = 100_000_000

# What a folder of images holds: the file names every command line and tool takes from a folder.
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm")


def image_files(folder: str | os.PathLike, *, recursive: bool = False) -> list[str]:
    """The image files (by extension, :data:`IMAGE_EXTENSIONS`) in ``folder``, in sorted order.

    ``recursive``: also those in its sub-folders, folder by folder in sorted order.
    """
    out = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        out += [
            os.path.join(root, n)
            for n in sorted(names)
            if os.path.splitext(n)[1].lower() in IMAGE_EXTENSIONS
        ]
        if not recursive:
            break
    return out


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_SIGNATURE = b"\xff\xd8\xff"  # SOI, then the first marker


def core_decodes(data) -> bool:
    """True for bytes the core's decoder reads (PNG and JPEG, by their signatures:
    csrc/codec/decode.h); decode_image and Predictor.predict hand those to it."""
    return bytes(data[:8]) == PNG_SIGNATURE or bytes(data[:3]) == JPEG_SIGNATURE


# Formats other than the core's may use at most this many bytes per allowed
# pixel (the size of a BGRA result), i.e. max_pixels * 4 bytes (400 MB by default). Decoders that
# need more working memory per pixel get proportionally fewer pixels: the
# bytes per pixel below were measured as peak RSS growth of load_image (output
# and working memory) on 16-megapixel images, rounded up; 16-bit samples double them. PNG and
# JPEG, decoded in the core, follow the core's count of what its decoder holds
# (_core.default_max_decode_bytes: the same 4 bytes per pixel, plus 64 MiB for rows and state).
DECODE_BYTES_PER_PIXEL = 4
_COST_BY_FORMAT = {
    "PNG": 4,  # 6 for RGBA (one 4-byte copy while reordering channels): see _decode_cost
    "JPEG": 4,
    "BMP": 4,
    "DIB": 4,
    "PPM": 4,
    "WEBP": 8,  # measured 6.4
    "TIFF": 10,  # measured 8.7 (RGB)
    "GIF": 12,  # measured 8.3 by OpenCV, 11.1 when Pillow decodes it (palette expanded, reordered)
    # per band, + 2: OpenJPEG keeps an int32 plane per component (measured 15.7 for RGB)
    "JPEG2000": 6,
}
_COST_OTHER = 10  # formats decoded by Pillow only (ICO, ICNS, TGA, PCX, ...)
# Formats handed to OpenCV's decoders first (Pillow when OpenCV fails); every
# other format Pillow can identify (containers: ICO, ICNS, ...) is decoded by Pillow.
_CV2_FORMATS = {"PNG", "JPEG", "BMP", "DIB", "PPM", "TIFF", "WEBP", "JPEG2000", "GIF"}
# TIFF pages and other frames whose sizes are checked (beyond: refused).
_MAX_FRAMES = 1024


def max_image_pixels(max_pixels: int | None = None) -> int:
    """The pixel cap in force: `max_pixels`, else $EDGEOCR_MAX_IMAGE_PIXELS, else the default."""
    if max_pixels is None:
        env = os.environ.get("EDGEOCR_MAX_IMAGE_PIXELS")
        if not env:
            return DEFAULT_MAX_PIXELS
        try:
            max_pixels = int(env)
        except ValueError:
            raise InvalidInputError(
                f"EDGEOCR_MAX_IMAGE_PIXELS must be a positive integer, got {env!r}"
            ) from None
        what = "EDGEOCR_MAX_IMAGE_PIXELS"
    else:
        what = "max_image_pixels"
    if isinstance(max_pixels, bool) or not isinstance(max_pixels, int) or max_pixels < 1:
        raise InvalidInputError(f"{what} must be a positive integer, got {max_pixels!r}")
    return max_pixels


def _pil_limit() -> int:
    """The size above which Pillow's Image.open refuses a file (twice its warning limit)."""
    from PIL import Image

    return 2 * Image.MAX_IMAGE_PIXELS if Image.MAX_IMAGE_PIXELS else 2**62


def _too_many_pixels(what: str, w: int, h: int, limit: int, part: str = "") -> InvalidInputError:
    return InvalidInputError(
        f"{what}: {part}{w}x{h} pixels is more than the limit of {limit} "
        "(max_image_pixels= or EDGEOCR_MAX_IMAGE_PIXELS raise it)"
    )


def _decode_cost(fmt: str, mode: str) -> int:
    """Bytes of memory per pixel that decoding an image of this format and mode takes."""
    bands = {
        "1": 1,
        "L": 1,
        "P": 1,
        "I": 1,
        "F": 1,
        "LA": 2,
        "PA": 2,
        "RGB": 3,
        "YCbCr": 3,
        "LAB": 3,
        "HSV": 3,
        "RGBA": 4,
        "RGBa": 4,
        "CMYK": 4,
    }.get(mode.split(";")[0], 4)
    if fmt == "JPEG2000":
        cost = 6 * bands + 2
    else:
        cost = _COST_BY_FORMAT.get(fmt, _COST_OTHER)
        if fmt == "PNG" and bands >= 4:
            cost = 6
    if mode.startswith("I;16") or mode in ("I", "F") or mode.endswith(";16"):
        cost *= 2
    return cost


def _header(data: bytes):
    """Pillow's view of the header (format, mode, size) without decoding pixels, or None."""
    import warnings

    try:
        from PIL import Image

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning: we check ourselves
            with Image.open(io.BytesIO(data)) as im:
                frames = [im.size]
                if im.format == "TIFF":  # each page is an IFD: reading them decodes nothing
                    n = getattr(im, "n_frames", 1)
                    if n > _MAX_FRAMES:
                        return im.format, im.mode, im.size, None
                    for i in range(1, n):
                        im.seek(i)
                        frames.append(im.size)
                return im.format, im.mode, frames[0], frames
    except Exception as e:  # noqa: BLE001 - unknown to Pillow, or over Pillow's own limit
        if type(e).__name__ == "DecompressionBombError":
            return "bomb", str(e), None, None
        return None


def _embedded_sizes(data: bytes):
    """(kind, w, h) of every PNG and JPEG 2000 header inside `data` (the frames of ICO and
    ICNS files, and anything else that embeds them), of APNG frames and of the BMP frames
    of an ICO. Only run on containers (not on formats whose compressed data could
    hold a chance match of the 4-byte JPEG 2000 marker)."""
    out = []
    pos = data.find(b"\x89PNG\r\n\x1a\n")
    while pos >= 0 and len(out) < _MAX_FRAMES:
        if data[pos + 12 : pos + 16] == b"IHDR" and pos + 24 <= len(data):
            out.append(
                (
                    "a PNG frame",
                    int.from_bytes(data[pos + 16 : pos + 20], "big"),
                    int.from_bytes(data[pos + 20 : pos + 24], "big"),
                )
            )
        pos = data.find(b"\x89PNG\r\n\x1a\n", pos + 8)
    pos = data.find(b"\xff\x4f\xff\x51")  # JPEG 2000 codestream: SOC, then SIZ
    while pos >= 0 and len(out) < 2 * _MAX_FRAMES:
        if pos + 16 <= len(data):
            xs, ys = (
                int.from_bytes(data[pos + 8 : pos + 12], "big"),
                int.from_bytes(data[pos + 12 : pos + 16], "big"),
            )
            xo = int.from_bytes(data[pos + 16 : pos + 20], "big") if pos + 20 <= len(data) else 0
            yo = int.from_bytes(data[pos + 20 : pos + 24], "big") if pos + 24 <= len(data) else 0
            out.append(("a JPEG 2000 codestream", max(0, xs - xo), max(0, ys - yo)))
        pos = data.find(b"\xff\x4f\xff\x51", pos + 4)
    if data[:4] == b"\x00\x00\x01\x00":  # ICO directory: 16-byte entries after a 6-byte header
        n = int.from_bytes(data[4:6], "little")
        for i in range(min(n, _MAX_FRAMES)):
            e = 6 + 16 * i
            if e + 16 > len(data):
                break
            off = int.from_bytes(data[e + 12 : e + 16], "little")
            if off + 12 <= len(data) and data[off : off + 4] != b"\x89PNG":
                w = abs(int.from_bytes(data[off + 4 : off + 8], "little", signed=True))
                h = abs(int.from_bytes(data[off + 8 : off + 12], "little", signed=True)) // 2
                out.append(("an ICO bitmap frame", w, h))
    return out


def _apng_frame_sizes(data: bytes):
    """("an APNG frame", w, h) of each fcTL chunk (an animated PNG's frames carry their size)."""
    out, pos, n = [], 8, len(data)
    while pos + 8 <= n and len(out) < _MAX_FRAMES:
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        if kind == b"fcTL" and pos + 20 <= n:
            out.append(
                (
                    "an APNG frame",
                    int.from_bytes(data[pos + 12 : pos + 16], "big"),
                    int.from_bytes(data[pos + 16 : pos + 20], "big"),
                )
            )
        if kind == b"IEND":
            break
        pos += 12 + length
    return out


def check_image_bytes(data: bytes, what: str = "image bytes", max_pixels: int | None = None) -> str:
    """Checks encoded image bytes before any decoder allocates; returns the format (Pillow's name).

    Refused (InvalidInputError): a header Pillow cannot parse, an image, page or
    embedded frame above the pixel cap, or one whose decoder would need more than
    max_pixels * DECODE_BYTES_PER_PIXEL bytes.
    """
    limit = max_image_pixels(max_pixels)
    head = _header(data)
    if head is None:
        # OpenCV's decoders trust the sizes such files claim: refused.
        raise InvalidInputError(f"{what}: not a readable image (unknown format or corrupt header)")
    fmt, mode, size, frames = head
    if fmt == "bomb":  # Pillow refused to open it: its size is in Pillow's message
        import re

        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
            w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
            if w * h > limit:  # the usual message, with the sizes the header claims
                raise _too_many_pixels(what, w, h, limit)

        m = re.search(r"\((\d+) pixels\)", mode)
        size_text = f"{m.group(1)} pixels" if m else "its size"
        raise InvalidInputError(
            f"{what}: {size_text} is more than the limit of {min(limit, _pil_limit())} "
            f"(Pillow's decompression-bomb check: {mode}; above {_pil_limit()} pixels "
            "PIL.Image.MAX_IMAGE_PIXELS must be raised too)"
        )
    if frames is None:
        raise InvalidInputError(f"{what}: a {fmt} file of more than {_MAX_FRAMES} pages or frames")
    for i, (w, h) in enumerate(frames):
        if w * h > limit:
            raise _too_many_pixels(what, w, h, limit, f"page {i + 1}: " if i else "")
    embedded = _embedded_sizes(data) if fmt not in _CV2_FORMATS else []
    if fmt == "PNG":
        embedded = _apng_frame_sizes(data)
    for kind, w, h in embedded:
        if w * h > limit:
            raise _too_many_pixels(what, w, h, limit, f"{kind} of ")
    w, h = size
    cost = _decode_cost(fmt, mode)
    budget = limit * DECODE_BYTES_PER_PIXEL
    if w * h * cost > budget:
        raise InvalidInputError(
            f"{what}: decoding this {w}x{h} {fmt} ({mode}) image takes about {w * h * cost >> 20} "
            "MiB "
            f"({cost} bytes per pixel), more than the {budget >> 20} MiB allowed "
            f"({DECODE_BYTES_PER_PIXEL} bytes per pixel of the {limit}-pixel limit; "
            "max_image_pixels= or EDGEOCR_MAX_IMAGE_PIXELS raise it)"
        )
    return fmt


def decode_image(
    data: bytes, what: str = "image bytes", max_pixels: int | None = None
) -> np.ndarray:
    """Decode encoded image bytes to a uint8 BGR/gray/BGRA array (sizes checked first).

    PNG and JPEG are decoded by the core (csrc/codec/decode.h: libspng, libjpeg-turbo; also the
    C API's decoder), which refuses a damaged file or one over the caps (InvalidInputError) and
    applies a JPEG's EXIF orientation. What it leaves to others (16-bit PNG, APNG, 12-bit or
    lossless JPEG) and every other format: OpenCV decodes, else Pillow."""
    if len(data) == 0:
        raise InvalidInputError(f"{what}: empty (0 bytes)")
    if core_decodes(data):
        from . import _core

        try:
            return _core.decode_image(data, what, max_image_pixels(max_pixels), None)
        except UnsupportedError:  # a feature the core leaves to OpenCV and Pillow
            pass
    import cv2

    fmt = check_image_bytes(data, what, max_pixels)
    if data[:8] == PNG_SIGNATURE:
        _check_png_chunks(data, what)
    img = None
    if fmt in _CV2_FORMATS:
        buf = np.frombuffer(data, dtype=np.uint8)
        try:
            img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
        except cv2.error:
            img = None
    if img is None:
        img = _decode_with_pil(data)
    if img is None:
        raise InvalidInputError(
            f"{what}: not a readable image (truncated, corrupt, or not an image format)"
        )
    if img.dtype.kind == "f":  # 32-bit float TIFF, PFM: read as Pillow's "F" images are
        img = float_pixels_to_uint8(img)
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
                    f"{what}: not a readable image: corrupt PNG: a "
                    f"{kind.decode('latin-1', 'replace')} chunk claims "
                    f"{length} bytes but the file has {n - pos - 12} left"
                )
        if kind == b"IEND":
            return
        pos += 12 + length


def _decode_with_pil(data: bytes):
    import warnings

    try:
        from PIL import Image

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sizes were checked by check_image_bytes
            with Image.open(io.BytesIO(data)) as im:
                im.load()
                return pil_to_array(im)
    except Exception:  # noqa: BLE001
        return None


def pil_to_array(im) -> np.ndarray:
    """uint8 pixels of any PIL image: HxW (gray), HxWx2 (gray + alpha), HxWx3 (BGR) or HxWx4 (BGRA).

    Transparency is kept (the core composites it onto a background that
    contrasts with the ink); premultiplied alpha ("La", "RGBa") is undone;
    16/32-bit and float gray images are scaled to 8 bits by their range.
    """
    mode = im.mode
    if mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        return _wide_gray_to_uint8(np.asarray(im), mode)
    if mode == "1":
        im, mode = im.convert("L"), "L"
    elif mode in ("La", "PA") or (mode in ("L", "P") and "transparency" in im.info):
        im = im.convert("LA" if mode in ("La", "L") else "RGBA")
        mode = im.mode
    elif mode not in ("L", "LA", "RGB", "RGBA"):
        # P, CMYK, YCbCr, LAB, HSV, RGBX, RGBa, ...: to RGB, or RGBA when it carries alpha.
        im = im.convert(
            "RGBA" if "A" in mode or "a" in mode or "transparency" in im.info else "RGB"
        )
        mode = im.mode
    arr = np.asarray(im)
    if mode == "RGB":
        arr = arr[:, :, ::-1]
    elif mode == "RGBA":
        arr = arr[:, :, [2, 1, 0, 3]]
    return np.ascontiguousarray(arr)


def _wide_gray_to_uint8(arr: np.ndarray, mode: str) -> np.ndarray:
    """A 16-bit, 32-bit or float gray image as 8 bits. 16-bit modes and "I" (which PIL also uses
    for 16-bit PNGs; negative values shifted up) by value (integer_pixels_to_uint8: Pillow's
    convert("I;16") keeps 8-bit values); "F" as 0..1 when its values do, else as 0..255, clipped."""
    if mode == "F":
        return float_pixels_to_uint8(arr)
    if mode == "I":
        a = arr.astype(np.int64)
        if a.size and a.min() < 0:
            a = a - a.min()
        return integer_pixels_to_uint8(a)
    return integer_pixels_to_uint8(arr.astype(np.uint16))


def float_pixels_to_uint8(arr: np.ndarray) -> np.ndarray:
    """Float pixels of an image file (Pillow "F", float TIFF, PFM) as 8 bits: 0..1 when all values
    are, else 0..255, clipped; NaN as 0. (Float numpy arrays given directly are refused: their
    scale is the caller's to say.)"""
    a = np.nan_to_num(arr.astype(np.float64), nan=0.0, posinf=255.0, neginf=0.0)
    if a.size and a.min() >= 0.0 and a.max() <= 1.0:
        a = a * 255.0
    return np.clip(np.rint(a), 0, 255).astype(np.uint8)


def integer_pixels_to_uint8(a: np.ndarray) -> np.ndarray:
    """Non-negative integer pixels of any integer dtype as 8 bits, by their values: up to 255 as
    they are, up to 65535 as 16-bit samples (x * 255 // 65535), beyond by their maximum. By
    value, not by dtype: an int32/int64 array of 8-bit pixels (np.asarray(img, int), arithmetic
    on uint8) would read as black if scaled by its type's range."""
    top = int(a.max()) if a.size else 0
    if top <= 255:
        return a.astype(np.uint8)
    if top <= 65535:
        return (a.astype(np.int64) * 255 // 65535).astype(np.uint8)
    return np.minimum(a.astype(np.float64) * (255.0 / top), 255.0).astype(np.uint8)


def load_image(image, max_pixels: int | None = None) -> np.ndarray:
    """A C-contiguous uint8 array: HxW (gray), HxWx2 (gray + alpha), HxWx3 (BGR) or HxWx4 (BGRA).

    Accepts a path, encoded bytes, a numpy array (HxW, HxWx1, HxWx2 gray +
    alpha, HxWx3 BGR, HxWx4 BGRA; uint8, or other non-negative integers read
    by value: :func:`integer_pixels_to_uint8`) or a PIL
    image of any mode. Images above
    `max_pixels` (default: $EDGEOCR_MAX_IMAGE_PIXELS, else DEFAULT_MAX_PIXELS)
    are refused with InvalidInputError before they are decoded or copied.
    """
    limit = max_image_pixels(max_pixels)
    if isinstance(image, (str, os.PathLike)):
        path = os.fspath(image)
        return load_image_bytes(read_image_file(path, limit), path, limit)
    if isinstance(image, (bytes, bytearray, memoryview)):
        return load_image_bytes(image, "image bytes", limit)
    if isinstance(image, np.ndarray):
        _check_array_size(image, limit)
        return _check(_from_array(image))
    try:
        from PIL import Image

        if isinstance(image, Image.Image):
            w, h = image.size
            if w * h > limit:
                raise _too_many_pixels("PIL image", w, h, limit)
            try:  # an Image.open() image is decoded now: its file may be truncated or closed
                image.load()
            except MemoryError:
                raise
            except Exception as e:  # noqa: BLE001 - whatever the decoder raises, it is the input
                raise InvalidInputError(
                    f"PIL image: cannot read its pixels ({type(e).__name__}: {e})"
                ) from e
            return _check(pil_to_array(image))
    except ImportError:
        pass
    raise InvalidInputError(
        f"cannot read an image from {type(image).__name__}; pass a path, bytes, a numpy array or a "
        "PIL image"
    )


def read_image_file(path: str, limit: int) -> bytes:
    """The bytes of the image file ``path``, refused (InvalidInputError) when it is missing, not a
    regular file, or larger than an image of ``limit`` pixels can be encoded in."""
    if not os.path.exists(path):
        raise InvalidInputError(f"image file not found: {path}")
    if os.path.isdir(path):
        raise InvalidInputError(f"{path} is a directory, not an image")
    if not os.path.isfile(path):
        # /dev/zero never ends, a pipe blocks until a writer comes: only files are read.
        raise InvalidInputError(
            f"{path} is not a regular file (a device, pipe or socket); pass the image's bytes"
        )
    # An encoded image is never larger than its uncompressed pixels (plus headers):
    # a bigger file is not read into memory.
    most = limit * DECODE_BYTES_PER_PIXEL + (1 << 20)
    size = os.path.getsize(path)
    if size <= most:
        with open(path, "rb") as f:
            data = f.read(size + 1)  # bounded, even if the file grows meanwhile
        size = len(data)
    if size > most:
        raise InvalidInputError(
            f"{path}: a {size >> 20} MiB file is more than an image of the {limit}-pixel limit "
            "can take "
            "(max_image_pixels= or EDGEOCR_MAX_IMAGE_PIXELS raise it)"
        )
    return data


def load_image_bytes(data, what: str = "image bytes", max_pixels: int | None = None) -> np.ndarray:
    """:func:`load_image` for encoded bytes; ``what`` names them in errors (e.g. their file)."""
    return _check(decode_image(bytes(data), what, max_pixels))


def _check_array_size(a: np.ndarray, limit: int) -> None:
    """Refuses an array above the pixel cap before anything copies it (a zero-stride view
    of 60000x60000 takes no memory until it is made contiguous)."""
    if a.ndim >= 2:
        h, w = int(a.shape[0]), int(a.shape[1])
        if h * w > limit:
            raise _too_many_pixels("image array", w, h, limit)


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
    if a.ndim == 3 and a.shape[2] not in (2, 3, 4):
        raise InvalidInputError(
            f"image array must have 1 (gray), 2 (gray + alpha), 3 (BGR) or 4 (BGRA) channels, "
            f"got {a.shape[2]} (shape {a.shape})"
        )
    if a.dtype == np.bool_ or a.dtype.kind in "fc":
        raise InvalidInputError(
            f"image array dtype {a.dtype} is not supported: pass uint8 pixels (0-255) "
            "(e.g. (x * 255).clip(0, 255).astype(np.uint8))"
        )
    if a.dtype.kind not in "iu":
        raise InvalidInputError(f"image array dtype {a.dtype} is not supported; pass uint8 pixels")
    if a.dtype != np.uint8:
        if a.dtype.kind == "i" and a.min() < 0:
            raise InvalidInputError(
                f"image array of {a.dtype} has negative values; pass uint8 pixels"
            )
        a = integer_pixels_to_uint8(a)
    return np.ascontiguousarray(a)


def _check(img: np.ndarray) -> np.ndarray:
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.dtype != np.uint8:
        if img.dtype.kind not in "iu" or (img.dtype.kind == "i" and img.size and img.min() < 0):
            raise InvalidInputError(f"image dtype {img.dtype} is not supported")
        img = integer_pixels_to_uint8(img)
    if img.ndim == 3 and img.shape[2] not in (2, 3, 4):
        raise InvalidInputError(f"image has {img.shape[2]} channels; expected 1, 2, 3 or 4")
    if img.shape[0] < 1 or img.shape[1] < 1:
        raise InvalidInputError(f"image is empty ({img.shape[1]}x{img.shape[0]})")
    return np.ascontiguousarray(img)


def decoded_size(image):
    """(width, height, bytes) that loading ``image`` will allocate, from its header alone, or None
    when that cannot be told without decoding. Bytes: the encoded file read into memory plus the
    decoder's measured cost per pixel (_decode_cost); 0 for a uint8 array the core reads in
    place."""
    try:
        if isinstance(image, np.ndarray):
            if image.ndim < 2:
                return None
            h, w = image.shape[:2]
            in_place = (
                image.dtype == np.uint8
                and image.flags.c_contiguous
                and (image.ndim == 2 or image.shape[2] in (1, 3, 4))
            )
            return (w, h, 0 if in_place else w * h * 4)
        from PIL import Image

        if isinstance(image, Image.Image):
            w, h = image.size
            return (w, h, w * h * 4)
        if isinstance(image, (str, os.PathLike)):
            path = os.fspath(image)
            if not os.path.isfile(path):  # Image.open would block on a pipe
                return None
            encoded = os.path.getsize(path)
            with Image.open(path) as im:
                (w, h), fmt, mode, turn = im.size, im.format, im.mode, _turned(im)
        elif isinstance(image, (bytes, bytearray, memoryview)):
            encoded = len(image)
            with Image.open(io.BytesIO(image)) as im:
                (w, h), fmt, mode, turn = im.size, im.format, im.mode, _turned(im)
        else:
            return None
    except Exception:  # noqa: BLE001 - unreadable here: load_image gives the real error
        return None
    if w <= 0 or h <= 0 or w * h > max_image_pixels():
        return None
    if turn:  # the core turns the image by its EXIF orientation
        w, h = h, w
    return (w, h, encoded + w * h * _decode_cost(fmt or "", mode))


def _turned(im) -> bool:
    """Whether the core's decoder turns this image a quarter (EXIF orientation 5-8: PNG and JPEG,
    which the core decodes)."""
    if im.format not in ("PNG", "JPEG"):
        return False
    try:
        return im.getexif().get(0x0112, 1) in (5, 6, 7, 8)
    except Exception:  # noqa: BLE001 - a damaged EXIF block: the core ignores it too
        return False
