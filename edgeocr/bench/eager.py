"""The Python pipeline that `edgeocr bench` measures edgeocr against.

Two contenders share it and differ only in how the networks run:

* ``onnxruntime``: the ONNX files in a Python ``onnxruntime.InferenceSession``;
* ``eager``: the same ONNX files turned into PyTorch modules by ``onnx2torch``
  and run as a dynamic graph (``torch.inference_mode``, no tracing, no
  ``torch.compile``): the "dynamic graph" side of the static-vs-dynamic
  comparison that deployment guides quote.

Pre- and post-processing follow PaddleOCR's ``tools/infer`` steps in
numpy/OpenCV (as RapidOCR does): ``cv2.resize`` + numpy normalise for det,
DB boxes from ``cv2.findContours`` + ``cv2.minAreaRect`` + pyclipper unclip,
``cv2.getPerspectiveTransform`` + ``cv2.warpPerspective`` (cubic) + resize
for crops, numpy CTC decoding, PaddleOCR's box sort. The settings are
edgeocr's defaults (:class:`edgeocr.PipelineConfig`), so every contender does
the same work. Not done here: edgeocr's ``cls_verify`` re-read of flipped
lines (PaddleOCR has no such step; it only runs when cls flips a line).

Needs ``pyclipper`` (both contenders) and ``torch`` + ``onnx2torch`` (eager).
"""

from __future__ import annotations

import math
import sys
import time
import types

import numpy as np

from ..config import PipelineConfig

ROLES = ("det", "cls", "rec")


# -- networks -----------------------------------------------------------------


class OrtNet:
    """One ONNX model in a Python onnxruntime session (CPU, `threads` intra-op, 1 inter-op)."""

    def __init__(self, path: str, threads: int | None):
        import onnxruntime as ort

        so = ort.SessionOptions()
        if threads:
            so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # edgeocr turns intra-op spinning off by default; so do we, for equal terms on busy CPUs.
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.sess = ort.InferenceSession(path, sess_options=so, providers=["CPUExecutionProvider"])
        self.input_name = self.sess.get_inputs()[0].name
        self.metadata = dict(self.sess.get_modelmeta().custom_metadata_map)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.sess.run(None, {self.input_name: x})[0]


def _torchvision_stub() -> None:
    """Let onnx2torch import without a working torchvision.

    onnx2torch imports torchvision only for its NonMaxSuppression and RoiAlign
    converters, which OCR models do not use. PyPI's torchvision wheels are CUDA
    builds that fail to load next to a CPU-only torch, so when torchvision
    cannot be imported, an empty stand-in takes its place; a model that does
    use those ops fails with NotImplementedError when run.
    """
    try:
        import torchvision  # noqa: F401

        return
    except Exception:  # a broken install raises RuntimeError/OSError, not only ImportError
        for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
            del sys.modules[name]

    def missing(*args, **kwargs):
        raise NotImplementedError("torchvision is not available (NMS/RoiAlign need it)")

    tv = types.ModuleType("torchvision")
    ops = types.ModuleType("torchvision.ops")
    ops.nms = ops.box_convert = ops.roi_align = missing
    tv.ops = ops
    sys.modules["torchvision"] = tv
    sys.modules["torchvision.ops"] = ops


