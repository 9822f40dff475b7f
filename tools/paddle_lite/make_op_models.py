"""Build tiny Paddle inference models that each exercise one (or a few) of the
ops that the PP-OCR fixtures lack, so that edgeocr's translation of them can be
checked against real Paddle Lite.

Runs inside the Paddle Lite root (paddlepaddle 2.6, static graph).
usage: make_op_models.py OUTDIR [NAME...]

For each case NAME it writes
  OUTDIR/paddle/NAME/inference_model/model.pdmodel (+ model.pdiparams)
  OUTDIR/ref/NAME_inputs.npz   inputs in feed order: in0, in1, ...
  OUTDIR/ref/NAME_paddle.npz   Paddle's own outputs (fetch order: out0, ...)
and OUTDIR/op_cases.txt, the names of the cases that built.
Ops that Paddle 2.6 no longer builds (legacy v1 ops: nearest_interp,
flatten2, ...) are made by building the v2 op and rewriting the saved
ProgramDesc (``LEGACY`` below); their Paddle output is that of the v2 op.
"""

import os
import sys

import numpy as np
import paddle
import paddle.nn.functional as F
from paddle.base import proto
from paddle.base.layer_helper import LayerHelper

paddle.enable_static()
RNG = np.random.default_rng(20240601)


def _u(shape, lo=-4.0, hi=4.0):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


def _param(name, arr):
    p = paddle.static.create_parameter(
        shape=list(arr.shape),
        dtype="float32",
        name=name,
        default_initializer=paddle.nn.initializer.Assign(arr),
    )
    p.stop_gradient = True
    return p


def _legacy(op_type, inputs, attrs, out_dtype="float32", extra_outs=()):
    """Append a (legacy) op directly; return its Out variable."""
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(out_dtype)
    outs = {"Out": out}
    for slot in extra_outs:
        outs[slot] = helper.create_variable_for_type_inference(out_dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs)
    return out


# ---- the cases: name -> (input shapes, build(*inputs) -> outputs, input maker)
CASES = {}


def case(name, shapes, lo=-4.0, hi=4.0):
    def deco(fn):
        CASES[name] = (shapes, fn, (lo, hi))
        return fn

    return deco


@case("hard_swish", [[1, 3, 8, 8]], -6, 6)
def _(x):
    return [F.hardswish(x)]


@case("relu6", [[1, 3, 8, 8]], -3, 9)
def _(x):
    return [F.relu6(x)]


@case("swish", [[1, 3, 8, 8]], -6, 6)
def _(x):
    return [F.swish(x)]


@case("leaky_relu", [[1, 3, 8, 8]])
def _(x):
    return [F.leaky_relu(x, negative_slope=0.1)]


@case("hard_sigmoid", [[1, 3, 8, 8]], -5, 5)
def _(x):
    return [F.hardsigmoid(x, slope=0.2, offset=0.5)]


@case("act_chain", [[1, 4, 6, 6]], -6, 6)
def _(x):
    # a conv followed by each activation: lets opt fuse them into conv2d (act_type)
    outs = []
    for i, act in enumerate(
        [
            F.hardswish,
            F.relu6,
            lambda t: F.leaky_relu(t, 0.1),
            lambda t: F.hardsigmoid(t, 0.2, 0.5),
            F.swish,
        ]
    ):
        w = _param(f"w{i}", RNG.standard_normal((4, 4, 3, 3)).astype(np.float32) * 0.3)
        b = _param(f"b{i}", RNG.standard_normal((4,)).astype(np.float32) * 0.3)
        outs.append(act(F.conv2d(x, w, b, padding=1)))
    return outs


@case("conv_bn_act", [[1, 4, 6, 6]], -2, 2)
def _(x):
    # PP-OCR's pattern: conv (no bias) + batch_norm + activation, which opt folds
    # and fuses into conv2d / depthwise_conv2d with act_type
    outs = []
    acts = [
        ("relu6", F.relu6),
        ("hard_swish", F.hardswish),
        ("leaky_relu", lambda t: F.leaky_relu(t, 0.1)),
        ("relu", F.relu),
        ("dw_hard_swish", F.hardswish),
        ("dw_relu6", F.relu6),
    ]
    for name, act in acts:
        groups = 4 if name.startswith("dw_") else 1
        conv = paddle.nn.Conv2D(4, 4, 3, padding=1, groups=groups, bias_attr=False)
        bn = paddle.nn.BatchNorm2D(4)
        outs.append(act(bn(conv(x))))
    return outs


