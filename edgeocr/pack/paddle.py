"""Paddle inference models (``inference.json`` or ``inference.pdmodel`` + ``.pdiparams``).

``edgeocr-pack --det DIR`` converts such a folder to ONNX with paddle2onnx,
reads its ``inference.yml`` (settings and dictionary, mapped by the C++ loader:
``_core.loader.paddle_model_config``) and checks the converted graph against
Paddle Inference itself. Needs the optional extra ``edgeocr[paddle]``
(paddlepaddle, paddle2onnx); both are imported only here, only when used.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import tempfile
from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError, ModelNotFoundError, UnsupportedError

OPSET = 14
# Largest |ONNX - Paddle| allowed on any output (det/cls/rec outputs are probabilities).
DEFAULT_TOLERANCE = 1e-3
_EXTRA = "pip install 'edgeocr[paddle]' (paddlepaddle and paddle2onnx)"
_MAX_YML_BYTES = 64 << 20


@dataclass
class PaddleModel:
    """A Paddle inference model found in a folder."""

    folder: str
    model_file: str  # .json (PIR) or .pdmodel (the older program format)
    params_file: str
    format: str  # "paddle-pir-json" or "paddle-pdmodel"
    yml: str | None = None  # inference.yml beside it, when there is one
    settings: dict = field(default_factory=dict)
    characters: list | None = None
    notes: list = field(default_factory=list)

    @property
    def prefix(self) -> str:
        return os.path.splitext(self.model_file)[0]


def is_paddle_source(path) -> bool:
    """A folder (or a .json/.pdmodel file) that should hold a Paddle inference model."""
    p = os.fspath(path)
    if os.path.isdir(p):
        return True
    return p.endswith((".pdmodel", ".json")) and os.path.exists(
        os.path.splitext(p)[0] + ".pdiparams"
    )


def find_model(path) -> PaddleModel:
    """The model files in ``path`` (a folder, or its model file). ModelNotFoundError if none."""
    p = os.fspath(path)
    if os.path.isfile(p):
        folder, names = os.path.dirname(p) or ".", [os.path.basename(p)]
    elif os.path.isdir(p):
        folder = p
        try:
            listing = sorted(os.listdir(p))
        except OSError as e:
            raise ModelNotFoundError(f"{p}: cannot list the folder: {e}") from e
        # PaddleOCR names its exports inference.*; any other name with its .pdiparams also works.
        names = [n for n in ("inference.json", "inference.pdmodel") if n in listing] + [
            n
            for n in listing
            if n.endswith((".json", ".pdmodel")) and not n.startswith("inference.")
        ]
    else:
        raise ModelNotFoundError(f"model not found: {p}")
    for name in names:
        stem = os.path.splitext(name)[0]
        params = os.path.join(folder, stem + ".pdiparams")
        if os.path.isfile(params):
            yml = os.path.join(folder, "inference.yml")
            return PaddleModel(
                folder=folder,
                model_file=os.path.join(folder, name),
                params_file=params,
                format="paddle-pir-json" if name.endswith(".json") else "paddle-pdmodel",
                yml=yml if os.path.isfile(yml) else None,
            )
    have = ", ".join(sorted(os.listdir(folder))[:12]) if os.path.isdir(folder) else ""
    raise ModelNotFoundError(
        f"{p}: no Paddle inference model: expected inference.json (PIR) or inference.pdmodel "
        f"with inference.pdiparams beside it; found: {have or 'nothing'}"
    )


def require():
    """(paddle, paddle2onnx), or UnsupportedError naming the extra to install."""
    try:
        import paddle
        import paddle2onnx
    except ImportError as e:
        raise UnsupportedError(
            f"Paddle inference models need Paddle and paddle2onnx: {_EXTRA}; ({e})"
        ) from e
    return paddle, paddle2onnx


def read_config(model: PaddleModel, role: str) -> PaddleModel:
    """Fills ``settings``/``characters``/``notes`` from the folder's inference.yml (if any)."""
    if model.yml is None:
        return model
    import edgeocr._core as _core

    try:
        import yaml
    except ImportError as e:
        raise UnsupportedError(f"{model.yml}: reading inference.yml needs PyYAML: {_EXTRA}") from e
    if os.path.getsize(model.yml) > _MAX_YML_BYTES:
        raise ModelError(f"{model.yml}: larger than {_MAX_YML_BYTES >> 20} MiB")
    try:
        with open(model.yml, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        text = json.dumps(doc, ensure_ascii=False)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, TypeError, ValueError) as e:
        raise ModelError(f"{model.yml}: not a readable inference.yml: {e}") from e
    settings, chars, notes = _core.loader.paddle_model_config(text, role, model.yml)
    model.settings = json.loads(settings)
    model.characters = list(chars) if chars else None
    model.notes = list(notes)
    return model


