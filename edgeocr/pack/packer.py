"""`pack()`: source models -> (quantized, offline-optimised, verified) `.eocr` bundle.

An orchestrator over one module per step: sources (sources.py: read, convert Paddle,
check the conversion), reference (the float engine), pages (pages.py), calibration and
quantize (quantize.py, build.py), verify and gate (gate.py, verify.py), write (bundle.py).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from collections.abc import Sequence

from .._runtime import cpu_features, int8_speed_warning
from ..config import PipelineConfig
from ..engine import Engine
from ..errors import InvalidInputError
from . import bundle as B
from . import quantize as Q
from .build import Build
from .errors import AccuracyGateError, ConversionMismatchError  # noqa: F401 - pack's API
from .gate import Gate
from .pages import GatePages, gate_pages
from .sources import Sources, check_paddle, read_sources

TARGETS = ("generic", "x86", "arm")
QUANTIZE = ("none", "dynamic", "int8")
# --auto-keep: off; models (the default for int8): whole models whose quantization alone costs
# the most go back to float until the gate passes; nodes: first the nodes adding the most error.
AUTO_KEEP = ("off", "models", "nodes")


@dataclasses.dataclass
class PackOptions:
    """pack()'s keyword arguments but the models (see :func:`pack`)."""

    keys: object = None
    recheck_keys: object = None
    quantize: str = "none"
    calib: str | None = None
    calib_limit: int = 12
    method: str | None = None
    recipe: str = Q.DEFAULT_RECIPE
    dynamic_ops: Sequence[str] | None = None
    keep_float: Sequence[str] = ()
    auto_keep: bool | str | None = None
    layerwise: bool = False
    max_keep_nodes: int = 64
    max_drop: float = 0.5
    eval_dir: str | None = None
    eval_limit: int = 0
    force: bool = False
    target: str = "generic"
    optimize: str | None = "extended"
    runtime_optimization: str = "all"
    config: PipelineConfig | None = None
    threads: int | None = None
    measure_latency: bool = True
    progress: bool | None = None
    paddle_tolerance: float | None = None
    log: object = print

    def checked(self) -> PackOptions:
        """The options checked, with their defaults resolved (auto_keep, optimize)."""
        if self.quantize not in QUANTIZE:
            raise InvalidInputError(f"quantize must be one of {QUANTIZE}, got {self.quantize!r}")
        if self.target not in TARGETS:
            raise InvalidInputError(f"target must be one of {TARGETS}, got {self.target!r}")
        if self.optimize not in (None, "none", "basic", "extended"):
            raise InvalidInputError(
                f"offline optimisation must be none, basic or extended, got {self.optimize!r}"
            )
        optimize = None if self.optimize == "none" else self.optimize
        if self.quantize == "int8" and not self.calib:
            raise InvalidInputError("--quantize int8 needs calibration images: --calib DIR")
        if self.quantize == "dynamic" and not (self.calib or self.eval_dir or self.force):
            raise InvalidInputError(
                "--quantize dynamic needs pages to verify the bundle on: --calib DIR (unlabelled) "
                "or --eval DIR (labelled); --force writes it unverified"
            )
        auto_keep = self.auto_keep
        if auto_keep is None:  # int8's default: models whose int8 costs the most stay float
            auto_keep = "models" if self.quantize == "int8" else "off"
        elif isinstance(auto_keep, bool):
            auto_keep = "nodes" if auto_keep else "off"
        if auto_keep not in AUTO_KEEP:
            raise InvalidInputError(f"auto_keep must be one of {AUTO_KEEP}, got {auto_keep!r}")
        if auto_keep != "off" and self.quantize == "none":
            raise InvalidInputError("--auto-keep only makes sense with --quantize dynamic or int8")
        if self.max_drop < 0:
            raise InvalidInputError(f"max_drop must be >= 0 points, got {self.max_drop}")
        return dataclasses.replace(self, optimize=optimize, auto_keep=auto_keep)


