"""Accuracy evaluation (detection, end to end, recognition) on a labelled folder.

A layer of its own above the Python API (docs/architecture.md); pack's accuracy gate
uses its scores too. One module per idea, standard library + numpy only (this package
loads without the rest of edgeocr, e.g. from tools):

* :mod:`~edgeocr.evaluate.text`: normalisation, joining, edit distance;
* :mod:`~edgeocr.evaluate.geometry`: polygon area, intersection, IoU;
* :mod:`~edgeocr.evaluate.datasets`: the labelled sets' files;
* :mod:`~edgeocr.evaluate.scoring`: detection, end-to-end and recognition scores;
* :mod:`~edgeocr.evaluate.document`: document parsing: layout mAP/F1, reading order, page
  text, tables (with :mod:`~edgeocr.evaluate.teds`: TEDS and the cells' adjacency F1);
* :mod:`~edgeocr.evaluate.report`: the reports as tables;
* :mod:`~edgeocr.evaluate.cli`: ``edgeocr eval``.

The names above are re-exported here: ``from edgeocr.evaluate import evaluate_e2e``.
"""

from __future__ import annotations

from .datasets import load_docparse, load_e2e, load_rec
from .document import evaluate_documents, format_document_report
from .geometry import polygon_area, polygon_intersection_area, polygon_iou
from .report import format_report
from .scoring import evaluate_e2e, evaluate_rec
from .teds import adjacency_f1, cells_from_html, teds
from .text import edit_distance, join_ws, normalize_text, normalize_text_ws, space_errors

__all__ = [
    "adjacency_f1",
    "cells_from_html",
    "edit_distance",
    "evaluate_documents",
    "evaluate_e2e",
    "format_document_report",
    "evaluate_rec",
    "format_report",
    "join_ws",
    "load_docparse",
    "load_e2e",
    "load_rec",
    "normalize_text",
    "normalize_text_ws",
    "polygon_area",
    "polygon_intersection_area",
    "polygon_iou",
    "space_errors",
    "teds",
]
