"""`edgeocr eval`: accuracy on a labelled folder (the format of shared/datasets/dev); with
``--document``, document parsing (`Predictor.parse`) on labelled pages (the format of
tools/gen_doc_pages.py, ``docparse.jsonl``)."""

from __future__ import annotations

import json
import os
import sys
import time

from ..cli import add_model_arguments, predictor_from_args
from ..errors import InvalidInputError
from ..progress import Progress
from .datasets import load_docparse, load_e2e, load_rec
from .document import evaluate_documents, format_document_report
from .report import format_report
from .scoring import evaluate_e2e, evaluate_rec


def document_page(result) -> dict:
    """The page dict the document metrics read, from a `Predictor.parse` result."""
    d = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    return d["pages"][0] if "pages" in d else d


def cmd_eval_document(args) -> int:
    """`edgeocr eval --document DIR`: parse every labelled page, print the document scores."""
    labels = os.path.join(args.dataset, "docparse.jsonl")
    if not os.path.isfile(labels):
        raise InvalidInputError(
            f"{args.dataset}: no labelled document pages here: {labels} is missing "
            "(make them with tools/gen_doc_pages.py)"
        )
    if args.limit < 0:
        raise InvalidInputError(f"--limit must be >= 0 (0 = all), got {args.limit}")
    try:
        pages = load_docparse(args.dataset)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise InvalidInputError(f"{labels}: not a labelled set ({type(e).__name__}: {e})") from e
    if args.limit:
        pages = pages[: args.limit]
    p = predictor_from_args(args)
    if not hasattr(p, "parse"):
        raise InvalidInputError("this edgeocr has no Predictor.parse (document parsing)")
    preds = {}
    progress = Progress(len(pages), sys.stderr.isatty() or args.progress)
    t0 = time.perf_counter()
    for page in pages:
        preds[page["id"]] = document_page(p.parse(page["path"]))
        progress.step()
    elapsed = time.perf_counter() - t0
    report = evaluate_documents(pages, preds, classes=args.classes)
    report["seconds"] = elapsed
    print(format_document_report({"edgeocr": report}))
    print(f"{len(pages)} pages in {elapsed:.1f} s ({len(pages) / elapsed:.2f} pages/s)")
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump({"report": report, "predictions": preds}, f, ensure_ascii=False)
    return 0


def cmd_eval(args) -> int:
    """`edgeocr eval`: predict a labelled folder and print (and save) the accuracy report."""
    if args.document:
        return cmd_eval_document(args)
    labels = os.path.join(args.dataset, "e2e_synth.jsonl")
    if not os.path.isfile(labels):
        raise InvalidInputError(
            f"{args.dataset}: no labelled set here: {labels} is missing "
            "(the format of shared/datasets/dev)"
        )
    if args.limit < 0:
        raise InvalidInputError(f"--limit must be >= 0 (0 = all), got {args.limit}")
    try:
        samples = load_e2e(args.dataset)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise InvalidInputError(f"{labels}: not a labelled set ({type(e).__name__}: {e})") from e
    baseline = None
    if args.baseline:
        try:
            with open(args.baseline, encoding="utf-8") as f:
                baseline = json.load(f)
            baseline = baseline.get("report", baseline)
        except (ValueError, AttributeError) as e:
            raise InvalidInputError(f"{args.baseline}: not an edgeocr eval report ({e})") from e
    p = predictor_from_args(args)
    if args.limit:
        samples = samples[: args.limit]
    preds = {}
    progress = Progress(len(samples), sys.stderr.isatty() or args.progress)
    t0 = time.perf_counter()
    for s in samples:
        r = p.predict(s["path"] if "path" in s else os.path.join(args.dataset, s["file"]))
        preds[s["id"]] = [
            {"text": ln.text, "box": ln.box.tolist(), "score": ln.score} for ln in r.lines
        ]
        progress.step()
    elapsed = time.perf_counter() - t0
    report = {"e2e": evaluate_e2e(samples, preds), "seconds": elapsed}
    rec_preds = {}
    if not args.no_rec and os.path.exists(os.path.join(args.dataset, "rec_synth.jsonl")):
        rec_samples = load_rec(args.dataset)
        for s in rec_samples:
            path = s["path"] if "path" in s else os.path.join(args.dataset, s["file"])
            rec_preds[s["id"]] = p.recognize(path).text
        report["rec"] = evaluate_rec(rec_samples, rec_preds)
    print(format_report(report, baseline, names=("edgeocr", args.baseline_name)))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(
                {"report": report, "predictions": preds, "rec_predictions": rec_preds},
                f,
                ensure_ascii=False,
            )
    return 0


def register(subparsers) -> None:
    """Add ``edgeocr eval`` to the ``edgeocr`` command line."""
    p = subparsers.add_parser(
        "eval", help="accuracy on a labelled folder (format of shared/datasets/dev)"
    )
    p.add_argument("dataset", metavar="DIR")
    add_model_arguments(p)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--no-rec", action="store_true", help="skip the recognition-only crops")
    p.add_argument(
        "--document",
        action="store_true",
        help="document parsing (Predictor.parse) on labelled pages (docparse.jsonl, made by "
        "tools/gen_doc_pages.py): layout mAP/F1, reading order, page text, table TEDS",
    )
    p.add_argument(
        "--classes",
        choices=("cdla", "all"),
        default="cdla",
        help="--document: score the CDLA model's classes (lists as text, page numbers as "
        "footers; the default) or every region type as it is",
    )
    p.add_argument(
        "--table-method",
        choices=("auto", "model", "grid"),
        default=None,
        help="--document: how tables' cells are found (the table_method setting, "
        "docs/tables.md; default auto: the table model unless its grid is unusable)",
    )
    p.add_argument(
        "--baseline",
        help="a JSON report to print side by side (e.g. from tools/rapidocr_baseline.py)",
    )
    p.add_argument("--baseline-name", default="baseline")
    p.add_argument("--output", "-o", help="write the report and predictions as JSON")
    p.set_defaults(func=cmd_eval)
