"""The core's JPEG decoder (csrc/codec/decode.h: libjpeg-turbo), one decoder for Python and the C
API.

Differential: every JPEG it reads gives the pixels OpenCV's imdecode gives (OpenCV's wheel bundles
its own libjpeg-turbo build, a newer version: the same integer IDCT and fancy upsampling give the
same pixels), on files written here by OpenCV's and Pillow's encoders (every chroma sampling,
baseline, progressive, optimised, restart markers, grey, CMYK, odd sizes, the eight EXIF
orientations) and on the dev set's photos. A damaged file is refused by Python and C alike;
hostile files run in a child under limits.
"""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
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


def core(data: bytes, max_pixels: int = BIG, max_bytes: int | None = None):
    return _core.decode_image(data, "test.jpg", max_pixels, max_bytes)


def _refused(data: bytes, **kw) -> str:
    with pytest.raises(edgeocr.InvalidInputError) as e:
        core(data, **kw)
    return str(e.value)


def _orientation(data: bytes) -> int:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        return im.getexif().get(0x0112, 1)


def opencv(data: bytes):
    """OpenCV's pixels: IMREAD_UNCHANGED, or (a file with an EXIF orientation) the flag that
    applies it and keeps grey as grey (every flag but IMREAD_UNCHANGED applies it)."""
    buf = np.frombuffer(data, np.uint8)
    if _orientation(data) == 1:
        return cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    grey = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED).ndim == 2
    return cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE if grey else cv2.IMREAD_COLOR)


def assert_same(data: bytes) -> None:
    got, want = core(data), opencv(data)
    assert isinstance(got, np.ndarray), type(got)
    assert want is not None
    assert got.dtype == np.uint8 and got.shape == want.shape and got.flags.c_contiguous
    assert np.array_equal(got, want)


def _photo(h: int, w: int, seed: int) -> np.ndarray:
    """A smooth colour gradient with noise and hard edges (chroma upsampling shows on edges)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) % 256], -1)
    img = img + rng.integers(-20, 20, img.shape)
    img[h // 3 : h // 2, w // 4 : w // 2] = (20, 200, 40)
    return np.clip(img, 0, 255).astype(np.uint8)


def _cv2(img, **params) -> bytes:
    flags = []
    for k, v in params.items():
        flags += [getattr(cv2, k), v]
    ok, enc = cv2.imencode(".jpg", img, flags)
    assert ok
    return enc.tobytes()


def _pil(img, **kw) -> bytes:
    from PIL import Image

    b = io.BytesIO()
    mode = kw.pop("mode", None)
    im = Image.fromarray(img[:, :, ::-1] if img.ndim == 3 else img)
    if mode:
        im = im.convert(mode)
    im.save(b, "JPEG", **kw)
    return b.getvalue()


def _cases():
    cases = []
    sampling = {
        "444": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444,
        "422": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_422,
        "420": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420,
        "440": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_440,
        "411": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_411,
    }
    for h, w in ((37, 53), (64, 64), (1, 1), (17, 9)):
        img = _photo(h, w, h * w)
        for name, f in sampling.items():
            cases.append((f"cv2-{w}x{h}-{name}", _cv2(img, IMWRITE_JPEG_SAMPLING_FACTOR=f)))
            cases.append(
                (
                    f"cv2-{w}x{h}-{name}-progressive",
                    _cv2(img, IMWRITE_JPEG_SAMPLING_FACTOR=f, IMWRITE_JPEG_PROGRESSIVE=1),
                )
            )
        cases.append((f"cv2-{w}x{h}-grey", _cv2(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))))
        cases.append(
            (
                f"cv2-{w}x{h}-q30-rst",
                _cv2(img, IMWRITE_JPEG_QUALITY=30, IMWRITE_JPEG_RST_INTERVAL=2),
            )
        )
        cases.append((f"cv2-{w}x{h}-optimize", _cv2(img, IMWRITE_JPEG_OPTIMIZE=1)))
        cases.append((f"pil-{w}x{h}-cmyk", _pil(img, mode="CMYK", quality=90)))
        cases.append((f"pil-{w}x{h}-progressive", _pil(img, progressive=True, subsampling=2)))
        cases.append((f"pil-{w}x{h}-grey-progressive", _pil(img, mode="L", progressive=True)))
    return cases


CASES = _cases()


@pytest.mark.parametrize("name,data", CASES, ids=[c[0] for c in CASES])
def test_the_pixels_are_opencvs(name, data):
    assert_same(data)


def _with_orientation(data: bytes, orientation: int) -> bytes:
    """The JPEG with an APP1 EXIF block (big-endian TIFF) holding only the Orientation tag."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
    tiff += struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    body = b"Exif\x00\x00" + tiff
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body + data[2:]


