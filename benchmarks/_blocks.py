"""Block-alternated timing of OCR engines, each alone in its own long-lived process.

Interleaving page by page biases the figures when an engine's thread pool keeps
spinning after a call returns (ONNX Runtime's intra-op threads, OpenMP): the next
engine pays for it. Here each engine reads *all* the pages in one block, the
blocks run one after the other with a pause between them (``gap_s``, default 1 s,
so spinning threads go to sleep), and the order turns round every round:
A B C, C B A, A B C, ... so that no engine always follows the same one.

Every engine lives in a worker process started once (``Engine.cmd``), so it may run
from another virtual environment (an engine that installs under another package's
import name), and its peak RSS is its own. A worker is any program that calls
:func:`serve` with a reader: a callable ``reader(path, lang) -> [{"text", "box",
"score"}, ...]`` (box: four [x, y] points, or None when the engine gives no boxes).

    # worker side (stdlib only here, so any venv can import this file)
    import _blocks
    _blocks.serve(lambda: MyEngine(threads=2))

    # parent side
    engines = [_blocks.Engine("edgeocr", [sys.executable, "w.py", "edgeocr"]), ...]
    with _blocks.Runner(engines, warmup=pages[0]) as r:
        res = r.run(pages, rounds=2)          # {"order", "blocks": {name: [s, ...]}, "lines"}
    r.memory                  # {name: {"hwm_mb", "maxrss_mb", "children_maxrss_mb", "load_s"}}
    ratios(res["blocks"], "edgeocr")          # {name: median of per-round ratios}

The protocol is one JSON object per line: the parent writes a command on the
worker's stdin; the worker answers one line prefixed with ``@@BLOCK ``
(anything else the engine prints on stdout is skipped; stderr goes to a file).
Only the standard library is used in this module.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

PREFIX = "@@BLOCK "


# -- worker side ----------------------------------------------------------------------------
def _status_mb(key: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _answer(obj: dict, out) -> None:
    out.write(PREFIX + json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def serve(make_reader) -> None:
    """Worker main loop: make the reader (timed as load), then answer the parent's commands.

    Commands: {"cmd": "warmup", "page": [path, lang]} (one untimed call),
    {"cmd": "block", "pages": [[path, lang], ...]} (read them all, timed as one block; answers
    the seconds and each page's lines), {"cmd": "quit"} (answers peak RSS and its children's
    largest peak, exits).
    """
    # The engine may print on stdout: answers go to the original stdout, prints to stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    t0 = time.perf_counter()
    try:
        reader = make_reader()
    except BaseException as e:  # noqa: BLE001 -- reported to the parent, which stops
        _answer({"error": f"{type(e).__name__}: {e}"}, out)
        raise
    load_s = time.perf_counter() - t0
    _answer({"ready": True, "load_s": load_s, "rss_loaded_mb": _status_mb("VmRSS")}, out)
    for line in sys.stdin:
        msg = json.loads(line)
        cmd = msg.get("cmd")
        if cmd == "warmup":
            reader(*msg["page"])
            _answer({"ok": True}, out)
        elif cmd == "block":
            lines = []
            t0 = time.perf_counter()
            for path, lang in msg["pages"]:
                lines.append(reader(path, lang))
            seconds = time.perf_counter() - t0
            _answer({"seconds": seconds, "lines": lines if msg.get("lines") else None}, out)
        elif cmd == "quit":
            _answer(
                {
                    "hwm_mb": _status_mb("VmHWM"),
                    "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                    # The largest child process it waited for (an engine that runs a JVM or a
                    # CLI per call): its peak is not in this process's VmHWM.
                    "children_maxrss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
                    / 1024.0,
                    "load_s": load_s,
                },
                out,
            )
            return
        else:
            _answer({"error": f"unknown command {cmd!r}"}, out)


# -- parent side ----------------------------------------------------------------------------
@dataclass
class Engine:
    """An engine to time: its name and the command that starts its worker."""

    name: str
    cmd: list
    env: dict = field(default_factory=dict)  # added to the environment


class WorkerFailed(RuntimeError):
    pass


class _Worker:
    def __init__(self, engine: Engine, timeout: float):
        self.engine, self.timeout = engine, timeout
        self.err = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        env = {**os.environ, **engine.env}
        self.proc = subprocess.Popen(
            engine.cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
            encoding="utf-8",
            env=env,
        )
        self.ready = self.read()

    def read(self) -> dict:
        for line in self.proc.stdout:
            if line.startswith(PREFIX):
                msg = json.loads(line[len(PREFIX) :])
                if "error" in msg:
                    raise WorkerFailed(f"{self.engine.name}: {msg['error']}\n{self.stderr()}")
                return msg
        self.proc.wait(timeout=self.timeout)
        raise WorkerFailed(
            f"{self.engine.name}: worker exited {self.proc.returncode}\n{self.stderr()}"
        )

    def stderr(self, tail: int = 2000) -> str:
        self.err.seek(0)
        return self.err.read()[-tail:]

    def ask(self, msg: dict) -> dict:
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> dict | None:
        try:
            if self.proc.poll() is not None:
                return None
            return self.ask({"cmd": "quit"})
        finally:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=self.timeout)
            finally:
                self.proc.stdout.close()
                self.err.close()


class Runner:
    """Start every engine's worker (one after the other: loads are not timed against each
    other), run alternated blocks, and stop them (their peak RSS in ``.memory``). ``warmup``: a
    page, or {engine name: page} where engines read different pages."""

    def __init__(self, engines: list, warmup=None, timeout: float = 3600.0):
        self.engines, self.warmup, self.timeout = list(engines), warmup, timeout
        self.workers: dict = {}
        self.memory: dict = {}

    def __enter__(self) -> Runner:
        try:
            for e in self.engines:
                w = self.workers[e.name] = _Worker(e, self.timeout)
                warm = self.warmup.get(e.name) if isinstance(self.warmup, dict) else self.warmup
                if warm is not None:
                    w.ask({"cmd": "warmup", "page": list(_page(warm))})
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        for name, w in self.workers.items():
            try:
                mem = w.close()
            except (WorkerFailed, OSError, subprocess.TimeoutExpired, ValueError):
                w.proc.kill()
                w.proc.wait()
                mem = None
            if mem:
                self.memory[name] = {**mem, "rss_loaded_mb": w.ready.get("rss_loaded_mb")}
        self.workers.clear()

    def run(
        self,
        pages: list,
        rounds: int = 2,
        gap_s: float = 1.0,
        keep_lines: bool = True,
        on_block=None,
    ):
        """Read ``pages`` (paths, or (path, lang) pairs) in one block per engine, ``rounds``
        times, the order reversed every other round, ``gap_s`` seconds between blocks.
        ``pages`` may be {engine name: pages} where engines read different files (a page's PNG
        for one, its PDF for another).

        Returns {"order": [[name, ...] per round], "blocks": {name: [seconds per round]},
        "lines": {name: [lines per page]} (the first round's, when keep_lines)};
        ``on_block(name, round, seconds)`` is called after every block (progress, partial saves).
        """
        names = [e.name for e in self.engines]
        if isinstance(pages, dict):
            per = {n: [list(_page(p)) for p in pages[n]] for n in names}
        else:
            per = dict.fromkeys(names, [list(_page(p)) for p in pages])
        blocks = {n: [] for n in names}
        lines: dict = {}
        order = []
        for r in range(rounds):
            seq = names if r % 2 == 0 else names[::-1]
            order.append(list(seq))
            for n in seq:
                time.sleep(gap_s)
                ans = self.workers[n].ask(
                    {"cmd": "block", "pages": per[n], "lines": keep_lines and n not in lines}
                )
                blocks[n].append(ans["seconds"])
                if ans.get("lines") is not None:
                    lines[n] = ans["lines"]
                if on_block is not None:
                    on_block(n, r, ans["seconds"])
        return {"order": order, "blocks": blocks, "lines": lines}


def _page(p) -> tuple:
    if isinstance(p, (list, tuple)):
        return str(p[0]), str(p[1]) if len(p) > 1 else ""
    return str(p), ""


def ratios(blocks: dict, base: str) -> dict:
    """Each engine's time over ``base``'s: the median over rounds of the per-round ratio (both
    blocks of a round ran back to back, so they saw the same load)."""
    out = {}
    for name, secs in blocks.items():
        per_round = [a / b for a, b in zip(secs, blocks[base]) if b > 0]
        out[name] = statistics.median(per_round) if per_round else float("nan")
    return out


def spread(per_round: list) -> tuple:
    """(min, max) of a list of per-round figures."""
    return (min(per_round), max(per_round)) if per_round else (float("nan"), float("nan"))
