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
    out = []
    for line in result.lines:
        text = str(line.text)
        if not text.strip():
            continue
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
        out.append(Line(text, float(line.score), words, bounds(line.box, width, height), turns))
    return out


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
