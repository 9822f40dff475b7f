"""Pages in: the pages of a PDF, every frame of a multi-page TIFF (or GIF, WebP, APNG, ...), or one
image as one page, read one page at a time.

PDF pages are rendered with pypdfium2 (PDFium, the PDF engine of Chromium: Apache-2.0/BSD
wheels that bundle PDFium for Linux x86_64/aarch64, macOS and Windows, so nothing comes from
the system; it renders what browsers render, including forms, and is fast). Multi-frame images
are read frame by frame with Pillow. See docs/documents.md.

Streaming: a document is opened (its page count and nothing else), then one page is rendered
or decoded at a time, the next one on a worker thread while the caller reads the current one;
at most two pages' pixels are alive at once, whatever the number of pages.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .._numpy import np
from ..errors import (
    DocumentError,
    EdgeOCRError,
    InvalidInputError,
    PasswordError,
    ResourceError,
)
from ..image_io import JPEG_SIGNATURE, PNG_SIGNATURE, max_image_pixels, pil_to_array
from ..results import DocumentResult, PageResult
from .pdfium_lock import PDFIUM_LOCK as _PDFIUM_LOCK

# PDF pages are rendered at this many dots per inch unless the caller says otherwise. Measured on
# a PDF of dev pages (benchmarks/README.md, "Pages in"): 1-NED 0.9991 at 200 dpi, 0.9978 at 300
# in 1.36x the time (docs/documents.md).
DEFAULT_DPI = 200.0
MIN_DPI, MAX_DPI = 10.0, 2400.0
# A page too large for the pixel cap at the asked DPI is rendered at the highest DPI that fits,
# with a warning; below this DPI text is too small to read, so the page is refused instead.
MIN_FIT_DPI = 50.0
# A PDF file is mapped by PDFium, not read into memory; bytes are capped like an image's.
MAX_PDF_BYTES = 1 << 32

# PDFium's lock (pdfium_lock.py), here too for the callers that take it from pages.
PDFIUM_LOCK = _PDFIUM_LOCK


# A PDF page's text before OCR (`PageResult.text_layer`): none; only an invisible layer that
# edgeocr wrote before (its glyphless font, edgeocr/documents/font.py); real text (any other
# font: the page's own text, or another tool's OCR layer); or both.
TEXT_LAYERS = ("none", "edgeocr", "text", "text+edgeocr")
# What is done (`PageResult.text_action`): "ocr" (a page without text), "ocr-over-text" (the
# default for a page with text: read, and a searchable PDF gets a second layer over it), "kept"
# (not read: skip_text, or redo_ocr on a page with real text only), "redo" (redo_ocr: edgeocr's
# earlier layer removed, the page read again; lines over the page's real text are dropped).
# Parsing (parse_pages) a page with real text: "text-layer" (its own text read from the layer,
# OCR only in its pictures), or "ocr-layer-untrusted" (the layer does not say what the page
# shows, or uses fonts without a usable Unicode map: the page is read by OCR).
TEXT_ACTIONS = ("ocr", "ocr-over-text", "kept", "redo", "text-layer", "ocr-layer-untrusted")
# Pages with text (PDF): read anyway (OCRmyPDF's --force-ocr without rasterising), kept as they
# are (--skip-text), or edgeocr's own layer replaced (--redo-ocr).
TEXT_MODES = ("ocr", "skip", "redo")


class DocumentWarning(UserWarning):
    """A page was read differently from what was asked (e.g. at a lower DPI to fit the cap)."""


@dataclass
class Page:
    """One page as read: its pixels (None when it failed: then ``error`` says why)."""

    index: int  # 0-based in the document
    image: np.ndarray | None  # uint8 HxW, HxWx3 BGR or HxWx4 BGRA
    width_pt: float
    height_pt: float
    dpi: float
    error: EdgeOCRError | None = None
    note: str = ""  # why it was read differently from what was asked (warned about)
    text_layer: str = ""  # a PDF page's text before OCR: TEXT_LAYERS (empty for images)
    text_action: str = ""  # what is done about it: TEXT_ACTIONS (empty for images)
    text_boxes: list | None = None  # pixel boxes of its real text's characters (redo_ocr)
    page_text: object = None  # its text layer (text_layer.PageText) when parsing may use it
    text_trusted: bool = False  # the layer says what the page shows (_check_layer)
    text_note: str = ""  # what the text layer check found


def parse_pages(pages, count: int) -> list[int]:
    """The 0-based page indices that ``pages`` selects from a document of ``count`` pages.

    ``pages``: None (all), a string of 1-based pages and ranges as the command line takes them
    ("1-3,7", "5-" to the end), or an iterable of 0-based indices (kept in the order given).
    InvalidInputError for a malformed string or a page the document does not have.
    """
    if pages is None:
        return list(range(count))
    if isinstance(pages, str):
        out: list[int] = []
        for part in pages.split(","):
            m = re.fullmatch(r"\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?", part)
            if not m:
                raise InvalidInputError(
                    f"pages: {pages!r} is not a list of pages and ranges such as '1-3,7' (1-based)"
                )
            first = int(m.group(1))
            last = first if not m.group(2) else (int(m.group(3)) if m.group(3) else count)
            if first < 1 or last < first:
                raise InvalidInputError(f"pages: {part.strip()!r} is not a range of pages from 1")
            if last > count:
                raise InvalidInputError(
                    f"pages: page {last} asked, but the document has {count} page(s)"
                )
            out.extend(range(first - 1, last))
        return out
    if isinstance(pages, (bytes, bytearray)) or not isinstance(pages, Iterable):
        raise InvalidInputError(
            f"pages must be None, a string such as '1-3,7' or 0-based indices, got {pages!r}"
        )
    out = []
    for p in pages:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise InvalidInputError(f"pages: {p!r} is not a 0-based page index")
        if not 0 <= p < count:
            raise InvalidInputError(
                f"pages: index {int(p)} is out of range; the document has {count} page(s) "
                "(indices are 0-based)"
            )
        out.append(int(p))
    return out


def check_dpi(dpi) -> float:
    """``dpi`` as a float in [MIN_DPI, MAX_DPI] (None: DEFAULT_DPI)."""
    if dpi is None:
        return DEFAULT_DPI
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float, np.integer, np.floating)):
        raise InvalidInputError(f"dpi must be a number, got {dpi!r}")
    if not MIN_DPI <= float(dpi) <= MAX_DPI:
        raise InvalidInputError(f"dpi must be in [{MIN_DPI:g}, {MAX_DPI:g}], got {dpi!r}")
    return float(dpi)


def is_pdf_header(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a PDF (``%PDF-`` in its first KiB)."""
    # The header may follow up to 1 KiB of other bytes (PDF 32000-1, annex H.3).
    return b"%PDF-" in head[:1024]


