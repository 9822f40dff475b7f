"""int8 models of a known model set, made once on first use and cached: what
``Predictor(precision=...)`` runs.

* ``precision="fp32"`` (the default unless ``$EDGEOCR_PRECISION`` says
  otherwise): the float models. Not int8 by default because on dev pages the
  int8 default set read 0.73 points of 1-NED worse than fp32 (benchmarks/
  README.md, "The int8 default"), past the 0.5 points the gate allows; the
  gate on the shipped pages (25 lines) did not see it.
* ``precision="auto"``: a model set chosen by name (``Predictor()``,
  ``Predictor(models="ppocr-v6-small")``) runs as int8 where this CPU has
  fast int8 dot products (x86 VNNI: avx512_vnni / avx_vnni; aarch64:
  asimddp), else as fp32. Models given as files (``det=``, a folder, a
  bundle) are run as given.
* ``precision="int8"``: int8 even without fast int8 instructions; errors are
  raised instead of falling back.

The int8 bundle is made by :func:`edgeocr.pack.int8_cache.cached_int8_bundle`
(``edgeocr-pack --quantize int8`` with its defaults: the recipe per model,
edgeocr-int8-v3 (det and cls int8, rec float), and the accuracy gate, which
holds back every third calibration page and returns a model to float, or
refuses, when the text drifts more than 0.5 points of 1-NED from the float
pipeline's), calibrated on the 12 dense pages shipped in ``edgeocr/data/calib``
(rendered by ``tools/make_calib_pages.py``; their held-back third holds over
100 lines), and stored in
``$EDGEOCR_CACHE_DIR/int8`` (default ``~/.cache/edgeocr/int8``) under a hash
of the model files, the calibration pages, the recipe, the target and the
edgeocr and ONNX Runtime versions. Making it takes a minute or so once per
model set and machine; it is announced on the ``edgeocr`` logger. With
``auto``, a cache folder that cannot be written, a refusal by the gate (also
cached, so it is not retried) or any failure while making it leaves the
Predictor on fp32, logged at INFO.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .._runtime import cpu_features, cpu_flags_line, fast_int8, int8_target

# The recipe of the int8 default (edgeocr/pack/quantize.py RECIPES; benchmarks/README.md,
# "The int8 default"): measured on dev pages against the fp32 default.
RECIPE = "edgeocr-int8-v3"
# Models whose int8 alone costs the gate too much stay float in the int8 bundle.
AUTO_KEEP = "models"
# Named in the messages (edgeocr.predictor.PRECISION_ENV reads it).
ENV = "EDGEOCR_PRECISION"

log = logging.getLogger("edgeocr")


def calib_pages_dir() -> Path:
    """The calibration pages shipped in the package."""
    return Path(__file__).resolve().parent.parent / "data" / "calib"


def int8_bundle_for(
    paths: dict,
    precision: str,
    *,
    threads: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    calib: str | os.PathLike | None = None,
    disk_cache: bool = True,
) -> Path | None:
    """The int8 bundle to run for the model set ``paths`` ({role: file}), or None for fp32.

    ``precision`` as :func:`edgeocr.predictor.requested_precision` returns it. With 'auto' every
    failure gives None (logged); with 'int8' it is raised, and an unwritable
    cache folder (or ``disk_cache`` False) gives an uncached bundle in a temporary folder
    instead.
    """
    from .errors import AccuracyGateError
    from .int8_cache import cached_int8_bundle

    if precision == "fp32":
        return None
    features = cpu_features()
    if precision == "auto" and not fast_int8(features):
        log.info("edgeocr: fp32 models: no fast int8 on this CPU (%s)", cpu_flags_line(features))
        return None
    calib = os.fspath(calib) if calib is not None else str(calib_pages_dir())

    def announce(entry):
        log.warning(
            "edgeocr: making int8 models for this CPU once (about a minute; cached as %s; "
            "precision='fp32' or %s=fp32 to skip)",
            entry,
            ENV,
        )

    kw = dict(
        calib=calib,
        recipe=RECIPE,
        auto_keep=AUTO_KEEP,
        target=int8_target(features),
        threads=threads,
        log=lambda msg: log.info("%s", msg),
        on_make=announce,
    )
    try:
        if not disk_cache:
            raise OSError("disk caches are off for this Predictor (disk_cache=False)")
        return cached_int8_bundle(paths, cache_dir=cache_dir, **kw)
    except AccuracyGateError as e:
        if precision == "int8":
            raise
        log.info("edgeocr: fp32 models: the int8 models failed their accuracy gate: %s", e)
    except OSError as e:
        if precision == "int8":
            return _uncached(paths, kw)
        log.info("edgeocr: fp32 models: cannot cache int8 models: %s", e)
    except Exception as e:  # noqa: BLE001 - auto never fails a Predictor over int8
        if precision == "int8":
            raise
        log.info("edgeocr: fp32 models: making int8 models failed: %r", e)
    return None


_TEMP_DIRS: list = []


def _uncached(paths: dict, kw: dict) -> Path:
    """An int8 bundle made in a temporary folder (removed at exit)."""
    import tempfile

    from .int8_cache import cached_int8_bundle

    tmp = tempfile.TemporaryDirectory(prefix="edgeocr-int8-")
    _TEMP_DIRS.append(tmp)  # kept until the process exits: the loader maps the file
    return cached_int8_bundle(paths, cache_dir=tmp.name, **kw)
