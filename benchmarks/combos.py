#!/usr/bin/env python3
"""Model combinations from the installed wheels: det v4/v6 x rec v4/v6, with and without cls.

    # one combination, whole dev set:
    python benchmarks/combos.py accuracy COMBO [--limit N] [--json out.json]
    python benchmarks/combos.py latency [--sample 12] [--rounds 2] [--threads 2] [--json out.json]
    python benchmarks/combos.py table RESULT.json...                             # markdown tables
    python benchmarks/combos.py rerun BASE.json (--combo C | --models NAME) [--below 160] \
        --json out.json

COMBO is ``det-v4.rec-v6.cls`` (or ``.nocls``), see ``COMBOS``. The det and
cls files come from the det's model set, the rec file from the rec's set; the
pipeline settings are edgeocr's defaults under the rec's set settings (the
drop score is a property of the recogniser's confidence). ``accuracy`` runs
one combination over the dev set in this process (one thread) and records
the report, the predictions, the wall time and the peak RSS (ru_maxrss: the
process alone, so it is the combination's footprint on these pages).
``latency`` builds every combination in one process and runs each sample page
through all of them in turn, the order rotating every page, so load from other
processes falls on all of them alike; it reports medians and ratios to the
first combination (only ratios are meaningful on a shared machine).
``rerun`` takes a full-set result made before the levels stretch existed and
runs again, with the current build, only the pages whose luminance range
(0.5th to 99.5th percentile, as the pipeline measures it) is below --below
grey levels, plus two control pages that must come out unchanged: on every
other page the stretch settings cannot change a single output (the levels
stay 0..255 and the normalisation is bit-identical), so the result is the
whole set's figures with the current settings at a fraction of the time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

SETS = {"v4": "ppocr-v4-mobile", "v6": "ppocr-v6-small"}
REC_SETTINGS = {"v4": {"drop_score": 0.65}, "v6": {}}  # as csrc/loader/model_sets.cpp
COMBOS = [
    f"det-{d}.rec-{r}.{c}" for d in ("v4", "v6") for r in ("v4", "v6") for c in ("cls", "nocls")
]


def dev_dir() -> Path:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    return root / "datasets" / "dev"


def predictor_for(combo: str, threads: int | None):
    """A combination (det-v4.rec-v6.cls) or a model set name (with the set's own settings), either
    optionally followed by settings: ppocr-v4-mobile+det_stretch_below=0."""
    import edgeocr
    from edgeocr.models import MODEL_SETS

    combo, *extra = combo.split("+")
    overrides = {
        k: int(v) if v.lstrip("-").isdigit() else float(v) for k, v in (e.split("=") for e in extra)
    }
    if combo in MODEL_SETS:
        return edgeocr.Predictor(models=combo, threads=threads, **overrides)
    det, rec, cls = combo.split(".")
    dset, rset = MODEL_SETS[SETS[det[4:]]], MODEL_SETS[SETS[rec[4:]]]
    dp, rp = dset.paths(), rset.paths()
    if dp is None or rp is None:
        raise SystemExit(f"{combo}: needs {dset.requirement} and {rset.requirement}")
    # The sets' own settings live in the C++ loader, keyed by the files' sha256; a mixed pair that
    # is no set gets the rec set's (the drop score is a property of the recogniser's confidence).
    settings = {**REC_SETTINGS[rec[4:]], **overrides}
    return edgeocr.Predictor(
        det=dp["det"],
        cls=dp["cls"],
        rec=rp["rec"],
        use_cls=cls == "cls",
        threads=threads,
        **settings,
    )


def combo_arg(s: str) -> str:
    if s.split("+")[0] not in COMBOS:
        raise argparse.ArgumentTypeError(f"{s}: not one of {', '.join(COMBOS)}")
    return s


def cmd_accuracy(args) -> int:
    from edgeocr import evaluate

    samples = evaluate.load_e2e(dev_dir())
    samples = samples[args.offset :: args.every]  # an even subsample (every page by default)
    if args.limit:
        samples = samples[: args.limit]
    p = predictor_for(args.combo, args.threads)
    preds = {}
    t0 = time.perf_counter()
    for s in samples:
        r = p.predict(s["path"])
        preds[s["id"]] = [
            {"text": ln.text, "box": ln.box.tolist(), "score": ln.score, "flipped": ln.flipped}
            for ln in r.lines
        ]
    seconds = time.perf_counter() - t0
    report = evaluate.evaluate_e2e(samples, preds)
    out = {
        "combo": args.combo,
        "paths": p.paths,
        "config": {k: v for k, v in p.config.to_core().items() if k in ("drop_score", "use_cls")},
        "settings": p.config.to_core(),
        "pages": [s["id"] for s in samples],
        "subsample": {"every": args.every, "offset": args.offset, "limit": args.limit},
        "seconds": seconds,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "report": report,
        "predictions": preds,
    }
    a = report["all"]
    print(
        f"{args.combo}: detH {a['det_hmean']:.4f} lineAcc {a['line_acc']:.4f} 1-NED "
        f"{a['one_minus_ned']:.4f} "
        f"lineAccWS {a['line_acc_ws']:.4f} spaces(en) "
        f"{report['langs'].get('en', {}).get('space_acc', 0):.4f} "
        f"{seconds:.0f} s peak RSS {out['peak_rss_mib']:.0f} MiB"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False)
    return 0


def spread_pages(samples: list[dict], n: int) -> list[str]:
    """The paths of n samples evenly spaced over the sorted list (every kind represented)."""
    step = max(1, len(samples) // n)
    return [s["path"] for s in samples[::step]][:n]


def luminance_range(path: str) -> int:
    """The page's luminance range as Pipeline::run measures it (0.5th to 99.5th percentile), by
    the pipeline's own kernel."""
    from edgeocr._core import kernels
    from edgeocr.image_io import load_image

    lo, hi = kernels.luminance_range(load_image(path))
    return hi - lo


def cmd_cost(args) -> int:
    """What the levels stretch costs on pages it leaves alone: the range measurement (the only
    work it adds there) timed on its own against the page's predict() time, and the outputs with
    the stretch on and off compared (they must be identical)."""
    import numpy as np

    from edgeocr import evaluate
    from edgeocr._core import kernels
    from edgeocr.image_io import load_image

    samples = evaluate.load_e2e(dev_dir())
    pages = spread_pages(samples, args.sample)
    on = predictor_for(args.models, args.threads)
    off = predictor_for(f"{args.models}+det_stretch_below=0+rec_stretch_below=0", args.threads)
    on.predict(pages[0])
    rows = []
    for page in pages:
        img = load_image(page)
        lo, hi = kernels.luminance_range(img)
        t = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            kernels.luminance_range(img)
            t.append(time.perf_counter() - t0)
        measure = statistics.median(t)
        runs = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            a = on.predict(img)
            runs.append(time.perf_counter() - t0)
        b = off.predict(img)
        same = [(x.text, x.score, np.asarray(x.box).tolist()) for x in a] == [
            (x.text, x.score, np.asarray(x.box).tolist()) for x in b
        ]
        touched = hi - lo < max(on.config.det_stretch_below, on.config.rec_stretch_below)
        rows.append(
            {
                "page": os.path.basename(page),
                "range": hi - lo,
                "stretched": bool(touched),
                "measure_ms": measure * 1000,
                "predict_ms": min(runs) * 1000,
                "share": measure / min(runs),
                "identical": same,
            }
        )
        r = rows[-1]
        print(
            f"{r['page']:<36} range {r['range']:3d} {'stretched' if touched else 'untouched'}  "
            f"measure {r['measure_ms']:.3f} ms of {r['predict_ms']:7.1f} ms "
            f"({100 * r['share']:.3f}%)  outputs {'identical' if same else 'DIFFER'}"
        )
    plain = [r for r in rows if not r["stretched"]]
    if plain:
        print(
            f"untouched pages: {len(plain)}, measurement share median "
            f"{100 * statistics.median(r['share'] for r in plain):.3f}%, max "
            f"{100 * max(r['share'] for r in plain):.3f}%; outputs identical on "
            f"{sum(r['identical'] for r in plain)}/{len(plain)}"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"models": args.models, "threads": args.threads, "rows": rows}, f, indent=1)
    return 0 if all(r["identical"] for r in plain) else 1


