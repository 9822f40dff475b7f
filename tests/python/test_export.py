"""`edgeocr export` / `edgeocr check`: small PyTorch OCR-like models to verified ONNX.

The models are defined here; the command-line tests load them by
``tests/python/test_export.py:FUNCTION``. Everything is skipped when torch is
not installed (it is an optional extra).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]

try:
    import torch
    from torch import nn
except ImportError:  # the module must still import so the skip reason is shown
    torch = None
    nn = None

needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is not installed (optional: pip install torch, CPU build)"
)

KEYS = list("0123456789abcdefghijklmnopqrstuvwxyz")
TOL = 1e-4


if torch is not None:

    class TinyRec(nn.Module):
        """CNN + BiLSTM + CTC head: N x 3 x 48 x W -> N x W/4 x (len(KEYS) + 1), softmax."""

        character = KEYS

        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(16)
            self.act1 = nn.ReLU()
            self.pool1 = nn.MaxPool2d(2)
            self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
            self.act2 = nn.ReLU()
            self.pool2 = nn.MaxPool2d(2)
            self.conv3 = nn.Conv2d(32, 48, 3, padding=1)
            self.act3 = nn.Hardswish()
            self.rnn = nn.LSTM(48, 32, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(64, len(KEYS) + 1)

        def forward(self, x):
            x = self.pool1(self.act1(self.bn1(self.conv1(x))))
            x = self.pool2(self.act2(self.conv2(x)))
            x = self.act3(self.conv3(x))
            x = x.mean(dim=2).permute(0, 2, 1)  # N x T x C
            x, _ = self.rnn(x)
            return self.fc(x).softmax(-1)

    class TinyDet(nn.Module):
        """DB-like: N x 3 x H x W -> N x 1 x H x W probability map."""

        def __init__(self):
            super().__init__()
            self.down1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.act1 = nn.ReLU()
            self.down2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
            self.act2 = nn.ReLU()
            self.head = nn.Conv2d(16, 1, 1)
            self.up = nn.Upsample(scale_factor=4, mode="nearest")

        def forward(self, x):
            return torch.sigmoid(
                self.up(self.head(self.act2(self.down2(self.act1(self.down1(x))))))
            )

    class BranchyRec(TinyRec):
        """TinyRec with a width-dependent branch that tracing freezes."""

        def forward(self, x):
            x = self.pool1(self.act1(self.bn1(self.conv1(x))))
            if x.shape[-1] > 64:  # BRANCH-LINE
                x = x * 0.5
            x = self.pool2(self.act2(self.conv2(x)))
            x = self.act3(self.conv3(x))
            x, _ = self.rnn(x.mean(dim=2).permute(0, 2, 1))
            return self.fc(x).softmax(-1)

    class ValueBranchRec(TinyRec):
        """A branch on tensor values (not shapes)."""

        def forward(self, x):
            x = self.pool1(self.act1(self.bn1(self.conv1(x))))
            if x.mean() > 0.1:  # VALUE-LINE
                x = x - 0.1
            x = self.pool2(self.act2(self.conv2(x)))
            x = self.act3(self.conv3(x))
            x, _ = self.rnn(x.mean(dim=2).permute(0, 2, 1))
            return self.fc(x).softmax(-1)


def _seeded(cls):
    torch.manual_seed(0)
    m = cls()
    for mod in m.modules():  # non-trivial BatchNorm statistics, so folding it is exercised
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
    return m.eval()


def build_rec():
    return _seeded(TinyRec)


def build_det():
    return _seeded(TinyDet)


def build_branchy():
    return _seeded(BranchyRec)


def _line_of(marker: str) -> int:
    for i, line in enumerate(HERE.read_text().splitlines(), 1):
        if marker in line and "_line_of" not in line:
            return i
    raise AssertionError(marker)


def _cli(*args, check=True):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    r = subprocess.run(
        [sys.executable, "-m", "edgeocr.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
    )
    if check and r.returncode != 0:
        raise AssertionError(f"exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


@pytest.fixture(scope="module")
def rec_onnx(tmp_path_factory):
    from edgeocr.export import export_torch

    path = tmp_path_factory.mktemp("export") / "rec.onnx"
    report = export_torch(build_rec(), path, task="rec", input_shape=(1, 3, 48, 320))
    return path, report


# -- without torch ----------------------------------------------------------
def test_missing_torch_is_a_clear_edgeocr_error(monkeypatch):
    import edgeocr
    from edgeocr.export import MissingDependencyError, require_torch

    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    with pytest.raises(MissingDependencyError, match="needs PyTorch") as ei:
        require_torch()
    assert isinstance(ei.value, edgeocr.EdgeOCRError) and isinstance(ei.value, ImportError)


def test_paddle_path_without_paddle2onnx(tmp_path, monkeypatch):
    from edgeocr.export import MissingDependencyError, export_paddle

    monkeypatch.setitem(sys.modules, "paddle2onnx", None)
    with pytest.raises(MissingDependencyError, match="paddle2onnx"):
        export_paddle(tmp_path, tmp_path / "det.onnx", task="det")


# -- export ----------------------------------------------------------------
@needs_torch
def test_rec_export_matches_eager_at_several_shapes(rec_onnx):
    import edgeocr

    path, report = rec_onnx
    m = edgeocr.Model(path)
    assert m.inputs[0].shape == (-1, 3, 48, -1)
    assert m.outputs[0].shape[-1] == len(KEYS) + 1
    meta = m.metadata
    assert meta["edgeocr.role"] == "rec"
    assert meta["character"].splitlines() == KEYS
    assert meta["edgeocr.mean"] == "0.5,0.5,0.5"
    assert report.opset == 17
    eager = build_rec()
    rng = np.random.default_rng(1)
    for n, w in [(1, 320), (3, 96), (8, 640), (2, 1000)]:
        x = rng.standard_normal((n, 3, 48, w), dtype=np.float32)
        with torch.no_grad():
            ref = eager(torch.from_numpy(x)).numpy()
        got = m.run(x)["logits"]
        assert got.shape == ref.shape == (n, w // 4, len(KEYS) + 1)
        np.testing.assert_allclose(got, ref, atol=TOL, rtol=0)


@needs_torch
def test_exported_rec_runs_in_predictor_with_metadata_dictionary(rec_onnx):
    import edgeocr

    path, _ = rec_onnx
    p = edgeocr.Predictor(rec=str(path), threads=1, drop_score=0.0)  # no keys=: from the metadata
    line = p.recognize(str(REPO / "tests/data/line_en.png"))
    assert set(line.text) <= set(KEYS) | {" "}  # random weights: any text from the dictionary


@needs_torch
def test_det_export_dynamic_height_and_width(tmp_path):
    import edgeocr
    from edgeocr.export import export_torch

    path = tmp_path / "det.onnx"
    export_torch(build_det(), path, task="det", input_shape=(1, 3, 64, 96))
    m = edgeocr.Model(path)
    assert m.metadata["edgeocr.role"] == "det"
    assert m.inputs[0].shape == (-1, 3, -1, -1)
    eager = build_det()
    x = np.random.default_rng(2).standard_normal((2, 3, 128, 160), dtype=np.float32)
    with torch.no_grad():
        ref = eager(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(m.run(x)["maps"], ref, atol=TOL, rtol=0)


# -- control flow ------------------------------------------------------------
@needs_torch
def test_shape_branch_is_reported_with_line_and_refused(tmp_path):
    from edgeocr.export import ExportError, export_torch

    out = tmp_path / "branchy.onnx"
    with pytest.raises(ExportError) as ei:
        export_torch(build_branchy(), out, task="rec", input_shape=(1, 3, 48, 320))
    assert not out.exists(), "a graph with a frozen branch must not be written"
    line = _line_of("BRANCH-LINE")
    hits = [f for f in ei.value.findings if f.line == line]
    assert hits, str(ei.value)
    f = hits[0]
    assert f.kind == "control-flow" and f.file == str(HERE)
    assert "if x.shape[-1] > 64" in f.code and "torch.cond" in f.fix
    assert f"test_export.py:{line}" in str(ei.value)


@needs_torch
def test_shape_branch_found_by_each_probe():
    from edgeocr.export.diag import compare_traces, export_guards

    m = build_branchy()
    line = _line_of("BRANCH-LINE")
    # Tracing at width 48 and 320 takes different sides of `> 64` (after pool1: 24 vs 160).
    assert [f.line for f in compare_traces(m, (1, 3, 48, 320), {0: "batch", 3: "width"})] == [line]
    guards, note = export_guards(m, (1, 3, 48, 320), {0: "batch", 3: "width"})
    assert note == ""
    assert [f.line for f in guards] == [line]
    assert "width" in guards[0].message


@needs_torch
def test_value_branch_is_reported(tmp_path):
    from edgeocr.export import ExportError, export_torch

    with pytest.raises(ExportError) as ei:
        export_torch(
            _seeded(ValueBranchRec), tmp_path / "v.onnx", task="rec", input_shape=(1, 3, 48, 320)
        )
    f = next(f for f in ei.value.findings if f.line == _line_of("VALUE-LINE"))
    assert "torch.where" in f.fix


@needs_torch
def test_cli_export_refuses_branchy_model(tmp_path):
    out = tmp_path / "b.onnx"
    r = _cli(
        "export",
        f"{HERE}:build_branchy",
        "--task",
        "rec",
        "--input",
        "1x3x48x320",
        "-o",
        str(out),
        check=False,
    )
    assert r.returncode == 3, r.stderr
    assert f"test_export.py:{_line_of('BRANCH-LINE')}" in r.stderr
    assert not out.exists()


# -- check -------------------------------------------------------------------
@needs_torch
def test_cli_export_then_check(tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("\n".join(KEYS) + "\n", encoding="utf-8")
    out = tmp_path / "rec.onnx"
    _cli(
        "export",
        f"{HERE}:build_rec",
        "--task",
        "rec",
        "--input",
        "1x3x48x320",
        "--dynamic",
        "batch,width",
        "--keys",
        str(keys),
        "-o",
        str(out),
    )
    r = _cli(
        "check",
        str(out),
        "--against",
        f"{HERE}:build_rec",
        "--images",
        str(REPO / "tests/data/line_en.png"),
    )
    assert "verdict: OK" in r.stdout
    assert "line_en.png" in r.stdout


@needs_torch
def test_layerwise_finds_injected_deviation(rec_onnx, tmp_path):
    import onnx
    from onnx import numpy_helper

    from edgeocr.export import check

    path, _ = rec_onnx
    model = onnx.load(path)
    # Perturb conv2's weights in the static graph only: a stand-in for an operator
    # that computes differently in the runtime.
    conv2 = next(
        n for n in model.graph.node if n.name.startswith("/conv2/") and n.op_type == "Conv"
    )
    init = next(i for i in model.graph.initializer if i.name == conv2.input[1])
    w = numpy_helper.to_array(init) * 1.02
    init.CopyFrom(numpy_helper.from_array(w.astype(np.float32), init.name))
    bad = tmp_path / "bad.onnx"
    onnx.save(model, bad)

    good = check(path, build_rec(), layerwise=True)
    assert good.ok and good.first_bad_layer is None
    # bn1 has no node of its own (folded into conv1 at export) and is still accounted for.
    assert good.layers[0]["layer"] == "conv1 (+bn1, folded at export)"
    assert [r["layer"] for r in good.layers][1:4] == ["act1", "pool1", "conv2"]

    rep = check(bad, build_rec(), layerwise=True)
    assert not rep.ok
    assert rep.first_bad_layer == "conv2", str(rep)
    assert all(r["ok"] for r in rep.layers[: [r["layer"] for r in rep.layers].index("conv2")])


# -- hybrid mode -------------------------------------------------------------
def test_hybrid_preprocess_example_runs(v4_paths):
    # One text line keeps this quick; the guide's figures come from a full page.
    r = subprocess.run(
        [
            sys.executable,
            str(REPO / "examples/hybrid_preprocess.py"),
            "--repeats",
            "1",
            "--image",
            str(REPO / "tests/data/line_en.png"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert "hook" in r.stdout and "ms" in r.stdout
