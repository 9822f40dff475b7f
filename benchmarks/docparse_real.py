#!/usr/bin/env python3
"""Document parsing on the real dev pages (../shared/datasets/docparse-real-dev): every engine
side by side in one run, scored by the dataset's own score.py (issues 39 and 40).

    python benchmarks/docparse_real.py --peers /work/peers --rounds 3 \\
        -o benchmarks/results/docparse_real.json

Engines (benchmarks/_docparse_real_engines.py says what each one calls): on the page PNGs
``edgeocr`` (``Predictor().parse(png).to_markdown()``) and ``rapid`` (rapid-layout + rapid-table
+ RapidOCR in PP-Structure's reading order, the anchor); on the born-digital pages' PDFs
(``pdf/<id>.pdf``) ``edgeocr-pdf`` (``Predictor().parse_pages(pdf)``: the text layer),
``edgeocr-pdf-ocr`` (the same with ``force_ocr=True``: the OCR path on the same pages),
``pymupdf4llm``, ``opendataloader-pdf``, ``edgeparse``, ``markitdown``. edgeocr's engines run
from this interpreter; every other one from a venv of its own,
``--peers DIR/<engine>/bin/python`` (or ``--python ENGINE=PATH``). Default: every engine that
has an interpreter.

Each engine runs in a worker process of its own, loaded once, and reads all its pages in one
block; the blocks alternate A B C .., .. C B A with ``--gap`` seconds between them
(benchmarks/_blocks.py), ``--rounds`` times. The first round's Markdown is scored: for each
engine the page files go to a folder, and ``score.py --batch PRED_DIR --gt-dir GT --out
METRICS.jsonl`` (the dataset's scorer, run as a subprocess; GT holds the JSON of that engine's
pages only) gives every figure of the accuracy tables: text_edit, text_edit_notab, teds, teds_s,
heading recall / precision, order_edit, header_leak, overall and by kind and language (its
aggregate line).

Beside them, per page, **characters lost** (:func:`chars_lost`): the share of the ground truth's
body characters that cannot be found in the output. The GT body is the page's body blocks (title,
heading, text, list item, caption, code, and each table cell by cell; furniture, footnotes,
equations, figure text and abandoned text are not body), each cleaned as score.py cleans text
(NFKC, then letters, digits and CJK only) and cut into pieces of 32 characters (a shorter last
piece joins the one before). The output is the Markdown without its markup (tags, image
references, link targets; character references decoded), cleaned the same way. A piece is
found where some substring of the output is within 40% of the piece's length in edits
(Levenshtein distance to the closest substring; a piece of 6-7 characters within 1 edit, a
shorter one, such as most numeric table cells, only as an exact substring); a found piece
covers its length less those edits, a piece not found covers nothing. Characters lost = 1 -
covered / body characters. Order does not count (text_edit and order_edit do that): a page read
in a jumbled order, or a table read column by column, loses nothing; a figure whose text was
dropped, a column left out, a character misread or a cell turned into noise loses characters.
Short cells are found wherever their characters occur, so a table dropped from a page that
has other numbers on it still finds some of them (characters lost errs low there; teds says
the rest). Checked on the ground truth itself: its own Markdown loses 0 on every page, also with
its blocks reversed; an empty output 1; another page's Markdown 0.87-1.0 (the lowest on table
pages); 5% / 10% / 20% of letters and digits replaced at random 0.050 / 0.110 / 0.228 (mean
over the 41 pages).

Speed: pages/s (median over rounds, each round's block time; a page of a PDF engine is its
one-page PDF), the time of each engine over edgeocr's (median of per-round ratios), each
stage's mean time per page where the engine reports it (edgeocr's DocumentResult timings: layout,
det, cls, rec, table, order; the rapid anchor's ocr/layout/table/order), load time, peak RSS
(VmHWM of the worker process, and of its largest child: opendataloader-pdf's JVM), and with
``--cold N`` the wall time of a fresh process that imports, loads and reads one page (median of
N pages: what a command-line run per file costs). The CPU model and SIMD flags and the load
average before and after are printed, with NOT QUIET when the 1-minute figure was above half
the cores: speed figures from such a run are not results.

Options: ``--pages`` (comma-separated ids, shell patterns such as ``cam_*``, and filters
``kind=report`` / ``language=zh`` / ``layout=...`` / ``gt_source=...``), ``--pdf-only`` (only
the born-digital pages, for every engine), ``--engines a,b``, ``--save-md DIR`` (keep each
engine's Markdown and score.py's page lines), ``--rescore DIR`` (run nothing: score the
Markdown a run saved in DIR again, e.g. after a change to the scoring), ``-o RESULTS.json``.

Smoke run (figures from a loaded machine mean nothing):
    python benchmarks/docparse_real.py --engines edgeocr --pages 'ptn_*' --rounds 1 --cold 0
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import _blocks  # noqa: E402
import _docparse_real_engines as _engines  # noqa: E402

DATASET = "docparse-real-dev"
METRICS = (
    "text_edit",
    "text_edit_notab",
    "teds",
    "teds_s",
    "heading_recall",
    "heading_precision",
    "order_edit",
    "header_leak",
)
STAGES = ("layout", "det", "cls", "rec", "ocr", "table", "order", "total")
BODY = ("title", "heading", "text", "list_item", "caption", "code", "table")
PIECE = 32  # characters of a GT piece (chars_lost)
SHORT = 8  # pieces shorter than this are found with at most 1 edit
TINY = 6  # pieces shorter than this must occur exactly
EDITS = 0.4  # a piece is found with at most this share of its length in edits


# -- the dataset ---------------------------------------------------------------------------------
def data_dir(arg: str | None) -> Path:
    """The dataset: ``--data``, else $EDGEOCR_SHARED_DIR/datasets/..., else ../shared beside
    the checkout."""
    if arg:
        return Path(arg)
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    return (Path(shared) if shared else ROOT.parent / "shared") / "datasets" / DATASET


def load_manifest(data: Path) -> list:
    path = data / "manifest.jsonl"
    if not path.is_file():
        raise SystemExit(f"{path}: not found (the dataset lives in ../shared/datasets/{DATASET})")
    with open(path, encoding="utf-8") as f:
        return [json.loads(ln) for ln in f if ln.strip()]


def select_pages(manifest: list, spec: str | None, pdf_only: bool = False) -> list:
    """The manifest rows that ``spec`` names (ids, shell patterns, key=value filters; every
    filter must hold, any id or pattern may match), in manifest order."""
    rows = [m for m in manifest if m.get("pdf")] if pdf_only else list(manifest)
    if not spec:
        return rows
    patterns, filters = [], []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        if "=" in item:
            key, _, value = item.partition("=")
            filters.append((key.strip(), value.strip()))
        else:
            patterns.append(item)
    for p in patterns:
        if not any(fnmatch.fnmatchcase(m["id"], p) for m in rows):
            raise SystemExit(f"--pages: {p!r} names no page" + (" with a PDF" if pdf_only else ""))
    for key, _ in filters:
        if rows and key not in rows[0]:
            raise SystemExit(f"--pages: no manifest field {key!r}")
    return [
        m
        for m in rows
        if (not patterns or any(fnmatch.fnmatchcase(m["id"], p) for p in patterns))
        and all(str(m.get(k)) == v for k, v in filters)
    ]


# -- characters lost -----------------------------------------------------------------------------
# Markup that is not text: image references, HTML tags (a name after "<", no "<" inside), link
# targets; character references are then decoded.
_MARKUP_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)|</?[A-Za-z][^<>]*>|\]\([^)]*\)")


def plain(markdown: str) -> str:
    """The text of Markdown/HTML output, markup left out (see _MARKUP_RE)."""
    import html

    return html.unescape(_MARKUP_RE.sub(" ", markdown or ""))


def clean(s: str) -> str:
    """Letters, digits and CJK characters only, after NFKC (OmniDocBench's rule, the one
    score.py's text metrics use)."""
    return re.sub(r"[\W_]", "", unicodedata.normalize("NFKC", s or ""))


def _gt_pieces(gt: dict) -> list:
    """The GT body's cleaned text in pieces (see the module's docstring)."""
    from html.parser import HTMLParser

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.cells: list = []
            self.open = False

        def handle_starttag(self, tag, attrs):
            if tag in ("td", "th"):
                self.cells.append([])
                self.open = True

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self.open = False

        def handle_data(self, data):
            if self.open:
                self.cells[-1].append(data)

    texts = []
    for b in gt.get("blocks", []):
        if b.get("type") not in BODY:
            continue
        if b["type"] == "table":
            p = Cells()
            p.feed(b.get("html") or "")
            texts += [clean("".join(c)) for c in p.cells]
        else:
            texts.append(clean(b.get("text", "")))
    pieces = []
    for t in texts:
        cut = [t[i : i + PIECE] for i in range(0, len(t), PIECE)]
        if len(cut) > 1 and len(cut[-1]) < SHORT:
            tail = cut.pop()
            cut[-1] += tail
        pieces += [c for c in cut if c]
    return pieces


def _best_edits(piece: str, text) -> int:
    """Levenshtein distance from ``piece`` to the substring of ``text`` (a uint32 array of code
    points) closest to it: the dynamic programme whose first row is all zero (a match may start
    anywhere), its last row's minimum (and end anywhere)."""
    import numpy as np

    n = len(text)
    cols = np.arange(n + 1, dtype=np.int64)
    row = np.zeros(n + 1, dtype=np.int64)
    for i, ch in enumerate(piece, 1):
        diag = row[:-1] + (text != ord(ch))
        nxt = np.empty_like(row)
        nxt[0] = i
        nxt[1:] = np.minimum(row[1:] + 1, diag)
        # a character of the text skipped: nxt[j] = min over k <= j of nxt[k] + (j - k)
        row = np.minimum.accumulate(nxt - cols) + cols
    return int(row.min())


def chars_lost(gt: dict, markdown: str) -> dict:
    """{"lost": share of the GT body's characters not found in ``markdown`` (None when the
    page has no body text), "body_chars", "lost_chars"}; the rule is in the module's
    docstring."""
    import numpy as np

    pieces = _gt_pieces(gt)
    total = sum(len(p) for p in pieces)
    if not total:
        return {"lost": None, "body_chars": 0, "lost_chars": 0}
    out = clean(plain(markdown))
    codes = np.frombuffer(out.encode("utf-32-le"), dtype=np.uint32) if out else None
    covered = 0
    for p in pieces:
        if p in out:
            covered += len(p)
        elif codes is not None and len(p) >= TINY:
            e = _best_edits(p, codes)
            if e <= (EDITS * len(p) if len(p) >= SHORT else 1):
                covered += len(p) - e
    return {
        "lost": round(1.0 - covered / total, 5),
        "body_chars": total,
        "lost_chars": total - covered,
    }


# -- scoring with the dataset's score.py ---------------------------------------------------------
def score(data: Path, ids: list, outputs: dict, work: Path) -> dict:
    """Write ``outputs`` ({id: markdown}) to ``work``/pred and run score.py --batch over exactly
    these pages (a GT folder of links to their JSON). Returns {"pages": {id: page line},
    "aggregate": its aggregate line}."""
    pred, gt = work / "pred", work / "gt"
    for d in (pred, gt):
        d.mkdir(parents=True, exist_ok=True)
    for i in ids:
        (pred / f"{i}.md").write_text(outputs.get(i) or "", encoding="utf-8")
        link = gt / f"{i}.json"
        if not link.exists():
            link.symlink_to((data / "pages" / f"{i}.json").resolve())
    metrics = work / "metrics.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            str(data / "score.py"),
            "--batch",
            str(pred),
            "--gt-dir",
            str(gt),
            "--out",
            str(metrics),
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    if proc.returncode != 0:
        raise SystemExit(f"score.py failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    last = [ln for ln in proc.stdout.splitlines() if ln.strip()][-1]
    aggregate = json.loads(last)["aggregate"]
    with open(metrics, encoding="utf-8") as f:
        pages = {r["id"]: r for r in (json.loads(ln) for ln in f if ln.strip())}
    return {"pages": pages, "aggregate": aggregate}


# -- engines -------------------------------------------------------------------------------------
def interpreters(args) -> dict:
    """{engine: python} for every engine that can run: edgeocr's from this interpreter, the
    others from --python ENGINE=PATH or --peers DIR/ENGINE/bin/python."""
    out = {n: sys.executable for n in ("edgeocr", "edgeocr-pdf", "edgeocr-pdf-ocr")}
    for name in _engines.ENGINES:
        if name in out:
            continue
        if args.peers:
            py = Path(args.peers) / name / "bin" / "python"
            if py.exists():
                out[name] = str(py)
    for item in args.python:
        name, sep, path = item.partition("=")
        if not sep or name not in _engines.ENGINES:
            raise SystemExit(f"--python {item!r}: ENGINE=PATH, ENGINE one of {_engines.ENGINES}")
        out[name] = path
    return out


def versions(name: str, python: str) -> dict:
    proc = subprocess.run(
        [python, str(HERE / "_docparse_real_engines.py"), name, "--versions"],
        capture_output=True,
        text=True,
    )
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": proc.stderr[-300:]}


def cold_runs(name: str, python: str, files: list, threads: int) -> list:
    """Wall seconds of a fresh process per file (import, load, read one page, exit)."""
    out = []
    for path in files:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [python, str(HERE / "_docparse_real_engines.py"), name, "--threads", str(threads)]
            + ["--once", path],
            capture_output=True,
            text=True,
            env={**os.environ, **_env(threads)},
        )
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"{name} --once {path} failed:\n{proc.stderr[-2000:]}")
        out.append(wall)
    return out