@contextlib.contextmanager
def _captured_output():
    """Silences what native code writes to stdout/stderr (Paddle's logs); yields its text."""
    out = {"text": ""}
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        saved = [os.dup(1), os.dup(2)]
        try:
            os.dup2(tmp.fileno(), 1)
            os.dup2(tmp.fileno(), 2)
            yield out
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            tmp.seek(0)
            out["text"] = tmp.read(1 << 20).decode("utf-8", "replace")


def _reason(log: str) -> str:
    """The lines of a failed conversion's log that say why."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    keep = [
        ln
        for ln in lines
        if any(k in ln.lower() for k in ("not supported", "unsupported", "error", "failed"))
    ]
    text = "; ".join(dict.fromkeys(keep))
    return text[-2000:] or (lines[-1][:500] if lines else "no reason given")


def convert(model: PaddleModel, *, opset: int = OPSET, timeout: float = 900) -> bytes:
    """ONNX bytes of ``model`` by paddle2onnx (opset 14 unless given), converted in a child
    process (paddle2onnx aborts its process on operators it does not know). ModelError saying
    what and where when it cannot convert. The one Paddle -> ONNX path: ``edgeocr-pack`` and
    ``edgeocr export`` both convert through it."""
    import subprocess
    import sys

    paddle, paddle2onnx = require()
    versions = f"paddle2onnx {paddle2onnx.__version__}, Paddle {paddle.__version__}"
    with tempfile.TemporaryDirectory(prefix="edgeocr-p2o-") as tmp:
        out = os.path.join(tmp, "model.onnx")
        cmd = [
            sys.executable,
            "-m",
            "edgeocr.pack._paddle_worker",
            model.model_file,
            model.params_file,
            model.format,
            out,
            str(int(opset)),
        ]
        env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
        try:
            r = subprocess.run(
                cmd, capture_output=True, text=True, errors="replace", timeout=timeout, env=env
            )
        except subprocess.TimeoutExpired as e:
            raise ModelError(
                f"{model.model_file}: paddle2onnx did not finish in {timeout:.0f} s"
            ) from e
        status, suspects = {}, []
        for line in r.stdout.splitlines():
            if line.startswith("{"):
                try:
                    d = json.loads(line)
                except ValueError:
                    continue
                suspects = d.get("suspects", suspects)
                status = d if "suspects" not in d else status
        if r.returncode != 0 or not status.get("ok") or not os.path.isfile(out):
            why = status.get("error") or _reason(r.stdout + "\n" + r.stderr)
            sig = f" (it aborted: signal {-r.returncode})" if r.returncode < 0 else ""
            ops = (
                f"; operator(s) paddle2onnx does not list as supported: {', '.join(suspects)}"
                if suspects
                else ""
            )
            raise ModelError(
                f"{model.model_file}: paddle2onnx cannot convert this {model.format} model "
                f"({versions}){sig}: {why}{ops}; nothing was written"
            )
        with open(out, "rb") as f:
            return f.read()


def with_characters(onnx_bytes: bytes, characters: list | None) -> bytes:
    """The model with its dictionary as ``character`` metadata (as PaddleOCR's ONNX exports)."""
    if not characters:
        return onnx_bytes
    import onnx

    m = onnx.load_from_string(onnx_bytes)
    for p in list(m.metadata_props):
        if p.key == "character":
            m.metadata_props.remove(p)
    m.metadata_props.add(key="character", value="\n".join(characters))
    return m.SerializeToString()


# ---------------------------------------------------------------------------
# Paddle Inference
# ---------------------------------------------------------------------------
class PaddleRunner:
    """A Paddle Inference predictor (CPU) for ``model``: ``run(x) -> [outputs]``.

    ``ir_optim``: Paddle's graph optimisation passes (``--ir_optim`` in
    PaddleOCR); ``mkldnn``: its oneDNN kernels.
    """

    def __init__(self, model: PaddleModel, *, ir_optim=True, mkldnn=False, threads=1):
        require()
        from paddle import inference as pi

        c = pi.Config(model.model_file, model.params_file)
        c.disable_gpu()
        c.switch_ir_optim(bool(ir_optim))
        if mkldnn:
            c.enable_mkldnn()
        else:
            c.disable_mkldnn()
        c.set_cpu_math_library_num_threads(max(1, int(threads or 1)))
        c.disable_glog_info()
        with _captured_output():
            self.predictor = pi.create_predictor(c)
        self.input_name = self.predictor.get_input_names()[0]
        self.output_names = self.predictor.get_output_names()
        self.settings = {"ir_optim": bool(ir_optim), "mkldnn": bool(mkldnn), "threads": threads}

    def run(self, x: np.ndarray) -> list:
        h = self.predictor.get_input_handle(self.input_name)
        h.reshape(list(x.shape))
        h.copy_from_cpu(np.ascontiguousarray(x, dtype=np.float32))
        self.predictor.run()
        return [self.predictor.get_output_handle(n).copy_to_cpu() for n in self.output_names]


def _ort_session(onnx_bytes: bytes, threads: int = 1, outputs=None):
    import onnx
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = max(1, int(threads or 1))
    so.log_severity_level = 3
    data = onnx_bytes
    if outputs:
        m = onnx.load_from_string(onnx_bytes)
        have = {o.name for o in m.graph.output}
        for n in outputs:
            if n not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=n))
        data = m.SerializeToString()
        # Every tensor keeps its name and value only when ORT fuses nothing.
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def random_inputs(role: str, seed: int = 0) -> list:
    """Inputs of the sizes the pipeline gives each role, uniform in the normalised range."""
    rng = np.random.default_rng(seed)
    shapes = {
        "det": [(1, 3, 96, 128), (1, 3, 160, 96)],
        "cls": [(2, 3, 48, 192)],
        "rec": [(2, 3, 48, 160), (1, 3, 48, 320)],
    }[role]
    return [rng.uniform(-2.0, 2.0, s).astype(np.float32) for s in shapes]


