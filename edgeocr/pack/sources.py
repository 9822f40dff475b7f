"""pack()'s first step: the source models as ONNX bytes.

``.onnx`` as given; ``.nb`` translated by the core's translator; Paddle inference
model folders converted by paddle2onnx in a child process (edgeocr/pack/paddle.py),
their ``inference.yml`` settings and dictionary read, and each converted model
checked against Paddle Inference (:func:`check_paddle`).
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field

from ..errors import InvalidInputError, ModelNotFoundError
from . import bundle as B
from .errors import ConversionMismatchError


@dataclass
class Sources:
    """The source models of a pack: per role, what the float engine loads and the ONNX bytes."""

    paths: dict  # role -> file (a Paddle model: its converted .onnx, in ``tmp``)
    data: dict  # role -> ONNX bytes
    info: dict  # role -> the manifest's "source" entry
    paddle: dict = field(default_factory=dict)  # role -> PaddleModel, for check_paddle
    settings: dict = field(default_factory=dict)  # the Paddle models' inference.yml settings
    tmp: tempfile.TemporaryDirectory | None = None  # the converted models

    def close(self) -> None:
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None


def read_sources(paths: dict, log) -> Sources:
    """The models at ``paths`` ({role: path or None}) as :class:`Sources`."""
    paths = dict(paths)
    tmp = tempfile.TemporaryDirectory(prefix="edgeocr-paddle-")
    try:
        paddle, paddle_info = _convert_paddle(paths, tmp.name, log)
        data, info = {}, {}
        for role, p in paths.items():
            if p is not None:
                data[role], info[role] = read_source(p)
                if role in paddle_info:
                    info[role] = paddle_info[role]
    except BaseException:
        tmp.cleanup()
        raise
    if not paddle:
        tmp.cleanup()
        tmp = None
    settings = {k: v for m in paddle.values() for k, v in m.settings.items()}
    return Sources(paths, data, info, paddle, settings, tmp)


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


def check_paddle(
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
        import edgeocr._core as _core

        info["format"] = "paddle-lite-nb"
        return _core.nb_cached_to_onnx(raw, p), info
    if p.endswith(".ort"):
        raise InvalidInputError(f"{p}: ORT-format models cannot be repacked; give the source .onnx")
    info["format"] = "onnx"
    return raw, info
