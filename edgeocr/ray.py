"""Batch OCR on Ray Data: one ``Predictor`` per actor, one result row per input.

>>> import edgeocr.ray
>>> ds = edgeocr.ray.ocr_dataset("scans/**/*.png", workers=4, threads=2)
>>> ds.write_parquet("s3://bucket/ocr/")          # written on the workers; or iterate

or, in a pipeline of your own (the actor reads ``path`` and/or ``bytes`` columns)::

    ds = ray.data.read_binary_files("s3://bucket/scans/", include_paths=True)
    ds = ds.map_batches(edgeocr.ray.PredictorActor, fn_constructor_kwargs={"threads": 2},
                        batch_size=8, batch_format="pyarrow", num_cpus=2,
                        compute=ray.data.ActorPoolStrategy(size=4))

Tooling, not SDK core: nothing under ``edgeocr`` imports this module except the
CLI's ``predict --ray``, and this module imports Ray (``pip install
"edgeocr[ray]"``) only inside the functions that need it. ``PredictorActor``
itself needs only pyarrow. docs/scale-out.md has the cluster how-to and the
measurements behind the defaults.
"""

from __future__ import annotations

import glob as _glob
import os
import socket
import sys
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

#: Images per actor call. A page takes 0.1-3 s, an actor call ~1 ms: larger
#: batches buy nothing and make a retried batch (after an actor died) longer.
DEFAULT_BATCH_SIZE = 8

#: The result columns, in order. ``lines`` and the image size are null on an error row.
RESULT_COLUMNS = (
    "path",
    "page",
    "page_count",
    "lines",
    "width",
    "height",
    "error",
    "decode_s",
    "det_s",
    "cls_s",
    "rec_s",
    "ocr_s",
    "worker",
)


def result_schema():
    """The pyarrow schema of a result row (fixed: blocks of error rows concatenate with others)."""
    import pyarrow as pa

    line = pa.struct(
        [("text", pa.string()), ("score", pa.float64()), ("box", pa.list_(pa.list_(pa.float32())))]
    )
    return pa.schema(
        [
            ("path", pa.string()),
            # 0-based page of a document (PDF, multi-page TIFF: one row per page); 0 for an
            # image; null on the error row of a document that could not be opened
            ("page", pa.int32()),
            # the pages of the row's document (1 for an image; null when it could not be
            # opened): a document is done when all of them are in the output (--resume)
            ("page_count", pa.int32()),
            ("lines", pa.list_(line)),
            ("width", pa.int32()),
            ("height", pa.int32()),
            ("error", pa.string()),  # null, or "<error class>: <message>"
            ("decode_s", pa.float64()),  # reading + decoding the file, in the actor
            ("det_s", pa.float64()),
            ("cls_s", pa.float64()),
            ("rec_s", pa.float64()),
            ("ocr_s", pa.float64()),  # the pipeline's total (det + cls + rec + glue)
            ("worker", pa.string()),  # host:pid of the actor that made the row
        ]
    )


#: An optional input column: for a document row, the 0-based pages already done, left out
#: (``--resume`` of a document cut off mid-run). Not carried into the result rows.
DONE_PAGES = "done_pages"


def error_text(exc: BaseException) -> str:
    """How an error row names its error: ``"InvalidInputError: image file not found: a.png"``."""
    return f"{type(exc).__name__}: {exc}"


def _load(path, data, max_pixels):
    from .image_io import load_image, load_image_bytes

    t0 = time.perf_counter()
    if data is not None:
        img = load_image_bytes(data, path if path is not None else "image bytes", max_pixels)
    elif path is not None:
        img = load_image(path, max_pixels)
    else:
        from .errors import InvalidInputError

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
        from .predictor import Predictor

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
            from .errors import InvalidInputError

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
                    self._add(rows, _error_vals(paths[i], docs[i], None))
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
        from .documents.pages import open_document

        try:
            doc = open_document(source, max_pixels=self.predictor.max_image_pixels)
            count = doc.count
            doc.close()
        except Exception as e:  # noqa: BLE001 - the document's error row
            self._add(rows, _error_vals(path, e, None) | {"page": None})
            return
        todo = [i for i in range(count) if i not in done]
        k = 0  # todo[k] is the next page to come out
        while k < len(todo):
            try:
                pages = self.predictor.predict_pages(source, todo[k:])
            except Exception as e:  # noqa: BLE001 - it opened a moment ago: each page's row
                for i in todo[k:]:
                    self._add(rows, _error_vals(path, e, None) | {"page": i, "page_count": count})
                return
            try:
                for r in pages:
                    vals = (
                        _error_vals(path, r.error, None)
                        if r.error is not None
                        else _result_vals(path, r, None)
                    )
                    self._add(rows, vals | {"page": r.page, "page_count": count})
                    k += 1
            except Exception as e:  # noqa: BLE001 - the page being read raised: its error row
                if k == len(todo):
                    return  # raised once every page was out (closing the file): nothing lost
                self._add(rows, _error_vals(path, e, None) | {"page": todo[k], "page_count": count})
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
            vals = _error_vals(path, e, decode)
        else:
            vals = _result_vals(path, r, decode)
        vals["page"], vals["page_count"] = 0, 1  # an image is one page
        self._add(rows, vals)


