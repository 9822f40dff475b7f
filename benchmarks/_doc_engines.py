#!/usr/bin/env python3
"""The document parsers benchmarks/docparse.py times, as block workers (benchmarks/_blocks.py).

    python benchmarks/_doc_engines.py ENGINE [--threads 2] [--max-memory-mb M]

ENGINE is one of:

* ``edgeocr``: ``edgeocr.Predictor(threads=N).parse(path)`` (the default model set and the
  document models; ``--max-memory-mb``: under that budget), its page dict as the document JSON
  gives it.
* ``edgeocr-grid``: the same with ``table_method="grid"``: tables by the grid method alone (ruled
  lines and text alignment, docs/tables.md), to set against the table model's.
* ``edgeocr-ocr``: ``Predictor.predict`` alone, every line a text region in the OCR's own order:
  what the page text and reading order are without layout analysis (a reference, not timed
  against the target).
* ``rapid-1.4.4`` / ``rapid-3.10``: rapid-layout 1.2.1 (its CDLA PicoDet, ``layout_cdla.onnx``)
  + rapid-table 0.3.0 (SLANet-plus) + RapidOCR (rapidocr_onnxruntime 1.4.4 with its PP-OCRv4
  mobile models, or rapidocr 3.10 on the PP-OCRv6 small files of its wheel), each on its own
  onnxruntime session, composed as their READMEs show: OCR on the page, layout on the page,
  each table region's crop given to RapidTable with the page's OCR lines inside it (shifted to
  the crop: the table is not read twice). None of these wheels orders regions: here (``--order
  yx``, the default) the regions are sorted top to bottom, then left to right (the order a user
  gets by sorting the boxes), headers first and footers last; with ``--order ppstructure`` they
  take PP-Structure's column rule (:func:`ppstructure_order`, what benchmarks/docparse_real.py's
  anchor uses). Each OCR line goes to the region holding the largest share of it
  (at least half), else it becomes a text region of its own, as edgeocr does. RapidTable's own
  RapidOCR (it makes one when rapidocr_onnxruntime imports) is kept from loading: it is always
  given the lines. The page dict carries ``timings`` (seconds: ``ocr`` for det+cls+rec,
  ``layout``, ``table``, ``order``).

Each reader returns the page dict of the metrics (edgeocr/evaluate/document.py): {"regions":
[{"type", "label", "score", "box", "order", "furniture", "lines": [{"text", "box"}],
"table": {"cells"} | {"html"}}]}. Only the standard library is imported at module level: the
worker may run in a venv that has nothing but its engine (the anchors run from their own venv,
benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _blocks  # noqa: E402

ENGINES = ("edgeocr", "edgeocr-grid", "edgeocr-ocr", "rapid-1.4.4", "rapid-3.10")
FURNITURE = ("header", "footer", "page_number")
ORDERS = ("yx", "ppstructure")


class Edgeocr:
    def __init__(self, threads: int, max_memory_mb: int | None, models: str | None, **settings):
        import edgeocr

        kw = {"max_memory_mb": max_memory_mb} if max_memory_mb else {}
        kw.update(settings)
        self.predictor = edgeocr.Predictor(models=models, threads=threads, **kw)

    def __call__(self, path: str, lang: str) -> dict:
        d = self.predictor.parse(path).to_dict()
        return d["pages"][0] if "pages" in d else d


class EdgeocrLines:
    def __init__(self, threads: int, models: str | None):
        import edgeocr

        self.predictor = edgeocr.Predictor(models=models, threads=threads)

    def __call__(self, path: str, lang: str) -> dict:
        regions = []
        for k, ln in enumerate(self.predictor.predict(path).lines):
            box = _bounds([[float(x), float(y)] for x, y in ln.box])
            regions.append(
                {
                    "type": "text",
                    "label": "",
                    "score": float(ln.score),
                    "box": box,
                    "order": k,
                    "lines": [{"text": ln.text, "box": box}],
                }
            )
        return {"regions": regions}


def _bounds(quad) -> list:
    xs = [p[0] for p in quad]
    ys = [p[1] for p in quad]
    return [min(xs), min(ys), max(xs), max(ys)]


def _share(inner, outer) -> float:
    """The share of ``inner``'s area inside ``outer``."""
    ix = min(inner[2], outer[2]) - max(inner[0], outer[0])
    iy = min(inner[3], outer[3]) - max(inner[1], outer[1])
    area = (inner[2] - inner[0]) * (inner[3] - inner[1])
    return ix * iy / area if ix > 0 and iy > 0 and area > 0 else 0.0


