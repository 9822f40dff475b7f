"""Words (OcrLine.words): the line's text split at spaces, each word's box from the recogniser's
own timesteps (csrc/postprocess/ctc.cpp ctc_words, mapped onto the line's box by the pipeline).

Checked on lines rendered here with Pillow's bundled font, where each word's pixel extent is
known: the words' text, their order, that they lie on the line's box without overlapping, and
that each box covers its true word (horizontal IoU >= 0.7 along the line, measured 0.74-1.0;
an even split of the line box scores far lower on lines of words of unequal length). The C API
gives the same words as Python.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import model_set_paths
from PIL import Image, ImageDraw, ImageFont

import edgeocr

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
IOU_MIN = 0.7

LINES = [
    "Invoice 2041 due on March 3",
    "Total amount: 1,284.50 EUR",
    "Ship to 18 Harbor Street",
    "Thank you for your order",
    "A quick brown fox jumps over the lazy dog",
    "Reference XJ-2209 approved",
]


def render(lines=LINES, size=30, pad=30, gap=24, width=900):
    """A white page with `lines` in Pillow's bundled font, and each word's true pixel box."""
    font = ImageFont.load_default(size=size)
    img = Image.new("RGB", (width, pad * 2 + len(lines) * (size + gap)), "white")
    d = ImageDraw.Draw(img)
    truth = []
    y = pad
    for i, text in enumerate(lines):
        x = pad + (i % 3) * 25
        d.text((x, y), text, fill=(20, 20, 20), font=font)
        words, pos = [], 0
        for w in text.split(" "):
            at = text.index(w, pos)
            pos = at + len(w)
            words.append((w, d.textbbox((x + d.textlength(text[:at], font=font), y), w, font=font)))
        truth.append(words)
        y += size + gap
    return np.ascontiguousarray(np.asarray(img)[:, :, ::-1]), truth


@pytest.fixture(scope="module")
def default_predictor():
    from edgeocr.models import DEFAULT_MODEL_SET

    model_set_paths(DEFAULT_MODEL_SET)
    return edgeocr.Predictor(threads=2)


def _inside(pt, quad, tol=0.6) -> bool:
    """Whether pt lies in the convex quad (clockwise in image coordinates), within tol px."""
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        e = b - a
        n = np.hypot(*e)
        if n == 0:
            continue
        if (e[0] * (pt[1] - a[1]) - e[1] * (pt[0] - a[0])) / n < -tol:
            return False
    return True


def _intervals(line) -> list[tuple[float, float]]:
    """Each word's extent along the line's long side, in the order the words come."""
    b = line.box
    d = b[1] - b[0] if np.hypot(*(b[1] - b[0])) >= np.hypot(*(b[3] - b[0])) else b[3] - b[0]
    d = d / np.hypot(*d)
    out = []
    for w in line.words:
        x = [float(np.dot(pt - b[0], d)) for pt in w.box]
        out.append((min(x), max(x)))
    return out


def check_words(line):
    """The invariants every line's words hold. Returns whether the words run along the box's
    p0 -> p1 (or p0 -> p3) side (None for fewer than two words)."""
    assert [w.text for w in line.words] == [t for t in line.text.split(" ") if t], line
    if "  " not in line.text and line.text == line.text.strip():
        assert " ".join(w.text for w in line.words) == line.text
    for w in line.words:
        assert isinstance(w, edgeocr.OcrWord)
        assert w.box.shape == (4, 2) and w.box.dtype == np.float32
        assert 0.0 <= w.score <= 1.0
        for pt in w.box:
            assert _inside(pt, line.box), (w, line.box)
    # along the line, in reading order (one direction, whichever the text runs in), no overlap
    iv = _intervals(line)
    assert all(b > a for a, b in iv)
    if len(iv) < 2:
        return None
    forward = iv[1][0] > iv[0][0]
    seq = iv if forward else [(-b, -a) for a, b in iv]
    for (_, end), (start, _) in zip(seq, seq[1:]):
        assert start >= end - 0.5, (line.text, iv)
    return forward


def _iou_1d(a0, a1, b0, b1) -> float:
    inter = max(0.0, min(a1, b1) - max(a0, b0))
    return inter / (max(a1, b1) - min(a0, b0))


def test_words_on_rendered_lines_cover_the_true_words(default_predictor):
    img, truth = render()
    r = default_predictor.predict(img)
    assert [line.text for line in r.lines] == LINES
    ious = []
    for line, words in zip(r.lines, truth):
        check_words(line)
        assert len(line.words) == len(words)
        for w, (text, (x0, y0, x1, y1)) in zip(line.words, words):
            assert w.text == text
            bx0, by0 = w.box.min(axis=0)
            bx1, by1 = w.box.max(axis=0)
            iou = _iou_1d(bx0, bx1, x0, x1)
            ious.append(iou)
            assert iou >= IOU_MIN, (text, (bx0, bx1), (x0, x1), iou)
            # across the line: the word box holds the word's ink (the line box's height)
            assert by0 <= y0 + 2 and by1 >= y1 - 2, (text, (by0, by1), (y0, y1))
    # the recogniser's positions, not an even split of the line: a split by character count
    # over the line box would not reach this on these lines
    assert np.mean(ious) >= 0.88, np.mean(ious)


def test_even_split_is_worse(default_predictor):
    """The reference the timesteps beat: the line box cut by character count."""
    img, truth = render()
    r = default_predictor.predict(img)
    ours, split = [], []
    for line, words in zip(r.lines, truth):
        lx0, lx1 = line.box[:, 0].min(), line.box[:, 0].max()
        n = len(line.text)
        pos = 0
        for w, (text, (x0, _, x1, _)) in zip(line.words, words):
            at = line.text.index(text, pos)
            pos = at + len(text)
            s0 = lx0 + (lx1 - lx0) * at / n
            s1 = lx0 + (lx1 - lx0) * pos / n
            split.append(_iou_1d(s0, s1, x0, x1))
            ours.append(_iou_1d(w.box[:, 0].min(), w.box[:, 0].max(), x0, x1))
    assert np.mean(ours) > np.mean(split)


@pytest.mark.parametrize("name", ["sample_en.png", "sample_en_rot180.png", "sample_en_skew6.png"])
def test_words_invariants_on_test_pages(default_predictor, name):
    r = default_predictor.predict(str(DATA / name))
    assert r.lines
    for line in r.lines:
        forward = check_words(line)
        # upright lines read left to right; a page read turned 180 degrees: its words run
        # from the right side of the box as detected
        assert forward is None or forward == (not line.flipped)
    if name == "sample_en_rot180.png":
        assert all(line.flipped for line in r.lines)


def test_words_of_a_vertical_line(default_predictor):
    img, _ = render(["Harbor Street 18"], size=34, width=420)
    turned = np.ascontiguousarray(np.rot90(img))  # the line reads bottom to top
    r = default_predictor.predict(turned)
    assert [line.text for line in r.lines] == ["Harbor Street 18"]
    check_words(r.lines[0])
    ys = [w.box[:, 1].mean() for w in r.lines[0].words]
    assert ys == sorted(ys, reverse=True)  # bottom to top, as read


def test_recognize_gives_words(default_predictor):
    img, truth = render(["Ship to 18 Harbor Street"], width=480, pad=6)
    line = default_predictor.recognize(img)
    assert line.text == "Ship to 18 Harbor Street"
    check_words(line)
    for w, (_, (x0, _, x1, _)) in zip(line.words, truth[0]):
        assert _iou_1d(w.box[:, 0].min(), w.box[:, 0].max(), x0, x1) >= IOU_MIN


def test_words_in_json(default_predictor):
    img, _ = render(LINES[:2])
    d = json.loads(default_predictor.predict(img).to_json())
    for line in d["lines"]:
        assert [w["text"] for w in line["words"]] == line["text"].split(" ")
        assert all(len(w["box"]) == 4 and 0 <= w["score"] <= 1 for w in line["words"])


def test_word_equality_and_repr():
    box = np.zeros((4, 2), np.float32)
    a = edgeocr.OcrWord("abc", box, 0.5)
    assert a == edgeocr.OcrWord("abc", box.copy(), 0.5)
    assert a != edgeocr.OcrWord("abc", box + 1, 0.5)
    assert "abc" in repr(a)
    with pytest.raises(AttributeError):
        a.text = "x"


def test_c_api_gives_the_same_words(v4_paths, ocr_demo, tmp_path):
    """examples/c/ocr_demo.c --words (edgeocr_result_get_word) against Python, on the same loose
    model files (PP-OCRv4 mobile: a second recogniser for the word checks too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "compare_with_python", REPO / "tests" / "c" / "compare_with_python.py"
    )
    cmp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cmp)
    img, _ = render()
    path = tmp_path / "words.ppm"
    Image.fromarray(img[:, :, ::-1].copy()).save(path)
    env = dict(os.environ, EDGEOCR_ORT_LIBRARY=edgeocr.runtime_info()["library_path"])
    for v in ("EDGEOCR_BUNDLE", "EDGEOCR_DET_MODEL", "EDGEOCR_CLS_MODEL", "EDGEOCR_REC_MODEL"):
        env.pop(v, None)
    models = [a for r in ("det", "cls", "rec") for a in (f"--{r}", v4_paths[r])]
    out = subprocess.run(
        [str(ocr_demo), "--threads", "2", *models, "--words", str(path)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    c_words = cmp.parse_words(out.stdout, [str(path)])[str(path)]
    py = edgeocr.Predictor(**{r: v4_paths[r] for r in ("det", "cls", "rec")}, threads=2)
    py = py.predict(str(path))
    assert len(c_words) == len(py.lines) >= 5
    for cw, line in zip(c_words, py.lines):
        check_words(line)
        assert [t for t, _, _ in cw] == [w.text for w in line.words]
        for (_, score, box), w in zip(cw, line.words):
            assert abs(score - w.score) <= 1e-3
            assert max(abs(a - b) for a, b in zip(box, w.box.reshape(-1))) <= 0.5