def prepare_for_onnx2torch(model, sample_shape: tuple):
    """Rewrite a paddle2onnx model into a form onnx2torch converts; same numbers.

    Three things stop onnx2torch on PP-OCR exports: weights stored as
    ``Constant`` nodes (it wants initializers), ``auto_pad=SAME_UPPER`` convs
    (PP-OCRv6; made explicit pads, exact when each spatial size is a
    multiple of the stride, as det inputs (multiples of 32) and rec inputs are),
    and ``BatchNormalization`` on tensors whose rank shape inference cannot
    tell (PP-OCRv4 rec's neck; found by running onnxruntime once on a
    zero input of `sample_shape`).
    """
    import onnx
    from onnx import helper

    g = model.graph
    nodes = []
    for n in g.node:
        if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value":
            t = onnx.TensorProto()
            t.CopyFrom(n.attribute[0].t)
            t.name = n.output[0]
            g.initializer.append(t)
        else:
            nodes.append(n)
    del g.node[:]
    g.node.extend(nodes)

    inits = {t.name: t for t in g.initializer}
    for n in g.node:
        if n.op_type not in ("Conv", "MaxPool", "AveragePool"):
            continue
        attrs = {a.name: a for a in n.attribute}
        ap = attrs.get("auto_pad")
        if ap is None or ap.s not in (b"SAME_UPPER", b"SAME_LOWER"):
            continue
        if "kernel_shape" in attrs:
            k = list(attrs["kernel_shape"].ints)
        else:
            k = list(inits[n.input[1]].dims[2:])
        s = list(attrs["strides"].ints) if "strides" in attrs else [1] * len(k)
        d = list(attrs["dilations"].ints) if "dilations" in attrs else [1] * len(k)
        total = [max((kk - 1) * dd + 1 - ss, 0) for kk, ss, dd in zip(k, s, d)]
        lo = [t // 2 if ap.s == b"SAME_UPPER" else t - t // 2 for t in total]
        hi = [t - a for t, a in zip(total, lo)]
        n.attribute.remove(ap)
        if "pads" in attrs:
            n.attribute.remove(attrs["pads"])
        n.attribute.append(helper.make_attribute("pads", lo + hi))

    inferred = onnx.shape_inference.infer_shapes(model)
    rank = {
        v.name: len(v.type.tensor_type.shape.dim)
        for v in inferred.graph.value_info
        if v.type.tensor_type.HasField("shape")
    }
    unknown = sorted(
        {
            n.input[0]
            for n in g.node
            if n.op_type == "BatchNormalization" and not rank.get(n.input[0])
        }
        - {i.name for i in g.input}
    )
    if unknown:
        import onnxruntime as ort

        probe = onnx.ModelProto()
        probe.CopyFrom(model)
        for name in unknown:
            probe.graph.output.append(
                helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None)
            )
        sess = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
        outs = sess.run(unknown, {g.input[0].name: np.zeros(sample_shape, np.float32)})
        for name, o in zip(unknown, outs):
            g.value_info.append(
                helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, [None] * o.ndim)
            )
    return model


_SAMPLE_SHAPES = {"det": (1, 3, 64, 64), "cls": (1, 3, 48, 192), "rec": (1, 3, 48, 320)}


class TorchNet:
    """One ONNX model converted by onnx2torch, run eagerly on the CPU."""

    def __init__(self, path: str, role: str, threads: int | None):
        _torchvision_stub()
        import onnx
        import onnx2torch
        import torch

        if threads:
            torch.set_num_threads(threads)
        model = onnx.load(path)
        self.metadata = {p.key: p.value for p in model.metadata_props}
        try:
            self.module = onnx2torch.convert(
                prepare_for_onnx2torch(model, _SAMPLE_SHAPES[role])
            ).eval()
        except NotImplementedError as e:
            raise RuntimeError(f"onnx2torch cannot convert {path}: {e}") from e
        self._torch = torch

    def __call__(self, x: np.ndarray) -> np.ndarray:
        with self._torch.inference_mode():
            y = self.module(self._torch.from_numpy(x))
        if isinstance(y, (list, tuple)):
            y = y[0]
        return y.numpy()


def set_torch_interop_threads(n: int = 1) -> None:
    """torch's inter-op pool can be sized only before its first parallel work; call early."""
    import torch

    try:
        torch.set_num_interop_threads(n)
    except RuntimeError:
        pass


# -- numpy/OpenCV steps (PaddleOCR tools/infer, as RapidOCR writes them) ------


