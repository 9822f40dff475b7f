"""The core's PNG decoder (csrc/codec/decode.h: libspng with zlib), one decoder for Python and the
C API.

Differential: every PNG it reads gives the pixels OpenCV's imdecode(IMREAD_UNCHANGED) gives (an
independent decoder: libpng), on files written here for every colour type, bit depth, filter,
interlacing and deflate block kind, tRNS on every colour type, and on the repository's and the
dev set's pages. What it leaves to others (16-bit samples, APNG), load_image still decodes as
before; a damaged file is refused (InvalidInputError) by Python and C alike; hostile files run in
a child under limits.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

import edgeocr
import edgeocr._core as _core
from edgeocr.image_io import load_image, load_image_bytes

sys.path.insert(0, os.path.dirname(__file__))
from conftest import model_set_paths, shared_fixture  # noqa: E402
from limits import run_limited  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
BIG = 10**8


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _rows(samples: np.ndarray, depth: int) -> list[bytes]:
    """Rows of samples packed at `depth` bits (most significant bits first, rows padded)."""
    out = []
    for r in samples:
        if depth == 16:
            out.append(b"".join(struct.pack(">H", int(v)) for v in r))
        elif depth == 8:
            out.append(bytes(int(v) for v in r))
        else:
            bits = "".join(format(int(v), f"0{depth}b") for v in r)
            bits += "0" * (-len(bits) % 8)
            out.append(bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8)))
    return out


def _filter(row: bytes, prev: bytes, kind: int, bpp: int) -> bytes:
    """PNG's row filter `kind` applied (the encoder side: the decoder must undo it)."""
    out = bytearray(len(row))
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        if kind == 0:
            p = 0
        elif kind == 1:
            p = a
        elif kind == 2:
            p = b
        elif kind == 3:
            p = (a + b) >> 1
        else:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            p = a if pa <= pb and pa <= pc else b if pb <= pc else c
        out[i] = (x - p) & 0xFF
    return bytes(out)


