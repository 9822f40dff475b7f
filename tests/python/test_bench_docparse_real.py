"""benchmarks/docparse_real.py: its results on two real dev pages (edgeocr only) have their shape
and the very scores the dataset's score.py gives those pages (also when rescored from the saved
Markdown); characters lost and the rapid anchor's reading order and writer on known inputs. No
wall-clock assertions."""

import json
import subprocess
import sys

import pytest
from conftest import REPO, shared_dir

sys.path.insert(0, str(REPO / "benchmarks"))

import _doc_engines  # noqa: E402
import _docparse_real_engines  # noqa: E402
import docparse_real  # noqa: E402

DATA = shared_dir() / "datasets" / docparse_real.DATASET
needs_data = pytest.mark.needs_fixture(f"datasets/{docparse_real.DATASET}/score.py")
# A table crop and a one-column page with headings: small, so the run stays short.
PAGES = ["plumber_agenda_en_01", "ptn_table_en_PMC3568059_003_00"]


def _gt(page_id: str) -> dict:
    with open(DATA / "pages" / f"{page_id}.json", encoding="utf-8") as f:
        return json.load(f)


@needs_data
def test_chars_lost_on_the_ground_truth():
    """The GT's own Markdown loses nothing, in any block order; nothing loses everything;
    another page's text is not taken for this page's; dropped blocks are counted."""
    manifest = docparse_real.load_manifest(DATA)
    ids = [m["id"] for m in manifest]
    for k, page_id in enumerate(ids):
        gt = _gt(page_id)
        blocks = gt["markdown"].split("\n\n")
        assert docparse_real.chars_lost(gt, gt["markdown"])["lost"] == 0.0, page_id
        assert docparse_real.chars_lost(gt, "\n\n".join(blocks[::-1]))["lost"] == 0.0, page_id
        assert docparse_real.chars_lost(gt, "")["lost"] == 1.0, page_id
        if k % 8 == 0:  # the approximate search is the slow part: a sample of pages
            other = _gt(ids[(k + 7) % len(ids)])
            # (short table cells are found wherever their characters occur: table pages
            # keep a little of another page's numbers)
            assert docparse_real.chars_lost(gt, other["markdown"])["lost"] > 0.85, page_id
    gt = _gt("plumber_agenda_en_01")
    half = "\n\n".join(gt["markdown"].split("\n\n")[::2])
    r = docparse_real.chars_lost(gt, half)
    assert 0.2 < r["lost"] < 0.8 and r["body_chars"] > 1000


@needs_data
def test_select_pages():
    manifest = docparse_real.load_manifest(DATA)
    pdf = docparse_real.select_pages(manifest, None, pdf_only=True)
    assert len(pdf) == sum(1 for m in manifest if m.get("pdf")) and all(m["pdf"] for m in pdf)
    zh = docparse_real.select_pages(manifest, "language=zh,pdf_*")
    assert zh and all(m["language"] == "zh" and m["id"].startswith("pdf_") for m in zh)
    with pytest.raises(SystemExit, match="names no page"):
        docparse_real.select_pages(manifest, "no_such_page")


def test_ppstructure_order():
    """PP-Structure's column rule: full-width regions split the page; between them the left
    column is read down, then the right; the last region straddling the middle below the one
    before it is full-width."""
    w = 1000

    def r(name, x0, y0, x1, y1):
        return {"name": name, "box": [x0, y0, x1, y1]}

    regions = [
        r("right-1", 520, 200, 950, 400),
        r("title", 100, 50, 900, 120),
        r("left-1", 50, 210, 480, 400),
        r("left-2", 50, 420, 480, 700),
        r("right-2", 520, 410, 950, 700),
        r("wide", 50, 720, 950, 800),
        r("left-3", 50, 820, 480, 900),
        r("right-3", 520, 815, 950, 900),
        r("footer", 300, 950, 700, 980),
    ]
    got = [x["name"] for x in _doc_engines.ppstructure_order(regions, w)]
    assert got == [
        "title",
        "left-1",
        "left-2",
        "right-1",
        "right-2",
        "wide",
        "left-3",
        "right-3",
        "footer",
    ]
    # The last region beside the one before it (not below it) joins the right column.
    tail = [r("a", 50, 100, 480, 300), r("b", 300, 120, 700, 200)]
    assert [x["name"] for x in _doc_engines.ppstructure_order(tail, w)] == ["a", "b"]
    assert _doc_engines.ppstructure_order([], w) == []


