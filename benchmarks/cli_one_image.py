#!/usr/bin/env python3
"""One image from the command line: `edgeocr predict IMAGE` against `tesseract IMAGE -`.

    python benchmarks/cli_one_image.py [IMAGE] [--runs 10] [--threads 2] [--json out.json]
        [--cmd NAME=COMMAND ...]

Each command is started fresh (model load, first call and interpreter start-up all count, as
they do for someone who types the command), the commands alternating run by run (A B, B A, ...)
after one untimed warm-up run each (the page cache then holds the files for all of them). Wall
time is measured around the process; peak RSS is the child's ru_maxrss from wait4. Reported:
median and min wall time, median peak RSS, and each command's ratio to the first (tesseract),
with the load average before and after (the machine is shared: only ratios mean something).
edgeocr's modules are byte-compiled first, as pip does for an installed package.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_once(argv: list[str], env: dict) -> tuple[float, float, int]:
    """(wall seconds, peak RSS MiB, exit status) of one run of argv."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, p.returncode


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("image", nargs="?", default=str(REPO / "tests" / "data" / "sample_en.png"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2, help="OMP_THREAD_LIMIT / --threads")
    ap.add_argument(
        "--cmd",
        action="append",
        default=[],
        help="NAME=COMMAND (IMAGE replaced by the image): more commands to compare",
    )
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    edgeocr_bin = str(Path(sys.executable).with_name("edgeocr"))
    cmds = {
        "tesseract": ["tesseract", args.image, "-"],
        "edgeocr predict": [edgeocr_bin, "predict", args.image, "--threads", str(args.threads)],
    }
    for c in args.cmd:
        name, _, line = c.partition("=")
        cmds[name] = [args.image if a == "IMAGE" else a for a in shlex.split(line)]
    env = dict(os.environ, OMP_THREAD_LIMIT=str(args.threads))
    # An installed package has its bytecode compiled by pip; an editable checkout (and a machine
    # with PYTHONDONTWRITEBYTECODE set) would compile edgeocr's modules on every run.
    import compileall

    import edgeocr

    compileall.compile_dir(str(Path(edgeocr.__file__).parent), quiet=1)
    names = list(cmds)
    for n in names:  # warm-up: the page cache, the int8 cache if any
        _, _, rc = run_once(cmds[n], env)
        if rc != 0:
            raise SystemExit(f"{n}: exit status {rc}: {shlex.join(cmds[n])}")
    load_before = os.getloadavg()
    walls = {n: [] for n in names}
    rss = {n: [] for n in names}
    for r in range(args.runs):
        for n in names if r % 2 == 0 else reversed(names):
            w, m, _ = run_once(cmds[n], env)
            walls[n].append(w)
            rss[n].append(m)
    load_after = os.getloadavg()
    base = statistics.median(walls[names[0]])
    out = {"image": args.image, "runs": args.runs, "threads": args.threads, "commands": {}}
    print(
        f"{args.image}, {args.runs} runs each, alternating; loadavg {load_before} -> {load_after}"
    )
    print("| command | median wall s | min wall s | ratio to tesseract | median peak RSS MiB |")
    print("|---|---|---|---|---|")
    for n in names:
        med = statistics.median(walls[n])
        out["commands"][n] = {
            "argv": cmds[n],
            "wall_s": walls[n],
            "peak_rss_mib": rss[n],
            "median_wall_s": med,
            "ratio": med / base,
            "median_peak_rss_mib": statistics.median(rss[n]),
        }
        print(
            f"| {n} | {med:.3f} | {min(walls[n]):.3f} | {med / base:.2f} | "
            f"{statistics.median(rss[n]):.0f} |"
        )
    out["loadavg"] = [load_before, load_after]
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
