"""`edgeocr export` and `edgeocr check`: from a dynamic graph to a verified static one.

>>> from edgeocr.export import export_torch, check
>>> report = export_torch(model, "rec.onnx", task="rec", input_shape=(1, 3, 48, 320),
...                       keys="keys.txt")
>>> print(check("rec.onnx", model, layerwise=True))

``export_torch`` diagnoses shape- and value-dependent control flow first
(edgeocr.export.diag) and refuses to write a graph that froze a branch; it
then exports with the TorchScript-based ONNX exporter (dynamic axes, an opset
that the bundled ONNX Runtime runs), writes the task metadata edgeocr reads
(``edgeocr.role``, ``character``, normalisation) and compares the static graph
with the eager module at several shapes before the file is written.

torch is an optional dependency (``pip install torch``); it is imported only
when a PyTorch model is exported or checked. Paddle inference models go
through paddle2onnx when it is installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import (
    EdgeOCRError,
    InvalidInputError,
    ModelError,
    ModelNotFoundError,
    UnsupportedError,
)
from .diag import CONTROL_FLOW, MEMORY, NO_SPEEDUP, NUMERICAL, Finding, format_report


class ExportError(ModelError):
    """The model cannot be exported faithfully; ``findings`` says where and why."""

    def __init__(self, message: str, findings: list | None = None):
        super().__init__(message)
        self.findings = list(findings or [])


class MissingDependencyError(UnsupportedError, ImportError):
    """An optional package (torch, paddle2onnx) that this feature needs is not installed."""


def require_torch():
    """Import torch, or raise MissingDependencyError saying how to get it."""
    try:
        import torch
    except ImportError as e:
        raise MissingDependencyError(
            "exporting or checking a PyTorch model needs PyTorch, which is not installed; "
            "install the CPU build (pip install torch --index-url https://download.pytorch.org/whl/cpu)"
            ', then pip install "edgeocr[export]"'
        ) from e
    return torch


# Axis names per task for NCHW inputs, and which of them are dynamic by default.
AXES = {"batch": 0, "channels": 1, "height": 2, "width": 3}
TASK_DYNAMIC = {"rec": ("batch", "width"), "det": ("batch", "height", "width"), "cls": ("batch",)}
DEFAULT_MEAN_STD = ((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))
# Highest ONNX opset each ONNX Runtime release implements (from its release notes).
_ORT_MAX_OPSET = [
    ((1, 20), 21),
    ((1, 18), 20),
    ((1, 17), 20),
    ((1, 15), 19),
    ((1, 14), 18),
    ((1, 12), 17),
]
# Opset 17 is the newest the TorchScript exporter covers well and that edge builds of
# ONNX Runtime (1.12 and later) all run; newer opsets bring nothing an OCR model needs.
PREFERRED_OPSET = 17


def parse_shape(text: str) -> tuple:
    """'1x3x48x320' -> (1, 3, 48, 320)."""
    try:
        shape = tuple(int(v) for v in str(text).lower().replace(",", "x").split("x"))
    except ValueError:
        raise InvalidInputError(f"input shape must look like 1x3x48x320, got {text!r}") from None
    if len(shape) != 4 or min(shape) < 1:
        raise InvalidInputError(f"input shape must be 4 positive sizes NxCxHxW, got {text!r}")
    return shape


def parse_dynamic(spec, task: str) -> dict[int, str]:
    """'batch,width' (a sequence of names/axes; None: the task's default) -> {axis: name}."""
    if spec is None:
        names = TASK_DYNAMIC[task]
    elif isinstance(spec, str):
        names = (
            [s.strip() for s in spec.split(",") if s.strip()]
            if spec.strip() not in ("", "none")
            else []
        )
    else:
        names = list(spec)
    out = {}
    for n in names:
        if isinstance(n, int):
            name = next((k for k, v in AXES.items() if v == n), f"axis{n}")
            out[n] = name
        elif n in AXES:
            out[AXES[n]] = n
        else:
            raise InvalidInputError(f"unknown dynamic axis {n!r}; use names from {list(AXES)}")
    return dict(sorted(out.items()))


def check_task(task: str) -> str:
    if task not in TASK_DYNAMIC:
        raise InvalidInputError(f"task must be one of {sorted(TASK_DYNAMIC)}, got {task!r}")
    return task


def choose_opset(requested: int | None = None) -> int:
    """The opset to export: the requested one, else PREFERRED_OPSET capped by the runtime's."""
    from .._runtime import runtime_info

    try:
        version = tuple(int(v) for v in runtime_info()["version"].split(".")[:2])
    except Exception:  # noqa: BLE001 - no runtime found: stay with the preferred opset
        version = None
    cap = next((op for v, op in _ORT_MAX_OPSET if version and version >= v), PREFERRED_OPSET)
    if requested is None:
        return min(PREFERRED_OPSET, cap)
    if requested > cap:
        raise InvalidInputError(
            f"opset {requested} is newer than ONNX Runtime "
            f"{'.'.join(map(str, version or ()))} runs (max {cap})"
        )
    return int(requested)


def load_module(spec: str, weights: str | None = None):
    """Build a torch module from 'path/to/model.py:factory' or 'package.module:factory'.

    ``factory`` is called without arguments and must return an nn.Module (a
    class works too). ``weights`` is a state dict saved with torch.save (or a
    checkpoint holding one under 'state_dict' or 'model').
    """
    torch = require_torch()
    if ":" not in spec:
        raise InvalidInputError(
            f"a PyTorch model is given as FILE.py:FUNCTION or MODULE:FUNCTION, got {spec!r}"
        )
    where, attr = spec.rsplit(":", 1)
    if where.endswith(".py"):
        if not os.path.isfile(where):
            raise ModelNotFoundError(f"model source not found: {where}")
        name = "edgeocr_user_model_" + os.path.splitext(os.path.basename(where))[0]
        mod_spec = importlib.util.spec_from_file_location(name, os.path.abspath(where))
        mod = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = mod  # dataclasses and pickling look the module up by name
        mod_spec.loader.exec_module(mod)
    else:
        mod = importlib.import_module(where)
    factory = getattr(mod, attr, None)
    if factory is None:
        raise InvalidInputError(f"{where} has no attribute {attr!r}")
    module = factory()
    if not isinstance(module, torch.nn.Module):
        raise InvalidInputError(f"{spec} returned {type(module).__name__}, not a torch.nn.Module")
    if weights:
        if not os.path.isfile(weights):
            raise ModelNotFoundError(f"weights file not found: {weights}")
        state = torch.load(weights, map_location="cpu", weights_only=True)
        if isinstance(state, dict):
            state = state.get("state_dict", state.get("model", state))
        try:
            module.load_state_dict(state)
        except (RuntimeError, TypeError) as e:
            raise ModelError(f"{weights} does not fit {spec}: {str(e).splitlines()[0]}") from e
    return module.eval()


def _keys_list(keys) -> list[str] | None:
    if keys is None:
        return None
    if isinstance(keys, str) and not os.path.isfile(keys) and "\n" in keys:
        return keys.splitlines()
    if isinstance(keys, (list, tuple)):
        return [str(k) for k in keys]
    import edgeocr._core as _core

    return _core.loader.read_keys_file(os.fspath(keys))


def task_metadata(
    task: str,
    *,
    keys=None,
    mean=None,
    std=None,
    input_shape=None,
    dynamic=None,
    opset=None,
    extra: dict | None = None,
) -> dict[str, str]:
    """The ONNX metadata edgeocr reads: role, dictionary (rec), normalisation, shape policy."""
    import torch

    mean = tuple(mean) if mean is not None else DEFAULT_MEAN_STD[0]
    std = tuple(std) if std is not None else DEFAULT_MEAN_STD[1]
    meta = {
        "edgeocr.role": task,
        "edgeocr.mean": ",".join(f"{v:g}" for v in mean),
        "edgeocr.std": ",".join(f"{v:g}" for v in std),
        "edgeocr.exporter": f"torch {torch.__version__}, opset {opset}",
    }
    if input_shape is not None:
        meta["edgeocr.input_shape"] = "x".join(str(v) for v in input_shape)
    if dynamic is not None:
        meta["edgeocr.dynamic_axes"] = ",".join(dynamic.values())
    chars = _keys_list(keys)
    if chars is not None:
        meta["character"] = "\n".join(chars)
    for k, v in (extra or {}).items():
        meta[str(k)] = v if isinstance(v, str) else json.dumps(v)
    return meta


def set_metadata(model, meta: dict[str, str]) -> None:
    """Replace ONNX metadata_props entries by ``meta`` (others are kept)."""
    keep = [p for p in model.metadata_props if p.key not in meta]
    del model.metadata_props[:]
    for p in keep:
        model.metadata_props.append(p)
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v


@dataclass
class ExportReport:
    path: str
    task: str
    opset: int
    input_shape: tuple
    dynamic: dict
    max_abs_diff: dict = field(default_factory=dict)  # "1x3x48x320" -> float
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    metadata: dict = field(default_factory=dict)

    def __str__(self) -> str:
        diffs = ", ".join(f"{k}: {v:.2e}" for k, v in self.max_abs_diff.items())
        lines = [
            f"wrote {self.path} (task {self.task}, opset {self.opset}, "
            f"dynamic {','.join(self.dynamic.values()) or 'none'})",
            f"static vs eager max |diff| at {diffs}",
        ]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "task": self.task,
            "opset": self.opset,
            "input_shape": list(self.input_shape),
            "dynamic": list(self.dynamic.values()),
            "max_abs_diff": self.max_abs_diff,
            "notes": self.notes,
            "findings": [f.to_dict() for f in self.findings],
        }


