"""Attack sweep on edgeocr's public surfaces (the harden session of 2026-12-01).

    python tools/attack_sweep.py [--only PREFIX,...] [--out results.jsonl] [--list] [--env]

About 1190 cases: every PipelineConfig field and Predictor argument with hostile values
(NaN, inf, huge, wrong types), model sources (bytes, views, devices, pipes, folders,
wrong roles), keys, PIL modes, numpy dtypes/shapes/strides, image formats as files and bytes,
paths that are not files, batches, recognize, draw, Model.run inputs and session options,
threads, budgets, the command lines (predict, convert, eval, bench, edgeocr-pack) and
EDGEOCR_* environment variables. Not part of the test suite (it takes 15-30 minutes on 2
loaded cores); the defects it found have regression tests beside their fixes.

Every case runs in a child process (a group of cases per child, restarted
after a crash) under RLIMIT_AS 4 GiB, RLIMIT_CPU and a per-case watchdog
(faulthandler.dump_traceback_later(exit=True)). Each case is classified:

  clear      an edgeocr.EdgeOCRError subclass
  result     a result (summary recorded; check it is right, not silently empty)
  unclear    another exception (raw RuntimeError/ValueError/TypeError/...)
  crash      the child died by a signal
  hang       the watchdog fired
  memory     MemoryError / bad_alloc ResourceError or peak RSS growth above 1 GiB
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
PAGE = DATA / "sample_en.png"
LINE = DATA / "line_en.png"
CASE_TIMEOUT = int(os.environ.get("ATTACK_CASE_TIMEOUT", "60"))
AS_BYTES = 4 << 30

CASES: dict = {}


def case(name):
    def deco(fn):
        CASES[name] = fn
        return fn

    return deco


# ---------------------------------------------------------------------------
# Context shared by the cases of one child (lazily built).


class Ctx:
    def __init__(self, work: Path):
        self.work = work
        self._p = None
        self._line_text = None

    @property
    def v4(self):
        from edgeocr.models import resolve_model_set

        return {k: str(v) for k, v in resolve_model_set("ppocr-v4-mobile").items()}

    def predictor(self):
        import edgeocr

        if self._p is None:
            self._p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1)
        return self._p

    def line_text(self):
        if self._line_text is None:
            self._line_text = [ln.text for ln in self.predictor().predict(str(LINE)).lines]
        return self._line_text

    def bgr(self, which=LINE):
        import cv2

        return cv2.imread(str(which))

    def pil(self, which=LINE):
        from PIL import Image

        return Image.open(which).convert("RGB")

    def file(self, name, data: bytes) -> str:
        p = self.work / name
        p.write_bytes(data)
        return str(p)


def summary(r):
    """A result's summary."""
    from edgeocr.results import OcrLine, OcrResult

    if isinstance(r, OcrResult):
        return {"lines": [ln.text for ln in r.lines]}
    if isinstance(r, OcrLine):
        return {"line": r.text, "score": round(r.score, 3)}
    if isinstance(r, list):
        return [summary(x) for x in r]
    if isinstance(r, dict):
        return {k: summary(v) for k, v in r.items()}
    if hasattr(r, "shape"):
        return f"array{tuple(r.shape)} {r.dtype}"
    return repr(r)[:300]


def same_as_line(ctx, r):
    """A result compared with the reference reading of line_en.png."""
    got = [ln.text for ln in r.lines]
    return {"lines": got, "same_as_reference": got == ctx.line_text()}


# ---------------------------------------------------------------------------
# Predictor construction: settings


def _settings_cases():
    bad_values = {
        "nan": float("nan"),
        "inf": float("inf"),
        "ninf": float("-inf"),
        "neg": -1,
        "zero": 0,
        "huge_int": 10**12,
        "big_int": 2**64,
        "str": "abc",
        "none": None,
        "list": [],
        "dict": {},
        "bool": True,
        "float_half": 1.5,
        "tiny": 1e-300,
        "nested_list": [[1]],
    }
    fields = [
        "det_limit_type",
        "det_limit_side_len",
        "det_max_side_len",
        "det_mean",
        "det_std",
        "det_thresh",
        "det_box_thresh",
        "det_unclip_ratio",
        "det_max_candidates",
        "det_use_dilation",
        "det_score_mode",
        "det_min_size",
        "use_cls",
        "cls_height",
        "cls_width",
        "cls_batch",
        "cls_thresh",
        "cls_verify",
        "cls_std",
        "rec_height",
        "rec_batch",
        "rec_width_buckets",
        "rec_batch_columns",
        "rec_std",
        "rotate_ratio",
        "drop_score",
        "rec_space_gap",
        "det_stretch_below",
        "rec_stretch_below",
    ]
    for f in fields:
        for vn, v in bad_values.items():

            def run(ctx, f=f, v=v):
                import edgeocr

                edgeocr.PipelineConfig(**{f: v})
                return "config accepted"

            CASES[f"config.{f}.{vn}"] = run

    # The Predictor keyword path (JSON to the C++ loader): fewer values, every field.
    for f in fields:
        for vn in ("nan", "inf", "big_int", "str", "list", "none"):

            def run(ctx, f=f, v=bad_values[vn]):
                import edgeocr

                p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, **{f: v})
                return {"config": getattr(p.config, f)}

            CASES[f"predictor_kw.{f}.{vn}"] = run
    # Special list values
    for name, v in {
        "buckets_empty": [],
        "buckets_descending": [640, 320],
        "buckets_zero": [0],
        "buckets_negative": [-320],
        "buckets_huge": [10**9],
        "buckets_many": list(range(32, 32 * 5000, 32)),
        "buckets_dup": [320, 320],
        "buckets_float": [320.5],
        "mean_4": [0.5, 0.5, 0.5, 0.5],
        "std_zero": [0.0, 0.0, 0.0],
        "std_neg": [-1.0, 1.0, 1.0],
        "mean_nan": [float("nan")] * 3,
        "mean_str": ["a", "b", "c"],
    }.items():
        key = (
            "rec_width_buckets"
            if name.startswith("buckets")
            else ("det_std" if name.startswith("std") else "det_mean")
        )

        def run(ctx, key=key, v=v):
            import edgeocr

            p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, **{key: v})
            return same_as_line(ctx, p.predict(str(LINE)))

        CASES[f"predictor_list.{name}"] = run


_settings_cases()


@case("predictor_kw.unknown_key")
def _(ctx):
    import edgeocr

    edgeocr.Predictor(models="ppocr-v4-mobile", det_treshold=0.3)


@case("predictor_kw.config_not_config")
def _(ctx):
    import edgeocr

    edgeocr.Predictor(models="ppocr-v4-mobile", config={"det_thresh": 0.3})


@case("predictor_kw.config_from_dict_unknown")
def _(ctx):
    import edgeocr

    edgeocr.PipelineConfig.from_dict({"nope": 1})


@case("predictor_kw.config_from_dict_not_dict")
def _(ctx):
    import edgeocr

    edgeocr.PipelineConfig.from_dict([1, 2])


@case("predictor_kw.non_json_value")
def _(ctx):
    import edgeocr

    edgeocr.Predictor(models="ppocr-v4-mobile", det_thresh=object())


@case("predictor_kw.numpy_float")
def _(ctx):
    import numpy as np

    import edgeocr

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, det_thresh=np.float32(0.3))
    return {"det_thresh": p.config.det_thresh}


@case("predictor_kw.numpy_int")
def _(ctx):
    import numpy as np

    import edgeocr

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, rec_batch=np.int64(4))
    return {"rec_batch": p.config.rec_batch}


def _arg_cases():
    args = {
        "threads": [-1, 2**40, 1.5, "2", True, float("nan")],
        "workers": [0, -1, 2**40, 1.5, "2", None],
        "max_memory_mb": [
            float("nan"),
            float("inf"),
            -1,
            0,
            1e30,
            2**70,
            "100",
            True,
            1e-9,
            0.001,
        ],
        "max_image_pixels": [0, -1, 2**70, 1.5, "x", True],
        "precision": ["bogus", 5, "", "FP32", None],
        "memory_arena": ["x", None, 1],
        "memory_pattern": ["x"],
        "spinning": ["x"],
        "arm64_bf16_fastmath": ["x", 1],
        "use_cls": ["x", None],
        "task": ["cls", 5, ""],
        "preprocess": [5],
        "ort_library": ["/nonexistent/libonnxruntime.so", "/etc/passwd", "", "/tmp"],
    }
    for a, vals in args.items():
        for i, v in enumerate(vals):

            def run(ctx, a=a, v=v):
                import edgeocr

                kw = {"threads": 1} if a != "threads" else {}
                kw[a] = v
                p = edgeocr.Predictor(models="ppocr-v4-mobile", **kw)
                r = p.predict(str(LINE))
                return {"made": True, **same_as_line(ctx, r)}

            CASES[f"predictor_arg.{a}.{i}_{str(v)[:20]}"] = run


