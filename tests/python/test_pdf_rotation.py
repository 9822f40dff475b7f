"""A PDF page's size as shown comes from the page itself (its /Rotate, applied by PDFium as the
rendering applies it), never from the rendered image's aspect ratio: a near-square page whose
rendering rounds to a square keeps its sides, and /Rotate 90 or 270 swaps them at any ratio.
The PDFs are written here by hand (no PDF library needed)."""

from __future__ import annotations

import pytest

from edgeocr.documents.pages import open_document

pytest.importorskip("pypdfium2", reason="pypdfium2 is not installed (pip install 'edgeocr[test]')")


def pdf_bytes(pages) -> bytes:
    """A PDF of empty pages, each (width pt, height pt, /Rotate)."""
    n = len(pages)
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + i} 0 R" for i in range(n))
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    for w, h, rotate in pages:
        objs.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] /Rotate {rotate} >>".encode()
        )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def shown(pages, dpi):
    doc = open_document(pdf_bytes(pages), dpi=dpi)
    try:
        return [doc.read(i) for i in range(doc.count)]
    finally:
        doc.close()


def test_rotate_swaps_the_sides_as_shown():
    rotations = (0, 90, 180, 270, -90, 450)
    for rotate, page in zip(rotations, shown([(300, 100, r) for r in rotations], dpi=72)):
        turned = rotate % 180 == 90
        assert (page.width_pt, page.height_pt) == ((100, 300) if turned else (300, 100)), rotate
        h, w = page.image.shape[:2]
        assert (w, h) == ((100, 300) if turned else (300, 100)), rotate


def test_a_near_square_page_keeps_its_sides_when_its_rendering_is_square():
    # 100.2 x 100 pt at 150 dpi renders 209 x 209 pixels: the image's ratio says nothing.
    upright, turned = shown([(100.2, 100, 0), (100, 100.2, 90)], dpi=150)
    for page in (upright, turned):
        assert page.image.shape[:2] == (209, 209)
        assert page.width_pt == pytest.approx(100.2, abs=1e-4) and page.height_pt == 100