def _is_document(path, data):
    """Whether a row's file is a document (PDF, multi-page TIFF) read page by page; the
    exception when its first bytes and headers cannot be read (then the row is its error)."""
    from .documents.pages import is_document

    if not (path or data):
        return False
    try:
        return is_document(data if data is not None else path)
    except Exception as e:  # noqa: BLE001 - e.g. MemoryError on a hostile header
        return e


def _error_vals(path, e: BaseException, decode) -> dict:
    return {"path": path, "error": error_text(e), "decode_s": decode}


def _result_vals(path, r, decode) -> dict:
    t = r.timings
    return {
        "path": path,
        "lines": [
            {"text": ln.text, "score": float(ln.score), "box": ln.box.tolist()} for ln in r.lines
        ],
        "width": int(r.image_size[0]),
        "height": int(r.image_size[1]),
        "error": None,
        "decode_s": decode,
        "det_s": t.get("det"),
        "cls_s": t.get("cls"),
        "rec_s": t.get("rec"),
        "ocr_s": t.get("total"),
    }


# -- inputs -----------------------------------------------------------------


def expand_inputs(source) -> list[str]:
    """Absolute file paths from a path, a folder (its images, recursively), a glob, or a list.

    A path that does not exist is kept (its row will say so); a glob matching nothing adds nothing.
    """
    from .image_io import image_files

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


def _require_ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as e:
        from .errors import UnsupportedError

        raise UnsupportedError(
            f"Ray Data is not installed ({e}); pip install 'edgeocr[ray]'"
        ) from None
    return ray


#: Ray's own default starts workers (our actors) at niceness 15, below the raylet and GCS, so
#: on a node that also runs anything else the OCR actors get only what that leaves: measured
#: here, 1.3-2x the in-process time per page (docs/scale-out.md). A local Ray that edgeocr
#: starts runs its workers at the caller's priority instead; a cluster you start yourself keeps
#: its own setting (``RAY_worker_niceness=0 ray start ...`` to match).
LOCAL_RAY_SYSTEM_CONFIG = {"worker_niceness": 0}


def init_local_ray(ray, **kwargs):
    """``ray.init(**kwargs)`` for a Ray that edgeocr starts on this machine (no ``address``):
    quiet logs, no dashboard, workers at the caller's priority (:data:`LOCAL_RAY_SYSTEM_CONFIG`).
    With an ``address`` it only connects: a running cluster's settings are its own."""
    kw = {"logging_level": "WARNING", "log_to_driver": False, **kwargs}
    if not kw.get("address"):
        kw.setdefault("include_dashboard", False)
        kw["_system_config"] = {**LOCAL_RAY_SYSTEM_CONFIG, **kw.get("_system_config", {})}
    runtime_env = dict(kw.get("runtime_env") or {})
    if "working_dir" in runtime_env or not _driver_folder_shadows_edgeocr():
        return ray.init(**kw)
    # Ray puts the driver's current folder (and its script's) on every worker's sys.path unless
    # the job has a working_dir (ray._private.worker.connect). Run from a checkout of edgeocr
    # after a non-editable install, the workers would then import the checkout's edgeocr/, which
    # has no compiled core, instead of the installed package the driver runs. The actors need no
    # file of the driver's folder (input paths are made absolute here), so the job gets an empty
    # working_dir: Ray uploads it during init and the workers import the installed edgeocr.
    import tempfile

    with tempfile.TemporaryDirectory(prefix="edgeocr-ray-") as empty:
        kw["runtime_env"] = {**runtime_env, "working_dir": empty}
        return ray.init(**kw)


