"""The one error of the reference ``.nb`` reader."""

from __future__ import annotations

try:  # with edgeocr importable: a ModelError like every other bad model
    from edgeocr.errors import ModelError as _ModelError
except ImportError:  # loaded without the compiled core
    _ModelError = ValueError


class NbFormatError(_ModelError):
    """A ``.nb`` file the reader cannot read; the message names the file and what is wrong."""
