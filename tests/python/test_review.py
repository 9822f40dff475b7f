"""Seeing what the parser saw (docs/document-parsing.md, "Seeing what the parser saw"):
`DocumentResult.draw` (edgeocr/draw.py), ``edgeocr predict --draw DIR`` for images, PDF and TIFF
pages (edgeocr/documents/drawings.py), and the review page, ``--format html``
(edgeocr/documents/review.py), opened in headless Chromium as a person opens it: where its
boxes are on the screen, what its Markdown pane holds, that a page whose text is markup shows
the markup as text, and that it fetches nothing.

The pages: tests/data/doc_two_column.png (two columns, a table, a figure; test_document.py
parses it too) and a page drawn here whose text is HTML (``<script>``, ``<b>``, ``<img
onerror>``, a table cell ``<td>``), in Pillow's own font. The browser tests skip only when no
Chromium is installed (Debian's ``chromium``; .ci/run installs it)."""

from __future__ import annotations

import html.parser
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import document_models
from headless_chromium import Chromium, find_chromium

import edgeocr
from edgeocr.documents.drawings import DrawingFolder, PageImages, page_image
from edgeocr.documents.output import write_document
from edgeocr.documents.review import encode_page, unescaped
from edgeocr.draw import (
    OTHER_COLOR,
    REGION_COLORS,
    color_of,
    drawing_labels,
    ink_on,
    place_labels,
)
from edgeocr.errors import InvalidInputError
from edgeocr.results import DocumentResult, OcrLine, Region, Table, TableCell

DATA = Path(__file__).resolve().parent.parent / "data"
IMAGE_URIS = ("data:image/webp;base64,", "data:image/jpeg;base64,")
PAGE = DATA / "doc_two_column.png"
MARKUP = [  # the markup page's paragraphs, line by line
    [
        "This page is about markup that a scanned page may hold:",
        "the text <script>alert(1)</script> is only text here,",
        "and so is a <b>bold</b> & <i>italic</i> claim, or an",
        "<img src=x onerror=alert(2)> that stays text as well.",
    ],
    [
        "This paragraph is plain prose that follows the markup",
        "lines, so that the page has one more block of text.",
    ],
]


def _bgr(hex_color: str) -> np.ndarray:
    v = int(hex_color[1:], 16)
    return np.array([v & 255, (v >> 8) & 255, v >> 16], np.int32)


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


# ---- label placement, the palette, a drawing made by hand (no models) ---------------------------


def test_labels_never_overlap_on_a_dense_page():
    rng = np.random.default_rng(7)
    for n, (w, h) in ((400, (800, 600)), (60, (300, 200)), (1, (50, 40))):
        x0 = rng.uniform(-20, w, n)
        y0 = rng.uniform(-20, h, n)
        boxes = np.stack([x0, y0, x0 + rng.uniform(0, 120, n), y0 + rng.uniform(0, 60, n)], 1)
        sizes = np.stack([rng.uniform(20, 70, n), rng.uniform(10, 16, n)], 1)
        rects, margin = place_labels(boxes, sizes, w, h, gap=1.0)
        for i, j in itertools.combinations(range(n), 2):
            assert not _overlap(rects[i], rects[j]), (n, i, j, rects[i], rects[j])
        for r, (lw, lh) in zip(rects, sizes):
            assert r[2] - r[0] == pytest.approx(lw) and r[3] - r[1] == pytest.approx(lh)
            on_page = r[0] >= 0 and r[1] >= 0 and r[2] <= w and r[3] <= h
            in_margin = r[0] >= w and r[2] <= w + margin + 1 and r[1] >= 0
            assert on_page or in_margin, r
        if n == 400:  # so many labels cannot all fit on the page: the margin takes the rest
            assert margin > 0 and (rects[:, 0] >= w).any()


def test_a_label_sits_by_its_box_when_there_is_room():
    rects, margin = place_labels(
        [(100, 100, 300, 200), (100, 300, 300, 400)], [(50, 12)] * 2, 600, 500
    )
    assert margin == 0
    assert tuple(rects[0]) == (100, 88, 150, 100)  # above the box's top-left corner
    assert tuple(rects[1]) == (100, 288, 150, 300)


