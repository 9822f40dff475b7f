"""Hostile documents through Predictor.predict_pages, each in a child process under the limits of
the hostile-input tests (tests/python/limits.py: address space, 15 s of CPU, 1.2 GB peak RSS):
encrypted PDFs without and with a wrong password, truncated and corrupt PDFs and TIFFs, a page
too large for the pixel cap, a PDF of 100,000 pages (streamed: the first pages come out without
reading the rest), a PDF without pages, and a page that fails inside a good document. Through
Predictor.parse_pages (the text layer's path, issue 40): fonts without a Unicode map, 100,000
characters on a page, text far outside the page, a ruled table of 10,000 cells.

Each must end in an edgeocr.EdgeOCRError (raised for the document, or on the failing page's
PageResult while the other pages come out), never a crash, hang or unbounded allocation. The
child is this file run as a script: ``python test_hostile_documents.py pages SPEC``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _child(spec: dict) -> int:
    import warnings

    import edgeocr

    warnings.simplefilter("ignore")  # a page rendered at a lower DPI warns: not under test here
    out = {"outcome": None, "pages": []}
    try:
        p = edgeocr.Predictor(threads=1, **spec.get("predictor", {}))
        read = p.parse_pages if spec.get("parse") else p.predict_pages
        it = read(spec["doc"], spec.get("pages"), password=spec.get("password"))
        for k, r in enumerate(it):
            out["pages"].append(
                {
                    "page": r.page,
                    "lines": len(r.lines),
                    "error": None if r.error is None else type(r.error).__name__,
                    "message": None if r.error is None else str(r.error),
                    "text_action": getattr(r, "text_action", ""),
                    "regions": len(getattr(r, "regions", ())),
                    "cells": sum(len(g.table.cells) for g in getattr(r, "regions", ()) if g.table),
                    "markdown": len(r.to_markdown()) if hasattr(r, "to_markdown") else 0,
                    "sources": sorted(
                        {st.get("source", "") for st in getattr(r, "line_styles", [])}
                    ),
                }
            )
            if k + 1 >= spec.get("most", 1 << 30):
                it.close()
                break
        out["outcome"] = "result"
    except edgeocr.EdgeOCRError as e:
        out.update(outcome="error", type=type(e).__name__, message=str(e))
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "pages":
    sys.exit(_child(json.loads(sys.argv[2])))


import pytest  # noqa: E402

sys.path.insert(0, str(HERE))
import doc_fixtures as docs  # noqa: E402
from limits import CPU_SECONDS, PEAK_RSS_MB, run_limited  # noqa: E402

pytest.importorskip("pypdfium2", reason="pypdfium2 is not installed (pip install 'edgeocr[test]')")


@pytest.fixture(scope="module", autouse=True)
def _models():
    from conftest import model_set_paths  # here: the children run this file as a script

    from edgeocr.models import DEFAULT_MODEL_SET

    model_set_paths(DEFAULT_MODEL_SET)


def _run(spec: dict, what: str) -> dict:
    spec = {k: (str(v) if isinstance(v, Path) else v) for k, v in spec.items()}
    o = run_limited([sys.executable, str(Path(__file__)), "pages", json.dumps(spec)])
    assert not o.timed_out and o.returncode >= 0, f"{what}: crashed or hung\n{o.describe()}"
    assert o.peak_rss_mb <= PEAK_RSS_MB, f"{what}: peak RSS {o.peak_rss_mb:.0f} MiB\n{o.describe()}"
    assert o.cpu_seconds <= CPU_SECONDS, o.describe()
    assert o.returncode == 0, f"{what}: not an EdgeOCRError\n{o.describe()}"
    return json.loads(o.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def good_pdf(tmp_path_factory):
    return docs.pdf_from_images(
        docs.TEST_PAGES[:2], tmp_path_factory.mktemp("docs") / "good.pdf", resolution=100
    )


@pytest.fixture(scope="module")
def good_tiff(tmp_path_factory):
    return docs.tiff_from_images(docs.TEST_PAGES, tmp_path_factory.mktemp("docs") / "good.tif")


@pytest.mark.parametrize("password", [None, "wrong"])
def test_encrypted_pdf_needs_its_password(password, good_pdf, tmp_path):
    if docs.qpdf() is None:
        pytest.skip("qpdf is not installed (apt-get install qpdf; .ci/run installs it)")
    enc = docs.encrypt(good_pdf, tmp_path / "enc.pdf", "secret")
    got = _run({"doc": enc, "password": password}, "encrypted")
    assert got["outcome"] == "error" and got["type"] == "PasswordError", got
    assert ("does not open it" if password else "needs a password") in got["message"]
    ok = _run({"doc": enc, "password": "secret"}, "encrypted, right password")
    assert ok["outcome"] == "result" and [p["page"] for p in ok["pages"]] == [0, 1], ok
    assert all(p["error"] is None and p["lines"] > 0 for p in ok["pages"]), ok


@pytest.mark.parametrize("keep", [0.05, 0.5, 0.98])
def test_truncated_pdf(keep, good_pdf, tmp_path):
    got = _run({"doc": docs.truncated(good_pdf, tmp_path / "cut.pdf", keep)}, "truncated pdf")
    assert got["outcome"] == "error" and got["type"] == "DocumentError", got
    assert "truncated" in got["message"], got


def test_corrupt_pdf(good_pdf, tmp_path):
    bad = docs.corrupt(good_pdf, tmp_path / "bad.pdf")
    data = bad.read_bytes()
    bad.write_bytes(data + b"\n%%EOF\n")  # not truncated: corrupt inside
    got = _run({"doc": bad}, "corrupt pdf")
    assert got["outcome"] == "error" and got["type"] == "DocumentError", got
    assert "not a readable PDF" in got["message"], got


@pytest.mark.parametrize("keep", [0.3, 0.7, 0.95])
def test_truncated_tiff(keep, good_tiff, tmp_path):
    got = _run({"doc": docs.truncated(good_tiff, tmp_path / "cut.tif", keep)}, "truncated tiff")
    # Refused for the document, or page by page: every page that is cut reports its error.
    if got["outcome"] == "error":
        assert got["type"] in ("DocumentError", "InvalidInputError"), got
    else:
        assert got["pages"] and any(p["error"] for p in got["pages"]), got
        assert all(p["error"] in (None, "DocumentError", "InvalidInputError") for p in got["pages"])


def test_corrupt_tiff(good_tiff, tmp_path):
    got = _run({"doc": docs.corrupt(good_tiff, tmp_path / "bad.tif")}, "corrupt tiff")
    if got["outcome"] == "error":
        assert got["type"] in ("DocumentError", "InvalidInputError"), got
    else:
        assert all(p["error"] for p in got["pages"]), got


def test_pdf_without_pages(tmp_path):
    got = _run({"doc": docs.raw_pdf(tmp_path / "none.pdf", [])}, "no pages")
    assert got["outcome"] == "error" and got["type"] == "DocumentError", got
    assert "no pages" in got["message"]
    # a page tree that claims pages it does not have
    lying = docs.raw_pdf(tmp_path / "lying.pdf", [], count=1000)
    got = _run({"doc": lying}, "claims pages")
    assert got["outcome"] == "error" or all(p["error"] for p in got["pages"]), got


def test_huge_page_is_rendered_smaller_or_refused(tmp_path):
    cap = {"max_image_pixels": 20_000_000}
    # 6000 pt square: 278 MP at 200 dpi; the 20 MP cap fits at 53.6 dpi (warned), so rendered
    big = docs.raw_pdf(tmp_path / "big.pdf", [(6000, 6000)], docs.TEXT_CONTENT)
    got = _run({"doc": big, "predictor": cap}, "big page")
    assert got["outcome"] == "result" and got["pages"][0]["error"] is None, got
    # 200 x 200 inches (the largest page PDF 1.x allows without UserUnit): 1.6 GP at 200 dpi,
    # fits the cap only at 22 dpi: refused for that page, before anything is rendered
    huge = docs.raw_pdf(tmp_path / "huge.pdf", [(14400, 14400)], docs.TEXT_CONTENT)
    got = _run({"doc": huge, "predictor": cap}, "huge page")
    assert got["outcome"] == "result" and got["pages"][0]["error"] == "InvalidInputError", got
    assert "cap" in got["pages"][0]["message"]


def test_failing_page_inside_a_good_document(tmp_path):
    pdf = docs.raw_pdf(
        tmp_path / "mixed.pdf", [(300, 100), (14400, 14400), (300, 100)], docs.TEXT_CONTENT
    )
    got = _run({"doc": pdf, "predictor": {"max_image_pixels": 10_000_000}}, "mixed")
    assert [p["page"] for p in got["pages"]] == [0, 1, 2], got
    assert [p["error"] for p in got["pages"]] == [None, "InvalidInputError", None], got
    assert got["pages"][0]["lines"] > 0 and got["pages"][2]["lines"] > 0, got


def test_hundred_thousand_pages_are_streamed(tmp_path):
    pdf = docs.raw_pdf(tmp_path / "100k.pdf", [(300, 100)] * 100_000, docs.TEXT_CONTENT)
    got = _run({"doc": pdf, "most": 3}, "100,000 pages")
    assert got["outcome"] == "result" and [p["page"] for p in got["pages"]] == [0, 1, 2], got
    assert all(p["lines"] > 0 for p in got["pages"]), got
    got = _run({"doc": pdf, "pages": "99999-100000"}, "100,000 pages, the last two")
    assert [p["page"] for p in got["pages"]] == [99998, 99999], got


# ---------------------------------------------------------------------------------------------
# Born-digital pages parsed from their own text layer (parse_pages; issue 40)


def _parse(doc, what: str) -> dict:
    from conftest import document_models

    paths = document_models("layout", "table")
    predictor = {"layout": paths["layout"], "table": paths["table"]}
    got = _run({"doc": doc, "parse": True, "predictor": predictor}, what)
    assert got["outcome"] == "result" and len(got["pages"]) == 1, got
    return got["pages"][0]


def test_parse_fonts_without_a_unicode_map(tmp_path):
    import text_layer_fixtures as fx

    page = _parse(fx.cid_font_page(tmp_path / "cid.pdf"), "glyph ids only")
    # the layer cannot say what the page shows: the page is read by OCR, and says so
    assert page["error"] is None and page["text_action"] == "ocr-layer-untrusted", page
    assert "pdf" not in page["sources"], page


def test_parse_hundred_thousand_characters(tmp_path):
    import text_layer_fixtures as fx

    page = _parse(fx.many_chars_page(tmp_path / "100k.pdf", 100_000), "100,000 characters")
    # 2-pt type: the rendered page shows what OCR cannot read, so the sampled check cannot
    # confirm the layer and the page goes to OCR, saying so; either way within the limits.
    assert page["error"] is None, page
    if page["text_action"] == "text-layer":
        assert page["lines"] >= 900 and page["markdown"] > 50_000, page
    else:
        assert page["text_action"] == "ocr-layer-untrusted", page


def test_parse_text_far_outside_the_page(tmp_path):
    import text_layer_fixtures as fx

    page = _parse(fx.outside_page(tmp_path / "far.pdf", inside=2, outside=3000), "far outside")
    # a clipped layer is not trusted: what the page shows is read (2 lines at most)
    assert page["error"] is None and page["lines"] <= 4, page


def test_parse_table_of_ten_thousand_cells(tmp_path):
    import text_layer_fixtures as fx

    page = _parse(fx.big_table_page(tmp_path / "10k.pdf", 100, 100), "10,000 cells")
    assert page["error"] is None and page["text_action"] == "text-layer", page
    assert page["lines"] >= 5000 and page["regions"] >= 1, page
