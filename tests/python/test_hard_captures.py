"""Transparency, image modes and low-contrast captures (rendered by tools/make_test_images.py)."""

import json
from pathlib import Path

import default_goldens
import numpy as np
import pytest
from conftest import model_set_paths
from PIL import Image

import edgeocr
from edgeocr import InvalidInputError
from edgeocr.evaluate import normalize_text

DATA = Path(__file__).resolve().parents[1] / "data"
EXPECTED = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))
LINES = [normalize_text(t) for t in EXPECTED["sample_en.png"]["lines"]]


def texts(result):
    return [normalize_text(line.text) for line in result.lines]


@pytest.mark.parametrize(
    "name, mode",
    [
        ("sample_en_alpha_dark.png", "RGBA"),  # dark ink on a transparent background
        ("sample_en_alpha_light.png", "RGBA"),  # light ink on a transparent background
        ("sample_en_la.png", "LA"),
        ("sample_en_palette_alpha.png", "P"),
    ],
)
def test_transparent_background_is_read(predictor, name, mode):
    with Image.open(DATA / name) as im:
        assert im.mode == mode
    assert texts(predictor.predict(DATA / name)) == LINES


def test_alpha_dropped_would_read_nothing(predictor):
    # Why compositing matters: the transparent pixels of the dark-ink file are black, like the ink.
    bgra = edgeocr.image_io.load_image(DATA / "sample_en_alpha_dark.png")
    assert bgra.shape[2] == 4
    assert texts(predictor.predict(np.ascontiguousarray(bgra[:, :, :3]))) == []
    assert texts(predictor.predict(bgra)) == LINES


def test_gray_alpha_arrays_and_pil_images(predictor):
    with Image.open(DATA / "sample_en_la.png") as im:
        im.load()
        la = np.asarray(im)
        assert la.shape[2] == 2
        assert texts(predictor.predict(la)) == LINES  # (H, W, 2): gray + alpha
        assert texts(predictor.predict(im)) == LINES
        assert texts(predictor.predict(im.convert("La"))) == LINES  # premultiplied
        pa = Image.merge("PA", (Image.new("P", im.size, 0), im.getchannel("A")))  # palette + alpha
        pa.putpalette([20, 20, 20] * 256)
        assert texts(predictor.predict(pa)) == LINES
    with Image.open(DATA / "sample_en_palette_alpha.png") as im:
        assert texts(predictor.predict(im.convert("PA"))) == LINES


@pytest.fixture(scope="module")
def default_predictor():
    from edgeocr.models import DEFAULT_MODEL_SET

    model_set_paths(DEFAULT_MODEL_SET)
    return edgeocr.Predictor(threads=2)


def _strip(text="TREND PLOT REPORT", w=300, h=27):
    """A grey label of RapidOCR's 2-channel test image's size (27 x 300), dark ink on white."""
    from PIL import ImageDraw, ImageFont

    im = Image.new("L", (w, h), 255)
    ImageDraw.Draw(im).text((8, 3), text, fill=20, font=ImageFont.load_default(size=18))
    return np.asarray(im)


def test_two_channel_strip_reads_as_its_grey_and_its_png(default_predictor, tmp_path):
    # Predictor()'s det enlarges this strip at most 1.5x: rounding 40 px to the nearest multiple
    # of 32 read it at 1.19x and found "TR" alone in every one of these forms (issue 36).
    grey = _strip()
    want = [normalize_text("TREND PLOT REPORT")]
    assert texts(default_predictor.predict(grey)) == want
    opaque = np.full_like(grey, 255)
    # Grey + alpha: opaque, and ink carried by alpha alone over black or white grey (the grey
    # under a transparent pixel is whatever the writer left there).
    forms = {
        "opaque": np.dstack([grey, opaque]),
        "alpha ink, black": np.dstack([np.zeros_like(grey), 255 - grey]),
        "alpha ink, white": np.dstack([np.full_like(grey, 255), 255 - grey]),
    }
    for name, la in forms.items():
        assert la.shape == (27, 300, 2)
        got = default_predictor.predict(np.ascontiguousarray(la))
        png = tmp_path / f"{name.replace(' ', '_').replace(',', '')}.png"
        Image.fromarray(la, "LA").save(png)
        with Image.open(png) as im:
            assert im.mode == "LA"
        from_png = default_predictor.predict(png)  # the core's PNG decoder: grey + alpha as BGRA
        assert texts(got) == texts(from_png) == want, name
        for a, b in zip(got.lines, from_png.lines):
            assert np.allclose(a.box, b.box, atol=1.0), name
    assert texts(default_predictor.predict(grey[:, :, None])) == want  # (H, W, 1)
    bgra = np.dstack([grey, grey, grey, opaque])
    assert texts(default_predictor.predict(bgra)) == want  # (H, W, 4)
    assert texts(default_predictor.predict(np.ascontiguousarray(bgra[:, :, :3]))) == want


