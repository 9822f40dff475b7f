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


# After a predictor is made, a block of 8 MiB gets its own mapping (mallinfo2's hblkhd) even
# after a 16 MiB block was freed, which raises glibc's dynamic mmap threshold to 16 MiB: the
# threshold is fixed (runtime/malloc_tuning.cpp), so per-call buffers of a few MiB are given
# back when freed instead of fragmenting the arenas' heaps under threads.
MMAP_CHILD = """
import ctypes, edgeocr
edgeocr.Predictor(models='ppocr-v4-mobile', threads=1)
libc = ctypes.CDLL('libc.so.6')
names = ('arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks',
         'fordblks', 'keepcost')
class MI2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in names]
libc.mallinfo2.restype = MI2
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
a = libc.malloc(16 << 20)
libc.free(a)
before = libc.mallinfo2().hblkhd
b = libc.malloc(8 << 20)
mapped = libc.mallinfo2().hblkhd - before
libc.free(b)
print(int(mapped >= 8 << 20))
"""


def _mapped(**env):
    e = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MALLOC_ARENA_MAX", "EDGEOCR_MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_")
    }
    e.update(env)
    r = subprocess.run(
        [sys.executable, "-c", MMAP_CHILD], capture_output=True, text=True, env=e, timeout=300
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.split()[-1] == "1"


def test_mmap_threshold_is_fixed_with_the_arena_cap(v4_paths):
    if not hasattr(__import__("ctypes").CDLL("libc.so.6"), "mallinfo2"):
        pytest.skip("glibc without mallinfo2 (< 2.33)")
    assert _mapped()
    # Left alone: with EDGEOCR_MALLOC_ARENA_MAX=0, glibc's dynamic threshold keeps 8 MiB in
    # the heap once a 16 MiB block was freed; the process's own threshold wins.
    assert not _mapped(EDGEOCR_MALLOC_ARENA_MAX="0")
    assert not _mapped(MALLOC_MMAP_THRESHOLD_=str(32 << 20))