def _check_pdf_end(tail: bytes, source: str) -> None:
    # PDFium rebuilds a damaged cross-reference table and renders what it finds, so a truncated
    # file would give some pages, or part of one, silently. A whole PDF ends with %%EOF in its
    # last 1024 bytes (PDF 32000-1, 7.5.5 and annex H.3): without it the file is refused.
    if b"%%EOF" not in tail:
        raise DocumentError(
            f"{source}: the PDF is truncated (no %%EOF in its last 1024 bytes, where a whole PDF "
            "ends)"
        )


def _text_layer(page, want_boxes: bool) -> tuple[str, list]:
    """(one of TEXT_LAYERS, the boxes of the real text's characters in PDF user space when
    ``want_boxes``) of a PDFium page. Characters in edgeocr's glyphless font are edgeocr's
    earlier layer; whitespace and the characters PDFium makes up (line ends) do not count."""
    import ctypes

    import pypdfium2.raw as raw

    from .font import FONT_NAME

    textpage = page.get_textpage()
    try:
        n = textpage.count_chars()
        ours = real = 0
        boxes: list = []
        buf = ctypes.create_string_buffer(256)
        flags = ctypes.c_int()
        for i in range(n):
            code = raw.FPDFText_GetUnicode(textpage.raw, i)
            if code <= 32 or chr(code).isspace() or raw.FPDFText_IsGenerated(textpage.raw, i) == 1:
                continue
            size = raw.FPDFText_GetFontInfo(textpage.raw, i, buf, 256, ctypes.byref(flags))
            name = buf.raw[: max(0, min(size, 256) - 1)].decode("utf-8", "replace")
            if name.endswith(FONT_NAME):  # embedded subsets carry a "ABCDEF+" prefix
                ours += 1
                continue
            real += 1
            if want_boxes:
                boxes.append(textpage.get_charbox(i))
    finally:
        textpage.close()
    if real and ours:
        return "text+edgeocr", boxes
    return ("text" if real else "edgeocr" if ours else "none"), boxes


