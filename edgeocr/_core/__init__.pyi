"""
edgeocr C++ core (private; use the edgeocr package)

Type stubs of the compiled module, made by pybind11-stubgen 3.0.0 and checked against the module
by tests/python/test_core_stub.py. After changing a binding (csrc/python/):
    pip install pybind11-stubgen==3.0.0
    pybind11-stubgen edgeocr._core -o /tmp/stubs && cp /tmp/stubs/edgeocr/_core/*.pyi edgeocr/_core/
    ruff format edgeocr/_core && ruff check --fix edgeocr/_core
"""

from __future__ import annotations

import collections.abc
import typing

import numpy
import numpy.typing
import typing_extensions

from . import kernels, loader

__all__: list[str] = [
    "BudgetedCall",
    "Document",
    "DocumentParser",
    "LoadedPipeline",
    "MAX_SESSION_THREADS",
    "MemoryPool",
    "Model",
    "NB_TRANSLATOR_VERSION",
    "Pipeline",
    "SessionOptions",
    "StatusCode",
    "check_setting",
    "codec_versions",
    "cpu_features",
    "decode_image",
    "default_config",
    "default_max_decode_bytes",
    "kernels",
    "load_document_parser",
    "load_pipeline",
    "loader",
    "malloc_arena_cap",
    "nb_cached_to_onnx",
    "nb_default_cache_dir",
    "nb_looks_like",
    "nb_supported_ops",
    "nb_to_onnx",
    "ort_selftest",
    "parse_setting",
    "plan_call",
    "region_type_of_label",
    "runtime_info",
    "set_ort_library_path",
    "settings",
    "validate_config",
]

