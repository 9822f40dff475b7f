"""`edgeocr bench` and the Python contenders it measures (no wall-clock assertions)."""

import importlib.util
import json
import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest
from conftest import REPO

import edgeocr
from edgeocr import cli
from edgeocr.bench.eager import PythonPipeline, ctc_greedy_decode, det_target_size

DATA = REPO / "tests" / "data"


@pytest.fixture()
def two_images(tmp_path):
    for name in ("line_en.png", "sample_en.png"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def test_bench_json_keys(two_images, v4_paths, capsys):
    rc = cli.main(
        [
            "bench",
            "--images",
            str(two_images),
            "--compare",
            "onnxruntime",
            "--json",
            "--threads",
            "1",
            "--batch",
            "1,2",
            "--warmup",
            "0",
        ]
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"machine", "settings", "skipped", "results", "throughput"}
    assert out["throughput"] is None  # not asked for
    assert out["skipped"] == {}
    assert out["settings"]["n_images"] == 2
    rows = {(r["contender"], r["batch"]): r for r in out["results"]}
    assert set(rows) == {(c, b) for c in ("edgeocr", "onnxruntime") for b in (1, 2)}
    for r in rows.values():
        for key in (
            "median_ms",
            "p90_ms",
            "images_per_s",
            "stage_ms",
            "model_ms",
            "outside_model_share",
            "peak_rss_mb",
            "load_s",
            "ratio_median",
            "ratio_peak_rss",
            "lines",
        ):
            assert key in r, key
        assert r["images"] == 2 and r["median_ms"] > 0 and r["peak_rss_mb"] > 0
        assert set(r["stage_ms"]) == {"det", "cls", "rec"}
    assert rows[("edgeocr", 1)]["ratio_median"] == 1.0
    assert rows[("edgeocr", 1)]["pool_high_water_mb"] > 0
    assert rows[("onnxruntime", 1)]["pool_high_water_mb"] is None
    # Same images, same models: both find the same lines.
    assert rows[("edgeocr", 1)]["lines"] == rows[("onnxruntime", 1)]["lines"] > 0


def test_bench_throughput_mode(two_images, tmp_path, capsys):
    saved = tmp_path / "bench.json"
    rc = cli.main(
        [
            "bench",
            "--images",
            str(two_images),
            "--compare",
            "",
            "--no-memory",
            "--warmup",
            "0",
            "--throughput",
            "--rounds",
            "1",
            "--save",
            str(saved),
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "throughput mode" in text and "best here:" in text and "Predictor(workers=" in text
    rows = json.loads(saved.read_text())["throughput"]
    assert [r["workers"] for r in rows][0] == 1 and len(rows) >= 1
    for r in rows:
        assert r["images"] == 2 and r["images_per_s"] > 0
        assert 0.0 < r["model_share"] <= 1.0 and r["pool_high_water_mb"] > 0
    assert rows[0]["ratio_vs_1"] == 1.0


def test_bench_rejects_unknown_contender(two_images, capsys):
    assert cli.main(["bench", "--images", str(two_images), "--compare", "tensorrt"]) == 2
    assert "unknown contender" in capsys.readouterr().err


def test_python_steps_match_kernels():
    """The Python contenders' det size and CTC decoding agree with edgeocr's kernels."""
    k = edgeocr._core.kernels
    for w, h in [(720, 268), (460, 46), (4000, 3000), (33, 1000), (300, 27), (1990, 30)]:
        assert det_target_size(w, h, "min", 736, 2000) == k.det_target_size(w, h, "min", 736, 2000)
        assert det_target_size(w, h, "max", 960, 4000) == k.det_target_size(w, h, "max", 960, 4000)
        for cap in (1.5, 2.0):
            want = k.det_target_size(w, h, "min", 736, 2000, cap)
            assert det_target_size(w, h, "min", 736, 2000, cap) == want
    rng = np.random.default_rng(7)
    charset = ["", *"abcdefghij"]
    for _ in range(20):
        probs = rng.dirichlet(np.full(len(charset), 0.3), size=25).astype(np.float32)
        text, score = ctc_greedy_decode(probs, charset)
        text_k, score_k = k.ctc_greedy_decode(probs, charset)
        assert text == text_k
        assert score == pytest.approx(score_k, abs=1e-5)


def _texts(lines):
    return [t for t, _, _ in lines]


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence:UserWarning")  # inside onnx2torch
def test_eager_reads_like_edgeocr(v4_paths):
    for mod in ("torch", "onnx2torch"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed (pip install 'edgeocr[bench]')")
    img = cv2.imread(str(DATA / "sample_en.png"))
    ref = [
        line.text
        for line in edgeocr.Predictor(models="ppocr-v4-mobile", threads=1).predict(img).lines
    ]
    ort_lines = PythonPipeline(v4_paths, "onnxruntime", threads=1).predict(img)["lines"]
    eager_lines = PythonPipeline(v4_paths, "eager", threads=1).predict(img)["lines"]
    # Same Python pipeline, two runtimes for the same networks: identical text.
    assert _texts(eager_lines) == _texts(ort_lines)
    # Against edgeocr: the same characters line by line. Spaces may differ: this
    # model's spaces are marginal, and edgeocr's one-pass bilinear crop into a
    # 64-column width bucket differs from PaddleOCR's cubic warp + resize.
    assert [t.replace(" ", "") for t in _texts(eager_lines)] == [t.replace(" ", "") for t in ref]


@pytest.mark.slow
def test_bench_compare_int8_packs_once_and_prints_cpu_features(
    tmp_path, v4_paths, capsys, monkeypatch
):
    """--compare int8: the int8 bundle of the same models, packed with the gate and cached."""
    imgs = tmp_path / "imgs"
    imgs.mkdir()
    for name in ("line_en.png", "sample_en.png", "sample_en_gray.png"):
        shutil.copy(DATA / name, imgs / name)
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(tmp_path / "cache"))
    args = ["bench", "ppocr-v4-mobile", "--images", str(imgs), "--compare", "int8", "--json",
            "--threads", "1", "--warmup", "0", "--no-memory"]  # fmt: skip
    assert cli.main(args) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert "CPU features for int8:" in captured.err
    assert "int8 dot product" in out["machine"]["int8_features"]
    if "int8 dot product: no" in out["machine"]["int8_features"]:
        # Without VNNI the int8 bundle is refused at load, and the report says why.
        assert "without VNNI" in out["skipped"].get("int8", ""), out["skipped"]
        return
    assert out["skipped"] == {}
    bundle = out["settings"]["int8_bundle"]
    assert bundle.startswith(str(tmp_path / "cache" / "int8")) and bundle.endswith(".eocr")
    rows = {r["contender"]: r for r in out["results"]}
    assert set(rows) == {"edgeocr", "int8"} and rows["int8"]["lines"] > 0
    assert rows["int8"]["ratio_median"] > 0
    from edgeocr.pack import load_bundle

    with load_bundle(bundle) as b:
        assert b.manifest["quantization"]["mode"] == "int8"
    # A second run reuses the cached bundle (same models, pages, recipe, versions).
    assert cli.main(args) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["settings"]["int8_bundle"] == bundle
    assert len(list((tmp_path / "cache" / "int8").glob("*.eocr"))) == 1


def test_bench_memory_prints_the_promised_columns(v4_paths, tmp_path):
    # A small page, one size, one budget: the table has a row for it with every column promised
    # (docs/memory-budget.md, "Choosing a budget"), and --json the same figures.
    page = tmp_path / "page.png"
    shutil.copy(REPO / "tests" / "data" / "sample_en.png", page)
    args = ["bench", "--memory", "ppocr-v4-mobile", "--page", str(page)]
    args += ["--sizes", "0.1", "--budgets", "256", "--threads", "1"]
    cmd = [sys.executable, "-m", "edgeocr.cli", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    head = next(line for line in out.stdout.splitlines() if "model set" in line)
    for column in (
        "model set",
        "page",
        "Mpx",
        "lines",
        "peak MB (no budget)",
        "smallest budget, same lines",
        "its peak MB",
        "its time x",
    ):
        assert column in head, column
    row = next(line for line in out.stdout.splitlines() if line.lstrip("| ").startswith("ppocr"))
    assert "failed" not in row and "0.1" in row
    js = subprocess.run(cmd + ["--json"], capture_output=True, text=True, timeout=600)
    assert js.returncode == 0, js.stderr[-2000:]
    (r,) = json.loads(js.stdout)["rows"]
    assert r["model"] == "ppocr-v4-mobile" and r["lines"] > 0 and r["peak_mb"] > 0
    assert set(r["budgets"]) == {"256.0"} and r["budgets"]["256.0"]["peak_mb"] > 0


@pytest.mark.parametrize(
    "args",
    [
        ["--rounds", "0"],
        ["--rounds", "-1"],
        ["--memory", "--sizes", "a,b"],
        ["--memory", "--budgets", "-64"],
        ["--memory", "--sizes", "nan"],
    ],
)
def test_bench_refuses_bad_numbers_before_running(args, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["bench", "ppocr-v4-mobile", *args])
    assert e.value.code == 2
    assert args[-2] in capsys.readouterr().err


def test_bench_batch_that_is_not_a_number_is_a_message(two_images, capsys):
    assert cli.main(["bench", "--images", str(two_images), "--batch", "a,b"]) == 2
    assert "--batch takes positive integers" in capsys.readouterr().err
