#!/usr/bin/env python3
"""Generate tests/data/malformed/: small hostile image files for the reliability tests.

Every file must give an OcrResult or an edgeocr.InvalidInputError from
Predictor.predict -- never a crash, a hang or an unbounded allocation.
The files are deterministic (no timestamps, fixed seed) and tiny (the long
thin images compress to a few hundred bytes), so the corpus is committed.
MANIFEST.txt lists each file with what it exercises; regenerate with

    python tools/make_malformed.py            # writes tests/data/malformed/
    python tools/make_malformed.py --check    # exits 1 if the committed files differ
"""

from __future__ import annotations

import argparse
import io
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "malformed"


# The first 200 bytes of an input found by the decode fuzz loop of
# tests/python/test_reliability.py (seed 8, iteration 142): a GIF87a whose logical
# screen is 38776x31609 with a 32-entry palette. PIL cannot identify it, so
# edgeocr's pixel limit is not applied, and OpenCV raises cv2.error.
FUZZ_GIF_HEX = (
    "4749463837617897797bac00001414141515151616161717171818181919191a1a1a1b1b1b1c1c1c1d1d1d1e1e1e1f1f"
    "1f2020202121212222222626262727272828282929292b2b2b2c2c2c2d2d2d2f2f2f3131313232323333333434343636"
    "363737373838383939393a3a3a3b3b3b3c3c3c3d3d3d3e3e3e3f3f3f4040404242424444444646464848484949494a4a"
    "4a4b4b4b4c4c4c5050505151515252525454545555555858585959595a5a5a5b5b5b5c5c5c5f5f5f6060606161616363"
    "6364646467676768"
)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png_raw(
    w: int, h: int, bit_depth: int, color_type: int, idat: bytes, extra: bytes = b""
) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + extra
        + _chunk(b"IDAT", idat)
        + _chunk(b"IEND", b"")
    )


SOURCE = Path(__file__).resolve().parents[1] / "tests" / "data" / "line_en.png"


def _text_image() -> np.ndarray:
    """The gray pixels of tests/data/line_en.png (one line of English text, 460x46): the
    well-formed variants below are the same picture in other encodings, so they must all
    read the same text."""
    with Image.open(SOURCE) as im:
        return np.asarray(im.convert("L"))


