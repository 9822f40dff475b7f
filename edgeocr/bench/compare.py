"""`edgeocr bench`: edgeocr against other ways of running the same models, on your images.

    edgeocr bench [MODEL_OR_SET] [--images DIR] [--threads N] [--batch 1,8,32]
                  [--compare rapidocr,onnxruntime,eager] [--json]
    edgeocr bench --memory [MODEL_OR_SET[,...]] [--page IMAGE] [--sizes ...] [--budgets ...]

Contenders (all on the CPU, `--threads` intra-op threads, one inter-op thread,
the same det/cls/rec model files, images decoded once beforehand):

* ``edgeocr``: the engine under ``edgeocr.Predictor`` (:class:`edgeocr.engine.Engine`):
  ``predict`` at batch 1, ``predict_iter`` over N images at batch N (what
  ``Predictor.predict`` / ``predict_batch`` run);
* ``onnxruntime``: Python onnxruntime sessions + numpy/OpenCV pre/post-processing
  following PaddleOCR's steps (:mod:`edgeocr.bench.eager`);
* ``eager``: the same Python pipeline with the ONNX models turned into PyTorch
  modules by onnx2torch and run as a dynamic graph (``pip install edgeocr[bench]``);
* ``rapidocr``: ``rapidocr_onnxruntime.RapidOCR`` given the same model files
  (it has no batch API: batch N is N calls);
* ``int8``: edgeocr on the int8 bundle of the same models (``--int8-bundle
  FILE``, or packed once with ``edgeocr-pack --quantize int8`` defaults,
  calibrated on ``--calib DIR`` or the benchmark images, and cached:
  :mod:`edgeocr.pack.int8_cache`). The heading names the CPU features that
  decide int8 speed (VNNI on x86, dot product on ARM).

Latency: every contender lives in this process; for each batch size the images
are cut into batches of N (cycled to fill the last one) and every batch goes
through each contender in turn, the order changing every batch. Per-image
latency is a batch's wall time / N. Memory: each contender also runs alone in
a fresh subprocess, over the batch sizes in increasing order, reporting its
peak RSS (VmHWM) after each, its model load time and (edgeocr) its memory
pool's high-water mark. Ratios are contender / edgeocr from this one run.

Throughput (``--throughput``): edgeocr's ``predict_iter`` over all the images
with 1, 2, 4 ... images in flight (``Engine.predict_iter(workers=N)``, what
``Predictor(workers=N)`` runs, each run getting cores // N intra-op threads),
the configurations taking turns; it prints images/s, the share of time outside
the networks, and which setting won on this device.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
import warnings

from .._runtime import machine_info
from . import worker
from .common import default_images, engine_for, median, p90, render_table
from .worker import emit

CONTENDERS = (
    "edgeocr",
    "onnxruntime",
    "eager",
    "rapidocr",
    "int8",
    "paddle-ir",
    "paddle-noir",
    "paddle-ir-mkldnn",
    "paddle-noir-mkldnn",
)
# `--compare paddle`: Paddle Inference with IR optimisation and oneDNN each on and off.
_ALIASES = {"paddle": ("paddle-ir", "paddle-noir", "paddle-ir-mkldnn", "paddle-noir-mkldnn")}
# What each contender needs besides edgeocr's own dependencies (module names, not installed).
_NEEDS = {
    "onnxruntime": ("onnxruntime", "pyclipper"),
    "eager": ("torch", "onnx2torch", "onnx", "pyclipper"),
    "rapidocr": ("rapidocr_onnxruntime",),
    "int8": ("onnx",),
    **{
        v: ("paddle", "paddle2onnx", "yaml", "pyclipper")
        for v in ("paddle-ir", "paddle-noir", "paddle-ir-mkldnn", "paddle-noir-mkldnn")
    },
}


# -- memory ---------------------------------------------------------------------


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return v


def positive_numbers(text: str) -> list[float]:
    """argparse type: comma-separated finite numbers > 0 (``0.3,1,3``)."""
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not values or not all(math.isfinite(v) and v > 0 for v in values):
        raise argparse.ArgumentTypeError(f"must be numbers > 0, e.g. 1,8,32; got {text!r}")
    return values


def _status_mb(key: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


# -- contenders -----------------------------------------------------------------


def resolve_paths(model: str | None) -> dict | None:
    """det/cls/rec files of a model set name or folder; None otherwise (one file, a bundle)."""
    from ..models import MODEL_SETS, find_model_file, resolve_model_set

    if model is None or model in MODEL_SETS:
        return resolve_model_set(model)
    if os.path.isdir(model):
        return {r: find_model_file(model, r) for r in ("det", "cls", "rec")}
    return None


def missing_modules(name: str) -> list:
    return [m for m in _NEEDS.get(name, ()) if importlib.util.find_spec(m) is None]


class Contender:
    """run(images, batch) -> list of (lines found, timings dict or None), one per image."""

    pool = None

    def high_water_mb(self):
        return None


class EdgeocrContender(Contender):
    def __init__(self, model, paths, threads):
        from .._runtime import int8_speed_warning

        self.p = engine_for(model, threads=threads)
        # As Predictor warns on loading such a bundle (an error where warnings are: the int8
        # contender is then refused at load, the report saying why).
        note = int8_speed_warning(self.p.manifest.get("quantization") or {})
        if note:
            warnings.warn(f"{model}: {note}", RuntimeWarning, stacklevel=2)

    def run(self, images, batch):
        rs = [self.p.predict(images[0])] if batch == 1 else list(self.p.predict_iter(images))
        return [(len(r.lines), r.timings) for r in rs]

    def high_water_mb(self):
        return self.p.pool_stats()["high_water_bytes"] / 2**20


class PythonContender(Contender):
    def __init__(self, backend, paths, threads):
        from .eager import PythonPipeline, set_torch_interop_threads

        if backend == "eager":
            set_torch_interop_threads(1)
        self.p = PythonPipeline(paths, backend, threads)

    def run(self, images, batch):
        return [(len(r["lines"]), r["timings"]) for r in self.p.predict_batch(images, batch)]


class RapidContender(Contender):
    def __init__(self, paths, threads):
        from rapidocr_onnxruntime import RapidOCR

        kw = {"intra_op_num_threads": threads} if threads else {}
        self.engine = RapidOCR(
            det_model_path=paths["det"],
            cls_model_path=paths["cls"],
            rec_model_path=paths["rec"],
            inter_op_num_threads=1,
            **kw,
        )

    def run(self, images, batch):
        out = []
        for img in images:
            result, elapse = self.engine(img)
            t = None
            if elapse and len(elapse) == 3:
                t = {"det": elapse[0], "cls": elapse[1], "rec": elapse[2], "total": sum(elapse)}
            out.append((len(result or []), t))
        return out


class PaddleContender(PythonContender):
    """The onnxruntime contender's Python pipeline on Paddle Inference (edgeocr.bench.paddle)."""

    def __init__(self, name, model, threads):
        from .paddle import make_pipeline

        self.p = make_pipeline(name, model, threads)


