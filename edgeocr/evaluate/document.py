"""Document-parsing scores over labelled pages: layout, reading order, tables, page text.

A page, predicted or true, is ``{"id", "regions": [{"type", "box": [x0, y0, x1, y1], "score",
"order", "furniture", "lines": [{"text"}], "table": {"cells": [...]} | {"html": "..."}}]}``: the
page dict of edgeocr's document JSON (``DocumentResult.to_dict()``), and the records of
tools/gen_doc_pages.py. Regions are in reading order (``order``, else their place in the list).

* **Layout mAP** (COCO): per class, predictions of all pages ranked by score, each matched to
  the unmatched true region of its class and page with the highest IoU at or above the
  threshold; AP is the 101-point interpolated area under the precision-recall curve; ``map`` is
  the mean over IoU 0.50:0.05:0.95 and over the classes that have true regions, ``map50`` at
  IoU 0.5. A class with true regions and no prediction scores 0.
* **Layout F1 per class** at IoU 0.5: one-to-one greedy matching by decreasing IoU within a page
  and class, every prediction counted (no score threshold beyond the engine's own).
* **Classes**: ``classes="cdla"`` (default) scores the ten classes of the CDLA layout model,
  with lists scored as text and page numbers as footers (CDLA's annotators label them so);
  ``"all"``: every type as it is.
* **Reading-order edit** (OmniDocBench): the body regions (not header, footer, page number) of
  the two sides matched one to one by IoU >= 0.5, whatever their class (greedy by decreasing
  IoU); the true ranks of the matched regions, taken in the predicted order, against the same
  ranks sorted: edit distance / their number. 0 is the true order; a page whose body has no
  match scores 1. ``order_coverage``: matched true body regions / true body regions.
* **Page text edit** (OmniDocBench's whole-page text): the page's text regions (text, title,
  list, captions, reference; not furniture, figures, tables or equations) in reading order,
  each region's lines in their order, joined, then NFKC with all whitespace removed;
  ``edit distance / max(len(pred), len(true))`` per page, averaged over pages.
* **Tables**: each true table matched to a predicted table (IoU >= 0.5, greedy); TEDS,
  TEDS-struct and adjacency F1 (:mod:`~edgeocr.evaluate.teds`) per true table, 0 for a table
  not found; averaged over true tables.

Means over pages (reading order, text) and over tables are macro averages; layout figures are
over all regions of all pages (COCO).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .teds import TableError, adjacency_counts, cells_from_html, normalize_cells, teds
from .text import edit_distance, join_ws, normalize_text

# The core's region types: edgeocr.results.REGION_TYPES, written out here because the metrics
# load without the package (tests/python/test_evaluate.py; test_document checks they are equal).
TYPES = (
    "text",
    "title",
    "list",
    "figure",
    "figure_caption",
    "table",
    "table_caption",
    "header",
    "footer",
    "page_number",
    "reference",
    "equation",
)
FURNITURE = ("header", "footer", "page_number")
TEXT_TYPES = ("text", "title", "list", "figure_caption", "table_caption", "reference")
# The CDLA layout model's classes: lists and page numbers are scored as what CDLA labels them.
CDLA_MERGE = {"list": "text", "page_number": "footer"}
CLASS_SETS = {"cdla": CDLA_MERGE, "all": {}}
IOU_THRESHOLDS = tuple(round(0.5 + 0.05 * k, 2) for k in range(10))
ORDER_IOU = 0.5
TABLE_IOU = 0.5


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """IoU of two axis-aligned boxes (x0, y0, x1, y1); 0 when either has no area."""
    ix = min(a[2], b[2]) - max(a[0], b[0])
    iy = min(a[3], b[3]) - max(a[1], b[1])
    if ix <= 0 or iy <= 0:
        return 0.0
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _regions(page: Mapping) -> list:
    """The page's regions checked, in reading order, with ``cls`` unset."""
    out = []
    for k, r in enumerate(page.get("regions") or []):
        try:
            box = [float(v) for v in r["box"]]
            kind = str(r["type"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"page {page.get('id')!r}: region {k} is malformed ({e})") from None
        if len(box) != 4:
            raise ValueError(f"page {page.get('id')!r}: region {k}'s box is not 4 numbers")
        x0, y0, x1, y1 = box
        box = [min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)]
        order = r.get("order")
        out.append(
            {
                "type": kind,
                "box": box,
                "score": float(r.get("score", 1.0) or 0.0),
                "order": float(order) if order is not None else float(k),
                "furniture": bool(r.get("furniture", kind in FURNITURE)) or kind in FURNITURE,
                "lines": [str(ln.get("text", "")) for ln in (r.get("lines") or [])],
                "table": r.get("table"),
                "index": k,
            }
        )
    out.sort(key=lambda r: (r["order"], r["index"]))
    return out


