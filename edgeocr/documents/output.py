"""Documents out: a document's page results written as text, JSON lines, Tesseract TSV, hOCR,
ALTO or a searchable PDF, with nothing written half-way.

>>> pages = edgeocr.Predictor().predict_pages("scan.pdf")
>>> report = edgeocr.documents.write_document(pages, "scan.ocr.pdf")          # format from .pdf
>>> report.pages, report.failed

The output is written to a temporary file in the target's folder (opened before the first page
is read, so a path that cannot be written fails at once) and renamed over the target only when
the whole document is written: a failure, an interrupt or a full disk leave the target as it
was, and no partial file behind.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from dataclasses import dataclass, field

from ..errors import InvalidInputError, OutputError
from .alto import AltoWriter
from .hocr import HocrWriter
from .pdf import SearchablePdf
from .review import ReviewWriter
from .text import JsonLinesWriter, JsonTreeWriter, MarkdownWriter, TextWriter
from .tsv import TsvWriter

FORMATS = ("text", "markdown", "json", "jsonl", "tsv", "hocr", "alto", "pdf", "html")
# The formats of parsed documents (Predictor.parse_pages: layout regions, tables, reading order):
# Markdown, the JSON document tree and the review page. The others write OCR lines (predict_pages).
PARSED_FORMATS = ("markdown", "json", "html")
# The formats that write a parsed page's regions as blocks (hOCR, ALTO) and its lines otherwise:
# `edgeocr predict` parses for them when its models include a layout model (the ``document``
# set, a bundle with one, layout=).
BLOCK_FORMATS = ("hocr", "alto")
_WRITERS = {
    "text": TextWriter,
    "markdown": MarkdownWriter,
    "json": JsonTreeWriter,
    "jsonl": JsonLinesWriter,
    "tsv": TsvWriter,
    "hocr": HocrWriter,
    "alto": AltoWriter,
    "html": ReviewWriter,  # the review page (review.py); .html files stay hOCR by default
}
# The format an output file's extension implies (when none is given).
_BY_EXTENSION = {
    ".txt": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".jsonl": "jsonl",
    ".tsv": "tsv",
    ".hocr": "hocr",
    ".html": "hocr",
    ".xhtml": "hocr",
    ".xml": "alto",
    ".alto": "alto",
    ".pdf": "pdf",
}


def format_for(output, fmt: str | None) -> str:
    """``fmt`` checked, or the format ``output``'s extension names."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InvalidInputError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        return fmt
    ext = os.path.splitext(os.fspath(output))[1].lower() if output not in (None, "-") else ""
    if ext not in _BY_EXTENSION:
        raise InvalidInputError(
            f"cannot tell the format from {output!r}: give one of {', '.join(FORMATS)} "
            "(format= / --format)"
        )
    return _BY_EXTENSION[ext]


class AtomicFile:
    """``path`` written through a temporary file in its folder, renamed over it by
    :meth:`commit`; :meth:`discard` (or leaving a ``with`` block by an exception) removes it.

    The temporary file is created with mode 0o666, which the kernel reduces by the umask as it
    would for ``open(path, "w")``; an existing ``path``'s permissions are kept. The process umask
    is never changed (reading it means setting it, which races with threads creating files)."""

    def __init__(self, path, binary: bool):
        self.path = os.fspath(path)
        if os.path.isdir(self.path):
            raise OutputError(f"{self.path}: is a folder; the output must be a file")
        folder = os.path.dirname(os.path.abspath(self.path))
        try:
            fd, self.tmp = _create_beside(folder, os.path.basename(self.path))
        except OSError as e:
            raise OutputError(
                f"{self.path}: cannot write there ({e.strerror or e}: {folder})"
            ) from None
        raw = os.fdopen(fd, "wb")
        self.file = raw if binary else io.TextIOWrapper(raw, encoding="utf-8", newline="\n")

    def commit(self) -> None:
        """Flush, sync and rename the file over ``path`` (keeping an old file's permissions,
        else those it was created with)."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            try:
                mode = os.stat(self.path).st_mode & 0o7777
            except OSError:
                mode = None  # a new file: 0o666 less the umask, from its creation
            if mode is not None:
                os.chmod(self.tmp, mode)
            os.replace(self.tmp, self.path)
        except OSError as e:
            self.discard()
            raise OutputError(f"{self.path}: cannot write it ({e.strerror or e})") from None

    def discard(self) -> None:
        try:
            self.file.close()
        except OSError:
            pass
        try:
            os.unlink(self.tmp)
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None:
            self.discard()
        return False


def _create_beside(folder: str, name: str) -> tuple[int, str]:
    """(fd, path) of a new file ``.NAME.XXXXXXXX.part`` in ``folder``, opened for writing with
    mode 0o666 (less the umask), made by this call (O_EXCL: never one that was there)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{os.urandom(4).hex()}.part")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", folder)


