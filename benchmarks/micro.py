#!/usr/bin/env python3
"""Micro-benchmarks: edgeocr's fused C++ kernels vs the OpenCV + numpy steps they replace.

    python benchmarks/micro.py [--runs 30] [--image PATH] [--json out.json]

Each pair gets the same input, is checked for the same output within a stated
tolerance, then is timed alternately (the order flips every run); the table
gives medians and the speed-up (baseline / edgeocr):

* det preprocessing: `kernels.det_preprocess` vs `cv2.resize` + numpy
  normalise + HWC->CHW (RapidOCR's DetPreProcess), on the image resized to
  `kernels.det_target_size` (min 736). Tolerance: max |diff| <= 2 grey levels
  (0.0157 after /255, -0.5, /0.5): both are OpenCV's bilinear geometry,
  OpenCV rounds through fixed point.
* crop: `kernels.crop_preprocess` (perspective sampling straight into the
  48 x W rec input) vs `cv2.getPerspectiveTransform` + `cv2.warpPerspective`
  (cubic, as PaddleOCR) + `cv2.resize` + numpy normalise + zero padding, over
  the det boxes of the image (timed). Checked against the same sampling done
  by one `cv2.warpPerspective` (bilinear, replicated border) straight to the
  output size: mean |diff| < 0.5 grey levels per crop, 99th percentile < 5
  (OpenCV rounds its bilinear weights to 1/32 pixel). The two-step baseline
  resamples twice (cubic then linear), so its difference is reported, not
  checked.
* DB post-processing: `kernels.db_postprocess` vs RapidOCR 1.4.4's
  `DBPostProcess` (OpenCV contours + pyclipper + shapely) + its box order and
  clip, on the det model's real output for the image, same settings
  (thresh 0.3, box_thresh 0.5, unclip 1.6, dilation). Tolerance: every box
  matched one to one, corners within 3 px.
* CTC: `kernels.ctc_greedy_decode` vs numpy argmax/merge/drop-blank (RapidOCR's
  CTCLabelDecode), on the rec model's real outputs for the image's lines.
  Tolerance: identical text, score within 1e-5.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import _bench
import cv2
import numpy as np

import edgeocr
from edgeocr import _core
from edgeocr.bench import charset_from_metadata, crop_image, ctc_greedy_decode
from edgeocr.models import resolve_model_set

K = _core.kernels
cv2.setNumThreads(1)  # the kernels run on one thread; so does OpenCV here
GREY = 1.0 / 255.0 / 0.5  # one grey level after normalisation


def timed(pairs: dict, runs: int) -> dict:
    """pairs: name -> callable; alternate calls, return name -> list of ms."""
    names = list(pairs)
    for f in pairs.values():
        f()
    out = {n: [] for n in names}
    for i in range(runs):
        for n in names if i % 2 == 0 else names[::-1]:
            t0 = time.perf_counter()
            pairs[n]()
            out[n].append((time.perf_counter() - t0) * 1000.0)
    return out


def det_pre(img, runs):
    h, w = img.shape[:2]
    ow, oh = K.det_target_size(w, h, "min", 736, 2000)
    mean = np.array([0.5, 0.5, 0.5], np.float32)
    std = np.array([0.5, 0.5, 0.5], np.float32)

    def base():
        x = cv2.resize(img, (ow, oh))
        x = (x.astype(np.float32) * (1.0 / 255.0) - mean) / std
        return np.ascontiguousarray(x.transpose(2, 0, 1))

    def fused():
        return K.det_preprocess(img, ow, oh)

    diff = float(np.abs(base() - fused()).max())
    return {
        "what": f"det preprocessing {w}x{h} -> {ow}x{oh}",
        "check": f"max |diff| = {diff / GREY:.2f} grey levels (<= 2)",
        "ok": diff <= 2 * GREY + 1e-6,
        "ms": timed({"baseline": base, "edgeocr": fused}, runs),
    }


def crops(img, boxes, runs):
    H = 48
    items = []
    for q in boxes:
        w = max(np.linalg.norm(q[0] - q[1]), np.linalg.norm(q[3] - q[2]))
        h = max(np.linalg.norm(q[0] - q[3]), np.linalg.norm(q[1] - q[2]))
        if w <= 3 or h <= 3 or h / w >= 1.5:
            continue
        out_w = max(1, int(np.ceil(H * w / h)))
        dst_w = max(320, ((out_w + 63) // 64) * 64)
        items.append((q, out_w, dst_w))

    def base():
        outs = []
        for q, out_w, dst_w in items:
            c = crop_image(img, q)  # getPerspectiveTransform + warpPerspective (cubic)
            rw = min(dst_w, out_w)
            x = cv2.resize(c, (rw, H)).astype(np.float32).transpose(2, 0, 1) / 255.0
            x = (x - 0.5) / 0.5
            pad = np.zeros((3, H, dst_w), np.float32)
            pad[:, :, :rw] = x
            outs.append(pad)
        return outs

    def fused():
        return [K.crop_preprocess(img, q, out_w, H, dst_w) for q, out_w, dst_w in items]

    # The same sampling in one OpenCV call: the homography from output pixel centres
    # ((u + 0.5) * crop_w / out_w - 0.5, ...) to the source, bilinear, replicated border.
    def one_step(q, out_w, dst_w):
        cw = int(max(np.linalg.norm(q[0] - q[1]), np.linalg.norm(q[3] - q[2])))
        ch = int(max(np.linalg.norm(q[0] - q[3]), np.linalg.norm(q[1] - q[2])))
        cw, ch = max(cw, 1), max(ch, 1)
        rect = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
        m = cv2.getPerspectiveTransform(rect, q.astype(np.float32))
        sx, sy = cw / out_w, ch / H
        s = np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1]])
        x = cv2.warpPerspective(
            img,
            m @ s,
            (out_w, H),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return (x.astype(np.float32).transpose(2, 0, 1) / 255.0 - 0.5) / 0.5

    ours = fused()
    two = [
        float(np.abs(a[:, :, : it[1]] - b[:, :, : it[1]]).mean()) / GREY
        for a, b, it in zip(base(), ours, items)
    ]
    one = [np.abs(one_step(*it) - b[:, :, : it[1]]) / GREY for b, it in zip(ours, items)]
    # Interior pixels only: at the crop's first/last sample edgeocr clamps the crop coordinate
    # to the crop (as a materialised crop would), OpenCV does not.
    inner = [d[:, 1:-1, 1:-1] for d in one if d.shape[1] > 2 and d.shape[2] > 2]
    mean1 = max((float(d.mean()) for d in inner), default=0.0)
    p99 = max((float(np.percentile(d, 99)) for d in inner), default=0.0)
    return {
        "what": f"crop + warp + resize + normalise, {len(items)} lines",
        "check": f"vs one-step cv2.warpPerspective bilinear: mean |diff| per crop <= {mean1:.2f} "
        f"grey levels (< 0.5), p99 <= {p99:.1f} (< 5: OpenCV's 1/32-pixel weights); "
        f"vs the two-step baseline: mean <= {max(two, default=0.0):.2f} (cubic + linear "
        "resampling)",
        "ok": mean1 < 0.5 and p99 < 5,
        "ms": timed({"baseline": base, "edgeocr": fused}, runs),
    }


def db_post(prob, src_w, src_h, runs):
    from rapidocr_onnxruntime.ch_ppocr_det.text_detect import TextDetector
    from rapidocr_onnxruntime.ch_ppocr_det.utils import DBPostProcess

    post = DBPostProcess(
        thresh=0.3,
        box_thresh=0.5,
        max_candidates=1000,
        unclip_ratio=1.6,
        score_mode="fast",
        use_dilation=True,
    )
    order = TextDetector.order_points_clockwise
    clip = TextDetector.clip_det_res
    pred = prob.reshape(1, 1, *prob.shape[-2:])

    def base():
        boxes, _ = post(pred, (src_h, src_w))
        out = []
        for b in boxes:  # RapidOCR's filter_tag_det_res
            b = clip(None, order(None, b.astype(np.float32)), src_h, src_w)
            if int(np.linalg.norm(b[0] - b[1])) > 3 and int(np.linalg.norm(b[0] - b[3])) > 3:
                out.append(b)
        return out

    def fused():
        return K.db_postprocess(prob, src_w, src_h, 0.3, 0.5, 1.6, 1000, True)[0]

    a, b = base(), fused()
    unmatched, worst = len(a) + len(b), 0.0
    used = set()
    for qa in a:
        d = [(float(np.abs(qa - qb).max()), j) for j, qb in enumerate(b) if j not in used]
        if d:
            dist, j = min(d)
            if dist <= 3.0:
                used.add(j)
                unmatched -= 2
                worst = max(worst, dist)
    return {
        "what": f"DB post-processing, map {prob.shape[-1]}x{prob.shape[-2]}, {len(b)} boxes",
        "check": f"RapidOCR {len(a)} / edgeocr {len(b)} boxes, {unmatched} unmatched, "
        f"corners within {worst:.1f} px (3)",
        "ok": unmatched == 0,
        "ms": timed({"baseline": base, "edgeocr": fused}, runs),
    }


def ctc(rows, charset, runs):
    def base():
        return [ctc_greedy_decode(r, charset) for r in rows]

    table = K.Charset(charset)  # converted once, as the pipeline holds it

    def fused():
        return [K.ctc_greedy_decode(r, table) for r in rows]

    same = all(x[0] == y[0] and abs(x[1] - y[1]) < 1e-5 for x, y in zip(base(), fused()))
    return {
        "what": f"CTC greedy decoding, {len(rows)} lines of {rows[0].shape[0]}x{rows[0].shape[1]}",
        "check": "same text, |score diff| < 1e-5" + ("" if same else ": MISMATCH"),
        "ok": same,
        "ms": timed({"baseline": base, "edgeocr": fused}, runs),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=30, help="timed calls per side (default 30)")
    ap.add_argument(
        "--image",
        help="a page image (default: a dev-set form if present, else tests/data/sample_en.png)",
    )
    ap.add_argument(
        "--models",
        default=None,
        help="model set for the real det/rec outputs (default: the default set)",
    )
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args(argv)

    here = os.path.dirname(os.path.abspath(__file__))
    path = args.image
    if path is None:
        dev = os.path.join(
            here, "..", "..", "shared", "datasets", "dev", "images", "finep_form_zh_digital_01.png"
        )
        path = (
            dev
            if os.path.exists(dev)
            else os.path.join(here, "..", "tests", "data", "sample_en.png")
        )
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise SystemExit(f"cannot read {path}")
    info = _bench.machine()
    print(_bench.header(info), flush=True)

    # Real model outputs for the post-processing inputs, computed once.
    paths = resolve_model_set(args.models)
    det = edgeocr.Model(paths["det"], threads=1)
    h, w = img.shape[:2]
    ow, oh = K.det_target_size(w, h, "min", 736, 2000)
    prob = list(det.run(K.det_preprocess(img, ow, oh)[None]).values())[0][0, 0]
    boxes, _ = K.db_postprocess(prob, w, h)
    rec = edgeocr.Model(paths["rec"], threads=1)
    lines = [q for q in boxes if np.linalg.norm(q[0] - q[1]) > np.linalg.norm(q[0] - q[3]) > 3][:24]
    rows = []
    for q in lines:
        x = K.crop_preprocess(img, q, 320, 48, 320)[None]
        rows.append(np.ascontiguousarray(list(rec.run(x).values())[0][0]))
    charset = charset_from_metadata(rec.metadata, rows[0].shape[-1])

    results = [
        det_pre(img, args.runs),
        crops(img, boxes, args.runs),
        db_post(prob, w, h, args.runs),
        ctc(rows, charset, args.runs),
    ]
    table = []
    for r in results:
        b, e = _bench.median(r["ms"]["baseline"]), _bench.median(r["ms"]["edgeocr"])
        table.append(
            [
                r["what"],
                f"{b:.3f}",
                f"{e:.3f}",
                f"{b / e:.1f}x",
                ("ok: " if r["ok"] else "FAIL: ") + r["check"],
            ]
        )
    print(
        f"\n{os.path.basename(path)} ({w}x{h}), {args.runs} alternating runs each, "
        "one thread, median ms"
    )
    print(
        _bench.table(
            ["kernel", "OpenCV/numpy/RapidOCR", "edgeocr", "speed-up", "same output"], table
        )
    )
    _bench.write_json(args.json, {"machine": info, "image": path, "results": results})
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
