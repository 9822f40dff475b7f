"""numpy, imported on first use, for the modules a Predictor is made from.

``from ._numpy import np`` gives an object whose attributes are numpy's, numpy being imported
the first time one is read. Making a Predictor needs no array, so ``edgeocr predict`` can start
loading its models (in C++, without the GIL) while numpy (~0.1 s) and OpenCV are still being
imported (edgeocr/cli.py). Modules that need numpy at import time import it directly.
"""

from __future__ import annotations


class _Numpy:
    __slots__ = ()

    def __getattr__(self, name: str):
        import numpy

        return getattr(numpy, name)

    def __repr__(self) -> str:
        return "<numpy, imported on first use>"


np = _Numpy()
