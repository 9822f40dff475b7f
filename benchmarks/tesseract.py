#!/usr/bin/env python3
"""End to end OCR: edgeocr.Predictor() vs Tesseract 5, same pages, speed, memory and accuracy.

    python benchmarks/tesseract.py [--sample N | --limit N] [--threads 2] [--rss-images 3]
                                   [--edgeocr-models default] [--lang auto] [--json out.json]

Tesseract is Debian's `tesseract-ocr` (5.3 on Debian 12) with the `eng` and
`chi_sim` language data (`apt-get install tesseract-ocr tesseract-ocr-eng
tesseract-ocr-chi-sim`), driven in this process through its C API
(libtesseract.so.5, by ctypes): one TessBaseAPI per language, initialised
once, then per page `pixRead` (Leptonica decodes the file) + `Recognize` +
the text lines with their boxes. That is the fastest way to run Tesseract: the
`tesseract` command (and pytesseract, which runs it) also starts a process
and loads the language data for every page. Tesseract's LSTM runs on OpenMP
threads, limited here to --threads (OMP_THREAD_LIMIT), like edgeocr's
intra-op threads. Page segmentation: Tesseract's default (3, automatic).

Language: --lang auto (default) gives Tesseract each page's language from the
dev set's tags (zh: chi_sim, en: eng, both or neither: chi_sim+eng), which
helps it (edgeocr reads every page with one model set); --lang LANGS gives
every page the same languages.

Latency: both engines OCR each page in turn from its path (decoding
included), the order flipping every page, after one untimed call each.
Accuracy: `edgeocr.evaluate.evaluate_e2e` on both engines' lines of the same
pages (text lines with axis-aligned boxes from Tesseract, quadrilaterals from
edgeocr). Memory: each engine alone in a fresh subprocess over the
--rss-images largest pages (peak RSS, ru_maxrss).
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import sys
import time
from pathlib import Path

import _bench

ENGINES = ("tesseract", "edgeocr")
RIL_TEXTLINE = 2  # tesseract::PageIteratorLevel


def dev_dir() -> Path:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else Path(__file__).resolve().parents[2] / "shared"
    return root / "datasets" / "dev"


def _lib(name: str, soname: str) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(soname)
    except OSError:
        found = ctypes.util.find_library(name)
        if not found:
            raise SystemExit(
                f"{soname} not found: apt-get install tesseract-ocr tesseract-ocr-eng "
                "tesseract-ocr-chi-sim"
            ) from None
        return ctypes.CDLL(found)


class Tesseract:
    """Tesseract's C API: one initialised TessBaseAPI per language string."""

    def __init__(self, threads: int):
        # OpenMP reads its limit when libgomp starts: set it before the library is loaded.
        os.environ["OMP_THREAD_LIMIT"] = str(threads)
        t = self.t = _lib("tesseract", "libtesseract.so.5")
        lept = self.lept = _lib("lept", "liblept.so.5")
        vp, cp, ip = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        t.TessBaseAPICreate.restype = vp
        t.TessBaseAPIInit3.argtypes = [vp, cp, cp]
        t.TessBaseAPISetImage2.argtypes = [vp, vp]
        t.TessBaseAPIRecognize.argtypes = [vp, vp]
        t.TessBaseAPIGetIterator.argtypes = [vp]
        t.TessBaseAPIGetIterator.restype = vp
        t.TessResultIteratorGetPageIterator.argtypes = [vp]
        t.TessResultIteratorGetPageIterator.restype = vp
        t.TessPageIteratorBoundingBox.argtypes = [vp, ip] + [ctypes.POINTER(ip)] * 4
        t.TessResultIteratorGetUTF8Text.argtypes = [vp, ip]
        t.TessResultIteratorGetUTF8Text.restype = ctypes.POINTER(ctypes.c_char)
        t.TessResultIteratorConfidence.argtypes = [vp, ip]
        t.TessResultIteratorConfidence.restype = ctypes.c_float
        t.TessResultIteratorNext.argtypes = [vp, ip]
        t.TessResultIteratorDelete.argtypes = [vp]
        t.TessDeleteText.argtypes = [ctypes.POINTER(ctypes.c_char)]
        t.TessBaseAPIClear.argtypes = [vp]
        t.TessBaseAPIEnd.argtypes = [vp]
        t.TessBaseAPIDelete.argtypes = [vp]
        lept.pixRead.argtypes = [cp]
        lept.pixRead.restype = vp
        lept.pixDestroy.argtypes = [ctypes.POINTER(vp)]
        self.apis: dict[str, int] = {}

    def api(self, lang: str) -> int:
        if lang not in self.apis:
            h = self.t.TessBaseAPICreate()
            if self.t.TessBaseAPIInit3(h, None, lang.encode()) != 0:
                raise SystemExit(f"Tesseract could not load language data {lang!r}")
            self.apis[lang] = h
        return self.apis[lang]

    def close(self) -> None:
        for h in self.apis.values():
            self.t.TessBaseAPIEnd(h)
            self.t.TessBaseAPIDelete(h)
        self.apis.clear()

    def __call__(self, path: str, lang: str) -> list[dict]:
        t, h = self.t, self.api(lang)
        pix = ctypes.c_void_p(self.lept.pixRead(path.encode()))
        if not pix:
            raise SystemExit(f"Leptonica could not read {path}")
        lines = []
        try:
            t.TessBaseAPISetImage2(h, pix)
            if t.TessBaseAPIRecognize(h, None) != 0:
                raise SystemExit(f"Tesseract failed on {path}")
            it = t.TessBaseAPIGetIterator(h)
            if it:
                page_it = t.TessResultIteratorGetPageIterator(it)
                box = [ctypes.c_int() for _ in range(4)]
                while True:
                    raw = t.TessResultIteratorGetUTF8Text(it, RIL_TEXTLINE)
                    if raw:
                        text = ctypes.string_at(raw).decode("utf-8", "replace").strip()
                        t.TessDeleteText(raw)
                        t.TessPageIteratorBoundingBox(
                            page_it, RIL_TEXTLINE, *(ctypes.byref(b) for b in box)
                        )
                        left, top, right, bottom = (b.value for b in box)
                        if text:
                            lines.append(
                                {
                                    "text": text,
                                    "box": [
                                        [left, top],
                                        [right, top],
                                        [right, bottom],
                                        [left, bottom],
                                    ],
                                    "score": t.TessResultIteratorConfidence(it, RIL_TEXTLINE) / 100,
                                }
                            )
                    if not t.TessResultIteratorNext(it, RIL_TEXTLINE):
                        break
                t.TessResultIteratorDelete(it)
        finally:
            t.TessBaseAPIClear(h)
            self.lept.pixDestroy(ctypes.byref(pix))
        return lines


