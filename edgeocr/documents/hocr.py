"""hOCR 1.2: XHTML with ``ocr_page`` / ``ocr_carea`` / ``ocr_par`` / ``ocr_line`` / ``ocrx_word``
elements, each with its ``bbox`` in page pixels; words carry ``x_wconf`` (0-100).

A page of OCR lines (`Predictor.predict` / `predict_pages`): each line is one ``ocr_carea``
holding one ``ocr_par`` (what Tesseract's hOCR readers expect) with the line in it.

A parsed page (`Predictor.parse` / `parse_pages`: a `DocumentResult`) is written as its layout
regions, in reading order, each one block: a text region (text, list, caption, reference,
equation) is an ``ocr_carea`` holding an ``ocr_par`` with its lines; a heading's ``ocr_par``
has HTML's heading role, ``role="heading" aria-level="N"`` (N its level: 1 the title, 2 and 3
section headings; still a ``<p>``, which hOCR readers such as OCRmyPDF's look for); a table
is an ``ocr_table`` holding an ``ocr_par`` per cell that has lines (in the cells' order); a
figure is an ``ocr_image`` (the text read in it, if any, in an ``ocr_par``); a running header,
a footer and a page number are the floats ``ocr_header``, ``ocr_footer`` and ``ocr_pageno``.
Every line is in exactly one block.

A line read upside down or turned has a ``textangle``; a straight line has its ``baseline``
(slope and offset from the bottom-left of its bbox) and ``x_size`` (the text's height). Written
as pages come, so a long document is never held in memory.
"""

from __future__ import annotations

from .layout import baseline, furniture_side, page_blocks, page_lines, page_number, page_size
from .text import attr, version, xml_text


class HocrWriter:
    """hOCR of a document, written to ``out`` (a text file) page by page."""

    extension = ".hocr"

    def __init__(self, out, title: str = ""):
        self.out = out
        self.title = title
        self.n = 0
        self._head_written = False

    def _head(self, parsed: bool) -> None:
        """The document's head; its capabilities name the block classes when the first page is
        a parsed one."""
        self._head_written = True
        caps = "ocr_page ocr_carea ocr_par ocr_line ocrx_word ocrp_wconf"
        if parsed:
            caps += " " + " ".join(_BLOCK_CLASSES)
        self.out.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"\n'
            '    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">\n'
            " <head>\n"
            f"  <title>{xml_text(self.title)}</title>\n"
            '  <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>\n'
            f'  <meta name="ocr-system" content={attr("edgeocr " + version())}/>\n'
            f'  <meta name="ocr-capabilities" content="{caps}"/>\n'
            " </head>\n"
            " <body>\n"
        )

    def add(self, result) -> None:
        """One page (an `OcrResult`, `PageResult` or `DocumentResult`; a failed page is an empty
        ``ocr_page``)."""
        failed = getattr(result, "error", None) is not None
        width, height = page_size(result)
        blocks = None if failed else page_blocks(result, width, height)
        if not self._head_written:
            self._head(blocks is not None or getattr(result, "regions", None) is not None)
        self.n += 1
        p = self.n
        title = []
        if result.source is not None:
            title.append(f'image "{result.source}"')
        title.append(f"bbox 0 0 {width} {height}")
        title.append(f"ppageno {page_number(result)}")
        dpi = getattr(result, "dpi", None)
        if dpi:
            title.append(f"scan_res {round(float(dpi))} {round(float(dpi))}")
        w = self.out.write
        w(f'  <div class="ocr_page" id="page_{p}" title={attr("; ".join(title))}>\n')
        if blocks is not None:
            self._blocks(p, blocks, height)
            w("  </div>\n")
            return
        lines = page_lines(result, width, height) if not failed else []
        for i, line in enumerate(lines, 1):
            box = _bbox(line.bbox)
            w(f'   <div class="ocr_carea" id="block_{p}_{i}" title="bbox {box}">\n')
            w(f'    <p class="ocr_par" id="par_{p}_{i}" title="bbox {box}">\n')
            self._line(line, f"{p}_{i}")
            w("    </p>\n   </div>\n")
        w("  </div>\n")

    def _line(self, line, key: str) -> None:
        w = self.out.write
        w(
            f'     <span class="ocr_line" id="line_{key}" '
            f'title="bbox {_bbox(line.bbox)}; {_line_props(line)}">\n'
        )
        for j, word in enumerate(line.words, 1):
            conf = round(100 * min(max(word.score, 0.0), 1.0))
            w(
                f'      <span class="ocrx_word" id="word_{key}_{j}" '
                f'title="bbox {_bbox(word.bbox)}; x_wconf {conf}">{xml_text(word.text)}'
                "</span>\n"
            )
        w("     </span>\n")

    def _blocks(self, p: int, blocks, height: int) -> None:
        """A parsed page's regions, in reading order, one block each (the module's doc)."""
        w = self.out.write
        n = 0  # the page's lines, numbered in reading order
        for k, b in enumerate(blocks, 1):
            cls = _block_class(b, height)
            w(f'   <div class="{cls}" id="block_{p}_{k}" title="bbox {_bbox(b.bbox)}">\n')
            role = ""
            if b.type == "title" and cls == "ocr_carea":
                role = f' role="heading" aria-level="{min(max(b.heading_level, 1), 3)}"'
            for g, group in enumerate(b.groups, 1):
                box = _bbox(_union(line.bbox for line in group))
                w(f'    <p class="ocr_par" id="par_{p}_{k}_{g}" title="bbox {box}"{role}>\n')
                for line in group:
                    n += 1
                    self._line(line, f"{p}_{n}")
                w("    </p>\n")
            w("   </div>\n")

    def finish(self) -> None:
        if not self._head_written:
            self._head(False)
        self.out.write(" </body>\n</html>\n")


# The hOCR 1.2 classes of a parsed page's blocks (besides ocr_carea): floats for the page's
# furniture, tables and figures.
_FLOATS = {"table": "ocr_table", "figure": "ocr_image", "page_number": "ocr_pageno"}
_BLOCK_CLASSES = ("ocr_header", "ocr_footer", "ocr_pageno", "ocr_table", "ocr_image")


def _block_class(block, height: int) -> str:
    if block.type in _FLOATS:
        return _FLOATS[block.type]
    if block.furniture:
        return "ocr_header" if furniture_side(block, height) == "top" else "ocr_footer"
    return "ocr_carea"


def _union(boxes) -> tuple[int, int, int, int]:
    boxes = list(boxes)
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _bbox(b) -> str:
    return f"{b[0]} {b[1]} {b[2]} {b[3]}"


def _line_props(line) -> str:
    slope, offset, height = baseline(line)
    if line.turns:
        return f"textangle {line.angle}; x_size {height:.0f}"
    return f"baseline {slope:.3f} {offset:.0f}; x_size {height:.0f}"
