"""Accuracy evaluation for edgeocr (detection, end-to-end, recognition).

Self-contained: standard library + numpy only (no shapely / pyclipper), so it
can be imported on its own, e.g. from tools, without the rest of the package.

The metrics follow the dev-set README (``shared/datasets/dev/README.md``):

* Text normalisation: Unicode NFKC, then removal of all whitespace; case and
  punctuation are kept.
* Detection (ICDAR-2015 style): one-to-one greedy matching in order of
  decreasing polygon IoU, a pair matches when IoU > 0.5.  Ground-truth lines
  flagged ``ignore`` take part in the matching, but a prediction matched to
  one is not counted at all (neither true nor false positive) and ignored
  lines are not counted in recall.  As in ICDAR-2015, an unmatched prediction
  lying mostly (>= 50 % of its area) inside an ignored line is discarded too.
* Detection, area criterion: the same one-to-one greedy matching, a pair
  matches when the intersection covers >= 80 % of the ground truth and >= 40 %
  of the prediction (pairs ordered by decreasing IoU).
* End to end, strict: a detection (IoU) match whose normalised texts are equal.
* End to end, granularity-tolerant: each prediction is assigned to the
  ground-truth line covering the largest share of it, among the lines that
  cover >= 50 % of the prediction or that the prediction covers >= 50 % of;
  the texts assigned to one line are joined in the predictor's reading order
  (the order of the prediction list).  Line accuracy = exact lines / lines;
  1-NED = mean over lines of 1 - ed / max(len(pred), len(gt)) (an unassigned
  line scores 0); CER = (sum of edit distances + characters of unassigned
  predictions) / ground-truth characters.  Predictions assigned to ignored
  lines are dropped; ignored lines are not scored.

Scores over a set of images (overall and per tag) are computed from summed
counts (micro average), like the ICDAR scripts, except 1-NED and recognition
accuracy which are means over lines.

Whitespace-aware figures, beside the ones above (the dev set's metrics remove
all whitespace, which hides a recogniser that drops the spaces of Latin text):

* Text normalisation with spaces (:func:`normalize_text_ws`): NFKC, every run
  of whitespace becomes one space, no leading or trailing space.
* Predictions assigned to one line are joined with a space, except where
  either side of the join is a wide (CJK) character.
* ``line_acc_ws`` and ``cer_ws``: line accuracy and CER on these texts
  (spaces count as characters).
* ``space_acc``: of the lines read right apart from whitespace, the share
  whose whitespace is right too (1.0 when no line is right).
* The line figures are also given per line language (``langs``: the ``lang``
  field of each ground-truth line).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "normalize_text",
    "normalize_text_ws",
    "edit_distance",
    "polygon_area",
    "polygon_intersection_area",
    "polygon_iou",
    "load_e2e",
    "load_rec",
    "evaluate_e2e",
    "evaluate_rec",
    "format_report",
]

IOU_THRESHOLD = 0.5
AREA_GT_RECALL = 0.8  # intersection / gt area
AREA_PRED_PRECISION = 0.4  # intersection / pred area
TOLERANT_SHARE = 0.5
IGNORE_OVERLAP = 0.5

_WS_RE = re.compile(r"\s+", re.UNICODE)
_EPS = 1e-9


# --------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------
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


# --------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------
def _as_points(pts: Any) -> np.ndarray:
    """Array-like -> (N,2) float64.  A flat 8-vector is read as 4 points and a
    flat 4-vector as an axis-aligned [x0, y0, x1, y1] rectangle."""
    p = np.asarray(pts, dtype=np.float64)
    if p.ndim == 1:
        if p.size == 4:
            x0, y0, x1, y1 = p
            p = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
        elif p.size % 2 == 0:
            p = p.reshape(-1, 2)
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"expected (N,2) polygon points, got shape {np.shape(pts)}")
    if not np.all(np.isfinite(p)):
        raise ValueError("polygon has non-finite coordinates")
    return p


def _signed_area(p: np.ndarray) -> float:
    if len(p) < 3:
        return 0.0
    x = p[:, 0]
    y = p[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _convex_hull(p: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain; CCW (y up) order, no collinear points."""
    pts = sorted(set((float(x), float(y)) for x, y in p))
    if len(pts) <= 2:
        return np.array(pts, dtype=np.float64).reshape(-1, 2)
    lower: list = []
    for q in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    upper: list = []
    for q in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    return np.array(lower[:-1] + upper[:-1], dtype=np.float64)


