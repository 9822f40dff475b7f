"""Evaluation reports as text tables (beside a baseline report when given)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

_E2E_ROWS = [
    ("det_precision", "det P"),
    ("det_recall", "det R"),
    ("det_hmean", "det H"),
    ("det_area_precision", "det-area P"),
    ("det_area_recall", "det-area R"),
    ("det_area_hmean", "det-area H"),
    ("e2e_precision", "e2e strict P"),
    ("e2e_recall", "e2e strict R"),
    ("e2e_hmean", "e2e strict H"),
    ("line_acc", "line acc"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("line_acc_ws", "line acc (ws)"),
    ("cer_ws", "CER (ws)"),
    ("space_acc", "spaces right"),
]
_E2E_TAG_COLS = [
    ("det_hmean", "detH"),
    ("det_area_hmean", "areaH"),
    ("e2e_hmean", "e2eH"),
    ("line_acc", "lineAcc"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("line_acc_ws", "lineAcWS"),
    ("cer_ws", "CER-WS"),
    ("space_acc", "spaceOK"),
]
_LANG_COLS = [
    ("line_acc", "lineAcc"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("line_acc_ws", "lineAcWS"),
    ("cer_ws", "CER-WS"),
    ("space_acc", "spaceOK"),
]
_REC_ROWS = [
    ("accuracy", "accuracy"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("accuracy_ws", "accuracy (ws)"),
    ("cer_ws", "CER (ws)"),
    ("space_acc", "spaces right"),
]
_REC_TAG_COLS = [
    ("accuracy", "acc"),
    ("one_minus_ned", "1-NED"),
    ("cer", "CER"),
    ("accuracy_ws", "accWS"),
    ("cer_ws", "CER-WS"),
    ("space_acc", "spaceOK"),
]
_LOWER_IS_BETTER = {"cer", "cer_ws"}


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def _format_one(report: Mapping, baseline: Mapping | None, names: Sequence[str]) -> str:
    kind = report.get("kind") or ("rec" if "accuracy" in report.get("all", {}) else "e2e")
    rows = _REC_ROWS if kind == "rec" else _E2E_ROWS
    tag_cols = _REC_TAG_COLS if kind == "rec" else _E2E_TAG_COLS
    a = report.get("all", {})
    b = baseline.get("all", {}) if baseline else None
    out: list[str] = []
    title = "Recognition-only (crops)" if kind == "rec" else "End-to-end"
    out.append(f"== {title}: {report.get('n_images', '?')} images ==")
    w = 14
    if b is None:
        out.append(f"{'metric':<{w}} {names[0]:>10}")
        for k, label in rows:
            out.append(f"{label:<{w}} {_fmt(a.get(k)):>10}")
    else:
        out.append(f"{'metric':<{w}} {names[0]:>10} {names[1]:>10} {'delta':>8}")
        for k, label in rows:
            va, vb = a.get(k), b.get(k)
            d = (
                f"{va - vb:+.4f}"
                if isinstance(va, (int, float)) and isinstance(vb, (int, float))
                else "-"
            )
            out.append(f"{label:<{w}} {_fmt(va):>10} {_fmt(vb):>10} {d:>8}")
    lang_cols = _REC_TAG_COLS if kind == "rec" else _LANG_COLS
    for key, title, cols in (
        ("tags", "per tag", tag_cols),
        ("langs", "per line language", lang_cols),
    ):
        groups = report.get(key, {})
        if groups:
            out.append("")
            out.append(f"-- {title} --")
            out.extend(
                _group_table(groups, baseline.get(key, {}) if baseline else None, cols, names)
            )
    return "\n".join(out)


def _group_table(
    groups: Mapping, bgroups: Mapping | None, cols: Sequence[tuple], names: Sequence[str]
) -> list[str]:
    def count(r: Mapping) -> Any:
        return r.get("n_images", r.get("n", r.get("n_lines", "")))

    out: list[str] = []
    if bgroups is None:
        out.append(f"{'tag':<12} {'n':>4} " + " ".join(f"{lab:>8}" for _, lab in cols))
        for t in sorted(groups):
            r = groups[t]
            out.append(
                f"{t:<12} {count(r)!s:>4} " + " ".join(f"{_fmt(r.get(k)):>8}" for k, _ in cols)
            )
        return out
    out.append(f"{'tag':<12} {'n':>4} " + " ".join(f"{lab:>17}" for _, lab in cols))
    out.append(
        f"{'':<12} {'':>4} " + " ".join(f"{names[0][:8]:>8} {names[1][:8]:>8}" for _ in cols)
    )
    for t in sorted(set(groups) | set(bgroups)):
        r, rb = groups.get(t, {}), bgroups.get(t, {})
        n = count(r) if r else count(rb)
        cells = " ".join(f"{_fmt(r.get(k)):>8} {_fmt(rb.get(k)):>8}" for k, _ in cols)
        out.append(f"{t:<12} {n!s:>4} {cells}")
    return out


def format_report(
    report: Mapping[str, Any],
    baseline: Mapping[str, Any] | None = None,
    names: Sequence[str] = ("edgeocr", "baseline"),
) -> str:
    """Readable table of an e2e or rec report (or a dict holding both under
    "e2e" and "rec"); with ``baseline``, the two side by side per metric."""
    if "e2e" in report or "rec" in report:
        parts = []
        for key in ("e2e", "rec"):
            if key in report and report[key]:
                bb = baseline.get(key) if baseline else None
                parts.append(_format_one(report[key], bb, names))
        return "\n\n".join(parts)
    return _format_one(report, baseline, names)
