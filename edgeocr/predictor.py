"""`edgeocr.Predictor`: the OCR pipeline (det -> cls -> rec) in the C++ core."""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Callable

import edgeocr._core as _core

from . import _runtime
from ._runtime import int8_speed_warning
from .config import PipelineConfig
from .engine import Engine, check_workers
from .errors import InvalidInputError
from .image_io import load_image, load_image_bytes, read_image_file
from .image_io import max_image_pixels as max_image_pixels_in_force
from .model import check_max_memory_mb, session_options
from .models import (
    MODEL_SETS,
    RUNGS,
    document_model_paths,
    missing_layout_message,
    model_set_name,
)
from .results import DocumentResult, OcrLine, OcrResult, PageResult
from .sources import model_sources

if TYPE_CHECKING:  # annotations only: numpy is imported when an image is (edgeocr/_numpy.py)
    import numpy as np

PRECISIONS = ("auto", "fp32", "int8")
PRECISION_ENV = "EDGEOCR_PRECISION"


def requested_precision(precision: str | None) -> str:
    """``precision`` checked; None: ``$EDGEOCR_PRECISION``, else 'fp32'."""
    where = "precision"
    if precision is None:
        precision = os.environ.get(PRECISION_ENV) or "fp32"
        where = f"${PRECISION_ENV}"
    if precision not in PRECISIONS:
        raise InvalidInputError(f"{where} must be one of {PRECISIONS}, got {precision!r}")
    return precision


def _settings(config, use_cls: bool, overrides: dict) -> dict:
    """``config=`` (every field), then the keyword overrides, each checked by the core now."""
    if config is not None and not isinstance(config, PipelineConfig):
        raise InvalidInputError(
            f"config must be an edgeocr.PipelineConfig, got {type(config).__name__} "
            "(PipelineConfig.from_dict makes one from a dict)"
        )
    settings = dict(config.to_core()) if config is not None else {}
    for name, value in overrides.items():
        _core.check_setting(name, value)
    settings.update(overrides)
    if not _core.check_setting("use_cls", use_cls):
        settings["use_cls"] = False
    return settings


def _int8_sources(sources, given, named_set, files, keys, precision, threads, disk_cache):
    """(sources, the int8 bundle's path or None): for a model set chosen by name (``named_set``)
    without det/cls/rec files (``files``) and a precision other than fp32, the cached int8 bundle
    made from it, whose manifest holds the settings the float set has, where that pays; else
    ``sources`` as they are."""
    if named_set and "recheck" in sources and precision == "int8":
        raise InvalidInputError(
            "precision='int8': a set with a recheck model has no int8 form yet (bundles hold "
            "det, cls and rec); use precision='fp32'"
        )
    if not named_set or files or "recheck" in sources or precision == "fp32":
        return sources, None
    # The one import of a layer above: int8 models are packed on first use.
    from .pack.int8_default import int8_bundle_for

    set_keys = {"keys": sources["keys"]} if sources.get("keys") else {}
    bundle = int8_bundle_for(
        {**given, **set_keys}, precision, threads=threads, disk_cache=disk_cache
    )
    if bundle is None:
        return sources, None
    return {"model": os.fspath(bundle), "keys": keys}, os.fspath(bundle)


