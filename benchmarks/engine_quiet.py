#!/usr/bin/env python3
"""The engine against its peers on the same models, for a quiet machine (issue 36, item 1).

    python benchmarks/engine_quiet.py [--sample 24] [--rounds 2] [--threads 2] [--gap 1]
        [--no-v4] [--no-tesseract] [--variant LABEL:key=value,...] [--stages-runs 1]
        [--json out.json]

Contenders, each in a worker process of its own (benchmarks/_engines.py), each reading all the
pages in one block, blocks alternated A B C .. C B A over --rounds rounds with --gap seconds
between them (benchmarks/_blocks.py), every engine on --threads threads:

* ``edgeocr-tiny``: ``Predictor(models="ppocr-v6-tiny", use_cls=False)`` (the ratio base);
* ``faster-paddle``: faster-paddle 1.0.4 ``OcrEngine("tiny")``, the same tiny weights, no cls;
* ``edgeocr-v4`` and ``rapidocr-1.4.4``: ``ppocr-v4-mobile`` and RapidOCR 1.4.4 on the same
  PP-OCRv4 mobile files, cls on in both (``--no-v4`` leaves them out);
* ``tesseract``: Tesseract 5 in process (``--no-tesseract`` leaves it out);
* ``--variant LABEL:key=value,...``: more edgeocr tiny rows with Predictor keywords (e.g.
  ``spin:spinning=true``), for A/B runs of one change.

The pages: --sample pages spread evenly over the dev set (combos.spread_pages), ``/work/shared``
or $EDGEOCR_SHARED_DIR. Printed: the machine (CPU model, flags, cores), the load average before
and after (a figure taken under load is not a result: the run says so when the 1-minute load
average was above half the cores), each engine's block time per round, its time over
edgeocr-tiny's and over faster-paddle's / RapidOCR's / Tesseract's (median of the per-round
ratios), 1-NED and det H on the pages read; then edgeocr-tiny's time per stage (Result.timings
summed over the pages, read --stages-runs times in a fresh process after the blocks): det
(preprocess, model, DB post-processing), cls, rec (crops, batching and padding, model, CTC),
and what is outside the core's call (file read, decoding, Python).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _blocks  # noqa: E402
import _engines  # noqa: E402

TINY = "edgeocr-tiny"
SIMD = ("sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni")
SIMD += ("avx_vnni", "amx_tile", "asimd", "asimddp", "sve", "bf16", "i8mm")


def machine() -> dict:
    cpu, flags = platform.processor() or platform.machine(), []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, val = line.partition(":")
                key = key.strip()
                if key in ("model name", "Processor") and cpu in ("", platform.machine()):
                    cpu = val.strip()
                if key in ("flags", "Features") and not flags:
                    have = set(val.split())
                    flags = [x for x in SIMD if x in have]
    except OSError:
        pass
    import onnxruntime

    return {
        "cpu": cpu,
        "cpu_flags": flags,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "onnxruntime": onnxruntime.__version__,
    }


def dev_samples(n: int) -> list:
    from combos import spread_pages

    from edgeocr import evaluate

    root = os.environ.get("EDGEOCR_SHARED_DIR") or str(HERE.parents[1] / "shared")
    samples = evaluate.load_e2e(Path(root) / "datasets" / "dev")
    keep = set(spread_pages(samples, n))
    return [s for s in samples if s["path"] in keep]


def accuracy(samples, lines) -> dict:
    from edgeocr import evaluate

    a = evaluate.evaluate_e2e(samples, {s["id"]: ls for s, ls in zip(samples, lines)})["all"]
    return {k: a[k] for k in ("one_minus_ned", "det_hmean", "line_acc")}


# -- the per-stage worker: edgeocr tiny, Result.timings summed ---------------------------------


def stages_worker(argv) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stages-worker", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--setting", action="append", default=[])
    ap.add_argument("pages", nargs="+")
    args = ap.parse_args(argv)
    import edgeocr

    kw = {k: _engines._value(v) for k, v in (s.split("=", 1) for s in args.setting)}
    p = edgeocr.Predictor(
        models="ppocr-v6-tiny", use_cls=False, threads=args.threads, precision="fp32", **kw
    )
    p.predict(args.pages[0])  # warm-up, untimed
    sums: dict = {}
    wall = 0.0
    cpu0 = time.process_time()
    for _ in range(args.runs):
        for path in args.pages:
            t0 = time.perf_counter()
            r = p.predict(path)
            wall += time.perf_counter() - t0
            for k, v in r.timings.items():
                sums[k] = sums.get(k, 0.0) + v
    sums["call"] = wall
    sums["cpu"] = time.process_time() - cpu0
    print(json.dumps({k: v / args.runs for k, v in sums.items()}))
    return 0


def stage_table(t: dict) -> list:
    """Rows (stage, seconds) from summed Result.timings: the model runs and what is around them."""
    g = t.get
    rows = [
        ("det: preprocess + DB post-processing + sharpen/levels", g("det", 0) - g("det_model", 0)),
        ("det: model", g("det_model", 0)),
        ("cls: crops + model + flips", g("cls", 0)),
        ("rec: crops, batching, padding, CTC", g("rec", 0) - g("rec_model", 0)),
        ("rec: model", g("rec_model", 0)),
    ]
    if g("recheck", 0) or g("recheck_model", 0):
        rows.append(("recheck", g("recheck", 0)))
    core = g("total", 0)
    rows.append(("core, other (reading order, words, results)", core - sum(s for _, s in rows)))
    rows.append(("outside the core: file read, decode, Python", g("call", 0) - core))
    return rows


# -- the run ------------------------------------------------------------------------------------


def engines_for(args) -> list:
    t = args.threads
    es = [
        _engines.engine(
            "edgeocr", TINY, threads=t, models="ppocr-v6-tiny", settings=("use_cls=false",)
        )
    ]
    for v in args.variant:
        label, _, kv = v.partition(":")
        sets = ("use_cls=false", *[x for x in kv.split(",") if x])
        es.append(
            _engines.engine(
                "edgeocr", f"{TINY} {label}", threads=t, models="ppocr-v6-tiny", settings=sets
            )
        )
    es.append(_engines.engine("faster-paddle", threads=t))
    if not args.no_v4:
        es.append(_engines.engine("edgeocr", "edgeocr-v4", threads=t, models="ppocr-v4-mobile"))
        es.append(_engines.engine("rapidocr-1.4.4", threads=t))
    if not args.no_tesseract:
        es.append(_engines.engine("tesseract", threads=t))
    return es


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--stages-worker" in argv:
        return stages_worker(argv)
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sample", type=int, default=24, help="dev pages, spread evenly")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between blocks")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-v4", action="store_true")
    ap.add_argument("--no-tesseract", action="store_true")
    ap.add_argument("--variant", action="append", default=[], help="LABEL:key=value,...")
    ap.add_argument("--stages-runs", type=int, default=1, help="0: no per-stage pass")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    m = machine()
    samples = dev_samples(args.sample)
    pages = [(s["path"], _tesseract_lang(s) if not args.no_tesseract else "") for s in samples]
    load_before = os.getloadavg()
    print(f"machine: {m['cpu']}, {m['cores']} cores; CPU flags: {' '.join(m['cpu_flags'])}")
    print(
        f"python {m['python']}, onnxruntime {m['onnxruntime']}; {len(pages)} dev pages, "
        f"{args.rounds} rounds, {args.threads} threads each, {args.gap} s between blocks"
    )
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}")
    engines = engines_for(args)
    with _blocks.Runner(engines, warmup=pages[0]) as r:
        res = r.run(
            pages,
            rounds=args.rounds,
            gap_s=args.gap,
            on_block=lambda n, i, s: print(f"  round {i + 1}: {n} {s:.2f} s", flush=True),
        )
    load_after = os.getloadavg()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    busy = max(load_before[0], load_after[0]) > 0.5 * (m["cores"] or 1)
    if busy:
        print(
            "NOT QUIET: the 1-minute load average was above half the cores; these figures are "
            "not a result"
        )

    blocks = res["blocks"]
    peers = {TINY: "faster-paddle", "edgeocr-v4": "rapidocr-1.4.4"}
    over = {n: _blocks.ratios(blocks, n) for n in blocks}
    print(
        "\n| engine | block s per round | / edgeocr-tiny | / its peer | / tesseract | 1-NED | "
        "det H | line acc | peak RSS MiB |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    out_eng = {}
    for e in engines:
        n = e.name
        acc = accuracy(samples, res["lines"][n])
        peer = peers.get(n) or (peers[TINY] if n.startswith(TINY + " ") else None)
        vs_peer = over[peer][n] if peer in blocks else float("nan")
        vs_tess = over["tesseract"][n] if "tesseract" in blocks else float("nan")
        mem = r.memory.get(n, {})
        out_eng[n] = {
            "blocks": blocks[n],
            "accuracy": acc,
            "vs_tiny": over[TINY][n],
            "vs_peer": vs_peer,
            "vs_tesseract": vs_tess,
            "memory": mem,
            "cmd": e.cmd,
        }
        print(
            f"| {n} | {' '.join(f'{s:.2f}' for s in blocks[n])} | {over[TINY][n]:.3f} | "
            f"{vs_peer:.3f} | {vs_tess:.3f} | {100 * acc['one_minus_ned']:.1f} | "
            f"{100 * acc['det_hmean']:.1f} | {100 * acc['line_acc']:.1f} | "
            f"{mem.get('hwm_mb', float('nan')):.0f} |"
        )

    stages = None
    if args.stages_runs > 0:
        cmd = [
            sys.executable,
            os.path.abspath(__file__),
            "--stages-worker",
            "--threads",
            str(args.threads),
            "--runs",
            str(args.stages_runs),
            *[p for p, _ in pages],
        ]
        env = {**os.environ, **engines[0].env}
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
        stages = json.loads(done.stdout.strip().splitlines()[-1])
        call = stages["call"]
        print(
            f"\nedgeocr-tiny per stage ({len(pages)} pages, one process, wall in the call; "
            f"CPU {stages['cpu']:.2f} s for {call:.2f} s wall):"
        )
        print("| stage | s | share |")
        print("|---|---:|---:|")
        for name, s in stage_table(stages):
            print(f"| {name} | {s:.3f} | {100 * s / call:.1f}% |")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "machine": m,
                    "pages": [s["id"] for s in samples],
                    "threads": args.threads,
                    "rounds": args.rounds,
                    "order": res["order"],
                    "loadavg_before": load_before,
                    "loadavg_after": load_after,
                    "quiet": not busy,
                    "engines": out_eng,
                    "stages": stages,
                },
                ensure_ascii=False,
                indent=1,
            )
        )
    return 0


def _tesseract_lang(sample) -> str:
    from tesseract import page_lang

    return page_lang(sample, "auto")


if __name__ == "__main__":
    sys.exit(main())
