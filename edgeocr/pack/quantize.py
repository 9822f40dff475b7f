"""Quantization of det/cls/rec graphs with ONNX Runtime's quantization tools.

* ``dynamic``: weights int8, activations quantized at run time
  (``onnxruntime.quantization.quantize_dynamic``).
* ``int8``: static QDQ, per-channel int8 weights, activation ranges calibrated
  on images run through *edgeocr's own* preprocessing kernels (the same
  resize / crop / normalisation the pipeline feeds the models), so the ranges
  are those the deployed model will see.

Also here: the per-node damage ranking used by ``--auto-keep`` (which nodes'
quantization moves their outputs furthest from the float graph's).
"""

from __future__ import annotations

import contextlib
import fnmatch
import io
import logging
import os
import tempfile
import warnings
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .._runtime import cpu_features
from ..errors import InvalidInputError

METHODS = ("minmax", "entropy", "percentile")

DYNAMIC_OPS = ("MatMul", "Gemm")


@dataclass(frozen=True)
class QuantSettings:
    """How a graph is quantized; recorded in the manifest."""

    mode: str  # "dynamic" | "int8"
    method: str = "minmax"
    per_channel: bool = True
    activation_type: str = "uint8"
    weight_type: str = "int8"
    reduce_range: bool = False
    percentile: float = 99.999
    # dynamic only: op types to quantize. Conv is left out by default: ConvInteger with
    # per-call activation ranges cost PP-OCR most of its accuracy and ran slower than
    # float on the machines measured (docs/bundle-format.md, "Quantization").
    op_types: tuple = DYNAMIC_OPS
    # int8 only: the recipe (which op types per role, which nodes stay float and why).
    recipe: str = "custom"
    role_ops: tuple = ()  # ((role, (op types...) or None for every op), ...)
    role_keep: tuple = ()  # ((role, ((pattern, reason), ...)), ...)
    role_method: tuple = ()  # ((role, calibration method), ...): the recipe's, over ``method``
    role_float: tuple = ()  # ((role, why), ...): models the recipe leaves float

    def method_for(self, role: str | None) -> str:
        """The calibration method for ``role`` (the recipe's for that role, else ``method``)."""
        return dict(self.role_method).get(role, self.method) if role else self.method

    def float_why(self, role: str) -> str | None:
        """Why the recipe leaves ``role`` float entirely (None: it is quantized)."""
        return dict(self.role_float).get(role)

    def ops_for(self, role: str):
        """Op types to quantize in ``role`` (None: every op ONNX Runtime can quantize)."""
        return dict(self.role_ops).get(role)

    def keep_for(self, role: str) -> tuple:
        return dict(self.role_keep).get(role, ())

    def to_dict(self) -> dict:
        d = {
            "mode": self.mode,
            "weight_type": self.weight_type,
            "per_channel": self.per_channel,
            "reduce_range": self.reduce_range,
        }
        if self.mode == "dynamic":
            d["op_types"] = list(self.op_types)
        if self.mode == "int8":
            d.update(format="QDQ", method=self.method, activation_type=self.activation_type)
            if self.role_method:
                d["method_by_role"] = dict(self.role_method)
            if "percentile" in (self.method, *dict(self.role_method).values()):
                d["percentile"] = self.percentile
            d["recipe"] = self.recipe
            d["op_types_by_role"] = {r: (list(o) if o else "all") for r, o in self.role_ops}
            if self.role_float:
                d["float_by_recipe"] = dict(self.role_float)
            d["keep_float_by_recipe"] = {
                r: [{"pattern": p, "why": why} for p, why in k] for r, k in self.role_keep
            }
        return d