class Predictor:
    """OCR on images: detection, direction classification, recognition.

    >>> p = edgeocr.Predictor()                      # the default model set
    >>> p = edgeocr.Predictor(models="ppocr-v6-small", threads=2)
    >>> p = edgeocr.Predictor("models_dir/")         # det/cls/rec files (+ keys) in a folder
    >>> p = edgeocr.Predictor(det="det.onnx", cls="cls.onnx", rec="rec.onnx", keys="keys.txt")
    >>> r = p.predict("page.jpg")

    ``recheck`` (a rec model, with det/cls/rec or a model set) is a second,
    stronger recogniser: lines the rec model reads with a score below the
    setting ``rec_recheck_below`` are read again by it, and its reading stands
    (docs/model-ladder.md, "Recheck"). The ``*-recheck`` model sets name one.

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
    ``precision`` (default ``$EDGEOCR_PRECISION``, else ``"fp32"``): with
    ``"auto"`` a model set chosen by name runs as int8 models made from it
    once, on first use, and cached, where the CPU has VNNI / dot-product
    instructions and the int8 models pass their accuracy gate (else fp32);
    ``"int8"`` insists (edgeocr/pack/int8_default.py; ``.precision`` says which
    runs, ``.int8_bundle`` where the int8 models are).

    ``defer_recheck`` (default True): a known model set's recheck file is
    loaded when a call first has a line to recheck (most pages have none, and
    its session is the set's largest); a load that fails then (the file
    removed or changed) is that call's error, and the next call tries again.
    False loads it with the other models. ``disk_cache=False``: this
    Predictor reads and writes no on-disk cache (file digests, ONNX Runtime's
    optimised graphs, ``.nb`` translations, int8 models), as
    ``EDGEOCR_CACHE_DIR=off`` does for the whole process (docs/usage.md,
    "What the loader keeps between processes").
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
        recheck=None,
        layout=None,
        table=None,
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
        precision: str | None = None,
        defer_recheck: bool = True,
        disk_cache: bool = True,
        document_rules: dict | None = None,
        **overrides,
    ):
        # Up to 2 * workers decoded images are held: no more than a session may have threads.
        self.workers = check_workers(workers, _core.MAX_SESSION_THREADS)
        precision = requested_precision(precision)
        if max_image_pixels is not None:
            max_image_pixels_in_force(max_image_pixels)  # checked now, not at the first image
        self.max_image_pixels = max_image_pixels
        if threads is None and self.workers > 1:
            # Throughput mode: the cores are shared out between the images in flight.
            threads = max(1, _runtime.cpu_count() // self.workers)
        if preprocess is not None and not callable(preprocess):
            raise InvalidInputError(
                "preprocess must be a callable taking and returning an image array"
            )
        self.preprocess = preprocess
        max_memory_mb = check_max_memory_mb(max_memory_mb)
        # Settings: the model set's (found by the loader from the models' sha256) or the
        # bundle's, then config= (every field), then the keyword overrides, checked in C++.
        settings = _settings(config, use_cls, overrides)
        sources, given = model_sources(
            model, models, det, cls, rec, keys, task, recheck, layout, table
        )
        # Document parsing's models stay loose beside any OCR models (int8 bundles included).
        document = {r: sources.pop(r) for r in ("layout", "table") if r in sources}
        given_document = {r: given.pop(r) for r in ("layout", "table") if r in given}
        _runtime.configure(ort_library)
        # A model set chosen by name runs as int8 where that pays (edgeocr/pack/int8_default.py).
        named_set = model is None or (
            isinstance(model, str) and (model in MODEL_SETS or model in RUNGS)
        )
        files = any(v is not None for v in (det, cls, rec))
        sources, self.int8_bundle = _int8_sources(
            sources, given, named_set, files, keys, precision, threads, disk_cache
        )
        self.precision = "int8" if self.int8_bundle else "fp32"
        sources.update(document)
        # Defaults measured on dev pages (docs/performance.md, "Session memory"): one ORT arena
        # shared by det/cls/rec, memory pattern off: faster than per-session arenas or no arena,
        # and the lowest peak RSS; the pattern was faster on some pages but holds its planned
        # block on top of the arena in steady state (843 vs 508 MiB peak on two small pages).
        opts = session_options(
            threads,
            memory_arena=memory_arena,
            memory_pattern=memory_pattern,
            spinning=spinning,
            arm64_bf16_fastmath=arm64_bf16_fastmath,
        )
        # A bundle's own budget (runtime.max_memory_mb) applies unless max_memory_mb is given.
        self.engine = Engine(
            sources,
            settings=settings,
            options=opts,
            max_memory_mb=max_memory_mb,
            bundle_budget=not self.int8_bundle,
            defer_recheck=defer_recheck,
            disk_cache=disk_cache,
        )
        manifest = self.engine.manifest
        if max_memory_mb is None and self.engine.budget_bytes:
            max_memory_mb = manifest["runtime"]["max_memory_mb"]
        if manifest and not self.int8_bundle:
            note = int8_speed_warning(manifest.get("quantization") or {})
            if note:
                warnings.warn(f"{sources['model']}: {note}", RuntimeWarning, stacklevel=2)
        self.max_memory_mb = max_memory_mb
        if self.int8_bundle:  # the float files it was made from, as for precision="fp32"
            self.paths, self.model_set = given, model_set_name(given)
        else:
            self.paths, self.model_set = self._paths_of(given), self.engine.model_set
        for r, p in given_document.items():
            self.paths[r] = p if p is not None else self.engine.names.get(r)
        self.config = self.engine.config
        # Document rules by name (csrc/document/rules.cpp), checked now, set on the parser
        # before its first page.
        self._document_rules = _core.check_document_rules(dict(document_rules or {}))
        if self.engine.document is not None and self._document_rules:
            self.engine.document.set_rules(self._document_rules)
        self._document_parser = None
        self._document_lock = threading.Lock()

    def _paths_of(self, given: dict) -> dict:
        """Per role, the file given (a .nb file's name, not its translation's), else the
        loader's name for it (a bundle's "<bundle>:role")."""
        return {
            r: None
            if n is None
            else (n if self.engine.from_bundle else given.get(r) or given.get("model") or n)
            for r, n in self.engine.names.items()
        }

    # -- what was loaded --------------------------------------------------
    @property
    def charset(self) -> list:
        """The rec model's classes, blank first ([] without a rec model)."""
        return self.engine.charset

    @property
    def roles(self) -> frozenset:
        """The roles loaded: a subset of {'det', 'cls', 'rec', 'recheck'}."""
        return self.engine.roles

    def plan(self, width: int, height: int, decoded_bytes: int = 0) -> dict:
        """The call plan under the memory budget for an image of this size (what each stage
        holds; docs/memory-budget.md)."""
        return self.engine.plan(width, height, decoded_bytes)

    # -- inference ------------------------------------------------------
    def _prepare(self, image) -> np.ndarray:
        img = load_image(image, self.max_image_pixels)
        if self.preprocess is not None:
            img = load_image(self.preprocess(img), self.max_image_pixels)
        return img

    def predict(self, image) -> OcrResult:
        """OCR one image: a path, encoded bytes, a uint8 BGR/gray/BGRA numpy array or PIL image."""
        if self.preprocess is None and not self.engine.budget_bytes:
            # A PNG or JPEG file or bytes: decoded in the core and read without numpy
            # (engine.run_encoded); load_image uses the same decoder, so the result is the same.
            if isinstance(image, (str, os.PathLike)):
                limit = max_image_pixels_in_force(self.max_image_pixels)
                path = os.fspath(image)
                data = read_image_file(path, limit)
                r = self.engine.run_encoded(data, limit, path)
                if r is None:
                    r = self.engine.run(load_image_bytes(data, path, limit), source=path)
                return r
            if isinstance(image, (bytes, bytearray)):
                r = self.engine.run_encoded(image, max_image_pixels_in_force(self.max_image_pixels))
                if r is not None:
                    return r
        return self.engine.predict(image, self._prepare, size_from_header=self.preprocess is None)

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
        cancels what is queued (:meth:`edgeocr.engine.Engine.predict_iter`).
        """
        return self.engine.predict_iter(
            images,
            workers=self.workers if workers is None else workers,
            prepare=self._prepare,
            size_from_header=self.preprocess is None,
        )

    def predict_pages(
        self, source, pages=None, *, dpi=None, password=None, skip_text=False, redo_ocr=False
    ) -> Iterator[PageResult]:
        """OCR a document page by page: a PDF, a multi-page TIFF (every frame of a multi-frame
        image), or one image as one page. Yields a `PageResult` per page, streaming: one page is
        rendered at a time (the next while this one is read). ``pages``: 0-based indices, or a
        string of 1-based pages such as "1-3,7"; ``dpi``: PDF rendering resolution (default
        200); ``password``: for an encrypted PDF. Errors of the whole document (corrupt, wrong
        password, no pages) are raised at once; a page that fails comes out with its ``error``.
        A PDF page that already has text is read anyway (``text_action`` "ocr-over-text"), or
        with ``skip_text`` kept as it is (not read), or with ``redo_ocr`` read again where only
        edgeocr's own earlier layer is (a searchable PDF then replaces that layer; real text is
        kept), as OCRmyPDF's --skip-text / --redo-ocr. See docs/documents.md."""
        from .documents.pages import predict_pages

        return predict_pages(
            self,
            source,
            pages,
            dpi=dpi,
            password=password,
            skip_text=skip_text,
            redo_ocr=redo_ocr,
        )

    # -- documents ------------------------------------------------------
    def _document(self):
        """The document parser: the one the models given name (layout=, the ``document`` set, a
        bundle with a layout model), else one over the installed wheels' layout and table
        models, made on the first parse (a Predictor that only predicts never loads them)."""
        parser = self.engine.document
        if parser is not None:
            return parser
        with self._document_lock:
            if self._document_parser is None:
                paths = document_model_paths()
                if "layout" not in paths:
                    from .errors import ModelNotFoundError

                    raise ModelNotFoundError(missing_layout_message())
                parser = self.engine.load_document(paths["layout"], paths.get("table"))
                if self._document_rules:
                    parser.set_rules(self._document_rules)
                self._document_parser = parser
                self.paths.update(paths)
        return self._document_parser

    def parse(self, image) -> DocumentResult:
        """Parse one page: layout regions (title, text, table, figure, captions, header, footer,
        ...), the OCR lines in them, tables as cells, all in reading order
        (docs/document-parsing.md). ``image`` as for :meth:`predict`. The layout and table
        models load on the first call (a Predictor that only predicts never loads them).
        Returns a `DocumentResult` (``to_markdown()``, ``to_dict()``, ``to_json()``)."""
        parser = self._document()
        source = os.fspath(image) if isinstance(image, (str, os.PathLike)) else None
        if self.preprocess is None and not self.engine.budget_bytes:
            # A PNG file or bytes: decoded in the core, as predict() does.
            data = None
            limit = max_image_pixels_in_force(self.max_image_pixels)
            if source is not None:
                data = read_image_file(source, limit)
            elif isinstance(image, (bytes, bytearray)):
                data = image
            if data is not None:
                doc = self.engine.parse_encoded(parser, data, limit, source)
                if doc is not None:
                    return DocumentResult._from_core(doc, source)
                image = load_image_bytes(data, source or "<bytes>", limit)
        return self.parse_decoded(self._prepare(image), source)

    def parse_decoded(self, image, source=None, text=None, **page) -> DocumentResult:
        """:meth:`parse` on a decoded image (a uint8 array as :meth:`predict` takes), the page's
        fields (``page``, ``dpi``, ``width_pt``, ...) given; what `parse_pages` runs per page.
        ``text``: the page's own text (`edgeocr.documents.text_layer.PageText`, a PDF's text
        layer) read in place of OCR, which then reads only its pictures."""
        doc = self.engine.parse(self._document(), image, text)
        return DocumentResult._from_core(doc, source, **page)

    def parse_pages(
        self,
        source,
        pages=None,
        *,
        dpi=None,
        password=None,
        skip_text=False,
        redo_ocr=False,
        force_ocr=False,
        document_pass=True,
    ):
        """:meth:`parse` on a document page by page (PDF, multi-page TIFF, or one image), as
        :meth:`predict_pages` reads them (``skip_text``: a PDF page with a text layer is kept, not
        parsed; ``redo_ocr`` is read as predict_pages reads it): yields a `DocumentResult` per
        page, streaming; a page that fails comes out with its ``error``. A born-digital page's
        text comes from its text layer where the layer is real and says what the page shows
        (``text_action`` "text-layer"; OCR reads only its pictures), unless ``force_ocr``
        (docs/document-parsing.md, "Born-digital PDFs"). The whole-document pass (running
        headers and footers, page numbers, tables and paragraphs continued across pages, one
        heading scale; docs/document-parsing.md, "The whole document") runs over each page with
        the two pages before and after it, so a page comes out two pages late; ``document_pass``
        False gives each page as :meth:`parse` does."""
        parser = self._document()  # no layout model: said now, not per page
        from .documents.pages import predict_pages

        results = predict_pages(
            self,
            source,
            pages,
            dpi=dpi,
            password=password,
            skip_text=skip_text,
            redo_ocr=redo_ocr,
            parse=True,
            force_ocr=force_ocr,
        )
        if not document_pass:
            return results
        from .documents.document_pass import finished_pages

        return finished_pages(results, parser)

    def recognize(self, image) -> OcrLine:
        """Recognition only: ``image`` is one text line."""
        if "rec" not in self.engine.roles:
            raise InvalidInputError("this Predictor has no rec model")
        return self.engine.recognize(self._prepare(image))

    def memory_stats(self) -> dict:
        """The shared memory pool's statistics (bytes reserved, high-water mark, hits, misses);
        with ``max_memory_mb``, also ``budget``: total, in use, peak in use and waits."""
        stats = self.engine.pool_stats()
        if self.max_memory_mb:
            stats["budget"] = self.engine.memory_budget
        return stats

    def __repr__(self) -> str:
        parts = ", ".join(f"{r}={os.path.basename(p)!r}" for r, p in self.paths.items() if p)
        return f"edgeocr.Predictor({parts})"
