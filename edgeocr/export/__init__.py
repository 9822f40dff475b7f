"""From a dynamic graph to a verified static one (``edgeocr export``, ``edgeocr check``).

>>> from edgeocr.export import export_torch, check

Not part of the SDK core: nothing outside ``edgeocr.export`` imports it.

* :mod:`edgeocr.export.exporter`: export, metadata, the check and the CLI;
* :mod:`edgeocr.export.diag`: the diagnoses (control flow, numerics, memory).
"""

from __future__ import annotations

from .exporter import (
    CheckReport,
    ExportError,
    ExportReport,
    MissingDependencyError,
    check,
    export_paddle,
    export_torch,
    register,
    require_torch,
)

__all__ = [
    "CheckReport",
    "ExportError",
    "ExportReport",
    "MissingDependencyError",
    "check",
    "export_paddle",
    "export_torch",
    "register",
    "require_torch",
]
