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


class BundleError(ModelError):
    """A `.eocr` file that cannot be used; the message says which member and why."""


class BundleFormatError(BundleError):
    """Not a readable bundle: not a zip, truncated, a member missing, compressed or oversized."""


class BundleManifestError(BundleError):
    """manifest.json is missing, not JSON, or lacks, mistypes or puts out of range a field."""


class BundleVersionError(BundleError, UnsupportedError):
    """The bundle's format version (or a feature it requires) is not one this edgeocr reads."""


class BundleChecksumError(BundleError):
    """A member's bytes do not match the size or sha256 recorded in the manifest."""


_BUNDLE_KINDS = {
    "format": BundleFormatError,
    "manifest": BundleManifestError,
    "version": BundleVersionError,
    "checksum": BundleChecksumError,
}

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


def from_status(code: int, message: str, bundle_kind: str | None = None) -> EdgeOCRError:
    """The exception for a core status code (used by the C++ binding).

    ``bundle_kind`` is set for errors of the bundle reader (format, manifest,
    version, checksum) and selects the :class:`BundleError` subclass.
    """
    if bundle_kind is not None:
        return _BUNDLE_KINDS.get(bundle_kind, BundleError)(message)
    cls = _BY_STATUS.get(code, EdgeOCRError)
    if code == 6:
        message = f"internal error (please report): {message}"
    return cls(message)
