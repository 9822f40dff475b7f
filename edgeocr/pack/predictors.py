"""Predictors over packed models: a `.eocr` bundle, or models held in memory (role -> bytes)."""

from __future__ import annotations

import os


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
    import json

    from .. import _core, _runtime
    from ..errors import InvalidInputError
    from ..model import session_options
    from ..predictor import Predictor

    _runtime.configure(None)
    try:
        settings = json.dumps({**config.to_core(), **overrides})
    except (TypeError, ValueError) as e:
        raise InvalidInputError(
            f"Predictor settings must be numbers, strings, booleans or lists: {e}"
        ) from e
    sources = {role: models[role] for role in ("det", "cls", "rec") if models.get(role) is not None}
    # The C++ loader, as for a bundle: roles checked, the charset (blank first) checked against the
    # rec model's classes; keys are the characters after the blank.
    loaded = _core.load_pipeline(
        **sources,
        keys=list(charset[1:]) if "rec" in sources else None,
        options=session_options(threads, optimization=optimization, memory_arena="shared"),
        settings_json=settings,
    )
    p = Predictor.__new__(Predictor)
    p.workers = 1
    p.preprocess = None
    p.max_image_pixels = None  # the process-wide cap (edgeocr.image_io), as Predictor()
    p.max_memory_mb = None
    p.paths = {r: f"{name}:{r}" for r in sources}
    p._adopt(loaded)
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
