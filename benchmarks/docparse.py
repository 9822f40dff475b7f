#!/usr/bin/env python3
"""Document parsing of A4 pages at 200 dpi: edgeocr's Predictor.parse against the anchors that
install offline (rapid-layout + rapid-table + RapidOCR on their own onnxruntime), time and peak
RSS side by side, and the accuracy of each on the same generated pages (issue 34).

    # the anchors in a venv of their own (their pins do not touch edgeocr's):
    python -m venv /tmp/anchors && /tmp/anchors/bin/pip install rapid-layout==1.2.1 \\
        rapid-table==0.3.0 rapidocr-onnxruntime==1.4.4 rapidocr==3.10.0
    python benchmarks/docparse.py --make 40 --seed 1 --anchors-python /tmp/anchors/bin/python \\
        --rounds 3 -o benchmarks/results/docparse.json

Pages: ``--pages-dir DIR`` (a folder tools/gen_doc_pages.py made, or any with its
``docparse.jsonl``), or ``--make N`` pages of ``--seed S`` made into ``--work-dir`` (default: a
temporary folder) before anything is timed. Engines (benchmarks/_doc_engines.py): ``edgeocr``
(``--max-memory-mb``: under that budget), ``rapid-1.4.4``, ``rapid-3.10`` (from
``--anchors-python``), ``edgeocr-grid`` (tables by the grid method alone), ``edgeocr-ocr`` (OCR
lines alone, for reference; ``--engines`` picks).
Each engine runs in a worker process of its own, loaded once; every engine reads all the pages
in one block, blocks alternated A B C, C B A, ... with a pause between them
(benchmarks/_blocks.py), ``--rounds`` times. Printed: pages/s (median over rounds), the time
relative to edgeocr (median of per-round ratios), load time and peak RSS (VmHWM) of each worker;
then the accuracy table of edgeocr/evaluate/document.py on the first round's output.

Smoke run (tiny, on the committed pages; figures from a loaded machine mean nothing):
    python benchmarks/docparse.py --pages-dir tests/data/docparse --rounds 1 \\
        --anchors-python /tmp/anchors/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import _blocks  # noqa: E402
import _doc_engines  # noqa: E402

from edgeocr.evaluate.datasets import load_docparse  # noqa: E402
from edgeocr.evaluate.document import evaluate_documents, format_document_report  # noqa: E402

ANCHORS = ("rapid-1.4.4", "rapid-3.10")


def make_pages(n: int, seed: int, out: str) -> str:
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "gen_doc_pages.py"),
            out,
            "--pages",
            str(n),
            "--seed",
            str(seed),
        ],
        check=True,
    )
    return out


def _machine() -> str:
    try:
        load = os.getloadavg()
        load_s = f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    except OSError:
        load_s = "load average unknown"
    return f"{platform.machine()}, {os.cpu_count()} cores, {load_s}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--pages-dir", help="a folder of labelled pages (docparse.jsonl)")
    src.add_argument("--make", type=int, default=0, help="make this many pages first")
    ap.add_argument("--seed", type=int, default=1, help="--make: the generator's seed")
    ap.add_argument("--work-dir", help="--make: where the pages go (default: a temporary folder)")
    ap.add_argument("--limit", type=int, default=0, help="use only the first N pages")
    ap.add_argument(
        "--engines",
        default=None,
        help="comma-separated (default: edgeocr and the anchors that can run)",
    )
    ap.add_argument("--anchors-python", help="the interpreter of the anchors' venv")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-memory-mb", type=int, default=None, help="edgeocr's memory budget")
    ap.add_argument("--models", default=None, help="edgeocr: a model set name")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between blocks")
    ap.add_argument("--classes", choices=("cdla", "all"), default="cdla")
    ap.add_argument("-o", "--output", help="write figures, accuracy and outputs as JSON")
    args = ap.parse_args(argv)

    tmp = None
    if args.pages_dir:
        pages_dir = args.pages_dir
    else:
        n = args.make or 20
        if args.work_dir:
            pages_dir = args.work_dir
        else:
            tmp = tempfile.TemporaryDirectory(prefix="edgeocr-docparse-")
            pages_dir = tmp.name
        make_pages(n, args.seed, pages_dir)
    truth = load_docparse(pages_dir)
    if args.limit:
        truth = truth[: args.limit]
    if not truth:
        raise SystemExit(f"{pages_dir}: no pages")
    names = (
        args.engines.split(",")
        if args.engines
        else ["edgeocr"] + (list(ANCHORS) if args.anchors_python else [])
    )
    for n in names:
        if n not in _doc_engines.ENGINES:
            raise SystemExit(f"unknown engine {n!r}; known: {', '.join(_doc_engines.ENGINES)}")
        if n in ANCHORS and not args.anchors_python:
            raise SystemExit(f"{n} runs from the anchors' venv: give --anchors-python")
    engines = [
        _doc_engines.engine(
            n,
            python=args.anchors_python if n in ANCHORS else None,
            threads=args.threads,
            max_memory_mb=args.max_memory_mb if n in ("edgeocr", "edgeocr-grid") else None,
            models=args.models if n.startswith("edgeocr") else None,
        )
        for n in names
    ]
    pages = [(p["path"], p.get("lang", "")) for p in truth]
    print(
        f"{len(pages)} pages from {pages_dir}; {', '.join(names)}; {args.threads} threads; "
        f"{args.rounds} rounds; {_machine()}",
        flush=True,
    )
    t0 = time.time()
    with _blocks.Runner(engines, warmup=pages[0]) as runner:
        res = runner.run(
            pages,
            rounds=args.rounds,
            gap_s=args.gap,
            on_block=lambda n, r, s: print(f"  round {r + 1}: {n} {s:.1f} s", flush=True),
        )
    memory = runner.memory
    base = "edgeocr" if "edgeocr" in names else names[0]
    ratios = _blocks.ratios(res["blocks"], base)
    print(f"\ntime ({time.time() - t0:.0f} s in all; {_machine()} at the end)")
    print(
        f"{'engine':<14}{'pages/s':>9}{'time vs ' + base:>16}{'min-max':>14}"
        f"{'load s':>8}{'peak RSS MiB':>14}"
    )
    speed = {}
    for n in names:
        secs = res["blocks"][n]
        pps = statistics.median(len(pages) / s for s in secs)
        per_round = [a / b for a, b in zip(secs, res["blocks"][base])]
        lo, hi = _blocks.spread(per_round)
        mem = memory.get(n, {})
        speed[n] = {
            "pages_per_s": pps,
            "ratio": ratios[n],
            "ratio_range": [lo, hi],
            "blocks_s": secs,
            **mem,
        }
        print(
            f"{n:<14}{pps:>9.3f}{ratios[n]:>15.2f}x{f'{lo:.2f}-{hi:.2f}':>14}"
            f"{mem.get('load_s', float('nan')):>8.1f}{mem.get('hwm_mb', float('nan')):>14.0f}"
        )
    reports = {}
    for n in names:
        outs = res["lines"].get(n) or []
        preds = {t["id"]: o for t, o in zip(truth, outs)}
        reports[n] = evaluate_documents(truth, preds, classes=args.classes)
    print("\naccuracy (the first round's output)")
    print(format_document_report(reports))
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "machine": _machine(),
                    "pages": len(pages),
                    "pages_dir": pages_dir,
                    "threads": args.threads,
                    "rounds": args.rounds,
                    "order": res["order"],
                    "speed": speed,
                    "accuracy": reports,
                    "outputs": res["lines"],
                },
                f,
                ensure_ascii=False,
            )
        print(f"\nwrote {args.output}")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