# The default int8 recipe, chosen by measurement (benchmarks/README.md, "int8 recipes"):
# per role, the op types that are quantized and the nodes that stay float, with why.
RECIPES = {
    "edgeocr-int8-v1": {
        "ops": {"det": None, "cls": None, "rec": ("Conv", "MatMul")},
        "keep": {},
    },
    # PaddleOCR's own recipe (its quantization configs): convolutions only.
    "paddle-conv": {
        "ops": {"det": ("Conv",), "cls": ("Conv",), "rec": ("Conv",)},
        "keep": {},
    },
    # v1, with rec's products of two activations (attention Q.K^T and softmax.V) left float:
    # their per-tensor ranges follow the line's length (the softmax input grows with it) and
    # 8-bit softmax probabilities lose the small weights; the weight MatMuls stay int8.
    "edgeocr-int8-v2": {
        "ops": {"det": None, "cls": None, "rec": ("Conv", "MatMul")},
        "keep": {"rec": [("@activation-matmul", "MatMul of two activations (attention)")]},
    },
    # det and cls as in v1/v2, rec left float. On dev line crops rec int8 (Conv + MatMul, the
    # attention float) read 1.19 (PP-OCRv6 small) and 6.64 (PP-OCRv4 mobile) points of 1-NED
    # away from fp32 for 0.92x / 0.85x of the rec time; v4's loss is spread over its 8-bit
    # activations (2-5% each), percentile ranges only cut it to 1.86 and need every
    # calibration output in memory (CHANGELOG.md, "Benchmark rounds"). det int8 costs 0.03 points.
    "edgeocr-int8-v3": {
        "ops": {"det": None, "cls": None},
        "keep": {},
        "float": {
            "rec": "int8 rec read 1.2-6.6 points of 1-NED from fp32 on dev crops for "
            "0.85-0.92x its time (benchmarks/README.md)"
        },
    },
    # Every op ONNX Runtime can quantize (edgeocr's int8 before the recipe).
    "all-ops": {"ops": {"det": None, "cls": None, "rec": None}, "keep": {}},
}
DEFAULT_RECIPE = "edgeocr-int8-v3"


def settings_for(
    mode: str,
    target: str,
    method: str | None = None,
    op_types: Sequence[str] | None = None,
    recipe: str = DEFAULT_RECIPE,
    features: dict | None = None,
) -> QuantSettings:
    """Quantization settings for ``target`` ('x86', 'arm' or 'generic') on this CPU.

    x86 and generic: uint8 activations, int8 weights (U8S8: ONNX Runtime's
    fast path on x86, measured 0.82x vs 1.04x fp32 time for S8S8 on a VNNI
    CPU); 7-bit weights (``reduce_range``) where the packing CPU is x86
    without VNNI, whose 16-bit intermediate sums can saturate. arm: int8
    symmetric activations (S8S8, what the ARM dot-product kernels take).
    """
    if method is not None and method not in METHODS:
        raise InvalidInputError(f"calibration method must be one of {METHODS}, got {method!r}")
    if recipe not in RECIPES:
        raise InvalidInputError(f"int8 recipe must be one of {sorted(RECIPES)}, got {recipe!r}")
    ops = tuple(op_types) if op_types else DYNAMIC_OPS
    r = RECIPES[recipe]
    extra = dict(
        recipe=recipe,
        role_ops=tuple((k, v) for k, v in r["ops"].items()),
        role_keep=tuple((k, tuple(v)) for k, v in r["keep"].items()),
        # A method given by the caller applies to every model; else the recipe's per model.
        role_method=tuple(r.get("method", {}).items()) if method is None else (),
        role_float=tuple(r.get("float", {}).items()),
    )
    method = method or "minmax"
    if target == "arm":  # ARM kernels prefer symmetric int8 activations
        return QuantSettings(mode, method, activation_type="int8", op_types=ops, **extra)
    f = features if features is not None else cpu_features()
    reduce = f.get("arch") == "x86_64" and target == "x86" and not f.get("int8_dot")
    return QuantSettings(
        mode, method, activation_type="uint8", reduce_range=reduce, op_types=ops, **extra
    )