@case("eltwise_act", [[1, 3, 4, 5], [1, 3, 4, 5]])
def _(x, y):
    # elementwise op + activation: opt fuses them (fusion_elementwise_*_activation)
    return [F.relu(x + y), F.relu(x - y), F.relu(x * y), F.relu6(x + y), F.hardswish(x + y)]


@case("bilinear_v2", [[1, 2, 5, 7]])
def _(x):
    return [
        F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False, align_mode=0),
        F.interpolate(x, size=[9, 4], mode="bilinear", align_corners=False, align_mode=0),
        F.interpolate(x, size=[8, 11], mode="bilinear", align_corners=True),
        F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False, align_mode=1),
        F.interpolate(x, scale_factor=1.7, mode="bilinear", align_corners=False, align_mode=0),
    ]


@case("nearest_v2", [[1, 2, 5, 7]])
def _(x):
    return [
        F.interpolate(x, scale_factor=2, mode="nearest"),
        F.interpolate(x, size=[9, 4], mode="nearest"),
        F.interpolate(x, scale_factor=1.5, mode="nearest"),
        F.interpolate(x, scale_factor=1.7, mode="nearest"),
    ]


@case("nearest_ac", [[1, 2, 5, 7]])
def _(x):
    # Paddle 2.6 refuses align_corners for nearest: set it in the ProgramDesc (LEGACY),
    # so Paddle's own output (without it) is not a reference here
    return [
        F.interpolate(x, size=[8, 11], mode="nearest"),
        F.interpolate(x, scale_factor=1.7, mode="nearest"),
    ]


@case("nearest_v1_ac", [[1, 2, 5, 7]])
def _(x):
    # the v1 op as fluid's resize_nearest wrote it (align_corners defaulted to True)
    return [
        F.interpolate(x, size=[8, 11], mode="nearest"),
        F.interpolate(x, scale_factor=2, mode="nearest"),
    ]


@case("nearest_v1", [[1, 2, 5, 7]])
def _(x):
    # built as nearest_interp_v2, rewritten to the v1 op (LEGACY)
    return [
        F.interpolate(x, scale_factor=2, mode="nearest"),
        F.interpolate(x, size=[9, 4], mode="nearest"),
        F.interpolate(x, scale_factor=1.7, mode="nearest"),
    ]


@case("bilinear_v1", [[1, 2, 5, 7]])
def _(x):
    return [
        F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False, align_mode=1),
        F.interpolate(x, size=[8, 11], mode="bilinear", align_corners=True),
        F.interpolate(x, scale_factor=1.7, mode="bilinear", align_corners=False, align_mode=0),
    ]


@case("eltwise_axis", [[2, 3, 4, 5], [3, 4]])
def _(x, y):
    c = _param("c_axis1", _u((3,)))
    r = _param("r_axis0", _u((2, 3)))
    a = _legacy("elementwise_add", {"X": x, "Y": c}, {"axis": 1})
    m = _legacy("elementwise_mul", {"X": x, "Y": y}, {"axis": 1})
    s = _legacy("elementwise_sub", {"X": x, "Y": r}, {"axis": 0})
    d = _legacy("elementwise_div", {"X": x, "Y": _param("d_axis2", _u((4, 5), 1, 3))}, {"axis": 2})
    mx = _legacy("elementwise_max", {"X": x, "Y": _param("mx_axis1", _u((3, 4)))}, {"axis": 1})
    return [a, m, s, d, mx]


@case("flatten", [[2, 3, 4, 5]])
def _(x):
    return [
        paddle.flatten(x, 1, 2),
        paddle.flatten(x, 0, -1),
        _legacy("flatten2", {"X": x}, {"axis": 2}, extra_outs=("XShape",)),
    ]


@case("flatten_v1", [[2, 3, 4, 5]])
def _(x):
    # built as flatten2, rewritten to the v1 flatten op (LEGACY): Paddle 2.6 lacks it
    return [
        _legacy("flatten2", {"X": x}, {"axis": 1}, extra_outs=("XShape",)),
        _legacy("flatten2", {"X": x}, {"axis": 3}, extra_outs=("XShape",)),
    ]


@case("unsqueeze2", [[3, 4]])
def _(x):
    return [paddle.unsqueeze(x, [0, 2]), paddle.unsqueeze(x, [-1]), paddle.unsqueeze(x, [1, -1])]


