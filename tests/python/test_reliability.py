"""Reliability (issue 8): hostile inputs, fuzzing, faults, bounded memory, soak.

What each test shows is summed up in docs/reliability.md. Whatever can crash
the process (decoding hostile files, the corpus of arrays, the fuzz loops,
address-space exhaustion) runs in a child Python with a timeout, so a crash
or a hang is a test failure that names the input, not a dead pytest. The
child is this file run as a script: ``python test_reliability.py corpus|fuzz|huge``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np

try:
    import pytest
except ImportError:  # the child processes only need numpy and edgeocr
    pytest = None

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
MALFORMED = DATA / "malformed"

# Files of the corpus that are the same picture as tests/data/line_en.png, losslessly
# re-encoded: they must read exactly the same text.
LOSSLESS_VARIANTS = ["gray16.png", "rgb16.png"]
# gray_alpha.png is the line at alpha 200: the core composites it onto a background, which changes
# every pixel's contrast, so one character may differ (ppocr-v4-mobile at det_max_upscale 2 read
# "1.284.50" for "1,284.50"); its text must stay within one edit of the reference's.
COMPOSITED_VARIANTS = ["gray_alpha.png"]
# Re-encodings that change pixels: gif.gif is the line converted to Pillow's web palette with
# dithering (up to 40 grey levels off), so only its characters must match, not its spaces.
LOSSY_VARIANTS = ["gif.gif"]
# Files that must be refused (InvalidInputError), never decoded.
MUST_REFUSE = {
    "empty.png": "empty",
    "empty.jpg": "empty",
    "huge_header_100000x100000.png": "more than the limit",
    "huge_header_65000x65000.jpg": "more than the limit",
    "text.png": "not a readable image",
    "truncated_header.png": "not a readable image",
    # Found by the fuzz loop: PIL cannot read this header, so the pixel limit is not checked,
    # and cv2.imdecode raises cv2.error (edgeocr/image_io.py decode_image).
    "gif_huge_screen.gif": "",
}
# No input may make the process grow by more than this (peak RSS).
MAX_RSS_GROWTH_MB = 256
# Files that are well formed and must give a result.
MUST_READ = [
    "one_pixel.png",
    "one_pixel.jpg",
    "wide_1x100000.png",
    "tall_100000x1.png",
    "palette.png",
    "palette_trns.png",
    "rgba.png",
    "cmyk.jpg",
    "progressive.jpg",
    "bilevel.png",
    "bmp.bmp",
    *LOSSLESS_VARIANTS,
    *COMPOSITED_VARIANTS,
    *LOSSY_VARIANTS,
]


# ---------------------------------------------------------------------------
# Hostile numpy arrays. Each maker takes the base image (line_en.png, BGR uint8)
# and returns (array, contiguous equivalent or None). With an equivalent the
# result must equal that of the equivalent; without one, a result or an
# InvalidInputError is enough.


def _huge_stride_view(img):
    # A legal view whose rows are 1 MiB apart: one row of pixels per MiB of a big buffer.
    h, w, c = img.shape
    big = np.zeros((h, 2**20), np.uint8)
    big[:, : w * c] = img.reshape(h, w * c)
    view = np.lib.stride_tricks.as_strided(
        big, shape=(h, w, c), strides=(2**20, c, 1), writeable=False
    )
    return view, np.ascontiguousarray(view)


def _readonly(img):
    a = img.copy()
    a.flags.writeable = False
    return a, img


ARRAY_CASES = {
    "nan_float32": lambda im: (np.full(im.shape, np.nan, np.float32), None),
    "inf_float64": lambda im: (np.full(im.shape, np.inf, np.float64), None),
    "float16_pixels": lambda im: (im.astype(np.float16), None),
    "complex": lambda im: (im.astype(np.complex64), None),
    "object": lambda im: (np.empty((4, 4), object), None),
    "structured": lambda im: (np.zeros((4, 4), dtype=[("a", "u1"), ("b", "f4")]), None),
    "bool": lambda im: (im > 128, None),
    "int32_negative": lambda im: (im.astype(np.int32) - 300, None),
    "int64_huge": lambda im: (np.full(im.shape[:2], 2**62, np.int64), None),
    "uint16_bigendian": lambda im: (im.astype(">u2") * 257, None),
    "uint16": lambda im: (im.astype(np.uint16) * 257, im),
    "fortran_order": lambda im: (np.asfortranarray(im), im),
    "step2_columns": lambda im: (im[:, ::2], np.ascontiguousarray(im[:, ::2])),
    "step3_rows": lambda im: (im[::3], np.ascontiguousarray(im[::3])),
    "negative_rows": lambda im: (im[::-1], np.ascontiguousarray(im[::-1])),
    "negative_cols_channels": lambda im: (
        im[:, ::-1, ::-1],
        np.ascontiguousarray(im[:, ::-1, ::-1]),
    ),
    "rotated_180_view": lambda im: (im[::-1, ::-1], np.ascontiguousarray(im[::-1, ::-1])),
    "transposed": lambda im: (im.transpose(1, 0, 2), np.ascontiguousarray(im.transpose(1, 0, 2))),
    "channel_slice_gray": lambda im: (im[:, :, 1], np.ascontiguousarray(im[:, :, 1])),
    "bgra_from_padded": lambda im: (np.dstack([im, np.full(im.shape[:2], 255, np.uint8)]), None),
    "huge_stride_view": _huge_stride_view,
    "broadcast_zero_stride": lambda im: (
        np.broadcast_to(im[:1], im.shape),
        np.ascontiguousarray(np.broadcast_to(im[:1], im.shape)),
    ),
    "readonly": _readonly,
    "hxwx1": lambda im: (im[:, :, :1], np.ascontiguousarray(im[:, :, 0])),
    "4d_batch_of_1": lambda im: (im[None], None),
    "4d_batch_of_2": lambda im: (np.stack([im, im]), None),
    "5d": lambda im: (im[None, None], None),
    "1d": lambda im: (im.reshape(-1), None),
    "0d": lambda im: (np.array(7, np.uint8), None),
    "empty_0x0": lambda im: (np.zeros((0, 0), np.uint8), None),
    "empty_rows": lambda im: (np.zeros((0, 10, 3), np.uint8), None),
    "empty_cols": lambda im: (im[:, :0], None),
    "zero_channels": lambda im: (np.zeros((10, 10, 0), np.uint8), None),
    "two_channels": lambda im: (im[:, :, :2], None),
    "five_channels": lambda im: (np.dstack([im, im[:, :, :2]]), None),
    "one_by_one": lambda im: (np.zeros((1, 1, 3), np.uint8), None),
    "row_1x100000": lambda im: (np.full((1, 100000, 3), 255, np.uint8), None),
    "col_100000x1": lambda im: (np.full((100000, 1), 0, np.uint8), None),
    "thin_text_strip": lambda im: (
        np.ascontiguousarray(np.tile(im, (1, 40, 1))),
        None,
    ),  # 46 x 18400
    "python_list": lambda im: (im[:2, :2].tolist(), None),
    "none": lambda im: (None, None),
}


# ---------------------------------------------------------------------------
# Children (run as `python test_reliability.py MODE ...`).


def _emit(**kw):
    print(json.dumps(kw), flush=True)


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _outcome(predictor, x):
    import edgeocr

    try:
        return "ok", [ln.text for ln in predictor.predict(x).lines]
    except edgeocr.InvalidInputError as e:
        return "invalid", str(e)
    except BaseException as e:  # noqa: BLE001 - reported to the parent, which fails the test
        return "other", f"{type(e).__name__}: {e}"


def child_corpus():
    import cv2

    import edgeocr

    p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1)
    base = cv2.imread(str(DATA / "line_en.png"))
    gray = cv2.cvtColor(base, cv2.COLOR_BGR2GRAY)
    _emit(case="reference:line_en_gray", outcome=_outcome(p, gray))
    _outcome(p, DATA / "sample_en.png")  # warm up every stage before measuring peak RSS
    for f in sorted(MALFORMED.iterdir()):
        if f.name == "MANIFEST.txt":
            continue
        _emit(start=f"file:{f.name}")
        for kind, x in (("file", f), ("bytes", f.read_bytes())):
            t, rss = time.perf_counter(), _peak_rss_mb()
            res = _outcome(p, x)
            _emit(
                case=f"{kind}:{f.name}",
                outcome=res,
                seconds=round(time.perf_counter() - t, 2),
                rss_growth_mb=round(_peak_rss_mb() - rss, 1),
            )
    for name, make in ARRAY_CASES.items():
        _emit(start=f"array:{name}")
        x, same_as = make(base)
        res = _outcome(p, x)
        ref = _outcome(p, same_as) if same_as is not None else None
        _emit(case=f"array:{name}", outcome=res, reference=ref)


def _mutate(rng, data: bytes, seeds) -> bytes:
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        op = int(rng.integers(0, 8))
        n = len(b)
        if op == 0 and n:  # bit flips
            for _ in range(int(rng.integers(1, 9))):
                i = int(rng.integers(0, n))
                b[i] ^= 1 << int(rng.integers(0, 8))
        elif op == 1 and n:  # interesting byte
            b[int(rng.integers(0, n))] = int(rng.choice([0, 1, 0x7F, 0x80, 0xFF]))
        elif op == 2 and n > 1:  # truncate
            del b[int(rng.integers(1, n)) :]
        elif op == 3:  # insert random bytes
            i = int(rng.integers(0, n + 1))
            b[i:i] = rng.integers(0, 256, int(rng.integers(1, 64)), dtype=np.uint8).tobytes()
        elif (
            op == 4 and n > 8
        ):  # a big 32-bit integer (sizes, lengths) anywhere in the first 64 bytes
            i = int(rng.integers(0, min(n - 4, 64)))
            b[i : i + 4] = int(
                rng.choice(
                    [0, 1, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, int(rng.integers(0, 2**32))]
                )
            ).to_bytes(4, "big")
        elif op == 5 and n > 4:  # duplicate a slice
            i, j = sorted(int(v) for v in rng.integers(0, n, 2))
            b[j:j] = b[i : j + 1]
        elif op == 6:  # splice with another seed
            other = seeds[int(rng.integers(0, len(seeds)))]
            cut = int(rng.integers(0, min(n, len(other)) + 1))
            b = b[:cut] + bytearray(other[cut:])
        elif op == 7 and n > 2:  # a 16-bit size field (JPEG SOF, BMP) set huge
            i = int(rng.integers(0, n - 2))
            b[i : i + 2] = int(rng.choice([0, 0xFFFF, 0x8000])).to_bytes(2, "big")
    return bytes(b[:65536])


def _note_slow(stats, work: Path, data: bytes, seconds: float):
    if seconds > 1.0 and not any(f.startswith("slow decode") for f in stats["failures"]):
        keep = work / f"slow_decode_{stats['decode']}.bin"
        keep.write_bytes(data)
        stats["failures"].append(
            f"slow decode: {seconds:.1f}s for {len(data)} bytes (input {keep}, "
            f"first bytes {data[:40]!r})"
        )


def _fuzz_decode(rng, deadline, work: Path, stats):
    import cv2
    from PIL import Image

    from edgeocr import InvalidInputError
    from edgeocr.image_io import load_image

    base = cv2.imread(str(DATA / "line_en.png"))[:, :120]
    seeds = [cv2.imencode(ext, base)[1].tobytes() for ext in (".png", ".jpg", ".bmp")]
    seeds.append(cv2.imencode(".png", cv2.cvtColor(base, cv2.COLOR_BGR2GRAY))[1].tobytes())
    import io

    for mode in ("P", "RGBA", "I;16"):
        buf = io.BytesIO()
        im = Image.fromarray(base[:, :, 0])
        im = (
            im.convert(mode)
            if mode != "I;16"
            else Image.fromarray(base[:, :, 0].astype(np.uint16) * 257)
        )
        im.save(buf, "PNG" if mode != "P" else "GIF")
        seeds.append(buf.getvalue())
    current = work / "current_decode_input.bin"
    import resource

    # A decoder that tries to allocate gigabytes fails fast instead of swapping the machine;
    # a decode that takes long is reported (it is how such allocations show).
    cap = 3 * 2**30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    while time.monotonic() < deadline:
        data = _mutate(rng, seeds[int(rng.integers(0, len(seeds)))], seeds)
        current.write_bytes(data)  # left behind if the decoder crashes the process
        stats["decode"] += 1
        t = time.monotonic()
        try:
            img = load_image(data)
        except InvalidInputError:
            stats["decode_refused"] += 1
            _note_slow(stats, work, data, time.monotonic() - t)
            continue
        except Exception as e:  # noqa: BLE001
            msg = f"load_image raised {type(e).__name__}: {str(e).strip()[:160]}"
            if not any(
                f.startswith(msg) for f in stats["failures"]
            ):  # one example per distinct failure
                keep = work / f"decode_failure_{stats['decode']}.bin"
                keep.write_bytes(data)
                stats["failures"].append(f"{msg} (input {keep}, first bytes {data[:16]!r})")
            continue
        _note_slow(stats, work, data, time.monotonic() - t)
        ok = (
            isinstance(img, np.ndarray)
            and img.dtype == np.uint8
            and img.flags.c_contiguous
            and (img.ndim == 2 or (img.ndim == 3 and img.shape[2] in (3, 4)))
            and min(img.shape[:2]) >= 1
        )
        if not ok:
            stats["failures"].append(f"load_image returned {type(img)} {getattr(img, 'shape', '')}")
        stats["decode_ok"] += 1
    current.unlink(missing_ok=True)


_SPECIALS = np.array(
    [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 3.4e38, -3.4e38, 1.0, 1e30], np.float32
)


def _random_map(rng, h, w):
    m = (rng.random((h, w), dtype=np.float32) * 0.2).astype(np.float32)
    for _ in range(int(rng.integers(0, 6))):  # text-like blocks
        y0, x0 = int(rng.integers(0, h)), int(rng.integers(0, w))
        m[y0 : y0 + int(rng.integers(1, 30)), x0 : x0 + int(rng.integers(1, 80))] = rng.uniform(
            0.5, 1.0
        )
    if rng.random() < 0.5:  # sprinkle NaN/inf/extremes
        mask = rng.random((h, w)) < rng.choice([0.001, 0.05, 0.5])
        m[mask] = rng.choice(_SPECIALS, int(mask.sum()))
    return m


def _check_db_result(res, src_w, src_h):
    quads, scores = res
    if quads.dtype != np.float32 or quads.ndim != 3 or quads.shape[1:] != (4, 2):
        return f"boxes of shape {quads.shape} {quads.dtype}"
    if scores.shape != (quads.shape[0],):
        return f"scores of shape {scores.shape} for {quads.shape[0]} boxes"
    q = quads[~np.isnan(quads).any(axis=(1, 2))]
    if q.size and (
        q[..., 0].min() < 0
        or q[..., 1].min() < 0
        or q[..., 0].max() > src_w - 1
        or q[..., 1].max() > src_h - 1
    ):
        return f"a corner outside the {src_w}x{src_h} image"
    return None


def _fuzz_db_once(rng, stats):
    from edgeocr import InvalidInputError
    from edgeocr._core import kernels

    h, w = (int(v) for v in rng.integers(1, 200, 2))
    m = _random_map(rng, h, w)
    src_w = int(rng.choice([w, int(rng.integers(-2, 5000)), 2**31 - 1, 1]))
    src_h = int(rng.choice([h, int(rng.integers(-2, 5000)), 1]))
    kw = {}
    for k, lo, hi in (
        ("thresh", -1, 2),
        ("box_thresh", -1, 2),
        ("unclip_ratio", -1, 10),
        ("min_size", -5, 50),
    ):
        if rng.random() < 0.4:
            kw[k] = (
                float(rng.choice(_SPECIALS)) if rng.random() < 0.3 else float(rng.uniform(lo, hi))
            )
    if rng.random() < 0.3:
        kw["max_candidates"] = int(rng.integers(-1, 20))
    kw["use_dilation"] = bool(rng.random() < 0.5)
    kw["score_mode"] = str(rng.choice(["fast", "slow"]))
    view_kind = int(rng.integers(0, 6))
    view = {0: m, 1: m[::-1], 2: m[:, ::2], 3: m.T, 4: m[None, None], 5: np.asfortranarray(m)}[
        view_kind
    ]
    stats["db"] += 1
    try:
        res = kernels.db_postprocess(view, src_w, src_h, **kw)
    except InvalidInputError:
        stats["db_refused"] += 1
        return
    except Exception as e:  # noqa: BLE001
        stats["failures"].append(
            f"db_postprocess raised {type(e).__name__}: {e} (shape {view.shape}, "
            f"src {src_w}x{src_h}, {kw})"
        )
        return
    err = _check_db_result(res, src_w, src_h)
    if err is None and view_kind:  # a view must give what its contiguous copy gives
        again = kernels.db_postprocess(np.ascontiguousarray(view), src_w, src_h, **kw)
        if not (
            np.array_equal(res[0], again[0], equal_nan=True)
            and np.array_equal(res[1], again[1], equal_nan=True)
        ):
            err = "a view and its contiguous copy disagree"
    if err:
        stats["failures"].append(
            f"db_postprocess: {err} (shape {view.shape}, src {src_w}x{src_h}, {kw})"
        )


def ctc_reference(probs: np.ndarray, charset):
    """Greedy CTC in numpy, with the core's NaN rule: NaN never wins over a number."""
    text, conf, prev = [], [], -1
    for row in probs:
        finite = ~np.isnan(row)
        if not finite.any():
            best = 0
        else:
            best = int(np.flatnonzero(finite & (row == row[finite].max()))[0])
        if best != 0 and best != prev:
            text.append(charset[best])
            conf.append(float(row[best]))
        prev = best
    return "".join(text), (float(np.mean(np.array(conf, np.float64))) if conf else 0.0)


