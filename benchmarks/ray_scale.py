"""Pages/s and CPU per page of edgeocr on Ray Data (edgeocr.ray.ocr_dataset) against the
in-process Predictor.predict_iter (in a subprocess without Ray), with the same workers x threads,
interleaved in one run; or, with --before REV, `edgeocr predict --ray` as it is against the same
command at an earlier commit, alternated in one run.

    python benchmarks/ray_scale.py [--images DIR] [--limit 8] [--max-pixels 1e6]
                                   [--configs 1x2,2x1] [--rounds 2] [--batch-size 1] [--json F]
    python benchmarks/ray_scale.py --before REV [--formats parquet,jsonl] [--configs 2x1] ...

--before REV: the command line's Ray run (edgeocr.ray.run_cli: the dataset, the actors and the
output writer) of this checkout ("after") and of edgeocr.ray at git revision REV ("before",
loaded from git beside the installed package, its classes sent to the workers by value), on the
same pages, to a fresh --output each time, in one local Ray; the sides take turns, the order
flipping every round. Pages/s: pages / the run's wall time (the actors' start-up included: it
is the same on both sides). The load average is recorded before and after each run: on a shared
machine the figures say how the two compare under the same load, not what a quiet one gives.

For each round and each configuration N x T, the in-process run (Predictor(threads=T,
workers=N).predict_iter: N images in flight, decoding overlapped) and the Ray run (N actors
with T CPUs and T intra-op threads, on a local Ray with N x T CPUs) take turns, the order
flipping every round.

Wall: the driver notes when each result arrives; steady-state seconds per page run from the
first result to the last, so the one-off start-up (Predictor load; for Ray, starting the
actors) is left out. On a machine shared with other work this is noisy.

CPU: seconds of CPU per page, which other processes' load hardly changes: the in-process
run's own process (a fresh one, without Ray); for Ray, the driver, Ray's daemons and helper
actors and the edgeocr
actors (all children of this driver), less the CPU of a job of one tiny page per actor (the
start-up). On a node whose cores are all busy with OCR, CPU per page is what bounds pages/s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def pick(images_dir: str, limit: int, max_pixels: float) -> list[str]:
    from PIL import Image

    from edgeocr.ray import expand_inputs

    files = expand_inputs(images_dir)
    if max_pixels:

        def pixels(f):
            with Image.open(f) as im:
                return im.size[0] * im.size[1]

        files = [f for f in files if pixels(f) <= max_pixels]
    if limit and len(files) > limit:  # spread evenly over the sorted folder
        files = [files[i * len(files) // limit] for i in range(limit)]
    return files


def _stat(pid: int):
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    # after the ")": state ppid ... utime(11) stime(12) cutime(13) cstime(14), in clock ticks
    return int(fields[1]), [int(x) for x in fields[11:15]]


def _tree() -> dict:
    """{pid: CPU ticks} of this process and all its descendants."""
    procs = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                procs[int(d)] = _stat(int(d))
            except OSError:
                pass
    kids = {}
    for pid, (ppid, _) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = {}, [os.getpid()]
    while todo:
        pid = todo.pop()
        if pid in out or pid not in procs:
            continue
        t = procs[pid][1]
        out[pid] = t[0] + t[1]
        todo += kids.get(pid, [])
    return out


class TreeCPU:
    """CPU seconds used by this process and its descendants (Ray's daemons, helper actors and
    the edgeocr actors are all children of this driver) between start() and stop(). Processes
    that exit in between (actors at the end of a job) count with their last sample; sampled
    every 0.2 s by a thread whose own CPU is left out."""

    def start(self):
        import threading

        self._base, self._last, self._stop = _tree(), {}, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        self._tid = threading_native_id()
        self._tid_base = _thread_ticks(self._tid)
        while not self._stop.wait(0.2):
            self._last.update(_tree())
        self._tid_used = _thread_ticks(self._tid) - self._tid_base

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        self._last.update(_tree())
        ticks = sum(v - self._base.get(pid, 0) for pid, v in self._last.items())
        ticks -= self._tid_used
        return ticks / os.sysconf("SC_CLK_TCK")


def threading_native_id() -> int:
    import threading

    return threading.get_native_id()


def _thread_ticks(tid: int) -> int:
    with open(f"/proc/self/task/{tid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def cpu_seconds() -> float:
    """CPU seconds of this process (all its threads)."""
    _, t = _stat(os.getpid())
    return (t[0] + t[1]) / os.sysconf("SC_CLK_TCK")


def run_in_process(paths, workers, threads, model, batch_size):
    """predict_iter in a fresh subprocess, so that neither Ray's driver threads nor its imports
    share the process (as for a user who runs edgeocr without Ray)."""
    import subprocess

    code = (
        "import json, sys, time\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from ray_scale import cpu_seconds\n"
        "import edgeocr\n"
        "a = json.loads(sys.argv[2])\n"
        "t0 = time.perf_counter()\n"
        "p = edgeocr.Predictor(a['model'], threads=a['threads'], workers=a['workers'])\n"
        "t1 = time.perf_counter(); c1 = cpu_seconds()\n"
        "arr = [time.perf_counter() - t1 for _ in p.predict_iter(a['paths'])]\n"
        "print(json.dumps({'fixed_s': t1 - t0, 'arrivals': arr, 'first_rows': 1,\n"
        "                  'cpu_s': cpu_seconds() - c1}))\n"
    )
    args = {"model": model, "threads": threads, "workers": workers, "paths": paths}
    out = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent), json.dumps(args)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert len(r["arrivals"]) == len(paths)
    return r


def run_ray(paths, workers, threads, model, batch_size, tiny):
    import edgeocr.ray

    def job(ps):
        meter = TreeCPU().start()
        t0 = time.perf_counter()
        ds = edgeocr.ray.ocr_dataset(
            ps, model, workers=workers, threads=threads, batch_size=batch_size
        )
        arrivals, errors, first_rows = [], 0, None
        for b in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            now = time.perf_counter() - t0
            arrivals += [now] * b.num_rows
            first_rows = first_rows or b.num_rows
            errors += b.num_rows - b.column("error").null_count
        assert len(arrivals) == len(ps) and errors == 0, (len(arrivals), errors)
        time.sleep(1)  # the actors wind down
        return arrivals, first_rows, meter.stop()

    # The fixed cost of a job: N actors started (Ray worker, edgeocr import, models loaded), one
    # one-line image each; its CPU seconds are taken off the real job's to get CPU per page.
    fixed_arrivals, _, fixed_cpu = job([tiny] * workers)
    arrivals, first_rows, cpu = job(paths)
    return {
        "fixed_s": fixed_arrivals[-1],
        "fixed_cpu_s": fixed_cpu,
        "arrivals": arrivals,
        "first_rows": first_rows,
        "cpu_s": cpu - fixed_cpu,
    }


def net(r) -> float:
    """Seconds for all the pages less the start-up: in-process, from the built Predictor to the
    last result; Ray, the job's time to its last result less the whole time of the start-up job
    (actors started, models loaded, one tiny page each). Unlike ``steady`` this holds when
    results arrive in a few large batches."""
    return r["arrivals"][-1] - r.get("fixed_s", 0.0) if "fixed_cpu_s" in r else r["arrivals"][-1]


def steady(r) -> float:
    """Seconds per page from the first result to the last (start-up, first batch excluded)."""
    a, k = r["arrivals"], r["first_rows"]
    return (a[-1] - a[k - 1]) / max(1, len(a) - k)


def _ray_module_at(rev: str):
    """edgeocr.ray at git revision ``rev`` (the module edgeocr/ray.py, or the package edgeocr/ray/
    it became), as ``edgeocr._ray_at_<rev>``: its relative imports of edgeocr are the installed
    package's; Ray sends its classes to the workers by value (the workers cannot import it)."""
    import importlib.util
    import subprocess
    import tempfile

    import ray.cloudpickle

    def git(*argv):
        return subprocess.run(
            ["git", "-C", str(REPO), *argv], check=True, capture_output=True, text=True
        ).stdout

    name = "edgeocr._ray_at_" + "".join(c if c.isalnum() else "_" for c in rev)
    folder = tempfile.mkdtemp(prefix="edgeocr-ray-before-")
    if git("ls-tree", rev, "edgeocr/ray").split()[1:2] == ["tree"]:  # the package: one folder
        files = git("ls-tree", "--name-only", f"{rev}:edgeocr/ray/").split()
        for f in (f for f in files if f.endswith(".py")):
            with open(os.path.join(folder, f), "w", encoding="utf-8") as out:
                out.write(git("show", f"{rev}:edgeocr/ray/{f}"))
        path, search = os.path.join(folder, "__init__.py"), [folder]
    else:
        path, search = os.path.join(folder, "ray_before.py"), None
        with open(path, "w", encoding="utf-8") as out:
            out.write(git("show", f"{rev}:edgeocr/ray.py"))
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=search)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    ray.cloudpickle.register_pickle_by_value(module)
    return module


