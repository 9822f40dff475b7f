"""Plain text, JSON lines and the XML escaping the hOCR and ALTO writers share."""

from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from .layout import page_lines

# Characters XML 1.0 cannot hold (C0 controls but tab/newline/return, surrogates, U+FFFE/F).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(s: str) -> str:
    """``s`` escaped for XML character data (characters XML cannot hold dropped)."""
    return escape(_NOT_XML.sub("", str(s)))


def attr(s: str) -> str:
    """``s`` as a quoted XML attribute value (characters XML cannot hold dropped)."""
    return quoteattr(_NOT_XML.sub("", str(s)), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def version() -> str:
    """edgeocr's version, for the files' producer fields."""
    from .._core import __version__

    return __version__


class TextWriter:
    """Plain text: each page's lines, one per line, pages ended by a form feed (as Tesseract's
    ``txt`` output); a failed page is empty."""

    extension = ".txt"

    def __init__(self, out, title: str = ""):
        self.out = out

    def add(self, result) -> None:
        if getattr(result, "error", None) is None:
            for line in page_lines(result):
                self.out.write(line.text + "\n")
        self.out.write("\f")

    def finish(self) -> None:
        pass


class JsonLinesWriter:
    """One JSON object per page (``PageResult.to_json``, errors included), one per line."""

    extension = ".jsonl"

    def __init__(self, out, title: str = ""):
        self.out = out

    def add(self, result) -> None:
        self.out.write(result.to_json() + "\n")

    def finish(self) -> None:
        pass


class MarkdownWriter:
    """Markdown (documents parsed by `Predictor.parse_pages`): the document's Markdown from the
    core's writer (``_core.document_markdown``): each page's blocks as
    ``DocumentResult.to_markdown()`` writes them, a paragraph or table that continues from the
    page before (the document pass's ``continues``) written with it as one, pages after the first
    introduced by an HTML comment ``<!-- page N -->``; a failed page is that comment alone.

    Pages are written as they come, but for a run of pages each continuing the one before: it is
    written when it ends (at most ``MAX_RUN`` pages are held; a longer run is written in parts,
    its joins at the cuts left undone)."""

    extension = ".md"
    MAX_RUN = 64

    def __init__(self, out, title: str = ""):
        self.out = out
        self.pages = 0
        self.run: list = []  # (core Document, page number) of the pages not yet written

    def add(self, result) -> None:
        number = getattr(result, "page", self.pages) + 1
        core = getattr(result, "_core", None) if getattr(result, "error", None) is None else None
        self.pages += 1
        if (
            core is not None
            and self.run
            and len(self.run) < self.MAX_RUN
            and self.run[-1][1] == number - 1
            and core.continues_previous
        ):
            self.run.append((core, number))
            return
        self._write_run()
        if self.pages > 1:
            self.out.write(f"\n<!-- page {number} -->\n\n")
        if core is not None:
            self.run = [(core, number)]
        elif getattr(result, "error", None) is None:  # a page without the core's result
            md = result.to_markdown()
            if md:
                self.out.write(md if md.endswith("\n") else md + "\n")

    def _write_run(self) -> None:
        if not self.run:
            return
        from .._core import document_markdown

        md = document_markdown([c for c, _ in self.run], page_numbers=[n for _, n in self.run])
        self.run = []
        if md:
            self.out.write(md if md.endswith("\n") else md + "\n")

    def finish(self) -> None:
        self._write_run()


class JsonTreeWriter:
    """The JSON document tree (docs/document-parsing.md): ``{"pages": [page, ...]}``, each page
    ``DocumentResult.to_dict()``, written a page at a time."""

    extension = ".json"

    def __init__(self, out, title: str = ""):
        self.out = out
        self.pages = 0

    def add(self, result) -> None:
        import json

        self.out.write('{"pages": [\n' if self.pages == 0 else ",\n")
        self.out.write(json.dumps(result.to_dict(), ensure_ascii=False))
        self.pages += 1

    def finish(self) -> None:
        self.out.write('{"pages": []}\n' if self.pages == 0 else "\n]}\n")
