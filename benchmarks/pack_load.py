#!/usr/bin/env python3
"""Bundles side by side: load time with vs without offline optimisation; fp32 vs dynamic vs int8.

    python benchmarks/pack_load.py [--models ppocr-v4-mobile] [--dataset DIR] [--eval-limit 8]
                                   [--calib-limit 4] [--methods minmax,percentile] [--threads 2]
                                   [--loads 5] [--repeats 2]
                                   [--modes fp32,dynamic,int8] [--json out.json]

Packs the model set several ways in a temporary folder (the pack time and
bundle size of each are reported), then in this process:

* load: the median of --loads constructions of a Predictor (sessions created,
  bundle mapped and its checksums verified) from the loose source files
  (baseline), from a bundle of unoptimised graphs, and from a bundle of
  graphs optimised offline at ONNX Runtime's 'extended' level, loaded with
  the runtime level 'all' (adds the hardware-specific layout passes on the
  device) and 'extended' (no further work);
* accuracy and latency: every variant OCRs the same --eval-limit images of
  the labelled set (spread over its tags), interleaved, one untimed warm-up;
  det hmean, 1-NED, the share of the baseline's lines read the same, and the
  mean over images of the fastest of --repeats runs (robust to a shared,
  loaded machine) are printed next to the loose fp32 baseline. int8
  calibration uses other images of the same set (the last --calib-limit
  ones), through edgeocr's own preprocessing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import _bench


def default_dataset() -> Path:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    return root / "datasets" / "dev"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="ppocr-v4-mobile")
    ap.add_argument("--dataset", default=str(default_dataset()))
    ap.add_argument("--eval-limit", type=int, default=8)
    ap.add_argument("--calib-limit", type=int, default=4)
    ap.add_argument("--methods", default="minmax", help="int8 calibration methods, comma-separated")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument(
        "--repeats",
        type=int,
        default=2,
        help="timed runs per image and variant (the fastest counts)",
    )
    ap.add_argument("--modes", default="fp32,dynamic,int8")
    ap.add_argument("--json")
    args = ap.parse_args()

    import edgeocr
    from edgeocr import evaluate
    from edgeocr.models import resolve_model_set
    from edgeocr.pack import pack, predictor_from_bundle
    from edgeocr.pack import verify as V

    info = _bench.machine()
    print(_bench.header(info))
    paths = resolve_model_set(args.models)
    samples = evaluate.load_e2e(args.dataset)
    calib_samples = samples[-args.calib_limit :] if args.calib_limit else []
    pool = samples[: len(samples) - len(calib_samples)]
    step = max(1, len(pool) // max(args.eval_limit, 1))
    eval_samples = pool[::step][: args.eval_limit]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    quiet = lambda *a, **k: None  # noqa: E731

    results = {
        "machine": info,
        "models": args.models,
        "eval_images": [s["id"] for s in eval_samples],
        "calib_images": [s["id"] for s in calib_samples],
        "variants": {},
    }
    with tempfile.TemporaryDirectory(prefix="edgeocr-bench-") as tmp:
        calib_dir = os.path.join(tmp, "calib")
        os.mkdir(calib_dir)
        for s in calib_samples:
            os.symlink(s["path"], os.path.join(calib_dir, os.path.basename(s["path"])))

        # -- pack ---------------------------------------------------------
        variants = {
            "fp32 (graphs as exported)": dict(quantize="none", optimize=None),
            "fp32": dict(quantize="none"),
        }
        if "dynamic" in modes:
            variants["dynamic (MatMul)"] = dict(quantize="dynamic")
            variants["dynamic (MatMul+Conv)"] = dict(
                quantize="dynamic", dynamic_ops=["MatMul", "Gemm", "Conv"]
            )
        if "int8" in modes:
            for method in args.methods.split(","):
                variants[f"int8 ({method})"] = dict(
                    quantize="int8", calib=calib_dir, method=method, calib_limit=args.calib_limit
                )
        files = {}
        for name, kw in variants.items():
            out = os.path.join(tmp, f"{len(files)}.eocr")
            t0 = time.perf_counter()
            manifest = pack(
                out,
                det=paths["det"],
                cls=paths["cls"],
                rec=paths["rec"],
                threads=args.threads,
                measure_latency=False,
                log=quiet,
                **kw,
            )
            files[name] = out
            results["variants"][name] = {
                "pack_s": time.perf_counter() - t0,
                "size_mib": os.path.getsize(out) / 2**20,
                "stages": manifest["verification"].get("stages", {}),
            }
            print(
                f"packed {name:<28} {results['variants'][name]['pack_s']:6.1f} s  "
                f"{results['variants'][name]['size_mib']:6.2f} MiB",
                flush=True,
            )
        src_mib = sum(os.path.getsize(p) for p in paths.values()) / 2**20

        # -- load time ----------------------------------------------------
        def load_ms(make) -> float:
            ts = []
            for _ in range(args.loads):
                t0 = time.perf_counter()
                p = make()
                ts.append(time.perf_counter() - t0)
                del p
            return 1000 * _bench.median(ts)

        loads = [
            [
                "loose .onnx files (runtime level all)",
                load_ms(lambda: edgeocr.Predictor(**paths, threads=args.threads)),
            ],
            [
                "bundle, graphs as exported (all)",
                load_ms(
                    lambda: predictor_from_bundle(
                        files["fp32 (graphs as exported)"], threads=args.threads
                    )
                ),
            ],
            [
                "bundle, optimised offline (all)",
                load_ms(lambda: predictor_from_bundle(files["fp32"], threads=args.threads)),
            ],
        ]
        from edgeocr.pack import load_bundle, predictor_from_models

        def from_bundle_at(level):
            with load_bundle(files["fp32"]) as b:
                return predictor_from_models(
                    b.models, b.charset, b.config, threads=args.threads, optimization=level
                )

        loads.append(
            ["bundle, optimised offline (extended)", load_ms(lambda: from_bundle_at("extended"))]
        )
        base = loads[0][1]
        print("\n== load: Predictor construction, median of", args.loads, "==")
        print(
            _bench.table(
                ["variant", "ms", "vs loose"], [[n, v, _bench.ratio(v, base)] for n, v in loads]
            )
        )
        results["load_ms"] = {n: v for n, v in loads}

        # -- accuracy and latency -----------------------------------------
        preds = {"loose fp32 (baseline)": edgeocr.Predictor(**paths, threads=args.threads)}
        preds["fp32, runtime level extended"] = from_bundle_at("extended")
        for name in variants:
            if name != "fp32 (graphs as exported)":
                preds[name] = predictor_from_bundle(files[name], threads=args.threads)
        imgs = [s["path"] for s in eval_samples]
        times = {n: [] for n in preds}
        outs = {n: [] for n in preds}
        for p in preds.values():
            p.predict(imgs[0])  # warm-up
        bar = V.Progress("eval", len(imgs) * len(preds), True if sys.stderr.isatty() else None)
        for k, im in enumerate(imgs):  # interleaved so load changes hit every variant alike
            order = list(preds) if k % 2 == 0 else list(reversed(preds))
            for n in order:
                best = float("inf")
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    r = preds[n].predict(im)
                    best = min(best, time.perf_counter() - t0)
                outs[n].append(r)
                times[n].append(best)
                bar.step()
        rows = []
        base_acc = V.accuracy(eval_samples, outs["loose fp32 (baseline)"])
        base_lat = 1000 * sum(times["loose fp32 (baseline)"]) / len(imgs)
        for n in preds:
            acc = V.accuracy(eval_samples, outs[n])
            lat = 1000 * sum(times[n]) / len(imgs)
            agree = V.line_agreement(outs["loose fp32 (baseline)"], outs[n])["share_unchanged"]
            size = (
                results["variants"]
                .get(n, {})
                .get("size_mib", src_mib if n.startswith("loose") else float("nan"))
            )
            rows.append(
                [
                    n,
                    f"{size:.2f}",
                    f"{acc['det_hmean']:.4f}",
                    f"{acc['one_minus_ned']:.4f}",
                    f"{acc['e2e_hmean']:.4f}",
                    f"{100 * agree:.1f}",
                    lat,
                    _bench.ratio(lat, base_lat),
                ]
            )
            results["variants"].setdefault(n, {}).update(
                accuracy=acc, latency_ms=lat, lines_unchanged=agree
            )
        print(
            f"\n== accuracy and latency: {len(imgs)} images of {os.path.basename(args.dataset)}, "
            f"threads={args.threads}; ms/img: mean over images of the fastest of "
            f"{args.repeats} runs =="
        )
        print(
            _bench.table(
                ["variant", "MiB", "det_hmean", "1-NED", "e2e_hmean", "same%", "ms/img", "vs fp32"],
                rows,
            )
        )
        results["baseline_accuracy"] = base_acc
    _bench.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
