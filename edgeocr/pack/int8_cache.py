"""int8 bundles made once and kept on disk, keyed by content hash.

``cached_int8_bundle(paths, calib)`` packs the det/cls/rec models at
``paths`` with ``edgeocr-pack --quantize int8`` defaults (the default recipe,
the gate included) calibrated on the images in ``calib``, the first time it
is asked; later calls with the same model bytes, calibration images, recipe,
edgeocr and ONNX Runtime versions return the stored bundle. Entries live in
``$EDGEOCR_CACHE_DIR/int8`` (default ``~/.cache/edgeocr/int8``) and are
written atomically (temporary file + rename). A bundle the gate refuses is
remembered too (``KEY.refused.json``, the gate's message), so that it is not
made again on every call: the refusal is raised again at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from . import quantize as Q
from .errors import AccuracyGateError
from .pages import list_images


def cache_root() -> Path:
    """The int8 cache folder: the core's cache folder "int8" (csrc/common/disk_cache.h: under
    ``$EDGEOCR_CACHE_DIR``, else ``~/.cache/edgeocr``, made 0700, refused when not this user's
    or writable by group or others). OSError when disk caches are off or the folder is refused."""
    from .._core import loader

    folder = loader.cache_folder("int8")
    if not folder:
        root = loader.cache_root()
        raise OSError(
            f"no int8 cache: the cache folder {root}/int8 cannot be used (see the warning above)"
            if root
            else "no int8 cache: disk caches are off (EDGEOCR_CACHE_DIR=off, or no HOME)"
        )
    return Path(folder)


def _sha(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_key(
    paths: dict,
    calib_files: list,
    recipe: str,
    target: str,
    max_drop: float = 0.5,
    auto_keep: str = "models",
) -> str:
    import onnxruntime

    from .._core import __version__

    doc = {
        "models": {r: _sha(p) for r, p in sorted(paths.items()) if p},
        "calib": sorted(_sha(p) for p in calib_files),
        "recipe": recipe,
        "target": target,
        "max_drop": max_drop,
        "auto_keep": auto_keep,
        "edgeocr": __version__,
        "onnxruntime": onnxruntime.__version__,
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def cached_int8_bundle(
    paths: dict,
    calib: str,
    *,
    calib_limit: int = 12,
    recipe: str = Q.DEFAULT_RECIPE,
    target: str = "generic",
    threads: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    max_drop: float = 0.5,
    auto_keep: str = "models",
    log=print,
    on_make=None,
) -> Path:
    """Path of the int8 bundle of ``paths`` calibrated on ``calib`` (packed on first use).

    ``auto_keep`` as :func:`edgeocr.pack.pack` takes it (default "models": a model
    whose int8 costs the gate too much stays float in the bundle). Raises
    :class:`edgeocr.pack.AccuracyGateError` when the bundle fails the gate (its
    refusal is cached instead), ``OSError`` when the cache folder
    cannot be written. ``on_make(entry)`` is called before a bundle is made.
    """
    files = list_images(calib, calib_limit)
    root = Path(cache_dir).expanduser() if cache_dir is not None else cache_root()
    key = cache_key(paths, files, recipe, target, max_drop, auto_keep)[:40]
    entry = root / f"{key}.eocr"
    refused = root / f"{key}.refused.json"
    if entry.is_file():
        return entry
    if refused.is_file():
        try:
            why = json.loads(refused.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            why = None
        if isinstance(why, dict) and isinstance(why.get("message"), str):
            raise AccuracyGateError(f"(cached refusal, {refused}) {why['message']}", why)
    # Only when a bundle is made: pack() loads onnx and the gate's metrics (evaluate/); a cache
    # hit stops above (tests/python/test_int8_default.py checks that it imports neither).
    from .packer import pack

    root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".eocr", dir=root)
    os.close(fd)
    if on_make is not None:
        on_make(entry)
    try:
        pack(
            tmp,
            det=paths.get("det"),
            cls=paths.get("cls"),
            rec=paths.get("rec"),
            keys=paths.get("keys"),  # a set whose rec model carries no dictionary
            quantize="int8",
            calib=calib,
            calib_limit=calib_limit,
            recipe=recipe,
            target=target,
            threads=threads,
            measure_latency=False,
            max_drop=max_drop,
            auto_keep=auto_keep,
            progress=False,
            log=log,
        )
        os.replace(tmp, entry)
    except AccuracyGateError as e:
        doc = {"message": str(e), "drop_points": e.report.get("drop_points")}
        fd, tmp_r = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=root)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        os.replace(tmp_r, refused)
        raise
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return entry
