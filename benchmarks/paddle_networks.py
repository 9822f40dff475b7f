#!/usr/bin/env python3
"""The same PP-OCR networks in Paddle Inference and in edgeocr (ONNX Runtime C API), per network.

    python benchmarks/paddle_networks.py PADDLE_DIR [--runs 15] [--threads 1] [--json out.json]

PADDLE_DIR holds Paddle inference model folders det/, cls/, rec/ (e.g. made by
``python tools/paddle_ocr_nets.py --size ppocr --role det --role cls --role rec --out DIR``:
PP-OCRv4-mobile-sized architectures with seeded random weights). Each is converted once
with paddle2onnx (edgeocr.pack.paddle.convert) and run as:

* ``edgeocr``: ``edgeocr.Model`` on the converted ONNX (the C++ core's session);
* ``paddle ir=on/off mkldnn=on/off``: Paddle Inference on the Paddle files, IR
  optimisation and oneDNN each on and off (a configuration Paddle cannot run is listed
  with its error).

Inputs: det 1x3x640x640, cls 6x3x48x192, rec 6x3x48x320 (seeded uniform values). Every
contender lives in this process and they are called in turn on the same input, the order
reversed every round; the table gives the median per call and the ratio to edgeocr from
these interleaved runs (the machine may be loaded by others: compare ratios, not times).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

SHAPES = {"det": (1, 3, 640, 640), "cls": (6, 3, 48, 192), "rec": (6, 3, 48, 320)}
CONFIGS = [(True, False), (False, False), (True, True), (False, True)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paddle_dir")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--roles", default="det,cls,rec")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)

    import edgeocr
    from edgeocr.pack import paddle as P

    results = []
    for role in [r.strip() for r in args.roles.split(",") if r.strip()]:
        model = P.find_model(os.path.join(args.paddle_dir, role))
        onnx_bytes = P.convert(model)
        x = np.random.default_rng(0).uniform(-1, 1, SHAPES[role]).astype(np.float32)
        eo = edgeocr.Model(data=onnx_bytes, threads=args.threads)
        in_name = eo.inputs[0].name
        runners = {"edgeocr": lambda eo=eo, feed={in_name: x}: eo.run(feed)}
        failed = {}
        for ir, mk in CONFIGS:
            name = f"paddle ir={'on' if ir else 'off'} mkldnn={'on' if mk else 'off'}"
            try:
                r = P.PaddleRunner(model, ir_optim=ir, mkldnn=mk, threads=args.threads)
                r.run(x)
                runners[name] = lambda r=r, x=x: r.run(x)
            except Exception as e:  # noqa: BLE001 - reported in the table
                failed[name] = str(e).strip().splitlines()[0][:160]
        names = list(runners)
        for _ in range(args.warmup):
            for n in names:
                runners[n]()
        times = {n: [] for n in names}
        for k in range(args.runs):
            for n in names if k % 2 == 0 else names[::-1]:
                t0 = time.perf_counter()
                runners[n]()
                times[n].append(1000 * (time.perf_counter() - t0))
        med = {n: float(np.median(v)) for n, v in times.items()}
        for n in names:
            results.append(
                {
                    "network": role,
                    "input": list(SHAPES[role]),
                    "runtime": n,
                    "median_ms": med[n],
                    "x_edgeocr": med[n] / med["edgeocr"],
                }
            )
        for n, why in failed.items():
            results.append({"network": role, "runtime": n, "error": why})

    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}  threads={args.threads}  runs={args.runs} "
        f"interleaved  load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'network':<8}{'runtime':<30}{'median ms':>10}{'x edgeocr':>11}")
    for r in results:
        if "error" in r:
            print(f"{r['network']:<8}{r['runtime']:<30}  cannot run: {r['error']}")
        else:
            print(
                f"{r['network']:<8}{r['runtime']:<30}{r['median_ms']:>10.1f}{r['x_edgeocr']:>10.2f}x"
            )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"threads": args.threads, "runs": args.runs, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