def _fuzz_ctc_once(rng, stats):
    from edgeocr import InvalidInputError
    from edgeocr._core import kernels

    T, C = int(rng.integers(0, 80)), int(rng.integers(1, 40))
    pieces = ["a", "b", "\u4e2d", " ", "\U0001f600", "\n", "ab"]
    charset = [""] + [pieces[i % len(pieces)] + str(i) for i in range(1, C)]
    probs = rng.random((T, C), dtype=np.float32)
    if rng.random() < 0.5 and probs.size:
        mask = rng.random((T, C)) < rng.choice([0.01, 0.2, 0.9])
        probs[mask] = rng.choice(_SPECIALS, int(mask.sum()))
    bad_charset = rng.random() < 0.1
    use = charset[:-1] if bad_charset else charset
    view = probs if rng.random() < 0.7 else probs[::-1].copy()[::-1]
    stats["ctc"] += 1
    try:
        text, score = kernels.ctc_greedy_decode(view, use)
    except InvalidInputError:
        stats["ctc_refused"] += 1
        if not bad_charset:
            stats["failures"].append(f"ctc_greedy_decode refused a valid ({T}, {C}) input")
        return
    except Exception as e:  # noqa: BLE001
        stats["failures"].append(f"ctc_greedy_decode raised {type(e).__name__}: {e}")
        return
    if bad_charset:
        stats["failures"].append("ctc_greedy_decode accepted a charset of the wrong length")
        return
    want_text, want_score = ctc_reference(probs, charset)
    if text != want_text or not np.isclose(score, want_score, rtol=1e-5, atol=1e-6, equal_nan=True):
        stats["failures"].append(
            f"ctc_greedy_decode ({T}, {C}): {text!r} {score} != reference "
            f"{want_text!r} {want_score}"
        )


