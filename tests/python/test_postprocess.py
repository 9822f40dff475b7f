"""The post-processing kernels (edgeocr._core.kernels) against RapidOCR's own DB post-processing.

RapidOCR 1.4.4's DBPostProcess (cv2.findContours + cv2.minAreaRect + pyclipper) is called on the
same probability maps, synthetic and from the real PP-OCRv4 det model. Tolerances:

* Same number of boxes; boxes are paired by nearest centre and compared corner by corner, in
  order (both use get_mini_boxes' corner order). RapidOCR offsets the rectangle with pyclipper on
  integer coordinates and round joins, then takes the min-area rectangle again; edgeocr grows the
  rectangle by exactly d. That differs by up to about 1 map pixel, so corners agree within
  1 px + 1.5 map pixels scaled to the source (1 px of it for the rounding to whole pixels).
* Scores: both average the map over the rectangle with its corners truncated to integers, filled
  as cv2.fillPoly does. cv2.minAreaRect returns float32 corners with rounding noise (60.99999
  for 61), so truncation there can drop the last row or column of the rectangle, which edgeocr
  (exact arithmetic) keeps. Per box the scores agree within 0.02 plus one row and one column of
  the rectangle, (1 + unclip_ratio) * (1/w + 1/h) for the grown box's sides w, h in map pixels;
  with 10 boxes or more the median difference is below 0.01.
"""

from pathlib import Path

import numpy as np
import pytest
from conftest import shared_fixture

from edgeocr._core import kernels

try:
    from rapidocr_onnxruntime.ch_ppocr_det.utils import DBPostProcess, DetPreProcess

    RAPIDOCR_SKIP = None
except ImportError as exc:  # pragma: no cover - depends on the environment
    RAPIDOCR_SKIP = f"rapidocr_onnxruntime is not importable ({exc}); no reference to compare with"

needs_rapidocr = pytest.mark.skipif(RAPIDOCR_SKIP is not None, reason=RAPIDOCR_SKIP or "")


# ---- synthetic maps ----