def make_contender(name: str, model, paths, threads) -> Contender:
    if name in ("edgeocr", "int8"):  # int8: `model` is the int8 bundle
        return EdgeocrContender(model, paths, threads)
    if paths is None:
        raise RuntimeError("needs a model set name or a folder with det/cls/rec files")
    if name in ("onnxruntime", "eager"):
        return PythonContender(name, paths, threads)
    if name == "rapidocr":
        return RapidContender(paths, threads)
    if name.startswith("paddle-"):
        return PaddleContender(name, model, threads)
    raise ValueError(f"unknown contender {name!r}; choose from {', '.join(CONTENDERS)}")


def batches_of(images: list, batch: int) -> list:
    """The images cut into batches of `batch`, the list cycled to fill the last one."""
    n = max(1, math.ceil(len(images) / batch)) * batch
    cycled = [images[i % len(images)] for i in range(n)]
    return [cycled[i : i + batch] for i in range(0, n, batch)]


# -- worker: one contender alone in a fresh process -----------------------------


def _load_images(files: list):
    from ..image_io import load_image

    return [load_image(f) for f in files]


def _quiet_onnx2torch() -> None:
    # onnx2torch's Slice indexes with a list, which torch warns about once per process.
    warnings.filterwarnings("ignore", message="Using a non-tuple sequence", category=UserWarning)