class StatusCode:
    """
    status codes of the core (edgeocr/status.h)

    Members:

      OK

      INVALID_ARGUMENT

      NOT_FOUND

      UNSUPPORTED

      BACKEND_ERROR

      OUT_OF_MEMORY

      INTERNAL

      INVALID_MODEL

      RUNTIME_UNAVAILABLE
    """

    BACKEND_ERROR: typing.ClassVar[StatusCode]
    INTERNAL: typing.ClassVar[StatusCode]
    INVALID_ARGUMENT: typing.ClassVar[StatusCode]
    INVALID_MODEL: typing.ClassVar[StatusCode]
    NOT_FOUND: typing.ClassVar[StatusCode]
    OK: typing.ClassVar[StatusCode]
    OUT_OF_MEMORY: typing.ClassVar[StatusCode]
    RUNTIME_UNAVAILABLE: typing.ClassVar[StatusCode]
    UNSUPPORTED: typing.ClassVar[StatusCode]
    __members__: typing.ClassVar[dict[str, StatusCode]]
    @typing.overload
    def __eq__(self, other: StatusCode) -> bool: ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool: ...
    def __getstate__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __int__(self) -> int: ...
    @typing.overload
    def __ne__(self, other: StatusCode) -> bool: ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool: ...
    def __repr__(self) -> str: ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __str__(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class SessionOptions:
    allow_spinning: bool
    arm64_bf16_fastmath: bool
    memory_arena: bool
    memory_pattern: bool
    optimized_model_path: str
    parallel: bool
    shared_arena: bool
    shrink_arena: bool
    def __init__(self) -> None: ...
    @property
    def inter_threads(self) -> int: ...
    @inter_threads.setter
    def inter_threads(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def intra_threads(self) -> int: ...
    @intra_threads.setter
    def intra_threads(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def optimization(self) -> int: ...
    @optimization.setter
    def optimization(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None: ...

class MemoryPool:
    def __init__(self, cap_bytes: typing.SupportsInt | typing.SupportsIndex = 0) -> None: ...
    def reset_counters(self) -> None: ...
    def set_cap(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def stats(self) -> dict: ...
    def trim(self) -> None: ...

class Model:
    @staticmethod
    def from_bytes(
        data: typing_extensions.Buffer,
        options: SessionOptions,
        pool: MemoryPool = None,
        name: str = "<bytes>",
    ) -> Model: ...
    @staticmethod
    def from_file(path: str, options: SessionOptions, pool: MemoryPool = None) -> Model: ...
    def run(self, arg0: collections.abc.Sequence[numpy.ndarray]) -> list: ...
    @property
    def inputs(self) -> list: ...
    @property
    def metadata(self) -> dict[str, str]: ...
    @property
    def name(self) -> str: ...
    @property
    def outputs(self) -> list: ...
    @property
    def pool(self) -> MemoryPool: ...

class BudgetedCall:
    def __enter__(self) -> typing.Any: ...
    def __exit__(self, *args) -> bool: ...
    def release(self) -> None: ...
    @property
    def plan(self) -> dict: ...
    @property
    def reserved_bytes(self) -> int: ...

class Pipeline:
    def __init__(
        self,
        det: Model,
        cls: Model,
        rec: Model,
        charset: collections.abc.Sequence[str],
        config: dict,
        pool: MemoryPool,
    ) -> None: ...
    def admit(
        self,
        width: typing.SupportsInt | typing.SupportsIndex,
        height: typing.SupportsInt | typing.SupportsIndex,
        image_bytes: typing.SupportsInt | typing.SupportsIndex = 0,
    ) -> BudgetedCall: ...
    def plan(
        self,
        width: typing.SupportsInt | typing.SupportsIndex,
        height: typing.SupportsInt | typing.SupportsIndex,
        image_bytes: typing.SupportsInt | typing.SupportsIndex = 0,
    ) -> dict: ...
    def recognize(self, image: numpy.ndarray, call: BudgetedCall = None) -> tuple: ...
    def run(self, image: numpy.ndarray, call: BudgetedCall = None) -> dict: ...
    def run_encoded(
        self,
        data: typing.Any,
        what: str,
        max_pixels: typing.SupportsInt | typing.SupportsIndex,
        call: BudgetedCall = None,
    ) -> typing.Any: ...
    def set_memory_budget(
        self, total_bytes: typing.SupportsInt | typing.SupportsIndex, profile: dict = {}
    ) -> None: ...
    @property
    def config(self) -> dict: ...
    @property
    def memory_budget(self) -> typing.Any: ...
    @property
    def pool(self) -> MemoryPool: ...
    @property
    def recheck_loaded(self) -> bool: ...

class Document:
    def markdown(self, figure_prefix: str = "figure-", furniture: bool = False) -> str:
        """
        The page as Markdown (the core's one writer).
        """
    def markdown_blocks(self, figure_prefix: str = "figure-", furniture: bool = False) -> list:
        """
        The Markdown's blocks as (region index, text): markdown() is them joined.
        """
    def table_html(self, region: typing.SupportsInt | typing.SupportsIndex) -> str: ...
    @property
    def continues_previous(self) -> bool: ...
    @property
    def height(self) -> int: ...
    @property
    def lines(self) -> list: ...
    @property
    def note(self) -> str: ...
    @property
    def regions(self) -> list: ...
    @property
    def styles(self) -> list: ...
    @property
    def timings(self) -> dict: ...
    @property
    def turns(self) -> int: ...
    @property
    def width(self) -> int: ...

class DocumentParser:
    def run(self, image: numpy.ndarray) -> Document: ...
    def run_text(
        self,
        image: numpy.ndarray,
        lines: collections.abc.Sequence,
        styles: collections.abc.Sequence,
        rules: collections.abc.Sequence,
        images: collections.abc.Sequence,
        ocr_images: bool = True,
    ) -> Document: ...
    def run_encoded(
        self, data: typing.Any, what: str, max_pixels: typing.SupportsInt | typing.SupportsIndex
    ) -> typing.Any: ...
    @property
    def has_table_model(self) -> bool: ...
    @property
    def layout_labels(self) -> list[str]: ...
    @property
    def models_loaded(self) -> bool: ...
    @property
    def rules(self) -> dict: ...
    def set_rules(self, rules: dict) -> None: ...

class LoadedPipeline:
    @property
    def budget_bytes(self) -> int: ...
    @property
    def charset(self) -> list[str]: ...
    @property
    def document(self) -> DocumentParser: ...
    @property
    def from_bundle(self) -> bool: ...
    @property
    def manifest_json(self) -> str: ...
    @property
    def memory_profile(self) -> dict: ...
    @property
    def model_set(self) -> str: ...
    @property
    def names(self) -> dict: ...
    @property
    def pipeline(self) -> Pipeline: ...
    @property
    def pool(self) -> MemoryPool: ...
    @property
    def recheck_charset(self) -> list[str]: ...
    @property
    def roles(self) -> list: ...

def check_setting(name: str, value: typing.Any) -> typing.Any: ...
def codec_versions() -> str: ...
def cpu_features() -> dict: ...
def decode_image(
    data: typing.Any,
    what: str,
    max_pixels: typing.SupportsInt | typing.SupportsIndex,
    max_bytes: typing.SupportsInt | typing.SupportsIndex | None = None,
) -> numpy.typing.NDArray[numpy.uint8]: ...
def default_config() -> dict: ...
def document_markdown(
    pages: collections.abc.Sequence,
    figure_prefix: str = "figure-",
    furniture: bool = False,
    page_numbers: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] = [],
) -> str:
    """
    The pages as one Markdown text (the core's writer): continued paragraphs and tables written as one, <!-- page N --> between pages (N from page_numbers, 1-based).
    """

def check_document_rules(rules: dict) -> dict: ...
def finish_document(
    pages: collections.abc.Sequence,
    parser: DocumentParser = None,
    first: typing.SupportsInt | typing.SupportsIndex = 0,
) -> list:
    """
    The whole-document pass (running headers and footers, page numbers, continued tables and paragraphs, one heading scale) over a document's pages in order: new Documents (None stays None: a failed page). `parser`: whose rules (default rules without); pages before `first` are context, given back as they were.
    """

def default_max_decode_bytes(max_pixels: typing.SupportsInt | typing.SupportsIndex) -> int: ...
def load_document_parser(
    pipeline: Pipeline,
    layout: typing.Any,
    table: typing.Any = None,
    options: SessionOptions = ...,
    pool: MemoryPool = None,
    disk_cache: bool = True,
) -> DocumentParser:
    """
    A document parser over `pipeline` with this layout (and table) model; paths load on its first run.
    """

def load_pipeline(
    bundle: typing.Any = None,
    model: typing.Any = None,
    det: typing.Any = None,
    cls: typing.Any = None,
    rec: typing.Any = None,
    keys: typing.Any = None,
    options: SessionOptions = ...,
    pool: MemoryPool = None,
    max_memory_bytes: typing.SupportsInt | typing.SupportsIndex = 0,
    settings_json: str = "",
    verify_checksums: bool = True,
    keep_optimization: bool = False,
    name: str = "<bundle bytes>",
    bundle_budget: bool = False,
    recheck: typing.Any = None,
    recheck_keys: typing.Any = None,
    defer_recheck: bool = True,
    disk_cache: bool = True,
    layout: typing.Any = None,
    table: typing.Any = None,
) -> LoadedPipeline:
    """
    Build a pipeline from a bundle, one model of any kind, or det/cls/rec models (paths or buffers), with an optional recheck recogniser (a known set's file loaded when first needed unless defer_recheck is False) and document models (layout, table). disk_cache=False: no on-disk cache is read or written by this load.
    """

def malloc_arena_cap() -> int:
    """
    glibc malloc arena cap applied by edgeocr (-1: malloc left alone); see runtime/malloc_tuning.h
    """

def nb_cached_to_onnx(
    data: typing_extensions.Buffer, name: str = "<bytes>", cache_dir: str = ""
) -> bytes:
    """
    nb_to_onnx through the on-disk cache (content hash + translator version).
    """

def nb_default_cache_dir() -> str: ...
def nb_looks_like(data: typing_extensions.Buffer) -> bool: ...
def nb_supported_ops() -> str: ...
def nb_to_onnx(
    data: typing_extensions.Buffer, name: str = "<bytes>", target_check: bool = True
) -> bytes:
    """
    Translate the bytes of a Paddle Lite .nb file into serialized ONNX bytes.
    """

def ort_selftest() -> dict: ...
def parse_setting(name: str, text: str) -> typing.Any: ...
def plan_call(
    config: dict,
    profile: dict,
    max_memory_mb: typing.SupportsFloat | typing.SupportsIndex,
    width: typing.SupportsInt | typing.SupportsIndex,
    height: typing.SupportsInt | typing.SupportsIndex,
    has_det: bool = True,
    has_cls: bool = True,
    has_rec: bool = True,
    image_bytes: typing.SupportsInt | typing.SupportsIndex = 0,
) -> dict: ...
def region_type_of_label(label: str) -> typing.Any:
    """
    The region type a layout model's label names, None for an unknown one.
    """

def runtime_info() -> dict: ...
def set_ort_library_path(path: str) -> None: ...
def settings() -> list: ...
def validate_config(
    config: dict, max_memory_mb: typing.SupportsFloat | typing.SupportsIndex = 0.0
) -> None: ...

MAX_SESSION_THREADS: int = 1024
NB_TRANSLATOR_VERSION: str = "c3"
__version__: str = "0.1.0"
