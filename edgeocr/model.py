"""`edgeocr.Model`: one ONNX (or translated Paddle Lite) graph on the C++ runtime."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import edgeocr._core as _core

from . import _runtime
from ._numpy import np
from .errors import InvalidInputError, ModelError, ModelNotFoundError, ResourceError

_OPT_LEVELS = {"disabled": 0, "basic": 1, "extended": 2, "all": 99}
# The numpy type (its name in numpy) of each tensor dtype the core reports.
_NUMPY = {
    "float32": "float32",
    "float64": "float64",
    "float16": "float16",
    "uint8": "uint8",
    "int8": "int8",
    "int32": "int32",
    "int64": "int64",
    "bool": "bool_",
}


@dataclass(frozen=True)
class TensorSpec:
    """A declared model input or output. Dynamic dimensions are -1."""

    name: str
    dtype: str
    shape: tuple
    dim_names: tuple = ()

    def __repr__(self) -> str:
        dims = ", ".join(
            (n or "?") if d < 0 else str(d)
            for d, n in zip(self.shape, self.dim_names or [""] * len(self.shape))
        )
        return f"TensorSpec({self.name!r}, {self.dtype}, [{dims}])"


def session_options(
    threads: int | None = None,
    *,
    inter_threads: int = 0,
    execution_mode: str = "sequential",
    optimization: str | int = "all",
    spinning: bool = False,
    memory_arena: bool | str = True,
    memory_pattern: bool = False,
    optimized_model_path: str | os.PathLike | None = None,
    arm64_bf16_fastmath: bool = False,
) -> Any:
    """Build the core's SessionOptions, checking every value.

    ``memory_arena``: True (an ONNX Runtime arena per session), False (plain
    allocations), or ``"shared"`` (one process-wide arena for every session
    that asks for it, growing by what is asked, kept until the process ends).

    ``arm64_bf16_fastmath``: on aarch64, ONNX Runtime runs fp32 GEMMs (MatMul,
    Gemm, and convolutions lowered to them) in bf16 (session config
    ``mlas.enable_gemm_fastmath_arm64_bfloat16``): faster on CPUs with BF16
    instructions (Graviton3, Neoverse V1/N2, Apple M2+), results differ from
    fp32 in the low bits. Ignored on other CPUs. Off by default.
    """
    o = _core.SessionOptions()
    most = _core.MAX_SESSION_THREADS
    if threads is not None:
        if not isinstance(threads, int) or isinstance(threads, bool) or not 0 <= threads <= most:
            raise InvalidInputError(
                f"threads must be an integer in [0, {most}] (0 = runtime default), got {threads!r}"
            )
        o.intra_threads = threads
    if (
        not isinstance(inter_threads, int)
        or isinstance(inter_threads, bool)
        or not 0 <= inter_threads <= most
    ):
        raise InvalidInputError(
            f"inter_threads must be an integer in [0, {most}], got {inter_threads!r}"
        )
    o.inter_threads = inter_threads
    if execution_mode not in ("sequential", "parallel"):
        raise InvalidInputError(
            f"execution_mode must be 'sequential' or 'parallel', got {execution_mode!r}"
        )
    o.parallel = execution_mode == "parallel"
    if isinstance(optimization, str):
        if optimization not in _OPT_LEVELS:
            raise InvalidInputError(
                f"optimization must be one of {sorted(_OPT_LEVELS)}, got {optimization!r}"
            )
        optimization = _OPT_LEVELS[optimization]
    if isinstance(optimization, bool) or not isinstance(optimization, int) or optimization < 0:
        raise InvalidInputError(
            f"optimization must be one of {sorted(_OPT_LEVELS)} or 0, 1, 2, 99, "
            f"got {optimization!r}"
        )
    o.optimization = min(optimization, 2**31 - 1)  # the core refuses other levels
    for name, flag in (("spinning", spinning), ("memory_pattern", memory_pattern)):
        if not isinstance(flag, bool):
            raise InvalidInputError(f"{name} must be True or False, got {flag!r}")
    o.allow_spinning = spinning
    if memory_arena == "shared":
        o.shared_arena = True
    elif isinstance(memory_arena, bool):
        o.memory_arena = memory_arena
    else:
        raise InvalidInputError(
            f"memory_arena must be True, False or 'shared', got {memory_arena!r}"
        )
    o.memory_pattern = memory_pattern
    if not isinstance(arm64_bf16_fastmath, bool):
        raise InvalidInputError(
            f"arm64_bf16_fastmath must be True or False, got {arm64_bf16_fastmath!r}"
        )
    o.arm64_bf16_fastmath = arm64_bf16_fastmath
    if optimized_model_path:
        out = os.fspath(optimized_model_path)
        folder = os.path.dirname(os.path.abspath(out))
        if os.path.isdir(out) or not os.path.isdir(folder):
            # The runtime would fail at load time, as if the model itself were unreadable.
            raise InvalidInputError(
                f"optimized_model_path must be a file in an existing folder, got {out!r}"
            )
        o.optimized_model_path = out
    return o


def load_core_model(
    path=None, *, data=None, options=None, pool=None, ort_library=None, name="<bytes>"
):
    """Create a `_core.Model` from a path (.onnx, .ort, .nb) or bytes."""
    _runtime.configure(ort_library)
    options = options if options is not None else session_options()
    if (path is None) == (data is None):
        raise InvalidInputError("give exactly one of a model path or data=bytes")
    if data is not None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidInputError(f"data must be bytes, got {type(data).__name__}")
        if len(data) == 0:
            raise ModelError("model bytes are empty")
        if _core.nb_looks_like(data):  # a Paddle Lite .nb file given as bytes
            data = _core.nb_cached_to_onnx(data, name)
        return _core.Model.from_bytes(data, options, pool, name)
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ModelNotFoundError(f"model file not found: {path}")
    if os.path.isdir(path):
        raise ModelError(
            f"{path} is a directory; edgeocr.Model takes one model file "
            "(use edgeocr.Predictor for a folder of det/cls/rec models)"
        )
    if not os.path.isfile(path):  # /dev/zero would be read forever, a pipe blocks
        raise ModelError(f"{path} is not a regular file (a device, pipe or socket)")
    if path.endswith(".nb"):
        # translated by the C++ core (csrc/loader/nb), cached by content hash
        try:
            with open(path, "rb") as f:
                nb = f.read()
        except OSError as e:
            raise ModelError(f"{path}: cannot read the file ({e.strerror or e})") from e
        onnx_bytes = _core.nb_cached_to_onnx(nb, path)
        return _core.Model.from_bytes(onnx_bytes, options, pool, path)
    return _core.Model.from_file(path, options, pool)


class Model:
    """One model executed by the C++ core on ONNX Runtime.

    >>> m = edgeocr.Model("det.onnx", threads=2)
    >>> out = m.run(x)                       # {output name: ndarray}

    ``path`` may be an ``.onnx``/``.ort`` file or a Paddle Lite ``.nb`` file
    (translated to an ONNX graph on first load and cached). ``data=`` takes
    the model as bytes instead. Thread-safe: one Model may be run from
    several threads; weights are shared.
    """

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        *,
        data: bytes | None = None,
        threads: int | None = None,
        inter_threads: int = 0,
        execution_mode: str = "sequential",
        optimization: str | int = "all",
        spinning: bool = False,
        memory_arena: bool | str = True,
        memory_pattern: bool = False,
        optimized_model_path: str | os.PathLike | None = None,
        max_memory_mb: float | None = None,
        ort_library: str | None = None,
        arm64_bf16_fastmath: bool = False,
    ):
        opts = session_options(
            threads,
            inter_threads=inter_threads,
            execution_mode=execution_mode,
            optimization=optimization,
            spinning=spinning,
            memory_arena=memory_arena,
            memory_pattern=memory_pattern,
            optimized_model_path=optimized_model_path,
            arm64_bf16_fastmath=arm64_bf16_fastmath,
        )
        pool = _core.MemoryPool(_cap_bytes(max_memory_mb))
        self._m = load_core_model(path, data=data, options=opts, pool=pool, ort_library=ort_library)
        self.inputs = [TensorSpec(n, t, tuple(s), tuple(d)) for n, t, s, d in self._m.inputs]
        self.outputs = [TensorSpec(n, t, tuple(s), tuple(d)) for n, t, s, d in self._m.outputs]

    @property
    def metadata(self) -> dict:
        """The model's custom metadata (ONNX metadata_props)."""
        return dict(self._m.metadata)

    @property
    def path(self) -> str:
        """Where the model came from: its file, or the name given for bytes."""
        return self._m.name

    def run(self, x: np.ndarray | Mapping[str, np.ndarray] | Sequence[np.ndarray]) -> dict:
        """Run the model; returns ``{output name: ndarray}``.

        ``x`` is one array (single-input models), a ``{name: array}`` dict, or
        a sequence in input order. C-contiguous arrays of the declared dtype
        are used without copying; other numeric arrays are converted once.
        The GIL is released during inference.
        """
        arrays = [self._convert(spec, v) for spec, v in zip(self.inputs, self._by_input(x))]
        outs = self._m.run(arrays)
        return {spec.name: a for spec, a in zip(self.outputs, outs)}

    def memory_stats(self) -> dict:
        """Memory-pool statistics: reserved, in use, high-water mark (bytes), hits, misses."""
        return self._m.pool.stats()

    def __repr__(self) -> str:
        return f"edgeocr.Model({self.path!r}, inputs={self.inputs}, outputs={self.outputs})"

    # -- helpers ---------------------------------------------------------
    def _by_input(self, x) -> list:
        names = [s.name for s in self.inputs]
        if isinstance(x, Mapping):
            missing = [n for n in names if n not in x]
            extra = [k for k in x if k not in names]
            if missing or extra:
                raise InvalidInputError(
                    f"{self.path}: inputs must be exactly {names}; missing {missing}, unexpected "
                    f"{extra}"
                )
            return [x[n] for n in names]
        if isinstance(x, (list, tuple)):
            if len(x) != len(names):
                raise InvalidInputError(
                    f"{self.path}: expected {len(names)} inputs {names}, got {len(x)}"
                )
            return list(x)
        if len(names) != 1:
            raise InvalidInputError(f"{self.path}: model has inputs {names}; pass a dict")
        return [x]

    def _convert(self, spec: TensorSpec, value) -> np.ndarray:
        try:
            arr = np.asarray(value)
        except Exception as e:  # noqa: BLE001 - any conversion failure is the caller's input
            raise InvalidInputError(
                f"input '{spec.name}': cannot convert {type(value).__name__} to an array"
            ) from e
        want = getattr(np, _NUMPY[spec.dtype]) if spec.dtype in _NUMPY else None
        if want is None:
            raise InvalidInputError(f"input '{spec.name}' has unsupported type {spec.dtype}")
        if arr.dtype.kind not in "fiub":
            raise InvalidInputError(
                f"input '{spec.name}' must be {spec.dtype}; got dtype {arr.dtype}, which cannot be "
                "cast"
            )
        if arr.ndim != len(spec.shape):
            raise InvalidInputError(
                f"input '{spec.name}' must have {len(spec.shape)} dimensions "
                f"(shape {list(spec.shape)}, -1 = any), got shape {list(arr.shape)}"
            )
        if arr.dtype != want or not arr.flags.c_contiguous:
            try:  # a zero-stride view may claim gigabytes it does not hold
                arr = np.ascontiguousarray(arr, dtype=want)
            except MemoryError as e:
                raise ResourceError(
                    f"input '{spec.name}': cannot allocate {arr.size * np.dtype(want).itemsize} "
                    f"bytes for a {want.__name__} copy of shape {list(arr.shape)}"
                ) from e
        return arr


# The largest memory budget, in MiB (1 PB): what a bundle's manifest may hold too.
MAX_MEMORY_MB = 1e9


def check_max_memory_mb(mb, whose: str = "") -> float | None:
    """``mb`` if it is None or a number of MiB in (0, MAX_MEMORY_MB], else InvalidInputError."""
    if mb is not None and (
        isinstance(mb, bool)
        or not isinstance(mb, (int, float))
        or not 0 < mb <= MAX_MEMORY_MB  # also refuses NaN
    ):
        raise InvalidInputError(
            f"{whose + ' ' if whose else ''}max_memory_mb must be a positive number of MiB "
            f"(at most {MAX_MEMORY_MB:g}), got {mb!r}"
        )
    return mb


def _cap_bytes(max_memory_mb) -> int:
    if check_max_memory_mb(max_memory_mb) is None:
        return 0
    return int(max_memory_mb * 1024 * 1024)