def test_rapid_markdown():
    regions = [
        {"type": "header", "lines": [{"text": "Running head"}]},
        {"type": "title", "lines": [{"text": "1 Intro"}]},
        {"type": "text", "lines": [{"text": "first line"}, {"text": "second"}]},
        {"type": "figure", "lines": [{"text": "axis label"}]},
        {
            "type": "table",
            "lines": [{"text": "a"}],
            "table": {"html": "<html><body><table><tr><td>a</td></tr></table></body></html>"},
        },
        {"type": "footer", "lines": [{"text": "Page 3"}]},
    ]
    assert _docparse_real_engines.rapid_markdown(regions) == (
        "# 1 Intro\n\nfirst line second\n\n<table><tr><td>a</td></tr></table>\n"
    )


@needs_data
def test_harness_scores_equal_score_py(tmp_path):
    out_json, md_dir = tmp_path / "r.json", tmp_path / "md"
    rc = docparse_real.main(
        [
            "--engines",
            "edgeocr",
            "--pages",
            ",".join(PAGES),
            "--rounds",
            "1",
            "--gap",
            "0",
            "--cold",
            "0",
            "--save-md",
            str(md_dir),
            "-o",
            str(out_json),
        ]
    )
    assert rc == 0
    res = json.loads(out_json.read_text(encoding="utf-8"))
    assert set(res["engines"]) == {"edgeocr"}
    e = res["engines"]["edgeocr"]
    assert e["input"] == "png" and e["pages"] == PAGES and e["errors"] == {}
    agg = e["aggregate"]
    assert agg["pages"] == 2
    for key in docparse_real.METRICS:
        assert key in agg, key
    assert set(agg["by_kind"]) == {"form", "table_crop"} and set(agg["by_language"]) == {"en"}
    sp = e["speed"]
    assert sp["pages"] == 2 and sp["pages_per_s"] > 0 and len(sp["blocks_s"]) == 1
    assert sp["hwm_mb"] > 0 and sp["time_per_page_vs_base"] == 1.0
    assert {"layout", "det", "rec", "table", "order", "total"} <= set(sp["stage_s_per_page"])
    lines = []
    for page_id in PAGES:
        page = dict(e["page_metrics"][page_id])
        lost = page.pop("chars_lost")
        assert 0.0 <= lost["lost"] <= 1.0 and lost["body_chars"] > 0
        pred = md_dir / "edgeocr" / "pred" / f"{page_id}.md"
        assert pred.read_text(encoding="utf-8").strip(), "an empty page"
        # The dataset's scorer on its own, one page at a time: the same figures.
        own = subprocess.run(
            [sys.executable, str(DATA / "score.py"), str(DATA / "pages" / f"{page_id}.json")]
            + [str(pred)],
            capture_output=True,
            text=True,
            check=True,
        )
        own_line = json.loads(own.stdout)
        assert page == own_line, page_id
        lines.append(own.stdout)
    metrics = tmp_path / "own.jsonl"
    metrics.write_text("".join(lines), encoding="utf-8")
    own_agg = subprocess.run(
        [sys.executable, str(DATA / "score.py"), "--aggregate", str(metrics)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(own_agg.stdout) == agg
    # Scoring the saved Markdown again, running nothing, gives the same figures and no speed.
    again = tmp_path / "again.json"
    args = ["--rescore", str(md_dir), "--pages", ",".join(PAGES), "-o", str(again)]
    assert docparse_real.main(args) == 0
    e2 = json.loads(again.read_text(encoding="utf-8"))["engines"]["edgeocr"]
    assert e2["aggregate"] == agg and e2["page_metrics"] == e["page_metrics"]
    assert e2["speed"] is None
