"""README.md is an index whose commands work where a newcomer runs them: from the checkout.

Every fenced block of the README is marked with what it is (tools/readme_commands.py); .ci/run
runs each command block verbatim (`readme NAME`), the Python snippets run here, every
`edgeocr SUBCOMMAND` the README names exists, and every relative link leads to a file.
"""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"

_spec = importlib.util.spec_from_file_location(
    "readme_commands", REPO / "tools" / "readme_commands.py"
)
readme_commands = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readme_commands)


def test_every_block_says_what_it_is():
    unmarked = [body.splitlines()[:1] for kind, _, body in readme_commands.blocks() if kind is None]
    assert not unmarked, (
        f"fenced blocks without a <!-- command|python|text: NAME --> mark: {unmarked}"
    )
    names = [name for _, name, _ in readme_commands.blocks()]
    assert len(names) == len(set(names)), names


def test_the_marks_are_read_as_written():
    text = (
        "<!-- command: a -->\n```\necho 1 && echo 2\n```\n\n```\nx\n```\n"
        "<!-- text: t -->\nprose\n```\ny\n```\n"
    )
    assert readme_commands.blocks(text) == [
        ("command", "a", "echo 1 && echo 2"),
        (None, None, "x"),
        (None, None, "y"),  # a mark belongs to the block right below it
    ]


def test_ci_runs_every_command_block_verbatim():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    ran = re.findall(r"^\s*readme ([\w.-]+)\s*$", ci, re.M)
    commands = [name for kind, name, _ in readme_commands.blocks() if kind == "command"]
    assert {"main", "test"} <= set(commands)
    assert set(commands) <= set(ran), (
        f"README commands .ci/run does not run: {set(commands) - set(ran)}"
    )
    # The README's two commands come first, before anything optional is installed.
    assert ran[:2] == ["main", "test"], ran
    assert ci.index("readme test") < ci.index("Optional extras")


def test_the_two_commands_are_the_ones_a_newcomer_types():
    assert readme_commands.command("main") == (
        'pip install ".[models]" && edgeocr predict tests/data/sample_en.png'
    )
    assert readme_commands.command("test") == 'pip install -e ".[test]" && python -m pytest'


def test_python_snippets_run_from_the_checkout(v4_paths, v6_paths):
    expected = json.loads((REPO / "tests" / "data" / "expected.json").read_text())
    snippets = [(n, b) for kind, n, b in readme_commands.blocks() if kind == "python"]
    assert snippets
    for name, body in snippets:
        r = subprocess.run(
            [sys.executable, "-c", body], cwd=REPO, capture_output=True, text=True, timeout=600
        )
        assert r.returncode == 0, f"README snippet {name}:\n{r.stderr[-3000:]}"
        if name == "quickstart":
            texts = [ln.split(" ", 1)[1] for ln in r.stdout.splitlines()]
            assert texts == expected["sample_en.png"]["lines"], r.stdout


def test_every_edgeocr_subcommand_it_names_exists():
    from edgeocr.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    named = set(re.findall(r"\bedgeocr ([a-z][a-z-]+)\b", README.read_text(encoding="utf-8")))
    named -= {"is", "with", "from", "builds"}  # prose: "edgeocr is ..."
    assert named, "the README names no edgeocr subcommand"
    assert named <= set(sub.choices), f"not edgeocr subcommands: {named - set(sub.choices)}"


def test_relative_links_lead_to_files():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [ln for ln in links if not re.match(r"[a-z]+://", ln)]
    assert local
    missing = [ln for ln in local if not (REPO / ln).exists()]
    assert not missing, missing


@pytest.mark.parametrize("path", ["docs/usage.md", "docs/runtime.md", "docs/results.md"])
def test_what_moved_out_of_the_readme_is_linked(path):
    assert (REPO / path).exists()
    assert f"]({path})" in README.read_text(encoding="utf-8")