_arg_cases()


@case("predictor_arg.preprocess_returns_none")
def _(ctx):
    import edgeocr

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, preprocess=lambda im: None)
    return summary(p.predict(str(LINE)))


@case("predictor_arg.preprocess_returns_float")
def _(ctx):
    import edgeocr

    p = edgeocr.Predictor(
        models="ppocr-v4-mobile", threads=1, preprocess=lambda im: im.astype("float32")
    )
    return summary(p.predict(str(LINE)))


@case("predictor_arg.preprocess_raises")
def _(ctx):
    import edgeocr

    def bad(im):
        raise KeyError("boom")

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, preprocess=bad)
    return summary(p.predict(str(LINE)))


@case("predictor_arg.preprocess_returns_huge_view")
def _(ctx):
    import numpy as np

    import edgeocr

    p = edgeocr.Predictor(
        models="ppocr-v4-mobile",
        threads=1,
        preprocess=lambda im: np.broadcast_to(np.uint8(0), (60000, 60000)),
    )
    return summary(p.predict(str(LINE)))


# ---------------------------------------------------------------------------
# Predictor construction: model sources


def _model_source_cases():
    def onnx_bytes(ctx):
        return Path(ctx.v4["det"]).read_bytes()

    srcs = {
        "int": lambda ctx: 5,
        "empty_str": lambda ctx: "",
        "nonexistent": lambda ctx: "/nonexistent/model.onnx",
        "models_name_typo": lambda ctx: "ppocr-v4-mobil",
        "empty_bytes": lambda ctx: b"",
        "garbage_bytes": lambda ctx: b"\x00garbage" * 100,
        "garbage_bytearray": lambda ctx: bytearray(b"garbage" * 100),
        "det_bytes": onnx_bytes,
        "det_bytes_memoryview": lambda ctx: memoryview(onnx_bytes(ctx)),
        "det_bytes_reversed_view": lambda ctx: memoryview(
            __import__("numpy").frombuffer(onnx_bytes(ctx), "uint8")[::-1]
        ),
        "det_bytes_strided_view": lambda ctx: memoryview(
            __import__("numpy").frombuffer(onnx_bytes(ctx) * 2, "uint8")[::2]
        ),
        "det_bytes_2d_noncontig": lambda ctx: memoryview(
            __import__("numpy")
            .frombuffer(onnx_bytes(ctx)[: 1000 * 100], "uint8")
            .reshape(1000, 100)[:, :50]
        ),
        "empty_dir": lambda ctx: str(_mkdir(ctx, "empty_dir")),
        "dir_garbage_models": lambda ctx: str(
            _mkdir(ctx, "garbage_dir", {"det.onnx": b"junk", "rec.onnx": b"junk"})
        ),
        "dir_only_cls": lambda ctx: str(_mkdir(ctx, "cls_dir", {"cls.onnx": b"junk"})),
        "garbage_onnx_file": lambda ctx: ctx.file("g.onnx", b"not a model"),
        "empty_onnx_file": lambda ctx: ctx.file("e.onnx", b""),
        "garbage_ort_file": lambda ctx: ctx.file("g.ort", b"ORTM" + b"\0" * 100),
        "garbage_nb_file": lambda ctx: ctx.file("g.nb", b"\x00" * 64),
        "garbage_eocr_file": lambda ctx: ctx.file("g.eocr", b"PK\x03\x04" + b"\0" * 100),
        "txt_file": lambda ctx: ctx.file("x.txt", b"hello"),
        "dev_null": lambda ctx: "/dev/null",
        "dev_zero": lambda ctx: "/dev/zero",
        "dev_zero_onnx_symlink": lambda ctx: _symlink(ctx, "/dev/zero", "z.onnx"),
        "dev_zero_nb_symlink": lambda ctx: _symlink(ctx, "/dev/zero", "z.nb"),
        "dev_zero_eocr_symlink": lambda ctx: _symlink(ctx, "/dev/zero", "z.eocr"),
        "dev_urandom_onnx_symlink": lambda ctx: _symlink(ctx, "/dev/urandom", "u.onnx"),
        "fifo_onnx": lambda ctx: _fifo(ctx, "f.onnx"),
        "proc_self_mem": lambda ctx: "/proc/self/mem",
        "path_with_nul": lambda ctx: "a\x00b.onnx",
        "pathlike_raises": lambda ctx: _BadPath(),
        "cls_model_as_single": lambda ctx: ctx.v4["cls"],
        "list_of_paths": lambda ctx: [ctx.v4["det"], ctx.v4["rec"]],
        "dict_of_paths": lambda ctx: {"det": ctx.v4["det"]},
    }
    for name, make in srcs.items():

        def run(ctx, make=make):
            import edgeocr

            src = make(ctx)
            p = edgeocr.Predictor(src, threads=1)
            return {"made": repr(p), **summary(p.predict(str(LINE)))}

        CASES[f"model_src.{name}"] = run

        def run_model(ctx, make=make):
            import edgeocr

            src = make(ctx)
            if isinstance(src, (bytes, bytearray, memoryview)):
                m = edgeocr.Model(data=src)
            else:
                m = edgeocr.Model(src)
            return {"inputs": repr(m.inputs)}

        CASES[f"model_obj.{name}"] = run_model

    def det_role(ctx, **kw):
        import edgeocr

        p = edgeocr.Predictor(**kw, threads=1)
        return summary(p.predict(str(LINE)))

    CASES["model_src.det_is_rec"] = lambda ctx: det_role(ctx, det=ctx.v4["rec"], rec=ctx.v4["rec"])
    CASES["model_src.rec_is_det"] = lambda ctx: det_role(ctx, det=ctx.v4["det"], rec=ctx.v4["det"])
    CASES["model_src.cls_is_rec"] = lambda ctx: det_role(
        ctx, det=ctx.v4["det"], cls=ctx.v4["rec"], rec=ctx.v4["rec"]
    )
    CASES["model_src.cls_is_det"] = lambda ctx: det_role(
        ctx, det=ctx.v4["det"], cls=ctx.v4["det"], rec=ctx.v4["rec"]
    )
    CASES["model_src.only_cls"] = lambda ctx: det_role(ctx, cls=ctx.v4["cls"])
    CASES["model_src.model_and_models"] = lambda ctx: det_role(
        ctx, model=ctx.v4["det"], models="ppocr-v4-mobile"
    )
    CASES["model_src.det_int"] = lambda ctx: det_role(ctx, det=5, rec=ctx.v4["rec"])
    CASES["model_src.models_int"] = lambda ctx: det_role(ctx, models=5)
    CASES["model_src.models_list"] = lambda ctx: det_role(ctx, models=["ppocr-v4-mobile"])


class _BadPath:
    def __fspath__(self):
        raise RuntimeError("no path for you")


def _mkdir(ctx, name, files=None):
    d = ctx.work / name
    d.mkdir(exist_ok=True)
    for k, v in (files or {}).items():
        (d / k).write_bytes(v)
    return d


def _symlink(ctx, target, name):
    p = ctx.work / name
    if not p.exists():
        os.symlink(target, p)
    return str(p)


def _fifo(ctx, name):
    p = ctx.work / name
    if not p.exists():
        os.mkfifo(p)
    return str(p)


_model_source_cases()


# keys
def _keys_cases():
    def rec_with_keys(ctx, keys):
        import edgeocr

        # the v4 rec carries its dictionary; keys= overrides it
        p = edgeocr.Predictor(det=ctx.v4["det"], rec=ctx.v4["rec"], keys=keys, threads=1)
        return summary(p.predict(str(LINE)))

    ks = {
        "int": lambda ctx: 5,
        "empty_list": lambda ctx: [],
        "list_of_empty": lambda ctx: [""],
        "list_ints": lambda ctx: [1, 2, 3],
        "list_none": lambda ctx: [None] * 10,
        "list_multichar": lambda ctx: ["ab"] * 6623,
        "list_newlines": lambda ctx: ["a\nb"] * 6623,
        "list_nul": lambda ctx: ["\x00"] * 6623,
        "list_surrogate": lambda ctx: ["\ud800"] * 6623,
        "list_wrong_len": lambda ctx: list("abc"),
        "list_huge": lambda ctx: ["a"] * 10_000_000,
        "nonexistent_file": lambda ctx: "/nonexistent/keys.txt",
        "empty_file": lambda ctx: ctx.file("empty_keys.txt", b""),
        "binary_file": lambda ctx: ctx.file("bin_keys.txt", bytes(range(256)) * 100),
        "latin1_file": lambda ctx: ctx.file("latin_keys.txt", "é\n".encode("latin-1") * 6623),
        "dir": lambda ctx: str(ctx.work),
        "dev_zero": lambda ctx: "/dev/zero",
        "bytes": lambda ctx: b"a\nb\n",
        "dict": lambda ctx: {"a": 1},
        "generator": lambda ctx: (c for c in "abc"),
    }
    for name, make in ks.items():
        CASES[f"keys.{name}"] = lambda ctx, make=make: rec_with_keys(ctx, make(ctx))


