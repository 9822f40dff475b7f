"""`pack()`: source models -> (quantized, offline-optimised, verified) `.eocr` bundle."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence

from ..config import PipelineConfig
from ..errors import EdgeOCRError, InvalidInputError, ModelError, ModelNotFoundError
from ..progress import Progress
from . import bundle as B
from . import quantize as Q
from . import verify as V

TARGETS = ("generic", "x86", "arm")
QUANTIZE = ("none", "dynamic", "int8")
# --auto-keep: off; models (the default for int8): whole models whose quantization alone costs
# the most go back to float until the gate passes; nodes: first the nodes adding the most error.
AUTO_KEEP = ("off", "models", "nodes")
# Fewer held-back lines than this and the gate warns that it cannot see a drop of max_drop.
MIN_GATE_LINES = 100


class AccuracyGateError(EdgeOCRError, ValueError):
    """The packed models lose more accuracy than allowed (``max_drop``); no bundle was written.

    ``report`` holds the verification report that failed the gate.
    """

    def __init__(self, message: str, report: dict):
        super().__init__(message)
        self.report = report


class ConversionMismatchError(ModelError):
    """A converted Paddle model reads differently from Paddle Inference; no bundle was written.

    ``report`` holds the comparison (max abs diff per output, the first diverging layer).
    """

    def __init__(self, message: str, report: dict):
        super().__init__(message)
        self.report = report


def _convert_paddle(paths: dict, tmp: str, log) -> tuple[dict, dict]:
    """Converts the Paddle inference model folders among ``paths`` (updated in place to the
    converted .onnx files in ``tmp``); returns (role -> PaddleModel, role -> source info)."""
    models, infos = {}, {}
    for role, p in paths.items():
        if p is None or not _is_paddle(p):
            continue
        from . import paddle as P

        m = P.read_config(P.find_model(p), role)
        t0 = time.perf_counter()
        data = P.with_characters(P.convert(m), m.characters)
        seconds = time.perf_counter() - t0
        out = os.path.join(tmp, f"{role}.onnx")
        with open(out, "wb") as f:
            f.write(data)
        with open(m.params_file, "rb") as f:
            params_sha = B.sha256_of(f.read())
        with open(m.model_file, "rb") as f:
            model_raw = f.read()
        import paddle
        import paddle2onnx

        infos[role] = {
            "file": os.path.basename(os.path.normpath(m.folder)),
            "format": m.format,
            "model_file": os.path.basename(m.model_file),
            "sha256": B.sha256_of(model_raw),
            "size": len(model_raw),
            "params_sha256": params_sha,
            "converter": f"paddle2onnx {paddle2onnx.__version__} (paddle {paddle.__version__}, "
            f"opset {P.OPSET})",
            "convert_seconds": round(seconds, 3),
            "inference_yml": {
                "settings": m.settings,
                "characters": len(m.characters or []),
                "notes": m.notes,
            }
            if m.yml
            else None,
        }
        log(f"{role}: converted {m.model_file} ({m.format}) in {seconds:.2f} s")
        for n in m.notes:
            log(f"{role}: note: {n}")
        models[role] = m
        paths[role] = out
    return models, infos


def _is_paddle(p) -> bool:
    from .paddle import is_paddle_source

    return isinstance(p, (str, os.PathLike)) and is_paddle_source(p)


def _page_strips(images, config, role: str, per_image: int = 4) -> list:
    """cls/rec inputs cut from real pages as horizontal strips (when det finds no lines)."""
    import numpy as np

    from .._core import kernels

    c = config
    h_in = c.rec_height if role == "rec" else c.cls_height
    mean, std = (c.rec_mean, c.rec_std) if role == "rec" else (c.cls_mean, c.cls_std)
    out = []
    for img in images:
        h, w = img.shape[:2]
        sh = max(4, h // 24)
        for i in range(per_image):
            y = (i + 1) * h // (per_image + 1)
            q = np.array([[0, y], [w - 1, y], [w - 1, y + sh], [0, y + sh]], dtype=np.float32)
            ratio = w / sh
            if role == "rec":
                ow = dst = min(960, max(8, int(np.ceil(h_in * ratio / 8)) * 8))
            else:
                dst = c.cls_width
                ow = min(dst, max(1, int(np.ceil(h_in * ratio))))
            out.append(
                kernels.crop_preprocess(img, q, ow, h_in, dst, tuple(mean), tuple(std), 0.0)[None]
            )
    return out


def _check_paddle(
    models, sources, sample_imgs, inputs, config, *, tolerance, layerwise, force, threads, log
) -> dict:
    """Converted models against Paddle Inference: per role, max abs diff per output."""
    from . import paddle as P

    tol = P.DEFAULT_TOLERANCE if tolerance is None else float(tolerance)
    out, failed = {}, []
    for role, m in models.items():
        xs = {"random": P.random_inputs(role)}
        page = list(inputs.get(role) or [])[:4]
        if not page and sample_imgs:
            page = _page_strips(sample_imgs[:2], config, role) if role != "det" else []
        if page:
            xs["pages"] = page
        r = P.compare(m, sources[role], xs, tolerance=tol, threads=threads or 1)
        worst = max(r["max_abs_diff"].values(), default=0.0)
        log(
            f"{role}: converted vs Paddle Inference: max abs diff "
            + ", ".join(f"{k} {v:.3g}" for k, v in r["max_abs_diff"].items())
            + f" on {sum(r['inputs'].values())} inputs ({', '.join(r['inputs'])}); "
            f"tolerance {tol:g}"
        )
        if layerwise or not r["ok"]:
            x = min((a for v in xs.values() for a in v), key=lambda a: a.size)
            r["layerwise"] = P.layerwise(m, sources[role], x, tolerance=tol)
            first = r["layerwise"].get("first_diverging")
            if first:
                log(
                    f"{role}: first diverging tensor {first['tensor']} (Paddle {first['paddle_op']}"
                    f", ONNX node {first['onnx_node']} {first['onnx_op']}): relative error "
                    f"{first['rel_error']:.3g}"
                )
        if not r["ok"]:
            failed.append((role, worst, r))
        out[role] = r
    if failed:
        parts = []
        for role, worst, r in failed:
            first = (r.get("layerwise") or {}).get("first_diverging")
            where = (
                f", first diverging at {first['tensor']} ({first['onnx_node']})" if first else ""
            )
            parts.append(f"{role} ({models[role].model_file}): max abs diff {worst:.3g}{where}")
        msg = (
            "the converted model reads differently from Paddle Inference (tolerance "
            f"{tol:g}): " + "; ".join(parts)
        )
        if not force:
            raise ConversionMismatchError(msg + "; bundle not written (--force writes it)", out)
        log(f"warning: {msg}; written anyway (--force)")
        for _, _, r in failed:
            r["forced"] = True
    return out


def read_source(path) -> tuple[bytes, dict]:
    """ONNX bytes of a source model (.onnx; .nb translated; Paddle inference via paddle2onnx)."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise ModelNotFoundError(f"model not found: {p}")
    with open(p, "rb") as f:
        raw = f.read()
    info = {"file": os.path.basename(p), "sha256": B.sha256_of(raw), "size": len(raw)}
    if p.endswith(".nb"):
        from .. import _core

        info["format"] = "paddle-lite-nb"
        return _core.nb_cached_to_onnx(raw, p), info
    if p.endswith(".ort"):
        raise InvalidInputError(f"{p}: ORT-format models cannot be repacked; give the source .onnx")
    info["format"] = "onnx"
    return raw, info