def _greedy(pairs: list) -> list:
    """(iou, i, j) pairs -> one-to-one matches, by decreasing IoU."""
    pairs.sort(key=lambda t: (-t[0], t[1], t[2]))
    used_i, used_j, out = set(), set(), []
    for v, i, j in pairs:
        if i in used_i or j in used_j:
            continue
        used_i.add(i)
        used_j.add(j)
        out.append((i, j, v))
    return out


# -- layout ------------------------------------------------------------------------------------
def _ap(scored: list, n_true: int) -> float:
    """101-point interpolated AP from (score, is_tp) of one class."""
    if n_true == 0:
        return float("nan")
    scored.sort(key=lambda t: -t[0])
    tp = fp = 0
    prec, rec = [], []
    for _s, hit in scored:
        tp += hit
        fp += not hit
        prec.append(tp / (tp + fp))
        rec.append(tp / n_true)
    # Precision made non-increasing from the right, then read at recall 0, 0.01, ..., 1.
    for k in range(len(prec) - 2, -1, -1):
        prec[k] = max(prec[k], prec[k + 1])
    total, k = 0.0, 0
    for step in range(101):
        r = step / 100
        while k < len(rec) and rec[k] < r - 1e-12:
            k += 1
        total += prec[k] if k < len(rec) else 0.0
    return total / 101


def layout_scores(pairs: Sequence[tuple], merge: Mapping | None = None) -> dict:
    """Layout mAP (COCO) and F1 per class over (pred page, true page) pairs."""
    merge = CDLA_MERGE if merge is None else merge

    def cls(t):
        return merge.get(t, t)

    pages = [
        (
            [{**r, "cls": cls(r["type"])} for r in _regions(p)],
            [{**r, "cls": cls(r["type"])} for r in _regions(t)],
        )
        for p, t in pairs
    ]
    classes = sorted(
        {r["cls"] for _, t in pages for r in t} | {r["cls"] for p, _ in pages for r in p}
    )
    per: dict = {}
    for c in classes:
        n_true = sum(1 for _, t in pages for r in t if r["cls"] == c)
        n_pred = sum(1 for p, _ in pages for r in p if r["cls"] == c)
        aps = []
        for thr in IOU_THRESHOLDS:
            scored = []
            for p, t in pages:
                preds = sorted((r for r in p if r["cls"] == c), key=lambda r: -r["score"])
                truth = [r for r in t if r["cls"] == c]
                taken = [False] * len(truth)
                for r in preds:
                    best, best_k = thr, -1
                    for k, g in enumerate(truth):
                        if not taken[k]:
                            v = box_iou(r["box"], g["box"])
                            if v >= best:
                                best, best_k = v, k
                    if best_k >= 0:
                        taken[best_k] = True
                    scored.append((r["score"], best_k >= 0))
            aps.append(_ap(scored, n_true))
        tp = 0
        for p, t in pages:
            preds = [r for r in p if r["cls"] == c]
            truth = [r for r in t if r["cls"] == c]
            cand = [
                (box_iou(r["box"], g["box"]), i, j)
                for i, r in enumerate(preds)
                for j, g in enumerate(truth)
            ]
            tp += len(_greedy([x for x in cand if x[0] >= 0.5]))
        precision = tp / n_pred if n_pred else (1.0 if n_true == 0 else 0.0)
        recall = tp / n_true if n_true else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per[c] = {
            "ap": sum(aps) / len(aps) if n_true else float("nan"),
            "ap50": aps[0],
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "n_true": n_true,
            "n_pred": n_pred,
        }
    scored_classes = [c for c in per if per[c]["n_true"] > 0]
    n = len(scored_classes)
    return {
        "map": sum(per[c]["ap"] for c in scored_classes) / n if n else float("nan"),
        "map50": sum(per[c]["ap50"] for c in scored_classes) / n if n else float("nan"),
        "f1": sum(per[c]["f1"] for c in scored_classes) / n if n else float("nan"),
        "classes": per,
    }