def _dedup(p: np.ndarray, tol: float) -> np.ndarray:
    """Drop consecutive duplicate points (cyclically)."""
    out = []
    for q in p:
        if not out or abs(q[0] - out[-1][0]) > tol or abs(q[1] - out[-1][1]) > tol:
            out.append(q)
    while (
        len(out) > 1 and abs(out[0][0] - out[-1][0]) <= tol and abs(out[0][1] - out[-1][1]) <= tol
    ):
        out.pop()
    return np.array(out, dtype=np.float64).reshape(-1, 2)


def _segments_cross(p1, p2, p3, p4) -> bool:
    """True when segments p1p2 and p3p4 properly cross or touch."""
    d1 = _cross(p3, p4, p1)
    d2 = _cross(p3, p4, p2)
    d3 = _cross(p1, p2, p3)
    d4 = _cross(p1, p2, p4)
    if ((d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)) and (
        (d3 > 0 and d4 < 0) or (d3 < 0 and d4 > 0)
    ):
        return True

    def on_seg(a, b, c, d):
        return (
            d == 0
            and min(a[0], b[0]) <= c[0] <= max(a[0], b[0])
            and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])
        )

    return (
        on_seg(p3, p4, p1, d1)
        or on_seg(p3, p4, p2, d2)
        or on_seg(p1, p2, p3, d3)
        or on_seg(p1, p2, p4, d4)
    )


def _is_simple(p: np.ndarray) -> bool:
    n = len(p)
    if n < 3:
        return False
    for i in range(n):
        a1, a2 = p[i], p[(i + 1) % n]
        for j in range(i + 1, n):
            if j == i or (j + 1) % n == i or j == (i + 1) % n:
                continue  # adjacent edges
            if _segments_cross(a1, a2, p[j], p[(j + 1) % n]):
                return False
    return True


def _is_convex_ccw(p: np.ndarray) -> bool:
    """p is CCW; True when no vertex turns clockwise."""
    n = len(p)
    for i in range(n):
        if _cross(p[i - 1], p[i], p[(i + 1) % n]) < -_EPS * max(1.0, _scale(p)) ** 2:
            return False
    return True


def _scale(p: np.ndarray) -> float:
    return float(np.max(np.abs(p))) if len(p) else 1.0


def _triangulate(p: np.ndarray) -> list[np.ndarray]:
    """Ear clipping of a simple CCW polygon -> list of CCW triangles."""
    idx = list(range(len(p)))
    tris: list[np.ndarray] = []
    guard = 0
    while len(idx) > 3 and guard < 10 * len(p) ** 2:
        guard += 1
        n = len(idx)
        for k in range(n):
            i0, i1, i2 = idx[k - 1], idx[k], idx[(k + 1) % n]
            a, b, c = p[i0], p[i1], p[i2]
            if _cross(a, b, c) <= 0:
                continue  # reflex or degenerate corner
            inside = False
            for j in idx:
                if j in (i0, i1, i2):
                    continue
                q = p[j]
                if _cross(a, b, q) >= 0 and _cross(b, c, q) >= 0 and _cross(c, a, q) >= 0:
                    inside = True
                    break
            if not inside:
                tris.append(np.array([a, b, c]))
                del idx[k]
                break
        else:
            break  # numerically stuck; remaining fan below
    if len(idx) >= 3:
        for k in range(1, len(idx) - 1):
            t = np.array([p[idx[0]], p[idx[k]], p[idx[k + 1]]])
            if _signed_area(t) > 0:
                tris.append(t)
    return tris