def _shape_key(shape) -> str:
    return "x".join(str(v) for v in shape)


def _eager(module, x: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        out = module(torch.from_numpy(x))
    if isinstance(out, (tuple, list)):
        out = out[0]
    return out.detach().numpy()


def _compare(module, static, shapes, seed: int, tol: float) -> tuple[dict, list[Finding]]:
    rng = np.random.default_rng(seed)
    diffs, findings = {}, []
    for shape in shapes:
        x = rng.standard_normal(shape, dtype=np.float32)
        ref = _eager(module, x)
        got = next(iter(static.run(x).values()))
        if got.shape != ref.shape:
            findings.append(
                Finding(
                    CONTROL_FLOW,
                    f"at input {list(shape)} the static graph returns shape {list(got.shape)}, "
                    f"eager {list(ref.shape)}: the graph does not follow the input shape",
                    source="verify",
                )
            )
            diffs[_shape_key(shape)] = float("inf")
            continue
        d = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
        diffs[_shape_key(shape)] = d
        if not d <= tol:
            findings.append(
                Finding(
                    NUMERICAL,
                    f"at input {list(shape)} static and eager outputs differ by {d:.3g} "
                    f"(tolerance {tol:g}); "
                    "run `edgeocr check --layerwise` to find the first layer that departs",
                    source="verify",
                )
            )
    return diffs, findings


def export_torch(
    module,
    output,
    *,
    task: str,
    input_shape,
    dynamic=None,
    keys=None,
    mean=None,
    std=None,
    opset: int | None = None,
    tol: float = 1e-4,
    metadata: dict | None = None,
    use_torch_export: bool = True,
    seed: int = 0,
) -> ExportReport:
    """Export a PyTorch module to ONNX for edgeocr, or raise ExportError without writing.

    ``dynamic`` lists the axes that vary at run time ('batch,width'; default:
    rec batch+width, det batch+height+width, cls batch). ``keys`` (rec): the
    dictionary, written to the metadata; the module's ``character`` attribute
    is used when keys is None. ``metadata``: more ONNX metadata entries.
    The module is put in eval mode.
    """
    torch = require_torch()
    import onnx

    from ..model import Model
    from .diag import diagnose, probe_shapes, tracer_findings

    task = check_task(task)
    shape = (
        parse_shape(input_shape)
        if isinstance(input_shape, str)
        else tuple(int(v) for v in input_shape)
    )
    dyn = parse_dynamic(dynamic, task)
    opset = choose_opset(opset)
    if keys is None and task == "rec" and getattr(module, "character", None) is not None:
        keys = list(module.character)
    module.eval()

    # 1. Control flow: refuse before anything is written.
    findings, notes = diagnose(module, shape, dyn, use_torch_export=use_torch_export, seed=seed)
    if findings:
        raise ExportError(
            "refusing to export: the static graph would freeze control flow\n"
            + format_report(findings),
            findings,
        )

    # 2. Export. The TorchScript-based exporter takes dynamic_axes and needs no onnxscript.
    x = torch.randn(shape, generator=torch.Generator().manual_seed(seed))
    in_name = "x"
    out_name = {"rec": "logits", "det": "maps", "cls": "probs"}[task]
    out_axes = {0: "batch"} if 0 in dyn else {}
    with warnings.catch_warnings(record=True) as rec, tempfile.TemporaryDirectory() as tmp:
        warnings.simplefilter("always")
        raw = os.path.join(tmp, "model.onnx")
        try:
            torch.onnx.export(
                module,
                (x,),
                raw,
                dynamo=False,
                opset_version=opset,
                input_names=[in_name],
                output_names=[out_name],
                dynamic_axes={in_name: dyn, out_name: out_axes} if dyn else None,
                do_constant_folding=True,
            )
        except Exception as e:  # noqa: BLE001 - the exporter's own errors, reported with context
            raise ExportError(f"the ONNX exporter failed: {type(e).__name__}: {e}") from e
        model = onnx.load(raw)
    findings = tracer_findings(rec)
    if findings:
        raise ExportError(
            "refusing to export: the tracer baked values into the graph\n"
            + format_report(findings),
            findings,
        )

    meta = task_metadata(
        task,
        keys=keys,
        mean=mean,
        std=std,
        input_shape=shape,
        dynamic=dyn,
        opset=opset,
        extra={**getattr(module, "edgeocr_metadata", {}), **(metadata or {})},
    )
    set_metadata(model, meta)
    onnx.checker.check_model(model)
    data = model.SerializeToString()

    # 3. Verify the static graph against eager at the example and probe shapes.
    static = Model(data=data, threads=1)
    if task == "rec" and "character" in meta:
        n_classes = static.outputs[0].shape[-1]
        n_chars = len(meta["character"].splitlines())
        if n_classes not in (-1, n_chars + 1, n_chars + 2):
            raise ExportError(
                f"the model has {n_classes} classes but the dictionary {n_chars} characters "
                "(expected characters + 1 blank [+ 1 space])"
            )
    diffs, findings = _compare(module, static, [shape, *probe_shapes(shape, dyn)], seed, tol)
    if findings:
        raise ExportError(
            "refusing to export: the static graph does not match the eager model\n"
            + format_report(findings),
            findings,
        )

    output = os.fspath(output)
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    tmp_out = output + ".tmp"
    with open(tmp_out, "wb") as f:
        f.write(data)
    os.replace(tmp_out, output)
    return ExportReport(output, task, opset, shape, dyn, diffs, [], notes, meta)


def export_paddle(
    model_dir,
    output,
    *,
    task: str,
    keys=None,
    mean=None,
    std=None,
    opset: int | None = None,
    metadata: dict | None = None,
) -> str:
    """Convert a Paddle inference model (inference.pdmodel/.json + .pdiparams) with paddle2onnx,
    in a child process, as ``edgeocr-pack`` does (edgeocr/pack/paddle.py ``convert``)."""
    task = check_task(task)
    try:
        import paddle2onnx
    except ImportError as e:
        raise MissingDependencyError(
            "exporting a Paddle inference model needs paddle2onnx, which is not installed "
            "(pip install paddle2onnx); or convert it elsewhere and pass the .onnx to edgeocr"
        ) from e
    import onnx

    from ..pack import paddle as P

    model_dir = os.fspath(model_dir)
    if not os.path.isdir(model_dir):
        raise ModelNotFoundError(f"Paddle model folder not found: {model_dir}")
    model = P.find_model(model_dir)
    opset = choose_opset(opset)
    onnx_model = onnx.load_from_string(P.convert(model, opset=opset))
    meta = {
        "edgeocr.role": task,
        "edgeocr.exporter": f"paddle2onnx {paddle2onnx.__version__}, opset {opset}",
    }
    if mean is not None:
        meta["edgeocr.mean"] = ",".join(f"{v:g}" for v in mean)
    if std is not None:
        meta["edgeocr.std"] = ",".join(f"{v:g}" for v in std)
    chars = _keys_list(keys)
    if chars is not None:
        meta["character"] = "\n".join(chars)
    meta.update(metadata or {})
    set_metadata(onnx_model, meta)
    onnx.save(onnx_model, os.fspath(output))
    return os.fspath(output)


# -- check ------------------------------------------------------------------
@dataclass
class CheckReport:
    tol: float
    rows: list = field(default_factory=list)  # {"input", "shape", "max_abs_diff", "ok"}
    layers: list = field(default_factory=list)  # {"layer", "max_abs_diff", "ok"} in call order
    first_bad_layer: str | None = None
    bench: list = field(
        default_factory=list
    )  # {"batch", "eager_ms", "static_ms", "static_noopt_ms"}
    memory: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r["ok"] for r in self.rows) and not any(
            f.kind in (NUMERICAL, CONTROL_FLOW) for f in self.findings
        )

    def __str__(self) -> str:
        out = [f"{'input':<28}{'shape':<18}{'max |diff|':>12}  verdict (tolerance {self.tol:g})"]
        for r in self.rows:
            out.append(
                f"{r['input']:<28}{_shape_key(r['shape']):<18}{r['max_abs_diff']:>12.3e}  "
                f"{'ok' if r['ok'] else 'DIFFERS'}"
            )
        if self.layers:
            out.append("layerwise (eager module vs the same tensor in the static graph):")
            for r in self.layers:
                mark = "  <-- first departure" if r["layer"] == self.first_bad_layer else ""
                out.append(
                    f"  {r['layer']:<34}{r['max_abs_diff']:>12.3e}  "
                    f"{'ok' if r['ok'] else 'DIFFERS'}{mark}"
                )
            if self.first_bad_layer is None:
                out.append("  no layer departs beyond tolerance")
        if self.bench:
            out.append(
                f"{'batch':>6}{'eager ms':>11}{'static ms':>11}"
                f"{'static, no graph opt ms':>25}{'speed-up':>10}"
            )
            for b in self.bench:
                out.append(
                    f"{b['batch']:>6}{b['eager_ms']:>11.2f}{b['static_ms']:>11.2f}"
                    f"{b['static_noopt_ms']:>25.2f}{b['eager_ms'] / b['static_ms']:>9.2f}x"
                )
        if self.memory:
            out.append(
                f"memory: pool high-water {self.memory['pool_high_water_mb']:.1f} MiB, "
                f"process peak RSS {self.memory['peak_rss_mb']:.0f} MiB"
            )
        out += [str(f) for f in self.findings]
        out.append("verdict: " + ("OK" if self.ok else "MISMATCH"))
        return "\n".join(out)

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "tol": self.tol,
            "rows": [{**r, "shape": list(r["shape"])} for r in self.rows],
            "layers": self.layers,
            "first_bad_layer": self.first_bad_layer,
            "bench": self.bench,
            "memory": self.memory,
            "findings": [f.to_dict() for f in self.findings],
        }