_TEXT_SAID = {
    "ocr-over-text": "read anyway; a searchable PDF gets a second text layer over it "
    "(--skip-text keeps such pages as they are, --redo-ocr replaces only edgeocr's own layer)",
    "kept": "kept as it is, not read",
    "redo": "read again; edgeocr's earlier layer is replaced, real text kept",
    "text-layer": "parsed from its own text (OCR only in its pictures; force_ocr / --force-ocr "
    "reads it all by OCR)",
    "ocr-layer-untrusted": "parsed by OCR: its text layer does not say what the page shows",
}
_LAYER_SAID = {
    "edgeocr": "edgeocr's text layer from an earlier run",
    "text": "text",
    "text+edgeocr": "text and edgeocr's layer from an earlier run",
}


def text_note(result) -> str:
    """What became of a PDF page that already had text, in words ("" for other pages): the
    command line prints it, as OCRmyPDF does."""
    layer = getattr(result, "text_layer", "")
    if layer in ("", "none"):
        return ""
    said = _TEXT_SAID.get(getattr(result, "text_action", ""), "")
    return f"has {_LAYER_SAID.get(layer, layer)}: {said}"


def _text_action(layer: str, mode: str) -> str:
    """What TEXT_MODES ``mode`` does with a page whose text is ``layer`` (TEXT_ACTIONS)."""
    if layer == "none":
        return "ocr"
    if mode == "skip" or (mode == "redo" and layer == "text"):
        return "kept"
    if mode == "redo":
        return "redo"
    return "ocr-over-text"


def _to_pixels(page, boxes, width: int, height: int) -> list:
    """PDF user-space boxes (left, bottom, right, top) of ``page`` as (x0, y0, x1, y1) pixels
    of its rendering at ``width`` x ``height`` (PDFium's own page-to-device map: CropBox and
    /Rotate as rendered)."""
    import ctypes

    import pypdfium2.raw as raw

    out = []
    dx, dy = ctypes.c_int(), ctypes.c_int()
    for left, bottom, right, top in boxes:
        xs, ys = [], []
        for px, py in ((left, bottom), (right, top)):
            raw.FPDF_PageToDevice(
                page.raw, 0, 0, width, height, 0, px, py, ctypes.byref(dx), ctypes.byref(dy)
            )
            xs.append(dx.value)
            ys.append(dy.value)
        out.append((min(xs), min(ys), max(xs), max(ys)))
    return out


def _over_text(box, text_boxes) -> bool:
    """Whether at least half of the width of the line box (x0, y0, x1, y1) runs over characters
    of the page's real text on its middle (a visible word that OCR read again)."""
    x0, y0, x1, y1 = box
    mid = (y0 + y1) / 2
    spans = sorted((max(a, x0), min(c, x1)) for a, b, c, d in text_boxes if b <= mid <= d)
    covered, end = 0.0, x0
    for a, c in spans:
        a = max(a, end)
        if c > a:
            covered += c - a
            end = c
    return x1 > x0 and covered >= 0.5 * (x1 - x0)


