"""Verification of packed models against their sources (written into the manifest).

* per stage: max / mean absolute difference of the model outputs, packed vs
  source, on the same inputs (made by edgeocr's preprocessing from sample images);
* end to end: the share of the source predictor's lines that the packed
  predictor reads with the same text at the same place;
* with a labelled set: detection hmean and 1 - normalised edit distance,
  before and after, and the drop in points;
* latency per image, before and after, on this machine.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ..evaluate.geometry import polygon_iou
from ..evaluate.scoring import evaluate_e2e
from ..progress import Progress


def interleaved_seconds(a, b, images: Sequence, rounds: int = 1) -> tuple[list, list]:
    """Per-image seconds of predictors ``a`` and ``b``, alternating which goes first."""
    ta, tb = [], []
    for r in range(rounds):
        for k, im in enumerate(images):
            order = [(a, ta), (b, tb)] if (k + r) % 2 == 0 else [(b, tb), (a, ta)]
            for pred, out in order:
                t0 = time.perf_counter()
                pred.predict(im)
                out.append(time.perf_counter() - t0)
    return ta, tb


def stage_diffs(source: dict, packed: dict, inputs: dict, *, limit: int = 4) -> dict:
    """Per role: max / mean |packed - source| of the first output over up to ``limit`` inputs."""
    from ..model import Model

    out = {}
    for role, data in packed.items():
        xs = inputs.get(role) or []
        if not xs:
            continue
        a, b = Model(data=bytes(source[role]), threads=1), Model(data=bytes(data), threads=1)
        mx, sums, count = 0.0, 0.0, 0
        for x in xs[:limit]:
            ya = next(iter(a.run(x).values())).astype(np.float64)
            yb = next(iter(b.run(x).values())).astype(np.float64)
            d = np.abs(ya - yb)
            mx = max(mx, float(d.max()))
            sums += float(d.sum())
            count += d.size
        out[role] = {
            "max_abs_diff": mx,
            "mean_abs_diff": sums / max(count, 1),
            "n_inputs": min(limit, len(xs)),
        }
    return out


def line_agreement(reference: Sequence, candidate: Sequence) -> dict:
    """Share of the reference lines found in the candidates with the same text (IoU > 0.5)."""
    total = same = 0
    for ra, rb in zip(reference, candidate):
        used = set()
        for la in ra.lines:
            total += 1
            for j, lb in enumerate(rb.lines):
                if j in used or lb.text != la.text:
                    continue
                if polygon_iou(la.box, lb.box) > 0.5:
                    used.add(j)
                    same += 1
                    break
    return {"lines": total, "unchanged": same, "share_unchanged": same / total if total else 1.0}


def text_agreement(reference: Sequence, candidate: Sequence) -> dict:
    """How closely ``candidate`` reads what ``reference`` reads, page by page (no labels needed).

    The reference pipeline's own lines are taken as the ground truth and the
    candidate's lines are scored against them with the dev set's metrics
    (edgeocr.evaluate: granularity-tolerant assignment, text normalised):
    ``one_minus_ned`` (1.0 = every reference line read identically) and
    ``line_acc``; ``lines_changed`` counts reference lines whose text the
    candidate does not reproduce exactly (same place, IoU > 0.5).
    """
    gt, preds = [], {}
    for j, (ra, rb) in enumerate(zip(reference, candidate)):
        gt.append(
            {
                "id": str(j),
                "tags": [],
                "lines": [
                    {"text": ln.text, "points": np.asarray(ln.box).tolist(), "ignore": False}
                    for ln in ra.lines
                ],
            }
        )
        preds[str(j)] = [
            {"text": ln.text, "box": np.asarray(ln.box).tolist(), "score": ln.score}
            for ln in rb.lines
        ]
    rep = evaluate_e2e(gt, preds)["all"]
    same = line_agreement(reference, candidate)
    return {
        "pages": len(gt),
        "lines": same["lines"],
        "lines_changed": same["lines"] - same["unchanged"],
        "one_minus_ned": float(rep["one_minus_ned"]),
        "line_acc": float(rep["line_acc"]),
    }


def run_images(predictor, images: Sequence, progress: Progress | None = None) -> tuple[list, list]:
    """Results and per-image seconds."""
    results, seconds = [], []
    for im in images:
        t0 = time.perf_counter()
        results.append(predictor.predict(im))
        seconds.append(time.perf_counter() - t0)
        if progress is not None:
            progress.step()
    return results, seconds


def accuracy(samples: Sequence[dict], results: Sequence) -> dict:
    """det hmean, e2e hmean, line accuracy, 1-NED (edgeocr.evaluate), results in sample order."""
    preds = {
        s["id"]: [
            {"text": ln.text, "box": np.asarray(ln.box).tolist(), "score": ln.score}
            for ln in r.lines
        ]
        for s, r in zip(samples, results)
    }
    rep = evaluate_e2e(samples, preds)["all"]
    keys = ("det_hmean", "e2e_hmean", "line_acc", "one_minus_ned", "cer")
    return {k: float(rep[k]) for k in keys if k in rep}


def accuracy_drop(before: dict, after: dict) -> float:
    """The gate's measure: the largest drop, in points, of det hmean and 1-NED."""
    return max(100.0 * (before[k] - after[k]) for k in ("det_hmean", "one_minus_ned"))


