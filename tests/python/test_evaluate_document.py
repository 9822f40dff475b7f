"""Document-parsing metrics (edgeocr/evaluate/document.py, teds.py) on cases checked by hand,
and the labelled pages of tests/data/docparse (made by tools/gen_doc_pages.py)."""

from __future__ import annotations

import copy
import json
import math
import os
import sys
from pathlib import Path

import pytest

from edgeocr.evaluate.document import (
    box_iou,
    evaluate_documents,
    format_document_report,
    layout_scores,
    page_text,
    page_text_edit,
    reading_order_edit,
    table_scores,
)
from edgeocr.evaluate.teds import (
    TableError,
    adjacency_f1,
    cells_from_html,
    teds,
)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "tests" / "data" / "docparse"


def _load():
    with open(DOCS / "docparse.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def region(kind, box, order=None, score=1.0, texts=(), table=None):
    r = {"type": kind, "box": list(box), "score": score, "lines": [{"text": t} for t in texts]}
    if order is not None:
        r["order"] = order
    if table is not None:
        r["table"] = table
    return r


def grid(texts, header_rows=0):
    return {
        "cells": [
            {"row": r, "col": c, "text": t, "header": r < header_rows}
            for r, row in enumerate(texts)
            for c, t in enumerate(row)
        ]
    }


# -- boxes and layout ------------------------------------------------------------------------------
def test_box_iou():
    assert box_iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(1 / 3)
    assert box_iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert box_iou((0, 0, 10, 10), (10, 0, 20, 10)) == 0.0  # touching: no overlap
    assert box_iou((0, 0, 0, 10), (0, 0, 10, 10)) == 0.0  # no area


def test_ap_by_hand():
    # Two true regions; predictions at 0.9 (hit), 0.8 (miss), 0.7 (hit): precision 1, 1/2, 2/3 at
    # recall 1/2, 1/2, 1. Interpolated: 1.0 for recall 0..0.5 (51 points), 2/3 above (50).
    true = {
        "id": "p",
        "regions": [region("text", (0, 0, 100, 100)), region("text", (200, 0, 300, 100))],
    }
    pred = {
        "id": "p",
        "regions": [
            region("text", (0, 0, 100, 100), score=0.9),
            region("text", (500, 0, 600, 100), score=0.8),
            region("text", (200, 0, 300, 100), score=0.7),
        ],
    }
    s = layout_scores([(pred, true)], {})
    expected = (51 * 1.0 + 50 * 2 / 3) / 101
    assert s["classes"]["text"]["ap50"] == pytest.approx(expected)
    assert s["classes"]["text"]["ap"] == pytest.approx(expected)  # exact boxes: every threshold
    assert s["classes"]["text"]["precision"] == pytest.approx(2 / 3)
    assert s["classes"]["text"]["recall"] == 1.0
    assert s["classes"]["text"]["f1"] == pytest.approx(0.8)
    # Ranked the other way round (the miss first), AP drops: precision 0, 1/2, 2/3.
    pred["regions"][1]["score"] = 0.95
    s2 = layout_scores([(pred, true)], {})
    assert s2["classes"]["text"]["ap50"] == pytest.approx((51 * 2 / 3 + 50 * 2 / 3) / 101)


def test_ap_over_iou_thresholds():
    # IoU 0.6: a hit at thresholds 0.50, 0.55, 0.60 (3 of 10), a miss above.
    true = {"id": "p", "regions": [region("table", (0, 0, 100, 100))]}
    pred = {"id": "p", "regions": [region("table", (0, 0, 100, 60))]}
    s = layout_scores([(pred, true)], {})
    assert box_iou((0, 0, 100, 100), (0, 0, 100, 60)) == pytest.approx(0.6)
    assert s["classes"]["table"]["ap50"] == 1.0
    assert s["classes"]["table"]["ap"] == pytest.approx(0.3)
    assert s["map"] == pytest.approx(0.3) and s["map50"] == 1.0


def test_class_mismatch_and_merge():
    true = {
        "id": "p",
        "regions": [region("list", (0, 0, 100, 100)), region("page_number", (0, 900, 10, 910))],
    }
    pred = {
        "id": "p",
        "regions": [region("text", (0, 0, 100, 100)), region("footer", (0, 900, 10, 910))],
    }
    every = layout_scores([(pred, true)], {})
    assert every["classes"]["list"]["ap"] == 0.0 and every["classes"]["list"]["f1"] == 0.0
    assert every["map"] == 0.0
    cdla = layout_scores([(pred, true)])  # lists scored as text, page numbers as footers
    assert cdla["map"] == 1.0 and set(cdla["classes"]) == {"text", "footer"}


def test_missing_class_scores_zero():
    true = {
        "id": "p",
        "regions": [region("figure", (0, 0, 100, 100)), region("text", (0, 200, 100, 300))],
    }
    pred = {"id": "p", "regions": [region("text", (0, 200, 100, 300))]}
    s = layout_scores([(pred, true)], {})
    assert s["classes"]["figure"]["ap"] == 0.0 and s["classes"]["text"]["ap"] == 1.0
    assert s["map"] == 0.5


# -- reading order ---------------------------------------------------------------------------------
def _column_page(order):
    boxes = [(0, 0, 100, 50), (0, 100, 100, 150), (200, 0, 300, 50), (200, 100, 300, 150)]
    return {"id": "p", "regions": [region("text", boxes[k], order=i) for i, k in enumerate(order)]}


def test_reading_order_by_hand():
    true = _column_page([0, 1, 2, 3])
    assert reading_order_edit(true, true) == (0.0, 4, 4)
    # Two regions swapped: [0, 2, 1, 3] against [0, 1, 2, 3]: 2 substitutions of 4.
    assert reading_order_edit(_column_page([0, 2, 1, 3]), true)[0] == pytest.approx(0.5)
    # Row by row instead of column by column: [0, 2, 1, 3] as well.
    rows = {
        "id": "p",
        "regions": [
            region("text", b, order=i)
            for i, b in enumerate(
                [(0, 0, 100, 50), (200, 0, 300, 50), (0, 100, 100, 150), (200, 100, 300, 150)]
            )
        ],
    }
    assert reading_order_edit(rows, true)[0] == pytest.approx(0.5)
    # Reversed: [3, 2, 1, 0] against [0, 1, 2, 3]: no element in place, 4 substitutions.
    assert reading_order_edit(_column_page([3, 2, 1, 0]), true)[0] == pytest.approx(1.0)


def test_reading_order_ignores_furniture_and_unmatched():
    true = _column_page([0, 1, 2, 3])
    true["regions"].insert(0, region("header", (0, -100, 100, -80), order=-1))
    pred = _column_page([0, 1, 2])  # one region missed: scored on the 3 matched
    pred["regions"].append(region("page_number", (0, 900, 10, 910), order=0))  # first: ignored
    e, matched, n = reading_order_edit(pred, true)
    assert (e, matched, n) == (0.0, 3, 4)
    assert reading_order_edit({"id": "p", "regions": []}, true) == (1.0, 0, 4)


# -- text ------------------------------------------------------------------------------------------
def test_page_text_in_reading_order():
    page = {
        "id": "p",
        "regions": [
            region("header", (0, 0, 10, 10), 0, texts=["Running head"]),
            region("text", (0, 20, 10, 30), 2, texts=["b"]),
            region("title", (0, 10, 10, 20), 1, texts=["a", "a"]),
            region("table", (0, 40, 10, 50), 3, texts=["cell"]),
            region("figure_caption", (0, 60, 10, 70), 4, texts=["c 1"]),
        ],
    }
    assert page_text(page) == "aabc1"  # no header, no table, no whitespace
    other = copy.deepcopy(page)
    other["regions"][1]["order"], other["regions"][2]["order"] = 1, 2  # "b" before "aa"
    assert page_text(other) == "baac1"
    assert page_text_edit(other, page) == pytest.approx(2 / 5)  # b->a, a->b
    del other["regions"][4]
    assert page_text_edit(other, page) == pytest.approx(4 / 5)  # and "c1" missing
    assert page_text_edit({"id": "p", "regions": []}, page) == 1.0


# -- tables --------------------------------------------------------------------------------------
def test_teds_by_hand():
    t = grid([["a", "b"], ["c", "d"]])["cells"]  # table, tbody, 2 tr, 4 td: 8 nodes
    assert teds(t, t) == 1.0
    x = grid([["a", "b"], ["c", "x"]])["cells"]
    assert teds(x, t) == pytest.approx(1 - 1 / 8)  # one td renamed, texts fully different
    assert teds(x, t, structure_only=True) == 1.0
    half = grid([["a", "b"], ["c", "dd"]])["cells"]
    assert teds(half, t) == pytest.approx(1 - 0.5 / 8)  # "dd" vs "d": edit 1 / length 2
    one_row = grid([["a", "b"]])["cells"]
    assert teds(one_row, t) == pytest.approx(1 - 3 / 8)  # a tr and its 2 td deleted
    spanned = [
        {"row": 0, "col": 0, "text": "a"},
        {"row": 0, "col": 1, "text": "b"},
        {"row": 1, "col": 0, "col_span": 2, "text": "c"},
    ]
    assert teds(spanned, t) == pytest.approx(1 - 2 / 8)  # a span differs (1), a td deleted (1)
    head = grid([["a", "b"], ["c", "d"]], header_rows=1)["cells"]  # 9 nodes with thead
    # tbody deleted (its rows move up to table), thead inserted over the first row, tbody over
    # the second: 3 edits.
    assert teds(t, head) == pytest.approx(1 - 3 / 9)


def test_teds_of_generated_tables_against_themselves_and_others():
    tables = [r["table"]["cells"] for p in _load() for r in p["regions"] if r["type"] == "table"]
    assert len(tables) >= 3
    for cells in tables:
        assert teds(cells, cells) == 1.0
    assert teds(tables[0], tables[1]) < 1.0


def test_cells_from_html():
    html = (
        '<table><thead><tr><td rowspan="2">A</td><td colspan="2">B</td></tr>'
        "<tr><td>C</td><td>D</td></tr></thead>"
        "<tbody><tr><td>1</td><td>2</td><td>3</td></tr></tbody></table>"
    )
    cells = cells_from_html(html)
    got = [
        (c["row"], c["col"], c["row_span"], c["col_span"], c["text"], c["header"]) for c in cells
    ]
    assert got == [
        (0, 0, 2, 1, "A", True),
        (0, 1, 1, 2, "B", True),
        (1, 1, 1, 1, "C", True),
        (1, 2, 1, 1, "D", True),
        (2, 0, 1, 1, "1", False),
        (2, 1, 1, 1, "2", False),
        (2, 2, 1, 1, "3", False),
    ]
    assert teds(cells_from_html(html), cells) == 1.0
    assert cells_from_html("") == [] and cells_from_html("<p>no table</p>") == []


def test_adjacency_f1_by_hand():
    t = grid([["a", "b"], ["c", "d"]])["cells"]  # a-b, c-d right; a-c, b-d down
    assert adjacency_f1(t, t) == 1.0
    assert adjacency_f1(grid([["a", "b"], ["c", "x"]])["cells"], t) == pytest.approx(0.5)
    # Empty cells are skipped: a's right neighbour is b across an empty cell.
    gap = grid([["a", "", "b"], ["c", "", "d"]])["cells"]
    assert adjacency_f1(gap, t) == 1.0


def test_table_errors():
    with pytest.raises(TableError):
        teds([{"row": 0}], [])
    with pytest.raises(TableError):
        teds([{"row": -1, "col": 0}], [])


def test_table_scores_match_by_box():
    t = grid([["a", "b"], ["c", "d"]])
    true = {"id": "p", "regions": [region("table", (0, 0, 100, 100), table=t)]}
    off = {"id": "p", "regions": [region("table", (500, 0, 600, 100), table=t)]}
    assert table_scores(off, true)[0]["teds"] == 0.0 and not table_scores(off, true)[0]["found"]
    html = {
        "id": "p",
        "regions": [
            region(
                "table",
                (0, 0, 100, 100),
                table={
                    "html": "<table><tr><td>a</td><td>b</td></tr>"
                    "<tr><td>c</td><td>d</td></tr></table>"
                },
            )
        ],
    }
    assert table_scores(html, true)[0]["teds"] == 1.0


# -- the committed pages ---------------------------------------------------------------------------
def test_generated_pages_score_perfectly_against_themselves():
    truth = _load()
    r = evaluate_documents(truth, {p["id"]: p for p in truth})
    assert r["layout"]["map"] == 1.0 and r["layout"]["f1"] == 1.0
    assert r["order_edit"] == 0.0 and r["text_edit"] == 0.0
    assert r["teds"] == 1.0 and r["cell_adjacency_f1"] == 1.0
    assert "layout mAP" in format_document_report({"truth": r})


def test_perturbations_lower_the_scores():
    truth = _load()
    preds = {}
    for p in truth:
        p = copy.deepcopy(p)
        text = [r for r in p["regions"] if r["type"] == "text"]
        text[0]["order"], text[1]["order"] = text[1]["order"], text[0]["order"]
        for r in p["regions"]:
            if r["type"] == "table":
                last = max(c["row"] for c in r["table"]["cells"])
                r["table"]["cells"] = [c for c in r["table"]["cells"] if c["row"] != last]
            x0, y0, x1, y1 = r["box"]
            r["box"] = [x0, y0, x1, y0 + (y1 - y0) * 0.72]  # IoU 0.72: AP at 5 of 10 thresholds
        preds[p["id"]] = p
    r = evaluate_documents(truth, preds)
    assert r["layout"]["map50"] == 1.0 and r["layout"]["map"] == pytest.approx(0.5)
    assert 0 < r["order_edit"] < 0.5 and r["text_edit"] > 0
    assert r["teds"] < 1.0 and r["teds_struct"] < 1.0 and r["cell_adjacency_f1"] < 1.0
    empty = evaluate_documents(truth, {})
    assert empty["layout"]["map"] == 0.0 and empty["order_edit"] == 1.0
    assert empty["text_edit"] == 1.0 and empty["teds"] == 0.0
    assert not math.isnan(empty["order_coverage"])


def test_labels_are_consistent():
    """Every line in its region, every cell in its table, captions point at what they caption,
    regions in reading order with furniture first and last."""
    for p in _load():
        assert (p["width"], p["height"]) == (1654, 2339)
        regions = p["regions"]
        assert [r["order"] for r in regions] == list(range(len(regions)))
        kinds = [r["furniture"] for r in regions]
        first_body = kinds.index(False)
        last_body = len(kinds) - 1 - kinds[::-1].index(False)
        assert all(kinds[:first_body]) and all(kinds[last_body + 1 :])
        assert not any(kinds[first_body : last_body + 1])
        for r in regions:
            x0, y0, x1, y1 = r["box"]
            assert 0 <= x0 < x1 <= 1654 and 0 <= y0 < y1 <= 2339
            for ln in r["lines"]:
                a = ln["box"]
                assert x0 - 1 <= a[0] and a[2] <= x1 + 1 and y0 - 1 <= a[1] and a[3] <= y1 + 1
                assert ln["text"].strip()
            if r["type"] in ("figure_caption", "table_caption"):
                target = regions[r["caption_of"]]["type"]
                assert target == r["type"].split("_")[0]
            if r["type"] == "table":
                t = r["table"]
                slots = set()
                for c in t["cells"]:
                    for rr in range(c["row"], c["row"] + c["row_span"]):
                        for cc in range(c["col"], c["col"] + c["col_span"]):
                            assert (rr, cc) not in slots
                            slots.add((rr, cc))
                assert slots == {(rr, cc) for rr in range(t["rows"]) for cc in range(t["cols"])}
        assert os.path.exists(DOCS / p["file"])


def test_generator_is_deterministic_and_made_the_committed_pages():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_doc_pages
    finally:
        sys.path.pop(0)
    if gen_doc_pages.missing_fonts():
        pytest.skip(f"fonts for the generator are missing ({gen_doc_pages.INSTALL_HINT})")
    committed = {p["id"]: p for p in _load()}
    seed, kw = gen_doc_pages.TEST_PRESET[0]
    arr, rec = gen_doc_pages.make_page(seed, **kw)
    arr2, rec2 = gen_doc_pages.make_page(seed, **kw)
    assert rec == rec2 and (arr == arr2).all()
    old = committed[rec["id"]]
    assert [r["type"] for r in rec["regions"]] == [r["type"] for r in old["regions"]]
    texts = [[ln["text"] for ln in r["lines"]] for r in rec["regions"]]
    assert texts == [[ln["text"] for ln in r["lines"]] for r in old["regions"]]
    for a, b in zip(rec["regions"], old["regions"]):  # FreeType versions may move a pixel
        assert max(abs(u - v) for u, v in zip(a["box"], b["box"])) <= 2


def test_generator_made_the_two_column_page(tmp_path):
    """tests/data/doc_two_column.png and doc_pages.json are what `gen_doc_pages.py --preset
    two-column` writes (Pillow's bundled font: the same pixels and blocks on every machine)."""
    import numpy as np
    from PIL import Image

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_doc_pages
    finally:
        sys.path.pop(0)
    assert gen_doc_pages.main([str(tmp_path), "--preset", "two-column"]) == 0
    data = ROOT / "tests" / "data"
    blocks = "doc_pages.json"
    assert json.loads((tmp_path / blocks).read_text()) == json.loads((data / blocks).read_text())
    made = np.asarray(Image.open(tmp_path / "doc_two_column.png").convert("RGB"))
    committed = np.asarray(Image.open(data / "doc_two_column.png").convert("RGB"))
    assert made.shape == committed.shape == (1754, 1240, 3)
    assert (made == committed).all()


def test_eval_document_cli_errors(tmp_path, capsys):
    from edgeocr import cli

    m = ["--model", "ppocr-v4-mobile", "-t", "1"]
    assert cli.main(["eval", "--document", str(tmp_path), *m]) == 2
    assert "no labelled document pages here" in capsys.readouterr().err
    (tmp_path / "docparse.jsonl").write_text("{not json\n", encoding="utf-8")
    assert cli.main(["eval", "--document", str(tmp_path), *m]) == 2
    assert "not a labelled set" in capsys.readouterr().err
    assert cli.main(["eval", "--document", str(DOCS), "--limit", "-1", *m]) == 2
    assert "--limit" in capsys.readouterr().err
