"""Paddle Lite naive-buffer (``.nb``) models: the Python reference reader and translator.

edgeocr itself translates ``.nb`` files in C++ (csrc/loader/nb; ``edgeocr.Model``,
``Predictor``, ``edgeocr convert`` and ``edgeocr-pack`` use ``edgeocr._core.nb_to_onnx``
and need no ``onnx`` package). This package is the independent reference the tests
run the same checks against; it needs ``onnx``, and nothing a user calls goes
through it.

A ``.nb`` file is what Paddle Lite's ``opt`` writes: a small header, the
optimised program as a FlatBuffers ``ProgramDesc`` and the weights. edgeocr
does not link Paddle Lite; it reads the file itself (:func:`read_nb`) and
translates the program into an ONNX graph (:func:`nb_to_onnx`) that ONNX
Runtime executes with Paddle Lite's answers. :func:`cached_nb_to_onnx` keeps
the translation on disk, keyed by the file's content hash.

Every failure (unreadable file, unsupported op, a kernel target edgeocr cannot
honour) is an :class:`NbFormatError` whose message names the file, the op and
its kernel key, and what to do.
"""

from __future__ import annotations

from .cache import cached_nb_to_onnx, default_cache_dir
from .errors import NbFormatError
from .reader import NbOp, NbProgram, NbVar, read_nb
from .translate import nb_to_onnx

__all__ = [
    "NbFormatError",
    "NbOp",
    "NbProgram",
    "NbVar",
    "cached_nb_to_onnx",
    "default_cache_dir",
    "nb_to_onnx",
    "read_nb",
]
