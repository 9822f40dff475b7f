"""Documents: pages in (PDF, multi-page TIFF and other multi-frame images), read one page at a
time for `Predictor.predict_pages`. An adapter around `Predictor`; no OCR logic of its own."""

from .pages import DEFAULT_DPI, PDFIUM_LOCK, DocumentWarning, open_document, parse_pages

__all__ = ["DEFAULT_DPI", "PDFIUM_LOCK", "DocumentWarning", "open_document", "parse_pages"]
