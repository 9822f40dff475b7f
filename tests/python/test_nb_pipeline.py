"""Paddle Lite .nb models through the whole pipeline (translated to ONNX by edgeocr)."""

from pathlib import Path

import default_goldens
import numpy as np
import pytest
from conftest import shared_dir, shared_fixture

import edgeocr
from edgeocr.evaluate import edit_distance

DATA = Path(__file__).resolve().parents[1] / "data"
NB = shared_dir() / "fixtures" / "paddle_lite" / "nb"


@pytest.fixture(scope="module")
def nb_dir():
    shared_fixture("fixtures/paddle_lite/nb/det_x86.nb")
    return NB


@pytest.fixture(scope="module")
def onnx_same_shapes(v4_paths):
    # The fixture rec .nb was converted at a fixed 1x3x48x320 input: compare with the
    # ONNX pipeline run at that same shape.
    return edgeocr.Predictor(
        models="ppocr-v4-mobile",
        threads=2,
        rec_width_buckets=(320,),
        rec_batch=1,
        det_max_upscale=SAMPLE_UPSCALE,
    )


# The small samples are read at the 736-px short side this comparison was made at (the default
# enlarges them at most 1.5x: test_nb_pipeline_at_the_default_scale below). The rec .nb takes a
# fixed 1x3x48x320 input, so sample_en's first line (16:1) is squeezed to 0.41x its width, and
# its det box starts 3 px inside the "I": at this scale (and at det_max_upscale 2) the .nb sets
# and ONNX at that shape read "nvoice ..." (docs/paddle-lite.md, "Known limits").
SAMPLE_UPSCALE = 1000


@pytest.mark.parametrize("target", ["x86", "arm", "x86_int8", "arm_int8"])
def test_nb_pipeline_reads_what_the_onnx_pipeline_reads(nb_dir, v4_paths, onnx_same_shapes, target):
    chars = edgeocr.Model(v4_paths["rec"]).metadata["character"].splitlines()
    p = edgeocr.Predictor(
        det=nb_dir / f"det_{target}.nb",
        cls=nb_dir / f"cls_{target}.nb",
        rec=nb_dir / f"rec_{target}.nb",
        keys=chars,
        threads=2,
        det_max_upscale=SAMPLE_UPSCALE,
    )
    for name in ["sample_en.png", "sample_en_rot180.png", "sample_en_skew6.png"]:
        got = p.predict(DATA / name)
        want = onnx_same_shapes.predict(DATA / name)
        got_t, want_t = [ln.text for ln in got.lines], [ln.text for ln in want.lines]
        if "int8" not in target:
            assert got_t == want_t, (target, name)
            assert np.allclose(got.boxes, want.boxes, atol=1.0)
        else:  # weight-only int8 changes the numbers a little: the text stays close
            assert len(got_t) == len(want_t)
            for g, w in zip(got_t, want_t):
                assert 1 - edit_distance(g, w) / max(len(g), len(w), 1) >= 0.9, (target, g, w)


@pytest.mark.parametrize("target", default_goldens.NB_TARGETS)
def test_nb_pipeline_at_the_default_scale(nb_dir, v4_paths, target):
    # The twin of the comparison above at the shipped default settings: what each .nb set reads
    # there is recorded in tests/data/golden/default_scale.json (tools/make_goldens.py).
    name = f"nb_{target}"
    got = default_goldens.compute(name, nb_dir=nb_dir, v4_paths=v4_paths)
    assert not default_goldens.differences(default_goldens.load()[name], got)
    # At the default the weight-only int8 sets read the first line's "I" too.
    assert got["sample_en.png"][0]["text"].startswith("Invoice 2041")


def test_single_nb_model_role_is_inferred(nb_dir):
    det = edgeocr.Predictor(nb_dir / "det_arm.nb", threads=2)
    assert len(det.predict(DATA / "sample_en.png").lines) == 4
    assert edgeocr.Model(nb_dir / "rec_x86.nb").metadata["edgeocr.role"] == "rec"


def test_rec_nb_without_keys_says_what_to_do(nb_dir):
    with pytest.raises(edgeocr.ModelError, match="keys="):
        edgeocr.Predictor(nb_dir / "rec_x86.nb")


def test_truncated_nb_is_a_model_error(nb_dir, tmp_path):
    bad = tmp_path / "bad.nb"
    bad.write_bytes((nb_dir / "cls_x86.nb").read_bytes()[:5000])
    with pytest.raises(edgeocr.ModelError, match="bad.nb"):
        edgeocr.Model(bad)