@pytest.mark.parametrize("orientation", range(1, 9))
def test_the_exif_orientation_is_applied_as_opencv_applies_it(orientation):
    img = _photo(24, 40, 5)
    for data in (_cv2(img), _cv2(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))):
        turned = _with_orientation(data, orientation)
        assert _orientation(turned) == orientation  # Pillow reads the tag as written
        assert_same(turned)
        got = core(turned)
        assert got.shape[:2] == ((40, 24) if orientation >= 5 else (24, 40))
    # A little-endian EXIF block from Pillow's writer, and a damaged one (ignored: as stored).
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = 6
    assert core(_pil(img, exif=exif.tobytes())).shape[:2] == (40, 24)
    broken = _with_orientation(_cv2(img), 6)
    broken = broken.replace(b"MM\x00\x2a\x00\x00\x00\x08", b"MM\x00\x2a\x7f\xff\xff\xff")
    assert core(broken).shape[:2] == (24, 40)


def test_the_dev_sets_photos_decode_as_opencv_decodes_them():
    files = sorted(DATA.rglob("*.jpg"))
    dev_images = shared_fixture("datasets/dev/images", optional=True)
    if dev_images:
        files += sorted(dev_images.glob("*.jpg"))
    decoded = 0
    for f in files:
        data = f.read_bytes()
        try:
            got = core(data)
        except edgeocr.InvalidInputError:
            continue  # the damaged files of tests/data/malformed (below)
        except edgeocr.UnsupportedError:
            continue  # left to other decoders
        want = opencv(data)
        assert want is not None and np.array_equal(got, want), f
        decoded += 1
    assert decoded >= 3


