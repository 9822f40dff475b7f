"""Result types returned by `Predictor`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np


@dataclass
class OcrLine:
    """One recognised text line.

    ``box`` is a (4, 2) float32 array in source-image pixels, clockwise from
    the top-left corner. ``score`` is the recognition confidence, ``det_score``
    the detector's. ``flipped``: the direction classifier read it upside down.
    """

    text: str
    score: float
    box: np.ndarray
    det_score: float = 0.0
    flipped: bool = False

    def to_dict(self) -> dict:
        """The line as JSON-ready values (text, score, box, ...)."""
        return {
            "text": self.text,
            "score": round(float(self.score), 5),
            "box": [[round(float(x), 2), round(float(y), 2)] for x, y in self.box],
            "det_score": round(float(self.det_score), 5),
            "flipped": bool(self.flipped),
        }

    def __repr__(self) -> str:
        x0, y0 = self.box.min(axis=0)
        x1, y1 = self.box.max(axis=0)
        box = f"[{x0:.0f},{y0:.0f} - {x1:.0f},{y1:.0f}]"
        return f"OcrLine({self.text!r}, score={self.score:.3f}, box={box})"


@dataclass
class OcrResult:
    """Lines in reading order, plus seconds spent per stage."""

    lines: list[OcrLine]
    timings: dict = field(default_factory=dict)
    image_size: tuple = (0, 0)  # (width, height)
    source: str | None = None

    @property
    def text(self) -> str:
        """All lines joined with newlines, in reading order."""
        return "\n".join(line.text for line in self.lines)

    @property
    def boxes(self) -> np.ndarray:
        """(N, 4, 2) float32."""
        if not self.lines:
            return np.zeros((0, 4, 2), np.float32)
        return np.stack([line.box for line in self.lines]).astype(np.float32)

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self):
        return iter(self.lines)

    def to_dict(self) -> dict:
        """The result as JSON-ready values (lines, timings, image size, ...)."""
        d = {
            "lines": [line.to_dict() for line in self.lines],
            "timings": {k: round(float(v), 6) for k, v in self.timings.items()},
            "image_size": list(self.image_size),
        }
        if self.source is not None:
            d["source"] = self.source
        return d

    def to_json(self, **kwargs) -> str:
        """The result as JSON text (``json.dumps`` keywords pass through)."""
        kwargs.setdefault("ensure_ascii", False)
        return json.dumps(self.to_dict(), **kwargs)

    def draw(self, image=None, *, color=(0, 200, 0), thickness: int = 2) -> np.ndarray:
        """An annotated BGR copy of ``image`` (or of the source path): boxes and line numbers."""
        import numbers

        import cv2

        from .errors import InvalidInputError
        from .image_io import load_image

        if (
            isinstance(thickness, bool)
            or not isinstance(thickness, int)
            or not 1 <= thickness <= 255
        ):
            raise InvalidInputError(f"thickness must be an integer in [1, 255], got {thickness!r}")
        if (
            not isinstance(color, (tuple, list, np.ndarray))
            or len(color) != 3
            or not all(isinstance(c, numbers.Real) and 0 <= c <= 255 for c in color)
        ):
            raise InvalidInputError(f"color must be 3 numbers in [0, 255] (B, G, R), got {color!r}")
        color = tuple(float(c) for c in color)  # what OpenCV takes (not numpy scalars)
        if image is None:
            if self.source is None:
                raise InvalidInputError("draw() needs the image (this result has no source path)")
            image = self.source
        img = load_image(image)
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        elif img.shape[2] == 2:
            img = cv2.cvtColor(np.ascontiguousarray(img[:, :, 0]), cv2.COLOR_GRAY2BGR)
        elif img.shape[2] == 4:
            img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
        else:
            img = img.copy()
        for i, line in enumerate(self.lines):
            pts = np.round(line.box).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(img, [pts], True, color, thickness)
            x, y = pts[0, 0]
            cv2.putText(
                img,
                str(i + 1),
                (int(x), max(10, int(y) - 3)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                (0, 0, 255),
                1,
                cv2.LINE_AA,
            )
        return img

    def __repr__(self) -> str:
        total = self.timings.get("total", 0.0)
        return f"OcrResult({len(self.lines)} lines, {total * 1000:.1f} ms)"
