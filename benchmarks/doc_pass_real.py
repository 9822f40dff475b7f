#!/usr/bin/env python3
"""The whole-document pass (``_core.finish_document``, csrc/document/document_pass.cpp) on the
real dev set's multi-page sequences (../shared/datasets/docparse-real-dev, field ``sequence``):
what it changes, against the ground truth.

    python benchmarks/doc_pass_real.py                  # the page PNGs (OCR)
    python benchmarks/doc_pass_real.py --source pdf     # the one-page PDFs (their text layer)
    python benchmarks/doc_pass_real.py -o out.json --save-md DIR

Each sequence's pages are parsed one by one (``Predictor.parse`` of the PNG, or
``parse_pages`` of the page's PDF at the GT's dpi), as ``parse`` leaves them ("before"), then
the pass runs over the sequence ("after"). Printed:

* the score of each page's own Markdown (``to_markdown``, what the per-page scorer reads)
  before and after, by the dataset's ``score.py`` (one page at a time, then its
  ``--aggregate``): the pass changes a page's Markdown only where it makes regions furniture
  (header_leak) or changes heading levels (not scored);
* joins: every region the pass marked ``continues`` and every GT block marked ``"continues":
  true`` whose previous page is in the set, matched by their boxes (the region's box holds the
  GT block's centre, or the GT block's box the region's); a join that matches no GT block is
  wrong;
* furniture the pass found that the page rules had left in the body, each with the GT block its
  text matches (a header, footer or page number is right; a body block is wrong).

Loaded-machine timings mean nothing and none are printed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT.parent / "shared" / "datasets" / "docparse-real-dev"
FURNITURE = {"header", "footer", "page_number"}


def clean(text: str) -> str:
    """Letters, digits and CJK only (score.py's comparison), NFKC, lower case."""
    t = unicodedata.normalize("NFKC", text or "").lower()
    return "".join(ch for ch in t if ch.isalnum())


def gt_text(block: dict) -> str:
    if block.get("text"):
        return block["text"]
    return re.sub(r"<[^>]+>", " ", block.get("html", ""))


def sequences(dataset: Path) -> list[list[str]]:
    seqs = []
    for line in (dataset / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        seq = json.loads(line).get("sequence")
        if seq and list(seq["pages"]) not in seqs:
            seqs.append(list(seq["pages"]))
    return seqs


def gt_block_of(gt: dict, text: str, last: bool):
    """Index of the GT body block holding the first (last) 24 characters of ``text``."""
    t = clean(text)
    probe = t[-24:] if last else t[:24]
    if not probe:
        return None
    for i, b in enumerate(gt["blocks"]):
        if probe in clean(gt_text(b)):
            return i
    return None


def column_join_right(gt: dict, before_text: str, text: str) -> bool:
    """A join inside a page (a column break) is right when the two texts are in one GT block,
    or in consecutive GT blocks the first of which ends mid-sentence (the GT keeps a paragraph
    cut by a column break as two blocks and marks only page breaks)."""
    a, b = gt_block_of(gt, before_text, True), gt_block_of(gt, text, False)
    if a is None or b is None:
        return False
    if a == b:
        return True
    end = gt_text(gt["blocks"][a]).rstrip()[-1:]
    return b == a + 1 and end not in ".!?;:。！？；："


def parse_pages(predictor, dataset: Path, ids: list[str], source: str):
    """The pages' DocumentResults as parse leaves them (no document pass)."""
    out = []
    for pid in ids:
        gt = json.loads((dataset / "pages" / f"{pid}.json").read_text(encoding="utf-8"))
        if source == "png":
            out.append(predictor.parse(str(dataset / "pages" / f"{pid}.png")))
            continue
        pdf = dataset / "pdf" / f"{pid}.pdf"
        if not pdf.exists():
            return None
        dpi = gt.get("dpi") or 200
        pages = predictor.parse_pages(str(pdf), dpi=dpi, document_pass=False)
        out.append(next(iter(pages)))
    return out


def score(dataset: Path, pid: str, markdown: str, folder: Path) -> dict:
    md = folder / f"{pid}.md"
    md.write_text(markdown, encoding="utf-8")
    gt = dataset / "pages" / f"{pid}.json"
    r = subprocess.run(
        [sys.executable, str(dataset / "score.py"), str(gt), str(md)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(r.stdout.strip().splitlines()[-1])


def aggregate(dataset: Path, rows: list[dict], folder: Path, name: str) -> dict:
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    r = subprocess.run(
        [sys.executable, str(dataset / "score.py"), "--aggregate", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(r.stdout.strip().splitlines()[-1])


def holds(box, point) -> bool:
    x0, y0, x1, y1 = box
    return x0 <= point[0] <= x1 and y0 <= point[1] <= y1


def centre(box):
    return (0.5 * (box[0] + box[2]), 0.5 * (box[1] + box[3]))


def join_at(page, pid: str, block: dict, kind: str) -> dict:
    """The join the pass made where the GT's ``block`` continues another (None: no join)."""
    hit = [r.joined for r in page.regions if r.continues and same_place(r.box, block["bbox"])]
    joined = hit[0] if hit else None
    return {"page": pid, "type": kind, "text": gt_text(block)[:50], "joined": joined}


def same_place(region_box, gt_box) -> bool:
    return holds(region_box, centre(gt_box)) or holds(gt_box, centre(region_box))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default=str(DATASET))
    ap.add_argument("--source", choices=("png", "pdf"), default="png")
    ap.add_argument("-o", "--output", help="write the figures as JSON here")
    ap.add_argument("--save-md", help="keep each page's Markdown (before/after) and the document's")
    args = ap.parse_args(argv)
    dataset = Path(args.dataset)
    if not (dataset / "score.py").exists():
        print(f"no dataset at {dataset} (../shared/datasets/docparse-real-dev)", file=sys.stderr)
        return 2

    import edgeocr
    from edgeocr import _core
    from edgeocr.results import DocumentResult

    predictor = edgeocr.Predictor()
    tmp = Path(args.save_md) if args.save_md else Path(tempfile.mkdtemp(prefix="doc_pass_"))
    (tmp / "before").mkdir(parents=True, exist_ok=True)
    (tmp / "after").mkdir(parents=True, exist_ok=True)
    before_rows, after_rows = [], []
    joins, gt_joins, furniture = [], [], []
    for ids in sequences(dataset):
        raw = parse_pages(predictor, dataset, ids, args.source)
        if raw is None:
            print(f"{'-'.join(ids)}: no PDF, skipped", file=sys.stderr)
            continue
        done = _core.finish_document([r._core for r in raw])
        after = [
            DocumentResult._from_core(d, r.source, page=r.page, dpi=r.dpi)
            for d, r in zip(done, raw)
        ]
        if args.save_md:
            doc_md = _core.document_markdown(done)
            (tmp / f"{ids[0]}--{ids[-1]}.md").write_text(doc_md, encoding="utf-8")
        for k, pid in enumerate(ids):
            gt = json.loads((dataset / "pages" / f"{pid}.json").read_text(encoding="utf-8"))
            before_rows.append(score(dataset, pid, raw[k].to_markdown(), tmp / "before"))
            after_rows.append(score(dataset, pid, after[k].to_markdown(), tmp / "after"))
            # Joins against the GT's continues (only where the previous page is in the set).
            for b in gt["blocks"]:
                if b.get("continues") and k > 0:
                    gt_joins.append(join_at(after[k], pid, b, b["type"]))
            # Paragraphs the GT cuts at a column break: consecutive body text blocks, the second
            # right of the first and starting above its end, the first ending mid-sentence.
            blocks = [b for b in gt["blocks"] if b["type"] in ("text", "list_item")]
            for a, b in zip(blocks, blocks[1:]):
                ax0, ay0, ax1, ay1 = a["bbox"]
                bx0, by0, bx1, by1 = b["bbox"]
                end = gt_text(a).rstrip()[-1:]
                if bx0 >= ax1 - 0.1 * (ax1 - ax0) and by0 < ay1 and end not in ".!?;:。！？；：":
                    gt_joins.append(join_at(after[k], pid, b, "column"))
            for r in after[k].regions:
                if not r.continues:
                    continue
                if not r.from_previous_page:  # a column break inside the page
                    right = column_join_right(gt, after[k].regions[r.continues_region].text, r.text)
                    where = "column"
                else:
                    right = any(
                        b.get("continues") and same_place(r.box, b["bbox"]) for b in gt["blocks"]
                    )
                    where = "page"
                joins.append(
                    {
                        "page": pid,
                        "break": where,
                        "joined": r.joined,
                        "text": r.text.replace("\n", " ")[:50],
                        "right": right,
                    }
                )
            # Furniture the page rules had left in the body.
            was = {clean(r.text) for r in raw[k].regions if r.furniture}
            for r in after[k].regions:
                t = clean(r.text)
                if not r.furniture or not t or t in was:
                    continue
                kinds = [
                    b["type"]
                    for b in gt["blocks"]
                    if clean(gt_text(b)) and (t in clean(gt_text(b)) or clean(gt_text(b)) in t)
                ]
                furniture.append(
                    {
                        "page": pid,
                        "type": r.type,
                        "text": r.text.replace("\n", " ")[:60],
                        "gt": kinds[0] if kinds else None,
                        "right": bool(kinds) and kinds[0] in FURNITURE | {"abandon"},
                    }
                )
    agg_before = aggregate(dataset, before_rows, tmp, "before")
    agg_after = aggregate(dataset, after_rows, tmp, "after")
    keys = ("text_edit", "teds", "heading_recall", "heading_precision", "order_edit", "header_leak")
    print(f"source: {args.source}, {len(before_rows)} pages")
    for name, agg in (("before", agg_before), ("after", agg_after)):
        overall = agg.get("aggregate", agg).get("overall", agg.get("aggregate", agg))
        print(f"{name:6s}", json.dumps({k: overall.get(k) for k in keys}))
    print("GT continues (previous page in the set; column: a GT paragraph cut by a column break):")
    for j in gt_joins:
        print(f"  {j['page']:22s} {j['type']:6s} joined={j['joined']!s:9s} {j['text']!r}")
    print("joins made:")
    for j in joins:
        print(
            f"  {j['page']:22s} {j['break']:6s} {j['joined']:9s}"
            f" {'right' if j['right'] else 'WRONG'} {j['text']!r}"
        )
    print("furniture found by the pass:")
    for f in furniture:
        print(
            f"  {f['page']:22s} {f['type']:11s} {'right' if f['right'] else 'WRONG'}"
            f" (GT {f['gt']}) {f['text']!r}"
        )
    if args.output:
        Path(args.output).write_text(
            json.dumps(
                {
                    "source": args.source,
                    "before": agg_before,
                    "after": agg_after,
                    "gt_continues": gt_joins,
                    "joins": joins,
                    "furniture": furniture,
                },
                indent=1,
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
