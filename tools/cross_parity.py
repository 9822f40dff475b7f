"""The C example reads the same on aarch64 (qemu) as on x86: fp32, int8 bundles, .nb files.

    python tools/cross_parity.py --arm-demo build/aarch64/ocr_demo --arm-ort ARM_LIB \\
        --x86-demo build/ctest/ocr_demo [--x86-ort X86_LIB] [--models M1,M2] \\
        [--precisions fp32,int8] [--bundle-dir DIR] [--nb-dir DIR] [--json OUT] IMAGE...

For each model set of --models (default: ppocr-v4-mobile and the default
set) it packs an fp32 and an int8 bundle (edgeocr-pack defaults; int8
calibrated on the pages shipped in edgeocr/data/calib; kept in --bundle-dir
and reused when given), then runs the x86 example and the aarch64 example
(qemu-aarch64) on the same images with each bundle, and on the det/cls/rec
.nb files of --nb-dir (../shared's Paddle Lite fixtures) when present.

fp32 (bundles, .nb): texts must be equal, scores within --score-tol (1e-3)
and box corners within --tol px (0.5; the example prints one decimal).
int8: ONNX Runtime's int8 kernels differ between the two (x86: VNNI/AVX2
u8/s8 dot products; aarch64: SDOT/SMMLA), so equal texts are reported, not
required; the aarch64 lines are scored against the x86 lines with the pack
gate's own measure (edgeocr.pack.verify.text_agreement: 1-NED agreement,
lines changed) and must agree to --int8-min-agreement (0.99). Then, for each
fp32 bundle, ONNX Runtime's ARM64 bf16 fast-math GEMM
(ocr_demo --arm64-bf16-fastmath): on aarch64 it must change the outputs
(proof that the session entry reached ONNX Runtime, where the CPU has BF16,
as qemu's does) and still agree with fp32 to --int8-min-agreement; on x86
it must change nothing (ONNX Runtime ignores it there). With ONNX Runtime
1.22.1 it reads nothing (benchmarks/README.md, "aarch64 under qemu").

Timings are printed only to show where the time goes: under qemu they say
nothing about speed on an ARM device. Called by tools/cross_aarch64.sh;
exits 1 when a requirement above fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "compare_with_python", REPO / "tests" / "c" / "compare_with_python.py"
)
cmp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cmp)

DEFAULT_MODELS = "ppocr-v4-mobile,ppocr-v4det-v6rec"


def quiet(*a, **k):
    pass


def make_bundle(model_set: str, precision: str, out: Path, calib: str) -> str:
    """Packs (or reuses) the bundle; returns a note for the report ("" or why it is special)."""
    from edgeocr.models import MODEL_SETS
    from edgeocr.pack import pack
    from edgeocr.pack.errors import AccuracyGateError

    if out.exists():
        return "reused"
    paths = MODEL_SETS[model_set].paths()
    args = {"det": paths["det"], "cls": paths["cls"], "rec": paths["rec"]}
    args.update(threads=2, log=quiet)
    tmp = out.with_suffix(".part")
    if precision == "fp32":
        pack(str(tmp), **args)
        note = ""
    else:
        args.update(quantize="int8", calib=calib, measure_latency=False, progress=False)
        try:
            pack(str(tmp), **args)
            note = "gate passed"
        except AccuracyGateError as e:
            # Cross-architecture parity is still worth knowing for a bundle the gate refuses.
            first = str(e).splitlines()[0]
            print(f"note: {model_set} int8: the pack gate refused ({first}); packed with force")
            pack(str(tmp), force=True, **args)
            note = "gate refused, forced"
    os.replace(tmp, out)
    return note


def as_results(run: dict, images: list[str]) -> list:
    """The example's lines as objects edgeocr.pack.verify reads (.lines: .text, .box, .score)."""
    import numpy as np

    return [
        SimpleNamespace(
            lines=[
                SimpleNamespace(text=t, score=s, box=np.asarray(b, np.float32).reshape(4, 2))
                for t, s, b in run.get(img, [])
            ]
        )
        for img in images
    ]


def agreement(reference: dict, candidate: dict, images: list[str]) -> dict:
    from edgeocr.pack.verify import text_agreement

    return text_agreement(as_results(reference, images), as_results(candidate, images))


def max_diffs(a: dict, b: dict) -> tuple[float, float]:
    """Largest score and box corner differences over lines paired in order (same count only)."""
    ds = db = 0.0
    for img, la in a.items():
        lb = b.get(img, [])
        if len(la) != len(lb):
            continue
        for (_, sa, ba), (_, sb, bb) in zip(la, lb):
            ds = max(ds, abs(sa - sb))
            db = max(db, max(abs(x - y) for x, y in zip(ba, bb)))
    return ds, db


