"""Lines read identically under a memory budget, on dev pages, budgeted vs unbudgeted side by side.

    python benchmarks/budget_dev.py --models ppocr-v4det-v6rec --budget 256 --every 4

Reads every Nth dev page (name order; ../shared/datasets/dev or --dev DIR) with an unbudgeted
Predictor and one with max_memory_mb=BUDGET, alternating in one process (fp32, 1 thread). A line
is identical when the budgeted page has a line with the same text (multiset match). Prints per
page the det plan (tiles), lines identical / reference lines, and the time ratio (interleaved:
on a loaded machine a rough figure).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="ppocr-v4det-v6rec")
    ap.add_argument("--budget", type=float, default=256)
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--dev", default=os.path.join(here, "..", "..", "shared", "datasets", "dev"))
    ap.add_argument("--json", help="write the per-page rows here")
    args = ap.parse_args()
    os.environ.setdefault("EDGEOCR_PRECISION", "fp32")
    import edgeocr
    from edgeocr.image_io import load_image

    with open(os.path.join(args.dev, "e2e_synth.jsonl"), encoding="utf-8") as f:
        rows = sorted((json.loads(line) for line in f), key=lambda r: r["file"])
    rows = rows[:: args.every]
    ref = edgeocr.Predictor(models=args.models, threads=1)
    bud = edgeocr.Predictor(models=args.models, threads=1, max_memory_mb=args.budget)
    out, same_total, ref_total, t_ref, t_bud = [], 0, 0, 0.0, 0.0
    print(f"{args.models}, max_memory_mb={args.budget:g}, every {args.every}th dev page")
    print(f"{'page':<44} {'size':>11} {'det tiles':>9} {'identical':>10} {'time x':>7}")
    for i, r in enumerate(rows):
        img = load_image(os.path.join(args.dev, r["file"]))
        h, w = img.shape[:2]
        plan = bud.plan(w, h, 0)
        order = [(ref, "ref"), (bud, "bud")] if i % 2 == 0 else [(bud, "bud"), (ref, "ref")]
        got, secs = {}, {}
        for p, name in order:
            t0 = time.perf_counter()
            got[name] = [line.text for line in p.predict(img).lines]
            secs[name] = time.perf_counter() - t0
        same = sum((Counter(got["ref"]) & Counter(got["bud"])).values())
        same_total += same
        ref_total += len(got["ref"])
        t_ref += secs["ref"]
        t_bud += secs["bud"]
        tiles = len(plan["det_tiles"]) or 1
        scaled = " s" if plan["det_scaled"] else ""
        print(
            f"{r['file'][-44:]:<44} {w:>5}x{h:<5} {tiles:>7}{scaled:<2} "
            f"{same:>4}/{len(got['ref']):<5} {secs['bud'] / secs['ref']:>7.2f}",
            flush=True,
        )
        diff = [(a, b) for a, b in zip(got["ref"], got["bud"]) if a != b][:3]
        out.append(
            {
                "file": r["file"],
                "size": [w, h],
                "tiles": tiles,
                "same": same,
                "ref_lines": len(got["ref"]),
                "bud_lines": len(got["bud"]),
                "ref_s": secs["ref"],
                "bud_s": secs["bud"],
                "diff": diff,
            }
        )
    share = same_total / max(1, ref_total)
    print(
        f"total: {same_total} / {ref_total} lines identical ({100 * share:.1f}%), "
        f"time {t_bud / max(t_ref, 1e-9):.2f}x"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"models": args.models, "budget": args.budget, "rows": out}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
