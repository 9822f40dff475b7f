"""hOCR 1.2: XHTML with ``ocr_page`` / ``ocr_carea`` / ``ocr_par`` / ``ocr_line`` / ``ocrx_word``
elements, each with its ``bbox`` in page pixels; words carry ``x_wconf`` (0-100).

edgeocr finds lines, not blocks or paragraphs: each line is one ``ocr_carea`` holding one
``ocr_par`` (what Tesseract's hOCR readers expect) with the line in it. A line read upside down
or turned has a ``textangle``; a straight line has its ``baseline`` (slope and offset from the
bottom-left of its bbox) and ``x_size`` (the text's height). Written as pages come, so a long
document is never held in memory.
"""

from __future__ import annotations

from .layout import baseline, page_lines, page_number, page_size
from .text import attr, version, xml_text


class HocrWriter:
    """hOCR of a document, written to ``out`` (a text file) page by page."""

    extension = ".hocr"

    def __init__(self, out, title: str = ""):
        self.out = out
        self.n = 0
        out.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"\n'
            '    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">\n'
            " <head>\n"
            f"  <title>{xml_text(title)}</title>\n"
            '  <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>\n'
            f'  <meta name="ocr-system" content={attr("edgeocr " + version())}/>\n'
            '  <meta name="ocr-capabilities" content="ocr_page ocr_carea ocr_par ocr_line '
            'ocrx_word ocrp_wconf"/>\n'
            " </head>\n"
            " <body>\n"
        )

    def add(self, result) -> None:
        """One page (an `OcrResult` or `PageResult`; a failed page is an empty ``ocr_page``)."""
        self.n += 1
        p = self.n
        width, height = page_size(result)
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
        lines = page_lines(result, width, height) if getattr(result, "error", None) is None else []
        for i, line in enumerate(lines, 1):
            box = _bbox(line.bbox)
            w(f'   <div class="ocr_carea" id="block_{p}_{i}" title="bbox {box}">\n')
            w(f'    <p class="ocr_par" id="par_{p}_{i}" title="bbox {box}">\n')
            w(
                f'     <span class="ocr_line" id="line_{p}_{i}" '
                f'title="bbox {box}; {_line_props(line)}">\n'
            )
            for j, word in enumerate(line.words, 1):
                conf = round(100 * min(max(word.score, 0.0), 1.0))
                w(
                    f'      <span class="ocrx_word" id="word_{p}_{i}_{j}" '
                    f'title="bbox {_bbox(word.bbox)}; x_wconf {conf}">{xml_text(word.text)}'
                    "</span>\n"
                )
            w("     </span>\n    </p>\n   </div>\n")
        w("  </div>\n")

    def finish(self) -> None:
        self.out.write(" </body>\n</html>\n")


def _bbox(b) -> str:
    return f"{b[0]} {b[1]} {b[2]} {b[3]}"


def _line_props(line) -> str:
    slope, offset, height = baseline(line)
    if line.turns:
        return f"textangle {line.angle}; x_size {height:.0f}"
    return f"baseline {slope:.3f} {offset:.0f}; x_size {height:.0f}"
