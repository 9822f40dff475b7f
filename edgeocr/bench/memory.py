"""`edgeocr bench --memory`: peak RSS per page size and model set, and the smallest memory budget
(`Predictor(max_memory_mb=)`) that reads each page as the unbudgeted predictor does.

    edgeocr bench --memory [MODEL_OR_SET] [--page IMAGE] [--sizes 0.3,1,3,12]
                           [--budgets 64,128,256,512,1024]

The page (default: the largest image of --images or of the dev set, else tests' sample) is scaled
to each size (megapixels, aspect kept) and written as JPEG, so decoding happens inside predict()
as it does for a user's files. For each model set and size one subprocess builds a pipeline per
budget (smallest first) and reads the page once with each, then the unbudgeted one: peak RSS
growth is VmHWM during predict() minus VmRSS after the pipeline was built (Linux,
/proc/self/clear_refs). "Same" means the same lines, same text, in the same order. The pipelines
are the engine under Predictor (edgeocr.engine.Engine: the budget, planned before decoding, is
the engine's), so Predictor(max_memory_mb=) reads and holds what is measured here.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time

from . import worker


def _status_mb() -> dict:
    d = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                d[k] = int(v.split()[0]) / 1024
    return d


def _measure(make, image: str) -> dict:
    p = make()
    base = _status_mb()["VmRSS"]
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := VmRSS
    t0 = time.perf_counter()
    try:
        r = p.predict(image)
    except MemoryError as e:  # ResourceError: no plan fits
        return {"refused": str(e)}
    dt = time.perf_counter() - t0
    return {
        "peak_mb": round(_status_mb()["VmHWM"] - base, 1),
        "seconds": dt,
        "lines": [(line.text, [round(float(v)) for v in line.box.ravel()]) for line in r.lines],
    }


def worker_main(argv) -> int:
    from .common import engine_for

    model, image, threads = argv[0], argv[1], int(argv[2]) or None
    budgets = [float(b) for b in argv[3].split(",")]
    out = {"budgets": {}}
    for b in budgets:
        out["budgets"][str(b)] = _measure(
            lambda b=b: engine_for(models=model, threads=threads, max_memory_mb=b), image
        )
    out["none"] = _measure(lambda: engine_for(models=model, threads=threads), image)
    worker.emit(out)
    return 0


def _default_page(folder: str | None) -> str:
    from ..image_io import image_files
    from .common import default_images

    folder = folder or default_images()
    if folder and os.path.isdir(folder):
        from PIL import Image

        files = image_files(folder)
        sized = []
        for f in files:
            try:
                with Image.open(f) as im:
                    sized.append((im.size[0] * im.size[1], f))
            except Exception:  # noqa: BLE001 - not an image: skip it
                continue
        if sized:
            return max(sized)[1]
    here = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "tests",
        "data",
        "sample_en.png",
    )
    if os.path.exists(here):
        return here
    raise SystemExit("edgeocr bench --memory: pass --page IMAGE")


def scaled_pages(page: str, sizes: list, folder: str) -> dict:
    import cv2

    from ..image_io import load_image

    src = load_image(page)
    h, w = src.shape[:2]
    out = {}
    for mpx in sizes:
        s = math.sqrt(mpx * 1e6 / (w * h))
        size = (max(32, round(w * s)), max(32, round(h * s)))
        im = cv2.resize(src, size, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
        path = os.path.join(folder, f"page_{mpx}mp.jpg")
        cv2.imwrite(path, im, [cv2.IMWRITE_JPEG_QUALITY, 92])
        out[mpx] = (path, size)
    return out


def run_memory(args) -> int:
    from .common import render_table

    if not sys.platform.startswith("linux"):
        print("edgeocr bench --memory: peak RSS is read from /proc (Linux only)", file=sys.stderr)
        return 2
    models = [m for m in (args.model or "ppocr-v4-mobile,ppocr-v6-small").split(",") if m]
    sizes = list(args.sizes)  # checked by argparse (compare.positive_numbers)
    budgets = sorted(args.budgets)
    page = args.page or _default_page(args.images)
    rows = []
    with tempfile.TemporaryDirectory(prefix="edgeocr-bench-memory-") as tmp:
        pages = scaled_pages(page, sizes, tmp)
        for model in models:
            for mpx, (path, size) in pages.items():
                print(
                    f"memory: {model}, {size[0]}x{size[1]} ({mpx} Mpx) ...",
                    file=sys.stderr,
                    flush=True,
                )
                cmd = [
                    sys.executable,
                    "-m",
                    "edgeocr.bench.memory",
                    model,
                    path,
                    str(args.threads or 0),
                    ",".join(str(b) for b in budgets),
                ]
                try:
                    res = worker.run_worker(cmd, timeout=3600)
                except worker.WorkerError as e:
                    rows.append(
                        {"model": model, "mpx": mpx, "size": size, "error": e.stderr.strip()[-300:]}
                    )
                    continue
                ref = res["none"]
                same = [b for b in budgets if res["budgets"][str(b)].get("lines") == ref["lines"]]
                rows.append(
                    {
                        "model": model,
                        "mpx": mpx,
                        "size": size,
                        "peak_mb": ref["peak_mb"],
                        "smallest_same_budget_mb": same[0] if same else None,
                        "budgets": res["budgets"],
                        "reference_seconds": ref["seconds"],
                        "lines": len(ref["lines"]),
                    }
                )
    if args.json:
        print(json.dumps({"page": page, "budgets": budgets, "rows": rows}, indent=1))
        return 0
    print(
        f"page {page} scaled to each size; peak RSS growth during predict() over RSS after the "
        f"predictor was built; budgets tried (MB): {', '.join(f'{b:g}' for b in budgets)}"
    )
    cells = [
        [
            "model set",
            "page",
            "Mpx",
            "lines",
            "peak MB (no budget)",
            "smallest budget, same lines",
            "its peak MB",
            "its time x",
        ]
    ]
    for r in rows:
        if "error" in r:
            cells.append(
                [
                    r["model"],
                    f"{r['size'][0]}x{r['size'][1]}",
                    f"{r['mpx']:g}",
                    "-",
                    "failed",
                    r["error"],
                    "-",
                    "-",
                ]
            )
            continue
        b = r["smallest_same_budget_mb"]
        got = r["budgets"][str(b)] if b is not None else None
        cells.append(
            [
                r["model"],
                f"{r['size'][0]}x{r['size'][1]}",
                f"{r['mpx']:g}",
                str(r["lines"]),
                f"{r['peak_mb']:.0f}",
                f"{b:g}" if b is not None else f"> {budgets[-1]:g}",
                f"{got['peak_mb']:.0f}" if got else "-",
                f"{got['seconds'] / r['reference_seconds']:.2f}" if got else "-",
            ]
        )
    print(render_table(cells))
    print(
        "time x: the budgeted call's time / the unbudgeted call's, one call each in one process "
        "(not interleaved: a rough figure on a loaded machine)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
