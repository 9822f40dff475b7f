"""Predictor(precision=...): int8 models of a model set made once on first use, cached, reused;
fp32 when asked, when the cache cannot be written and when the gate refuses them."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest
from conftest import model_set_paths

import edgeocr
from edgeocr import _runtime
from edgeocr.errors import InvalidInputError
from edgeocr.pack import int8_default as D
from edgeocr.pack import load_bundle

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLE = str(DATA / "sample_en.png")
# The set whose int8 form these tests make: the default set has a recheck model, which a bundle
# does not hold, so it has no int8 form (test_a_recheck_set_has_no_int8_form).
INT8_SET = "ppocr-v4det-v6rec"

needs_fast_int8 = pytest.mark.skipif(
    not _runtime.fast_int8(),
    reason="precision='auto' picks int8 only on a CPU with VNNI / dot product",
)


@pytest.fixture(scope="session")
def default_paths():
    return model_set_paths(INT8_SET)


@pytest.fixture(scope="module")
def made_once(default_paths, tmp_path_factory):
    """A cache folder in which Predictor(precision='int8') made the default set's int8 models."""
    cache = tmp_path_factory.mktemp("cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("EDGEOCR_CACHE_DIR", str(cache))
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("edgeocr").addHandler(handler)
    try:
        p = edgeocr.Predictor(models=INT8_SET, precision="int8", threads=2)
    finally:
        logging.getLogger("edgeocr").removeHandler(handler)
        mp.undo()
    return cache, p, [r.getMessage() for r in records]


def test_precision_is_checked(monkeypatch):
    with pytest.raises(InvalidInputError, match="precision must be one of"):
        edgeocr.Predictor(precision="fp16")
    monkeypatch.setenv("EDGEOCR_PRECISION", "int4")
    with pytest.raises(InvalidInputError, match=r"\$EDGEOCR_PRECISION must be one of"):
        edgeocr.Predictor()


def test_fp32_opt_out_makes_nothing(default_paths, tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("EDGEOCR_PRECISION")
    p = edgeocr.Predictor(precision="fp32", threads=1)
    assert p.precision == "fp32" and p.int8_bundle is None
    assert not (tmp_path / "int8").exists()
    p = edgeocr.Predictor(threads=1)  # the default
    assert p.precision == "fp32" and not (tmp_path / "int8").exists()
    monkeypatch.setenv("EDGEOCR_PRECISION", "fp32")  # the setting, for every Predictor
    p = edgeocr.Predictor(threads=1, models=edgeocr.models.DEFAULT_MODEL_SET)
    assert p.precision == "fp32" and not (tmp_path / "int8").exists()


def test_a_recheck_set_has_no_int8_form(tmp_path, monkeypatch):
    from edgeocr.models import DEFAULT_MODEL_SET, MODEL_SETS

    model_set_paths(DEFAULT_MODEL_SET)
    assert MODEL_SETS[DEFAULT_MODEL_SET].recheck
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(tmp_path))
    with pytest.raises(InvalidInputError, match="recheck model has no int8 form"):
        edgeocr.Predictor(precision="int8", threads=1)
    p = edgeocr.Predictor(precision="auto", threads=1)
    assert p.precision == "fp32" and p.int8_bundle is None and "recheck" in p.roles
    assert not (tmp_path / "int8").exists()


def test_model_files_given_run_as_given(default_paths, tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(tmp_path))
    p = edgeocr.Predictor(det=default_paths["det"], rec=default_paths["rec"], precision="int8")
    assert p.precision == "fp32" and not (tmp_path / "int8").exists()


@pytest.mark.slow
def test_int8_made_once_then_reused(made_once, monkeypatch):
    cache, p, messages = made_once
    assert p.precision == "int8" and p.model_set == INT8_SET
    bundle = Path(p.int8_bundle)
    assert bundle.parent == cache / "int8" and bundle.suffix == ".eocr"
    assert sum("making int8 models" in m for m in messages) == 1
    with load_bundle(bundle) as b:
        manifest = b.manifest
    q = manifest["quantization"]
    assert q["mode"] == "int8" and q["recipe"] == D.RECIPE
    v = manifest["verification"]
    assert v["agreement"]["pages_from"] == "held-out calib"
    assert v["drop_points"] <= v["max_drop"] == 0.5
    # It reads the sample as the float models do, with the set's own settings.
    f = edgeocr.Predictor(models=INT8_SET, precision="fp32", threads=2)
    assert p.config == f.config
    assert [ln.text for ln in p.predict(SAMPLE).lines] == [
        ln.text for ln in f.predict(SAMPLE).lines
    ]
    # Later Predictors load the stored bundle: nothing is made again.
    stamp = bundle.stat().st_mtime_ns
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(cache))
    seen = []
    monkeypatch.setattr(D.log, "warning", lambda *a, **k: seen.append(a))
    again = edgeocr.Predictor(models=INT8_SET, precision="int8", threads=1)
    assert again.int8_bundle == p.int8_bundle and bundle.stat().st_mtime_ns == stamp
    assert not seen
    # precision="auto" (here through the setting) takes it where this CPU has fast int8.
    monkeypatch.setenv("EDGEOCR_PRECISION", "auto")
    auto = edgeocr.Predictor(models=INT8_SET, threads=1)
    assert auto.precision == ("int8" if _runtime.fast_int8() else "fp32")
    assert not seen and len(list((cache / "int8").glob("*.eocr"))) == 1


