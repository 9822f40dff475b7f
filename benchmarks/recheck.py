#!/usr/bin/env python3
"""Model sets (with settings) on the dev set: accuracy, and where the time goes (det / rec).

    python benchmarks/recheck.py [--every 1] [--threads 2] SET[+key=value...] ...

    python benchmarks/recheck.py ppocr-v4det-v6rec ppocr-v6-tiny ppocr-v6-tiny-recheck \
        ppocr-v6-tiny-recheck+rec_recheck_below=0.97 ppocr-v4det-v6tinyrec-recheck

Each set reads every --every th dev page in turn, in this process (one warm-up call first), and
is scored with edgeocr.evaluate.evaluate_e2e (1-NED, det H-mean, line accuracy with and without
spaces). The stage times are the pipeline's own (OcrResult.timings), summed over the pages: only
ratios between rows of one run mean anything on a shared machine. This is how the default set
was chosen (docs/model-ladder.md, "Recheck").
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import dev_dir  # noqa: E402


def parse_value(text: str):
    if "," in text:
        return tuple(int(x) for x in text.split(","))
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("sets", nargs="+", help="SET or SET+key=value+... ('default': Predictor())")
    ap.add_argument("--every", type=int, default=1, help="read every K-th dev page")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)

    import edgeocr
    from edgeocr import evaluate
    from edgeocr.image_io import load_image

    samples = evaluate.load_e2e(dev_dir())[:: max(1, args.every)]
    images = [load_image(s["path"]) for s in samples]
    print(f"{len(samples)} dev pages, {args.threads} threads, load {os.getloadavg()}", flush=True)
    for spec in args.sets:
        name, *pairs = spec.split("+")
        settings = {k: parse_value(v) for k, v in (p.split("=", 1) for p in pairs)}
        p = edgeocr.Predictor(None if name == "default" else name, threads=args.threads, **settings)
        p.predict(images[0])
        stages = {"det": 0.0, "rec": 0.0}
        lines = {}
        t0 = time.perf_counter()
        for s, img in zip(samples, images):
            r = p.predict(img)
            for k in stages:
                stages[k] += r.timings.get(k, 0.0)
            lines[s["id"]] = [
                {"box": ln.box.tolist(), "text": ln.text, "score": ln.score} for ln in r.lines
            ]
        wall = time.perf_counter() - t0
        a = evaluate.evaluate_e2e(samples, lines)["all"]
        print(
            f"{spec:48s} wall {wall:7.1f} s  det {stages['det']:6.1f}  rec {stages['rec']:6.1f} | "
            f"1-NED {100 * a['one_minus_ned']:.2f}  det H {100 * a['det_hmean']:.2f}  "
            f"line acc {100 * a['line_acc']:.2f}  ws {100 * a['line_acc_ws']:.2f}",
            flush=True,
        )
        del p
        gc.collect()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
