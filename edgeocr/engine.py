"""The engine: models loaded by the C++ loader and run on decoded images.

:class:`Engine` is the one place the Python package calls ``_core.load_pipeline``:
load these sources (a bundle, one model, det/cls/rec files or bytes, a ``.nb``)
with these settings, run an image, recognise a line; and say what was loaded
(charset, roles, settings, model set, the bundle's manifest). Every rule it
applies lives in C++ (the loader and the pipeline).

It also runs images the way every caller does: one at a time with the memory
budget planned before decoding (:meth:`Engine.predict`), or several in flight
with decoding overlapped (:meth:`Engine.predict_iter`). ``edgeocr.Predictor``
adds what users need on top (model-set names and precision, threads for its
workers, the preprocess hook and pixel cap of its image input); pack/ and
``edgeocr bench`` use the engine directly: pack's float reference, the packed
pipelines it verifies and the pipelines over bundles it hands out; the
pipelines bench times.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING

import edgeocr._core as _core

from . import _runtime
from .config import PipelineConfig
from .errors import InvalidInputError
from .image_io import decoded_size, load_image
from .model import session_options
from .results import OcrLine, OcrResult

if TYPE_CHECKING:  # annotations only: numpy is imported when an image is (edgeocr/_numpy.py)
    from concurrent.futures import Future

    import numpy as np


def settings_json(settings: Mapping | PipelineConfig | None) -> str:
    """Pipeline settings as the loader takes them: JSON ("" for none). The loader checks each
    (name, type, range) against the core's settings table."""
    if isinstance(settings, PipelineConfig):
        settings = settings.to_core()
    if not settings:
        return ""
    try:
        return json.dumps(dict(settings))
    except (TypeError, ValueError) as e:
        raise InvalidInputError(
            f"Predictor settings must be numbers, strings, booleans or lists: {e}"
        ) from e


def _flag(value, name: str) -> bool:
    """``value`` if it is a bool, else InvalidInputError (a string such as "false" is not)."""
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be True or False, got {value!r}")
    return value


def check_workers(workers, most: int | None = None) -> int:
    """``workers`` if it is an int >= 1 (and <= ``most``), else InvalidInputError."""
    if (
        isinstance(workers, bool)
        or not isinstance(workers, int)
        or workers < 1
        or (most is not None and workers > most)
    ):
        bound = f"in [1, {most}]" if most is not None else ">= 1"
        raise InvalidInputError(f"workers must be an integer {bound}, got {workers!r}")
    return workers