@pytest.mark.slow
def test_a_cached_int8_set_loads_neither_evaluate_nor_onnx(made_once):
    """Predictor(precision='int8'/'auto') on a cache hit reaches pack/ through its one lazy import
    and loads only what finds the cached bundle: not the gate's metrics (edgeocr.evaluate), not
    onnx (packing)."""
    import os
    import subprocess
    import sys

    cache, p, _ = made_once
    code = (
        f"import sys, edgeocr; p = edgeocr.Predictor(models={INT8_SET!r}, precision='int8', "
        "threads=1); "
        f"assert p.int8_bundle == {p.int8_bundle!r}, p.int8_bundle; "
        "print(sorted(m for m in sys.modules if m.startswith('edgeocr.evaluate') or m == 'onnx'))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, EDGEOCR_CACHE_DIR=str(cache)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == "[]"


@needs_fast_int8
def test_unwritable_cache_falls_back_to_fp32(default_paths, tmp_path, monkeypatch):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(blocker))
    p = edgeocr.Predictor(models=INT8_SET, threads=1, precision="auto")
    assert p.precision == "fp32" and p.int8_bundle is None
    assert p.predict(SAMPLE).lines
    assert blocker.read_text().startswith("a file")


def _refusing_calib(tmp_path) -> Path:
    """A blank page to calibrate on, the sample held back: det int8 misreads it."""
    from PIL import Image

    d = tmp_path / "calib"
    d.mkdir()
    Image.new("RGB", (720, 268), (128, 128, 128)).save(d / "0_blank.png")
    shutil.copy(SAMPLE, d / "1_sample.png")
    return d


@pytest.mark.slow
def test_gate_refusal_is_cached_and_auto_stays_fp32(default_paths, tmp_path, monkeypatch):
    from edgeocr.pack import AccuracyGateError
    from edgeocr.pack.int8_cache import cached_int8_bundle

    # Without auto-keep (the int8 default returns a costly model to float instead of refusing).
    monkeypatch.setattr(D, "AUTO_KEEP", "off")
    calib, cache = _refusing_calib(tmp_path), tmp_path / "cache"
    made = []
    # The recipe and target Predictor() would use here, so that the calls below find this entry.
    kw = dict(
        calib=str(calib),
        cache_dir=cache,
        recipe=D.RECIPE,
        auto_keep="off",
        target=_runtime.int8_target(),
        threads=1,
        log=lambda m: None,
    )
    with pytest.raises(AccuracyGateError, match="accuracy drops"):
        cached_int8_bundle(default_paths, on_make=made.append, **kw)
    assert len(made) == 1 and not list(cache.glob("*.eocr"))
    (refusal,) = cache.glob("*.refused.json")
    assert json.loads(refusal.read_text())["drop_points"] > 0.5
    # Asked again: the stored refusal, without making the bundle again.
    with pytest.raises(AccuracyGateError, match="cached refusal"):
        cached_int8_bundle(default_paths, on_make=made.append, **kw)
    assert len(made) == 1
    # What Predictor() does with it: fp32 under 'auto', the error under 'int8'.
    if _runtime.fast_int8():
        assert D.int8_bundle_for(default_paths, "auto", cache_dir=cache, calib=calib) is None
    with pytest.raises(AccuracyGateError):
        D.int8_bundle_for(default_paths, "int8", cache_dir=cache, calib=calib)
    assert len(list(cache.iterdir())) == 1