def pack(
    output, *, det=None, cls=None, rec=None, recheck=None, layout=None, table=None, **options
) -> dict:
    """Make a bundle at ``output``; returns its manifest.

    A quantized bundle is always verified before it is written (the gate):
    with ``eval_dir`` (labelled pages), by the drop in det hmean and 1-NED
    against the labels; without, on the calibration pages held back from
    calibration (every third of ``calib``), by how closely the quantized
    pipeline reads the float pipeline's own text (1-NED agreement). Past
    ``max_drop`` points it raises :class:`AccuracyGateError` (writing nothing,
    naming the model and nodes that cost the most), unless ``force``.

    det/cls/rec may be Paddle inference model folders (``inference.json`` or
    ``inference.pdmodel`` + ``.pdiparams``; needs ``edgeocr[paddle]``): they are
    converted with paddle2onnx, their ``inference.yml`` gives the settings and
    dictionary (unless ``config``/``keys`` are given), and each converted model
    is compared with Paddle Inference on random and page inputs: a max abs
    difference past ``paddle_tolerance`` (default 1e-3) raises
    :class:`ConversionMismatchError` unless ``force``; ``layerwise`` (or the
    failure) names the first diverging tensor.

    ``recheck``: a second rec model (ONNX or ``.nb``) that re-reads the lines rec reads below
    ``rec_recheck_below`` (its dictionary: ``recheck_keys``, else its metadata). It is packed in
    float (a bundle with one cannot be quantized yet) and stored with its dictionary; the
    manifest then requires the ``recheck`` feature.

    ``layout`` and ``table``: document parsing's models (docs/document-parsing.md; a table model
    needs a layout model), ONNX files. They are stored as given (not quantized or optimised:
    the bundle parses as the loose files do), checked first as the loader checks them (a model
    that is not a layout model is refused before anything is written), and the manifest then
    requires the ``layout`` (and ``table``) feature.
    """
    o = PackOptions(**options).checked()
    if det is None and rec is None:
        raise InvalidInputError("give at least a det or a rec model")
    _check_recheck(recheck, rec, o)
    document = _read_document_models(layout, table)
    # 1. Sources: ONNX bytes per role (Paddle inference models converted, settings from their
    #    inference.yml unless config= is given).
    src = read_sources({"det": det, "cls": cls, "rec": rec, "recheck": recheck}, o.log)
    try:
        ref, load_seconds = _reference(src, recheck is not None, document, o)
        config, charset, recheck_charset = ref.config, ref.charset, ref.recheck_charset
        # 3. Pages and calibration inputs (made by the pipeline's own kernels).
        pages = gate_pages(o.calib, o.calib_limit, o.eval_dir, o.eval_limit, o.quantize)
        settings = (
            Q.settings_for(o.quantize, o.target, o.method, o.dynamic_ops, recipe=o.recipe)
            if o.quantize != "none"
            else None
        )
        uniform = _uniform_roles(settings, src.data)
        inputs = (
            Q.calibration_inputs(pages.sample_imgs, config, ref, uniform=uniform)
            if pages.sample_imgs
            else {}
        )
        if "recheck" in src.data and inputs.get("rec"):
            inputs["recheck"] = inputs["rec"]  # it reads rec's crops: the stage check's inputs
        conversion = _check_conversion(src, pages, inputs, config, o)
    finally:
        src.close()
    # 4. Quantize, 5. verify and gate, 6. write.
    packed, build, gate, report, build_seconds = _build_and_verify(
        src.data, settings, inputs, ref, load_seconds, pages, o
    )
    if conversion:
        report["conversion"] = conversion
    gate.judge(report, build_seconds=build_seconds, force=o.force)
    return _write(
        output,
        packed,
        build,
        src,
        document,
        (charset, recheck_charset),
        config,
        report,
        pages,
        inputs,
        uniform,
        o,
    )


