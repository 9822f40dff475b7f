"""PredictorActor: the Ray Data callable class that reads a batch of input rows into result rows
(edgeocr/ray/schema.py), one Predictor per actor. Needs pyarrow, not Ray."""

from __future__ import annotations

import os
import socket
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from .schema import DONE_PAGES, RESULT_COLUMNS, error_vals, result_schema, result_vals


def _load(path, data, max_pixels):
    from ..image_io import load_image, load_image_bytes

    t0 = time.perf_counter()
    if data is not None:
        img = load_image_bytes(data, path if path is not None else "image bytes", max_pixels)
    elif path is not None:
        img = load_image(path, max_pixels)
    else:
        from ..errors import InvalidInputError

        raise InvalidInputError("a row with neither 'path' nor 'bytes'")
    return img, time.perf_counter() - t0


class PredictorActor:
    """A Ray Data callable class: one :class:`edgeocr.Predictor`, built once, per actor.

    ``model``/``models`` and the keyword arguments are the Predictor's (a model
    set name, a folder, a ``.eocr`` bundle, ``det=/cls=/rec=``, settings).
    ``threads`` is ONNX Runtime's intra-op thread count; give the actor as many
    CPUs (``num_cpus=threads`` in ``map_batches``). Thread spinning is off: Ray
    sets ``OMP_NUM_THREADS`` for the actor, which ONNX Runtime does not read, so
    the count is set here, explicitly.

    A call takes a batch (a ``pyarrow.Table`` or a dict of columns) with a
    ``path`` column (files the actor reads), a ``bytes`` column (encoded
    images; ``path``, if present, only names them), or both, and returns a
    ``pyarrow.Table``: one row per input row, in order, with the columns of
    :func:`result_schema` followed by the input's other columns; a document (a
    PDF, a multi-page TIFF) gives one row per page (``page``, and its
    ``page_count``), its input row's columns repeated on each, its pages read one
    at a time, less those listed in an optional ``done_pages`` column. Images stay
    encoded until here and are decoded in a background thread, up to two images
    ahead of the pipeline (which runs with the GIL released). Every failure of a
    page is that page's error row, never an exception, whatever raised it (a file
    that cannot be read or decoded, a page the pipeline refuses, an exception of a
    ``preprocess`` hook or of the PDF renderer): one bad page does not fail a job
    of millions, and a document's other pages still come out.
    """

    def __init__(self, model=None, *, threads: int = 1, **predictor_kwargs):
        from ..predictor import Predictor

        predictor_kwargs.setdefault("spinning", False)
        self.threads = threads
        self.predictor = Predictor(model, threads=threads, **predictor_kwargs)
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        self._decoder = ThreadPoolExecutor(1, thread_name_prefix="edgeocr-ray-decode")

    def __call__(self, batch):
        import pyarrow as pa

        table = (
            batch
            if isinstance(batch, pa.Table)
            else pa.table(
                {k: (v.tolist() if hasattr(v, "tolist") else list(v)) for k, v in batch.items()}
            )
        )
        n = table.num_rows
        names = table.column_names
        if "path" not in names and "bytes" not in names:
            from ..errors import InvalidInputError

            raise InvalidInputError(
                f"PredictorActor needs a 'path' or a 'bytes' column, got {names}"
            )
        paths = table.column("path").to_pylist() if "path" in names else [None] * n
        data = table.column("bytes").to_pylist() if "bytes" in names else [None] * n
        done = table.column(DONE_PAGES).to_pylist() if DONE_PAGES in names else [None] * n
        rows = {c: [] for c in RESULT_COLUMNS}
        docs = [_is_document(paths[i], data[i]) for i in range(n)]
        if any(d is not False for d in docs):  # rows in order, documents page by page
            taken = []
            for i in range(n):
                before = len(rows["path"])
                source = data[i] if data[i] is not None else paths[i]
                if isinstance(docs[i], BaseException):  # its first bytes could not be read
                    self._add(rows, error_vals(paths[i], docs[i], None))
                elif docs[i]:
                    self._page_rows(rows, paths[i], source, set(done[i] or ()))
                else:
                    self._row(rows, paths[i], None, source)
                taken += [i] * (len(rows["path"]) - before)
            return self._table(rows, table.take(taken))
        if getattr(self.predictor, "max_memory_mb", None):
            # Under a memory budget the Predictor decodes each page itself, inside the share of
            # the budget the page is admitted with (docs/memory-budget.md): no decoding ahead.
            for i in range(n):
                self._row(rows, paths[i], None, data[i] if data[i] is not None else paths[i])
            return self._table(rows, table)
        # The same pixel cap as Predictor.predict(path) applies, checked before decoding.
        cap = self.predictor.max_image_pixels
        pending: deque = deque()
        for i in range(min(2, n)):
            pending.append(self._decoder.submit(_load, paths[i], data[i], cap))
        for i in range(n):
            fut = pending.popleft()
            if i + 2 < n:
                pending.append(self._decoder.submit(_load, paths[i + 2], data[i + 2], cap))
            self._row(rows, paths[i], fut)
        return self._table(rows, table)

    @staticmethod
    def _table(rows, table):
        import pyarrow as pa

        out = pa.table(rows, schema=result_schema())
        for c in table.column_names:
            # The caller's own columns (ids, metadata) ride along; the image bytes and the
            # pages left out do not.
            if c not in ("bytes", DONE_PAGES, *RESULT_COLUMNS):
                out = out.append_column(table.schema.field(c), table.column(c))
        return out

    def _page_rows(self, rows, path, source, done: set) -> None:
        """The rows of a document's pages but those in ``done`` (one error row, page null, if
        it cannot be opened). A page whose reading raises anything, not only an EdgeOCRError
        (which `predict_pages` puts on the page), is an error row: the document is opened
        again after it, for the pages left."""
        from ..documents.pages import open_document

        try:
            doc = open_document(source, max_pixels=self.predictor.max_image_pixels)
            count = doc.count
            doc.close()
        except Exception as e:  # noqa: BLE001 - the document's error row
            self._add(rows, error_vals(path, e, None) | {"page": None})
            return
        todo = [i for i in range(count) if i not in done]
        k = 0  # todo[k] is the next page to come out
        while k < len(todo):
            try:
                pages = self.predictor.predict_pages(source, todo[k:])
            except Exception as e:  # noqa: BLE001 - it opened a moment ago: each page's row
                for i in todo[k:]:
                    self._add(rows, error_vals(path, e, None) | {"page": i, "page_count": count})
                return
            try:
                for r in pages:
                    vals = (
                        error_vals(path, r.error, None)
                        if r.error is not None
                        else result_vals(path, r, None)
                    )
                    self._add(rows, vals | {"page": r.page, "page_count": count})
                    k += 1
            except Exception as e:  # noqa: BLE001 - the page being read raised: its error row
                if k == len(todo):
                    return  # raised once every page was out (closing the file): nothing lost
                self._add(rows, error_vals(path, e, None) | {"page": todo[k], "page_count": count})
                k += 1
            finally:
                pages.close()

    def _add(self, rows, vals) -> None:
        vals["worker"] = self.worker
        for k in RESULT_COLUMNS:
            rows[k].append(vals.get(k))

    def _row(self, rows, path, fut, source=None):
        decode = None
        try:
            if fut is None:
                r = self.predictor.predict(source)
            else:
                img, decode = fut.result()
                r = self.predictor.predict(img)
        except Exception as e:  # noqa: BLE001 - any failure of one page is that page's error row
            vals = error_vals(path, e, decode)
        else:
            vals = result_vals(path, r, decode)
        vals["page"], vals["page_count"] = 0, 1  # an image is one page
        self._add(rows, vals)


def _is_document(path, data):
    """Whether a row's file is a document (PDF, multi-page TIFF) read page by page; the
    exception when its first bytes and headers cannot be read (then the row is its error)."""
    from ..documents.pages import is_document

    if not (path or data):
        return False
    try:
        return is_document(data if data is not None else path)
    except Exception as e:  # noqa: BLE001 - e.g. MemoryError on a hostile header
        return e
