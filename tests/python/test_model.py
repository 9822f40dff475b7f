"""edgeocr.Model: the C++ runtime core on ONNX Runtime (issue: the foundation)."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from conftest import REPO

import edgeocr
from edgeocr import InvalidInputError, ModelError, ModelNotFoundError

ort = pytest.importorskip("onnxruntime")

SHAPES = {"det": (1, 3, 320, 448), "cls": (3, 3, 48, 192), "rec": (4, 3, 48, 320)}


def reference(path, x):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return s.run(None, {s.get_inputs()[0].name: x})


@pytest.mark.parametrize("role", ["det", "cls", "rec"])
@pytest.mark.parametrize("source", ["file", "bytes"])
def test_outputs_bit_identical_to_onnxruntime(v4_paths, role, source):
    path = v4_paths[role]
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, SHAPES[role]).astype(np.float32)
    if source == "file":
        m = edgeocr.Model(path, threads=2)
    else:
        with open(path, "rb") as f:
            m = edgeocr.Model(data=f.read(), threads=2)
    ref = reference(path, x)
    for _ in range(2):  # first call: ORT-allocated outputs; second: written into pooled memory
        out = m.run(x)
        assert list(out) == [o.name for o in m.outputs]
        for got, want in zip(out.values(), ref):
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(got, want)


def test_model_describes_inputs_outputs_and_metadata(v4_paths):
    m = edgeocr.Model(v4_paths["rec"])
    (inp,) = m.inputs
    assert inp.name == "x" and inp.dtype == "float32"
    assert inp.shape[1] == 3 and inp.shape[0] == -1
    (out,) = m.outputs
    assert out.shape[-1] == 6625
    chars = m.metadata["character"].splitlines()
    assert len(chars) == 6623  # + blank + space = 6625 classes
    assert "edgeocr.Model" in repr(m)


def test_no_tensor_allocation_after_warmup(v4_paths):
    m = edgeocr.Model(v4_paths["det"], threads=2)
    x = np.random.default_rng(0).random((1, 3, 256, 256), dtype=np.float32)
    m.run(x)
    m.run(x)
    warm = m.memory_stats()
    for _ in range(5):
        out = m.run(x)
        del out
    after = m.memory_stats()
    assert after["misses"] == warm["misses"], (warm, after)
    assert after["hits"] == warm["hits"] + 5
    assert after["reserved_bytes"] == warm["reserved_bytes"]
    assert after["high_water_bytes"] >= 256 * 256 * 4
    assert after["in_use_bytes"] == 0


def test_outputs_stay_valid_while_held(v4_paths):
    m = edgeocr.Model(v4_paths["cls"])
    x = np.random.default_rng(1).random((2, 3, 48, 192), dtype=np.float32)
    a = m.run(x)
    b = m.run(x * 0.5)
    ref_a = reference(v4_paths["cls"], x)[0]
    assert np.array_equal(next(iter(a.values())), ref_a)  # b did not overwrite a's block
    assert m.memory_stats()["in_use_bytes"] > 0
    del a, b
    assert m.memory_stats()["in_use_bytes"] == 0


def test_inputs_converted_once_or_used_in_place(v4_paths):
    m = edgeocr.Model(v4_paths["cls"])
    x = np.random.default_rng(2).random((2, 3, 48, 192))  # float64
    ref = reference(v4_paths["cls"], x.astype(np.float32))[0]
    assert np.array_equal(m.run(x)["save_infer_model/scale_0.tmp_1"], ref)
    xf = np.asfortranarray(x.astype(np.float32))  # non-contiguous: converted
    assert np.array_equal(next(iter(m.run(xf).values())), ref)
    assert np.array_equal(next(iter(m.run({"x": x.tolist()}).values())), ref)
    assert np.array_equal(next(iter(m.run([x]).values())), ref)


def test_concurrent_runs_share_one_model(v4_paths):
    m = edgeocr.Model(v4_paths["cls"], threads=1)
    rng = np.random.default_rng(3)
    xs = [rng.random((2, 3, 48, 192), dtype=np.float32) for _ in range(4)]
    refs = [next(iter(m.run(x).values())).copy() for x in xs]
    errors = []

    def work(i):
        try:
            for _ in range(10):
                got = next(iter(m.run(xs[i]).values()))
                if not np.array_equal(got, refs[i]):
                    errors.append(i)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_session_options(v4_paths, tmp_path):
    opt = tmp_path / "cls.opt.onnx"
    m = edgeocr.Model(
        v4_paths["cls"],
        threads=1,
        execution_mode="parallel",
        inter_threads=1,
        optimization="basic",
        spinning=True,
        memory_arena=False,
        memory_pattern=True,
        optimized_model_path=opt,
    )
    assert opt.stat().st_size > 1000  # ORT wrote the optimised graph
    x = np.zeros((1, 3, 48, 192), np.float32)
    assert np.allclose(next(iter(m.run(x).values())), reference(v4_paths["cls"], x)[0], atol=1e-6)
    m2 = edgeocr.Model(str(opt))  # the saved graph loads and runs
    assert np.allclose(next(iter(m2.run(x).values())), reference(v4_paths["cls"], x)[0], atol=1e-6)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"threads": 2**40}, r"threads must be an integer in \[0, 1024\]"),
        ({"inter_threads": True}, "inter_threads must be an integer"),
        ({"optimization": None}, "optimization must be one of"),
        ({"optimization": 2**40}, "graph optimisation level must be 0, 1, 2 or 99"),
        ({"max_memory_mb": float("nan")}, "max_memory_mb must be a positive number"),
        ({"max_memory_mb": float("inf")}, "max_memory_mb must be a positive number"),
        ({"spinning": "yes"}, "spinning must be True or False"),
        # was ModelError "<the model>: not a loadable ONNX model: open file ... failed"
        ({"optimized_model_path": "/"}, "optimized_model_path must be a file"),
        ({"optimized_model_path": "/nonexistent/x.onnx"}, "optimized_model_path must be a file"),
    ],
)
def test_hostile_session_options_are_invalid_input(v4_paths, kw, match):
    # Were OverflowError, ValueError (int(nan)) or pybind11's "incompatible function arguments".
    with pytest.raises(InvalidInputError, match=match):
        edgeocr.Model(v4_paths["cls"], **kw)


def test_session_threads_beyond_the_cap_are_refused_by_the_core():
    edgeocr._runtime.configure(None)  # the runtime is loaded (edgeocr.Model would check first)
    o = edgeocr._core.SessionOptions()
    o.intra_threads = edgeocr._core.MAX_SESSION_THREADS + 1
    with pytest.raises(InvalidInputError, match=r"threads must be in \[0, 1024\]"):
        edgeocr._core.Model.from_bytes(b"not read", o)


def test_model_path_of_the_wrong_type_is_invalid_input():
    for bad in (5, ["det.onnx"], {"det": "det.onnx"}):
        with pytest.raises(InvalidInputError, match="path must be a str or os.PathLike"):
            edgeocr.Model(bad)
        with pytest.raises(InvalidInputError, match="model must be a path"):
            edgeocr.Predictor(bad)
    with pytest.raises(InvalidInputError, match="a model is a path or the model's bytes"):
        edgeocr.Predictor(det=5, rec="rec.onnx")


def test_input_copy_that_cannot_be_allocated_is_a_resource_error(v4_paths):
    # A zero-stride view claiming 40 GiB: numpy's bare MemoryError before; a ResourceError
    # (also a MemoryError) naming the input now.
    m = edgeocr.Model(v4_paths["det"], threads=1)
    x = np.broadcast_to(np.float64(0), (1, 3, 60000, 60000))
    code = textwrap.dedent(
        f"""
        import resource, numpy as np, edgeocr
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        m = edgeocr.Model({v4_paths["det"]!r}, threads=1)
        x = np.broadcast_to(np.float64(0), {x.shape})
        try:
            m.run(x)
        except edgeocr.ResourceError as e:
            print("ResourceError", e)
        """
    )
    del m
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "ResourceError input 'x': cannot allocate" in out.stdout, out.stdout


def test_arm64_bf16_fastmath_is_opt_in(v4_paths):
    """On aarch64 ORT runs fp32 GEMMs in bf16 (close outputs); elsewhere it ignores the entry."""
    x = np.random.default_rng(5).uniform(-1, 1, (2, 3, 48, 320)).astype(np.float32)
    exact = next(iter(edgeocr.Model(v4_paths["rec"], threads=1).run(x).values()))
    fast = next(
        iter(edgeocr.Model(v4_paths["rec"], threads=1, arm64_bf16_fastmath=True).run(x).values())
    )
    if edgeocr._core.cpu_features()["arch"] == "aarch64":
        assert np.allclose(fast, exact, atol=5e-2)
    else:
        assert np.array_equal(fast, exact)
    with pytest.raises(InvalidInputError, match="arm64_bf16_fastmath"):
        edgeocr.Model(v4_paths["rec"], arm64_bf16_fastmath="yes")
    r = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, arm64_bf16_fastmath=True)
    assert r.predict(str(REPO / "tests" / "data" / "sample_en.png")).lines


def test_shared_arena_gives_the_same_outputs(v4_paths):
    # One process-wide arena for every session that asks (the Predictor's default): the same
    # bits as a session with its own arena, for two models sharing it, also across shapes.
    rng = np.random.default_rng(3)
    for role, shapes in (("rec", [(2, 3, 48, 320), (1, 3, 48, 640)]), ("det", [(1, 3, 320, 480)])):
        shared = edgeocr.Model(v4_paths[role], threads=1, memory_arena="shared")
        own = edgeocr.Model(v4_paths[role], threads=1, memory_arena=True)
        for shape in shapes:
            x = rng.uniform(-1, 1, shape).astype(np.float32)
            a, b = next(iter(shared.run(x).values())), next(iter(own.run(x).values()))
            assert np.array_equal(a, b)


# -- bad models and inputs -------------------------------------------------------


def test_missing_model_file(tmp_path):
    with pytest.raises(ModelNotFoundError, match="not found.*nope.onnx") as e:
        edgeocr.Model(tmp_path / "nope.onnx")
    assert isinstance(e.value, FileNotFoundError)


def test_directory_is_not_a_model(tmp_path):
    with pytest.raises(ModelError, match="is a directory"):
        edgeocr.Model(tmp_path)


def test_empty_and_junk_models(tmp_path):
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    with pytest.raises(ModelError, match="empty"):
        edgeocr.Model(empty)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"this is not an onnx model at all" * 10)
    with pytest.raises(ModelError, match="junk.onnx: not a loadable ONNX model"):
        edgeocr.Model(junk)
    with pytest.raises(ModelError, match="not a loadable ONNX model"):
        edgeocr.Model(data=b"\x08\x07garbage")
    with pytest.raises(ModelError, match="empty"):
        edgeocr.Model(data=b"")
    with pytest.raises(InvalidInputError, match="must be bytes"):
        edgeocr.Model(data="a string")
    with pytest.raises(InvalidInputError, match="exactly one"):
        edgeocr.Model()


def test_truncated_model(v4_paths, tmp_path):
    with open(v4_paths["det"], "rb") as f:
        data = f.read()
    bad = tmp_path / "trunc.onnx"
    bad.write_bytes(data[: len(data) // 3])
    with pytest.raises(ModelError, match="trunc.onnx"):
        edgeocr.Model(bad)


def test_bad_inputs(v4_paths):
    m = edgeocr.Model(v4_paths["det"])
    with pytest.raises(
        InvalidInputError, match=r"must have 4 dimensions .*got shape \[3, 64, 64\]"
    ):
        m.run(np.zeros((3, 64, 64), np.float32))
    with pytest.raises(
        InvalidInputError, match=r"dimension 1 must be 3.*got shape \[1, 4, 64, 64\]"
    ):
        m.run(np.zeros((1, 4, 64, 64), np.float32))
    with pytest.raises(InvalidInputError, match="cannot be cast"):
        m.run(np.array([["a"]], dtype=object))
    with pytest.raises(InvalidInputError, match="empty shape"):
        m.run(np.zeros((1, 3, 0, 64), np.float32))
    with pytest.raises(InvalidInputError, match="missing"):
        m.run({"y": np.zeros((1, 3, 64, 64), np.float32)})
    with pytest.raises(InvalidInputError, match="expected 1 inputs"):
        m.run([np.zeros((1, 3, 64, 64), np.float32)] * 2)


def test_bad_options(v4_paths):
    with pytest.raises(InvalidInputError, match="threads"):
        edgeocr.Model(v4_paths["cls"], threads=-1)
    with pytest.raises(InvalidInputError, match="optimization"):
        edgeocr.Model(v4_paths["cls"], optimization="max")
    with pytest.raises(InvalidInputError, match="execution_mode"):
        edgeocr.Model(v4_paths["cls"], execution_mode="fast")
    with pytest.raises(InvalidInputError, match="max_memory_mb"):
        edgeocr.Model(v4_paths["cls"], max_memory_mb=-5)
    with pytest.raises(InvalidInputError, match="memory_arena"):
        edgeocr.Model(v4_paths["cls"], memory_arena="global")


def test_memory_cap_gives_resource_error(v4_paths):
    m = edgeocr.Model(v4_paths["det"], max_memory_mb=1)
    with pytest.raises(edgeocr.ResourceError, match="cap of 1 MiB") as e:
        m.run(np.zeros((1, 3, 640, 640), np.float32))  # output alone is 1.6 MB
    assert isinstance(e.value, MemoryError)


# -- the runtime library ----------------------------------------------------------


def test_runtime_info_and_selftest():
    info = edgeocr.runtime_info()
    major, minor = (int(v) for v in info["version"].split(".")[:2])
    assert (major, minor) >= (1, 20)
    assert os.path.basename(info["library_path"]).startswith("libonnxruntime.so")
    report = edgeocr.selftest()
    assert report["ok"], report["failures"]
    assert report["checks"] > 100


def run_isolated(code: str, env_extra: dict) -> subprocess.CompletedProcess:
    env = dict(os.environ, **env_extra)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_selftest_on_oldest_supported_runtime():
    """CI installs onnxruntime 1.20 beside the newest; EDGEOCR_ORT_OLDEST names its library."""
    lib = os.environ.get("EDGEOCR_ORT_OLDEST")
    if not lib:
        pytest.skip(
            "EDGEOCR_ORT_OLDEST is not set (.ci/run sets it to an onnxruntime 1.20 library)"
        )
    r = run_isolated(
        """
        import edgeocr
        info = edgeocr.runtime_info(); rep = edgeocr.selftest()
        print(info["version"], rep["ok"], rep["checks"]); print(rep["failures"])
        """,
        {"EDGEOCR_ORT_LIBRARY": lib},
    )
    assert r.returncode == 0, r.stderr
    version, ok, checks = r.stdout.split()[:3]
    assert version.startswith("1.20.") and ok == "True", r.stdout


def test_missing_runtime_library(tmp_path):
    r = run_isolated(
        """
        import edgeocr
        try:
            edgeocr.Model(data=b"x")
        except edgeocr.RuntimeLibraryError as e:
            print("RuntimeLibraryError:", e)
        """,
        {"EDGEOCR_ORT_LIBRARY": str(tmp_path / "libonnxruntime.so.9.9.9")},
    )
    assert r.returncode == 0, r.stderr
    assert "RuntimeLibraryError: ONNX Runtime library not found" in r.stdout


def test_too_old_or_wrong_runtime_library(tmp_path):
    """A library that answers version 1.10.0 is refused with the version named, not crashed on."""
    cc = "cc"
    src = tmp_path / "fake_ort.c"
    src.write_text(
        textwrap.dedent(
            """
            #include <stddef.h>
            static const char* version(void) { return "1.10.0"; }
            static const void* get_api(unsigned v) { return NULL; }
            struct base { const void* (*get_api)(unsigned); const char* (*version)(void); };
            static const struct base b = {get_api, version};
            const struct base* OrtGetApiBase(void) { return &b; }
            """
        )
    )
    lib = tmp_path / "libonnxruntime.so.1.10.0"
    cp = subprocess.run(
        [cc, "-shared", "-fPIC", "-o", str(lib), str(src)], capture_output=True, text=True
    )
    if cp.returncode != 0:
        pytest.skip(f"no C compiler to build the fake runtime: {cp.stderr[:200]}")
    not_ort = tmp_path / "libnot_ort.so"
    src2 = tmp_path / "empty.c"
    src2.write_text("int nothing(void) { return 0; }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(not_ort), str(src2)], check=True)
    code = """
        import edgeocr
        try:
            edgeocr.runtime_info()
        except edgeocr.RuntimeLibraryError as e:
            print(type(e).__name__, e)
        """
    r = run_isolated(code, {"EDGEOCR_ORT_LIBRARY": str(lib)})
    assert r.returncode == 0, r.stderr
    assert "ONNX Runtime 1.10.0 is too old" in r.stdout and ">= 1.20" in r.stdout
    r = run_isolated(code, {"EDGEOCR_ORT_LIBRARY": str(not_ort)})
    assert r.returncode == 0, r.stderr
    assert "no OrtGetApiBase symbol" in r.stdout