@dataclass
class DocumentReport:
    """What :func:`write_document` wrote: the output, the format, pages written, the pages
    that failed (``(source, 0-based page, error)``; they are in the output without text)."""

    output: str
    format: str
    pages: int = 0
    failed: list = field(default_factory=list)


def write_document(
    results,
    output,
    format: str | None = None,  # noqa: A002 - the name users know (--format)
    *,
    source=None,
    password: str | None = None,
    title: str | None = None,
    on_page=None,
) -> DocumentReport:
    """Write ``results`` (`PageResult`s from `Predictor.predict_pages`, or `OcrResult`s of
    images; for "markdown", "json" and "html", `DocumentResult`s from `Predictor.parse_pages`) to
    ``output`` as one document, consuming them one at a time. hOCR and ALTO write a
    `DocumentResult`'s layout regions as their blocks (ocr_carea, ocr_table, ...; TextBlock,
    Illustration, ...), the other formats its lines in reading order.

    ``format``: one of :data:`FORMATS` (default: from ``output``'s extension). ``output``: a
    path, or ``"-"`` (standard output) for the text formats. For ``"pdf"``: ``source`` is the
    document the results came from when it was not a path (bytes, an array, a PIL image), and
    ``password`` opens an encrypted input PDF; the same for "html" (the review page, review.py),
    which reads the pages' images again. ``title``: the hOCR title / ALTO file name
    (default: the first result's source). ``on_page(result)`` is called after each page.
    A page that failed (``result.error``) is kept without text (an image page that could not be
    decoded is left out of a PDF) and listed in the report; an error of the output itself raises
    `OutputError` and leaves nothing behind.
    """
    fmt = format_for(output, format)
    report = DocumentReport(os.fspath(output) if output != "-" else "-", fmt)
    if output == "-":
        if fmt == "pdf":
            raise InvalidInputError("a PDF goes to a file (-o OUT.pdf), not standard output")
        _write_text(results, sys.stdout, fmt, title, report, on_page, source, password)
        sys.stdout.flush()
        return report
    with AtomicFile(output, binary=fmt == "pdf") as out:
        if fmt == "pdf":
            builder = SearchablePdf(source=source, password=password)
            try:
                for r in results:
                    builder.add(r)
                    _count(r, report, on_page)
                builder.save(out.file)
            finally:
                builder.close()
        else:
            _write_text(results, out.file, fmt, title, report, on_page, source, password)
        if report.pages == 0:
            raise InvalidInputError(f"{report.output}: no pages came out, so nothing was written")
        out.commit()
    return report


def _count(r, report: DocumentReport, on_page) -> None:
    report.pages += 1
    err = getattr(r, "error", None)
    if err is not None:
        report.failed.append((r.source, int(getattr(r, "page", 0) or 0), err))
    if on_page is not None:
        on_page(r)


def _write_text(results, out, fmt, title, report, on_page, source=None, password=None) -> None:
    # The review page reads the pages' images again: from the document when it is not a path.
    options = {"source": source, "password": password} if fmt == "html" else {}
    writer = None
    for r in results:
        if writer is None:
            writer = _WRITERS[fmt](
                out, title if title is not None else str(r.source or ""), **options
            )
        writer.add(r)
        _count(r, report, on_page)
    if writer is None:
        writer = _WRITERS[fmt](out, title or "", **options)
    writer.finish()
