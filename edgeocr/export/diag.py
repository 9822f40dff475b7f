"""Diagnosis for the move from a dynamic graph (PyTorch eager) to a static one.

Three independent probes look for control flow that a static graph cannot
keep (each reports the user's source line):

- trace comparison: the module is traced at the example shape and at other
  values of each dynamic axis; a difference between the recorded graphs is a
  branch or loop that was decided by the shape at trace time;
- tracer warnings: a tensor turned into a Python bool/int/float during the
  trace (``if x.mean() > 0:``, ``if x.shape[-1] > 64:`` under export);
- torch.export guards: with the dynamic axes symbolic, every condition the
  code imposes on them (``width > 64``) is recorded with its source line, and
  data-dependent branches fail with the line that needs the value.

Also here: the layer-by-layer comparison used by ``edgeocr check --layerwise``.
torch is imported only by the functions that need it.
"""

from __future__ import annotations

import ast
import linecache
import os
import re
import warnings
from dataclasses import dataclass, field

import numpy as np

# Kinds of failure the guide (docs/dynamic-to-static.md) describes.
CONTROL_FLOW = "control-flow"
NUMERICAL = "numerical"
NO_SPEEDUP = "no-speedup"
MEMORY = "memory"

_FIX_SHAPE_BRANCH = (
    "make it static (resize or pad inputs to the sizes the deployed model sees, in the "
    "preprocessing hook) or compute both sides and select with torch.where; if both branches "
    "must stay, write it as torch.cond(pred, true_fn, false_fn, (x,))"
)
_FIX_LOOP = (
    "make the trip count a constant, or vectorise the loop (one batched op over the axis); "
    "a loop that must follow the input length needs torch.jit.script or a scan-style op"
)
_FIX_VALUE = (
    "a branch on tensor values cannot be traced: select with torch.where (both sides are "
    "computed) or use torch.cond(pred, true_fn, false_fn, (x,))"
)


@dataclass
class Finding:
    """One problem found on the way to a static graph."""

    kind: str
    message: str
    file: str | None = None
    line: int | None = None
    code: str = ""
    fix: str = ""
    source: str = ""  # which probe found it: trace-compare, tracer-warning, torch.export, verify
    details: list = field(default_factory=list)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.file else "<unknown location>"

    def __str__(self) -> str:
        where = f" {self.location}:" if self.file else ""
        head = f"[{self.kind}]{where} {self.message}"
        if self.code:
            head += f"\n    {self.code}"
        if self.fix:
            head += f"\n    fix: {self.fix}"
        return head

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "code": self.code,
            "fix": self.fix,
            "source": self.source,
        }


# -- source locations -------------------------------------------------------
def _torch_dir() -> str:
    import torch

    return os.path.dirname(torch.__file__)


def _is_user_file(path: str | None) -> bool:
    if not path or path.startswith("<"):
        return False
    path = os.path.abspath(path)
    skip = (_torch_dir(), os.path.dirname(os.path.abspath(__file__)))
    return not any(path.startswith(d + os.sep) or path == d for d in skip)


def enclosing_statement(path: str, line: int) -> tuple[int, str, str]:
    """The innermost ``if``/``for``/``while`` (or conditional expression) around ``line``.

    Returns (line, source text of that line, statement kind); the line itself
    when no such statement encloses it or the file cannot be parsed.
    """
    text = "".join(linecache.getlines(path))
    own = linecache.getline(path, line).strip()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return line, own, ""
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.For, ast.While, ast.IfExp)):
            end = getattr(node, "end_lineno", node.lineno)
            if node.lineno <= line <= end and (best is None or node.lineno >= best.lineno):
                best = node
    if best is None:
        return line, own, ""
    kind = {ast.If: "if", ast.For: "for", ast.While: "while", ast.IfExp: "if"}[type(best)]
    return best.lineno, linecache.getline(path, best.lineno).strip(), kind


def _user_frame_of_range(source_range: str) -> tuple[str, int] | None:
    # A TorchScript source range is a stack of "file(line): function" entries.
    for m in re.finditer(r"^(.*?)\((\d+)\): \S+", source_range or "", re.M):
        path, line = m.group(1).strip(), int(m.group(2))
        if _is_user_file(path):
            return path, line
    return None


