"""What the engine loads, from the arguments a caller names models with: a model-set name, a
folder of det/cls/rec files, one model file or bundle, bytes, or det=/cls=/rec= (+ keys,
recheck). :func:`model_sources` gives the keyword arguments of ``_core.load_pipeline``
(:class:`edgeocr.engine.Engine`'s ``sources``); ``edgeocr.Predictor`` and ``edgeocr bench``
name models the same way through it."""

from __future__ import annotations

import os

from .errors import InvalidInputError, ModelNotFoundError
from .models import MODEL_SETS, RUNGS, find_model_file, resolve_model_set


def _model_source(path):
    """A path for the loader (which also reads .nb and .eocr files)."""
    if isinstance(path, (bytes, bytearray, memoryview)):
        return path
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(
            f"a model is a path or the model's bytes, got {type(path).__name__}"
        )
    return os.fspath(path)


def model_sources(
    model, models, det, cls, rec, keys, task, recheck=None, layout=None, table=None
) -> tuple[dict, dict]:
    """The sources for the engine (keyword arguments of ``_core.load_pipeline``) of
    ``Predictor``'s arguments, and the file given per role.

    ``layout``/``table``: document parsing's models (paths or bytes; None: none, or the model
    set's: the ``document`` set names them; False: none, not even the set's)."""
    sources, given = _model_sources(model, models, det, cls, rec, keys, task)
    for role, value in (("layout", layout), ("table", table)):
        if value is False:
            sources.pop(role, None)
            given.pop(role, None)
        elif value is not None:
            sources[role] = _model_source(value)
            given[role] = value if isinstance(value, (str, os.PathLike)) else None
    if table not in (None, False) and "layout" not in sources:
        raise InvalidInputError("table= reads the tables a layout model finds; give layout= too")
    if recheck is not None:
        if "model" in sources:
            raise InvalidInputError(
                "recheck= goes with loose det/cls/rec models or a model set, not with one model "
                "file or a bundle"
            )
        sources["recheck"] = _model_source(recheck)
        given["recheck"] = recheck if isinstance(recheck, (str, os.PathLike)) else None
    return sources, given


def _model_sources(model, models, det, cls, rec, keys, task) -> tuple[dict, dict]:
    explicit = {"det": det, "cls": cls, "rec": rec}
    if model is not None and models is not None:
        raise InvalidInputError("pass either a model path or models=NAME, not both")
    if model is not None and any(v is not None for v in explicit.values()):
        raise InvalidInputError("pass either a model path or det=/cls=/rec=, not both")
    if task is not None and task not in ("det", "rec"):
        raise InvalidInputError(f"task must be 'det' or 'rec', got {task!r}")
    if any(v is not None for v in explicit.values()):
        if models is not None:
            base = resolve_model_set(models)
            explicit = {r: explicit[r] if explicit[r] is not None else base[r] for r in explicit}
            if rec is None and "keys" in base:
                explicit["keys"] = base["keys"]
        paths = explicit
    elif model is None:
        paths = resolve_model_set(models)
    elif isinstance(model, str) and (model in MODEL_SETS or model in RUNGS):
        paths = resolve_model_set(model)
    elif isinstance(model, (bytes, bytearray, memoryview)):
        src = {"det" if task == "det" else "rec": model} if task else {"model": model}
        return {**src, "keys": keys}, {}
    else:
        if not isinstance(model, (str, os.PathLike)):
            raise InvalidInputError(
                "model must be a path, a model set name or the model's bytes, got "
                f"{type(model).__name__}"
            )
        path = os.fspath(model)
        if not os.path.exists(path):
            raise ModelNotFoundError(
                f"model not found: {path} (known model sets: {', '.join(MODEL_SETS)})"
            )
        if os.path.isdir(path):
            paths = {r: find_model_file(path, r) for r in ("det", "cls", "rec")}
            if paths["det"] is None and paths["rec"] is None:
                raise ModelNotFoundError(
                    f"{path}: no *det*/*rec* model files (.onnx, .ort, .nb) in this folder"
                )
        else:
            # One file: a bundle, or a det or rec model (role from task=, else the loader
            # infers it from the model's metadata or outputs).
            src = (
                {"det" if task == "det" else "rec": _model_source(path)}
                if task
                else {"model": _model_source(path)}
            )
            return {**src, "keys": keys}, {task or "model": path}
    # A set whose rec model carries no character list names its dictionary file ("keys");
    # keys= given by the caller wins, and a rec model given by the caller keeps its own.
    set_keys = paths.pop("keys", None) if isinstance(paths, dict) else None
    if keys is None and set_keys is not None and rec is None:
        keys = set_keys
    sources = {r: _model_source(p) for r, p in paths.items() if p is not None}
    return {**sources, "keys": keys}, dict(paths)