def child_fuzz(seconds: float, seed: int, work: str):
    # Bounded decoding of mutated headers: edgeocr's limit, and OpenCV's own (read when cv2 is
    # imported)
    # for the headers that only OpenCV parses.
    os.environ.setdefault("EDGEOCR_MAX_IMAGE_PIXELS", "4000000")
    os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", "4000000")
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(seed)
    stats = {
        "decode": 0,
        "decode_ok": 0,
        "decode_refused": 0,
        "db": 0,
        "db_refused": 0,
        "ctc": 0,
        "ctc_refused": 0,
        "failures": [],
    }
    t0 = time.monotonic()
    _fuzz_decode(rng, t0 + seconds / 2, Path(work), stats)
    # The kernels get their half even when one slow decode overran the decoding half.
    deadline = max(t0 + seconds, time.monotonic() + seconds / 2)
    while time.monotonic() < deadline:
        _fuzz_db_once(rng, stats)
        _fuzz_ctc_once(rng, stats)
    stats["seconds"] = round(time.monotonic() - t0, 1)
    _emit(**stats)


def child_huge():
    """Kernel inputs far too large for the machine, under a 3 GiB address-space limit."""
    import resource

    from edgeocr import InvalidInputError
    from edgeocr._core import kernels

    cap = 3 * 2**30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    cases = {
        # 50000 x 50000 float32 is 10 GB; a zero-stride view costs nothing until copied.
        "db_broadcast_50000x50000": lambda: kernels.db_postprocess(
            np.broadcast_to(np.float32(0.9), (50000, 50000)), 100, 100
        ),
        "db_contiguous_1x3000000": lambda: kernels.db_postprocess(
            np.zeros((1, 3_000_000), np.float32), 10, 10
        ),
        "db_contiguous_3000000x1": lambda: kernels.db_postprocess(
            np.ones((3_000_000, 1), np.float32), 10, 10
        ),
        "db_noise_2048x2048": lambda: kernels.db_postprocess(
            (np.random.default_rng(8).random((2048, 2048), dtype=np.float32)),
            2048,
            2048,
            box_thresh=0.0,
        ),
        "db_src_int_max": lambda: kernels.db_postprocess(
            np.ones((64, 64), np.float32), 2**31 - 1, 2**31 - 1
        ),
        "ctc_broadcast_T_2e31": lambda: kernels.ctc_greedy_decode(
            np.broadcast_to(np.float32(0.5), (2**31, 1)), [""]
        ),
        "ctc_broadcast_C_2e31": lambda: kernels.ctc_greedy_decode(
            np.broadcast_to(np.float32(0.5), (1, 2**31)), ["", "a"]
        ),
        "ctc_long_1000000x2": lambda: kernels.ctc_greedy_decode(
            np.tile(np.float32([[0.1, 0.9], [0.9, 0.1]]), (500_000, 1)), ["", "a"]
        ),
    }
    for name, fn in cases.items():
        _emit(start=name)
        t = time.perf_counter()
        try:
            r = fn()
            out = (
                "ok",
                f"{len(r[0])} boxes" if isinstance(r[0], np.ndarray) else f"{len(r[0])} chars",
            )
        except (InvalidInputError, ValueError, MemoryError) as e:
            out = (type(e).__name__, str(e)[:200])
        except BaseException as e:  # noqa: BLE001
            out = ("other", f"{type(e).__name__}: {e}"[:300])
        _emit(case=name, outcome=out, seconds=round(time.perf_counter() - t, 2))