class _Poly:
    """A polygon prepared for intersection: a list of convex CCW pieces."""

    __slots__ = ("pieces", "area", "bbox")

    def __init__(self, pts: Any):
        p = _as_points(pts)
        self.bbox = (
            (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))
            if len(p)
            else (0.0, 0.0, 0.0, 0.0)
        )
        tol = 1e-9 * max(1.0, _scale(p))
        q = _dedup(p, tol) if len(p) else p
        self.pieces: list[np.ndarray] = []
        self.area = 0.0
        if len(q) < 3:
            return
        sa = _signed_area(q)
        if abs(sa) <= 1e-12 * max(1.0, _scale(q)) ** 2:
            # zero signed area: either collinear (degenerate) or a symmetric
            # bow-tie; the hull tells them apart.
            self._from_hull(q)
            return
        if not _is_simple(q):
            self._from_hull(q)  # self-intersecting: fall back to the hull
            return
        if sa < 0:
            q = q[::-1].copy()
        if _is_convex_ccw(q):
            self.pieces = [q]
        else:
            self.pieces = [t for t in _triangulate(q) if _signed_area(t) > 0]
        self.area = float(sum(_signed_area(t) for t in self.pieces))

    def _from_hull(self, q: np.ndarray) -> None:
        h = _convex_hull(q)
        a = _signed_area(h) if len(h) >= 3 else 0.0
        if a > 1e-12 * max(1.0, _scale(q)) ** 2:
            self.pieces = [h]
            self.area = a


def _clip_convex(subject: np.ndarray, clip: np.ndarray) -> float:
    """Area of subject ∩ clip, both convex and CCW (Sutherland–Hodgman)."""
    out = [tuple(v) for v in subject]
    n = len(clip)
    for i in range(n):
        if not out:
            return 0.0
        ax, ay = clip[i - 1]
        bx, by = clip[i]
        ex, ey = bx - ax, by - ay
        inp = out
        out = []
        sx, sy = inp[-1]
        s_in = ex * (sy - ay) - ey * (sx - ax)
        for px, py in inp:
            p_in = ex * (py - ay) - ey * (px - ax)
            if p_in >= 0:
                if s_in < 0:
                    t = s_in / (s_in - p_in)
                    out.append((sx + t * (px - sx), sy + t * (py - sy)))
                out.append((px, py))
            elif s_in >= 0:
                if s_in > 0:
                    t = s_in / (s_in - p_in)
                    out.append((sx + t * (px - sx), sy + t * (py - sy)))
            sx, sy, s_in = px, py, p_in
    if len(out) < 3:
        return 0.0
    area = 0.0
    for i in range(len(out)):
        x1, y1 = out[i - 1]
        x2, y2 = out[i]
        area += x1 * y2 - x2 * y1
    return max(0.0, 0.5 * area)


def _poly_inter(a: _Poly, b: _Poly) -> float:
    if a.area <= 0 or b.area <= 0:
        return 0.0
    ab, bb = a.bbox, b.bbox
    if ab[0] >= bb[2] or bb[0] >= ab[2] or ab[1] >= bb[3] or bb[1] >= ab[3]:
        return 0.0
    total = 0.0
    for pa in a.pieces:
        for pb in b.pieces:
            total += _clip_convex(pa, pb)
    return float(min(total, a.area, b.area))


def _prep(p: Any) -> _Poly:
    return p if isinstance(p, _Poly) else _Poly(p)


def polygon_area(pts: Any) -> float:
    """Area of a polygon (non-negative, any orientation).

    A self-intersecting polygon is measured by its convex hull, consistently
    with :func:`polygon_intersection_area`; degenerate polygons have area 0.
    """
    return _prep(pts).area


def polygon_intersection_area(a: Any, b: Any) -> float:
    """Intersection area of two simple polygons (convex pieces clipped with
    Sutherland–Hodgman; concave ones are ear-clipped into triangles).
    Self-intersecting polygons are replaced by their convex hull."""
    return _poly_inter(_prep(a), _prep(b))


def polygon_iou(a: Any, b: Any) -> float:
    """Intersection over union of two simple polygons (points as (N, 2))."""
    pa, pb = _prep(a), _prep(b)
    inter = _poly_inter(pa, pb)
    union = pa.area + pb.area - inter
    if union <= 0:
        return 0.0
    return float(inter / union)


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------
def _read_jsonl(path: Path) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def load_e2e(dataset_dir: Any, name: str = "e2e_synth.jsonl") -> list[dict]:
    """Read the end-to-end jsonl; adds ``path`` (absolute image path)."""
    d = Path(dataset_dir)
    samples = _read_jsonl(d / name)
    for s in samples:
        s["path"] = str((d / s["file"]).resolve())
        s.setdefault("tags", [])
        for ln in s.get("lines", []):
            ln.setdefault("ignore", False)
    return samples


