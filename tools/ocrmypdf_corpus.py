#!/usr/bin/env python3
"""OCRmyPDF's own test PDFs through `ocrmypdf --plugin edgeocr.ocrmypdf`: which come back
searchable.

    pip download --no-binary :all: --no-deps ocrmypdf==17.13.0 -d /tmp/om   # its sdist
    python tools/ocrmypdf_corpus.py /tmp/om/ocrmypdf-17.13.0.tar.gz [--json F] [--timeout 600]
    python tools/ocrmypdf_corpus.py FOLDER_OF_PDFS ...
    python tools/ocrmypdf_corpus.py ... --tesseract     # the same with OCRmyPDF's own Tesseract

Each PDF of the sdist's tests/resources (or of the folder) is run through OCRmyPDF with the
plugin, one worker, ``--skip-text`` (pages that have text are kept as they are, the others
read) and ``--output-type pdf``, with Tesseract off PATH (the plugin must not need it). A file
comes back searchable when OCRmyPDF exits 0 and poppler's pdftotext finds text in the output.
OCRmyPDF's test set holds files made to fail (encrypted, damaged, unsupported) and pages with
no text to find (blank, a painting): the table gives each file's exit status and OCRmyPDF's last
line, and ``--tesseract`` runs the same files through OCRmyPDF's own engine (Tesseract on PATH),
so a miss of edgeocr's can be told from a file that OCRmyPDF refuses or that has no text.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path


def pdfs_of(source: Path, into: Path) -> list[Path]:
    """The test PDFs of an OCRmyPDF sdist (extracted into ``into``), or a folder's PDFs."""
    if source.is_dir():
        return sorted(source.glob("*.pdf"))
    with tarfile.open(source) as tar:
        members = [
            m
            for m in tar.getmembers()
            if m.isfile() and "/tests/resources/" in m.name and m.name.endswith(".pdf")
        ]
        for m in members:
            data = tar.extractfile(m).read()
            (into / Path(m.name).name).write_bytes(data)
    return sorted(into.glob("*.pdf"))


def path_without_tesseract(bin_dir: Path) -> str:
    """Ghostscript and qpdf (what OCRmyPDF may run) and this Python, but no tesseract."""
    for name in ("gs", "qpdf"):
        found = shutil.which(name)
        if found:
            os.symlink(found, bin_dir / name)
    return f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}"


def text_chars(pdf: Path) -> int:
    p = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, timeout=120)
    return len("".join(p.stdout.split())) if p.returncode == 0 else -1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="an OCRmyPDF sdist (.tar.gz) or a folder of PDFs")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per file")
    ap.add_argument("--model", help="--edgeocr-model (default: edgeocr's default set)")
    ap.add_argument("--json", help="write every file's outcome here")
    ap.add_argument(
        "--tesseract", action="store_true", help="OCRmyPDF's own engine instead of the plugin"
    )
    args = ap.parse_args(argv)
    if shutil.which("pdftotext") is None:
        print("pdftotext is needed (apt-get install poppler-utils)", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="edgeocr-om-corpus-"))
    try:
        files = pdfs_of(args.source, work)
        bin_dir = work / "bin"
        bin_dir.mkdir()
        env = dict(os.environ)
        if not args.tesseract:
            env["PATH"] = path_without_tesseract(bin_dir)
        rows = []
        for pdf in files:
            out = work / f"{pdf.stem}.ocr.pdf"
            cmd = [sys.executable, "-m", "ocrmypdf", "--jobs", "1", "--skip-text"]
            cmd += ["--output-type", "pdf"]
            if not args.tesseract:
                cmd += ["--plugin", "edgeocr.ocrmypdf"]
            if args.model and not args.tesseract:
                cmd += ["--edgeocr-model", args.model]
            t0 = time.perf_counter()
            try:
                p = subprocess.run(
                    [*cmd, str(pdf), str(out)],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    env=env,
                )
                rc, last = p.returncode, (p.stderr.strip().splitlines() or [""])[-1]
            except subprocess.TimeoutExpired:
                rc, last = None, f"timed out after {args.timeout:g} s"
            seconds = time.perf_counter() - t0
            chars = text_chars(out) if rc == 0 and out.exists() else 0
            row = {
                "file": pdf.name,
                "exit": rc,
                "seconds": round(seconds, 1),
                "text_chars": chars,
                "searchable": rc == 0 and chars > 0,
                "last_line": last[-300:],
            }
            rows.append(row)
            print(
                f"{pdf.name:<40} exit {rc!s:>4} {seconds:6.1f} s  text {chars:6d}  "
                f"{'searchable' if row['searchable'] else '-'}  {last[-100:] if rc else ''}",
                flush=True,
            )
        good = sum(r["searchable"] for r in rows)
        print(f"\n{good} of {len(rows)} files came back searchable")
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"source": str(args.source), "files": rows}, f, indent=1)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