def _meta_floats(meta: dict, key: str, default) -> tuple:
    try:
        return tuple(float(v) for v in meta[key].split(","))
    except (KeyError, ValueError):
        return default


def image_input(path: str, meta: dict, shape: tuple) -> np.ndarray:
    """A real image as the model's input: resized for the task, normalised as the metadata says."""
    import cv2

    from ..image_io import load_image

    img = load_image(path)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    img = img[:, :, :3]
    role = meta.get("edgeocr.role", "rec")
    h, w = img.shape[:2]
    if role == "det":
        scale = min(1.0, 960 / max(h, w))
        nh, nw = (max(32, round(h * scale / 32) * 32), max(32, round(w * scale / 32) * 32))
    else:
        nh = shape[2]
        nw = (
            max(8, int(np.ceil(w * nh / h / 8)) * 8)
            if "width" in meta.get("edgeocr.dynamic_axes", "")
            else shape[3]
        )
    img = cv2.resize(img, (nw, nh)).astype(np.float32) / 255.0
    mean = np.array(_meta_floats(meta, "edgeocr.mean", DEFAULT_MEAN_STD[0]), np.float32)
    std = np.array(_meta_floats(meta, "edgeocr.std", DEFAULT_MEAN_STD[1]), np.float32)
    img = (img - mean) / std
    return np.ascontiguousarray(img.transpose(2, 0, 1)[None])


