"""Documents out, checked by real readers: poppler (pdftotext, pdftoppm, pdffonts, pdfimages,
pdfinfo), qpdf --check, OCRmyPDF's hOCR parser, lxml and Tesseract's TSV layout.

The documents are made here from page images (tests/data, and dev pages from ../shared where
present): scanned PDFs (Pillow's PDF writer), multi-page TIFFs, JPEG and PNG files. A tool that
is missing skips its test with the package to install (.ci/run installs them all).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_fixture
from doc_fixtures import TEST_PAGES, pdf_from_images, shared_dev_pages, tiff_from_images

import edgeocr
from edgeocr.documents import font as font_module
from edgeocr.documents import write_document
from edgeocr.errors import OutputError

pikepdf = pytest.importorskip(
    "pikepdf", reason="pikepdf is not installed (pip install 'edgeocr[pdf]')"
)

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install {package})")
    return path


def run(*cmd) -> str:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"{cmd}: {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def qpdf_check(path) -> None:
    out = run(tool("qpdf", "qpdf"), "--check", path)
    assert "No syntax or stream encoding errors found" in out, out


def pdftotext(path, page: int | None = None, *extra) -> str:
    cmd = [tool("pdftotext", "poppler-utils"), *extra]
    if page is not None:
        cmd += ["-f", page + 1, "-l", page + 1]
    return run(*cmd, path, "-")


def ocr_words(result) -> list[str]:
    return [w.text for line in result.lines for w in line.words]


def chars(text: str) -> Counter:
    return Counter("".join(text.split()))


@pytest.fixture(scope="module")
def pages():
    """Three English pages (dev pages where ../shared is present, else tests/data)."""
    return shared_dev_pages(3) or TEST_PAGES


@pytest.fixture(scope="module")
def scanned_pdf(tmp_path_factory, pages):
    return pdf_from_images(pages, tmp_path_factory.mktemp("scan") / "scan.pdf")


@pytest.fixture(scope="module")
def searchable(tmp_path_factory, predictor, scanned_pdf):
    """(input PDF, searchable PDF, page results) of the scanned PDF through the Python API."""
    out = tmp_path_factory.mktemp("out") / "scan.ocr.pdf"
    results = []
    report = write_document(
        predictor.predict_pages(scanned_pdf, dpi=100), out, on_page=results.append
    )
    assert report.pages == len(results) == 3 and not report.failed
    return scanned_pdf, out, results


def test_searchable_pdf_gives_back_the_text(searchable):
    _, out, results = searchable
    qpdf_check(out)
    for r in results:
        words = ocr_words(r)
        assert len(words) >= 5, f"page {r.page}: too few words to test ({words})"
        # Every character the recogniser read is in poppler's text of that page, and no other.
        assert chars(pdftotext(out, r.page)) == chars(" ".join(words))


def _inside(quad: np.ndarray, x: float, y: float) -> bool:
    import cv2

    return cv2.pointPolygonTest(quad.astype(np.float32).reshape(-1, 1, 2), (x, y), False) >= 0


def test_word_boxes_overlap_pdftotext_bbox(searchable):
    """Each OCR word has a word in poppler's -bbox output that overlaps it: poppler's box
    holds the word quadrilateral's centre, and the quadrilateral holds the centre of poppler's
    box (a skewed word is laid along the page axis, so its axis-aligned bounds are no measure)."""
    from lxml import etree

    _, out, results = searchable
    html = run(tool("pdftotext", "poppler-utils"), "-bbox", out, "-")
    doc = etree.fromstring(html.encode("utf-8"), etree.HTMLParser())
    pdf_pages = doc.findall(".//page")
    assert len(pdf_pages) == len(results)
    for r, page in zip(results, pdf_pages):
        scale = 72.0 / r.dpi
        boxes = [
            [float(w.get(k)) for k in ("xmin", "ymin", "xmax", "ymax")] for w in page.iter("word")
        ]
        words = [w for line in r.lines for w in line.words]
        hits = 0
        for w in words:
            quad = w.box * scale
            cx, cy = quad.mean(axis=0)
            hits += any(
                x0 <= cx <= x1 and y0 <= cy <= y1 and _inside(quad, (x0 + x1) / 2, (y0 + y1) / 2)
                for x0, y0, x1, y1 in boxes
            )
        assert hits >= 0.9 * len(words), f"page {r.page}: {hits}/{len(words)} boxes overlap"


def _ppm(path, page: int, tmp_path) -> np.ndarray:
    from PIL import Image

    stem = tmp_path / f"r{abs(hash(str(path))) % 10**8}_{page}"
    run(
        tool("pdftoppm", "poppler-utils"),
        "-r",
        60,
        "-f",
        page + 1,
        "-l",
        page + 1,
        "-singlefile",
        "-png",
        path,
        stem,
    )
    with Image.open(f"{stem}.png") as im:
        return np.asarray(im.convert("RGB"))


def test_original_pages_render_identically(searchable, tmp_path):
    import pypdfium2 as pdfium

    src, out, results = searchable
    for r in results:
        assert np.array_equal(_ppm(src, r.page, tmp_path), _ppm(out, r.page, tmp_path))
    a, b = pdfium.PdfDocument(str(src)), pdfium.PdfDocument(str(out))
    try:
        assert len(a) == len(b)
        for i in range(len(a)):
            ia = a[i].render(scale=0.7).to_numpy()
            ib = b[i].render(scale=0.7).to_numpy()
            assert np.array_equal(ia, ib), f"page {i} renders differently"
    finally:
        a.close()
        b.close()
    # The pages' own objects are kept: sizes, and the original content stream inside the new.
    with pikepdf.open(src) as pa, pikepdf.open(out) as pb:
        for qa, qb in zip(pa.pages, pb.pages):
            assert list(qa.mediabox) == list(qb.mediabox)
            original = qa.obj.Contents.read_bytes()
            kept = [s.read_bytes() for s in qb.obj.Contents]
            assert original in kept


def test_font_is_embedded_with_unicode(searchable):
    _, out, _ = searchable
    lines = run(tool("pdffonts", "poppler-utils"), out).splitlines()
    rows = [ln for ln in lines if ln.startswith("EdgeOCR-Glyphless")]
    assert rows, lines
    for row in rows:
        assert re.search(r"CID TrueType\s+Identity-H\s+yes\s+no\s+yes", row), row
    # The embedded font program is a TrueType font fontTools reads: two glyphs, half an em.
    ttlib = pytest.importorskip("fontTools.ttLib", reason="fontTools is not installed")
    import io

    with pikepdf.open(out) as pdf:
        font = next(
            f for page in pdf.pages for _, f in page.resources.Font.items()
            if str(f.BaseFont) == "/EdgeOCR-Glyphless"
        )  # fmt: skip
        data = font.DescendantFonts[0].FontDescriptor.FontFile2.read_bytes()
    tt = ttlib.TTFont(io.BytesIO(data))
    assert tt["maxp"].numGlyphs == 2 and tt["head"].unitsPerEm == 1000
    assert [tt["hmtx"][g][0] for g in tt.getGlyphOrder()] == [500, 500]
    assert data == font_module.glyphless_truetype()  # the shipped file, byte for byte


def test_glyphless_font_file_is_what_its_tool_builds_and_a_valid_font():
    """edgeocr/data/glyphless.ttf equals what tools/make_glyphless_font.py builds, and fontTools
    reads it as a TrueType font (table checksums and the whole-file adjustment checked) with
    what the PDF writer relies on: two empty glyphs of the writer's advance, its em, ascent,
    descent and name."""
    import importlib.util
    import io
    import struct

    ttlib = pytest.importorskip("fontTools.ttLib", reason="fontTools is not installed")
    spec = importlib.util.spec_from_file_location(
        "make_glyphless_font", REPO / "tools" / "make_glyphless_font.py"
    )
    tool_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool_module)
    data = font_module.glyphless_truetype()
    assert data == tool_module.glyphless_truetype()
    assert Path(font_module.__file__).parent.parent.joinpath("data", "glyphless.ttf").is_file()

    f = font_module
    assert sum(struct.unpack(f">{len(data) // 4}L", data)) & 0xFFFFFFFF == 0xB1B0AFBA
    tt = ttlib.TTFont(io.BytesIO(data), checkChecksums=2)  # a wrong table checksum raises
    assert sorted(tt.keys()) == sorted(
        ["GlyphOrder", "OS/2", "cmap", "glyf", "head", "hhea", "hmtx", "loca", "maxp", "name"]
        + ["post"]
    )
    assert tt.sfntVersion == "\0\1\0\0" and tt["head"].magicNumber == 0x5F0F3CF5
    assert tt["head"].unitsPerEm == f.UNITS_PER_EM and tt["maxp"].numGlyphs == 2
    order = tt.getGlyphOrder()
    assert len(order) == 2
    for name in order:
        assert tt["hmtx"][name] == (f.ADVANCE, 0)
        assert tt["glyf"][name].numberOfContours == 0  # no outline: nothing is ever drawn
    assert (tt["hhea"].ascent, tt["hhea"].descent) == (f.ASCENT, f.DESCENT)
    assert (tt["OS/2"].sTypoAscender, tt["OS/2"].sTypoDescender) == (f.ASCENT, f.DESCENT)
    assert tt["name"].getDebugName(6) == f.FONT_NAME  # the PostScript name: the PDF's BaseFont
    assert tt["cmap"].getcmap(3, 1) is not None
    tt.save(io.BytesIO())  # fontTools compiles every table it read back


def _crop_offset(rotate: int, media, crop) -> tuple[float, float]:
    """Where the CropBox's top-left corner is in poppler's -bbox frame (the MediaBox as
    displayed: turned by /Rotate, y down), in points."""
    mx0, my0, mx1, my1 = media
    cx0, cy0, cx1, cy1 = crop
    return {
        0: (cx0 - mx0, my1 - cy1),
        90: (cy0 - my0, cx0 - mx0),
        180: (mx1 - cx1, cy0 - my0),
        270: (my1 - cy1, mx1 - cx1),
    }[rotate]


def test_rotated_and_cropped_pages(tmp_path, predictor, pages):
    """/Rotate and a CropBox offset: poppler finds each word where the rendered page shows it."""
    from lxml import etree

    src = pdf_from_images(pages[:1], tmp_path / "one.pdf")
    for rotate in (90, 180, 270):
        turned = tmp_path / f"rot{rotate}.pdf"
        run(tool("qpdf", "qpdf"), src, f"--rotate=+{rotate}:1", turned)
        with pikepdf.open(turned, allow_overwriting_input=True) as pdf:
            media = [float(v) for v in pdf.pages[0].mediabox]
            crop = [media[0] + 30, media[1] + 20, media[2] - 10, media[3] - 40]
            pdf.pages[0].obj.CropBox = pikepdf.Array(crop)
            pdf.save(turned)
        out = tmp_path / f"rot{rotate}.ocr.pdf"
        results = []
        write_document(predictor.predict_pages(turned, dpi=100), out, on_page=results.append)
        qpdf_check(out)
        (r,) = results
        words = [w for line in r.lines for w in line.words]
        assert len(words) >= 5
        assert chars(pdftotext(out)) == chars(" ".join(w.text for w in words))
        html = run(tool("pdftotext", "poppler-utils"), "-bbox", out, "-")
        doc = etree.fromstring(html.encode("utf-8"), etree.HTMLParser())
        boxes = np.array(
            [[float(w.get(k)) for k in ("xmin", "ymin", "xmax", "ymax")] for w in doc.iter("word")]
        )
        dx, dy = _crop_offset(rotate, media, crop)
        near = 0
        for w in words:
            cx, cy = w.box.mean(axis=0) * 72.0 / r.dpi + (dx, dy)
            inside = (boxes[:, 0] - 2 <= cx) & (cx <= boxes[:, 2] + 2)
            inside &= (boxes[:, 1] - 2 <= cy) & (cy <= boxes[:, 3] + 2)
            near += bool(inside.any())
        assert near >= 0.9 * len(words), f"/Rotate {rotate}: {near}/{len(words)} words in place"


def test_images_become_pages(tmp_path, predictor):
    """A JPEG keeps its bytes (poppler lists it as jpeg), a PNG is stored losslessly; each page
    is the image's size at its resolution."""
    from PIL import Image

    jpg = tmp_path / "page.jpg"
    png = tmp_path / "page.png"
    with Image.open(DATA / "sample_en.png") as im:
        rgb = im.convert("RGB")
        rgb.save(jpg, quality=85, dpi=(150, 150))
        rgb.save(png, dpi=(300, 300))
        size = rgb.size
    out = tmp_path / "images.pdf"
    results = []
    src = [jpg, png]
    import itertools

    pages = itertools.chain.from_iterable(predictor.predict_pages(p) for p in src)
    report = write_document(pages, out, "pdf", on_page=results.append)
    assert report.pages == 2
    qpdf_check(out)
    listing = run(tool("pdfimages", "poppler-utils"), "-list", out).splitlines()[2:]
    assert [ln.split()[8] for ln in listing] == ["jpeg", "image"], listing
    with pikepdf.open(out) as pdf:
        assert pdf.pages[0].resources.XObject["/Im0"].read_raw_bytes() == jpg.read_bytes()
        for page, dpi in zip(pdf.pages, (150, 300)):
            w, h = (float(v) for v in page.mediabox[2:])
            assert (w, h) == pytest.approx((size[0] * 72 / dpi, size[1] * 72 / dpi), abs=0.01)
        # The PNG's pixels, unchanged.
        png_pixels = np.asarray(
            pikepdf.PdfImage(pdf.pages[1].resources.XObject["/Im0"]).as_pil_image()
        )
        assert np.array_equal(png_pixels, np.asarray(rgb))
    for i, r in enumerate(results):
        assert chars(pdftotext(out, i)) == chars(" ".join(ocr_words(r)))


