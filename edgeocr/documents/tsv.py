"""TSV in Tesseract's column layout (``tesseract ... tsv``), so that scripts written for it read
edgeocr's: ``level page_num block_num par_num line_num word_num left top width height conf
text``, with level 1 = page, 2 = block, 3 = paragraph, 4 = line, 5 = word. Numbers start at 1
(pages, and blocks, paragraphs, lines, words within their parent); rows that are not words have
``conf`` -1 and no text, as Tesseract writes them. edgeocr finds lines, not blocks: each line is
one block with one paragraph.
"""

from __future__ import annotations

from .layout import page_lines, page_size

COLUMNS = (
    "level",
    "page_num",
    "block_num",
    "par_num",
    "line_num",
    "word_num",
    "left",
    "top",
    "width",
    "height",
    "conf",
    "text",
)


class TsvWriter:
    """Tesseract-style TSV of a document, written to ``out`` page by page."""

    extension = ".tsv"

    def __init__(self, out, title: str = ""):
        self.out = out
        self.n = 0
        out.write("\t".join(COLUMNS) + "\n")

    def _row(self, level, nums, bbox, conf=-1, text="") -> None:
        x0, y0, x1, y1 = bbox
        conf_s = "-1" if conf == -1 else f"{conf:.6f}"
        # A tab or newline in a word would break the columns.
        text = " ".join(str(text).split())
        cols = [level, self.n, *nums, x0, y0, x1 - x0, y1 - y0]
        self.out.write("\t".join(str(c) for c in cols) + f"\t{conf_s}\t{text}\n")

    def add(self, result) -> None:
        self.n += 1
        width, height = page_size(result)
        self._row(1, (0, 0, 0, 0), (0, 0, width, height))
        if getattr(result, "error", None) is not None:
            return
        for b, line in enumerate(page_lines(result, width, height), 1):
            self._row(2, (b, 0, 0, 0), line.bbox)
            self._row(3, (b, 1, 0, 0), line.bbox)
            self._row(4, (b, 1, 1, 0), line.bbox)
            for k, word in enumerate(line.words, 1):
                conf = 100 * min(max(word.score, 0.0), 1.0)
                self._row(5, (b, 1, 1, k), word.bbox, conf, word.text)

    def finish(self) -> None:
        pass
