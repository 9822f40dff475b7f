"""Helpers shared by the benchmarks: statistics, RSS, worker subprocesses, tables."""

from __future__ import annotations

import json
import math
import os
import resource
import sys

# The statistics, the host description and the worker protocol live in the package, shared with
# `edgeocr bench`: benchmarks/ uses only the names edgeocr.bench re-exports (its public surface).
from edgeocr.bench import emit, machine, median, p90, render_table  # noqa: F401
from edgeocr.bench import run_worker as _run_worker


def _proc_status_mb(key: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def rss_mb() -> float:
    """Current resident set size of this process (VmRSS), MiB."""
    return _proc_status_mb("VmRSS")


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (ru_maxrss, KiB on Linux), MiB.

    Linux carries the parent's RSS at fork time into the child's ru_maxrss
    across exec, so workers must be started while the parent is still small
    (before it loads any model); `hwm_mb` does not have that bias.
    """
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def hwm_mb() -> float:
    """Peak RSS of this process's current address space (VmHWM), MiB."""
    return _proc_status_mb("VmHWM")


def run_worker(script: str, args: list[str], timeout: float = 900.0) -> dict:
    """Run `python script --worker ...` in a fresh process and return what it emitted.

    Call it before this process loads models: see `peak_rss_mb`.
    """
    return _run_worker([sys.executable, script, *args], timeout)


def memory_figures(rss_import: float, rss_loaded: float, load_s: float) -> dict:
    """A worker's memory report after its runs: RSS at import, after loading, now; peaks; load s."""
    return {
        "rss_import_mb": rss_import,
        "rss_loaded_mb": rss_loaded,
        "load_delta_mb": rss_loaded - rss_import,
        "rss_after_runs_mb": rss_mb(),
        "peak_rss_mb": peak_rss_mb(),
        "hwm_mb": hwm_mb(),
        "load_s": load_s,
    }


def rss_note(name: str, mem: dict) -> str | None:
    """A warning when ru_maxrss and VmHWM disagree (a worker started from a large parent)."""
    if abs(mem["peak_rss_mb"] - mem["hwm_mb"]) <= 2.0:
        return None
    return f"  note: {name} ru_maxrss {mem['peak_rss_mb']:.1f} MiB != VmHWM {mem['hwm_mb']:.1f} MiB"


def header(info: dict) -> str:
    return f"{info['date']}  {info['cpu']}  nproc={info['nproc']}  load average {info['loadavg']}"


def ratio(a: float, b: float) -> str:
    if not b or math.isnan(a) or math.isnan(b):
        return "-"
    return f"{a / b:.2f}x"


def table(header: list[str], rows: list[list]) -> str:
    return render_table(
        [header] + [[c if isinstance(c, str) else f"{c:.1f}" for c in r] for r in rows]
    )


def write_json(path: str | None, data: dict) -> None:
    if not path:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
    print(f"wrote {path}")
