"""The style checks CI runs: ruff (lint and format) on Python, clang-format on C/C++.

    python tools/check_style.py            # every check whose tool is installed
    python tools/check_style.py --require  # a missing tool is a failure (CI)
    python tools/check_style.py clang-format

Exit 0 when every check that ran passed. The versions are pinned in .ci/run
(ruff, and clang-format from the PyPI wheel): formatters differ between versions.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The C/C++ trees clang-format keeps (.clang-format at the root).
CPP_TREES = ("csrc", "tests/cpp", "tests/fuzz", "examples")
CPP_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp")


def cpp_files() -> list[str]:
    """The tracked (or, outside git, present) C/C++ files under CPP_TREES, relative to the repo."""
    try:
        out = subprocess.run(
            ["git", "ls-files", *CPP_TREES], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = [str(p.relative_to(REPO)) for t in CPP_TREES for p in (REPO / t).rglob("*")]
    return sorted(f for f in out if f.endswith(CPP_SUFFIXES) and (REPO / f).is_file())


CHECKS = {
    "ruff-check": ("ruff", lambda: ["check", "."]),
    "ruff-format": ("ruff", lambda: ["format", "--check", "."]),
    "clang-format": ("clang-format", lambda: ["--dry-run", "-Werror", *cpp_files()]),
}


def find_tool(name: str) -> str | None:
    """The tool on PATH, else beside this Python (where pip puts a wheel's scripts)."""
    return shutil.which(name) or shutil.which(name, path=sysconfig.get_path("scripts"))


def run(name: str, require: bool = False) -> tuple[str, str]:
    """('ok' | 'failed' | 'skipped', output) of one check."""
    tool, args = CHECKS[name]
    exe = find_tool(tool)
    if exe is None:
        return ("failed" if require else "skipped"), f"{tool} is not installed"
    proc = subprocess.run([exe, *args()], cwd=REPO, capture_output=True, text=True)
    return ("ok" if proc.returncode == 0 else "failed"), (proc.stdout + proc.stderr).strip()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checks", nargs="*", metavar="CHECK", help=f"from {', '.join(CHECKS)} (all)")
    ap.add_argument("--require", action="store_true", help="a missing tool fails the check")
    args = ap.parse_args(argv)
    unknown = [c for c in args.checks if c not in CHECKS]
    if unknown:
        ap.error(f"unknown check {unknown[0]!r}; choose from {', '.join(CHECKS)}")
    rc = 0
    for name in args.checks or CHECKS:
        status, output = run(name, args.require)
        print(f"{name}: {status}")
        if status != "ok" and output:
            print(output)
        rc |= status == "failed"
    return rc


if __name__ == "__main__":
    sys.exit(main())
