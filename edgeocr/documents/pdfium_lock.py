"""PDFium is not thread-safe: every pypdfium2 call in edgeocr holds this lock (documents may be
read on several threads at once, and writers of PDFs share the library). Its own module so that
pages.py and text_layer.py both take it without importing each other."""

import threading

PDFIUM_LOCK = threading.RLock()