def _run_child(args, timeout, env=None):
    """Runs this file as a child; returns (records, last start marker, CompletedProcess)."""
    full_env = dict(os.environ, **(env or {}))
    full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), full_env.get("PYTHONPATH")]))
    try:
        proc = subprocess.run(
            [sys.executable, __file__, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=full_env,
            cwd=str(REPO),
        )
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        starts = [json.loads(x)["start"] for x in out.splitlines() if x.startswith('{"start"')]
        pytest.fail(f"child {args[0]} hung for more than {timeout}s; last input: {starts[-1:]}")
    records, last = [], None
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            rec = json.loads(line)
            if "start" in rec:
                last = rec["start"]
            else:
                records.append(rec)
    if proc.returncode != 0:
        pytest.fail(
            f"child {args[0]} died with status {proc.returncode} on input {last!r}\n"
            f"{proc.stderr[-3000:]}"
        )
    return records, proc


# ---------------------------------------------------------------------------
# Tests

if pytest is not None:

    @pytest.fixture(scope="module")
    def corpus_outcomes(v4_paths):
        if not (MALFORMED / "MANIFEST.txt").exists():
            pytest.skip("tests/data/malformed is missing: python tools/make_malformed.py")
        records, _ = _run_child(["corpus"], timeout=600)
        return {r["case"]: r for r in records}

    def test_malformed_corpus_is_up_to_date():
        proc = subprocess.run(
            [sys.executable, str(REPO / "tools" / "make_malformed.py"), "--check"],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, (
            "tests/data/malformed differs from tools/make_malformed.py:\n" + proc.stderr
        )

    def test_every_malformed_file_gives_a_result_or_invalid_input(corpus_outcomes):
        files = [n for n in corpus_outcomes if n.startswith(("file:", "bytes:"))]
        assert len(files) == 2 * (len(list(MALFORMED.iterdir())) - 1)
        bad = {n: r["outcome"] for n, r in corpus_outcomes.items() if r["outcome"][0] == "other"}
        assert bad == {}
        slow = {n: r["seconds"] for n, r in corpus_outcomes.items() if r.get("seconds", 0) > 60}
        assert slow == {}

    def test_no_malformed_file_makes_memory_balloon(corpus_outcomes):
        grown = {
            n: r["rss_growth_mb"]
            for n, r in corpus_outcomes.items()
            if r.get("rss_growth_mb", 0) > MAX_RSS_GROWTH_MB
        }
        assert grown == {}, f"peak RSS grew by more than {MAX_RSS_GROWTH_MB} MiB (MiB per input)"

    @pytest.mark.parametrize("name", sorted(MUST_REFUSE))
    def test_malformed_file_is_refused(corpus_outcomes, name):
        for kind in ("file", "bytes"):
            outcome, message = corpus_outcomes[f"{kind}:{name}"]["outcome"]
            assert outcome == "invalid" and MUST_REFUSE[name] in message

    @pytest.mark.parametrize("name", MUST_READ)
    def test_unusual_but_valid_file_is_read(corpus_outcomes, name):
        assert corpus_outcomes[f"file:{name}"]["outcome"][0] == "ok"
        assert (
            corpus_outcomes[f"bytes:{name}"]["outcome"]
            == corpus_outcomes[f"file:{name}"]["outcome"]
        )

    def test_lossless_re_encodings_read_the_same_text(corpus_outcomes):
        want = corpus_outcomes["reference:line_en_gray"]["outcome"]
        assert want[0] == "ok" and want[1]
        got = {n: corpus_outcomes[f"file:{n}"]["outcome"] for n in LOSSLESS_VARIANTS}
        assert got == {n: want for n in LOSSLESS_VARIANTS}

    def test_lossy_re_encodings_read_the_same_characters(corpus_outcomes):
        want = corpus_outcomes["reference:line_en_gray"]["outcome"]
        assert want[0] == "ok" and want[1]

        def chars(outcome):
            return [outcome[0], ["".join(t.split()) for t in outcome[1]]]

        got = {n: chars(corpus_outcomes[f"file:{n}"]["outcome"]) for n in LOSSY_VARIANTS}
        assert got == {n: chars(want) for n in LOSSY_VARIANTS}

    def test_composited_re_encodings_read_within_one_edit(corpus_outcomes):
        from edgeocr.evaluate import edit_distance

        want = corpus_outcomes["reference:line_en_gray"]["outcome"]
        assert want[0] == "ok" and want[1]
        for n in COMPOSITED_VARIANTS:
            got = corpus_outcomes[f"file:{n}"]["outcome"]
            assert got[0] == "ok" and len(got[1]) == len(want[1]), (n, got)
            assert all(edit_distance(g, w) <= 1 for g, w in zip(got[1], want[1])), (n, got, want)

    @pytest.mark.parametrize("name", sorted(ARRAY_CASES))
    def test_hostile_array(corpus_outcomes, name):
        rec = corpus_outcomes[f"array:{name}"]
        assert rec["outcome"][0] in ("ok", "invalid"), rec["outcome"]
        if rec["reference"] is not None:  # a view must read like its contiguous copy
            assert rec["outcome"] == rec["reference"]

    def test_fuzz_decoding_and_postprocessing(tmp_path):
        seconds = float(os.environ.get("EDGEOCR_FUZZ_SECONDS", "15"))
        records, _ = _run_child(
            ["fuzz", str(seconds), "8", str(tmp_path)], timeout=seconds * 4 + 60
        )
        (stats,) = records
        print(json.dumps({k: v for k, v in stats.items() if k != "failures"}))
        assert stats["failures"] == []
        # The loop did real work: inputs both accepted and refused on each surface.
        assert stats["decode_ok"] > 20 and stats["decode_refused"] > 20
        assert stats["db"] - stats["db_refused"] > 20 and stats["ctc"] - stats["ctc_refused"] > 20

    def test_huge_kernel_inputs_fail_cleanly_under_an_address_space_limit():
        records, _ = _run_child(["huge"], timeout=300)
        out = {r["case"]: r["outcome"] for r in records}
        assert all(o[0] != "other" for o in out.values()), out
        for name in (
            "db_contiguous_1x3000000",
            "db_contiguous_3000000x1",
            "db_noise_2048x2048",
            "db_src_int_max",
            "ctc_long_1000000x2",
        ):
            assert out[name][0] == "ok", (name, out[name])
        assert out["ctc_long_1000000x2"] == ["ok", "500000 chars"]

    def test_ctc_reference_agrees_on_ties_and_nan():
        from edgeocr._core import kernels

        nan, inf = np.nan, np.inf
        probs = np.array(
            [[nan, -inf], [-inf, nan], [0.5, 0.5], [nan, nan], [nan, 0.3], [0.2, nan]], np.float32
        )
        charset = ["", "x"]
        assert kernels.ctc_greedy_decode(probs, charset)[0] == ctc_reference(probs, charset)[0]

    # -- faults -------------------------------------------------------------------

    def test_model_files_deleted_or_changed_after_load_keep_working(v4_paths, tmp_path):
        import shutil

        import edgeocr

        paths = {}
        for role, p in v4_paths.items():
            paths[role] = tmp_path / f"{role}.onnx"
            shutil.copy(p, paths[role])
        pred = edgeocr.Predictor(**{r: str(p) for r, p in paths.items()}, threads=1)
        img = DATA / "line_en.png"
        want = [ln.text for ln in pred.predict(img).lines]
        assert want
        paths["det"].write_bytes(b"not a model any more")  # changed under the loaded predictor
        paths["rec"].unlink()  # deleted
        paths["cls"].unlink()
        assert [ln.text for ln in pred.predict(img).lines] == want  # weights are in memory
        with pytest.raises(edgeocr.ModelNotFoundError, match="rec.onnx"):
            edgeocr.Predictor(det=v4_paths["det"], cls=v4_paths["cls"], rec=str(paths["rec"]))
        with pytest.raises(edgeocr.ModelError, match="det.onnx"):
            edgeocr.Predictor(str(paths["det"]), task="det")

    def _nb_fixture():
        from conftest import shared_fixture

        return shared_fixture("fixtures/paddle_lite/nb/cls_x86.nb")

    @pytest.mark.parametrize("how", ["file_in_the_way", "read_only_filesystem"])
    def test_nb_cache_that_cannot_be_written_falls_back(tmp_path, monkeypatch, how):
        # The C++ translation cache: an unwritable cache folder means translating on
        # every load, never an error.
        import edgeocr

        nb = _nb_fixture()
        if (
            how == "file_in_the_way"
        ):  # a regular file where the cache folder should be: ENOTDIR for root too
            (tmp_path / "blocker").write_text("x")
            root = tmp_path / "blocker" / "nb"
        else:  # /proc refuses new entries, even for root
            root = Path("/proc/edgeocr-cache-test")
            if not Path("/proc/self").exists():
                pytest.skip("no /proc")
        monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(root))
        for _ in range(2):  # the second load finds no cache entry either, and translates again
            m = edgeocr.Model(str(nb), threads=1)
            x = np.zeros([1 if d < 0 else d for d in m.inputs[0].shape], np.float32)
            out = m.run(x)
            assert all(np.isfinite(v).all() for v in out.values())
        assert not root.exists()
        if how == "disk_full":
            assert not any(root.glob("*.onnx"))  # no half-written entry left behind

    # -- bounded memory --------------------------------------------------------------

    def test_memory_cap_gives_resource_error_on_a_big_image(v4_paths, tmp_path):
        import cv2

        import edgeocr

        p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, max_memory_mb=32)
        small = DATA / "line_en.png"
        assert p.predict(small).lines  # fits the budget
        big = np.full((3000, 4000, 3), 255, np.uint8)
        big[1000:1400, 500:3500] = 0
        path = tmp_path / "big.png"
        cv2.imwrite(str(path), big)
        # Decoded, the page alone is more than the budget: no plan fits (test_budget.py has more).
        with pytest.raises(edgeocr.ResourceError, match="memory budget of 32 MiB is too small"):
            p.predict(path)
        assert isinstance(edgeocr.ResourceError("x"), MemoryError)
        assert p.memory_stats()["high_water_bytes"] <= 32 * 2**20
        assert p.predict(small).lines  # still usable after the refusal

    def test_memory_cap_is_checked_before_use(v4_paths):
        # Predictor(max_memory_mb=-1) must be an InvalidInputError like max_memory_mb=0.
        import edgeocr

        for bad in (0, -1, -0.5):
            with pytest.raises(edgeocr.InvalidInputError, match="max_memory_mb"):
                edgeocr.Predictor(models="ppocr-v4-mobile", max_memory_mb=bad)

    # -- concurrency and soak --------------------------------------------------------------

    def test_mixed_images_from_8_threads_match_sequential(v4_paths):
        import edgeocr

        calls = int(os.environ.get("EDGEOCR_THREAD_CALLS", "12"))
        p = edgeocr.Predictor(
            models="ppocr-v4-mobile", threads=1, det_limit_type="max", det_limit_side_len=960
        )
        base = np.asarray(__import__("cv2").imread(str(DATA / "line_en.png")))
        images = [
            base,
            base[:, :230],
            np.ascontiguousarray(base[::-1, ::-1]),
            np.tile(base, (3, 1, 1)),
            np.full((50, 50, 3), 255, np.uint8),
            base[:, :, 0].copy(),
        ]
        want = [[(ln.text, ln.box.tolist()) for ln in p.predict(im).lines] for im in images]
        errors = []
        stop = threading.Event()

        def work(k):
            rng = np.random.default_rng(k)
            for _ in range(calls):
                if stop.is_set():
                    return
                i = int(rng.integers(0, len(images)))
                try:
                    got = [(ln.text, ln.box.tolist()) for ln in p.predict(images[i]).lines]
                except Exception as e:  # noqa: BLE001
                    errors.append(repr(e))
                    stop.set()
                    return
                if got != want[i]:
                    errors.append(f"thread {k}, image {i}: {got} != {want[i]}")

        ts = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=300)
        assert not any(t.is_alive() for t in ts), "deadlock: threads still running after 300 s"
        assert errors == []
        assert p.memory_stats()["in_use_bytes"] == 0

    def test_soak_reduced(v4_paths):
        calls = os.environ.get("EDGEOCR_SOAK_CALLS", "120")
        proc = subprocess.run(
            [
                sys.executable,
                str(REPO / "tools" / "soak.py"),
                "--calls",
                calls,
                "--warmup",
                "40",
                "--every",
                "20",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        print(proc.stdout)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        summary = json.loads(proc.stdout.split("summary: ", 1)[1].splitlines()[0])
        assert summary["pool_misses_after_warmup"] == 0 and summary["rss_growth"] <= 0.05


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "corpus":
        child_corpus()
    elif mode == "fuzz":
        child_fuzz(float(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif mode == "huge":
        child_huge()
    else:
        raise SystemExit(f"unknown mode {mode}")