# ---------------------------------------------------------------------------
# Graph helpers
# ---------------------------------------------------------------------------
def optimize_graph(data, level: str) -> bytes:
    """The graph as ONNX Runtime optimises it at ``level`` ('basic' or 'extended'), as ONNX bytes.

    'basic' gives plain ONNX (constants folded into initializers, Conv+BN
    fused): the form the quantizer needs. 'extended' adds ONNX Runtime's
    fusions (com.microsoft ops) that every CPU build supports. 'all' is
    refused: its layout passes (NCHWc) bake in the packing machine's SIMD
    width and are not portable.
    """
    from ..model import Model

    if level not in ("basic", "extended"):
        raise InvalidInputError(
            f"offline optimisation level must be 'basic' or 'extended', got {level!r}"
        )
    with tempfile.TemporaryDirectory(prefix="edgeocr-opt-") as tmp:
        out = os.path.join(tmp, "opt.onnx")
        Model(data=bytes(data), threads=1, optimization=level, optimized_model_path=out)
        with open(out, "rb") as f:
            return f.read()


def load_named(data) -> onnx.ModelProto:  # noqa: F821
    """Parse ONNX bytes and give every unnamed node a stable name (``<op>_<index>``),
    so nodes can be excluded from quantization and reported by name."""
    import onnx

    model = onnx.load_from_string(bytes(data))
    used = {n.name for n in model.graph.node if n.name}
    for i, n in enumerate(model.graph.node):
        if not n.name:
            name = f"{n.op_type}_{i}"
            while name in used:
                name += "_"
            n.name = name
            used.add(name)
    return model


def ensure_opset(model, minimum: int = 13):
    """The model at ONNX opset >= ``minimum`` (per-channel DequantizeLinear needs opset 13)."""
    import onnx
    from onnx import version_converter

    current = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if current >= minimum:
        return model
    try:
        converted = version_converter.convert_version(model, minimum)
    except Exception as e:  # noqa: BLE001 - the converter raises many kinds
        raise InvalidInputError(
            f"cannot convert the graph from opset {current} to {minimum} for per-channel int8: {e}"
        ) from e
    onnx.checker.check_model(converted)
    return converted


def match_nodes(model, patterns: Iterable[str]) -> list[str]:
    """Names of nodes whose name or op type matches any shell-style pattern."""
    patterns = list(patterns)
    out = []
    for n in model.graph.node:
        if any(
            fnmatch.fnmatchcase(n.name, p) or fnmatch.fnmatchcase(n.op_type, p) for p in patterns
        ):
            out.append(n.name)
    return out


def _activation_matmuls(model) -> list[str]:
    """MatMul nodes with no constant input (no initializer, no Constant output)."""
    const = {i.name for i in model.graph.initializer}
    const |= {o for n in model.graph.node if n.op_type == "Constant" for o in n.output}
    return [
        n.name
        for n in model.graph.node
        if n.op_type == "MatMul" and not any(i in const for i in n.input)
    ]


def _depthwise_convs(model) -> list[str]:
    """Conv nodes with one input channel per group (depthwise: group > 1, weight dim 1 == 1)."""
    dims = {i.name: list(i.dims) for i in model.graph.initializer}
    out = []
    for n in model.graph.node:
        if n.op_type != "Conv" or len(n.input) < 2 or n.input[1] not in dims:
            continue
        group = next((a.i for a in n.attribute if a.name == "group"), 1)
        w = dims[n.input[1]]
        if group > 1 and len(w) >= 2 and w[1] == 1:
            out.append(n.name)
    return out


# Structural keep-float rules a recipe can name instead of node names ("@rule").
KEEP_RULES = {"@activation-matmul": _activation_matmuls, "@depthwise-conv": _depthwise_convs}


def match_keep(model, pattern: str) -> list[str]:
    """Node names a recipe's keep entry selects: a structural rule ("@...") or a shell pattern."""
    if pattern.startswith("@"):
        if pattern not in KEEP_RULES:
            raise InvalidInputError(
                f"unknown keep-float rule {pattern!r}; known: {sorted(KEEP_RULES)}"
            )
        return KEEP_RULES[pattern](model)
    return match_nodes(model, [pattern])