def load_rec(dataset_dir: Any, name: str = "rec_synth.jsonl") -> list[dict]:
    """Read the recognition-crop jsonl; adds ``path`` (absolute image path)."""
    d = Path(dataset_dir)
    samples = _read_jsonl(d / name)
    for s in samples:
        s["path"] = str((d / s["file"]).resolve())
        s.setdefault("tags", [])
    return samples


# --------------------------------------------------------------------------
# Scoring helpers
# --------------------------------------------------------------------------
def _ratio(num: float, den: float, empty: float) -> float:
    return num / den if den > 0 else empty


def _prh(tp: float, n_pred: float, n_gt: float) -> dict[str, float]:
    recall = _ratio(tp, n_gt, 1.0)
    precision = _ratio(tp, n_pred, 1.0 if n_gt == 0 else 0.0)
    h = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "hmean": h}


def _greedy(pairs: list[tuple]) -> dict[int, int]:
    """pairs: (score, gi, pj); one-to-one greedy by decreasing score.
    Returns {gi: pj}."""
    pairs.sort(key=lambda t: (-t[0], t[1], t[2]))
    used_g, used_p = set(), set()
    match: dict[int, int] = {}
    for _, gi, pj in pairs:
        if gi in used_g or pj in used_p:
            continue
        used_g.add(gi)
        used_p.add(pj)
        match[gi] = pj
    return match


_COUNT_KEYS = (
    "n_gt",
    "n_pred",
    "det_tp",
    "area_n_pred",
    "area_tp",
    "e2e_tp",
    "lines",
    "lines_exact",
    "ned_sum",
    "ed_sum",
    "unassigned_chars",
    "gt_chars",
    "lines_exact_ws",
    "ed_ws_sum",
    "unassigned_chars_ws",
    "gt_chars_ws",
)
# Per line language: counts that belong to ground-truth lines (unassigned
# predictions have no language and are left out of the per-language CER).
_LANG_KEYS = (
    "lines",
    "lines_exact",
    "ned_sum",
    "ed_sum",
    "gt_chars",
    "lines_exact_ws",
    "ed_ws_sum",
    "gt_chars_ws",
)


