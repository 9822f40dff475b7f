"""examples/ runs as a user runs it: `python examples/X.py ...` from the checkout, and reads the
sample page's lines (tests/data/expected.json)."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import model_set_paths

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
SAMPLE = str(DATA / "sample_en.png")
EXPECTED = json.loads((DATA / "expected.json").read_text())["sample_en.png"]["lines"]


def run_example(name, *args, cwd=REPO):
    r = subprocess.run(
        [sys.executable, str(REPO / "examples" / name), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, f"{name}:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return r


def texts(stdout):
    """The text of the example's `SCORE  TEXT` lines (pack() prints its report before them)."""
    return [m.group(1) for m in re.finditer(r"^\d\.\d{3}  (.*)$", stdout, re.M)]


@pytest.fixture(scope="module")
def default_models(v4_paths, v6_paths):
    return True


def test_one_image(default_models):
    r = run_example("one_image.py", SAMPLE)
    assert texts(r.stdout) == EXPECTED
    assert "4 lines in" in r.stderr


def test_folder_progress(default_models, tmp_path):
    shutil.copy(SAMPLE, tmp_path / "a.png")
    shutil.copy(DATA / "sample_en_gray.png", tmp_path / "b.png")
    (tmp_path / "broken.png").write_bytes(b"not a picture\n" * 10)
    r = run_example("folder_progress.py", tmp_path)
    rows = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert [os.path.basename(row["path"]) for row in rows] == ["a.png", "b.png"]
    assert [ln["text"] for ln in rows[0]["lines"]] == EXPECTED
    assert "skipped" in r.stderr and "broken.png" in r.stderr
    assert "2/3 images" in r.stderr


def test_bundle(default_models, tmp_path):
    pytest.importorskip("onnx", reason="packing needs onnx (pip install 'edgeocr[pack]')")
    model_set_paths("ppocr-v6-tiny-recheck")
    out = tmp_path / "ppocr.eocr"
    r = run_example("bundle.py", SAMPLE, out)
    assert out.stat().st_size > 1_000_000
    assert "det, cls, rec, recheck" in r.stderr
    assert texts(r.stdout) == EXPECTED


def test_memory_budget(default_models):
    r = run_example("memory_budget.py", SAMPLE, 400)
    assert texts(r.stdout) == EXPECTED
    assert "of a 400 MB budget" in r.stderr


def test_the_examples_readme_lists_every_example():
    listed = (REPO / "examples" / "README.md").read_text(encoding="utf-8")
    for p in sorted((REPO / "examples").rglob("*")):
        if p.suffix in (".py", ".c"):
            assert f"({p.relative_to(REPO / 'examples')})" in listed, p
