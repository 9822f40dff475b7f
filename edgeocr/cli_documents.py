"""`edgeocr predict` on documents (PDF, multi-page TIFF): what becomes of a page's text layer, in
words, and every input's pages written as one document (``--format`` / ``-o``). The command
line's side of edgeocr/documents/, which writes the documents."""

from __future__ import annotations

import itertools
import sys

from .documents.pages import text_note
from .errors import EdgeOCRError


def say_text_layer(source, r) -> None:
    """On stderr: what became of a PDF page that already had text (nothing for other pages)."""
    note = text_note(r)
    if note:
        print(f"{source}: page {r.page + 1} {note}", file=sys.stderr)


def write_documents(args, predictor, files: list[str]) -> int:
    """`edgeocr predict ... --format F -o OUT`: every input's pages, in order, as one document.
    A document that cannot be opened is reported and left out; a page that fails is reported
    and kept without text. Returns the exit status (0, or 1 when something failed)."""
    # The writers (XML, PDF: ~0.07 s to import) only when a document is written.
    from .documents.output import BLOCK_FORMATS, PARSED_FORMATS, format_for, write_document

    out = args.output or "-"
    fmt = format_for(out, args.format or ("jsonl" if args.json else None))
    failures = 0
    draw = getattr(args, "draw", None)
    # --draw DIR: each page drawn (documents/drawings.py); with a layout model, the parsed page.
    blocks = fmt in BLOCK_FORMATS or draw
    parse = fmt in PARSED_FORMATS or (blocks and "layout" in predictor.roles)
    read = predictor.parse_pages if parse else predictor.predict_pages
    drawings = None
    if draw:
        from .documents.drawings import drawing_folder

        drawings = drawing_folder(draw, getattr(args, "password", None), predictor)

    def pages_of(path):
        nonlocal failures
        try:
            return read(
                path,
                getattr(args, "pages", None),
                dpi=getattr(args, "dpi", None),
                password=getattr(args, "password", None),
                skip_text=getattr(args, "skip_text", False),
                redo_ocr=getattr(args, "redo_ocr", False),
            )
        except EdgeOCRError as e:
            failures += 1
            print(f"{path}: error: {e}", file=sys.stderr)
            return iter(())

    def on_page(r):
        nonlocal failures
        say_text_layer(r.source, r)
        if getattr(r, "error", None) is not None:
            print(f"{r.source}: page {r.page + 1}: error: {r.error}", file=sys.stderr)
        elif drawings is not None and not drawings.add_reporting(r):
            failures += 1

    pdf_source = None
    if fmt == "pdf" and len(files) == 1:
        pdf_source = files[0]
    try:
        report = write_document(
            itertools.chain.from_iterable(pages_of(f) for f in files),
            out,
            fmt,
            source=pdf_source,
            password=getattr(args, "password", None),
            title=files[0] if len(files) == 1 else "",
            on_page=on_page,
        )
    finally:
        if drawings is not None:
            drawings.close()
    failures += len(report.failed)
    if out != "-":
        print(
            f"wrote {out} ({fmt}, {report.pages} pages"
            + (f", {len(report.failed)} failed" if report.failed else "")
            + ")",
            file=sys.stderr,
        )
    return 1 if failures else 0
