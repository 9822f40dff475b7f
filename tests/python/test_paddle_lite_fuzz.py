"""Seeded mutation fuzzing of the ``.nb`` reader and translator.

Thousands of mutated ``.nb`` files (the real fixture files, and two small
files of both meta versions written by tools/paddle_lite/nb_writer.py): bit
flips, interesting-value overwrites of offsets and lengths, truncations, byte
splices within and across files, run
for a bounded time (``EDGEOCR_FUZZ_SECONDS``, default 20 s; the seed is
``EDGEOCR_FUZZ_SEED``, default 20240607). Every outcome must be either a
parsed program (then translated now and then) or an ``NbFormatError``: any
other exception, or a single input taking more than a few seconds, fails the
test and saves the input under pytest's tmp_path so it can be replayed.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import random
import struct
import time
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


from conftest import load_paddle_lite as _load_pl  # noqa: E402


pl = _load_pl()


def _fixtures() -> Path:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else REPO.parent / "shared"
    return root / "fixtures" / "paddle_lite"


FIX = _fixtures()
# the smaller files keep the iteration rate high; together they hold every
# op type of the fixtures except the det-only ones, which det_x86_int8 adds
SEEDS = ["cls_x86.nb", "cls_arm_int8.nb", "cls_x86_int8.nb", "cls_arm.nb", "det_x86_int8.nb"]

INTERESTING_U32 = [0, 1, 2, 3, 4, 7, 8, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF,
                   0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF]


def _topo_end(data: bytes) -> int:
    if len(data) < 26:
        return len(data)
    n = struct.unpack_from("<Q", data, 18)[0]
    return min(len(data), 26 + n)


def _mutate(rng: random.Random, data: bytes, others) -> bytes:
    b = bytearray(data)
    n = len(b)
    # aim most mutations at the header and program, where the structure is
    end = _topo_end(data) if rng.random() < 0.85 else n
    end = max(end, 2)

    def pos(width=1):
        return rng.randrange(0, max(1, end - width))

    kind = rng.randrange(7)
    if kind == 0:  # bit flips
        for _ in range(rng.randint(1, 8)):
            p = pos()
            b[p] ^= 1 << rng.randrange(8)
    elif kind == 1:  # interesting 32-bit value at a random (often aligned) place
        for _ in range(rng.randint(1, 3)):
            p = pos(4)
            if rng.random() < 0.7:
                p &= ~3
            v = rng.choice(INTERESTING_U32 + [rng.randrange(1 << 32), n, n - p, p])
            b[p:p + 4] = struct.pack("<I", v & 0xFFFFFFFF)
    elif kind == 2:  # 16-bit values (vtable entries, counts)
        for _ in range(rng.randint(1, 4)):
            p = pos(2)
            b[p:p + 2] = struct.pack("<H", rng.choice([0, 1, 2, 4, 0xFF, 0xFFFF,
                                                       rng.randrange(1 << 16)]))
    elif kind == 3:  # truncation
        return bytes(b[:rng.randrange(0, n)])
    elif kind == 4:  # splice a chunk from this or another file over a random place
        src = rng.choice(others)
        ln = rng.randint(1, 256)
        s = rng.randrange(0, max(1, len(src) - ln))
        p = pos(ln)
        b[p:p + ln] = src[s:s + ln]
    elif kind == 5:  # insert or delete bytes (shifts every later offset)
        p = pos()
        if rng.random() < 0.5:
            del b[p:p + rng.randint(1, 64)]
        else:
            b[p:p] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    else:  # header fields
        which = rng.randrange(3)
        if which == 0:
            b[0:2] = struct.pack("<H", rng.choice([0, 1, 2, 3, 0xFFFF]))
        elif which == 1:
            b[18:26] = struct.pack("<Q", rng.choice([0, 1, 8, n, n - 26, n + 1, 1 << 63,
                                                     rng.randrange(n)]))
        else:
            b[2:18] = bytes(rng.randrange(256) for _ in range(16))
    return bytes(b)


def _synthetic_seeds():
    """Small files (both meta versions) written by tools/paddle_lite/nb_writer.py
    from the in-memory program of test_paddle_lite.py: fast to mutate, and
    present even where the fixtures are not."""
    mods = []
    for name, path in (("_edgeocr_nb_writer_fuzz", REPO / "tools" / "paddle_lite" / "nb_writer.py"),
                       ("_edgeocr_test_paddle_lite_fuzz", Path(__file__).with_name(
                           "test_paddle_lite.py"))):
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods.append(mod)
    writer, tests = mods
    prog = tests.small_program()
    return [writer.write_nb(prog, 1), writer.write_nb(prog, 2)]


def test_fuzz_reader_and_translator(tmp_path):
    seconds = float(os.environ.get("EDGEOCR_FUZZ_SECONDS", "20"))
    seed = int(os.environ.get("EDGEOCR_FUZZ_SEED", "20240607"))
    rng = random.Random(seed)
    real = [(FIX / "nb" / s).read_bytes() for s in SEEDS if (FIX / "nb" / s).is_file()]
    small = _synthetic_seeds()
    for d in small:  # the unmutated seeds translate
        pl.nb_to_onnx(d)
    datas = real + small
    outcomes: Counter = Counter()
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        i += 1
        base = rng.choice(small) if (not real or rng.random() < 0.5) else rng.choice(real)
        data = _mutate(rng, base, datas)
        t0 = time.monotonic()
        try:
            prog = pl.read_nb(data)
            outcomes["read"] += 1
            if len(data) < 100_000 or rng.random() < 0.25:
                pl.nb_to_onnx(prog)
                outcomes["translated"] += 1
        except pl.NbFormatError as e:
            assert str(e), "empty error message"
            outcomes["NbFormatError"] += 1
        except Exception as e:  # noqa: BLE001 - that is what we are looking for
            bad = tmp_path / f"crash_{seed}_{i}.nb"
            bad.write_bytes(data)
            pytest.fail(f"iteration {i} (seed {seed}) raised {type(e).__name__}: {e}; "
                        f"input saved to {bad}")
        dt = time.monotonic() - t0
        if dt > 60.0:  # a hang detector, not a speed test: generous for loaded machines
            bad = tmp_path / f"slow_{seed}_{i}.nb"
            bad.write_bytes(data)
            pytest.fail(f"iteration {i} (seed {seed}) took {dt:.1f} s; input saved to {bad}")
    print(f"fuzz: {i} inputs in {seconds:.0f} s: {dict(outcomes)}")
    assert outcomes["NbFormatError"] > 0
    assert i >= 50
    if not real:
        print(f"fuzz: fixtures not found at {FIX}; mutated the synthetic files only")


def test_fuzz_regressions_fail_cleanly():
    """Inputs the fuzz loop once found (e.g. an fc op whose x_num_col_dims claimed 5e8 made the
    translator build a 5e8-element shape constant) are refused with NbFormatError."""
    folder = Path(__file__).resolve().parents[1] / "data" / "nb_regressions"
    files = sorted(folder.glob("*.nb"))
    assert files, f"no regression inputs in {folder}"
    for f in files:
        with pytest.raises(pl.NbFormatError):
            pl.nb_to_onnx(pl.read_nb(f.read_bytes()))
