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
from ._lazy import exports
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

# The rest of the API is imported on first use (PEP 562): `import edgeocr` costs the core and
# the errors only, so `edgeocr predict` can start loading its models while numpy and OpenCV
# are still being imported (edgeocr/cli.py).
_LAZY = {
    "runtime_info": "._runtime",
    "selftest": "._runtime",
    "PipelineConfig": ".config",
    "Model": ".model",
    "TensorSpec": ".model",
    "list_models": ".models",
    "Predictor": ".predictor",
    "OcrLine": ".results",
    "OcrResult": ".results",
    "OcrWord": ".results",
    "PageResult": ".results",
}


# The modules `import edgeocr` imported before it exported lazily: still attributes of the package.
_SUBMODULES = (
    "_runtime",
    "config",
    "engine",
    "image_io",
    "model",
    "models",
    "predictor",
    "results",
    "sources",
)
__getattr__ = exports(__name__, _LAZY, globals(), _SUBMODULES)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