@contextlib.contextmanager
def _quiet():
    """ONNX Runtime's quantizer logs advice and may warn; keep pack output readable."""
    logger = logging.getLogger()
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        # The histogram calibrators also print progress to stdout.
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def _qtype(name: str):
    from onnxruntime.quantization import QuantType

    return {"int8": QuantType.QInt8, "uint8": QuantType.QUInt8}[name]


# ---------------------------------------------------------------------------
# Quantization
# ---------------------------------------------------------------------------
def quantize_dynamic_bytes(model, settings: QuantSettings, keep_float: Sequence[str] = ()) -> bytes:
    """Weights to int8, activations quantized at run time; ``keep_float``: node names left float."""
    from onnxruntime.quantization import quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="edgeocr-q-") as tmp, _quiet():
        out = os.path.join(tmp, "q.onnx")
        quantize_dynamic(
            model,
            out,
            per_channel=settings.per_channel,
            reduce_range=settings.reduce_range,
            weight_type=_qtype(settings.weight_type),
            op_types_to_quantize=list(settings.op_types),
            nodes_to_exclude=list(keep_float),
        )
        with open(out, "rb") as f:
            return f.read()


class _Reader:
    """onnxruntime CalibrationDataReader over a list of input arrays."""

    def __init__(self, input_name: str, arrays: Sequence[np.ndarray], progress=None):
        self._name = input_name
        self._arrays = arrays
        self._i = 0
        self._progress = progress

    def get_next(self):
        if self._i >= len(self._arrays):
            return None
        a = self._arrays[self._i]
        self._i += 1
        if self._progress is not None:
            self._progress.step()
        return {self._name: a}

    def rewind(self):
        self._i = 0


def quantize_static_bytes(
    model,
    settings: QuantSettings,
    inputs: Sequence[np.ndarray],
    keep_float: Sequence[str] = (),
    *,
    op_types: Sequence[str] | None = None,
    method: str | None = None,
    cache_path: str | None = None,
    progress=None,
) -> bytes:
    """Static QDQ quantization calibrated on ``inputs`` (arrays for the model's one input);
    ``method``: the calibration method (default ``settings.method``).

    ``cache_path``: a JSON file for the calibrated ranges; when it exists the
    calibration is skipped (``--auto-keep`` re-quantizes with other nodes kept
    float without re-running the images).
    """
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, quantize_static

    if not inputs and not (cache_path and os.path.isfile(cache_path)):
        raise InvalidInputError("static int8 quantization needs calibration images (--calib DIR)")
    method_name = method or settings.method
    calibrate_method = {
        "minmax": CalibrationMethod.MinMax,
        "entropy": CalibrationMethod.Entropy,
        "percentile": CalibrationMethod.Percentile,
    }[method_name]
    extra = {
        "ActivationSymmetric": settings.activation_type == "int8",
        "WeightSymmetric": True,
        # Not "CalibMaxIntermediateOutputs": onnxruntime 1.32's MinMax calibrator drops the
        # outputs it holds at each flush instead of merging their ranges. MinMax keeps
        # only per-tensor minima and maxima (ReduceMin/ReduceMax outputs) anyway.
    }
    if method_name == "percentile":
        extra["CalibPercentile"] = settings.percentile
    model = ensure_opset(model, 13)
    input_name = model.graph.input[0].name
    with tempfile.TemporaryDirectory(prefix="edgeocr-q-") as tmp, _quiet():
        # A file, not the ModelProto: the quantizer rewrites a proto it is given
        # (weights moved to external data in its own temporary folder), so the
        # same proto could not be quantized twice (--auto-keep does).
        src = os.path.join(tmp, "float.onnx")
        with open(src, "wb") as f:
            f.write(model.SerializeToString())
        out = os.path.join(tmp, "q.onnx")
        quantize_static(
            src,
            out,
            _Reader(input_name, list(inputs), progress),
            quant_format=QuantFormat.QDQ,
            per_channel=settings.per_channel,
            reduce_range=settings.reduce_range,
            activation_type=_qtype(settings.activation_type),
            weight_type=_qtype(settings.weight_type),
            nodes_to_exclude=list(keep_float),
            op_types_to_quantize=list(op_types) if op_types else None,
            calibrate_method=calibrate_method,
            extra_options=extra,
            calibration_cache_path=cache_path,
        )
        with open(out, "rb") as f:
            return f.read()


