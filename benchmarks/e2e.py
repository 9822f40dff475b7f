#!/usr/bin/env python3
"""End to end OCR: edgeocr.Predictor vs RapidOCR, same models, same images.

    python benchmarks/e2e.py [--models ppocr-v4-mobile|ppocr-v6-small] [--images DIR] [--limit N]
                             [--sample N] [--threads 2] [--rss-images 5] [--json out.json]

Baselines (onnxruntime on the CPU, --threads intra-op threads, one inter-op
thread, direction classifier on, the packages' other defaults):

* ppocr-v4-mobile: `rapidocr_onnxruntime.RapidOCR` (1.4.4) and its bundled
  PP-OCRv4 mobile det/rec + mobile v2.0 cls;
* ppocr-v6-small: `rapidocr.RapidOCR` (3.10.0) given the PP-OCRv6 small
  det/rec + mobile v2.0 cls files bundled in its wheel (nothing is downloaded).

Latency: both engines live in this process and OCR each image in turn (the
order flips every image), called with the image path, so image decoding is
included for both; one untimed warm-up call each on the first image.
Memory: each engine runs alone in a fresh subprocess (`--worker NAME`) over
the --rss-images largest images (by pixel count), reporting RSS after the
imports, the RSS growth from loading the models and the peak RSS
(ru_maxrss). edgeocr's own timings split its time into model execution
(det_model + cls_model + rec_model) and everything else.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import _bench

from edgeocr.image_io import image_files

ENGINES = ("rapidocr", "edgeocr")


def default_images() -> Path:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    return root / "datasets" / "dev" / "images"


def list_images(folder: Path) -> list[str]:
    if not folder.is_dir():
        raise SystemExit(f"image folder not found: {folder}")
    files = image_files(folder)
    if not files:
        raise SystemExit(f"no images in {folder}")
    return files


def largest(images: list[str], k: int) -> list[str]:
    from PIL import Image

    def pixels(path):
        with Image.open(path) as im:  # reads the header only
            return im.size[0] * im.size[1]

    return sorted(images, key=pixels, reverse=True)[:k]


class RapidV4:
    """rapidocr_onnxruntime 1.4.4 with its bundled PP-OCRv4 mobile models."""

    def __init__(self, threads: int):
        from rapidocr_onnxruntime import RapidOCR

        # Global thread settings are copied into Det/Cls/Rec by the package.
        self.engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1, use_cls=True)

    def __call__(self, path: str) -> int:
        result, _ = self.engine(path)
        return len(result or [])


class RapidV6:
    """rapidocr 3.10.0 with the PP-OCRv6 small det/rec and mobile cls bundled in its wheel."""

    def __init__(self, threads: int):
        import rapidocr
        from rapidocr import RapidOCR

        md = Path(rapidocr.__file__).resolve().parent / "models"
        paths = {
            "Det.model_path": md / "PP-OCRv6_det_small.onnx",
            "Rec.model_path": md / "PP-OCRv6_rec_small.onnx",
            "Cls.model_path": md / "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
        }
        for p in paths.values():
            if not p.is_file():
                raise SystemExit(f"bundled model missing: {p} (refusing to download)")
        self.engine = RapidOCR(
            params={
                "Global.log_level": "warning",
                "Global.use_cls": True,
                "EngineConfig.onnxruntime.intra_op_num_threads": threads,
                "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                **{k: str(v) for k, v in paths.items()},
            }
        )

    def __call__(self, path: str) -> int:
        r = self.engine(path)
        return len(r.txts or [])


class Edgeocr:
    def __init__(self, models: str | None, threads: int, precision: str | None = None):
        import edgeocr

        # models None: Predictor()'s default set; precision None: Predictor()'s default (auto).
        self.predictor = edgeocr.Predictor(models=models, threads=threads, precision=precision)
        self.last = None

    def __call__(self, path: str) -> int:
        self.last = self.predictor.predict(path)
        return len(self.last.lines)


def make_engine(name: str, models: str, threads: int, args=None):
    if name == "edgeocr":
        own = getattr(args, "edgeocr_models", None)
        return Edgeocr(
            None if own == "default" else own or models, threads, getattr(args, "precision", None)
        )
    return {"ppocr-v4-mobile": RapidV4, "ppocr-v6-small": RapidV6}[models](threads)


def import_engine(name: str, models: str) -> None:
    if name == "edgeocr":
        import edgeocr  # noqa: F401
    elif models == "ppocr-v4-mobile":
        import rapidocr_onnxruntime  # noqa: F401
    else:
        import rapidocr  # noqa: F401


def worker(args) -> None:
    """Memory of one engine alone in this fresh process."""
    import_engine(args.worker, args.models)
    rss_import = _bench.rss_mb()
    t0 = time.perf_counter()
    engine = make_engine(args.worker, args.models, args.threads, args)
    load_s = time.perf_counter() - t0
    rss_loaded = _bench.rss_mb()
    for path in args.worker_images:
        engine(path)
    result = _bench.memory_figures(rss_import, rss_loaded, load_s)
    if args.worker == "edgeocr":
        result["pool"] = engine.predictor.memory_stats()
    _bench.emit(result)


def latency(images: list[str], args) -> dict:
    engines = {name: make_engine(name, args.models, args.threads, args) for name in ENGINES}
    precision_ran = engines["edgeocr"].predictor.precision
    for _ in range(args.warmup):
        for e in engines.values():
            e(images[0])
    ms = {name: [] for name in ENGINES}
    lines = {name: 0 for name in ENGINES}
    timings = []
    t_start = time.perf_counter()
    done = 0
    for i, path in enumerate(images):
        if args.max_minutes and time.perf_counter() - t_start > 60.0 * args.max_minutes:
            print(f"time budget of {args.max_minutes} min spent: stopping after {done} images")
            break
        order = ENGINES if i % 2 == 0 else ENGINES[::-1]
        for name in order:
            t0 = time.perf_counter()
            lines[name] += engines[name](path)
            ms[name].append((time.perf_counter() - t0) * 1000.0)
        timings.append(dict(engines["edgeocr"].last.timings))
        done += 1
        if args.progress:
            print(
                f"  {i + 1:4d}/{len(images)} {os.path.basename(path):<36} "
                f"rapidocr {ms['rapidocr'][-1]:8.1f} ms  edgeocr {ms['edgeocr'][-1]:8.1f} ms",
                flush=True,
            )
    return {
        "images": [os.path.basename(p) for p in images[:done]],
        "n_selected": len(images),
        "latency_ms": ms,
        "lines": lines,
        "edgeocr_timings": timings,
        "wall_s": time.perf_counter() - t_start,
        "edgeocr_precision": precision_ran,
    }


def report(lat: dict, mem: dict, args) -> str:
    ms = lat["latency_ms"]
    n = len(lat["images"])
    rows = []

    def row(label, fn, fmt="{:.1f}"):
        a, b = fn("rapidocr"), fn("edgeocr")
        rows.append([label, fmt.format(a), fmt.format(b), _bench.ratio(b, a)])

    row("median per image (ms)", lambda c: _bench.median(ms[c]))
    row("p90 per image (ms)", lambda c: _bench.p90(ms[c]))
    row("total (s)", lambda c: sum(ms[c]) / 1000.0, "{:.2f}")
    row("images/s", lambda c: n / (sum(ms[c]) / 1000.0), "{:.3f}")
    row("text lines found", lambda c: lat["lines"][c], "{:d}")
    row("load time (s)", lambda c: mem[c]["load_s"], "{:.3f}")
    row("RSS after imports (MiB)", lambda c: mem[c]["rss_import_mb"])
    row("RSS delta after load (MiB)", lambda c: mem[c]["load_delta_mb"])
    row(f"peak RSS, {len(args.rss_list)} largest images (MiB)", lambda c: mem[c]["peak_rss_mb"])
    if n < lat["n_selected"]:
        selected = f"{n} of {lat['n_selected']} selected images (time budget)"
    else:
        selected = f"{n} images"
    head = (
        f"{args.models}: {selected} from {args.images}, interleaved, {args.threads} threads, "
        f"{args.warmup} warm-up"
    )
    if args.edgeocr_models or args.precision:
        head += (
            f"; edgeocr: models {args.edgeocr_models or args.models}, "
            f"precision {args.precision or 'auto'} (ran {lat.get('edgeocr_precision')})"
        )
    out = [head, _bench.table(["metric", "RapidOCR", "edgeocr", "edgeocr/RapidOCR"], rows)]
    notes = [_bench.rss_note(c, mem[c]) for c in ENGINES]
    out += [n for n in notes if n]

    # Where edgeocr's time goes: wall time of predict() = pipeline total
    # (model runs + pre/post-processing in C++) + what happens outside the
    # pipeline (image decoding, Python result objects).
    t = lat["edgeocr_timings"]
    wall = sum(ms["edgeocr"]) / 1000.0
    total = sum(x["total"] for x in t)
    model = {k: sum(x.get(f"{k}_model", 0.0) for x in t) for k in ("det", "cls", "rec")}
    stage = {k: sum(x.get(k, 0.0) for x in t) for k in ("det", "cls", "rec")}
    model_all = sum(model.values())
    split = [
        [
            "model execution (det+cls+rec _model)",
            f"{model_all:.2f}",
            f"{100 * model_all / wall:.1f}%",
        ],
        [
            "pipeline outside the models",
            f"{total - model_all:.2f}",
            f"{100 * (total - model_all) / wall:.1f}%",
        ],
        [
            "outside the pipeline (decode, Python)",
            f"{wall - total:.2f}",
            f"{100 * (wall - total) / wall:.1f}%",
        ],
        ["predict() wall time", f"{wall:.2f}", "100.0%"],
    ]
    out.append("\nedgeocr time split over all images")
    out.append(_bench.table(["part", "seconds", "share"], split))
    per_stage = [
        [
            k,
            f"{stage[k]:.2f}",
            f"{model[k]:.2f}",
            f"{stage[k] - model[k]:.2f}",
            f"{100 * (stage[k] - model[k]) / stage[k]:.1f}%" if stage[k] else "-",
        ]
        for k in ("det", "cls", "rec")
    ]
    out.append(_bench.table(["stage", "stage s", "model s", "other s", "other share"], per_stage))
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--models", default="ppocr-v4-mobile", choices=["ppocr-v4-mobile", "ppocr-v6-small"]
    )
    ap.add_argument(
        "--images", type=Path, default=None, help="image folder (default: the shared dev set)"
    )
    ap.add_argument(
        "--limit", type=int, default=None, help="only the first N images (sorted by name)"
    )
    ap.add_argument(
        "--sample",
        type=int,
        default=None,
        help="only N images evenly spaced over the sorted list (all kinds)",
    )
    ap.add_argument(
        "--edgeocr-models",
        default=None,
        help="edgeocr's model set if not --models ('default': Predictor()'s own, e.g. to compare "
        "the default against RapidOCR's v4)",
    )
    ap.add_argument(
        "--precision",
        choices=["auto", "fp32", "int8"],
        default=None,
        help="edgeocr's Predictor(precision=...) (default: its own default, auto)",
    )
    ap.add_argument("--threads", type=int, default=2, help="intra-op threads for both (default 2)")
    ap.add_argument(
        "--warmup", type=int, default=1, help="untimed calls per engine first (default 1)"
    )
    ap.add_argument(
        "--rss-images",
        type=int,
        default=5,
        help="largest images each memory worker runs (default 5)",
    )
    ap.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="stop timing new images after this many minutes and report those done",
    )
    ap.add_argument("--progress", action="store_true", help="print every image's latencies")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("worker_images", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        worker(args)
        return 0
    if args.worker_images:
        ap.error(f"unexpected arguments: {args.worker_images}")

    args.images = args.images or default_images()
    images = list_images(args.images)
    if args.limit is not None:
        images = images[: args.limit]
    if args.sample is not None and args.sample < len(images):
        step = len(images) / args.sample
        images = [images[int(i * step)] for i in range(args.sample)]
    args.rss_list = largest(images, args.rss_images)
    info = _bench.machine()
    print(_bench.header(info), flush=True)

    # Memory first, while this process is small (see _bench.peak_rss_mb).
    script = os.path.abspath(__file__)
    common = ["--models", args.models, "--threads", str(args.threads)]
    if args.edgeocr_models:
        common += ["--edgeocr-models", args.edgeocr_models]
    if args.precision:
        common += ["--precision", args.precision]
    mem = {c: _bench.run_worker(script, ["--worker", c, *common, *args.rss_list]) for c in ENGINES}

    lat = latency(images, args)
    print()
    print(report(lat, mem, args))
    info["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(f"\nload average at the end: {info['loadavg_end']}")
    settings = {
        k: (str(v) if isinstance(v, Path) else v)
        for k, v in vars(args).items()
        if k != "worker_images"
    }
    _bench.write_json(args.json, {"machine": info, "settings": settings, **lat, "memory": mem})
    return 0


if __name__ == "__main__":
    sys.exit(main())
