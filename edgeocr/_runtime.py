"""The machine the core runs on: the ONNX Runtime library (found without importing
onnxruntime), cores, and the CPU features that decide int8 speed."""

from __future__ import annotations

import glob
import importlib.util
import os

import edgeocr._core as _core

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


# CPU features (detected by the core: CPUID on x86, HWCAP on aarch64)
INT8_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8", "asimddp", "i8mm", "bf16")


def cpu_features() -> dict:
    """This CPU's int8-relevant features: {'arch', 'avx2', ..., 'int8_dot'} (see cpu_features.h)."""
    return dict(_core.cpu_features())


def cpu_flags_line(features: dict | None = None) -> str:
    """One line naming the CPU features that decide int8 speed, e.g. for benchmark headings."""
    f = features if features is not None else cpu_features()
    have = [k for k in INT8_FLAGS if f.get(k)]
    dot = "yes" if f.get("int8_dot") else "no"
    names = " ".join(have) or "none of " + "/".join(INT8_FLAGS)
    return f"{f.get('arch')}: {names}; int8 dot product: {dot}"


def int8_speed_warning(quantization: dict, features: dict | None = None) -> str | None:
    """Why a bundle quantized as ``quantization`` (its manifest entry) may be slow on this CPU."""
    mode = (quantization or {}).get("mode", "none")
    if mode not in ("int8", "dynamic"):
        return None
    f = features if features is not None else cpu_features()
    if f.get("int8_dot"):
        return None
    where = (
        "VNNI (avx512_vnni / avx_vnni)" if f.get("arch") == "x86_64" else "dot-product (asimddp)"
    )
    note = (
        f"this {mode} bundle runs its int8 kernels without {where} instructions on this CPU "
        f"({cpu_flags_line(f)}): they may be no faster than float; compare with the fp32 bundle "
        "(edgeocr bench BUNDLE --compare int8)"
    )
    if f.get("arch") == "x86_64" and mode == "int8" and not quantization.get("reduce_range"):
        note += "; weights are full 8-bit (packed without reduce_range), which can saturate here"
    return note


def fast_int8(features: dict | None = None) -> bool:
    """Whether this CPU has the int8 dot-product instructions that make int8 pay."""
    f = features if features is not None else cpu_features()
    return bool(f.get("int8_dot"))


def int8_target(features: dict | None = None) -> str:
    """The pack target for this CPU: 'arm' (S8S8) on aarch64, else 'x86' (U8S8)."""
    f = features if features is not None else cpu_features()
    return "arm" if f.get("arch") == "aarch64" else "x86"


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