def _eval_image(sample: Mapping, preds: Sequence[Mapping]) -> dict[str, float]:
    gt_lines = list(sample.get("lines", []))
    gpoly = [_Poly(ln["points"]) for ln in gt_lines]
    gtext = [normalize_text(ln.get("text", "")) for ln in gt_lines]
    gign = [bool(ln.get("ignore", False)) for ln in gt_lines]
    ppoly = [_Poly(p["box"]) for p in preds]
    ptext = [normalize_text(p.get("text", "")) for p in preds]
    gtext_ws = [normalize_text_ws(ln.get("text", "")) for ln in gt_lines]
    ptext_ws = [normalize_text_ws(p.get("text", "")) for p in preds]
    glang = [str(ln.get("lang") or "?") for ln in gt_lines]
    G, P = len(gpoly), len(ppoly)

    # Intersections only for pairs whose bounding boxes overlap.
    inter: dict[tuple, float] = {}
    if G and P:
        gb = np.array([g.bbox for g in gpoly], dtype=np.float64)
        pb = np.array([p.bbox for p in ppoly], dtype=np.float64)
        ov = (
            (gb[:, None, 0] < pb[None, :, 2])
            & (pb[None, :, 0] < gb[:, None, 2])
            & (gb[:, None, 1] < pb[None, :, 3])
            & (pb[None, :, 1] < gb[:, None, 3])
        )
        for gi, pj in zip(*np.nonzero(ov)):
            a = _poly_inter(gpoly[gi], ppoly[pj])
            if a > 0:
                inter[(int(gi), int(pj))] = a

    iou_pairs, area_pairs = [], []
    for (gi, pj), a in inter.items():
        ga, pa = gpoly[gi].area, ppoly[pj].area
        union = ga + pa - a
        iou = a / union if union > 0 else 0.0
        if iou > IOU_THRESHOLD:
            iou_pairs.append((iou, gi, pj))
        if (
            ga > 0
            and pa > 0
            and a >= AREA_GT_RECALL * ga - 1e-9
            and a >= AREA_PRED_PRECISION * pa - 1e-9
        ):
            area_pairs.append((iou, gi, pj))

    def discarded(match: dict[int, int]) -> set:
        """Predictions not counted: matched to an ignored line, or unmatched
        and lying mostly inside an ignored line."""
        out = {pj for gi, pj in match.items() if gign[gi]}
        matched = set(match.values())
        if any(gign):
            for (gi, pj), a in inter.items():
                if (
                    gign[gi]
                    and pj not in matched
                    and ppoly[pj].area > 0
                    and a >= IGNORE_OVERLAP * ppoly[pj].area
                ):
                    out.add(pj)
        return out

    n_care = sum(1 for g in gign if not g)
    det_match = _greedy(iou_pairs)
    det_disc = discarded(det_match)
    det_tp = sum(1 for gi in det_match if not gign[gi])
    e2e_tp = sum(1 for gi, pj in det_match.items() if not gign[gi] and gtext[gi] == ptext[pj])
    area_match = _greedy(area_pairs)
    area_disc = discarded(area_match)
    area_tp = sum(1 for gi in area_match if not gign[gi])

    # Granularity-tolerant assignment.
    assigned: dict[int, list[int]] = {}
    unassigned_chars = 0
    unassigned_chars_ws = 0
    for pj in range(P):
        pa = ppoly[pj].area
        best, best_share = None, -1.0
        for gi in range(G):
            a = inter.get((gi, pj), 0.0)
            if a <= 0:
                continue
            share = a / pa if pa > 0 else 0.0
            cover = a / gpoly[gi].area if gpoly[gi].area > 0 else 0.0
            if share >= TOLERANT_SHARE - 1e-9 or cover >= TOLERANT_SHARE - 1e-9:
                if share > best_share:
                    best, best_share = gi, share
        if best is None:
            unassigned_chars += len(ptext[pj])
            unassigned_chars_ws += len(ptext_ws[pj])
        else:
            assigned.setdefault(best, []).append(pj)
    langs: dict[str, dict[str, float]] = {}
    for gi in range(G):
        if gign[gi]:
            continue
        gt, gt_ws = gtext[gi], gtext_ws[gi]
        c = langs.setdefault(glang[gi], {k: 0 for k in _LANG_KEYS})
        c["lines"] += 1
        c["gt_chars"] += len(gt)
        c["gt_chars_ws"] += len(gt_ws)
        if gi in assigned:
            pred = "".join(ptext[pj] for pj in assigned[gi])  # reading order
            pred_ws = join_ws([ptext_ws[pj] for pj in assigned[gi]])
            ed = edit_distance(pred, gt)
            n = max(len(pred), len(gt))
            c["ned_sum"] += 1.0 - ed / n if n else 1.0
            c["ed_sum"] += ed
            c["lines_exact"] += int(pred == gt)
            c["ed_ws_sum"] += edit_distance(pred_ws, gt_ws)
            c["lines_exact_ws"] += int(pred_ws == gt_ws)
        else:
            c["ed_sum"] += len(gt)
            c["ed_ws_sum"] += len(gt_ws)

    def total(k):
        return sum(c[k] for c in langs.values())

    return {
        "n_gt": n_care,
        "n_pred": P - len(det_disc),
        "det_tp": det_tp,
        "area_n_pred": P - len(area_disc),
        "area_tp": area_tp,
        "e2e_tp": e2e_tp,
        "lines": n_care,
        "lines_exact": total("lines_exact"),
        "ned_sum": total("ned_sum"),
        "ed_sum": total("ed_sum"),
        "unassigned_chars": unassigned_chars,
        "gt_chars": total("gt_chars"),
        "lines_exact_ws": total("lines_exact_ws"),
        "ed_ws_sum": total("ed_ws_sum"),
        "unassigned_chars_ws": unassigned_chars_ws,
        "gt_chars_ws": total("gt_chars_ws"),
        "langs": langs,
    }