@pytest.mark.parametrize(
    "mode", ["1", "L", "P", "RGB", "RGBX", "CMYK", "YCbCr", "LAB", "HSV", "I", "F", "I;16"]
)
def test_every_pil_mode_that_carries_an_image(predictor, mode):
    with Image.open(DATA / "sample_en.png") as im:
        src = im.convert("RGB")
    if mode in ("I", "F", "I;16"):
        conv = src.convert("L").convert(mode)
        if mode == "I;16":
            conv = Image.fromarray(np.asarray(src.convert("L")).astype(np.uint16) * 257)
            assert conv.mode.startswith("I;16")
    else:
        conv = src.convert(mode)
    r = predictor.predict(conv)
    if mode in ("1", "LAB", "HSV"):  # lossy or not a picture of the page's colours
        assert len(r.lines) >= 1
    else:
        assert texts(r) == LINES, mode


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64", "uint16", "uint32", "uint64"])
def test_integer_arrays_of_8_bit_pixels_read_as_uint8(predictor, dtype):
    # np.asarray(img, int) or arithmetic on uint8 pixels: scaled by the dtype's range these read
    # as black (an empty result); they are read by value.
    with Image.open(DATA / "sample_en.png") as im:
        bgr = np.asarray(im.convert("RGB"))[:, :, ::-1]
    assert texts(predictor.predict(bgr.astype(dtype))) == LINES
    if dtype in ("uint16", "int32", "uint32", "int64", "uint64"):  # 16-bit samples, by 65535
        assert texts(predictor.predict(bgr.astype(dtype) * 257)) == LINES


@pytest.mark.parametrize("mode", ["I;16", "I;16B", "I;16L"])
def test_pil_16_bit_modes_of_8_bit_values_are_read(predictor, mode):
    # Pillow's convert() from L keeps the values 0..255 in a 16-bit mode.
    with Image.open(DATA / "sample_en.png") as im:
        conv = im.convert("L").convert(mode)
    assert conv.mode == mode and np.asarray(conv).max() <= 255
    assert texts(predictor.predict(conv)) == LINES


@pytest.mark.parametrize("scale", [1.0, 255.0])
@pytest.mark.parametrize("fmt", ["TIFF", "PFM"])
def test_float_image_files_are_read(predictor, fmt, scale):
    # OpenCV decodes these to float32 arrays, which were refused ("image dtype float32 is not
    # supported"); they are read as Pillow's "F" images are: 0..1 or 0..255.
    import cv2

    with Image.open(DATA / "sample_en.png") as im:
        gray = np.asarray(im.convert("L")).astype(np.float32) * (scale / 255.0)
    ok, data = cv2.imencode(".tiff" if fmt == "TIFF" else ".pfm", gray)
    assert ok
    assert texts(predictor.predict(data.tobytes())) == LINES