def ppstructure_order(regions: list, width: float) -> list:
    """Regions (dicts with ``box`` [x0, y0, x1, y1]) in the reading order of PP-Structure's
    ``sorted_layout_boxes`` (PaddleOCR ppstructure/recovery/recovery_to_doc.py, which
    ppstructure/predict_system.py applies to every page's regions, headers and footers included,
    before its docx/Markdown recovery), written here from its rule:

    the regions are taken top to bottom (by top edge, then left edge) and dealt into two columns
    of a page ``width`` wide. A region starting left of a quarter of the width and ending left of
    three quarters is in the left column; one starting right of a quarter and ending right of the
    middle is in the right column; any other (one that spans the page, or starts exactly at the
    quarter) is a full-width region: the left column gathered so far is written, then the right
    one, then the region, and both columns start empty again. The last region is judged apart:
    if it starts below the bottom of the one before it and straddles the middle, it is
    full-width (the columns, then it); otherwise it joins the right column when it ends right of
    the middle, else the left, and the columns are written. Whatever the columns hold at the end
    is written left, then right. So a two-column page reads down the left column, then down the
    right, between full-width regions; a third column is read with the second.
    """
    items = sorted(regions, key=lambda r: (r["box"][1], r["box"][0]))
    if len(items) < 2:
        return items
    out: list = []
    left: list = []
    right: list = []

    def flush() -> None:
        out.extend(left)
        out.extend(right)
        left.clear()
        right.clear()

    for k, r in enumerate(items):
        x0, y0, x1, _ = r["box"]
        if k == len(items) - 1:
            above = items[k - 1]["box"]
            if y0 > above[3] and x0 < width / 2 < x1:
                flush()
                out.append(r)
            else:
                (right if x1 > width / 2 else left).append(r)
                flush()
        elif x0 < width / 4 and x1 < 3 * width / 4:
            left.append(r)
        elif x0 > width / 4 and x1 > width / 2:
            right.append(r)
        else:
            flush()
            out.append(r)
    return out


