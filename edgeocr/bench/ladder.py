"""``edgeocr bench --ladder [--target-ms MS]``: every installed model set on this device and
these pages, and which one fits a latency target.

Each installed set gets an engine (fp32, ``--threads``; what Predictor runs); after one untimed
call each, every set reads all the pages in one block, the blocks alternated (A B C, C B A, ...;
``--rounds``) with a pause between them so that one set's spinning threads do not land on the
next set's pages. A set's figure is its median time per page over its blocks. With
``--target-ms`` the answer is the most accurate installed set (by the dev-set accuracy measured
for edgeocr, edgeocr/data/ladder.json) whose median per page is within the target, else the
fastest.
"""

from __future__ import annotations

import json
import sys
import time

from .common import median, render_table


def _order(names: list, figures: dict) -> list:
    """The sets fastest first by the stored figures (unknown sets last, as listed)."""
    known = {n: figures[n]["time_vs_default"] for n in names if n in figures}
    return sorted(names, key=lambda n: (n not in known, known.get(n, 0.0)))


def choose(per_page_ms: dict, target_ms: float, figures: dict) -> tuple:
    """(set, why): the most accurate set whose median ms/page is within target_ms."""
    fits = [n for n, ms in per_page_ms.items() if ms <= target_ms]
    if not fits:
        fastest = min(per_page_ms, key=per_page_ms.get)
        return fastest, f"none within {target_ms:g} ms/page; the fastest here is {fastest}"

    def accuracy(n):
        return figures.get(n, {}).get("one_minus_ned", -1.0)

    best = max(fits, key=lambda n: (accuracy(n), -per_page_ms[n]))
    return best, f"the most accurate of {', '.join(fits)} within {target_ms:g} ms/page"


def run_ladder(args, files: list, log) -> int:
    from .._runtime import machine_info
    from ..models import MODEL_SETS, RUNGS, measured
    from .common import engine_for

    stored = measured()
    figures = stored["sets"]
    names = _order([n for n, ms in MODEL_SETS.items() if ms.paths() is not None], figures)
    if not names:
        print("edgeocr bench --ladder: no model set is installed", file=sys.stderr)
        return 2
    missing = [n for n, ms in MODEL_SETS.items() if ms.paths() is None]
    info = machine_info()
    log(f"{info['date']}  {info['cpu']}  nproc={info['nproc']}  load average {info['loadavg']}")
    log(f"{len(files)} images, {len(names)} installed sets, {args.rounds} rounds")
    preds = {n: engine_for(models=n, threads=args.threads) for n in names}
    images = list(files)  # decoding included, as for a caller that passes paths
    for n in names:
        preds[n].predict(images[0])
    times = {n: [] for n in names}
    for r in range(args.rounds):
        for n in names if r % 2 == 0 else names[::-1]:
            time.sleep(0.5)
            for img in images:
                t0 = time.perf_counter()
                preds[n].predict(img)
                times[n].append((time.perf_counter() - t0) * 1000.0)
    per_page = {n: median(times[n]) for n in names}
    rung_of = {v: k for k, v in RUNGS.items()}
    rows = [["set", "rung", "ms/page here", "dev 1-NED", "dev det H", "dev time vs default"]]
    for n in names:
        f = figures.get(n, {})
        rows.append(
            [
                n,
                rung_of.get(n, ""),
                f"{per_page[n]:.0f}",
                f"{100 * f['one_minus_ned']:.1f}" if f else "-",
                f"{100 * f['det_hmean']:.1f}" if f else "-",
                f"{f['time_vs_default']:.2f}x" if f else "-",
            ]
        )
    result = {"machine": info, "per_page_ms": per_page, "times_ms": times, "stored": stored}
    if args.target_ms:
        pick, why = choose(per_page, args.target_ms, figures)
        result["choice"] = {"set": pick, "why": why, "target_ms": args.target_ms}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(render_table(rows))
        m = stored.get("measured", {})
        if m:
            print(f"(dev figures: {m.get('date', '?')}, {m.get('machine', '?')})")
        if missing:
            print(f"not installed: {', '.join(missing)} (edgeocr models says which pip install)")
        if args.target_ms:
            print(f"fits {args.target_ms:g} ms/page: {pick} ({why}); edgeocr predict -m {pick} ...")
    if args.save:
        with open(args.save, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    return 0