class _Document:
    """A document opened for reading pages (not thread-safe; PageStream serialises it)."""

    source: str
    count: int

    def read(self, index: int) -> Page:
        raise NotImplementedError

    def close(self) -> None:
        pass


class _PdfDocument(_Document):
    def __init__(
        self,
        data,
        source: str,
        dpi: float,
        password,
        max_pixels: int,
        text_mode: str = "ocr",
        read_text: bool = False,
    ):
        self.text_mode = text_mode
        self.read_text = read_text
        try:
            import pypdfium2 as pdfium
        except ImportError as e:
            raise InvalidInputError(
                f"{source}: reading PDF files needs pypdfium2 (pip install 'edgeocr[pdf]')"
            ) from e
        self.source, self.dpi, self.max_pixels = source, dpi, max_pixels
        if password is not None and not isinstance(password, str):
            raise InvalidInputError(f"password must be a string, got {type(password).__name__}")
        with PDFIUM_LOCK:
            try:
                self._pdf = pdfium.PdfDocument(data, password=password)
            except pdfium.PdfiumError as e:
                code = getattr(e, "err_code", None)
                if code == pdfium.raw.FPDF_ERR_PASSWORD:
                    raise PasswordError(
                        f"{source}: the PDF is encrypted and "
                        + (
                            "the password given does not open it"
                            if password
                            else "needs a password (password= / --password)"
                        )
                    ) from None
                if code == pdfium.raw.FPDF_ERR_SECURITY:
                    raise DocumentError(
                        f"{source}: the PDF uses an encryption PDFium does not support"
                    ) from None
                if code == pdfium.raw.FPDF_ERR_SUCCESS:  # parsed, but no page tree to use
                    raise DocumentError(
                        f"{source}: the PDF has no pages (its page tree is missing or empty)"
                    ) from None
                raise DocumentError(
                    f"{source}: not a readable PDF (PDFium: {e}); is it truncated or corrupt?"
                ) from None
            try:
                self.count = len(self._pdf)
            except Exception:
                self._pdf.close()
                raise
        if self.count <= 0:
            self.close()
            raise DocumentError(f"{source}: the PDF has no pages")

    def read(self, index: int) -> Page:
        import pypdfium2 as pdfium

        with PDFIUM_LOCK:
            try:
                page = self._pdf[index]
            except pdfium.PdfiumError as e:  # a page tree that lists pages it does not have
                raise DocumentError(
                    f"{self.source}: page {index + 1} cannot be loaded (PDFium: {e})"
                ) from None
            try:
                # The page as shown: PDFium applies its /Rotate (get_rotation() 90 or 270 swaps
                # the box's sides), as the rendering does, whatever the sides' ratio.
                w_pt, h_pt = page.get_size()
                if not (w_pt > 0 and h_pt > 0 and math.isfinite(w_pt * h_pt)):
                    raise DocumentError(
                        f"{self.source}: page {index + 1} has no area ({w_pt} x {h_pt} pt)"
                    )
                dpi, note = self.dpi, ""
                w, h = math.ceil(w_pt * dpi / 72), math.ceil(h_pt * dpi / 72)
                if w * h > self.max_pixels:
                    # Rendering at the asked DPI would break the pixel cap: the highest DPI that
                    # fits (the size is known before anything is rendered).
                    fit = math.floor(72 * math.sqrt(self.max_pixels / (w_pt * h_pt)) * 100) / 100
                    while fit > 0 and math.ceil(w_pt * fit / 72) * math.ceil(h_pt * fit / 72) > (
                        self.max_pixels
                    ):
                        fit -= 0.01
                    if fit < MIN_FIT_DPI:
                        raise InvalidInputError(
                            f"{self.source}: page {index + 1} ({w_pt:.0f} x {h_pt:.0f} pt) is "
                            f"{w} x {h} pixels at {dpi:g} dpi, and fits the "
                            f"{self.max_pixels}-pixel cap only below {MIN_FIT_DPI:g} dpi "
                            "(max_image_pixels= or EDGEOCR_MAX_IMAGE_PIXELS raise the cap)"
                        )
                    note = (
                        f"{self.source}: page {index + 1} ({w_pt:.0f} x {h_pt:.0f} pt) would be "
                        f"{w} x {h} pixels at {dpi:g} dpi, over the {self.max_pixels}-pixel cap; "
                        f"rendered at {fit:g} dpi"
                    )
                    dpi = fit
                layer, real = _text_layer(page, self.text_mode == "redo")
                action = _text_action(layer, self.text_mode)
                if action == "kept":  # not rendered: the page stays as it is (its size as shown)
                    return Page(
                        index,
                        None,
                        float(w_pt),
                        float(h_pt),
                        float(dpi),
                        text_layer=layer,
                        text_action=action,
                    )
                bitmap = page.render(scale=dpi / 72, may_draw_forms=True)
                try:
                    img = np.array(bitmap.to_numpy(), dtype=np.uint8, copy=True)  # BGR
                finally:
                    bitmap.close()
                boxes = _to_pixels(page, real, img.shape[1], img.shape[0]) if real else None
                page_text = None
                if self.read_text and layer in ("text", "text+edgeocr"):
                    from .text_layer import read_page_text

                    page_text = read_page_text(page, img.shape[1], img.shape[0])
                return Page(
                    index,
                    img,
                    float(w_pt),
                    float(h_pt),
                    float(dpi),
                    note=note,
                    text_layer=layer,
                    text_action=action,
                    text_boxes=boxes,
                    page_text=page_text,
                )
            except pdfium.PdfiumError as e:
                raise DocumentError(
                    f"{self.source}: page {index + 1} cannot be rendered (PDFium: {e})"
                ) from None
            finally:
                page.close()

    def close(self) -> None:
        with PDFIUM_LOCK:
            self._pdf.close()