_keys_cases()


# ---------------------------------------------------------------------------
# predict() inputs


def _pil_modes():
    modes = [
        "1",
        "L",
        "P",
        "RGB",
        "RGBA",
        "CMYK",
        "YCbCr",
        "LAB",
        "HSV",
        "I",
        "F",
        "I;16",
        "I;16B",
        "I;16L",
        "I;16N",
        "LA",
        "PA",
        "RGBX",
        "RGBa",
        "La",
    ]
    for m in modes:

        def run(ctx, m=m):
            im = ctx.pil()
            try:
                conv = im.convert(m)
            except Exception as e:  # noqa: BLE001
                if m.startswith("I;16"):
                    import numpy as np
                    from PIL import Image

                    a = np.asarray(im.convert("L")).astype(np.uint16) * 257
                    conv = (
                        Image.fromarray(a, "I;16").convert(m) if m != "I;16" else Image.fromarray(a)
                    )
                else:
                    return {"convert_failed": f"{type(e).__name__}: {e}"}
            return {"mode": conv.mode, **same_as_line(ctx, ctx.predictor().predict(conv))}

        CASES[f"pil_mode.{m}"] = run


_pil_modes()


@case("pil.truncated_lazy")
def _(ctx):
    from PIL import Image

    data = LINE.read_bytes()
    p = ctx.file("trunc.png", data[: len(data) // 2])
    return summary(ctx.predictor().predict(Image.open(p)))


@case("pil.truncated_jpeg_lazy")
def _(ctx):
    from PIL import Image

    b = io.BytesIO()
    ctx.pil().save(b, "JPEG")
    data = b.getvalue()
    return summary(ctx.predictor().predict(Image.open(io.BytesIO(data[: len(data) // 2]))))


@case("pil.closed")
def _(ctx):
    from PIL import Image

    im = Image.open(LINE)
    im.close()
    return summary(ctx.predictor().predict(im))


@case("pil.zero_size")
def _(ctx):
    from PIL import Image

    return summary(ctx.predictor().predict(Image.new("RGB", (0, 0))))


@case("pil.zero_width")
def _(ctx):
    from PIL import Image

    return summary(ctx.predictor().predict(Image.new("L", (0, 10))))


@case("pil.F_nan")
def _(ctx):
    import numpy as np
    from PIL import Image

    return summary(ctx.predictor().predict(Image.fromarray(np.full((20, 20), np.nan, np.float32))))


@case("pil.I_negative")
def _(ctx):
    import numpy as np
    from PIL import Image

    a = np.asarray(ctx.pil().convert("L")).astype(np.int32) - 1000
    return same_as_line(ctx, ctx.predictor().predict(Image.fromarray(a, "I")))


@case("pil.animated_gif_second_frame")
def _(ctx):
    from PIL import Image

    im = ctx.pil()
    b = io.BytesIO()
    im.save(b, "GIF", save_all=True, append_images=[im.convert("L")])
    g = Image.open(io.BytesIO(b.getvalue()))
    g.seek(1)
    return same_as_line(ctx, ctx.predictor().predict(g))


@case("pil.huge_lazy_header")
def _(ctx):
    import struct
    import warnings
    import zlib

    from PIL import Image

    def chunk(k, d):
        return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 20000, 20000, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        im = Image.open(io.BytesIO(png))
    return summary(ctx.predictor().predict(im))


def _numpy_cases():
    import numpy as np

    def dt(d, scale=None):
        def make(ctx):
            a = ctx.bgr()
            if scale == "unit":
                return a.astype(d) / 255.0
            return a.astype(d)

        return make

    arrs = {
        "int8": dt(np.int8),
        "int16": dt(np.int16),
        "int32": dt(np.int32),
        "int64": dt(np.int64),
        "uint32": dt(np.uint32),
        "uint64": dt(np.uint64),
        "uint16_8bit_values": dt(np.uint16),
        "float32_255": dt(np.float32),
        "float32_unit": dt(np.float32, "unit"),
        "float64": dt(np.float64),
        "longdouble": dt(np.longdouble),
        "str_dtype": lambda ctx: np.array([["a", "b"], ["c", "d"]]),
        "bytes_dtype": lambda ctx: np.array([[b"a", b"b"], [b"c", b"d"]]),
        "datetime": lambda ctx: np.zeros((10, 10), "datetime64[s]"),
        "timedelta": lambda ctx: np.zeros((10, 10), "timedelta64[s]"),
        "void": lambda ctx: np.zeros((10, 10), "V3"),
        "uint8_subarray_dtype": lambda ctx: np.zeros((10, 10), dtype=("u1", (3,))),
        "masked": lambda ctx: np.ma.masked_array(ctx.bgr(), mask=False),
        "matrix": lambda ctx: np.asmatrix(ctx.bgr()[:, :, 0]),
        "memmap": lambda ctx: _memmap(ctx),
        "bigendian_u2": lambda ctx: ctx.bgr().astype(">u2") * 257,
        "unaligned_u2": lambda ctx: _unaligned_u2(ctx),
        "misaligned_strides": lambda ctx: _odd_strides(ctx),
        "zero_stride_cols": lambda ctx: np.broadcast_to(ctx.bgr()[:, :1], ctx.bgr().shape),
        "zero_stride_rows_full": lambda ctx: np.broadcast_to(
            ctx.bgr()[:1], (5000, *ctx.bgr().shape[1:])
        ),
        "neg_stride_all": lambda ctx: ctx.bgr()[::-1, ::-1, ::-1],
        "channel_last_4": lambda ctx: np.dstack(
            [ctx.bgr(), np.zeros(ctx.bgr().shape[:2], np.uint8)]
        ),
        "alpha_zero_everywhere": lambda ctx: np.dstack(
            [ctx.bgr(), np.zeros(ctx.bgr().shape[:2], np.uint8)]
        ),
        "side_32769": lambda ctx: np.full((10, 32769), 255, np.uint8),
        "side_70000_thin": lambda ctx: np.full((2, 70000), 255, np.uint8),
        "chw_layout": lambda ctx: np.ascontiguousarray(ctx.bgr().transpose(2, 0, 1)),
        "hw3_with_batch1_first": lambda ctx: ctx.bgr()[None],
        "python_nested_list": lambda ctx: ctx.bgr().tolist(),
        "tuple": lambda ctx: (1, 2, 3),
        "int": lambda ctx: 5,
        "float": lambda ctx: 1.5,
        "dict": lambda ctx: {"image": str(LINE)},
        "list_of_paths": lambda ctx: [str(LINE)],
        "array_like_raises": lambda ctx: _ArrayLikeRaises(),
        "array_like_ok": lambda ctx: _ArrayLike(ctx.bgr()),
        "pathlike": lambda ctx: Path(LINE),
        "pathlike_str_subclass": lambda ctx: type("S", (str,), {})(str(LINE)),
        "bytes_path": lambda ctx: str(LINE).encode(),
        "cv2_umat": lambda ctx: __import__("cv2").UMat(ctx.bgr()),
    }
    for name, make in arrs.items():

        def run(ctx, make=make):
            x = make(ctx)
            r = ctx.predictor().predict(x)
            return same_as_line(ctx, r)

        CASES[f"numpy.{name}"] = run


class _ArrayLikeRaises:
    def __array__(self, *a, **k):
        raise RuntimeError("no array")


class _ArrayLike:
    def __init__(self, a):
        self.a = a

    def __array__(self, *a, **k):
        return self.a


def _memmap(ctx):
    import numpy as np

    a = ctx.bgr()
    p = ctx.work / "mm.bin"
    m = np.memmap(p, dtype=np.uint8, mode="w+", shape=a.shape)
    m[:] = a
    return m


def _unaligned_u2(ctx):
    import numpy as np

    a = ctx.bgr().astype(np.uint16) * 257
    buf = np.zeros(a.nbytes + 1, np.uint8)
    v = np.ndarray(a.shape, np.uint16, buf, offset=1)
    v[:] = a
    return v


def _odd_strides(ctx):
    import numpy as np

    a = ctx.bgr()
    h, w, c = a.shape
    buf = np.zeros(h * (w * c + 7), np.uint8)
    v = np.lib.stride_tricks.as_strided(buf, (h, w, c), (w * c + 7, c, 1))
    v[:] = a
    return v


_numpy_cases()


def _file_cases():
    fmts = {
        "png": ("PNG", {}),
        "jpeg": ("JPEG", {"quality": 95}),
        "bmp": ("BMP", {}),
        "gif": ("GIF", {}),
        "tiff": ("TIFF", {}),
        "tiff_lzw": ("TIFF", {"compression": "tiff_lzw"}),
        "tiff_jpeg": ("TIFF", {"compression": "jpeg"}),
        "webp_lossless": ("WEBP", {"lossless": True}),
        "webp_lossy": ("WEBP", {"quality": 95}),
        "ppm": ("PPM", {}),
        "tga": ("TGA", {}),
        "pcx": ("PCX", {}),
        "ico": ("ICO", {"sizes": [(256, 46)]}),
        "jpeg2000": ("JPEG2000", {}),
        "im": ("IM", {}),
        "sgi": ("SGI", {}),
        "dds": ("DDS", {}),
        "qoi": ("QOI", {}),
        "xbm": ("XBM", {}),
        "eps": ("EPS", {}),
        "pdf": ("PDF", {}),
        "spider": ("SPIDER", {}),
    }
    for name, (fmt, kw) in fmts.items():
        for mode in ("RGB", "L"):

            def make(ctx, fmt=fmt, kw=kw, mode=mode):
                im = ctx.pil()
                if fmt == "XBM":
                    im = im.convert("1")
                elif fmt == "SPIDER":
                    im = im.convert("F")
                else:
                    im = im.convert(mode)
                b = io.BytesIO()
                im.save(b, fmt, **kw)
                return b.getvalue()

            def run_file(ctx, make=make, name=name, mode=mode):
                p = ctx.file(f"img_{name}_{mode}.{name.split('_')[0]}", make(ctx))
                return same_as_line(ctx, ctx.predictor().predict(p))

            def run_bytes(ctx, make=make):
                return same_as_line(ctx, ctx.predictor().predict(make(ctx)))

            CASES[f"format_file.{name}.{mode}"] = run_file
            CASES[f"format_bytes.{name}.{mode}"] = run_bytes

    extra = {
        "tiff_16bit": lambda ctx: _tiff16(ctx),
        "tiff_float": lambda ctx: _save(ctx.pil().convert("F"), "TIFF"),
        "tiff_cmyk": lambda ctx: _save(ctx.pil().convert("CMYK"), "TIFF"),
        "tiff_lab": lambda ctx: _save(ctx.pil().convert("LAB"), "TIFF"),
        "tiff_ycbcr_jpeg": lambda ctx: _save(ctx.pil(), "TIFF", compression="jpeg"),
        "tiff_two_pages": lambda ctx: _save(
            ctx.pil(), "TIFF", save_all=True, append_images=[ctx.pil()]
        ),
        "png_16bit_rgb_pil": lambda ctx: _png16(ctx),
        "pbm_ascii": lambda ctx: _pnm_ascii(ctx, "P1"),
        "pgm_ascii": lambda ctx: _pnm_ascii(ctx, "P2"),
        "ppm_ascii": lambda ctx: _pnm_ascii(ctx, "P3"),
        "pgm_16bit": lambda ctx: _pgm16(ctx),
        "pfm": lambda ctx: _pfm(ctx),
        "pam": lambda ctx: _pam(ctx),
        "svg": lambda ctx: (
            b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
            b'<text x="0" y="50">Hi</text></svg>'
        ),
        "html": lambda ctx: b"<html><body>hello</body></html>",
        "zip": lambda ctx: b"PK\x05\x06" + b"\0" * 18,
        "gzip_png": lambda ctx: __import__("gzip").compress(LINE.read_bytes()),
        "utf16_text": lambda ctx: "hello".encode("utf-16"),
        "random_64k": lambda ctx: os.urandom(65536),
        "zeros_10m": lambda ctx: b"\0" * (10 << 20),
        "png_then_garbage": lambda ctx: LINE.read_bytes() + os.urandom(1 << 20),
        "two_pngs_concat": lambda ctx: LINE.read_bytes() + PAGE.read_bytes(),
        "jpeg_exif_rotated": lambda ctx: _jpeg_exif_orient(ctx, 3),
        "jpeg_exif_rot90": lambda ctx: _jpeg_exif_orient(ctx, 6),
        "webp_animated": lambda ctx: _save(
            ctx.pil(), "WEBP", save_all=True, append_images=[ctx.pil()], lossless=True
        ),
        "apng_two_frames": lambda ctx: _save(
            ctx.pil(), "PNG", save_all=True, append_images=[ctx.pil().convert("L").convert("RGB")]
        ),
        "gif_transparent_bg": lambda ctx: _save(ctx.pil().convert("P"), "GIF", transparency=0),
        "png_palette_1bit": lambda ctx: _save(ctx.pil().convert("1"), "PNG"),
        "png_rgba_transparent_ink": lambda ctx: _rgba_ink(ctx),
        "png_la": lambda ctx: _save(ctx.pil().convert("LA"), "PNG"),
        "png_16bit_gray_alpha": lambda ctx: _png16_la(ctx),
        "jpeg_cmyk_adobe": lambda ctx: _save(ctx.pil().convert("CMYK"), "JPEG", quality=95),
        "jpeg_12bit_header": lambda ctx: _jpeg_12bit(ctx),
        "jpeg_arith": lambda ctx: _jpeg_sof(ctx, 0xC9),
        "jpeg_lossless_sof3": lambda ctx: _jpeg_sof(ctx, 0xC3),
        "bmp_rle8": lambda ctx: _bmp_rle8(ctx),
        "bmp_32bit_alpha": lambda ctx: _save(ctx.pil().convert("RGBA"), "BMP"),
        "bmp_16bit": lambda ctx: _bmp16(ctx),
        "bmp_top_down": lambda ctx: _bmp_topdown(ctx),
    }
    for name, make in extra.items():

        def run_bytes(ctx, make=make):
            return same_as_line(ctx, ctx.predictor().predict(make(ctx)))

        def run_file(ctx, make=make, name=name):
            p = ctx.file(f"x_{name}.bin", make(ctx))
            return same_as_line(ctx, ctx.predictor().predict(p))

        CASES[f"format_extra.{name}"] = run_bytes
        CASES[f"format_extra_file.{name}"] = run_file


def _save(im, fmt, **kw):
    b = io.BytesIO()
    im.save(b, fmt, **kw)
    return b.getvalue()


def _tiff16(ctx):
    import numpy as np
    from PIL import Image

    a = np.asarray(ctx.pil().convert("L")).astype(np.uint16) * 257
    return _save(Image.fromarray(a), "TIFF")


def _png16(ctx):
    import cv2

    a = ctx.bgr().astype("uint16") * 257
    return cv2.imencode(".png", a)[1].tobytes()


def _png16_la(ctx):
    """A 16-bit gray PNG (OpenCV writes no 16-bit gray + alpha)."""
    import cv2
    import numpy as np

    g = cv2.cvtColor(ctx.bgr(), cv2.COLOR_BGR2GRAY).astype(np.uint16) * 257
    return cv2.imencode(".png", g)[1].tobytes()


def _pnm_ascii(ctx, magic):
    import numpy as np

    im = ctx.pil()
    if magic == "P1":
        a = (np.asarray(im.convert("L")) < 128).astype(int)
        maxv = None
    elif magic == "P2":
        a = np.asarray(im.convert("L"))
        maxv = 255
    else:
        a = np.asarray(im)
        maxv = 255
    h, w = a.shape[:2]
    head = f"{magic}\n{w} {h}\n" + (f"{maxv}\n" if maxv else "")
    return (head + " ".join(str(int(v)) for v in a.reshape(-1)) + "\n").encode()


def _pgm16(ctx):
    import numpy as np

    a = np.asarray(ctx.pil().convert("L")).astype(">u2") * 257
    h, w = a.shape
    return f"P5\n{w} {h}\n65535\n".encode() + a.tobytes()


def _pfm(ctx):
    import numpy as np

    a = (np.asarray(ctx.pil().convert("L")).astype("<f4") / 255.0)[::-1]
    h, w = a.shape
    return f"Pf\n{w} {h}\n-1.0\n".encode() + a.tobytes()


def _pam(ctx):
    import numpy as np

    a = np.asarray(ctx.pil())
    h, w = a.shape[:2]
    return (
        f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n".encode()
        + a.tobytes()
    )


def _jpeg_exif_orient(ctx, o):
    from PIL import Image

    im = ctx.pil()
    # store the image rotated so that applying the orientation gives the upright line
    if o == 3:
        stored = im.transpose(Image.ROTATE_180)
    else:
        stored = im.transpose(Image.ROTATE_90)
    ex = Image.Exif()
    ex[0x0112] = o
    return _save(stored, "JPEG", quality=95, exif=ex.tobytes())


def _jpeg_12bit(ctx):
    data = bytearray(_save(ctx.pil(), "JPEG"))
    i = data.find(b"\xff\xc0")
    data[i + 4] = 12
    return bytes(data)


def _jpeg_sof(ctx, marker):
    data = bytearray(_save(ctx.pil(), "JPEG"))
    i = data.find(b"\xff\xc0")
    data[i + 1] = marker
    return bytes(data)


def _bmp_rle8(ctx):
    return _save(ctx.pil().convert("P"), "BMP")  # Pillow writes uncompressed; fine as a control


def _bmp16(ctx):
    import struct

    import numpy as np

    a = np.asarray(ctx.pil().convert("L"))
    h, w = a.shape
    px = a.astype(np.uint16) >> 3
    v = (px << 10) | (px << 5) | px
    row = w * 2
    pad = (4 - row % 4) % 4
    rows = b"".join(v[y].astype("<u2").tobytes() + b"\0" * pad for y in range(h - 1, -1, -1))
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 16, 0, len(rows), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(rows), 0, 0, 54) + info + rows


def _bmp_topdown(ctx):
    import struct

    data = bytearray(_save(ctx.pil(), "BMP"))
    h = struct.unpack("<i", data[22:26])[0]
    data[22:26] = struct.pack("<i", -h)
    # rows are stored bottom-up; with negative height they are read top-down: the image is flipped
    return bytes(data)


def _rgba_ink(ctx):
    import numpy as np
    from PIL import Image

    g = np.asarray(ctx.pil().convert("L"))
    a = np.zeros(g.shape + (4,), np.uint8)
    a[..., 3] = 255 - g  # ink opaque black, paper transparent
    return _save(Image.fromarray(a, "RGBA"), "PNG")


_file_cases()


def _path_cases():
    paths = {
        "empty_str": lambda ctx: "",
        "dir": lambda ctx: str(ctx.work),
        "nonexistent": lambda ctx: "/nonexistent.png",
        "dev_zero": lambda ctx: "/dev/zero",
        "dev_urandom": lambda ctx: "/dev/urandom",
        "dev_null": lambda ctx: "/dev/null",
        "dev_zero_symlink_png": lambda ctx: _symlink(ctx, "/dev/zero", "zero.png"),
        "fifo": lambda ctx: _fifo(ctx, "pipe.png"),
        "proc_file": lambda ctx: "/proc/self/status",
        "nul_in_path": lambda ctx: "a\x00.png",
        "unicode_name": lambda ctx: ctx.file("ünï cødé 文字.png", LINE.read_bytes()),
        "newline_name": lambda ctx: ctx.file("a\nb.png", LINE.read_bytes()),
        "very_long_name": lambda ctx: "x" * 5000 + ".png",
        "wrong_extension": lambda ctx: ctx.file("really_png.jpg", LINE.read_bytes()),
        "no_extension": lambda ctx: ctx.file("noext", LINE.read_bytes()),
        "surrogate_path": lambda ctx: "\udcff.png",
        "http_url": lambda ctx: "http://example.com/a.png",
        "file_url": lambda ctx: f"file://{LINE}",
        "tilde": lambda ctx: "~/nonexistent.png",
    }
    for name, make in paths.items():

        def run(ctx, make=make):
            return same_as_line(ctx, ctx.predictor().predict(make(ctx)))

        CASES[f"path.{name}"] = run


_path_cases()


def _bytes_cases():
    bs = {
        "empty": lambda ctx: b"",
        "bytearray": lambda ctx: bytearray(LINE.read_bytes()),
        "memoryview": lambda ctx: memoryview(LINE.read_bytes()),
        "memoryview_strided": lambda ctx: memoryview(LINE.read_bytes() * 2)[::2],
        "memoryview_2d": lambda ctx: memoryview(
            __import__("numpy").frombuffer(LINE.read_bytes()[:1000], "uint8").reshape(10, 100)
        ),
        "memoryview_float": lambda ctx: memoryview(
            __import__("numpy").frombuffer(
                LINE.read_bytes()[: len(LINE.read_bytes()) // 4 * 4], "<f4"
            )
        ),
        "mmap": lambda ctx: _mmap(ctx),
        "one_byte": lambda ctx: b"\x89",
        "png_magic_only": lambda ctx: b"\x89PNG\r\n\x1a\n",
        "bytes_of_path": lambda ctx: str(LINE).encode(),
    }
    for name, make in bs.items():

        def run(ctx, make=make):
            return same_as_line(ctx, ctx.predictor().predict(make(ctx)))

        CASES[f"bytes.{name}"] = run


def _mmap(ctx):
    import mmap

    f = open(LINE, "rb")
    return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


_bytes_cases()


# ---------------------------------------------------------------------------
# batches, recognize


@case("batch.empty_list")
def _(ctx):
    return summary(ctx.predictor().predict_batch([]))


@case("batch.str_instead_of_list")
def _(ctx):
    return summary(ctx.predictor().predict_batch(str(LINE)))


@case("batch.bytes_instead_of_list")
def _(ctx):
    return summary(ctx.predictor().predict_batch(LINE.read_bytes()))


@case("batch.none")
def _(ctx):
    return summary(ctx.predictor().predict_batch(None))


@case("batch.int")
def _(ctx):
    return summary(ctx.predictor().predict_batch(5))


@case("batch.bad_then_good")
def _(ctx):
    return summary(ctx.predictor().predict_batch([b"junk", str(LINE)]))


@case("batch.good_then_bad_workers2")
def _(ctx):
    return summary(ctx.predictor().predict_batch([str(LINE), b"junk", str(LINE)], workers=2))


@case("batch.generator_raises")
def _(ctx):
    def gen():
        yield str(LINE)
        raise KeyError("gen failed")

    return summary(ctx.predictor().predict_batch(gen()))


@case("batch.workers_0")
def _(ctx):
    return summary(ctx.predictor().predict_batch([str(LINE)], workers=0))


@case("batch.workers_huge")
def _(ctx):
    return summary(ctx.predictor().predict_batch([str(LINE)] * 3, workers=10**9))


@case("batch.4d_array")
def _(ctx):
    import numpy as np

    a = np.stack([ctx.bgr(), ctx.bgr()])
    return summary(ctx.predictor().predict_batch(a))


@case("batch.predict_list")
def _(ctx):
    return summary(ctx.predictor().predict([str(LINE), str(LINE)]))


@case("iter.stop_early_then_reuse")
def _(ctx):
    p = ctx.predictor()
    it = p.predict_iter([str(LINE)] * 6, workers=2)
    next(it)
    it.close()
    return same_as_line(ctx, p.predict(str(LINE)))


@case("recognize.det_only")
def _(ctx):
    import edgeocr

    p = edgeocr.Predictor(ctx.v4["det"], threads=1)
    return summary(p.recognize(str(LINE)))


@case("recognize.one_pixel")
def _(ctx):
    import numpy as np

    return summary(ctx.predictor().recognize(np.zeros((1, 1), np.uint8)))


@case("recognize.very_wide")
def _(ctx):
    import numpy as np

    return summary(ctx.predictor().recognize(np.full((48, 32768), 255, np.uint8)))


@case("recognize.very_tall")
def _(ctx):
    import numpy as np

    return summary(ctx.predictor().recognize(np.full((32768, 2), 255, np.uint8)))


@case("recognize.line")
def _(ctx):
    return summary(ctx.predictor().recognize(str(LINE)))


@case("recognize.empty_bytes")
def _(ctx):
    return summary(ctx.predictor().recognize(b""))


@case("result.draw_on_other_image")
def _(ctx):
    r = ctx.predictor().predict(str(PAGE))
    out = r.draw(str(LINE))
    return summary(out)


@case("result.draw_bad_source")
def _(ctx):
    r = ctx.predictor().predict(str(LINE))
    return summary(r.draw(b"junk"))


@case("result.draw_none")
def _(ctx):
    r = ctx.predictor().predict(ctx.bgr())
    return summary(r.draw())


@case("result.draw_thickness_zero")
def _(ctx):
    return summary(ctx.predictor().predict(str(LINE)).draw(thickness=0))


@case("result.draw_thickness_huge")
def _(ctx):
    return summary(ctx.predictor().predict(str(LINE)).draw(thickness=10**9))


@case("result.draw_color_str")
def _(ctx):
    return summary(ctx.predictor().predict(str(LINE)).draw(color="red"))


@case("result.draw_color_nan")
def _(ctx):
    return summary(ctx.predictor().predict(str(LINE)).draw(color=(float("nan"), 0, 0)))


@case("result.to_json_roundtrip")
def _(ctx):
    r = ctx.predictor().predict(str(PAGE))
    return {"n": len(json.loads(r.to_json())["lines"])}


# ---------------------------------------------------------------------------
# Model


def _model_run_cases():
    import numpy as np

    def det(ctx):
        import edgeocr

        return edgeocr.Model(ctx.v4["det"], threads=1)

    runs = {
        "wrong_ndim": lambda: np.zeros((3, 32, 32), np.float32),
        "zero_dim": lambda: np.zeros((1, 3, 0, 32), np.float32),
        "zero_batch": lambda: np.zeros((0, 3, 32, 32), np.float32),
        "wrong_channels": lambda: np.zeros((1, 4, 32, 32), np.float32),
        "odd_size": lambda: np.zeros((1, 3, 33, 31), np.float32),
        "nan": lambda: np.full((1, 3, 32, 32), np.nan, np.float32),
        "uint8": lambda: np.zeros((1, 3, 32, 32), np.uint8),
        "float64": lambda: np.zeros((1, 3, 32, 32), np.float64),
        "complex": lambda: np.zeros((1, 3, 32, 32), np.complex64),
        "object": lambda: np.empty((1, 3, 32, 32), object),
        "str": lambda: "abc",
        "none": lambda: None,
        "list_nested": lambda: np.zeros((1, 3, 32, 32)).tolist(),
        "dict_wrong_name": lambda: {"nope": np.zeros((1, 3, 32, 32), np.float32)},
        "dict_nonstr_key": lambda: {1: np.zeros((1, 3, 32, 32), np.float32)},
        "list_two": lambda: [np.zeros((1, 3, 32, 32), np.float32)] * 2,
        "huge_broadcast": lambda: np.broadcast_to(np.float32(0), (1, 3, 60000, 60000)),
        "huge_broadcast_f64": lambda: np.broadcast_to(np.float64(0), (1, 3, 20000, 20000)),
        "big_but_fits": lambda: np.zeros((1, 3, 4096, 4096), np.float32),
        "batch_huge_zero_stride": lambda: np.broadcast_to(np.float32(0), (100000, 3, 32, 32)),
        "noncontig": lambda: np.zeros((1, 3, 64, 64), np.float32)[:, :, ::2, ::2],
        "readonly": lambda: _ro(np.zeros((1, 3, 32, 32), np.float32)),
        "bigendian": lambda: np.zeros((1, 3, 32, 32), ">f4"),
        "int64_huge_values": lambda: np.full((1, 3, 32, 32), 2**62, np.int64),
    }
    for name, make in runs.items():

        def run(ctx, make=make):
            out = det(ctx).run(make())
            return summary(out)

        CASES[f"model_run.{name}"] = run

    opts = {
        "threads_neg": {"threads": -1},
        "threads_huge": {"threads": 2**40},
        "threads_float": {"threads": 1.5},
        "inter_threads_neg": {"inter_threads": -1},
        "inter_threads_huge": {"inter_threads": 2**40},
        "inter_threads_bool": {"inter_threads": True},
        "exec_mode_bad": {"execution_mode": "turbo"},
        "opt_neg": {"optimization": -5},
        "opt_float": {"optimization": 2.5},
        "opt_none": {"optimization": None},
        "opt_huge": {"optimization": 2**40},
        "opt_str_bad": {"optimization": "max"},
        "mem_nan": {"max_memory_mb": float("nan")},
        "mem_inf": {"max_memory_mb": float("inf")},
        "mem_huge": {"max_memory_mb": 1e300},
        "mem_tiny": {"max_memory_mb": 1e-6},
        "mem_bool": {"max_memory_mb": True},
        "mem_str": {"max_memory_mb": "10"},
        "arena_bad": {"memory_arena": "x"},
        "optimized_path_dir": {"optimized_model_path": "/tmp"},
        "optimized_path_unwritable": {"optimized_model_path": "/proc/nope/x.onnx"},
        "ort_library_bad": {"ort_library": "/etc/passwd"},
        "both_path_and_data": {"data": b"x"},
    }
    for name, kw in opts.items():

        def run(ctx, kw=kw):
            import edgeocr

            m = edgeocr.Model(ctx.v4["det"], **kw)
            return summary(m.run(np.zeros((1, 3, 32, 32), np.float32)))

        CASES[f"model_opt.{name}"] = run

    CASES["model_opt.data_str"] = lambda ctx: __import__("edgeocr").Model(data="abc")
    CASES["model_opt.no_args"] = lambda ctx: __import__("edgeocr").Model()
    CASES["model_opt.data_list"] = lambda ctx: __import__("edgeocr").Model(data=[1, 2])


def _ro(a):
    a.flags.writeable = False
    return a


_model_run_cases()


# ---------------------------------------------------------------------------
# Environment variables (each case re-execs python with the variable set)


ENV_CASES = {
    "max_pixels_abc": {"EDGEOCR_MAX_IMAGE_PIXELS": "abc"},
    "max_pixels_neg": {"EDGEOCR_MAX_IMAGE_PIXELS": "-1"},
    "max_pixels_zero": {"EDGEOCR_MAX_IMAGE_PIXELS": "0"},
    "max_pixels_float": {"EDGEOCR_MAX_IMAGE_PIXELS": "1e9"},
    "max_pixels_huge": {"EDGEOCR_MAX_IMAGE_PIXELS": "9" * 100},
    "max_pixels_space": {"EDGEOCR_MAX_IMAGE_PIXELS": " 1000000 "},
    "max_pixels_tiny": {"EDGEOCR_MAX_IMAGE_PIXELS": "1"},
    "max_pixels_underscore": {"EDGEOCR_MAX_IMAGE_PIXELS": "1_000_000"},
    "precision_bogus": {"EDGEOCR_PRECISION": "bogus"},
    "precision_int8": {"EDGEOCR_PRECISION": "INT8"},
    "ort_nonexistent": {"EDGEOCR_ORT_LIBRARY": "/nonexistent/libonnxruntime.so"},
    "ort_not_a_lib": {"EDGEOCR_ORT_LIBRARY": "/etc/passwd"},
    "ort_libc": {"EDGEOCR_ORT_LIBRARY": "libc.so.6"},
    "ort_libm": {"EDGEOCR_ORT_LIBRARY": "/lib/x86_64-linux-gnu/libm.so.6"},
    "ort_dir": {"EDGEOCR_ORT_LIBRARY": "/tmp"},
    "cache_dir_is_file": {"EDGEOCR_CACHE_DIR": "/etc/passwd"},
    "cache_dir_proc": {"EDGEOCR_CACHE_DIR": "/proc/self"},
    "cache_dir_relative": {"EDGEOCR_CACHE_DIR": "relative/cache"},
    "malloc_arena_bad": {"EDGEOCR_MALLOC_ARENA_MAX": "abc"},
    "malloc_arena_neg": {"EDGEOCR_MALLOC_ARENA_MAX": "-5"},
    "malloc_arena_huge": {"EDGEOCR_MALLOC_ARENA_MAX": "99999999999999999999"},
    "home_unset_cache": {"HOME": "", "EDGEOCR_CACHE_DIR": ""},
    "omp_bad": {"OMP_NUM_THREADS": "abc"},
}


def env_child_main():
    """python attack.py --env-child: predict on the line (default predictor), print outcome."""
    import edgeocr

    out = {}
    try:
        p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1)
        r = p.predict(str(LINE))
        out = {"outcome": "result", "lines": [ln.text for ln in r.lines]}
    except edgeocr.EdgeOCRError as e:
        out = {"outcome": "clear", "type": type(e).__name__, "msg": str(e)[:400]}
    except BaseException as e:  # noqa: BLE001
        out = {"outcome": "unclear", "type": type(e).__name__, "msg": str(e)[:400]}
    print(json.dumps(out), flush=True)


# ---------------------------------------------------------------------------
# Threads


@case("threads.mixed_good_bad_8")
def _(ctx):
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    import edgeocr

    p = ctx.predictor()
    ref = ctx.line_text()
    inputs = [str(LINE), b"junk", np.zeros((0, 3), np.uint8), str(PAGE), ctx.bgr(), "/nope.png"] * 4

    def one(x):
        try:
            return ("ok", [ln.text for ln in p.predict(x).lines])
        except edgeocr.EdgeOCRError as e:
            return ("err", type(e).__name__)

    with ThreadPoolExecutor(8) as ex:
        got = list(ex.map(one, inputs))
    bad = [g for x, g in zip(inputs, got) if isinstance(x, str) and x == str(LINE) and g[1] != ref]
    return {
        "n": len(got),
        "mismatch": len(bad),
        "kinds": sorted({g[0] + str(g[1])[:20] for g in got}),
    }


@case("threads.budget_concurrent")
def _(ctx):
    from concurrent.futures import ThreadPoolExecutor

    import edgeocr

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, max_memory_mb=300)
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda x: [ln.text for ln in p.predict(x).lines], [str(PAGE)] * 8))
    return {"all_same": all(g == got[0] for g in got), "n": len(got[0])}


@case("threads.predict_while_batch")
def _(ctx):
    import threading as th

    p = ctx.predictor()
    res = {}

    def a():
        res["a"] = [len(r.lines) for r in p.predict_batch([str(PAGE)] * 4, workers=2)]

    t = th.Thread(target=a)
    t.start()
    res["b"] = [len(p.predict(str(LINE)).lines) for _ in range(4)]
    t.join()
    return res


@case("threads.construct_4_at_once")
def _(ctx):
    from concurrent.futures import ThreadPoolExecutor

    import edgeocr

    def one(i):
        p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1)
        return [ln.text for ln in p.predict(str(LINE)).lines]

    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(one, range(4)))
    return {"all_same": all(g == got[0] for g in got), "first": got[0]}


@case("threads.iter_close_while_running")
def _(ctx):
    p = ctx.predictor()
    it = p.predict_iter([str(PAGE)] * 8, workers=4)
    next(it)
    it.close()
    return same_as_line(ctx, p.predict(str(LINE)))


@case("threads.model_run_8")
def _(ctx):
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    import edgeocr

    m = edgeocr.Model(ctx.v4["cls"], threads=1)
    x = np.random.default_rng(0).random((2, 3, 48, 192), dtype=np.float32)
    ref = next(iter(m.run(x).values()))
    with ThreadPoolExecutor(8) as ex:
        outs = list(ex.map(lambda _: next(iter(m.run(x).values())), range(32)))
    return {"all_equal": all(np.array_equal(o, ref) for o in outs)}


@case("threads.recognize_and_predict_mixed")
def _(ctx):
    from concurrent.futures import ThreadPoolExecutor

    p = ctx.predictor()
    ref = p.recognize(str(LINE)).text

    def one(i):
        return (
            p.recognize(str(LINE)).text if i % 2 else [ln.text for ln in p.predict(str(LINE)).lines]
        )

    with ThreadPoolExecutor(6) as ex:
        got = list(ex.map(one, range(12)))
    return {
        "rec_same": all(g == ref for g in got[1::2]),
        "pred_same": all(g == ctx.line_text() for g in got[0::2]),
    }


# ---------------------------------------------------------------------------
# budget corner cases


@case("budget.tiny_predict")
def _(ctx):
    import edgeocr

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, max_memory_mb=1)
    return summary(p.predict(str(PAGE)))


