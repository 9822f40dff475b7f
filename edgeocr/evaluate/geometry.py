"""Polygon geometry for the detection metrics: area, intersection and IoU of simple polygons.

Standard library + numpy only (no shapely): convex polygons are clipped
(Sutherland-Hodgman), other simple polygons triangulated first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_EPS = 1e-9


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


class Polygon:
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


def polygons_intersection(a: Polygon, b: Polygon) -> float:
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


def _prep(p: Any) -> Polygon:
    return p if isinstance(p, Polygon) else Polygon(p)


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
    return polygons_intersection(_prep(a), _prep(b))


def polygon_iou(a: Any, b: Any) -> float:
    """Intersection over union of two simple polygons (points as (N, 2))."""
    pa, pb = _prep(a), _prep(b)
    inter = polygons_intersection(pa, pb)
    union = pa.area + pb.area - inter
    if union <= 0:
        return 0.0
    return float(inter / union)
