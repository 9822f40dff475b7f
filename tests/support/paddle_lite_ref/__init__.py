"""A second reading of the Paddle Lite ``.nb`` format, for the tests only (frozen).

edgeocr translates ``.nb`` files in C++ (csrc/loader/nb: the one translator, used by
``edgeocr.Model``, ``Predictor``, ``edgeocr convert``, ``edgeocr-pack`` and the C API).
This reader was the Python package's ``edgeocr.paddle_lite`` reader; it stays here,
frozen, where a test needs to look at a parsed program (which ops a fixture holds,
in-memory programs written to ``.nb`` bytes by tools/paddle_lite/nb_writer.py, hostile
files made from real ones). The oracle for the translation is real Paddle Lite's output
(../shared/fixtures/paddle_lite, tests/data/paddle_lite_ops), not this code. The Python
translator that used to sit beside it was removed: a new op is written once, in C++.
"""

from __future__ import annotations

from .errors import NbFormatError
from .reader import NbOp, NbProgram, NbVar, read_nb

__all__ = ["NbFormatError", "NbOp", "NbProgram", "NbVar", "read_nb"]