@case("budget.tiny_bytes_predict")
def _(ctx):
    import edgeocr

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, max_memory_mb=20)
    return summary(p.predict(PAGE.read_bytes()))


@case("budget.huge_page")
def _(ctx):
    import numpy as np

    import edgeocr

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, max_memory_mb=64)
    return summary(p.predict(np.full((9000, 9000), 255, np.uint8)))


# ---------------------------------------------------------------------------
# Command lines (run as subprocesses of the child: same limits)


def _cli(ctx, args, exe="edgeocr"):
    import shutil

    exe_path = shutil.which(exe) or os.path.join(os.path.dirname(sys.executable), exe)
    p = subprocess.run(
        [exe_path, *args],
        capture_output=True,
        text=True,
        timeout=CASE_TIMEOUT - 5,
        cwd=str(ctx.work),
    )
    tb = "Traceback (most recent call last)" in p.stderr
    out = {
        "rc": p.returncode,
        "traceback": tb,
        "stderr": p.stderr[-600:],
        "stdout": p.stdout[-300:],
    }
    if tb:
        raise RuntimeError("traceback from the CLI: " + p.stderr[-700:])
    if p.returncode < 0:
        raise SystemError(f"CLI killed by signal {-p.returncode}")
    return out


def _cli_cases():
    m = ["--model", "ppocr-v4-mobile", "-t", "1"]
    cmds = {
        "predict_nonexistent": lambda ctx: ["predict", "/nonexistent.png", *m],
        "predict_empty_dir": lambda ctx: ["predict", str(_mkdir(ctx, "no_images")), *m],
        "predict_garbage": lambda ctx: ["predict", ctx.file("garbage.png", b"junk"), *m],
        "predict_garbage_json": lambda ctx: [
            "predict",
            ctx.file("garbage.png", b"junk"),
            "--json",
            *m,
        ],
        "predict_draw_to_file": lambda ctx: [
            "predict",
            str(LINE),
            "--draw",
            ctx.file("afile", b"x"),
            *m,
        ],
        "predict_draw_unwritable": lambda ctx: ["predict", str(LINE), "--draw", "/proc/nope", *m],
        "predict_threads_neg": lambda ctx: [
            "predict",
            str(LINE),
            "--model",
            "ppocr-v4-mobile",
            "-t",
            "-1",
        ],
        "predict_model_bogus": lambda ctx: ["predict", str(LINE), "--model", "nope"],
        "predict_model_garbage_file": lambda ctx: [
            "predict",
            str(LINE),
            "--model",
            ctx.file("m.onnx", b"junk"),
        ],
        "predict_dev_zero": lambda ctx: ["predict", "/dev/zero", *m],
        "predict_draw_bytes_ok": lambda ctx: [
            "predict",
            str(LINE),
            "--draw",
            str(ctx.work / "drawn"),
            *m,
        ],
        "predict_dir_with_garbage": lambda ctx: [
            "predict",
            str(_mkdir(ctx, "gdir", {"a.png": b"junk", "b.jpg": b""})),
            *m,
        ],
        "predict_gif_file": lambda ctx: ["predict", ctx.file("l.gif", _save(ctx.pil(), "GIF")), *m],
        "convert_garbage": lambda ctx: [
            "convert",
            ctx.file("g.nb", b"\0" * 64),
            "-o",
            str(ctx.work / "o.onnx"),
        ],
        "convert_nonexistent": lambda ctx: ["convert", "/nope.nb", "-o", str(ctx.work / "o.onnx")],
        "convert_dir": lambda ctx: ["convert", str(ctx.work), "-o", str(ctx.work / "o.onnx")],
        "convert_out_unwritable": lambda ctx: [
            "convert",
            str(next((REPO / "tests/data/paddle_lite_ops").glob("*.nb"))),
            "-o",
            "/proc/nope/o.onnx",
        ],
        "eval_nonexistent": lambda ctx: ["eval", "/nonexistent_dir", *m],
        "eval_empty_dir": lambda ctx: ["eval", str(_mkdir(ctx, "empty_eval")), *m],
        "eval_bad_labels": lambda ctx: [
            "eval",
            str(
                _mkdir(
                    ctx,
                    "bad_eval",
                    {"e2e_synth.jsonl": b"{not json\n", "rec_crops.jsonl": b"[1,2]\n"},
                )
            ),
            *m,
        ],
        "eval_labels_missing_images": lambda ctx: [
            "eval",
            str(
                _mkdir(
                    ctx,
                    "missing_eval",
                    {"e2e_synth.jsonl": b'{"image": "nope.png", "lines": []}\n'},
                )
            ),
            *m,
        ],
        "eval_baseline_garbage": lambda ctx: [
            "eval",
            str(_mkdir(ctx, "empty_eval2")),
            "--baseline",
            ctx.file("b.json", b"junk"),
            *m,
        ],
        "eval_limit_neg": lambda ctx: [
            "eval",
            str(_mkdir(ctx, "empty_eval3")),
            "--limit",
            "-5",
            *m,
        ],
        "bench_model_bogus": lambda ctx: [
            "bench",
            "nope",
            "--images",
            str(DATA),
            "--rounds",
            "1",
            "--no-memory",
        ],
        "bench_images_empty": lambda ctx: [
            "bench",
            "ppocr-v4-mobile",
            "--images",
            str(_mkdir(ctx, "bench_empty")),
            "--rounds",
            "1",
        ],
        "bench_rounds_zero": lambda ctx: [
            "bench",
            "ppocr-v4-mobile",
            "--images",
            str(_mkdir(ctx, "bench_one", {"a.png": LINE.read_bytes()})),
            "--rounds",
            "0",
            "--no-memory",
        ],
        "bench_rounds_neg": lambda ctx: [
            "bench",
            "ppocr-v4-mobile",
            "--images",
            str(_mkdir(ctx, "bench_one2", {"a.png": LINE.read_bytes()})),
            "--rounds",
            "-1",
            "--no-memory",
        ],
        "bench_compare_bogus": lambda ctx: [
            "bench",
            "ppocr-v4-mobile",
            "--images",
            str(_mkdir(ctx, "bench_one3", {"a.png": LINE.read_bytes()})),
            "--compare",
            "nope",
            "--rounds",
            "1",
            "--no-memory",
        ],
        "bench_sizes_garbage": lambda ctx: [
            "bench",
            "ppocr-v4-mobile",
            "--memory",
            "--sizes",
            "a,b",
            "--budgets",
            "64",
        ],
        "bench_budgets_neg": lambda ctx: [
            "bench",
            "ppocr-v4-mobile",
            "--memory",
            "--sizes",
            "0.3",
            "--budgets",
            "-64",
        ],
        "bench_batch_zero": lambda ctx: [
            "bench",
            "ppocr-v4-mobile",
            "--images",
            str(_mkdir(ctx, "bench_one4", {"a.png": LINE.read_bytes()})),
            "--batch",
            "0",
            "--rounds",
            "1",
            "--no-memory",
        ],
        "bench_images_garbage": lambda ctx: [
            "bench",
            "ppocr-v4-mobile",
            "--images",
            str(_mkdir(ctx, "bench_g", {"a.png": b"junk"})),
            "--rounds",
            "1",
            "--no-memory",
        ],
    }
    cmds["info_garbage"] = lambda ctx: ["info", ctx.file("i.eocr", b"junk")]
    cmds["info_dir"] = lambda ctx: ["info", str(ctx.work)]
    for name, make in cmds.items():
        CASES[f"cli.{name}"] = lambda ctx, make=make: _cli(ctx, make(ctx))
    pack = {
        "no_models": lambda ctx: ["-o", str(ctx.work / "x.eocr")],
        "garbage_det": lambda ctx: [
            "--det",
            ctx.file("gd.onnx", b"junk"),
            "-o",
            str(ctx.work / "x.eocr"),
        ],
        "nonexistent_det": lambda ctx: ["--det", "/nope.onnx", "-o", str(ctx.work / "x.eocr")],
        "empty_paddle_dir": lambda ctx: [
            "--det",
            str(_mkdir(ctx, "pd_empty")),
            "-o",
            str(ctx.work / "x.eocr"),
        ],
        "paddle_dir_garbage": lambda ctx: [
            "--det",
            str(
                _mkdir(
                    ctx,
                    "pd_g",
                    {
                        "inference.json": b"{junk",
                        "inference.pdiparams": b"junk",
                        "inference.yml": b": : :",
                    },
                )
            ),
            "-o",
            str(ctx.work / "x.eocr"),
        ],
        "paddle_dir_pdmodel_garbage": lambda ctx: [
            "--det",
            str(
                _mkdir(ctx, "pd_g2", {"inference.pdmodel": b"junk", "inference.pdiparams": b"junk"})
            ),
            "-o",
            str(ctx.work / "x.eocr"),
        ],
        "out_is_dir": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "-o",
            str(ctx.work),
            "--no-latency",
        ],
        "out_unwritable": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "-o",
            "/proc/nope/x.eocr",
            "--no-latency",
        ],
        "config_garbage": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--config",
            ctx.file("c.json", b"junk"),
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "config_bad_value": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--config",
            ctx.file("c2.json", b'{"det_thresh": "high"}'),
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "config_nan": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--config",
            ctx.file("c3.json", b'{"det_thresh": NaN}'),
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "keys_missing": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--keys",
            "/nope.txt",
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "models_bogus": lambda ctx: ["--models", "nope", "-o", str(ctx.work / "x.eocr")],
        "int8_no_calib": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--quantize",
            "int8",
            "-o",
            str(ctx.work / "x.eocr"),
        ],
        "int8_calib_empty": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--quantize",
            "int8",
            "--calib",
            str(_mkdir(ctx, "calib_empty")),
            "-o",
            str(ctx.work / "x.eocr"),
        ],
        "int8_calib_garbage": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--quantize",
            "int8",
            "--calib",
            str(_mkdir(ctx, "calib_g", {"a.png": b"junk"})),
            "-o",
            str(ctx.work / "x.eocr"),
        ],
        "max_drop_nan": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--max-drop",
            "nan",
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "paddle_tol_neg": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--paddle-tol",
            "-1",
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "target_bogus": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--target",
            "z80",
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "eval_limit_neg": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "--eval-limit",
            "-3",
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "threads_neg": lambda ctx: [
            "--models",
            "ppocr-v4-mobile",
            "-t",
            "-2",
            "-o",
            str(ctx.work / "x.eocr"),
            "--no-latency",
        ],
        "info_garbage_dummy": lambda ctx: [
            "-o",
            str(ctx.work / "y.eocr"),
            "--det",
            ctx.file("i.eocr", b"junk"),
        ],
    }
    for name, make in pack.items():
        CASES[f"pack.{name}"] = lambda ctx, make=make: _cli(ctx, make(ctx), "edgeocr-pack")


