#!/usr/bin/env python3
"""A scanned PDF to a searchable PDF: edgeocr vs OCRmyPDF + Tesseract, same file, same threads.

    python benchmarks/documents.py [--pages 20] [--threads 2] [--rounds 2] [--dpi 200]
                                   [--json out.json]

The input is made here: --pages English dev pages (../shared/datasets/dev, the *_en_* pages,
repeated if fewer) as JPEG images in one PDF at 200 dpi (Pillow's PDF writer, as a scanner
writes them), so every contender reads the same pixels (edgeocr renders at 200 dpi, OCRmyPDF
at the images' own resolution).

Contenders, each a fresh process per run (model loading and start-up included, as a user runs
them), run in interleaved rounds (the order rotating each round) on a machine shared with
others, so the ratios of medians are what to read:

* ``edgeocr``: ``edgeocr predict scan.pdf -o out.pdf --threads T`` (pages rendered by PDFium on
  a second thread while the previous one is recognised, T intra-op threads);
* ``ocrmypdf+tesseract``: ``ocrmypdf --jobs T -l eng --output-type pdf --optimize 0``
  (OCRmyPDF's default rasteriser and renderer; T Tesseract workers, each on one thread as
  OCRmyPDF sets them when pages >= jobs; no PDF/A conversion, which would add Ghostscript);
* ``ocrmypdf+edgeocr``: the same OCRmyPDF command with ``--plugin edgeocr.ocrmypdf`` (T
  workers, each a one-thread edgeocr Predictor).

Also printed: each output's characters as poppler's pdftotext reads them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _bench

CONTENDERS = ("edgeocr", "ocrmypdf+tesseract", "ocrmypdf+edgeocr")


def dev_pages(n: int) -> list[Path]:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    images = sorted(
        p
        for p in (root / "datasets" / "dev" / "images").glob("*_en_*")
        if p.suffix in (".png", ".jpg")
    )
    if not images:
        raise SystemExit(f"no dev pages under {root}: set EDGEOCR_SHARED_DIR")
    return [images[i % len(images)] for i in range(n)]


def make_pdf(pages: list[Path], path: Path, dpi: float) -> Path:
    from PIL import Image

    ims = [Image.open(p).convert("RGB") for p in pages]
    ims[0].save(path, "PDF", save_all=True, append_images=ims[1:], resolution=dpi, quality=90)
    return path


def command(name: str, src: Path, out: Path, threads: int, dpi: float) -> list[str]:
    if name == "edgeocr":
        return [
            sys.executable, "-m", "edgeocr.cli", "predict", str(src), "-o", str(out),
            "--threads", str(threads), "--dpi", str(dpi),
        ]  # fmt: skip
    cmd = [
        sys.executable, "-m", "ocrmypdf", "--jobs", str(threads), "--output-type", "pdf",
        "--optimize", "0", "--quiet",
    ]  # fmt: skip
    if name == "ocrmypdf+edgeocr":
        cmd += ["--plugin", "edgeocr.ocrmypdf"]
    else:
        cmd += ["-l", "eng"]
    return cmd + [str(src), str(out)]


def cpu_flags() -> str:
    """The SIMD flags of /proc/cpuinfo that matter to ONNX Runtime and Tesseract."""
    try:
        with open("/proc/cpuinfo") as f:
            line = next((ln for ln in f if ln.startswith("flags")), "")
    except OSError:
        return "?"
    keep = ("avx", "fma", "sse4", "f16c", "amx")
    return " ".join(sorted({f for f in line.split(":", 1)[-1].split() if f.startswith(keep)}))


def text_chars(path: Path) -> int:
    p = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True)
    return len("".join(p.stdout.split())) if p.returncode == 0 else -1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--dpi", type=float, default=200.0)
    ap.add_argument("--contenders", default=",".join(CONTENDERS))
    ap.add_argument("--json")
    args = ap.parse_args()
    names = [c for c in args.contenders.split(",") if c]
    for tool in ("pdftotext",):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found: apt-get install poppler-utils")
    info = _bench.machine()
    print(_bench.header(info))
    print("cpu flags:", cpu_flags())
    work = Path(tempfile.mkdtemp(prefix="edgeocr-docbench-"))
    try:
        src = make_pdf(dev_pages(args.pages), work / "scan.pdf", args.dpi)
        print(f"input: {args.pages} pages, {src.stat().st_size / 2**20:.1f} MiB, {args.dpi:g} dpi")
        times: dict[str, list[float]] = {n: [] for n in names}
        chars: dict[str, int] = {}
        loads = []
        for r in range(args.rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                out = work / f"{name}.pdf"
                loads.append(os.getloadavg()[0])
                t0 = time.perf_counter()
                p = subprocess.run(
                    command(name, src, out, args.threads, args.dpi), capture_output=True, text=True
                )
                dt = time.perf_counter() - t0
                if p.returncode != 0:
                    print(f"{name}: exit {p.returncode}\n{p.stderr[-2000:]}")
                    dt = float("nan")
                times[name].append(dt)
                chars[name] = text_chars(out) if out.exists() else -1
                print(f"round {r + 1} {name}: {dt:.1f} s ({args.pages / dt:.2f} pages/s)")
        base = _bench.median(times.get("ocrmypdf+tesseract", [float("nan")]))
        rows = []
        for name in names:
            med = _bench.median(times[name])
            rows.append(
                [
                    name,
                    f"{med:.1f}",
                    f"{args.pages / med:.2f}",
                    _bench.ratio(med, base),
                    str(chars[name]),
                ]
            )
        print(
            _bench.table(
                ["contender", "median s", "pages/s", "time vs ocrmypdf+tesseract", "chars"], rows
            )
        )
        print(f"load average 1 min during runs: {min(loads):.1f}-{max(loads):.1f}")
        _bench.write_json(
            args.json,
            {
                "machine": info,
                "cpu_flags": cpu_flags(),
                "args": vars(args),
                "times": times,
                "chars": chars,
                "load": loads,
            },
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
