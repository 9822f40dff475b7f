"""Image bombs of each format, made on the fly (bytes; nothing committed).

Each case is name -> (maker, expected): maker() returns the file's bytes;
expected is "refused" (InvalidInputError before decoding), "result" (decoded
and run through the pipeline) or "either" (a result or an EdgeOCRError).
Sizes are declared, never allocated by the maker: most files are < 1 KB.
Used by test_hostile.py, which feeds each to a Predictor in a child process
under limits.py's limits (the default pixel cap of 100 megapixels).
"""

from __future__ import annotations

import io
import struct
import zlib

BIG = 100_000  # a side that makes any image far above the pixel cap


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(w: int, h: int, bit_depth=8, color=2, idat: bytes | None = None, extra=b"") -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color, 0, 0, 0)
    if idat is None:
        idat = zlib.compress(b"\0" * 64)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + extra
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


def _png_1bit_blank(side: int) -> bytes:
    """A real, valid 1-bit PNG of side x side (all white): a few KB per 10^6 pixels."""
    row = b"\0" + b"\xff" * ((side + 7) // 8)
    c = zlib.compressobj(9)
    parts = [c.compress(row) for _ in range(side)]
    parts.append(c.flush())
    return _png(side, side, bit_depth=1, color=0, idat=b"".join(parts))


def _apng_big_frame() -> bytes:
    """An APNG of 16x16 whose second frame claims BIG x BIG."""

    def fctl(seq, w, h):
        return _png_chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, 0, 0, 1, 1, 0, 0))  # noqa: E731

    ihdr = _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
    idat = zlib.compress((b"\0" + b"\xff" * 48) * 16)
    fdat = _png_chunk(b"fdAT", struct.pack(">I", 2) + zlib.compress(b"\0" * 64))
    return (
        b"\x89PNG\r\n\x1a\n"
        + ihdr
        + _png_chunk(b"acTL", struct.pack(">II", 2, 0))
        + fctl(0, 16, 16)
        + _png_chunk(b"IDAT", idat)
        + fctl(1, BIG, BIG)
        + fdat
        + _png_chunk(b"IEND", b"")
    )


def _small_png() -> bytes:
    from PIL import Image

    b = io.BytesIO()
    Image.new("RGB", (16, 16), (255, 255, 255)).save(b, format="PNG")
    return b.getvalue()


def _jpeg_sof(w: int, h: int) -> bytes:
    from PIL import Image

    b = io.BytesIO()
    Image.new("RGB", (16, 16), (255, 255, 255)).save(b, format="JPEG")
    data = bytearray(b.getvalue())
    i = data.find(b"\xff\xc0")
    data[i + 5 : i + 9] = struct.pack(">HH", h, w)
    return bytes(data)


def _gif(screen_w, screen_h, frame_w, frame_h) -> bytes:
    head = b"GIF89a" + struct.pack("<HHBBB", screen_w, screen_h, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    desc = b"," + struct.pack("<HHHHB", 0, 0, frame_w, frame_h, 0)
    return head + desc + b"\x02\x02\x44\x01\x00;"


def _bmp(w: int, h: int, bpp=24) -> bytes:
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, bpp, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + 40 + 16, 0, 0, 54) + info + b"\0" * 16


def _tiff(pages) -> bytes:
    """A little-endian TIFF whose IFDs declare `pages` [(w, h)], 8-bit gray, one tiny strip each."""
    out = bytearray(b"II*\0" + struct.pack("<I", 8))
    for i, (w, h) in enumerate(pages):
        entries = [
            (256, 4, 1, w),
            (257, 4, 1, h),
            (258, 3, 1, 8),
            (259, 3, 1, 1),
            (262, 3, 1, 1),
            (273, 4, 1, 0),
            (277, 3, 1, 1),
            (278, 4, 1, h),
            (279, 4, 1, 16),
        ]
        ifd_at = len(out)
        next_at = ifd_at + 2 + 12 * len(entries) + 4
        strip_at = next_at
        body = bytearray(struct.pack("<H", len(entries)))
        for tag, typ, count, val in entries:
            if tag == 273:
                val = strip_at
            body += struct.pack("<HHII", tag, typ, count, val)
        last = i == len(pages) - 1
        body += struct.pack("<I", 0 if last else strip_at + 16)
        out += body + b"\xff" * 16
    return bytes(out)