_cli_cases()


# ---------------------------------------------------------------------------
# child / parent


def child_main(names, work):
    import faulthandler
    import warnings

    warnings.simplefilter("ignore")
    resource.setrlimit(resource.RLIMIT_AS, (AS_BYTES, AS_BYTES))
    ctx = Ctx(Path(work))
    import edgeocr

    for name in names:
        print(json.dumps({"start": name}), flush=True)
        faulthandler.dump_traceback_later(CASE_TIMEOUT, exit=True)
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        t0 = time.perf_counter()
        try:
            r = CASES[name](ctx)
            out = {"outcome": "result", "result": r if _jsonable(r) else repr(r)[:300]}
        except edgeocr.EdgeOCRError as e:
            kind = "clear"
            if isinstance(e, MemoryError) and "allocation in the edgeocr core failed" in str(e):
                kind = "memory"
            out = {"outcome": kind, "type": type(e).__name__, "msg": str(e)[:500]}
        except MemoryError as e:
            out = {"outcome": "memory", "type": type(e).__name__, "msg": str(e)[:300]}
        except BaseException as e:  # noqa: BLE001
            out = {"outcome": "unclear", "type": type(e).__name__, "msg": str(e)[:500]}
        faulthandler.cancel_dump_traceback_later()
        out["seconds"] = round(time.perf_counter() - t0, 2)
        out["rss_growth_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss0
        )
        out["case"] = name
        print(json.dumps(out, default=str), flush=True)
        if os.environ.get("ATTACK_LIVE"):
            with open(os.environ["ATTACK_LIVE"], "a") as f:
                f.write(json.dumps(out, default=str) + "\n")


