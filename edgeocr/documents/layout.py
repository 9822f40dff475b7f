"""What the document writers share: a page's words in reading order, each word's box turned to
the frame its text is read in, and the word boxes' axis-aligned bounds.

The writers (hOCR, ALTO, TSV, PDF) are adapters around `Predictor` results: the words and their
boxes are the recogniser's (``OcrLine.words``); nothing here recognises or splits text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Word:
    """One word as the writers see it.

    ``quad``: (4, 2) float64 image pixels, the corners of the word's text as it is read:
    top-left, top-right, bottom-right, bottom-left of the text (for a line read upside down or
    turned, not the image's top-left). ``bbox``: integer (left, top, right, bottom) pixels
    that cover the quad.
    """

    text: str
    score: float
    quad: np.ndarray
    bbox: tuple[int, int, int, int]


@dataclass(frozen=True)
class Line:
    """One line as the writers see it: its words (never empty), its own box's bounds."""

    text: str
    score: float
    words: tuple[Word, ...]
    bbox: tuple[int, int, int, int]
    turns: int  # quarter turns from the image's frame to the text's (0..3): OcrLine.turns

    @property
    def angle(self) -> int:
        """Degrees counter-clockwise from the page's x axis to the text's (0, 90, 180, 270): hOCR's
        ``textangle``, ALTO's ``ROTATION``, OCRmyPDF's ``OcrElement.textangle``."""
        return (4 - self.turns) % 4 * 90


def baseline(line: Line) -> tuple[float, float, float]:
    """(slope, offset, height) of ``line``'s text as hOCR's ``baseline`` and ``x_size`` give it:
    the slope of the text's bottom edge (from the first word's bottom-left to the last word's
    bottom-right), its offset in pixels from the bottom of the line's bbox at the bbox's left,
    and the text's height. Slope and offset mean something for a line read upright (turns 0);
    a turned line has its ``angle`` instead."""
    first, last = line.words[0].quad, line.words[-1].quad
    bl, br, tl = first[3], last[2], first[0]
    height = float(np.hypot(*(tl - bl)))
    dx, dy = br - bl
    slope = float(dy / dx) if dx > 0 else 0.0
    x0, _y0, _x1, y1 = line.bbox
    return slope, float(bl[1] + slope * (x0 - bl[0]) - y1), height


def turned(quad: np.ndarray, turns: int) -> np.ndarray:
    """The corners of ``quad`` starting ``turns`` corners later (the text's top-left first)."""
    return np.roll(np.asarray(quad, np.float64), -turns, axis=0)


def bounds(quad, width: int | None = None, height: int | None = None) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) integer pixels covering ``quad``, clipped to the page."""
    q = np.asarray(quad, np.float64)
    x0, y0 = np.floor(q.min(axis=0))
    x1, y1 = np.ceil(q.max(axis=0))
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
        return (0, 0, 0, 0)
    x0, y0, x1, y1 = int(x0), int(y0), int(x1), int(y1)
    if width is not None:
        x0, x1 = min(max(x0, 0), width), min(max(x1, 0), width)
    if height is not None:
        y0, y1 = min(max(y0, 0), height), min(max(y1, 0), height)
    return (x0, y0, max(x0, x1), max(y0, y1))


def page_lines(result, width: int | None = None, height: int | None = None) -> list[Line]:
    """The lines of ``result`` (an `OcrResult` or `PageResult`) that have text, with their words.

    A line's words are ``OcrLine.words``; a line without them (a result made before words
    existed, or by hand) is one word with the line's box.
    """
    if width is None or height is None:
        width, height = _size(result)
    return [ln for ln in (_line(line, width, height) for line in result.lines) if ln is not None]


def _line(line, width: int, height: int) -> Line | None:
    """``line`` (an `OcrLine`) as the writers see it; None when it has no text."""
    text = str(line.text)
    if not text.strip():
        return None
    # The turn the pipeline read the line's crop with (OcrLine.turns); a line object without
    # one is taken as read upright, or upside down when it says it was flipped.
    turns = int(getattr(line, "turns", 2 if getattr(line, "flipped", False) else 0)) % 4
    raw = [w for w in getattr(line, "words", ()) if str(w.text).strip()]
    if not raw:
        raw = [_LineAsWord(text.strip(), float(line.score), line.box)]
    words = tuple(
        Word(
            str(w.text),
            float(w.score),
            turned(w.box, turns),
            bounds(w.box, width, height),
        )
        for w in raw
    )
    return Line(text, float(line.score), words, bounds(line.box, width, height), turns)


@dataclass(frozen=True)
class Block:
    """One layout region of a parsed page as the writers see it.

    ``type``, ``furniture``, ``heading_level``: the `Region`'s; ``bbox``: its box's integer
    bounds on the page, grown to cover its lines; ``groups``: its lines that have text, in
    reading order, as groups: one group for a region, one per table cell that has lines (in the
    cells' order) for a table whose cells name them, then any of the table's lines no cell
    names. Every line of the page is in one group of one block.
    """

    type: str
    furniture: bool
    heading_level: int
    bbox: tuple[int, int, int, int]
    groups: tuple[tuple[Line, ...], ...]

    @property
    def lines(self) -> tuple[Line, ...]:
        return tuple(ln for g in self.groups for ln in g)


def page_blocks(result, width: int | None = None, height: int | None = None):
    """The layout regions of ``result`` as `Block`s, in reading order, when it is a parsed page
    (a `DocumentResult` from `Predictor.parse` / `parse_pages`); None for a page of OCR lines
    (an `OcrResult` or `PageResult`), which the writers write line by line as before."""
    regions = getattr(result, "regions", None)
    if regions is None:
        return None
    if width is None or height is None:
        width, height = _size(result)
    index = {id(line): k for k, line in enumerate(result.lines)}
    blocks = []
    for r in regions:
        mine = [line for line in r.lines if id(line) in index]
        groups: list[list] = []
        table = getattr(r, "table", None)
        if table is not None and table.cells:
            # A table's lines cell by cell (TableCell.lines: indices into the page's lines),
            # each line once, in the region; the lines no cell names after them.
            own = {index[id(line)]: line for line in mine}
            taken: set[int] = set()
            for cell in table.cells:
                group = []
                for k in cell.lines:
                    if k in own and k not in taken:
                        taken.add(k)
                        group.append(own[k])
                groups.append(group)
            groups.append([line for line in mine if index[id(line)] not in taken])
        else:
            groups.append(mine)
        made = tuple(
            g
            for g in (
                tuple(x for x in (_line(line, width, height) for line in group) if x is not None)
                for group in groups
            )
            if g
        )
        # The region's box, grown to cover its lines (a line the reading-order rule put in the
        # region may stick out of the layout model's box).
        x0, y0, x1, y1 = bounds(_box_corners(r.box), width, height)
        for ln in (ln for g in made for ln in g):
            x0, y0 = min(x0, ln.bbox[0]), min(y0, ln.bbox[1])
            x1, y1 = max(x1, ln.bbox[2]), max(y1, ln.bbox[3])
        blocks.append(
            Block(str(r.type), bool(r.furniture), int(r.heading_level), (x0, y0, x1, y1), made)
        )
    return blocks


def _box_corners(box) -> np.ndarray:
    x0, y0, x1, y1 = (float(v) for v in box)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


@dataclass(frozen=True)
class _LineAsWord:
    text: str
    score: float
    box: np.ndarray


def _size(result) -> tuple[int, int]:
    w = int(getattr(result, "width", 0) or 0)
    h = int(getattr(result, "height", 0) or 0)
    if w <= 0 or h <= 0:
        w, h = (int(v) for v in result.image_size)
    return w, h


def page_size(result) -> tuple[int, int]:
    """(width, height) pixels of the page ``result`` was read from."""
    return _size(result)


def page_number(result) -> int:
    """The 0-based page index of ``result`` (0 for a plain `OcrResult`)."""
    return int(getattr(result, "page", 0) or 0)


def furniture_side(block: Block, height: int) -> str:
    """ "top" or "bottom": where a page's furniture ``block`` belongs (a running header at the
    top, a footer at the bottom, a page number or other furniture by which half of the page its
    box's middle is in)."""
    if block.type == "header":
        return "top"
    if block.type == "footer":
        return "bottom"
    return "top" if (block.bbox[1] + block.bbox[3]) / 2 < height / 2 else "bottom"
