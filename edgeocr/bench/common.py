"""What the benchmark tools share: statistics, tables, where the dev images are, the engine
they time."""

from __future__ import annotations

import math
import os


def median(xs) -> float:
    """The median (mean of the middle two for an even count); NaN for none."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return float("nan")
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def p90(xs) -> float:
    """Nearest-rank 90th percentile."""
    s = sorted(xs)
    return s[max(0, math.ceil(0.9 * len(s)) - 1)] if s else float("nan")


def render_table(cells: list) -> str:
    """Rows of strings (the first the header) as aligned columns: the first left, the rest right."""
    widths = [max(len(c[i]) for c in cells) for i in range(len(cells[0]))]
    out = []
    for k, c in enumerate(cells):
        out.append(
            "  ".join(
                x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(c, widths))
            )
        )
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def default_images() -> str | None:
    """The shared dev set's image folder ($EDGEOCR_SHARED_DIR or ../shared), None if absent."""
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    for root in ([shared] if shared else []) + [
        os.path.join(os.getcwd(), "..", "shared"),
        os.path.join(os.getcwd(), "shared"),
    ]:
        folder = os.path.join(root, "datasets", "dev", "images")
        if os.path.isdir(folder):
            return os.path.normpath(folder)
    return None


def engine_for(model=None, *, models=None, threads=None, max_memory_mb=None):
    """The pipeline ``edgeocr bench`` times: an :class:`edgeocr.engine.Engine` over ``model``
    (a model-set name, a folder, one model file or a bundle) or ``models`` (a set name), named
    as ``edgeocr.Predictor`` names them (:func:`edgeocr.sources.model_sources`), with
    Predictor's session defaults; float models as given (the int8 contender names its bundle),
    a bundle's own memory budget applying unless ``max_memory_mb`` is given. Bench times the
    engine layer, never predictor.py (docs/architecture.md)."""
    from ..engine import Engine
    from ..model import check_max_memory_mb
    from ..sources import model_sources

    sources, _ = model_sources(model, models, None, None, None, None, None)
    return Engine(
        sources,
        threads=threads,
        max_memory_mb=check_max_memory_mb(max_memory_mb),
        bundle_budget=True,
    )