# -- reading order -----------------------------------------------------------------------------
def reading_order_edit(pred: Mapping, true: Mapping) -> tuple:
    """(normalised edit distance of the reading order, matched true body regions, true body
    regions) for one page. 0.0 for a page without body regions."""
    p = [r for r in _regions(pred) if not r["furniture"]]
    t = [r for r in _regions(true) if not r["furniture"]]
    if not t:
        return 0.0, 0, 0
    cand = [(box_iou(a["box"], b["box"]), i, j) for i, a in enumerate(p) for j, b in enumerate(t)]
    matches = _greedy([x for x in cand if x[0] >= ORDER_IOU])
    if not matches:
        return 1.0, 0, len(t)
    seq = [j for _i, j, _v in sorted(matches)]  # true ranks in the predicted order
    return edit_distance(seq, sorted(seq)) / len(seq), len(matches), len(t)


# -- text ----------------------------------------------------------------------------------------
def page_text(page: Mapping) -> str:
    """The page's text in reading order (text-like body regions), normalised (NFKC, no
    whitespace)."""
    parts = []
    for r in _regions(page):
        if r["furniture"] or r["type"] not in TEXT_TYPES:
            continue
        parts.append(join_ws(r["lines"]))
    return normalize_text("".join(parts))


def page_text_edit(pred: Mapping, true: Mapping) -> float:
    """Normalised edit distance of the two pages' texts (0.0: the same text)."""
    a, b = page_text(pred), page_text(true)
    n = max(len(a), len(b))
    return edit_distance(a, b) / n if n else 0.0


# -- tables --------------------------------------------------------------------------------------
def table_cells(table) -> list | None:
    """A region's table as checked cells (from ``cells``, else ``html``), None when absent."""
    if not table:
        return None
    if isinstance(table, str):
        return cells_from_html(table)
    if table.get("cells"):
        return normalize_cells(table["cells"])
    if table.get("html"):
        return cells_from_html(table["html"])
    return []


def table_scores(pred: Mapping, true: Mapping) -> list:
    """Per true table of the page: {"teds", "teds_struct", "adj": (both, pred, true), "found"}."""
    tp = [r for r in _regions(pred) if r["type"] == "table"]
    tt = [r for r in _regions(true) if r["type"] == "table" and r["table"]]
    cand = [(box_iou(a["box"], b["box"]), i, j) for i, a in enumerate(tp) for j, b in enumerate(tt)]
    match = {j: i for i, j, _v in _greedy([x for x in cand if x[0] >= TABLE_IOU])}
    out = []
    for j, g in enumerate(tt):
        true_cells = table_cells(g["table"])
        n_true_rel = adjacency_counts([], true_cells)[2]
        pred_cells = table_cells(tp[match[j]]["table"]) if j in match else None
        if pred_cells is None:
            out.append(
                {"teds": 0.0, "teds_struct": 0.0, "adj": (0, 0, n_true_rel), "found": j in match}
            )
            continue
        try:
            s, ss = teds(pred_cells, true_cells), teds(pred_cells, true_cells, True)
        except TableError:
            s = ss = 0.0
        out.append(
            {
                "teds": s,
                "teds_struct": ss,
                "adj": adjacency_counts(pred_cells, true_cells),
                "found": True,
            }
        )
    return out