def _finding_at(path: str, line: int, message: str, source: str, value_dependent=False) -> Finding:
    stmt_line, code, kind = enclosing_statement(path, line)
    if value_dependent:
        fix = _FIX_VALUE
    else:
        fix = _FIX_LOOP if kind in ("for", "while") else _FIX_SHAPE_BRANCH
    return Finding(CONTROL_FLOW, message, path, stmt_line, code, fix, source)


# -- probe shapes -----------------------------------------------------------
def probe_shapes(shape: tuple, dynamic: dict[int, str]) -> list[tuple]:
    """Other input shapes to trace with: each dynamic axis made smaller and larger."""
    out = []
    for axis, name in dynamic.items():
        v = shape[axis]
        if name == "batch" or axis == 0:
            others = [v + 2]
        else:
            # Spatial axes: keep multiples of 32 (the usual CNN stride), at least 32.
            others = [max(32, (v // 4) // 32 * 32), v * 2]
        for o in others:
            if o != v:
                s = list(shape)
                s[axis] = o
                if tuple(s) not in out:
                    out.append(tuple(s))
    return out


# -- probe 1: compare traced graphs ----------------------------------------
def _trace_signature(module, x) -> list[tuple[str, tuple | None, str]]:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(module, (x,), check_trace=False)
    sig = []
    for node in traced.inlined_graph.nodes():
        kind = node.kind()
        if not kind.startswith("aten::"):
            continue
        sig.append((kind, _user_frame_of_range(node.sourceRange()), node.scopeName()))
    return sig


def compare_traces(module, shape: tuple, dynamic: dict[int, str], seed: int = 0) -> list[Finding]:
    """Trace at ``shape`` and at probe shapes; report where the recorded graphs differ."""
    import difflib

    import torch

    g = torch.Generator().manual_seed(seed)
    base = _trace_signature(module, torch.randn(shape, generator=g))
    findings: dict = {}
    for other in probe_shapes(shape, dynamic):
        try:
            sig = _trace_signature(module, torch.randn(other, generator=g))
        except Exception:  # noqa: BLE001 - a probe shape the model cannot take is not a finding
            continue
        sm = difflib.SequenceMatcher(a=[s[0] for s in base], b=[s[0] for s in sig], autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                continue
            nodes = base[i1:i2] + sig[j1:j2]
            locs = [n[1] for n in nodes if n[1] is not None]
            ops = sorted({n[0].split("::")[1] for n in nodes})
            msg = (
                f"the traced graph differs between input shapes {list(shape)} and {list(other)} "
                f"(ops {', '.join(ops)} "
                f"{'only in one of them' if tag != 'replace' else 'differ'}): "
                "a shape-dependent branch or loop was frozen at trace time"
            )
            if locs:
                path, line = locs[0]
                f = _finding_at(path, line, msg, "trace-compare")
            else:
                scope = next((n[2] for n in nodes if n[2]), "")
                f = Finding(
                    CONTROL_FLOW,
                    msg + (f" (in module {scope})" if scope else ""),
                    fix=_FIX_SHAPE_BRANCH,
                    source="trace-compare",
                )
            findings.setdefault((f.file, f.line), f)
    return list(findings.values())


# -- probe 2: tracer warnings ----------------------------------------------
def tracer_findings(records) -> list[Finding]:
    """Findings from warnings recorded while tracing/exporting (TracerWarning)."""
    import torch

    out = {}
    for w in records:
        if not issubclass(w.category, torch.jit.TracerWarning) or not _is_user_file(w.filename):
            continue
        text = str(w.message)
        what = re.split(r"[.!]", text, maxsplit=1)[0]
        value_dep = "Python boolean" in text or "Python number" in text or "Python index" in text
        f = _finding_at(
            w.filename,
            w.lineno,
            f"tracer: {what}; the value seen at export time is baked into the graph",
            "tracer-warning",
            value_dependent=value_dep and "shape" not in linecache.getline(w.filename, w.lineno),
        )
        out.setdefault((f.file, f.line), f)
    return list(out.values())


def trace_warnings(module, x) -> list[Finding]:
    import torch

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        torch.jit.trace(module, (x,), check_trace=False)
    return tracer_findings(rec)


# -- probe 3: torch.export guards ------------------------------------------
def _shape_env(ep):
    import torch

    for node in ep.graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            for s in val.shape:
                if isinstance(s, torch.SymInt):
                    return s.node.shape_env
    return None


def _user_frame_of_exception(e: BaseException) -> tuple[str, int] | None:
    import traceback

    text = str(e)
    # torch.export prints the user's stack in its message ("File "x.py", line 8, in forward").
    hits = re.findall(r'File "([^"]+)", line (\d+)', text)
    for path, line in reversed(hits):
        if _is_user_file(path):
            return path, int(line)
    for m in re.finditer(r"([^\s()]+\.py):(\d+)", text):
        if _is_user_file(m.group(1)):
            return m.group(1), int(m.group(2))
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if _is_user_file(frame.filename):
            return frame.filename, frame.lineno
    return None


def export_guards(
    module, shape: tuple, dynamic: dict[int, str], seed: int = 0
) -> tuple[list[Finding], str]:
    """Run torch.export with the dynamic axes symbolic; findings from its guards and errors.

    Returns (findings, note); the note says why the probe was skipped, if it was.
    """
    import torch

    # torch.export specialises axes of size 0/1, so probe a batch of 2.
    shape = tuple(2 if (a in dynamic and v < 2) else v for a, v in enumerate(shape))
    x = torch.randn(shape, generator=torch.Generator().manual_seed(seed))
    dims = {a: torch.export.Dim.AUTO for a in dynamic}
    arg = next(iter(_forward_params(module)), "x")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ep = torch.export.export(module, (x,), dynamic_shapes={arg: dims}, strict=False)
    except Exception as e:  # noqa: BLE001 - classify below
        text = str(e)
        data_dep = (
            "data-dependent" in text
            or "data dependent" in text
            or "GuardOnDataDependent" in type(e).__name__
        )
        frame = _user_frame_of_exception(e)
        if not data_dep and "Constraints violated" not in text:
            return (
                [],
                f"torch.export could not analyse the model "
                f"({type(e).__name__}: {text.splitlines()[0][:200]})",
            )
        msg = "torch.export: " + (
            "a branch needs a tensor value at export time"
            if data_dep
            else text.splitlines()[0][:200]
        )
        if frame:
            return [
                _finding_at(frame[0], frame[1], msg, "torch.export", value_dependent=data_dep)
            ], ""
        return [
            Finding(
                CONTROL_FLOW,
                msg,
                fix=_FIX_VALUE if data_dep else _FIX_SHAPE_BRANCH,
                source="torch.export",
            )
        ], ""
    env = _shape_env(ep)
    if env is None:
        return [], ""
    # Which symbol is which axis (from the input placeholder's symbolic shape).
    names = {}
    for node in ep.graph.nodes:
        if (
            node.op == "placeholder"
            and node.name not in ep.graph_signature.inputs_to_parameters
            and node.name not in ep.graph_signature.inputs_to_buffers
        ):
            val = node.meta.get("val")
            if isinstance(val, torch.Tensor):
                for a, s in enumerate(val.shape):
                    if isinstance(s, torch.SymInt):
                        names[str(s.node.expr)] = dynamic.get(a, f"axis {a}")
            break
    out = {}
    for g in env.guards:
        loc = getattr(g.sloc, "framework_loc", None)
        path, line = (getattr(loc, "filename", None), getattr(loc, "lineno", None))
        if not _is_user_file(path):
            user = getattr(g.sloc, "maybe_user_loc", None)
            m = re.match(r"(.+\.py):(\d+)", str(user or ""))
            if not m or not _is_user_file(m.group(1)):
                continue
            path, line = m.group(1), int(m.group(2))
        expr = str(g.expr)
        for sym, name in names.items():
            expr = re.sub(rf"\b{re.escape(sym)}\b", name, expr)
        f = _finding_at(
            path,
            line,
            f"torch.export: the code guards on `{expr}`; the exported graph "
            "holds only for inputs where that is true",
            "torch.export",
        )
        out.setdefault((f.file, f.line), f)
    return list(out.values()), ""


def _forward_params(module):
    import inspect

    try:
        return [p for p in inspect.signature(module.forward).parameters if p != "self"]
    except (TypeError, ValueError):
        return []


def merge(findings: list[Finding]) -> list[Finding]:
    """One finding per source line; the probes that saw it are listed in ``source``."""
    by_loc: dict = {}
    for f in findings:
        key = (f.file, f.line) if f.file else (None, f.message)
        if key in by_loc:
            seen = by_loc[key]
            if f.source not in seen.source.split(", "):
                seen.source += ", " + f.source
            seen.details.append(f.message)
        else:
            by_loc[key] = f
    return list(by_loc.values())


def diagnose(
    module, shape: tuple, dynamic: dict[int, str], *, use_torch_export: bool = True, seed: int = 0
) -> tuple[list[Finding], list[str]]:
    """All control-flow probes. Returns (findings, notes about probes that were skipped)."""
    import torch

    notes = []
    findings = compare_traces(module, shape, dynamic, seed)
    findings += trace_warnings(
        module, torch.randn(shape, generator=torch.Generator().manual_seed(seed))
    )
    if use_torch_export and dynamic:
        f, note = export_guards(module, shape, dynamic, seed)
        findings += f
        if note:
            notes.append(note)
    return merge(findings), notes


def format_report(findings: list[Finding]) -> str:
    lines = [f"{len(findings)} problem(s) found:"]
    for f in findings:
        lines.append(f"  {f}".replace("\n", "\n  "))
        lines += [f"      also: {d}" for d in f.details]
        if f.source:
            lines.append(f"      (found by {f.source})")
    return "\n".join(lines)


# -- layer-by-layer comparison --------------------------------------------
def leaf_outputs(module, x) -> list[tuple[str, np.ndarray]]:
    """Eager outputs of every leaf module called exactly once, in call order."""
    import torch

    calls: dict[str, int] = {}
    order: list[tuple[str, np.ndarray]] = []
    handles = []

    def hook(name):
        def fn(_mod, _inp, out):
            calls[name] = calls.get(name, 0) + 1
            t = out[0] if isinstance(out, (tuple, list)) else out
            if isinstance(t, torch.Tensor):
                # Clone: an in-place op later in the model would change what we saw.
                order.append((name, t.detach().clone().numpy()))

        return fn

    for name, mod in module.named_modules():
        if name and not list(mod.children()):
            handles.append(mod.register_forward_hook(hook(name)))
    try:
        with torch.no_grad():
            module(x)
    finally:
        for h in handles:
            h.remove()
    return [(n, a) for n, a in order if calls[n] == 1]


def scope_outputs(model) -> dict[str, list[str]]:
    """For each module path found in ONNX node names, the tensors that leave that scope.

    The TorchScript-based exporter names nodes ``/a/a.b/Conv``: the last scope
    segment is the module's path.
    """
    consumers: dict[str, set] = {}
    scope_of: dict[str, str] = {}
    for node in model.graph.node:
        scope = node.name.rsplit("/", 1)[0] if "/" in node.name else ""
        mod = scope.rsplit("/", 1)[-1] if scope else ""
        for o in node.output:
            scope_of[o] = mod
        for i in node.input:
            consumers.setdefault(i, set()).add(mod)
    graph_outputs = {o.name for o in model.graph.output}
    result: dict[str, list[str]] = {}
    for node in model.graph.node:
        for o in node.output:
            mod = scope_of.get(o, "")
            if not mod:
                continue
            users = consumers.get(o, set())
            if o in graph_outputs or any(u != mod for u in users):
                result.setdefault(mod, []).append(o)
    return result


def with_outputs(model, names: list[str]):
    """A copy of ``model`` that also returns the tensors ``names`` (shape/type left open)."""
    import onnx

    m = onnx.ModelProto()
    m.CopyFrom(model)
    try:
        typed = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.value_info}
    except Exception:  # noqa: BLE001 - untyped outputs still work, inference is a nicety
        typed = {}
    have = {o.name for o in m.graph.output}
    for n in names:
        if n not in have:
            m.graph.output.append(typed.get(n) or onnx.helper.make_empty_tensor_value_info(n))
    return m