class _FrameDocument(_Document):
    """Every frame of a multi-frame image (TIFF pages, GIF/WebP/APNG frames), read by Pillow."""

    def __init__(self, path_or_bytes, source: str, max_pixels: int):
        import io

        from PIL import Image

        self.source, self.max_pixels = source, max_pixels
        fp = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                self._im = Image.open(fp)
                self.count = int(getattr(self._im, "n_frames", 1))
        except Image.DecompressionBombError as e:
            raise InvalidInputError(f"{source}: {e}") from None
        except MemoryError:
            raise
        except Exception as e:  # noqa: BLE001 - whatever Pillow raises, it is the file
            raise DocumentError(
                f"{source}: not a readable image ({type(e).__name__}: {e}); "
                "is it truncated or corrupt?"
            ) from None

    def read(self, index: int) -> Page:
        from PIL import Image

        im = self._im
        try:
            im.seek(index)
            w, h = im.size
            if w * h > self.max_pixels:
                raise InvalidInputError(
                    f"{self.source}: page {index + 1} is {w} x {h} = {w * h} pixels, over the "
                    f"{self.max_pixels}-pixel cap (max_image_pixels= or EDGEOCR_MAX_IMAGE_PIXELS "
                    "raise it)"
                )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                im.load()
                img = pil_to_array(im)
        except EdgeOCRError:
            raise
        except MemoryError:
            raise
        except Exception as e:  # noqa: BLE001 - whatever Pillow raises, it is the file
            raise DocumentError(
                f"{self.source}: page {index + 1} cannot be read ({type(e).__name__}: {e}); "
                "is the file truncated or corrupt?"
            ) from None
        dpi = _image_dpi(im.info)
        return Page(index, img, w * 72 / dpi, h * 72 / dpi, dpi)

    def close(self) -> None:
        self._im.close()


class _ImageDocument(_Document):
    """One image (any input ``load_image`` takes) as one page."""

    def __init__(self, image, source: str, max_pixels: int, dpi: float):
        self.source, self.max_pixels, self._image, self._dpi = source, max_pixels, image, dpi
        self.count = 1

    def read(self, index: int) -> Page:
        from ..image_io import load_image

        img = load_image(self._image, self.max_pixels)
        h, w = img.shape[:2]
        return Page(index, img, w * 72 / self._dpi, h * 72 / self._dpi, self._dpi)