def test_multipage_tiff_to_pdf_hocr_alto_tsv(tmp_path, predictor, pages):
    tif = tiff_from_images(pages, tmp_path / "scan.tif", dpi=150)
    for fmt in ("pdf", "hocr", "alto", "tsv"):
        out = tmp_path / f"scan.{fmt}"
        results = []
        report = write_document(predictor.predict_pages(tif), out, fmt, on_page=results.append)
        assert report.pages == 3 and not report.failed
    info = run(tool("pdfinfo", "poppler-utils"), tmp_path / "scan.pdf")
    assert re.search(r"Pages:\s+3", info), info
    qpdf_check(tmp_path / "scan.pdf")
    for r in results:
        assert chars(pdftotext(tmp_path / "scan.pdf", r.page)) == chars(" ".join(ocr_words(r)))


def test_chinese_text_is_extractable(tmp_path, predictor):
    dev_images = shared_fixture("datasets/dev/images", optional=True)
    zh = sorted(dev_images.glob("para_zh_digital_*")) if dev_images else []
    page = zh[0] if zh else DATA / "sample_en.png"
    out = tmp_path / "zh.pdf"
    results = []
    write_document(predictor.predict_pages(page), out, on_page=results.append)
    qpdf_check(out)
    text = " ".join(ocr_words(results[0]))
    if zh:
        assert re.search("[\u4e00-\u9fff]", text), text
    assert chars(pdftotext(out)) == chars(text)


