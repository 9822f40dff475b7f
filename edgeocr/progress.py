"""The one progress bar of the command lines (edgeocr predict/eval, --ray, edgeocr-pack)."""

from __future__ import annotations

import sys
import time


class Progress:
    """A one-line progress bar on stderr; by default only when stderr is a terminal."""

    def __init__(self, total: int, enabled: bool | None = None, label: str = ""):
        self.total, self.done, self.label = max(total, 1), 0, label
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.t0 = time.perf_counter()
        if label:
            self._draw()

    def step(self, k: int = 1) -> None:
        """Count ``k`` more items done and redraw."""
        self.done = min(self.total, self.done + k)
        self._draw()

    def close(self) -> None:
        """End the line when the bar stopped before its total."""
        if self.enabled and self.done < self.total:
            sys.stderr.write("\n")

    def _draw(self) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / self.total)
        dt = time.perf_counter() - self.t0
        rate = self.done / max(1e-9, dt)
        label = f"{self.label:<22} " if self.label else ""
        sys.stderr.write(
            f"\r{label}[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
            f"{rate:.2f}/s {dt:5.1f}s"
        )
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()