def worker_main(argv) -> int:
    _quiet_onnx2torch()
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", required=True)
    ap.add_argument("--model")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--batch", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    images = _load_images(a.files)
    paths = resolve_paths(a.model)
    rss0 = _status_mb("VmRSS")
    t0 = time.perf_counter()
    c = make_contender(a.worker, a.model, paths, a.threads)
    load_s = time.perf_counter() - t0
    out = {
        "load_s": load_s,
        "load_delta_mb": _status_mb("VmRSS") - rss0,
        "peak_rss_mb": {},
        "pool_high_water_mb": {},
    }
    for b in sorted(int(x) for x in a.batch.split(",")):
        for group in batches_of(images, b):
            c.run(group, b)
        out["peak_rss_mb"][str(b)] = _status_mb("VmHWM")
        out["pool_high_water_mb"][str(b)] = c.high_water_mb()
    emit(out)
    return 0


def run_worker(name, args, files, timeout=1800.0, model=None) -> dict:
    cmd = [sys.executable, "-m", "edgeocr.bench", "--worker", name, "--batch", args.batch]
    model = model or args.model
    if model:
        cmd += ["--model", str(model)]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    return worker.run_worker(cmd + files, timeout)


# -- the command ------------------------------------------------------------------


def list_images(folder: str, limit: int) -> list:
    if not os.path.isdir(folder):
        raise SystemExit(f"edgeocr bench: image folder not found: {folder}")
    from ..image_io import image_files

    files = image_files(folder)
    if not files:
        raise SystemExit(f"edgeocr bench: no images in {folder}")
    if (
        limit and len(files) > limit
    ):  # evenly spread over the sorted list, so every kind is represented
        step = len(files) / limit
        files = [files[int(i * step)] for i in range(limit)]
    return files


def measure(contenders: dict, images: list, batch_sizes: list, warmup: int) -> dict:
    names = list(contenders)
    for _ in range(warmup):
        for c in contenders.values():
            c.run(images[:1], 1)
    out = {}
    for b in batch_sizes:
        per_image = {n: [] for n in names}
        wall = {n: 0.0 for n in names}
        lines = {n: 0 for n in names}
        stages = {n: {} for n in names}
        n_images = 0
        for k, group in enumerate(batches_of(images, b)):
            order = names if k % 2 == 0 else names[::-1]
            for n in order:
                t0 = time.perf_counter()
                res = contenders[n].run(group, b)
                dt = time.perf_counter() - t0
                per_image[n].append(1000.0 * dt / len(group))
                wall[n] += dt
                for found, t in res:
                    lines[n] += found
                    for key, v in (t or {}).items():
                        stages[n][key] = stages[n].get(key, 0.0) + v
            n_images += len(group)
        for n in names:
            out[(n, b)] = {
                "per_image_ms": per_image[n],
                "wall_s": wall[n],
                "images": n_images,
                "lines": lines[n],
                "stages_s": stages[n],
            }
    return out


def summarise(lat: dict, mem: dict, batch_sizes: list, names: list) -> list:
    rows = []
    for b in batch_sizes:
        ref = lat.get(("edgeocr", b))
        for n in names:
            m = lat[(n, b)]
            st = m["stages_s"]
            model = (
                sum(st.get(f"{k}_model", 0.0) for k in ("det", "cls", "rec"))
                if "det_model" in st
                else None
            )
            row = {
                "contender": n,
                "batch": b,
                "images": m["images"],
                "median_ms": median(m["per_image_ms"]),
                "p90_ms": p90(m["per_image_ms"]),
                "images_per_s": m["images"] / m["wall_s"] if m["wall_s"] else float("nan"),
                "lines": m["lines"],
                "stage_ms": {
                    k: 1000.0 * st[k] / m["images"] for k in ("det", "cls", "rec") if k in st
                },
                "model_ms": 1000.0 * model / m["images"] if model is not None else None,
                # Pre/post-processing and all else outside the networks, in the timed wall time.
                "outside_model_share": 1.0 - model / m["wall_s"]
                if model is not None and m["wall_s"]
                else None,
            }
            w = mem.get(n) or {}
            row["load_s"] = w.get("load_s")
            row["peak_rss_mb"] = (w.get("peak_rss_mb") or {}).get(str(b))
            row["pool_high_water_mb"] = (w.get("pool_high_water_mb") or {}).get(str(b))
            if ref is not None:
                r = (
                    next(x for x in rows if x["contender"] == "edgeocr" and x["batch"] == b)
                    if n != "edgeocr"
                    else row
                )
                row["ratio_median"] = row["median_ms"] / r["median_ms"] if r["median_ms"] else None
                row["ratio_images_per_s"] = (
                    row["images_per_s"] / r["images_per_s"] if r["images_per_s"] else None
                )
                both = row["peak_rss_mb"] is not None and r["peak_rss_mb"]
                row["ratio_peak_rss"] = row["peak_rss_mb"] / r["peak_rss_mb"] if both else None
            rows.append(row)
    return rows