def cmd_rss(args) -> int:
    """Peak RSS of each combination or set alone in a fresh process over the N largest pages."""
    import subprocess

    for c in args.combos.split(","):
        code = (
            "import resource, sys; sys.path.insert(0, %r); import combos; "  # noqa: UP031
            "from edgeocr import evaluate;"
            "from PIL import Image;"
            "s = evaluate.load_e2e(combos.dev_dir());"
            "px = lambda p: (lambda im: im.size[0] * im.size[1])(Image.open(p));"
            "pages = sorted((x['path'] for x in s), key=px, reverse=True)[:%d];"
            "p = combos.predictor_for(%r, %r);"
            "[p.predict(pg) for pg in pages];"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
        ) % (str(Path(__file__).parent), args.pages, c, args.threads)
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        print(
            f"{c:<22} peak RSS {float(out.stdout.split()[-1]):.0f} MiB over the {args.pages} "
            "largest pages"
        )
    return 0


def cmd_rerun(args) -> int:
    import edgeocr
    from edgeocr import evaluate

    with open(args.base, encoding="utf-8") as f:
        base = json.load(f)
    samples = evaluate.load_e2e(dev_dir())
    if args.combo:
        p = predictor_for(args.combo, args.threads)
    else:
        p = edgeocr.Predictor(models=args.models, threads=args.threads)
    ranges = {s["id"]: luminance_range(s["path"]) for s in samples}
    redo = [s for s in samples if ranges[s["id"]] < args.below]
    controls = [s for s in samples if ranges[s["id"]] >= args.below][:2]
    preds = dict(base["predictions"])
    for s in redo + controls:
        r = p.predict(s["path"])
        new = [{"text": ln.text, "box": ln.box.tolist(), "score": ln.score} for ln in r.lines]
        if s in controls:
            old = base["predictions"][s["id"]]
            same = [(a["text"], a["box"]) for a in old] == [(b["text"], b["box"]) for b in new]
            print(
                f"control {s['id']} (range {ranges[s['id']]}): {'unchanged' if same else 'CHANGED'}"
            )
            if not same:
                raise SystemExit(
                    "a page above the range threshold changed: the base run is not this build's"
                )
        else:
            preds[s["id"]] = new
            print(f"rerun {s['id']} (range {ranges[s['id']]})")
    report = evaluate.evaluate_e2e(samples, preds)
    out = dict(
        base,
        report=report,
        predictions=preds,
        rerun={
            "below": args.below,
            "pages": [s["id"] for s in redo],
            "settings": p.config.to_core(),
        },
    )
    out["report_before"] = base.get("report", {}).get("e2e", base.get("report"))
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
    a = report["all"]
    print(f"detH {a['det_hmean']:.4f} lineAcc {a['line_acc']:.4f} 1-NED {a['one_minus_ned']:.4f}")
    return 0


