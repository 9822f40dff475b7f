#!/usr/bin/env python3
"""Image decoding: the core's decoder (csrc/codec/decode.h: libspng, libjpeg-turbo) vs OpenCV's
imdecode, in CPU time of the calling thread (time.thread_time: a loaded machine slows both
alike, where wall time would mostly measure the load).

    python benchmarks/decode.py [--runs 5] [--json out.json] [FILE_OR_FOLDER ...]

Default files: the dev set's photos and pages (../shared/datasets/dev/images) and
tests/data/*.png. Each file is decoded by both, checked for the same pixels (OpenCV's flag that
applies the EXIF orientation, as the core does, for files that carry one), then timed `runs`
times each, alternately; the table gives the total CPU seconds per format and the ratio
(OpenCV / core: above 1, the core is faster). OpenCV is held to one thread (cv2.setNumThreads).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

import edgeocr._core as _core
from edgeocr.errors import UnsupportedError

REPO = Path(__file__).resolve().parents[1]
DEFAULT = [REPO.parent / "shared" / "datasets" / "dev" / "images", REPO / "tests" / "data"]


def _files(args) -> list[Path]:
    out = []
    for p in map(Path, args or DEFAULT):
        if p.is_dir():
            out += sorted(f for f in p.iterdir() if f.suffix.lower() in (".png", ".jpg", ".jpeg"))
        elif p.is_file():
            out.append(p)
    return out


def _cpu(fn, data) -> float:
    t = time.thread_time()
    fn(data)
    return time.thread_time() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    cv2.setNumThreads(1)
    files = _files(a.paths)
    if not files:
        print("decode.py: no PNG or JPEG files found", file=sys.stderr)
        return 2

    def core(data):
        return _core.decode_image(data, "bench", 10**9, None)

    totals: dict[str, dict] = {}
    for f in files:
        data = f.read_bytes()
        buf = np.frombuffer(data, np.uint8)
        try:
            got = core(data)
        except UnsupportedError:
            continue  # left to OpenCV by the core (16-bit PNG, ...): nothing to compare
        want = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
        flag = cv2.IMREAD_UNCHANGED
        if want.shape != got.shape:  # an EXIF orientation: the flag that applies it
            flag = cv2.IMREAD_GRAYSCALE if got.ndim == 2 else cv2.IMREAD_COLOR
            want = cv2.imdecode(buf, flag)
        if not np.array_equal(got, want):
            print(f"decode.py: {f}: the pixels differ from OpenCV's", file=sys.stderr)
            return 1
        kind = "JPEG" if data[:3] == b"\xff\xd8\xff" else "PNG"
        t = totals.setdefault(kind, {"files": 0, "megapixels": 0.0, "core_s": 0.0, "opencv_s": 0.0})
        t["files"] += 1
        t["megapixels"] += got.shape[0] * got.shape[1] / 1e6 * a.runs

        def opencv(d, flag=flag):
            return cv2.imdecode(d, flag)

        for i in range(a.runs):  # alternate the order
            if i % 2:
                t["opencv_s"] += _cpu(opencv, buf)
                t["core_s"] += _cpu(core, data)
            else:
                t["core_s"] += _cpu(core, data)
                t["opencv_s"] += _cpu(opencv, buf)
    print(f"libraries: {_core.codec_versions()}; OpenCV {cv2.__version__}")
    print(
        f"{'format':6} {'files':>5} {'MP x runs':>10} {'core CPU s':>11} {'OpenCV CPU s':>13} "
        f"{'OpenCV/core':>11}"
    )
    for kind, t in sorted(totals.items()):
        t["ratio"] = t["opencv_s"] / t["core_s"] if t["core_s"] else float("nan")
        print(
            f"{kind:6} {t['files']:5d} {t['megapixels']:10.1f} {t['core_s']:11.3f} "
            f"{t['opencv_s']:13.3f} {t['ratio']:11.2f}"
        )
    if a.json:
        Path(a.json).write_text(json.dumps(totals, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
