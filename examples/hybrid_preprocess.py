"""Hybrid mode: flexible Python preprocessing in front of the static OCR core.

The static graphs (det/cls/rec) stay fixed; decisions that depend on the
input, such as "shrink scans wider than 2000 px to 1000 px", live in a Python
hook passed as ``Predictor(preprocess=fn)``. This script measures what the
hook costs on a real page: the hook alone, and end to end with the default
Predictor, with and without the hook.

    python examples/hybrid_preprocess.py [--image page.jpg] [--repeats 5]

Boxes come back in the coordinates of the image the hook returned; the hook
records its scale so they can be mapped back to the original scan.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import cv2
import numpy as np

import edgeocr

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_PAGES = [
    os.path.join(REPO, "..", "shared", "datasets", "dev", "images", "finep_para_en_scan_01.jpg"),
    os.path.join(REPO, "tests", "data", "sample_en.png"),
]


class ShrinkWideScans:
    """Preprocess hook: pages wider than ``max_width`` are shrunk to ``target_width``.

    Large scans gain nothing from full-resolution detection but pay for it in
    time and memory; this decision depends on the input, so it stays in Python
    rather than in the static graph. ``scale`` holds the last factor applied.
    """

    def __init__(self, max_width: int = 2000, target_width: int = 1000):
        self.max_width, self.target_width, self.scale = max_width, target_width, 1.0

    def __call__(self, img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        if w <= self.max_width:
            self.scale = 1.0
            return img
        self.scale = self.target_width / w
        return cv2.resize(
            img, (self.target_width, max(1, round(h * self.scale))), interpolation=cv2.INTER_AREA
        )


def median_ms(fn, repeats: int) -> float:
    fn()  # warm-up (first-call allocations)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--image", help="a page image (default: a scan from the dev set, else tests/data)"
    )
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)

    path = args.image or next(p for p in DEFAULT_PAGES if os.path.exists(p))
    page = edgeocr.image_io.load_image(path)
    # A 600-dpi scan of the same page: wider than 2000 px, so the hook shrinks it.
    factor = 2400 / page.shape[1]
    scan = cv2.resize(page, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)

    hook = ShrinkWideScans()
    plain = edgeocr.Predictor(threads=args.threads)
    hybrid = edgeocr.Predictor(threads=args.threads, preprocess=hook)
    print(
        f"page {os.path.basename(path)} {page.shape[1]}x{page.shape[0]}; "
        f"scan {scan.shape[1]}x{scan.shape[0]}; {args.threads} threads, median of {args.repeats}"
    )

    hook_ms = median_ms(lambda: hook(scan), args.repeats * 4)
    noop_ms = median_ms(lambda: hook(page), args.repeats * 4)
    print(
        f"hook alone: {hook_ms:.2f} ms on the scan (shrinks it), "
        f"{noop_ms:.4f} ms on the page (passes it)"
    )

    rows = [
        ("page, no hook", plain, page),
        ("page, hook (no-op)", hybrid, page),
        ("scan, no hook", plain, scan),
        ("scan, hook", hybrid, scan),
    ]
    # Rows are interleaved (one call of each per round) so that load on the machine
    # drifting during the run hits all of them alike.
    times = {label: [] for label, _, _ in rows}
    last = {}
    for _label, pred, img in rows:
        pred.predict(img)  # warm-up
    for _ in range(args.repeats):
        for label, pred, img in rows:
            t0 = time.perf_counter()
            last[label] = pred.predict(img)
            times[label].append(time.perf_counter() - t0)
    results = {label: (statistics.median(times[label]) * 1000, last[label]) for label in times}
    for label, (ms, r) in results.items():
        print(
            f"{label:<20} {ms:8.1f} ms  {len(r.lines):3d} lines  "
            f"image into the pipeline {r.image_size}"
        )
    base, with_hook = results["page, no hook"][0], results["page, hook (no-op)"][0]
    print(
        f"hook overhead when it does nothing: {with_hook - base:+.1f} ms end to end "
        f"({(with_hook - base) / base * 100:+.1f}%)"
    )

    r = results["scan, hook"][1]  # hook.scale is the one applied to the scan (the last call)
    if r.lines:
        box = np.asarray(r.lines[0].box) / hook.scale  # back to the scan's coordinates
        print(
            f"first line {r.lines[0].text!r} "
            f"at x={box[:, 0].min():.0f}..{box[:, 0].max():.0f} in the scan"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
