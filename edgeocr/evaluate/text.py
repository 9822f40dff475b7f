"""Text for the metrics: normalisation (with and without whitespace), joining, edit distance.

* :func:`normalize_text`: Unicode NFKC, then removal of all whitespace; case and
  punctuation are kept (the dev set's rule).
* :func:`normalize_text_ws`: NFKC, every run of whitespace one space, no leading or
  trailing space; :func:`join_ws` joins parts with a space except next to a wide (CJK)
  character.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

_WS_RE = re.compile(r"\s+", re.UNICODE)


def normalize_text(s: str | None) -> str:
    """NFKC-normalise and remove every whitespace character."""
    if not s:
        return ""
    s = unicodedata.normalize("NFKC", s)
    s = _WS_RE.sub("", s)
    # A few format characters survive \s (zero-width space and friends).
    return s.replace("\u200b", "").replace("\u200c", "").replace("\u200d", "").replace("\ufeff", "")


_ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\ufeff")


def normalize_text_ws(s: str | None) -> str:
    """NFKC-normalise, turn every run of whitespace into one space, strip the ends."""
    if not s:
        return ""
    s = unicodedata.normalize("NFKC", s)
    for z in _ZERO_WIDTH:
        s = s.replace(z, "")
    return _WS_RE.sub(" ", s).strip()


def _wide(c: str) -> bool:
    return unicodedata.east_asian_width(c) in ("W", "F")


def join_ws(parts: Sequence[str]) -> str:
    """Texts of several predictions for one line, in reading order: joined by
    a space, except next to a wide (CJK) character, where no space is written."""
    out = ""
    for p in parts:
        if not p:
            continue
        if out and not (_wide(out[-1]) or _wide(p[0])):
            out += " "
        out += p
    return out


def space_errors(pred: str, gt: str) -> bool | None:
    """For two texts already normalised with :func:`normalize_text_ws`: None
    when they differ apart from whitespace, else whether the whitespace differs."""
    if pred.replace(" ", "") != gt.replace(" ", ""):
        return None
    return pred != gt


def edit_distance(a: Sequence, b: Sequence) -> int:
    """Levenshtein distance over Unicode code points (unit costs).

    Uses Myers' / Hyyrö's bit-parallel algorithm with Python integers as
    arbitrary-width bit vectors: O(len(longer)) big-integer operations.
    """
    if a == b:
        return 0
    la, lb = len(a), len(b)
    if la == 0:
        return lb
    if lb == 0:
        return la
    # Strip the common prefix and suffix (cheap and common in OCR).
    start = 0
    lim = min(la, lb)
    while start < lim and a[start] == b[start]:
        start += 1
    end_a, end_b = la, lb
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    a = a[start:end_a]
    b = b[start:end_b]
    if not a:
        return len(b)
    if not b:
        return len(a)
    # pattern = shorter string (bit vector width), text = longer one
    if len(a) > len(b):
        a, b = b, a
    m = len(a)
    peq: dict[Any, int] = {}
    for i, c in enumerate(a):
        peq[c] = peq.get(c, 0) | (1 << i)
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    pv = mask
    mv = 0
    score = m
    get = peq.get
    for c in b:
        eq = get(c, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & mask
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv
    return score


def _ned_score(pred: str, gt: str) -> float:
    """1 - normalised edit distance (1.0 for two empty strings)."""
    n = max(len(pred), len(gt))
    if n == 0:
        return 1.0
    return 1.0 - edit_distance(pred, gt) / n
