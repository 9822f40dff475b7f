"""The inputs of a Ray run: files from paths, folders and globs, and the dataset of their rows
(a ``path`` column, and ``done_pages`` when resuming documents)."""

from __future__ import annotations

import glob as _glob
import os

from .schema import DONE_PAGES


def expand_inputs(source) -> list[str]:
    """Absolute file paths from a path, a folder (its images, recursively), a glob, or a list.

    A path that does not exist is kept (its row will say so); a glob matching nothing adds nothing.
    """
    from ..image_io import image_files

    items = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    out = []
    for item in items:
        item = os.fspath(item)
        if os.path.isdir(item):
            out += image_files(item, recursive=True)
        elif _glob.has_magic(item) and not os.path.exists(item):
            out += sorted(p for p in _glob.glob(item, recursive=True) if not os.path.isdir(p))
        else:
            out.append(item)
    return [os.path.abspath(p) for p in out]


def paths_dataset(ray, paths: list[str], batch_size: int, done_pages: dict):
    """A Ray Dataset of ``paths`` (a ``path`` column; ``done_pages``, {path: pages}, as a
    ``done_pages`` column when given) in blocks of at least ``batch_size`` rows."""
    import pyarrow as pa

    # One block per batch (up to 20000 blocks), so the actors share the work out
    # in batches rather than one actor taking one big block.
    n = len(paths)
    per_block = max(batch_size, -(-n // 20000))

    def block(part):
        columns = {"path": pa.array(part, pa.string())}
        if done_pages:  # only when resuming documents cut off mid-run
            columns[DONE_PAGES] = pa.array([done_pages.get(p) for p in part], pa.list_(pa.int32()))
        return pa.table(columns)

    tables = [block(paths[i : i + per_block]) for i in range(0, n, per_block)]
    return ray.data.from_arrow(tables or [block([])])
