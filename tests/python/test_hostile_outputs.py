"""Outputs that cannot be written, through ``edgeocr predict ... -o OUT`` in a child process under
the limits of the hostile-input tests (tests/python/limits.py): a missing folder, a folder as the
target, a path under a regular file, and a corrupt input with an output asked for. Each must end
with a clear error (exit status 2, the path named), before any page is read where the path is
the problem, and leave nothing behind: no output and no partial file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from limits import CPU_SECONDS, PEAK_RSS_MB, run_limited

pytest.importorskip("pikepdf", reason="pikepdf is not installed (pip install 'edgeocr[pdf]')")

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def predict(*args):
    cmd = [sys.executable, "-m", "edgeocr.cli", "predict", "--threads", "1", *map(str, args)]
    out = run_limited(cmd)
    assert not out.timed_out and out.returncode >= 0, out.describe()
    assert out.peak_rss_mb < PEAK_RSS_MB and out.cpu_seconds < CPU_SECONDS, out.describe()
    return out


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*"))


@pytest.mark.parametrize("fmt", ["pdf", "hocr"])
def test_unwritable_outputs(tmp_path, fmt):
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "a_folder").mkdir()
    for target, says in (
        (tmp_path / "missing" / f"out.{fmt}", "cannot write there"),
        (tmp_path / "a_file" / f"out.{fmt}", "cannot write there"),
        (tmp_path / "a_folder", "is a folder"),
    ):
        out = predict(DATA / "sample_en.png", "--format", fmt, "-o", target)
        assert out.returncode == 2, out.describe()
        assert says in out.stderr and str(target) in out.stderr, out.describe()
        assert "Traceback" not in out.stderr, out.describe()
    assert files(tmp_path) == ["a_file", "a_folder"]


def test_corrupt_input_writes_nothing(tmp_path):
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")  # truncated
    for fmt in ("pdf", "alto"):
        target = tmp_path / f"out.{fmt}"
        out = predict(bad, "-o", target)
        assert out.returncode == 2, out.describe()
        assert (
            "bad.pdf" in out.stderr
            and "nothing was written" in out.stderr
            or ("no pages" in out.stderr)
        ), out.describe()
    assert files(tmp_path) == ["bad.pdf"]
