"""Pipelines over packed models: a `.eocr` bundle, or models held in memory (role -> bytes).

Both are :class:`edgeocr.engine.Engine` objects (``predict(image)``, ``charset``,
``roles``, ``config``); ``edgeocr.Predictor(path)`` gives the full API over a bundle.
"""

from __future__ import annotations

import os

import edgeocr._core as _core

from ..engine import Engine
from ..model import session_options


def predictor_from_models(
    models: dict,
    charset: list,
    config,
    *,
    recheck_charset: list | None = None,
    threads: int | None = None,
    optimization: str = "all",
    name: str = "<bundle>",
    **overrides,
) -> Engine:
    """An engine over in-memory models (role -> bytes or memoryview).

    Nothing is written to disk: each model goes to the runtime as a buffer
    (memoryviews into a mapped bundle are not copied by Python; ONNX Runtime
    parses them into its own session). The runtime copies what it keeps, so
    ``models`` may be released afterwards. The C++ loader checks the roles and
    the charset (blank first) against the rec model's classes, as for a bundle; a recheck
    model's against ``recheck_charset``.
    """
    roles = ("det", "cls", "rec", "recheck")
    sources = {role: models[role] for role in roles if models.get(role) is not None}
    if "rec" in sources:
        sources["keys"] = list(charset[1:])  # the characters after the blank
    if "recheck" in sources:
        sources["recheck_keys"] = list((recheck_charset or [""])[1:])
    return Engine(
        sources,
        settings={**config.to_core(), **overrides},
        options=session_options(threads, optimization=optimization, memory_arena="shared"),
        name=name,
    )


def predictor_from_bundle(
    path: str | os.PathLike, *, threads: int | None = None, **overrides
) -> Engine:
    """An engine over a `.eocr` bundle, built without writing any file.

    The runtime's graph-optimisation level is the one the bundle asks for
    (``manifest["runtime"]["graph_optimization"]``): graphs optimised offline
    need only the hardware-specific passes at load time. Keyword arguments
    override pipeline settings, as for ``Predictor``.
    """
    for key, value in overrides.items():
        _core.check_setting(key, value)  # named now, as Predictor's keyword settings are
    return Engine({"model": os.fspath(path)}, settings=overrides, threads=threads)
