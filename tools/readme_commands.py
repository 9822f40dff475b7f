"""The README's commands, as CI and the tests run them: verbatim, from README.md itself.

    python tools/readme_commands.py main     # the command block marked <!-- command: main -->
    python tools/readme_commands.py --list   # every marked name

A command block is the fenced block right below a ``<!-- command: NAME -->`` line. Every fenced
block of the README carries a mark: ``command`` (.ci/run runs it verbatim), ``python`` (a snippet
tests/python/test_readme.py runs) or ``text`` (not a command); test_readme.py checks them all.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
MARK = re.compile(r"^<!--\s*(command|python|text):\s*([\w.-]+)\s*-->\s*$")


def blocks(text: str | None = None) -> list[tuple[str | None, str | None, str]]:
    """(kind, name, body) of every fenced block in README order; kind and name are None for an
    unmarked block."""
    lines = (README.read_text(encoding="utf-8") if text is None else text).splitlines()
    out, i, mark = [], 0, None
    while i < len(lines):
        m = MARK.match(lines[i].strip())
        if m:
            mark = (m.group(1), m.group(2))
        elif lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            kind, name = mark or (None, None)
            out.append((kind, name, "\n".join(lines[i + 1 : j])))
            i, mark = j, None
        elif lines[i].strip():
            mark = None  # a mark belongs to the block right below it
        i += 1
    return out


def command(name: str) -> str:
    found = [body for kind, n, body in blocks() if n == name]
    if len(found) != 1:
        raise SystemExit(f"README.md has {len(found)} blocks marked {name!r}")
    return found[0]


def main(argv: list[str]) -> int:
    if argv == ["--list"]:
        for kind, name, _ in blocks():
            print(f"{kind} {name}")
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(command(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
