"""Long runs: edgeocr caps glibc's malloc arenas so that threads sharing a Predictor do not
grow RSS after warm-up (runtime/malloc_tuning.h; the curve is measured by tools/soak.py).
Each case runs in a fresh interpreter: the cap is process-wide and applied once."""

import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)

CHILD = (
    "import edgeocr; from edgeocr import _core; "
    "edgeocr.Predictor(models='ppocr-v4-mobile', threads=1); print(_core.malloc_arena_cap())"
)


def _cap(v4_paths, **env):
    e = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MALLOC_ARENA_MAX", "EDGEOCR_MALLOC_ARENA_MAX")
    }
    e.update(env)
    r = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, env=e, timeout=300
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return int(r.stdout.split()[-1])


def test_arenas_are_capped_by_default(v4_paths):
    assert _cap(v4_paths) == 2


def test_arena_cap_is_a_setting_and_the_callers_malloc_setting_wins(v4_paths):
    assert _cap(v4_paths, EDGEOCR_MALLOC_ARENA_MAX="4") == 4
    assert _cap(v4_paths, EDGEOCR_MALLOC_ARENA_MAX="0") == -1
    assert _cap(v4_paths, MALLOC_ARENA_MAX="8") == -1