def _cli_args(paths, out, workers, threads, batch_size, model):
    from edgeocr.cli import build_parser

    argv = ["predict", *paths, "--ray", "--workers", str(workers), "--threads", str(threads)]
    argv += ["--output", out, "--batch-size", str(batch_size)]
    if model:
        argv += ["--model", model]
    return build_parser().parse_args(argv)


def compare_before(args, paths) -> int:
    """--before REV: run_cli of this checkout against run_cli at REV, alternated."""
    import shutil
    import tempfile

    import ray

    import edgeocr.ray as after
    from edgeocr.ray import init_local_ray

    before = _ray_module_at(args.before)
    sides = {"before": before, "after": after}
    configs = [tuple(int(x) for x in c.split("x")) for c in args.configs.split(",")]
    formats = args.formats.split(",")
    init_local_ray(ray, num_cpus=max(w * t for w, t in configs))
    work = tempfile.mkdtemp(prefix="edgeocr-ray-bench-")
    runs = []
    print(
        f"{len(paths)} pages from {args.images}, {args.rounds} rounds, configs {args.configs}, "
        f"formats {args.formats}, batch {args.batch_size}; before = edgeocr.ray at "
        f"{args.before}, after = this checkout; the order flips every round",
        file=sys.stderr,
    )
    for rnd in range(args.rounds):
        for w, t in configs:
            for fmt in formats:
                order = ("before", "after") if rnd % 2 == 0 else ("after", "before")
                for side in order:
                    out = os.path.join(work, f"{side}-{rnd}-{w}x{t}.{fmt}")
                    cli = _cli_args(paths, out, w, t, args.batch_size, args.model)
                    load0 = os.getloadavg()
                    t0 = time.perf_counter()
                    rc = sides[side].run_cli(cli)
                    wall = time.perf_counter() - t0
                    load1 = os.getloadavg()
                    assert rc == 0, (side, rc)
                    shutil.rmtree(out, ignore_errors=True)
                    if os.path.isfile(out):
                        os.remove(out)
                    r = {
                        "side": side,
                        "round": rnd,
                        "workers": w,
                        "threads": t,
                        "format": fmt,
                        "wall_s": wall,
                        "pages_per_s": len(paths) / wall,
                        "load_before": load0,
                        "load_after": load1,
                    }
                    runs.append(r)
                    print(
                        f"  round {rnd} {w}x{t} {fmt:<7} {side:<6} {wall:7.2f} s, "
                        f"{r['pages_per_s']:.3f} pages/s, load {load0[0]:.1f} -> {load1[0]:.1f}",
                        file=sys.stderr,
                    )
    ray.shutdown()
    shutil.rmtree(work, ignore_errors=True)
    print(
        f"\n{len(paths)} pages x {args.rounds} rounds: pages / wall time of the whole command "
        "(actors' start-up included), summed over the rounds; load average (1 min) over the runs"
    )
    head = ("workers x threads", "format", "before pages/s", "after pages/s", "after/before",
            "per round", "load average")  # fmt: skip
    print("  ".join(head))
    for w, t in configs:
        for fmt in formats:
            mine = [r for r in runs if (r["workers"], r["threads"], r["format"]) == (w, t, fmt)]
            b = [r for r in mine if r["side"] == "before"]
            a = [r for r in mine if r["side"] == "after"]
            n = len(paths) * len(b)
            bw, aw = sum(r["wall_s"] for r in b), sum(r["wall_s"] for r in a)
            loads = [x for r in mine for x in (r["load_before"][0], r["load_after"][0])]
            cells = (
                f"{w} x {t}",
                fmt,
                f"{n / bw:.3f}",
                f"{n / aw:.3f}",
                f"{bw / aw:.3f}",
                " ".join(f"{i['wall_s'] / j['wall_s']:.3f}" for j, i in zip(a, b)),
                f"{min(loads):.1f}-{max(loads):.1f}",
            )
            print("  ".join(c.rjust(len(h)) for c, h in zip(cells, head)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "pages": paths,
                    "before": args.before,
                    "runs": runs,
                    "batch_size": args.batch_size,
                    "cpus": os.cpu_count(),
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                },
                f,
                indent=1,
            )
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    shared = os.environ.get("EDGEOCR_SHARED_DIR", str(REPO.parent / "shared"))
    ap.add_argument("--images", default=os.path.join(shared, "datasets", "dev", "images"))
    ap.add_argument("--limit", type=int, default=8)
    ap.add_argument("--max-pixels", type=float, default=0, help="skip larger pages (0: keep all)")
    ap.add_argument("--configs", default="1x2,2x1", help="workers x threads, comma-separated")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--model", default=None)
    ap.add_argument(
        "--batch-size",
        type=int,
        default=1,
        help="pages per actor call (default 1: the most Ray calls per page, the worst case)",
    )
    ap.add_argument("--json", help="write every run's figures here")
    ap.add_argument(
        "--before",
        metavar="REV",
        help="compare `edgeocr predict --ray` with edgeocr.ray at this git revision",
    )
    ap.add_argument("--formats", default="parquet,jsonl", help="with --before: --output kinds")
    args = ap.parse_args(argv)

    import ray

    paths = pick(args.images, args.limit, args.max_pixels)
    if args.before:
        return compare_before(args, paths)
    tiny = str(REPO / "tests" / "data" / "line_en.png")
    configs = [tuple(int(x) for x in c.split("x")) for c in args.configs.split(",")]
    # As edgeocr starts a local Ray (edgeocr.ray.init_local_ray): workers at this process's
    # priority, as the in-process run is; Ray's default (niceness 15) would measure the OS
    # scheduler, not Ray (docs/scale-out.md).
    from edgeocr.ray import init_local_ray

    init_local_ray(ray, num_cpus=max(w * t for w, t in configs))
    ray.data.DataContext.get_current().enable_progress_bars = False
    runs = []
    print(
        f"{len(paths)} pages from {args.images}, {args.rounds} rounds, configs {args.configs}, "
        f"batch {args.batch_size}; in-process and Ray alternate, order flipped every round",
        file=sys.stderr,
    )
    for rnd in range(args.rounds):
        for w, t in configs:
            order = ("in-process", "ray") if rnd % 2 == 0 else ("ray", "in-process")
            for side in order:
                if side == "ray":
                    r = run_ray(paths, w, t, args.model, args.batch_size, tiny)
                else:
                    r = run_in_process(paths, w, t, args.model, args.batch_size)
                r.update(
                    side=side, workers=w, threads=t, round=rnd, steady_s=steady(r), net_s=net(r)
                )
                runs.append(r)
                print(
                    f"  round {rnd} {w}x{t} {side:<10} first result {r['arrivals'][0]:6.2f} s, "
                    f"all {r['arrivals'][-1]:6.2f} s, net {r['net_s']:.2f} s, "
                    f"steady {r['steady_s']:.3f} s/page, "
                    f"CPU {r['cpu_s'] / len(paths):.3f} s/page",
                    file=sys.stderr,
                )
    ray.shutdown()

    print(
        f"\n{len(paths)} pages x {args.rounds} rounds, batch {args.batch_size}. "
        "Wall: all pages less the start-up (in-process: from the built Predictor to the last "
        "result; Ray: the job to its last result less the start-up job of one tiny page per "
        "actor), Ray / in-process - 1. "
        "CPU: seconds per page of the in-process run's own process (no Ray in it) and of "
        "the driver + Ray daemons + actors (Ray, less a job of one tiny page per actor), "
        "Ray / in-process - 1."
    )
    head = (
        "workers x threads",
        "in-process pages/s",
        "Ray pages/s",
        "Ray wall overhead",
        "per round",
        "in-process CPU s/page",
        "Ray CPU s/page",
        "Ray CPU overhead",
        "per round",
        "Ray start-up s (CPU s)",
    )
    print("  ".join(head))
    print("  ".join("-" * len(h) for h in head))
    for w, t in configs:
        mine = [r for r in runs if r["workers"] == w and r["threads"] == t]
        ip = [r for r in mine if r["side"] == "in-process"]
        ry = [r for r in mine if r["side"] == "ray"]
        ip_s, ry_s = sum(r["net_s"] for r in ip), sum(r["net_s"] for r in ry)
        ip_c, ry_c = sum(r["cpu_s"] for r in ip), sum(r["cpu_s"] for r in ry)
        n = len(paths) * len(ip)
        cells = (
            f"{w} x {t}",
            f"{n / ip_s:.3f}",
            f"{n / ry_s:.3f}",
            f"{ry_s / ip_s - 1:+.1%}",
            " ".join(f"{r['net_s'] / i['net_s'] - 1:+.1%}" for r, i in zip(ry, ip)),
            f"{ip_c / n:.3f}",
            f"{ry_c / n:.3f}",
            f"{ry_c / ip_c - 1:+.1%}",
            " ".join(f"{r['cpu_s'] / i['cpu_s'] - 1:+.1%}" for r, i in zip(ry, ip)),
            f"{statistics.median(r['fixed_s'] for r in ry):.1f} "
            f"({statistics.median(r['fixed_cpu_s'] for r in ry):.1f})",
        )
        print("  ".join(c.rjust(len(h)) for c, h in zip(cells, head)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "pages": paths,
                    "runs": runs,
                    "batch_size": args.batch_size,
                    "cpus": os.cpu_count(),
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                },
                f,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