def cmd_latency(args) -> int:
    from edgeocr import evaluate

    samples = evaluate.load_e2e(dev_dir())
    pages = spread_pages(samples, args.sample)
    combos = args.combos.split(",") if args.combos else COMBOS
    if args.largest:
        from PIL import Image

        def pixels(path):
            with Image.open(path) as im:
                return im.size[0] * im.size[1]

        pages = sorted((s["path"] for s in samples), key=pixels, reverse=True)[: args.sample]
    preds = {c: predictor_for(c, args.threads) for c in combos}
    for c in combos:  # warm-up
        preds[c].predict(pages[0])
    times = {c: {} for c in combos}
    for rnd in range(args.rounds):
        for i, page in enumerate(pages):
            k = (i + rnd) % len(combos)
            for c in combos[k:] + combos[:k]:
                t0 = time.perf_counter()
                preds[c].predict(page)
                times[c].setdefault(page, []).append(time.perf_counter() - t0)
    ref = combos[0]
    rows = []
    for c in combos:
        per_page = {pg: min(v) for pg, v in times[c].items()}
        ratios = [per_page[pg] / min(times[ref][pg]) for pg in pages]
        rows.append(
            {
                "combo": c,
                "peak_rss_mib": None,
                "median_s": statistics.median(per_page.values()),
                "total_s": sum(per_page.values()),
                "median_ratio": statistics.median(ratios),
                "total_ratio": sum(per_page.values()) / sum(min(v) for v in times[ref].values()),
                "per_page_s": per_page,
            }
        )
        print(
            f"{c:<22} median {rows[-1]['median_s'] * 1000:7.0f} ms  "
            f"x{rows[-1]['median_ratio']:.2f} of {ref} "
            f"(total x{rows[-1]['total_ratio']:.2f})"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {"pages": pages, "threads": args.threads, "rounds": args.rounds, "rows": rows},
                f,
                indent=1,
            )
    return 0


