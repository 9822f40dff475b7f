"""Documents: pages in (PDF, multi-page TIFF and other multi-frame images), read one page at a
time for `Predictor.predict_pages`, and documents out (searchable PDF, hOCR, ALTO, TSV, text,
JSON lines: `write_document`). Adapters around `Predictor`; no OCR logic of their own."""

from .output import FORMATS, DocumentReport, write_document
from .pages import DEFAULT_DPI, PDFIUM_LOCK, DocumentWarning, open_document, parse_pages

__all__ = [
    "DEFAULT_DPI",
    "FORMATS",
    "PDFIUM_LOCK",
    "DocumentReport",
    "DocumentWarning",
    "open_document",
    "parse_pages",
    "write_document",
]
