import glob
import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The suite runs the float models even where a caller's environment asks for int8
# (EDGEOCR_PRECISION=auto makes int8 models on first use on a CPU with fast int8 and changes
# every default-model result with the machine). tests/python/test_int8_default.py asks for
# precision explicitly.
os.environ["EDGEOCR_PRECISION"] = "fp32"


def shared_dir() -> Path:
    env = os.environ.get("EDGEOCR_SHARED_DIR")
    return Path(env) if env else REPO.parent / "shared"


# With EDGEOCR_REQUIRE_FIXTURES=1 (set by .ci/run) a test skipped because a
# fixture is missing fails instead: CI must not pass by skipping. A fixture is
# anything under ../shared (or $EDGEOCR_SHARED_DIR), the Paddle Lite fixtures
# made by tools/paddle_lite_fixtures.sh, and the test extras' model wheels.
REQUIRE_FIXTURES = os.environ.get("EDGEOCR_REQUIRE_FIXTURES", "") not in ("", "0")


def _is_missing_fixture(reason: str) -> bool:
    marks = (
        str(shared_dir()),
        "EDGEOCR_SHARED_DIR",
        "paddle_lite_fixtures.sh",
        "shared dev dataset",
        "pip install 'edgeocr[test]'",
    )
    return any(m in reason for m in marks)


def _skip_reason(longrepr) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_missing_fixture(report) -> None:
    if REQUIRE_FIXTURES and report.skipped:
        reason = _skip_reason(report.longrepr)
        if _is_missing_fixture(reason):
            report.outcome = "failed"
            report.longrepr = f"missing fixture and EDGEOCR_REQUIRE_FIXTURES=1: {reason}"


# With EDGEOCR_SKIPPED_LOG=FILE the node id of every skipped test (or module) is appended to
# FILE, one a line: .ci/run runs the README's test command on the bare test extra first, then
# installs the optional extras and tools and runs what skipped again (`python -m pytest @FILE`).
SKIPPED_LOG = os.environ.get("EDGEOCR_SKIPPED_LOG", "")


def _log_skipped(report) -> None:
    if SKIPPED_LOG and report.skipped and not hasattr(report, "wasxfail"):
        with open(SKIPPED_LOG, "a", encoding="utf-8") as f:
            f.write(report.nodeid + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    _fail_missing_fixture(report)
    _log_skipped(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield  # module-level skips (pytest.skip(..., allow_module_level=True))
    report = outcome.get_result()
    _fail_missing_fixture(report)
    _log_skipped(report)


def pytest_terminal_summary(terminalreporter):
    n = sum(
        1
        for r in terminalreporter.stats.get("skipped", [])
        if _is_missing_fixture(_skip_reason(getattr(r, "longrepr", "")))
    )
    if n:
        terminalreporter.write_line(
            f"{n} test(s) skipped because a fixture is missing ({shared_dir()} or the test "
            "extras); "
            "set EDGEOCR_REQUIRE_FIXTURES=1 to make that a failure (.ci/run does)"
        )


def dev_dir() -> Path:
    return shared_dir() / "datasets" / "dev"


@pytest.fixture(scope="session")
def v4_paths():
    """det/cls/rec of PP-OCRv4 mobile from the rapidocr-onnxruntime wheel (a test dependency)."""
    from edgeocr.models import MODEL_SETS

    paths = MODEL_SETS["ppocr-v4-mobile"].paths()
    if paths is None:
        pytest.skip("rapidocr-onnxruntime==1.4.4 is not installed (pip install 'edgeocr[test]')")
    return paths


@pytest.fixture(scope="session")
def v6_paths():
    from edgeocr.models import MODEL_SETS

    paths = MODEL_SETS["ppocr-v6-small"].paths()
    if paths is None:
        pytest.skip("rapidocr==3.10.0 is not installed (pip install 'edgeocr[test]')")
    return paths


@pytest.fixture(scope="session")
def dev_set() -> Path:
    d = dev_dir()
    if not (d / "e2e_synth.jsonl").exists():
        pytest.skip(f"the dev set is not at {d} (set EDGEOCR_SHARED_DIR to the shared/ folder)")
    return d


@pytest.fixture(scope="session")
def predictor(v4_paths):
    import edgeocr

    return edgeocr.Predictor(models="ppocr-v4-mobile", threads=2)


def load_paddle_lite():
    """The tests' reference reader of the .nb format (tests/support/paddle_lite_ref, frozen): a
    second reading of the format. The translator is the core's (csrc/loader/nb)."""
    name = "paddle_lite_ref"
    if name in sys.modules:
        return sys.modules[name]
    pkg_dir = REPO / "tests" / "support" / name
    spec = importlib.util.spec_from_file_location(
        name, pkg_dir / "__init__.py", submodule_search_locations=[str(pkg_dir)]
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def ocr_demo(tmp_path_factory):
    """examples/c/ocr_demo.c compiled as C99 against the installed libedgeocr (its path)."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build examples/c/ocr_demo.c")
    # The wheel's copy (edgeocr/lib), else (editable installs) the one in site-packages or build/.
    pkg = os.path.dirname(importlib.import_module("edgeocr").__file__)
    candidates = [os.path.join(pkg, "lib", "libedgeocr.so")]
    candidates += [
        os.path.join(sysconfig.get_paths()[k], "edgeocr", "lib", "libedgeocr.so")
        for k in ("platlib", "purelib")
    ]
    candidates += sorted(glob.glob(str(REPO / "build" / "*" / "libedgeocr.so")))
    lib = next((c for c in candidates if os.path.exists(c)), None)
    if lib is None:
        pytest.skip("libedgeocr.so is not built (EDGEOCR_BUILD_C_API=OFF)")
    libdir = os.path.dirname(lib)
    exe = tmp_path_factory.mktemp("c") / "ocr_demo"
    cp = subprocess.run(
        [
            cc,
            "-std=c99",
            "-O1",
            f"-I{REPO / 'csrc' / 'include'}",
            str(REPO / "examples" / "c" / "ocr_demo.c"),
            f"-L{libdir}",
            "-ledgeocr",
            f"-Wl,-rpath,{libdir}",
            "-o",
            str(exe),
        ],
        capture_output=True,
        text=True,
    )
    assert cp.returncode == 0, cp.stderr
    return exe
