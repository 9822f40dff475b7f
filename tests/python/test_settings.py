"""The pipeline settings table (csrc/pipeline/settings_table.cpp) as every Python surface sees."""

import dataclasses
import json
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest

import edgeocr
from edgeocr import InvalidInputError, PipelineConfig, _core

REPO = Path(__file__).resolve().parents[2]
TYPES = {"bool": bool, "int": int, "float": float, "enum": str, "float3": tuple, "int_list": tuple}


def test_python_config_is_the_table_field_by_field():
    table = _core.settings()
    fields = dataclasses.fields(PipelineConfig)
    hints = typing.get_type_hints(PipelineConfig)
    assert [f.name for f in fields] == [s["name"] for s in table]
    defaults = PipelineConfig()
    for f, s in zip(fields, table):
        assert hints[f.name] is TYPES[s["type"]], f.name
        py = getattr(defaults, f.name)
        core = tuple(s["default"]) if isinstance(s["default"], list) else s["default"]
        assert py == core, f.name
        assert type(py) is TYPES[s["type"]], f.name
        if s["type"] in ("float3", "int_list"):
            assert all(type(x) is (int if s["type"] == "int_list" else float) for x in py), f.name
    assert PipelineConfig().to_core() == _core.default_config()


def test_docs_table_is_generated_from_the_table():
    r = subprocess.run(
        [sys.executable, str(REPO / "tools" / "gen_settings_doc.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    doc = (REPO / "docs" / "pipeline-config.md").read_text(encoding="utf-8")
    for s in _core.settings():
        assert f"| `{s['name']}` | {s['type']} |" in doc


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"det_thresh": "0.3"}, r"det_thresh must be a number in \(0, 1\), got '0.3' \(a string\)"),
        (
            {"cls_batch": 1e10},
            r"cls_batch must be an integer in \[1, 256\], got 10000000000 \(a float\)",
        ),
        ({"cls_batch": 6.0}, r"cls_batch must be an integer"),
        ({"cls_batch": 10**40}, r"cls_batch must be an integer in \[1, 256\]"),
        ({"rec_batch": True}, r"rec_batch must be an integer"),
        ({"use_cls": "yes"}, r"use_cls must be true or false"),
        ({"use_cls": None}, r"use_cls must be true or false, got None \(NoneType\)"),
        ({"det_limit_type": "medium"}, r"det_limit_type must be 'min' or 'max', got 'medium'"),
        ({"det_mean": (0.5, 0.5)}, r"det_mean must be 3 numbers"),
        ({"det_std": (0.5, 0.0, 0.5)}, r"det_std must be 3 numbers, each in \(0, 10\]"),
        ({"det_unclip_ratio": float("nan")}, r"det_unclip_ratio must be a number in \(0, 100\]"),
        ({"drop_score": float("inf")}, r"drop_score"),
        ({"rec_width_buckets": ()}, r"rec_width_buckets must be 1 to 1024 integers"),
        ({"rec_width_buckets": range(10**9)}, r"rec_width_buckets must be 1 to 1024 integers"),
        ({"rec_width_buckets": (320, 4)}, r"each in \[8, 16384\]"),
        ({"det_max_side_len": 20000}, r"det_max_side_len must be an integer in \[32, 8192\]"),
        ({"det_limit_side_len": -1}, r"det_limit_side_len"),
        ({"det_max_upscale": 0.5}, r"det_max_upscale must be a number in \[1, 1000\]"),
        ({"det_max_upscale": float("nan")}, r"det_max_upscale"),
    ],
)
def test_bad_values_name_the_setting_and_the_range(kw, match):
    with pytest.raises(InvalidInputError, match=match):
        PipelineConfig(**kw)
    with pytest.raises(InvalidInputError, match=match):
        dataclasses.replace(PipelineConfig(), **kw)


