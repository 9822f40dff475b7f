"""Peak RSS of whole-page OCR per model set, side by side, one fresh process per set.

    python benchmarks/peak_rss_models.py --sets ppocr-v4-mobile,ppocr-v4det-v6rec --largest 6

Reads the N largest pages of the dev set (../shared/datasets/dev, or --dev DIR) in one
process per model set and prints the lines read and the process's peak RSS (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_CHILD = """
import json, resource, sys
import edgeocr
model, files = sys.argv[1], json.loads(sys.argv[2])
p = edgeocr.Predictor(models=model)
lines = sum(len(p.predict(f).lines) for f in files)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"lines": lines, "peak_rss_mib": peak}))
"""


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="ppocr-v4-mobile,ppocr-v4det-v6rec")
    ap.add_argument("--largest", type=int, default=6)
    ap.add_argument("--dev", default=os.path.join(here, "..", "..", "shared", "datasets", "dev"))
    args = ap.parse_args()
    with open(os.path.join(args.dev, "e2e_synth.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    rows.sort(key=lambda r: -r["width"] * r["height"])
    files = [os.path.join(args.dev, r["file"]) for r in rows[: args.largest]]
    print(f"{len(files)} largest dev pages, one process per model set")
    print(f"{'model set':<22} {'lines':>6} {'peak RSS MiB':>13}")
    for m in args.sets.split(","):
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, m, json.dumps(files)], capture_output=True, text=True
        )
        if out.returncode:
            print(f"{m:<22} failed: {out.stderr.strip().splitlines()[-1]}")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{m:<22} {r['lines']:>6} {r['peak_rss_mib']:>13.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