def test_hocr_read_back_by_ocrmypdf(tmp_path, searchable):
    parser = pytest.importorskip(
        "ocrmypdf.hocrtransform.hocr_parser",
        reason="ocrmypdf is not installed (pip install 'edgeocr[pdf]')",
    )
    from lxml import etree

    _, _, results = searchable
    out = tmp_path / "scan.hocr"
    write_document(results, out)
    etree.parse(str(out))  # well-formed XML (XHTML)
    # OCRmyPDF's reader takes one page per file, as its engines write them.
    for r in results:
        one = tmp_path / f"page{r.page}.hocr"
        write_document([r], one, "hocr")
        page = parser.HocrParser(one).parse()
        got = [(w.text, w.bbox) for w in _iter_words(page)]
        want = [w for line in r.lines for w in line.words]
        # OCRmyPDF's parser gives each word NFKC-normalised (a full-width comma comes back as ",").
        assert [t for t, _ in got] == [unicodedata.normalize("NFKC", w.text) for w in want]
        for (_, bbox), w in zip(got, want):
            x0, y0 = np.floor(w.box.min(axis=0))
            x1, y1 = np.ceil(w.box.max(axis=0))
            assert (bbox.left, bbox.top) == (max(x0, 0), max(y0, 0))
            assert (bbox.right, bbox.bottom) == (min(x1, r.width), min(y1, r.height))
        confs = [w.confidence for w in _iter_words(page)]
        assert confs == pytest.approx([w.score for w in want], abs=0.006)