class RapidCompose:
    """rapid-layout + rapid-table + RapidOCR (1.4.4 or 3.10), composed by hand; ``order``
    "yx" (top to bottom, then left to right) or "ppstructure" (:func:`ppstructure_order`)."""

    def __init__(self, ocr: str, threads: int, order: str = "yx"):
        import _engines

        if order not in ORDERS:
            raise ValueError(f"order {order!r}: one of {', '.join(ORDERS)}")
        self.order = order
        from rapid_layout import RapidLayout
        from rapid_table import RapidTable

        self.ocr = _engines.RapidV4(threads) if ocr == "1.4.4" else _engines.RapidV6(threads)
        self.layout = RapidLayout(engine_cfg={"intra_op_num_threads": threads})
        # RapidTable() makes a RapidOCR of its own when rapidocr_onnxruntime imports; it is
        # always given the page's OCR lines here, so that second OCR is kept from loading.
        saved = sys.modules.get("rapidocr_onnxruntime")
        sys.modules["rapidocr_onnxruntime"] = None
        try:
            self.table = RapidTable()  # slanet-plus.onnx, in the wheel
        finally:
            if saved is None:
                del sys.modules["rapidocr_onnxruntime"]
            else:
                sys.modules["rapidocr_onnxruntime"] = saved

    def __call__(self, path: str, lang: str) -> dict:
        import time

        import cv2

        img = cv2.imread(path)
        if img is None:
            raise ValueError(f"{path}: not an image OpenCV reads")
        t0 = time.perf_counter()
        lines = self.ocr(path, lang)
        t1 = time.perf_counter()
        lay = self.layout(img)
        t2 = time.perf_counter()
        regions = []
        for box, label, score in zip(lay.boxes or [], lay.class_names or [], lay.scores or []):
            regions.append(
                {
                    "type": str(label),
                    "label": str(label),
                    "score": float(score),
                    "box": [float(v) for v in box],
                    "lines": [],
                }
            )
        stray = []
        for ln in lines:
            lb = _bounds(ln["box"])
            best, share = None, 0.5
            for r in regions:
                s = _share(lb, r["box"])
                if s >= share:
                    best, share = r, s
            item = {"text": ln["text"], "box": lb, "score": ln["score"], "quad": ln["box"]}
            if best is None:
                stray.append(
                    {
                        "type": "text",
                        "label": "",
                        "score": float(ln["score"]),
                        "box": lb,
                        "lines": [item],
                    }
                )
            else:
                best["lines"].append(item)
        h, w = img.shape[:2]
        for r in regions:
            r["lines"].sort(key=lambda ln: (ln["box"][1], ln["box"][0]))
            if r["type"] != "table":
                continue
            x0, y0 = max(0, int(r["box"][0])), max(0, int(r["box"][1]))
            x1, y1 = min(w, int(r["box"][2]) + 1), min(h, int(r["box"][3]) + 1)
            ocr = [
                [[[px - x0, py - y0] for px, py in ln["quad"]], ln["text"], ln["score"]]
                for ln in r["lines"]
            ]
            html = ""
            if ocr and x1 > x0 and y1 > y0:
                html = self.table(img[y0:y1, x0:x1], ocr)[0]
            r["table"] = {"html": html}
        t3 = time.perf_counter()
        if self.order == "ppstructure":
            out = ppstructure_order(regions + stray, w)
        else:
            body = [r for r in regions + stray if r["type"] not in FURNITURE]
            body.sort(key=lambda r: (r["box"][1], r["box"][0]))
            top = [r for r in regions if r["type"] == "header"]
            bottom = [r for r in regions if r["type"] in ("footer", "page_number")]
            out = top + body + bottom
        for k, r in enumerate(out):
            r["order"] = k
            r["furniture"] = r["type"] in FURNITURE
            for ln in r["lines"]:
                ln.pop("quad", None)
        t4 = time.perf_counter()
        timings = {"ocr": t1 - t0, "layout": t2 - t1, "table": t3 - t2, "order": t4 - t3}
        return {"regions": out, "timings": timings}


def make_reader(args):
    name = args.engine
    if name == "edgeocr":
        return Edgeocr(args.threads, args.max_memory_mb, args.models)
    if name == "edgeocr-grid":
        return Edgeocr(args.threads, args.max_memory_mb, args.models, table_method="grid")
    if name == "edgeocr-ocr":
        return EdgeocrLines(args.threads, args.models)
    if name in ("rapid-1.4.4", "rapid-3.10"):
        return RapidCompose(name.split("-", 1)[1], args.threads, args.order)
    raise SystemExit(f"unknown engine {name!r}; known: {', '.join(ENGINES)}")


def engine(
    name: str,
    label: str | None = None,
    *,
    python: str | None = None,
    threads: int = 2,
    max_memory_mb: int | None = None,
    models: str | None = None,
    order: str = "yx",
) -> _blocks.Engine:
    """The _blocks.Engine that runs ENGINE in a worker (``python``: another venv's interpreter)."""
    cmd = [python or sys.executable, os.path.abspath(__file__), name, "--threads", str(threads)]
    if order != "yx":
        cmd += ["--order", order]
    if max_memory_mb:
        cmd += ["--max-memory-mb", str(max_memory_mb)]
    if models:
        cmd += ["--models", models]
    env = {"OMP_NUM_THREADS": str(threads), "OMP_WAIT_POLICY": "PASSIVE"}
    return _blocks.Engine(label or name, cmd, env)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine", choices=ENGINES)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-memory-mb", type=int, default=None)
    ap.add_argument("--models", default=None, help="edgeocr: a model set name")
    ap.add_argument("--order", choices=ORDERS, default="yx", help="rapid-*: the regions' order")
    args = ap.parse_args(argv)
    _blocks.serve(lambda: make_reader(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