def compare(
    model: PaddleModel,
    onnx_bytes: bytes,
    inputs: dict,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    threads: int = 1,
) -> dict:
    """Max |ONNX Runtime - Paddle Inference| per output over ``inputs`` (kind -> arrays).

    Paddle runs as PaddleOCR deploys it on a CPU (IR optimisation on, oneDNN
    off); ONNX Runtime with its default optimisation.
    """
    runner = PaddleRunner(model, ir_optim=True, mkldnn=False, threads=threads)
    sess = _ort_session(onnx_bytes, threads)
    in_name = sess.get_inputs()[0].name
    out_names = [o.name for o in sess.get_outputs()]
    if len(out_names) != len(runner.output_names):
        raise ModelError(
            f"{model.model_file}: the converted model has {len(out_names)} outputs, "
            f"Paddle's has {len(runner.output_names)}"
        )
    worst = {n: 0.0 for n in out_names}
    per_kind, counts = {}, {}
    for kind, xs in inputs.items():
        counts[kind] = len(xs)
        per_kind[kind] = {n: 0.0 for n in out_names}
        for x in xs:
            ref = runner.run(x)
            got = sess.run(None, {in_name: x})
            for n, a, b in zip(out_names, ref, got):
                if a.shape != b.shape:
                    raise ModelError(
                        f"{model.model_file}: output {n} has shape {b.shape} in ONNX, "
                        f"{a.shape} in Paddle, for input {x.shape}"
                    )
                d = float(np.max(np.abs(a.astype(np.float64) - b))) if a.size else 0.0
                if not np.isfinite(d):
                    d = float("inf")
                per_kind[kind][n] = max(per_kind[kind][n], d)
                worst[n] = max(worst[n], d)
    return {
        "reference": {"runtime": "paddle-inference", **runner.settings},
        "max_abs_diff": worst,
        "max_abs_diff_by_input": per_kind,
        "inputs": counts,
        "tolerance": tolerance,
        "ok": all(v <= tolerance for v in worst.values()),
    }


