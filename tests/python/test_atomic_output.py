"""The document writers' output file (edgeocr/documents/output.py, AtomicFile): a new file gets
the mode ``open(path, "w")`` would give it (0o666 less the umask), an existing one keeps its own,
and the process umask is never changed on the way (changing it to read it races with every
thread that creates a file meanwhile). Run in a child process: the umask is the process's."""

from __future__ import annotations

import stat
import subprocess
import sys

import pytest

CHILD = r"""
import os, sys
from edgeocr.documents.output import AtomicFile

os.umask(int(sys.argv[2], 8))


def no_umask(*a):
    raise AssertionError("os.umask called while writing an output")


os.umask = no_umask
for path in sys.argv[1].split(","):
    with AtomicFile(path, binary=False) as out:
        out.file.write("text\n")
        out.commit()
"""


def write(paths, umask: str) -> None:
    r = subprocess.run(
        [sys.executable, "-c", CHILD, ",".join(map(str, paths)), umask],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-2000:]


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask, expected", [("022", 0o644), ("077", 0o600), ("002", 0o664)])
def test_a_new_output_gets_the_umasks_mode(tmp_path, umask, expected):
    out = tmp_path / "new.txt"
    write([out], umask)
    assert out.read_text() == "text\n" and mode(out) == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.txt"]  # no temporary file left


def test_an_existing_output_keeps_its_mode(tmp_path):
    old = tmp_path / "old.txt"
    old.write_text("old")
    old.chmod(0o640)
    write([old], "077")
    assert old.read_text() == "text\n" and mode(old) == 0o640
