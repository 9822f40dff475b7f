"""`ocrmypdf --plugin edgeocr.ocrmypdf`: OCRmyPDF 17 runs edgeocr as its engine, on a scanned PDF
made here, with Tesseract hidden from it (the plugin must not need it). Checked with poppler's
pdftotext and qpdf --check; both of OCRmyPDF's renderers (fpdf2 from edgeocr's hOCR, the default;
sandwich from edgeocr's text-only PDF)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

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
    env = dict(os.environ, PATH=no_tesseract_path)
    cmd = [
        sys.executable, "-m", "ocrmypdf", "--plugin", "edgeocr.ocrmypdf", "--jobs", "2",
        "--edgeocr-model", "ppocr-v4-mobile", "--pdf-renderer", renderer,
        "--output-type", output_type, str(scan), str(out),
    ]  # fmt: skip
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
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
