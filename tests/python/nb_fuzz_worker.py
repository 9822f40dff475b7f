"""Seeded mutation fuzzing of a ``.nb`` translator, run in a subprocess.

Used by test_paddle_lite_fuzz.py (and runnable by hand)::

    python tests/python/nb_fuzz_worker.py --mode cpp --seconds 20 --seed 1 \
        --limit-mb 256 --workdir DIR SEED.nb [SEED.nb ...]

The worker imports the translator, translates every seed once (each must
translate), then caps its own address space at what it uses at that point
plus ``--limit-mb`` (``resource.setrlimit(RLIMIT_AS)``), so that a translation
that asks for more memory fails instead of taking the machine down. Then it
mutates the seeds for ``--seconds``: every input must end in ONNX bytes or in
the translator's own error (edgeocr.EdgeOCRError / NbFormatError); any other
exception, an error that says memory ran out, or a crash is a finding. Before
each input the worker writes its index to ``WORKDIR/index`` (the mutations are
a pure function of the seed, so the parent can rebuild the input that crashed
the process). The last line of stdout is a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import struct
import sys
import time
from collections import Counter
from pathlib import Path

INTERESTING_U32 = [
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x10000,
    0x7FFFFFFF,
    0x80000000,
    0xFFFFFFFE,
    0xFFFFFFFF,
]


def _topo_end(data: bytes) -> int:
    if len(data) < 26:
        return len(data)
    n = struct.unpack_from("<Q", data, 18)[0]
    return min(len(data), 26 + n)


def mutate(rng: random.Random, data: bytes, others) -> bytes:
    """One mutation: bit flips, interesting values at (aligned) offsets, truncation,
    splices within and across files, insertions/deletions, header fields."""
    b = bytearray(data)
    n = len(b)
    # aim most mutations at the header and program, where the structure is
    end = _topo_end(data) if rng.random() < 0.85 else n
    end = max(end, 2)

    def pos(width=1):
        return rng.randrange(0, max(1, end - width))

    kind = rng.randrange(7)
    if kind == 0:
        for _ in range(rng.randint(1, 8)):
            p = pos()
            b[p] ^= 1 << rng.randrange(8)
    elif kind == 1:
        for _ in range(rng.randint(1, 3)):
            p = pos(4)
            if rng.random() < 0.7:
                p &= ~3
            v = rng.choice(INTERESTING_U32 + [rng.randrange(1 << 32), n, n - p, p])
            b[p : p + 4] = struct.pack("<I", v & 0xFFFFFFFF)
    elif kind == 2:
        for _ in range(rng.randint(1, 4)):
            p = pos(2)
            b[p : p + 2] = struct.pack(
                "<H", rng.choice([0, 1, 2, 4, 0xFF, 0xFFFF, rng.randrange(1 << 16)])
            )
    elif kind == 3:
        return bytes(b[: rng.randrange(0, n)])
    elif kind == 4:
        src = rng.choice(others)
        ln = rng.randint(1, 256)
        s = rng.randrange(0, max(1, len(src) - ln))
        p = pos(ln)
        b[p : p + ln] = src[s : s + ln]
    elif kind == 5:
        p = pos()
        if rng.random() < 0.5:
            del b[p : p + rng.randint(1, 64)]
        else:
            b[p:p] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    else:
        which = rng.randrange(3)
        if which == 0:
            b[0:2] = struct.pack("<H", rng.choice([0, 1, 2, 3, 0xFFFF]))
        elif which == 1:
            b[18:26] = struct.pack(
                "<Q", rng.choice([0, 1, 8, n, n - 26, n + 1, 1 << 63, rng.randrange(n)])
            )
        else:
            b[2:18] = bytes(rng.randrange(256) for _ in range(16))
    return bytes(b)


def inputs(seed: int, seeds: list[bytes]):
    """The input sequence: a pure function of the seed and the seed files."""
    rng = random.Random(seed)
    while True:
        yield mutate(rng, rng.choice(seeds), seeds)


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _translator(mode: str):
    """(translate(bytes) -> bytes, the exception types that mean 'refused'): the core's."""
    import edgeocr  # noqa: F401 - the core maps its errors to edgeocr.errors
    from edgeocr import _core
    from edgeocr.errors import EdgeOCRError

    return (lambda d: _core.nb_to_onnx(d, "<fuzz>")), (EdgeOCRError,)


