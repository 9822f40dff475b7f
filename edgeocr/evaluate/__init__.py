"""Accuracy evaluation (detection, end to end, recognition) on a labelled folder.

A layer of its own above the Python API (docs/architecture.md); pack's accuracy gate
uses its scores too. One module per idea, standard library + numpy only (this package
loads without the rest of edgeocr, e.g. from tools):

* :mod:`~edgeocr.evaluate.text`: normalisation, joining, edit distance;
* :mod:`~edgeocr.evaluate.geometry`: polygon area, intersection, IoU;
* :mod:`~edgeocr.evaluate.datasets`: the labelled sets' files;
* :mod:`~edgeocr.evaluate.scoring`: detection, end-to-end and recognition scores;
* :mod:`~edgeocr.evaluate.report`: the reports as tables;
* :mod:`~edgeocr.evaluate.cli`: ``edgeocr eval``.

The names above are re-exported here: ``from edgeocr.evaluate import evaluate_e2e``.
"""

from __future__ import annotations

from .datasets import load_e2e, load_rec
from .geometry import polygon_area, polygon_intersection_area, polygon_iou
from .report import format_report
from .scoring import evaluate_e2e, evaluate_rec
from .text import edit_distance, join_ws, normalize_text, normalize_text_ws, space_errors

__all__ = [
    "edit_distance",
    "evaluate_e2e",
    "evaluate_rec",
    "format_report",
    "join_ws",
    "load_e2e",
    "load_rec",
    "normalize_text",
    "normalize_text_ws",
    "polygon_area",
    "polygon_intersection_area",
    "polygon_iou",
    "space_errors",
]
