"""edgeocr: OCR models deployed as static graphs, fast and in bounded memory.

>>> import edgeocr
>>> result = edgeocr.Predictor().predict("page.jpg")
>>> for line in result.lines:
...     print(line.text, line.score, line.box)
"""

from __future__ import annotations

try:
    from ._core import __version__
except ImportError as _e:  # one line that says what to do, not a traceback into _core
    from ._not_built import core_import_error

    raise core_import_error(_e) from None
from ._runtime import runtime_info, selftest
from .config import PipelineConfig
from .errors import (
    BackendError,
    DocumentError,
    EdgeOCRError,
    InvalidInputError,
    ModelError,
    ModelNotFoundError,
    OutputError,
    PasswordError,
    ResourceError,
    RuntimeLibraryError,
    UnsupportedError,
)
from .model import Model, TensorSpec
from .models import list_models
from .predictor import Predictor
from .results import OcrLine, OcrResult, OcrWord, PageResult

__all__ = [
    "BackendError",
    "DocumentError",
    "EdgeOCRError",
    "InvalidInputError",
    "Model",
    "OcrLine",
    "OcrResult",
    "OcrWord",
    "PageResult",
    "PipelineConfig",
    "Predictor",
    "list_models",
    "ModelError",
    "ModelNotFoundError",
    "OutputError",
    "PasswordError",
    "ResourceError",
    "RuntimeLibraryError",
    "TensorSpec",
    "UnsupportedError",
    "__version__",
    "runtime_info",
    "selftest",
]