def _env(threads: int) -> dict:
    return {"OMP_NUM_THREADS": str(threads), "OMP_WAIT_POLICY": "PASSIVE"}


def _machine() -> dict:
    from engine_quiet import machine

    m = machine()
    m["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    return m


def _fmt(v, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _mean(xs: list):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


# -- the run -------------------------------------------------------------------------------------
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", help=f"the dataset folder (default: ../shared/datasets/{DATASET})")
    ap.add_argument("--engines", help=f"comma-separated, of {', '.join(_engines.ENGINES)}")
    ap.add_argument("--pages", help="ids, shell patterns, key=value filters (comma-separated)")
    ap.add_argument("--pdf-only", action="store_true", help="only the pages with a PDF")
    ap.add_argument("--peers", default=os.environ.get("EDGEOCR_PEERS_DIR"), help="venvs' folder")
    ap.add_argument("--python", action="append", default=[], help="ENGINE=PATH (repeatable)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between blocks")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cold", type=int, default=2, help="fresh-process runs per engine (0: none)")
    ap.add_argument("--save-md", help="keep each engine's Markdown and page metrics here")
    ap.add_argument(
        "--rescore",
        metavar="DIR",
        help="run no engine: score the Markdown a run saved with --save-md DIR",
    )
    ap.add_argument("-o", "--output", help="write every figure as JSON")
    args = ap.parse_args(argv)

    data = data_dir(args.data)
    manifest = load_manifest(data)
    chosen = select_pages(manifest, args.pages, args.pdf_only)
    if not chosen:
        raise SystemExit("--pages: no page left")
    if args.rescore:
        saved = Path(args.rescore)
        have = {n: sys.executable for n in _engines.ENGINES if (saved / n / "pred").is_dir()}
        pythons = have
    else:
        pythons = interpreters(args)
    if args.engines:
        names = [n.strip() for n in args.engines.split(",") if n.strip()]
        for n in names:
            if n not in _engines.ENGINES:
                raise SystemExit(f"unknown engine {n!r}; known: {', '.join(_engines.ENGINES)}")
            if n not in pythons and args.rescore:
                raise SystemExit(f"{n}: no saved Markdown in {args.rescore}/{n}/pred")
            if n not in pythons:
                raise SystemExit(f"{n}: no interpreter (--peers DIR with DIR/{n}/bin/python)")
    else:
        names = [n for n in _engines.ENGINES if n in pythons]
    if not names:
        raise SystemExit("no engine to score" if args.rescore else "no engine to run")
    pages = {}
    for n in names:
        kind = _engines.INPUT[n]
        rows = [m for m in chosen if m.get(kind if kind == "pdf" else "image")]
        pages[n] = [
            (str(data / m[kind if kind == "pdf" else "image"]), m["language"]) for m in rows
        ]
        if not pages[n]:
            raise SystemExit(f"{n}: none of the chosen pages has a {kind}")
    ids = {n: [Path(p).stem for p, _ in pages[n]] for n in names}
    if args.rescore:
        outs = {
            n: [_saved(Path(args.rescore) / n / "pred" / f"{i}.md") for i in ids[n]] for n in names
        }
        return report_and_save(args, data, chosen, names, ids, outs)

    m = _machine()
    cores = m["cores"] or 1
    print(f"machine: {m['cpu']}, {cores} cores; CPU flags: {' '.join(m['cpu_flags'])}")
    print(f"python {m['python']}, onnxruntime {m['onnxruntime']} (this interpreter)")
    print(f"dataset: {data} ({len(chosen)} pages chosen)")
    vers = {n: versions(n, pythons[n]) for n in names}
    for n in names:
        v = ", ".join(f"{k} {x}" for k, x in vers[n].items())
        print(f"  {n:<19} {len(pages[n]):>3} {_engines.INPUT[n]} pages; {v}")
    print(f"{args.rounds} rounds, {args.threads} threads, {args.gap} s between blocks")
    load_before = os.getloadavg()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}", flush=True)

    engines = [
        _blocks.Engine(
            n,
            [
                pythons[n],
                str(HERE / "_docparse_real_engines.py"),
                n,
                "--threads",
                str(args.threads),
            ],
            _env(args.threads),
        )
        for n in names
    ]
    t0 = time.time()
    with _blocks.Runner(engines, warmup={n: pages[n][0] for n in names}) as runner:
        res = runner.run(
            pages,
            rounds=args.rounds,
            gap_s=args.gap,
            on_block=lambda n, r, s: print(f"  round {r + 1}: {n} {s:.1f} s", flush=True),
        )
    memory = runner.memory
    cold = {}
    if args.cold > 0:
        for n in names:
            cold[n] = cold_runs(n, pythons[n], [p for p, _ in pages[n][: args.cold]], args.threads)
    load_after = os.getloadavg()
    print(
        f"load average after: {' '.join(f'{x:.2f}' for x in load_after)} ({time.time() - t0:.0f} s)"
    )
    quiet = max(load_before[0], load_after[0]) <= 0.5 * cores
    if not quiet:
        print(
            "NOT QUIET: the 1-minute load average was above half the cores; the speed figures "
            "of this run are not results (the accuracy figures are)"
        )
    run = {
        "machine": {**m, "load_before": list(load_before), "load_after": list(load_after)},
        "quiet": quiet,
        "rounds": args.rounds,
        "order": res["order"],
        "versions": vers,
        "blocks": res["blocks"],
        "timings": {n: [o.get("timings") or {} for o in res["lines"][n]] for n in names},
        "memory": memory,
        "cold": cold,
        "pages": {n: len(pages[n]) for n in names},
    }
    return report_and_save(args, data, chosen, names, ids, res["lines"], run)


def _saved(path: Path) -> dict:
    if not path.is_file():
        return {"markdown": "", "timings": {}, "error": f"no saved output {path}"}
    return {"markdown": path.read_text(encoding="utf-8"), "timings": {}, "error": None}


def report_and_save(args, data, chosen, names, ids, outs, run=None) -> int:
    """Score every engine's first-round Markdown (``outs``: {engine: [reader output per page]}),
    print the accuracy tables and, for a run (``run``: its blocks, timings, memory, ...), the
    speed tables; write the JSON."""
    # -- accuracy -------------------------------------------------------------------------------
    gts = {}
    for m_ in chosen:
        with open(data / m_["gt"], encoding="utf-8") as f:
            gts[m_["id"]] = json.load(f)
    keep = Path(args.save_md) if args.save_md else None
    tmp = tempfile.TemporaryDirectory(prefix="edgeocr-docparse-real-")
    report = {}
    for n in names:
        md = {i: o["markdown"] for i, o in zip(ids[n], outs[n])}
        errors = {i: o["error"] for i, o in zip(ids[n], outs[n]) if o.get("error")}
        work = (keep / n) if keep else Path(tmp.name) / n
        if keep and work.exists():
            shutil.rmtree(work)
        scored = score(data, ids[n], md, work)
        lost = {i: chars_lost(gts[i], md[i]) for i in ids[n]}
        report[n] = {"scored": scored, "lost": lost, "errors": errors}
    tmp.cleanup()

    by_id = {m_["id"]: m_ for m_ in chosen}

    def lost_mean(n, keep_id=lambda i: True):
        return _mean([v["lost"] for i, v in report[n]["lost"].items() if keep_id(i)])

    print(
        "\naccuracy (score.py's aggregate over each engine's pages; characters lost: mean per page)"
    )
    head = ["engine", "pages", *METRICS, "chars_lost"]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    for n in names:
        a = report[n]["scored"]["aggregate"]
        row = [n, str(a["pages"])] + [_fmt(a.get(k)) for k in METRICS] + [_fmt(lost_mean(n))]
        print("| " + " | ".join(row) + " |")
    for group in ("kind", "language"):
        print(f"\nby {group}: text_edit / teds / heading R / order_edit / header_leak / chars lost")
        values = sorted({str(by_id[i].get(group)) for n in names for i in ids[n]})
        print("| " + group + " | " + " | ".join(names) + " |")
        print("|---|" + "---|" * len(names))
        for v in values:
            cells = []
            for n in names:
                g = report[n]["scored"]["aggregate"].get("by_" + group, {}).get(v)
                if not g:
                    cells.append("")
                    continue
                lm = lost_mean(n, lambda i, v=v, g=group: str(by_id[i].get(g)) == v)
                cells.append(
                    f"{g['pages']}p {_fmt(g['text_edit'])} / {_fmt(g['teds'], 2)} / "
                    f"{_fmt(g['heading_recall'], 2)} / {_fmt(g['order_edit'])} / "
                    f"{_fmt(g['header_leak'], 2)} / {_fmt(lm)}"
                )
            print(f"| {v} | " + " | ".join(cells) + " |")
    for n in names:
        worst = sorted(
            ((v["lost"], i) for i, v in report[n]["lost"].items() if v["lost"] is not None),
            reverse=True,
        )
        bad = [f"{i} {x:.2f}" for x, i in worst if x > 0.1]
        if bad:
            print(f"{n}: pages with over 10% of characters lost: {', '.join(bad)}")
        for i, e in report[n]["errors"].items():
            print(f"{n}: {i}: ERROR {e}")

    # -- speed ----------------------------------------------------------------------------------
    speed = speed_tables(names, run) if run else {}
    if args.output:
        out = {
            **({k: run[k] for k in ("machine", "quiet", "rounds", "order")} if run else {}),
            "rescored_from": args.rescore,
            "dataset": str(data),
            "args": {k: v for k, v in vars(args).items() if k != "output"},
            "engines": {
                n: {
                    "input": _engines.INPUT[n],
                    "versions": run["versions"][n] if run else None,
                    "pages": ids[n],
                    "aggregate": report[n]["scored"]["aggregate"],
                    "chars_lost": lost_mean(n),
                    "page_metrics": {
                        i: {**report[n]["scored"]["pages"][i], "chars_lost": report[n]["lost"][i]}
                        for i in ids[n]
                    },
                    "errors": report[n]["errors"],
                    "speed": speed.get(n),
                }
                for n in names
            },
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
        print(f"\nwrote {args.output}")
    return 0


def speed_tables(names: list, run: dict) -> dict:
    """Print the speed and per-stage tables of a run; return {engine: its speed figures}."""
    blocks, memory, cold, pages = run["blocks"], run["memory"], run["cold"], run["pages"]
    base = "edgeocr" if "edgeocr" in names else names[0]
    ratios = _blocks.ratios(blocks, base)
    print(
        f"\nspeed ({'quiet' if run['quiet'] else 'LOADED'} machine; pages/s: median over rounds; "
        f"time vs {base}: median of per-round ratios, per page)"
    )
    print(
        "| engine | pages/s | s/page | time/page vs " + base + " | process s/page | load s "
        "| peak RSS MiB | child peak MiB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    speed = {}
    for n in names:
        secs = blocks[n]
        k = pages[n]
        pps = statistics.median(k / s for s in secs)
        rel = statistics.median((a / k) / (b / pages[base]) for a, b in zip(secs, blocks[base]))
        mem = memory.get(n, {})
        c = statistics.median(cold[n]) if cold.get(n) else None
        stages = {}
        for st in STAGES:
            xs = [t[st] for t in run["timings"][n] if st in t]
            if xs:
                stages[st] = sum(xs) / len(xs)
        speed[n] = {
            "pages": k,
            "pages_per_s": pps,
            "s_per_page": 1.0 / pps,
            "blocks_s": secs,
            "time_per_page_vs_base": rel,
            "ratio_block": ratios[n],
            "process_s_per_page": c,
            "process_runs_s": cold.get(n),
            "stage_s_per_page": stages,
            **mem,
        }
        print(
            f"| {n} | {pps:.3f} | {1 / pps:.2f} | {rel:.2f}x | {_fmt(c, 2)} | "
            f"{mem.get('load_s', float('nan')):.1f} | {mem.get('hwm_mb', float('nan')):.0f} | "
            f"{mem.get('children_maxrss_mb', 0.0):.0f} |"
        )
    staged = [n for n in names if speed[n]["stage_s_per_page"]]
    if staged:
        print("\ntime per page by stage, ms (the engine's own timings, first round, mean)")
        print("| engine | " + " | ".join(STAGES) + " |")
        print("|---|" + "---:|" * len(STAGES))
        for n in staged:
            st = speed[n]["stage_s_per_page"]
            cells = [f"{st[s] * 1000:.0f}" if s in st else "" for s in STAGES]
            print(f"| {n} | " + " | ".join(cells) + " |")
    return speed


if __name__ == "__main__":
    raise SystemExit(main())