def _summarise(c: Mapping[str, float], n_images: int) -> dict[str, float]:
    det = _prh(c["det_tp"], c["n_pred"], c["n_gt"])
    area = _prh(c["area_tp"], c["area_n_pred"], c["n_gt"])
    e2e = _prh(c["e2e_tp"], c["n_pred"], c["n_gt"])
    return {
        "det_precision": det["precision"],
        "det_recall": det["recall"],
        "det_hmean": det["hmean"],
        "det_area_precision": area["precision"],
        "det_area_recall": area["recall"],
        "det_area_hmean": area["hmean"],
        "e2e_precision": e2e["precision"],
        "e2e_recall": e2e["recall"],
        "e2e_hmean": e2e["hmean"],
        "line_acc": _ratio(c["lines_exact"], c["lines"], 1.0),
        "one_minus_ned": _ratio(c["ned_sum"], c["lines"], 1.0),
        "cer": _ratio(c["ed_sum"] + c["unassigned_chars"], c["gt_chars"], 0.0),
        "line_acc_ws": _ratio(c["lines_exact_ws"], c["lines"], 1.0),
        "cer_ws": _ratio(c["ed_ws_sum"] + c["unassigned_chars_ws"], c["gt_chars_ws"], 0.0),
        "space_acc": _ratio(c["lines_exact_ws"], c["lines_exact"], 1.0),
        "n_images": n_images,
        "n_lines": int(c["lines"]),
        "n_pred": int(c["n_pred"]),
    }


def _summarise_lang(c: Mapping[str, float]) -> dict[str, float]:
    return {
        "line_acc": _ratio(c["lines_exact"], c["lines"], 1.0),
        "one_minus_ned": _ratio(c["ned_sum"], c["lines"], 1.0),
        "cer": _ratio(c["ed_sum"], c["gt_chars"], 0.0),
        "line_acc_ws": _ratio(c["lines_exact_ws"], c["lines"], 1.0),
        "cer_ws": _ratio(c["ed_ws_sum"], c["gt_chars_ws"], 0.0),
        "space_acc": _ratio(c["lines_exact_ws"], c["lines_exact"], 1.0),
        "n_lines": int(c["lines"]),
        "n_exact": int(c["lines_exact"]),
    }


def _add_langs(acc: dict[str, dict[str, float]], langs: Mapping[str, Mapping[str, float]]) -> None:
    for lang, c in langs.items():
        a = acc.setdefault(lang, {k: 0 for k in _LANG_KEYS})
        for k in _LANG_KEYS:
            a[k] += c[k]


def _pred_list(predictions: Any, sid: str) -> list[Mapping]:
    p = predictions.get(sid) if isinstance(predictions, Mapping) else None
    if p is None:
        return []
    if isinstance(p, Mapping):  # {"lines": [...]} wrappers
        p = p.get("lines", p.get("predictions", []))
    return list(p)


def evaluate_e2e(samples: Sequence[Mapping], predictions: Mapping[str, Any]) -> dict[str, Any]:
    """Score end-to-end predictions.

    ``predictions``: sample id -> list of {"text", "box" ((4,2) or any
    polygon), "score"} in the predictor's reading order.  A missing id counts
    as no predictions.
    """
    total = {k: 0 for k in _COUNT_KEYS}
    by_tag: dict[str, dict[str, float]] = {}
    tag_n: dict[str, int] = {}
    per_image: dict[str, dict[str, float]] = {}
    by_lang: dict[str, dict[str, float]] = {}
    for s in samples:
        c = _eval_image(s, _pred_list(predictions, s["id"]))
        _add_langs(by_lang, c["langs"])
        for k in _COUNT_KEYS:
            total[k] += c[k]
        for t in s.get("tags", []):
            acc = by_tag.setdefault(t, {k: 0 for k in _COUNT_KEYS})
            for k in _COUNT_KEYS:
                acc[k] += c[k]
            tag_n[t] = tag_n.get(t, 0) + 1
        summ = _summarise(c, 1)
        per_image[s["id"]] = {
            k: summ[k]
            for k in (
                "det_hmean",
                "e2e_hmean",
                "line_acc",
                "one_minus_ned",
                "cer",
                "line_acc_ws",
                "n_lines",
                "n_pred",
            )
        }
    return {
        "kind": "e2e",
        "n_images": len(samples),
        "all": _summarise(total, len(samples)),
        "tags": {t: _summarise(by_tag[t], tag_n[t]) for t in sorted(by_tag)},
        "langs": {lang: _summarise_lang(by_lang[lang]) for lang in sorted(by_lang)},
        "per_image": per_image,
    }


