"""Style: ruff (lint, format) and clang-format pass (tools/check_style.py; skipped without them)."""

from __future__ import annotations

import importlib.util

import pytest
from conftest import REPO

_spec = importlib.util.spec_from_file_location("check_style", REPO / "tools" / "check_style.py")
check_style = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_style)


@pytest.mark.parametrize("name", list(check_style.CHECKS))
def test_style(name):
    status, output = check_style.run(name)
    if status == "skipped":
        pytest.skip(f"{output} (.ci/run installs the pinned version)")
    assert status == "ok", output


def test_clang_format_sees_the_sources():
    files = check_style.cpp_files()
    assert "csrc/include/edgeocr_c.h" in files and any(f.startswith("tests/cpp/") for f in files)
