"""README.md is an index whose commands work where a newcomer runs them: from the checkout.

Every fenced block of the README is marked with what it is (tools/readme_commands.py); .ci/run
runs each command block verbatim (`readme NAME`), the Python snippets run here, every
`edgeocr SUBCOMMAND` the README names exists, and every relative link leads to a file. The
tables that restate the code (the optional extras, the model sets and rungs) are checked
against it, and no table row or index link is written twice.
"""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11: pytest itself depends on tomli there
    import tomli as tomllib

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


def table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the first Markdown table below ``heading`` (a line of the text, or the table's
    own header row), header and rule rows left out."""
    lines = [ln.strip() for ln in text.splitlines()]  # a table in a list item is indented
    start = lines.index(heading) - heading.startswith("|")
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    assert len(rows) > 2, f"no table below {heading!r}"
    return rows[2:]


def _project(requirement: str) -> str:
    """The project name of a requirement string ('ray[data]>=2.60' -> 'ray')."""
    return re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement).group(0).lower()


def test_the_extras_table_is_pyprojects():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    rows = table_rows(README.read_text(encoding="utf-8"), "## Optional extras")
    listed = [re.fullmatch(r"`([\w-]+)`", r[0]).group(1) for r in rows]
    assert len(listed) == len(set(listed)), listed
    assert sorted(listed) == sorted(extras), "README's extras table vs pyproject.toml"
    for name, _, brings in rows:
        name = name.strip("`")
        # What a row brings: each requirement's project by name, or through an extra it names.
        named = set(re.findall(r"`([\w.\[\]-]+)`", brings))
        covered = {_project(r) for n in named & set(extras) for r in extras[n]}
        covered |= {_project(n) for n in named}
        missing = {_project(r) for r in extras[name]} - covered
        assert not missing, f"the {name} row does not say it brings {sorted(missing)}"


# Where each doc lists the model sets: (heading of its table, column of the set, of its rung).
SET_TABLES = {"README.md": ("## Model sets", 0, 1), "docs/model-ladder.md": (None, 1, 0)}


@pytest.mark.parametrize("path", sorted(SET_TABLES))
def test_the_model_sets_listed_are_the_codes(path):
    from edgeocr.models import DEFAULT_MODEL_SET, MODEL_SETS, RUNGS

    heading, set_col, rung_col = SET_TABLES[path]
    text = (REPO / path).read_text(encoding="utf-8")
    heading = heading or next(ln for ln in text.splitlines() if ln.startswith("# "))
    rows = table_rows(text, heading)
    names = [re.match(r"`([\w.-]+)`", r[set_col]).group(1) for r in rows]
    assert len(names) == len(set(names)), names
    assert sorted(names) == sorted(MODEL_SETS), f"{path}: the model sets vs edgeocr/models.py"
    rung_of = {v: k for k, v in RUNGS.items()}
    for name, row in zip(names, rows):
        assert row[rung_col] == (f"`{rung_of[name]}`" if name in rung_of else ""), (path, row)
        assert ("(default)" in row[set_col]) == (name == DEFAULT_MODEL_SET), (path, row)


def test_the_cpp_loader_knows_the_same_sets():
    # The C++ loader keys each set's settings by its files' sha256 (csrc/loader/model_sets.cpp);
    # the Python-only sets add document-parsing models to another set's OCR files.
    from edgeocr.models import MODEL_SETS

    cpp = (REPO / "csrc" / "loader" / "model_sets.cpp").read_text(encoding="utf-8")
    cpp_names = re.findall(r'^\s*\{"([\w.-]+)",\s*$', cpp, re.M)
    assert cpp_names
    assert sorted(cpp_names) == sorted(n for n, s in MODEL_SETS.items() if not s.layout)


def _docs():
    return [README, REPO / "CHANGELOG.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", _docs(), ids=lambda p: p.name)
def test_no_table_row_written_twice(path):
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()] + [""]
    rule = re.compile(r"\|[|:\- ]+")
    rows = [  # a table's rows, not its header (two tables may have the same columns)
        ln
        for ln, below in zip(lines, lines[1:])
        if ln.startswith("|") and not rule.fullmatch(ln) and not rule.fullmatch(below)
    ]
    twice = sorted({r for r in rows if rows.count(r) > 1})
    assert not twice, f"{path.name}: rows written twice: {twice}"


def test_the_documentation_list_links_every_doc_once():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Documentation") :]
    section = section[: section.index("\n## ", 3)]
    links = re.findall(r"\]\(([^)#\s]+)\)", section)
    assert len(links) == len(set(links)), (
        f"linked twice: {[x for x in links if links.count(x) > 1]}"
    )
    docs = {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")}
    assert docs <= set(links), (
        f"docs/ pages the README's Documentation list lacks: {docs - set(links)}"
    )
    # The index rows of "What you get" name each thing once.
    firsts = [r[0] for r in table_rows(text, "## What you get")]
    calls = [c for f in firsts for c in re.findall(r"`(\.?[\w.]+)\(", f)]
    assert len(calls) == len(set(calls)), f"What you get names twice: {calls}"


USAGE = REPO / "docs" / "usage.md"


def test_usage_lists_every_command_and_predict_option():
    from edgeocr.cli import build_parser

    text = USAGE.read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    rows = table_rows(text, "## The API and the commands")
    named = {m for r in rows for m in re.findall(r"`edgeocr ([a-z]+)\b", r[0])}
    assert named == set(sub.choices), f"docs/usage.md vs edgeocr's subcommands: {named ^ set(sub)}"
    predict = sub.choices["predict"]
    options = {o for a in predict._actions for o in a.option_strings if o.startswith("--")}
    options.discard("--help")
    row = next(" ".join(r) for r in rows if r[0].startswith("`edgeocr predict"))
    written = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", row))
    assert written == options, (
        f"docs/usage.md's predict row vs edgeocr predict: {written ^ options}"
    )


def test_usage_lists_every_error_with_its_bases():
    import edgeocr.errors as errors

    classes = {
        name: cls
        for name, cls in vars(errors).items()
        if isinstance(cls, type) and issubclass(cls, errors.EdgeOCRError)
    }
    classes.pop("EdgeOCRError")
    rows = table_rows(USAGE.read_text(encoding="utf-8"), "| error | also a | when |")
    table = {r[0].strip("`"): re.findall(r"`(\w+)`", r[1]) for r in rows}
    assert sorted(table) == sorted(classes), "docs/usage.md's errors vs edgeocr/errors.py"
    for name, bases in table.items():
        want = [b.__name__ for b in classes[name].__bases__ if b is not errors.EdgeOCRError]
        assert bases == want, f"{name}: the table says {bases}, edgeocr/errors.py {want}"


C_HEADER = REPO / "csrc" / "include" / "edgeocr_c.h"
C_API_DOC = REPO / "docs" / "c-api.md"


def test_c_api_doc_is_the_headers():
    header = C_HEADER.read_text(encoding="utf-8")
    doc = C_API_DOC.read_text(encoding="utf-8")
    version = int(re.search(r"#define EDGEOCR_C_API_VERSION (\d+)", header).group(1))
    said = re.search(r"`EDGEOCR_C_API_VERSION` \((\d+)\)", doc)
    assert said and int(said.group(1)) == version, "docs/c-api.md's API version vs the header"
    later = [int(v) for v in re.findall(r"API version (\d+)", doc) if int(v) > version]
    assert not later, f"docs/c-api.md names API versions the header does not have: {later}"
    # The exported symbols: every function the header declares, and no other.
    declared = set(re.findall(r"EDGEOCR_C_EXPORT[^;(]*?\b(edgeocr_\w+)\s*\(", header))
    listed = doc[doc.index("## Exported symbols") :]
    listed = set(re.findall(r"\bedgeocr_\w+", listed[: listed.index("\n## ", 3)]))
    assert listed == declared, (
        f"docs/c-api.md's exported symbols vs the header: {listed ^ declared}"
    )
    # The status table: every status but OK, once.
    statuses = set(re.findall(r"EDGEOCR_STATUS_(\w+) = \d+", header)) - {"OK"}
    rows = table_rows(doc, "| status | when |")
    table = [r[0].strip("`") for r in rows]
    assert sorted(table) == sorted(statuses), (
        f"docs/c-api.md's status table: {set(table) ^ statuses}"
    )


def test_pipeline_config_defaults_table_is_the_code():
    """docs/pipeline-config.md's "How the defaults compare": edgeocr's column starts with each
    setting's default as edgeocr.PipelineConfig has it (it once said det_max_upscale 2 after the
    default became 1.5)."""
    import dataclasses

    from edgeocr.config import PipelineConfig

    text = (REPO / "docs" / "pipeline-config.md").read_text(encoding="utf-8")
    section = text.split("## How the defaults compare", 1)[1].split("\n## ", 1)[0]
    defaults = {f.name: f.default for f in dataclasses.fields(PipelineConfig)}
    checked = 0
    for row in section.splitlines():
        cols = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cols) < 2:
            continue
        names = re.findall(r"`([a-z_]+)`", cols[0])
        if len(names) != 1 or names[0] not in defaults or cols[0] != f"`{names[0]}`":
            continue
        want = defaults[names[0]]
        if not isinstance(want, (bool, int, float, str)):
            continue
        first = re.split(r"[\s:;(]", cols[1].replace("`", ""), maxsplit=1)[0]
        if isinstance(want, bool):
            got = {"on": True, "off": False}.get(first)
        elif isinstance(want, (int, float)):
            m = re.fullmatch(r"(\d+)\^(\d+)", first)
            got = int(m[1]) ** int(m[2]) if m else float(first)
        else:
            got = first
        assert got == want, f"{names[0]}: the docs say {cols[1][:40]!r}, the code {want!r}"
        checked += 1
    assert checked >= 10, checked