def evaluate_rec(samples: Sequence[Mapping], predictions: Mapping[str, Any]) -> dict[str, Any]:
    """Recognition-only scores: exact-match accuracy and 1-NED (means over
    crops) plus CER; ``predictions``: sample id -> text (missing = "")."""

    def agg(items: list[tuple]) -> dict[str, float]:
        n = len(items)
        ed = sum(r[2] for r in items)
        chars = sum(r[3] for r in items)
        exact = sum(r[0] for r in items)
        exact_ws = sum(r[4] for r in items)
        return {
            "accuracy": _ratio(exact, n, 1.0),
            "one_minus_ned": _ratio(sum(r[1] for r in items), n, 1.0),
            "cer": _ratio(ed, chars, 0.0),
            "accuracy_ws": _ratio(exact_ws, n, 1.0),
            "cer_ws": _ratio(sum(r[5] for r in items), sum(r[6] for r in items), 0.0),
            "space_acc": _ratio(exact_ws, exact, 1.0),
            "n": n,
        }

    rows: list[tuple] = []
    tag_rows: dict[str, list[tuple]] = {}
    lang_rows: dict[str, list[tuple]] = {}
    per_sample: dict[str, dict[str, Any]] = {}
    for s in samples:
        p = predictions.get(s["id"], "") if isinstance(predictions, Mapping) else ""
        if isinstance(p, Mapping):
            p = p.get("text", "")
        pred = normalize_text(p or "")
        gt = normalize_text(s.get("text", ""))
        pred_ws = normalize_text_ws(p or "")
        gt_ws = normalize_text_ws(s.get("text", ""))
        ed = edit_distance(pred, gt)
        n = max(len(pred), len(gt))
        row = (
            int(pred == gt),
            1.0 - ed / n if n else 1.0,
            ed,
            len(gt),
            int(pred_ws == gt_ws),
            edit_distance(pred_ws, gt_ws),
            len(gt_ws),
        )
        rows.append(row)
        for t in s.get("tags", []):
            tag_rows.setdefault(t, []).append(row)
        lang_rows.setdefault(str(s.get("lang") or "?"), []).append(row)
        per_sample[s["id"]] = {"exact": bool(row[0]), "one_minus_ned": row[1]}
    return {
        "kind": "rec",
        "n_images": len(samples),
        "all": agg(rows),
        "tags": {t: agg(tag_rows[t]) for t in sorted(tag_rows)},
        "langs": {lang: agg(lang_rows[lang]) for lang in sorted(lang_rows)},
        "per_image": per_sample,
    }