def _image_dpi(info: dict) -> float:
    """The horizontal resolution an image file records (dots per inch), else 72 (so that a pixel
    is a point)."""
    dpi = info.get("dpi")
    try:
        x = float(dpi[0]) if isinstance(dpi, (tuple, list)) else float(dpi)
    except (TypeError, ValueError, IndexError):
        return 72.0
    return x if math.isfinite(x) and 1.0 <= x <= 100_000.0 else 72.0


def is_document(source) -> bool:
    """Whether ``source`` (a path, or a file's bytes) is a PDF or an image of several frames (a
    multi-page TIFF), from its first bytes and headers (False for anything unreadable: reading
    it as an image says why)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return is_pdf_header(data[:1024]) or _frames(data)[0] > 1
    if not isinstance(source, (str, os.PathLike)):
        return False
    try:
        with open(source, "rb") as f:
            head = f.read(1024)
            if head[:8] == PNG_SIGNATURE and _png_is_still(f):
                return False  # one frame: needs no Pillow (edgeocr predict on a PNG imports none)
            if head[:3] == JPEG_SIGNATURE:
                # One picture, the core decodes it without Pillow; a camera's MPO frames after it
                # (previews, depth maps) are not pages.
                return False
    except OSError:
        return False
    return is_pdf_header(head) or _frames(os.fspath(source))[0] > 1


def _png_is_still(f) -> bool:
    """Whether the PNG file ``f`` has no acTL chunk before its first IDAT, i.e. is not an
    animation (then its frames are pages: Pillow counts them). False when its chunks cannot be
    walked (Pillow then reads the headers)."""
    pos = 8
    for _ in range(10_000):
        f.seek(pos)
        head = f.read(8)
        if len(head) < 8:
            return False
        kind = head[4:]
        if kind == b"IDAT":
            return True
        if kind == b"acTL":
            return False
        pos += 12 + int.from_bytes(head[:4], "big")
    return False


def open_document(
    source,
    *,
    dpi=None,
    password=None,
    max_pixels: int | None = None,
    text_mode: str = "ocr",
    read_text: bool = False,
) -> _Document:
    """The document ``source`` names, opened (page count known, nothing rendered).

    ``text_mode`` (TEXT_MODES) says what becomes of a PDF page that already has text: "ocr"
    (read anyway), "skip" (kept as it is, not rendered), "redo" (a page with edgeocr's earlier
    layer read again, a page with real text only kept).

    ``source``: a path or bytes of a PDF or an image (one page, or every frame of a
    multi-frame one), a numpy array or a PIL image (one page). Errors for the whole document
    (missing file, corrupt or truncated, encrypted without the right ``password``, no pages)
    are raised here.
    """
    dpi = check_dpi(dpi)
    limit = max_image_pixels(max_pixels)
    if text_mode not in TEXT_MODES:
        raise InvalidInputError(f"text_mode must be one of {TEXT_MODES}, got {text_mode!r}")
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise InvalidInputError(f"file not found: {path}")
        if not os.path.isfile(path):
            raise InvalidInputError(f"{path} is not a regular file")
        with open(path, "rb") as f:
            head = f.read(1024)
        if is_pdf_header(head):
            size = os.path.getsize(path)
            if size > MAX_PDF_BYTES:
                raise InvalidInputError(f"{path}: a PDF over {MAX_PDF_BYTES >> 30} GiB")
            with open(path, "rb") as f:
                f.seek(max(0, size - 1024))
                _check_pdf_end(f.read(), path)
            return _PdfDocument(path, path, dpi, password, limit, text_mode, read_text)
        return _image_document(path, path, limit)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if is_pdf_header(data[:1024]):
            _check_pdf_end(data[-1024:], "PDF bytes")
            return _PdfDocument(data, "PDF bytes", dpi, password, limit, text_mode, read_text)
        return _image_document(data, "image bytes", limit)
    return _ImageDocument(source, type(source).__name__, limit, 72.0)


def _frames(data) -> tuple[int, float]:
    """(frames, dpi) of an image file (path or bytes) from its headers; (1, 72) if Pillow
    cannot read them (load_image then says what is wrong)."""
    import io

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data) if isinstance(data, bytes) else data) as im:
                return int(getattr(im, "n_frames", 1)), _image_dpi(im.info)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - load_image says what is wrong with a non-image
        return 1, 72.0


def _image_document(data, source: str, limit: int) -> _Document:
    # Every frame of a multi-frame image (TIFF pages, GIF/WebP/APNG frames) through Pillow; a
    # one-frame image goes through load_image's checked decoders.
    frames, dpi = _frames(data)
    if frames > 1:
        return _FrameDocument(data, source, limit)
    return _ImageDocument(data, source, limit, dpi)


class PageStream:
    """The pages ``indices`` of an opened document, one at a time, the next one read on a worker
    thread while the caller handles the current one. A page that fails comes out with its error;
    the stream goes on. Closing it (or leaving a ``for`` loop early) stops the worker and closes
    the document."""

    def __init__(self, doc: _Document, indices: list[int], after=None):
        self.doc, self.indices = doc, indices
        self.after = after  # run on each page read, on the reader thread (the layer check)
        self.rendered = 0  # pages read so far (for tests: pages are read lazily)

    def _read(self, index: int) -> Page:
        try:
            page = self.doc.read(index)
            if self.after is not None and page.error is None:
                self.after(page)
        except EdgeOCRError as e:
            page = Page(index, None, 0.0, 0.0, 0.0, e)
        except MemoryError as e:
            page = Page(index, None, 0.0, 0.0, 0.0, ResourceError(f"page {index + 1}: {e}"))
        self.rendered += 1
        return page

    def __iter__(self) -> Iterator[Page]:
        ex = ThreadPoolExecutor(1, thread_name_prefix="edgeocr-pages")
        pending = None
        try:
            if self.indices:
                pending = ex.submit(self._read, self.indices[0])
            for k in range(len(self.indices)):
                page = pending.result()
                pending = (
                    ex.submit(self._read, self.indices[k + 1])
                    if k + 1 < len(self.indices)
                    else None
                )
                if page.note:  # warned on the caller's thread
                    warnings.warn(page.note, DocumentWarning, stacklevel=2)
                yield page
        finally:
            if pending is not None:
                pending.cancel()
            ex.shutdown(wait=True)
            self.doc.close()


def text_mode(skip_text: bool = False, redo_ocr: bool = False) -> str:
    """The TEXT_MODES entry of OCRmyPDF's flags (both at once is an error, as there)."""
    if skip_text and redo_ocr:
        raise InvalidInputError("skip_text and redo_ocr exclude each other (as in OCRmyPDF)")
    return "skip" if skip_text else "redo" if redo_ocr else "ocr"


