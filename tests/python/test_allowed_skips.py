"""Skips are declared, never inferred (tests/python/skips.py, tests/allowed_skips.toml): every
entry names a test that exists and a condition that evaluates; with EDGEOCR_STRICT_SKIPS=1 an
undeclared skip fails, and so does a declared one whose condition is false; with
EDGEOCR_REQUIRE_FIXTURES=1 a missing fixture fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from skips import REPO, covers, declared_skip_failure, holds, load_allowed

ENTRIES = load_allowed()


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["test"] for e in ENTRIES])
def test_each_entry_names_a_test_that_exists(entry):
    path, _, rest = entry["test"].partition("::")
    source = REPO / path
    assert source.is_file() and source.name.startswith("test_"), entry
    if rest:
        name = re.split(r"[\[:]", rest)[0]
        text = source.read_text(encoding="utf-8")
        assert re.search(rf"^\s*(async\s+)?(def|class)\s+{re.escape(name)}\b", text, re.M), entry


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["test"] for e in ENTRIES])
def test_each_condition_evaluates_here_and_says_why(entry):
    assert isinstance(holds(entry["when"]), bool)
    assert entry["why"].strip()


def test_a_declared_node_covers_its_tests_and_cases_only():
    assert covers("t.py", "t.py::test_a[1]")
    assert covers("t.py::test_a", "t.py::test_a[x-y]")
    assert covers("t.py::TestA", "t.py::TestA::test_b")
    assert not covers("t.py::test_a", "t.py::test_ab")
    assert not covers("t.py", "t.pyx::test_a")


def test_what_fails_a_skip():
    here = {"test": "t.py::test_a", "when": "python >= (3, 0)", "why": "always"}
    gone = {"test": "t.py::test_b", "when": "python < (3, 0)", "why": "Python 2 only"}
    assert declared_skip_failure("t.py::test_a[1]", "r", [here, gone]) is None
    assert "false here" in declared_skip_failure("t.py::test_b", "r", [here, gone])
    assert "does not declare" in declared_skip_failure("t.py::test_c", "r", [here, gone])
    with pytest.raises(NameError, match="FACTS"):
        holds("python_version > '3'")


def test_skip_probe():
    # Skips only when the test below asks it to: an undeclared skip.
    if os.environ.get("EDGEOCR_SKIP_PROBE") == "1":
        pytest.skip("asked to skip (EDGEOCR_SKIP_PROBE=1)")


def _pytest(*args, **env):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider", "-q", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "EDGEOCR_SKIPPED_LOG": "", **env},
        timeout=600,
    )


def test_ci_fails_an_undeclared_skip_and_a_missing_fixture(tmp_path):
    probe = "tests/python/test_allowed_skips.py::test_skip_probe"
    r = _pytest(probe, EDGEOCR_SKIP_PROBE="1", EDGEOCR_STRICT_SKIPS="0")
    assert r.returncode == 0 and "1 skipped" in r.stdout, r.stdout[-2000:]
    r = _pytest(probe, EDGEOCR_SKIP_PROBE="1", EDGEOCR_STRICT_SKIPS="1")
    assert r.returncode == 1 and "does not declare it" in r.stdout, r.stdout[-2000:]
    # A fixture the test asks for by its marker (@pytest.mark.needs_fixture), then by a helper.
    missing = {"EDGEOCR_SHARED_DIR": str(tmp_path / "no-shared")}
    evaluate = "tests/python/test_evaluate.py::test_dev_ground_truth_scores_perfect"
    nb = "tests/python/test_nb_pipeline.py"
    r = _pytest(evaluate, nb, EDGEOCR_REQUIRE_FIXTURES="0", **missing)
    assert r.returncode == 0 and "because a fixture is missing" in r.stdout, r.stdout[-2000:]
    r = _pytest(evaluate, nb, EDGEOCR_REQUIRE_FIXTURES="1", **missing)
    assert r.returncode == 1, r.stdout[-2000:]
    assert "skipped" not in r.stdout.splitlines()[-1], r.stdout[-2000:]
    assert "missing fixture and EDGEOCR_REQUIRE_FIXTURES=1" in r.stdout, r.stdout[-2000:]
