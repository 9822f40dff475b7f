"""pack's own errors: a refusal by the accuracy gate, a Paddle conversion that reads differently."""

from __future__ import annotations

from ..errors import EdgeOCRError, ModelError


class AccuracyGateError(EdgeOCRError, ValueError):
    """The packed models lose more accuracy than allowed (``max_drop``); no bundle was written.

    ``report`` holds the verification report that failed the gate.
    """

    def __init__(self, message: str, report: dict):
        super().__init__(message)
        self.report = report


class ConversionMismatchError(ModelError):
    """A converted Paddle model reads differently from Paddle Inference; no bundle was written.

    ``report`` holds the comparison (max abs diff per output, the first diverging layer).
    """

    def __init__(self, message: str, report: dict):
        super().__init__(message)
        self.report = report