def _pir_program(model: PaddleModel):
    """(program, executor) of the model as a PIR program, its parameters in the global scope."""
    paddle, _ = require()
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    if model.format == "paddle-pir-json":
        with paddle.pir_utils.IrGuard():
            prog, _, _ = paddle.static.load_inference_model(model.prefix, exe)
    else:
        # paddle2onnx translates the old program to PIR first; the same translation here
        # gives the same operators in the same order.
        with paddle.pir_utils.OldIrGuard():
            old, _, _ = paddle.static.load_inference_model(model.prefix, exe)
        prog = paddle.pir.translate_to_pir(old.desc)
    return prog, exe


# Operators whose results are constants or feeds, not computed tensors.
_NOT_TENSORS = ("pd_op.full", "pd_op.assign_value", "pd_op.data", "pd_op.feed", "pd_op.fetch")


def layerwise(
    model: PaddleModel,
    onnx_bytes: bytes,
    x: np.ndarray,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    limit: int = 10,
) -> dict:
    """The first tensor where the ONNX graph leaves Paddle's, on input ``x``.

    paddle2onnx names the tensor of the k-th ``pd_op.T`` operator's first
    result ``p2o.pd_op.T.k.0``. The model's program is saved again with each
    such tensor as an output, and run by Paddle Inference (IR optimisation
    off, so no tensor is fused away); the ONNX graph gets the same tensors as
    outputs and runs in ONNX Runtime with no fusion. They are compared in
    Paddle's operator order; a tensor's error is its max abs difference over
    max(1, max |Paddle value|). Returns the first past ``tolerance`` and the
    ``limit`` largest.
    """
    import onnx

    paddle, _ = require()
    m = onnx.load_from_string(onnx_bytes)
    producers = {o: (n.name or n.op_type, n.op_type) for n in m.graph.node for o in n.output}
    with _captured_output():
        prog, exe = _pir_program(model)
        counters = collections.Counter()
        feed, names, values, ops = None, [], [], {}
        for op in prog.global_block().ops:
            name = op.name()
            k = counters[name]
            counters[name] += 1
            if name in ("pd_op.data", "pd_op.feed"):
                feed = op.results()[0]
            if name.startswith(_NOT_TENSORS) or not op.results():
                continue
            r = op.results()[0]
            t = f"p2o.{name}.{k}.0"
            if t in producers and r.is_dense_tensor_type():
                names.append(t)
                values.append(r)
                ops[t] = name
        if feed is None or not names:
            paddle.disable_static()
            return {"compared": 0, "note": "no tensor names shared by the two graphs"}
        with tempfile.TemporaryDirectory(prefix="edgeocr-layerwise-") as tmp:
            with paddle.pir_utils.IrGuard():
                paddle.static.save_inference_model(
                    os.path.join(tmp, "m"), [feed], values, exe, program=prog
                )
            paddle.disable_static()
            inner = PaddleModel(
                folder=tmp,
                model_file=os.path.join(tmp, "m.json"),
                params_file=os.path.join(tmp, "m.pdiparams"),
                format="paddle-pir-json",
            )
            ref = PaddleRunner(inner, ir_optim=False, mkldnn=False).run(x)
    sess = _ort_session(onnx_bytes, outputs=names)
    got = sess.run(names, {sess.get_inputs()[0].name: x})
    rows = []
    for t, a, b in zip(names, ref, got):
        a = np.asarray(a)
        if a.shape != b.shape:
            err = float("inf")
        elif not a.size:
            err = 0.0
        else:
            scale = max(1.0, float(np.max(np.abs(a))))
            err = float(np.max(np.abs(a.astype(np.float64) - b))) / scale
            if not np.isfinite(err):
                err = float("inf")
        rows.append(
            {
                "tensor": t,
                "paddle_op": ops[t],
                "onnx_node": producers[t][0],
                "onnx_op": producers[t][1],
                "rel_error": err,
            }
        )
    first = next((r for r in rows if r["rel_error"] > tolerance), None)
    return {
        "compared": len(rows),
        "input_shape": list(x.shape),
        "tolerance": tolerance,
        "first_diverging": first,
        "largest": sorted(rows, key=lambda r: -r["rel_error"])[:limit],
    }
