"""Translate a Paddle Lite program (:class:`NbProgram`) into an ONNX graph.

Each Paddle Lite op maps to a few ONNX nodes with the semantics of Paddle
Lite's kernel (fused activations, folded batch norm, weight-only int8
dequantisation done exactly as ``LightPredictor::DequantizeWeight``). The
translator tracks static shapes where they are known, folds ops whose inputs
are all constants when that is exact (reshape/transpose of weights,
``fill_constant``), and renames variables into SSA form, because Paddle
Lite's memory-reuse pass on arm writes one variable name several times.

Anything it cannot honour raises :class:`NbFormatError` naming the file, the
op and its kernel key, and what to do.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Callable, Optional

import numpy as np

from .errors import NbFormatError
from .reader import DTYPES, NbOp, NbProgram, read_nb

OPSET = 17
IR_VERSION = 8  # the IR version that goes with opset 17; older runtimes read it

# kernel targets and precisions edgeocr honours (paddle_place.h names)
HONOURED_TARGETS = {"host", "x86", "arm", "any"}
HONOURED_PRECISIONS = {"float", "any", "int32", "int64", "bool"}

_ONNX_DT = {  # numpy dtype -> TensorProto enum (filled lazily, onnx import is slow)
}


def _onnx():
    import onnx  # noqa: WPS433 (imported lazily: edgeocr does not need onnx to run)
    from onnx import TensorProto, helper, numpy_helper

    if not _ONNX_DT:
        _ONNX_DT.update(
            {
                np.dtype(np.float32): TensorProto.FLOAT,
                np.dtype(np.float64): TensorProto.DOUBLE,
                np.dtype(np.float16): TensorProto.FLOAT16,
                np.dtype(np.int8): TensorProto.INT8,
                np.dtype(np.uint8): TensorProto.UINT8,
                np.dtype(np.int16): TensorProto.INT16,
                np.dtype(np.int32): TensorProto.INT32,
                np.dtype(np.int64): TensorProto.INT64,
                np.dtype(np.bool_): TensorProto.BOOL,
            }
        )
    return onnx, TensorProto, helper, numpy_helper


Shape = Optional[tuple[int, ...]]  # None: rank unknown; -1 entries: dim unknown


class _Unsupported(Exception):
    """Raised inside a handler; turned into NbFormatError with the op's context."""


def _bcast(a: Shape, b: Shape) -> Shape:
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x == -1:
            out.append(y)
        else:
            out.append(x)
    return tuple(out)


class _Ctx:
    """Translation state: ONNX nodes, initializers, SSA names, shapes, constants."""

    def __init__(self, prog: NbProgram):
        self.prog = prog
        self.nodes: list = []
        self.inits: dict[str, np.ndarray] = {}
        self.consts: dict[str, np.ndarray] = {}
        self.shapes: dict[str, Shape] = {}
        self.dtypes: dict[str, np.dtype] = {}
        self.cur: dict[str, str] = {}
        self.used_names: set = set()
        self.inputs: list[tuple[int, str, Shape, np.dtype]] = []
        self.outputs: list[tuple[int, str]] = []
        self.dequantized: dict[str, np.ndarray] = {}
        self.n = 0
        self.op: NbOp | None = None
        self.const_bytes = 0
        param_bytes = sum(a.nbytes for a in prog.params.values())
        self.const_limit = 8 * param_bytes + (64 << 20)

    # -- names -------------------------------------------------------------
    def fresh(self, base: str) -> str:
        name = base
        while name in self.used_names:
            self.n += 1
            name = f"{base}__{self.n}"
        self.used_names.add(name)
        return name

    # -- reading values ----------------------------------------------------
    def has(self, var: str | None) -> bool:
        return bool(var) and (var in self.cur or var in self.prog.params)

    def _param_name(self, var: str) -> str:
        if var not in self.cur:
            arr = self.prog.params[var]
            if arr.dtype in (np.int8, np.int16) and self.prog.param_dtypes.get(var) in (1, 21):
                raise _Unsupported(
                    f"reads the quantised weight '{var}' ({arr.dtype}) but carries no "
                    f"'{var}_quant_scale' attribute; Paddle Lite dequantises weights only "
                    f"for conv2d, depthwise_conv2d, fc and mul"
                )
            name = self.fresh(var)
            self.consts[name] = arr
            self.shapes[name] = tuple(arr.shape)
            self.dtypes[name] = arr.dtype
            self.cur[var] = name
        return self.cur[var]

    def get(self, var: str | None) -> str:
        """The ONNX name holding ``var`` now (materialising constants)."""
        if not var:
            raise _Unsupported("misses a required input")
        if var not in self.cur:
            if var in self.prog.params:
                self._param_name(var)
            else:
                raise _Unsupported(
                    f"reads variable '{var}', which no earlier op writes and "
                    f"which is not a parameter of the file"
                )
        name = self.cur[var]
        if name in self.consts and name not in self.inits:
            self.inits[name] = self.consts[name]
        return name

    def materialize(self, name: str) -> str:
        if name in self.consts and name not in self.inits:
            self.inits[name] = self.consts[name]
        return name

    def const(self, var: str | None) -> np.ndarray | None:
        """The value of ``var`` if it is a constant known at translation time."""
        if not var:
            return None
        if var not in self.cur:
            if var in self.prog.params:
                self._param_name(var)
            else:
                return None
        return self.consts.get(self.cur[var])

    def shape(self, name: str) -> Shape:
        return self.shapes.get(name)

    def rank(self, name: str) -> int:
        s = self.shapes.get(name)
        if s is None:
            raise _Unsupported(f"needs the rank of '{name}', which is unknown")
        return len(s)

    def dtype(self, name: str) -> np.dtype:
        return self.dtypes.get(name, np.dtype(np.float32))

    # -- writing values ----------------------------------------------------
    def bind(self, var: str, name: str):
        self.cur[var] = name

    def new_const(self, arr: np.ndarray, base: str = "const") -> str:
        arr = np.asarray(arr)
        self.const_bytes += arr.nbytes
        if self.const_bytes > self.const_limit:
            raise _Unsupported(
                f"makes the graph's constants exceed {self.const_limit >> 20} "
                f"MiB, far more than the file holds; the file is corrupted"
            )
        name = self.fresh(base)
        self.consts[name] = arr
        self.shapes[name] = tuple(arr.shape)
        self.dtypes[name] = arr.dtype
        return name

    def iconst(self, values, base="shape") -> str:
        return self.materialize(self.new_const(np.asarray(values, dtype=np.int64), base))

    def fconst(self, value, base="c") -> str:
        return self.materialize(self.new_const(np.asarray(value, dtype=np.float32), base))

    def set_const_out(self, var: str, arr: np.ndarray):
        self.bind(var, self.new_const(arr, var))

    def node(
        self,
        op_type: str,
        inputs: Sequence[str],
        outputs: int | Sequence[str] = 1,
        shape: Shape = None,
        dtype=None,
        **attrs,
    ) -> list[str]:
        _, _, helper, _ = _onnx()
        for i in inputs:
            if i:
                self.materialize(i)
        if isinstance(outputs, int):
            first = next(iter(self.op.outputs.values()), None) if self.op else None
            base = first[0] if first else None
            outs = [self.fresh(f"{base or op_type}_{op_type.lower()}") for _ in range(outputs)]
        else:
            outs = list(outputs)
        self.nodes.append(
            helper.make_node(
                op_type,
                list(inputs),
                outs,
                name=self.fresh(f"n{len(self.nodes)}_{op_type}"),
                **attrs,
            )
        )
        for o in outs:
            self.shapes[o] = shape
            self.dtypes[o] = np.dtype(dtype) if dtype is not None else np.dtype(np.float32)
        return outs

    def node1(
        self, op_type: str, inputs: Sequence[str], shape: Shape = None, dtype=None, **attrs
    ) -> str:
        return self.node(op_type, inputs, 1, shape=shape, dtype=dtype, **attrs)[0]

    def out(self, op: NbOp, slot: str, name: str):
        """Bind the op's output ``slot`` to ONNX value ``name``."""
        var = op.output(slot)
        if not var:
            raise _Unsupported(f"has no '{slot}' output")
        self.bind(var, name)


# ---------------------------------------------------------------------------
# helpers shared by handlers


def _a(op: NbOp, name: str, default=None):
    v = op.attrs.get(name, default)
    return default if v is None else v


def _ints(v) -> list[int]:
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    return [int(v)]