# --------------------------------------------------------------------------
# Report formatting
# --------------------------------------------------------------------------
_E2E_ROWS = [
    ("det_precision", "det P"),
    ("det_recall", "det R"),
    ("det_hmean", "det H"),
    ("det_area_precision", "det-area P"),
    ("det_area_recall", "det-area R"),
    ("det_area_hmean", "det-area H"),
    ("e2e_precision", "e2e strict P"),
    ("e2e_recall", "e2e strict R"),
    ("e2e_hmean", "e2e strict H"),
    ("line_acc", "line acc"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("line_acc_ws", "line acc (ws)"),
    ("cer_ws", "CER (ws)"),
    ("space_acc", "spaces right"),
]
_E2E_TAG_COLS = [
    ("det_hmean", "detH"),
    ("det_area_hmean", "areaH"),
    ("e2e_hmean", "e2eH"),
    ("line_acc", "lineAcc"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("line_acc_ws", "lineAcWS"),
    ("cer_ws", "CER-WS"),
    ("space_acc", "spaceOK"),
]
_LANG_COLS = [
    ("line_acc", "lineAcc"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("line_acc_ws", "lineAcWS"),
    ("cer_ws", "CER-WS"),
    ("space_acc", "spaceOK"),
]
_REC_ROWS = [
    ("accuracy", "accuracy"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("accuracy_ws", "accuracy (ws)"),
    ("cer_ws", "CER (ws)"),
    ("space_acc", "spaces right"),
]
_REC_TAG_COLS = [
    ("accuracy", "acc"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("accuracy_ws", "accWS"),
    ("cer_ws", "CER-WS"),
    ("space_acc", "spaceOK"),
]
_LOWER_IS_BETTER = {"cer", "cer_ws"}


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def _format_one(report: Mapping, baseline: Mapping | None, names: Sequence[str]) -> str:
    kind = report.get("kind") or ("rec" if "accuracy" in report.get("all", {}) else "e2e")
    rows = _REC_ROWS if kind == "rec" else _E2E_ROWS
    tag_cols = _REC_TAG_COLS if kind == "rec" else _E2E_TAG_COLS
    a = report.get("all", {})
    b = baseline.get("all", {}) if baseline else None
    out: list[str] = []
    title = "Recognition-only (crops)" if kind == "rec" else "End-to-end"
    out.append(f"== {title}: {report.get('n_images', '?')} images ==")
    w = 14
    if b is None:
        out.append(f"{'metric':<{w}} {names[0]:>10}")
        for k, label in rows:
            out.append(f"{label:<{w}} {_fmt(a.get(k)):>10}")
    else:
        out.append(f"{'metric':<{w}} {names[0]:>10} {names[1]:>10} {'delta':>8}")
        for k, label in rows:
            va, vb = a.get(k), b.get(k)
            d = (
                f"{va - vb:+.4f}"
                if isinstance(va, (int, float)) and isinstance(vb, (int, float))
                else "-"
            )
            out.append(f"{label:<{w}} {_fmt(va):>10} {_fmt(vb):>10} {d:>8}")
    lang_cols = _REC_TAG_COLS if kind == "rec" else _LANG_COLS
    for key, title, cols in (
        ("tags", "per tag", tag_cols),
        ("langs", "per line language", lang_cols),
    ):
        groups = report.get(key, {})
        if groups:
            out.append("")
            out.append(f"-- {title} --")
            out.extend(
                _group_table(groups, baseline.get(key, {}) if baseline else None, cols, names)
            )
    return "\n".join(out)


def _group_table(
    groups: Mapping, bgroups: Mapping | None, cols: Sequence[tuple], names: Sequence[str]
) -> list[str]:
    def count(r: Mapping) -> Any:
        return r.get("n_images", r.get("n", r.get("n_lines", "")))

    out: list[str] = []
    if bgroups is None:
        out.append(f"{'tag':<12} {'n':>4} " + " ".join(f"{lab:>8}" for _, lab in cols))
        for t in sorted(groups):
            r = groups[t]
            out.append(
                f"{t:<12} {count(r)!s:>4} " + " ".join(f"{_fmt(r.get(k)):>8}" for k, _ in cols)
            )
        return out
    out.append(f"{'tag':<12} {'n':>4} " + " ".join(f"{lab:>17}" for _, lab in cols))
    out.append(
        f"{'':<12} {'':>4} " + " ".join(f"{names[0][:8]:>8} {names[1][:8]:>8}" for _ in cols)
    )
    for t in sorted(set(groups) | set(bgroups)):
        r, rb = groups.get(t, {}), bgroups.get(t, {})
        n = count(r) if r else count(rb)
        cells = " ".join(f"{_fmt(r.get(k)):>8} {_fmt(rb.get(k)):>8}" for k, _ in cols)
        out.append(f"{t:<12} {n!s:>4} {cells}")
    return out


def format_report(
    report: Mapping[str, Any],
    baseline: Mapping[str, Any] | None = None,
    names: Sequence[str] = ("edgeocr", "baseline"),
) -> str:
    """Readable table of an e2e or rec report (or a dict holding both under
    "e2e" and "rec"); with ``baseline``, the two side by side per metric."""
    if "e2e" in report or "rec" in report:
        parts = []
        for key in ("e2e", "rec"):
            if key in report and report[key]:
                bb = baseline.get(key) if baseline else None
                parts.append(_format_one(report[key], bb, names))
        return "\n\n".join(parts)
    return _format_one(report, baseline, names)
