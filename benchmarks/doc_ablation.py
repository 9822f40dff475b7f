#!/usr/bin/env python3
"""What each rule of the document layer gains or costs (issue 39): the real dev pages
(../shared/datasets/docparse-real-dev, scored by its score.py) and generated pages
(tools/gen_doc_pages.py, scored by edgeocr.evaluate.document) parsed with every rule, then with
one rule switched off at a time through ``Predictor(document_rules=...)`` (csrc/document/rules.cpp).

    python benchmarks/doc_ablation.py --real ../shared/datasets/docparse-real-dev \\
        --generated /tmp/docpages [--source png,pdf] [--only all,figures] -o OUT.json

``--generated DIR``: a folder tools/gen_doc_pages.py made (its docparse.jsonl), e.g.
``python tools/gen_doc_pages.py --pages 24 --seed 1 --out /tmp/docpages``. The real pages are
read from their PNGs (OCR) and, with ``--source pdf``, from their one-page PDFs (the text
layer). Accuracy only: no timings (each configuration reads every page once, in one process).

A rule is switched off by values that never fire (a count or a factor no page reaches); the
table says which. Orientation (a page turned by quarter turns) has no rule to switch: the dev
pages are upright but one. The document pass needs multi-page documents: benchmarks/
doc_pass_real.py measures it on the dev set's sequences.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

# Each rule off: the values that keep it from firing.
OFF = {
    "all": {},
    "figures": {"figure_text_lines": 10000, "figure_page_share": 10.0},
    "grid-guards": {
        "grid_cell_width": 10000.0,
        "grid_cell_words": 10000.0,
        "grid_prose_share": 1.0,
    },
    "deskew": {"deskew_degrees": 10000.0},
    "furniture-band": {"furniture_band": 0.0, "page_number_band": 0.0},
    "heading-typography": {
        "heading_size": 10000.0,
        "heading_size_ocr": 10000.0,
        "bold_stroke": 10000.0,
    },
    "line-split": {"split_share": 10.0},
}
SAID = {
    "all": "every rule",
    "figures": "figures of prose read as text, page-size figures dissolved",
    "grid-guards": "the text-grid rule's prose guards (cell width, words, prose share)",
    "deskew": "skewed scans levelled",
    "furniture-band": "furniture by the page's margins (running headers, page numbers)",
    "heading-typography": "headings by type size and weight (numbering and capitals stay)",
    "line-split": "lines bridging a column gutter cut at the gap",
}


def _scorer(real: Path):
    spec = importlib.util.spec_from_file_location("docparse_real_score", real / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def real_pages(predictor, real: Path, source: str, score) -> dict:
    rows = []
    for line in (real / "manifest.jsonl").read_text().splitlines():
        m = json.loads(line)
        gt = json.loads((real / m["gt"]).read_text())
        if source == "pdf":
            pdf = real / (m.get("pdf") or "")
            if not m.get("pdf") or not pdf.exists():
                continue
            md = "\n\n".join(d.to_markdown() for d in predictor.parse_pages(str(pdf)))
        else:
            md = predictor.parse(str(real / m["image"])).to_markdown()
        row = score.score(gt, md)
        row.update(id=m["id"], kind=m["kind"], language=m["language"], gt_source=m["gt_source"])
        rows.append(row)
    return {"aggregate": score.aggregate(rows), "pages": rows}


def generated_pages(predictor, folder: Path) -> dict:
    from edgeocr.evaluate.document import evaluate_documents

    truth = [json.loads(x) for x in (folder / "docparse.jsonl").read_text().splitlines() if x]
    preds = {}
    for t in truth:
        image = folder / t["file"]
        preds[t["id"]] = predictor.parse(str(image)).to_dict()
    r = evaluate_documents(truth, preds)
    return {k: r[k] for k in ("pages", "order_edit", "text_edit", "teds", "tables_found")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, required=True)
    ap.add_argument("--generated", type=Path)
    ap.add_argument("--source", default="png,pdf")
    ap.add_argument("--only", default=",".join(OFF))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    import edgeocr

    score = _scorer(args.real)
    out = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "configs": {}}
    keys = ("text_edit", "teds", "heading_recall", "heading_precision", "order_edit", "header_leak")
    for name in args.only.split(","):
        rules = OFF[name]
        p = edgeocr.Predictor(models="document", threads=args.threads, document_rules=rules)
        res = {"rules": rules, "said": SAID[name]}
        for source in args.source.split(","):
            r = real_pages(p, args.real, source, score)
            res[f"real_{source}"] = r["aggregate"]
            res[f"real_{source}_pages"] = r["pages"]
            a = r["aggregate"]
            print(name, f"real {source}", {k: a.get(k) for k in keys}, flush=True)
        if args.generated:
            res["generated"] = generated_pages(p, args.generated)
            print(name, "generated", res["generated"], flush=True)
        out["configs"][name] = res
        if args.output:
            Path(args.output).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