def changed_lines(a: dict, b: dict, limit: int) -> list[str]:
    out = []
    for img in sorted(set(a) | set(b)):
        la, lb = a.get(img, []), b.get(img, [])
        if len(la) != len(lb):
            out.append(f"{os.path.basename(img)}: {len(la)} vs {len(lb)} lines")
            continue
        for i, ((ta, _, _), (tb, _, _)) in enumerate(zip(la, lb)):
            if ta != tb:
                out.append(f"{os.path.basename(img)}: line {i}: {ta!r} vs {tb!r}")
    return out[:limit]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("images", nargs="+")
    ap.add_argument("--arm-demo", required=True)
    ap.add_argument("--arm-ort", required=True, help="aarch64 libonnxruntime.so")
    ap.add_argument("--sysroot", default="/usr/aarch64-linux-gnu")
    ap.add_argument("--x86-demo", required=True)
    ap.add_argument(
        "--x86-ort",
        help="x86 libonnxruntime.so (default: the installed onnxruntime wheel's)",
    )
    ap.add_argument("--models", default=DEFAULT_MODELS, help="model sets, comma-separated")
    ap.add_argument("--precisions", default="fp32,int8", help="fp32 and/or int8")
    ap.add_argument("--bundle-dir", help="keep the bundles here and reuse them")
    ap.add_argument("--calib", default=str(REPO / "edgeocr" / "data" / "calib"))
    ap.add_argument(
        "--nb-dir",
        default=str(REPO.parent / "shared" / "fixtures" / "paddle_lite" / "nb"),
    )
    ap.add_argument("--no-bf16", action="store_true", help="skip the bf16 fast-math rows")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a pipeline setting for both sides (e.g. det_limit_side_len=640: shorter qemu runs)",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tol", type=float, default=0.5, help="box corner tolerance, px (fp32)")
    ap.add_argument("--score-tol", type=float, default=1e-3, help="score tolerance (fp32)")
    ap.add_argument("--int8-min-agreement", type=float, default=0.99)
    ap.add_argument("--show", type=int, default=8, help="changed lines printed per row")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)

    import edgeocr

    precisions = [p for p in args.precisions.split(",") if p]
    if not set(precisions) <= {"fp32", "int8"}:
        ap.error(f"--precisions: fp32 and/or int8, got {args.precisions!r}")
    failed = 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        bundle_dir = Path(args.bundle_dir or tmp)
        bundle_dir.mkdir(parents=True, exist_ok=True)
        images = cmp.as_pnm(args.images, tmp)
        # (name, kind, example arguments)
        sources = []
        notes = {}
        for m in [m for m in args.models.split(",") if m]:
            for p in precisions:
                path = bundle_dir / f"{m}-{p}.eocr"
                t0 = time.perf_counter()
                note = make_bundle(m, p, path, args.calib)
                print(f"bundle {path.name}: {note or 'packed'} ({time.perf_counter() - t0:.0f} s)")
                notes[f"{m} {p}"] = note
                sources.append((f"{m} {p}", p, ["--bundle", str(path)]))
        v4 = None
        for target in ("x86", "arm"):
            nb = Path(args.nb_dir)
            if not (nb / f"det_{target}.nb").exists():
                print(f"note: no .nb fixtures at {nb}; .nb sources skipped")
                break
            if v4 is None:
                from edgeocr.models import MODEL_SETS

                v4 = os.path.join(tmp, "keys.txt")
                rec = MODEL_SETS["ppocr-v4-mobile"].paths()["rec"]
                with open(v4, "w", encoding="utf-8") as f:
                    f.write(edgeocr.Model(rec).metadata["character"])
            files = [
                a for r in ("det", "cls", "rec") for a in (f"--{r}", str(nb / f"{r}_{target}.nb"))
            ]
            sources.append((f".nb ({target} target)", "fp32", [*files, "--keys", v4]))

        base = {k: v for k, v in os.environ.items() if not k.startswith("EDGEOCR_")}
        x86_ort = args.x86_ort or edgeocr.runtime_info()["library_path"]
        x86_env = dict(base, EDGEOCR_ORT_LIBRARY=x86_ort)
        arm_env = dict(
            base,
            EDGEOCR_ORT_LIBRARY=args.arm_ort,
            EDGEOCR_CACHE_DIR=os.path.join(tmp, "arm-cache"),
        )
        arm = ["qemu-aarch64", "-L", args.sysroot, args.arm_demo]
        threads = ["--threads", str(args.threads), *(a for kv in args.set for a in ("--set", kv))]
        print(f"x86 ONNX Runtime: {x86_ort}\naarch64 ONNX Runtime: {args.arm_ort}")
        print(
            f"{'source':<30} {'comparison':<22} {'lines':>5} {'changed':>7} {'1-NED':>7} "
            f"{'max score':>9} {'max box':>8} {'x86 s':>6} {'arm s':>6}  result"
        )

        def report(name, what, a, b, ok, secs=(None, None), extra=None):
            nonlocal failed
            ag = agreement(a, b, images)
            ds, db = max_diffs(a, b)
            ok = ok(ag, ds, db)
            failed += not ok
            xs, ys = (f"{s:6.1f}" if s is not None else f"{'':6}" for s in secs)
            print(
                f"{name:<30} {what:<22} {ag['lines']:>5} {ag['lines_changed']:>7} "
                f"{ag['one_minus_ned']:>7.4f} {ds:>9.4f} {db:>6.1f}px {xs} {ys}  "
                f"{'ok' if ok else 'FAILED'}"
            )
            for line in changed_lines(a, b, args.show):
                print("    ", line)
            rows.append(
                dict(
                    source=name,
                    comparison=what,
                    **ag,
                    max_score_diff=ds,
                    max_box_diff_px=db,
                    ok=ok,
                    **(extra or {}),
                )
            )

        def exact(ag, ds, db):
            return (
                ag["lines"] > 0
                and ag["lines_changed"] == 0
                and ds <= args.score_tol
                and db <= args.tol
            )

        def close(ag, ds, db):
            return ag["lines"] > 0 and ag["one_minus_ned"] >= args.int8_min_agreement

        def changed(ag, ds, db):  # reached ORT (something moved) and still reads the page
            moved = ds > 0 or db > 0 or ag["lines_changed"] > 0
            return moved and ag["one_minus_ned"] >= args.int8_min_agreement

        fp32_runs, raw = {}, {}
        for name, kind, src in sources:
            t0 = time.perf_counter()
            a = cmp.run_c(args.x86_demo, [*threads, *src], images, x86_env)
            t1 = time.perf_counter()
            b = cmp.run_c(arm, [*threads, *src], images, arm_env)
            t2 = time.perf_counter()
            rule = exact if kind == "fp32" else close
            report(
                name,
                "aarch64 vs x86",
                a,
                b,
                rule,
                (t1 - t0, t2 - t1),
                {"note": notes.get(name, "")},
            )
            fp32_runs[name] = (a, b)
            raw[f"{name} x86"], raw[f"{name} aarch64"] = a, b
            if kind == "int8":
                fp = fp32_runs.get(name.replace(" int8", " fp32"))
                if fp:  # what int8 costs against fp32, on each side (the gate's measure)
                    report(name, "int8 vs fp32, x86", fp[0], a, lambda *_: True)
                    report(name, "int8 vs fp32, aarch64", fp[1], b, lambda *_: True)
        if not args.no_bf16:
            for name, kind, src in sources:
                if kind != "fp32" or not name.endswith(" fp32"):
                    continue
                a, b = fp32_runs[name]
                t0 = time.perf_counter()
                a16 = cmp.run_c(
                    args.x86_demo,
                    [*threads, "--arm64-bf16-fastmath", *src],
                    images,
                    x86_env,
                )
                t1 = time.perf_counter()
                b16 = cmp.run_c(arm, [*threads, "--arm64-bf16-fastmath", *src], images, arm_env)
                raw[f"{name} bf16 x86"], raw[f"{name} bf16 aarch64"] = a16, b16
                t2 = time.perf_counter()
                report(
                    f"{name} + bf16",
                    "x86: bf16 vs fp32",
                    a,
                    a16,
                    exact,
                    (t1 - t0, None),
                )
                # It must change something on aarch64 (else the entry did not reach ORT).
                report(
                    f"{name} + bf16",
                    "aarch64: bf16 vs fp32",
                    b,
                    b16,
                    changed,
                    (None, t2 - t1),
                )
    print(
        "timings: seconds per row for all images, one process each; under qemu they say nothing "
        "about speed on an ARM device"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "images": [os.path.basename(i) for i in args.images],
                    "x86_ort": x86_ort,
                    "arm_ort": args.arm_ort,
                    "settings": args.set,
                    "rows": rows,
                    # every run's lines: {run: {image: [[text, score, box]]}}
                    "runs": {
                        k: {os.path.basename(i): v for i, v in r.items()} for k, r in raw.items()
                    },
                },
                f,
                indent=1,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
