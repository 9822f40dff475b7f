"""Exceptions raised by edgeocr.

Every error derives from :class:`EdgeOCRError` and also from the builtin
exception a Python user would naturally catch (``ValueError`` for bad input,
``FileNotFoundError`` for a missing model, ``RuntimeError`` for a failing
runtime, ``MemoryError`` for an exceeded memory cap).
"""

from __future__ import annotations


class EdgeOCRError(Exception):
    """Base class of every edgeocr error."""


class InvalidInputError(EdgeOCRError, ValueError):
    """An image, array or argument that edgeocr cannot use."""


class ModelError(EdgeOCRError, ValueError):
    """A model file or buffer that cannot be loaded or used."""


class ModelNotFoundError(ModelError, FileNotFoundError):
    """A model file (or default model package) that is not there."""


class UnsupportedError(EdgeOCRError, NotImplementedError):
    """Understood, but not supported (format version, operator, dtype)."""


class BackendError(EdgeOCRError, RuntimeError):
    """The inference runtime failed."""


class RuntimeLibraryError(BackendError):
    """The ONNX Runtime library is missing, unloadable or too old."""


class ResourceError(EdgeOCRError, MemoryError):
    """A configured memory cap would be exceeded."""


# Status codes of the C++ core (csrc/include/edgeocr/status.h).
_BY_STATUS = {
    1: InvalidInputError,
    2: ModelNotFoundError,
    3: UnsupportedError,
    4: BackendError,
    5: ResourceError,
    6: EdgeOCRError,
    7: ModelError,
    8: RuntimeLibraryError,
}


def from_status(code: int, message: str) -> EdgeOCRError:
    """The exception for a core status code (used by the C++ binding)."""
    cls = _BY_STATUS.get(code, EdgeOCRError)
    if code == 6:
        message = f"internal error (please report): {message}"
    return cls(message)