def _reference(src: Sources, recheck: bool, document: dict, o: PackOptions):
    """2. Reference: the float engine everything is compared with, and the seconds it took to
    load. Its settings (config=, else the sources' inference.yml, else a known model set's own,
    e.g. drop_score 0.65 for PP-OCRv4 mobile) and charset go into the manifest, so the bundle
    runs as the loose files do. With ``document`` models, the loader's own checks on them."""
    config = o.config
    if config is None and src.settings:
        config = PipelineConfig.from_dict(src.settings)
    elif src.settings:
        o.log("note: --config given: the settings in inference.yml are not used")
    t0 = time.perf_counter()
    ref_sources = {r: os.fspath(p) for r, p in src.paths.items() if p is not None}
    if recheck and o.recheck_keys is not None:
        ref_sources["recheck_keys"] = o.recheck_keys
    ref = Engine({**ref_sources, "keys": o.keys}, settings=config, threads=o.threads)
    load_seconds = time.perf_counter() - t0
    if document:
        # The loader's own checks (check_layout_model and the role inference), on the bytes
        # the bundle will hold: a bundle that could not parse is never written.
        parser = ref.load_document(
            document["layout"][0], document["table"][0] if "table" in document else None
        )
        o.log(
            f"layout: {len(parser.layout_labels)} classes ({', '.join(parser.layout_labels)})"
            + ("; table model" if parser.has_table_model else "")
        )
    return ref, load_seconds


def _build_and_verify(sources: dict, settings, inputs: dict, ref, load_seconds, pages, o):
    """4. Quantize (and optimise) ``sources``, 5. verify the result against ``ref`` on
    ``pages``: (packed models, the Build, the Gate, its report, the build's seconds)."""
    with tempfile.TemporaryDirectory(prefix="edgeocr-pack-") as tmp:
        build = Build(
            sources,
            settings,
            inputs,
            keep_float=o.keep_float,
            optimize=o.optimize,
            tmp=tmp,
            progress=o.progress,
            log=o.log,
        )
        packed, build_seconds = build.all()
        gate = Gate(
            ref,
            load_seconds,
            build,
            pages,
            ref.charset,
            ref.config,
            max_drop=o.max_drop,
            threads=o.threads,
            runtime_optimization=o.runtime_optimization,
            progress=o.progress,
            log=o.log,
        )
        report = gate.verify(
            packed,
            auto_keep=o.auto_keep,
            max_keep_nodes=o.max_keep_nodes,
            layerwise=o.layerwise,
            latency=o.measure_latency,
        )
    return packed, build, gate, report, build_seconds


def _check_recheck(recheck, rec, o: PackOptions) -> None:
    """A recheck model needs a rec model, ONNX or .nb source, and no quantization (yet)."""
    if recheck is None:
        if o.recheck_keys is not None:
            raise InvalidInputError("recheck_keys given but there is no recheck model")
        return
    if rec is None:
        raise InvalidInputError("a recheck model re-reads the rec model's lines; give a rec model")
    if o.quantize != "none":
        raise InvalidInputError(
            f"--quantize {o.quantize}: a bundle with a recheck model is packed in float only (for "
            "now); pack without --quantize, or a set without a recheck model"
        )
    from .paddle import is_paddle_source

    if isinstance(recheck, (str, os.PathLike)) and is_paddle_source(recheck):
        raise InvalidInputError(
            f"{os.fspath(recheck)}: a recheck model is given as ONNX or .nb (convert the Paddle "
            "inference model first, e.g. by packing it as a rec model)"
        )


