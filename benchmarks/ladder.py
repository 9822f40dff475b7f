#!/usr/bin/env python3
"""The model ladder against Tesseract 5, RapidOCR, faster-paddle and rapidocrlite, same pages.

    python benchmarks/ladder.py [--sample 24] [--rounds 2] [--gap 1] [--threads 2]
        [--rungs default,ppocr-v6-tiny,...] [--contenders tesseract,rapidocr-1.4.4,...]
        [--lite-python /path/to/rapidocrlite-venv/bin/python]
        [--accuracy-every K] [--json out.json]

Time: every engine runs in a worker process of its own (benchmarks/_blocks.py), reads all
--sample pages (an even spread of the dev set, combos.spread_pages) in one block, blocks
alternated (A B C .. C B A, --rounds times, --gap seconds between blocks) so that no engine's
spinning threads cost another; every engine on --threads threads. Ratios are the median over
rounds of each engine's block time over ``Predictor()``'s block time in the same round.

Rungs: edgeocr model sets by name (``default`` is ``Predictor()``), optionally with settings,
``NAME+key=value``. Contenders: ``tesseract`` (in process, each page's language from the dev
set's tags, benchmarks/tesseract.py), ``rapidocr-1.4.4`` and ``rapidocr-3.10`` (their bundled
models), ``faster-paddle`` (1.0.4, PP-OCRv6 tiny inside its extension, no cls), ``rapidocrlite``
(5.x, in its own venv given by --lite-python or $LADDER_LITE_PYTHON: it installs under the import
name ``rapidocr``; it reads the PP-OCRv6 small det/rec and mobile cls files of the rapidocr 3.10
wheel in this environment, the same files with the same SHA-256 as its default download, and the
dictionary written from that rec model's metadata).

Accuracy: edgeocr.evaluate.evaluate_e2e on each engine's lines of the timed pages (1-NED, 1-CER
with spaces, det H-mean where the engine gives boxes, line accuracy); with --accuracy-every K the
edgeocr rungs also read every K-th dev page (untimed) and are scored on those.
Peak RSS: each worker's VmHWM at the end (its own process: load, warm-up and every block).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _blocks  # noqa: E402
import _engines  # noqa: E402

CONTENDERS = ("tesseract", "rapidocr-1.4.4", "rapidocr-3.10", "faster-paddle", "rapidocrlite")
BASE = "default"


def dev_dir() -> Path:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    return root / "datasets" / "dev"


def page_lang(sample: dict) -> str:
    """Tesseract's language for a dev page, from its tags (benchmarks/tesseract.py's rule)."""
    from tesseract import page_lang as lang_of

    return lang_of(sample, "auto")


def installed_rungs() -> list:
    from edgeocr.models import MODEL_SETS

    return [BASE] + [n for n, ms in MODEL_SETS.items() if ms.paths() is not None]


def rung_engine(rung: str, threads: int) -> _blocks.Engine:
    name, *settings = rung.split("+")
    return _engines.engine("edgeocr", rung, threads=threads, models=name, settings=settings)


def contender_engine(name: str, args, tmp: str) -> _blocks.Engine:
    if name != "rapidocrlite":
        return _engines.engine(name, threads=args.threads)
    import importlib.util

    spec = importlib.util.find_spec("rapidocr")
    model_dir = os.path.join(list(spec.submodule_search_locations)[0], "models")
    keys = _engines.write_v6_small_keys(model_dir, os.path.join(tmp, "ppocrv6_dict.txt"))
    return _engines.engine(
        name, python=args.lite_python, threads=args.threads, model_dir=model_dir, keys=keys
    )


def score(samples: list, lines: list) -> dict:
    from edgeocr import evaluate

    rep = evaluate.evaluate_e2e(samples, {s["id"]: ln for s, ln in zip(samples, lines)})
    a = rep["all"]
    return {
        "one_minus_ned": a["one_minus_ned"],
        "one_minus_cer_ws": 1.0 - a["cer_ws"],
        "det_hmean": a["det_hmean"],
        "line_acc": a["line_acc"],
        "line_acc_ws": a["line_acc_ws"],
        "n_images": a["n_images"],
        "n_lines": a["n_lines"],
    }


def accuracy_only(args, samples: list, rungs: list, info: dict) -> int:
    """--sample 0: each rung reads every --accuracy-every th dev page (untimed), the rungs in
    parallel worker processes (--threads each); the scores as JSON."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    acc_samples = samples[:: args.accuracy_every or 1]
    pages = [(s["path"], page_lang(s)) for s in acc_samples]

    def one(rung):
        with _blocks.Runner([rung_engine(rung, args.threads)]) as r:
            return r.run(pages, rounds=1, gap_s=0.0)["lines"][rung]

    with ThreadPoolExecutor(len(rungs)) as ex:
        lines = dict(zip(rungs, ex.map(one, rungs)))
    scores = {r: score(acc_samples, lines[r]) for r in rungs}
    for r, a in scores.items():
        print(r, {k: round(v, 4) for k, v in a.items()}, flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "machine": info,
                    "settings": vars(args),
                    "pages": [s["id"] for s in acc_samples],
                    "accuracy": scores,
                    "lines": lines,
                },
                f,
                ensure_ascii=False,
            )
    return 0