@case("split", [[2, 9, 3, 4]])
def _(x):
    # (a section of -1, paddle.split(x, [2, 3, -1]), makes Lite 2.10 x86 abort in
    # run(), malloc of 2^64-96 bytes: not tested)
    return list(paddle.split(x, [2, 3, 4], axis=1)) + list(paddle.split(x, 3, axis=1))


@case("split_neg_axis", [[2, 9, 3, 4]])
def _(x):
    return list(paddle.split(x, 2, axis=-1))


@case("slice", [[3, 8, 6, 5]])
def _(x):
    # (a negative stride, x[:, ::-2], makes Lite 2.10's strided_slice abort: not tested)
    return [x[:, 1:5, :, 2:-1], x[1, 2:], x[:, -3:, 0], x[0:2, :, 1:4:2], x[:, 1:7:3, ::2]]


@case("pad", [[1, 2, 4, 5]])
def _(x):
    # (the generic v1 ``pad`` op has no x86 kernel in Lite 2.10: not tested here)
    return [
        F.pad(x, [1, 2, 0, 3], mode="constant", value=-1.0),  # pad3d
        F.pad(x, [2, 1, 1, 2], mode="reflect"),
        F.pad(x, [1, 3, 2, 0], mode="replicate"),
    ]


@case("pad2d", [[1, 2, 4, 5]])
def _(x):
    # built as pad3d, rewritten to the v1 pad2d op (LEGACY)
    return [
        F.pad(x, [1, 2, 0, 3], mode="constant", value=0.25),
        F.pad(x, [2, 1, 1, 2], mode="reflect"),
        F.pad(x, [1, 3, 2, 0], mode="replicate"),
    ]


@case("arg_max", [[2, 5, 7]])
def _(x):
    return [
        paddle.argmax(x, axis=1),
        paddle.argmax(x, axis=-1, keepdim=True),
        paddle.argmax(x, axis=2, dtype="int32"),
    ]


@case("lstm", [[1, 10, 8]], -1, 1)
def _(x):
    # PP-OCR rec v2's neck: a 2-layer bidirectional LSTM, batch-first
    paddle.seed(7)
    lstm = paddle.nn.LSTM(8, 6, num_layers=2, direction="bidirectional")
    y, _ = lstm(x)
    return [y]


@case("lstm_fw", [[2, 7, 5]], -1, 1)
def _(x):
    paddle.seed(11)
    lstm = paddle.nn.LSTM(5, 4, num_layers=1, direction="forward", time_major=False)
    y, (h, c) = lstm(x)
    return [y]


@case("reduce_mean", [[1, 4, 5, 6]])
def _(x):
    # PP-OCRv6 det (and v4/v6 rec after their layer norms are split) use reduce_mean
    return [
        paddle.mean(x, axis=1, keepdim=True),
        paddle.mean(x, axis=[2, 3]),
        paddle.mean(x, axis=-1, keepdim=True),
    ]


@case("reduce_ops", [[2, 3, 4, 5]])
def _(x):
    return [
        paddle.sum(x, axis=-1),
        paddle.max(x, axis=1, keepdim=True),
        paddle.min(x, axis=[1, 2]),
        paddle.sum(x, axis=[0, 2], keepdim=True),
    ]


@case("gelu", [[1, 3, 8, 8]], -5, 5)
def _(x):
    return [F.gelu(x), F.gelu(x, approximate=True)]


@case("erf", [[1, 3, 8, 8]], -3, 3)
def _(x):
    # x2paddle turns ONNX's Erf (an exported gelu) into erf
    return [paddle.erf(x)]


@case("pow_sqrt", [[1, 3, 4, 5]], 0.1, 4)
def _(x):
    # a layer norm spelled out: pow, sqrt, reduce_mean, elementwise_sub/div
    mu = paddle.mean(x, axis=-1, keepdim=True)
    d = x - mu
    var = paddle.mean(paddle.pow(d, 2.0), axis=-1, keepdim=True)
    return [paddle.pow(x, 2.0), paddle.sqrt(x), d / paddle.sqrt(var + 1e-5)]


@case("unary_misc", [[1, 3, 4, 5]], -3, 3)
def _(x):
    return [paddle.tanh(x), paddle.exp(x), paddle.abs(x), F.sigmoid(x)]


@case("stack", [[2, 3, 4], [2, 3, 4]])
def _(x, y):
    return [paddle.stack([x, y], axis=1), paddle.stack([x, y], axis=-1)]


