"""Documents: pages in (PDF, multi-page TIFF and other multi-frame images), read one page at a
time for `Predictor.predict_pages`, and documents out (searchable PDF, hOCR, ALTO, TSV, text,
JSON lines: `write_document`). Adapters around `Predictor`; no OCR logic of their own."""

from .._lazy import exports

# Imported on first use (PEP 562): `edgeocr predict` asks edgeocr.documents.pages whether each
# input is a document, and the writers (XML, PDF) cost 0.07 s to import.
_LAZY = {
    "FORMATS": ".output",
    "DocumentReport": ".output",
    "write_document": ".output",
    "DEFAULT_DPI": ".pages",
    "PDFIUM_LOCK": ".pages",
    "DocumentWarning": ".pages",
    "open_document": ".pages",
    "parse_pages": ".pages",
    "PageImages": ".drawings",
    "page_image": ".drawings",
}


# The modules `import edgeocr.documents` imported before it exported lazily.
_SUBMODULES = ("alto", "hocr", "layout", "output", "pages", "pdf", "text", "tsv")
__getattr__ = exports(__name__, _LAZY, globals(), _SUBMODULES)


__all__ = [
    "DEFAULT_DPI",
    "FORMATS",
    "PDFIUM_LOCK",
    "DocumentReport",
    "DocumentWarning",
    "PageImages",
    "open_document",
    "page_image",
    "parse_pages",
    "write_document",
]
