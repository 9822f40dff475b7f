"""PDF pages that already have text: skip_text / --skip-text keeps them as they are, redo_ocr /
--redo-ocr replaces only edgeocr's own earlier layer (real text kept), the default reads them and
says so (docs/documents.md, "Pages that already have text").

Real PDFs, made here: a scan (Pillow's PDF writer), its searchable copy written by edgeocr, a PDF
with a real text line (written by hand), a scan with a real text line added by pikepdf (a
stamped page); checked with PDFium (pypdfium2) and poppler's pdftotext.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from doc_fixtures import DATA, TEXT_CONTENT, pdf_from_images, raw_pdf

from edgeocr.documents import write_document
from edgeocr.errors import InvalidInputError

pikepdf = pytest.importorskip(
    "pikepdf", reason="pikepdf is not installed (pip install 'edgeocr[pdf]')"
)
pdfium = pytest.importorskip("pypdfium2", reason="pypdfium2 is not installed")

STAMP = "Zebra Quartz 4711"  # real text laid on the scan, where the image is white


def pdftotext(path) -> str:
    exe = shutil.which("pdftotext")
    if exe is None:
        pytest.skip("pdftotext is not installed (apt-get install poppler-utils)")
    p = subprocess.run([exe, str(path), "-"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def pdfium_text(path, page: int = 0) -> str:
    doc = pdfium.PdfDocument(str(path))
    try:
        tp = doc[page].get_textpage()
        try:
            return tp.get_text_range()
        finally:
            tp.close()
    finally:
        doc.close()


def contents(path, page: int = 0) -> list:
    with pikepdf.open(path) as pdf:
        c = pdf.pages[page].obj.Contents
        return [bytes(s.read_bytes()) for s in (c if isinstance(c, pikepdf.Array) else [c])]


@pytest.fixture(scope="module")
def files(tmp_path_factory, predictor):
    d = tmp_path_factory.mktemp("textlayer")
    scan = pdf_from_images([DATA / "sample_en.png"], d / "scan.pdf", resolution=150)
    ocr = d / "scan.ocr.pdf"
    write_document(predictor.predict_pages(scan), ocr)
    text = raw_pdf(d / "text.pdf", [(300, 100)], TEXT_CONTENT)
    # The scan with a real (visible) line of text stamped at the bottom, in Helvetica.
    stamped = d / "stamped.pdf"
    with pikepdf.open(scan) as pdf:
        page = pdf.pages[0]
        font = pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica
        )
        page.add_resource(font, pikepdf.Name.Font, name=pikepdf.Name("/FStamp"))
        page.contents_add(
            pikepdf.Stream(pdf, f"BT /FStamp 14 Tf 20 12 Td ({STAMP}) Tj ET".encode())
        )
        pdf.save(stamped)
    return {"scan": scan, "ocr": ocr, "text": text, "stamped": stamped, "dir": d}


def test_text_layers_are_told_apart(files, predictor):
    (scan,) = predictor.predict_pages(files["scan"])
    assert (scan.text_layer, scan.text_action) == ("none", "ocr") and scan.lines
    (ocr,) = predictor.predict_pages(files["ocr"])
    assert (ocr.text_layer, ocr.text_action) == ("edgeocr", "ocr-over-text")
    (text,) = predictor.predict_pages(files["text"])
    assert (text.text_layer, text.text_action) == ("text", "ocr-over-text")
    assert "Invoice" in " ".join(ln.text for ln in text.lines)  # read anyway
    assert text.to_dict()["text_action"] == "ocr-over-text"
    assert "text_layer" not in scan.to_dict()  # a page without text: as before


def test_skip_text_keeps_pages_as_they_are(files, predictor):
    for name, layer in (("ocr", "edgeocr"), ("text", "text")):
        (r,) = predictor.predict_pages(files[name], skip_text=True)
        assert (r.text_layer, r.text_action, r.lines, r.error) == (layer, "kept", [], None)
        assert r.width > 0 and r.height > 0  # its size at the DPI asked
        out = files["dir"] / f"{name}.skip.pdf"
        write_document(predictor.predict_pages(files[name], skip_text=True), out)
        assert contents(out) == contents(files[name])  # no layer added, content untouched
        assert pdftotext(out) == pdftotext(files[name])
    (r,) = predictor.predict_pages(files["scan"], skip_text=True)  # no text: read
    assert r.text_action == "ocr" and r.lines


def test_redo_ocr_replaces_only_edgeocrs_layer(files, predictor):
    first = pdfium_text(files["ocr"])
    assert first.count("Invoice") == 1
    again = files["dir"] / "again.pdf"
    write_document(predictor.predict_pages(files["ocr"]), again)  # the default: a second layer
    assert pdfium_text(again).count("Invoice") == 2
    redo = files["dir"] / "redo.pdf"
    (r,) = predictor.predict_pages(files["ocr"], redo_ocr=True)
    assert (r.text_layer, r.text_action) == ("edgeocr", "redo") and r.lines
    write_document(predictor.predict_pages(files["ocr"], redo_ocr=True), redo)
    assert pdfium_text(redo).count("Invoice") == 1  # the old layer went, the new one is there
    assert pdftotext(redo).split() == pdftotext(files["ocr"]).split()
    # Redoing the redone file is the same again (one layer, not two).
    redo2 = files["dir"] / "redo2.pdf"
    write_document(predictor.predict_pages(redo, redo_ocr=True), redo2)
    assert pdfium_text(redo2).count("Invoice") == 1
    # A page with real text only is kept as it is under redo_ocr.
    (t,) = predictor.predict_pages(files["text"], redo_ocr=True)
    assert (t.text_layer, t.text_action, t.lines) == ("text", "kept", [])


def test_redo_ocr_keeps_real_text_and_reads_the_rest(files, predictor):
    stamped = files["stamped"]
    (r,) = predictor.predict_pages(stamped)
    assert r.text_layer == "text"
    assert any("4711" in ln.text for ln in r.lines)  # OCR reads the stamp too (it is visible)
    ocr = files["dir"] / "stamped.ocr.pdf"
    write_document(predictor.predict_pages(stamped), ocr)  # default: layer over everything
    assert pdfium_text(ocr).count("4711") == 2  # the stamp and its OCR
    (redo,) = predictor.predict_pages(ocr, redo_ocr=True)
    assert (redo.text_layer, redo.text_action) == ("text+edgeocr", "redo")
    assert not any("4711" in ln.text for ln in redo.lines)  # over the real text: dropped
    assert any("Invoice" in ln.text for ln in redo.lines)  # the scan: read
    out = files["dir"] / "stamped.redo.pdf"
    write_document(predictor.predict_pages(ocr, redo_ocr=True), out)
    text = pdftotext(out)
    assert text.count("4711") == 1 and text.count("Invoice") == 1


def test_both_flags_refused(files, predictor):
    with pytest.raises(InvalidInputError, match="exclude each other"):
        predictor.predict_pages(files["ocr"], skip_text=True, redo_ocr=True)


def test_cli_says_what_it_did(files):
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    out = files["dir"] / "cli.pdf"

    def cli(*args):
        p = subprocess.run(
            [sys.executable, "-m", "edgeocr.cli", "predict", *map(str, args)],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        return p

    p = cli(files["ocr"], "--skip-text", "-o", out)
    assert p.returncode == 0, p.stderr
    assert "page 1 has edgeocr's text layer from an earlier run: kept as it is" in p.stderr
    p = cli(files["text"])
    assert p.returncode == 0, p.stderr
    assert "page 1 has text: read anyway" in p.stderr and "--skip-text" in p.stderr
    assert "Invoice" in p.stdout
    p = cli(files["ocr"], "--redo-ocr", "-o", out)
    assert p.returncode == 0, p.stderr
    assert "edgeocr's earlier layer is replaced" in p.stderr
    assert pdfium_text(out).count("Invoice") == 1
    p = cli(files["ocr"], "--redo-ocr", "--skip-text")
    assert p.returncode != 0 and "not allowed with" in p.stderr


def test_page_without_text_unchanged_by_the_flags(files, predictor):
    plain = [ln.text for ln in next(iter(predictor.predict_pages(files["scan"]))).lines]
    for kw in ({"skip_text": True}, {"redo_ocr": True}):
        (r,) = predictor.predict_pages(files["scan"], **kw)
        assert [ln.text for ln in r.lines] == plain


def test_rotated_kept_page_has_its_shown_size(tmp_path, predictor):
    pdf = raw_pdf(tmp_path / "rot.pdf", [(300, 100)], TEXT_CONTENT)
    with pikepdf.open(pdf, allow_overwriting_input=True) as p:
        p.pages[0].obj.Rotate = 90
        p.save(pdf)
    (r,) = predictor.predict_pages(pdf, skip_text=True)
    assert (r.width_pt, r.height_pt) == (100.0, 300.0) and r.height > r.width
