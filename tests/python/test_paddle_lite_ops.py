"""Single-op Paddle Lite models against real Paddle Lite 2.10.

The files in ``tests/data/paddle_lite_ops`` were made by
``tools/paddle_lite_fixtures.sh WORK ops`` (see ``tools/paddle_lite/make_op_models.py``):
tiny Paddle static models that each use one or a few of the ops the PP-OCR
fixtures lack (hard_swish, relu6, swish, leaky_relu, hard_sigmoid,
bilinear_interp_v2, nearest_interp v1, elementwise ops with an explicit axis,
flatten, unsqueeze2, split, slice, pad, arg_max, rnn/LSTM), converted by Paddle
Lite 2.10's ``opt`` for x86 (``NAME_x86.nb``) and arm (``NAME_arm.nb``), with
the inputs used (``NAME_inputs.npz``: in0, in1, ... in feed order) and the
outputs of real Paddle Lite (x86 build, ``MobileConfig``) on the x86 file
(``NAME_lite_x86.npz``: out0, out1, ... in fetch order). ``NAME_paddle.npz`` is
Paddle 2.6's own output for the model as built (before the rewrites that make
legacy ops such as nearest_interp v1); it is the reference only where Paddle
Lite 2.10 is known to be wrong (``LITE_WRONG`` below).

Each file is translated by edgeocr's translator (C++, ``_core.nb_to_onnx``, what
users get; a new op is written there only) and run with onnxruntime; every
output must match real Paddle Lite's within 1e-4 (integer outputs exactly). The
tests' reference reader (tests/support/paddle_lite_ref) only checks which ops a
file holds. The arm files are
compared against the x86 Paddle Lite output: there is no armv8 Paddle Lite
here, and the kernels' arithmetic is the same op semantics.

Skipped when the folder is absent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import require_fixture

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "paddle_lite_ops"
TOL = 1e-4

require_fixture(DATA, "made by tools/paddle_lite_fixtures.sh WORK ops")

ort = pytest.importorskip("onnxruntime")
from conftest import load_paddle_lite as _load_pl  # noqa: E402

from edgeocr import _core  # noqa: E402

pl = _load_pl()

# the op types (besides feed/fetch) each case must contain in its .nb file,
# so that a change in opt's fusions cannot silently drop what is tested
EXPECTED_OPS = {
    "hard_swish": {"hard_swish"},
    "relu6": {"relu6"},
    "swish": {"swish"},
    "leaky_relu": {"leaky_relu"},
    "hard_sigmoid": {"hard_sigmoid"},
    "act_chain": {"conv2d"},
    "conv_bn_act": {"conv2d", "depthwise_conv2d"},
    "eltwise_act": {"elementwise_add", "hard_swish", "relu6"},
    "bilinear_v2": {"bilinear_interp_v2"},
    "nearest_v2": {"nearest_interp_v2"},
    "nearest_v1": {"nearest_interp"},
    "nearest_ac": {"nearest_interp_v2"},
    "nearest_v1_ac": {"nearest_interp"},
    "bilinear_v1": {"bilinear_interp"},
    "eltwise_axis": {
        "elementwise_add",
        "elementwise_mul",
        "elementwise_sub",
        "elementwise_div",
        "elementwise_max",
    },
    "flatten": {"flatten_contiguous_range", "flatten2"},
    "flatten_v1": {"flatten"},
    "unsqueeze2": {"unsqueeze2"},
    "split": {"split"},
    "split_neg_axis": {"split"},
    "slice": {"slice", "strided_slice"},
    "pad": {"pad3d"},
    "pad2d": {"pad2d"},
    "arg_max": {"arg_max"},
    "lstm": {"rnn"},
    "lstm_fw": {"rnn"},
    "reduce_mean": {"reduce_mean"},
    "reduce_ops": {"reduce_sum", "reduce_max", "reduce_min"},
    "gelu": {"gelu"},
    "pow_sqrt": {"pow", "sqrt", "reduce_mean"},
    "unary_misc": {"tanh", "exp", "abs", "sigmoid"},
    "stack": {"stack"},
    "attention": {"layer_norm", "softmax", "gelu"},
}


# (case, target) -> op types opt must have made (fusions are per target)
EXPECTED_FUSED = {
    ("eltwise_act", "arm"): {
        "fusion_elementwise_add_activation",
        "fusion_elementwise_sub_activation",
        "fusion_elementwise_mul_activation",
    },
}

# outputs where Paddle Lite 2.10 (x86 build) is wrong: compared with Paddle's
# output instead, and the Lite output is checked to still be wrong, so that a
# regenerated reference from a fixed Paddle Lite is noticed
LITE_WRONG = {
    # pad3d, mode constant (host kernel): every padded cell is NaN, not `value`
    ("pad", 0): lambda lite: bool(np.isnan(lite).any()),
    # d / sqrt(mean(pow(d, 2)) + eps) (x86 kernels): most of the output is 0
    ("pow_sqrt", 2): lambda lite: bool((lite == 0).mean() > 0.5),
}

# (case, output) whose arm file is compared with Paddle's output instead of the
# x86 Lite one: Paddle Lite's x86 gelu kernel ignores approximate=True (it
# computes the erf form, checked below), its arm kernel honours it
ARM_REF_PADDLE = {("gelu", 1)}


def _cases() -> list[tuple[str, str]]:
    out = []
    for ref in sorted(DATA.glob("*_lite_x86.npz")):
        name = ref.name[: -len("_lite_x86.npz")]
        for target in ("x86", "arm"):
            if (DATA / f"{name}_{target}.nb").exists():
                out.append((name, target))
    return out


CASES = _cases()


def _session(model_bytes: bytes):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])


def _npz(path: Path, prefix: str) -> list[np.ndarray]:
    with np.load(path) as z:
        return [z[f"{prefix}{i}"] for i in range(len(z.files))]


def test_cases_present():
    names = {n for n, _ in CASES}
    assert names, f"no *_lite_x86.npz in {DATA}"
    missing = sorted(set(EXPECTED_OPS) - names)
    assert not missing, f"cases without files: {missing}"


@pytest.mark.parametrize("name,target", CASES, ids=[f"{n}-{t}" for n, t in CASES])
def test_op_matches_paddle_lite(name, target):
    path = DATA / f"{name}_{target}.nb"
    prog = pl.read_nb(path)
    ops = {op.type for op in prog.ops} - {"feed", "fetch"}
    want = EXPECTED_OPS.get(name, set()) | EXPECTED_FUSED.get((name, target), set())
    assert want <= ops, f"{path.name}: expected ops {sorted(want - ops)} missing; has {sorted(ops)}"

    s = _session(_core.nb_to_onnx(path.read_bytes(), str(path)))
    xs = _npz(DATA / f"{name}_inputs.npz", "in")
    assert len(s.get_inputs()) == len(xs)
    ys = s.run(None, {i.name: x for i, x in zip(s.get_inputs(), xs)})
    refs = _npz(DATA / f"{name}_lite_x86.npz", "out")
    assert len(ys) == len(refs), f"{path.name}: {len(ys)} outputs, Paddle Lite gave {len(refs)}"
    paddle_out = None
    for k, (y, ref) in enumerate(zip(ys, refs)):
        wrong = LITE_WRONG.get((name, k))
        if target == "arm" and (name, k) in ARM_REF_PADDLE:
            if paddle_out is None:
                paddle_out = _npz(DATA / f"{name}_paddle.npz", "out")
            ref = paddle_out[k]
        elif wrong is not None:
            assert wrong(ref), f"{name} out{k}: Paddle Lite's output is no longer the known bug"
            if paddle_out is None:
                paddle_out = _npz(DATA / f"{name}_paddle.npz", "out")
            ref = paddle_out[k]
        assert y.shape == ref.shape, f"{path.name} out{k}: shape {y.shape} vs Lite {ref.shape}"
        if np.issubdtype(ref.dtype, np.integer):
            assert np.issubdtype(y.dtype, np.integer), f"{path.name} out{k}: dtype {y.dtype}"
            assert np.array_equal(y, ref), f"{path.name} out{k}: integer outputs differ"
        else:
            diff = float(np.abs(y.astype(np.float64) - ref).max()) if ref.size else 0.0
            assert diff <= TOL, f"{path.name} out{k}: max |edgeocr - paddle lite| = {diff:.3g}"
