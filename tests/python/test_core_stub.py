"""edgeocr/_core/*.pyi (the type stubs of the compiled module) match the module.

Every public name of edgeocr._core and its submodules (kernels, loader) is in the stubs and
every name in the stubs is in the module, class members included; a function's parameter
names are those of its binding (read from the signature pybind11 writes in its docstring).
"""

from __future__ import annotations

import ast
import inspect
import re

import pytest
from conftest import REPO

from edgeocr import _core

STUBS = REPO / "edgeocr" / "_core"
MODULES = {"": _core, "kernels": _core.kernels, "loader": _core.loader}
# What every pybind11 class / enum has that the stubs leave out or that is not ours.
_SKIP = {"name", "value"}


def _stub(sub: str) -> ast.Module:
    path = STUBS / (f"{sub}.pyi" if sub else "__init__.pyi")
    return ast.parse(path.read_text(encoding="utf-8"))


def _public(names) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def _stub_names(body) -> dict[str, ast.AST]:
    out = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            out.update({t.id: node for t in node.targets if isinstance(t, ast.Name)})
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            out.update({a.asname or a.name: node for a in node.names})
    return {k: v for k, v in out.items() if not k.startswith("_")}


def _runtime_members(cls) -> set[str]:
    own = set()
    for klass in inspect.getmro(cls):
        if klass is object or klass.__module__ in ("builtins", "pybind11_builtins"):
            continue
        own |= set(vars(klass))
    return _public(own)


def _doc_params(fn, name: str) -> list[str] | None:
    """Parameter names from pybind11's docstring signature; None when overloaded or absent."""
    doc = (getattr(fn, "__doc__", None) or "").lstrip()
    m = re.match(rf"{re.escape(name)}\((.*?)\)( ->|$)", doc.splitlines()[0] if doc else "")
    if not m:
        return None
    params, depth, cur = [], 0, ""
    for ch in m.group(1):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        params.append(cur)
    return [p.split(":")[0].split("=")[0].strip() for p in params]


def _stub_params(node: ast.FunctionDef) -> list[str]:
    a = node.args
    return [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]


@pytest.mark.parametrize("sub", list(MODULES))
def test_stub_names_match_the_module(sub):
    mod = MODULES[sub]
    stub = _stub_names(_stub(sub).body)
    runtime = _public(dir(mod)) - {"annotations"}
    assert set(stub) == runtime, (
        f"in _core{'.' + sub if sub else ''} but not the stub: {sorted(runtime - set(stub))}; "
        f"in the stub only: {sorted(set(stub) - runtime)} (regenerate: edgeocr/_core/__init__.pyi)"
    )


@pytest.mark.parametrize("sub", list(MODULES))
def test_stub_classes_and_signatures_match(sub):
    mod = MODULES[sub]
    checked = 0
    for name, node in _stub_names(_stub(sub).body).items():
        obj = getattr(mod, name)
        if isinstance(node, ast.ClassDef):
            members = _stub_names(node.body)
            runtime = _runtime_members(obj) - _SKIP
            assert set(members) - _SKIP == runtime, f"{sub}.{name}: members differ"
            for mname, mnode in members.items():
                if isinstance(mnode, ast.FunctionDef) and not mnode.decorator_list:
                    want = _doc_params(getattr(obj, mname), mname)
                    if want is not None:
                        assert _stub_params(mnode)[1:] == want[1:], f"{name}.{mname}"
                        checked += 1
        elif isinstance(node, ast.FunctionDef) and not node.decorator_list:
            want = _doc_params(obj, name)
            if want is not None:
                assert _stub_params(node) == want, f"{sub}.{name}"
                checked += 1
    assert checked or not any(isinstance(n, ast.FunctionDef) for n in _stub(sub).body)
