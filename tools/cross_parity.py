"""The C example on aarch64 (under qemu) gives the x86 answers, on a bundle and on .nb files.

    python tools/cross_parity.py --arm-demo build/aarch64/ocr_demo \\
        --arm-ort libonnxruntime.so.1.22.1 --x86-demo build/ctest/ocr_demo [--nb-dir DIR] IMAGE...

Packs the installed PP-OCRv4 mobile models into a bundle (edgeocr-pack), then
runs both programs on each source: the bundle, and the det/cls/rec .nb files
of --nb-dir for the x86 and the arm target (default: ../shared's Paddle Lite
fixtures). Texts must be equal, scores within 1e-3, box corners within
0.5 px. The aarch64 run translates the .nb files itself (a fresh cache
folder). Called by tools/cross_aarch64.sh; exits 1 on a difference.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "compare_with_python", REPO / "tests" / "c" / "compare_with_python.py"
)
cmp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cmp)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("images", nargs="+")
    ap.add_argument("--arm-demo", required=True)
    ap.add_argument("--arm-ort", required=True, help="aarch64 libonnxruntime.so")
    ap.add_argument("--sysroot", default="/usr/aarch64-linux-gnu")
    ap.add_argument("--x86-demo", required=True)
    ap.add_argument(
        "--nb-dir", default=str(REPO.parent / "shared" / "fixtures" / "paddle_lite" / "nb")
    )
    ap.add_argument("--tol", type=float, default=0.5)
    args = ap.parse_args(argv)

    import edgeocr
    from edgeocr.models import MODEL_SETS
    from edgeocr.pack import pack

    v4 = MODEL_SETS["ppocr-v4-mobile"].paths()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        images = cmp.as_pnm(args.images, tmp)
        bundle = os.path.join(tmp, "v4.eocr")
        pack(
            bundle, det=v4["det"], cls=v4["cls"], rec=v4["rec"], threads=1, log=lambda *a, **k: None
        )
        keys = os.path.join(tmp, "keys.txt")
        with open(keys, "w", encoding="utf-8") as f:
            f.write(edgeocr.Model(v4["rec"]).metadata["character"])
        sources = {"bundle": ["--bundle", bundle]}
        for target in ("x86", "arm"):
            nb = Path(args.nb_dir)
            if (nb / f"det_{target}.nb").exists():
                sources[f".nb ({target} target)"] = [
                    *(
                        a
                        for r in ("det", "cls", "rec")
                        for a in (f"--{r}", str(nb / f"{r}_{target}.nb"))
                    ),
                    "--keys",
                    keys,
                ]
            else:
                print(f"note: no .nb fixtures at {nb}; .nb sources skipped")
        base = {k: v for k, v in os.environ.items() if not k.startswith("EDGEOCR_")}
        x86_env = dict(base, EDGEOCR_ORT_LIBRARY=edgeocr.runtime_info()["library_path"])
        arm_env = dict(
            base, EDGEOCR_ORT_LIBRARY=args.arm_ort, EDGEOCR_CACHE_DIR=os.path.join(tmp, "arm-cache")
        )
        arm = ["qemu-aarch64", "-L", args.sysroot, args.arm_demo]
        print(
            f"{'source':<22} {'images':>6} {'lines':>6} {'max box diff':>13} "
            f"{'x86 s':>7} {'arm s':>7}  result"
        )
        for name, src in sources.items():
            t0 = time.perf_counter()
            a = cmp.run_c(args.x86_demo, ["--threads", "2", *src], images, x86_env)
            t1 = time.perf_counter()
            b = cmp.run_c(arm, ["--threads", "2", *src], images, arm_env)
            t2 = time.perf_counter()
            failures, worst = cmp.compare_runs(a, b, args.tol)
            lines = sum(len(v) for v in a.values())
            ok = not failures and lines > 0
            failed += not ok
            print(
                f"{name:<22} {len(images):>6} {lines:>6} {worst:>10.2f} px "
                f"{t1 - t0:>7.1f} {t2 - t1:>7.1f}  "
                f"{'same' if ok else 'DIFFERENT'}"
            )
            for f in failures[:10]:
                print("   ", f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