def quantize_bytes(
    model, settings: QuantSettings, inputs=(), keep_float=(), *, role: str | None = None, **kw
) -> bytes:
    """Quantize ``model`` (the ``role`` graph: the recipe's op types for that role apply)."""
    if settings.mode == "dynamic":
        return quantize_dynamic_bytes(model, settings, keep_float)
    if settings.mode == "int8":
        ops = settings.ops_for(role) if role else None
        return quantize_static_bytes(
            model,
            settings,
            inputs,
            keep_float,
            op_types=ops,
            method=settings.method_for(role),
            **kw,
        )
    raise InvalidInputError(f"quantize must be 'none', 'dynamic' or 'int8', got {settings.mode!r}")


# ---------------------------------------------------------------------------
# Calibration inputs through edgeocr's own preprocessing
# ---------------------------------------------------------------------------
def calibration_inputs(
    images: Sequence[np.ndarray],
    config,
    float_predictor,
    *,
    max_crops_per_image: int = 8,
    rec_width_cap: int = 960,
    uniform: bool | Collection[str] = False,
) -> dict:
    """Model inputs for each role, made by the pipeline's kernels from ``images`` (BGR uint8).

    det: the whole image at the pipeline's target size. cls / rec: crops of the
    boxes the float predictor finds (turned as the pipeline turns them),
    resized into the pipeline's input sizes and width buckets. At most
    ``max_crops_per_image`` crops per image (evenly spread over its lines);
    rec widths above ``rec_width_cap`` are skipped to bound calibration memory.

    ``uniform`` (True, or the roles it applies to): one shape per role (ONNX Runtime's
    histogram calibrators,
    entropy and percentile, cannot merge tensors of different shapes): det
    images all resized to the first image's target size, rec crops all padded
    to the widest bucket used, as the pipeline pads a batch to its widest crop.
    """
    from .._core import kernels

    c = config
    if isinstance(uniform, bool):
        uniform = {"det", "cls", "rec"} if uniform else set()
    det, cls, rec = [], [], []
    rec_crops = []  # (image, quad, out_w, bucket)
    buckets = sorted(c.rec_width_buckets)
    fixed = None
    for img in images:
        h, w = img.shape[:2]
        tw, th = kernels.det_target_size(
            w, h, c.det_limit_type, c.det_limit_side_len, c.det_max_side_len, c.det_max_upscale
        )
        if "det" in uniform:
            fixed = fixed or (tw, th)
            tw, th = fixed
        det.append(kernels.det_preprocess(img, tw, th, tuple(c.det_mean), tuple(c.det_std))[None])
        lines = float_predictor.predict(img).lines
        if not lines:
            continue
        pick = np.unique(
            np.linspace(0, len(lines) - 1, min(len(lines), max_crops_per_image)).round().astype(int)
        )
        for i in pick:
            q = np.asarray(lines[i].box, dtype=np.float32)
            bw = max(np.linalg.norm(q[0] - q[1]), np.linalg.norm(q[3] - q[2]))
            bh = max(np.linalg.norm(q[0] - q[3]), np.linalg.norm(q[1] - q[2]))
            if bw <= 3 or bh <= 3:
                continue
            ratio = bw / bh
            if bh / bw >= c.rotate_ratio:  # as the pipeline: a vertical line is read turned
                q = np.roll(q, -1, axis=0)
                ratio = bh / bw
            ow = min(c.cls_width, max(1, int(np.ceil(c.cls_height * ratio))))
            cls.append(
                kernels.crop_preprocess(
                    img, q, ow, c.cls_height, c.cls_width, tuple(c.cls_mean), tuple(c.cls_std), 0.0
                )[None]
            )
            if lines[i].flipped:
                q = np.roll(q, -2, axis=0)
            need = int(np.ceil(c.rec_height * ratio))
            bucket = next((b for b in buckets if b >= need), buckets[-1])
            if bucket > rec_width_cap:
                continue
            rec_crops.append((img, q, min(bucket, max(1, need)), bucket))
    widest = max((b for *_, b in rec_crops), default=0)
    for img, q, ow, bucket in rec_crops:
        dst = widest if "rec" in uniform else bucket
        rec.append(
            kernels.crop_preprocess(
                img, q, ow, c.rec_height, dst, tuple(c.rec_mean), tuple(c.rec_std), 0.0
            )[None]
        )
    return {"det": det, "cls": cls, "rec": rec}