def rect_map(w, h, rects, bg=0.0):
    """rects: (cx, cy, rw, rh, degrees, value); pixels whose centre is inside get `value`."""
    m = np.full((h, w), bg, np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    for cx, cy, rw, rh, deg, v in rects:
        c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
        u = (xs - cx) * c + (ys - cy) * s
        n = -(xs - cx) * s + (ys - cy) * c
        m[(np.abs(u) <= rw / 2) & (np.abs(n) <= rh / 2)] = v
    return m


SYNTHETIC = {
    "axis_aligned": rect_map(320, 160, [(100, 40, 140, 24, 0, 0.9), (200, 110, 200, 30, 0, 0.8)]),
    "rotated_15_30": rect_map(
        400, 300, [(130, 90, 200, 30, 15, 0.9), (250, 210, 220, 26, -30, 0.85)]
    ),
    "near_border": rect_map(200, 100, [(30, 8, 60, 16, 0, 0.9), (170, 92, 80, 20, 0, 0.9)]),
    "noise_and_low_score": np.maximum(
        np.random.default_rng(0).uniform(0, 0.29, (120, 240)).astype(np.float32),
        rect_map(240, 120, [(80, 30, 120, 20, 0, 0.9), (150, 90, 120, 20, 0, 0.45)]),
    ),
    "many_small": rect_map(
        480,
        240,
        [
            (
                30 + 60 * (i % 8),
                20 + 40 * (i // 8),
                40 + (i % 5) * 3,
                10 + (i % 3) * 4,
                i % 7 - 3,
                0.9,
            )
            for i in range(40)
        ],
    ),
}


def rapid_db(prob, src_w, src_h, **params):
    post = DBPostProcess(**params)
    boxes, scores = post(prob[None, None].astype(np.float32), (src_h, src_w))
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4, 2)
    # RapidOCR's TextDetector then clips to the last pixel (clip_det_res), as edgeocr does.
    boxes[..., 0] = np.clip(boxes[..., 0], 0, src_w - 1)
    boxes[..., 1] = np.clip(boxes[..., 1], 0, src_h - 1)
    return boxes, np.asarray(scores, np.float32)


def ours(prob, src_w, src_h, **params):
    return kernels.db_postprocess(
        prob,
        src_w,
        src_h,
        thresh=params["thresh"],
        box_thresh=params["box_thresh"],
        unclip_ratio=params["unclip_ratio"],
        max_candidates=params["max_candidates"],
        use_dilation=params["use_dilation"],
        score_mode=params["score_mode"],
        min_size=3.0,
    )


def assert_same_boxes(got, want, corner_tol, unclip_ratio, map_scale):
    """map_scale: (src_w / map_w, src_h / map_h)."""
    (gb, gs), (wb, ws) = got, want
    assert gb.shape[1:] == (4, 2) and gb.dtype == np.float32 and gs.dtype == np.float32
    assert len(gb) == len(wb), f"edgeocr found {len(gb)} boxes, RapidOCR {len(wb)}"
    if len(wb) == 0:
        return
    gc, wc = gb.mean(axis=1), wb.mean(axis=1)
    unused = set(range(len(gb)))
    score_diffs = []
    for j in range(len(wb)):
        i = min(unused, key=lambda k: float(np.sum((gc[k] - wc[j]) ** 2)))
        unused.remove(i)
        err = np.abs(gb[i] - wb[j]).max()
        assert err <= corner_tol, (
            f"box {j}: corners differ by {err:.2f} px\n"
            f"edgeocr {gb[i].tolist()}\nrapidocr {wb[j].tolist()}"
        )
        q = gb[i] / np.asarray(map_scale, np.float32)
        w = max(float(np.linalg.norm(q[1] - q[0])), 1.0)
        h = max(float(np.linalg.norm(q[3] - q[0])), 1.0)
        score_tol = 0.02 + (1 + unclip_ratio) * (1 / w + 1 / h)
        diff = abs(float(gs[i]) - float(ws[j]))
        assert diff <= score_tol, f"box {j}: score {gs[i]} vs {ws[j]} (tolerance {score_tol:.3f})"
        score_diffs.append(diff)
    if len(score_diffs) >= 10:
        assert np.median(score_diffs) < 0.01, (
            f"median score difference {np.median(score_diffs):.4f}"
        )


PARAMS = [
    dict(
        thresh=0.3,
        box_thresh=0.6,
        unclip_ratio=1.5,
        max_candidates=1000,
        use_dilation=False,
        score_mode="fast",
    ),
    dict(
        thresh=0.3,
        box_thresh=0.5,
        unclip_ratio=1.6,
        max_candidates=1000,
        use_dilation=True,
        score_mode="fast",
    ),
    dict(
        thresh=0.3,
        box_thresh=0.6,
        unclip_ratio=2.0,
        max_candidates=1000,
        use_dilation=False,
        score_mode="slow",
    ),
]


@needs_rapidocr
@pytest.mark.parametrize("params", PARAMS, ids=["paddle", "rapidocr", "slow"])
@pytest.mark.parametrize("name", sorted(SYNTHETIC))
@pytest.mark.parametrize("scale", [1.0, 2.5])
def test_synthetic_maps_match_rapidocr(name, params, scale):
    prob = SYNTHETIC[name]
    h, w = prob.shape
    src_w, src_h = int(round(w * scale)), int(round(h * scale * 0.9))
    scale = (src_w / w, src_h / h)
    tol = 1.0 + 1.5 * max(scale)
    got, want = ours(prob, src_w, src_h, **params), rapid_db(prob, src_w, src_h, **params)
    assert_same_boxes(got, want, tol, params["unclip_ratio"], scale)


def det_output(image_path):
    """PP-OCRv4 det probability map for an image, preprocessed as RapidOCR 1.4.4 does."""
    cv2 = pytest.importorskip("cv2")
    ort = pytest.importorskip("onnxruntime")
    import rapidocr_onnxruntime

    model = Path(rapidocr_onnxruntime.__file__).parent / "models" / "ch_PP-OCRv4_det_infer.onnx"
    if not model.is_file():
        pytest.skip(f"{model} is missing")
    img = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
    assert img is not None, image_path
    # config.yaml: limit_side_len 736, limit_type min, mean = std = 0.5.
    x = DetPreProcess(736, "min", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5])(img)
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    sess = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    pred = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    return np.ascontiguousarray(pred[0, 0], np.float32), img.shape[1], img.shape[0]


REAL_IMAGES = ["form_en_scan_01.jpg", "form_en_photo_01.jpg"]


@needs_rapidocr
@pytest.mark.slow
@pytest.mark.parametrize("image", REAL_IMAGES)
def test_real_det_output_matches_rapidocr(image):
    path = shared_fixture(f"datasets/dev/images/{image}")
    prob, src_w, src_h = det_output(path)
    params = PARAMS[1]  # RapidOCR's own defaults
    want = rapid_db(prob, src_w, src_h, **params)
    got = ours(prob, src_w, src_h, **params)
    assert len(want[0]) > 5
    scale = (src_w / prob.shape[1], src_h / prob.shape[0])
    tol = 1.0 + 1.5 * max(scale)
    assert_same_boxes(got, want, tol, params["unclip_ratio"], scale)
    # The (1, 1, H, W) model output is accepted as it is.
    got4 = kernels.db_postprocess(
        prob[None, None],
        src_w,
        src_h,
        thresh=0.3,
        box_thresh=0.5,
        unclip_ratio=1.6,
        use_dilation=True,
    )
    np.testing.assert_array_equal(got4[0], got[0])