def _ico(frame: bytes) -> bytes:
    """An ICO whose one directory entry says 256x256 but whose frame is `frame`."""
    entry = struct.pack("<BBBBHHII", 0, 0, 0, 0, 1, 32, len(frame), 22)
    return struct.pack("<HHH", 0, 1, 1) + entry + frame


def _ico_bmp_frame(w, h) -> bytes:
    dib = struct.pack("<IiiHHIIiiII", 40, w, 2 * h, 1, 32, 0, 0, 0, 0, 0, 0)
    return _ico(dib + b"\0" * 64)


def _icns(png: bytes) -> bytes:
    elem = b"ic10" + struct.pack(">I", 8 + len(png)) + png
    return b"icns" + struct.pack(">I", 8 + len(elem)) + elem


def _j2k(w: int, h: int, comps=1) -> bytes:
    """A JPEG 2000 codestream (SOC, SIZ, COD, QCD, EOC) declaring w x h and no data: ~100 bytes."""
    siz = struct.pack(">HIIIIIIIIH", 0, w, h, 0, 0, w, h, 0, 0, comps) + b"\x07\x01\x01" * comps
    cod = struct.pack(">BBHBBBBBB", 0, 0, 1, 0, 5, 4, 4, 0, 0)
    qcd = b"\x40" + b"\x48" * 16
    seg = lambda m, d: m + struct.pack(">H", len(d) + 2) + d  # noqa: E731
    return (
        b"\xff\x4f"
        + seg(b"\xff\x51", siz)
        + seg(b"\xff\x52", cod)
        + seg(b"\xff\x5c", qcd)
        + b"\xff\xd9"
    )


def _webp_vp8x(w: int, h: int) -> bytes:
    vp8x = (
        b"VP8X"
        + struct.pack("<I", 10)
        + b"\0\0\0\0"
        + (w - 1).to_bytes(3, "little")
        + (h - 1).to_bytes(3, "little")
    )
    return b"RIFF" + struct.pack("<I", 4 + len(vp8x)) + b"WEBP" + vp8x


CASES = {
    "png_huge_ihdr": (lambda: _png(BIG, BIG), "refused"),
    "png_1bit_bomb_60000": (lambda: _png(60000, 60000, bit_depth=1, color=0), "refused"),
    "png_16bit_rgba_at_cap": (lambda: _png(9000, 9000, bit_depth=16, color=6), "refused"),
    "png_1bit_blank_9000": (lambda: _png_1bit_blank(9000), "result"),
    "apng_frame_bigger_than_image": (_apng_big_frame, "refused"),
    "jpeg_sof_65000": (lambda: _jpeg_sof(65000, 65000), "refused"),
    "gif_huge_screen": (lambda: _gif(65535, 65535, 1, 1), "refused"),
    "gif_frame_beyond_screen": (lambda: _gif(1, 1, 65535, 65535), "refused"),
    "bmp_huge_header": (lambda: _bmp(BIG, BIG), "refused"),
    "bmp_negative_height": (lambda: _bmp(BIG, -BIG), "refused"),
    "tiff_huge_page": (lambda: _tiff([(BIG, BIG)]), "refused"),
    "tiff_second_page_huge": (lambda: _tiff([(16, 16), (BIG, BIG)]), "refused"),
    "ico_png_frame_huge": (lambda: _ico(_png(BIG, BIG)), "refused"),
    "ico_bmp_frame_huge": (lambda: _ico_bmp_frame(BIG, BIG), "refused"),
    "icns_png_frame_huge": (lambda: _icns(_png(BIG, BIG)), "refused"),
    "icns_j2k_frame_huge": (lambda: _icns(_j2k(BIG, BIG)), "refused"),
    "j2k_huge_siz": (lambda: _j2k(60000, 60000), "refused"),
    "j2k_rgb_under_pixel_cap_over_memory": (lambda: _j2k(9000, 9000, comps=3), "refused"),
    "webp_vp8x_16384": (lambda: _webp_vp8x(16384, 16384), "refused"),
    "ppm_huge_header": (lambda: b"P6\n100000 100000\n255\n" + b"\0" * 64, "refused"),
    "pgm_ascii_huge_header": (lambda: b"P2\n100000 100000\n255\n0 0 0\n", "refused"),
    "small_png_control": (_small_png, "result"),
}
