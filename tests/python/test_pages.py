"""Pages in: Predictor.predict_pages on PDFs (pypdfium2) and multi-page TIFFs (Pillow) made here
from page images (tests/data, and dev pages from ../shared when it is there), page selection,
sizes in pixels and points, streaming, the CLI and page errors. Hostile documents (encrypted,
truncated, corrupt, huge, 100,000 pages, no pages) run under limits in test_hostile_documents.py.
"""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import model_set_paths, shared_fixture
from doc_fixtures import (
    TEST_PAGES,
    TEXT_CONTENT,
    pdf_from_images,
    raw_pdf,
    shared_dev_pages,
    tiff_from_images,
)

import edgeocr
from edgeocr.documents.pages import (
    DEFAULT_DPI,
    DocumentWarning,
    PageStream,
    open_document,
    parse_pages,
)

pytest.importorskip("pypdfium2", reason="pypdfium2 is not installed (pip install 'edgeocr[test]')")

EXPECTED = json.loads((TEST_PAGES[0].parent / "expected.json").read_text())


@pytest.fixture(scope="module")
def p():
    from edgeocr.models import DEFAULT_MODEL_SET

    model_set_paths(DEFAULT_MODEL_SET)
    return edgeocr.Predictor(threads=2)


def _texts(r):
    return [line.text for line in r.lines]


def test_parse_pages():
    assert parse_pages(None, 3) == [0, 1, 2]
    assert parse_pages("1-3,7", 9) == [0, 1, 2, 6]
    assert parse_pages(" 2 , 4- ", 5) == [1, 3, 4]
    assert parse_pages([2, 0], 3) == [2, 0]
    assert parse_pages(range(2), 3) == [0, 1]
    for bad in ("0", "3-2", "a", "1,,2", "1-2-3", "4", [3], [-1], [1.0], [True], b"1", 5):
        with pytest.raises(edgeocr.InvalidInputError):
            parse_pages(bad, 3)


def test_pdf_pages(p, tmp_path):
    pdf = pdf_from_images(TEST_PAGES, tmp_path / "doc.pdf", resolution=100)
    out = list(p.predict_pages(pdf, dpi=100))
    assert [r.page for r in out] == [0, 1, 2]
    for r, src in zip(out, TEST_PAGES):
        assert isinstance(r, edgeocr.PageResult) and r.error is None
        from PIL import Image

        with Image.open(src) as im:
            w, h = im.size
        # PDFium rounds the page's size in pixels up: 518.4 pt at 100 dpi is 721 pixels
        assert abs(r.width - w) <= 1 and abs(r.height - h) <= 1
        assert (r.width, r.height) == r.image_size
        assert r.width_pt == pytest.approx(w * 72 / 100, abs=0.01)
        assert r.height_pt == pytest.approx(h * 72 / 100, abs=0.01)
        assert r.dpi == 100 and r.source == str(pdf)
        assert _texts(r) == EXPECTED[src.name]["lines"]
        for line in r.lines:  # words come with the lines
            assert " ".join(w.text for w in line.words) == line.text
    d = json.loads(out[1].to_json())
    assert d["page"] == 1 and d["error"] is None and d["width_pt"] > 0 and d["lines"]


def test_pdf_default_dpi_and_selection(p, tmp_path):
    pdf = pdf_from_images(TEST_PAGES, tmp_path / "doc.pdf", resolution=100)
    out = list(p.predict_pages(pdf, "3,1"))
    assert [r.page for r in out] == [2, 0]
    assert out[0].dpi == DEFAULT_DPI
    assert out[0].width == pytest.approx(out[0].width_pt * DEFAULT_DPI / 72, abs=1)
    assert _texts(out[1]) == EXPECTED["sample_en.png"]["lines"]
    assert [r.page for r in p.predict_pages(pdf, [1])] == [1]
    with pytest.raises(edgeocr.InvalidInputError, match="3 page"):
        p.predict_pages(pdf, "4")
    for bad in (0, 5000, "200", float("nan")):
        with pytest.raises(edgeocr.InvalidInputError, match="dpi"):
            p.predict_pages(pdf, dpi=bad)


def test_tiff_pages_equal_the_images(p, tmp_path):
    tif = tiff_from_images(TEST_PAGES, tmp_path / "doc.tif", dpi=150)
    out = list(p.predict_pages(tif))
    assert [r.page for r in out] == [0, 1, 2]
    for r, src in zip(out, TEST_PAGES):
        single = p.predict(str(src))
        assert _texts(r) == _texts(single)  # lossless: the same pixels, the same lines
        assert np.allclose(r.boxes, single.boxes)
        assert r.dpi == 150 and r.width_pt == pytest.approx(r.width * 72 / 150)
    assert [r.page for r in p.predict_pages(tif, "2-")] == [1, 2]


