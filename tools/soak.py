#!/usr/bin/env python3
"""Soak test: many predictions with one Predictor; memory must stay flat.

Runs N predictions over a fixed set of synthetic text images of varied sizes
(visited in a seeded random order, optionally from several threads sharing the
Predictor), prints the RSS curve and the memory pool's counters every K calls,
and checks after warm-up:

  * RSS stays within --rss-tolerance (default 5%) of its value at the end of warm-up;
  * the pool's misses (new block allocations) stop.

Exit status 0 when both hold, 1 otherwise. The default size takes ~2-3 minutes
on two cores; the issue's figure is ``--calls 5000``.

    python tools/soak.py                         # default: 600 calls
    python tools/soak.py --calls 5000 --every 250
    python tools/soak.py --calls 160 --warmup 48 --every 16   # the pytest version
    python tools/soak.py --threads 8 --pages ../shared/datasets/dev/images \
        --calls 108 --warmup 36 --every 12
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

import numpy as np

# (width, height) of the images; the text on each is fixed, so every size maps
# to one set of tensor shapes and the pool can stop allocating after warm-up.
SIZES = [(160, 48), (256, 64), (320, 96), (400, 120), (480, 72), (512, 160), (640, 128), (200, 200)]
WORDS = ["edge", "OCR", "soak 123", "memory", "stays flat", "PP-OCR", "threads", "pool"]


def rss_mb() -> float:
    """Resident set size of this process, MiB (Linux /proc; falls back to ru_maxrss)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_image(w: int, h: int, k: int) -> np.ndarray:
    """A white BGR image of w x h with a few lines of dark text."""
    import cv2

    img = np.full((h, w, 3), 250, np.uint8)
    scale = max(0.4, min(w, 5 * h) / 700)
    line_h = int(40 * scale)
    y = line_h
    i = k
    while y < h - 8 and y < 3 * line_h:  # at most two lines: the soak is about memory, not speed
        text = " ".join(WORDS[(i + j) % len(WORDS)] for j in range(2))
        cv2.putText(
            img,
            text,
            (8, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (20, 20, 20),
            max(1, int(2 * scale)),
            cv2.LINE_AA,
        )
        y += int(line_h * 1.4)
        i += 3
    return img


def run(
    calls: int,
    warmup: int,
    every: int,
    threads: int,
    seed: int,
    models: str,
    rss_tolerance: float,
    out=sys.stdout,
    pages: str | None = None,
    n_pages: int = 12,
) -> dict:
    import edgeocr

    if pages:  # real pages of varied sizes, with the model set's own settings
        from edgeocr.image_io import load_image

        files = sorted(
            os.path.join(pages, f)
            for f in os.listdir(pages)
            if f.lower().endswith((".png", ".jpg", ".jpeg"))
        )[:n_pages]
        if not files:
            raise SystemExit(f"soak: no .png/.jpg pages in {pages}")
        images = [load_image(f) for f in files]
    else:
        images = [make_image(w, h, k) for k, (w, h) in enumerate(SIZES)]
    order = np.random.default_rng(seed).integers(0, len(images), calls)
    # Warm-up visits every size at least twice, whatever the random order.
    warm = max(warmup, 2 * len(images))
    order[: 2 * len(images)] = np.tile(np.arange(len(images)), 2)

    # limit type 'max' keeps small images small (the default 'min' upscales them to 736):
    # many calls in little time; the code paths are the same.
    if pages:
        p = edgeocr.Predictor(models=models, threads=1)
    else:
        p = edgeocr.Predictor(
            models=models, threads=1, det_limit_type="max", det_limit_side_len=960
        )
    expected = {}
    for k, img in enumerate(images):  # the sequential answer, for the threaded run
        expected[k] = [ln.text for ln in p.predict(img).lines]

    curve = []
    lock = threading.Lock()
    state = {"done": 0, "mismatch": 0, "errors": []}
    t0 = time.perf_counter()
    base = {"rss": None, "misses": None}

    def record(n):
        s = p.memory_stats()
        row = {
            "calls": n,
            "rss_mb": round(rss_mb(), 1),
            "pool_misses": int(s["misses"]),
            "pool_hits": int(s["hits"]),
            "pool_reserved_mb": round(s["reserved_bytes"] / 2**20, 1),
            "seconds": round(time.perf_counter() - t0, 1),
        }
        curve.append(row)
        print(
            f"{n:6d} calls  rss {row['rss_mb']:8.1f} MiB  pool misses {row['pool_misses']:5d}  "
            f"hits {row['pool_hits']:7d}  reserved {row['pool_reserved_mb']:7.1f} MiB  "
            f"{row['seconds']:7.1f}s",
            file=out,
            flush=True,
        )
        if n == warm:
            base["rss"], base["misses"] = row["rss_mb"], row["pool_misses"]

    def worker(idx):
        while True:
            with lock:
                n = state["done"]
                if n >= calls:
                    return
                state["done"] = n + 1
            k = int(order[n])
            try:
                texts = [ln.text for ln in p.predict(images[k]).lines]
                if texts != expected[k]:
                    with lock:
                        state["mismatch"] += 1
            except Exception as e:  # noqa: BLE001 - any error fails the soak
                with lock:
                    state["errors"].append(f"call {n}: {type(e).__name__}: {e}")
            with lock:
                finished = state.setdefault("finished", 0) + 1
                state["finished"] = finished
                if finished % every == 0 or finished in (1, warm) or finished == calls:
                    record(finished)

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()

    after = [r for r in curve if r["calls"] > warm]
    rss_after_max = max((r["rss_mb"] for r in after), default=base["rss"])
    end = curve[-1]
    growth = (rss_after_max - base["rss"]) / base["rss"] if base["rss"] else 0.0
    summary = {
        "calls": calls,
        "threads": threads,
        "warmup_calls": warm,
        "sizes": len(images),
        "seconds": end["seconds"],
        "rss_start_mb": curve[0]["rss_mb"],
        "rss_after_warmup_mb": base["rss"],
        "rss_max_after_warmup_mb": rss_after_max,
        "rss_end_mb": end["rss_mb"],
        "rss_growth": round(growth, 4),
        "pool_misses_after_warmup": end["pool_misses"] - base["misses"],
        "pool_misses_total": end["pool_misses"],
        "mismatches": state["mismatch"],
        "errors": state["errors"][:5],
    }
    summary["ok"] = (
        growth <= rss_tolerance
        and summary["pool_misses_after_warmup"] == 0
        and not state["errors"]
        and state["mismatch"] == 0
    )
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--calls", type=int, default=600, help="predictions in all (default 600, ~2-3 min)"
    )
    ap.add_argument("--warmup", type=int, default=100, help="calls before the baseline is taken")
    ap.add_argument(
        "--every", type=int, default=50, help="print the RSS curve every this many calls"
    )
    ap.add_argument("--threads", type=int, default=1, help="threads sharing the one Predictor")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--models", default="ppocr-v4-mobile")
    ap.add_argument("--rss-tolerance", type=float, default=0.05)
    ap.add_argument("--json", help="also write the summary and curve to this file")
    ap.add_argument("--pages", help="a folder of page images to use instead of the synthetic sizes")
    ap.add_argument(
        "--n-pages", type=int, default=12, help="how many pages of --pages (sorted by name)"
    )
    args = ap.parse_args(argv)
    if args.calls <= args.warmup or args.every < 1 or args.threads < 1:
        ap.error("need --calls > --warmup, --every >= 1, --threads >= 1")
    print(
        f"soak: {args.calls} calls, {args.threads} thread(s), "
        f"{f'pages of {args.pages}' if args.pages else f'{len(SIZES)} image sizes'}, "
        f"warm-up {args.warmup}, pid {os.getpid()}",
        flush=True,
    )
    s = run(
        args.calls,
        args.warmup,
        args.every,
        args.threads,
        args.seed,
        args.models,
        args.rss_tolerance,
        pages=args.pages,
        n_pages=args.n_pages,
    )
    print("summary: " + json.dumps(s), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(s, f, indent=1)
    if not s["ok"]:
        print(
            f"soak: FAILED (RSS growth {s['rss_growth']:.1%} allowed {args.rss_tolerance:.0%}, "
            f"pool misses after warm-up {s['pool_misses_after_warmup']}, errors "
            f"{len(s['errors'])}, "
            f"mismatches {s['mismatches']})",
            file=sys.stderr,
        )
        return 1
    print(
        f"soak: OK (RSS {s['rss_after_warmup_mb']} -> {s['rss_end_mb']} MiB, growth "
        f"{s['rss_growth']:.2%}; "
        "no pool misses after warm-up)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
