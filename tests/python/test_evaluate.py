"""Tests for the metrics of edgeocr/evaluate/ with hand-computed expectations.

The package is loaded straight from its folder so that these tests do not depend
on the rest of the package importing cleanly.
"""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import dev_dir

REPO = Path(__file__).resolve().parents[2]


def _load():
    # The package from its folder: its modules import only one another (and numpy).
    folder = REPO / "edgeocr" / "evaluate"
    spec = importlib.util.spec_from_file_location(
        "_edgeocr_evaluate_under_test",
        folder / "__init__.py",
        submodule_search_locations=[str(folder)],
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


ev = _load()


DEV = dev_dir()
needs_dev = pytest.mark.needs_fixture("datasets/dev/e2e_synth.jsonl")


def rect(x0, y0, x1, y1):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def line(text, pts, ignore=False):
    return {"text": text, "points": pts, "lang": "en", "ignore": ignore}


def pred(text, pts, score=1.0):
    return {"text": text, "box": pts, "score": score}


def ref_levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


# ---------------------------------------------------------------- text
def test_normalize_text():
    assert (
        ev.normalize_text("ＡＢＣ　１２３") == "ABC123"
    )  # full-width -> half-width, ideographic space
    assert ev.normalize_text(" a b\tc\n") == "abc"
    assert ev.normalize_text("合计：¥1,234.56（含税）") == "合计:¥1,234.56(含税)"
    assert ev.normalize_text("Hello, World!") == "Hello,World!"  # case and punctuation kept
    assert ev.normalize_text("") == ""
    assert ev.normalize_text(None) == ""


def test_edit_distance_known():
    assert ev.edit_distance("kitten", "sitting") == 3
    assert ev.edit_distance("", "abc") == 3
    assert ev.edit_distance("abc", "") == 3
    assert ev.edit_distance("", "") == 0
    assert ev.edit_distance("abc", "abc") == 0
    assert ev.edit_distance("发票号码", "发栗号码") == 1
    assert ev.edit_distance("abcd", "cdab") == 4
    assert ev.edit_distance("flaw", "lawn") == 2
    # astral-plane code points count as one character
    assert ev.edit_distance("a\U0001f600b", "ab") == 1


def test_edit_distance_matches_reference_dp():
    rng = random.Random(1234)
    alphabet = "ab中文12 ,"
    for _ in range(400):
        la, lb = rng.randint(0, 150), rng.randint(0, 150)  # beyond 64 to exercise wide bit vectors
        a = "".join(rng.choice(alphabet) for _ in range(la))
        b = "".join(rng.choice(alphabet) for _ in range(lb))
        assert ev.edit_distance(a, b) == ref_levenshtein(a, b)
        assert ev.edit_distance(b, a) == ref_levenshtein(a, b)


# ---------------------------------------------------------------- geometry
def test_area_and_orientation():
    assert ev.polygon_area(rect(0, 0, 2, 3)) == pytest.approx(6.0)
    cw = rect(0, 0, 2, 3)[::-1]
    assert ev.polygon_area(cw) == pytest.approx(6.0)
    assert ev.polygon_area(np.array(rect(0, 0, 2, 3), dtype=np.float32)) == pytest.approx(6.0)


def test_iou_axis_aligned_overlaps():
    a = rect(0, 0, 2, 2)
    assert ev.polygon_iou(a, a) == pytest.approx(1.0)
    # shifted by 1 in x: inter 2, union 6
    assert ev.polygon_intersection_area(a, rect(1, 0, 3, 2)) == pytest.approx(2.0)
    assert ev.polygon_iou(a, rect(1, 0, 3, 2)) == pytest.approx(1 / 3)
    # shifted by (1,1): inter 1, union 7
    assert ev.polygon_iou(a, rect(1, 1, 3, 3)) == pytest.approx(1 / 7)
    # containment: inter 1 (the small one), union 4
    assert ev.polygon_iou(a, rect(0.5, 0.5, 1.5, 1.5)) == pytest.approx(0.25)
    # touching edges / disjoint
    assert ev.polygon_iou(a, rect(2, 0, 4, 2)) == 0.0
    assert ev.polygon_iou(a, rect(5, 5, 6, 6)) == 0.0
    # order and orientation do not matter
    b = rect(1, 0, 3, 2)
    assert ev.polygon_iou(b[::-1], a) == pytest.approx(1 / 3)


def test_iou_rotated_quad():
    sq = rect(-1, -1, 1, 1)  # area 4
    r = math.sqrt(2)
    diamond = [[r, 0], [0, r], [-r, 0], [0, -r]]  # the same square rotated 45 degrees
    # octagon: 4 minus four corner triangles with legs 2 - sqrt2 -> 8*sqrt2 - 8
    inter = 8 * math.sqrt(2) - 8
    assert ev.polygon_area(diamond) == pytest.approx(4.0)
    assert ev.polygon_intersection_area(sq, diamond) == pytest.approx(inter)
    assert ev.polygon_iou(sq, diamond) == pytest.approx(1 / math.sqrt(2))
    # a text-order quad starting at the bottom-right (upside-down line) is the same polygon
    upside = [[1, 1], [-1, 1], [-1, -1], [1, -1]]
    assert ev.polygon_iou(sq, upside) == pytest.approx(1.0)


def test_degenerate_quads():
    line_pts = [[0, 0], [1, 1], [2, 2], [3, 3]]  # collinear
    assert ev.polygon_area(line_pts) == 0.0
    assert ev.polygon_iou(line_pts, rect(0, 0, 3, 3)) == 0.0
    assert ev.polygon_iou(line_pts, line_pts) == 0.0
    point = [[1, 1]] * 4
    assert ev.polygon_area(point) == 0.0
    assert ev.polygon_iou(point, rect(0, 0, 2, 2)) == 0.0
    # a repeated vertex: effectively the triangle (0,0),(2,0),(0,2), area 2
    tri = [[0, 0], [2, 0], [2, 0], [0, 2]]
    assert ev.polygon_area(tri) == pytest.approx(2.0)
    assert ev.polygon_iou(tri, rect(0, 0, 2, 2)) == pytest.approx(0.5)


def test_self_intersecting_quad_falls_back_to_hull():
    bowtie = [[0, 0], [2, 2], [2, 0], [0, 2]]  # wrongly ordered corners of the 2x2 square
    assert ev.polygon_area(bowtie) == pytest.approx(4.0)
    assert ev.polygon_iou(bowtie, rect(0, 0, 2, 2)) == pytest.approx(1.0)
    assert ev.polygon_intersection_area(bowtie, rect(1, 0, 3, 2)) == pytest.approx(2.0)


def test_concave_quad_is_exact():
    dart = [[0, 0], [4, 0], [1, 1], [0, 4]]  # reflex vertex at (1,1); shoelace area 4
    assert ev.polygon_area(dart) == pytest.approx(4.0)
    # the square beyond the reflex vertex lies outside the dart (its hull would cover it)
    assert ev.polygon_intersection_area(dart, rect(1, 1, 2, 2)) == pytest.approx(0.0, abs=1e-9)
    assert ev.polygon_intersection_area(dart, rect(0, 0, 1, 1)) == pytest.approx(1.0)
    # strip [0,4]x[0,0.5]: below the edge (4,0)-(1,1) i.e. y <= (4-x)/3 up to x = 2.5
    # area = 0.5*2.5 + triangle (2.5..4) 0.5*1.5*0.5 = 1.25 + 0.375
    assert ev.polygon_intersection_area(dart, rect(0, 0, 4, 0.5)) == pytest.approx(1.625)


def test_flat_and_box_inputs():
    assert ev.polygon_area([0, 0, 2, 0, 2, 2, 0, 2]) == pytest.approx(4.0)  # flat 8-vector
    assert ev.polygon_area([0, 0, 2, 3]) == pytest.approx(6.0)  # xyxy


# ---------------------------------------------------------------- matching
def _sample(lines, sid="s", tags=("en",)):
    return {"id": sid, "tags": list(tags), "lines": lines}


def test_greedy_matching_by_decreasing_iou():
    g = [line("A", rect(0, 0, 10, 10)), line("B", rect(20, 0, 30, 10))]
    preds = [
        pred("wrong", rect(1, 0, 10, 10)),  # IoU 0.9 with A, listed first
        pred("A", rect(0, 0, 10, 10)),  # IoU 1.0 with A
        pred("B", rect(21, 0, 30, 10)),  # IoU 0.9 with B
    ]
    r = ev.evaluate_e2e([_sample(g)], {"s": preds})["all"]
    assert r["det_precision"] == pytest.approx(2 / 3)
    assert r["det_recall"] == pytest.approx(1.0)
    assert r["det_hmean"] == pytest.approx(0.8)
    # both text matches count only if "A" (IoU 1.0) won A
    assert r["e2e_precision"] == pytest.approx(2 / 3)
    assert r["e2e_recall"] == pytest.approx(1.0)


def test_iou_threshold_is_strict_and_area_criterion():
    g = [line("A", rect(0, 0, 10, 10))]
    half = ev.evaluate_e2e([_sample(g)], {"s": [pred("A", rect(0, 0, 5, 10))]})["all"]
    assert half["det_hmean"] == 0.0  # IoU exactly 0.5 is not > 0.5
    assert half["det_area_hmean"] == 0.0  # covers only 50% of the GT
    loose = ev.evaluate_e2e([_sample(g)], {"s": [pred("A", rect(0, 0, 20, 10))]})["all"]
    assert loose["det_hmean"] == 0.0  # IoU 0.5
    assert loose["e2e_hmean"] == 0.0
    assert loose["det_area_precision"] == 1.0  # 100% of GT, 50% of prediction
    assert loose["det_area_recall"] == 1.0
    too_loose = ev.evaluate_e2e([_sample(g)], {"s": [pred("A", rect(0, 0, 30, 10))]})["all"]
    assert too_loose["det_area_hmean"] == 0.0  # only 33% of the prediction
    # granularity-tolerant: the loose box covers 100% of the line -> assigned, exact
    assert loose["line_acc"] == 1.0
    assert loose["cer"] == 0.0


def test_ignore_lines():
    g = [line("A", rect(0, 0, 10, 10)), line("###", rect(20, 0, 30, 10), ignore=True)]
    preds = [
        pred("A", rect(0, 0, 10, 10)),  # TP
        pred("zz", rect(20, 0, 30, 10)),  # matched to ignored line: not counted
        pred("q", rect(21, 0, 24, 10)),  # unmatched, 100% inside the ignored line: not counted
        pred("xyz", rect(50, 0, 60, 10)),  # FP
    ]
    r = ev.evaluate_e2e([_sample(g)], {"s": preds})["all"]
    assert r["det_precision"] == pytest.approx(0.5)
    assert r["det_recall"] == pytest.approx(1.0)
    assert r["e2e_precision"] == pytest.approx(0.5)
    assert r["n_lines"] == 1
    assert r["line_acc"] == 1.0
    assert r["one_minus_ned"] == 1.0
    # only "xyz" is an unassigned prediction; GT chars = len("A")
    assert r["cer"] == pytest.approx(3 / 1)


def test_granularity_tolerant_join():
    g = [line("abcd", rect(0, 0, 100, 10))]
    split = [pred("ab", rect(0, 0, 48, 10)), pred("cd", rect(52, 0, 100, 10))]
    r = ev.evaluate_e2e([_sample(g)], {"s": split})["all"]
    assert r["det_hmean"] == 0.0  # each half has IoU 0.48
    assert r["line_acc"] == 1.0
    assert r["one_minus_ned"] == 1.0
    assert r["cer"] == 0.0
    # joined in the predictor's reading order: "cdab" vs "abcd" -> ed 4
    r = ev.evaluate_e2e([_sample(g)], {"s": split[::-1]})["all"]
    assert r["line_acc"] == 0.0
    assert r["one_minus_ned"] == pytest.approx(0.0)
    assert r["cer"] == pytest.approx(1.0)


def test_tolerant_assignment_picks_largest_share():
    # one prediction straddling two lines: 70% of it on line A, 30% on line B
    g = [line("A", rect(0, 0, 10, 10)), line("B", rect(0, 10, 10, 20))]
    r = ev.evaluate_e2e([_sample(g)], {"s": [pred("A", rect(0, 3, 10, 13))]})["all"]
    assert r["line_acc"] == pytest.approx(0.5)  # A exact, B unassigned
    assert r["cer"] == pytest.approx(1 / 2)


def test_ned_and_cer_by_hand():
    g = [line("abcd", rect(0, 0, 40, 10)), line("hello", rect(0, 20, 50, 30))]
    preds = [pred("abce", rect(0, 0, 40, 10)), pred("xy", rect(0, 100, 20, 110))]
    r = ev.evaluate_e2e([_sample(g)], {"s": preds})["all"]
    assert r["line_acc"] == 0.0
    # line 1: 1 - 1/4 = 0.75; line 2 unassigned: 0
    assert r["one_minus_ned"] == pytest.approx(0.375)
    # (1 + 5 + len("xy")) / (4 + 5)
    assert r["cer"] == pytest.approx(8 / 9)
    assert r["det_precision"] == pytest.approx(0.5)
    assert r["det_recall"] == pytest.approx(0.5)
    assert r["e2e_hmean"] == 0.0


def test_normalisation_applies_in_e2e():
    g = [line("ＡＢＣ 123", rect(0, 0, 40, 10))]
    r = ev.evaluate_e2e([_sample(g)], {"s": [pred("ABC123", rect(0, 0, 40, 10))]})["all"]
    assert r["e2e_hmean"] == 1.0 and r["line_acc"] == 1.0


def test_no_predictions_and_tags():
    s1 = _sample([line("A", rect(0, 0, 10, 10))], "s1", ("en", "scan"))
    s2 = _sample([line("B", rect(0, 0, 10, 10))], "s2", ("zh",))
    rep = ev.evaluate_e2e([s1, s2], {"s1": [pred("A", rect(0, 0, 10, 10))]})
    assert rep["n_images"] == 2
    assert rep["all"]["det_recall"] == pytest.approx(0.5)
    assert rep["all"]["det_precision"] == pytest.approx(1.0)
    assert rep["tags"]["scan"]["det_hmean"] == 1.0
    assert rep["tags"]["zh"]["det_precision"] == 0.0
    assert rep["tags"]["zh"]["det_recall"] == 0.0
    assert rep["tags"]["zh"]["cer"] == 1.0
    assert rep["tags"]["zh"]["n_images"] == 1


def test_evaluate_rec():
    samples = [
        {"id": "a", "text": "ＡＢ", "tags": ["en"]},
        {"id": "b", "text": "abcd", "tags": ["en", "blur"]},
        {"id": "c", "text": "中文", "tags": ["zh"]},
    ]
    r = ev.evaluate_rec(samples, {"a": "AB", "b": "abce"})
    assert r["all"]["accuracy"] == pytest.approx(1 / 3)
    assert r["all"]["one_minus_ned"] == pytest.approx((1 + 0.75 + 0) / 3)
    assert r["tags"]["blur"]["accuracy"] == 0.0
    assert r["tags"]["en"]["one_minus_ned"] == pytest.approx(0.875)
    assert r["tags"]["zh"]["one_minus_ned"] == 0.0


def test_format_report():
    g = [line("A", rect(0, 0, 10, 10))]
    rep = ev.evaluate_e2e([_sample(g)], {"s": [pred("A", rect(0, 0, 10, 10))]})
    base = ev.evaluate_e2e([_sample(g)], {})
    txt = ev.format_report(rep)
    assert "det H" in txt and "CER" in txt and "1-NED" in txt
    txt2 = ev.format_report(rep, base, names=("mine", "theirs"))
    assert "mine" in txt2 and "theirs" in txt2 and "+1.0000" in txt2
    rec = ev.evaluate_rec([{"id": "a", "text": "x", "tags": []}], {"a": "x"})
    both = ev.format_report({"e2e": rep, "rec": rec}, {"e2e": base, "rec": rec})
    assert "Recognition-only" in both and "End-to-end" in both


# ---------------------------------------------------------------- whitespace-aware figures
def test_normalize_text_ws():
    assert (
        ev.normalize_text_ws("  Invoice\t2041   due\u3000on ") == "Invoice 2041 due on"
    )  # ideographic space too
    assert ev.normalize_text_ws("ＡＢＣ　１２３") == "ABC 123"
    assert ev.normalize_text_ws("a\u200bb") == "ab"
    assert ev.normalize_text_ws(None) == "" and ev.normalize_text_ws(" \n ") == ""


def test_space_errors_known_strings():
    assert ev.space_errors("Invoice2041dueonMarch3", "Invoice 2041 due on March 3") is True
    assert ev.space_errors("Invoice 2041 due on March 3", "Invoice 2041 due on March 3") is False
    assert ev.space_errors("Invoice 2041 dueon March 3", "Invoice 2041 due on March 3") is True
    assert (
        ev.space_errors("Invoice 2041 due on March 8", "Invoice 2041 due on March 3") is None
    )  # other error


def test_join_ws_spaces_latin_not_cjk():
    assert ev.join_ws(["Total:", "12.00"]) == "Total: 12.00"
    assert ev.join_ws(["合计", "12.00"]) == "合计12.00"
    assert ev.join_ws(["共计", "三项"]) == "共计三项"
    assert ev.join_ws(["", "a", "b"]) == "a b"


def test_space_metrics_by_hand():
    g = [
        line("Invoice 2041 due on March 3", rect(0, 0, 200, 10)),
        line("Total 12", rect(0, 20, 100, 30)),
        line("abc", rect(0, 40, 30, 50)),
        {"text": "合计 12元", "points": rect(0, 60, 100, 70), "lang": "zh", "ignore": False},
    ]
    preds = [
        pred(
            "Invoice2041dueonMarch3", rect(0, 0, 200, 10)
        ),  # right apart from spaces, spaces wrong
        pred("Total", rect(0, 20, 48, 30)),  # split line: joined "Total 12", right with spaces
        pred("12", rect(52, 20, 100, 30)),
        pred("abd", rect(0, 40, 30, 50)),  # wrong
        pred("合计 12元", rect(0, 60, 100, 70)),  # right
    ]
    rep = ev.evaluate_e2e([_sample(g)], {"s": preds})
    r = rep["all"]
    assert r["line_acc"] == pytest.approx(3 / 4)
    assert r["line_acc_ws"] == pytest.approx(2 / 4)
    assert r["space_acc"] == pytest.approx(2 / 3)
    # edit distances with spaces: 5 (dropped spaces) + 0 + 1 + 0; characters with spaces: 27 + 8 + 3
    # + 6
    assert r["cer_ws"] == pytest.approx(6 / 44)
    assert r["cer"] == pytest.approx(1 / (22 + 7 + 3 + 5))
    en, zh = rep["langs"]["en"], rep["langs"]["zh"]
    assert en["n_lines"] == 3 and zh["n_lines"] == 1
    assert en["line_acc"] == pytest.approx(2 / 3) and en["space_acc"] == pytest.approx(1 / 2)
    assert zh["line_acc_ws"] == 1.0 and zh["space_acc"] == 1.0
    assert "spaces right" in ev.format_report(rep) and "per line language" in ev.format_report(rep)


def test_space_metrics_rec():
    samples = [
        {"id": "a", "text": "due on March 3", "lang": "en", "tags": []},
        {"id": "b", "text": "Total 12", "lang": "en", "tags": []},
        {"id": "c", "text": "中文", "lang": "zh", "tags": []},
    ]
    r = ev.evaluate_rec(samples, {"a": "dueonMarch3", "b": "Total 12", "c": "中文"})
    assert r["all"]["accuracy"] == 1.0
    assert r["all"]["accuracy_ws"] == pytest.approx(2 / 3)
    assert r["all"]["space_acc"] == pytest.approx(2 / 3)
    assert r["all"]["cer_ws"] == pytest.approx(3 / (14 + 8 + 2))
    assert r["langs"]["en"]["space_acc"] == pytest.approx(1 / 2)
    assert r["langs"]["zh"]["space_acc"] == 1.0


# ---------------------------------------------------------------- real dev set
@needs_dev
def test_dev_ground_truth_scores_perfect():
    samples = ev.load_e2e(DEV)
    assert len(samples) > 0
    assert all(Path(s["path"]).is_file() for s in samples)
    preds = {
        s["id"]: [
            {"text": ln["text"], "box": ln["points"], "score": 1.0}
            for ln in s["lines"]
            if not ln["ignore"]
        ]
        for s in samples
    }
    rep = ev.evaluate_e2e(samples, preds)
    for group in [rep["all"], *rep["tags"].values()]:
        for k in (
            "det_precision",
            "det_recall",
            "det_hmean",
            "det_area_precision",
            "det_area_recall",
            "det_area_hmean",
            "e2e_precision",
            "e2e_recall",
            "e2e_hmean",
            "line_acc",
            "one_minus_ned",
        ):
            assert group[k] == pytest.approx(1.0), k
        assert group["cer"] == pytest.approx(0.0)
        assert group["line_acc_ws"] == pytest.approx(1.0) and group["space_acc"] == pytest.approx(
            1.0
        )
        assert group["cer_ws"] == pytest.approx(0.0)
    assert set(rep["langs"]) == {ln["lang"] for s in samples for ln in s["lines"]}
    assert rep["n_images"] == len(samples)
    assert "det H" in ev.format_report(rep, rep)


@needs_dev
def test_dev_rec_ground_truth_scores_perfect():
    samples = ev.load_rec(DEV)
    assert len(samples) > 0
    assert all(Path(s["path"]).is_file() for s in samples)
    rep = ev.evaluate_rec(samples, {s["id"]: s["text"] for s in samples})
    assert rep["all"]["accuracy"] == 1.0
    assert rep["all"]["one_minus_ned"] == 1.0
    empty = ev.evaluate_rec(samples, {})
    assert empty["all"]["accuracy"] == 0.0
