"""The scores: detection, end to end and recognition over a labelled set.

Self-contained: standard library + numpy only (no shapely / pyclipper), so it
can be imported on its own, e.g. from tools, without the rest of the package.

The metrics follow the dev-set README (``shared/datasets/dev/README.md``):

* Text normalisation: Unicode NFKC, then removal of all whitespace; case and
  punctuation are kept.
* Detection (ICDAR-2015 style): one-to-one greedy matching in order of
  decreasing polygon IoU, a pair matches when IoU > 0.5.  Ground-truth lines
  flagged ``ignore`` take part in the matching, but a prediction matched to
  one is not counted at all (neither true nor false positive) and ignored
  lines are not counted in recall.  As in ICDAR-2015, an unmatched prediction
  lying mostly (>= 50 % of its area) inside an ignored line is discarded too.
* Detection, area criterion: the same one-to-one greedy matching, a pair
  matches when the intersection covers >= 80 % of the ground truth and >= 40 %
  of the prediction (pairs ordered by decreasing IoU).
* End to end, strict: a detection (IoU) match whose normalised texts are equal.
* End to end, granularity-tolerant: each prediction is assigned to the
  ground-truth line covering the largest share of it, among the lines that
  cover >= 50 % of the prediction or that the prediction covers >= 50 % of;
  the texts assigned to one line are joined in the predictor's reading order
  (the order of the prediction list).  Line accuracy = exact lines / lines;
  1-NED = mean over lines of 1 - ed / max(len(pred), len(gt)) (an unassigned
  line scores 0); CER = (sum of edit distances + characters of unassigned
  predictions) / ground-truth characters.  Predictions assigned to ignored
  lines are dropped; ignored lines are not scored.

Scores over a set of images (overall and per tag) are computed from summed
counts (micro average), like the ICDAR scripts, except 1-NED and recognition
accuracy which are means over lines.

Whitespace-aware figures, beside the ones above (the dev set's metrics remove
all whitespace, which hides a recogniser that drops the spaces of Latin text):

* Text normalisation with spaces (:func:`normalize_text_ws`): NFKC, every run
  of whitespace becomes one space, no leading or trailing space.
* Predictions assigned to one line are joined with a space, except where
  either side of the join is a wide (CJK) character.
* ``line_acc_ws`` and ``cer_ws``: line accuracy and CER on these texts
  (spaces count as characters).
* ``space_acc``: of the lines read right apart from whitespace, the share
  whose whitespace is right too (1.0 when no line is right).
* The line figures are also given per line language (``langs``: the ``lang``
  field of each ground-truth line).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .geometry import Polygon, polygons_intersection
from .text import edit_distance, join_ws, normalize_text, normalize_text_ws

IOU_THRESHOLD = 0.5
AREA_GT_RECALL = 0.8  # intersection / gt area
AREA_PRED_PRECISION = 0.4  # intersection / pred area
TOLERANT_SHARE = 0.5
IGNORE_OVERLAP = 0.5


def _ratio(num: float, den: float, empty: float) -> float:
    return num / den if den > 0 else empty


def _prh(tp: float, n_pred: float, n_gt: float) -> dict[str, float]:
    recall = _ratio(tp, n_gt, 1.0)
    precision = _ratio(tp, n_pred, 1.0 if n_gt == 0 else 0.0)
    h = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "hmean": h}


def _greedy(pairs: list[tuple]) -> dict[int, int]:
    """pairs: (score, gi, pj); one-to-one greedy by decreasing score.
    Returns {gi: pj}."""
    pairs.sort(key=lambda t: (-t[0], t[1], t[2]))
    used_g, used_p = set(), set()
    match: dict[int, int] = {}
    for _, gi, pj in pairs:
        if gi in used_g or pj in used_p:
            continue
        used_g.add(gi)
        used_p.add(pj)
        match[gi] = pj
    return match


_COUNT_KEYS = (
    "n_gt",
    "n_pred",
    "det_tp",
    "area_n_pred",
    "area_tp",
    "e2e_tp",
    "lines",
    "lines_exact",
    "ned_sum",
    "ed_sum",
    "unassigned_chars",
    "gt_chars",
    "lines_exact_ws",
    "ed_ws_sum",
    "unassigned_chars_ws",
    "gt_chars_ws",
)
# Per line language: counts that belong to ground-truth lines (unassigned
# predictions have no language and are left out of the per-language CER).
_LANG_KEYS = (
    "lines",
    "lines_exact",
    "ned_sum",
    "ed_sum",
    "gt_chars",
    "lines_exact_ws",
    "ed_ws_sum",
    "gt_chars_ws",
)


def _eval_image(sample: Mapping, preds: Sequence[Mapping]) -> dict[str, float]:
    gt_lines = list(sample.get("lines", []))
    gpoly = [Polygon(ln["points"]) for ln in gt_lines]
    gtext = [normalize_text(ln.get("text", "")) for ln in gt_lines]
    gign = [bool(ln.get("ignore", False)) for ln in gt_lines]
    ppoly = [Polygon(p["box"]) for p in preds]
    ptext = [normalize_text(p.get("text", "")) for p in preds]
    gtext_ws = [normalize_text_ws(ln.get("text", "")) for ln in gt_lines]
    ptext_ws = [normalize_text_ws(p.get("text", "")) for p in preds]
    glang = [str(ln.get("lang") or "?") for ln in gt_lines]
    G, P = len(gpoly), len(ppoly)

    # Intersections only for pairs whose bounding boxes overlap.
    inter: dict[tuple, float] = {}
    if G and P:
        gb = np.array([g.bbox for g in gpoly], dtype=np.float64)
        pb = np.array([p.bbox for p in ppoly], dtype=np.float64)
        ov = (
            (gb[:, None, 0] < pb[None, :, 2])
            & (pb[None, :, 0] < gb[:, None, 2])
            & (gb[:, None, 1] < pb[None, :, 3])
            & (pb[None, :, 1] < gb[:, None, 3])
        )
        for gi, pj in zip(*np.nonzero(ov)):
            a = polygons_intersection(gpoly[gi], ppoly[pj])
            if a > 0:
                inter[(int(gi), int(pj))] = a

    iou_pairs, area_pairs = [], []
    for (gi, pj), a in inter.items():
        ga, pa = gpoly[gi].area, ppoly[pj].area
        union = ga + pa - a
        iou = a / union if union > 0 else 0.0
        if iou > IOU_THRESHOLD:
            iou_pairs.append((iou, gi, pj))
        if (
            ga > 0
            and pa > 0
            and a >= AREA_GT_RECALL * ga - 1e-9
            and a >= AREA_PRED_PRECISION * pa - 1e-9
        ):
            area_pairs.append((iou, gi, pj))

    def discarded(match: dict[int, int]) -> set:
        """Predictions not counted: matched to an ignored line, or unmatched
        and lying mostly inside an ignored line."""
        out = {pj for gi, pj in match.items() if gign[gi]}
        matched = set(match.values())
        if any(gign):
            for (gi, pj), a in inter.items():
                if (
                    gign[gi]
                    and pj not in matched
                    and ppoly[pj].area > 0
                    and a >= IGNORE_OVERLAP * ppoly[pj].area
                ):
                    out.add(pj)
        return out

    n_care = sum(1 for g in gign if not g)
    det_match = _greedy(iou_pairs)
    det_disc = discarded(det_match)
    det_tp = sum(1 for gi in det_match if not gign[gi])
    e2e_tp = sum(1 for gi, pj in det_match.items() if not gign[gi] and gtext[gi] == ptext[pj])
    area_match = _greedy(area_pairs)
    area_disc = discarded(area_match)
    area_tp = sum(1 for gi in area_match if not gign[gi])

    # Granularity-tolerant assignment.
    assigned: dict[int, list[int]] = {}
    unassigned_chars = 0
    unassigned_chars_ws = 0
    for pj in range(P):
        pa = ppoly[pj].area
        best, best_share = None, -1.0
        for gi in range(G):
            a = inter.get((gi, pj), 0.0)
            if a <= 0:
                continue
            share = a / pa if pa > 0 else 0.0
            cover = a / gpoly[gi].area if gpoly[gi].area > 0 else 0.0
            if share >= TOLERANT_SHARE - 1e-9 or cover >= TOLERANT_SHARE - 1e-9:
                if share > best_share:
                    best, best_share = gi, share
        if best is None:
            unassigned_chars += len(ptext[pj])
            unassigned_chars_ws += len(ptext_ws[pj])
        else:
            assigned.setdefault(best, []).append(pj)
    langs: dict[str, dict[str, float]] = {}
    for gi in range(G):
        if gign[gi]:
            continue
        gt, gt_ws = gtext[gi], gtext_ws[gi]
        c = langs.setdefault(glang[gi], {k: 0 for k in _LANG_KEYS})
        c["lines"] += 1
        c["gt_chars"] += len(gt)
        c["gt_chars_ws"] += len(gt_ws)
        if gi in assigned:
            pred = "".join(ptext[pj] for pj in assigned[gi])  # reading order
            pred_ws = join_ws([ptext_ws[pj] for pj in assigned[gi]])
            ed = edit_distance(pred, gt)
            n = max(len(pred), len(gt))
            c["ned_sum"] += 1.0 - ed / n if n else 1.0
            c["ed_sum"] += ed
            c["lines_exact"] += int(pred == gt)
            c["ed_ws_sum"] += edit_distance(pred_ws, gt_ws)
            c["lines_exact_ws"] += int(pred_ws == gt_ws)
        else:
            c["ed_sum"] += len(gt)
            c["ed_ws_sum"] += len(gt_ws)

    def total(k):
        return sum(c[k] for c in langs.values())

    return {
        "n_gt": n_care,
        "n_pred": P - len(det_disc),
        "det_tp": det_tp,
        "area_n_pred": P - len(area_disc),
        "area_tp": area_tp,
        "e2e_tp": e2e_tp,
        "lines": n_care,
        "lines_exact": total("lines_exact"),
        "ned_sum": total("ned_sum"),
        "ed_sum": total("ed_sum"),
        "unassigned_chars": unassigned_chars,
        "gt_chars": total("gt_chars"),
        "lines_exact_ws": total("lines_exact_ws"),
        "ed_ws_sum": total("ed_ws_sum"),
        "unassigned_chars_ws": unassigned_chars_ws,
        "gt_chars_ws": total("gt_chars_ws"),
        "langs": langs,
    }


def _summarise(c: Mapping[str, float], n_images: int) -> dict[str, float]:
    det = _prh(c["det_tp"], c["n_pred"], c["n_gt"])
    area = _prh(c["area_tp"], c["area_n_pred"], c["n_gt"])
    e2e = _prh(c["e2e_tp"], c["n_pred"], c["n_gt"])
    return {
        "det_precision": det["precision"],
        "det_recall": det["recall"],
        "det_hmean": det["hmean"],
        "det_area_precision": area["precision"],
        "det_area_recall": area["recall"],
        "det_area_hmean": area["hmean"],
        "e2e_precision": e2e["precision"],
        "e2e_recall": e2e["recall"],
        "e2e_hmean": e2e["hmean"],
        "line_acc": _ratio(c["lines_exact"], c["lines"], 1.0),
        "one_minus_ned": _ratio(c["ned_sum"], c["lines"], 1.0),
        "cer": _ratio(c["ed_sum"] + c["unassigned_chars"], c["gt_chars"], 0.0),
        "line_acc_ws": _ratio(c["lines_exact_ws"], c["lines"], 1.0),
        "cer_ws": _ratio(c["ed_ws_sum"] + c["unassigned_chars_ws"], c["gt_chars_ws"], 0.0),
        "space_acc": _ratio(c["lines_exact_ws"], c["lines_exact"], 1.0),
        "n_images": n_images,
        "n_lines": int(c["lines"]),
        "n_pred": int(c["n_pred"]),
    }


def _summarise_lang(c: Mapping[str, float]) -> dict[str, float]:
    return {
        "line_acc": _ratio(c["lines_exact"], c["lines"], 1.0),
        "one_minus_ned": _ratio(c["ned_sum"], c["lines"], 1.0),
        "cer": _ratio(c["ed_sum"], c["gt_chars"], 0.0),
        "line_acc_ws": _ratio(c["lines_exact_ws"], c["lines"], 1.0),
        "cer_ws": _ratio(c["ed_ws_sum"], c["gt_chars_ws"], 0.0),
        "space_acc": _ratio(c["lines_exact_ws"], c["lines_exact"], 1.0),
        "n_lines": int(c["lines"]),
        "n_exact": int(c["lines_exact"]),
    }


def _add_langs(acc: dict[str, dict[str, float]], langs: Mapping[str, Mapping[str, float]]) -> None:
    for lang, c in langs.items():
        a = acc.setdefault(lang, {k: 0 for k in _LANG_KEYS})
        for k in _LANG_KEYS:
            a[k] += c[k]


def _pred_list(predictions: Any, sid: str) -> list[Mapping]:
    p = predictions.get(sid) if isinstance(predictions, Mapping) else None
    if p is None:
        return []
    if isinstance(p, Mapping):  # {"lines": [...]} wrappers
        p = p.get("lines", p.get("predictions", []))
    return list(p)


def evaluate_e2e(samples: Sequence[Mapping], predictions: Mapping[str, Any]) -> dict[str, Any]:
    """Score end-to-end predictions.

    ``predictions``: sample id -> list of {"text", "box" ((4,2) or any
    polygon), "score"} in the predictor's reading order.  A missing id counts
    as no predictions.
    """
    total = {k: 0 for k in _COUNT_KEYS}
    by_tag: dict[str, dict[str, float]] = {}
    tag_n: dict[str, int] = {}
    per_image: dict[str, dict[str, float]] = {}
    by_lang: dict[str, dict[str, float]] = {}
    for s in samples:
        c = _eval_image(s, _pred_list(predictions, s["id"]))
        _add_langs(by_lang, c["langs"])
        for k in _COUNT_KEYS:
            total[k] += c[k]
        for t in s.get("tags", []):
            acc = by_tag.setdefault(t, {k: 0 for k in _COUNT_KEYS})
            for k in _COUNT_KEYS:
                acc[k] += c[k]
            tag_n[t] = tag_n.get(t, 0) + 1
        summ = _summarise(c, 1)
        per_image[s["id"]] = {
            k: summ[k]
            for k in (
                "det_hmean",
                "e2e_hmean",
                "line_acc",
                "one_minus_ned",
                "cer",
                "line_acc_ws",
                "n_lines",
                "n_pred",
            )
        }
    return {
        "kind": "e2e",
        "n_images": len(samples),
        "all": _summarise(total, len(samples)),
        "tags": {t: _summarise(by_tag[t], tag_n[t]) for t in sorted(by_tag)},
        "langs": {lang: _summarise_lang(by_lang[lang]) for lang in sorted(by_lang)},
        "per_image": per_image,
    }


def evaluate_rec(samples: Sequence[Mapping], predictions: Mapping[str, Any]) -> dict[str, Any]:
    """Recognition-only scores: exact-match accuracy and 1-NED (means over
    crops) plus CER; ``predictions``: sample id -> text (missing = "")."""

    def agg(items: list[tuple]) -> dict[str, float]:
        n = len(items)
        ed = sum(r[2] for r in items)
        chars = sum(r[3] for r in items)
        exact = sum(r[0] for r in items)
        exact_ws = sum(r[4] for r in items)
        return {
            "accuracy": _ratio(exact, n, 1.0),
            "one_minus_ned": _ratio(sum(r[1] for r in items), n, 1.0),
            "cer": _ratio(ed, chars, 0.0),
            "accuracy_ws": _ratio(exact_ws, n, 1.0),
            "cer_ws": _ratio(sum(r[5] for r in items), sum(r[6] for r in items), 0.0),
            "space_acc": _ratio(exact_ws, exact, 1.0),
            "n": n,
        }

    rows: list[tuple] = []
    tag_rows: dict[str, list[tuple]] = {}
    lang_rows: dict[str, list[tuple]] = {}
    per_sample: dict[str, dict[str, Any]] = {}
    for s in samples:
        p = predictions.get(s["id"], "") if isinstance(predictions, Mapping) else ""
        if isinstance(p, Mapping):
            p = p.get("text", "")
        pred = normalize_text(p or "")
        gt = normalize_text(s.get("text", ""))
        pred_ws = normalize_text_ws(p or "")
        gt_ws = normalize_text_ws(s.get("text", ""))
        ed = edit_distance(pred, gt)
        n = max(len(pred), len(gt))
        row = (
            int(pred == gt),
            1.0 - ed / n if n else 1.0,
            ed,
            len(gt),
            int(pred_ws == gt_ws),
            edit_distance(pred_ws, gt_ws),
            len(gt_ws),
        )
        rows.append(row)
        for t in s.get("tags", []):
            tag_rows.setdefault(t, []).append(row)
        lang_rows.setdefault(str(s.get("lang") or "?"), []).append(row)
        per_sample[s["id"]] = {"exact": bool(row[0]), "one_minus_ned": row[1]}
    return {
        "kind": "rec",
        "n_images": len(samples),
        "all": agg(rows),
        "tags": {t: agg(tag_rows[t]) for t in sorted(tag_rows)},
        "langs": {lang: agg(lang_rows[lang]) for lang in sorted(lang_rows)},
        "per_image": per_sample,
    }