def check(a) -> int:
    """Translate each file once under the limit; one JSON line per file, then a summary."""
    translate, refused = _translator(a.mode)
    try:
        translate(b"\x02\x00" + b"\0" * 40)  # the error path's imports, before the limit
    except refused:
        pass
    base_kb = _status_kb("VmSize")
    limit = (base_kb << 10) + (a.limit_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    bad = 0
    for p in a.seeds:
        data = Path(p).read_bytes()
        t0 = time.monotonic()
        try:
            translate(data)
            outcome, msg = "translated", ""
        except refused as e:
            outcome, msg = type(e).__name__, str(e)
            if not msg or "out of memory" in msg or "MemoryError" in msg:
                outcome, bad = "finding", bad + 1
        except Exception as e:  # noqa: BLE001 - a finding
            outcome, msg, bad = "finding", f"{type(e).__name__}: {e}", bad + 1
        print(
            json.dumps(
                {
                    "file": Path(p).name,
                    "size": len(data),
                    "outcome": outcome,
                    "seconds": round(time.monotonic() - t0, 3),
                    "message": msg[:400],
                }
            ),
            flush=True,
        )
    print(
        json.dumps(
            {
                "limit_mb": a.limit_mb,
                "base_vmsize_mb": round(base_kb / 1024, 1),
                "peak_rss_mb": round(_status_kb("VmHWM") / 1024, 1),
                "findings": bad,
            }
        )
    )
    return 3 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["cpp"], default="cpp")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--limit-mb", type=int, default=256)
    ap.add_argument("--max-iterations", type=int, default=0)
    ap.add_argument("--workdir", required=True)
    ap.add_argument(
        "--check",
        action="store_true",
        help="no fuzzing: translate each file once under the limit and report",
    )
    ap.add_argument("seeds", nargs="+")
    a = ap.parse_args()
    if a.check:
        return check(a)
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    seeds = [Path(p).read_bytes() for p in a.seeds]
    translate, refused = _translator(a.mode)
    for d in seeds:  # every seed translates, and the error path has run once
        translate(d)
    try:
        translate(b"\x02\x00" + b"\0" * 40)
    except refused:
        pass
    base_kb = _status_kb("VmSize")
    limit = (base_kb << 10) + (a.limit_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    idx_fd = os.open(work / "index", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    outcomes: Counter = Counter()
    slowest = (0.0, -1)
    finding = None
    deadline = time.monotonic() + a.seconds
    i = 0
    for data in inputs(a.seed, seeds):
        if time.monotonic() >= deadline or (a.max_iterations and i >= a.max_iterations):
            break
        os.pwrite(idx_fd, struct.pack("<Q", i), 0)
        t0 = time.monotonic()
        try:
            translate(data)
            outcomes["translated"] += 1
        except refused as e:
            msg = str(e)
            if not msg:
                finding = f"iteration {i}: empty error message"
            elif "out of memory" in msg or "MemoryError" in msg:
                finding = f"iteration {i}: hit the {a.limit_mb} MB limit: {msg[:300]}"
            outcomes[type(e).__name__] += 1
        except Exception as e:  # noqa: BLE001 - that is what we are looking for
            finding = f"iteration {i}: {type(e).__name__}: {str(e)[:300]}"
        dt = time.monotonic() - t0
        if dt > slowest[0]:
            slowest = (dt, i)
        if finding:
            (work / "finding.nb").write_bytes(data)
            break
        i += 1
    summary = {
        "mode": a.mode,
        "iterations": i,
        "outcomes": dict(outcomes),
        "limit_mb": a.limit_mb,
        "base_vmsize_mb": round(base_kb / 1024, 1),
        "peak_rss_mb": round(_status_kb("VmHWM") / 1024, 1),
        "slowest_s": round(slowest[0], 3),
        "slowest_iteration": slowest[1],
        "finding": finding,
    }
    print(json.dumps(summary))
    return 3 if finding else 0


if __name__ == "__main__":
    sys.exit(main())
