"""int8 bundles made once and kept on disk, keyed by content hash.

``cached_int8_bundle(paths, calib)`` packs the det/cls/rec models at
``paths`` with ``edgeocr-pack --quantize int8`` defaults (the default recipe,
the gate included) calibrated on the images in ``calib``, the first time it
is asked; later calls with the same model bytes, calibration images, recipe,
edgeocr and ONNX Runtime versions return the stored bundle. Entries live in
``$EDGEOCR_CACHE_DIR/int8`` (default ``~/.cache/edgeocr/int8``) and are
written atomically (temporary file + rename).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from . import quantize as Q
from . import verify as V


def cache_root() -> Path:
    env = os.environ.get("EDGEOCR_CACHE_DIR")
    base = Path(env).expanduser() if env else Path.home() / ".cache" / "edgeocr"
    return base / "int8"


def _sha(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_key(paths: dict, calib_files: list, recipe: str, target: str) -> str:
    import onnxruntime

    from .. import __version__

    doc = {
        "models": {r: _sha(p) for r, p in sorted(paths.items()) if p},
        "calib": sorted(_sha(p) for p in calib_files),
        "recipe": recipe,
        "target": target,
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
    log=print,
) -> Path:
    """Path of the int8 bundle of ``paths`` calibrated on ``calib`` (packed on first use).

    Raises :class:`edgeocr.pack.AccuracyGateError` when the bundle fails the
    gate (nothing is cached then).
    """
    from .packer import pack

    files = V.list_images(calib, calib_limit)
    root = Path(cache_dir).expanduser() if cache_dir is not None else cache_root()
    entry = root / f"{cache_key(paths, files, recipe, target)[:40]}.eocr"
    if entry.is_file():
        return entry
    root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".eocr", dir=root)
    os.close(fd)
    try:
        pack(
            tmp,
            det=paths.get("det"),
            cls=paths.get("cls"),
            rec=paths.get("rec"),
            quantize="int8",
            calib=calib,
            calib_limit=calib_limit,
            recipe=recipe,
            target=target,
            threads=threads,
            measure_latency=False,
            log=log,
        )
        os.replace(tmp, entry)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return entry
