"""Batch OCR on Ray Data: one ``Predictor`` per actor, one result row per input.

>>> import edgeocr.ray
>>> ds = edgeocr.ray.ocr_dataset("scans/**/*.png", workers=4, threads=2)
>>> ds.write_parquet("s3://bucket/ocr/")          # written on the workers; or iterate

or, in a pipeline of your own (the actor reads ``path`` and/or ``bytes`` columns)::

    ds = ray.data.read_binary_files("s3://bucket/scans/", include_paths=True)
    ds = ds.map_batches(edgeocr.ray.PredictorActor, fn_constructor_kwargs={"threads": 2},
                        batch_size=8, batch_format="pyarrow", num_cpus=2,
                        compute=ray.data.ActorPoolStrategy(size=4))

Tooling, not SDK core: nothing under ``edgeocr`` imports this package except the
CLI's ``predict --ray`` (its ``cli`` module), and the package imports Ray (``pip install
"edgeocr[ray]"``) only inside the functions that need it. ``PredictorActor``
itself needs only pyarrow. docs/scale-out.md has the cluster how-to and the
measurements behind the defaults.

One job a module: ``schema`` (the result rows), ``actor`` (PredictorActor), ``inputs`` (files
and their rows), ``cluster`` (Ray, a local Ray), ``dataset`` (ocr_dataset), ``output`` and
``jsonl`` (the part files of ``--output``), ``cli`` (``edgeocr predict --ray``). This file only
re-exports.
"""

from .actor import PredictorActor
from .cli import run_cli
from .cluster import LOCAL_RAY_SYSTEM_CONFIG, init_local_ray
from .dataset import DEFAULT_BATCH_SIZE, ocr_dataset
from .inputs import expand_inputs
from .jsonl import jsonl_datasink_class
from .output import PART_ROWS, ResultOutput
from .schema import DONE_PAGES, RESULT_COLUMNS, error_text, result_schema

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DONE_PAGES",
    "LOCAL_RAY_SYSTEM_CONFIG",
    "PART_ROWS",
    "RESULT_COLUMNS",
    "JsonLinesDatasink",
    "PredictorActor",
    "ResultOutput",
    "error_text",
    "expand_inputs",
    "init_local_ray",
    "ocr_dataset",
    "result_schema",
    "run_cli",
]


def __getattr__(name: str):
    # JsonLinesDatasink subclasses a Ray class: made on first use, so that importing this
    # package needs no Ray (PredictorActor needs only pyarrow).
    if name == "JsonLinesDatasink":
        cls = jsonl_datasink_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