def test_predictor_keywords_go_through_the_table(v4_paths):
    # Refused before any model is loaded, never pybind11's "Unable to cast".
    for kw, match in [
        ({"det_thresh": "0.3"}, "det_thresh must be a number in"),
        ({"cls_batch": 1e10}, r"cls_batch must be an integer in \[1, 256\]"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            edgeocr.Predictor(models="ppocr-v4-mobile", **kw)


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    "kw, match",
    [
        # NaN and inf were written as JSON the core could not parse ("settings are not a JSON
        # object"): each keyword is now checked by the table first, and named.
        ({"det_thresh": NAN}, "det_thresh must be a number in"),
        ({"det_unclip_ratio": INF}, "det_unclip_ratio must be a number in"),
        ({"det_mean": [NAN] * 3}, "det_mean must be"),
        ({"rec_batch": {1, 2}}, "rec_batch must be"),
        ({"det_treshold": 0.3}, "unknown pipeline setting 'det_treshold'"),
        # use_cls is a Predictor argument: it went through bool() ("x" and NaN meant True)
        ({"use_cls": "x"}, "use_cls must be true or false"),
        ({"use_cls": NAN}, "use_cls must be true or false"),
        ({"config": {"det_thresh": 0.3}}, "config must be an edgeocr.PipelineConfig"),
        # budgets and threads past what the core takes: OverflowError / pybind11 TypeError
        ({"max_memory_mb": INF}, "max_memory_mb must be a positive number"),
        ({"max_memory_mb": 1e30}, "max_memory_mb must be a positive number"),
        ({"max_memory_mb": NAN}, "max_memory_mb must be a positive number"),
        ({"threads": 2**40}, r"threads must be an integer in \[0, 1024\]"),
        ({"spinning": "x"}, "spinning must be True or False"),
        ({"memory_pattern": "x"}, "memory_pattern must be True or False"),
        ({"models": ["ppocr-v4-mobile"]}, "a model set name is a str"),
        # 2 * workers decoded images may be held: 2^40 was accepted
        ({"workers": 2**40}, r"workers must be an integer in \[1, 1024\]"),
    ],
)
def test_hostile_predictor_arguments_are_named_before_loading(kw, match):
    kw.setdefault("models", "ppocr-v4-mobile")
    with pytest.raises(InvalidInputError, match=match):
        edgeocr.Predictor(**kw)


def test_values_are_stored_as_the_core_holds_them():
    c = PipelineConfig(
        det_thresh=1 / 3,
        det_box_thresh=1,
        det_mean=[1, 0, 0],
        rec_batch=np.int64(3),
        drop_score=np.float32(0.25),
        use_cls=0,
    )
    assert c.det_box_thresh == 1.0 and type(c.det_box_thresh) is float
    assert c.det_mean == (1.0, 0.0, 0.0)
    assert c.rec_batch == 3 and type(c.rec_batch) is int
    assert c.drop_score == 0.25 and c.use_cls is False
    assert c.det_thresh == pytest.approx(1 / 3, rel=1e-6)


def test_every_setting_reads_back_from_its_text():
    for s in _core.settings():
        assert _core.parse_setting(s["name"], s["default_text"]) == s["default"], s["name"]
    assert _core.parse_setting("rec_width_buckets", " [320, 640 ,960] ") == [320, 640, 960]
    assert _core.parse_setting("det_mean", "(0.4,0.5,0.6)") == [0.4, 0.5, 0.6]
    assert _core.parse_setting("use_cls", " false ") is False
    assert _core.parse_setting("use_cls", "1") is True
    assert _core.parse_setting("det_thresh", "2.5e-1") == 0.25
    for name, text in [
        # Text is read as the same JSON token in a bundle manifest would be (docs/c-api.md).
        ("det_limit_side_len", "0100"),
        ("det_limit_side_len", "+736"),
        ("det_limit_side_len", "0x100"),
        ("det_limit_side_len", "736.0"),
        ("det_limit_side_len", "1e3"),
        ("det_thresh", ".4"),
        ("det_thresh", "4."),
        ("det_thresh", "+0.3"),
        ("det_thresh", "inf"),
        ("use_cls", "yes"),
        ("use_cls", "TRUE"),
        ("use_cls", "OFF"),
        ("det_thresh", "0,3"),
        ("det_thresh", "0.3x"),
        ("rec_batch", "6.5"),
        ("rec_batch", ""),
        ("det_mean", "1,2"),
        ("use_cls", "2"),
        ("rec_width_buckets", "320,,640"),
        ("det_thresh", "nan"),
    ]:
        with pytest.raises(InvalidInputError, match=name):
            _core.parse_setting(name, text)
    with pytest.raises(InvalidInputError, match="unknown pipeline setting 'det_treshold'"):
        _core.parse_setting("det_treshold", "0.3")


def test_text_is_read_as_the_manifest_reads_the_token():
    # C's key/value text, a bundle manifest (JSON) and Python values pass the same checks: text the
    # parser takes is the JSON value of the same token, and a token JSON refuses is refused.
    for name, text in [
        ("det_thresh", "0.25"),
        ("det_thresh", "2.5e-1"),
        ("det_thresh", "1E-1"),
        ("det_box_thresh", "1"),
        ("det_limit_side_len", "960"),
        ("use_cls", "true"),
        ("use_cls", "0"),
        ("rec_width_buckets", "[320, 640]"),
    ]:
        assert _core.parse_setting(name, text) == _core.check_setting(name, json.loads(text))
    for text in ["0100", "+736", ".4", "4.", "0x100", "TRUE", "yes", "-", "1e", "00"]:
        with pytest.raises(ValueError):
            json.loads(text)
        with pytest.raises(InvalidInputError):
            _core.parse_setting("det_thresh", text)


def test_messages_quote_caller_text_escaped():
    # The one quoting helper (csrc/common/text.h) that C's messages use: control characters and
    # backslashes escaped, on one line.
    with pytest.raises(InvalidInputError, match=r"got 'a\\x1Bb\\nc\\\\d' \(a string\)"):
        PipelineConfig(det_limit_type="a\x1bb\nc\\d")
    with pytest.raises(InvalidInputError, match=r"unknown pipeline setting 'det\\tthresh'"):
        _core.parse_setting("det\tthresh", "0.3")


def test_sizes_beyond_the_memory_limit_are_refused():
    # Each value is in its own range; together they would need more than 1 GiB per call.
    with pytest.raises(InvalidInputError, match=r"rec_batch \(within rec_batch_columns\)"):
        PipelineConfig(
            rec_batch=256, rec_height=512, rec_width_buckets=(16384,), rec_batch_columns=0
        )
    # rec_batch_columns runs such a batch one line at a time: 96 MiB per run.
    PipelineConfig(rec_batch=256, rec_height=512, rec_width_buckets=(16384,))
    with pytest.raises(InvalidInputError, match="cls_batch x cls_height x cls_width"):
        PipelineConfig(cls_batch=256, cls_height=512, cls_width=4096)
    # The det side with the runtime's activations (192 bytes per pixel) in one run: 2336 px fits
    # in 1 GiB.
    PipelineConfig(det_max_side_len=2336, det_tile_pixels=0)
    with pytest.raises(
        InvalidInputError, match=r"det inputs up to 2368 px square, which need 1026\.[78] MiB"
    ):
        PipelineConfig(det_max_side_len=2337, det_tile_pixels=0)
    with pytest.raises(InvalidInputError, match="det_max_side_len"):
        _core.validate_config({"det_max_side_len": 4000, "det_tile_pixels": 0}, max_memory_mb=2900)
    _core.validate_config({"det_max_side_len": 4000, "det_tile_pixels": 0}, max_memory_mb=2944)
    # In tiles (the default: at most 2^21 pixels per run) only the stitched map grows with the side.
    PipelineConfig(det_max_side_len=8192)
    with pytest.raises(InvalidInputError, match="det_max_side_len"):
        PipelineConfig(det_max_side_len=8192, det_tile_pixels=5_000_000)
    # With 'max', the smaller of the two sides bounds the det input.
    PipelineConfig(det_limit_type="max", det_limit_side_len=960, det_max_side_len=8192)
    # max_memory_mb above the default limit allows more.
    big = dict(
        rec_batch=256, rec_height=512, rec_width_buckets=(2048,), rec_batch_columns=0
    )  # 3 GiB
    with pytest.raises(InvalidInputError, match="rec_batch"):
        _core.validate_config(big)
    _core.validate_config(big, max_memory_mb=4096)
    # With a cap, what every call needs must fit it: the input of one line (a budget's planner
    # runs smaller batches, so a full batch need not fit).
    _core.validate_config({"cls_batch": 64, "cls_width": 512}, max_memory_mb=1)
    with pytest.raises(
        InvalidInputError,
        match=r"one line of cls_height x cls_width need 24\.0 MiB.*than 1\.0 MiB \(max_memory_mb\)",
    ):
        _core.validate_config({"cls_height": 512, "cls_width": 4096}, max_memory_mb=1)
    _core.validate_config({}, max_memory_mb=32)


def test_predictor_refuses_sizes_beyond_its_cap_before_running(v4_paths):
    with pytest.raises(InvalidInputError, match="max_memory_mb"):
        edgeocr.Predictor(
            models="ppocr-v4-mobile", max_memory_mb=2, rec_width_buckets=(8192,), threads=1
        )