def predict_pages(
    predictor,
    source,
    pages=None,
    *,
    dpi=None,
    password=None,
    skip_text=False,
    redo_ocr=False,
    parse: bool = False,
    force_ocr: bool = False,
) -> Iterator[PageResult]:
    """`Predictor.predict_pages` (and with ``parse``, `Predictor.parse_pages`): the document is
    opened now (its errors raised here), its pages are read and recognised (parsed) one at a
    time as the iterator is consumed. Parsing takes a PDF page's own text from its text layer
    where the layer is real and says what the page shows (OCR only in its pictures), unless
    ``force_ocr``."""
    mode = text_mode(skip_text, redo_ocr)
    doc = open_document(
        source,
        dpi=dpi,
        password=password,
        max_pixels=predictor.max_image_pixels,
        text_mode=mode,
        read_text=parse and mode == "ocr" and not force_ocr,
    )
    try:
        indices = parse_pages(pages, doc.count)
    except BaseException:
        doc.close()
        raise
    after = _layer_check(predictor) if parse else None
    return _recognised(predictor, PageStream(doc, indices, after), parse)


def _recognised(predictor, stream: PageStream, parse: bool = False) -> Iterator[PageResult]:
    source = stream.doc.source
    pages = iter(stream)
    try:
        for page in pages:
            yield _page_result(predictor, page, source, parse)
    finally:  # also when the caller stops early: the reader thread ends, the document closes
        pages.close()