def throughput_configs(nproc: int) -> list:
    """Images in flight to try: 1 (all cores on one image), then powers of two up to the cores."""
    out, w = [1], 2
    while w <= nproc:
        out.append(w)
        w *= 2
    if nproc > 1 and nproc not in out:
        out.append(nproc)
    return out


def measure_throughput(model, threads, images: list, workers: list, rounds: int) -> list:
    """edgeocr's predict_iter over all images with `w` images in flight, for each w.

    Each w gets its own engine (threads: --threads // w, else cores // w); the
    configurations take turns, the order flipping every round. Model share =
    the networks' time / (wall time x w): what is left is pre/post-processing,
    decoding, Python and idle workers."""
    from .._runtime import cpu_count

    # --threads is the total: each of w images in flight gets threads // w (at least 1).
    per_run = {w: (threads if w == 1 else max(1, (threads or cpu_count()) // w)) for w in workers}
    preds = {w: engine_for(model, threads=per_run[w]) for w in workers}
    for p in preds.values():
        p.predict(images[0])
    acc = {w: {"wall_s": 0.0, "model_s": 0.0, "pipeline_s": 0.0, "images": 0} for w in workers}
    for r in range(rounds):
        for w in workers if r % 2 == 0 else workers[::-1]:
            t0 = time.perf_counter()
            res = list(preds[w].predict_iter(images, workers=w))
            a = acc[w]
            a["wall_s"] += time.perf_counter() - t0
            a["images"] += len(res)
            for x in res:
                a["model_s"] += sum(x.timings.get(f"{k}_model", 0.0) for k in ("det", "cls", "rec"))
                a["pipeline_s"] += x.timings.get("total", 0.0)
    rows = []
    for w in workers:
        a = acc[w]
        rows.append(
            {
                "workers": w,
                "threads_per_run": per_run[w],
                "images": a["images"],
                "images_per_s": a["images"] / a["wall_s"],
                "ratio_vs_1": (a["images"] / a["wall_s"]) / (acc[1]["images"] / acc[1]["wall_s"]),
                "model_share": a["model_s"] / (a["wall_s"] * w),
                "outside_model_share": 1.0 - a["model_s"] / (a["wall_s"] * w),
                "pool_high_water_mb": preds[w].pool_stats()["high_water_bytes"] / 2**20,
            }
        )
    return rows


def format_throughput(rows: list) -> str:
    head = [
        "images in flight",
        "threads per run",
        "img/s",
        "x 1 in flight",
        "outside model",
        "pool HWM MiB",
    ]
    cells = [head] + [
        [
            str(r["workers"]),
            str(r["threads_per_run"] or "runtime default"),
            _fmt(r["images_per_s"], "{:.3f}"),
            _fmt(r["ratio_vs_1"], "{:.2f}x"),
            _fmt(r["outside_model_share"] * 100, "{:.1f}%"),
            _fmt(r["pool_high_water_mb"]),
        ]
        for r in rows
    ]
    out = [render_table(cells)]
    best = max(rows, key=lambda r: r["images_per_s"])
    if best["workers"] == 1 or best["ratio_vs_1"] < 1.02:  # within noise: keep the lowest latency
        out.append(
            f"best here: the default, Predictor(workers=1) (more images in flight: at most "
            f"{best['ratio_vs_1']:.2f}x its images/s)"
        )
    else:
        out.append(
            f"best here: Predictor(workers={best['workers']}) ({best['ratio_vs_1']:.2f}x the "
            "default's images/s)"
        )
    return "\n".join(out)


def _fmt(v, spec="{:.1f}"):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else spec.format(v)


def format_table(rows: list) -> str:
    head = [
        "contender",
        "batch",
        "median ms/img",
        "p90 ms/img",
        "img/s",
        "x edgeocr (median)",
        "det ms",
        "cls ms",
        "rec ms",
        "model ms",
        "outside model",
        "peak RSS MiB",
        "x edgeocr (RSS)",
        "pool HWM MiB",
        "load s",
        "lines",
    ]
    cells = [head]
    for r in rows:
        st = r["stage_ms"]
        cells.append(
            [
                r["contender"],
                str(r["batch"]),
                _fmt(r["median_ms"]),
                _fmt(r["p90_ms"]),
                _fmt(r["images_per_s"], "{:.2f}"),
                _fmt(r.get("ratio_median"), "{:.2f}x"),
                _fmt(st.get("det")),
                _fmt(st.get("cls")),
                _fmt(st.get("rec")),
                _fmt(r["model_ms"]),
                _fmt(
                    r["outside_model_share"] * 100
                    if r["outside_model_share"] is not None
                    else None,
                    "{:.1f}%",
                ),
                _fmt(r["peak_rss_mb"]),
                _fmt(r.get("ratio_peak_rss"), "{:.2f}x"),
                _fmt(r["pool_high_water_mb"]),
                _fmt(r["load_s"], "{:.2f}"),
                str(r["lines"]),
            ]
        )
    return render_table(cells)


def cmd_bench(args) -> int:
    if args.memory:
        from .memory import run_memory

        return run_memory(args)
    if args.target_ms is not None and not args.ladder:
        print("edgeocr bench: --target-ms goes with --ladder", file=sys.stderr)
        return 2
    if args.ladder:
        from .ladder import run_ladder

        folder = args.images or default_images()
        if folder is None:
            print("edgeocr bench: pass --images DIR (a folder of images)", file=sys.stderr)
            return 2
        log = (
            (lambda *a: print(*a, file=sys.stderr, flush=True))
            if args.json
            else (lambda *a: print(*a, flush=True))
        )
        return run_ladder(args, list_images(folder, args.limit), log)
    _quiet_onnx2torch()
    try:
        batch_sizes = sorted({int(x) for x in args.batch.split(",") if x.strip()})
    except ValueError:
        batch_sizes = []
    if not batch_sizes or batch_sizes[0] < 1:
        print("edgeocr bench: --batch takes positive integers, e.g. 1,8,32", file=sys.stderr)
        return 2
    wanted = ["edgeocr"]
    for c in (c.strip() for c in args.compare.split(",")):
        for name in _ALIASES.get(c, (c,)):
            if name and name not in wanted:
                wanted.append(name)
    for c in wanted:
        if c not in CONTENDERS:
            print(
                f"edgeocr bench: unknown contender {c!r}; choose from {', '.join(CONTENDERS[1:])}",
                file=sys.stderr,
            )
            return 2
    folder = args.images or default_images()
    if folder is None:
        print("edgeocr bench: pass --images DIR (a folder of images)", file=sys.stderr)
        return 2
    files = list_images(folder, args.limit)
    from .paddle import is_paddle_dir

    paddle_dir = None
    if is_paddle_dir(args.model):
        # Paddle inference models: everyone else runs their ONNX conversion (cached).
        from .paddle import prepare

        paddle_dir = args.model
        args.model = prepare(paddle_dir, log=lambda *a: print(*a, file=sys.stderr, flush=True))
    if args.model is None and len(wanted) > 1:
        # The default set's recheck model has no counterpart in the other runtimes: without
        # --model every contender runs the previous default's det/cls/rec (same models, same work).
        from ..models import FALLBACK_MODEL_SET

        args.model = FALLBACK_MODEL_SET
        log_note = f"no --model: every contender runs {FALLBACK_MODEL_SET} (same models)"
        print(log_note, file=sys.stderr, flush=True)
    paths = resolve_paths(args.model)
    skipped = {}
    for c in wanted[1:]:
        miss = missing_modules(c)
        if paths is not None and paths.get("recheck"):
            skipped[c] = f"{args.model} has a recheck model, which {c} does not run"
        elif miss:
            extra = "paddle" if c.startswith("paddle-") else "bench"
            skipped[c] = f"not installed: {', '.join(miss)} (pip install 'edgeocr[{extra}]')"
        elif paths is None:
            skipped[c] = "needs a model set name or a folder of det/cls/rec files"
    names = [c for c in wanted if c not in skipped]
    info = machine_info()
    log = (
        (lambda *a: print(*a, file=sys.stderr, flush=True))
        if args.json
        else (lambda *a: print(*a, flush=True))
    )
    log(f"{info['date']}  {info['cpu']}  nproc={info['nproc']}  load average {info['loadavg']}")
    from .._runtime import cpu_flags_line

    info["int8_features"] = cpu_flags_line()
    log(f"CPU features for int8: {info['int8_features']}")
    models_of = {}  # contender -> the model it loads, where not args.model
    if "int8" in names:
        try:
            models_of["int8"] = _int8_bundle(args, paths, folder, log)
        except Exception as e:  # noqa: BLE001 - reported in the table, the others go on
            skipped["int8"] = f"no int8 bundle: {e}"
            names.remove("int8")

    # Memory first, one fresh process per contender, while this process is small.
    mem = {}
    if not args.no_memory:
        for c in list(names):
            log(f"memory: {c} alone in a subprocess ...")
            try:
                mem[c] = run_worker(c, args, files, model=models_of.get(c))
            except Exception as e:  # a contender that cannot run is reported, the others go on
                if c == "edgeocr":
                    raise
                skipped[c] = f"failed: {e}"
                names.remove(c)
    contenders = {}
    for c in names:
        t0 = time.perf_counter()
        try:
            contenders[c] = make_contender(c, models_of.get(c, args.model), paths, args.threads)
        except Exception as e:
            if c == "edgeocr":
                raise
            skipped[c] = f"failed to load: {e}"
            continue
        mem.setdefault(c, {"load_s": time.perf_counter() - t0})
    names = list(contenders)
    images = _load_images(files)
    log(
        f"latency: {len(images)} images from {folder}, batch sizes {batch_sizes}, "
        f"contenders {', '.join(names)}"
    )
    lat = measure(contenders, images, batch_sizes, args.warmup)
    rows = summarise(lat, mem, batch_sizes, names)
    tput = None
    if args.throughput:
        contenders.clear()  # free the other contenders' memory first
        from .._runtime import cpu_count

        workers = throughput_configs(cpu_count())
        log(
            f"throughput: edgeocr predict_iter over {len(images)} images, images in flight "
            f"{workers}"
        )
        tput = measure_throughput(args.model, args.threads, images, workers, args.rounds)
    settings = {
        "model": args.model,
        "images": folder,
        "n_images": len(files),
        "threads": args.threads,
        "batch": batch_sizes,
        "warmup": args.warmup,
        "throughput_rounds": args.rounds if args.throughput else None,
        "paths": paths,
        "int8_bundle": str(models_of["int8"]) if "int8" in models_of else None,
        "paddle_models": paddle_dir,
    }
    doc = {
        "machine": info,
        "settings": settings,
        "skipped": skipped,
        "results": rows,
        "throughput": tput,
    }
    if args.save:
        with open(args.save, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print()
    print(
        f"{args.model or 'default model set'}: {len(files)} images, "
        f"{args.threads or 'default'} threads, "
        f"contenders interleaved; x edgeocr = contender / edgeocr"
    )
    print(format_table(rows))
    for c, why in skipped.items():
        print(f"  {c}: skipped, {why}")
    if tput:
        print()
        print(
            f"throughput mode (predict_iter, decoding overlapped, {args.rounds} interleaved "
            "rounds; "
            "outside model = 1 - network time / (wall x images in flight)):"
        )
        print(format_throughput(tput))
    return 0


def _int8_bundle(args, paths, folder, log):
    """The int8 bundle to compare: --int8-bundle, else packed once and cached."""
    if args.int8_bundle:
        if not os.path.isfile(args.int8_bundle):
            raise FileNotFoundError(f"--int8-bundle {args.int8_bundle}: no such file")
        return args.int8_bundle
    if paths is None:
        raise ValueError("give --int8-bundle FILE (the model is not a model set or folder)")
    from ..pack.int8_cache import cached_int8_bundle

    calib = args.calib or folder
    log(f"int8: the bundle of these models calibrated on {calib} (packed once, then cached) ...")
    return str(cached_int8_bundle(paths, calib, threads=args.threads, log=log))


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bench",
        help="latency, throughput and memory of edgeocr vs other runtimes",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "model",
        nargs="?",
        default=None,
        metavar="MODEL_OR_SET",
        help="model set name, a folder of det/cls/rec files, or a folder of Paddle inference "
        "model folders det/ cls/ rec/ (converted with paddle2onnx for the others; default: the "
        "default set)",
    )
    p.add_argument("--images", help="image folder (default: the shared dev set, when there is one)")
    p.add_argument(
        "--limit",
        type=int,
        default=8,
        help="at most N images, spread over the folder (default 8; 0: all)",
    )
    p.add_argument(
        "--threads", "-t", type=int, default=None, help="intra-op threads for every contender"
    )
    p.add_argument(
        "--batch", default="1", help="comma-separated batch sizes (default 1), e.g. 1,8,32"
    )
    p.add_argument(
        "--compare",
        default="onnxruntime,rapidocr",
        help=f"comma-separated, from {', '.join(CONTENDERS[1:])} (default onnxruntime,rapidocr); "
        "paddle: the four paddle-* (Paddle Inference, IR optimisation and oneDNN on/off; "
        "MODEL_OR_SET is then a folder of Paddle inference models det/, cls/, rec/)",
    )
    p.add_argument(
        "--int8-bundle",
        metavar="FILE",
        help="--compare int8: the int8 .eocr to run (default: packed from the model set with "
        "edgeocr-pack --quantize int8 defaults, calibrated on --calib, and cached)",
    )
    p.add_argument(
        "--calib",
        metavar="DIR",
        help="--compare int8: calibration pages for the cached int8 bundle (default: --images)",
    )
    p.add_argument(
        "--warmup", type=int, default=1, help="untimed calls per contender first (default 1)"
    )
    p.add_argument(
        "--throughput",
        action="store_true",
        help="also measure edgeocr's images/s with 1, 2, 4 ... images in flight "
        "(Predictor(workers=N))",
    )
    p.add_argument(
        "--rounds",
        type=positive_int,
        default=2,
        help="throughput rounds per configuration; --ladder: block rounds (default 2)",
    )
    p.add_argument(
        "--no-memory", action="store_true", help="skip the per-contender memory subprocesses"
    )
    p.add_argument(
        "--memory",
        action="store_true",
        help="peak RSS per page size and model set, and the smallest max_memory_mb that reads "
        "each page the same (MODEL_OR_SET may list sets: a,b; default both shipped sets)",
    )
    p.add_argument(
        "--page", help="--memory: the page to scale to each size (default: the largest image)"
    )
    p.add_argument(
        "--ladder",
        action="store_true",
        help="time every installed model set on these images (blocks alternated) and show "
        "their dev-set accuracy",
    )
    p.add_argument(
        "--target-ms",
        type=float,
        default=None,
        metavar="MS",
        help="--ladder: say which set fits MS per page (the most accurate within it)",
    )
    p.add_argument(
        "--sizes",
        type=positive_numbers,
        default="0.3,1,3,6,12",
        help="--memory: page sizes in megapixels",
    )
    p.add_argument(
        "--budgets",
        type=positive_numbers,
        default="64,128,256,512,1024",
        help="--memory: budgets to try, MB",
    )
    p.add_argument(
        "--json", action="store_true", help="print the results as JSON (progress goes to stderr)"
    )
    p.add_argument("--save", metavar="FILE", help="also write the JSON results to FILE")
    p.set_defaults(func=cmd_bench)


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
