"""Documents made by the tests: PDFs and multi-page TIFFs from page images, hand-written PDFs
(no pages, a huge page, 100,000 pages), encrypted, truncated and corrupt ones.

Used by tests/python/test_pages.py, tests/python/test_hostile_documents.py, the writers' and
pipeline's tests and
benchmarks/pages_rss.py. Nothing here uses the renderer under test (pypdfium2): PDFs from
images are written by Pillow, the others by hand, encrypted ones by qpdf.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
TEST_PAGES = [DATA / "sample_en.png", DATA / "sample_en_skew6.png", DATA / "sample_en_gray.png"]


def shared_dev_pages(n: int) -> list[Path]:
    """Up to n English dev pages from ../shared (empty list when the dataset is missing)."""
    import os

    env = os.environ.get("EDGEOCR_SHARED_DIR")
    images = (Path(env) if env else REPO.parent / "shared") / "datasets" / "dev" / "images"
    if not images.is_dir():
        return []
    pages = sorted(p for p in images.iterdir() if "_en_" in p.name and p.suffix in (".png", ".jpg"))
    return pages[:n]


def _rgb(path):
    from PIL import Image

    with Image.open(path) as im:
        return im.convert("RGB")


def pdf_from_images(images, path, resolution: float = 100.0, quality: int = 90) -> Path:
    """A PDF with one page per image (JPEG-compressed, as scanners write them), each page the
    image's size at `resolution` dpi."""

    ims = [_rgb(p) for p in images]
    ims[0].save(
        path, "PDF", save_all=True, append_images=ims[1:], resolution=resolution, quality=quality
    )
    return Path(path)


def tiff_from_images(images, path, dpi: float = 150.0) -> Path:
    """A multi-page TIFF (deflate, lossless), one page per image, recording `dpi`."""

    ims = [_rgb(p) for p in images]
    ims[0].save(
        path,
        "TIFF",
        save_all=True,
        append_images=ims[1:],
        compression="tiff_deflate",
        dpi=(dpi, dpi),
    )
    return Path(path)


def raw_pdf(path, sizes, content: bytes = b"", count=None) -> Path:
    """A hand-written PDF with one page per (width_pt, height_pt) in `sizes` (an iterable, may be
    long), each drawing `content` (one shared content stream); `count` overrides the page tree's
    /Count. Written with a correct cross-reference table, streamed to the file."""
    sizes = list(sizes)
    n = len(sizes)
    offsets = []
    with open(path, "wb") as f:
        pos = 0

        def put(b: bytes) -> None:
            nonlocal pos
            f.write(b)
            pos += len(b)

        def obj(num: int, body: bytes) -> None:
            offsets.append((num, pos))
            put(b"%d 0 obj\n" % num + body + b"\nendobj\n")

        put(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        kids = b" ".join(b"%d 0 R" % (4 + i) for i in range(n))
        obj(2, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n if count is None else count))
        obj(3, b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        for i, (w, h) in enumerate(sizes):
            obj(
                4 + i,
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents 3 0 R "
                b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 "
                b"/BaseFont /Helvetica >> >> >> >>" % (w, h),
            )
        xref = pos
        total = 4 + n
        put(b"xref\n0 %d\n0000000000 65535 f \n" % total)
        table = dict(offsets)
        f.write(b"".join(b"%010d 00000 n \n" % table[k] for k in range(1, total)))
        put(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (total, xref))
    return Path(path)


TEXT_CONTENT = b"BT /F1 24 Tf 40 60 Td (Invoice 2041 due on March 3) Tj ET"


def qpdf() -> str | None:
    return shutil.which("qpdf")


def encrypt(src, dst, user_password: str, owner_password: str = "owner") -> Path:
    """`src` encrypted with AES-256 by qpdf (the caller skips without qpdf)."""
    subprocess.run(
        [qpdf(), "--encrypt", user_password, owner_password, "256", "--", str(src), str(dst)],
        check=True,
        capture_output=True,
    )
    return Path(dst)


def truncated(src, dst, keep: float = 0.5) -> Path:
    data = Path(src).read_bytes()
    Path(dst).write_bytes(data[: int(len(data) * keep)])
    return Path(dst)


def corrupt(src, dst, seed: int = 7) -> Path:
    """`src` with its bytes after the first 16 replaced by noise (the header survives)."""
    import random

    data = bytearray(Path(src).read_bytes())
    rng = random.Random(seed)
    for i in range(16, len(data)):
        data[i] = rng.randrange(256)
    Path(dst).write_bytes(bytes(data))
    return Path(dst)


def squeezed_digit():
    """A page (BGR array) with one character whose box is 2.2x taller than wide: its line is
    turned by the default rotate_ratio (1.5), read upright with rotate_ratio 5."""
    import cv2
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (400, 200), "white")
    ImageDraw.Draw(img).text((150, 40), "8", fill="black", font=ImageFont.load_default(size=100))
    return cv2.resize(np.array(img)[:, :, ::-1], (200, 200), interpolation=cv2.INTER_AREA)
