"""``edgeocr predict DIR_OR_GLOB --ray ...``: the command line's Ray run (its options are
edgeocr/cli.py's)."""

from __future__ import annotations

import sys
import time

from .cluster import init_local_ray, require_ray
from .dataset import DEFAULT_BATCH_SIZE, ocr_dataset
from .inputs import expand_inputs
from .output import ResultOutput


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
    ray = require_ray()
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
