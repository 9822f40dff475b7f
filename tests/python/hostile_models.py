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


# ---- layout: x [1, 3, 800, 608] -> PicoDet's score maps and box distributions -------------

# The CDLA layout model's labels (metadata "character"), as the real model has them.
LAYOUT_LABELS = [
    "text",
    "title",
    "figure",
    "figure_caption",
    "table",
    "table_caption",
    "header",
    "footer",
    "reference",
    "equation",
]
LAYOUT_CLASSES = len(LAYOUT_LABELS)


def _layout(
    strides=(8, 16, 32, 64),
    classes=LAYOUT_CLASSES,
    bins=8,
    in_shape=(1, 3, 800, 608),
    labels=LAYOUT_LABELS,
    score_bias=-2.0,
    post_scores=None,
    post_dist=None,
    declare=True,
    extra_dist=0,
    drop_outputs=0,
    score_type=None,
    quiet_strides=(),
):
    """A PicoDet-shaped 'model': per stride, the input averaged over stride x stride cells
    (ceil: PicoDet's grid), a 1x1 conv to `classes` sigmoid scores and one to 4 x `bins` logits
    (+ `extra_dist`), each as [1, cells, C]. `post_scores` / `post_dist` (nodes, inits, name) ->
    name change a stride's output; `declare` False leaves the outputs' cells and classes
    undeclared (known only at run time); the last `drop_outputs` outputs are left out;
    `score_type`: the score maps' declared element type (what `post_scores` makes them); the
    strides in `quiet_strides` score ~0 everywhere."""
    import onnx
    from onnx import TensorProto, numpy_helper

    h = _h()
    rng = np.random.default_rng(1)
    nodes, inits, scores, dists = [], [], [], []
    in_h, in_w = in_shape[2], in_shape[3]
    for s in strides:
        t = f"s{s}"
        ws = (rng.standard_normal((classes, 3, 1, 1)) * 0.5).astype(np.float32)
        wd = (rng.standard_normal((4 * bins + extra_dist, 3, 1, 1)) * 2.0).astype(np.float32)
        inits += [
            numpy_helper.from_array(ws, f"{t}_ws"),
            numpy_helper.from_array(
                np.broadcast_to(
                    np.asarray(-50.0 if s in quiet_strides else score_bias, np.float32), (classes,)
                ).copy(),
                f"{t}_bs",
            ),
            numpy_helper.from_array(wd, f"{t}_wd"),
            _const(f"{t}_shape_s", [1, classes, -1]),
            _const(f"{t}_shape_d", [1, 4 * bins + extra_dist, -1]),
        ]
        nodes += [
            h.make_node(
                "AveragePool", ["x"], [f"{t}_p"], kernel_shape=[s, s], strides=[s, s], ceil_mode=1
            ),
            h.make_node("Conv", [f"{t}_p", f"{t}_ws", f"{t}_bs"], [f"{t}_c"]),
            h.make_node("Reshape", [f"{t}_c", f"{t}_shape_s"], [f"{t}_r"]),
            h.make_node("Transpose", [f"{t}_r"], [f"{t}_tr"], perm=[0, 2, 1]),
            h.make_node("Sigmoid", [f"{t}_tr"], [f"{t}_sig"]),
            h.make_node("Conv", [f"{t}_p", f"{t}_wd"], [f"{t}_d"]),
            h.make_node("Reshape", [f"{t}_d", f"{t}_shape_d"], [f"{t}_dr"]),
            h.make_node("Transpose", [f"{t}_dr"], [f"{t}_dt"], perm=[0, 2, 1]),
        ]
        last_s = post_scores(nodes, inits, f"{t}_sig", f"{t}sc") if post_scores else f"{t}_sig"
        last_d = post_dist(nodes, inits, f"{t}_dt", f"{t}di") if post_dist else f"{t}_dt"
        nodes += [
            h.make_node("Identity", [last_s], [f"scores_{s}"]),
            h.make_node("Identity", [last_d], [f"dist_{s}"]),
        ]
        cells = -(-in_h // s) * -(-in_w // s) if isinstance(in_h, int) else None
        scores.append((f"scores_{s}", [1, cells, classes] if declare else [1, None, None]))
        dists.append(
            (f"dist_{s}", [1, cells, 4 * bins + extra_dist] if declare else [1, None, None])
        )
    outs = scores + dists
    if drop_outputs:
        outs = outs[:-drop_outputs]
    g = h.make_graph(
        nodes,
        "hostile_layout",
        [h.make_tensor_value_info("x", TensorProto.FLOAT, list(in_shape))],
        [
            h.make_tensor_value_info(
                n, score_type if score_type and n.startswith("scores") else TensorProto.FLOAT, shape
            )
            for n, shape in outs
        ],
        initializer=inits,
    )
    m = h.make_model(g, opset_imports=[h.make_opsetid("", _OPSET)], producer_name="edgeocr-hostile")
    m.ir_version = _IR
    if labels is not None:
        h.set_model_props(m, {"character": "\n".join(labels)})
    onnx.checker.check_model(m)
    return m


def _layout_nan(nodes, inits, name, tag):
    h = _h()
    nodes += [
        h.make_node("Sub", [name, name], [f"{tag}_z"]),
        h.make_node("Div", [f"{tag}_z", f"{tag}_z"], [f"{tag}_nan"]),
    ]
    return f"{tag}_nan"


def _layout_inf(nodes, inits, name, tag):
    h = _h()
    inits.append(_const(f"{tag}_zero", [0.0], np.float32))
    nodes += [
        h.make_node("Abs", [name], [f"{tag}_abs"]),
        h.make_node("Add", [f"{tag}_abs", f"{tag}_abs"], [f"{tag}_pos"]),
        h.make_node("Div", [f"{tag}_pos", f"{tag}_zero"], [f"{tag}_inf"]),  # +inf (0/0: NaN)
    ]
    return f"{tag}_inf"


def _layout_small_boxes(nodes, inits, name, tag):
    """Every side's distribution peaked on bin 1: a box one stride out from each cell's centre,
    so neighbouring cells' boxes overlap by IoU 1/3 and survive NMS (hundreds per class)."""
    h = _h()
    bins = 8
    peak = np.zeros(4 * bins, np.float32)
    peak[1::bins] = 20.0
    inits += [_const(f"{tag}_zero", [0.0], np.float32), _const(f"{tag}_peak", peak, np.float32)]
    nodes += [
        h.make_node("Mul", [name, f"{tag}_zero"], [f"{tag}_z"]),
        h.make_node("Add", [f"{tag}_z", f"{tag}_peak"], [f"{tag}_small"]),
    ]
    return f"{tag}_small"


def _layout_int64(nodes, inits, name, tag):
    from onnx import TensorProto

    nodes.append(_h().make_node("Cast", [name], [f"{tag}_i"], to=TensorProto.INT64))
    return f"{tag}_i"


def _layout_dynamic_classes(nodes, inits, name, tag):
    """Keeps the first width / 100 classes (6 of 10 on a 608-wide input): the class count is
    known only when the model runs."""
    h = _h()
    inits += [
        _const(f"{tag}_three", [3]),
        _const(f"{tag}_four", [4]),
        _const(f"{tag}_hundred", [100]),
        _const(f"{tag}_zero", [0]),
        _const(f"{tag}_axis", [2]),
    ]
    nodes += [
        h.make_node("Shape", ["x"], [f"{tag}_xs"]),
        h.make_node("Slice", [f"{tag}_xs", f"{tag}_three", f"{tag}_four"], [f"{tag}_xw"]),
        h.make_node("Div", [f"{tag}_xw", f"{tag}_hundred"], [f"{tag}_n"]),
        h.make_node("Slice", [name, f"{tag}_zero", f"{tag}_n", f"{tag}_axis"], [f"{tag}_dyn"]),
    ]
    return f"{tag}_dyn"


def _layout_rank2(nodes, inits, name, tag):
    inits.append(_const(f"{tag}_flat", [1, -1]))
    nodes.append(_h().make_node("Reshape", [name, f"{tag}_flat"], [f"{tag}_r2"]))
    return f"{tag}_r2"


def _layout_drop_cell(nodes, inits, name, tag):
    """One cell fewer than the stride's grid: a level that fits no stride."""
    n, i = _slice(name, f"{tag}_cut", 1, 1, 2**62, f"{tag}_cut")
    nodes.append(n)
    inits += i
    return f"{tag}_cut"


def _layout_huge(nodes, inits, name, tag):
    """The score map broadcast to 2**31 cells x 10 classes at run time (80 GiB of float32)."""
    h = _h()
    inits.append(_const(f"{tag}_big", [1, 2**31, len(LAYOUT_LABELS)]))
    n, i = _slice(name, f"{tag}_one", 1, 0, 1, f"{tag}_one")
    nodes += [n, h.make_node("Expand", [f"{tag}_one", f"{tag}_big"], [f"{tag}_huge"])]
    inits += i
    return f"{tag}_huge"


# ---- table: x [n, 3, 488, 488] -> cell boxes [n, T, 8] and token probabilities [n, T, 50] -----


def _table(box_values=8, tokens=50, steps=30, outputs=2, character=None):
    """A SLANet-shaped 'model': the input pooled to `steps` time steps, then boxes and token
    probabilities per step (nonsense, of the declared shapes); `character`: its structure tokens
    (metadata 'character', one per line)."""
    import onnx
    from onnx import TensorProto, numpy_helper

    h = _h()
    rng = np.random.default_rng(2)
    inits = [
        numpy_helper.from_array(
            (rng.standard_normal((box_values, 3, 1, 1))).astype(np.float32), "wb"
        ),
        numpy_helper.from_array((rng.standard_normal((tokens, 3, 1, 1))).astype(np.float32), "wt"),
        _const("one", [1]),
        _const("rep", [1, steps, 1]),
    ]
    nodes = [
        h.make_node("GlobalAveragePool", ["x"], ["g"]),
        h.make_node("Conv", ["g", "wb"], ["cb"]),
        h.make_node("Conv", ["g", "wt"], ["ct"]),
        h.make_node("Flatten", ["cb"], ["fb"], axis=1),  # [n, 8]
        h.make_node("Flatten", ["ct"], ["ft"], axis=1),  # [n, 50]
        h.make_node("Unsqueeze", ["fb", "one"], ["ub"]),  # [n, 1, 8]
        h.make_node("Unsqueeze", ["ft", "one"], ["ut"]),
        h.make_node("Tile", ["ub", "rep"], ["boxes"]),  # [n, steps, 8]
        h.make_node("Tile", ["ut", "rep"], ["logits"]),
        h.make_node("Sigmoid", ["boxes"], ["boxes_out"]),
        h.make_node("Softmax", ["logits"], ["probs_out"], axis=2),
    ]
    outs = [
        h.make_tensor_value_info("boxes_out", TensorProto.FLOAT, ["n", steps, box_values]),
        h.make_tensor_value_info("probs_out", TensorProto.FLOAT, ["n", steps, tokens]),
    ][:outputs]
    g = h.make_graph(
        nodes,
        "hostile_table",
        [h.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 488, 488])],
        outs,
        initializer=inits,
    )
    m = h.make_model(g, opset_imports=[h.make_opsetid("", _OPSET)], producer_name="edgeocr-hostile")
    m.ir_version = _IR
    if character is not None:
        h.set_model_props(m, {"character": "\n".join(character)})
    onnx.checker.check_model(m)
    return m


