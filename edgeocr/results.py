"""Result types returned by `Predictor`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ._numpy import np
from .errors import EdgeOCRError


def _box_list(box) -> list:
    if isinstance(box, _CoreBox):  # the core's 8 numbers, as float32 values: no numpy needed
        return [[round(box[i], 2), round(box[i + 1], 2)] for i in range(0, 8, 2)]
    return [[round(float(x), 2), round(float(y), 2)] for x, y in box]


class _CoreBox(tuple):
    """A box as the core gives it: 8 floats (x0, y0, ..., x3, y3), each a float32 value."""

    __slots__ = ()


class _Box:
    """The ``box`` field of a line or word: a (4, 2) float32 array, made from the core's 8
    numbers when it is first read. Printing a result's text then needs no numpy
    (``edgeocr predict`` on one image imports none). Any other value is kept as given."""

    def __set_name__(self, owner, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:  # a dataclass asking for a default: there is none
            raise AttributeError(self.slot[1:])
        value = obj.__dict__[self.slot]
        if isinstance(value, _CoreBox):
            value = np.array(value, dtype=np.float32).reshape(4, 2)
            obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.slot] = value

    @staticmethod
    def raw(obj, name: str = "box"):
        """The stored value, converted or not."""
        return obj.__dict__["_" + name]


@dataclass(frozen=True, eq=False)
class OcrWord:
    """One word of a line: the line's text split at spaces.

    ``box`` is a (4, 2) float32 array in source-image pixels on the line's box,
    its corners in the order of the line's box (clockwise from the top-left
    corner; for a flipped line, as the line's box is). It comes from the
    recogniser's own timesteps: where it emitted the word's characters
    (docs/words.md). ``score``: the mean of the characters' CTC max
    probabilities. Chinese or Japanese text without spaces is one word per run
    between spaces. Equal when text, score and box are.
    """

    text: str
    box: np.ndarray = _Box()
    score: float

    def to_dict(self) -> dict:
        """The word as JSON-ready values (text, score, box)."""
        return {
            "text": self.text,
            "score": round(float(self.score), 5),
            "box": _box_list(_Box.raw(self)),
        }

    def __eq__(self, other) -> bool:
        if not isinstance(other, OcrWord):
            return NotImplemented
        return (
            self.text == other.text
            and self.score == other.score
            and np.array_equal(self.box, other.box)
        )

    def __hash__(self) -> int:
        return hash((self.text, self.score))

    def __repr__(self) -> str:
        x0, y0 = self.box.min(axis=0)
        x1, y1 = self.box.max(axis=0)
        box = f"[{x0:.0f},{y0:.0f} - {x1:.0f},{y1:.0f}]"
        return f"OcrWord({self.text!r}, score={self.score:.3f}, box={box})"


@dataclass
class OcrLine:
    """One recognised text line.

    ``box`` is a (4, 2) float32 array in source-image pixels, clockwise from
    the top-left corner. ``score`` is the recognition confidence, ``det_score``
    the detector's. ``flipped``: the direction classifier read it upside down.
    ``words``: its words in text order (`OcrWord`), their texts joined with
    single spaces give ``text`` (unless ``text`` has runs of spaces).
    ``turns``: the quarter turns (0-3) the pipeline applied to the line's crop
    to read it: 1 for a vertical line (read turned 90 degrees, ``rotate_ratio``),
    plus 2 when ``flipped``. The box's corners starting ``turns`` corners later
    are the text's top-left, top-right, bottom-right and bottom-left.
    """

    text: str
    score: float
    box: np.ndarray = _Box()
    det_score: float = 0.0
    flipped: bool = False
    words: tuple[OcrWord, ...] = ()
    turns: int = 0

    def to_dict(self) -> dict:
        """The line as JSON-ready values (text, score, box, ..., words)."""
        return {
            "text": self.text,
            "score": round(float(self.score), 5),
            "box": _box_list(_Box.raw(self)),
            "det_score": round(float(self.det_score), 5),
            "flipped": bool(self.flipped),
            "turns": int(self.turns),
            "words": [w.to_dict() for w in self.words],
        }

    @classmethod
    def _from_core(cls, raw: tuple) -> OcrLine:
        """A line from the tuple ``_core.Pipeline`` gives (text, score, det_score, box, flipped,
        words, turns)."""
        text, score, det_score, box, flipped, words, turns = raw
        return cls(
            text,
            float(score),
            _CoreBox(box),
            float(det_score),
            bool(flipped),
            tuple(OcrWord(t, _CoreBox(b), float(s)) for t, s, b in words),
            int(turns),
        )

    def __repr__(self) -> str:
        x0, y0 = self.box.min(axis=0)
        x1, y1 = self.box.max(axis=0)
        box = f"[{x0:.0f},{y0:.0f} - {x1:.0f},{y1:.0f}]"
        return f"OcrLine({self.text!r}, score={self.score:.3f}, box={box})"


@dataclass
class OcrResult:
    """Lines in reading order, plus seconds spent per stage.

    ``timings``: seconds per stage (det, cls, rec, total), of which inside the runtime
    (det_model, cls_model, rec_model); ``recheck`` and ``recheck_model``: of rec's, the recheck
    model's pass. ``work``: what the call gave the models, counted (the same under any load):
    det_pixels (det input pixels of every run and tile), cls_lines, rec_lines and rec_columns
    (crops read and input columns, lines x padded width), recheck_lines, recheck_columns.
    """

    lines: list[OcrLine]
    timings: dict = field(default_factory=dict)
    image_size: tuple = (0, 0)  # (width, height)
    source: str | None = None
    work: dict = field(default_factory=dict)

    @property
    def text(self) -> str:
        """All lines joined with newlines, in reading order."""
        return "\n".join(line.text for line in self.lines)

    @property
    def boxes(self) -> np.ndarray:
        """(N, 4, 2) float32."""
        if not self.lines:
            return np.zeros((0, 4, 2), np.float32)
        return np.stack([line.box for line in self.lines]).astype(np.float32)

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self):
        return iter(self.lines)

    def to_dict(self) -> dict:
        """The result as JSON-ready values (lines, timings, image size, ...)."""
        d = {
            "lines": [line.to_dict() for line in self.lines],
            "timings": {k: round(float(v), 6) for k, v in self.timings.items()},
            "image_size": list(self.image_size),
        }
        if self.source is not None:
            d["source"] = self.source
        return d

    def to_json(self, **kwargs) -> str:
        """The result as JSON text (``json.dumps`` keywords pass through)."""
        kwargs.setdefault("ensure_ascii", False)
        return json.dumps(self.to_dict(), **kwargs)

    def draw(self, image=None, *, color=(0, 200, 0), thickness: int = 2) -> np.ndarray:
        """An annotated BGR copy of ``image`` (or of the source path): boxes and line numbers."""
        import numbers

        import cv2

        from .draw import bgr_copy
        from .errors import InvalidInputError

        if (
            isinstance(thickness, bool)
            or not isinstance(thickness, int)
            or not 1 <= thickness <= 255
        ):
            raise InvalidInputError(f"thickness must be an integer in [1, 255], got {thickness!r}")
        if (
            not isinstance(color, (tuple, list, np.ndarray))
            or len(color) != 3
            or not all(isinstance(c, numbers.Real) and 0 <= c <= 255 for c in color)
        ):
            raise InvalidInputError(f"color must be 3 numbers in [0, 255] (B, G, R), got {color!r}")
        color = tuple(float(c) for c in color)  # what OpenCV takes (not numpy scalars)
        img = bgr_copy(self._image_to_draw(image))
        for i, line in enumerate(self.lines):
            pts = np.round(line.box).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(img, [pts], True, color, thickness)
            x, y = pts[0, 0]
            cv2.putText(
                img,
                str(i + 1),
                (int(x), max(10, int(y) - 3)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                (0, 0, 255),
                1,
                cv2.LINE_AA,
            )
        return img

    def _image_to_draw(self, image):
        """``image``, else the source path (an image file; a page of a PDF or of a multi-page
        file has to be given)."""
        from .errors import InvalidInputError

        if image is not None:
            return image
        if self.source is None:
            raise InvalidInputError("draw() needs the image (this result has no source path)")
        if getattr(self, "page", 0) or str(self.source).lower().endswith(".pdf"):
            raise InvalidInputError(
                f"draw() needs the image of page {getattr(self, 'page', 0) + 1} of "
                f"{self.source}: draw(edgeocr.documents.page_image(result))"
            )
        return self.source

    def __repr__(self) -> str:
        total = self.timings.get("total", 0.0)
        return f"OcrResult({len(self.lines)} lines, {total * 1000:.1f} ms)"


@dataclass(repr=False)
class PageResult(OcrResult):
    """One page of a document (`Predictor.predict_pages`): an `OcrResult` and where it came from.

    ``page``: 0-based index in the document. ``width``, ``height``: pixels of the rendered or
    decoded page (the lines' coordinates). ``width_pt``, ``height_pt``: its size in PDF points
    (1/72 inch): a PDF page's own size (as displayed, after /Rotate), an image's pixels * 72 /
    its resolution (the file's dpi metadata, else 72: a pixel is a point). ``dpi``: the
    resolution the page was rendered at (for images: the one their file records, else 72).
    ``error``: why the page could not be read (its lines are empty then); the other pages of the
    document still come out. ``text_layer``, ``text_action``: for a PDF page, the text it had
    before ("none", "edgeocr", "text", "text+edgeocr") and what was done about it ("ocr",
    "ocr-over-text", "kept": not read, "redo": edgeocr's earlier layer replaced); see
    docs/documents.md, "Pages that already have text".
    """

    page: int = 0
    width: int = 0
    height: int = 0
    width_pt: float = 0.0
    height_pt: float = 0.0
    dpi: float = 72.0
    error: EdgeOCRError | None = None
    text_layer: str = ""
    text_action: str = ""

    def to_dict(self) -> dict:
        """The page as JSON-ready values: the result's, the page's place and size, its error."""
        d = super().to_dict()
        d.update(
            page=self.page,
            width=self.width,
            height=self.height,
            width_pt=round(float(self.width_pt), 3),
            height_pt=round(float(self.height_pt), 3),
            dpi=round(float(self.dpi), 3),
            error=None
            if self.error is None
            else {"type": type(self.error).__name__, "message": str(self.error)},
        )
        if self.text_layer not in ("", "none"):  # a PDF page that had text: what became of it
            d.update(text_layer=self.text_layer, text_action=self.text_action)
        return d

    def __repr__(self) -> str:
        if self.error is not None:
            return f"PageResult(page={self.page}, error={self.error!r})"
        return f"PageResult(page={self.page}, {len(self.lines)} lines, {self.width}x{self.height})"


# ---- documents (Predictor.parse): layout regions, tables, reading order ------------------------


@dataclass
class TableCell:
    """One cell of a table: its slot (``row``, ``col``, 0-based) and spans, its box (x0, y0, x1,
    y1) in page pixels, its text (the recogniser's lines inside it, joined by spaces), whether it
    is a header cell, and ``lines``: indices into the page's ``lines``."""

    row: int
    col: int
    row_span: int = 1
    col_span: int = 1
    box: tuple = (0.0, 0.0, 0.0, 0.0)
    text: str = ""
    header: bool = False
    lines: tuple = ()

    def to_dict(self) -> dict:
        """The cell as JSON-ready values."""
        return {
            "row": self.row,
            "col": self.col,
            "row_span": self.row_span,
            "col_span": self.col_span,
            "box": [round(float(v), 2) for v in self.box],
            "text": self.text,
            "header": bool(self.header),
        }


@dataclass
class Table:
    """A table's structure: ``rows`` x ``cols`` slots, its cells ordered by (row, col), the
    ``method`` that found it ("model": the table-structure model; "grid": ruled lines and text
    alignment), ``note``: why the grid method ran instead of the model, or what was repaired or
    capped ("" when nothing; docs/tables.md), and ``score``: the model's mean token probability
    (1.0 for the grid method)."""

    rows: int
    cols: int
    cells: list
    method: str = ""
    note: str = ""
    score: float = 0.0
    _html: str | None = field(default=None, repr=False, compare=False)

    def to_html(self) -> str:
        """The table as HTML (``<table>``, rowspan/colspan where cells span): the core's
        writer, as the Markdown of a table with spans holds it."""
        return self._html or ""

    def to_dict(self) -> dict:
        """The table as JSON-ready values (rows, cols, method, note, score, cells)."""
        return {
            "rows": self.rows,
            "cols": self.cols,
            "method": self.method,
            "note": self.note,
            "score": round(float(self.score), 5),
            "cells": [c.to_dict() for c in self.cells],
        }


def _with_styles(lines: list, styles: list):
    return zip(lines, styles) if len(styles) == len(lines) else ((line, None) for line in lines)


def _line_dict(line, style) -> dict:
    d = line.to_dict()
    if style is not None:
        d["source"] = style["source"]
        d["style"] = {
            "size": round(float(style["size"]), 2),
            "bold": bool(style["bold"]),
            "italic": bool(style["italic"]),
            "weight": int(style["weight"]),
            "font": style["font"],
        }
    return d


# The region types of a parsed page, in the core's order (csrc/include/edgeocr/document.h,
# region_type_name): Region.type is one of them.
REGION_TYPES = (
    "text",
    "title",
    "list",
    "figure",
    "figure_caption",
    "table",
    "table_caption",
    "header",
    "footer",
    "page_number",
    "reference",
    "equation",
)


@dataclass
class Region:
    """One layout region of a page, in reading order.

    ``type``: "text", "title", "list", "figure", "figure_caption", "table", "table_caption",
    "header", "footer", "page_number", "reference" or "equation"; ``label``: the layout model's
    own label ("" for a region made for lines outside every layout region, ``from_layout``
    False); ``box``: (x0, y0, x1, y1) page pixels; ``furniture``: a header, footer or page
    number, kept apart from the body; ``heading_level``: 1 (title), 2, 3 (section headings) or 0;
    ``caption_of``: a caption's figure or table (index into the page's ``regions``), else -1;
    ``lines``: its `OcrLine`s in reading order; ``table``: its `Table` when its structure was
    recognised, else None; ``text_source``: where most of its text came from ("ocr", or "pdf":
    the page's text layer); ``styles``: its lines' typography (dicts: source, size, stroke,
    weight, bold, italic, font), one per line; ``items``: a list's or references region's items
    (dicts: kind, first and count of its lines, number, marker); ``continues``: it continues
    another block (the document pass of `Predictor.parse_pages`: a paragraph or table cut by a
    page break, a paragraph cut by a column break), ``joined`` says how ("paragraph", "table",
    ""), ``continues_region`` which (an index into the previous page's ``regions`` when
    ``from_previous_page``, else into this page's; -1 when it continues nothing)."""

    type: str
    label: str = ""
    score: float = 0.0
    box: tuple = (0.0, 0.0, 0.0, 0.0)
    furniture: bool = False
    heading_level: int = 0
    caption_of: int = -1
    from_layout: bool = True
    lines: list = field(default_factory=list)
    table: Table | None = None
    text_source: str = "ocr"
    styles: list = field(default_factory=list)
    items: list = field(default_factory=list)
    continues: bool = False
    joined: str = ""
    continues_region: int = -1
    from_previous_page: bool = False

    @property
    def text(self) -> str:
        """The region's lines joined with newlines."""
        return "\n".join(line.text for line in self.lines)

    def to_dict(self, order: int | None = None) -> dict:
        """The region as JSON-ready values (docs/document-parsing.md, "JSON")."""
        d = {
            "type": self.type,
            "label": self.label,
            "score": round(float(self.score), 5),
            "box": [round(float(v), 2) for v in self.box],
        }
        if order is not None:
            d["order"] = order
        d.update(
            furniture=bool(self.furniture),
            heading_level=int(self.heading_level),
            caption_of=int(self.caption_of),
            from_layout=bool(self.from_layout),
            text_source=self.text_source,
            lines=[_line_dict(line, st) for line, st in _with_styles(self.lines, self.styles)],
            table=self.table.to_dict() if self.table is not None else None,
            items=[dict(it) for it in self.items],
            continues=bool(self.continues),
            joined=self.joined,
            continues_region=int(self.continues_region),
            from_previous_page=bool(self.from_previous_page),
        )
        return d

    def __repr__(self) -> str:
        x0, y0, x1, y1 = self.box
        return (
            f"Region({self.type!r}, {len(self.lines)} lines, "
            f"box=[{x0:.0f},{y0:.0f} - {x1:.0f},{y1:.0f}])"
        )


@dataclass(repr=False)
class DocumentResult(PageResult):
    """A parsed page (`Predictor.parse`, `Predictor.parse_pages`): a `PageResult` whose
    ``lines`` are in document reading order, and its layout ``regions`` in reading order (each
    with its lines, a table's cells). ``timings`` add the layout, table and reading-order stages.
    ``to_markdown()`` is the core's Markdown writer (the C API's is the same); ``to_dict()`` is
    the page of the JSON document tree (docs/document-parsing.md)."""

    regions: list = field(default_factory=list)
    # Per line of ``lines``: its source ("ocr"/"pdf") and typography (size, stroke, weight, bold,
    # italic, font); ``turns``: quarter turns clockwise the page's text ran (it was parsed turned
    # upright, boxes mapped back); ``note``: what the parser did beyond the usual.
    line_styles: list = field(default_factory=list)
    turns: int = 0
    note: str = ""
    _core: object = field(default=None, repr=False, compare=False)

    @classmethod
    def _from_core(cls, doc, source=None, **page) -> DocumentResult:
        """A page from the core's ``_core.Document``."""
        lines = [OcrLine._from_core(t) for t in doc.lines]
        styles = list(doc.styles)
        regions = []
        for k, r in enumerate(doc.regions):
            table = None
            t = r["table"]
            if t is not None:
                cells = [
                    TableCell(
                        c["row"],
                        c["col"],
                        c["row_span"],
                        c["col_span"],
                        tuple(c["box"]),
                        c["text"],
                        bool(c["header"]),
                        tuple(c["lines"]),
                    )
                    for c in t["cells"]
                ]
                table = Table(
                    t["rows"],
                    t["cols"],
                    cells,
                    t["method"],
                    t["note"],
                    float(t["score"]),
                    doc.table_html(k),
                )
            regions.append(
                Region(
                    r["type"],
                    r["label"],
                    float(r["score"]),
                    tuple(r["box"]),
                    bool(r["furniture"]),
                    int(r["heading_level"]),
                    int(r["caption_of"]),
                    bool(r["from_layout"]),
                    [lines[i] for i in r["lines"]],
                    table,
                    r["text_source"],
                    [styles[i] for i in r["lines"]] if len(styles) == len(lines) else [],
                    list(r["items"]),
                    bool(r["continues"]),
                    r["joined"],
                    int(r["continues_region"]),
                    bool(r["from_previous_page"]),
                )
            )
        w, h = int(doc.width), int(doc.height)
        page.setdefault("width", w)
        page.setdefault("height", h)
        page.setdefault("turns", int(doc.turns))
        page.setdefault("note", doc.note)
        return cls(
            lines=lines,
            timings=dict(doc.timings),
            image_size=(w, h),
            source=source,
            regions=regions,
            line_styles=styles,
            _core=doc,
            **page,
        )

    def to_markdown(self, *, figure_prefix: str | None = None, furniture: bool = False) -> str:
        """The page as Markdown: headings as ``#``/``##``/``###``, paragraphs in reading order,
        tables as pipe tables (HTML where cells span), figures as ``![caption](figure-N)``;
        headers, footers and page numbers left out unless ``furniture``. ``figure_prefix``
        (default "figure-" on the first page, "page-P-figure-" on page P > 1) names the
        figures."""
        if self._core is None:
            return ""
        return self._core.markdown(self._figure_prefix(figure_prefix), furniture)

    def markdown_blocks(
        self, *, figure_prefix: str | None = None, furniture: bool = False
    ) -> list[tuple[int, str]]:
        """The blocks of :meth:`to_markdown` (same arguments) in order, each with the index in
        ``regions`` of the region it came from: ``to_markdown()`` is their texts joined by blank
        lines. A region gives no block (furniture left out, no text), one, or several (a list
        whose numbering starts again, a references region's entries)."""
        if self._core is None:
            return []
        return [
            (int(k), text)
            for k, text in self._core.markdown_blocks(self._figure_prefix(figure_prefix), furniture)
        ]

    def _figure_prefix(self, figure_prefix: str | None) -> str:
        if figure_prefix is not None:
            return figure_prefix
        return "figure-" if self.page == 0 else f"page-{self.page + 1}-figure-"

    def draw(self, image=None, *, lines: bool = True, legend: bool = True) -> np.ndarray:
        """What the parser saw, drawn on a BGR copy of ``image`` (the page: a path, array, PIL
        image or bytes; default the source path, for a page of an image file): each region's box
        in its type's colour with its reading-order number (from 1) and type, table cells,
        the lines thin inside their regions (``lines``), furniture dashed and hatched, and a
        legend below the page (``legend``); labels that found no room on the page go to a margin
        right of it. A page of a PDF needs its image: ``edgeocr.documents.page_image(result)``.
        See edgeocr/draw.py."""
        from .draw import draw_document

        return draw_document(self, self._image_to_draw(image), lines=lines, legend=legend)

    def to_dict(self) -> dict:
        """The page of the JSON document tree: page, size, source, its regions in reading order
        (each with its lines and words, a table's cells), timings, error."""
        return {
            "page": self.page,
            "width": self.width,
            "height": self.height,
            "dpi": round(float(self.dpi), 3),
            "source": self.source,
            "turns": int(self.turns),
            "note": self.note,
            "regions": [r.to_dict(order=k) for k, r in enumerate(self.regions)],
            "timings": {k: round(float(v), 6) for k, v in self.timings.items()},
            "error": None
            if self.error is None
            else {"type": type(self.error).__name__, "message": str(self.error)},
        }

    def __repr__(self) -> str:
        if self.error is not None:
            return f"DocumentResult(page={self.page}, error={self.error!r})"
        return (
            f"DocumentResult(page={self.page}, {len(self.regions)} regions, "
            f"{len(self.lines)} lines, {self.width}x{self.height})"
        )


def document_tree(pages) -> dict:
    """The JSON document tree of parsed pages: ``{"pages": [page.to_dict(), ...]}``."""
    return {"pages": [p.to_dict() for p in pages]}