def pack(
    output,
    *,
    det=None,
    cls=None,
    rec=None,
    keys=None,
    quantize: str = "none",
    calib: str | None = None,
    calib_limit: int = 12,
    method: str | None = None,
    recipe: str = Q.DEFAULT_RECIPE,
    dynamic_ops: Sequence[str] | None = None,
    keep_float: Sequence[str] = (),
    auto_keep: bool | str | None = None,
    layerwise: bool = False,
    max_keep_nodes: int = 64,
    max_drop: float = 0.5,
    eval_dir: str | None = None,
    eval_limit: int = 0,
    force: bool = False,
    target: str = "generic",
    optimize: str | None = "extended",
    runtime_optimization: str = "all",
    config: PipelineConfig | None = None,
    threads: int | None = None,
    measure_latency: bool = True,
    progress: bool | None = None,
    paddle_tolerance: float | None = None,
    log=print,
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
    """

    from ..image_io import load_image
    from ..predictor import Predictor
    from .predictors import predictor_from_models

    if quantize not in QUANTIZE:
        raise InvalidInputError(f"quantize must be one of {QUANTIZE}, got {quantize!r}")
    if target not in TARGETS:
        raise InvalidInputError(f"target must be one of {TARGETS}, got {target!r}")
    if optimize not in (None, "none", "basic", "extended"):
        raise InvalidInputError(
            f"offline optimisation must be none, basic or extended, got {optimize!r}"
        )
    if optimize == "none":
        optimize = None
    if quantize == "int8" and not calib:
        raise InvalidInputError("--quantize int8 needs calibration images: --calib DIR")
    if quantize == "dynamic" and not (calib or eval_dir or force):
        raise InvalidInputError(
            "--quantize dynamic needs pages to verify the bundle on: --calib DIR (unlabelled) "
            "or --eval DIR (labelled); --force writes it unverified"
        )
    if auto_keep is None:  # int8's default: models whose int8 costs the most stay float
        auto_keep = "models" if quantize == "int8" else "off"
    elif isinstance(auto_keep, bool):
        auto_keep = "nodes" if auto_keep else "off"
    if auto_keep not in AUTO_KEEP:
        raise InvalidInputError(f"auto_keep must be one of {AUTO_KEEP}, got {auto_keep!r}")
    if auto_keep != "off" and quantize == "none":
        raise InvalidInputError("--auto-keep only makes sense with --quantize dynamic or int8")
    if max_drop < 0:
        raise InvalidInputError(f"max_drop must be >= 0 points, got {max_drop}")
    paths = {"det": det, "cls": cls, "rec": rec}
    if paths["det"] is None and paths["rec"] is None:
        raise InvalidInputError("give at least a det or a rec model")

    # Paddle inference model folders: converted to ONNX first (edgeocr/pack/paddle.py), their
    # inference.yml's settings used unless config= is given, checked against Paddle below.
    paddle_tmp = tempfile.TemporaryDirectory(prefix="edgeocr-paddle-")
    try:
        paddle_models, paddle_info = _convert_paddle(paths, paddle_tmp.name, log)
    except BaseException:
        paddle_tmp.cleanup()
        raise
    if not paddle_models:
        paddle_tmp.cleanup()
    else:
        det, cls, rec = paths["det"], paths["cls"], paths["rec"]
        yml_settings = {k: v for m in paddle_models.values() for k, v in m.settings.items()}
        if config is None and yml_settings:
            config = PipelineConfig.from_dict(yml_settings)
        elif yml_settings:
            log("note: --config given: the settings in inference.yml are not used")

    # Sources, and the float predictor everything is compared with.
    sources, source_info = {}, {}
    for role, p in paths.items():
        if p is not None:
            sources[role], source_info[role] = read_source(p)
            if role in paddle_info:
                source_info[role] = paddle_info[role]
    t0 = time.perf_counter()
    ref = Predictor(det=det, cls=cls, rec=rec, keys=keys, threads=threads, config=config)
    load_before = time.perf_counter() - t0
    # The settings the loader resolved for these models (a known model set's own, e.g.
    # drop_score 0.65 for PP-OCRv4 mobile, unless config= was given) go into the manifest, so
    # the bundle runs as the loose files do; the charset is the one the loader built.
    config = ref.config
    charset = list(ref._loaded.charset) if "rec" in sources else []

    calib_paths = V.list_images(calib, calib_limit) if calib else []
    samples = []
    if eval_dir:
        from ..evaluate import metrics as evaluate

        if not os.path.isfile(os.path.join(eval_dir, "e2e_synth.jsonl")):
            raise InvalidInputError(
                f"{eval_dir}: not a labelled set (expected e2e_synth.jsonl and its images)"
            )
        samples = evaluate.load_e2e(eval_dir)
        samples = samples[:eval_limit] if eval_limit else samples
        if not samples:
            raise InvalidInputError(f"{eval_dir}: no labelled images")
    # The gate's pages: labelled ones, else calibration pages held back from calibration.
    held_paths = []
    if quantize != "none" and calib_paths and not samples:
        calib_paths, held_paths = V.hold_out(calib_paths)
    verify_paths = [s["path"] for s in samples] or held_paths or calib_paths
    sample_paths = calib_paths or [s["path"] for s in samples[:4]]
    sample_imgs = [load_image(p) for p in sample_paths]
    verify_imgs = [load_image(p) for p in verify_paths]
    settings = (
        Q.settings_for(quantize, target, method, dynamic_ops, recipe=recipe)
        if quantize != "none"
        else None
    )
    # Histogram calibrators (entropy, percentile) need one input shape per model.
    uniform = (
        {r for r in sources if settings.method_for(r) != "minmax"}
        if settings is not None and settings.mode == "int8"
        else set()
    )
    inputs = Q.calibration_inputs(sample_imgs, config, ref, uniform=uniform) if sample_imgs else {}
    conversion = {}
    if paddle_models:
        try:
            conversion = _check_paddle(
                paddle_models,
                sources,
                sample_imgs,
                inputs,
                config,
                tolerance=paddle_tolerance,
                layerwise=layerwise,
                force=force,
                threads=threads,
                log=log,
            )
        finally:
            paddle_tmp.cleanup()

    named, kept = {}, {r: [] for r in sources}
    why_kept = {r: {} for r in sources}  # node -> why it stays float
    tmp = tempfile.TemporaryDirectory(prefix="edgeocr-pack-")
    try:
        if settings is not None:
            for role, data in sources.items():
                named[role] = Q.load_named(Q.optimize_graph(data, "basic"))
                for pattern, why in settings.keep_for(role):
                    for n in Q.match_keep(named[role], pattern):
                        why_kept[role].setdefault(n, f"recipe {settings.recipe} {pattern}: {why}")
                for pattern in keep_float:
                    for n in Q.match_keep(named[role], pattern):
                        why_kept[role].setdefault(n, f"--keep-float {pattern}")
                kept[role] = list(why_kept[role])

        float_roles: list = []  # roles left float entirely
        float_why: dict = {}
        if settings is not None and settings.mode == "int8":
            for role in sources:
                if settings.float_why(role):
                    float_roles.append(role)
                    float_why[role] = f"recipe {settings.recipe}: {settings.float_why(role)}"
                elif not inputs.get(role):
                    float_roles.append(role)
                    float_why[role] = (
                        "no calibration inputs (no text found on the calibration pages)"
                    )
                    log(f"warning: {role} stays float: {float_why[role]}")

        def build(role: str) -> bytes:
            data = sources[role]
            if settings is not None and role not in float_roles:
                cache = os.path.join(tmp.name, f"{role}.calib.json")
                bar = None
                if settings.mode == "int8" and not os.path.exists(cache):
                    bar = Progress(len(inputs.get(role, [])), progress, f"calibrate {role}")
                data = Q.quantize_bytes(
                    named[role],
                    settings,
                    inputs.get(role, []),
                    kept[role],
                    role=role,
                    cache_path=cache,
                    progress=bar,
                )
            return Q.optimize_graph(data, optimize) if optimize else bytes(data)

        t0 = time.perf_counter()
        packed = {role: build(role) for role in sources}
        build_seconds = time.perf_counter() - t0

        # The float pipeline's results on the gate's pages, computed once.
        ref_results: dict = {}

        def reference() -> list:
            if "r" not in ref_results:
                bar = Progress(len(verify_imgs), progress, "verify (float)")
                ref_results["r"], ref_results["t"] = V.run_images(ref, verify_imgs, bar)
            return ref_results["r"]

        def measure(models: dict, *, latency: bool = False) -> dict:
            t0 = time.perf_counter()
            pred = predictor_from_models(
                models, charset, config, threads=threads, optimization=runtime_optimization
            )
            report = {
                "load_ms": {
                    "before": 1000 * load_before,
                    "after": 1000 * (time.perf_counter() - t0),
                }
            }
            report["stages"] = V.stage_diffs(sources, models, inputs)
            if not verify_imgs:
                return report
            a = reference()
            bar = Progress(len(verify_imgs), progress, "verify (packed)")
            b, _ = V.run_images(pred, verify_imgs, bar)
            report["agreement"] = {
                **V.text_agreement(a, b),
                "pages_from": "eval" if samples else ("held-out calib" if held_paths else "calib"),
            }
            if samples:
                before, after = V.accuracy(samples, a), V.accuracy(samples, b)
                report["eval"] = {
                    "dataset": os.path.basename(os.path.normpath(eval_dir)),
                    "n_images": len(samples),
                    "before": before,
                    "after": after,
                    "drop_points": V.accuracy_drop(before, after),
                }
            if latency:
                ta, tb = V.interleaved_seconds(ref, pred, verify_imgs)
                report["latency_ms"] = {
                    "before": V.median_ms(ta),
                    "after": V.median_ms(tb),
                    "images": len(verify_imgs),
                    "threads": threads or 0,
                }
            return report

        def drop_of(report: dict) -> float:
            if "eval" in report:
                return report["eval"]["drop_points"]
            if "agreement" in report:
                return 100.0 * (1.0 - report["agreement"]["one_minus_ned"])
            return 0.0

        damage_cache: dict = {}

        def damage() -> dict:
            # Per role, weighted nodes ranked by the error their quantization adds.
            if not damage_cache:
                for role in sources:
                    if inputs.get(role) and role not in float_roles:
                        cache = os.path.join(tmp.name, f"{role}.calib.json")
                        qbytes = Q.quantize_bytes(
                            named[role],
                            settings,
                            inputs[role],
                            kept[role],
                            role=role,
                            cache_path=cache,
                        )
                        damage_cache[role] = Q.node_damage(named[role], qbytes, inputs[role])
            return damage_cache

        floats_cache: dict = {}

        def floats() -> dict:
            if not floats_cache:
                for r in sources:
                    floats_cache[r] = (
                        Q.optimize_graph(sources[r], optimize) if optimize else sources[r]
                    )
            return floats_cache

        def drop_alone() -> dict:
            # The drop with only one model quantized, per quantized model.
            alone = {}
            for role in sources:
                if role in float_roles:
                    continue
                trial = {r: (packed[r] if r == role else floats()[r]) for r in sources}
                alone[role] = drop_of(measure(trial))
            return alone

        report = measure(packed, latency=measure_latency)
        rounds = []
        if auto_keep != "off" and drop_of(report) > max_drop:
            # 1. ("nodes") Return the most damaging nodes to float, doubling the count per
            #    round (at most max_keep_nodes nodes).
            # 2. If that is not enough, return whole roles to float, the one whose
            #    quantization alone costs most first, until the drop is within max_drop.
            ranked = []
            if auto_keep == "nodes" and max_keep_nodes > 0:
                ranked = [
                    (role, n, op, score)
                    for role, dmg in damage().items()
                    for n, op, score in dmg
                    if n not in kept[role]
                ]
            ranked.sort(key=lambda r: -r[3])
            step, taken = 1, 0
            rounds.append({"kept_float": 0, "drop_points": drop_of(report)})
            limit = min(len(ranked), max_keep_nodes)
            while drop_of(report) > max_drop and taken < limit:
                batch = ranked[taken : min(limit, taken + step)]
                taken += len(batch)
                step *= 2
                for role, n, _, score in batch:
                    kept[role].append(n)
                    why_kept[role][n] = (
                        f"--auto-keep nodes: adds {score:.3f} relative error when quantized"
                    )
                for role in {r for r, *_ in batch}:
                    packed[role] = build(role)
                report = measure(packed)
                rounds.append(
                    {
                        "kept_float": taken,
                        "nodes": [f"{r}:{n}" for r, n, _, _ in batch],
                        "drop_points": drop_of(report),
                    }
                )
                log(f"auto-keep: {taken} node(s) kept float, drop {drop_of(report):.2f} pts")
            if drop_of(report) > max_drop and len(sources) > 1:
                alone = drop_alone()
                for role, d in alone.items():
                    log(f"auto-keep: only {role} quantized: drop {d:.2f} pts")
                for role in sorted(alone, key=lambda r: -alone[r]):
                    if drop_of(report) <= max_drop:
                        break
                    float_roles.append(role)
                    float_why[role] = (
                        f"--auto-keep {auto_keep}: quantized alone it cost {alone[role]:.2f} pts "
                        f"of 1-NED (allowed {max_drop} for the bundle)"
                    )
                    packed[role] = floats()[role]
                    report = measure(packed)
                    rounds.append(
                        {
                            "role_float": role,
                            "alone_drop_points": alone[role],
                            "drop_points": drop_of(report),
                        }
                    )
                    log(f"auto-keep: {role} kept float, drop {drop_of(report):.2f} pts")
            if measure_latency and rounds[1:]:
                report = measure(packed, latency=True)
            report["auto_keep"] = rounds

        failed = settings is not None and drop_of(report) > max_drop
        if (layerwise or failed) and settings is not None:
            report["layerwise"] = {
                role: [{"node": n, "op": op, "added_rel_error": sc} for n, op, sc in dmg[:10]]
                for role, dmg in damage().items()
            }
        if settings is not None:
            report["kept_float"] = _kept_float_report(settings, named, why_kept, float_why)
        if failed and len([r for r in sources if r not in float_roles]) > 1:
            report["drop_alone"] = drop_alone()
    finally:
        tmp.cleanup()

    if conversion:
        report["conversion"] = conversion
    report["drop_points"] = drop_of(report)
    report["drop_measure"] = (
        "eval: max drop of det_hmean and 1-NED against the labels"
        if "eval" in report
        else "1 - (1-NED of the packed pipeline's text against the float pipeline's text), "
        + (
            "on calibration pages held back from calibration"
            if held_paths
            else "on the calibration pages"
        )
        if "agreement" in report
        else "none: no pages to verify on"
    )
    report["max_drop"] = max_drop
    agr = report.get("agreement")
    if settings is not None and agr and not samples and agr["lines"] < MIN_GATE_LINES:
        # One changed line in 25 already moves 1-NED by up to 4 points, and a model that
        # costs 0.5 points changes about one line in ten: on few lines the gate sees noise.
        report["gate_warning"] = (
            f"the gate compared only {agr['lines']} lines (held-back pages); below "
            f"{MIN_GATE_LINES} a drop of {max_drop} points may not show: give more or denser "
            "calibration pages (--calib, --calib-limit) or labelled pages (--eval)"
        )
        log(f"warning: {report['gate_warning']}")
    report["build_seconds"] = build_seconds
    report["machine"] = _machine()
    log(V.format_report(report))
    if settings is not None and report["drop_points"] > max_drop:
        msg = (
            f"accuracy drops {report['drop_points']:.2f} points "
            + (
                f"on {eval_dir}"
                if "eval" in report
                else f"on {len(verify_imgs)} verification page(s)"
            )
            + f" (allowed: {max_drop}); bundle not written"
        )
        blame = _blame(report)
        if blame:
            msg += f"; {blame}"
        if not force:
            raise AccuracyGateError(
                msg + " (use --force to write it anyway, or --auto-keep / --keep-float)", report
            )
        log(f"warning: {msg.replace('; bundle not written', '')}; written anyway (--force)")
        report["forced"] = True
    elif settings is not None and not verify_imgs:
        log("warning: no pages to verify on: the bundle is written unverified (--force)")
        report["forced"] = True

    requires = ["onnx"]
    if optimize == "extended":
        requires.append("ort-contrib-ops")
    if quantize == "int8":
        requires.append("int8-qdq")
    elif quantize == "dynamic":
        requires.append("int8-dynamic")
    entries = {}
    for role, data in packed.items():
        entries[role] = {
            "data": data,
            "file": f"{role}.onnx",
            "source": source_info[role],
            "graph_optimization": optimize or "none",
            "kept_float": kept[role] if settings is not None and role not in float_roles else [],
            "quantized": settings is not None and role not in float_roles,
        }
    features = Q.cpu_features()
    quant = (
        {"mode": "none"}
        if settings is None
        else {
            **settings.to_dict(),
            "calibration_images": len(calib_paths) if settings.mode == "int8" else 0,
            "verification_images": len(verify_imgs),
            "calibration_shapes": {r: ("uniform" if r in uniform else "pipeline") for r in inputs},
            "calibration_inputs": {r: len(v) for r, v in inputs.items()}
            if settings.mode == "int8"
            else {},
            "keep_float_patterns": list(keep_float),
            "auto_keep": auto_keep,
            "float_roles": list(float_roles),
            "packed_on_cpu": {k: v for k, v in features.items() if v},
        }
    )
    manifest = B.build_manifest(
        entries,
        charset,
        config,
        quantization=quant,
        target=target,
        verification=report,
        requires=requires,
        extra={"runtime": {"graph_optimization": runtime_optimization}},
    )
    size = B.write_bundle(output, manifest, packed)
    log(
        f"wrote {os.fspath(output)} ({size / 2**20:.2f} MiB: "
        + ", ".join(f"{r} {len(d) / 2**20:.2f}" for r, d in packed.items())
        + ")"
    )
    note = Q.int8_speed_warning(quant, features)
    if note:
        log(f"warning: {note}")
    return manifest


def _kept_float_report(settings, named: dict, why_kept: dict, float_why: dict) -> dict:
    """Per role: what stays float and why (whole model, op types the recipe leaves, nodes)."""
    out = {}
    for role, model in named.items():
        if role in float_why:
            out[role] = {"whole_model": float_why[role]}
            continue
        ops = settings.ops_for(role) if settings.mode == "int8" else settings.op_types
        entry = {}
        if ops:
            left = {}
            for n in model.graph.node:
                if n.op_type not in ops:
                    left[n.op_type] = left.get(n.op_type, 0) + 1
            entry["op_types_left_float"] = left
            entry["op_types_why"] = (
                f"recipe {settings.recipe}: only {', '.join(ops)} quantized in {role}"
                if settings.mode == "int8"
                else f"--dynamic-ops {','.join(ops)}"
            )
        entry["nodes"] = [{"node": n, "why": w} for n, w in why_kept[role].items()]
        out[role] = entry
    return out


def _blame(report: dict) -> str:
    """Which model and which nodes cost the most (for the gate's refusal)."""
    parts = []
    alone = report.get("drop_alone") or {}
    if alone:
        worst = max(alone, key=alone.get)
        parts.append(
            "quantized alone, "
            + ", ".join(f"{r} costs {d:.2f}" for r, d in sorted(alone.items(), key=lambda x: -x[1]))
            + " points"
        )
    else:
        worst = None
    lw = report.get("layerwise") or {}
    roles = [worst] if worst in lw else list(lw)
    for role in roles:
        nodes = lw[role][:3]
        if nodes:
            parts.append(
                f"{role} nodes adding the most error: "
                + ", ".join(f"{d['node']} ({d['op']})" for d in nodes)
            )
    return "; ".join(parts)


def _machine() -> dict:
    from .._runtime import machine_info

    m = machine_info()
    return {
        "cpu": m["cpu"],
        "arch": m["arch"],
        "cores": m["nproc"],
        "int8_features": Q.cpu_flags_line(),
    }
