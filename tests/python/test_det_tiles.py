"""det_tile_pixels: a large det input runs in overlapping tiles, reads the same text and holds
less memory in the runtime."""

import json
import subprocess
import sys
from pathlib import Path

import default_goldens
import numpy as np
import pytest

import edgeocr
from edgeocr.evaluate import normalize_text, polygon_iou

DATA = Path(__file__).resolve().parents[1] / "data"
PAGE = DATA / "sample_en.png"  # 720 x 268: the det frame is 1984 x 736 (1.46 Mpx)
# ... when det enlarges it to a 736 px short side whatever the factor (the default enlarges it at
# most 1.5x: 1080 x 408, which a 0.4 Mpx tile nearly holds whole).
UPSCALE = 1000

# Peak RSS growth of one predict() call in a fresh process (ONNX Runtime's arena keeps what the
# largest run asked for, so the det run's activations show in the peak).
_GROWTH = """
import json, sys
import edgeocr

def status_mb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024

p = edgeocr.Predictor(
    models="ppocr-v4-mobile", threads=1, det_tile_pixels=int(sys.argv[2]), det_max_upscale=1000
)
before = status_mb("VmRSS")
r = p.predict(sys.argv[1])
peak = status_mb("VmHWM")  # not ru_maxrss: a child's starts at its parent's RSS at fork
print(json.dumps({"growth_mb": peak - before, "lines": [ln.text for ln in r.lines]}))
"""


def _growth(tile_pixels):
    out = subprocess.run(
        [sys.executable, "-c", _GROWTH, str(PAGE), str(tile_pixels)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_tiled_det_reads_the_same_lines(v4_paths):
    kw = dict(models="ppocr-v4-mobile", threads=2, det_max_upscale=UPSCALE)
    whole = edgeocr.Predictor(**kw).predict(PAGE)
    tiled = edgeocr.Predictor(**kw, det_tile_pixels=400_000).predict(PAGE)
    assert [normalize_text(ln.text) for ln in tiled.lines] == [
        normalize_text(ln.text) for ln in whole.lines
    ]
    # Each tile's squeeze-excitation blocks pool their own tile, not the page: the map differs a
    # little, a box may grow by a few pixels (the dev set's match criterion is IoU > 0.5).
    for a, b in zip(tiled.lines, whole.lines):
        assert polygon_iou(a.box, b.box) > 0.5
    # A frame within the pixels runs whole: bit-identical.
    same = edgeocr.Predictor(**kw, det_tile_pixels=2_000_000)
    r = same.predict(PAGE)
    assert [(ln.text, ln.score) for ln in r.lines] == [(ln.text, ln.score) for ln in whole.lines]
    assert all(np.array_equal(a.box, b.box) for a, b in zip(r.lines, whole.lines))


def test_tiled_det_at_the_default_scale(v4_paths):
    # The twin of the test above at the shipped default (a 1088 x 416 frame: 2 tiles of at most
    # 0.4 Mpx): the same lines, and what both read recorded in tests/data/golden/default_scale.json
    # (tools/make_goldens.py).
    got = default_goldens.compute("det_tiles")
    assert not default_goldens.differences(default_goldens.load()["det_tiles"], got)
    whole, tiled = got["whole"], got["tiled"]
    assert [normalize_text(ln["text"]) for ln in tiled] == [
        normalize_text(ln["text"]) for ln in whole
    ]
    for a, b in zip(tiled, whole):
        assert polygon_iou(np.array(a["box"]), np.array(b["box"])) > 0.5


def test_tiled_det_holds_less_runtime_memory(v4_paths):
    whole = _growth(0)
    tiled = _growth(400_000)  # 1984 x 736 in tiles of at most 0.4 Mpx
    assert [normalize_text(t) for t in tiled["lines"]] == [
        normalize_text(t) for t in whole["lines"]
    ]
    # ~150-180 bytes per det input pixel: 1.46 Mpx whole vs <= 0.4 Mpx per tile.
    assert tiled["growth_mb"] < 0.6 * whole["growth_mb"], (tiled, whole)


@pytest.mark.parametrize("bad", [-1, 8192 * 8192 + 1, 1.5, "2000000"])
def test_det_tile_pixels_is_checked(v4_paths, bad):
    with pytest.raises(edgeocr.InvalidInputError, match="det_tile_pixels"):
        edgeocr.Predictor(models="ppocr-v4-mobile", det_tile_pixels=bad)
