#!/usr/bin/env python3
"""Pages in: peak RSS over a long PDF read with Predictor.predict_pages (streaming), and the
default PDF DPI (speed and accuracy at several DPIs).

    python benchmarks/pages_rss.py rss [--pages 200] [--dpi 200]
    python benchmarks/pages_rss.py dpi [--dpis 150,200,300] [--sample 6] [--rounds 2]

rss: a PDF of --pages pages made by Pillow from dev pages (../shared/datasets/dev, cycled;
tests/data pages without it) at 200 dpi, read in a fresh process page by page; VmHWM (the
process's peak RSS) is recorded after each page. Printed: the peak after page 10, 50, 100 and
the last, and last / after-10 (issue 26: within 1.10). Baseline in the same run: the same
pages (the first --baseline-pages, 40) all rendered first and then recognised (what a
non-streaming reader holds).

dpi: dev pages with labels as one PDF (each page at its scan size as 150 dpi), read at each DPI
in alternated rounds; per DPI: time per page (median over rounds) and 1-NED of each labelled
line's text against the best-matching recognised line (the dev set's reading, simplified).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "python"))
import doc_fixtures as docs  # noqa: E402

CHILD = r"""
import json, sys, time
import edgeocr
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM")) / 1024
mode, pdf, dpi, most = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
p = edgeocr.Predictor(threads=2)
out = {"loaded": hwm(), "per_page": []}
t0 = time.perf_counter()
if mode == "stream":
    for r in p.predict_pages(pdf, dpi=dpi):
        assert r.error is None, r.error
        out["per_page"].append(hwm())
        print(json.dumps({"page": r.page + 1, "hwm": out["per_page"][-1]}), flush=True)
else:  # baseline: every page rendered first, then recognised
    import pypdfium2 as pdfium
    doc = pdfium.PdfDocument(pdf)
    imgs = [doc[i].render(scale=dpi / 72).to_numpy().copy() for i in range(min(most, len(doc)))]
    for img in imgs:
        p.predict(img)
        out["per_page"].append(hwm())
        print(json.dumps({"page": len(out["per_page"]), "hwm": out["per_page"][-1]}), flush=True)
out["seconds"] = time.perf_counter() - t0
print(json.dumps(out))
"""


def _pages(n: int, source: str) -> list[Path]:
    src = (docs.shared_dev_pages(12) if source == "dev" else []) or docs.TEST_PAGES
    return [src[i % len(src)] for i in range(n)]


def _child(mode: str, pdf: Path, dpi: float, most: int) -> dict:
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, mode, str(pdf), str(dpi), str(most)],
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        last = ""
        for row in proc.stdout:  # per page, as it comes (a long run on a loaded machine)
            last = row
            r = json.loads(row)
            if "page" in r:
                print(f"  {mode} page {r['page']}: peak RSS {r['hwm']:.0f} MiB", flush=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{mode}: the child exited with {proc.returncode}")
    return json.loads(last)


def cmd_rss(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pdf = docs.pdf_from_images(
            _pages(args.pages, args.source), Path(tmp) / "long.pdf", resolution=args.resolution
        )
        size = pdf.stat().st_size >> 20
        print(f"PDF: {args.pages} pages, {size} MiB; rendered at {args.dpi} dpi")
        print(f"load {open('/proc/loadavg').read().split()[:3]}")
        res = {
            "stream": _child("stream", pdf, args.dpi, args.pages),
            "all-first": _child("all-first", pdf, args.dpi, args.baseline_pages),
        }
    for mode, r in res.items():
        pp = r["per_page"]
        marks = {k: pp[k - 1] for k in (1, 10, 40, 50, 100, len(pp)) if k <= len(pp)}
        print(
            f"{mode:>9}: loaded {r['loaded']:.0f} MiB; peak after page "
            + ", ".join(f"{k}: {v:.0f}" for k, v in marks.items())
            + f" MiB; last / after-10 = {pp[-1] / pp[9]:.3f}; {r['seconds']:.0f} s"
        )
    k = args.baseline_pages
    s, b = res["stream"]["per_page"][k - 1], res["all-first"]["per_page"][k - 1]
    print(f"peak RSS after {k} pages, streaming / all {k} rendered first: {s:.0f} / {b:.0f} MiB")


def _ned(a: str, b: str) -> float:
    if not a and not b:
        return 0.0
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1] / max(len(a), len(b))


def cmd_dpi(args) -> None:
    import edgeocr

    dev = Path(docs.shared_dev_pages(1)[0]).parent.parent if docs.shared_dev_pages(1) else None
    if dev is None:
        sys.exit("needs the shared dev set (../shared/datasets/dev)")
    labels = {}
    for row in (dev / "e2e_synth.jsonl").read_text().splitlines():
        r = json.loads(row)
        if "_en_" in r["file"] or "en" in r.get("tags", []):
            labels[dev / r["file"]] = [ln["text"] for ln in r["lines"] if not ln.get("ignore")]
    files = sorted(labels)[: args.sample]
    dpis = [float(x) for x in args.dpis.split(",")]
    p = edgeocr.Predictor(threads=2)
    times = {d: [] for d in dpis}
    acc = {}
    with tempfile.TemporaryDirectory() as tmp:
        pdf = docs.pdf_from_images(files, Path(tmp) / "dev.pdf", resolution=150)
        print(f"{len(files)} dev pages (English), load {open('/proc/loadavg').read().split()[:3]}")
        for rnd in range(args.rounds):
            for d in dpis if rnd % 2 == 0 else dpis[::-1]:
                t0 = time.perf_counter()
                pages = list(p.predict_pages(pdf, dpi=d))
                times[d].append((time.perf_counter() - t0) / len(pages))
                scores = []
                for r, f in zip(pages, files):
                    got = [ln.text for ln in r.lines]
                    for want in labels[f]:
                        scores.append(1 - min((_ned(want, g) for g in got), default=1.0))
                acc[d] = statistics.mean(scores)
    base = statistics.median(times[dpis[0]])
    for d in dpis:
        t = statistics.median(times[d])
        rel = f"{t / base:.2f}x of {dpis[0]:.0f}"
        print(f"{d:5.0f} dpi: {t:.2f} s/page ({rel}), 1-NED {acc[d]:.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rss")
    r.add_argument("--pages", type=int, default=200)
    r.add_argument("--dpi", type=float, default=200)
    r.add_argument("--baseline-pages", type=int, default=40)
    r.add_argument("--source", choices=("dev", "test"), default="dev", help="dev or test pages")
    r.add_argument("--resolution", type=float, default=200, help="the images' dpi in the PDF")
    d = sub.add_parser("dpi")
    d.add_argument("--dpis", default="150,200,300")
    d.add_argument("--sample", type=int, default=6)
    d.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    flags = set(Path("/proc/cpuinfo").read_text().split("flags", 1)[1].split("\n", 1)[0].split())
    wanted = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "amx_tile")
    print(f"{os.cpu_count()} cpus; flags: {' '.join(f for f in wanted if f in flags)}")
    (cmd_rss if args.cmd == "rss" else cmd_dpi)(args)


if __name__ == "__main__":
    main()
