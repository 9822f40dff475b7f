"""Builds the C++ (and C) tests with CMake and runs them with ctest: one pytest run covers both."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build" / "ctest"


def _tool(name):
    """A build tool from this Python's environment (the test extra installs cmake and ninja
    there, and a venv that is not activated has them off PATH), else from PATH."""
    here = Path(sysconfig.get_path("scripts")) / name
    return str(here) if here.exists() else shutil.which(name)


@pytest.fixture(scope="module")
def built():
    cmake = _tool("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed (pip install -e '.[test]' installs it)")
    ninja = _tool("ninja")
    gen = ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"] if ninja else []
    env = dict(os.environ)
    try:
        import edgeocr

        env.setdefault("EDGEOCR_ORT_LIBRARY", edgeocr.runtime_info()["library_path"])
        from edgeocr.models import MODEL_SETS

        paths = MODEL_SETS["ppocr-v4-mobile"].paths() or {}
        for role, p in paths.items():
            env.setdefault(f"EDGEOCR_TEST_{role.upper()}_MODEL", p)
        # A known recheck set, for the deferred recheck model's C test (test_c_regressions).
        paths = MODEL_SETS["ppocr-v6-tiny-recheck"].paths() or {}
        for role in ("det", "cls", "rec", "recheck"):
            if role in paths:
                env.setdefault(f"EDGEOCR_TEST_RECHECK_{role.upper()}_MODEL", paths[role])
        if paths.get("keys"):
            env.setdefault("EDGEOCR_TEST_RECHECK_KEYS", paths["keys"])
    except Exception:  # noqa: BLE001 - the C tests skip themselves without these
        pass
    cfg = subprocess.run(
        [
            cmake,
            "-S",
            str(REPO),
            "-B",
            str(BUILD),
            *gen,
            "-DEDGEOCR_BUILD_TESTS=ON",
            "-DEDGEOCR_BUILD_PYTHON=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
            # CMakeLists.txt reads nlohmann-json's include dir and the C tests' models through
            # this Python: the one running the tests, whose environment has the test extra.
            f"-DPython3_EXECUTABLE={sys.executable}",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert cfg.returncode == 0, cfg.stdout[-3000:] + cfg.stderr[-3000:]
    jobs = str(min(2, os.cpu_count() or 1))
    b = subprocess.run(
        [cmake, "--build", str(BUILD), "-j", jobs], capture_output=True, text=True, env=env
    )
    assert b.returncode == 0, b.stdout[-5000:] + b.stderr[-3000:]
    return env


def test_ctest(built):
    r = subprocess.run(
        [_tool("ctest") or "ctest", "--test-dir", str(BUILD), "--output-on-failure", "-j", "2"],
        capture_output=True,
        text=True,
        env=built,
        timeout=1200,
    )
    print(r.stdout[-6000:])
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert "tests passed" in r.stdout
    # A C test that exits 77 (no models, no runtime) is reported as skipped, and
    # ctest still exits 0: here that is a failure, with ctest's list of them.
    skipped = [ln.strip() for ln in r.stdout.splitlines() if "Skipped" in ln or "***Not Run" in ln]
    assert not skipped and "tests did not run" not in r.stdout, (
        "ctest skipped tests (C tests exit 77 when EDGEOCR_TEST_*_MODEL or ONNX Runtime are "
        "missing):\n" + "\n".join(skipped) + "\n" + r.stdout[-3000:]
    )