def test_single_image_is_one_page(p):
    out = list(p.predict_pages(str(TEST_PAGES[0])))
    assert len(out) == 1 and out[0].page == 0
    assert _texts(out[0]) == EXPECTED["sample_en.png"]["lines"]
    assert out[0].dpi == 72 and out[0].width_pt == out[0].width  # no dpi in the file
    from PIL import Image

    with Image.open(TEST_PAGES[0]) as im:
        arr = np.asarray(im.convert("RGB"))[:, :, ::-1]
    assert _texts(next(iter(p.predict_pages(np.ascontiguousarray(arr))))) == _texts(out[0])


def test_dev_pages_pdf(p, tmp_path):
    shared_fixture("datasets/dev/images")
    pages = shared_dev_pages(3)
    pdf = pdf_from_images(pages, tmp_path / "dev.pdf", resolution=150)
    for r, src in zip(p.predict_pages(pdf, dpi=150), pages):
        direct = p.predict(str(src))
        a, b = "\n".join(_texts(r)), "\n".join(_texts(direct))
        # the page went through JPEG at quality 90 on its way into the PDF: nearly the same
        assert r.error is None and len(r.lines) >= 0.9 * len(direct.lines)
        assert difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.9


def test_pages_are_read_lazily(tmp_path):
    pdf = raw_pdf(tmp_path / "many.pdf", [(200, 100)] * 50, TEXT_CONTENT)
    stream = PageStream(open_document(pdf), list(range(50)))
    it = iter(stream)
    first = next(it)
    assert first.index == 0 and first.image is not None
    assert stream.rendered <= 2  # this page, and at most the next one ahead
    second = next(it)
    assert second.index == 1 and stream.rendered <= 3
    it.close()  # stops the reader and closes the document
    assert stream.rendered <= 3


def test_page_too_large_is_rendered_at_a_lower_dpi(p, tmp_path):
    # A4 at 200 dpi is 1654 x 2339 = 3.9 MP; with a 2 MP cap it is rendered at the DPI that fits.
    pdf = raw_pdf(tmp_path / "a4.pdf", [(595, 842)], TEXT_CONTENT)
    small = edgeocr.Predictor(threads=2, max_image_pixels=2_000_000)
    with pytest.warns(DocumentWarning, match="rendered at"):
        (r,) = list(small.predict_pages(pdf))
    assert r.error is None and r.dpi < DEFAULT_DPI
    assert r.width * r.height <= 2_000_000
    assert r.width == pytest.approx(595 * r.dpi / 72, abs=1)
    # a page that fits only below 50 dpi is refused, and the document's other pages come out
    pdf = raw_pdf(tmp_path / "mixed.pdf", [(300, 100), (14400, 14400), (300, 100)], TEXT_CONTENT)
    out = list(small.predict_pages(pdf))
    assert [r.page for r in out] == [0, 1, 2]
    assert out[0].error is None and out[2].error is None
    assert any("Invoice" in t for t in _texts(out[0]))
    assert isinstance(out[1].error, edgeocr.InvalidInputError) and not out[1].lines
    assert "cap" in str(out[1].error) and "page 2" in str(out[1].error)


def test_document_errors_are_raised_at_once(p, tmp_path):
    empty = raw_pdf(tmp_path / "empty.pdf", [])
    with pytest.raises(edgeocr.DocumentError, match="no pages"):
        p.predict_pages(empty)
    with pytest.raises(edgeocr.InvalidInputError, match="not found"):
        p.predict_pages(tmp_path / "missing.pdf")
    good = pdf_from_images(TEST_PAGES[:1], tmp_path / "one.pdf")
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(good.read_bytes()[:-300])
    with pytest.raises(edgeocr.DocumentError, match="truncated"):
        p.predict_pages(cut)
    with pytest.raises(edgeocr.InvalidInputError, match="password must be a string"):
        p.predict_pages(good, password=b"x")


def test_cli_pages(tmp_path):
    pdf = pdf_from_images(TEST_PAGES, tmp_path / "doc.pdf", resolution=100)
    cmd = [sys.executable, "-m", "edgeocr.cli", "predict", str(pdf), "--pages", "1,3"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("== ") == 2 and "page 1 " in out.stdout and "page 3 " in out.stdout
    assert "Invoice 2041 due on March 3" in out.stdout
    out = subprocess.run([*cmd, "--json", "--dpi", "100"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    assert [r["page"] for r in rows] == [0, 2] and rows[0]["dpi"] == 100
    bad = subprocess.run([*cmd[:-1], "9"], capture_output=True, text=True)
    assert bad.returncode != 0 and "3 page" in bad.stderr


def test_no_warning_for_ordinary_pages(p, tmp_path):
    pdf = pdf_from_images(TEST_PAGES[:1], tmp_path / "doc.pdf")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(list(p.predict_pages(pdf))) == 1