def _driver_folder_shadows_edgeocr() -> bool:
    """True when a folder Ray would put on its workers' sys.path (the current one, the script's)
    holds an ``edgeocr`` package other than the one this process imported (a source checkout)."""
    here = os.path.dirname(os.path.realpath(__file__))
    folders = {os.path.abspath(os.curdir)}
    if sys.argv and sys.argv[0]:
        folders.add(os.path.dirname(os.path.realpath(sys.argv[0])))
    for folder in folders:
        pkg = os.path.join(folder, "edgeocr")
        if os.path.isfile(os.path.join(pkg, "__init__.py")) and os.path.realpath(pkg) != here:
            return True
    return False


def ocr_dataset(
    source,
    model=None,
    *,
    workers: int | None = None,
    threads: int = 1,
    batch_size: int = DEFAULT_BATCH_SIZE,
    skip=(),
    done_pages=None,
    **predictor_kwargs,
):
    """A Ray Dataset of OCR results (one row per input page; columns: :func:`result_schema`).

    ``source``: a path, a folder, a glob, a list of these (files are read by
    the actors, so on a cluster they must be on a filesystem every node
    mounts), or a ``ray.data.Dataset`` with a ``bytes`` column (e.g. from
    ``ray.data.read_binary_files(..., include_paths=True)``, which reads object
    stores too) whose images are decoded in the actors. ``skip``: paths to
    leave out (already done). ``done_pages``: {path: 0-based pages} of documents
    partly done, whose other pages are read (for a Dataset ``source``, give its
    rows a ``done_pages`` column instead). ``workers`` actors (default: the
    cluster's CPUs // ``threads``), each with ``threads`` CPUs and intra-op
    threads, each building its Predictor from ``model`` and ``predictor_kwargs``
    once.

    Rows come in no particular order. The dataset is lazy: nothing runs until
    it is iterated or written (``ds.write_parquet(...)`` writes on the workers).
    Starts a local Ray if none is running.
    """
    ray = _require_ray()
    from .engine import check_workers

    check_workers(threads)
    check_workers(batch_size)
    if not ray.is_initialized():
        init_local_ray(ray)
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)) // threads)
    check_workers(workers)
    if isinstance(source, ray.data.Dataset):
        ds = source
        if skip:
            done = {os.fspath(p) for p in skip}
            ds = ds.filter(lambda row: row.get("path") not in done)
    else:
        done = {os.path.abspath(os.fspath(p)) for p in skip}
        paths = [p for p in expand_inputs(source) if p not in done]
        partly = {os.path.abspath(os.fspath(p)): sorted(v) for p, v in (done_pages or {}).items()}
        # A small job is shared out among all the actors (no more actors than pages, batches
        # no larger than pages per actor), rather than one batch going to one actor.
        workers = max(1, min(workers, len(paths)))
        batch_size = max(1, min(batch_size, -(-len(paths) // workers)))
        ds = _paths_dataset(ray, paths, batch_size, partly)
    return ds.map_batches(
        PredictorActor,
        fn_constructor_args=(model,),
        fn_constructor_kwargs={"threads": threads, **predictor_kwargs},
        batch_size=batch_size,
        batch_format="pyarrow",
        # Ray Data's actor pools restart an actor that dies (OOM kill, lost node) and retry
        # the batches it held (max_restarts=-1, max_task_retries=-1 are its defaults); a batch's
        # rows are emitted only when the call returns, so none is lost or doubled
        # (tests/python/test_ray.py kills an actor). Two batches per actor: one running, one
        # queued, so a slow or restarted actor holds back little at the end of a job.
        compute=ray.data.ActorPoolStrategy(size=workers, max_tasks_in_flight_per_actor=2),
        num_cpus=threads,
    )


def _paths_dataset(ray, paths: list[str], batch_size: int, done_pages: dict):
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


# -- output: a folder of part files written on the workers, resumable ------------------


#: Rows per part file (a hint to Ray's writers: a write task takes blocks until it has this many).
PART_ROWS = 2000


class ResultOutput:
    """``--output``: a folder of part files, written by Ray's writers on the workers (the rows
    never go through the driver): ``OUT.parquet/`` of Parquet parts
    (``Dataset.write_parquet``), ``OUT.jsonl/`` of JSON-lines parts (:class:`JsonLinesDatasink`:
    a line per row, ``json.dumps`` of the row).

    Opening it with ``resume`` reads which pages it holds: ``complete`` are the paths done
    (every page of a document written, or the error row of one that could not be opened),
    ``done_pages`` the pages written of a document cut off mid-run. A part cut off by a crash
    is repaired first: a Parquet part that does not read is removed, a JSON line cut off is
    dropped (their pages are done again).
    """

    def __init__(self, out: str, resume: bool, part_rows: int = PART_ROWS):
        from .errors import InvalidInputError

        # Absolute: Ray's workers write the parts, and their working folder is not the
        # driver's (init_local_ray gives a job run from a checkout an empty working_dir), so a
        # relative OUT would land in theirs.
        self.out = os.path.abspath(os.fspath(out).rstrip("/") or "/")
        if self.out.endswith(".parquet"):
            self.kind = "parquet"
        elif self.out.endswith((".jsonl", ".json")):
            self.kind = "jsonl"
        else:
            raise InvalidInputError(f"--output must end in .parquet or .jsonl, got {out!r}")
        self.part_rows = part_rows
        self.notes: list[str] = []
        self.complete: set = set()
        self.done_pages: dict = {}
        if os.path.exists(self.out):
            if not resume:
                raise InvalidInputError(
                    f"{self.out} exists: pass --resume to skip the pages in it, or remove it"
                )
            if not os.path.isdir(self.out):
                raise InvalidInputError(
                    f"{self.out} is a file, not a folder of parts (edgeocr's Ray runs once wrote "
                    "JSON lines to one file): to resume into it, move it into a folder of that "
                    f"name: mv {self.out} {self.out}.part && mkdir {self.out} && "
                    f"mv {self.out}.part {self.out}/part-0.{self.kind}"
                )
            self._read()
        self._before = set(self._parts())

    def _parts(self) -> list[str]:
        if not os.path.isdir(self.out):
            return []
        ext = "." + self.kind
        return sorted(n for n in os.listdir(self.out) if n.endswith(ext))

    def _read(self) -> None:
        pages: dict = {}
        counts: dict = {}
        for name in self._parts():
            for path, page, count in self._rows(os.path.join(self.out, name)):
                if page is None or count is None:
                    # a document that could not be opened, or a row from before page_count
                    self.complete.add(path)
                else:
                    pages.setdefault(path, set()).add(page)
                    counts[path] = count
        for path, got in pages.items():
            if path in self.complete:
                continue
            if len(got) >= counts[path] and all(0 <= p < counts[path] for p in got):
                self.complete.add(path)
            else:
                self.done_pages[path] = got

    def _rows(self, part: str):
        """(path, page, page_count) of every whole row of ``part`` (repairing a cut one)."""
        if self.kind == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            try:
                names = pq.read_schema(part).names
                cols = [c for c in ("path", "page", "page_count") if c in names]
                t = pq.read_table(part, columns=cols)
            except (pa.ArrowException, OSError) as e:
                os.remove(part)
                self.notes.append(f"removed {part}, cut off mid-write ({e}); its pages run again")
                return []
            n = t.num_rows
            col = {c: t.column(c).to_pylist() if c in cols else [None] * n for c in cols}
            return zip(
                col["path"],
                col.get("page", [0] * n),
                col.get("page_count", [None] * n),
            )
        import json

        out, good_end = [], 0
        with open(part, "rb") as f:
            for raw in f:
                if not raw.endswith(b"\n"):
                    break
                try:
                    row = json.loads(raw)
                    out.append((row["path"], row.get("page", 0), row.get("page_count")))
                except (ValueError, KeyError, TypeError):
                    break
                good_end += len(raw)
        if good_end != os.path.getsize(part):  # a line cut off mid-write: drop it
            with open(part, "r+b") as f:
                f.truncate(good_end)
            self.notes.append(f"{part}: dropped a line cut off mid-write; its page runs again")
        return out

    def write(self, ds) -> tuple[int, int]:
        """Run ``ds`` (a dataset of result rows) and write its rows on the workers; returns
        (rows written, error rows among them)."""
        # Write tasks ask for no CPU: the actors hold the cluster's CPUs for the whole job, and
        # writing a part is I/O the nodes have to spare.
        remote = {"num_cpus": 0}
        if self.kind == "parquet":
            ds.write_parquet(self.out, min_rows_per_file=self.part_rows, ray_remote_args=remote)
            return self._count_new_parquet()
        sink = _jsonl_datasink_class()(self.out, min_rows_per_file=self.part_rows)
        ds.write_datasink(sink, ray_remote_args=remote)
        return sink.rows, sink.errors

    def _count_new_parquet(self) -> tuple[int, int]:
        import pyarrow.parquet as pq

        rows = errors = 0
        for name in self._parts():
            if name not in self._before:
                t = pq.read_table(os.path.join(self.out, name), columns=["error"])
                rows += t.num_rows
                errors += t.num_rows - t.column("error").null_count
        return rows, errors


def _jsonl_datasink_class():
    """:class:`JsonLinesDatasink`, defined when Ray Data is imported (it subclasses Ray's)."""
    from ray.data.datasource import BlockBasedFileDatasink

    class _JsonLinesDatasink(BlockBasedFileDatasink):
        """Ray Data datasink of JSON-lines part files: each row as ``json.dumps`` writes it
        (non-ASCII kept), one a line, written by the write tasks on the workers. ``rows`` and
        ``errors``: what the job wrote, once ``write_datasink`` returns."""

        def __init__(self, path: str, **kwargs):
            super().__init__(path, file_format="jsonl", **kwargs)
            self.rows = self.errors = 0

        def write_block_to_file(self, block, file) -> None:
            import json

            file.write(
                "".join(
                    json.dumps(r, ensure_ascii=False) + "\n" for r in block.to_arrow().to_pylist()
                ).encode("utf-8")
            )

        def write(self, blocks, ctx):
            from ray.data.block import BlockAccessor

            blocks = list(blocks)
            super().write(blocks, ctx)
            rows = errors = 0
            for b in blocks:
                t = BlockAccessor.for_block(b).to_arrow()
                rows += t.num_rows
                errors += t.num_rows - t.column("error").null_count
            return rows, errors

        def on_write_complete(self, write_result) -> None:
            super().on_write_complete(write_result)
            for r in write_result.write_returns:
                if r:
                    self.rows += r[0]
                    self.errors += r[1]

    return _JsonLinesDatasink


def __getattr__(name: str):
    # JsonLinesDatasink subclasses a Ray class: made on first use, so that importing this
    # module needs no Ray (PredictorActor needs only pyarrow).
    if name == "JsonLinesDatasink":
        cls = _jsonl_datasink_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- CLI: edgeocr predict ... --ray -------------------------------------------


def run_cli(args) -> int:
    """``edgeocr predict DIR_OR_GLOB --ray ...``; returns the exit status."""
    if not args.output:
        print("edgeocr predict --ray: --output OUT.parquet|OUT.jsonl is required", file=sys.stderr)
        return 2
    if args.draw or args.json:
        print(
            "edgeocr predict --ray: --draw and --json are for in-process runs; rows go to --output",
            file=sys.stderr,
        )
        return 2
    ray = _require_ray()
    output = ResultOutput(args.output, args.resume)
    for note in output.notes:
        print(f"edgeocr predict --ray: {note}", file=sys.stderr)
    paths = expand_inputs(args.inputs)
    todo = [p for p in paths if p not in output.complete]
    partly = {p: output.done_pages[p] for p in todo if p in output.done_pages}
    skipped = len(paths) - len(todo)
    started = False
    if not ray.is_initialized():
        init_local_ray(ray, address=args.address)
        started = True
    ctx = ray.data.DataContext.get_current()
    # The rows are written on the workers, so the driver sees none go by: Ray Data's own
    # progress bars (rows through each operator) stand in for edgeocr's.
    ctx.enable_progress_bars = bool(sys.stderr.isatty() or args.progress)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    threads = args.threads or min(2, cpus)  # docs/scale-out.md: N x 2 measured best here
    workers = args.workers or max(1, cpus // threads)
    if workers * threads > cpus:
        print(
            f"edgeocr predict --ray: {workers} workers x {threads} threads is more than "
            f"the cluster's {cpus} CPUs; "
            "the actors that do not fit wait for nodes to join",
            file=sys.stderr,
        )
    kw = {"use_cls": False} if getattr(args, "no_cls", False) else {}
    batch_size = DEFAULT_BATCH_SIZE if args.batch_size is None else args.batch_size
    pages = errors = 0
    t0 = time.perf_counter()
    try:
        if todo:
            ds = ocr_dataset(
                todo,
                args.model,
                workers=workers,
                threads=threads,
                batch_size=batch_size,
                done_pages=partly,
                **kw,
            )
            pages, errors = output.write(ds)
            if pages == 0:  # every input gives a row (its pages, or its error)
                print(
                    f"edgeocr predict --ray: {len(todo)} inputs to do, but no row reached "
                    f"{output.out}",
                    file=sys.stderr,
                )
                return 1
    finally:
        if started:
            ray.shutdown()
    dt = time.perf_counter() - t0
    resumed = f", {len(partly)} documents resumed" if partly else ""
    print(
        f"edgeocr predict --ray: {pages} pages, {errors} errors, "
        f"{pages / max(dt, 1e-9):.2f} pages/s "
        f"({dt:.1f} s, {workers} workers x {threads} threads; {skipped} already in "
        f"{args.output}{resumed})",
        file=sys.stderr,
    )
    return 1 if errors else 0
