"""Pages/s of edgeocr on Ray Data (edgeocr.ray.ocr_dataset) against the in-process
Predictor.predict_iter, with the same workers x threads, interleaved in one run.

    python benchmarks/ray_scale.py [--images DIR] [--limit 16] [--configs 1x2,2x1] [--rounds 2]

For each round and each configuration N x T, the in-process run (Predictor(threads=T,
workers=N).predict_iter: N images in flight, decoding overlapped) and the Ray run (N actors
with T CPUs and T intra-op threads) take turns, the order flipping every round. Each side's
fixed cost is timed apart from its pages: building the Predictor in-process; for Ray, a job of
N one-line images (actor start, Predictor load, scheduling). The per-page overhead of Ray is
(Ray wall - Ray fixed cost) / (in-process wall) - 1 over the same pages.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def pick(images_dir: str, limit: int) -> list[str]:
    from edgeocr.ray import expand_inputs

    files = expand_inputs(images_dir)
    if limit and len(files) > limit:  # spread evenly over the sorted folder
        files = [files[i * len(files) // limit] for i in range(limit)]
    return files


def run_in_process(paths, workers, threads, model):
    import edgeocr

    t0 = time.perf_counter()
    p = edgeocr.Predictor(model, threads=threads, workers=workers)
    t1 = time.perf_counter()
    n = sum(1 for _ in p.predict_iter(paths))
    t2 = time.perf_counter()
    assert n == len(paths)
    return {"fixed_s": t1 - t0, "pages_s": t2 - t1, "pages": n}


def run_ray(paths, workers, threads, model, batch_size, tiny):
    import edgeocr.ray

    def job(ps):
        t0 = time.perf_counter()
        ds = edgeocr.ray.ocr_dataset(ps, model, workers=workers, threads=threads, batch_size=batch_size)
        rows = errors = 0
        for b in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            rows += b.num_rows
            errors += b.num_rows - b.column("error").null_count
        assert rows == len(ps) and errors == 0, (rows, errors)
        return time.perf_counter() - t0

    fixed = job([tiny] * workers)  # actor start + Predictor load + scheduling, one tiny page each
    total = job(paths)
    return {"fixed_s": fixed, "total_s": total, "pages_s": max(total - fixed, 1e-9), "pages": len(paths)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", default=str(REPO.parent / "shared" / "datasets" / "dev" / "images"))
    ap.add_argument("--limit", type=int, default=16)
    ap.add_argument("--configs", default="1x2,2x1", help="workers x threads, comma-separated")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--model", default=None)
    ap.add_argument("--batch-size", type=int, default=None)
    ap.add_argument("--json", help="write every run's figures here")
    args = ap.parse_args(argv)

    import ray

    import edgeocr.ray

    paths = pick(args.images, args.limit)
    tiny = str(REPO / "tests" / "data" / "line_en.png")
    configs = [tuple(int(x) for x in c.split("x")) for c in args.configs.split(",")]
    cpus = max(w * t for w, t in configs)
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    ray.data.DataContext.get_current().enable_progress_bars = False
    bs = args.batch_size or edgeocr.ray.DEFAULT_BATCH_SIZE
    runs = []
    print(f"{len(paths)} pages from {args.images}, {args.rounds} rounds, configs {args.configs}, batch {bs}; "
          f"in-process and Ray alternate, order flipped every round", file=sys.stderr)
    for rnd in range(args.rounds):
        for w, t in configs:
            order = ("in-process", "ray") if rnd % 2 == 0 else ("ray", "in-process")
            for side in order:
                if side == "ray":
                    r = run_ray(paths, w, t, args.model, bs, tiny)
                else:
                    r = run_in_process(paths, w, t, args.model)
                r.update(side=side, workers=w, threads=t, round=rnd)
                runs.append(r)
                print(f"  round {rnd} {w}x{t} {side:<10} fixed {r['fixed_s']:6.2f} s  pages {r['pages_s']:7.2f} s "
                      f"({r['pages'] / r['pages_s']:.3f} pages/s)", file=sys.stderr)
    ray.shutdown()

    print(f"\n{len(paths)} pages x {args.rounds} rounds (sums over rounds); per-page overhead = "
          "Ray page time / in-process page time - 1")
    head = ("workers x threads", "in-process pages/s", "Ray pages/s", "Ray overhead/page",
            "Ray per round (min..max)", "in-process fixed s", "Ray fixed s")
    print("  ".join(head))
    print("  ".join("-" * len(h) for h in head))
    for w, t in configs:
        mine = [r for r in runs if r["workers"] == w and r["threads"] == t]
        ip = [r for r in mine if r["side"] == "in-process"]
        ry = [r for r in mine if r["side"] == "ray"]
        ip_s, ry_s = sum(r["pages_s"] for r in ip), sum(r["pages_s"] for r in ry)
        n = sum(r["pages"] for r in ip)
        per_round = [r["pages_s"] / i["pages_s"] - 1 for r, i in zip(ry, ip)]
        cells = (f"{w} x {t}", f"{n / ip_s:.3f}", f"{n / ry_s:.3f}", f"{ry_s / ip_s - 1:+.1%}",
                 f"{min(per_round):+.1%}..{max(per_round):+.1%}",
                 f"{statistics.median(r['fixed_s'] for r in ip):.2f}",
                 f"{statistics.median(r['fixed_s'] for r in ry):.2f}")
        print("  ".join(c.rjust(len(h)) for c, h in zip(cells, head)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"pages": paths, "runs": runs, "batch_size": bs, "cpus": os.cpu_count(),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
