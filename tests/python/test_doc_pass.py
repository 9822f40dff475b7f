"""The whole-document pass (csrc/document/document_pass.cpp through ``_core.finish_document``;
docs/document-parsing.md, "The whole document"): the window `Predictor.parse_pages` runs it in,
and what it does on the dev set's real multi-page sequences (../shared/datasets/docparse-real-dev,
the pages with a ``sequence``; skipped without it): the blocks the ground truth marks
``"continues": true`` are joined (a paragraph or a table across the page break), nothing else is
joined, running headers the page rules left in the body become furniture and each page keeps
the rest of its text; the document's Markdown writes a continued table as one; the CLI's
Markdown and JSON of a PDF say so. The pass's rules one by one, on hand-made pages:
tests/cpp/test_doc_pass.cpp."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata

import pytest
from conftest import shared_dir

import edgeocr
from edgeocr.documents.document_pass import finished_pages
from edgeocr.models import document_model_paths
from edgeocr.results import DocumentResult

DEV = shared_dir() / "datasets" / "docparse-real-dev"


# -- the window (no models) ---------------------------------------------------------------------


class _Page:
    """A page that failed: the pass gives it back as it is."""

    def __init__(self, n):
        self.page = n
        self.error = RuntimeError("failed")
        self._core = None


def test_the_window_streams_each_page_two_pages_late_and_closes_its_source():
    read = []
    closed = []

    def source(n):
        try:
            for k in range(n):
                read.append(k)
                yield _Page(k)
        finally:
            closed.append(True)

    out = finished_pages(source(10))
    first = next(out)
    assert first.page == 0 and read == [0, 1, 2]  # the page and the two after it
    assert [p.page for p in out] == list(range(1, 10))
    assert closed == [True]
    # A caller that stops early: the document's reader ends then.
    read.clear()
    closed.clear()
    out = finished_pages(source(100))
    next(out)
    out.close()
    assert closed == [True] and len(read) == 3
    # Short documents: every page comes out.
    assert [p.page for p in finished_pages(source(1))] == [0]
    assert list(finished_pages(source(0))) == []


# -- the dev set's sequences --------------------------------------------------------------------


def _clean(text: str) -> str:
    t = unicodedata.normalize("NFKC", text or "").lower()
    return "".join(ch for ch in t if ch.isalnum())


def _gt(pid: str) -> dict:
    return json.loads((DEV / "pages" / f"{pid}.json").read_text(encoding="utf-8"))


def _sequences() -> list[list[str]]:
    seqs = []
    for line in (DEV / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        seq = json.loads(line).get("sequence")
        if seq and list(seq["pages"]) not in seqs:
            seqs.append(list(seq["pages"]))
    return seqs


def _tables(md: str) -> int:
    """Tables in Markdown: HTML ones and pipe tables (their header rule)."""
    return md.count("<table>") + len(re.findall(r"^\| --- ", md, re.M))


def _holds(box, gt_box) -> bool:
    """The region's box holds the GT box's centre, or the GT box the region's."""

    def inside(b, c):
        return b[0] <= c[0] <= b[2] and b[1] <= c[1] <= b[3]

    def centre(b):
        return (0.5 * (b[0] + b[2]), 0.5 * (b[1] + b[3]))

    return inside(box, centre(gt_box)) or inside(gt_box, centre(box))


@pytest.fixture(scope="module")
def predictor():
    if "layout" not in document_model_paths():
        pytest.skip("the layout model is not installed (pip install 'edgeocr[test]')")
    if not (DEV / "manifest.jsonl").exists():
        pytest.skip(f"the real dev pages are not at {DEV} (../shared/datasets/docparse-real-dev)")
    return edgeocr.Predictor(threads=2)