def _jsonable(x):
    try:
        json.dumps(x)
        return True
    except (TypeError, ValueError):
        return False


def run_group(names, work, out_records):
    pending = list(names)
    while pending:
        p = subprocess.run(
            [sys.executable, __file__, "--child", work, *pending],
            capture_output=True,
            text=True,
            env=dict(os.environ, OMP_NUM_THREADS="1", ATTACK_LIVE=LIVE or ""),
        )
        done, last = set(), None
        for line in p.stdout.splitlines():
            if not line.startswith("{"):
                continue
            rec = json.loads(line)
            if "start" in rec:
                last = rec["start"]
            else:
                done.add(rec["case"])
                out_records.append(rec)
        if p.returncode != 0 and last and last not in done:
            kind = "hang" if "Timeout (" in p.stderr else "crash"
            out_records.append(
                {
                    "case": last,
                    "outcome": kind,
                    "rc": p.returncode,
                    "stderr": p.stderr[-1500:],
                }
            )
            _live(out_records[-1])
            done.add(last)
        elif p.returncode != 0:
            out_records.append({"case": "?", "outcome": "child_failed", "stderr": p.stderr[-2000:]})
            break
        pending = [n for n in pending if n not in done]
        if p.returncode == 0:
            break


LIVE = None


def _live(rec):
    if LIVE:
        with open(LIVE, "a") as f:
            f.write(json.dumps(rec, default=str) + "\n")