def _iter_words(el):
    from ocrmypdf.hocrtransform import OcrClass

    if el.ocr_class == OcrClass.WORD:
        yield el
    for c in el.children:
        yield from _iter_words(c)


def test_alto_structure(tmp_path, searchable):
    from lxml import etree

    _, _, results = searchable
    out = tmp_path / "scan.xml"
    write_document(results, out, "alto")
    ns = {"a": "http://www.loc.gov/standards/alto/ns-v4#"}
    doc = etree.parse(str(out))
    root = doc.getroot()
    assert root.tag == "{http://www.loc.gov/standards/alto/ns-v4#}alto"
    loc = root.get("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation")
    assert loc.split() == [ns["a"], "http://www.loc.gov/standards/alto/v4/alto-4-2.xsd"]
    assert doc.findtext(".//a:MeasurementUnit", namespaces=ns) == "pixel"
    pages = doc.findall(".//a:Layout/a:Page", ns)
    assert len(pages) == len(results) == 3
    ids = [e.get("ID") for e in doc.iter() if e.get("ID") is not None]
    assert len(ids) == len(set(ids))
    for page, r in zip(pages, results):
        assert (int(page.get("WIDTH")), int(page.get("HEIGHT"))) == (r.width, r.height)
        strings = page.findall("a:PrintSpace/a:TextBlock/a:TextLine/a:String", ns)
        want = [w for line in r.lines for w in line.words]
        assert [s.get("CONTENT") for s in strings] == [w.text for w in want]
        for s, w in zip(strings, want):
            x, y, ww, hh = (int(s.get(k)) for k in ("HPOS", "VPOS", "WIDTH", "HEIGHT"))
            cx, cy = w.box.mean(axis=0)
            assert x <= cx <= x + ww and y <= cy <= y + hh
            assert float(s.get("WC")) == pytest.approx(w.score, abs=1e-4)
    # An ALTO reader of its own (alto-tools, which knows ALTO 1-4): the words, line by line,
    # and their mean confidence.
    pytest.importorskip("alto_tools", reason="alto-tools is not installed (pip install alto-tools)")
    reader = (
        "import sys; from alto_tools.alto_tools import main; sys.argv[0] = 'alto-tools'; main()"
    )
    text = run(sys.executable, "-c", reader, "-t", out)
    want = [" ".join(w.text for w in ln.words) for r in results for ln in r.lines if ln.words]
    assert [ln.strip() for ln in text.splitlines() if ln.strip()] == want
    conf = run(sys.executable, "-c", reader, "-c", out)
    scores = [w.score for r in results for line in r.lines for w in line.words]
    mean = float(re.search(r"Confidence: ([0-9.]+)", conf).group(1))
    assert mean == pytest.approx(100 * np.mean(scores), abs=0.02)