@case("attention", [[1, 6, 8]], -1, 1)
def _(x):
    # an SVTR mixing block (PP-OCRv3..v6 rec necks): layer norm, linear, multi-head
    # attention (reshape, transpose, matmul, softmax), gelu MLP, residuals
    paddle.seed(3)
    ln1, ln2 = paddle.nn.LayerNorm(8), paddle.nn.LayerNorm(8)
    qkv, proj = paddle.nn.Linear(8, 24), paddle.nn.Linear(8, 8)
    fc1, fc2 = paddle.nn.Linear(8, 16), paddle.nn.Linear(16, 8)
    t = qkv(ln1(x)).reshape([0, -1, 3, 2, 4]).transpose([2, 0, 3, 1, 4])
    q, k, v = t[0] * 0.5, t[1], t[2]
    a = F.softmax(paddle.matmul(q, k.transpose([0, 1, 3, 2])), axis=-1)
    h = x + proj(paddle.matmul(a, v).transpose([0, 2, 1, 3]).reshape([0, -1, 8]))
    return [h + fc2(F.gelu(fc1(ln2(h))))]


# ---- ProgramDesc rewrites for legacy (v1) ops -------------------------------


def _attr(op, name):
    return next((a for a in op.attrs if a.name == name), None)


def _set_attr(op, name, kind, value):
    fw = proto.framework_pb2
    a = _attr(op, name)
    if a is None:
        a = op.attrs.add()
        a.name = name
    a.type = getattr(fw.AttrType, kind)
    if kind == "FLOAT":
        a.f = value
    elif kind == "INT":
        a.i = value
    elif kind == "STRING":
        a.s = value
    elif kind == "INTS":
        del a.ints[:]
        a.ints.extend(value)
    elif kind == "BOOLEAN":
        a.b = value


def _drop_attr(op, name):
    keep = [a for a in op.attrs if a.name != name]
    del op.attrs[:]
    op.attrs.extend(keep)


def _to_interp_v1(op, block):
    """X_interp_v2 -> X_interp: scale becomes a float; v1 has no out_d."""
    op.type = op.type[:-3]
    sc = _attr(op, "scale")
    s = float(sc.floats[0]) if sc is not None and len(sc.floats) else -1.0
    _drop_attr(op, "scale")
    _set_attr(op, "scale", "FLOAT", s)
    # v1 reads out_h / out_w when no scale is given; keep them as built


def _to_pad2d(op, block):
    """unsqueeze2 -> pad3d -> squeeze2 (F.pad of a 4-D input) -> pad2d on the 4-D
    tensor: paddings [l, r, t, b, 0, 0] -> [t, b, l, r]."""
    x = next(i for i in op.inputs if i.parameter == "X")
    y = next(o for o in op.outputs if o.parameter == "Out")
    iu, unsq = next(
        (i, o)
        for i, o in enumerate(block.ops)
        if o.type == "unsqueeze2"
        and any(a.parameter == "Out" and a.arguments[0] == x.arguments[0] for a in o.outputs)
    )
    isq, sq = next(
        (i, o)
        for i, o in enumerate(block.ops)
        if o.type == "squeeze2"
        and any(a.parameter == "X" and a.arguments[0] == y.arguments[0] for a in o.inputs)
    )
    x.arguments[0] = next(a for a in unsq.inputs if a.parameter == "X").arguments[0]
    y.arguments[0] = next(a for a in sq.outputs if a.parameter == "Out").arguments[0]
    _DROP.extend([iu, isq])
    p = list(_attr(op, "paddings").ints)
    mode = _attr(op, "mode").s
    value = _attr(op, "value").f
    op.type = "pad2d"
    for n in ("paddings", "value", "data_format", "mode"):
        _drop_attr(op, n)
    _set_attr(op, "paddings", "INTS", [p[2], p[3], p[0], p[1]])
    _set_attr(op, "mode", "STRING", mode if mode != "replicate" else "edge")
    _set_attr(op, "pad_value", "FLOAT", value)
    _set_attr(op, "data_format", "STRING", "NCHW")


def _to_flatten_v1(op, block):
    """flatten2 -> flatten: the same attribute, no XShape output."""
    op.type = "flatten"
    keep = [o for o in op.outputs if o.parameter != "XShape"]
    del op.outputs[:]
    op.outputs.extend(keep)


def _align_corners(op, block):
    _set_attr(op, "align_corners", "BOOLEAN", True)