# ---------------------------------------------------------------------------
# Where quantization hurts
# ---------------------------------------------------------------------------
def _intermediate_session(model, names: Sequence[str]):
    import onnx
    import onnxruntime as ort

    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in names:
        if n not in have:
            m.graph.output.append(onnx.ValueInfoProto(name=n))
    so = ort.SessionOptions()
    # No fusion: the QDQ graph then computes in float with quantize-dequantize
    # steps, and every original tensor keeps its name in both graphs.
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])


def node_damage(
    float_model,
    quant_bytes: bytes,
    inputs: Sequence[np.ndarray],
    *,
    limit: int = 2,
    chunk: int = 48,
) -> list:
    """Quantized nodes ranked by the error their quantization adds, worst first.

    For each node of the float graph whose output the quantized graph still
    has, the relative L2 error of that output in the quantized graph minus
    the largest relative error among the node's inputs: the part of the error
    introduced where this node's inputs and weights are quantized. Measured
    on the smallest ``limit`` inputs, ``chunk`` tensors per session (bounded
    memory on large det inputs). Returns ``[(node name, op type, score), ...]``.
    """
    import onnx

    qmodel = onnx.load_from_string(quant_bytes)
    qnames = {o for n in qmodel.graph.node for o in n.output}
    inits = {i.name for i in float_model.graph.initializer}
    graph_in = {i.name for i in float_model.graph.input}
    nodes = [n for n in float_model.graph.node if n.output and n.output[0] in qnames]
    wanted = {t for n in nodes for t in [n.output[0], *n.input]}
    tensors = sorted(t for t in wanted if t and t in qnames and t not in inits | graph_in)
    xs = sorted(inputs, key=lambda a: a.size)[:limit]
    in_name = float_model.graph.input[0].name
    err: dict = {}
    for i in range(0, len(tensors), chunk):
        part = tensors[i : i + chunk]
        fs = _intermediate_session(float_model, part)
        qs = _intermediate_session(qmodel, part)
        fnames = [o.name for o in fs.get_outputs()]
        qnames_out = [o.name for o in qs.get_outputs()]
        for x in xs:
            fo = dict(zip(fnames, fs.run(None, {in_name: x})))
            qo = dict(zip(qnames_out, qs.run(None, {in_name: x})))
            for t in part:
                a, b = np.asarray(fo[t]), np.asarray(qo[t])
                if a.dtype.kind != "f" or a.shape != b.shape:
                    continue
                a, b = a.astype(np.float64), b.astype(np.float64)
                e = float(np.linalg.norm(a - b) / (np.linalg.norm(a) + 1e-12))
                err[t] = err.get(t, 0.0) + e / len(xs)
        del fs, qs
    ranked = []
    for n in nodes:
        if n.output[0] not in err:
            continue
        before = max([err.get(t, 0.0) for t in n.input if t and t not in inits] or [0.0])
        ranked.append((n.name, n.op_type, err[n.output[0]] - before))
    ranked.sort(key=lambda r: -r[2])
    return ranked
