"""ocr_dataset: a Ray Dataset of OCR result rows, read by an actor pool of PredictorActors."""

from __future__ import annotations

import os

from .actor import PredictorActor
from .cluster import init_local_ray, require_ray
from .inputs import expand_inputs, paths_dataset

#: Images per actor call. A page takes 0.1-3 s, an actor call ~1 ms: larger
#: batches buy nothing and make a retried batch (after an actor died) longer.
DEFAULT_BATCH_SIZE = 8


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
    ray = require_ray()
    from ..engine import check_workers

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
        ds = paths_dataset(ray, paths, batch_size, partly)
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