def _time_ms(fn, min_runs: int = 3, budget_s: float = 0.5) -> float:
    fn()  # warm-up
    times = []
    t_end = time.perf_counter() + budget_s
    while len(times) < min_runs or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if len(times) >= 50:
            break
    return float(np.median(times) * 1000)


def check(
    onnx_path,
    module,
    *,
    input_shape=None,
    images=(),
    tol: float = 1e-4,
    layerwise: bool = False,
    bench: tuple = (),
    threads: int = 1,
    seed: int = 0,
) -> CheckReport:
    """Run the eager module and the static graph on the same inputs and compare.

    Inputs: random ones at the exported shape and at other values of its
    dynamic axes, plus ``images`` (paths) preprocessed as the metadata says.
    ``layerwise``: compare every leaf module's output with the same tensor in
    the static graph, on the first input, and name the first that departs.
    ``bench``: batch sizes at which to time eager and static (median ms).
    """
    torch = require_torch()
    import onnx

    from ..model import Model
    from .diag import leaf_outputs, probe_shapes, scope_outputs, with_outputs

    onnx_path = os.fspath(onnx_path)
    static = Model(onnx_path, threads=threads)
    meta = static.metadata
    if input_shape is not None:
        shape = parse_shape(input_shape) if isinstance(input_shape, str) else tuple(input_shape)
    elif "edgeocr.input_shape" in meta:
        shape = parse_shape(meta["edgeocr.input_shape"])
    else:
        shape = tuple(
            d if d > 0 else (1 if i == 0 else 64) for i, d in enumerate(static.inputs[0].shape)
        )
    dyn = {i: n for i, n in enumerate(static.inputs[0].dim_names) if static.inputs[0].shape[i] < 0}
    dyn = {i: {0: "batch", 2: "height", 3: "width"}.get(i, n or f"axis{i}") for i, n in dyn.items()}
    module.eval()
    prev_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    report = CheckReport(tol)
    try:
        rng = np.random.default_rng(seed)
        inputs = [
            (f"random #{i}", rng.standard_normal(s, dtype=np.float32))
            for i, s in enumerate([shape, *probe_shapes(shape, dyn)])
        ]
        inputs += [(os.path.basename(p), image_input(p, meta, shape)) for p in images]
        for label, x in inputs:
            ref = _eager(module, x)
            got = next(iter(static.run(x).values()))
            d = (
                float(np.max(np.abs(got.astype(np.float64) - ref)))
                if got.shape == ref.shape
                else float("inf")
            )
            report.rows.append(
                {"input": label, "shape": x.shape, "max_abs_diff": d, "ok": d <= tol}
            )
        if any(not r["ok"] for r in report.rows):
            report.findings.append(
                Finding(
                    NUMERICAL,
                    "static and eager outputs differ beyond tolerance"
                    + (
                        ""
                        if layerwise
                        else "; rerun with --layerwise to find the first layer that departs"
                    ),
                    source="check",
                )
            )

        if layerwise:
            x = inputs[0][1]
            eager_layers = leaf_outputs(module, torch.from_numpy(x))
            model = onnx.load(onnx_path)
            scopes = scope_outputs(model)
            wanted = [t for name, _ in eager_layers for t in scopes.get(name, [])]
            probe = Model(
                data=with_outputs(model, wanted).SerializeToString(),
                threads=threads,
                optimization="disabled",
            )
            got = probe.run(x)

            def diff(a, ref):
                d = float(np.max(np.abs(a.astype(np.float64) - ref)))
                return d, d <= tol + tol * float(np.max(np.abs(ref), initial=0.0))

            for i, (name, ref) in enumerate(eager_layers):
                cands = [
                    got[t] for t in scopes.get(name, []) if t in got and got[t].shape == ref.shape
                ]
                if not cands:
                    continue  # folded into a neighbour at export (BatchNorm into Conv), or fused
                d, ok = diff(cands[-1], ref)
                label = name
                if not ok:
                    # The exporter folds e.g. a BatchNorm into the Conv before it: then this
                    # tensor is the output of the following layer(s) that have no node of their own.
                    folded = []
                    for nxt, nref in eager_layers[i + 1 :]:
                        if scopes.get(nxt):
                            break
                        folded.append(nxt)
                        if nref.shape == ref.shape:
                            d2, ok2 = diff(cands[-1], nref)
                            if ok2:
                                d, ok, label = (
                                    d2,
                                    True,
                                    f"{name} (+{'+'.join(folded)}, folded at export)",
                                )
                                break
                report.layers.append({"layer": label, "max_abs_diff": d, "ok": ok})
                if not ok and report.first_bad_layer is None:
                    report.first_bad_layer = name
            if report.first_bad_layer:
                report.findings.append(
                    Finding(
                        NUMERICAL,
                        f"the first layer whose output departs is '{report.first_bad_layer}' "
                        f"({type(module.get_submodule(report.first_bad_layer)).__name__}); "
                        "compare its weights and operator attributes (padding, eps, align_corners, "
                        "rounding) in both graphs",
                        source="layerwise",
                    )
                )

        if bench:
            noopt = Model(onnx_path, threads=threads, optimization="disabled")
            for b in bench:
                x = rng.standard_normal((int(b), *shape[1:]), dtype=np.float32)
                with torch.no_grad():
                    xt = torch.from_numpy(x)
                    eager_ms = _time_ms(lambda xt=xt: module(xt))
                report.bench.append(
                    {
                        "batch": int(b),
                        "eager_ms": eager_ms,
                        "static_ms": _time_ms(lambda x=x: static.run(x)),
                        "static_noopt_ms": _time_ms(lambda x=x: noopt.run(x)),
                    }
                )
            slow = [b["batch"] for b in report.bench if b["static_ms"] >= b["eager_ms"]]
            if slow:
                report.findings.append(
                    Finding(
                        NO_SPEEDUP,
                        f"the static graph is not faster than eager at batch {slow}; check that "
                        "graph optimisation is on (Model(..., optimization='all'), the default), "
                        "the thread count, "
                        "and that the export folded constants",
                        source="bench",
                    )
                )

        import resource

        stats = static.memory_stats()
        report.memory = {
            "pool_high_water_mb": stats["high_water_bytes"] / 2**20,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
    finally:
        torch.set_num_threads(prev_threads)
    return report


def memory_finding(peak_mb: float, cap_mb: float) -> Finding | None:
    """A MEMORY finding when a measured peak exceeds the budget."""
    if peak_mb <= cap_mb:
        return None
    return Finding(
        MEMORY,
        f"peak memory {peak_mb:.0f} MiB exceeds the budget of {cap_mb:.0f} MiB; cap it with "
        "max_memory_mb=, bound the input size (det_max_side_len, rec_batch) or disable the memory "
        "pattern for inputs whose shape changes on every call",
        source="check",
    )


# -- command line -----------------------------------------------------------
def _floats(text):
    return tuple(float(v) for v in text.split(",")) if text else None


def cmd_export(args) -> int:
    if os.path.isdir(args.source) or args.source.endswith((".pdmodel", ".pdiparams")):
        src = args.source if os.path.isdir(args.source) else os.path.dirname(args.source) or "."
        path = export_paddle(
            src,
            args.output,
            task=args.task,
            keys=args.keys,
            mean=_floats(args.mean),
            std=_floats(args.std),
            opset=args.opset,
        )
        print(f"wrote {path} (paddle2onnx)")
        return 0
    if not args.input:
        raise InvalidInputError(
            "--input NxCxHxW is required to export a PyTorch model (e.g. 1x3x48x320)"
        )
    module = load_module(args.source, args.weights)
    try:
        rep = export_torch(
            module,
            args.output,
            task=args.task,
            input_shape=args.input,
            dynamic=args.dynamic,
            keys=args.keys,
            mean=_floats(args.mean),
            std=_floats(args.std),
            opset=args.opset,
            tol=args.tol,
            use_torch_export=not args.no_torch_export,
        )
    except ExportError as e:
        if args.json:
            print(
                json.dumps(
                    {"ok": False, "error": str(e), "findings": [f.to_dict() for f in e.findings]}
                )
            )
        else:
            print(f"edgeocr export: {e}", file=sys.stderr)
        return 3
    print(json.dumps({"ok": True, **rep.to_dict()}) if args.json else rep)
    return 0


def cmd_check(args) -> int:
    module = load_module(args.against, args.weights)
    bench = tuple(int(b) for b in args.bench.split(",")) if args.bench else ()
    rep = check(
        args.model,
        module,
        input_shape=args.input,
        images=args.images or (),
        tol=args.tol,
        layerwise=args.layerwise,
        bench=bench,
        threads=args.threads,
    )
    if args.max_memory_mb:
        f = memory_finding(rep.memory["peak_rss_mb"], args.max_memory_mb)
        if f:
            rep.findings.append(f)
    print(json.dumps(rep.to_dict()) if args.json else rep)
    return 0 if rep.ok else 1


def register(subparsers) -> None:
    """Add `export` and `check` to the edgeocr command line."""
    p = subparsers.add_parser(
        "export",
        help="export a PyTorch module (or a Paddle inference model) to ONNX for edgeocr",
        description="Diagnose control flow, export with dynamic axes and task metadata, "
        "verify against "
        "eager. Refuses (exit 3) when the static graph would freeze a branch or differ from eager.",
    )
    p.add_argument(
        "source",
        help="FILE.py:FUNCTION (or MODULE:FUNCTION) returning an nn.Module, "
        "or a Paddle inference model folder",
    )
    p.add_argument("--weights", help="state dict for the PyTorch module (torch.save)")
    p.add_argument("--task", required=True, choices=sorted(TASK_DYNAMIC))
    p.add_argument("--input", help="example input shape NxCxHxW, e.g. 1x3x48x320")
    p.add_argument(
        "--dynamic",
        help="dynamic axes, e.g. batch,width (default: rec batch,width; "
        "det batch,height,width; cls batch; 'none' for a fully static graph)",
    )
    p.add_argument(
        "--keys", help="rec dictionary, one character per line (written to the metadata)"
    )
    p.add_argument("--mean", help="normalisation mean, e.g. 0.5,0.5,0.5")
    p.add_argument("--std", help="normalisation std, e.g. 0.5,0.5,0.5")
    p.add_argument(
        "--opset", type=int, help="ONNX opset (default: chosen for the bundled ONNX Runtime)"
    )
    p.add_argument(
        "--tol", type=float, default=1e-4, help="max |static - eager| accepted (default 1e-4)"
    )
    p.add_argument(
        "--no-torch-export",
        action="store_true",
        help="skip the torch.export guard probe (slow on very large models)",
    )
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_export)

    p = subparsers.add_parser(
        "check",
        help="compare an exported ONNX model with its eager PyTorch module",
        description="Outputs on random and real inputs, --layerwise first departing layer, --bench "
        "eager vs static latency. Exit 1 when outputs differ beyond tolerance.",
    )
    p.add_argument("model", help="the exported .onnx")
    p.add_argument(
        "--against", required=True, help="FILE.py:FUNCTION returning the eager nn.Module"
    )
    p.add_argument("--weights")
    p.add_argument("--input", help="input shape (default: the one recorded at export)")
    p.add_argument(
        "--images", nargs="*", help="real images, preprocessed as the model's metadata says"
    )
    p.add_argument("--tol", type=float, default=1e-4)
    p.add_argument("--layerwise", action="store_true", help="find the first layer that departs")
    p.add_argument("--bench", help="batch sizes to time eager vs static, e.g. 1,8,32")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--max-memory-mb", type=float, help="report a memory finding above this peak")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_check)


__all__ = [
    "CheckReport",
    "EdgeOCRError",
    "ExportError",
    "ExportReport",
    "MissingDependencyError",
    "check",
    "export_paddle",
    "export_torch",
    "load_module",
    "register",
    "require_torch",
]