def _act(ctx: _Ctx, x: str, act: str, op: NbOp, shape: Shape, prefix: str = "") -> str:
    """Apply a Paddle (Lite) activation by name; attribute names follow the
    stand-alone op (``prefix`` '') or Lite's fused-op conventions ('fused')."""
    fused = prefix == "fused"
    if not act:
        return x
    if act == "relu":
        return ctx.node1("Relu", [x], shape)
    if act == "relu6":
        t = float(_a(op, "fuse_brelu_threshold" if fused else "threshold", 6.0))
        return ctx.node1("Clip", [x, ctx.fconst(0.0), ctx.fconst(t)], shape)
    if act == "leaky_relu":
        alpha = float(_a(op, "leaky_relu_alpha" if fused else "alpha", 0.02))
        return ctx.node1("LeakyRelu", [x], shape, alpha=alpha)
    if act == "sigmoid":
        return ctx.node1("Sigmoid", [x], shape)
    if act == "tanh":
        return ctx.node1("Tanh", [x], shape)
    if act == "abs":
        return ctx.node1("Abs", [x], shape)
    if act == "hard_sigmoid":
        slope = float(_a(op, "slope", 0.2))
        offset = float(_a(op, "offset", 0.5))
        return ctx.node1("HardSigmoid", [x], shape, alpha=slope, beta=offset)
    if act == "hard_swish":
        if fused:
            t, s, o = (
                float(_a(op, "hard_swish_threshold", 6.0)),
                float(_a(op, "hard_swish_scale", 6.0)),
                float(_a(op, "hard_swish_offset", 3.0)),
            )
        else:
            t, s, o = (
                float(_a(op, "threshold", 6.0)),
                float(_a(op, "scale", 6.0)),
                float(_a(op, "offset", 3.0)),
            )
        # out = x * min(max(x + offset, 0), threshold) / scale
        y = ctx.node1("Add", [x, ctx.fconst(o)], shape)
        y = ctx.node1("Clip", [y, ctx.fconst(0.0), ctx.fconst(t)], shape)
        y = ctx.node1("Mul", [x, y], shape)
        return ctx.node1("Div", [y, ctx.fconst(s)], shape)
    if act == "swish":
        beta = float(_a(op, "swish_scale" if fused else "beta", 1.0))
        z = x if beta == 1.0 else ctx.node1("Mul", [x, ctx.fconst(beta)], shape)
        return ctx.node1("Mul", [x, ctx.node1("Sigmoid", [z], shape)], shape)
    if act in ("silu",):
        return ctx.node1("Mul", [x, ctx.node1("Sigmoid", [x], shape)], shape)
    if act == "exp":
        return ctx.node1("Exp", [x], shape)
    if act == "square":
        return ctx.node1("Mul", [x, x], shape)
    if act == "sqrt":
        return ctx.node1("Sqrt", [x], shape)
    if act == "rsqrt":
        return ctx.node1("Reciprocal", [ctx.node1("Sqrt", [x], shape)], shape)
    if act == "log":
        return ctx.node1("Log", [x], shape)
    if act == "softplus":
        beta = float(_a(op, "beta", 1.0))
        thr = float(_a(op, "threshold", 20.0))
        if beta == 1.0 and thr >= 20.0:
            return ctx.node1("Softplus", [x], shape)
        raise _Unsupported(f"uses softplus with beta={beta}, threshold={thr}")
    if act == "gelu":
        # Paddle Lite 2.10's x86 gelu kernel ignores `approximate` (measured: its
        # output is the erf form); its arm kernel (act_gelu) honours it.
        if bool(_a(op, "approximate", False)) and op.target != "x86":
            # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
            x3 = ctx.node1("Mul", [ctx.node1("Mul", [x, x], shape), x], shape)
            cube = ctx.node1("Mul", [x3, ctx.fconst(0.044715)], shape)
            inner = ctx.node1("Add", [x, cube], shape)
            inner = ctx.node1("Mul", [inner, ctx.fconst(math.sqrt(2.0 / math.pi))], shape)
            t = ctx.node1("Add", [ctx.node1("Tanh", [inner], shape), ctx.fconst(1.0)], shape)
        else:
            scaled = ctx.node1("Mul", [x, ctx.fconst(1.0 / math.sqrt(2.0))], shape)
            e = ctx.node1("Erf", [scaled], shape)
            t = ctx.node1("Add", [e, ctx.fconst(1.0)], shape)
        return ctx.node1("Mul", [ctx.node1("Mul", [x, t], shape), ctx.fconst(0.5)], shape)
    if act == "elu":
        return ctx.node1("Elu", [x], shape, alpha=float(_a(op, "alpha", 1.0)))
    if act == "erf":
        return ctx.node1("Erf", [x], shape)
    if act == "floor":
        return ctx.node1("Floor", [x], shape)
    if act == "mish":
        return ctx.node1(
            "Mul", [x, ctx.node1("Tanh", [ctx.node1("Softplus", [x], shape)], shape)], shape
        )
    if act == "prelu" and fused:
        alpha = op.input("Prelu_alpha")
        if not alpha:
            raise _Unsupported("fuses prelu but has no Prelu_alpha input")
        return _prelu(ctx, x, alpha, str(_a(op, "prelu_mode", "channel")), shape)
    raise _Unsupported(f"uses activation '{act}', which edgeocr does not translate")


def _prelu(ctx: _Ctx, x: str, alpha_var: str, mode: str, shape: Shape) -> str:
    a = ctx.const(alpha_var)
    if a is None:
        raise _Unsupported("has a non-constant prelu alpha")
    a = np.asarray(a, np.float32)
    r = len(shape) if shape is not None else 4
    if mode == "all":
        a = a.reshape(())
    elif mode == "channel":
        a = a.reshape((-1,) + (1,) * (r - 2))
    elif mode == "element":
        a = a.reshape(tuple(a.shape[-(r - 1) :]) if a.ndim >= r - 1 else a.shape)
    return ctx.node1("PRelu", [x, ctx.fconst(a, "prelu_alpha")], shape)