def _save(im: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    im.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _png_thin(w: int, h: int) -> bytes:
    # Written by hand so the file stays a few hundred bytes: one filter byte per row.
    raw = b"".join(b"\x00" + b"\x80" * w for _ in range(h))
    return _png_raw(w, h, 8, 0, zlib.compress(raw, 9))


def build() -> dict[str, tuple[bytes, str]]:
    """{file name: (content, what it exercises)}"""
    gray = _text_image()
    rgb = np.stack([gray, gray, gray], -1)
    rgb_im = Image.fromarray(rgb, "RGB")
    png = _save(rgb_im, "PNG", optimize=True)
    jpg = _save(rgb_im, "JPEG", quality=80)
    files: dict[str, tuple[bytes, str]] = {}

    def add(name, data, what):
        files[name] = (data, what)

    add("empty.png", b"", "0-byte file with an image extension")
    add("empty.jpg", b"", "0-byte file with an image extension")
    add("text.png", b"hello, I am not a picture\n" * 8, "text with an image extension")
    add("text.jpg", b"%PDF-1.4\n% not an image either\n", "another format's magic with .jpg")
    add("png_magic_only.png", png[:8], "PNG signature and nothing else")
    add("jpg_magic_only.jpg", b"\xff\xd8\xff", "JPEG SOI and nothing else")
    add("truncated_half.png", png[: len(png) // 2], "PNG cut in the middle of IDAT")
    add("truncated_header.png", png[:20], "PNG cut inside IHDR")
    add("truncated_half.jpg", jpg[: len(jpg) // 2], "JPEG cut in the middle of the scan")
    add("truncated_header.jpg", jpg[:40], "JPEG cut inside its headers")
    bad_crc = bytearray(png)
    bad_crc[29] ^= 0xFF  # IHDR's CRC
    add("bad_crc.png", bytes(bad_crc), "PNG with a wrong IHDR CRC")
    flipped = bytearray(jpg)
    for i in range(len(jpg) // 3, len(jpg) - 2, 97):
        flipped[i] ^= 0x5A
    add("corrupt_scan.jpg", bytes(flipped), "JPEG with corrupted entropy-coded data")
    add("one_pixel.png", _save(Image.new("RGB", (1, 1), (255, 255, 255)), "PNG"), "1x1 RGB")
    add("one_pixel.jpg", _save(Image.new("L", (1, 1), 0), "JPEG"), "1x1 gray JPEG")
    add("wide_1x100000.png", _png_thin(100000, 1), "100000 wide, 1 high")
    add("tall_100000x1.png", _png_thin(1, 100000), "1 wide, 100000 high")
    add(
        "gray16.png",
        _save(Image.fromarray(gray.astype(np.uint16) * 257), "PNG"),
        "16-bit grayscale PNG",
    )
    h, w = gray.shape
    rgb16 = (rgb.astype(">u2") * 257).tobytes()
    rows = b"".join(b"\x00" + rgb16[y * w * 6 : (y + 1) * w * 6] for y in range(h))
    add("rgb16.png", _png_raw(w, h, 16, 2, zlib.compress(rows, 9)), "16-bit RGB PNG")
    rgba = np.dstack([rgb, np.where(gray < 128, 255, 0).astype(np.uint8)])
    add(
        "rgba.png", _save(Image.fromarray(rgba, "RGBA"), "PNG"), "RGBA, text only in the alpha mask"
    )
    la = np.dstack([gray, np.full_like(gray, 200)])
    add("gray_alpha.png", _save(Image.fromarray(la, "LA"), "PNG"), "grayscale + alpha")
    add(
        "palette.png",
        _save(rgb_im.convert("P", palette=Image.ADAPTIVE, colors=16), "PNG"),
        "palette PNG",
    )
    pal_t = rgb_im.convert("P", palette=Image.ADAPTIVE, colors=16)
    add("palette_trns.png", _save(pal_t, "PNG", transparency=0), "palette PNG with tRNS")
    add("bilevel.png", _save(Image.fromarray(gray < 128).convert("1"), "PNG"), "1-bit PNG")
    add("cmyk.jpg", _save(rgb_im.convert("CMYK"), "JPEG", quality=80), "CMYK JPEG")
    add("progressive.jpg", _save(rgb_im, "JPEG", quality=80, progressive=True), "progressive JPEG")
    add(
        "huge_header_100000x100000.png",
        _png_raw(100000, 100000, 8, 2, zlib.compress(b"\x00" * 64)),
        "header claims 100000x100000 RGB (30 GB) over a tiny IDAT",
    )
    add(
        "huge_header_65000x65000.jpg",
        _jpeg_with_size(jpg, 65000, 65000),
        "JPEG SOF claims 65000x65000 over a small scan",
    )
    add("zero_size_header.png", _png_raw(0, 0, 8, 0, zlib.compress(b"")), "header claims 0x0")
    add("bad_bit_depth.png", _png_raw(16, 16, 7, 0, zlib.compress(b"\x00" * 300)), "bit depth 7")
    add(
        "zlib_bomb.png",
        _png_raw(64, 64, 8, 0, zlib.compress(b"\x00" * 4_000_000, 9)),
        "64x64 header but 4 MB of inflated data",
    )
    add("gif.gif", _save(rgb_im.convert("P"), "GIF"), "GIF (read by the PIL fallback or refused)")
    small = rgb_im.crop((0, 0, 160, h))
    add(
        "gif_huge_screen.gif",
        bytes.fromhex(FUZZ_GIF_HEX),
        "GIF claiming 38776x31609 that PIL cannot identify; cv2.imdecode raises cv2.error (found "
        "by fuzzing)",
    )
    idat = bytearray(
        _png_raw(w, h, 8, 0, zlib.compress(b"".join(b"\x00" + gray[y].tobytes() for y in range(h))))
    )
    idat[33:37] = struct.pack(">I", 0x30000000)  # IDAT length field: 805 MB in a ~4 KB file
    add(
        "png_huge_idat_length.png",
        bytes(idat),
        "IDAT chunk claiming 805 MB: OpenCV allocates it all before failing (found by fuzzing)",
    )
    add("bmp.bmp", _save(small, "BMP"), "BMP")
    add(
        "tiff_float.tif",
        _save(Image.fromarray(gray[:, :96].astype(np.float32) / 255, "F"), "TIFF"),
        "32-bit float TIFF",
    )
    add(
        "webp_garbage.webp",
        b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(range(16)),
        "WebP header, garbage data",
    )
    return files


def _jpeg_with_size(jpg: bytes, w: int, h: int) -> bytes:
    """`jpg` with its SOF0 frame header rewritten to claim w x h."""
    b = bytearray(jpg)
    i = 2
    while i + 9 < len(b):
        if b[i] != 0xFF:
            raise ValueError("unexpected JPEG layout")
        marker, length = b[i + 1], struct.unpack(">H", b[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            b[i + 5 : i + 9] = struct.pack(">HH", h, w)
            return bytes(b)
        i += 2 + length
    raise ValueError("no SOF marker")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--check", action="store_true", help="compare with the files on disk, write nothing"
    )
    args = ap.parse_args(argv)
    files = build()
    manifest = "".join(f"{n}\t{len(d)}\t{w}\n" for n, (d, w) in sorted(files.items()))
    files["MANIFEST.txt"] = (manifest.encode(), "")
    if args.check:
        bad = [
            n
            for n, (d, _) in files.items()
            if not (args.out / n).is_file() or (args.out / n).read_bytes() != d
        ]
        for n in bad:
            print(f"differs: {n}", file=sys.stderr)
        return 1 if bad else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for n, (d, _) in files.items():
        (args.out / n).write_bytes(d)
    total = sum(len(d) for d, _ in files.values())
    print(f"wrote {len(files)} files, {total} bytes, to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