@pytest.fixture(scope="module")
def pdf_sequences(predictor):
    """Each sequence with one-page PDFs: (ids, pages as parse leaves them, after the pass)."""
    from edgeocr import _core

    out = []
    for ids in _sequences():
        if not all((DEV / "pdf" / f"{pid}.pdf").exists() for pid in ids):
            continue
        raw = []
        for pid in ids:
            dpi = _gt(pid).get("dpi") or 200
            pages = predictor.parse_pages(
                str(DEV / "pdf" / f"{pid}.pdf"), dpi=dpi, document_pass=False
            )
            (page,) = list(pages)
            raw.append(page)
        done = _core.finish_document([r._core for r in raw], predictor._document())
        after = [DocumentResult._from_core(d, r.source, page=r.page) for d, r in zip(done, raw)]
        out.append((ids, raw, after))
    assert len(out) >= 4
    return out


def _joins(ids, after):
    """(GT continues blocks found joined, their count, joins matching no GT block)."""
    found, total, wrong = [], 0, []
    for k, pid in enumerate(ids):
        gt = _gt(pid)
        wanted = [b for b in gt["blocks"] if b.get("continues")] if k > 0 else []
        total += len(wanted)
        for b in wanted:
            kind = "table" if b["type"] == "table" else "paragraph"
            if any(
                r.continues and r.joined == kind and _holds(r.box, b["bbox"])
                for r in after[k].regions
            ):
                found.append((pid, kind))
        for r in after[k].regions:
            if not r.continues:
                continue
            if r.from_previous_page:
                ok = any(b.get("continues") and _holds(r.box, b["bbox"]) for b in wanted)
            else:  # a column break: the two parts in one GT block, or in two the first open
                before = after[k].regions[r.continues_region]
                ok = _column_join_in_gt(gt, before.text, r.text)
            if not ok:
                wrong.append((pid, r.joined, r.text[:40]))
    return found, total, wrong


def _column_join_in_gt(gt: dict, first: str, second: str) -> bool:
    def block_of(text, last):
        t = _clean(text)
        probe = t[-24:] if last else t[:24]
        for i, b in enumerate(gt["blocks"]):
            if probe and probe in _clean(b.get("text", "")):
                return i
        return None

    a, b = block_of(first, True), block_of(second, False)
    if a is None or b is None:
        return False
    end = gt["blocks"][a].get("text", "").rstrip()[-1:]
    return a == b or (b == a + 1 and end not in ".!?;:。！？；：")


def test_continued_paragraphs_and_tables_of_the_pdf_pages_are_joined(pdf_sequences):
    found, total, wrong = [], 0, []
    for ids, _, after in pdf_sequences:
        f, t, w = _joins(ids, after)
        found += f
        total += t
        wrong += w
    # The GT's continues whose previous page is in the set: icdar 01-02 and 04-05 (paragraphs),
    # pdf_report_zh 01-02 and 03-04 (tables), Federal Register 01-02 and the paper 01-02
    # (paragraphs).
    assert total == 6
    assert len(found) >= 5, found
    assert ("pdf_report_zh_04", "table") in found and ("pdf_report_zh_02", "table") in found
    assert wrong == []


def test_running_headers_become_furniture_and_pages_keep_their_text(pdf_sequences):
    caught, furniture = [], {}
    for ids, raw, after in pdf_sequences:
        for pid, before, now in zip(ids, raw, after):
            was = {_clean(r.text) for r in before.regions if r.furniture}
            new = [r for r in now.regions if r.furniture and _clean(r.text) not in was]
            gt = _gt(pid)
            for r in new:
                kinds = [
                    b["type"]
                    for b in gt["blocks"]
                    if _clean(b.get("text")) and _clean(r.text) in _clean(b.get("text"))
                ]
                assert kinds and kinds[0] in ("header", "footer", "page_number"), (pid, r.text)
                caught.append((pid, r.text))
            furniture[pid] = {r.text for r in now.regions if r.furniture}
            # The page's own Markdown: as before, less the new furniture's text.
            lost = sum(len(_clean(r.text)) for r in new)
            assert len(_clean(now.to_markdown())) == len(_clean(before.to_markdown())) - lost, pid
            # The page's order holds: top furniture, body, bottom furniture; lines in region order.
            seen_body = False
            for r in now.regions:
                top = r.box[1] + r.box[3] < now.height
                if not r.furniture:
                    seen_body = True
                assert not (r.furniture and top and seen_body), pid
    # "Methodology", the running header of eu-020's even pages: furniture (the page's own band
    # rule finds it now), and the rule typed as underscores under it on every page is caught by
    # the pass as repeated furniture.
    assert "Methodology" in furniture["icdar_report_en_04"]
    assert any(pid == "icdar_report_en_04" for pid, _ in caught), caught


