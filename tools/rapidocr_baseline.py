#!/usr/bin/env python3
"""Run a RapidOCR baseline on the dev set and write predictions + report.

    python tools/rapidocr_baseline.py --models ppocr-v4-mobile -o out.json
    python tools/rapidocr_baseline.py --models ppocr-v6-small [--dataset DIR] [--limit N] \
        -o out.json

Model sets:
  ppocr-v4-mobile  rapidocr_onnxruntime==1.4.4, its default bundled models
                   (PP-OCRv4 mobile det/rec, ch_ppocr_mobile_v2.0 cls).
  ppocr-v6-small   rapidocr==3.10.0, the PP-OCRv6 small det/rec + mobile v2.0
                   cls ONNX files bundled in site-packages/rapidocr/models,
                   passed as explicit model paths (nothing is downloaded).

Both run with onnxruntime on the CPU, intra-op threads = --threads (default 2),
inter-op threads = 1, text-line classifier (cls) enabled, otherwise the
packages' default settings.  End to end on every image, then recognition only
(use_det=False) on every crop.  Latency is wall time of the engine call on the
image path (includes image decoding), after one untimed warm-up call.

Output JSON:
  {"models", "package", "version", "settings",
   "predictions": {id: [{"text", "box": [[x,y]x4], "score"}]},   # reading order
   "latency_ms": {id: ms}, "rec_predictions": {id: text}, "rec_latency_ms": {id: ms},
   "latency_summary": {...}, "report": {"e2e": ..., "rec": ...}}
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _load_evaluate():
    # The package from its folder: its modules import only one another (and numpy).
    folder = REPO / "edgeocr" / "evaluate"
    spec = importlib.util.spec_from_file_location(
        "_edgeocr_evaluate", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _default_dataset() -> Path:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else REPO.parent / "shared"
    return root / "datasets" / "dev"


class _V4Mobile:
    package = "rapidocr_onnxruntime"

    def __init__(self, threads: int):
        import rapidocr_onnxruntime
        from rapidocr_onnxruntime import RapidOCR

        self.version = getattr(rapidocr_onnxruntime, "__version__", None) or _dist_version(
            "rapidocr_onnxruntime"
        )
        self.settings = {
            "intra_op_num_threads": threads,
            "inter_op_num_threads": 1,
            "use_cls": True,
        }
        # Global thread keys are copied into Det/Cls/Rec by the package.
        self.engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1, use_cls=True)
        self.settings["models"] = (
            "package defaults: ch_PP-OCRv4_det_infer, ch_PP-OCRv4_rec_infer, "
            "ch_ppocr_mobile_v2.0_cls_infer"
        )

    def e2e(self, path: str):
        result, _ = self.engine(path, use_det=True, use_cls=True, use_rec=True)
        out = []
        for box, text, score in result or []:
            out.append(
                {
                    "text": str(text),
                    "box": [[float(x), float(y)] for x, y in box],
                    "score": float(score),
                }
            )
        return out

    def rec(self, path: str) -> str:
        result, _ = self.engine(path, use_det=False, use_cls=True, use_rec=True)
        if not result:
            return ""
        return str(result[0][0])


class _V6Small:
    package = "rapidocr"

    def __init__(self, threads: int):
        import rapidocr
        from rapidocr import RapidOCR

        self.version = getattr(rapidocr, "__version__", None) or _dist_version("rapidocr")
        md = Path(rapidocr.__file__).resolve().parent / "models"
        paths = {
            "Det.model_path": md / "PP-OCRv6_det_small.onnx",
            "Rec.model_path": md / "PP-OCRv6_rec_small.onnx",
            "Cls.model_path": md / "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
        }
        for _k, p in paths.items():
            if not p.is_file():
                raise SystemExit(f"bundled model missing: {p} (refusing to download)")
        params = {
            "Global.log_level": "warning",
            "Global.use_cls": True,
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            # The config defaults already name PP-OCRv6 small (det/rec) and
            # PP-OCRv4 "mobile" cls; explicit paths keep it offline.
            **{k: str(v) for k, v in paths.items()},
        }
        self.settings = {k: (v if not isinstance(v, Path) else str(v)) for k, v in params.items()}
        self.engine = RapidOCR(params=params)

    def e2e(self, path: str):
        r = self.engine(path, use_det=True, use_cls=True, use_rec=True)
        boxes = getattr(r, "boxes", None)
        txts = getattr(r, "txts", None)
        scores = getattr(r, "scores", None)
        if boxes is None or txts is None:
            return []
        out = []
        for i, box in enumerate(boxes):
            out.append(
                {
                    "text": str(txts[i]),
                    "box": [[float(x), float(y)] for x, y in box],
                    "score": float(scores[i]) if scores is not None else 1.0,
                }
            )
        return out

    def rec(self, path: str) -> str:
        r = self.engine(path, use_det=False, use_cls=True, use_rec=True)
        txts = getattr(r, "txts", None)
        if not txts:
            return ""
        return str(txts[0])


def _dist_version(name: str):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return None


MODEL_SETS = {"ppocr-v4-mobile": _V4Mobile, "ppocr-v6-small": _V6Small}


def _lat_summary(ms):
    if not ms:
        return {}
    s = sorted(ms)
    return {
        "n": len(s),
        "mean_ms": statistics.fmean(s),
        "median_ms": statistics.median(s),
        "p90_ms": s[min(len(s) - 1, int(round(0.9 * (len(s) - 1))))],
        "max_ms": s[-1],
        "total_s": sum(s) / 1000.0,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", required=True, choices=sorted(MODEL_SETS))
    ap.add_argument(
        "--dataset", type=Path, default=None, help="dev set dir (default: <shared>/datasets/dev)"
    )
    ap.add_argument("--limit", type=int, default=None, help="only the first N images / crops")
    ap.add_argument(
        "--threads", type=int, default=2, help="onnxruntime intra-op threads (default 2)"
    )
    ap.add_argument("--no-rec", action="store_true", help="skip the recognition-only pass")
    ap.add_argument("-o", "--output", type=Path, required=True)
    args = ap.parse_args(argv)

    ev = _load_evaluate()
    dataset = args.dataset or _default_dataset()
    samples = ev.load_e2e(dataset)
    rec_samples = [] if args.no_rec else ev.load_rec(dataset)
    if args.limit is not None:
        samples = samples[: args.limit]
        rec_samples = rec_samples[: args.limit]

    runner = MODEL_SETS[args.models](args.threads)
    print(
        f"[{args.models}] {runner.package} {runner.version}; {len(samples)} images, "
        f"{len(rec_samples)} crops",
        flush=True,
    )

    # Warm-up (untimed).
    if samples:
        runner.e2e(samples[0]["path"])

    preds, lat = {}, {}
    t_all = time.perf_counter()
    for i, s in enumerate(samples):
        t0 = time.perf_counter()
        preds[s["id"]] = runner.e2e(s["path"])
        lat[s["id"]] = (time.perf_counter() - t0) * 1000.0
        print(
            f"  {i + 1:4d}/{len(samples)} {s['id']:<32} {lat[s['id']]:8.1f} ms  "
            f"{len(preds[s['id']])} lines",
            flush=True,
        )
    e2e_wall = time.perf_counter() - t_all

    rec_preds, rec_lat = {}, {}
    if rec_samples:
        runner.rec(rec_samples[0]["path"])
    for s in rec_samples:
        t0 = time.perf_counter()
        rec_preds[s["id"]] = runner.rec(s["path"])
        rec_lat[s["id"]] = (time.perf_counter() - t0) * 1000.0

    report = {"e2e": ev.evaluate_e2e(samples, preds)}
    if rec_samples:
        report["rec"] = ev.evaluate_rec(rec_samples, rec_preds)

    out = {
        "models": args.models,
        "package": runner.package,
        "version": runner.version,
        "settings": runner.settings,
        "dataset": str(dataset),
        "threads": args.threads,
        "n_images": len(samples),
        "n_crops": len(rec_samples),
        "e2e_wall_s": e2e_wall,
        "latency_summary": {
            "e2e": _lat_summary(list(lat.values())),
            "rec": _lat_summary(list(rec_lat.values())),
        },
        "latency_ms": lat,
        "rec_latency_ms": rec_lat,
        "predictions": preds,
        "rec_predictions": rec_preds,
        "report": report,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
    print(ev.format_report(report, names=(args.models, "")))
    print("latency:", json.dumps(out["latency_summary"], indent=1))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
