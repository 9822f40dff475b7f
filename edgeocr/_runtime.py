"""Finding the ONNX Runtime shared library without importing onnxruntime."""

from __future__ import annotations

import glob
import importlib.util
import os

from . import _core
from .errors import RuntimeLibraryError

_configured = False


def cpu_count() -> int:
    """The cores this process may run on (its affinity mask), at least 1."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def machine_info() -> dict:
    """This host for reports: CPU model, arch, cores (all / usable), load average, Python, date."""
    import platform
    import time

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu
            )
    except OSError:
        pass
    return {
        "cpu": cpu,
        "arch": platform.machine(),
        "nproc": os.cpu_count(),
        "affinity": cpu_count(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }


def find_ort_library() -> str | None:
    """Path of libonnxruntime.so* inside the installed onnxruntime wheel, or None."""
    try:
        spec = importlib.util.find_spec("onnxruntime")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        hits = sorted(glob.glob(os.path.join(root, "capi", "libonnxruntime.so*")))
        hits = [h for h in hits if "providers" not in os.path.basename(h)]
        if hits:
            return max(hits, key=len)  # the fully versioned name
    return None


def configure(ort_library: str | None = None) -> None:
    """Choose the runtime library once per process.

    Precedence: an explicit path, then $EDGEOCR_ORT_LIBRARY, then the
    onnxruntime wheel found by importlib (the C++ core also searches next to
    itself and the system library paths when none of these is set).
    """
    global _configured
    path = ort_library or os.environ.get("EDGEOCR_ORT_LIBRARY")
    if path:
        if not os.path.exists(path):
            raise RuntimeLibraryError(f"ONNX Runtime library not found: {path}")
        _core.set_ort_library_path(path)
        _configured = True
        return
    if _configured:
        return
    found = find_ort_library()
    if found:
        _core.set_ort_library_path(found)
    _configured = True


def runtime_info() -> dict:
    """{'library_path': ..., 'version': ...} of the loaded ONNX Runtime."""
    configure()
    return _core.runtime_info()


def selftest() -> dict:
    """Run the C API self-test (see csrc/runtime/ort/ort_selftest.cpp)."""
    configure()
    return _core.ort_selftest()