def test_the_document_markdown_writes_a_continued_table_as_one(pdf_sequences):
    from edgeocr import _core

    for ids, _raw, after in pdf_sequences:
        if ids != ["pdf_report_zh_03", "pdf_report_zh_04"]:
            continue
        md = _core.document_markdown([a._core for a in after], page_numbers=[1, 2])
        per_page = sum(_tables(a.to_markdown()) for a in after)
        assert _tables(md) == per_page - 1
        # The continued rows come inside the table of page 1, before page 2 begins.
        cut = md.index("<!-- page 2 -->")
        assert _clean("2018年04月10日") in _clean(md[:cut])
        # Nothing is lost: every page's own text is in the document's.
        for a in after:
            whole = _clean(re.sub(r"<[^>]+>", "", md))
            for line in a.to_markdown().split("\n"):
                assert _clean(re.sub(r"<[^>]+>", "", line)) in whole, (a.page, line)
        return
    pytest.fail("no pdf_report_zh_03-04 sequence")


def test_scanned_pages_join_the_paragraph_across_the_break(predictor):
    """The PNGs of eu-020 pp. 9-11 (OCR): p. 10 goes on with p. 9's last sentence ("a
    Bachelor of / Communications, ..."); nothing else joins."""
    from edgeocr import _core

    ids = ["icdar_report_en_04", "icdar_report_en_05", "icdar_report_en_06"]
    raw = [predictor.parse(str(DEV / "pages" / f"{pid}.png")) for pid in ids]
    done = _core.finish_document([r._core for r in raw], predictor._document())
    after = [DocumentResult._from_core(d, r.source) for d, r in zip(done, raw)]
    found, total, wrong = _joins(ids, after)
    assert found == [("icdar_report_en_05", "paragraph")] and total == 1
    assert wrong == []
    md = _core.document_markdown(done)
    assert "Bachelor of Communications" in re.sub(
        r"\s+", " ", md.replace("A ccountancy", "Accountancy")
    )


def test_parse_pages_and_the_cli_run_the_pass_over_a_pdf(predictor, tmp_path):
    pdfium = pytest.importorskip("pypdfium2", reason="pip install 'edgeocr[test]'")
    doc = pdfium.PdfDocument.new()
    for pid in ("pdf_report_zh_03", "pdf_report_zh_04"):
        src = pdfium.PdfDocument(str(DEV / "pdf" / f"{pid}.pdf"))
        doc.import_pages(src)
    pdf = tmp_path / "report.pdf"
    doc.save(str(pdf))
    pages = list(predictor.parse_pages(str(pdf), dpi=200))
    assert [p.page for p in pages] == [0, 1]
    first = [r for r in pages[1].regions if not r.furniture][0]
    assert first.type == "table" and first.continues and first.joined == "table"
    assert first.from_previous_page and pages[0].regions[first.continues_region].type == "table"
    plain = list(predictor.parse_pages(str(pdf), dpi=200, document_pass=False))
    assert not any(r.continues for p in plain for r in p.regions)

    exe = [sys.executable, "-m", "edgeocr.cli", "predict", "--threads", "2", "--dpi", "200"]
    out = tmp_path / "report.md"
    p = subprocess.run(
        [*exe, str(pdf), "-o", str(out)], capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    md = out.read_text(encoding="utf-8")
    assert _tables(md) == sum(_tables(pg.to_markdown()) for pg in pages) - 1
    p = subprocess.run(
        [*exe, str(pdf), "--format", "json"], capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    tree = json.loads(p.stdout)
    joined = [r for r in tree["pages"][1]["regions"] if r["continues"]]
    assert joined and joined[0]["joined"] == "table" and joined[0]["from_previous_page"]