def median_ms(seconds: Sequence[float]) -> float:
    s = sorted(seconds)
    return 1000.0 * (s[len(s) // 2] if s else float("nan"))


def format_report(report: dict) -> str:
    """The verification report as a few readable lines."""
    lines = []
    for role, d in report.get("stages", {}).items():
        lines.append(
            f"  {role:<4} output diff vs source: max {d['max_abs_diff']:.4g}, mean "
            f"{d['mean_abs_diff']:.4g} "
            f"({d['n_inputs']} inputs)"
        )
    agr = report.get("agreement")
    if agr:
        lines.append(
            f"  packed vs float text on {agr['pages']} {agr.get('pages_from', '')} page(s): "
            f"1-NED {agr['one_minus_ned']:.4f}, line accuracy {agr['line_acc']:.4f}, "
            f"{agr['lines_changed']}/{agr['lines']} lines changed"
        )
    ev = report.get("eval")
    if ev:
        lines.append(f"  accuracy on {ev['n_images']} labelled images ({ev['dataset']}):")
        for k in ev["before"]:
            b, a = ev["before"][k], ev["after"][k]
            lines.append(f"    {k:<14} {b:.4f} -> {a:.4f} ({100 * (a - b):+.2f} pts)")
        lines.append(f"    drop (max of det_hmean, 1-NED): {ev['drop_points']:.2f} pts")
    lat = report.get("latency_ms")
    if lat:
        ratio = lat["after"] / lat["before"] if lat["before"] else float("nan")
        verdict = "faster" if ratio < 0.95 else ("slower" if ratio > 1.05 else "about the same")
        lines.append(
            f"  latency (median per image, {lat['images']} images, threads={lat['threads']}): "
            f"{lat['before']:.0f} ms -> {lat['after']:.0f} ms (x{ratio:.2f}, {verdict} on this "
            "machine)"
        )
    for r in report.get("auto_keep") or []:
        if "role_float" in r:
            lines.append(
                f"  auto-keep: {r['role_float']} back to float (alone it cost "
                f"{r['alone_drop_points']:.2f} pts): drop {r['drop_points']:.2f} pts"
            )
    if report.get("gate_warning"):
        lines.append(f"  warning: {report['gate_warning']}")
    if "drop_points" in report:
        lines.append(
            f"  gate: drop {report['drop_points']:.2f} pts (allowed {report.get('max_drop')}); "
            f"{report.get('drop_measure', '')}"
        )
    for role, d in (report.get("drop_alone") or {}).items():
        lines.append(f"  only {role} quantized: drop {d:.2f} pts")
    for role, k in (report.get("kept_float") or {}).items():
        if "whole_model" in k:
            lines.append(f"  {role:<4} kept float: the whole model ({k['whole_model']})")
            continue
        left = k.get("op_types_left_float") or {}
        if left:
            top = ", ".join(f"{op} x{c}" for op, c in sorted(left.items(), key=lambda x: -x[1])[:6])
            lines.append(f"  {role:<4} kept float by op type ({k['op_types_why']}): {top}")
        nodes = k.get("nodes", [])
        for d in nodes[:8]:
            lines.append(f"  {role:<4} kept float: {d['node']} ({d['why']})")
        if len(nodes) > 8:
            lines.append(f"  {role:<4} kept float: {len(nodes) - 8} more node(s) (manifest)")
    for role, nodes in report.get("layerwise", {}).items():
        worst = ", ".join(
            f"{d['node']} ({d['op']}, +{d['added_rel_error']:.3f})" for d in nodes[:5]
        )
        lines.append(f"  {role:<4} nodes adding the most error when quantized: {worst}")
    load = report.get("load_ms")
    if load:
        lines.append(
            f"  load: {load['before']:.0f} ms (source graphs) -> {load['after']:.0f} ms (bundle)"
        )
    return "\n".join(lines)
