"""Drawings of results: what the parser saw on a page (`DocumentResult.draw`).

A parsed page is drawn as its image with each layout region's box in its type's colour (a
translucent fill and an outline), a label with its reading-order number (counted from 1: the
JSON tree's ``order`` + 1) and type, a table's cells, the OCR lines thin inside their regions,
and furniture (running headers, footers, page numbers) dashed and hatched. Where a page holds
text from both sources (OCR and the PDF's own text layer), each label says which one its region
came from and the lines of the PDF's layer are dashed. A legend below the page names the colours.

Colours are Paul Tol's "muted" qualitative scheme (SRON, "Colour schemes and templates"), made
to stay apart for readers with any common colour-vision deficiency; furniture is near black and
also told apart by its pattern. tests/python/test_review.py checks that every two colours stay
apart (CIELAB distance) under simulated protanopia, deuteranopia and tritanopia (Machado et al.
2009), and that label text on each reads at WCAG's 4.5:1. The review page
(edgeocr/documents/review.py) uses the same colours.

Labels never cover each other: each is placed at the first free spot of a list of places around
its box (above it, inside its top, below it, on either side), then further down along its box,
and when the page has no room left, in a margin beside the page with a leader line to its box
(:func:`place_labels`). Text is drawn with OpenCV's Hershey font (ASCII only: labels are
numbers and type names).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._numpy import np
from .errors import InvalidInputError

# Region type -> colour, "#RRGGBB" (Paul Tol's muted scheme; furniture a neutral grey).
REGION_COLORS = {
    "text": "#88CCEE",  # cyan
    "title": "#332288",  # indigo
    "list": "#44AA99",  # teal
    "figure": "#117733",  # green
    "figure_caption": "#999933",  # olive
    "table": "#CC6677",  # rose
    "table_caption": "#882255",  # wine
    "reference": "#DDCC77",  # sand
    "equation": "#AA4499",  # purple
    # Furniture: near black, told apart by its pattern (dashed, hatched) as much as its colour.
    "header": "#222222",
    "footer": "#222222",
    "page_number": "#222222",
}
# A type this palette does not know (a newer core's): Tol's pale grey, his colour for "bad data".
OTHER_COLOR = "#DDDDDD"
TEXT_SOURCES = ("ocr", "pdf")


def color_of(region_type: str) -> str:
    """The "#RRGGBB" colour of a region type."""
    return REGION_COLORS.get(region_type, OTHER_COLOR)


def _bgr(hex_color: str) -> tuple:
    v = int(hex_color[1:], 16)
    return (float(v & 255), float((v >> 8) & 255), float(v >> 16))


def ink_on(hex_color: str) -> str:
    """Black or white: the text colour that reads best on ``hex_color`` (WCAG relative
    luminance; black above 0.18, where both contrasts are equal)."""
    v = int(hex_color[1:], 16)

    def lin(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * lin(v >> 16) + 0.7152 * lin((v >> 8) & 255) + 0.0722 * lin(v & 255)
    return "#000000" if lum > 0.179 else "#FFFFFF"


def text_source(item) -> str:
    """Where a region's or line's text came from: "ocr" or "pdf" (the PDF's text layer); "ocr"
    for results of a core that does not say."""
    src = getattr(item, "text_source", "ocr")
    return src if src in TEXT_SOURCES else "ocr"


def page_sources(result) -> set:
    """The sources of text a parsed page holds (its regions' and lines')."""
    found = {text_source(r) for r in getattr(result, "regions", ())}
    found |= {text_source(line) for line in result.lines}
    return found


def region_label(result, k: int, mixed: bool | None = None) -> str:
    """The label drawn on region ``k``: "3 title h2", "12 table", "5 text pdf" (its source of
    text where the page has both, ``mixed``)."""
    r = result.regions[k]
    label = f"{k + 1} {r.type}"
    if r.type == "title" and 1 <= int(r.heading_level) <= 6:
        label += f" h{int(r.heading_level)}"
    if mixed is None:
        mixed = len(page_sources(result)) > 1
    if mixed:
        label += " " + text_source(r)
    return label


def bgr_copy(image) -> np.ndarray:
    """``image`` (anything `load_image` takes) as a new HxWx3 BGR uint8 array."""
    import cv2

    from .image_io import load_image

    img = load_image(image)
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 2:
        return cv2.cvtColor(np.ascontiguousarray(img[:, :, 0]), cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    return img.copy()


# ---- label placement ----------------------------------------------------------------------


# Up to this many boxes, a label's spot is first sought where it covers no other box (a check of
# every box for every spot: quadratic, so not on a hostile page of thousands).
AVOID_BOXES_UP_TO = 1000


def place_labels(boxes, sizes, width: int, height: int, gap: float = 2.0):
    """Places a label of ``sizes[i]`` (w, h) near each box ``boxes[i]`` (x0, y0, x1, y1) on a
    ``width`` x ``height`` page so that no two labels overlap (nor come closer than ``gap``).

    Returns ``(rects, margin)``: each label's (x0, y0, x1, y1) as an (n, 4) array, and the width
    of the margin right of the page that labels with no room on the page went to (0 when none
    did; their rects are then at x >= ``width``). Boxes are placed in the order given (the
    reading order), each at the first free spot of: above its top-left corner, inside its
    top-left corner, above its top-right corner, inside its top-right corner, below its
    bottom-left corner, left of its top-left corner, right of its top-right corner; then down
    its left edge and its right edge a label height at a time (at most 50 steps each); else the
    margin, in the first free slot at or below its top. A spot that covers none of the other
    boxes is taken before one that does (up to ``AVOID_BOXES_UP_TO`` boxes: the text under a
    label stays its own region's). Labels placed so far are looked up in a grid of cells as
    large as the largest label, so a page of thousands of regions takes time about linear in
    their number.
    """
    n = len(boxes)
    rects = np.zeros((n, 4), np.float64)
    if n == 0:
        return rects, 0
    sizes = [(float(w), float(h)) for w, h in sizes]
    cw = max(max(w for w, _ in sizes) + 2 * gap, 1.0)
    ch = max(max(h for _, h in sizes) + 2 * gap, 1.0)
    grid: dict = {}  # (column, row) -> the labels (grown by the gap) that reach into that cell
    margin_x = float(width) + gap  # where margin labels start
    margin_w = 0.0
    margin = _Intervals()  # y ranges taken in the margin
    others = np.asarray(boxes, np.float64).reshape(-1, 4) if n <= AVOID_BOXES_UP_TO else None

    def cells(x0, y0, x1, y1):
        for ix in range(math.floor(x0 / cw), math.floor(x1 / cw) + 1):
            for iy in range(math.floor(y0 / ch), math.floor(y1 / ch) + 1):
                yield ix, iy

    def free(x0, y0, x1, y1) -> bool:
        for cell in cells(x0, y0, x1, y1):
            for p in grid.get(cell, ()):
                if p[0] < x1 and p[2] > x0 and p[1] < y1 and p[3] > y0:
                    return False
        return True

    for i in range(n):
        bx0, by0, bx1, by1 = (float(v) for v in boxes[i])
        lw, lh = sizes[i]
        spots = [
            (bx0, by0 - lh),
            (bx0, by0),
            (bx1 - lw, by0 - lh),
            (bx1 - lw, by0),
            (bx0, by1),
            (bx0 - lw, by0),
            (bx1, by0),
        ]
        step = max(lh, 1.0)
        steps = min(int((by1 - by0) / step), 50) if by1 > by0 else 0
        spots += [(bx0, by0 + k * step) for k in range(1, steps + 1)]
        spots += [(bx1 - lw, by0 + k * step) for k in range(1, steps + 1)]
        spots = [
            (x, y) for x, y in spots if x >= 0 and y >= 0 and x + lw <= width and y + lh <= height
        ]
        spot = None
        if others is not None and spots:  # first the spots that cover no other box
            xy = np.asarray(spots)
            covers = (
                (others[None, :, 0] < xy[:, 0:1] + lw)
                & (others[None, :, 2] > xy[:, 0:1])
                & (others[None, :, 1] < xy[:, 1:2] + lh)
                & (others[None, :, 3] > xy[:, 1:2])
            )
            covers[:, i] = False
            for k in np.flatnonzero(~covers.any(axis=1)):
                x, y = spots[k]
                if free(x - gap, y - gap, x + lw + gap, y + lh + gap):
                    spot = (x, y)
                    break
        if spot is None:
            for x, y in spots:
                if free(x - gap, y - gap, x + lw + gap, y + lh + gap):
                    spot = (x, y)
                    break
        if spot is None:  # the margin: the first free slot at or below the box's top
            y = margin.take(max(0.0, by0) if math.isfinite(by0) else 0.0, lh + gap)
            margin_w = max(margin_w, lw + 2 * gap)
            spot = (margin_x, y)
        x, y = spot
        rects[i] = (x, y, x + lw, y + lh)
        grown = (x - gap, y - gap, x + lw + gap, y + lh + gap)
        for cell in cells(*grown):
            grid.setdefault(cell, []).append(grown)
    return rects, int(math.ceil(margin_w))


class _Intervals:
    """Disjoint ranges [a, b) of a line, kept sorted and merged where they touch."""

    def __init__(self):
        self.starts: list = []
        self.ends: list = []

    def take(self, want: float, h: float) -> float:
        """Takes the first free range of length ``h`` starting at or after ``want``."""
        import bisect

        i = bisect.bisect_right(self.ends, want)  # the first range ending after ``want``
        y = want
        while i < len(self.starts) and self.starts[i] < y + h:
            y = max(y, self.ends[i])
            i += 1
        # Insert [y, y + h) before range i, merging with its neighbours where they touch.
        lo = i - 1 if i > 0 and self.ends[i - 1] >= y else i
        hi = i + 1 if i < len(self.starts) and self.starts[i] <= y + h else i
        start = min([y] + self.starts[lo:hi])
        end = max([y + h] + self.ends[lo:hi])
        self.starts[lo:hi] = [start]
        self.ends[lo:hi] = [end]
        return y


# ---- the drawing --------------------------------------------------------------------------


@dataclass
class _Style:
    unit: float  # 1 on a page whose longer side is 1000 px
    box: int  # region outline thickness
    font: float  # Hershey font scale of labels
    ink: int  # text stroke thickness
    pad: int  # padding around label text


def _style(width: int, height: int) -> _Style:
    unit = max(width, height, 1) / 1000
    return _Style(
        unit=unit,
        box=max(2, round(1.5 * unit)),
        font=max(0.4, 0.42 * unit),
        ink=max(1, round(0.9 * unit)),
        pad=max(2, round(2.5 * unit)),
    )


def _text_size(text: str, st: _Style) -> tuple:
    import cv2

    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, st.font, st.ink)
    return w + 2 * st.pad, h + base + 2 * st.pad, base


def _dashed(img, pts, color, thickness: int, dash: float, gap: float, closed: bool = True):
    """A polyline of dashes ``dash`` long, ``gap`` apart."""
    import cv2

    pts = [tuple(map(float, p)) for p in pts]
    if closed:
        pts.append(pts[0])
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        length = math.hypot(x1 - x0, y1 - y0)
        if not math.isfinite(length) or length == 0:
            continue
        n = min(int(length // (dash + gap)) + 1, 10_000)
        for k in range(n):
            a = k * (dash + gap) / length
            b = min(1.0, (k * (dash + gap) + dash) / length)
            p = (round(x0 + (x1 - x0) * a), round(y0 + (y1 - y0) * a))
            q = (round(x0 + (x1 - x0) * b), round(y0 + (y1 - y0) * b))
            cv2.line(img, p, q, color, thickness, cv2.LINE_AA)


def _furniture_dash(st: _Style) -> tuple:
    """(dash, gap) of furniture's outline: gaps wider than the line is thick."""
    return max(8.0, 8 * st.unit), max(4.0 + st.box, 5 * st.unit)


def _line_dash(st: _Style) -> tuple:
    """(dash, gap) of the lines from the PDF's text layer."""
    return max(4.0, 4 * st.unit), max(3.0, 3 * st.unit)


def _clip_box(box, width: int, height: int):
    """A region's (x0, y0, x1, y1) as ints inside the page, or None when not finite or empty."""
    try:
        x0, y0, x1, y1 = (float(v) for v in box)
    except (TypeError, ValueError):
        return None
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
        return None
    x0, x1 = sorted((min(max(x0, 0.0), width - 1.0), min(max(x1, 0.0), width - 1.0)))
    y0, y1 = sorted((min(max(y0, 0.0), height - 1.0), min(max(y1, 0.0), height - 1.0)))
    return round(x0), round(y0), round(x1), round(y1)


def _tint(img, box, color, alpha: float) -> None:
    x0, y0, x1, y1 = box
    roi = img[y0 : y1 + 1, x0 : x1 + 1]
    roi[:] = (roi * (1 - alpha) + np.array(color) * alpha).astype(np.uint8)


def _hatch(img, box, color, spacing: int, alpha: float = 0.45) -> None:
    """Diagonal lines ``spacing`` apart over ``box``, blended at ``alpha`` (the text under them
    stays readable)."""
    import cv2

    x0, y0, x1, y1 = box
    roi = img[y0 : y1 + 1, x0 : x1 + 1]
    h, w = roi.shape[:2]
    lines = roi.copy()
    for c in range(-h, w, max(4, spacing)):
        cv2.line(lines, (c, h), (c + h, 0), color, 1, cv2.LINE_AA)
    roi[:] = cv2.addWeighted(lines, alpha, roi, 1 - alpha, 0)


def _darker(color, f: float = 0.7) -> tuple:
    return tuple(c * f for c in color)


def drawing_labels(result, width: int, height: int):
    """The labels of a parsed page's drawing: ``(texts, rects, margin)`` for its regions in
    reading order, placed by :func:`place_labels` on a ``width`` x ``height`` page; a region
    whose box is not finite is not drawn and has no label (its rect is None)."""
    st = _style(width, height)
    mixed = len(page_sources(result)) > 1
    texts, boxes, sizes, drawn = [], [], [], []
    for k, r in enumerate(result.regions):
        texts.append(region_label(result, k, mixed))
        box = _clip_box(r.box, width, height)
        if box is not None:
            w, h, _ = _text_size(texts[-1], st)
            boxes.append(box)
            sizes.append((w, h))
            drawn.append(k)
    placed, margin = place_labels(boxes, sizes, width, height, gap=max(1.0, st.unit))
    rects = [None] * len(texts)
    for k, rect in zip(drawn, placed):
        rects[k] = tuple(float(v) for v in rect)
    return texts, rects, margin


def draw_document(result, image, *, lines: bool = True, legend: bool = True) -> np.ndarray:
    """The drawing of a parsed page (`DocumentResult`) on ``image``, its page: a BGR uint8
    array, the page at its own size at the top left, a margin right of it when labels needed
    one, and the legend below it (unless ``legend`` is False). ``lines``: draw the OCR lines."""
    import cv2

    page = bgr_copy(image)
    height, width = page.shape[:2]
    want = (int(getattr(result, "width", 0) or 0), int(getattr(result, "height", 0) or 0))
    if want[0] > 0 and want[1] > 0 and want != (width, height):
        raise InvalidInputError(
            f"the image is {width} x {height} pixels, the page was parsed at {want[0]} x {want[1]}"
            ": draw() needs the page image the result came from"
        )
    st = _style(width, height)
    mixed = len(page_sources(result)) > 1
    regions = list(result.regions)
    clipped = [_clip_box(r.box, width, height) for r in regions]
    colors = [_bgr(color_of(r.type)) for r in regions]

    # Fills first (under everything), furniture hatched.
    for r, box, color in zip(regions, clipped, colors):
        if box is None:
            continue
        _tint(page, box, color, 0.16)
        if r.furniture:
            _hatch(page, box, color, round(9 * st.unit))
    # Table cells and lines, thin.
    for r, box, color in zip(regions, clipped, colors):
        if box is None:
            continue
        if r.table is not None:
            for c in r.table.cells:
                cb = _clip_box(c.box, width, height)
                if cb is not None:
                    cv2.rectangle(page, cb[:2], cb[2:], _darker(color, 0.85), 1, cv2.LINE_AA)
        if lines:
            for line in r.lines:
                pts = np.asarray(line.box, dtype=np.float64).reshape(-1, 2)
                if not np.isfinite(pts).all():
                    continue
                ink = _darker(color, 0.6)
                if mixed and text_source(line) == "pdf":
                    _dashed(page, pts, ink, 1, *_line_dash(st))
                else:
                    pts32 = np.round(pts).astype(np.int32).reshape(-1, 1, 2)
                    cv2.polylines(page, [pts32], True, ink, 1, cv2.LINE_AA)
    # Outlines: solid, or dashed for furniture.
    for r, box, color in zip(regions, clipped, colors):
        if box is None:
            continue
        x0, y0, x1, y1 = box
        if r.furniture:
            corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
            _dashed(page, corners, color, st.box, *_furniture_dash(st))
        else:
            cv2.rectangle(page, (x0, y0), (x1, y1), color, st.box, cv2.LINE_AA)

    texts, rects, margin = drawing_labels(result, width, height)
    rows = _legend_rows(result, width + margin, st) if legend else []
    row_h = _text_size("Ag", st)[1] + 2 * st.pad
    legend_h = (len(rows) * row_h + 2 * st.pad) if rows else 0
    canvas = np.full((height + legend_h, width + margin, 3), 255, np.uint8)
    canvas[:height, :width] = page
    if margin:
        cv2.line(canvas, (width, 0), (width, height - 1), (200, 200, 200), 1)

    for k, (text, rect) in enumerate(zip(texts, rects)):
        if rect is None:
            continue
        r, color = regions[k], colors[k]
        x0, y0, x1, y1 = (round(v) for v in rect)
        box = clipped[k]
        if box is not None and x0 >= width:  # in the margin: a leader line to the box
            cv2.line(canvas, (x0, (y0 + y1) // 2), (box[2], box[1]), color, 1, cv2.LINE_AA)
        cv2.rectangle(canvas, (x0, y0), (x1 - 1, y1 - 1), color, -1)
        _, _, base = _text_size(text, st)
        cv2.putText(
            canvas,
            text,
            (x0 + st.pad, y1 - st.pad - base),
            cv2.FONT_HERSHEY_SIMPLEX,
            st.font,
            _bgr(ink_on(color_of(r.type))),
            st.ink,
            cv2.LINE_AA,
        )
    if rows:
        _draw_legend(canvas, rows, height + st.pad, row_h, st)
    return canvas


def _legend_entries(result, st: _Style) -> list:
    """(kind, colour, text) of the legend: the region types on the page (furniture as one
    entry), then the marks."""
    regions = list(result.regions)
    entries = []
    seen = set()
    order = [t for t in REGION_COLORS if t not in ("header", "footer", "page_number")]
    order += sorted({r.type for r in regions} - set(REGION_COLORS))
    for t in order:
        if any(r.type == t and not r.furniture for r in regions) and t not in seen:
            seen.add(t)
            entries.append(("fill", color_of(t), t))
    furniture = sorted({r.type for r in regions if r.furniture})
    if furniture:
        entries.append(("hatch", REGION_COLORS["header"], "furniture: " + ", ".join(furniture)))
    if any(r.table is not None and r.table.cells for r in regions):
        entries.append(("cell", REGION_COLORS["table"], "table cell"))
    if any(r.lines for r in regions):
        entries.append(("line", "#444444", "line"))
    if len(page_sources(result)) > 1:
        entries.append(("dash", "#444444", "line from the PDF's text"))
    if not regions:
        entries.append(("none", "#444444", "no regions"))
    return entries


def _legend_rows(result, width: int, st: _Style) -> list:
    """The legend's entries wrapped into rows that fit ``width``."""
    rows, row, x = [], [], st.pad
    for e in _legend_entries(result, st):
        w = _entry_width(e[2], st)
        if row and x + w > width:
            rows.append(row)
            row, x = [], st.pad
        row.append(e)
        x += w
    if row:
        rows.append(row)
    return rows


def _entry_width(text: str, st: _Style) -> int:
    tw, th, _ = _text_size(text, st)
    return th * 2 + tw + 3 * st.pad


def _draw_legend(canvas, rows, top: int, row_h: int, st: _Style) -> None:
    import cv2

    for i, row in enumerate(rows):
        x, y = st.pad, top + i * row_h
        for kind, hex_color, text in row:
            color = _bgr(hex_color)
            tw, th, base = _text_size(text, st)
            sw = th  # the swatch: a square as tall as the text's box
            sy0, sy1 = y + st.pad, y + st.pad + th - 1
            if kind in ("fill", "hatch"):
                box = (x, sy0, x + 2 * sw - 1, sy1)
                _tint(canvas, box, color, 0.16)
                if kind == "hatch":
                    _hatch(canvas, box, color, round(9 * st.unit))
                    _dashed(canvas, [box[:2], (box[2], box[1]), box[2:], (box[0], box[3])],
                            color, st.box, *_furniture_dash(st))  # fmt: skip
                else:
                    cv2.rectangle(canvas, box[:2], box[2:], color, st.box, cv2.LINE_AA)
            elif kind == "cell":
                for k in range(3):
                    cx = x + k * (2 * sw) // 3
                    cv2.rectangle(canvas, (cx, sy0), (cx + (2 * sw) // 3, sy1), color, 1)
            elif kind == "line":
                cv2.rectangle(canvas, (x, sy0 + th // 3), (x + 2 * sw - 1, sy1 - th // 3), color, 1)
            elif kind == "dash":
                y0, y1 = sy0 + th // 3, sy1 - th // 3
                _dashed(canvas, [(x, y0), (x + 2 * sw - 1, y0), (x + 2 * sw - 1, y1), (x, y1)],
                        color, 1, *_line_dash(st))  # fmt: skip
            cv2.putText(
                canvas,
                text,
                (x + 2 * sw + st.pad, sy0 + th - base),
                cv2.FONT_HERSHEY_SIMPLEX,
                st.font,
                (0, 0, 0),
                st.ink,
                cv2.LINE_AA,
            )
            x += _entry_width(text, st)
