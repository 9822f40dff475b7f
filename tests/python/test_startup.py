"""What a fresh process pays before the first image: `import edgeocr` exports lazily, a Predictor
is made without numpy (so `edgeocr predict` loads its models while numpy and OpenCV are
imported), and the console script ends without the interpreter's teardown after `predict`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import edgeocr

DATA = Path(__file__).resolve().parents[1] / "data"


def _modules_after(code: str) -> set:
    r = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return set(json.loads(r.stdout.splitlines()[-1]))


@pytest.mark.parametrize(
    "code",
    [
        "import edgeocr",
        "import edgeocr.cli",
        "import edgeocr.predictor",
        "from edgeocr import Predictor",
    ],
)
def test_making_a_predictor_imports_no_numpy_and_no_opencv(code):
    mods = _modules_after(code)
    assert "numpy" not in mods and "cv2" not in mods and "PIL" not in mods, code
    assert "edgeocr.documents.output" not in mods and "edgeocr.pack" not in mods


def test_the_document_check_does_not_import_the_writers():
    mods = _modules_after("import edgeocr.documents.pages")
    assert "edgeocr.documents.output" not in mods and "xml.sax.saxutils" not in mods


def test_every_exported_name_resolves():
    for name in edgeocr.__all__:
        assert getattr(edgeocr, name) is not None, name
        assert name in dir(edgeocr)
    assert edgeocr.Predictor is edgeocr.predictor.Predictor
    assert edgeocr.models.MODEL_SETS  # a submodule, as after the eager import
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        edgeocr.nothing_here  # noqa: B018
    import edgeocr.documents as documents

    assert "pdf" in documents.FORMATS and documents.write_document
    with pytest.raises(AttributeError):
        documents.nothing_here  # noqa: B018


def _script(*args, input_env=None):
    return subprocess.run(
        [sys.executable, "-c", "from edgeocr.cli import run; run()", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=input_env,
    )


def test_the_console_script_prints_every_line_before_it_ends(v4_paths):
    r = _script("predict", str(DATA / "sample_en.png"), "-m", "ppocr-v4-mobile", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)  # a pipe: the whole result was flushed before the quick exit
    assert [ln["text"] for ln in out["lines"]] == [
        ln.text
        for ln in edgeocr.Predictor(models="ppocr-v4-mobile")
        .predict(str(DATA / "sample_en.png"))
        .lines
    ]
    missing = _script("predict", str(DATA / "no_such.png"), "-m", "ppocr-v4-mobile")
    assert missing.returncode == 1 and "no_such.png" in missing.stderr
    bad = _script("predict", str(DATA / "sample_en.png"), "-m", "no-such-set")
    assert bad.returncode == 2 and "no-such-set" in bad.stderr and "Traceback" not in bad.stderr
    models = _script("models")  # not predict: the interpreter's normal exit
    assert models.returncode == 0 and "ppocr-v4-mobile" in models.stdout


@pytest.mark.parametrize("kind", ["png", "jpg"])
def test_predicting_a_png_or_jpeg_imports_no_numpy_opencv_or_pillow(v4_paths, tmp_path, kind):
    """`edgeocr predict page.png` / `photo.jpg`: the core decodes and reads it (csrc/codec/), so
    the command imports none of numpy, OpenCV and Pillow (python -X importtime lists what is)."""
    page = DATA / "sample_en.png"
    if kind == "jpg":
        from PIL import Image

        with Image.open(page) as im:
            im.convert("RGB").save(tmp_path / "photo.jpg", quality=92)
        page = tmp_path / "photo.jpg"
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "from edgeocr.cli import run; run()"]
        + ["predict", str(page), "-m", "ppocr-v4-mobile"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Invoice" in r.stdout
    imported = {ln.rsplit("|", 1)[1].strip() for ln in r.stderr.splitlines() if "|" in ln}
    assert not imported & {"numpy", "cv2", "PIL"}, sorted(imported & {"numpy", "cv2", "PIL"})