def _read_document_models(layout, table) -> dict:
    """{role: (ONNX bytes, source info)} of the layout and table models given ({} for none)."""
    if table is not None and layout is None:
        raise InvalidInputError(
            "a table model reads the tables the layout model finds; give a layout model with it"
        )
    from .paddle import is_paddle_source
    from .sources import read_source

    out = {}
    for role, p in (("layout", layout), ("table", table)):
        if p is None:
            continue
        if not isinstance(p, (str, os.PathLike)):
            raise InvalidInputError(f"the {role} model is given as a path, got {type(p).__name__}")
        if is_paddle_source(p) or os.fspath(p).endswith(".nb"):
            raise InvalidInputError(
                f"{os.fspath(p)}: a {role} model is packed from an ONNX file (.onnx)"
            )
        out[role] = read_source(p)
    return out


def _uniform_roles(settings, sources: dict) -> set:
    """Roles calibrated on one input shape: histogram calibrators (entropy, percentile) need it."""
    if settings is None or settings.mode != "int8":
        return set()
    return {r for r in sources if settings.method_for(r) != "minmax"}


def _check_conversion(src: Sources, pages: GatePages, inputs: dict, config, o) -> dict:
    """Converted Paddle models against Paddle Inference ({} when there are none)."""
    if not src.paddle:
        return {}
    return check_paddle(
        src.paddle,
        src.data,
        pages.sample_imgs,
        inputs,
        config,
        tolerance=o.paddle_tolerance,
        layerwise=o.layerwise,
        force=o.force,
        threads=o.threads,
        log=o.log,
    )


def _write(
    output, packed, build, src, document, charsets, config, report, pages, inputs, uniform, o
):
    """The bundle's manifest and file; returns the manifest. ``document``: the layout and table
    models ({role: (bytes, source info)}), stored as given; ``charsets``: rec's and recheck's."""
    charset, recheck_charset = charsets
    settings = build.settings
    requires = ["onnx"]
    if o.optimize == "extended":
        requires.append("ort-contrib-ops")
    if "recheck" in packed:
        requires.append("recheck")
    if o.quantize == "int8":
        requires.append("int8-qdq")
    elif o.quantize == "dynamic":
        requires.append("int8-dynamic")
    entries = {}
    for role, data in packed.items():
        quantized = settings is not None and role not in build.float_roles
        entries[role] = {
            "data": data,
            "file": f"{role}.onnx",
            "source": src.info[role],
            "graph_optimization": o.optimize or "none",
            "kept_float": build.kept[role] if quantized else [],
            "quantized": quantized,
        }
    for role, (data, info) in document.items():
        entries[role] = {
            "data": data,
            "file": f"{role}.onnx",
            "source": info,
            "graph_optimization": "none",
            "kept_float": [],
            "quantized": False,
        }
    packed = {**packed, **{role: data for role, (data, _) in document.items()}}
    features = cpu_features()
    quant = (
        {"mode": "none"}
        if settings is None
        else {
            **settings.to_dict(),
            "calibration_images": len(pages.calib) if settings.mode == "int8" else 0,
            "verification_images": len(pages.verify_imgs),
            "calibration_shapes": {r: ("uniform" if r in uniform else "pipeline") for r in inputs},
            "calibration_inputs": {r: len(v) for r, v in inputs.items()}
            if settings.mode == "int8"
            else {},
            "keep_float_patterns": list(o.keep_float),
            "auto_keep": o.auto_keep,
            "float_roles": list(build.float_roles),
            "packed_on_cpu": {k: v for k, v in features.items() if v},
        }
    )
    manifest = B.build_manifest(
        entries,
        charset,
        config,
        quantization=quant,
        target=o.target,
        verification=report,
        requires=requires,
        extra={"runtime": {"graph_optimization": o.runtime_optimization}},
        recheck_charset=recheck_charset,
    )
    size = B.write_bundle(output, manifest, packed)
    o.log(
        f"wrote {os.fspath(output)} ({size / 2**20:.2f} MiB: "
        + ", ".join(f"{r} {len(d) / 2**20:.2f}" for r, d in packed.items())
        + ")"
    )
    note = int8_speed_warning(quant, features)
    if note:
        o.log(f"warning: {note}")
    return manifest
