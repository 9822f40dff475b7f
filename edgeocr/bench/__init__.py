"""Benchmark tooling (``edgeocr bench``): edgeocr against other ways of running the same models.

Not part of the SDK core: nothing outside ``edgeocr.bench`` imports it.

* :mod:`edgeocr.bench.compare`: the contenders, latency, throughput, the CLI;
* :mod:`edgeocr.bench.memory`: ``edgeocr bench --memory`` (peak RSS per page size);
* :mod:`edgeocr.bench.eager`: the Python pipelines (onnxruntime, onnx2torch eager)
  that edgeocr is compared with.

``python -m edgeocr.bench --worker NAME`` is one contender's memory subprocess.
"""

from __future__ import annotations

from .._runtime import machine_info as machine
from .common import median, p90, render_table
from .compare import register

__all__ = ["machine", "median", "p90", "register", "render_table"]
