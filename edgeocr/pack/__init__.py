"""Packing: `.eocr` bundles, quantization and verification (``edgeocr-pack``).

>>> from edgeocr.pack import pack, load_bundle, predictor_from_bundle
>>> pack(det="det.onnx", cls="cls.onnx", rec="rec.onnx", output="ppocr.eocr")
>>> with load_bundle("ppocr.eocr") as b:
...     print(b.manifest["verification"])
>>> predictor_from_bundle("ppocr.eocr").predict("page.jpg")

The format is documented in docs/bundle-format.md. ``onnx`` and
``onnxruntime.quantization`` are needed to *pack* (quantize, optimise); reading
a bundle needs neither.
"""

from __future__ import annotations

import os

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

__all__ = [
    "FORMAT_VERSION",
    "AccuracyGateError",
    "Bundle",
    "BundleChecksumError",
    "BundleError",
    "BundleFormatError",
    "BundleManifestError",
    "BundleVersionError",
    "load_bundle",
    "load_bundle_bytes",
    "pack",
    "predictor_from_bundle",
    "predictor_from_models",
]


def __getattr__(name):
    # pack() pulls in onnx; keep `import edgeocr.pack` (and bundle loading) free of it.
    if name in ("pack", "AccuracyGateError"):
        from . import packer

        return getattr(packer, name)
    raise AttributeError(name)


def predictor_from_models(
    models: dict,
    charset: list,
    config,
    *,
    threads: int | None = None,
    optimization: str = "all",
    name: str = "<bundle>",
    **overrides,
):
    """An :class:`edgeocr.Predictor` over in-memory models (role -> bytes or memoryview).

    Nothing is written to disk: each model goes to the runtime with
    ``_core.Model.from_bytes`` (which takes a buffer, so memoryviews into a
    mapped bundle are not copied by Python; ONNX Runtime parses them into its
    own session). The runtime copies what it keeps, so ``models`` may be
    released afterwards.
    """
    import dataclasses

    from .. import _core, _runtime
    from ..errors import InvalidInputError, ModelError
    from ..model import session_options
    from ..predictor import Predictor, _role_of

    if overrides:
        known = {f.name for f in dataclasses.fields(type(config))}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise InvalidInputError(
                f"unknown Predictor settings: {unknown}; see edgeocr.PipelineConfig"
            )
        config = dataclasses.replace(config, **overrides)
    _runtime.configure(None)
    opts = session_options(threads, optimization=optimization)
    p = Predictor.__new__(Predictor)
    p.config = config
    p.preprocess = None
    p.workers = 1
    p.max_image_pixels = None  # the process-wide cap (edgeocr.image_io), as Predictor()
    p.max_memory_mb = None
    p._pool = _core.MemoryPool(0)
    loaded = {}
    for role in ("det", "cls", "rec"):
        data = models.get(role)
        if data is None:
            continue
        m = _core.Model.from_bytes(data, opts, p._pool, f"{name}:{role}")
        actual = _role_of(m)
        if actual != role:
            raise ModelError(f"{name}: the {role} model's outputs look like a {actual} model")
        loaded[role] = m
    p.paths = {r: (f"{name}:{r}" if r in loaded else None) for r in ("det", "cls", "rec")}
    p._pipe = _core.Pipeline(
        loaded.get("det"),
        loaded.get("cls"),
        loaded.get("rec"),
        list(charset) if "rec" in loaded else [],
        config.to_core(),
        p._pool,
    )
    p._roles = set(loaded)
    return p


def predictor_from_bundle(path: str | os.PathLike, *, threads: int | None = None, **overrides):
    """An :class:`edgeocr.Predictor` for a `.eocr` bundle, built without writing any file.

    The runtime's graph-optimisation level is the one the bundle asks for
    (``manifest["runtime"]["graph_optimization"]``): graphs optimised offline
    need only the hardware-specific passes at load time. Keyword arguments
    override pipeline settings, as for ``Predictor``.
    """
    from ..predictor import Predictor

    return Predictor(path, threads=threads, **overrides)
