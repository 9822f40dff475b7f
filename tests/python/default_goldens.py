"""What the shipped default det scale reads on the inputs that some tests read at an older one.

test_nb_pipeline, test_det_tiles and test_hard_captures' blurred page pin ``det_max_upscale``
(1000: a 736 px short side; 2) to the scale their comparison was made at. Their twins run the
same inputs at the default settings and compare with ``tests/data/golden/default_scale.json``,
which ``tools/make_goldens.py`` writes from :func:`compute` (one definition of each case, here):
a change of what the default reads fails a twin until the golden file is made again and the
change is looked at (issue 36).

Compared: each line's text exactly, its box within ``BOX_ATOL`` pixels (ONNX Runtime's kernels
differ a little between CPUs; the texts of these clean samples do not).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = DATA / "golden" / "default_scale.json"
BOX_ATOL = 2.0

NB_TARGETS = ("x86", "arm", "x86_int8", "arm_int8")
NB_SAMPLES = ("sample_en.png", "sample_en_rot180.png", "sample_en_skew6.png")
TILE_PIXELS = 400_000  # test_det_tiles' tile: the default's 1088 x 416 frame runs in 2 tiles


def lines_of(result) -> list:
    return [{"text": ln.text, "box": np.round(ln.box, 1).tolist()} for ln in result.lines]


def _nb(nb_dir: Path, v4_rec: str, target: str) -> dict:
    import edgeocr

    chars = edgeocr.Model(v4_rec).metadata["character"].splitlines()
    p = edgeocr.Predictor(
        det=nb_dir / f"det_{target}.nb",
        cls=nb_dir / f"cls_{target}.nb",
        rec=nb_dir / f"rec_{target}.nb",
        keys=chars,
        threads=2,
    )
    return {name: lines_of(p.predict(DATA / name)) for name in NB_SAMPLES}


def _det_tiles() -> dict:
    import edgeocr

    page = DATA / "sample_en.png"
    kw = dict(models="ppocr-v4-mobile", threads=2)
    return {
        "whole": lines_of(edgeocr.Predictor(**kw).predict(page)),
        "tiled": lines_of(edgeocr.Predictor(**kw, det_tile_pixels=TILE_PIXELS).predict(page)),
    }


def _blurred(v4_det: str) -> dict:
    import edgeocr

    page = edgeocr.image_io.load_image(DATA / "sample_en_blur.png")
    return {
        "sharpened": lines_of(edgeocr.Predictor(det=v4_det, threads=2).predict(page)),
        "plain": lines_of(
            edgeocr.Predictor(det=v4_det, threads=2, det_sharpen_below=0).predict(page)
        ),
    }


def case_names() -> list:
    return [f"nb_{t}" for t in NB_TARGETS] + ["det_tiles", "blurred_det"]


def compute(name: str, *, nb_dir: Path | None = None, v4_paths: dict | None = None) -> dict:
    """The outputs of case ``name`` at the default settings (the models must be installed)."""
    if name.startswith("nb_"):
        return _nb(Path(nb_dir), v4_paths["rec"], name[3:])
    if name == "det_tiles":
        return _det_tiles()
    if name == "blurred_det":
        return _blurred(v4_paths["det"])
    raise KeyError(name)


def load() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def differences(want: dict, got: dict) -> list:
    """What differs between two outputs of a case ({part: [lines]}), as readable lines."""
    out = []
    for part in sorted(set(want) | set(got)):
        w, g = want.get(part), got.get(part)
        if w is None or g is None:
            out.append(f"{part}: only in {'the golden file' if g is None else 'this run'}")
            continue
        wt, gt = [ln["text"] for ln in w], [ln["text"] for ln in g]
        if wt != gt:
            out.append(f"{part}: texts {gt!r}, golden {wt!r}")
            continue
        for i, (a, b) in enumerate(zip(w, g)):
            if not np.allclose(a["box"], b["box"], atol=BOX_ATOL):
                out.append(f"{part}: line {i} box {b['box']}, golden {a['box']}")
    return out