def test_writers_use_the_turn_the_line_was_read_with(tmp_path, predictor):
    """hOCR's textangle and ALTO's ROTATION come from OcrLine.turns: a page turned 90 degrees
    clockwise is read turned (270 counter-clockwise), and a tall one-character box read upright
    under a non-default rotate_ratio is written upright (the default ratio would have said
    turned)."""
    import cv2
    from doc_fixtures import squeezed_digit
    from lxml import etree

    page = cv2.rotate(cv2.imread(str(DATA / "sample_en.png")), cv2.ROTATE_90_CLOCKWISE)
    upright = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, rotate_ratio=5.0)
    cases = [
        ("clockwise", predictor, page, 270),
        ("tall", predictor, squeezed_digit(), 270),
        ("tall-upright", upright, squeezed_digit(), None),
    ]
    ns = {"a": "http://www.loc.gov/standards/alto/ns-v4#"}
    for name, p, image, angle in cases:
        results = list(p.predict_pages(image))
        lines = results[0].lines
        assert lines and all(ln.turns == (0 if angle is None else 1) for ln in lines), name
        write_document(results, tmp_path / f"{name}.hocr")
        write_document(results, tmp_path / f"{name}.xml", "alto")
        html = etree.parse(str(tmp_path / f"{name}.hocr"))
        titles = [e.get("title") for e in html.iter() if e.get("class") == "ocr_line"]
        assert len(titles) == len(lines), name
        for title in titles:
            if angle is None:
                assert "textangle" not in title and "baseline" in title, (name, title)
            else:
                assert f"textangle {angle};" in title, (name, title)
        blocks = etree.parse(str(tmp_path / f"{name}.xml")).findall(".//a:TextBlock", ns)
        assert [b.get("ROTATION") for b in blocks] == [None if angle is None else str(angle)] * len(
            lines
        ), name


