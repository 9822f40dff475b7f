"""The worker protocol of the benchmarks: a measurement alone in a fresh process.

The worker prints one line ``@@EDGEOCR-RESULT {json}`` on stdout (anything
else it prints is ignored); the parent runs it with :func:`run_worker` and
gets the JSON back. A fresh process per measurement keeps peak RSS (VmHWM)
and load time free of what the parent loaded. Used by ``edgeocr bench``
(``--worker``, ``--memory``) and by ``benchmarks/``.
"""

from __future__ import annotations

import json
import subprocess

RESULT_PREFIX = "@@EDGEOCR-RESULT "


def emit(result: dict) -> None:
    """Worker side: hand ``result`` (JSON-serialisable) back to the parent."""
    print(RESULT_PREFIX + json.dumps(result), flush=True)


class WorkerError(RuntimeError):
    """A worker that emitted no result; the message is its exit status and last stderr line."""

    def __init__(self, returncode: int, stdout: str, stderr: str):
        last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
        super().__init__(f"exit {returncode}: {last}")
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_worker(cmd: list[str], timeout: float) -> dict:
    """Run ``cmd`` and return what it emitted; WorkerError if it emitted nothing."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX) :])
    raise WorkerError(proc.returncode, proc.stdout, proc.stderr)