# Machado, Oliveira and Fernandes (2009), severity 1: linear-RGB simulations of dichromacy.
_CVD = {
    "normal": np.eye(3),
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}  # fmt: skip


def _linear(hex_color: str) -> np.ndarray:
    c = np.array([int(hex_color[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(lin: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    t = xyz @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_palette_stays_apart_for_colour_blind_readers():
    # Every two colours of the drawing (furniture's one, the fallback's) stay at least 13 CIELAB
    # units apart in normal vision and under simulated protanopia, deuteranopia and tritanopia
    # (Tol's muted scheme: 15.6 at its closest, list and table under protanopia).
    colors = {t: c for t, c in REGION_COLORS.items() if t not in ("footer", "page_number")}
    colors["other"] = OTHER_COLOR
    assert len(set(colors.values())) == len(colors)
    for name, m in _CVD.items():
        labs = {t: _lab(np.clip(np.asarray(m) @ _linear(c), 0, 1)) for t, c in colors.items()}
        for a, b in itertools.combinations(labs, 2):
            d = float(np.linalg.norm(labs[a] - labs[b]))
            assert d >= 13, (name, a, b, round(d, 1))

    def lum(c):
        return float(np.array([0.2126, 0.7152, 0.0722]) @ _linear(c))

    for c in set(colors.values()):  # label text on each colour: WCAG AA (4.5:1)
        a, b = lum(c), lum(ink_on(c))
        assert (max(a, b) + 0.05) / (min(a, b) + 0.05) >= 4.5, c


def _line(text, x0, y0, x1, y1):
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return OcrLine(text, 0.9, box)


def _made_page():
    """A 600 x 400 page parsed by hand: a title, a text region with a line, a 2 x 2 table, a
    running header, a region of a type this edgeocr does not know and one whose box is NaN."""
    img = np.full((400, 600, 3), 255, np.uint8)
    title = _line("Title", 60, 60, 300, 90)
    body = _line("body text", 60, 130, 280, 150)
    cells = [
        TableCell(r, c, box=(320 + 120 * c, 130 + 40 * r, 440 + 120 * c, 170 + 40 * r), text="x")
        for r in range(2)
        for c in range(2)
    ]
    regions = [
        Region("header", "text", 0.8, (60, 10, 400, 30), furniture=True),
        Region("title", "title", 0.9, (60, 60, 300, 90), heading_level=1, lines=[title]),
        Region("text", "text", 0.95, (60, 120, 280, 200), lines=[body]),
        Region("table", "table", 0.9, (320, 130, 560, 210), table=Table(2, 2, cells, "grid")),
        Region("sidebar", "sidebar", 0.7, (60, 250, 280, 330)),
        Region("text", "text", 0.5, (float("nan"), 0, 10, 10)),
    ]
    doc = DocumentResult(lines=[title, body], regions=regions, width=600, height=400)
    return doc, img


def test_drawing_of_a_made_page():
    doc, img = _made_page()
    out = doc.draw(img)
    assert out.dtype == np.uint8 and out.shape[1] == 600 and out.shape[0] > 400  # the legend
    assert (out[400:] != 255).any()
    for r in doc.regions[1:5]:  # each box's outline, in its type's colour, at its left edge
        x0, y0, x1, y1 = (round(v) for v in r.box)
        got = out[(y0 + y1) // 2, x0].astype(np.int32)
        assert np.abs(got - _bgr(color_of(r.type))).sum() < 40, (r.type, got)
    # The header is dashed: its top edge has gaps; and hatched (lines across its inside).
    top = out[10, 62:398].astype(np.int32)
    dark = np.abs(top - _bgr(REGION_COLORS["header"])).sum(axis=1) < 60
    assert 0.3 < dark.mean() < 0.9
    inside = out[14:27, 100:360].astype(np.int32).sum(axis=2)
    assert inside.min() < 600 and inside.max() > 650
    # Table cells: thin lines inside the table where its cells meet.
    assert out[190, 400].astype(np.int32).sum() - out[190, 440].astype(np.int32).sum() > 60
    # Labels: on the page, none covering another, "k type" in reading order from 1; each
    # label's box is filled with its region's colour.
    texts, rects, margin = drawing_labels(doc, 600, 400)
    assert texts[:3] == ["1 header", "2 title h1", "3 text"] and texts[4] == "5 sidebar"
    assert margin == 0
    for a, b in itertools.combinations(rects[:5], 2):
        assert not _overlap(a, b)
    assert rects[5] is None  # the region whose box is NaN: not drawn, no label
    for r, rect in zip(doc.regions[:5], rects):
        x0, y0, x1, y1 = (int(v) for v in rect)
        patch = out[y0 + 1 : y1 - 1, x0 + 1 : x1 - 1].reshape(-1, 3).astype(np.int32)
        share = (np.abs(patch - _bgr(color_of(r.type))).sum(axis=1) < 30).mean()
        assert share > 0.5, (r.type, share)


def test_a_page_with_text_from_both_sources_says_which():
    # The core is getting a text source per region and line ("ocr" or "pdf"); where a page has
    # both, each label says which, and the PDF's lines are dashed.
    doc, img = _made_page()
    doc.regions[2].text_source = "pdf"
    doc.regions[2].lines[0].text_source = "pdf"
    texts, _, _ = drawing_labels(doc, 600, 400)
    assert texts[1] == "2 title h1 ocr" and texts[2] == "3 text pdf"
    out = doc.draw(img, legend=False)
    assert out.shape == (400, 600, 3)
    edge = out[130, 62:278].astype(np.int32).sum(axis=1)  # the PDF line's top edge: dashes
    assert (edge < 600).any() and (edge > 700).any()
    plain = DocumentResult(lines=doc.lines[:1], regions=doc.regions[:2], width=600, height=400)
    assert drawing_labels(plain, 600, 400)[0] == ["1 header", "2 title h1"]


def test_a_hostile_page_is_drawn_and_reviewed(tmp_path):
    # 2000 regions (a hostile layout model, thousands of stray lines): boxes huge, negative,
    # inverted, infinite, NaN; types the palette does not know, some not ASCII, some markup.
    rng = np.random.default_rng(3)
    vals = rng.uniform(-200, 900, (2000, 4))
    vals[::50] = np.inf
    vals[1::50, 0] = np.nan
    vals[2::50] = [1e30, -1e30, 5, 5]
    types = ["text", "title", "table", "footer", "图表", "<b>x</b>", "sidebar"]
    regions = [
        Region(types[k % len(types)], score=0.5, box=tuple(v), furniture=k % 7 == 3)
        for k, v in enumerate(vals)
    ]
    doc = DocumentResult(lines=[], regions=regions, width=600, height=400)
    img = np.full((400, 600, 3), 255, np.uint8)
    out = doc.draw(img)
    texts, rects, margin = drawing_labels(doc, 600, 400)
    placed = sorted(r for r in rects if r is not None)
    assert len(placed) == 2000 - 80 and margin > 0  # not the 40 infinite and 40 NaN boxes
    for i, a in enumerate(placed):  # a sweep: no two labels overlap
        for b in placed[i + 1 :]:
            if b[0] >= a[2]:
                break
            assert not _overlap(a, b), (a, b)
    assert out.shape[0] > 400 and out.shape[1] == 600 + margin
    cv2.imwrite(str(tmp_path / "page.png"), img)
    doc.source = str(tmp_path / "page.png")
    page = _review([doc], tmp_path / "hostile.html")
    assert page.count('<a class="r ') == 2000 - 80
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page


def test_draw_needs_the_page_it_was_parsed_from():
    doc, img = _made_page()
    with pytest.raises(InvalidInputError, match="600 x 400"):
        doc.draw(img[:300])
    with pytest.raises(InvalidInputError, match="page_image"):
        DocumentResult(lines=[], source="scan.pdf", page=2, width=10, height=10).draw()


def test_the_core_escapes_are_undone():
    assert unescaped(r"\<b\> 1\. \*x\* \\ \[a\]") == r"<b> 1. *x* \ [a]"
    assert unescaped("plain") == "plain"


def test_review_page_of_pages_it_cannot_show(tmp_path):
    # A page that failed, a page whose image is gone, a page of a source it was not given: the
    # review page says so on each and still shows what it has; an OCR result is refused.
    doc, img = _made_page()
    png = tmp_path / "made.png"
    cv2.imwrite(str(png), img)
    doc.source = str(png)
    gone = DocumentResult(lines=[], regions=doc.regions, width=600, height=400,
                          source=str(tmp_path / "gone.png"))  # fmt: skip
    failed = DocumentResult(lines=[], source="x.pdf", page=3, error=InvalidInputError("<bad>"))
    report = write_document([doc, gone, failed], tmp_path / "r.html", format="html")
    assert report.pages == 3 and [f[1] for f in report.failed] == [3]
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.count('<section class="page"') == 3
    assert "could not be read again" in page and "this page could not be read: &lt;bad&gt;" in page
    assert page.count("data:image/") == 1  # the first page's image only
    assert page.count('class="r t-title"') == 2  # the regions of both pages that have them
    assert page.count('class="r t-text"') == 2  # not the one whose box is NaN
    with pytest.raises(InvalidInputError, match="parsed pages"):
        write_document([edgeocr.OcrResult(lines=[])], tmp_path / "ocr.html", format="html")
    assert not (tmp_path / "ocr.html").exists()


# ---- real pages: the layout model ------------------------------------------------------------


def _layout_installed():
    document_models("layout")


@pytest.fixture(scope="module")
def predictor():
    _layout_installed()
    return edgeocr.Predictor(threads=2, precision="fp32")


@pytest.fixture(scope="module")
def two_column(predictor):
    return predictor.parse(str(PAGE))


def _draw_markup_page(path: Path) -> None:
    """A page whose text is HTML, in Pillow's built-in font (no system font needed): a heading
    with markup, a paragraph of markup, a paragraph of prose and a table with markup in cells
    (the layout model reads them as title, text, title and table)."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (1240, 1100), "white")
    d = ImageDraw.Draw(img)
    d.text(
        (80, 60), "Markup <em>Test</em> Page", font=ImageFont.load_default(size=64), fill="black"
    )
    font = ImageFont.load_default(size=34)
    y = 200
    for para in MARKUP:
        for text in para:
            d.text((80, y), text, font=font, fill="black")
            y += 45
        y += 40
    small = ImageFont.load_default(size=30)
    rows = [("Name", "Value", "Note"), ("<b>x</b>", "12", "<td>cell"), ("plain", "34", "&amp;"),
            ("last", "56", "end")]  # fmt: skip
    for row in rows:
        for k, cell in enumerate(row):
            d.text((80 + k * 360, y), cell, font=small, fill="black")
        y += 50
    img.crop((0, 0, 1240, y + 60)).save(path)


@pytest.fixture(scope="module")
def markup_png(tmp_path_factory):
    path = tmp_path_factory.mktemp("markup") / "markup.png"
    _draw_markup_page(path)
    return path


@pytest.fixture(scope="module")
def markup(predictor, markup_png):
    doc = predictor.parse(str(markup_png))
    # The test is only worth its name if the recogniser read the markup as markup.
    text = "\n".join(r.text for r in doc.regions)
    assert "<script>" in text and "</b>" in text and "onerror" in text, text
    assert "<em>" in text and "<b>x</b>" in text, text
    # ... into a heading, a paragraph and a table cell: each way the review page writes text.
    kinds = {r.type for r in doc.regions if "<" in r.text}
    assert kinds == {"title", "text", "table"}, [(r.type, r.text) for r in doc.regions]
    return doc


def test_markdown_blocks_are_the_markdown(two_column, markup):
    # The core's markdown_blocks: to_markdown is their texts joined by blank lines, each block
    # from the region it names (furniture only when asked for).
    for doc in (two_column, markup):
        for furniture in (False, True):
            blocks = doc.markdown_blocks(furniture=furniture)
            md = doc.to_markdown(furniture=furniture)
            assert "\n\n".join(text for _, text in blocks) + "\n" == md
            assert all(0 <= k < len(doc.regions) for k, _ in blocks)
            assert [k for k, _ in blocks] == sorted(k for k, _ in blocks)
            has = any(doc.regions[k].furniture for k, _ in blocks)
            assert has == (furniture and doc is two_column)  # the markup page has none
    kinds = {}
    for k, text in two_column.markdown_blocks():
        kinds.setdefault(two_column.regions[k].type, text)
    assert kinds["title"].startswith("# ") and kinds["table"].startswith("| Stage |")
    assert kinds["figure"] == "![Figure 1: Pages per second by model](figure-1)"


def test_two_column_drawing(two_column):
    doc = two_column
    out = doc.draw()
    h, w = doc.height, doc.width
    assert out.shape[0] > h and out.shape[1] == w  # the legend below; every label on the page
    texts, rects, margin = drawing_labels(doc, w, h)
    assert margin == 0 and len(texts) == len(doc.regions)
    for a, b in itertools.combinations(rects, 2):
        assert not _overlap(a, b)
    hits = 0
    for r in doc.regions:
        x0, y0, x1, y1 = (round(v) for v in r.box)
        got = out[(y0 + y1) // 2, x0].astype(np.int32)
        hits += np.abs(got - _bgr(color_of(r.type))).sum() < 40
    assert hits >= len(doc.regions) - 1, hits


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]

    def handle_data(self, data):
        self.text.append(data)


def _review(pages, path: Path) -> str:
    report = write_document(pages, path, format="html")
    assert report.pages == len(pages) and not report.failed
    return path.read_text(encoding="utf-8")


def test_review_page_is_self_contained_and_inert(two_column, markup, tmp_path):
    page = _review([two_column, markup], tmp_path / "review.html")
    assert len(page.encode()) < 2_000_000
    p = _Tags()
    p.feed(page)
    # Only the page's own elements: whatever the text held became text.
    allowed = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4",
               "h5", "h6", "ul", "ol", "li", "span", "p", "main", "section", "small", "div", "img",
               "a", "b", "q", "table", "thead", "tbody", "tr", "th", "td", "figure",
               "figcaption"}  # fmt: skip
    assert set(p.tags) <= allowed, set(p.tags) - allowed
    assert "script" not in p.tags and "link" not in p.tags and "iframe" not in p.tags
    assert not [a for a in p.attrs if a[1].startswith("on")]  # no event handlers
    for tag, name, value in p.attrs:
        if name in ("src", "href"):
            assert value.startswith((*IMAGE_URIS, "#")), (tag, value[:40])
    csp = [v for t, k, v in p.attrs if t == "meta" and k == "content" and "default-src" in v]
    assert csp == ["default-src 'none'; img-src data:; style-src 'unsafe-inline'"]
    # Each region is one box and one badge; the markup page's markup reads as text.
    n = len(two_column.regions) + len(markup.regions)
    assert sum(1 for t, k, v in p.attrs if k == "class" and v.startswith("r t-")) == n
    assert sum(1 for t, k, v in p.attrs if k == "class" and v.startswith("b t-")) == n
    text = "".join(p.text)
    for r in markup.regions:
        if r.type != "table":
            assert " ".join(r.text.split()) in " ".join(text.split()), r.text


def test_review_page_images_are_bounded(two_column, tmp_path):
    from edgeocr.documents.review import ReviewWriter

    with open(tmp_path / "small.html", "w", encoding="utf-8") as f:
        w = ReviewWriter(f, "small", max_side=400, max_image_bytes=20_000)
        w.add(two_column)
        w.finish()
    page = (tmp_path / "small.html").read_text(encoding="utf-8")
    import base64

    found = re.findall(r'src="data:image/(?:webp|jpeg);base64,([^"]+)"', page)
    data = [base64.b64decode(m) for m in found]
    assert data
    pic = cv2.imdecode(np.frombuffer(data[0], np.uint8), cv2.IMREAD_UNCHANGED)
    assert max(pic.shape[:2]) <= 400 and len(data[0]) <= 20_000
    mime, small = encode_page(np.full((30, 40, 3), 200, np.uint8))
    assert mime in ("image/webp", "image/jpeg") and small[:4] in (b"RIFF", b"\xff\xd8\xff\xe0")
    with pytest.raises(InvalidInputError):
        ReviewWriter(f, max_side=0)


def _make_pdf(path: Path, *images) -> None:
    from PIL import Image

    ims = [Image.open(i).convert("RGB") for i in images]
    ims[0].save(path, save_all=True, append_images=ims[1:], resolution=150)


def _cli(*args, timeout=600):
    out = subprocess.run(
        [sys.executable, "-m", "edgeocr.cli", "predict", *map(str, args), "--threads", "2"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert out.returncode == 0, out.stderr
    return out


def _has_legend(png: Path, width: int, height: int) -> bool:
    img = cv2.imread(str(png))
    assert img is not None, png
    # (a PDF page rendered at 150 dpi may come out a pixel wider: its size in points, rounded up)
    return abs(img.shape[1] - width) <= 1 and img.shape[0] > height + 10


def test_cli_pdf_review_page_and_drawings(predictor, markup_png, tmp_path):
    pdf = tmp_path / "doc.pdf"
    _make_pdf(pdf, PAGE, markup_png)
    draw = tmp_path / "drawn"
    _cli(pdf, "--dpi", "150", "--format", "html", "-o", tmp_path / "review.html", "--draw", draw)
    assert sorted(p.name for p in draw.iterdir()) == ["doc-p1.png", "doc-p2.png"]
    assert _has_legend(draw / "doc-p1.png", 1240, 1754)  # the parsed page's drawing
    page = (tmp_path / "review.html").read_text(encoding="utf-8")
    assert page.count('<section class="page"') == 2 and "<table>" in page
    assert "&lt;script&gt;" in page and "<script" not in page


def test_cli_draws_tiff_pages_and_images(predictor, markup_png, tmp_path):
    from PIL import Image

    tif = tmp_path / "frames.tif"
    im = Image.open(markup_png).convert("RGB")
    im.save(tif, save_all=True, append_images=[im.convert("L")])
    w, h = im.size
    # With a layout model among the models, the drawings are the parsed pages'.
    _cli(tif, markup_png, "-m", "document", "--draw", tmp_path / "doc")
    names = sorted(p.name for p in (tmp_path / "doc").iterdir())
    assert names == ["frames-p1.png", "frames-p2.png", "markup.png"]
    assert all(_has_legend(tmp_path / "doc" / n, w, h) for n in names)
    # Without one, OCR lines on the page, at the page's size.
    _cli(tif, "--format", "text", "-o", tmp_path / "out.txt", "--draw", tmp_path / "ocr")
    for n in ("frames-p1.png", "frames-p2.png"):
        assert cv2.imread(str(tmp_path / "ocr" / n)).shape == (h, w, 3)


def test_pdf_pages_are_drawn_from_their_image_read_again(predictor, markup_png, tmp_path):
    pdf = tmp_path / "one.pdf"
    _make_pdf(pdf, markup_png)
    (doc,) = list(predictor.parse_pages(str(pdf), dpi=100))
    with pytest.raises(InvalidInputError, match="page_image"):
        doc.draw()
    img = page_image(doc)
    assert img.shape[:2] == (doc.height, doc.width)
    assert doc.draw(img).shape[1] == doc.width
    with PageImages(source=pdf.read_bytes()) as images:  # the document as bytes
        assert images.get(doc).shape[:2] == (doc.height, doc.width)
    gone = DocumentResult(lines=[], source=str(tmp_path / "gone.pdf"), page=1)
    with pytest.raises(InvalidInputError, match="not a file"):
        PageImages().get(gone)
    # The command line reports a page it cannot draw and goes on (the document it writes stays).
    import io

    folder, err = DrawingFolder(tmp_path / "drawn"), io.StringIO()
    assert folder.add_reporting(doc) and not folder.add_reporting(gone, err)
    assert "gone.pdf: page 2: cannot draw it" in err.getvalue()
    assert [Path(p).name for p in folder.written] == ["one-p1.png"]


# ---- the review page in a browser ---------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium():
    exe = find_chromium()
    if exe is None:
        pytest.skip("no Chromium to open the review page in (apt-get install chromium)")
    with Chromium(exe, width=1400, height=1000) as browser:
        yield browser


_GEOMETRY = """JSON.stringify([...document.querySelectorAll('section.page')].map(s => {
  const box = e => { const r = e.getBoundingClientRect();
                     return [r.left + scrollX, r.top + scrollY, r.width, r.height]; };
  return {
    img: box(s.querySelector('.frame img')),
    regions: [...s.querySelectorAll('a.r')].map(a => [a.id, ...box(a),
                                                     getComputedStyle(a).borderLeftWidth]),
    tables: [...s.querySelectorAll('.md table')].map(t =>
      [...t.rows].map(r => [...r.cells].map(c => c.textContent))),
    mdText: s.querySelector('.md').textContent,
    mdTags: [...s.querySelectorAll('.md *')].map(e => e.tagName.toLowerCase()),
  };
}))"""


def test_review_page_in_chromium(chromium, two_column, markup, tmp_path):
    path = tmp_path / "review.html"
    _review([two_column, markup], path)
    chromium.open(path.as_uri())
    assert chromium.evaluate("document.scripts.length") == 0
    assert chromium.evaluate("document.querySelectorAll('[onerror], [onload]').length") == 0
    # Nothing but the file itself and its own data: images was asked for.
    assert all(u.startswith((path.as_uri(), *IMAGE_URIS)) for u in chromium.requests())
    pages = json.loads(chromium.evaluate(_GEOMETRY))
    shot = cv2.imdecode(np.frombuffer(chromium.screenshot(), np.uint8), cv2.IMREAD_COLOR)
    assert len(pages) == 2

    for doc, got in zip((two_column, markup), pages):
        ix, iy, iw, ih = got["img"]
        scale = iw / doc.width
        assert ih == pytest.approx(doc.height * scale, abs=1.5)
        assert iw > 400  # the page is shown at a readable size
        boxes = {rid: (x, y, w, h) for rid, x, y, w, h, _ in got["regions"]}
        hits = 0
        for k, r in enumerate(doc.regions):
            # The overlay box is where the region is on the page image (within a pixel) ...
            x, y, w, h = boxes[f"p{pages.index(got) + 1}-r{k + 1}"]
            x0, y0, x1, y1 = r.box
            want = (ix + x0 * scale, iy + y0 * scale, (x1 - x0) * scale, (y1 - y0) * scale)
            assert (x, y, w, h) == pytest.approx(want, abs=1.0), (k, r.type)
            # ... and the screenshot shows its colour along its edges there.
            color = _bgr(color_of(r.type))
            cx, cy = round(x + w / 2), round(y + h / 2)
            samples = [(round(x + 0.5), cy), (round(x + w - 1.5), cy), (cx, round(y + 0.5)),
                       (cx, round(y + h - 1.5))]  # fmt: skip
            near = [np.abs(shot[sy, sx].astype(np.int32) - color).sum() < 60 for sx, sy in samples]
            hits += sum(near) >= 3
        assert hits >= len(doc.regions) - 1, (hits, len(doc.regions))
        # Where there is no region the page shows through: not every pixel is a box's colour.
        assert np.abs(shot[round(iy + 3), round(ix + 3)].astype(np.int32) - 255).sum() < 40

    # The Markdown pane holds the table, as a table, cell for cell.
    table = next(r.table for r in two_column.regions if r.table is not None)
    rows = [[c.text for c in table.cells if c.row == i] for i in range(table.rows)]
    assert pages[0]["tables"] == [rows]
    assert "Document Parsing on Small Devices" in pages[0]["mdText"]
    # The markup page: its markup is text in the pane, never an element.
    md = pages[1]
    assert not {"script", "b", "i", "em", "img"} & set(md["mdTags"]), md["mdTags"]
    flat = " ".join(md["mdText"].split())
    for text in ("<script>alert(1)", "<b>bold</b>", "onerror=alert(2)>", "<em>Test</em>"):
        assert text in flat, (text, flat[:300])
    (cells,) = md["tables"]
    assert any("<b>x</b>" in c for row in cells for c in row)  # a cell's markup, as text
    assert any("<td>cell" in c for row in cells for c in row)