def det_target_size(
    w: int,
    h: int,
    limit_type: str,
    limit_side_len: int,
    max_side_len: int,
    max_upscale: float = 1000.0,
) -> tuple:
    """PaddleOCR DetResizeForTest (type 0), with edgeocr's caps on the enlargement and the long
    side."""
    ratio = 1.0
    if limit_type == "max":
        if max(w, h) > limit_side_len:
            ratio = limit_side_len / max(w, h)
    elif min(w, h) < limit_side_len:
        ratio = limit_side_len / min(w, h)
    capped = ratio > float(np.float32(max_upscale)) and max_upscale > 1
    ratio = min(ratio, float(np.float32(max_upscale)))
    rw, rh = int(w * ratio), int(h * ratio)
    if max(rw, rh) > max_side_len:
        cap = max_side_len / max(rw, rh)
        rw, rh = int(rw * cap), int(rh * cap)
        capped = False

    def side(v):  # a capped enlargement is rounded up (within max_side_len), as the core does
        up = max(-(-v // 32) * 32, 32)
        return up if capped and up <= max_side_len else max(int(round(v / 32) * 32), 32)

    return side(rw), side(rh)


def det_preprocess(
    img: np.ndarray, out_w: int, out_h: int, mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5)
) -> np.ndarray:
    """cv2.resize (bilinear) + numpy normalise + HWC->CHW: float32 (3, out_h, out_w)."""
    resized = cv2_resize(img, out_w, out_h)
    x = (resized.astype(np.float32) * (1.0 / 255.0) - np.asarray(mean, np.float32)) / np.asarray(
        std, np.float32
    )
    return x.transpose(2, 0, 1)


def cv2_resize(img, w, h):
    import cv2

    return cv2.resize(img, (int(w), int(h)))


def _mini_box(contour) -> tuple:
    import cv2

    rect = cv2.minAreaRect(contour)
    pts = sorted(list(cv2.boxPoints(rect)), key=lambda p: p[0])
    i1, i4 = (0, 1) if pts[1][1] > pts[0][1] else (1, 0)
    i2, i3 = (2, 3) if pts[3][1] > pts[2][1] else (3, 2)
    return np.array([pts[i1], pts[i2], pts[i3], pts[i4]], np.float32), min(rect[1])


def _box_score_fast(pred: np.ndarray, box: np.ndarray) -> float:
    import cv2

    h, w = pred.shape
    xmin = int(np.clip(np.floor(box[:, 0].min()), 0, w - 1))
    xmax = int(np.clip(np.ceil(box[:, 0].max()), 0, w - 1))
    ymin = int(np.clip(np.floor(box[:, 1].min()), 0, h - 1))
    ymax = int(np.clip(np.ceil(box[:, 1].max()), 0, h - 1))
    mask = np.zeros((ymax - ymin + 1, xmax - xmin + 1), np.uint8)
    shifted = box - np.array([xmin, ymin], np.float32)
    cv2.fillPoly(mask, shifted.reshape(1, -1, 2).astype(np.int32), 1)
    return cv2.mean(pred[ymin : ymax + 1, xmin : xmax + 1], mask)[0]


def _unclip(box: np.ndarray, ratio: float) -> np.ndarray:
    import cv2
    import pyclipper

    area = abs(cv2.contourArea(box))
    length = cv2.arcLength(box, True)
    distance = area * ratio / length
    off = pyclipper.PyclipperOffset()
    off.AddPath(box.tolist(), pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    out = off.Execute(distance)
    return np.array(out[0] if len(out) == 1 else out, dtype=np.float32).reshape(-1, 1, 2)


def _order_clockwise(pts: np.ndarray) -> np.ndarray:
    xs = pts[np.argsort(pts[:, 0]), :]
    left, right = xs[:2], xs[2:]
    tl, bl = left[np.argsort(left[:, 1])]
    tr, br = right[np.argsort(right[:, 1])]
    return np.array([tl, tr, br, bl], np.float32)


def db_postprocess(
    pred: np.ndarray,
    src_w: int,
    src_h: int,
    thresh: float = 0.3,
    box_thresh: float = 0.5,
    unclip_ratio: float = 1.6,
    max_candidates: int = 1000,
    use_dilation: bool = True,
    min_size: float = 3.0,
) -> tuple:
    """DB boxes as PaddleOCR/RapidOCR find them: (float32 (N, 4, 2) clockwise, scores (N,))."""
    import cv2

    pred = np.asarray(pred, np.float32).reshape(pred.shape[-2:])
    mask = (pred > thresh).astype(np.uint8)
    if use_dilation:
        mask = cv2.dilate(mask, np.ones((2, 2), np.uint8))
    height, width = mask.shape
    contours, _ = cv2.findContours(mask * 255, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    boxes, scores = [], []
    for contour in contours[:max_candidates]:
        pts, sside = _mini_box(contour)
        if sside < min_size:
            continue
        score = _box_score_fast(pred, pts)
        if box_thresh > score:
            continue
        expanded = _unclip(pts, unclip_ratio)
        if expanded.size == 0:
            continue
        box, sside = _mini_box(expanded)
        if sside < min_size + 2:
            continue
        box[:, 0] = np.clip(np.round(box[:, 0] / width * src_w), 0, src_w)
        box[:, 1] = np.clip(np.round(box[:, 1] / height * src_h), 0, src_h)
        box = _order_clockwise(box)
        box[:, 0] = np.clip(box[:, 0], 0, src_w - 1)
        box[:, 1] = np.clip(box[:, 1], 0, src_h - 1)
        if int(np.linalg.norm(box[0] - box[1])) <= 3 or int(np.linalg.norm(box[0] - box[3])) <= 3:
            continue
        boxes.append(box)
        scores.append(score)
    if not boxes:
        return np.zeros((0, 4, 2), np.float32), np.zeros((0,), np.float32)
    return np.stack(boxes).astype(np.float32), np.asarray(scores, np.float32)


def crop_image(img: np.ndarray, quad: np.ndarray, rotate_ratio: float = 1.5) -> np.ndarray:
    """PaddleOCR get_rotate_crop_image: cubic perspective warp; tall crops turned 90 degrees."""
    import cv2

    quad = np.asarray(quad, np.float32)
    w = int(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3])))
    h = int(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])))
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(quad, dst)
    crop = cv2.warpPerspective(
        img, m, (w, h), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC
    )
    if crop.shape[0] / max(crop.shape[1], 1) >= rotate_ratio:
        crop = np.rot90(crop)
    return crop