def make_png(
    arr: np.ndarray,
    color: int,
    depth: int = 8,
    *,
    palette: bytes | None = None,
    trns: bytes | None = None,
    interlace: int = 0,
    filters=(0,),
    level: int = 6,
    idat_parts: int = 1,
    extra: tuple = (),
) -> bytes:
    """A PNG of `arr` (HxW samples, or HxWxN) written here, independently of both decoders."""
    h, w = arr.shape[:2]
    n = arr.shape[2] if arr.ndim == 3 else 1
    bpp = max(1, depth * n // 8)
    passes = (
        [
            (0, 0, 8, 8),
            (4, 0, 8, 8),
            (0, 4, 4, 8),
            (2, 0, 4, 4),
            (0, 2, 2, 4),
            (1, 0, 2, 2),
            (0, 1, 1, 2),
        ]
        if interlace
        else [(0, 0, 1, 1)]
    )
    raw = b""
    k = 0
    for x0, y0, dx, dy in passes:
        sub = arr[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        prev = b""
        for row in _rows(sub.reshape(sub.shape[0], -1), depth):
            kind = filters[k % len(filters)]
            k += 1
            raw += bytes([kind]) + _filter(row, prev, kind, bpp)
            prev = row
    data = zlib.compress(raw, level)
    cut = [len(data) * i // idat_parts for i in range(idat_parts + 1)]
    out = b"\x89PNG\r\n\x1a\n" + _chunk(
        b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, interlace)
    )
    for kind, body in extra:
        out += _chunk(kind, body)
    if palette is not None:
        out += _chunk(b"PLTE", palette)
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    for i in range(idat_parts):
        out += _chunk(b"IDAT", data[cut[i] : cut[i + 1]])
    return out + _chunk(b"IEND", b"")


def opencv(data: bytes):
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)


def core(data: bytes, max_pixels: int = BIG, max_bytes: int | None = 4 * BIG):
    return _core.decode_image(data, "test.png", max_pixels, max_bytes)


def assert_same(data: bytes) -> None:
    got, want = core(data), opencv(data)
    assert isinstance(got, np.ndarray), type(got)
    assert want is not None
    assert got.dtype == np.uint8 and got.shape == want.shape and got.flags.c_contiguous
    assert np.array_equal(got, want)


def _cases():
    rng = np.random.default_rng(7)
    cases = []
    for interlace in (0, 1):
        for filters in ((0,), (1,), (2,), (3,), (4,), (0, 1, 2, 3, 4)):
            tag = f"i{interlace}-f{''.join(map(str, filters))}"
            for color, depth, n in (
                (0, 8, 1),
                (0, 1, 1),
                (0, 2, 1),
                (0, 4, 1),
                (2, 8, 3),
                (4, 8, 2),
                (6, 8, 4),
            ):
                shape = (19, 23, n) if n > 1 else (19, 23)
                arr = rng.integers(0, 2**depth, shape)
                cases.append(
                    (
                        f"{tag}-c{color}-d{depth}",
                        make_png(arr, color, depth, interlace=interlace, filters=filters),
                    )
                )
            for depth in (1, 2, 4, 8):
                entries = min(2**depth, 256)
                pal = bytes(rng.integers(0, 256, 3 * entries).tolist())
                arr = rng.integers(0, entries, (13, 29))
                cases.append(
                    (
                        f"{tag}-pal{depth}",
                        make_png(arr, 3, depth, palette=pal, interlace=interlace, filters=filters),
                    )
                )
                alpha = bytes(rng.integers(0, 256, max(1, entries // 2)).tolist())
                cases.append(
                    (
                        f"{tag}-pal{depth}-trns",
                        make_png(
                            arr,
                            3,
                            depth,
                            palette=pal,
                            trns=alpha,
                            interlace=interlace,
                            filters=filters,
                        ),
                    )
                )
        # tRNS on grey (OpenCV ignores it: grey) and on RGB (a colour key: BGRA).
        g = rng.integers(0, 256, (11, 13))
        g[0, 0] = 7
        cases.append((f"{tag}-grey-trns", make_png(g, 0, trns=b"\x00\x07", filters=filters)))
        rgb = rng.integers(0, 256, (11, 13, 3))
        rgb[0, 0] = (1, 2, 3)
        cases.append(
            (
                f"{tag}-rgb-trns",
                make_png(rgb, 2, trns=b"\x00\x01\x00\x02\x00\x03", interlace=interlace),
            )
        )
    # Deflate's three block kinds (stored: level 0; fixed codes: small data; dynamic: the rest),
    # streams cut across several IDAT chunks, sizes around Adam7's 8-pixel steps, and ancillary
    # chunks (text, gamma, a suggested palette) that change nothing.
    arr = rng.integers(0, 256, (40, 70, 3))
    cases.append(("stored", make_png(arr, 2, level=0)))
    cases.append(("fixed", make_png(np.full((3, 5), 7), 0, level=9)))
    cases.append(("idat-x5", make_png(arr, 2, idat_parts=5)))
    cases.append(("idat-x5-stored", make_png(arr, 2, level=0, idat_parts=5)))
    text = ((b"tEXt", b"Comment\x00edgeocr"), (b"gAMA", struct.pack(">I", 45455)))
    cases.append(("ancillary", make_png(arr, 2, extra=text, palette=bytes(range(48)))))
    for w, h in ((1, 1), (1, 9), (9, 1), (8, 8), (9, 9), (17, 3)):
        a = rng.integers(0, 256, (h, w, 4))
        cases.append((f"rgba-{w}x{h}-i", make_png(a, 6, interlace=1, filters=(4,))))
    return cases


CASES = _cases()


@pytest.mark.parametrize("name,data", CASES, ids=[c[0] for c in CASES])
def test_the_pixels_are_opencvs(name, data):
    assert_same(data)


def test_real_pages_decode_as_opencv_decodes_them():
    files = sorted(DATA.glob("*.png"))
    dev_images = shared_fixture("datasets/dev/images", optional=True)
    if dev_images:
        files += sorted(dev_images.glob("*.png"))
    assert files
    for f in files:
        assert_same(f.read_bytes())


def _left(data: bytes, **kw) -> str:
    """Why the core leaves ``data`` to other decoders (its UnsupportedError's message)."""
    with pytest.raises(edgeocr.UnsupportedError) as e:
        core(data, **kw)
    assert "test.png" in str(e.value) and not isinstance(e.value, edgeocr.InvalidInputError)
    return str(e.value)


def _refused(data: bytes, **kw) -> str:
    with pytest.raises(edgeocr.InvalidInputError) as e:
        core(data, **kw)
    return str(e.value)


def test_what_it_does_not_read_is_left_to_load_images_other_decoders():
    rng = np.random.default_rng(3)
    gray = rng.integers(0, 256, (6, 9))
    cases = {
        "16-bit": make_png(rng.integers(0, 65536, (6, 9)), 0, 16),
        "animated": make_png(gray, 0, extra=((b"acTL", struct.pack(">II", 1, 0)),)),
    }
    for why, data in cases.items():
        assert why.split()[0].lower() in _left(data).lower(), why
        # load_image gives what OpenCV (or Pillow) gives for these files, as it did before.
        want = opencv(data)
        if want is not None and want.dtype == np.uint8:
            assert np.array_equal(load_image_bytes(data), want), why


def test_damaged_files_are_refused_by_python_and_the_core_alike():
    rng = np.random.default_rng(3)
    gray = rng.integers(0, 256, (6, 9))
    good = make_png(gray, 0)
    # A CRC, the Adler-32 check, the file cut short, a wrong filter type, a misplaced chunk, an
    # unknown critical chunk.
    bad_crc = bytearray(good)
    bad_crc[30] ^= 1  # IHDR's CRC
    assert "checksum" in _refused(bytes(bad_crc))
    n = good.index(b"IDAT") + 4
    ln = struct.unpack(">I", good[n - 8 : n - 4])[0]
    body = bytearray(good[n : n + ln])
    body[-1] ^= 0xFF  # the last byte of the Adler-32 check
    fixed = good[: n - 8] + _chunk(b"IDAT", bytes(body)) + good[n + ln + 4 :]
    assert "IDAT stream error" in _refused(fixed)  # zlib: incorrect data check
    for cut in (8, 20, 33, len(good) - 20, len(good) - 17):  # in the header or the image data
        assert "test.png: not a readable image: libspng" in _refused(good[:cut])
    for cut in (len(good) - 12, len(good) - 1):  # after the image data: IEND cut off
        assert np.array_equal(core(good[:cut]), opencv(good))
    assert "filter" in _refused(_bad_filter(gray))
    _refused(good[:8] + _chunk(b"tEXt", b"a\x00b") + good[8:])
    assert "unknown critical chunk" in _refused(make_png(gray, 0, extra=((b"ABCD", b"x"),)))
    # A palette index outside the palette reads black, as libpng (OpenCV) reads it.
    assert_same(make_png(np.array([[0, 1, 5]]), 3, palette=bytes(range(9))))
    # load_image refuses them with the same reason, naming what it read.
    with pytest.raises(edgeocr.InvalidInputError, match="checksum"):
        load_image_bytes(bytes(bad_crc), "page.png")


def _bad_filter(gray: np.ndarray) -> bytes:
    raw = b"".join(b"\x07" + bytes(int(v) for v in r) for r in gray)
    h, w = gray.shape
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
        + _chunk(b"IDAT", zlib.compress(raw))
        + _chunk(b"IEND", b"")
    )


def test_the_caps_are_checked_before_anything_is_allocated():
    # A 50-byte header claiming 2^31-1 x 2^31-1 pixels, and a real 300 x 1000 image.
    huge = b"\x89PNG\r\n\x1a\n" + _chunk(
        b"IHDR", struct.pack(">IIBBBBB", 2**31 - 1, 2**31 - 1, 8, 2, 0, 0, 0)
    )
    huge += _chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + _chunk(b"IEND", b"")
    assert "more than the limit" in _refused(huge)
    big = make_png(np.zeros((300, 1000), np.uint8), 0, level=9)
    assert "limit" in _refused(big, max_pixels=299_999)
    # What it holds (csrc/codec/decode.h): the 300,000-byte result and three rows of at most 8
    # bytes a pixel; one byte less is refused, with the sizes.
    held = 300_000 + 3 * (1000 * 8 + 1)
    assert "MiB" in _refused(big, max_pixels=300_000, max_bytes=held - 1)
    assert core(big, max_pixels=300_000, max_bytes=held).shape == (300, 1000)
    # The default byte cap follows the pixel cap: 4 bytes a pixel and 64 MiB for rows and state,
    # so an RGBA image of exactly the allowed pixels decodes (the hand-written decoder held its
    # inflated rows too and refused it).
    rgba = make_png(np.zeros((300, 1000, 4), np.uint8), 6, level=9)
    assert _core.default_max_decode_bytes(300_000) == 300_000 * 4 + (64 << 20)
    assert core(rgba, max_pixels=300_000, max_bytes=None).shape == (300, 1000, 4)
    # A zlib bomb: a tiny IDAT that inflates to more than the image holds is read only as far as
    # the image needs (libspng stops inflating there), as OpenCV reads it.
    bomb = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 10, 10, 8, 0, 0, 0, 0))
    bomb += _chunk(b"IDAT", zlib.compress(b"\x00" * 50_000_000, 9)) + _chunk(b"IEND", b"")
    assert np.array_equal(core(bomb), np.zeros((10, 10), np.uint8))
    # A compressed text chunk that inflates past libspng's 8 MiB chunk cache is refused.
    ztxt = b"Comment\x00\x00" + zlib.compress(b"a" * (9 << 20), 9)
    assert "limit" in _refused(make_png(np.zeros((2, 2)), 0, extra=((b"zTXt", ztxt),)))
    # Python's limits are the decoder's: the pixel cap error names the size as before.
    with pytest.raises(edgeocr.InvalidInputError, match="pixel"):
        load_image_bytes(big, max_pixels=1000)


_MUTATE = r"""
import struct, sys, zlib, numpy as np, edgeocr, edgeocr._core as C
data = open(sys.argv[1], "rb").read()
rng = np.random.default_rng(int(sys.argv[2]))


def fix_crcs(b):
    pos = 8
    while pos + 12 <= len(b):
        n = struct.unpack(">I", b[pos : pos + 4])[0]
        if pos + 12 + n > len(b):
            break
        b[pos + 8 + n : pos + 12 + n] = struct.pack(">I", zlib.crc32(b[pos + 4 : pos + 8 + n]))
        pos += 12 + n


decoded = 0
for i in range(600):
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 8))):
        k = int(rng.integers(8, len(b)))
        b[k] = int(rng.integers(0, 256))
    if i % 2 == 0:  # CRCs right again: the change reaches the header checks, inflate, the filters
        fix_crcs(b)
    if i % 5 == 0:
        b = b[: int(rng.integers(8, len(b)))]
    try:
        r = C.decode_image(bytes(b), "mutated.png", 10**6, 4 * 10**6)
    except (edgeocr.InvalidInputError, edgeocr.UnsupportedError):
        continue
    decoded += 1
    assert isinstance(r, np.ndarray) and r.dtype == np.uint8 and r.size <= 4 * 10**6
print(decoded)
"""


def test_damaged_files_are_declined_or_decoded_within_limits(tmp_path):
    """Random byte changes and cuts of real PNGs, decoded in a child under the address-space,
    CPU and wall-clock limits (tests/python/limits.py): no crash, no hang, nothing above the
    caps. CRCs make most changes refused; the rest exercise inflate and the filters."""
    script = tmp_path / "mutate.py"
    script.write_text(_MUTATE)
    seeds = [
        make_png(
            np.random.default_rng(1).integers(0, 256, (40, 50, 3)), 2, filters=(0, 1, 2, 3, 4)
        ),
        make_png(
            np.random.default_rng(2).integers(0, 4, (33, 31)), 3, 2, palette=bytes(12), interlace=1
        ),
    ]
    for i, seed in enumerate(seeds):
        f = tmp_path / f"seed{i}.png"
        f.write_bytes(seed)
        o = run_limited([sys.executable, str(script), str(f), str(i)])
        assert o.returncode == 0 and not o.timed_out, o.describe()


def test_predict_reads_a_png_the_same_by_path_bytes_and_array(tmp_path):
    p = edgeocr.Predictor(threads=1)
    for name in ("sample_en.png", "sample_en_blur.png"):
        path = DATA / name
        want = p.engine.run(opencv(path.read_bytes()))
        for got in (
            p.predict(str(path)),
            p.predict(path.read_bytes()),
            p.predict(load_image(path)),
        ):
            assert [ln.to_dict() for ln in got.lines] == [ln.to_dict() for ln in want.lines]
            assert got.image_size == want.image_size
        assert p.predict(str(path)).source == str(path)
    # A PNG the core leaves to others (16-bit) is read through OpenCV, as before.
    deep = make_png(
        (opencv((DATA / "sample_en.png").read_bytes())[:, :, 1].astype(np.uint16) * 257), 0, 16
    )
    _left(deep)
    (tmp_path / "deep.png").write_bytes(deep)
    assert p.predict(str(tmp_path / "deep.png")).text


def test_boxes_are_arrays_when_read():
    p = edgeocr.Predictor(threads=1)
    r = p.predict(str(DATA / "sample_en.png"))
    line = r.lines[0]
    assert isinstance(line.box, np.ndarray) and line.box.dtype == np.float32
    assert line.box.shape == (4, 2) and line.words[0].box.shape == (4, 2)
    assert r.boxes.shape == (len(r.lines), 4, 2)
    want = [[round(float(x), 2), round(float(y), 2)] for x, y in line.box]
    assert json.loads(r.to_json())["lines"][0]["box"] == want


def test_the_c_api_decodes_pngs_with_the_same_decoder(ocr_demo, tmp_path):
    """ocr_demo hands a PNG's bytes to edgeocr_predictor_predict_encoded: the Python lines."""
    png = DATA / "sample_en_blur.png"
    env = dict(os.environ, EDGEOCR_ORT_LIBRARY=edgeocr.runtime_info()["library_path"])
    paths = model_set_paths("ppocr-v6-tiny-recheck")
    args = [str(ocr_demo), "--det", paths["det"], "--cls", paths["cls"], "--rec", paths["rec"]]
    args += ["--keys", paths["keys"], "--recheck", paths["recheck"], "--threads", "1"]
    r = subprocess.run([*args, str(png)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    got = [line.split("\t") for line in r.stdout.splitlines() if "\t" in line]
    want = edgeocr.Predictor(threads=1).predict(str(png)).lines
    assert [g[2] for g in got] == [ln.text for ln in want]
    assert [float(g[0]) for g in got] == pytest.approx([ln.score for ln in want], abs=1e-4)
    # A damaged one: INVALID_ARGUMENT with the library's reason, exit status 1; Python refuses it
    # for the same reason.
    damaged = tmp_path / "cut.png"
    damaged.write_bytes(png.read_bytes()[:100])
    r = subprocess.run([*args, str(damaged)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 1 and "INVALID_ARGUMENT" in r.stderr and "damaged" in r.stderr
    reason = r.stderr.split("libspng: ")[1].strip()
    with pytest.raises(edgeocr.InvalidInputError, match=reason):
        edgeocr.Predictor(threads=1).predict(str(damaged))
