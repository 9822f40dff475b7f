#!/usr/bin/env python3
"""Which lines should the recheck model read again? A sweep of triggers on the dev set.

    python benchmarks/recheck_triggers.py [--set ppocr-v6-tiny-recheck] [--save readings.json]
    python benchmarks/recheck_triggers.py --readings readings.json   # the sweep again, no OCR

Two runs of the set read every dev page: the rec model alone (rec_recheck_below=0) and the
recheck model on every line (rec_recheck_below=1), both with drop_score=0 so that no line is
dropped before the trigger is applied. Their lines have the same boxes (the same det and cls),
so any trigger can be applied afterwards, line by line: the recheck model's reading where it
fires, the rec model's elsewhere, then drop_score. A real run reads the lines it rechecks in
batches of their own (other padding), so a row is close to, not equal to, a run with that
trigger: the "score < 0.95" row (the default) was 0.03 line accuracy from benchmarks/recheck.py's
run of the set (94.22 against 94.19, 1-NED and det H equal) on 2026-12-02.

"rechecked" is the share of characters (rec's reading; an empty line counts one) the trigger
sends to the recheck model: the recheck model's extra time is about that share of its time on
every line (the "always" row's rec time minus the "never" row's).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ladder import dev_dir  # noqa: E402


def collect(set_name: str, threads: int) -> dict:
    import edgeocr
    from edgeocr import evaluate
    from edgeocr.image_io import load_image

    samples = evaluate.load_e2e(dev_dir())
    out = {}
    for name, below in (("rec", 0.0), ("recheck", 1.0)):
        p = edgeocr.Predictor(set_name, threads=threads, rec_recheck_below=below, drop_score=0.0)
        pages, rec_s = {}, 0.0
        t0 = time.perf_counter()
        for s in samples:
            r = p.predict(load_image(s["path"]))
            rec_s += r.timings.get("rec", 0.0)
            pages[s["id"]] = [
                {
                    "box": ln.box.tolist(),
                    "text": ln.text,
                    "score": ln.score,
                    "words": [w.score for w in ln.words],
                }
                for ln in r.lines
            ]
        out[name] = pages
        out[name + "_seconds"] = {"wall": time.perf_counter() - t0, "rec": rec_s}
        print(
            f"{name}: {len(samples)} pages in {out[name + '_seconds']['wall']:.1f} s "
            f"(rec {rec_s:.1f} s), load {os.getloadavg()}",
            flush=True,
        )
        del p
    return out


def _key(box) -> tuple:
    return tuple(round(v, 1) for pt in box for v in pt)


def sweep(readings: dict, drop_score: float) -> list:
    from edgeocr import evaluate

    samples = evaluate.load_e2e(dev_dir())
    pairs = {}
    for s in samples:
        a = {_key(ln["box"]): ln for ln in readings["rec"][s["id"]]}
        b = {_key(ln["box"]): ln for ln in readings["recheck"][s["id"]]}
        # The recheck run's reading order, then lines only rec read (none when boxes match).
        pairs[s["id"]] = [(a.get(k), b.get(k)) for k in [*b, *(k for k in a if k not in b)]]

    def apply(trigger) -> tuple:
        lines, n_chars, n_sent = {}, 0, 0
        for sid, rows in pairs.items():
            kept = []
            for ra, rb in rows:
                # A line rec read as empty (dropped by the pipeline) scores 0: always sent.
                first = ra or {"text": "", "score": 0.0, "words": []}
                n = len(first["text"]) or 1
                n_chars += n
                pick = first
                if trigger(first):
                    n_sent += n
                    pick = rb or {"text": "", "score": 0.0}
                if pick["text"] and pick["score"] >= drop_score:
                    box = (ra or rb)["box"]
                    kept.append({"box": box, "text": pick["text"], "score": pick["score"]})
            lines[sid] = kept
        return evaluate.evaluate_e2e(samples, lines)["all"], n_sent / max(1, n_chars)

    def min_word(ln) -> float:
        return min(ln["words"]) if ln["words"] else ln["score"]

    triggers = [("never", lambda ln: False), ("always", lambda ln: True)]
    for t in (0.9, 0.95, 0.97, 0.98, 0.99):
        triggers.append((f"score < {t}", lambda ln, t=t: ln["score"] < t))
    for w in (0.9, 0.95, 0.97):
        triggers.append((f"a word's score < {w}", lambda ln, w=w: min_word(ln) < w))
    for t, w in ((0.95, 0.9), (0.97, 0.9), (0.97, 0.95)):
        name = f"score < {t} or a word's < {w}"
        triggers.append((name, lambda ln, t=t, w=w: ln["score"] < t or min_word(ln) < w))
    rows = []
    for name, trig in triggers:
        a, share = apply(trig)
        rows.append({"trigger": name, "rechecked": share, **{k: a[k] for k in METRICS}})
    return rows


METRICS = ("one_minus_ned", "det_hmean", "line_acc", "line_acc_ws")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--set", default="ppocr-v6-tiny-recheck", help="a set with a recheck model")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--readings", help="the readings of an earlier run (--save): no OCR")
    ap.add_argument("--save", help="write the two runs' readings here")
    ap.add_argument("--drop-score", type=float, default=0.5, help="the set's drop_score")
    args = ap.parse_args(argv)

    if args.readings:
        readings = json.loads(Path(args.readings).read_text())
    else:
        readings = collect(args.set, args.threads)
        if args.save:
            Path(args.save).write_text(json.dumps(readings))
    print(f"\n{args.set} on the dev set, drop_score {args.drop_score}:\n")
    print("| trigger | 1-NED | det H | line acc | line acc (ws) | rechecked |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in sweep(readings, args.drop_score):
        print(
            f"| {r['trigger']} | {100 * r['one_minus_ned']:.2f} | {100 * r['det_hmean']:.2f} | "
            f"{100 * r['line_acc']:.2f} | {100 * r['line_acc_ws']:.2f} | "
            f"{100 * r['rechecked']:.1f}% |"
        )
    for name in ("rec", "recheck"):
        s = readings.get(name + "_seconds")
        if s:
            print(f"{name} on every line: rec stage {s['rec']:.1f} s of {s['wall']:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