def test_pil_image_whose_file_cannot_be_decoded_is_invalid_input(predictor, tmp_path):
    data = (DATA / "sample_en.png").read_bytes()
    cut = tmp_path / "cut.png"
    cut.write_bytes(data[: len(data) // 2])
    with Image.open(cut) as im:  # lazy: the header is fine, the pixels are read by predict
        with pytest.raises(InvalidInputError, match="PIL image: cannot read its pixels"):
            predictor.predict(im)
    im = Image.open(DATA / "sample_en.png")
    im.close()
    with pytest.raises(InvalidInputError, match="PIL image: cannot read its pixels"):
        predictor.predict(im)


def test_bad_channel_counts_are_refused(predictor):
    with pytest.raises(InvalidInputError, match="channels"):
        predictor.predict(np.zeros((10, 10, 5), np.uint8))
    with pytest.raises(InvalidInputError, match="empty"):
        predictor.predict(np.zeros((10, 10, 0), np.uint8))


@pytest.mark.parametrize("name", ["sample_en_lowcontrast.png", "sample_en_washed.png"])
def test_low_contrast_pages_are_read(predictor, name):
    assert texts(predictor.predict(DATA / name)) == LINES


def test_washed_out_page_needs_the_stretch(v4_paths):
    # Ink at 245 on paper at 255: the detector finds nothing unless it sees the range stretched.
    off = edgeocr.Predictor(models="ppocr-v4-mobile", threads=2, det_stretch_below=0)
    assert texts(off.predict(DATA / "sample_en_washed.png")) == []
    assert off.config.det_stretch_below == 0


def test_full_range_page_is_untouched_by_the_stretch(predictor, v4_paths):
    # sample_en's ink and paper are far apart: the default settings must not change a single output.
    assert predictor.config.det_stretch_below > 0
    off = edgeocr.Predictor(
        models="ppocr-v4-mobile", threads=2, det_stretch_below=0, rec_stretch_below=0
    )
    a, b = off.predict(DATA / "sample_en.png"), predictor.predict(DATA / "sample_en.png")
    assert [ln.text for ln in a.lines] == [ln.text for ln in b.lines]
    assert [ln.score for ln in a.lines] == [ln.score for ln in b.lines]
    assert all(np.array_equal(x.box, y.box) for x, y in zip(a.lines, b.lines))


@pytest.mark.parametrize("value", [-1, 257])
def test_stretch_settings_are_checked(v4_paths, value):
    with pytest.raises(edgeocr.EdgeOCRError, match="stretch_below"):
        edgeocr.Predictor(models="ppocr-v4-mobile", det_stretch_below=value)


def test_luminance_range_is_the_pipelines_percentiles():
    """The kernel the stretch decides by (bound for benchmarks/combos.py cost): 0.5% each side."""
    from edgeocr._core import kernels

    page = np.full((400, 400), 200, np.uint8)
    page[:80] = 40  # 20% ink: well inside the 0.5% tails
    assert kernels.luminance_range(page) == (40, 200)
    page[:1, :100] = 0  # 0.06% of the pixels: below the low share, ignored
    assert kernels.luminance_range(page) == (40, 200)
    bgr = np.stack([page] * 3, axis=2)
    assert kernels.luminance_range(bgr) == (40, 200)
    with pytest.raises(ValueError, match="low_share"):
        kernels.luminance_range(page, 0.6, 0.5)


def det_line_centres(result):
    return sorted(float(line.box[:, 1].mean()) for line in result.lines)


def test_blurred_page_gets_the_sharpened_det_run(v4_paths):
    # Bold type under a gaussian blur of radius 3.5: the plain det run misses a line; the run on
    # the unsharp-masked page finds it, and only it is added (one box per line, in its place).
    from edgeocr._core import kernels

    page = edgeocr.image_io.load_image(DATA / "sample_en_blur.png")
    lo, hi = kernels.luminance_range(page)
    # At det_max_upscale 2 (1440 x 544): at the default 1.5 (1080 x 408) both runs find 3 of the
    # 4 lines of this small, heavily blurred sample (a cost of the smaller det input).
    default = edgeocr.Predictor(det=v4_paths["det"], threads=2, det_max_upscale=2)
    assert kernels.edge_sharpness(page, lo, hi) < default.config.det_sharpen_below
    off = edgeocr.Predictor(det=v4_paths["det"], threads=2, det_max_upscale=2, det_sharpen_below=0)
    pitch = EXPECTED["sample_en_blur.png"]["line_pitch"]
    want = [20 + pitch * i + 14 for i in range(len(LINES))]  # each line's middle, within 12 px
    plain, sharpened = det_line_centres(off.predict(page)), det_line_centres(default.predict(page))
    assert len(plain) < len(LINES)
    assert len(sharpened) == len(LINES)
    assert all(abs(a - b) < 12 for a, b in zip(sharpened, want))

    # The plain run's boxes are kept as they were, but for a fragment of a line (at 1824 x 384
    # the plain run finds the left half of the last line), which the sharpened line replaces.
    def rect(b):
        return (*b.min(axis=0), *b.max(axis=0))

    def share_inside(a, b):  # of rectangle a's area inside rectangle b
        w = min(a[2], b[2]) - max(a[0], b[0])
        h = min(a[3], b[3]) - max(a[1], b[1])
        return max(w, 0) * max(h, 0) / ((a[2] - a[0]) * (a[3] - a[1]))

    both = [rect(ln.box) for ln in default.predict(page).lines]
    got = {tuple(ln.box.ravel()) for ln in default.predict(page).lines}
    replaced = [ln for ln in off.predict(page).lines if tuple(ln.box.ravel()) not in got]
    assert len(replaced) <= 1
    for ln in replaced:  # at least half inside the one line that replaced it
        assert sum(share_inside(rect(ln.box), b) >= 0.5 for b in both) == 1, ln.box


def test_blurred_page_at_the_default_scale(v4_paths):
    # The twin of the test above at the shipped default (1376 x 288): both runs' boxes recorded in
    # tests/data/golden/default_scale.json (tools/make_goldens.py).
    got = default_goldens.compute("blurred_det", v4_paths=v4_paths)
    assert not default_goldens.differences(default_goldens.load()["blurred_det"], got)
    assert len(got["plain"]) <= len(got["sharpened"]) <= len(LINES)


def test_sharp_page_is_untouched_by_the_blur_rule(predictor):
    from edgeocr._core import kernels

    page = edgeocr.image_io.load_image(DATA / "sample_en.png")
    lo, hi = kernels.luminance_range(page)
    assert kernels.edge_sharpness(page, lo, hi) > 2 * predictor.config.det_sharpen_below
    off = edgeocr.Predictor(models="ppocr-v4-mobile", threads=2, det_sharpen_below=0)
    a, b = off.predict(DATA / "sample_en.png"), predictor.predict(DATA / "sample_en.png")
    assert [(ln.text, ln.score) for ln in a.lines] == [(ln.text, ln.score) for ln in b.lines]
    assert all(np.array_equal(x.box, y.box) for x, y in zip(a.lines, b.lines))


def test_edge_sharpness_measures_blur():
    """The measure det_sharpen_below decides by: sharp steps ~1, a blurred step low, flat 1."""
    import cv2

    from edgeocr._core import kernels

    page = np.full((300, 300), 230, np.uint8)
    for x in range(20, 280, 24):
        page[40:260, x : x + 8] = 30  # bars: sharp edges
    assert kernels.edge_sharpness(page, 30, 230) > 0.5
    soft = cv2.GaussianBlur(page, (0, 0), 4)
    lo, hi = kernels.luminance_range(soft)
    assert kernels.edge_sharpness(soft, lo, hi) < 0.15
    # Judged at a coarser scale (a page det shrinks by 4), the same blur looks sharper.
    assert kernels.edge_sharpness(soft, lo, hi, 4) > kernels.edge_sharpness(soft, lo, hi)
    assert kernels.edge_sharpness(np.full((300, 300), 200, np.uint8), 0, 255) == 1.0  # no edge
    assert kernels.edge_sharpness(page, 100, 110) == 1.0  # a range under 16 levels: no judgement
    with pytest.raises(ValueError, match="lo, hi"):
        kernels.edge_sharpness(page, 200, 100)
    with pytest.raises(ValueError, match="d:"):
        kernels.edge_sharpness(page, 30, 230, 0)


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_sharpen_setting_is_checked(v4_paths, value):
    with pytest.raises(edgeocr.EdgeOCRError, match="det_sharpen_below"):
        edgeocr.Predictor(models="ppocr-v4-mobile", det_sharpen_below=value)
