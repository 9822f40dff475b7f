"""The one error of the reference ``.nb`` reader and translator."""

from __future__ import annotations

try:  # part of edgeocr: a ModelError like every other bad model
    from ..errors import ModelError as _ModelError
except ImportError:  # loaded standalone (tests of the reader without the compiled core)
    _ModelError = ValueError


class NbFormatError(_ModelError):
    """A ``.nb`` file that edgeocr cannot read or translate.

    The message names the file, the op type and its kernel key where one is
    involved, and what the user can do about it.
    """