def _to_interp_v1_ac(op, block):
    _to_interp_v1(op, block)
    _align_corners(op, block)


LEGACY = {
    "nearest_ac": {"nearest_interp_v2": _align_corners},
    "nearest_v1_ac": {"nearest_interp_v2": _to_interp_v1_ac},
    "flatten_v1": {"flatten2": _to_flatten_v1},
    "nearest_v1": {"nearest_interp_v2": _to_interp_v1},
    "bilinear_v1": {"bilinear_interp_v2": _to_interp_v1},
    "pad2d": {"pad3d": _to_pad2d},
}


_DROP = []  # indices of ops a rule made dead, removed after the pass


def rewrite(path, rules):
    fw = proto.framework_pb2
    prog = fw.ProgramDesc()
    with open(path, "rb") as f:
        prog.ParseFromString(f.read())
    n = 0
    for block in prog.blocks:
        for op in block.ops:
            fn = rules.get(op.type)
            if fn:
                fn(op, block)
                n += 1
        if _DROP:
            keep = []
            for i, o in enumerate(block.ops):
                if i not in _DROP:
                    c = proto.framework_pb2.OpDesc()
                    c.CopyFrom(o)
                    keep.append(c)
            del block.ops[:]
            block.ops.extend(keep)
            _DROP.clear()
    with open(path, "wb") as f:
        f.write(prog.SerializeToString())
    print(f"{path}: {n} ops rewritten to legacy form")


def _randomize_batch_norm(prog):
    """batch_norm starts as the identity (scale 1, bias 0, mean 0, var 1): give
    it statistics so that folding it into the conv is actually tested."""
    scope = paddle.static.global_scope()
    for v in prog.list_vars():
        if not v.persistable or "batch_norm" not in v.name:
            continue
        t = scope.find_var(v.name)
        if t is None:
            continue
        shape = tuple(v.shape)
        if v.name.endswith((".w_0", ".w_2")):  # scale, variance
            arr = RNG.uniform(0.5, 1.5, shape)
        else:  # bias (.b_0), mean (.w_1)
            arr = RNG.standard_normal(shape) * 0.3
        t.get_tensor().set(arr.astype(np.float32), paddle.CPUPlace())


def build(out_dir, name):
    shapes, fn, (lo, hi) = CASES[name]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xs = [paddle.static.data(f"x{i}" if i else "x", s, "float32") for i, s in enumerate(shapes)]
        ys = fn(*xs)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    _randomize_batch_norm(main)
    feeds = {v.name: _u(s, lo, hi) for v, s in zip(xs, shapes)}
    test_prog = main.clone(for_test=True)
    outs = exe.run(test_prog, feed=feeds, fetch_list=ys)
    d = os.path.join(out_dir, "paddle", name, "inference_model")
    os.makedirs(d, exist_ok=True)
    prefix = os.path.join(d, "model")
    paddle.static.save_inference_model(prefix, xs, ys, exe, program=main)
    if not os.path.exists(prefix + ".pdiparams"):
        open(prefix + ".pdiparams", "wb").close()  # no weights: an empty params file
    if name in LEGACY:
        rewrite(prefix + ".pdmodel", LEGACY[name])
    os.makedirs(os.path.join(out_dir, "ref"), exist_ok=True)
    np.savez(
        os.path.join(out_dir, "ref", f"{name}_inputs.npz"),
        **{f"in{i}": feeds[v.name] for i, v in enumerate(xs)},
    )
    np.savez(
        os.path.join(out_dir, "ref", f"{name}_paddle.npz"),
        **{f"out{i}": np.asarray(o) for i, o in enumerate(outs)},
    )
    print(
        f"{name}: inputs {[list(s) for s in shapes]} -> {len(outs)} outputs "
        f"{[list(np.shape(o)) for o in outs]}"
    )


if __name__ == "__main__":
    out_dir = sys.argv[1]
    names = sys.argv[2:] or list(CASES)
    failed, built = [], []
    for n in names:
        try:
            build(out_dir, n)
            built.append(n)
        except Exception as e:  # noqa: BLE001 - report and go on with the others
            failed.append(n)
            print(f"{n}: FAILED {type(e).__name__}: {e}", file=sys.stderr)
    with open(os.path.join(out_dir, "op_cases.txt"), "w") as f:
        f.write(" ".join(built) + "\n")
    if failed:
        print("failed cases: " + " ".join(failed), file=sys.stderr)
        sys.exit(1)
