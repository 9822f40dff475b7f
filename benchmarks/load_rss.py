#!/usr/bin/env python3
"""Peak RSS of building a Predictor: loose model files vs a .eocr bundle of the same models.

    python benchmarks/load_rss.py [--models ppocr-v4-mobile] [--repeats 3]
                                  [--image tests/data/sample_en.png] [--nb DIR]

Packs the model set once (stored as given: no quantization, no offline
optimisation) into a temporary folder, then for each source runs a fresh
Python process that imports edgeocr, builds the Predictor and reads its peak
RSS (VmHWM) after construction and after one predict(). The import alone
is measured the same way and shown as the baseline. Sources alternate, each
--repeats times; the median is printed. Memory figures do not depend on the
machine's load.

With --nb DIR (det_x86.nb, cls_x86.nb, rec_x86.nb made by paddle_lite_opt from
the same models, e.g. ../shared/fixtures/paddle_lite/nb), the .nb files are
loaded too, with an empty translation cache (cold) and with a warm one. Their
rec model has a fixed 48x320 input, so every source then runs with
rec_width_buckets=(320,), rec_batch=1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys
import edgeocr
from edgeocr import _runtime
_runtime.configure(None)
kind, src, image = sys.argv[1], sys.argv[2], sys.argv[3]
def status(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key)) / 1024
# VmHWM: this process's peak since exec (ru_maxrss would include the parent's pages at fork).
rss = lambda: status("VmHWM")
now = lambda: status("VmRSS")
out = {"import": rss(), "import_now": now()}
if kind != "import":
    settings = json.loads(sys.argv[4])
    if kind in ("loose", "nb"):
        paths = json.loads(src)
        keys = paths.pop("keys", None)
        p = edgeocr.Predictor(**paths, keys=keys, threads=1, **settings)
    else:
        p = edgeocr.Predictor(src, threads=1, **settings)
    out["load"] = rss()
    out["load_now"] = now()
    p.predict(image)
    out["predict"] = rss()
print(json.dumps(out))
"""


def run(kind: str, src: str, image: str, settings: dict, env: dict | None = None) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, kind, src, image, json.dumps(settings)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="ppocr-v4-mobile")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--nb", default=None, help="folder with det_x86.nb, cls_x86.nb, rec_x86.nb")
    ap.add_argument(
        "--image",
        default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "sample_en.png"),
    )
    args = ap.parse_args()
    from edgeocr.models import resolve_model_set
    from edgeocr.pack import pack

    paths = resolve_model_set(args.models)
    with tempfile.TemporaryDirectory() as tmp:
        bundle = os.path.join(tmp, "set.eocr")
        pack(
            bundle,
            **paths,
            optimize=None,
            measure_latency=False,
            threads=1,
            log=lambda *a, **k: None,
        )
        sources = {
            "import only": ("import", ""),
            "loose files": ("loose", json.dumps(paths)),
            "bundle": ("bundle", bundle),
        }
        settings = {}
        if args.nb:
            import edgeocr

            chars = edgeocr.Model(paths["rec"]).metadata["character"].splitlines()
            nb = {r: os.path.join(args.nb, f"{r}_x86.nb") for r in ("det", "cls", "rec")}
            sources["nb cold"] = ("nb", json.dumps({**nb, "keys": chars}))
            sources["nb cached"] = ("nb", json.dumps({**nb, "keys": chars}))
            settings = {"rec_width_buckets": [320], "rec_batch": 1}
        warm = os.path.join(tmp, "nb-cache-warm")
        runs = {name: [] for name in sources}
        for i in range(args.repeats):
            for name, (kind, src) in sources.items():
                env = None
                if name == "nb cold":
                    env = {"EDGEOCR_CACHE_DIR": os.path.join(tmp, f"nb-cache-cold-{i}")}
                elif name == "nb cached":
                    env = {"EDGEOCR_CACHE_DIR": warm}
                    if i == 0:
                        run(kind, src, args.image, settings, env)  # fills the cache
                runs[name].append(run(kind, src, args.image, settings, env))
    total = sum(os.path.getsize(p) for p in paths.values()) / 2**20
    print(
        f"{args.models}: model files {total:.1f} MiB; peak RSS (MiB, median of {args.repeats} "
        "fresh processes)" + (f"; settings {settings}" if settings else "")
    )
    print(
        f"{'source':<12} {'peak: import':>13} {'load':>6} {'predict':>8}   {'RSS now: import':>15} "
        f"{'load':>6}"
    )
    for name, rs in runs.items():
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        nan = float("nan")
        print(
            f"{name:<12} {med['import']:>13.0f} {med.get('load', nan):>6.0f} "
            f"{med.get('predict', nan):>8.0f}   "
            f"{med['import_now']:>15.0f} {med.get('load_now', nan):>6.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
