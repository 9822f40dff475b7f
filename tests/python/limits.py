"""Run a command in a child process under an address-space limit, a CPU-time
limit and a wall-clock timeout, and report how it ended and its peak RSS.

Hostile inputs (models, images, bundles) are only ever fed to edgeocr this
way, so that a crash, a hang or a runaway allocation fails one test case
instead of taking pytest (or the machine) down.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass

# What every hostile case must stay within (issue 13).
PEAK_RSS_MB = 1200
CPU_SECONDS = 15
# The address-space cap makes a runaway allocation fail fast instead of
# swapping; it is above PEAK_RSS_MB because ONNX Runtime and Python reserve
# address space they never touch.
ADDRESS_SPACE_MB = 3072
# Wall clock only catches hangs (a loaded machine may be slow: the CPU limit
# above is the real bound).
WALL_SECONDS = 180


@dataclass
class Outcome:
    returncode: int  # negative: killed by that signal
    stdout: str
    stderr: str
    peak_rss_mb: float
    cpu_seconds: float
    timed_out: bool

    def describe(self) -> str:
        return (
            f"rc={self.returncode} timed_out={self.timed_out} peak_rss={self.peak_rss_mb:.0f} MiB "
            f"cpu={self.cpu_seconds:.1f}s\nstdout: {self.stdout[-1500:]}\nstderr: "
            f"{self.stderr[-1500:]}"
        )


def _limits(as_mb: int, cpu_s: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (as_mb << 20, as_mb << 20))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _run_here(cmd, env, cwd, as_mb, cpu_s, wall_s) -> Outcome:
    """Runs `cmd` as a child of this process; its exit status, output, peak RSS and CPU time
    (from wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(
            cmd, stdout=out, stderr=err, env=env, cwd=cwd, preexec_fn=_limits(as_mb, cpu_s)
        )
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                p.kill()
            except OSError:
                pass

        timer = threading.Timer(wall_s, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Outcome(
            p.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            usage.ru_maxrss / 1024,
            usage.ru_utime + usage.ru_stime,
            timed_out.is_set(),
        )


def run_limited(
    cmd, *, env=None, cwd=None, as_mb=ADDRESS_SPACE_MB, cpu_s=CPU_SECONDS, wall_s=WALL_SECONDS
) -> Outcome:
    """Runs `cmd` under the limits; returns its exit status, output, peak RSS and CPU time.

    The child is started by a small Python process of its own (this file run as a script), not
    by the caller: Linux counts in a child's peak RSS (ru_maxrss) the memory of the process it
    was forked from, so a child forked from a pytest worker that has parsed pages would carry the
    worker's size into its own peak."""
    spec = {
        "cmd": [os.fspath(c) for c in cmd],
        "env": env,
        "cwd": None if cwd is None else os.fspath(cwd),
        "limits": [as_mb, cpu_s, wall_s],
    }
    r = subprocess.run(
        [sys.executable, "-S", os.path.abspath(__file__), "spawn"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        timeout=wall_s + 60,
    )
    if r.returncode != 0:
        raise RuntimeError(f"the spawner of a limited child failed: {r.stderr[-2000:]}")
    return Outcome(**json.loads(r.stdout))


if __name__ == "__main__" and sys.argv[1:] == ["spawn"]:
    _spec = json.loads(sys.stdin.read())
    _o = _run_here(_spec["cmd"], _spec["env"], _spec["cwd"], *_spec["limits"])
    sys.stdout.write(json.dumps(_o.__dict__))