def test_damaged_files_are_refused_by_python_and_the_core_alike():
    good = _cv2(_photo(64, 64, 1))
    # Cut in the headers, cut in the scan, a bad Huffman code in the scan: refused with
    # libjpeg-turbo's reason (not decoded with grey where the data was, as OpenCV does).
    assert "libjpeg-turbo" in _refused(good[:40])
    assert "premature end of data segment" in _refused(good[: len(good) // 2])
    sos = good.index(b"\xff\xda")
    bad = bytearray(good)
    bad[sos + 40 : sos + 60] = b"\xff" * 20
    _refused(bytes(bad))
    # What follows the last scan changes no pixel: a missing EOI, trailing bytes.
    assert np.array_equal(core(good[:-2]), opencv(good))
    assert np.array_equal(core(good + b"trailing"), opencv(good))
    # A progressive file cut between two scans loses the later scans without a warning: without
    # its EOI marker it is refused.
    progressive = _cv2(_photo(64, 64, 1), IMWRITE_JPEG_PROGRESSIVE=1)
    assert np.array_equal(core(progressive), opencv(progressive))
    assert "no EOI" in _refused(progressive[: progressive.rindex(b"\xff\xda")])
    # load_image refuses them with the same reason, naming what it read.
    with pytest.raises(edgeocr.InvalidInputError, match="photo.jpg: not a readable image"):
        load_image_bytes(good[: len(good) // 2], "photo.jpg")


def test_what_it_does_not_read_is_left_to_load_images_other_decoders():
    # A lossless (SOF3) JPEG: libjpeg-turbo 2.1 does not decode the process.
    good = _cv2(_photo(16, 16, 2))
    sof = good.index(b"\xff\xc0")
    lossless = good[:sof] + b"\xff\xc3" + good[sof + 2 :]
    with pytest.raises(edgeocr.UnsupportedError, match="Unsupported JPEG process") as e:
        core(lossless)
    assert not isinstance(e.value, edgeocr.InvalidInputError)  # not refused: left to others


def test_the_caps_are_checked_before_anything_is_allocated():
    img = _photo(300, 1000, 3)
    baseline = _cv2(img, IMWRITE_JPEG_SAMPLING_FACTOR=cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444)
    progressive = _cv2(
        img,
        IMWRITE_JPEG_SAMPLING_FACTOR=cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444,
        IMWRITE_JPEG_PROGRESSIVE=1,
    )
    assert "more than the limit" in _refused(baseline, max_pixels=299_999)
    # A progressive file holds its coefficients too (3 x 300,000 samples, 2 bytes each): under
    # a byte cap the baseline file fits, it does not.
    cap = 2_500_000
    assert core(baseline, max_bytes=cap).shape == (300, 1000, 3)
    assert "MiB" in _refused(progressive, max_bytes=cap)
    assert core(progressive, max_bytes=cap + 1_800_000).shape == (300, 1000, 3)
    # A header claiming 65000 x 65000 over a small scan (tests/data/malformed).
    claim = (DATA / "malformed" / "huge_header_65000x65000.jpg").read_bytes()
    assert "65000x65000 pixels is more than the limit" in _refused(claim)


def test_a_scan_bomb_is_refused():
    """A progressive file of a thousand scans (each a pass over the whole image): refused at
    csrc/codec/decode.h's kMaxJpegScans, not decoded for minutes."""
    data = _cv2(_photo(32, 32, 4), IMWRITE_JPEG_PROGRESSIVE=1)
    # The first scan (DC coefficients), up to the next marker, repeated: each copy decodes (a
    # repeated scan is only a libjpeg warning about the progression).
    first = data.index(b"\xff\xda")
    end = first + 2
    while not (data[end] == 0xFF and data[end + 1] not in (0, *range(0xD0, 0xD8))):
        end += 1
    scan = data[first:end]
    assert np.array_equal(core(data[:end] + scan * 10 + data[end:]), opencv(data))
    assert "more than 500 scans" in _refused(data[:end] + scan * 1000 + data[end:])


_MUTATE = r"""
import sys, numpy as np, edgeocr, edgeocr._core as C
data = open(sys.argv[1], "rb").read()
rng = np.random.default_rng(int(sys.argv[2]))
decoded = 0
for i in range(400):
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 8))):
        k = int(rng.integers(3, len(b)))
        b[k] = int(rng.integers(0, 256))
    if i % 5 == 0:
        b = b[: int(rng.integers(3, len(b)))]
    try:
        r = C.decode_image(bytes(b), "mutated.jpg", 10**6, 4 * 10**6)
    except (edgeocr.InvalidInputError, edgeocr.UnsupportedError):
        continue
    decoded += 1
    assert isinstance(r, np.ndarray) and r.dtype == np.uint8 and r.size <= 4 * 10**6
print(decoded)
"""


def test_damaged_files_are_refused_or_decoded_within_limits(tmp_path):
    """Random byte changes and cuts of real JPEGs (baseline, progressive, CMYK), decoded in a child
    under the address-space, CPU and wall-clock limits (tests/python/limits.py)."""
    script = tmp_path / "mutate.py"
    script.write_text(_MUTATE)
    img = _photo(40, 56, 6)
    seeds = [_cv2(img), _cv2(img, IMWRITE_JPEG_PROGRESSIVE=1), _pil(img, mode="CMYK")]
    for i, seed in enumerate(seeds):
        f = tmp_path / f"seed{i}.jpg"
        f.write_bytes(seed)
        o = run_limited([sys.executable, str(script), str(f), str(i)])
        assert o.returncode == 0 and not o.timed_out, o.describe()


def test_predict_reads_a_jpeg_the_same_by_path_bytes_and_array(tmp_path):
    p = edgeocr.Predictor(threads=1)
    page = cv2.imread(str(DATA / "sample_en.png"))
    path = tmp_path / "sample_en.jpg"
    path.write_bytes(_cv2(page, IMWRITE_JPEG_QUALITY=92))
    want = p.engine.run(opencv(path.read_bytes()))
    assert want.text
    for got in (p.predict(str(path)), p.predict(path.read_bytes()), p.predict(load_image(path))):
        assert [ln.to_dict() for ln in got.lines] == [ln.to_dict() for ln in want.lines]
        assert got.image_size == want.image_size
    # A photo stored sideways with its orientation tag reads as the upright page does.
    sideways = cv2.rotate(page, cv2.ROTATE_90_COUNTERCLOCKWISE)  # orientation 6 turns it back
    turned = tmp_path / "sideways.jpg"
    turned.write_bytes(_with_orientation(_cv2(sideways, IMWRITE_JPEG_QUALITY=92), 6))
    r = p.predict(str(turned))
    assert (
        r.image_size == want.image_size and r.text == p.engine.run(opencv(turned.read_bytes())).text
    )


def test_the_c_api_decodes_jpegs_with_the_same_decoder(ocr_demo, tmp_path):
    """ocr_demo hands a JPEG's bytes to edgeocr_predictor_predict_encoded: the Python lines."""
    page = cv2.imread(str(DATA / "sample_en_blur.png"))
    jpg = tmp_path / "page.jpg"
    jpg.write_bytes(_cv2(page, IMWRITE_JPEG_QUALITY=90, IMWRITE_JPEG_PROGRESSIVE=1))
    env = dict(os.environ, EDGEOCR_ORT_LIBRARY=edgeocr.runtime_info()["library_path"])
    paths = model_set_paths("ppocr-v6-tiny-recheck")
    args = [str(ocr_demo), "--det", paths["det"], "--cls", paths["cls"], "--rec", paths["rec"]]
    args += ["--keys", paths["keys"], "--recheck", paths["recheck"], "--threads", "1"]
    r = subprocess.run([*args, str(jpg)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    got = [line.split("\t") for line in r.stdout.splitlines() if "\t" in line]
    want = edgeocr.Predictor(threads=1).predict(str(jpg)).lines
    assert want and [g[2] for g in got] == [ln.text for ln in want]
    assert [float(g[0]) for g in got] == pytest.approx([ln.score for ln in want], abs=1e-4)
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(jpg.read_bytes()[:300])
    r = subprocess.run([*args, str(cut)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 1 and "INVALID_ARGUMENT" in r.stderr and "damaged" in r.stderr


def test_the_decode_benchmark_checks_and_times_both_decoders(tmp_path):
    """benchmarks/decode.py on a PNG and a JPEG: same pixels, one row per format."""
    jpg = tmp_path / "page.jpg"
    jpg.write_bytes(_cv2(cv2.imread(str(DATA / "sample_en.png"))))
    out = tmp_path / "decode.json"
    r = subprocess.run(
        [sys.executable, str(DATA.parents[1] / "benchmarks" / "decode.py"), "--runs", "1"]
        + [str(DATA / "sample_en.png"), str(jpg), "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    import json

    rows = json.loads(out.read_text())
    assert set(rows) == {"PNG", "JPEG"} and all(v["files"] == 1 for v in rows.values())