# ---- argument checks, CTC and reading order through the binding ----


def test_db_bad_arguments():
    prob = np.zeros((32, 32), np.float32)
    with pytest.raises(ValueError):
        kernels.db_postprocess(prob.astype(np.float64), 32, 32)
    with pytest.raises(ValueError):
        kernels.db_postprocess(np.zeros((2, 32, 32), np.float32), 32, 32)
    with pytest.raises(ValueError):
        kernels.db_postprocess(prob, 0, 32)
    with pytest.raises(ValueError):
        kernels.db_postprocess(prob, 32, 32, score_mode="median")
    boxes, scores = kernels.db_postprocess(prob, 32, 32)
    assert boxes.shape == (0, 4, 2) and scores.shape == (0,)


def test_db_non_contiguous_map():
    prob = SYNTHETIC["axis_aligned"]
    wide = np.zeros((prob.shape[0], prob.shape[1] * 2), np.float32)
    wide[:, ::2] = prob
    got = kernels.db_postprocess(wide[:, ::2], 320, 160)
    want = kernels.db_postprocess(prob, 320, 160)
    np.testing.assert_array_equal(got[0], want[0])
    assert len(want[0]) == 2


def test_ctc_greedy_decode():
    charset = ["", "a", "中", "é"]
    eye = np.eye(4, dtype=np.float32) * 0.8 + 0.05
    text, score = kernels.ctc_greedy_decode(eye[[1, 1, 0, 1, 2, 2, 3, 0]], charset)
    assert text == "aa中é"
    assert score == pytest.approx(0.85, abs=1e-6)
    assert kernels.ctc_greedy_decode(eye[[0, 0]], charset) == ("", 0.0)
    with pytest.raises(ValueError):
        kernels.ctc_greedy_decode(eye, charset[:3])


def test_ctc_space_gap():
    """A space that loses to blank on the frames between two characters is written when the
    space class reaches space_gap there; nothing else changes (the characters, the score)."""
    charset = ["", "1", "2", " "]

    def frames(*rows):  # (blank, "1", "2", " ") per frame, rows summing to 1
        return np.array(rows, dtype=np.float32)

    one, two = (0.1, 0.8, 0.0, 0.1), (0.1, 0.0, 0.8, 0.1)
    gap = lambda ps: (1.0 - ps, 0.0, 0.0, ps)  # noqa: E731
    probs = frames(gap(0.3), one, gap(0.05), gap(0.3), two, gap(0.3))
    assert kernels.ctc_greedy_decode(probs, charset) == pytest.approx(("12", 0.8))
    text, score = kernels.ctc_greedy_decode(probs, charset, space_gap=0.15)
    assert (text, score) == ("1 2", pytest.approx(0.8))  # none before the first or after the last
    assert kernels.ctc_greedy_decode(probs, charset, space_gap=0.35)[0] == "12"
    # A space the greedy path emits is not doubled; a run of one character is not split.
    emitted = frames(one, gap(0.3), gap(0.9), gap(0.3), two)
    assert kernels.ctc_greedy_decode(emitted, charset, space_gap=0.15)[0] == "1 2"
    run = frames(one, one, two, gap(0.3), two)
    assert kernels.ctc_greedy_decode(run, charset, space_gap=0.15)[0] == "12 2"
    # Without a space class the option does nothing.
    assert kernels.ctc_greedy_decode(probs, ["", "1", "2", "x"], space_gap=0.15)[0] == "12"
    with pytest.raises(ValueError):
        kernels.ctc_greedy_decode(probs, charset, space_gap=1.5)


def test_reading_order():
    def box(x0, y0, x1, y1):
        return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]

    boxes = np.array(
        [
            box(200, 100, 290, 130),
            box(100, 103, 190, 133),
            box(0, 106, 90, 136),
            box(0, 150, 90, 180),
        ],
        np.float32,
    )
    assert kernels.reading_order(boxes) == [2, 1, 0, 3]
    assert kernels.reading_order(np.zeros((0, 4, 2), np.float32)) == []
    with pytest.raises(ValueError):
        kernels.reading_order(np.zeros((3, 4), np.float32))