def test_tsv_has_tesseracts_columns(tmp_path, predictor, pages):
    out = tmp_path / "page.tsv"
    results = []
    write_document(predictor.predict_pages(pages[0]), out, "tsv", on_page=results.append)
    rows = [ln.split("\t") for ln in out.read_text(encoding="utf-8").splitlines()]
    header = rows[0]
    tesseract = shutil.which("tesseract")
    if tesseract is not None:  # the header Tesseract itself writes
        p = subprocess.run(
            [tesseract, str(DATA / "line_en.png"), "-", "tsv"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert p.returncode == 0, p.stderr
        assert header == p.stdout.splitlines()[0].split("\t")
    assert header == [
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
    ]
    assert all(len(r) == 12 for r in rows)
    words = [r for r in rows[1:] if r[0] == "5"]
    want = [w for line in results[0].lines for w in line.words]
    assert [r[11] for r in words] == [w.text for w in want]
    assert [float(r[10]) for r in words] == pytest.approx([100 * w.score for w in want], abs=1e-4)
    assert rows[1][:10] == [
        "1",
        "1",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        str(results[0].width),
        str(results[0].height),
    ]


def test_output_path_that_cannot_be_written(tmp_path, predictor):
    (tmp_path / "a_file").write_text("x")
    for bad in (tmp_path / "missing" / "out.pdf", tmp_path / "a_file" / "out.pdf", tmp_path):
        with pytest.raises(OutputError) as e:
            write_document(predictor.predict_pages(DATA / "sample_en.png"), bad, "pdf")
        assert str(bad) in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_nothing_written_half_way(tmp_path, predictor):
    """A failure in the middle of a document leaves the old output as it was, and no partial
    file beside it."""
    out = tmp_path / "doc.pdf"
    out.write_bytes(b"old")
    hocr = tmp_path / "doc.hocr"
    hocr.write_text("old")

    def pages_then_failure():
        yield from predictor.predict_pages(DATA / "sample_en.png")
        raise edgeocr.InvalidInputError("the second document is corrupt")

    for target, fmt in ((out, "pdf"), (hocr, "hocr")):
        with pytest.raises(edgeocr.InvalidInputError):
            write_document(pages_then_failure(), target, fmt)
    assert out.read_bytes() == b"old" and hocr.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.hocr", "doc.pdf"]


def test_failed_page_is_kept_without_text(tmp_path, searchable):
    from edgeocr.results import PageResult

    _, _, results = searchable
    bad = PageResult(
        lines=[],
        page=1,
        source=results[1].source,
        width=results[1].width,
        height=results[1].height,
        error=edgeocr.InvalidInputError("page 2 failed"),
    )
    out = tmp_path / "partial.pdf"
    report = write_document([results[0], bad, results[2]], out)
    assert [(p, str(e)) for _, p, e in report.failed] == [(1, "page 2 failed")]
    qpdf_check(out)
    assert pdftotext(out, 1).strip() == ""
    assert chars(pdftotext(out, 2)) == chars(" ".join(ocr_words(results[2])))


def test_cli_formats(tmp_path, scanned_pdf):
    exe = [sys.executable, "-m", "edgeocr.cli"]
    base = ["predict", "--model", "ppocr-v4-mobile", "--threads", "2"]
    out = tmp_path / "cli.pdf"
    run(*exe, *base, scanned_pdf, "--dpi", "100", "-o", out)
    qpdf_check(out)
    assert len(chars(pdftotext(out))) > 10
    hocr = tmp_path / "p2.hocr"
    run(*exe, *base, scanned_pdf, "--dpi", "100", "--pages", "2", "--format", "hocr", "-o", hocr)
    assert hocr.read_text(encoding="utf-8").count('class="ocr_page"') == 1
    # JSON lines: one object per page, with its page number.
    jsonl = run(*exe, *base, scanned_pdf, "--dpi", "100", "--pages", "1,3", "--format", "jsonl")
    assert [json.loads(ln)["page"] for ln in jsonl.splitlines()] == [0, 2]
    tsv = run(*exe, *base, DATA / "sample_en.png", "--format", "tsv")
    assert tsv.splitlines()[0].startswith("level\tpage_num\tblock_num")
    p = subprocess.run(
        [*exe, *base, DATA / "sample_en.png", "-o", tmp_path / "nope" / "x.pdf"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 2 and "cannot write there" in p.stderr
    assert not (tmp_path / "nope").exists()


def test_encrypted_pdf_stays_encrypted(tmp_path, predictor, scanned_pdf):
    locked = tmp_path / "locked.pdf"
    run(tool("qpdf", "qpdf"), "--encrypt", "user-pw", "owner-pw", "256", "--", scanned_pdf, locked)
    out = tmp_path / "locked.ocr.pdf"
    results = []
    pages = predictor.predict_pages(locked, "1", dpi=100, password="user-pw")
    write_document(pages, out, password="user-pw", on_page=results.append)
    check = run(tool("qpdf", "qpdf"), "--check", "--password=user-pw", out)
    assert "No syntax or stream encoding errors found" in check
    assert "R = 6" in run("qpdf", "--show-encryption", "--password=user-pw", out)  # AES-256 kept
    text = pdftotext(out, 0, "-upw", "user-pw")
    assert chars(text) == chars(" ".join(ocr_words(results[0])))
    p = subprocess.run([tool("pdftotext", "poppler-utils"), str(out), "-"], capture_output=True)
    assert p.returncode != 0  # no text without the password