class Edgeocr:
    def __init__(self, models: str | None, threads: int):
        import edgeocr

        self.predictor = edgeocr.Predictor(models=models, threads=threads, precision="fp32")

    def __call__(self, path: str, lang: str) -> list[dict]:
        return [
            {"text": ln.text, "box": [list(map(float, p)) for p in ln.box], "score": ln.score}
            for ln in self.predictor.predict(path).lines
        ]


def make_engine(name: str, args):
    if name == "tesseract":
        return Tesseract(args.threads)
    return Edgeocr(None if args.edgeocr_models == "default" else args.edgeocr_models, args.threads)


def page_lang(sample: dict, lang: str) -> str:
    if lang != "auto":
        return lang
    tags = set(sample.get("tags", []))
    if "zh" in tags and "en" not in tags:
        return "chi_sim"
    if "en" in tags and "zh" not in tags:
        return "eng"
    return "chi_sim+eng"


def select(samples: list[dict], args) -> list[dict]:
    if args.limit:
        return samples[: args.limit]
    if args.sample:
        step = max(1, len(samples) // args.sample)
        return samples[::step][: args.sample]
    return samples


def worker(args) -> None:
    """Peak memory of one engine alone in this fresh process."""
    rss_import = _bench.rss_mb()
    t0 = time.perf_counter()
    engine = make_engine(args.worker, args)
    if args.worker == "tesseract":  # load the language data the pages need, as the timing run does
        for lang in set(args.worker_langs.split(",")):
            engine.api(lang)
    load_s = time.perf_counter() - t0
    rss_loaded = _bench.rss_mb()
    for path, lang in zip(args.worker_images, args.worker_langs.split(","), strict=True):
        engine(path, lang)
    _bench.emit(_bench.memory_figures(rss_import, rss_loaded, load_s))
    if args.worker == "tesseract":
        engine.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sample", type=int, default=24, help="N pages evenly spaced (default 24)")
    ap.add_argument("--limit", type=int, default=0, help="the first N pages instead")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rss-images", type=int, default=3)
    ap.add_argument("--edgeocr-models", default="default")
    ap.add_argument("--lang", default="auto", help="Tesseract's languages (default: per page)")
    ap.add_argument("--json")
    ap.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("--worker-langs", default="", help=argparse.SUPPRESS)
    ap.add_argument("worker_images", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args)
        return 0

    from edgeocr import evaluate

    info = _bench.machine()
    print(_bench.header(info), flush=True)
    samples = select(evaluate.load_e2e(dev_dir()), args)
    langs = [page_lang(s, args.lang) for s in samples]

    # Memory first, while this process is small (see _bench.peak_rss_mb).
    from PIL import Image

    def pixels(s):
        with Image.open(s["path"]) as im:
            return im.size[0] * im.size[1]

    big = sorted(range(len(samples)), key=lambda i: pixels(samples[i]), reverse=True)
    big = big[: args.rss_images]
    mem = {}
    for name in ENGINES:
        mem[name] = _bench.run_worker(
            __file__,
            [
                "--worker",
                name,
                "--threads",
                str(args.threads),
                "--edgeocr-models",
                args.edgeocr_models,
                "--worker-langs",
                ",".join(langs[i] for i in big),
                *[samples[i]["path"] for i in big],
            ],
        )

    engines = {name: make_engine(name, args) for name in ENGINES}
    for name in ENGINES:  # warm-up, and Tesseract's language data loaded
        for lang in sorted(set(langs)):
            engines[name](samples[0]["path"], lang)
    ms = {name: [] for name in ENGINES}
    preds = {name: {} for name in ENGINES}
    for i, (s, lang) in enumerate(zip(samples, langs, strict=True)):
        for name in ENGINES if i % 2 == 0 else ENGINES[::-1]:
            t0 = time.perf_counter()
            preds[name][s["id"]] = engines[name](s["path"], lang)
            ms[name].append((time.perf_counter() - t0) * 1000.0)
    engines["tesseract"].close()
    reports = {name: evaluate.evaluate_e2e(samples, preds[name]) for name in ENGINES}

    rows = []

    def row(label, fn, fmt="{:.1f}"):
        a, b = fn("tesseract"), fn("edgeocr")
        rows.append([label, fmt.format(a), fmt.format(b), _bench.ratio(b, a)])

    row("median per page (ms)", lambda c: _bench.median(ms[c]))
    row("p90 per page (ms)", lambda c: _bench.p90(ms[c]))
    row("total (s)", lambda c: sum(ms[c]) / 1000.0, "{:.2f}")
    row(f"peak RSS, {len(big)} largest pages (MiB)", lambda c: mem[c]["peak_rss_mb"])
    row("load time (s)", lambda c: mem[c]["load_s"], "{:.3f}")
    for key, label in (
        ("det_hmean", "det H-mean"),
        ("line_acc", "line accuracy"),
        ("one_minus_ned", "1 - NED"),
        ("cer", "CER"),
        ("line_acc_ws", "line accuracy with spaces"),
    ):
        row(label, lambda c, k=key: reports[c]["all"][k], "{:.4f}")
    print(
        f"\n{len(samples)} dev pages, interleaved, {args.threads} threads each; Tesseract "
        f"languages: {args.lang}; edgeocr: models {args.edgeocr_models}, fp32"
    )
    print(_bench.table(["metric", "Tesseract", "edgeocr", "edgeocr/Tesseract"], rows))
    tag_rows = []
    for tag in sorted(reports["edgeocr"]["tags"]):
        te, ed = reports["tesseract"]["tags"][tag], reports["edgeocr"]["tags"][tag]
        tag_rows.append(
            [tag, f"{te['line_acc']:.3f}", f"{ed['line_acc']:.3f}", f"{te['one_minus_ned']:.3f}"]
            + [f"{ed['one_minus_ned']:.3f}"]
        )
    print("\nper tag: line accuracy and 1 - NED")
    print(_bench.table(["tag", "Tess acc", "edgeocr acc", "Tess 1-NED", "edgeocr 1-NED"], tag_rows))
    info["loadavg_end"] = list(os.getloadavg())
    print(f"\nload average at the end: {info['loadavg_end']}")
    if args.json:
        _bench.write_json(
            args.json,
            {
                "machine": info,
                "settings": vars(args),
                "pages": [s["id"] for s in samples],
                "langs": langs,
                "latency_ms": ms,
                "memory": mem,
                "accuracy": {
                    n: {k: r[k] for k in ("all", "tags", "langs")} for n, r in reports.items()
                },
            },
        )
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