TAGS = (
    "en",
    "zh",
    "scan",
    "photo",
    "digital",
    "degraded",
    "rotated",
    "rot180",
    "lowcontrast",
    "washed_out",
    "blur",
    "jpeg",
    "small",
    "large",
)


def cmd_table(args) -> int:
    runs = []
    lat = {}
    for path in args.results:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        if "rows" in d:
            lat.update({r["combo"]: r for r in d["rows"]})
        else:
            d.setdefault("combo", d.get("models", "?"))
            d["label"] = Path(path).stem
            runs.append(d)
    order = {c: i for i, c in enumerate(COMBOS)}
    runs.sort(key=lambda d: order.get(d["combo"], 99))
    # Runs over different pages (a subsample, --every) are compared on the pages all of them read:
    # each run's report is recomputed from its predictions on those pages.
    common = set.intersection(*(set(d["predictions"]) for d in runs)) if runs else set()
    if any(set(d["predictions"]) != common for d in runs):
        from edgeocr import evaluate

        samples = [s for s in evaluate.load_e2e(dev_dir()) if s["id"] in common]
        for d in runs:
            d["report"] = evaluate.evaluate_e2e(samples, d["predictions"])
        print(f"(on the {len(samples)} pages every run read)\n")
    print(
        "| result | det P / R / H | line acc | 1-NED | CER | line acc (ws) | en spaces right "
        "| latency (median, x) "
        "| peak RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for d in runs:
        a, langs = d["report"]["all"], d["report"]["langs"]
        la = lat.get(d["combo"])
        latency = f"{la['median_s'] * 1000:.0f} ms, x{la['median_ratio']:.2f}" if la else "-"
        det = f"{a['det_precision']:.4f} / {a['det_recall']:.4f} / {a['det_hmean']:.4f}"
        print(
            f"| {d['label']} | {det} | {a['line_acc']:.4f} | "
            f"{a['one_minus_ned']:.4f} | "
            f"{a['cer']:.4f} | {a['line_acc_ws']:.4f} | "
            f"{langs.get('en', {}).get('space_acc', 0):.4f} | "
            f"{latency} | {d.get('peak_rss_mib') or 0:.0f} |"
        )
    print()
    print("line accuracy per tag:")
    print("| tag | " + " | ".join(d["label"] for d in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for t in TAGS:
        cells = []
        for d in runs:
            r = d["report"]["tags"].get(t)
            cells.append(f"{r['line_acc']:.3f}" if r else "-")
        print(f"| {t} | " + " | ".join(cells) + " |")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("accuracy")
    p.add_argument("combo", type=combo_arg, help="a combination, optionally +setting=value...")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument(
        "--every", type=int, default=1, help="every Nth page of the dev set (an even subsample)"
    )
    p.add_argument("--offset", type=int, default=0, help="the first page of the subsample")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json")
    p.set_defaults(func=cmd_accuracy)
    p = sub.add_parser("latency")
    p.add_argument("--sample", type=int, default=12)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument(
        "--combos",
        help="comma-separated combinations or model set names (default: all "
        "combinations; the first is the reference)",
    )
    p.add_argument(
        "--largest", action="store_true", help="the --sample largest pages instead of a spread"
    )
    p.add_argument("--json")
    p.set_defaults(func=cmd_latency)
    p = sub.add_parser("cost", help="the levels stretch's cost on pages it leaves alone")
    p.add_argument("--models", default="ppocr-v4det-v6rec")
    p.add_argument("--sample", type=int, default=24)
    p.add_argument("--runs", type=int, default=200, help="timed range measurements per page")
    p.add_argument("--rounds", type=int, default=2, help="timed predict() calls per page")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json")
    p.set_defaults(func=cmd_cost)

    p = sub.add_parser("rss")
    p.add_argument("--combos", required=True)
    p.add_argument("--pages", type=int, default=4)
    p.add_argument("--threads", type=int, default=2)
    p.set_defaults(func=cmd_rss)
    p = sub.add_parser("rerun")
    p.add_argument("base")
    p.add_argument("--combo", choices=COMBOS)
    p.add_argument("--models")
    p.add_argument("--below", type=int, default=160)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", required=True)
    p.set_defaults(func=cmd_rerun)
    p = sub.add_parser("table")
    p.add_argument("results", nargs="+")
    p.set_defaults(func=cmd_table)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
