"""Ray itself: imported on first use (the ``ray`` extra), and a local Ray started as edgeocr
wants it."""

from __future__ import annotations

import os
import sys


def require_ray():
    """The ``ray`` module, Ray Data imported; UnsupportedError naming the extra without it."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as e:
        from ..errors import UnsupportedError

        raise UnsupportedError(
            f"Ray Data is not installed ({e}); pip install 'edgeocr[ray]'"
        ) from None
    return ray


#: Ray's own default starts workers (our actors) at niceness 15, below the raylet and GCS, so
#: on a node that also runs anything else the OCR actors get only what that leaves: measured
#: here, 1.3-2x the in-process time per page (docs/scale-out.md). A local Ray that edgeocr
#: starts runs its workers at the caller's priority instead; a cluster you start yourself keeps
#: its own setting (``RAY_worker_niceness=0 ray start ...`` to match).
LOCAL_RAY_SYSTEM_CONFIG = {"worker_niceness": 0}


def init_local_ray(ray, **kwargs):
    """``ray.init(**kwargs)`` for a Ray that edgeocr starts on this machine (no ``address``):
    quiet logs, no dashboard, workers at the caller's priority (:data:`LOCAL_RAY_SYSTEM_CONFIG`).
    With an ``address`` it only connects: a running cluster's settings are its own."""
    kw = {"logging_level": "WARNING", "log_to_driver": False, **kwargs}
    if not kw.get("address"):
        kw.setdefault("include_dashboard", False)
        kw["_system_config"] = {**LOCAL_RAY_SYSTEM_CONFIG, **kw.get("_system_config", {})}
    runtime_env = dict(kw.get("runtime_env") or {})
    if "working_dir" in runtime_env or not driver_folder_shadows_edgeocr():
        return ray.init(**kw)
    # Ray puts the driver's current folder (and its script's) on every worker's sys.path unless
    # the job has a working_dir (ray._private.worker.connect). Run from a checkout of edgeocr
    # after a non-editable install, the workers would then import the checkout's edgeocr/, which
    # has no compiled core, instead of the installed package the driver runs. The actors need no
    # file of the driver's folder (input paths are made absolute here), so the job gets an empty
    # working_dir: Ray uploads it during init and the workers import the installed edgeocr.
    import tempfile

    with tempfile.TemporaryDirectory(prefix="edgeocr-ray-") as empty:
        kw["runtime_env"] = {**runtime_env, "working_dir": empty}
        return ray.init(**kw)


def driver_folder_shadows_edgeocr() -> bool:
    """True when a folder Ray would put on its workers' sys.path (the current one, the script's)
    holds an ``edgeocr`` package other than the one this process imported (a source checkout)."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # edgeocr/ray/..
    folders = {os.path.abspath(os.curdir)}
    if sys.argv and sys.argv[0]:
        folders.add(os.path.dirname(os.path.realpath(sys.argv[0])))
    for folder in folders:
        pkg = os.path.join(folder, "edgeocr")
        if os.path.isfile(os.path.join(pkg, "__init__.py")) and os.path.realpath(pkg) != here:
            return True
    return False
