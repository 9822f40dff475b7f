"""On-disk cache of translated ``.nb`` models.

Entries are keyed by the sha256 of the ``.nb`` file's content (plus the
translator's version, so a fixed translator never serves a stale graph), so a
second ``Predictor("x.nb")`` loads the ONNX bytes instead of translating.
Writes are atomic (temporary file + rename). A cache directory that cannot
be created or written (read-only, full disk) is not an error: the model is
translated in memory and a :class:`RuntimeWarning` says why it was not cached.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from pathlib import Path

from .errors import NbFormatError
from .reader import read_nb
from .translate import nb_to_onnx

# Bump when a change to the reader or translator changes the produced graph.
TRANSLATOR_VERSION = "2"


def default_cache_dir() -> Path:
    """``$EDGEOCR_CACHE_DIR`` if set, else ``~/.cache/edgeocr/nb``."""
    env = os.environ.get("EDGEOCR_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "edgeocr" / "nb"


def _valid_onnx(data: bytes) -> bool:
    if not data:
        return False
    try:
        import onnx

        m = onnx.ModelProto()
        m.ParseFromString(data)
    except Exception:  # noqa: BLE001 - any parse failure means: translate again
        return False
    props = {p.key: p.value for p in m.metadata_props}
    return props.get("edgeocr.source") == "paddle_lite_nb" and len(m.graph.node) > 0


def cached_nb_to_onnx(path: str | os.PathLike, cache_dir: str | os.PathLike | None = None) -> bytes:
    """Translate ``path`` (a ``.nb`` file) to ONNX bytes, through the cache.

    Raises :class:`NbFormatError` for an unreadable or untranslatable file;
    cache problems only warn.
    """
    p = os.fspath(path)
    try:
        with open(p, "rb") as f:
            data = f.read()
    except OSError as e:
        raise NbFormatError(f"{p}: cannot read the file ({e.strerror or e})") from e
    digest = hashlib.sha256(data).hexdigest()
    root = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    entry = root / f"{digest}.v{TRANSLATOR_VERSION}.onnx"

    try:
        cached = entry.read_bytes()
    except OSError:
        cached = None
    if cached is not None and _valid_onnx(cached):
        return cached

    out = nb_to_onnx(read_nb(data, source=p))

    try:
        root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".onnx", dir=root)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(out)
            os.replace(tmp, entry)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as e:
        warnings.warn(
            f"edgeocr: could not cache the translation of {p} in {root} ({e.strerror or e}); "
            f"translated in memory instead. Set EDGEOCR_CACHE_DIR to a writable folder to "
            f"make the next load faster.",
            RuntimeWarning,
            stacklevel=2,
        )
    return out
