#!/usr/bin/env python3
"""RSS of one Predictor shared by threads, after a threaded warm-up round and after later rounds.

A round is --calls predictions (default 36) of the first --calls dev images (sorted by name,
decoded once before the run), handed out from one queue to --threads threads (default 8) in a
seeded order that changes every round. The figure is the RSS after the last round over the RSS
after round 1 (the warm-up): the bar is <= +5% (docs/reliability.md, "Long runs with threads").
Every round's lines must equal a sequential run's.

    python benchmarks/thread_rss.py              # Predictor(), 8 threads x 36 calls, 3 rounds
    python benchmarks/thread_rss.py --models ppocr-v4-mobile --rounds 5
    python benchmarks/thread_rss.py --trim       # malloc_trim(0) after each round: what glibc
                                                 # holds free vs what is in use

Prints the malloc arena settings (edgeocr's cap, MALLOC_ARENA_MAX, EDGEOCR_MALLOC_ARENA_MAX), the
RSS after each round and the ratio; --json writes them. Exit status 1 when the ratio is above
--bar (default 1.05), the lines differ or a call fails. Memory, not time, is the figure: a loaded
machine gives the same RSS, only slower.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import os
import random
import sys
import threading
import time
from pathlib import Path

# The shared folder: $EDGEOCR_SHARED_DIR, else ../shared beside the checkout (as the tests find it).
SHARED = Path(
    os.environ.get("EDGEOCR_SHARED_DIR") or Path(__file__).resolve().parents[2] / "shared"
)
DEV = SHARED / "datasets" / "dev" / "images"


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def malloc_trim() -> bool:
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    return bool(libc and hasattr(libc, "malloc_trim") and libc.malloc_trim(0))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", default=str(DEV), help="folder of page images (the dev set)")
    ap.add_argument("--models", default=None, help="model set (default: Predictor()'s)")
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--calls", type=int, default=36, help="predictions per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, the first being the warm-up")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--bar", type=float, default=1.05, help="largest ratio that passes")
    ap.add_argument("--trim", action="store_true", help="malloc_trim(0) after each round")
    ap.add_argument(
        "--paths",
        action="store_true",
        help="give predict() the file paths (decoded in every call) instead of decoded images",
    )
    ap.add_argument(
        "--memory-arena",
        choices=["shared", "session", "off"],
        default=None,
        help="Predictor(memory_arena=...): 'shared' (the default), 'session' (True), 'off' (False)",
    )
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    if args.threads < 1 or args.calls < 1 or args.rounds < 2:
        ap.error("need --threads >= 1, --calls >= 1, --rounds >= 2")

    import edgeocr
    from edgeocr import _core
    from edgeocr.image_io import load_image

    files = sorted(
        p for p in Path(args.images).iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg")
    )[: args.calls]
    if not files:
        raise SystemExit(f"thread_rss: no .png/.jpg images in {args.images}")
    images = [str(p) for p in files] if args.paths else [load_image(str(p)) for p in files]
    kw = {"models": args.models} if args.models else {}
    if args.memory_arena:
        kw["memory_arena"] = {"shared": "shared", "session": True, "off": False}[args.memory_arena]
    p = edgeocr.Predictor(**kw)
    arenas = {
        "edgeocr_cap": _core.malloc_arena_cap(),
        "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX"),
        "EDGEOCR_MALLOC_ARENA_MAX": os.environ.get("EDGEOCR_MALLOC_ARENA_MAX"),
    }
    print(
        f"thread_rss: {p.model_set or 'the given models'}, {args.threads} threads x "
        f"{len(images)} calls x {args.rounds} rounds over {args.images}; malloc arenas: "
        f"edgeocr cap {arenas['edgeocr_cap']} (-1: not applied), MALLOC_ARENA_MAX="
        f"{arenas['MALLOC_ARENA_MAX']}, EDGEOCR_MALLOC_ARENA_MAX="
        f"{arenas['EDGEOCR_MALLOC_ARENA_MAX']}",
        flush=True,
    )
    rss_loaded = rss_mb()
    print(f"loaded: rss {rss_loaded:.1f} MiB (before any call)", flush=True)

    expected: dict[int, list] = {}
    rng = random.Random(args.seed)
    rows, failures = [], []
    for rnd in range(1, args.rounds + 1):
        order = list(range(len(images)))
        rng.shuffle(order)
        lock = threading.Lock()
        got: dict[int, list] = {}

        def worker(order=order, lock=lock, got=got, rnd=rnd):
            while True:
                with lock:
                    if not order:
                        return
                    k = order.pop()
                try:
                    lines = [ln.text for ln in p.predict(images[k]).lines]
                except Exception as e:  # noqa: BLE001 - every failure is reported
                    with lock:
                        failures.append(f"round {rnd}, {files[k].name}: {type(e).__name__}: {e}")
                    continue
                with lock:
                    got[k] = lines

        t0 = time.perf_counter()
        ts = [threading.Thread(target=worker) for _ in range(args.threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        seconds = time.perf_counter() - t0
        if rnd == 1:
            expected = got
        else:
            failures.extend(
                f"round {rnd}, {files[k].name}: lines differ from round 1's"
                for k in got
                if got[k] != expected.get(k)
            )
        trimmed = malloc_trim() if args.trim else None
        ms = p.memory_stats()  # the pipeline's pool (pre/post-processing buffers)
        row = {
            "round": rnd,
            "rss_mb": round(rss_mb(), 1),
            "pool_reserved_mb": round(ms["reserved_bytes"] / 2**20, 1),
            "pool_misses": int(ms["misses"]),
            "seconds": round(seconds, 1),
        }
        if args.trim:
            row["malloc_trim_released"] = trimmed
        rows.append(row)
        print(
            f"round {rnd}{' (warm-up)' if rnd == 1 else ''}: rss {row['rss_mb']:.1f} MiB, "
            f"pool reserved {row['pool_reserved_mb']:.1f} MiB ({row['pool_misses']} misses), "
            f"{seconds:.1f} s",
            flush=True,
        )
    base, last = rows[0]["rss_mb"], rows[-1]["rss_mb"]
    ratio = last / base
    summary = {
        "model_set": p.model_set,
        "threads": args.threads,
        "calls_per_round": len(images),
        "rounds": rows,
        "rss_loaded_mb": round(rss_loaded, 1),
        "rss_after_warmup_mb": base,
        "rss_last_mb": last,
        "ratio": round(ratio, 4),
        "malloc_arenas": arenas,
        "trim": args.trim,
        "failures": failures[:10],
    }
    print(
        f"ratio: {last:.1f} / {base:.1f} MiB = {ratio:.4f} ({ratio - 1:+.1%}; bar {args.bar})",
        flush=True,
    )
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    for f in failures[:10]:
        print("FAIL: " + f, file=sys.stderr)
    return 0 if ratio <= args.bar and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