def _page_result(predictor, page: Page, source: str, parse: bool = False) -> PageResult:
    result = None
    error = page.error
    if parse:
        return _parsed_page(predictor, page, source)
    if error is None and page.image is not None:
        try:
            result = predictor.predict(page.image)
        except EdgeOCRError as e:
            error = e
    h, w = page.image.shape[:2] if page.image is not None else (0, 0)
    if page.text_action == "kept":  # not rendered: its size at the DPI asked, as if it were
        w, h = math.ceil(page.width_pt * page.dpi / 72), math.ceil(page.height_pt * page.dpi / 72)
    page.image = None  # the pixels go before the caller gets the result
    lines = result.lines if result is not None else []
    if page.text_boxes:  # redo_ocr on a page with real text: what OCR read of it goes
        lines = [ln for ln in lines if not _over_text(_line_bounds(ln), page.text_boxes)]
    return PageResult(
        lines=lines,
        timings=result.timings if result is not None else {},
        image_size=(w, h),
        source=source,
        page=page.index,
        width=w,
        height=h,
        width_pt=page.width_pt,
        height_pt=page.height_pt,
        dpi=page.dpi,
        error=error,
        text_layer=page.text_layer,
        text_action=page.text_action,
    )


def _line_bounds(line) -> tuple:
    b = np.asarray(line.box, dtype=np.float64).reshape(-1, 2)
    return float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 0].max()), float(b[:, 1].max())


def _layer_check(predictor):
    """What the page reader runs on each page it read, on its own thread (beside the parse of
    the page before): whether the page's text layer may be read in place of OCR, i.e. real text
    (verdict "text") whose sampled lines OCR reads the same (text_layer.check_against_ocr).
    Sets page.text_trusted and page.text_note."""

    def recognize(crop):
        line = predictor.recognize(crop)
        return line.text, line.score

    def check(page: Page) -> None:
        pt = page.page_text
        if pt is None or page.image is None:
            return
        if pt.verdict != "text" or not pt.lines:
            page.text_note = pt.note
            return
        from .text_layer import check_against_ocr

        page.text_trusted, _, page.text_note = check_against_ocr(
            pt, page.image, recognize, sample=4
        )

    return check


def _trusted_text(predictor, page: Page):
    """The page's text layer when it was found trustworthy (_layer_check), else None."""
    return page.page_text if page.page_text is not None and page.text_trusted else None


def _parsed_page(predictor, page: Page, source: str) -> DocumentResult:
    h, w = page.image.shape[:2] if page.image is not None else (0, 0)
    if page.text_action == "kept":  # not rendered: its size at the DPI asked, as if it were
        w, h = math.ceil(page.width_pt * page.dpi / 72), math.ceil(page.height_pt * page.dpi / 72)
    where = dict(
        page=page.index,
        width=w,
        height=h,
        width_pt=page.width_pt,
        height_pt=page.height_pt,
        dpi=page.dpi,
        text_layer=page.text_layer,
        text_action=page.text_action,
    )
    error = page.error
    if error is None and page.image is not None:
        try:
            text = _trusted_text(predictor, page)
            if text is not None:
                where["text_action"] = "text-layer"
            elif page.page_text is not None:
                where["text_action"] = "ocr-layer-untrusted"
            result = predictor.parse_decoded(page.image, source, text=text, **where)
            page.image = None
            return result
        except EdgeOCRError as e:
            error = e
    page.image = None
    return DocumentResult(lines=[], image_size=(w, h), source=source, error=error, **where)