# -- all of it -------------------------------------------------------------------------------------
def evaluate_documents(truth: Sequence[Mapping], preds: Mapping, classes: str = "cdla") -> dict:
    """Every score above for the pages ``truth`` (records with ``id``) against ``preds``
    ({id: predicted page}; a page missing there counts as a page with no regions)."""
    if classes not in CLASS_SETS:
        raise ValueError(f"classes must be one of {', '.join(CLASS_SETS)}, got {classes!r}")
    pairs = [(preds.get(t["id"]) or {"id": t["id"], "regions": []}, t) for t in truth]
    layout = layout_scores(pairs, CLASS_SETS[classes])
    orders, texts, tables = [], [], []
    matched = body = 0
    for p, t in pairs:
        e, m, n = reading_order_edit(p, t)
        if n:
            orders.append(e)
        matched, body = matched + m, body + n
        texts.append(page_text_edit(p, t))
        tables.extend(table_scores(p, t))
    both = sum(x["adj"][0] for x in tables)
    n_pred = sum(x["adj"][1] for x in tables)
    n_true = sum(x["adj"][2] for x in tables)
    return {
        "pages": len(pairs),
        "layout": layout,
        "order_edit": sum(orders) / len(orders) if orders else float("nan"),
        "order_coverage": matched / body if body else float("nan"),
        "text_edit": sum(texts) / len(texts) if texts else float("nan"),
        "tables": len(tables),
        "tables_found": sum(1 for x in tables if x["found"]),
        "teds": sum(x["teds"] for x in tables) / len(tables) if tables else float("nan"),
        "teds_struct": (
            sum(x["teds_struct"] for x in tables) / len(tables) if tables else float("nan")
        ),
        "cell_adjacency_f1": 2 * both / (n_pred + n_true) if n_pred + n_true else float("nan"),
    }


def format_document_report(reports: Mapping) -> str:
    """The reports of several engines ({name: evaluate_documents(...)}) side by side."""
    names = list(reports)
    rows = [
        ("layout mAP@[.5:.95]", lambda r: r["layout"]["map"]),
        ("layout mAP@.5", lambda r: r["layout"]["map50"]),
        ("layout F1@.5 (mean of classes)", lambda r: r["layout"]["f1"]),
        ("reading-order edit (lower is better)", lambda r: r["order_edit"]),
        ("  body regions matched", lambda r: r["order_coverage"]),
        ("page text edit (lower is better)", lambda r: r["text_edit"]),
        ("table TEDS", lambda r: r["teds"]),
        ("table TEDS-struct", lambda r: r["teds_struct"]),
        ("table cell adjacency F1", lambda r: r["cell_adjacency_f1"]),
    ]
    w = max(len(n) for n in names + ["metric"]) + 2
    lw = max(len(label) for label, _ in rows) + 2
    out = ["metric".ljust(lw) + "".join(n.rjust(w) for n in names)]
    for label, get in rows:
        out.append(label.ljust(lw) + "".join(f"{get(reports[n]):.3f}".rjust(w) for n in names))
    first = reports[names[0]]
    out.append(
        f"pages: {first['pages']}; true tables: {first['tables']} (found: "
        + ", ".join(f"{n} {reports[n]['tables_found']}" for n in names)
        + ")"
    )
    classes = sorted({c for r in reports.values() for c in r["layout"]["classes"]})
    out.append("")
    out.append(
        "per class: AP@[.5:.95] / F1@.5 (true regions)".ljust(lw)
        + "".join(n.rjust(w + 4) for n in names)
    )
    for c in classes:
        cells = []
        n_true = 0
        for n in names:
            pc = reports[n]["layout"]["classes"].get(c)
            if pc is None:
                cells.append("-".rjust(w + 4))
                continue
            n_true = pc["n_true"]
            cells.append(f"{pc['ap']:.3f} / {pc['f1']:.3f}".rjust(w + 4))
        out.append(f"  {c} ({n_true})".ljust(lw) + "".join(cells))
    return "\n".join(out)
