"""Accuracy evaluation (detection, end to end, recognition) on a labelled folder.

Not part of the SDK core: the core never imports it. The metrics live in
:mod:`edgeocr.evaluate.metrics` (standard library + numpy only, so tools can
load that file on its own).
"""

from __future__ import annotations

from .metrics import (
    edit_distance,
    evaluate_e2e,
    evaluate_rec,
    format_report,
    join_ws,
    load_e2e,
    load_rec,
    normalize_text,
    normalize_text_ws,
    polygon_area,
    polygon_intersection_area,
    polygon_iou,
    space_errors,
)

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