def _conv_pads(op: NbOp, in_hw: Sequence[int], ksize: Sequence[int], strides, dilations):
    """Return (pads [t, l, b, r], dilations) following Paddle's
    UpdatePaddingAndDilation (SAME resets dilation to 1)."""
    algo = str(_a(op, "padding_algorithm", "EXPLICIT") or "EXPLICIT").upper()
    p = _ints(_a(op, "paddings", [0, 0]))
    nd = len(ksize)
    if algo == "VALID":
        return [0] * (2 * nd), list(dilations), None
    if algo == "SAME":
        dil = [1] * nd
        if any(d is None or d < 0 for d in in_hw):
            return None, dil, "SAME_UPPER"
        pads_b, pads_e = [], []
        for d, k, s in zip(in_hw, ksize, strides):
            out = (d + s - 1) // s
            total = max((out - 1) * s + k - d, 0)
            pads_b.append(total // 2)
            pads_e.append(total - total // 2)
        return pads_b + pads_e, dil, None
    if len(p) == nd:
        return p + p, list(dilations), None
    if len(p) == 2 * nd:
        return p[0::2] + p[1::2], list(dilations), None
    raise _Unsupported(f"has paddings {p}, expected {nd} or {2 * nd} values")


def _conv_out(d, k, s, pb, pe, dil):
    if d is None or d < 0:
        return -1
    return (d + pb + pe - (dil * (k - 1) + 1)) // s + 1


def _dequant(ctx: _Ctx, op: NbOp, slot: str, axis: int) -> str | None:
    """Weight-only int8/int16 dequantisation, exactly as Paddle Lite's
    LightPredictor::DequantizeWeight: float(scale[c]) * int_value."""
    var = op.input(slot)
    if not var:
        return None
    scale_key = f"{var}_quant_scale"
    qtype = _a(op, "quantization_type", "")
    quantized = scale_key in op.attrs and (
        qtype in ("post_weight_abs_max", "post_weight_channel_wise_abs_max")
        or (not qtype and "quantize_weight_bits" in op.attrs)
    )
    if not quantized:
        w = ctx.const(var)
        if w is not None and w.dtype != np.float32:
            raise _Unsupported(f"has weight '{var}' of type {w.dtype} without a quantisation scale")
        return ctx.get(var)
    if var in ctx.dequantized:
        return ctx.materialize(ctx.new_const(ctx.dequantized[var], var + "_dequant"))
    if var not in ctx.prog.params:
        raise _Unsupported(f"has a quantisation scale for '{var}', which is not a parameter")
    raw = ctx.prog.params[var]
    bits = int(_a(op, "quantize_weight_bits", 8))
    expect = np.int8 if bits == 8 else np.int16 if bits == 16 else None
    if expect is None or raw.dtype != expect:
        raise _Unsupported(
            f"has quantize_weight_bits={bits} but weight '{var}' is stored as {raw.dtype}"
        )
    scales = np.asarray(op.attrs[scale_key], dtype=np.float32)
    if not np.all(np.isfinite(scales)):
        raise _Unsupported(
            f"has non-finite quantisation scales for weight '{var}'; the file is corrupted"
        )
    ch = raw.shape[axis] if raw.ndim > axis else -1
    if scales.size != ch:
        raise _Unsupported(
            f"has {scales.size} quantisation scales for weight '{var}' with {ch} output channels"
        )
    bshape = [1] * raw.ndim
    bshape[axis] = ch
    w = raw.astype(np.float32) * scales.reshape(bshape)
    ctx.dequantized[var] = w
    return ctx.materialize(ctx.new_const(w, var + "_dequant"))


# ---------------------------------------------------------------------------
# op handlers

_HANDLERS: dict[str, Callable[[_Ctx, NbOp], None]] = {}


def _reg(*names):
    def deco(fn):
        for n in names:
            _HANDLERS[n] = fn
        return fn

    return deco


@_reg("feed")
def _feed(ctx: _Ctx, op: NbOp):
    var = op.output("Out")
    v = ctx.prog.vars.get(var)
    shape = tuple(int(d) for d in v.shape) if v is not None and v.shape else None
    dt = np.dtype(v.np_dtype or np.float32) if v is not None else np.dtype(np.float32)
    name = ctx.fresh(var)
    ctx.shapes[name] = shape
    ctx.dtypes[name] = dt
    ctx.inputs.append((int(_a(op, "col", 0)), name, shape, dt))
    ctx.bind(var, name)


@_reg("fetch")
def _fetch(ctx: _Ctx, op: NbOp):
    ctx.outputs.append((int(_a(op, "col", 0)), ctx.get(op.input("X"))))


@_reg("conv2d", "depthwise_conv2d")
def _conv2d(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("Input"))
    if str(_a(op, "data_format", "NCHW")).upper() not in ("NCHW", "ANYLAYOUT"):
        raise _Unsupported(f"uses data_format {_a(op, 'data_format')}")
    w = _dequant(ctx, op, "Filter", 0)
    wshape = ctx.shape(w)
    k = list(wshape[2:])
    strides = _ints(_a(op, "strides", [1, 1]))
    dil = _ints(_a(op, "dilations", [1, 1]))
    xs = ctx.shape(x)
    in_hw = list(xs[2:]) if xs is not None and len(xs) == 4 else [-1, -1]
    pads, dil, auto = _conv_pads(op, in_hw, k, strides, dil)
    groups = int(_a(op, "groups", 1))
    inputs = [x, w]
    b = op.input("Bias")
    if b:
        bc = ctx.const(b)
        if bc is not None:
            inputs.append(ctx.fconst(np.asarray(bc, np.float32).reshape(-1), "bias"))
        else:
            inputs.append(ctx.get(b))
    attrs = dict(kernel_shape=k, strides=strides, dilations=dil, group=groups)
    if auto:
        attrs["auto_pad"] = auto
        oshape = (xs[0] if xs else -1, wshape[0], -1, -1)
    else:
        attrs["pads"] = pads
        nd = len(k)
        oshape = (xs[0] if xs else -1, wshape[0]) + tuple(
            _conv_out(in_hw[i], k[i], strides[i], pads[i], pads[i + nd], dil[i]) for i in range(nd)
        )
    y = ctx.node1("Conv", inputs, oshape, **attrs)
    if bool(_a(op, "with_act", False)) or bool(_a(op, "fuse_relu", False)):
        act = str(_a(op, "act_type", "relu" if _a(op, "fuse_relu", False) else ""))
        y = _act(ctx, y, act, op, oshape, "fused")
    ctx.out(op, "Output", y)


@_reg("conv2d_transpose", "depthwise_conv2d_transpose")
def _conv2d_transpose(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("Input"))
    w = _dequant(ctx, op, "Filter", 0)
    wshape = ctx.shape(w)
    k = list(wshape[2:])
    nd = len(k)
    strides = _ints(_a(op, "strides", [1, 1]))
    dil = _ints(_a(op, "dilations", [1, 1]))
    groups = int(_a(op, "groups", 1))
    xs = ctx.shape(x)
    in_hw = list(xs[2:]) if xs is not None and len(xs) == 4 else [-1, -1]
    algo = str(_a(op, "padding_algorithm", "EXPLICIT") or "EXPLICIT").upper()
    if algo == "SAME":
        raise _Unsupported("uses padding_algorithm SAME for a transposed convolution")
    pads, dil, _ = _conv_pads(op, in_hw, k, strides, dil)
    out_pad = _ints(_a(op, "output_padding", []))
    out_size = _ints(_a(op, "output_size", []))
    if not out_pad:
        out_pad = [0] * nd
    oshape = []
    for i in range(nd):
        d = in_hw[i]
        oshape.append(
            -1
            if d < 0
            else (d - 1) * strides[i]
            - pads[i]
            - pads[i + nd]
            + dil[i] * (k[i] - 1)
            + 1
            + out_pad[i]
        )
    if out_size:
        if any(d < 0 for d in oshape):
            raise _Unsupported("sets output_size on an input of unknown spatial size")
        out_pad = [out_pad[i] + out_size[i] - oshape[i] for i in range(nd)]
        oshape = list(out_size)
    inputs = [x, w]
    b = op.input("Bias")
    if b:
        bc = ctx.const(b)
        inputs.append(
            ctx.fconst(np.asarray(bc, np.float32).reshape(-1), "bias")
            if bc is not None
            else ctx.get(b)
        )
    cout = wshape[1] * groups
    shape = (xs[0] if xs else -1, cout) + tuple(oshape)
    attrs = dict(kernel_shape=k, strides=strides, dilations=dil, group=groups, pads=pads)
    if any(out_pad):
        attrs["output_padding"] = out_pad
    y = ctx.node1("ConvTranspose", inputs, shape, **attrs)
    if bool(_a(op, "with_act", False)) or bool(_a(op, "fuse_relu", False)):
        act = str(_a(op, "act_type", "relu" if _a(op, "fuse_relu", False) else ""))
        y = _act(ctx, y, act, op, shape, "fused")
    ctx.out(op, "Output", y)


def _align_y(ctx: _Ctx, x: str, y: str, axis: int) -> tuple[str, str]:
    """Paddle elementwise broadcasting: Y's dims line up with X's starting at
    ``axis`` (-1: right-aligned, as numpy). Returns inputs for numpy-style ops."""
    xs, ys = ctx.shape(x), ctx.shape(y)
    if axis == -1 or xs is None or ys is None or len(xs) == len(ys):
        return x, y
    swap = len(xs) < len(ys)
    big, small = (y, x) if swap else (x, y)
    bs, ss = (ys, xs) if swap else (xs, ys)
    if axis < 0:
        axis += len(bs)
    # Paddle trims trailing 1-dims of the smaller operand before aligning
    s_dims = list(ss)
    while len(s_dims) > 0 and axis + len(s_dims) > len(bs) and s_dims[-1] == 1:
        s_dims.pop()
    tail = len(bs) - axis - len(s_dims)
    if tail < 0:
        raise _Unsupported(f"broadcasts shape {ss} into {bs} at axis {axis}")
    if tail == 0 and len(s_dims) == len(ss):
        return x, y
    new_shape = tuple(s_dims) + (1,) * tail
    c = ctx.consts.get(small)
    if c is not None:
        small2 = ctx.materialize(ctx.new_const(np.asarray(c).reshape(new_shape), small + "_b"))
    else:
        small2 = ctx.node1(
            "Reshape",
            [small, ctx.iconst([d if d >= 0 else 0 for d in new_shape])],
            new_shape,
            dtype=ctx.dtype(small),
        )
    return (small2, big) if swap else (big, small2)


_ELTWISE = {
    "elementwise_add": "Add",
    "elementwise_sub": "Sub",
    "elementwise_mul": "Mul",
    "elementwise_div": "Div",
    "elementwise_max": "Max",
    "elementwise_min": "Min",
    "elementwise_pow": "Pow",
    "elementwise_floordiv": None,
    "elementwise_mod": "Mod",
}


@_reg(
    *[k for k, v in _ELTWISE.items() if v],
    "fusion_elementwise_add_activation",
    "fusion_elementwise_sub_activation",
    "fusion_elementwise_mul_activation",
    "fusion_elementwise_div_activation",
    "fusion_elementwise_max_activation",
    "fusion_elementwise_min_activation",
)
def _eltwise(ctx: _Ctx, op: NbOp):
    base = op.type
    if base.startswith("fusion_"):
        base = base[len("fusion_") : -len("_activation")]
    onnx_op = _ELTWISE[base]
    x = ctx.get(op.input("X"))
    y = ctx.get(op.input("Y"))
    axis = int(_a(op, "axis", -1))
    a, b = _align_y(ctx, x, y, axis)
    shape = _bcast(ctx.shape(a), ctx.shape(b))
    dt = ctx.dtype(x)
    attrs = {}
    if onnx_op == "Mod":
        attrs["fmod"] = 0 if np.issubdtype(dt, np.integer) else 1
    out = ctx.node1(onnx_op, [a, b], shape, dtype=dt, **attrs)
    act = _a(op, "act_type", "")
    if op.type.startswith("fusion_") and act:
        out = _act(ctx, out, str(act), op, shape)
    ctx.out(op, "Out", out)


@_reg("fill_constant")
def _fill_constant(ctx: _Ctx, op: NbOp):
    for slot in ("ShapeTensor", "ShapeTensorList", "ValueTensor"):
        for v in op.inputs.get(slot) or []:
            if ctx.const(v) is None:
                raise _Unsupported(f"takes its {slot} from a computed tensor")
    dt = DTYPES.get(int(_a(op, "dtype", 5)))  # the same VarType ids as the file's tensors
    if dt is None:
        raise _Unsupported(f"has unsupported dtype {_a(op, 'dtype')}")
    sv = _a(op, "str_value", "")
    value = None
    if isinstance(sv, str) and sv:
        try:
            value = float(sv)
        except ValueError:
            value = None
    if value is None:
        value = float(_a(op, "value", 0.0))
    shape = _ints(_a(op, "shape", []))
    if op.inputs.get("ShapeTensor"):
        shape = [int(v) for v in np.asarray(ctx.const(op.inputs["ShapeTensor"][0])).reshape(-1)]
    elif op.inputs.get("ShapeTensorList"):
        shape = [int(np.asarray(ctx.const(v)).reshape(-1)[0]) for v in op.inputs["ShapeTensorList"]]
    if op.inputs.get("ValueTensor"):
        value = np.asarray(ctx.const(op.inputs["ValueTensor"][0])).reshape(-1)[0]
    if any(d < 0 for d in shape) or int(np.prod(shape, dtype=np.int64)) > (1 << 22):
        raise _Unsupported(f"has shape {shape}")
    ctx.set_const_out(op.output("Out"), np.full(shape, value, dtype=dt))


def _shape_input(ctx: _Ctx, op: NbOp, tensor_slot: str, list_slot: str) -> object | None:
    """An int list from a constant tensor/list input, an ONNX int64 tensor name
    for a computed one, or None when the op uses its attribute."""
    lst = op.inputs.get(list_slot) or []
    if lst:
        consts = [ctx.const(v) for v in lst]
        if all(c is not None for c in consts):
            return [int(np.asarray(c).reshape(-1)[0]) for c in consts]
        parts = [
            ctx.node1(
                "Cast",
                [
                    ctx.node1(
                        "Reshape", [ctx.get(v), ctx.iconst([1])], (1,), dtype=ctx.dtype(ctx.get(v))
                    )
                ],
                (1,),
                dtype=np.int64,
                to=7,
            )
            for v in lst
        ]
        return ctx.node1("Concat", parts, (len(parts),), dtype=np.int64, axis=0)
    t = (op.inputs.get(tensor_slot) or [None])[0]
    if t:
        c = ctx.const(t)
        if c is not None:
            return [int(v) for v in np.asarray(c).reshape(-1)]
        return ctx.node1("Cast", [ctx.get(t)], None, dtype=np.int64, to=7)
    return None


def _reshape_shape(in_shape: Shape, target: list[int]) -> Shape:
    if in_shape is None:
        return tuple(-1 if d in (-1,) else d for d in target) if 0 not in target else None
    out = []
    for i, d in enumerate(target):
        out.append(in_shape[i] if d == 0 and i < len(in_shape) else d)
    if out.count(-1) == 1 and all(d >= 0 for d in in_shape):
        known = int(np.prod([d for d in out if d != -1], dtype=np.int64))
        total = int(np.prod(in_shape, dtype=np.int64))
        if known > 0 and total % known == 0:
            out[out.index(-1)] = total // known
    return tuple(out)


@_reg("reshape2", "reshape")
def _reshape(ctx: _Ctx, op: NbOp):
    xv = op.input("X")
    shp = _shape_input(ctx, op, "Shape", "ShapeTensor")
    if shp is None:
        shp = _ints(_a(op, "shape", []))
    c = ctx.const(xv)
    if isinstance(shp, list):
        if c is not None:
            tgt = [c.shape[i] if d == 0 else d for i, d in enumerate(shp)]
            ctx.set_const_out(op.output("Out"), np.asarray(c).reshape(tgt))
            return
        x = ctx.get(xv)
        y = ctx.node1(
            "Reshape", [x, ctx.iconst(shp)], _reshape_shape(ctx.shape(x), shp), dtype=ctx.dtype(x)
        )
    else:
        x = ctx.get(xv)
        y = ctx.node1("Reshape", [x, shp], None, dtype=ctx.dtype(x))
    ctx.out(op, "Out", y)


@_reg("squeeze2", "squeeze")
def _squeeze(ctx: _Ctx, op: NbOp):
    xv = op.input("X")
    c = ctx.const(xv)
    x = ctx.cur.get(xv) or ctx.get(xv)
    s = ctx.shape(x) if c is None else tuple(c.shape)
    axes = _ints(_a(op, "axes", []))
    if s is None:
        raise _Unsupported("squeezes a tensor of unknown rank")
    r = len(s)
    if not axes:
        axes = [i for i, d in enumerate(s) if d == 1]
    else:
        # Paddle ignores axes whose dim is not 1
        axes = sorted({a + r if a < 0 else a for a in axes})
        axes = [a for a in axes if 0 <= a < r and s[a] in (1, -1)]
    out_shape = tuple(d for i, d in enumerate(s) if i not in axes)
    if c is not None:
        ctx.set_const_out(op.output("Out"), np.asarray(c).reshape(out_shape))
        return
    x = ctx.get(xv)
    y = (
        x
        if not axes
        else ctx.node1("Squeeze", [x, ctx.iconst(axes)], out_shape, dtype=ctx.dtype(x))
    )
    if y == x:
        y = ctx.node1("Identity", [x], out_shape, dtype=ctx.dtype(x))
    ctx.out(op, "Out", y)


def _unsqueeze_axes(rank: int, axes: list[int]) -> list[int]:
    """Paddle inserts the axes one after another (negative ones counted from
    the current rank + 1); return the final positions of the new dims."""
    dims: list[bool] = [False] * rank  # False: original dim, True: inserted
    for a in axes:
        cur = a + len(dims) + 1 if a < 0 else a
        cur = max(0, min(cur, len(dims)))
        dims.insert(cur, True)
    return [i for i, new in enumerate(dims) if new]


@_reg("unsqueeze2", "unsqueeze")
def _unsqueeze(ctx: _Ctx, op: NbOp):
    xv = op.input("X")
    axes = _shape_input(ctx, op, "AxesTensor", "AxesTensorList")
    if axes is None:
        axes = _ints(_a(op, "axes", []))
    if not isinstance(axes, list):
        raise _Unsupported("takes its axes from a computed tensor")
    c = ctx.const(xv)
    s = tuple(c.shape) if c is not None else ctx.shape(ctx.get(xv))
    if s is None:
        raise _Unsupported("unsqueezes a tensor of unknown rank")
    pos = _unsqueeze_axes(len(s), axes)
    out_shape = list(s)
    for p in pos:
        out_shape.insert(p, 1)
    if c is not None:
        ctx.set_const_out(op.output("Out"), np.asarray(c).reshape(out_shape))
        return
    x = ctx.get(xv)
    ctx.out(
        op,
        "Out",
        ctx.node1("Unsqueeze", [x, ctx.iconst(pos)], tuple(out_shape), dtype=ctx.dtype(x)),
    )


@_reg("transpose2", "transpose")
def _transpose(ctx: _Ctx, op: NbOp):
    xv = op.input("X")
    perm = _ints(_a(op, "axis", []))
    c = ctx.const(xv)
    if c is not None:
        ctx.set_const_out(op.output("Out"), np.ascontiguousarray(np.transpose(c, perm)))
        return
    x = ctx.get(xv)
    s = ctx.shape(x)
    shape = tuple(s[p] for p in perm) if s is not None and len(s) == len(perm) else None
    ctx.out(op, "Out", ctx.node1("Transpose", [x], shape, dtype=ctx.dtype(x), perm=perm))


@_reg("flatten_contiguous_range")
def _flatten_range(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    if s is None:
        raise _Unsupported("flattens a tensor of unknown rank")
    r = len(s)
    a = int(_a(op, "start_axis", 1))
    b = int(_a(op, "stop_axis", -1))
    a = a + r if a < 0 else a
    b = b + r if b < 0 else b
    mid = s[a : b + 1]
    merged = int(np.prod(mid)) if all(d >= 0 for d in mid) else -1
    out = tuple(s[:a]) + (merged,) + tuple(s[b + 1 :])
    if sum(1 for d in out if d < 0) <= 1:
        tgt = list(out)
    elif all(d >= 0 for d in s[b + 1 :]):
        # leading dims copied with 0 (same positions), merged part inferred
        tgt = [0] * a + [-1] + list(s[b + 1 :])
    else:
        raise _Unsupported("flattens a range of a tensor with several unknown dims")
    ctx.out(op, "Out", ctx.node1("Reshape", [x, ctx.iconst(tgt)], out, dtype=ctx.dtype(x)))


@_reg("flatten", "flatten2")
def _flatten(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    axis = int(_a(op, "axis", 1))
    s = ctx.shape(x)
    shape = None
    if s is not None:
        a = axis + len(s) if axis < 0 else axis
        h, t = s[:a], s[a:]
        shape = (
            int(np.prod(h)) if all(d >= 0 for d in h) else -1,
            int(np.prod(t)) if all(d >= 0 for d in t) else -1,
        )
    ctx.out(op, "Out", ctx.node1("Flatten", [x], shape, dtype=ctx.dtype(x), axis=axis))


@_reg("scale")
def _scale(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    scale = float(_a(op, "scale", 1.0))
    bias = float(_a(op, "bias", 0.0))
    after = bool(_a(op, "bias_after_scale", True))
    st = (op.inputs.get("ScaleTensor") or [None])[0]
    dt = ctx.dtype(x)

    def k(v):
        return ctx.materialize(ctx.new_const(np.asarray(v, dtype=dt), "c"))

    if st:
        sc = ctx.const(st)
        if sc is not None:
            scale = float(np.asarray(sc).reshape(-1)[0])
            st = None
    y = x
    if not after and bias != 0.0:
        y = ctx.node1("Add", [y, k(bias)], s, dtype=dt)
    if st:
        sname = ctx.get(st)
        y = ctx.node1(
            "Mul", [y, ctx.node1("Reshape", [sname, ctx.iconst([])], (), dtype=dt)], s, dtype=dt
        )
    elif scale != 1.0:
        y = ctx.node1("Mul", [y, k(scale)], s, dtype=dt)
    if after and bias != 0.0:
        y = ctx.node1("Add", [y, k(bias)], s, dtype=dt)
    if y == x:
        y = ctx.node1("Identity", [x], s, dtype=dt)
    act = _a(op, "activation_type", "") or ("relu" if _a(op, "fuse_relu", False) else "")
    if act:
        y = _act(ctx, y, str(act), op, s)
    ctx.out(op, "Out", y)


@_reg("clip")
def _clip(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    bounds = []
    for slot, attr in (("Min", "min"), ("Max", "max")):
        v = op.input(slot)
        if v:
            c = ctx.const(v)
            if c is not None:
                bounds.append(ctx.fconst(float(np.asarray(c).reshape(-1)[0])))
            else:
                bounds.append(ctx.node1("Reshape", [ctx.get(v), ctx.iconst([])], ()))
        else:
            bounds.append(ctx.fconst(float(_a(op, attr, 0.0))))
    ctx.out(op, "Out", ctx.node1("Clip", [x] + bounds, s))


@_reg("relu6")
def _relu6(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    ctx.out(op, "Out", _act(ctx, x, "relu6", op, ctx.shape(x)))


_UNARY_ACTS = (
    "relu",
    "sigmoid",
    "tanh",
    "leaky_relu",
    "hard_sigmoid",
    "hard_swish",
    "swish",
    "silu",
    "exp",
    "abs",
    "sqrt",
    "rsqrt",
    "square",
    "log",
    "gelu",
    "elu",
    "softplus",
    "erf",
    "floor",
    "mish",
)


@_reg(*_UNARY_ACTS)
def _unary(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    ctx.out(op, "Out", _act(ctx, x, op.type, op, ctx.shape(x)))


@_reg("prelu")
def _prelu_op(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    ctx.out(
        op, "Out", _prelu(ctx, x, op.input("Alpha"), str(_a(op, "mode", "channel")), ctx.shape(x))
    )


@_reg("assign")
def _assign(ctx: _Ctx, op: NbOp):
    xv = op.input("X")
    c = ctx.const(xv)
    if c is not None:
        ctx.set_const_out(op.output("Out"), c)
        return
    x = ctx.get(xv)
    ctx.out(op, "Out", ctx.node1("Identity", [x], ctx.shape(x), dtype=ctx.dtype(x)))


@_reg("dropout")
def _dropout(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    impl = str(_a(op, "dropout_implementation", "downgrade_in_infer"))
    p = float(_a(op, "dropout_prob", 0.5))
    if impl == "upscale_in_train" or p == 0.0:
        y = ctx.node1("Identity", [x], ctx.shape(x))
    else:
        y = ctx.node1("Mul", [x, ctx.fconst(1.0 - p)], ctx.shape(x))
    ctx.out(op, "Out", y)


@_reg("concat")
def _concat(ctx: _Ctx, op: NbOp):
    xs = [ctx.get(v) for v in op.inputs.get("X") or []]
    if not xs:
        raise _Unsupported("has no inputs")
    axis = int(_a(op, "axis", 0))
    at = op.input("AxisTensor")
    if at:
        c = ctx.const(at)
        if c is None:
            raise _Unsupported("takes its axis from a computed tensor")
        axis = int(np.asarray(c).reshape(-1)[0])
    shapes = [ctx.shape(x) for x in xs]
    shape = None
    if all(s is not None for s in shapes):
        r = len(shapes[0])
        axis = axis + r if axis < 0 else axis
        ds = [s[axis] for s in shapes]
        shape = list(shapes[0])
        shape[axis] = sum(ds) if all(d >= 0 for d in ds) else -1
        shape = tuple(shape)
    elif axis < 0:
        raise _Unsupported("concatenates tensors of unknown rank along a negative axis")
    ctx.out(op, "Out", ctx.node1("Concat", xs, shape, dtype=ctx.dtype(xs[0]), axis=axis))


@_reg("split")
def _split(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    axis = int(_a(op, "axis", 0))
    at = op.input("AxisTensor")
    if at:
        c = ctx.const(at)
        if c is None:
            raise _Unsupported("takes its axis from a computed tensor")
        axis = int(np.asarray(c).reshape(-1)[0])
    if s is None:
        raise _Unsupported("splits a tensor of unknown rank")
    axis = axis + len(s) if axis < 0 else axis
    outs = op.outputs.get("Out") or []
    sections = _shape_input(ctx, op, "", "SectionsTensorList")
    if sections is None:
        sections = _ints(_a(op, "sections", []))
    if not isinstance(sections, list):
        raise _Unsupported("takes its sections from a computed tensor")
    num = int(_a(op, "num", 0))
    if sections:
        if -1 in sections:
            if s[axis] < 0:
                raise _Unsupported("infers a split section on an unknown dim")
            sections[sections.index(-1)] = s[axis] - sum(v for v in sections if v != -1)
        names = ctx.node("Split", [x, ctx.iconst(sections)], len(outs), axis=axis)
        sizes = sections
    else:
        n = num or len(outs)
        names = ctx.node("Split", [x], n, axis=axis)
        sizes = [s[axis] // n if s[axis] >= 0 else -1] * n
    if len(names) != len(outs):
        raise _Unsupported(f"has {len(outs)} outputs for {len(names)} sections")
    for var, name, sz in zip(outs, names, sizes):
        shp = list(s)
        shp[axis] = sz
        ctx.shapes[name] = tuple(shp)
        ctx.dtypes[name] = ctx.dtype(x)
        ctx.bind(var, name)


def _slice_common(ctx: _Ctx, op: NbOp, xslot: str, strided: bool):
    xv = op.input(xslot)
    x = ctx.get(xv)
    s = ctx.shape(x)
    axes = _ints(_a(op, "axes", []))
    starts = _shape_input(ctx, op, "StartsTensor", "StartsTensorList")
    ends = _shape_input(ctx, op, "EndsTensor", "EndsTensorList")
    steps = _shape_input(ctx, op, "StridesTensor", "StridesTensorList") if strided else None
    if starts is None:
        starts = _ints(_a(op, "starts", []))
    if ends is None:
        ends = _ints(_a(op, "ends", []))
    if steps is None:
        steps = _ints(_a(op, "strides", [1] * len(axes))) if strided else [1] * len(axes)
    inputs = [x]
    for v in (starts, ends):
        inputs.append(ctx.iconst(v) if isinstance(v, list) else v)
    inputs.append(ctx.iconst(axes))
    inputs.append(ctx.iconst(steps) if isinstance(steps, list) else steps)
    shape = None
    if s is not None and all(isinstance(v, list) for v in (starts, ends, steps)):
        shape = list(s)
        for a, b, e, st in zip(axes, starts, ends, steps):
            a = a + len(s) if a < 0 else a
            d = s[a]
            if d < 0:
                shape[a] = -1
            else:
                shape[a] = len(range(*slice(b, e, st).indices(d)))
        shape = tuple(shape)
    elif s is not None:
        shape = tuple(-1 if i in [a % len(s) for a in axes] else d for i, d in enumerate(s))
    y = ctx.node1("Slice", inputs, shape, dtype=ctx.dtype(x))
    dec = _ints(_a(op, "decrease_axis", []))
    if dec:
        r = len(shape) if shape is not None else None
        if r is None:
            raise _Unsupported("decreases axes of a tensor of unknown rank")
        dec = sorted({d + r if d < 0 else d for d in dec})
        if len(dec) == r:  # Paddle keeps a 1-element 1-D tensor
            y = ctx.node1("Reshape", [y, ctx.iconst([1])], (1,), dtype=ctx.dtype(x))
        else:
            shape = tuple(d for i, d in enumerate(shape) if i not in dec)
            y = ctx.node1("Squeeze", [y, ctx.iconst(dec)], shape, dtype=ctx.dtype(x))
    ctx.out(op, "Out", y)


@_reg("strided_slice")
def _strided_slice(ctx: _Ctx, op: NbOp):
    _slice_common(ctx, op, "Input", True)


@_reg("slice")
def _slice(ctx: _Ctx, op: NbOp):
    _slice_common(ctx, op, "Input", False)


def _matmul_core(ctx: _Ctx, x: str, y: str, tx: bool, ty: bool, alpha: float, op: NbOp) -> str:
    def t(name):
        s = ctx.shape(name)
        if s is None:
            raise _Unsupported("transposes a matmul operand of unknown rank")
        if len(s) < 2:
            return name
        perm = list(range(len(s)))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        c = ctx.consts.get(name)
        if c is not None:
            return ctx.materialize(
                ctx.new_const(np.ascontiguousarray(np.transpose(c, perm)), name + "_t")
            )
        return ctx.node1("Transpose", [name], tuple(s[p] for p in perm), perm=perm)

    if tx:
        x = t(x)
    if ty:
        y = t(y)
    xs, ys = ctx.shape(x), ctx.shape(y)
    shape = None
    if xs is not None and ys is not None and len(xs) >= 2 and len(ys) >= 2:
        shape = _bcast(xs[:-2], ys[:-2]) + (xs[-2], ys[-1])
    out = ctx.node1("MatMul", [x, y], shape)
    if alpha != 1.0:
        out = ctx.node1("Mul", [out, ctx.fconst(alpha)], shape)
    return out


@_reg("matmul")
def _matmul(ctx: _Ctx, op: NbOp):
    x, y = ctx.get(op.input("X")), ctx.get(op.input("Y"))
    out = _matmul_core(
        ctx,
        x,
        y,
        bool(_a(op, "transpose_X", False)),
        bool(_a(op, "transpose_Y", False)),
        float(_a(op, "alpha", 1.0)),
        op,
    )
    ctx.out(op, "Out", out)


@_reg("matmul_v2")
def _matmul_v2(ctx: _Ctx, op: NbOp):
    x, y = ctx.get(op.input("X")), ctx.get(op.input("Y"))
    out = _matmul_core(
        ctx, x, y, bool(_a(op, "trans_x", False)), bool(_a(op, "trans_y", False)), 1.0, op
    )
    ctx.out(op, "Out", out)


def _fc_like(
    ctx: _Ctx, op: NbOp, xslot: str, wslot: str, xcols: int, ycols: int, bias_slot: str | None
) -> str:
    x = ctx.get(op.input(xslot))
    w = _dequant(ctx, op, wslot, 1)
    wc = ctx.consts.get(w)
    xs = ctx.shape(x)
    if xs is None:
        raise _Unsupported("multiplies a tensor of unknown rank")
    # Attributes from the file: bounded by the ranks before anything is sized from them.
    if not 1 <= xcols < max(2, len(xs)) + 1 or xcols > len(xs):
        raise _Unsupported(f"has x_num_col_dims={xcols} for an input of rank {len(xs)}")
    if wc is not None and not 1 <= ycols < max(2, wc.ndim):
        raise _Unsupported(f"has y_num_col_dims={ycols} for a weight of rank {wc.ndim}")
    if wc is not None:
        if bool(_a(op, "padding_weights", False)):
            wc = wc[:-4, :-4]
        k = int(np.prod(wc.shape[:ycols]))
        n_shape = tuple(wc.shape[ycols:])
        w2 = ctx.materialize(ctx.new_const(np.ascontiguousarray(wc).reshape(k, -1), w + "_2d"))
    else:
        ws = ctx.shape(w)
        if ws is None or len(ws) != 2 or ycols != 1:
            raise _Unsupported("multiplies by a computed weight of unsupported shape")
        k, n_shape, w2 = ws[0], tuple(ws[1:]), w
    lead = tuple(xs[:xcols])
    if len(xs) == xcols + 1 and xs[-1] in (k, -1):
        x2 = x
    else:
        x2 = ctx.node1("Reshape", [x, ctx.iconst([0] * xcols + [k])], lead + (k,))
    n = int(np.prod(n_shape)) if n_shape else 1
    y = ctx.node1("MatMul", [x2, w2], lead + (n,))
    if bias_slot and op.input(bias_slot):
        bc = ctx.const(op.input(bias_slot))
        b = (
            ctx.fconst(np.asarray(bc, np.float32).reshape(-1), "bias")
            if bc is not None
            else ctx.get(op.input(bias_slot))
        )
        y = ctx.node1("Add", [y, b], lead + (n,))
    if len(n_shape) > 1:
        y = ctx.node1("Reshape", [y, ctx.iconst([0] * xcols + list(n_shape))], lead + n_shape)
    return y


@_reg("mul")
def _mul(ctx: _Ctx, op: NbOp):
    y = _fc_like(
        ctx, op, "X", "Y", int(_a(op, "x_num_col_dims", 1)), int(_a(op, "y_num_col_dims", 1)), None
    )
    ctx.out(op, "Out", y)


@_reg("fc")
def _fc(ctx: _Ctx, op: NbOp):
    y = _fc_like(ctx, op, "Input", "W", int(_a(op, "in_num_col_dims", 1)), 1, "Bias")
    act = _a(op, "activation_type", "")
    if act:
        y = _act(ctx, y, str(act), op, ctx.shape(y))
    ctx.out(op, "Out", y)


@_reg("softmax")
def _softmax(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    ctx.out(op, "Out", ctx.node1("Softmax", [x], ctx.shape(x), axis=int(_a(op, "axis", -1))))


@_reg("layer_norm")
def _layer_norm(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    if s is None:
        raise _Unsupported("normalises a tensor of unknown rank")
    axis = int(_a(op, "begin_norm_axis", 1))
    axis = axis + len(s) if axis < 0 else axis
    norm = s[axis:]
    if any(d < 0 for d in norm):
        raise _Unsupported(f"normalises over dims {norm} that are not known statically")
    eps = float(_a(op, "epsilon", 1e-5))
    params = []
    for slot, fill in (("Scale", 1.0), ("Bias", 0.0)):
        v = op.input(slot)
        c = ctx.const(v) if v else np.full(norm, fill, np.float32)
        if c is None:
            raise _Unsupported(f"has a computed {slot}")
        params.append(ctx.fconst(np.asarray(c, np.float32).reshape(norm), slot.lower()))
    y = ctx.node1("LayerNormalization", [x] + params, s, axis=axis, epsilon=eps)
    ctx.out(op, "Y", y)


@_reg("batch_norm")
def _batch_norm(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    ins = []
    for slot in ("Scale", "Bias", "Mean", "Variance"):
        c = ctx.const(op.input(slot))
        if c is None:
            raise _Unsupported(f"has a computed {slot}")
        ins.append(ctx.fconst(np.asarray(c, np.float32).reshape(-1), slot.lower()))
    y = ctx.node1(
        "BatchNormalization", [x] + ins, ctx.shape(x), epsilon=float(_a(op, "epsilon", 1e-5))
    )
    ctx.out(op, "Y", y)


def _pool_out(d, k, s, pb, pe, ceil):
    if d is None or d < 0:
        return -1
    if ceil:
        return (d + pb + pe - k + s - 1) // s + 1
    return (d + pb + pe - k) // s + 1


@_reg("pool2d")
def _pool2d(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    ptype = str(_a(op, "pooling_type", "max"))
    if ptype not in ("max", "avg"):
        raise _Unsupported(f"uses pooling_type '{ptype}'")
    if str(_a(op, "data_format", "NCHW")).upper() not in ("NCHW", "ANYLAYOUT"):
        raise _Unsupported(f"uses data_format {_a(op, 'data_format')}")
    ksize = _ints(_a(op, "ksize", [1, 1]))
    glob = bool(_a(op, "global_pooling", False))
    adaptive = bool(_a(op, "adaptive", False))
    n_c = (s[0], s[1]) if s is not None and len(s) == 4 else (-1, -1)
    if glob or (adaptive and ksize == [1, 1]):
        y = ctx.node1("GlobalAveragePool" if ptype == "avg" else "GlobalMaxPool", [x], n_c + (1, 1))
        ctx.out(op, "Out", y)
        return
    in_hw = list(s[2:]) if s is not None and len(s) == 4 else [-1, -1]
    if adaptive:
        if any(d < 0 for d in in_hw) or any(d % k for d, k in zip(in_hw, ksize)):
            raise _Unsupported(
                f"uses adaptive pooling to {ksize} on input {in_hw}, which is not a whole multiple"
            )
        kern = [d // k for d, k in zip(in_hw, ksize)]
        attrs = dict(kernel_shape=kern, strides=kern, pads=[0, 0, 0, 0])
        if ptype == "avg":
            attrs["count_include_pad"] = 0
        y = ctx.node1(
            "AveragePool" if ptype == "avg" else "MaxPool", [x], n_c + tuple(ksize), **attrs
        )
        ctx.out(op, "Out", y)
        return
    strides = _ints(_a(op, "strides", [1, 1]))
    pads, _, auto = _conv_pads(op, in_hw, ksize, strides, [1, 1])
    ceil = bool(_a(op, "ceil_mode", False))
    attrs = dict(kernel_shape=ksize, strides=strides)
    if auto:
        attrs["auto_pad"] = auto
        shape = n_c + (-1, -1)
    else:
        attrs["pads"] = pads
        shape = n_c + tuple(
            _pool_out(in_hw[i], ksize[i], strides[i], pads[i], pads[i + 2], ceil) for i in range(2)
        )
    if ceil:
        attrs["ceil_mode"] = 1
    if ptype == "avg":
        attrs["count_include_pad"] = 0 if bool(_a(op, "exclusive", True)) else 1
        y = ctx.node1("AveragePool", [x], shape, **attrs)
    else:
        y = ctx.node1("MaxPool", [x], shape, **attrs)
    ctx.out(op, "Out", y)


@_reg("nearest_interp_v2", "bilinear_interp_v2", "nearest_interp", "bilinear_interp")
def _interp(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    v2 = op.type.endswith("_v2")
    method = str(
        _a(op, "interp_method", "nearest" if op.type.startswith("nearest") else "bilinear")
    )
    if str(_a(op, "data_layout", "NCHW")).upper() not in ("NCHW", "ANYLAYOUT"):
        raise _Unsupported(f"uses data_layout {_a(op, 'data_layout')}")
    align_corners = bool(_a(op, "align_corners", True if not v2 else False))
    align_mode = int(_a(op, "align_mode", 1))
    n_c = (s[0], s[1]) if s is not None and len(s) == 4 else (-1, -1)
    in_hw = list(s[2:]) if s is not None and len(s) == 4 else [-1, -1]
    # output size, by Paddle's priority: SizeTensor > OutSize > Scale > scale attr > out_h/w
    size = _shape_input(ctx, op, "OutSize", "SizeTensor")
    scales = None
    if size is None:
        sv = op.input("Scale")
        if sv:
            c = ctx.const(sv)
            if c is None:
                raise _Unsupported("takes its scale from a computed tensor")
            scales = [float(v) for v in np.asarray(c).reshape(-1)]
        else:
            a = _a(op, "scale", [])
            scales = [float(v) for v in (a if isinstance(a, list) else [a])]
            scales = [v for v in scales if v > 0]
        if scales:
            if len(scales) == 1:
                scales = scales * 2
        else:
            scales = None
            oh, ow = int(_a(op, "out_h", -1)), int(_a(op, "out_w", -1))
            if oh <= 0 or ow <= 0:
                raise _Unsupported("has neither an output size nor a scale")
            size = [oh, ow]
    if method == "nearest":
        mode = "nearest"
        if align_corners:
            ctm, nearest_mode = "align_corners", "round_prefer_ceil"
        else:
            ctm, nearest_mode = "asymmetric", "floor"
        attrs = dict(mode=mode, coordinate_transformation_mode=ctm, nearest_mode=nearest_mode)
    elif method == "bilinear":
        if align_corners:
            ctm = "align_corners"
        elif align_mode == 0:
            ctm = "half_pixel"
        else:
            ctm = "asymmetric"
        attrs = dict(mode="linear", coordinate_transformation_mode=ctm)
    else:
        raise _Unsupported(f"uses interp_method '{method}'")
    if scales is not None:
        # out = int(in * scale). Paddle's v2 kernels then map output index i to
        # i / scale, but Paddle Lite 2.10 (verified against its x86 build, v1 and
        # v2, nearest and bilinear) maps it to i * in / out, as for a given size:
        # so hand ONNX Resize the size, never the scales.
        out_hw = tuple(int(d * sc) if d >= 0 else -1 for d, sc in zip(in_hw, scales))
        if all(d >= 0 for d in in_hw):
            size = list(out_hw)
            scales = None
    if scales is not None:
        # unknown H/W: sizes = floor(in * scale), computed at run time
        shp = ctx.node1("Shape", [x], (4,), dtype=np.int64)
        hw = ctx.node1("Slice", [shp, ctx.iconst([2]), ctx.iconst([4])], (2,), dtype=np.int64)
        hwf = ctx.node1("Cast", [hw], (2,), dtype=np.float32, to=1)
        hwf = ctx.node1("Mul", [hwf, ctx.fconst(np.array(scales, np.float32), "scales")], (2,))
        hwf = ctx.node1("Floor", [hwf], (2,))
        hw = ctx.node1("Cast", [hwf], (2,), dtype=np.int64, to=7)
        nc = ctx.node1("Slice", [shp, ctx.iconst([0]), ctx.iconst([2])], (2,), dtype=np.int64)
        full = ctx.node1("Concat", [nc, hw], (4,), dtype=np.int64, axis=0)
        y = ctx.node1("Resize", [x, "", "", full], n_c + out_hw, **attrs)
    elif isinstance(size, list):
        out_hw = tuple(size)
        y = ctx.node1(
            "Resize",
            [
                x,
                "",
                "",
                ctx.iconst([n_c[0] if n_c[0] >= 0 else 1, n_c[1] if n_c[1] >= 0 else 1] + size),
            ],
            n_c + out_hw,
            **attrs,
        )
        if n_c[0] < 0 or n_c[1] < 0:
            # sizes must cover N and C: build them from the input's shape
            ctx.nodes.pop()
            nc = ctx.node1(
                "Slice",
                [
                    ctx.node1("Shape", [x], (len(s) if s else 4,), dtype=np.int64),
                    ctx.iconst([0]),
                    ctx.iconst([2]),
                ],
                (2,),
                dtype=np.int64,
            )
            full = ctx.node1("Concat", [nc, ctx.iconst(size)], (4,), dtype=np.int64, axis=0)
            y = ctx.node1("Resize", [x, "", "", full], n_c + out_hw, **attrs)
    else:
        nc = ctx.node1(
            "Slice",
            [ctx.node1("Shape", [x], (4,), dtype=np.int64), ctx.iconst([0]), ctx.iconst([2])],
            (2,),
            dtype=np.int64,
        )
        full = ctx.node1("Concat", [nc, size], (4,), dtype=np.int64, axis=0)
        y = ctx.node1("Resize", [x, "", "", full], n_c + (-1, -1), **attrs)
    ctx.out(op, "Out", y)


@_reg("pad")
def _pad(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    p = _ints(_a(op, "paddings", []))
    r = len(p) // 2
    pads = p[0::2] + p[1::2]
    value = float(_a(op, "pad_value", 0.0))
    shape = (
        tuple(d + p[2 * i] + p[2 * i + 1] if d >= 0 else -1 for i, d in enumerate(s))
        if s is not None and len(s) == r
        else None
    )
    ctx.out(
        op,
        "Out",
        ctx.node1("Pad", [x, ctx.iconst(pads), ctx.fconst(value)], shape, mode="constant"),
    )


@_reg("pad2d", "pad3d")
def _pad_nd(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    if s is None:
        raise _Unsupported("pads a tensor of unknown rank")
    pv = op.input("Paddings")
    if pv:
        c = ctx.const(pv)
        if c is None:
            raise _Unsupported("takes its paddings from a computed tensor")
        p = [int(v) for v in np.asarray(c).reshape(-1)]
    else:
        p = _ints(_a(op, "paddings", []))
    fmt = str(_a(op, "data_format", "NCHW" if op.type == "pad2d" else "NCDHW")).upper()
    if not fmt.startswith("NC"):
        raise _Unsupported(f"uses data_format {fmt}")
    mode = str(_a(op, "mode", "constant"))
    r = len(s)
    if op.type == "pad2d":  # [top, bottom, left, right]
        spatial = [(p[0], p[1]), (p[2], p[3])]
    else:  # pad3d: [left, right, top, bottom, front, back] (W, H, D)
        pairs = [(p[i], p[i + 1]) for i in range(0, len(p), 2)]
        spatial = list(reversed(pairs))
    spatial = spatial[-(r - 2) :]
    begins = [0, 0] + [a for a, _ in spatial]
    ends = [0, 0] + [b for _, b in spatial]
    onnx_mode = {
        "constant": "constant",
        "reflect": "reflect",
        "edge": "edge",
        "replicate": "edge",
    }.get(mode)
    if onnx_mode is None:
        raise _Unsupported(f"uses pad mode '{mode}'")
    shape = tuple(d + b + e if d >= 0 else -1 for d, b, e in zip(s, begins, ends))
    value = float(_a(op, "pad_value", _a(op, "value", 0.0)))
    ctx.out(
        op,
        "Out",
        ctx.node1("Pad", [x, ctx.iconst(begins + ends), ctx.fconst(value)], shape, mode=onnx_mode),
    )


@_reg("arg_max", "arg_min")
def _arg_max(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    axis = int(_a(op, "axis", -1))
    keep = bool(_a(op, "keepdims", False))
    if bool(_a(op, "flatten", False)):
        x = ctx.node1("Reshape", [x, ctx.iconst([-1])], (-1,))
        s, axis = (-1,), 0
    if s is None:
        raise _Unsupported("reduces a tensor of unknown rank")
    axis = axis + len(s) if axis < 0 else axis
    shape = (
        tuple(1 if i == axis else d for i, d in enumerate(s))
        if keep
        else tuple(d for i, d in enumerate(s) if i != axis)
    )
    y = ctx.node1(
        "ArgMax" if op.type == "arg_max" else "ArgMin",
        [x],
        shape,
        dtype=np.int64,
        axis=axis,
        keepdims=int(keep),
    )
    dt = int(_a(op, "dtype", 3))
    if dt == 2:
        y = ctx.node1("Cast", [y], shape, dtype=np.int32, to=6)
    ctx.out(op, "Out", y)


_CAST_TO = {
    0: (np.bool_, 9),
    2: (np.int32, 6),
    3: (np.int64, 7),
    4: (np.float16, 10),
    5: (np.float32, 1),
    6: (np.float64, 11),
    20: (np.uint8, 2),
    21: (np.int8, 3),
}


@_reg("cast")
def _cast(ctx: _Ctx, op: NbOp):
    xv = op.input("X")
    to = _CAST_TO.get(int(_a(op, "out_dtype", 5)))
    if to is None:
        raise _Unsupported(f"casts to dtype {_a(op, 'out_dtype')}")
    c = ctx.const(xv)
    if c is not None:
        ctx.set_const_out(op.output("Out"), np.asarray(c).astype(to[0]))
        return
    x = ctx.get(xv)
    ctx.out(op, "Out", ctx.node1("Cast", [x], ctx.shape(x), dtype=to[0], to=to[1]))


@_reg("shape")
def _shape_op(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("Input"))
    s = ctx.shape(x)
    if s is not None and all(d >= 0 for d in s):
        ctx.set_const_out(op.output("Out"), np.asarray(s, np.int32))
        return
    y = ctx.node1("Shape", [x], (len(s),) if s is not None else None, dtype=np.int64)
    ctx.out(op, "Out", ctx.node1("Cast", [y], ctx.shape(y), dtype=np.int32, to=6))


@_reg("sum")
def _sum(ctx: _Ctx, op: NbOp):
    xs = [ctx.get(v) for v in op.inputs.get("X") or []]
    shape = ctx.shape(xs[0]) if xs else None
    for x in xs[1:]:
        shape = _bcast(shape, ctx.shape(x))
    ctx.out(op, "Out", ctx.node1("Sum", xs, shape))


@_reg("reduce_mean", "reduce_sum", "reduce_max", "reduce_min", "reduce_prod")
def _reduce(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    s = ctx.shape(x)
    if s is None:
        raise _Unsupported("reduces a tensor of unknown rank")
    r = len(s)
    dims = _ints(_a(op, "dim", []))
    keep = bool(_a(op, "keep_dim", False))
    if bool(_a(op, "reduce_all", False)) or not dims:
        axes = list(range(r))
    else:
        axes = sorted({d + r if d < 0 else d for d in dims})
        if any(not 0 <= d < r for d in axes):
            raise _Unsupported(f"reduces dims {dims} of a rank-{r} tensor")
    shape = (
        tuple(1 if i in axes else d for i, d in enumerate(s))
        if keep
        else tuple(d for i, d in enumerate(s) if i not in axes)
    )
    onnx_op = {
        "mean": "ReduceMean",
        "sum": "ReduceSum",
        "max": "ReduceMax",
        "min": "ReduceMin",
        "prod": "ReduceProd",
    }[op.type[len("reduce_") :]]
    dt = ctx.dtype(x)
    if not axes:
        y = ctx.node1("Identity", [x], s, dtype=dt)
    elif onnx_op == "ReduceSum":  # opset 13+: axes is an input
        y = ctx.node1(onnx_op, [x, ctx.iconst(axes)], shape, dtype=dt, keepdims=int(keep))
    else:
        y = ctx.node1(onnx_op, [x], shape, dtype=dt, axes=axes, keepdims=int(keep))
    if not shape:  # Paddle Lite keeps a 1-element 1-D tensor
        y = ctx.node1("Reshape", [y, ctx.iconst([1])], (1,), dtype=dt)
    ctx.out(op, "Out", y)


@_reg("pow")
def _pow(ctx: _Ctx, op: NbOp):
    x = ctx.get(op.input("X"))
    ft = op.input("FactorTensor")
    if ft:
        c = ctx.const(ft)
        if c is None:
            raise _Unsupported("takes its factor from a computed tensor")
        factor = float(np.asarray(c).reshape(-1)[0])
    else:
        factor = float(_a(op, "factor", 1.0))
    ctx.out(op, "Out", ctx.node1("Pow", [x, ctx.fconst(factor)], ctx.shape(x)))


@_reg("stack")
def _stack(ctx: _Ctx, op: NbOp):
    xs = [ctx.get(v) for v in op.inputs.get("X") or []]
    if not xs:
        raise _Unsupported("has no inputs")
    s = ctx.shape(xs[0])
    if s is None:
        raise _Unsupported("stacks tensors of unknown rank")
    axis = int(_a(op, "axis", 0))
    axis = axis + len(s) + 1 if axis < 0 else axis
    if not 0 <= axis <= len(s):
        raise _Unsupported(f"stacks along axis {_a(op, 'axis', 0)}")
    us = tuple(s[:axis]) + (1,) + tuple(s[axis:])
    parts = [ctx.node1("Unsqueeze", [x, ctx.iconst([axis])], us, dtype=ctx.dtype(x)) for x in xs]
    out = tuple(s[:axis]) + (len(xs),) + tuple(s[axis:])
    ctx.out(op, "Y", ctx.node1("Concat", parts, out, dtype=ctx.dtype(xs[0]), axis=axis))


@_reg("rnn")
def _rnn(ctx: _Ctx, op: NbOp):
    """Paddle's ``rnn`` op in LSTM mode (PP-OCR rec v2's BiLSTM).

    Input is time-major [T, N, I]. WeightList holds, per layer and direction,
    weight_ih [4H, I] and weight_hh [4H, H] first, then all the biases
    (b_ih, b_hh) in the same order. Paddle's gate order is (i, f, c, o);
    ONNX's is (i, o, f, c)."""
    mode = str(_a(op, "mode", "LSTM"))
    if mode != "LSTM":
        raise _Unsupported(f"uses rnn mode '{mode}' (only LSTM is translated)")
    if op.inputs.get("SequenceLength"):
        if any(ctx.has(v) for v in op.inputs["SequenceLength"]):
            raise _Unsupported("uses SequenceLength")
    x = ctx.get(op.input("Input"))
    s = ctx.shape(x)
    bidi = bool(_a(op, "is_bidirec", False))
    layers = int(_a(op, "num_layers", 1))
    hidden = int(_a(op, "hidden_size", 0))
    ndir = 2 if bidi else 1
    wl = op.inputs.get("WeightList") or []
    if len(wl) != 4 * layers * ndir:
        raise _Unsupported(f"has {len(wl)} weights for {layers} layers x {ndir} directions")
    ws = [ctx.const(v) for v in wl]
    if any(w is None for w in ws):
        raise _Unsupported("has computed weights")
    half = 2 * layers * ndir
    pre = op.inputs.get("PreState") or []
    init_h = init_c = None
    if len(pre) == 2:
        init_h, init_c = ctx.get(pre[0]), ctx.get(pre[1])

    def reorder(w):  # (i, f, c, o) -> (i, o, f, c)
        i, f, c, o = np.split(np.asarray(w, np.float32), 4, axis=0)
        return np.concatenate([i, o, f, c], axis=0)

    y = x
    t_n = (s[0], s[1]) if s is not None and len(s) == 3 else (-1, -1)
    for layer in range(layers):
        W, R, B = [], [], []
        for d in range(ndir):
            k = layer * ndir + d
            W.append(reorder(ws[2 * k]))
            R.append(reorder(ws[2 * k + 1]))
            B.append(
                np.concatenate(
                    [
                        reorder(ws[half + 2 * k]).reshape(-1),
                        reorder(ws[half + 2 * k + 1]).reshape(-1),
                    ]
                )
            )
        ins = [
            y,
            ctx.fconst(np.stack(W), "lstm_w"),
            ctx.fconst(np.stack(R), "lstm_r"),
            ctx.fconst(np.stack(B), "lstm_b"),
            "",
        ]
        if init_h is not None:
            sl = [ctx.iconst([layer * ndir]), ctx.iconst([(layer + 1) * ndir]), ctx.iconst([0])]
            ins += [
                ctx.node1("Slice", [init_h] + sl, (ndir, t_n[1], hidden)),
                ctx.node1("Slice", [init_c] + sl, (ndir, t_n[1], hidden)),
            ]
        outs = ctx.node(
            "LSTM",
            ins,
            1,
            shape=t_n[:1] + (ndir, t_n[1], hidden),
            hidden_size=hidden,
            direction="bidirectional" if bidi else "forward",
        )
        # [T, D, N, H] -> [T, N, D*H]
        y = ctx.node1("Transpose", [outs[0]], (t_n[0], t_n[1], ndir, hidden), perm=[0, 2, 1, 3])
        y = ctx.node1(
            "Reshape", [y, ctx.iconst([0, 0, ndir * hidden])], (t_n[0], t_n[1], ndir * hidden)
        )
    ctx.out(op, "Out", y)


# ---------------------------------------------------------------------------


def _guess_role(shape: Shape) -> str:
    if shape is None:
        return "unknown"
    if len(shape) == 4 and shape[1] == 1:
        return "det"
    if len(shape) == 2 and shape[1] in (2, -1):
        return "cls"
    if len(shape) == 3:
        return "rec"
    return "unknown"


def _check_kernel(prog: NbProgram, op: NbOp, target_check: bool):
    k = op.kernel
    if k is None:
        if target_check and op.kernel_key:
            raise NbFormatError(
                f"{prog.source}: {op.describe()} has a malformed kernel key; the file is "
                f"corrupted or was not written by Paddle Lite's opt"
            )
        return
    _, _, target, precision, _ = k
    if not target_check:
        return
    if target not in HONOURED_TARGETS:
        raise NbFormatError(
            f"{prog.source}: {op.describe()} runs on target '{target}', which edgeocr cannot "
            f"honour. Re-export the model with paddle_lite_opt --valid_targets=arm (or x86), "
            f"or pass target_check=False to translate it anyway"
        )
    if precision not in HONOURED_PRECISIONS:
        raise NbFormatError(
            f"{prog.source}: {op.describe()} uses a '{precision}' kernel (a fully quantised or "
            f"half-precision model); edgeocr translates fp32 and weight-only int8 models. "
            f"Export the float model (or weight-only int8: --quant_model=true "
            f"--quant_type=QUANT_INT8) with paddle_lite_opt"
        )


def _translate(prog: NbProgram, target_check: bool):
    onnx, TensorProto, helper, numpy_helper = _onnx()
    targets = prog.targets
    if target_check and len(targets) > 1:
        raise NbFormatError(
            f"{prog.source}: the file mixes kernels for targets {targets}; edgeocr translates "
            f"files made for one target (--valid_targets=arm or x86)"
        )
    ctx = _Ctx(prog)
    with np.errstate(all="ignore"):  # corrupted constants must not warn (or raise)
        _run_handlers(prog, ctx, target_check)
    return _finish(prog, ctx)


def _run_handlers(prog: NbProgram, ctx: _Ctx, target_check: bool):
    for op in prog.ops:
        _check_kernel(prog, op, target_check)
        fn = _HANDLERS.get(op.type)
        if fn is None:
            raise NbFormatError(
                f"{prog.source}: {op.describe()} is not supported by edgeocr's .nb translator. "
                f"Export the source model to ONNX instead (paddle2onnx) and use the .onnx "
                f"file, or report the op type to the edgeocr developers"
            )
        ctx.op = op
        try:
            fn(ctx, op)
        except _Unsupported as e:
            raise NbFormatError(
                f"{prog.source}: {op.describe()} {e}. edgeocr cannot translate this op; "
                f"export the source model to ONNX (paddle2onnx) instead"
            ) from None
        except NbFormatError:
            raise
        except (
            KeyError,
            IndexError,
            ValueError,
            TypeError,
            ZeroDivisionError,
            OverflowError,
            AttributeError,
            MemoryError,
            RecursionError,
        ) as e:
            raise NbFormatError(
                f"{prog.source}: {op.describe()} has attributes or inputs edgeocr cannot "
                f"make sense of ({type(e).__name__}: {e}); the file is corrupted or uses a "
                f"form of the op edgeocr does not know"
            ) from None


def _finish(prog: NbProgram, ctx: _Ctx):
    onnx, TensorProto, helper, numpy_helper = _onnx()
    if not ctx.inputs:
        raise NbFormatError(f"{prog.source}: the program has no feed op, so no input")
    if not ctx.outputs:
        raise NbFormatError(f"{prog.source}: the program has no fetch op, so no output")

    def vinfo(name, shape, dt, prefix):
        dims = None
        if shape is not None:
            dims = [d if d >= 0 else f"{prefix}{i}" for i, d in enumerate(shape)]
        return helper.make_tensor_value_info(name, _ONNX_DT[np.dtype(dt)], dims)

    inputs = []
    for _col, name, shape, dt in sorted(ctx.inputs):
        dims = None
        if shape is not None:
            sym = ["N", "C", "H", "W"] if len(shape) == 4 else [f"d{i}" for i in range(len(shape))]
            dims = [d if d >= 0 else sym[i] for i, d in enumerate(shape)]
        inputs.append(helper.make_tensor_value_info(name, _ONNX_DT[np.dtype(dt)], dims))
    outputs = []
    out_shapes = []
    seen = set()
    for col, name in sorted(ctx.outputs):
        if name in seen or name in ctx.inits or any(name == i[1] for i in ctx.inputs):
            # an ONNX graph output must be produced by a node of its own
            new = ctx.node1("Identity", [name], ctx.shape(name), dtype=ctx.dtype(name))
            name = new
        seen.add(name)
        shape = ctx.shape(name)
        out_shapes.append(shape)
        dims = None
        if shape is not None:
            sym = {0: "N", 2: "H", 3: "W"} if len(shape) == 4 else {0: "N"}
            dims = [d if d >= 0 else sym.get(i, f"out{col}_d{i}") for i, d in enumerate(shape)]
        outputs.append(helper.make_tensor_value_info(name, _ONNX_DT[ctx.dtype(name)], dims))
    # constants folded away (e.g. weights reshaped at translation time) are dropped
    used = {i for n in ctx.nodes for i in n.input}
    used.update(o.name for o in outputs)
    inits = [
        numpy_helper.from_array(np.ascontiguousarray(a), n)
        for n, a in ctx.inits.items()
        if n in used
    ]
    graph = helper.make_graph(ctx.nodes, "paddle_lite_nb", inputs, outputs, initializer=inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="edgeocr.paddle_lite",
        producer_version=prog.producer or "",
    )
    model.ir_version = IR_VERSION
    target = prog.target
    meta = {
        "edgeocr.source": "paddle_lite_nb",
        "edgeocr.nb_target": target,
        "edgeocr.role": _guess_role(out_shapes[0] if out_shapes else None),
        "edgeocr.nb_meta_version": str(prog.meta_version),
        "edgeocr.nb_producer": prog.producer or "",
    }
    if prog.sha256:
        meta["edgeocr.nb_sha256"] = prog.sha256
    if prog.framework_version:
        meta["edgeocr.paddle_version"] = str(prog.framework_version)
    onnx.helper.set_model_props(model, meta)
    return model


def nb_to_onnx(
    path_or_bytes: str | os.PathLike | bytes | NbProgram, *, target_check: bool = True
) -> bytes:
    """Translate a Paddle Lite ``.nb`` model into a serialized ONNX ModelProto.

    ``path_or_bytes`` is a path, the file's bytes, or an already parsed
    :class:`NbProgram`. With ``target_check`` (the default) a file whose
    kernels run on a target or precision edgeocr cannot reproduce (OpenCL, NPU,
    full int8, fp16...) is refused; ``target_check=False`` translates it with
    float semantics anyway.

    The model has opset 17 and metadata ``edgeocr.source = "paddle_lite_nb"``,
    ``edgeocr.nb_target`` (x86 / arm) and ``edgeocr.role`` (det / cls / rec,
    guessed from the output's shape).
    """
    prog = path_or_bytes if isinstance(path_or_bytes, NbProgram) else read_nb(path_or_bytes)
    model = _translate(prog, target_check)
    return model.SerializeToString()


def supported_ops() -> list[str]:
    """The Paddle Lite op types the translator knows, sorted."""
    return sorted(_HANDLERS)
