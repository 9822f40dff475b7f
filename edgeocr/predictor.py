"""`edgeocr.Predictor`: the OCR pipeline (det -> cls -> rec) in the C++ core."""

from __future__ import annotations

import dataclasses
import glob
import os
import warnings
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Callable, Iterable, Iterator

import numpy as np

from . import _core
from .config import PipelineConfig
from .errors import InvalidInputError, ModelError, ModelNotFoundError
from .image_io import decoded_size, load_image
from .image_io import max_image_pixels as max_image_pixels_in_force
from .model import load_core_model, session_options
from .models import MODEL_SETS, resolve_model_set
from .results import OcrLine, OcrResult


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _check_workers(workers) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidInputError(f"workers must be an integer >= 1, got {workers!r}")
    return workers


def read_keys(keys) -> list[str]:
    """Characters from a keys file (one per line) or a list of strings."""
    if isinstance(keys, (list, tuple)):
        chars = [str(k) for k in keys]
    else:
        path = os.fspath(keys)
        if not os.path.isfile(path):
            raise ModelNotFoundError(f"dictionary (keys) file not found: {path}")
        with open(path, encoding="utf-8") as f:
            chars = [line.rstrip("\r\n") for line in f]
        while chars and chars[-1] == "":
            chars.pop()
    if not chars:
        raise ModelError("the dictionary (keys) is empty")
    return chars


def charset_for(rec_model, keys=None) -> list[str]:
    """The rec model's classes: blank, the dictionary, and a space if the model has one more class."""
    if keys is not None:
        chars = read_keys(keys)
        source = "the keys given"
    else:
        meta = rec_model.metadata.get("character")
        if not meta:
            raise ModelError(
                f"{rec_model.name}: this rec model carries no dictionary in its metadata; "
                "pass keys='ppocr_keys_v1.txt' (one character per line) or a list of characters"
            )
        chars = meta.splitlines()
        source = "its metadata"
    n_classes = rec_model.outputs[0][2][2]
    if n_classes in (-1, len(chars) + 2):
        return ["", *chars, " "]
    if n_classes == len(chars) + 1:
        return ["", *chars]
    raise ModelError(
        f"{rec_model.name}: the model has {n_classes} classes but {source} has {len(chars)} characters "
        "(expected classes = characters + 1 blank [+ 1 space]); wrong dictionary for this model?"
    )


def _role_of(core_model) -> str:
    role = core_model.metadata.get("edgeocr.role")
    if role in ("det", "cls", "rec"):
        return role
    outs = core_model.outputs
    rank = len(outs[0][2]) if outs else 0
    return {4: "det", 2: "cls", 3: "rec"}.get(rank, "unknown")


def _check_budget(mb, whose: str = "") -> float | None:
    if mb is not None and (isinstance(mb, bool) or not isinstance(mb, (int, float)) or not mb > 0):
        raise InvalidInputError(f"{whose + ' ' if whose else ''}max_memory_mb must be a positive number, got {mb!r}")
    return mb


def _find_in_dir(folder: str, role: str) -> str | None:
    hits = []
    for ext in ("onnx", "ort", "nb"):
        hits += glob.glob(os.path.join(folder, f"*{role}*.{ext}"))
    if len(hits) > 1:
        raise ModelError(f"{folder}: several {role} models ({', '.join(sorted(hits))}); pass {role}= explicitly")
    return hits[0] if hits else None


