"""Packing: `.eocr` bundles, quantization and verification (``edgeocr-pack``).

>>> from edgeocr.pack import pack, load_bundle, predictor_from_bundle
>>> pack(det="det.onnx", cls="cls.onnx", rec="rec.onnx", output="ppocr.eocr")
>>> with load_bundle("ppocr.eocr") as b:
...     print(b.manifest["verification"])
>>> predictor_from_bundle("ppocr.eocr").predict("page.jpg")  # an edgeocr.engine.Engine

The format is documented in docs/bundle-format.md. ``onnx`` and
``onnxruntime.quantization`` are needed to *pack* (quantize, optimise); reading
a bundle needs neither.
"""

from __future__ import annotations

from .bundle import (
    FORMAT_VERSION,
    Bundle,
    BundleChecksumError,
    BundleError,
    BundleFormatError,
    BundleManifestError,
    BundleVersionError,
    load_bundle,
    load_bundle_bytes,
)
from .errors import AccuracyGateError, ConversionMismatchError
from .predictors import predictor_from_bundle, predictor_from_models

__all__ = [
    "FORMAT_VERSION",
    "AccuracyGateError",
    "Bundle",
    "BundleChecksumError",
    "BundleError",
    "BundleFormatError",
    "BundleManifestError",
    "BundleVersionError",
    "ConversionMismatchError",
    "load_bundle",
    "load_bundle_bytes",
    "pack",
    "predictor_from_bundle",
    "predictor_from_models",
]


def __getattr__(name):
    # pack() pulls in onnx; keep `import edgeocr.pack` (and bundle loading) free of it.
    if name == "pack":
        from . import packer

        return getattr(packer, name)
    raise AttributeError(name)
