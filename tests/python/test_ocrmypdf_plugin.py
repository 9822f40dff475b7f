"""`ocrmypdf --plugin edgeocr.ocrmypdf`: OCRmyPDF 17 runs edgeocr as its engine, on a scanned PDF
made here, with Tesseract hidden from it (the plugin must not need it). Checked with poppler's
pdftotext and qpdf --check; both of OCRmyPDF's renderers (fpdf2 from the OcrElement tree of
edgeocr's generate_ocr, the default; sandwich from edgeocr's text-only PDF)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from doc_fixtures import TEST_PAGES, pdf_from_images

pytest.importorskip("ocrmypdf", reason="ocrmypdf is not installed (pip install 'edgeocr[pdf]')")


def tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install {package})")
    return path


def chars(text: str) -> Counter:
    return Counter("".join(text.split()))


@pytest.fixture(scope="module")
def scan(tmp_path_factory):
    return pdf_from_images(TEST_PAGES[:2], tmp_path_factory.mktemp("om") / "scan.pdf")


@pytest.fixture(scope="module")
def no_tesseract_path(tmp_path_factory):
    """A PATH with Ghostscript and qpdf (what OCRmyPDF may run) but no tesseract."""
    bin_dir = tmp_path_factory.mktemp("bin")
    for name in ("gs", "qpdf"):
        found = shutil.which(name)
        if found:
            os.symlink(found, bin_dir / name)
    return f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}"


@pytest.mark.parametrize("renderer", ["auto", "sandwich"])
def test_ocrmypdf_with_the_plugin(tmp_path, scan, no_tesseract_path, renderer, predictor):
    out = tmp_path / f"{renderer}.pdf"
    output_type = "pdfa" if shutil.which("gs") else "pdf"  # PDF/A needs Ghostscript
    work = tmp_path / "work"  # OCRmyPDF's temporary folder, kept to see which engine API ran
    work.mkdir()
    env = dict(os.environ, PATH=no_tesseract_path, TMPDIR=str(work))
    cmd = [
        sys.executable, "-m", "ocrmypdf", "--plugin", "edgeocr.ocrmypdf", "--jobs", "2",
        "--edgeocr-model", "ppocr-v4-mobile", "--pdf-renderer", renderer,
        "--output-type", output_type, "--keep-temporary-files", str(scan), str(out),
    ]  # fmt: skip
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    # The default renderer takes generate_ocr's OcrElement trees (its sidecar text per page),
    # never an hOCR file; sandwich takes generate_pdf's text-only pages.
    direct = list(work.rglob("*ocr_direct.txt"))
    assert not list(work.rglob("*.hocr"))
    assert len(direct) == (2 if renderer == "auto" else 0), sorted(work.rglob("*"))
    check = subprocess.run(
        [tool("qpdf", "qpdf"), "--check", str(out)], capture_output=True, text=True
    )
    assert check.returncode == 0 and "No syntax or stream encoding errors" in check.stdout
    text = subprocess.run(
        [tool("pdftotext", "poppler-utils"), "-f", "1", "-l", "1", str(out), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # What edgeocr reads on the page OCRmyPDF rendered is the first page's text.
    want = " ".join(line.text for line in predictor.predict(str(TEST_PAGES[0])).lines)
    got, exp = chars(text), chars(want)
    assert sum((got & exp).values()) >= 0.9 * sum(exp.values()), (text, want)


def test_generate_ocr_gives_the_lines_as_ocrmypdf_elements(tmp_path, predictor):
    """The OcrElement tree of generate_ocr: the page at the image's size and resolution, a
    paragraph per line holding the line, the recogniser's words with their bounds and
    confidences; an upright line has a baseline, a turned one its textangle (OcrLine.turns)."""
    import cv2
    from ocrmypdf.hocrtransform import OcrClass
    from PIL import Image

    from edgeocr.ocrmypdf import EdgeOcrEngine

    assert EdgeOcrEngine.supports_generate_ocr()
    options = SimpleNamespace(edgeocr_model="ppocr-v4-mobile")  # the engine reads only this
    upright = cv2.imread(str(TEST_PAGES[0]))
    for name, img, angle in [
        ("upright", upright, None),
        ("clockwise", cv2.rotate(upright, cv2.ROTATE_90_CLOCKWISE), 270.0),
    ]:
        png = tmp_path / f"{name}.png"
        Image.fromarray(img[:, :, ::-1]).save(png, dpi=(150, 150))  # as OCRmyPDF hands pages
        tree, text = EdgeOcrEngine.generate_ocr(png, options, page_number=3)
        want = predictor.predict(str(png))
        h, w = img.shape[:2]
        assert tree.ocr_class == OcrClass.PAGE and tree.page_number == 3
        assert (tree.bbox.right, tree.bbox.bottom, tree.dpi) == (
            w,
            h,
            pytest.approx(150.0, rel=1e-3),
        )  # PNG: pixels per metre
        assert [p.ocr_class for p in tree.children] == [OcrClass.PARAGRAPH] * len(want.lines)
        lines = tree.lines
        assert len(lines) == len(want.lines)
        for el, line in zip(lines, want.lines):
            assert [x.text for x in el.words] == [x.text for x in line.words]
            assert el.textangle == angle and (el.baseline is None) == (angle is not None)
            for word, ocr in zip(el.words, line.words):
                x0, y0 = np.floor(ocr.box.min(axis=0))
                x1, y1 = np.ceil(ocr.box.max(axis=0))
                got = (word.bbox.left, word.bbox.top, word.bbox.right, word.bbox.bottom)
                assert got == (max(x0, 0), max(y0, 0), min(x1, w), min(y1, h))
                assert word.confidence == pytest.approx(min(float(ocr.score), 1.0))
        assert text.split() == " ".join(ln.text for ln in want.lines).split()
