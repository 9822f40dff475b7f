#!/usr/bin/env python3
"""One model, two runtimes: Python onnxruntime.InferenceSession vs edgeocr.Model.

    python benchmarks/model_run.py [--runs 20] [--warmup 3] [--threads 2] [--json out.json]

For the PP-OCRv4 mobile det model (input 1x3x960x960) and rec model
(6x3x48x320), both from the rapidocr-onnxruntime 1.4.4 wheel:

* latency: both contenders live in this process and are called alternately
  on the same seeded random input (the order flips every iteration, so
  neither always runs on a cache the other warmed); median and p90 over
  --runs calls after --warmup untimed calls each;
* memory: each contender runs alone in a fresh subprocess
  (`--worker ort|edgeocr --graph det|rec`), which reports its RSS after the
  imports, the RSS growth from loading the model, and its peak RSS
  (ru_maxrss) after --rss-runs inferences.

Both use the CPU, `--threads` intra-op threads, one inter-op thread and
full graph optimisation. onnxruntime keeps its own defaults otherwise
(thread spinning on; `--ort-no-spin` turns it off, as edgeocr does by default).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import _bench
import numpy as np

SHAPES = {"det": (1, 3, 960, 960), "rec": (6, 3, 48, 320)}
CONTENDERS = ("ort", "edgeocr")
LABEL = {"ort": "onnxruntime", "edgeocr": "edgeocr"}


def model_path(models: str, graph: str) -> str:
    import edgeocr.models

    paths = edgeocr.models.MODEL_SETS[models].paths()
    if paths is None:
        need = edgeocr.models.MODEL_SETS[models].requirement
        raise SystemExit(f"model set {models} is not installed (pip install '{need}')")
    return paths[graph]


def make_input(graph: str) -> np.ndarray:
    rng = np.random.default_rng(1234)
    return rng.uniform(-1.0, 1.0, SHAPES[graph]).astype(np.float32)


class OrtRunner:
    def __init__(self, path: str, threads: int, spin: bool):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if not spin:
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.sess = ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])
        self.input_name = self.sess.get_inputs()[0].name
        self.output_names = [o.name for o in self.sess.get_outputs()]

    def run(self, x: np.ndarray) -> dict:
        return dict(zip(self.output_names, self.sess.run(None, {self.input_name: x})))


class EdgeocrRunner:
    def __init__(self, path: str, threads: int, spin: bool):
        import edgeocr

        del spin  # edgeocr's default (no spinning) is what is measured
        self.model = edgeocr.Model(path, threads=threads)

    def run(self, x: np.ndarray) -> dict:
        return self.model.run(x)


RUNNERS = {"ort": OrtRunner, "edgeocr": EdgeocrRunner}


def worker(args) -> None:
    """Memory of one contender alone in this fresh process."""
    path = args.path  # resolved by the parent: the ort worker must not import edgeocr
    x = make_input(args.graph)
    if args.worker == "ort":
        import onnxruntime  # noqa: F401
    else:
        import edgeocr  # noqa: F401
    rss_import = _bench.rss_mb()
    t0 = time.perf_counter()
    runner = RUNNERS[args.worker](path, args.threads, not args.ort_no_spin)
    load_s = time.perf_counter() - t0
    rss_loaded = _bench.rss_mb()
    for _ in range(args.rss_runs):
        runner.run(x)
    result = _bench.memory_figures(rss_import, rss_loaded, load_s)
    if args.worker == "edgeocr":
        result["pool"] = runner.model.memory_stats()
    _bench.emit(result)


def latency(graph: str, args) -> dict:
    path = model_path(args.models, graph)
    x = make_input(graph)
    runners = {name: RUNNERS[name](path, args.threads, not args.ort_no_spin) for name in CONTENDERS}

    # The same graph on the same input must give the same numbers; report how close.
    outs = {name: r.run(x) for name, r in runners.items()}
    max_diff = max(
        float(np.max(np.abs(a - b))) for a, b in zip(outs["ort"].values(), outs["edgeocr"].values())
    )
    for _ in range(args.warmup - 1):
        for r in runners.values():
            r.run(x)

    times = {name: [] for name in CONTENDERS}
    for i in range(args.runs):
        order = CONTENDERS if i % 2 == 0 else CONTENDERS[::-1]
        for name in order:
            t0 = time.perf_counter()
            runners[name].run(x)
            times[name].append((time.perf_counter() - t0) * 1000.0)
    return {
        "path": path,
        "shape": list(SHAPES[graph]),
        "max_abs_diff": max_diff,
        "latency_ms": times,
    }


def report(graph: str, lat: dict, mem: dict, args) -> str:
    t = lat["latency_ms"]
    rows = []

    def row(label, fn, fmt="{:.1f}"):
        a, b = fn("ort"), fn("edgeocr")
        rows.append([label, fmt.format(a), fmt.format(b), _bench.ratio(b, a)])

    row("median latency (ms)", lambda c: _bench.median(t[c]))
    row("p90 latency (ms)", lambda c: _bench.p90(t[c]))
    row("min latency (ms)", lambda c: min(t[c]))
    row("load time (s)", lambda c: mem[c]["load_s"], "{:.3f}")
    row("RSS after imports (MiB)", lambda c: mem[c]["rss_import_mb"])
    row("RSS delta after load (MiB)", lambda c: mem[c]["load_delta_mb"])
    row(f"peak RSS, {args.rss_runs} runs (MiB)", lambda c: mem[c]["peak_rss_mb"])
    shape = "x".join(map(str, lat["shape"]))
    spin = "off" if args.ort_no_spin else "on (its default)"
    head = (
        f"{graph} {os.path.basename(lat['path'])} input {shape}: {args.runs} interleaved runs "
        f"after {args.warmup} warm-up, {args.threads} threads, ort spinning {spin}; "
        f"max |ort - edgeocr| = {lat['max_abs_diff']:.2e}"
    )
    return head + "\n" + _bench.table(["metric", "onnxruntime", "edgeocr", "edgeocr/ort"], rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--models", default="ppocr-v4-mobile", help="model set (default ppocr-v4-mobile)"
    )
    ap.add_argument("--graphs", default="det,rec", help="comma-separated: det, rec (default both)")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per contender (default 20)")
    ap.add_argument(
        "--warmup", type=int, default=3, help="untimed runs per contender first (default 3)"
    )
    ap.add_argument("--threads", type=int, default=2, help="intra-op threads (default 2)")
    ap.add_argument(
        "--rss-runs", type=int, default=3, help="inferences per memory worker (default 3)"
    )
    ap.add_argument(
        "--ort-no-spin", action="store_true", help="turn off onnxruntime's intra-op spinning"
    )
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--worker", choices=CONTENDERS, help=argparse.SUPPRESS)
    ap.add_argument("--graph", choices=sorted(SHAPES), help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.runs < 1 or args.warmup < 1:
        ap.error("--runs and --warmup must be >= 1")

    if args.worker:
        worker(args)
        return 0

    graphs = [g.strip() for g in args.graphs.split(",") if g.strip()]
    for g in graphs:
        if g not in SHAPES:
            ap.error(f"unknown graph {g!r}; choose from {sorted(SHAPES)}")
    info = _bench.machine()
    print(_bench.header(info), flush=True)
    hidden = ("worker", "graph", "path")
    out = {"machine": info, "settings": {k: v for k, v in vars(args).items() if k not in hidden}}
    paths = {g: model_path(args.models, g) for g in graphs}

    # Memory first, while this process is small (see _bench.peak_rss_mb).
    passthrough = ["--threads", str(args.threads), "--rss-runs", str(args.rss_runs)]
    if args.ort_no_spin:
        passthrough.append("--ort-no-spin")
    mem = {
        g: {
            c: _bench.run_worker(
                os.path.abspath(__file__),
                ["--worker", c, "--graph", g, "--path", paths[g], *passthrough],
            )
            for c in CONTENDERS
        }
        for g in graphs
    }
    for g in graphs:
        lat = latency(g, args)
        print()
        print(report(g, lat, mem[g], args), flush=True)
        for c in CONTENDERS:
            note = _bench.rss_note(c, mem[g][c])
            if note:
                print(note)
        out[g] = {**lat, "memory": mem[g]}
    out["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(f"\nload average at the end: {out['machine']['loadavg_end']}")
    _bench.write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
