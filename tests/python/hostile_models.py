"""Small generated ONNX models that lie about or break what the pipeline needs.

Each case is (name, role, builder, expected): the builder returns an
onnx.ModelProto for that role; `expected` is "result" (the pipeline must
give a result), "ModelError" (refused naming the model, before any read past
a tensor) or "error" (any edgeocr.EdgeOCRError: e.g. the runtime cannot
allocate what the model asks for). Used by test_hostile.py; models are made
in a temporary folder on each run (nothing committed).

Rec models read the 10-character dictionary KEYS: 12 classes (blank, the
digits, space).
"""

from __future__ import annotations

import numpy as np

KEYS = list("0123456789")
REC_CLASSES = len(KEYS) + 2

_OPSET = 13
_IR = 7  # readable by every ONNX Runtime edgeocr supports (>= 1.20)


def _h():
    import onnx.helper as h

    return h


def _const(name, values, dtype=np.int64):
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def _model(nodes, in_shape, out_shape, inits=(), out_type=None):
    import onnx
    from onnx import TensorProto

    h = _h()
    g = h.make_graph(
        nodes,
        "hostile",
        [h.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [h.make_tensor_value_info("y", out_type or TensorProto.FLOAT, out_shape)],
        initializer=list(inits),
    )
    m = h.make_model(g, opset_imports=[h.make_opsetid("", _OPSET)], producer_name="edgeocr-hostile")
    m.ir_version = _IR
    onnx.checker.check_model(m)
    return m


def _slice(inp, out, axis, start, end, tag):
    """Slice `inp` along one axis (constants named after `tag`)."""
    h = _h()
    inits = [_const(f"{tag}_s", [start]), _const(f"{tag}_e", [end]), _const(f"{tag}_a", [axis])]
    return h.make_node("Slice", [inp, f"{tag}_s", f"{tag}_e", f"{tag}_a"], [out]), inits


# ---- det: x [n, 3, h, w] -> y [n, 1, h, w] ---------------------------------


def _det(post=None, out_shape=("n", 1, "h", "w"), in_shape=("n", 3, "h", "w"), out_type=None):
    """A det 'model': sigmoid of channel 0, then `post(nodes, inits, name) -> name`."""
    h = _h()
    n0, i0 = _slice("x", "c0", 1, 0, 1, "ch")
    nodes, inits = [n0, h.make_node("Sigmoid", ["c0"], ["p"])], list(i0)
    last = post(nodes, inits, "p") if post else "p"
    nodes.append(h.make_node("Identity", [last], ["y"]))
    return _model(nodes, list(in_shape), list(out_shape), inits, out_type)


def _det_slice(axis, start, end):
    def post(nodes, inits, name):
        n, i = _slice(name, "cut", axis, start, end, "cut")
        nodes.append(n)
        inits += i
        return "cut"

    return post


def _det_concat_batch(nodes, inits, name):
    nodes.append(_h().make_node("Concat", [name, name], ["two"], axis=0))
    return "two"


def _det_maxpool(nodes, inits, name):
    nodes.append(_h().make_node("MaxPool", [name], ["small"], kernel_shape=[4, 4], strides=[4, 4]))
    return "small"


def _det_nan(nodes, inits, name):
    h = _h()
    nodes += [h.make_node("Sub", [name, name], ["z"]), h.make_node("Div", ["z", "z"], ["nan"])]
    return "nan"


def _det_squeeze(nodes, inits, name):
    inits.append(_const("sq_axes", [1]))
    nodes.append(_h().make_node("Squeeze", [name, "sq_axes"], ["r3"]))
    return "r3"


def _det_huge(nodes, inits, name):
    # Broadcast one value to a 60000 x 60000 map (14 GB of float32).
    h = _h()
    inits.append(_const("big_shape", [1, 1, 60000, 60000]))
    inits.append(_const("one_px_s", [0, 0, 0, 0]))
    inits.append(_const("one_px_e", [1, 1, 1, 1]))
    nodes += [
        h.make_node("Slice", [name, "one_px_s", "one_px_e"], ["px"]),
        h.make_node("Expand", ["px", "big_shape"], ["big"]),
    ]
    return "big"


def _det_cast_int(nodes, inits, name):
    from onnx import TensorProto

    nodes.append(_h().make_node("Cast", [name], ["i"], to=TensorProto.INT64))
    return "i"


# ---- cls: x [n, 3, 48, 192] -> y [n, 2] --------------------------------------


def _cls(post=None, in_shape=("n", 3, 48, 192), out_shape=("n", 2)):
    h = _h()
    nodes = [
        h.make_node("GlobalAveragePool", ["x"], ["g"]),
        h.make_node("Flatten", ["g"], ["f"], axis=1),
    ]
    n0, inits = _slice("f", "two", 1, 0, 2, "cls")
    nodes.append(n0)
    last = "two"
    if post:
        last = post(nodes, inits, last)
    nodes += [h.make_node("Softmax", [last], ["y"], axis=1)]
    return _model(nodes, list(in_shape), list(out_shape), inits)


def _cls_slice(axis, start, end):
    def post(nodes, inits, name):
        n, i = _slice(name, "cut", axis, start, end, "cut")
        nodes.append(n)
        inits += i
        return "cut"

    return post


# ---- rec: x [n, 3, 48, w] -> y [n, w / 8, C] ----------------------------------


def _rec(
    post=None, classes=REC_CLASSES, in_shape=("n", 3, 48, "w"), out_shape=("n", "t", None), kh=48
):
    """Conv with a kh x 8 kernel, stride 8 across: one time step per 8 columns."""
    from onnx import numpy_helper

    h = _h()
    rng = np.random.default_rng(0)
    wts = numpy_helper.from_array(
        (rng.standard_normal((classes, 3, kh, 8)) * 0.01).astype(np.float32), "wconv"
    )
    nodes = [
        h.make_node("Conv", ["x", "wconv"], ["c"], kernel_shape=[kh, 8], strides=[kh, 8]),
        h.make_node("ReduceMean", ["c"], ["m"], axes=[2], keepdims=0),  # [n, C, t]
        h.make_node("Transpose", ["m"], ["tr"], perm=[0, 2, 1]),
    ]
    inits = [wts]
    last = "tr"
    if post:
        last = post(nodes, inits, last)
    nodes.append(h.make_node("Softmax", [last], ["y"], axis=2))
    return _model(nodes, list(in_shape), list(out_shape), inits)


_rec_slice = _cls_slice


def _rec_dynamic_classes(nodes, inits, name):
    """Keeps the first width / 8 classes: ONNX Runtime cannot know the class count before a run."""
    h = _h()
    inits += [
        _const("d_three", [3]),
        _const("d_four", [4]),
        _const("d_eight", [8]),
        _const("d_zero", [0]),
        _const("d_axis", [2]),
    ]
    nodes += [
        h.make_node("Shape", ["x"], ["xs"]),
        h.make_node("Slice", ["xs", "d_three", "d_four"], ["xw"]),
        h.make_node("Div", ["xw", "d_eight"], ["ncls"]),
        h.make_node("Slice", [name, "d_zero", "ncls", "d_axis"], ["dyn"]),
    ]
    return "dyn"


# name -> (role, builder, expected)
CASES = {
    # det
    "det_ok": ("det", lambda: _det(), "result"),
    "det_quarter_map": ("det", lambda: _det(_det_maxpool), "result"),
    "det_nan_map": ("det", lambda: _det(_det_nan), "result"),
    "det_empty_batch": ("det", lambda: _det(_det_slice(0, 0, 0)), "ModelError"),
    "det_zero_channels": ("det", lambda: _det(_det_slice(1, 0, 0)), "ModelError"),
    "det_zero_height": ("det", lambda: _det(_det_slice(2, 0, 0)), "ModelError"),
    "det_zero_width": ("det", lambda: _det(_det_slice(3, 0, 0)), "ModelError"),
    "det_batch_doubled": ("det", lambda: _det(_det_concat_batch), "ModelError"),
    "det_rank3_declared_rank4": (
        "det",
        lambda: _det(_det_squeeze, out_shape=(None, None, None, None)),
        "error",
    ),
    "det_int64_map": ("det", lambda: _det(_det_cast_int, out_type=7), "ModelError"),
    "det_huge_broadcast_map": (
        "det",
        lambda: _det(_det_huge, out_shape=(1, 1, 60000, 60000)),
        "error",
    ),
    "det_huge_fixed_input": (
        "det",
        lambda: _det(in_shape=(1, 3, 100000, 100000), out_shape=(1, 1, 100000, 100000)),
        "error",
    ),
    # cls (with the real det and rec, on a page of several lines)
    "cls_ok": ("cls", lambda: _cls(), "result"),
    "cls_one_class": (
        "cls",
        lambda: _cls(_cls_slice(1, 0, 1), out_shape=("n", None)),
        "ModelError",
    ),
    "cls_batch_of_one": (
        "cls",
        lambda: _cls(_cls_slice(0, 0, 1), out_shape=(None, 2)),
        "ModelError",
    ),
    "cls_empty_batch": (
        "cls",
        lambda: _cls(_cls_slice(0, 0, 0), out_shape=(None, 2)),
        "ModelError",
    ),
    "cls_huge_fixed_height": ("cls", lambda: _cls(in_shape=("n", 3, 100000, 192)), "ModelError"),
    "cls_height_wraps_int": ("cls", lambda: _cls(in_shape=("n", 3, 2**32 + 48, 192)), "ModelError"),
    "cls_huge_fixed_batch": (
        "cls",
        lambda: _cls(in_shape=(100000, 3, 48, 192), out_shape=(100000, 2)),
        "ModelError",
    ),
    # rec (with the real det and cls)
    "rec_ok": ("rec", lambda: _rec(), "result"),
    "rec_batch_of_one": (
        "rec",
        lambda: _rec(_rec_slice(0, 0, 1), out_shape=(None, "t", None)),
        "ModelError",
    ),
    "rec_empty_batch": (
        "rec",
        lambda: _rec(_rec_slice(0, 0, 0), out_shape=(None, "t", None)),
        "ModelError",
    ),
    "rec_zero_steps": (
        "rec",
        lambda: _rec(_rec_slice(1, 0, 0), out_shape=("n", None, None)),
        "ModelError",
    ),
    "rec_wrong_class_count": ("rec", lambda: _rec(classes=REC_CLASSES + 5), "ModelError"),
    "rec_no_blank_class": ("rec", lambda: _rec(classes=REC_CLASSES - 2), "ModelError"),
    "rec_class_count_known_only_at_run": (
        "rec",
        lambda: _rec(_rec_dynamic_classes, classes=REC_CLASSES + 5),
        "ModelError",
    ),
    "rec_huge_fixed_height": ("rec", lambda: _rec(in_shape=("n", 3, 100000, "w")), "ModelError"),
    "rec_height_wraps_int": ("rec", lambda: _rec(in_shape=("n", 3, 2**32 + 48, "w")), "ModelError"),
    "rec_huge_fixed_width": ("rec", lambda: _rec(in_shape=("n", 3, 48, 10**9)), "ModelError"),
    "rec_huge_fixed_batch": ("rec", lambda: _rec(in_shape=(10**6, 3, 48, "w")), "ModelError"),
    "rec_tall_fixed_height_512": (
        "rec",
        lambda: _rec(in_shape=("n", 3, 512, "w"), kh=512),
        "result",
    ),
}


def build(name: str, folder) -> str:
    """Writes the model of case `name` into `folder`; returns its path."""
    import os

    import onnx

    path = os.path.join(os.fspath(folder), f"{name}.onnx")
    onnx.save(CASES[name][1](), path)
    return path
