"""Benchmark tooling (``edgeocr bench``): edgeocr against other ways of running the same models.

A layer of its own at the top (docs/architecture.md): nothing in the package imports it.
The names re-exported here are what ``benchmarks/`` (the repository's measurement
campaigns) may use; everything else in ``edgeocr.bench`` is private to ``edgeocr bench``.

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
from .eager import PythonPipeline, charset_from_metadata, crop_image, ctc_greedy_decode
from .worker import WorkerError, emit, run_worker

__all__ = [
    "PythonPipeline",
    "WorkerError",
    "charset_from_metadata",
    "crop_image",
    "ctc_greedy_decode",
    "emit",
    "machine",
    "median",
    "p90",
    "register",
    "render_table",
    "run_worker",
]