class Engine:
    """A pipeline loaded by the C++ loader.

    ``sources`` holds the keyword arguments of ``_core.load_pipeline`` that name
    the models: ``model`` (a bundle or one det/rec model), or ``det``/``cls``/
    ``rec`` (paths, or bytes and buffers, which are not copied by Python), and
    ``keys`` (a keys file or a list of characters). ``settings`` as
    :func:`settings_json` takes them, applied over the model set's or the
    bundle's. ``options`` are the sessions' (default: ``threads`` intra-op
    threads on one shared arena). ``max_memory_mb`` caps the memory pool, runs
    the sessions as under a budget and plans and admits every call under it
    (docs/memory-budget.md); with ``bundle_budget`` a bundle's own
    ``runtime.max_memory_mb`` does so when none is given. ``defer_recheck``
    (default True) lets the core load a known set's recheck file when a call
    first needs it; ``disk_cache=False`` keeps this load off every on-disk
    cache.

    Thread-safe, as the core's pipeline is.
    """

    def __init__(
        self,
        sources: Mapping,
        *,
        settings: Mapping | PipelineConfig | None = None,
        options=None,
        threads: int | None = None,
        max_memory_mb: float | None = None,
        bundle_budget: bool = False,
        name: str = "<model bytes>",
        defer_recheck: bool = True,
        disk_cache: bool = True,
    ):
        _runtime.configure()  # no-op once the runtime library is chosen
        if options is None:
            options = session_options(threads, memory_arena="shared")
        if max_memory_mb:
            # Under a budget the sessions run on the shared arena (growing by what is asked) and
            # give its free memory back after every run: between calls the runtime holds no
            # activations, during one it holds what the call's plan counted (docs/memory-budget.md).
            options.shared_arena, options.memory_pattern, options.shrink_arena = True, False, True
        self._options = options
        self._disk_cache = _flag(disk_cache, "disk_cache")
        loaded = _core.load_pipeline(
            **sources,
            options=options,
            max_memory_bytes=int(max_memory_mb * 2**20) if max_memory_mb else 0,
            settings_json=settings_json(settings),
            name=name,  # what a model or bundle given as bytes is called in errors
            bundle_budget=bundle_budget,
            defer_recheck=_flag(defer_recheck, "defer_recheck"),
            disk_cache=_flag(disk_cache, "disk_cache"),
        )
        self._core_pipeline = loaded.pipeline
        self._pool = loaded.pool
        #: The roles loaded: a subset of {'det', 'cls', 'rec', 'recheck', 'layout', 'table'}.
        self.roles = frozenset(loaded.roles)
        #: The rec model's classes, blank first ([] without a rec model).
        self.charset = list(loaded.charset) if "rec" in self.roles else []
        self._loaded = loaded
        #: The settings in force (defaults, then the model set's or bundle's, then ``settings``).
        self.config = PipelineConfig.from_core(self._core_pipeline.config)
        #: The known model set the loose files are (found from their sha256), else None.
        self.model_set = loaded.model_set or None
        #: Per role, the file (or "<bundle>:role") the loader read; None when absent.
        self.names = dict(loaded.names)
        self.from_bundle = bool(loaded.from_bundle)
        #: A bundle's manifest ({} for other sources).
        self.manifest = json.loads(loaded.manifest_json) if loaded.manifest_json else {}
        #: The document parser (layout and table models over this pipeline; they load on its
        #: first run), None without a layout model.
        self.document = loaded.document
        #: The memory pool's cap in bytes (0: none): ``max_memory_mb``'s, else the bundle's.
        self.budget_bytes = int(loaded.budget_bytes)
        #: Bytes per input pixel per stage under a budget: the known set's, else the core's.
        self.memory_profile = dict(loaded.memory_profile)
        if self.budget_bytes:
            # The model set's figures (the loader knows the set's files by sha256), else the core's.
            self.set_memory_budget(self.budget_bytes, self.memory_profile)
            # The decoders' libraries are loaded now, not by the first call inside its budget
            # (OpenCV alone adds ~25 MiB of resident code and tables).
            import cv2  # noqa: F401
            from PIL import Image  # noqa: F401

    @property
    def recheck_charset(self) -> list:
        """The recheck model's classes, blank first ([] without a recheck model). A recheck model
        the core loads when first needed (a known set's file) is loaded for it."""
        if "recheck" not in self.roles:
            return []
        return list(self._loaded.recheck_charset)

    # -- running ----------------------------------------------------------
    def run(self, img: np.ndarray, call=None, source=None) -> OcrResult:
        """OCR one decoded image (uint8 BGR, gray or BGRA array); ``call`` is an admitted call
        under the memory budget (:meth:`admit`). Without a det model the core reads the whole
        image as one line."""
        raw = self._core_pipeline.run(img, call)  # without det: the whole image is one line
        lines = [OcrLine._from_core(t) for t in raw["lines"]]
        src = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
        return OcrResult(
            lines, dict(raw["timings"]), (img.shape[1], img.shape[0]), src, dict(raw["work"])
        )

    def run_encoded(self, data, max_pixels: int, source=None) -> OcrResult | None:
        """OCR a PNG's or JPEG's bytes, decoded in the core (csrc/codec/decode.h) with the GIL
        released and no numpy; None when the core's decoder leaves them to
        :func:`edgeocr.image_io.decode_image` (another format, or a feature it does not read).
        A damaged file or one over the caps raises InvalidInputError. Only without a memory
        budget: under one, the decoded pixels are admitted with the call (:meth:`predict`)."""
        if self.budget_bytes:
            return None
        src = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
        raw = self._core_pipeline.run_encoded(data, src or "image bytes", max_pixels)
        if isinstance(raw, str):
            return None
        lines = [OcrLine._from_core(t) for t in raw["lines"]]
        return OcrResult(
            lines, dict(raw["timings"]), tuple(raw["image_size"]), src, dict(raw["work"])
        )

    def predict(
        self, image, prepare: Callable | None = None, *, size_from_header: bool = True
    ) -> OcrResult:
        """OCR one image: a path, encoded bytes, a uint8 array or PIL image, decoded by
        ``prepare`` (default: :func:`edgeocr.image_io.load_image`). Under a memory budget the
        call is planned and admitted before the image is decoded, so the decoded pixels are
        part of what it holds: their size comes from the file's header, or from the decoded
        image when the header does not say or ``size_from_header`` is False (a ``prepare``
        that changes the size)."""
        prepare = prepare or load_image
        if not self.budget_bytes:
            return self.run(prepare(image), source=image)
        size = decoded_size(image) if size_from_header else None
        img = None
        if size is None:  # unknown before decoding (or changed by ``prepare``)
            img = prepare(image)
            size = (img.shape[1], img.shape[0], img.nbytes)
        with self.admit(*size) as call:
            if img is None:
                img = prepare(image)
            return self.run(img, call, image)

    def predict_iter(
        self,
        images: Iterable,
        *,
        workers: int = 1,
        prepare: Callable | None = None,
        size_from_header: bool = True,
    ) -> Iterator[OcrResult]:
        """:meth:`predict` over an iterable of images, results in order, in bounded memory.

        A background thread decodes (``prepare``) the next images while ``workers`` images run
        through the pipeline at once, with the GIL released; with one worker the pipeline runs
        in the calling thread. At most ``2 * workers`` decoded images are held; under a memory
        budget each image is decoded under its call's admission instead, not ahead. An image
        that fails raises its error at its place in the stream; stopping early cancels what
        is queued."""
        n = check_workers(workers, _core.MAX_SESSION_THREADS)
        if isinstance(images, (str, bytes, bytearray, memoryview, os.PathLike)) or not isinstance(
            images, Iterable
        ):
            # A path or bytes would be iterated character by character.
            raise InvalidInputError(
                "predict_batch/predict_iter take an iterable of images (a list of paths, arrays, "
                f"...), got {type(images).__name__}; use predict() for one image"
            )
        prepare = prepare or load_image
        budgeted = partial(self.predict, prepare=prepare, size_from_header=size_from_header)
        # Threads per call: concurrent callers sharing an engine each decode and run on their
        # own (a shared decode thread would serialise them); starting them costs ~0.1 ms.
        # Imported here: concurrent.futures (with logging) costs a one-image command ~10 ms.
        from concurrent.futures import ThreadPoolExecutor

        decode = ThreadPoolExecutor(1, thread_name_prefix="edgeocr-decode")
        run = ThreadPoolExecutor(n, thread_name_prefix="edgeocr-run") if n > 1 else None
        window: deque = deque()
        try:
            for im in images:
                if self.budget_bytes:  # decoded under each call's share of the budget
                    window.append(run.submit(budgeted, im) if run else partial(budgeted, im))
                else:
                    img = decode.submit(prepare, im)
                    window.append(run.submit(self._run_decoded, img, im) if run else (img, im))
                if len(window) >= 2 * n:
                    yield self._finish(window.popleft())
            while window:
                yield self._finish(window.popleft())
        finally:  # also when the caller stopped early or an image failed: drop what is queued
            decode.shutdown(wait=True, cancel_futures=True)
            if run is not None:
                run.shutdown(wait=True, cancel_futures=True)

    def _run_decoded(self, img: Future, source) -> OcrResult:
        return self.run(img.result(), source=source)

    def _finish(self, w) -> OcrResult:
        if isinstance(w, tuple):
            return self._run_decoded(*w)
        return w() if isinstance(w, partial) else w.result()

    def load_document(self, layout, table=None):
        """A document parser over this engine's pipeline with these layout (and table) models
        (paths or bytes), as the loader makes one; their sessions use the pipeline's pool."""
        return _core.load_document_parser(
            self._core_pipeline, layout, table, self._options, self._pool, self._disk_cache
        )

    def parse(self, parser, img: np.ndarray, text=None):
        """The document parser on a decoded image: the core's ``_core.Document``. ``text``: the
        page's own text (a `edgeocr.documents.text_layer.PageText`, or any object with
        ``lines`` of LayerLine-like items, ``rules`` and ``images``) read in place of the OCR
        stages, which then read only the pictures that hold none of it."""
        if text is None:
            return parser.run(img)
        lines = [(ln.text, ln.box, [(w[0], w[1]) for w in ln.words]) for ln in text.lines]
        styles = [
            (float(ln.font_size), int(ln.weight), bool(ln.bold), bool(ln.italic), ln.font)
            for ln in text.lines
        ]
        rules = [tuple(map(float, r)) for r in text.rules]
        images = [tuple(map(float, r)) for r in text.images]
        return parser.run_text(img, lines, styles, rules, images, getattr(text, "ocr_images", True))

    def parse_encoded(self, parser, data, max_pixels: int, source=None):
        """The document parser on a PNG's or JPEG's bytes decoded in the core; None when the
        decoder leaves them to others (as :meth:`run_encoded`)."""
        src = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
        doc = parser.run_encoded(data, src or "image bytes", max_pixels)
        return None if isinstance(doc, str) else doc

    def recognize(self, img: np.ndarray) -> OcrLine:
        """Recognition only: ``img`` (a decoded array) is one text line."""
        if "rec" not in self.roles:
            raise InvalidInputError("this Predictor has no rec model")
        return OcrLine._from_core(self._core_pipeline.recognize(img))

    # -- memory budget ----------------------------------------------------
    def set_memory_budget(self, budget_bytes: int, profile: Mapping | None = None) -> None:
        """Plan and admit every call under ``budget_bytes`` (docs/memory-budget.md); ``profile``:
        bytes per input pixel per stage ({} or None: the core's defaults)."""
        self._core_pipeline.set_memory_budget(int(budget_bytes), dict(profile or {}))

    @property
    def memory_budget(self):
        """The budget's state (total, in use, peak, waits), None without one."""
        return self._core_pipeline.memory_budget

    def plan(self, width: int, height: int, decoded_bytes: int = 0):
        """The call plan for an image of this size under the budget: what each stage holds."""
        return self._core_pipeline.plan(width, height, decoded_bytes)

    def admit(self, width: int, height: int, decoded_bytes: int):
        """A context manager: the call admitted under the budget (waits for room; too big for the
        whole budget raises ResourceError)."""
        return self._core_pipeline.admit(width, height, decoded_bytes)

    def pool_stats(self) -> dict:
        """The memory pool's statistics (bytes reserved, high-water mark, hits, misses)."""
        return dict(self._pool.stats())