def resize_norm(crop: np.ndarray, height: int, width: int, mean=0.5, std=0.5) -> np.ndarray:
    """PaddleOCR resize_norm_img: aspect ratio kept, at most `width` wide, zero-padded right."""
    import cv2

    h, w = crop.shape[:2]
    rw = min(width, int(math.ceil(height * w / float(h))))
    x = cv2.resize(crop, (rw, height)).astype(np.float32).transpose(2, 0, 1) / 255.0
    x = (x - mean) / std
    out = np.zeros((3, height, width), np.float32)
    out[:, :, :rw] = x
    return out


def ctc_greedy_decode(probs: np.ndarray, charset: list) -> tuple:
    """numpy CTC: argmax, merge repeats, drop blanks (0); (text, mean prob of kept steps)."""
    idx = probs.argmax(axis=-1)
    prob = probs.max(axis=-1)
    keep = np.ones(idx.shape, bool)
    keep[1:] = idx[1:] != idx[:-1]
    keep &= idx != 0
    text = "".join(charset[i] for i in idx[keep])
    return text, float(prob[keep].mean()) if keep.any() else 0.0


def sorted_boxes(boxes: list) -> list:
    """PaddleOCR's reading order: by (y, x) of the top-left corner, then swaps within 10 px."""
    order = sorted(range(len(boxes)), key=lambda i: (boxes[i][0][1], boxes[i][0][0]))
    for i in range(len(order) - 1):
        for j in range(i, -1, -1):
            a, b = boxes[order[j]], boxes[order[j + 1]]
            if abs(b[0][1] - a[0][1]) < 10 and b[0][0] < a[0][0]:
                order[j], order[j + 1] = order[j + 1], order[j]
            else:
                break
    return order


def charset_from_metadata(metadata: dict, n_classes: int | None) -> list:
    chars = (metadata.get("character") or "").splitlines()
    if not chars:
        raise RuntimeError("the rec model carries no 'character' metadata")
    if n_classes in (None, -1, len(chars) + 2):
        return ["", *chars, " "]
    return ["", *chars]