# SLANet-plus's 48 structure tokens (with "sos" and "eos": its 50 classes).
_SLANET_TOKENS = (
    ["<thead>", "</thead>", "<tbody>", "</tbody>", "<tr>", "</tr>", "<td", ">", "</td>"]
    + [f' colspan="{n}"' for n in range(2, 21)]
    + [f' rowspan="{n}"' for n in range(2, 21)]
    + ["<td></td>"]
)


def _table_rank2():
    """Two outputs of rank 2 ([n, 8] boxes, [n, 50] tokens): no time steps."""
    import onnx

    m = _table()
    g = m.graph
    for o in g.output:
        del o.type.tensor_type.shape.dim[1]
    for n in g.node:
        if n.op_type == "Tile":
            n.op_type = "Identity"
            del n.input[1:]
        if n.op_type == "Unsqueeze":
            n.op_type = "Identity"
            del n.input[1:]
        if n.op_type == "Softmax":
            n.attribute[0].i = 1
    onnx.checker.check_model(m)
    return m


# name -> (role, builder, expected); expected "bounded": a result or an edgeocr.EdgeOCRError,
# within the limits (a case whose outcome is the table stage's to decide).
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
    # layout (with the real det, cls and rec; Predictor.parse / edgeocr_predictor_parse)
    "layout_ok": ("layout", lambda: _layout(), "result"),
    # Every cell of every stride scores 1 in every class: 10100 cells x 10 classes of candidates,
    # bounded by the per-stride top-k, per-class NMS and layout_max_regions.
    "layout_every_cell_fires": ("layout", lambda: _layout(score_bias=50.0), "result"),
    # Figures and equations (regions kept without lines) in every stride-8 cell (7600), with
    # small, barely overlapping boxes: hundreds survive NMS, the page keeps at most
    # layout_max_regions (300) of them, and orders them (MIN_REGIONS: they are really there).
    "layout_hundreds_of_small_regions": (
        "layout",
        lambda: _layout(
            score_bias=[50.0 if c in ("figure", "equation") else -50.0 for c in LAYOUT_LABELS],
            post_dist=_layout_small_boxes,
            quiet_strides=(16, 32, 64),
        ),
        "result",
    ),
    "layout_nan_scores": ("layout", lambda: _layout(post_scores=_layout_nan), "result"),
    "layout_nan_boxes": (
        "layout",
        lambda: _layout(score_bias=50.0, post_dist=_layout_nan),
        "result",
    ),
    "layout_inf_boxes": (
        "layout",
        lambda: _layout(score_bias=50.0, post_dist=_layout_inf),
        "result",
    ),
    "layout_one_output": ("layout", lambda: _layout(strides=(8,), drop_outputs=1), "ModelError"),
    "layout_odd_output_count": ("layout", lambda: _layout(drop_outputs=1), "ModelError"),
    "layout_rank2_scores": (
        "layout",
        lambda: _layout(post_scores=_layout_rank2, declare=False),
        "ModelError",
    ),
    "layout_int64_scores": (
        "layout",
        lambda: _layout(post_scores=_layout_int64, score_type=7),
        "ModelError",
    ),
    "layout_classes_not_labels": ("layout", lambda: _layout(classes=6), "ModelError"),
    # The same, known only when it runs (a dynamic input: nothing to fold): refused by the first
    # parse's decoding, naming the model.
    "layout_classes_not_labels_at_run": (
        "layout",
        lambda: _layout(
            post_scores=_layout_dynamic_classes, declare=False, in_shape=(1, 3, "h", "w")
        ),
        "ModelError",
    ),
    "layout_no_labels": ("layout", lambda: _layout(labels=None), "ModelError"),
    "layout_300_labels": (
        "layout",
        lambda: _layout(classes=300, labels=[f"class{i}" for i in range(300)]),
        "ModelError",
    ),
    "layout_label_of_a_megabyte": (
        "layout",
        lambda: _layout(labels=["text" * 2**18, *LAYOUT_LABELS[1:]]),
        "ModelError",
    ),
    "layout_bins_not_4x": ("layout", lambda: _layout(extra_dist=2), "ModelError"),
    "layout_cells_fit_no_stride": (
        "layout",
        lambda: _layout(post_scores=_layout_drop_cell, post_dist=_layout_drop_cell, declare=False),
        "ModelError",
    ),
    "layout_batch_of_two": ("layout", lambda: _layout(in_shape=(2, 3, 800, 608)), "ModelError"),
    "layout_zero_batch": ("layout", lambda: _layout(in_shape=(0, 3, 800, 608)), "ModelError"),
    "layout_huge_fixed_input": (
        "layout",
        lambda: _layout(strides=(64,), in_shape=(1, 3, 100000, 100000)),
        "ModelError",
    ),
    "layout_huge_output_at_run": (
        "layout",
        lambda: _layout(post_scores=_layout_huge, declare=False),
        "error",
    ),
    # table (with the real layout model)
    "table_one_output": ("table", lambda: _table(outputs=1), "ModelError"),
    "table_no_box_output": ("table", lambda: _table(box_values=50), "ModelError"),
    "table_rank2_outputs": ("table", lambda: _table_rank2(), "ModelError"),
    "table_nonsense_of_the_right_shape": ("table", lambda: _table(), "bounded"),
    # 10 structure tokens for 50 classes: refused when the model loads, naming the output.
    "table_tokens_do_not_match": (
        "table",
        lambda: _table(character=_SLANET_TOKENS[:10]),
        "ModelError",
    ),
    # The real tokens, nonsense steps (the same token 30 times, no end): a bounded grid or the
    # grid method (the table stage decides), never a crash.
    "table_nonsense_with_tokens": (
        "table",
        lambda: _table(character=_SLANET_TOKENS),
        "result",
    ),
}


# Cases whose parse must give at least this many regions (the bound is tested, not a model that
# fails to produce what it claims to).
MIN_REGIONS = {"layout_hundreds_of_small_regions": 150}


def build(name: str, folder) -> str:
    """Writes the model of case `name` into `folder`; returns its path."""
    import os

    import onnx

    path = os.path.join(os.fspath(folder), f"{name}.onnx")
    onnx.save(CASES[name][1](), path)
    return path
