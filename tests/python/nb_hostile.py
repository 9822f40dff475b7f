"""Small ``.nb`` files with hostile attributes and headers (issue 13).

Each is a well-formed file (written by tools/paddle_lite/nb_writer.py from an
in-memory program) whose attributes ask for absurd work: a split into 2^31
parts, a layer norm over 10^10 values with no scale, a slice over 5000 axes,
a feed of rank 100000, ... A translator must refuse each with its own error
(or translate it, where that is cheap), within its memory limit, quickly.
Used by test_paddle_lite_fuzz.py; ``python nb_hostile.py DIR`` writes them.
"""

from __future__ import annotations

import importlib.util
import struct
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import load_paddle_lite  # noqa: E402

pl = load_paddle_lite()


def _writer():
    spec = importlib.util.spec_from_file_location(
        "_edgeocr_nb_writer_hostile", REPO / "tools" / "paddle_lite" / "nb_writer.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _prog(ops, params=None, inputs=(("x", (1, 3, 8, 8)),), outputs=("y",)):
    nb_ops, vars_ = [], {}
    for col, (name, shape) in enumerate(inputs):
        nb_ops.append(
            pl.NbOp(
                "feed",
                {"X": ["feed"]},
                {"Out": [name]},
                {"col": col, "__@kernel_type_attr@__": "feed/def/1/4/2"},
            )
        )
        vars_[name] = pl.NbVar(name, 5, tuple(shape))
    for t, ins, outs, attrs in ops:
        a = dict(attrs)
        a.setdefault("__@kernel_type_attr@__", f"{t}/def/2/1/1")
        nb_ops.append(pl.NbOp(t, ins, outs, a))
    for col, name in enumerate(outputs):
        nb_ops.append(
            pl.NbOp(
                "fetch",
                {"X": [name]},
                {"Out": ["fetch"]},
                {"col": col, "__@kernel_type_attr@__": "fetch/def/1/4/2"},
            )
        )
    for i, op in enumerate(nb_ops):
        op.index = i
    params = {k: np.asarray(v) for k, v in (params or {}).items()}
    return pl.NbProgram(
        source="<hostile>",
        meta_version=2,
        producer="v2.10",
        framework_version=None,
        ops=nb_ops,
        vars=vars_,
        params=params,
        param_dtypes={k: 5 for k in params},
    )


def _one(t, attrs, ins=None, outs=None, **kw):
    return _prog([(t, ins or {"X": ["x"]}, outs or {"Out": ["y"]}, attrs)], **kw)


def seed_programs() -> dict[str, bytes]:
    """Small valid files for the fuzz loop, for paths the committed op fixtures lack:
    weight-only int8 (conv2d, fc) in both meta versions."""
    w = _writer()
    rng = np.random.default_rng(7)
    q = rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
    scale = [float(v) for v in (rng.random(4) * 0.02 + 0.001).astype(np.float32)]
    fq = rng.integers(-127, 128, (4, 2)).astype(np.int8)
    params = {
        "w": q,
        "cb": rng.standard_normal(4).astype(np.float32),
        "fw": fq,
        "fb": rng.standard_normal(2).astype(np.float32),
    }
    ops = [
        (
            "conv2d",
            {"Input": ["x"], "Filter": ["w"]},
            {"Output": ["c"]},
            {
                "strides": [2, 2],
                "paddings": [1, 1],
                "dilations": [1, 1],
                "groups": 1,
                "with_act": True,
                "act_type": "relu6",
                "fuse_brelu_threshold": 6.0,
                "quantization_type": "post_weight_channel_wise_abs_max",
                "quantize_weight_bits": 8,
                "w_quant_scale": scale,
            },
        ),
        ("elementwise_add", {"X": ["c"], "Y": ["cb"]}, {"Out": ["c"]}, {"axis": 1}),
        (
            "pool2d",
            {"X": ["c"]},
            {"Out": ["p"]},
            {"pooling_type": "avg", "global_pooling": True, "ksize": [1, 1], "adaptive": False},
        ),
        ("reshape2", {"X": ["p"]}, {"Out": ["r"], "XShape": ["rx"]}, {"shape": [0, -1]}),
        (
            "fc",
            {"Input": ["r"], "W": ["fw"], "Bias": ["fb"]},
            {"Out": ["f"]},
            {
                "in_num_col_dims": 1,
                "quantization_type": "post_weight_channel_wise_abs_max",
                "quantize_weight_bits": 8,
                "fw_quant_scale": [0.01, 0.02],
            },
        ),
        ("softmax", {"X": ["f"]}, {"Out": ["y"]}, {"axis": -1}),
    ]
    prog = _prog(ops, params, inputs=[("x", (1, 3, 12, 12))])
    prog.param_dtypes = {k: (21 if v.dtype == np.int8 else 5) for k, v in params.items()}
    return {f"int8_small_v{mv}": w.write_nb(prog, mv) for mv in (1, 2)}


def cases() -> dict[str, bytes]:
    """name -> file bytes."""
    w = _writer()
    big = 1 << 31
    progs = {
        "split_huge_num": _one("split", {"num": big, "axis": 1}),
        "split_many_sections": _one("split", {"sections": [1] * 20000, "axis": 1}),
        "layer_norm_huge_dims": _one(
            "layer_norm",
            {"begin_norm_axis": 1, "epsilon": 1e-5},
            outs={"Y": ["y"]},
            inputs=[("x", (1, 100000, 100000))],
        ),
        "slice_5000_axes": _one(
            "slice",
            {"axes": list(range(5000)), "starts": [0] * 5000, "ends": [1] * 5000},
            ins={"Input": ["x"]},
        ),
        "strided_slice_5000_axes": _one(
            "strided_slice",
            {"axes": [0] * 5000, "starts": [0] * 5000, "ends": [1] * 5000, "strides": [1] * 5000},
            ins={"Input": ["x"]},
        ),
        "fc_huge_num_col_dims": _prog(
            [
                (
                    "fc",
                    {"Input": ["x"], "W": ["w"]},
                    {"Out": ["y"]},
                    {"in_num_col_dims": 500_000_001},
                )
            ],
            params={"w": np.ones((8, 4), np.float32)},
            inputs=[("x", (2, 8))],
        ),
        "fill_constant_huge": _one(
            "fill_constant", {"shape": [65536, 65536], "dtype": 5, "value": 1.0}, ins={}
        ),
        "fill_constant_overflow": _one(
            "fill_constant",
            {"shape": [1 << 30, 1 << 30, 1 << 30], "dtype": 5, "value": 1.0},
            ins={},
        ),
        "unsqueeze_100000_axes": _one("unsqueeze2", {"axes": [0] * 100000}),
        "reshape_100000_dims": _one("reshape2", {"shape": [1] * 100000}),
        "transpose_100000_perm": _one("transpose2", {"axis": list(range(100000))}),
        "feed_rank_100000": _prog(
            [("relu", {"X": ["x"]}, {"Out": ["y"]}, {})], inputs=[("x", (1,) * 100000)]
        ),
        "concat_20000_inputs": _one("concat", {"axis": 1}, ins={"X": ["x"] * 20000}),
        "pad_200000_paddings": _one("pad", {"paddings": [1] * 200000}),
        "pad2d_huge": _one("pad2d", {"paddings": [big - 1] * 4}),
        "rnn_huge_layers": _one(
            "rnn",
            {"num_layers": big, "hidden_size": big - 1, "is_bidirec": True, "mode": "LSTM"},
            ins={"Input": ["x"], "WeightList": ["x"] * 8},
        ),
        "interp_huge_scale": _one(
            "bilinear_interp_v2", {"scale": [1e30, 1e30], "interp_method": "bilinear"}
        ),
        "interp_huge_size": _one("nearest_interp_v2", {"out_h": big - 1, "out_w": big - 1}),
        "pool_zero_kernel": _one(
            "pool2d", {"ksize": [0, 0], "strides": [0, 0], "pooling_type": "max"}
        ),
        "conv_huge_dilation": _prog(
            [
                (
                    "conv2d",
                    {"Input": ["x"], "Filter": ["w"]},
                    {"Output": ["y"]},
                    {
                        "strides": [1, 1],
                        "paddings": [big - 1, big - 1],
                        "dilations": [big - 1, big - 1],
                        "groups": 1,
                    },
                )
            ],
            params={"w": np.ones((2, 3, 3, 3), np.float32)},
        ),
        "reduce_100000_dims": _one("reduce_mean", {"dim": list(range(100000))}),
        "arg_max_bad_axis": _one("arg_max", {"axis": big - 1}),
        "stack_20000_inputs": _one(
            "stack", {"axis": 0}, ins={"X": ["x"] * 20000}, outs={"Y": ["y"]}
        ),
        "flatten_range_huge": _one(
            "flatten_contiguous_range", {"start_axis": -big, "stop_axis": big - 1}
        ),
        "dequant_scale_mismatch": _prog(
            [
                (
                    "conv2d",
                    {"Input": ["x"], "Filter": ["w"]},
                    {"Output": ["y"]},
                    {
                        "quantization_type": "post_weight_channel_wise_abs_max",
                        "quantize_weight_bits": 8,
                        "w_quant_scale": [0.1] * 100000,
                    },
                )
            ],
            params={"w": np.ones((2, 3, 3, 3), np.int8)},
        ),
    }
    out = {name: w.write_nb(p, 2) for name, p in progs.items()}
    # header / section lies on a valid small file
    good = w.write_nb(_one("relu", {}), 2)
    b = bytearray(good)
    b[18:26] = struct.pack("<Q", (1 << 63) + 5)
    out["topo_size_huge"] = bytes(b)
    b = bytearray(good)
    topo_end = 26 + struct.unpack_from("<Q", good, 18)[0]
    b[topo_end + 6 : topo_end + 8] = struct.pack("<H", 0xFFFF)  # 65535 parameter records
    out["param_count_lie"] = bytes(b)
    return out


if __name__ == "__main__":
    d = Path(sys.argv[1])
    d.mkdir(parents=True, exist_ok=True)
    for name, data in {**cases(), **seed_programs()}.items():
        (d / f"{name}.nb").write_bytes(data)
        print(name, len(data))
