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


class DocumentError(InvalidInputError):
    """A PDF or multi-page image that cannot be read: truncated, corrupt, no pages."""


class PasswordError(DocumentError, PermissionError):
    """An encrypted PDF without the password that opens it (``password=`` / ``--password``)."""


class OutputError(EdgeOCRError, OSError):
    """An output file that cannot be written (a missing or read-only folder, a full disk); the
    target is left as it was and no partial file stays behind."""


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

# The exception class of each status of the core's status table (csrc/include/edgeocr/status.h,
# bound as edgeocr._core.StatusCode; tests/python/test_layout.py checks that every status has one).
_BY_STATUS_NAME = {
    "INVALID_ARGUMENT": InvalidInputError,
    "NOT_FOUND": ModelNotFoundError,
    "UNSUPPORTED": UnsupportedError,
    "BACKEND_ERROR": BackendError,
    "OUT_OF_MEMORY": ResourceError,
    "INTERNAL": EdgeOCRError,
    "INVALID_MODEL": ModelError,
    "RUNTIME_UNAVAILABLE": RuntimeLibraryError,
}


def from_status(code: int, message: str, bundle_kind: str | None = None) -> EdgeOCRError:
    """The exception for a core status code (used by the C++ binding).

    ``bundle_kind`` is set for errors of the bundle reader (format, manifest,
    version, checksum) and selects the :class:`BundleError` subclass.
    """
    if bundle_kind is not None:
        return _BUNDLE_KINDS.get(bundle_kind, BundleError)(message)
    from ._core import StatusCode

    try:
        name = StatusCode(code).name  # "???" for a value outside the table
    except (TypeError, ValueError):
        name = ""
    if name == "INTERNAL":
        message = f"internal error (please report): {message}"
    return _BY_STATUS_NAME.get(name, EdgeOCRError)(message)
