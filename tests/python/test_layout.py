"""The package layout holds (docs/architecture.md): read from the source, nothing imported.

* no import cycles between edgeocr's modules (imports inside functions count too);
* the SDK core, pack/ and paddle_lite/ never import the tooling packages (bench/, export/,
  evaluate/), except pack's accuracy gate, which uses the metrics of evaluate/metrics.py;
* no module imports a name from a package ``__init__`` (its own or another's): names come from
  the module that defines them, so an ``__init__`` only re-exports;
* no module imports another module's private (``_name``) names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "edgeocr"
TOOLING = ("edgeocr.bench", "edgeocr.export", "edgeocr.evaluate")
# (importer prefix, imported module): the allowed exceptions to "nothing outside imports tooling".
TOOLING_USERS = {("edgeocr.pack", "edgeocr.evaluate.metrics")}
# Known cycles, each broken at run time by a lazy import (importer, imported): reason.
# Predictor(precision="int8") packs the model set's int8 models on first use (int8_default ->
# pack.packer), and packing verifies them with a Predictor (pack.packer -> predictor).
ALLOWED_CYCLE_EDGES = {("edgeocr.predictor", "edgeocr.int8_default")}
# Compiled modules (no .py file).
COMPILED = {"edgeocr._core"}


def _modules() -> dict[str, tuple[Path, bool]]:
    mods = {}
    for f in PKG.rglob("*.py"):
        parts = list(f.relative_to(REPO).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        mods[".".join(parts)] = (f, is_pkg)
    return mods


MODS = _modules()


def _imports():
    """(importer, imported module, name or None for a whole module, line) for every import."""
    out = []
    for mod, (path, is_pkg) in sorted(MODS.items()):
        package = mod if is_pkg else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out += [(mod, a.name, None, node.lineno) for a in node.names if _ours(a.name)]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not _ours(target):
                    continue
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    if sub in MODS or sub in COMPILED:
                        out.append((mod, sub, None, node.lineno))
                    else:
                        out.append((mod, target, a.name, node.lineno))
    return out


def _ours(name: str) -> bool:
    return name == "edgeocr" or name.startswith("edgeocr.")


IMPORTS = _imports()


def _where(mod: str, line: int) -> str:
    return f"{MODS[mod][0].relative_to(REPO)}:{line}"


def test_the_graph_is_read():
    # The reader must see the known edges, or every rule below would pass vacuously.
    edges = {(a, b) for a, b, _, _ in IMPORTS}
    assert ("edgeocr.predictor", "edgeocr.model") in edges
    assert ("edgeocr.bench.compare", "edgeocr.predictor") in edges
    assert ("edgeocr.pack.verify", "edgeocr.evaluate.metrics") in edges
    assert len(MODS) > 30


def test_no_import_cycles():
    graph: dict[str, set[str]] = {m: set() for m in MODS}
    for a, b, _, _ in IMPORTS:
        if b in MODS and a != b and (a, b) not in ALLOWED_CYCLE_EDGES:
            graph[a].add(b)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []
    cycles = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycles.append(stack[stack.index(n) :] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def _tooling(name: str) -> bool:
    return any(name == t or name.startswith(t + ".") for t in TOOLING)


def test_core_never_imports_tooling():
    bad = [
        f"{_where(a, line)}: {a} imports {b}"
        for a, b, _, line in IMPORTS
        if _tooling(b)
        and not _tooling(a)
        and not any(a.startswith(p) and b == t for p, t in TOOLING_USERS)
    ]
    assert not bad, "\n".join(bad)


def test_no_names_from_package_inits():
    packages = {m for m, (_, is_pkg) in MODS.items() if is_pkg}
    bad = [
        f"{_where(a, line)}: {a} imports {name or '*'} from the package {b}'s __init__"
        for a, b, name, line in IMPORTS
        if b in packages and (name is not None or b == "edgeocr")
    ]
    assert not bad, "\n".join(bad)


def test_no_private_names_across_modules():
    bad = [
        f"{_where(a, line)}: {a} imports {b}.{name}"
        for a, b, name, line in IMPORTS
        if name and name.startswith("_") and not name.startswith("__") and a != b
    ]
    assert not bad, "\n".join(bad)


def test_cli_plugins_exist():
    # `edgeocr` finds its tooling subcommands by module name (edgeocr/cli.py, _PLUGIN_COMMANDS):
    # every one must be a module that defines register(subparsers).
    tree = ast.parse((PKG / "cli.py").read_text(encoding="utf-8"))
    names = next(
        ast.literal_eval(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "_PLUGIN_COMMANDS" for t in n.targets)
    )
    assert names
    for name in names:
        mod = f"edgeocr.{name}"
        assert mod in MODS, mod
        src = ast.parse(MODS[mod][0].read_text(encoding="utf-8"))
        defined = {n.name for n in src.body if isinstance(n, ast.FunctionDef)}
        defined |= {
            a.asname or a.name for n in src.body if isinstance(n, ast.ImportFrom) for a in n.names
        }
        assert "register" in defined, f"{mod} has no register()"


@pytest.mark.parametrize(
    "rule", [test_core_never_imports_tooling, test_no_private_names_across_modules]
)
def test_rules_can_fail(rule, monkeypatch):
    # A made-up violation is caught: the rules are not vacuous.
    fake = ("edgeocr.predictor", "edgeocr.bench.compare", "_secret", 1)
    monkeypatch.setitem(globals(), "IMPORTS", [*IMPORTS, fake])
    with pytest.raises(AssertionError):
        rule()


def test_status_table_is_the_one_list():
    # The core's status table (edgeocr/status.h, bound as _core.StatusCode) is what the C header
    # and edgeocr.errors follow: every status but OK has an exception class, and the C enum has
    # the same names and values (the C build also static_asserts this).
    import re

    from edgeocr import _core, errors

    table = {name: int(v) for name, v in _core.StatusCode.__members__.items()}
    assert table["OK"] == 0 and len(table) >= 9
    assert set(errors._BY_STATUS_NAME) == set(table) - {"OK"}
    header = (REPO / "csrc" / "include" / "edgeocr_c.h").read_text(encoding="utf-8")
    c_enum = {m[0]: int(m[1]) for m in re.findall(r"EDGEOCR_STATUS_(\w+) = (\d+)", header)}
    assert c_enum == table
    for name, value in table.items():
        if name == "OK":
            continue
        exc = errors.from_status(value, "m")
        assert isinstance(exc, errors._BY_STATUS_NAME[name])
    assert type(errors.from_status(max(table.values()) + 1, "m")) is errors.EdgeOCRError