def write_data(time_json: str, acc_jsons: list, out: str) -> int:
    """edgeocr/data/ladder.json (what `edgeocr models` shows) from a timed run and the accuracy
    runs of the rungs (the later file wins for a set both have)."""
    import json

    from edgeocr.models import DEFAULT_MODEL_SET

    def load(p):
        with open(p, encoding="utf-8") as f:
            return json.load(f)

    t = load(time_json)
    acc, acc_pages = {}, None
    for p in acc_jsons:
        a = load(p)
        runs = a.get("accuracy_more") or a.get("accuracy") or {}
        acc.update({k: v for k, v in runs.items() if "+" not in k})
        acc_pages = len(a.get("accuracy_pages") or a.get("pages") or [])
    n_pages = len(t["pages"])
    sets = {}
    for name, secs in t["blocks_s"].items():
        model_set = DEFAULT_MODEL_SET if name == BASE else name
        if "+" in name or model_set not in acc and name not in acc:
            continue
        if name == BASE and model_set in sets:
            continue
        a = acc.get(name) or acc[model_set]
        sets[model_set] = {
            "ms_per_page": round(1000.0 * min(secs) / n_pages, 1),
            "time_vs_default": round(t["ratios"][name], 3),
            "one_minus_ned": round(a["one_minus_ned"], 4),
            "one_minus_cer_ws": round(a["one_minus_cer_ws"], 4),
            "det_hmean": round(a["det_hmean"], 4),
            "line_acc": round(a["line_acc"], 4),
        }
    m = t["machine"]
    doc = {
        "measured": {
            "date": m["date"],
            "machine": f"{m['cpu']}, {m['nproc']} cores, load average {m['loadavg']}",
            "cpu_flags": " ".join(m.get("cpu_flags", [])),
            "pages": f"time: {n_pages} dev pages (blocks alternated, 2 threads); accuracy: "
            f"{acc_pages} dev pages (every 4th)",
            "command": "python benchmarks/ladder.py (benchmarks/README.md, 'The model ladder')",
        },
        "sets": sets,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {out}: {', '.join(sets)}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sample", type=int, default=24, help="timed pages, evenly spread")
    ap.add_argument("--rounds", type=int, default=2, help="block rounds (order flips each round)")
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between blocks")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rungs", default="installed", help="comma-separated; 'installed': all")
    ap.add_argument("--contenders", default=",".join(CONTENDERS), help="comma-separated or ''")
    ap.add_argument("--lite-python", default=os.environ.get("LADDER_LITE_PYTHON"))
    ap.add_argument("--accuracy-every", type=int, default=0, help="rungs also read every K-th")
    ap.add_argument("--json")
    ap.add_argument(
        "--write-data",
        nargs="+",
        metavar=("TIME_JSON", "ACC_JSON"),
        help="write edgeocr/data/ladder.json from a run's --json and accuracy runs, and stop",
    )
    args = ap.parse_args(argv)
    if args.write_data:
        out = Path(__file__).resolve().parents[1] / "edgeocr" / "data" / "ladder.json"
        return write_data(args.write_data[0], args.write_data[1:], str(out))

    from combos import spread_pages

    from edgeocr import evaluate
    from edgeocr.bench import machine

    info = machine()
    with open("/proc/cpuinfo") as f:
        flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    info["cpu_flags"] = [
        x for x in flags if x.startswith(("avx", "fma", "sse4", "amx")) or "vnni" in x
    ]
    print(f"{info['date']}  {info['cpu']}  nproc={info['nproc']}  load {info['loadavg']}")
    print(f"CPU flags: {' '.join(info['cpu_flags'])}", flush=True)

    samples = evaluate.load_e2e(dev_dir())
    chosen = set(spread_pages(samples, max(args.sample, 1)))
    timed = [s for s in samples if s["path"] in chosen]
    pages = [(s["path"], page_lang(s)) for s in timed]
    rungs = installed_rungs() if args.rungs == "installed" else args.rungs.split(",")
    if args.sample == 0:  # accuracy only: no timed blocks, no contenders
        return accuracy_only(args, samples, rungs, info)
    if BASE not in rungs:
        rungs.insert(0, BASE)
    contenders = [c for c in args.contenders.split(",") if c]
    if "rapidocrlite" in contenders and not args.lite_python:
        print("rapidocrlite left out: give its venv's python (--lite-python)", file=sys.stderr)
        contenders.remove("rapidocrlite")

    with tempfile.TemporaryDirectory() as tmp:
        engines = [rung_engine(r, args.threads) for r in rungs]
        engines += [contender_engine(c, args, tmp) for c in contenders]
        print(f"{len(pages)} pages, {len(engines)} engines, {args.rounds} rounds", flush=True)
        t0 = time.perf_counter()
        with _blocks.Runner(engines, warmup=pages[0]) as runner:

            def progress(name, r, seconds):
                print(f"  round {r} {name}: {seconds:.1f} s", flush=True)

            res = runner.run(pages, rounds=args.rounds, gap_s=args.gap, on_block=progress)
            acc_pages = []
            if args.accuracy_every:
                acc_samples = samples[:: args.accuracy_every]
                acc_pages = [(s["path"], page_lang(s)) for s in acc_samples]
                acc_lines = {}
                for r in rungs:
                    acc_lines[r] = (
                        runner.workers[r].ask({"cmd": "block", "pages": acc_pages, "lines": True})
                    )["lines"]
        memory = runner.memory
    wall = time.perf_counter() - t0
    info["loadavg_end"] = list(os.getloadavg())

    ratios = _blocks.ratios(res["blocks"], BASE)
    acc = {n: score(timed, res["lines"][n]) for n in res["lines"]}
    acc_more = {r: score(acc_samples, acc_lines[r]) for r in rungs} if args.accuracy_every else {}
    rows = [
        [
            "engine",
            "time / Predictor()",
            "per round",
            "s/page",
            "1-NED",
            "1-CER ws",
            "det H",
            "line acc",
            "peak RSS MiB",
        ]
    ]
    boxless = {"faster-paddle"}  # upright boxes only: det H is not comparable
    for e in engines:
        n = e.name
        per_round = [a / b for a, b in zip(res["blocks"][n], res["blocks"][BASE])]
        a = acc[n]
        rows.append(
            [
                n,
                f"{ratios[n]:.2f}x",
                " ".join(f"{x:.2f}" for x in per_round),
                f"{min(res['blocks'][n]) / len(pages):.2f}",
                f"{100 * a['one_minus_ned']:.1f}",
                f"{100 * a['one_minus_cer_ws']:.1f}",
                f"{100 * a['det_hmean']:.1f}" + (" (upright)" if n in boxless else ""),
                f"{100 * a['line_acc']:.1f}",
                f"{memory.get(n, {}).get('hwm_mb', float('nan')):.0f}",
            ]
        )
    from edgeocr.bench import render_table

    print(
        f"\n{len(pages)} dev pages (spread_pages), blocks alternated {args.rounds} rounds, "
        f"{args.gap:g} s apart, {args.threads} threads each; accuracy on the same pages"
    )
    print(render_table(rows))
    if acc_more:
        k = args.accuracy_every
        print(f"\nedgeocr rungs on every {k}th dev page ({len(acc_pages)} pages):")
        arows = [["rung", "1-NED", "1-CER ws", "det H", "line acc", "line acc ws"]]
        for r, a in acc_more.items():
            arows.append(
                [r]
                + [
                    f"{100 * a[k]:.2f}"
                    for k in ("one_minus_ned", "one_minus_cer_ws", "det_hmean", "line_acc")
                ]
                + [f"{100 * a['line_acc_ws']:.2f}"]
            )
        print(render_table(arows))
    print(f"\nload average at the end {info['loadavg_end']}; wall {wall:.0f} s")
    if args.json:
        import json

        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "machine": info,
                    "settings": vars(args),
                    "pages": [s["id"] for s in timed],
                    "order": res["order"],
                    "blocks_s": res["blocks"],
                    "ratios": ratios,
                    "accuracy": acc,
                    "accuracy_pages": [Path(p).name for p, _ in acc_pages],
                    "accuracy_more": acc_more,
                    "memory": memory,
                },
                f,
                indent=1,
                ensure_ascii=False,
            )
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