def _to_bgr(img: np.ndarray) -> np.ndarray:
    import cv2

    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 1:
        return cv2.cvtColor(img[:, :, 0], cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    return img


# -- the pipeline ---------------------------------------------------------------


class PythonPipeline:
    """det -> cls -> rec with Python steps; `backend` is "onnxruntime" or "eager".

    ``predict_batch(images, batch)``: det runs per image (the images' det
    inputs differ in size), then the crops of all the images are pooled and
    classified / recognised in batches of ``max(6, batch)`` crops: this is
    where a dynamic graph gets to batch.
    """

    def __init__(
        self,
        paths: dict | None = None,
        backend: str = "onnxruntime",
        threads: int | None = None,
        config: PipelineConfig | None = None,
        *,
        nets: dict | None = None,
    ):
        self.config = config or PipelineConfig()
        if nets is not None:  # another runtime's networks (from_nets)
            self.backend, self.nets = "custom", dict(nets)
        elif backend == "eager":
            self.backend = backend
            self.nets = {r: TorchNet(paths[r], r, threads) for r in ROLES if paths.get(r)}
        elif backend == "onnxruntime":
            self.backend = backend
            self.nets = {r: OrtNet(paths[r], threads) for r in ROLES if paths.get(r)}
        else:
            raise ValueError(f"backend: expected 'onnxruntime' or 'eager', got {backend!r}")
        if "det" not in self.nets or "rec" not in self.nets:
            raise ValueError("the Python pipeline needs det and rec models")
        # The class count decides whether the space is a class: probe the rec model once.
        n_classes = self.nets["rec"](
            np.zeros((1, 3, self.config.rec_height, 320), np.float32)
        ).shape[-1]
        if paths and paths.get("keys"):  # a set whose rec model names a dictionary file
            from .._core import loader

            chars = loader.read_keys_file(paths["keys"])
            self.charset = charset_from_metadata({"character": "\n".join(chars)}, n_classes)
        else:
            self.charset = charset_from_metadata(self.nets["rec"].metadata, n_classes)

    @classmethod
    def from_nets(cls, nets: dict, config: PipelineConfig | None = None) -> PythonPipeline:
        """The pipeline over callables ``nets[role](x) -> output`` with a ``metadata`` dict
        (another runtime's networks, e.g. Paddle Inference: edgeocr.bench.paddle)."""
        return cls(config=config, nets=nets)

    def _timed(self, role: str, x: np.ndarray, t: dict) -> np.ndarray:
        t0 = time.perf_counter()
        y = self.nets[role](np.ascontiguousarray(x))
        t[f"{role}_model"] += time.perf_counter() - t0
        return y

    def predict(self, img: np.ndarray) -> dict:
        return self.predict_batch([img], 1)[0]

    def predict_batch(self, images: list, batch: int = 1) -> list:
        c = self.config
        results, crops = [], []  # crops: (image index, box index, crop array)
        for k, img in enumerate(images):
            t = dict.fromkeys(
                ("det", "cls", "rec", "total", "det_model", "cls_model", "rec_model"), 0.0
            )
            t_start = time.perf_counter()
            img = _to_bgr(img)
            h, w = img.shape[:2]
            ow, oh = det_target_size(
                w, h, c.det_limit_type, c.det_limit_side_len, c.det_max_side_len, c.det_max_upscale
            )
            x = det_preprocess(img, ow, oh, c.det_mean, c.det_std)[None]
            pred = self._timed("det", x, t)
            boxes, _ = db_postprocess(
                pred,
                w,
                h,
                c.det_thresh,
                c.det_box_thresh,
                c.det_unclip_ratio,
                c.det_max_candidates,
                c.det_use_dilation,
                c.det_min_size,
            )
            order = sorted_boxes(list(boxes))
            boxes = boxes[order] if len(order) else boxes
            t["det"] = time.perf_counter() - t_start
            results.append(
                {"boxes": boxes, "texts": [None] * len(boxes), "timings": t, "t_start": t_start}
            )
            crops += [(k, i, crop_image(img, b, c.rotate_ratio)) for i, b in enumerate(boxes)]
        nb = max(c.rec_batch, batch)
        t_cls0 = time.perf_counter()
        cls_model = 0.0
        if "cls" in self.nets and c.use_cls and crops:
            tt = {"cls_model": 0.0}
            for s in range(0, len(crops), max(c.cls_batch, batch)):
                part = crops[s : s + max(c.cls_batch, batch)]
                x = np.stack([resize_norm(cr, c.cls_height, c.cls_width) for _, _, cr in part])
                probs = self._timed("cls", x, tt)
                for j, (k, i, cr) in enumerate(part):
                    if probs[j].argmax() == 1 and probs[j][1] > c.cls_thresh:
                        crops[s + j] = (k, i, np.ascontiguousarray(cr[::-1, ::-1]))
            cls_model = tt["cls_model"]
        t_cls = time.perf_counter() - t_cls0
        t_rec0 = time.perf_counter()
        tt = {"rec_model": 0.0}
        ratios = [cr.shape[1] / float(cr.shape[0]) for _, _, cr in crops]
        idx = np.argsort(np.asarray(ratios, np.float64), kind="stable")
        for s in range(0, len(idx), nb):
            part = idx[s : s + nb]
            max_ratio = max([c.rec_width_buckets[0] / c.rec_height] + [ratios[j] for j in part])
            width = int(c.rec_height * max_ratio)
            x = np.stack([resize_norm(crops[j][2], c.rec_height, width) for j in part])
            probs = self._timed("rec", x, tt)
            for n, j in enumerate(part):
                k, i, _ = crops[j]
                results[k]["texts"][i] = ctc_greedy_decode(probs[n], self.charset)
        t_rec = time.perf_counter() - t_rec0
        # Shared cls/rec time is split over the images in proportion to their crops.
        n_crops = max(len(crops), 1)
        out = []
        for k, r in enumerate(results):
            share = sum(1 for kk, _, _ in crops if kk == k) / n_crops
            t = r["timings"]
            t["cls"], t["cls_model"] = t_cls * share, cls_model * share
            t["rec"], t["rec_model"] = t_rec * share, tt["rec_model"] * share
            t["total"] = t["det"] + t["cls"] + t["rec"]
            lines = [
                (text, score, box)
                for (text, score), box in zip(r["texts"], r["boxes"])
                if text and score >= c.drop_score
            ]
            out.append({"lines": lines, "timings": t})
        return out