class Predictor:
    """OCR on images: detection, direction classification, recognition.

    >>> p = edgeocr.Predictor()                      # the default model set
    >>> p = edgeocr.Predictor(models="ppocr-v6-small", threads=2)
    >>> p = edgeocr.Predictor("models_dir/")         # det/cls/rec files (+ keys) in a folder
    >>> p = edgeocr.Predictor(det="det.onnx", cls="cls.onnx", rec="rec.onnx", keys="keys.txt")
    >>> r = p.predict("page.jpg")

    A single model file gives a single-stage predictor (a det model: boxes
    only; a rec model: one line per image). Settings are those of
    :class:`PipelineConfig`; pass one as ``config=`` or override fields as
    keyword arguments (``det_box_thresh=0.6``).

    Thread-safe: one Predictor may be shared by many threads (the models'
    weights are loaded once); calls run in parallel with the GIL released.

    ``threads`` is each model run's intra-op thread count (default: the
    runtime's, all cores). ``workers`` is how many images ``predict_batch``
    and ``predict_iter`` run at once (default 1: one image at a time on all
    cores, which gives the lowest latency); with ``workers > 1`` and no
    ``threads`` each run gets ``cores // workers`` threads. Which gives more
    images/s depends on the device and the images: ``edgeocr bench
    --throughput`` measures it (docs/performance.md has this machine's figures).
    ``max_image_pixels`` refuses bigger images (and arrays) before they are
    decoded or copied (default: $EDGEOCR_MAX_IMAGE_PIXELS, else 100 megapixels;
    docs/reliability.md, "Image size and decoding memory").
    ``preprocess`` is an optional Python hook run on the decoded image
    (a numpy array) before the static pipeline, e.g. to shrink huge scans.
    ``arm64_bf16_fastmath=True`` (aarch64 only, ignored elsewhere) lets ONNX
    Runtime run fp32 GEMMs in bf16: faster on CPUs with BF16 instructions, low
    bits of the outputs differ (docs/performance.md, "ARM64 bf16 fast math").
    """

    def __init__(
        self,
        model: str | os.PathLike | None = None,
        *,
        models: str | None = None,
        det=None,
        cls=None,
        rec=None,
        keys=None,
        task: str | None = None,
        threads: int | None = None,
        use_cls: bool = True,
        config: PipelineConfig | None = None,
        max_memory_mb: float | None = None,
        preprocess: Callable[[np.ndarray], np.ndarray] | None = None,
        ort_library: str | None = None,
        memory_arena: bool | str = "shared",
        memory_pattern: bool = False,
        spinning: bool = False,
        arm64_bf16_fastmath: bool = False,
        workers: int = 1,
        max_image_pixels: int | None = None,
        **overrides,
    ):
        self.workers = _check_workers(workers)
        if max_image_pixels is not None:
            max_image_pixels_in_force(max_image_pixels)  # checked now, not at the first image
        self.max_image_pixels = max_image_pixels
        if threads is None and self.workers > 1:
            # Throughput mode: the cores are shared out between the images in flight.
            threads = max(1, _cpu_count() // self.workers)
        if preprocess is not None and not callable(preprocess):
            raise InvalidInputError("preprocess must be a callable taking and returning an image array")
        max_memory_mb = _check_budget(max_memory_mb)
        session_kw = {"spinning": spinning, "arm64_bf16_fastmath": arm64_bf16_fastmath}
        if isinstance(model, (str, os.PathLike)) and os.fspath(model).endswith(".eocr"):
            if any(v is not None for v in (models, det, cls, rec, keys)):
                raise InvalidInputError("a .eocr bundle holds its models and dictionary; pass it alone")
            from .pack.bundle import load_bundle

            # The bundle's settings, then the caller's overrides; its graphs go to the
            # runtime straight from the mapped file (memoryviews, no copy, no temp files).
            with load_bundle(model) as b:
                level = b.manifest.get("runtime", {}).get("graph_optimization", "all")
                if max_memory_mb is None:  # the budget the bundle was packed for, if any
                    max_memory_mb = _check_budget(b.manifest.get("runtime", {}).get("max_memory_mb"), "the bundle's")
                from .pack.quantize import int8_speed_warning

                note = int8_speed_warning(b.manifest.get("quantization") or {})
                if note:
                    warnings.warn(f"{os.fspath(model)}: {note}", RuntimeWarning, stacklevel=2)
                self._init(
                    {r: ("data", v) for r, v in b.models.items() if v is not None},
                    b.charset, config or b.config, overrides, use_cls, threads, max_memory_mb,
                    ort_library, (memory_arena, memory_pattern), session_kw, level,
                    os.path.basename(os.fspath(model)), {},
                )
        else:
            paths = self._resolve(model, models, det, cls, rec, task)
            from .models import model_set_memory_profile

            if config is None:  # a whole model set: its own measured settings, under the caller's
                from .models import model_set_config

                overrides = {**model_set_config(paths), **overrides}
            self._init(
                {r: ("path", p) for r, p in paths.items() if p is not None},
                keys, config or PipelineConfig(), overrides, use_cls, threads, max_memory_mb,
                ort_library, (memory_arena, memory_pattern), session_kw, "all", None,
                model_set_memory_profile(paths),
            )
        self.preprocess = preprocess

    def _init(self, sources, keys, config, overrides, use_cls, threads, max_memory_mb, ort_library,
              memory, session_kw, optimization, bundle_name, memory_profile):
        if overrides:
            known = {f.name for f in dataclasses.fields(PipelineConfig)}
            unknown = sorted(set(overrides) - known)
            if unknown:
                raise InvalidInputError(f"unknown Predictor settings: {unknown}; see edgeocr.PipelineConfig")
            config = dataclasses.replace(config, **overrides)
        if not use_cls:
            config = dataclasses.replace(config, use_cls=False)
        self.config = config
        # Defaults measured on dev pages (docs/performance.md, "Session memory"): one ORT arena
        # shared by det/cls/rec, memory pattern off: faster than per-session arenas or no arena,
        # and the lowest peak RSS; the pattern was faster on some pages but holds its planned
        # block on top of the arena in steady state (843 vs 508 MiB peak on two small pages).
        opts = session_options(threads, memory_arena=memory[0], memory_pattern=memory[1], **session_kw,
                               optimization=optimization)
        if max_memory_mb:
            # Under a budget the sessions run on the shared arena (growing by what is asked) and
            # give its free memory back after every run: between calls the runtime holds no
            # activations, during one it holds what the call's plan counted (docs/memory-budget.md).
            opts.shared_arena, opts.memory_pattern, opts.shrink_arena = True, False, True
        self._pool = _core.MemoryPool(int(max_memory_mb * 2**20) if max_memory_mb else 0)
        loaded, self.paths = {}, {"det": None, "cls": None, "rec": None}
        for role, (kind, src) in sources.items():
            if kind == "data":
                name = f"{bundle_name}:{role}"
                m = load_core_model(data=src, options=opts, pool=self._pool, ort_library=ort_library, name=name)
            else:
                name = os.fspath(src)
                m = load_core_model(src, options=opts, pool=self._pool, ort_library=ort_library)
            actual = _role_of(m)
            if actual != role:
                raise ModelError(f"{name}: given as the {role} model, but its outputs look like a {actual} model")
            loaded[role] = m
            self.paths[role] = name
        if "rec" in loaded:
            # A bundle's dictionary is the exact class list; files and metadata go through charset_for.
            charset = list(keys) if bundle_name is not None else charset_for(loaded["rec"], keys)
        else:
            if keys is not None and bundle_name is None:
                raise InvalidInputError("keys= given but there is no rec model")
            charset = []
        self._pipe = _core.Pipeline(
            loaded.get("det"), loaded.get("cls"), loaded.get("rec"), charset, config.to_core(), self._pool
        )
        self._roles = set(loaded)
        self.max_memory_mb = max_memory_mb
        if max_memory_mb:
            self._pipe.set_memory_budget(int(max_memory_mb * 2**20), memory_profile)
            # The decoders' libraries are loaded now, not by the first call inside its budget
            # (OpenCV alone adds ~25 MiB of resident code and tables).
            import cv2  # noqa: F401
            from PIL import Image  # noqa: F401

    # -- construction ---------------------------------------------------
    def _resolve(self, model, models, det, cls, rec, task) -> dict:
        explicit = {"det": det, "cls": cls, "rec": rec}
        if model is not None and models is not None:
            raise InvalidInputError("pass either a model path or models=NAME, not both")
        if model is not None and any(v is not None for v in explicit.values()):
            raise InvalidInputError("pass either a model path or det=/cls=/rec=, not both")
        if any(v is not None for v in explicit.values()):
            if models is not None:
                base = resolve_model_set(models)
                return {r: explicit[r] if explicit[r] is not None else base[r] for r in explicit}
            return explicit
        if model is None:
            return resolve_model_set(models)
        if isinstance(model, str) and model in MODEL_SETS:
            return resolve_model_set(model)
        path = os.fspath(model)
        if not os.path.exists(path):
            raise ModelNotFoundError(
                f"model not found: {path} (known model sets: {', '.join(MODEL_SETS)})"
            )
        if os.path.isdir(path):
            found = {r: _find_in_dir(path, r) for r in ("det", "cls", "rec")}
            if found["det"] is None and found["rec"] is None:
                raise ModelNotFoundError(f"{path}: no *det*/*rec* model files (.onnx, .ort, .nb) in this folder")
            return found
        # One model file: its role from the task= argument, its metadata or its outputs.
        if task is not None and task not in ("det", "cls", "rec"):
            raise InvalidInputError(f"task must be 'det', 'cls' or 'rec', got {task!r}")
        role = task
        if role is None:
            probe = load_core_model(path, options=session_options(1))
            role = _role_of(probe)
            del probe
            if role == "cls":
                raise ModelError(f"{path} is a direction classifier; it needs det and rec models to be useful")
            if role not in ("det", "rec"):
                raise ModelError(f"{path}: cannot tell whether this is a det, cls or rec model; pass task=")
        return {"det": path if role == "det" else None, "cls": None, "rec": path if role == "rec" else None}

    # -- inference ------------------------------------------------------
    def _prepare(self, image) -> np.ndarray:
        img = load_image(image, self.max_image_pixels)
        if self.preprocess is not None:
            img = load_image(self.preprocess(img), self.max_image_pixels)
        return img

    def predict(self, image) -> OcrResult:
        """OCR one image: a path, encoded bytes, a numpy array (BGR/gray/BGRA uint8) or a PIL image."""
        if self.max_memory_mb:
            return self._run_budgeted(image)
        return self._run(self._prepare(image), image)

    def _run(self, img: np.ndarray, source, call=None) -> OcrResult:
        # A rec-only predictor reads the whole image as one line.
        raw = self._pipe.run(img, call) if "det" in self._roles else self._recognize(img, call)
        return self._result(raw, img, source)

    def _run_budgeted(self, source) -> OcrResult:
        # The call is planned and admitted under the budget before the image is decoded, so the
        # decoded pixels are part of what it holds (the size comes from the file's header).
        size = None if self.preprocess is not None else decoded_size(source)
        if size is None:  # unknown before decoding (or changed by the preprocess hook)
            img = self._prepare(source)
            size = (img.shape[1], img.shape[0], img.nbytes)
        else:
            img = None
        with self._pipe.admit(*size) as call:
            if img is None:
                img = self._prepare(source)
            return self._run(img, source, call)

    def predict_batch(self, images: Iterable, *, workers: int | None = None) -> list[OcrResult]:
        """OCR several images; results in the order given. See :meth:`predict_iter`."""
        return list(self.predict_iter(images, workers=workers))

    def predict_iter(self, images: Iterable, *, workers: int | None = None) -> Iterator[OcrResult]:
        """Stream results for an iterable of images, in order, in bounded memory.

        A background thread decodes the next images while ``workers`` images
        (default: the Predictor's ``workers``) run through the pipeline at once,
        with the GIL released; with one worker the pipeline runs in the calling
        thread. At most ``2 * workers`` decoded images are held. An image that
        fails raises its error at its place in the stream; stopping early
        cancels what is queued.
        """
        n = self.workers if workers is None else _check_workers(workers)
        # Threads per call: concurrent callers sharing a Predictor each decode and run on their
        # own (a shared decode thread would serialise them); starting them costs ~0.1 ms.
        decode = ThreadPoolExecutor(1, thread_name_prefix="edgeocr-decode")
        run = ThreadPoolExecutor(n, thread_name_prefix="edgeocr-run") if n > 1 else None
        window: deque = deque()
        try:
            for im in images:
                if self.max_memory_mb:  # decoded under each call's share of the budget, not ahead
                    window.append(run.submit(self._run_budgeted, im) if run else partial(self._run_budgeted, im))
                    if len(window) >= 2 * n:
                        yield self._finish(window.popleft())
                    continue
                img = decode.submit(self._prepare, im)
                window.append(run.submit(self._run_when_decoded, img, im) if run else (img, im))
                if len(window) >= 2 * n:
                    yield self._finish(window.popleft())
            while window:
                yield self._finish(window.popleft())
        finally:  # also when the caller stopped early or an image failed: drop what is queued
            decode.shutdown(wait=True, cancel_futures=True)
            if run is not None:
                run.shutdown(wait=True, cancel_futures=True)

    def _run_when_decoded(self, img: Future, source) -> OcrResult:
        return self._run(img.result(), source)

    def _finish(self, w) -> OcrResult:
        if isinstance(w, tuple):
            return self._run_when_decoded(*w)
        return w() if isinstance(w, partial) else w.result()

    def recognize(self, image) -> OcrLine:
        """Recognition only: ``image`` is one text line."""
        if "rec" not in self._roles:
            raise InvalidInputError("this Predictor has no rec model")
        text, score, det_score, box, flipped = self._pipe.recognize(self._prepare(image))
        return OcrLine(text, float(score), box, float(det_score), bool(flipped))

    def _recognize(self, img, call=None) -> dict:
        import time

        t0 = time.perf_counter()
        line = self._pipe.recognize(img, call)
        dt = time.perf_counter() - t0
        lines = [line] if line[0] else []
        return {"lines": lines, "timings": {"det": 0.0, "cls": 0.0, "rec": dt, "total": dt}, "det_size": (0, 0)}

    @staticmethod
    def _result(raw: dict, img: np.ndarray, source) -> OcrResult:
        lines = [OcrLine(t, float(s), b, float(ds), bool(f)) for t, s, ds, b, f in raw["lines"]]
        src = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
        return OcrResult(lines, dict(raw["timings"]), (img.shape[1], img.shape[0]), src)

    def memory_stats(self) -> dict:
        """The shared memory pool's statistics (bytes reserved, high-water mark, hits, misses);
        with ``max_memory_mb``, also ``budget``: total, in use, peak in use and waits."""
        stats = dict(self._pool.stats())
        if self.max_memory_mb:
            stats["budget"] = self._pipe.memory_budget
        return stats

    def __repr__(self) -> str:
        parts = ", ".join(f"{r}={os.path.basename(p)!r}" for r, p in self.paths.items() if p)
        return f"edgeocr.Predictor({parts})"