def run_env_cases(out_records):
    for name, env in ENV_CASES.items():
        e = dict(os.environ, **env)
        try:
            p = subprocess.run(
                [sys.executable, __file__, "--env-child"],
                capture_output=True,
                text=True,
                env=e,
                timeout=120,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (AS_BYTES, AS_BYTES)),
            )
        except subprocess.TimeoutExpired:
            out_records.append({"case": f"env.{name}", "outcome": "hang"})
            continue
        recs = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
        if p.returncode < 0:
            out_records.append(
                {
                    "case": f"env.{name}",
                    "outcome": "crash",
                    "rc": p.returncode,
                    "stderr": p.stderr[-800:],
                }
            )
        elif recs:
            out_records.append({"case": f"env.{name}", **recs[-1]})
        else:
            out_records.append(
                {
                    "case": f"env.{name}",
                    "outcome": "unclear",
                    "rc": p.returncode,
                    "stderr": p.stderr[-800:],
                }
            )


def main():
    if sys.argv[1:2] == ["--child"]:
        child_main(sys.argv[3:], sys.argv[2])
        return
    if sys.argv[1:2] == ["--env-child"]:
        env_child_main()
        return
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="attack_results.jsonl")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--env", action="store_true")
    a = ap.parse_args()
    names = [n for n in CASES if n.startswith(tuple(a.only.split(","))) or not a.only]
    if a.list:
        print("\n".join(names))
        print(len(names), file=sys.stderr)
        return
    global LIVE
    LIVE = a.out + ".live"
    open(LIVE, "w").close()
    records = []
    with tempfile.TemporaryDirectory() as work:
        if not a.env:
            run_group(names, work, records)
        if a.env or not a.only:
            run_env_cases(records)
    with open(a.out, "w") as f:
        for r in records:
            f.write(json.dumps(r, default=str) + "\n")
    from collections import Counter

    c = Counter(r["outcome"] for r in records)
    print(dict(c))
    for r in records:
        if r["outcome"] in ("crash", "hang", "memory", "unclear", "child_failed"):
            print(
                r["outcome"].upper(),
                r["case"],
                r.get("type", ""),
                str(r.get("msg", r.get("stderr", "")))[:300].replace("\n", " | "),
            )


if __name__ == "__main__":
    main()
