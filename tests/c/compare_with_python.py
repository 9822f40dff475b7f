"""The C example's lines equal the Python predictor's on the same images and models.

    python compare_with_python.py OCR_DEMO IMAGE...                        # default model set
    python compare_with_python.py OCR_DEMO --bundle ppocr.eocr IMAGE...
    python compare_with_python.py OCR_DEMO --det D --cls C --rec R [--keys K] IMAGE... # .onnx/.nb

Both sides load the same source (the Python Predictor with the same
arguments) and read the same pixels (images that are not PPM/PGM are
converted to PPM first). Texts must be equal, scores within 1e-3 and box
corners within --tol px (0.5; the example prints one decimal). Exits with
77 (skipped) when edgeocr's Python module or the models are not installed.
tests/python/test_c_parity.py runs the same comparison per model source.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

SKIP = 77


def as_pnm(images: list[str], tmp: str) -> list[str]:
    """Each image as a binary PPM/PGM the C example reads (converted with Pillow if needed)."""
    out = []
    for i, path in enumerate(images):
        if path.lower().endswith((".ppm", ".pgm")):
            out.append(path)
            continue
        from PIL import Image

        dst = os.path.join(tmp, f"{i:03d}_{os.path.splitext(os.path.basename(path))[0]}.ppm")
        with Image.open(path) as im:
            im.convert("RGB").save(dst)
        out.append(dst)
    return out


def parse_output(stdout: str, images: list[str]) -> dict[str, list]:
    """The C example's output as {image: [(text, score, [8 floats]), ...]}."""
    results: dict[str, list] = {images[0]: []} if len(images) == 1 else {}
    current = images[0]
    for row in stdout.splitlines():
        if row.startswith("# ") and len(images) > 1:
            current = row[2:]
            results[current] = []
            continue
        if row.startswith("w\t"):  # a word (--words): parse_words reads these
            continue
        score, box, text = row.split("\t", 2)
        results[current].append((text, float(score), [float(v) for v in box.split(",")]))
    return results


def parse_words(stdout: str, images: list[str]) -> dict[str, list]:
    """The words the C example prints with --words: {image: [[(text, score, [8 floats]), ...]
    per line]}."""
    results: dict[str, list] = {images[0]: []} if len(images) == 1 else {}
    current = images[0]
    for row in stdout.splitlines():
        if row.startswith("# ") and len(images) > 1:
            current = row[2:]
            results[current] = []
        elif row.startswith("w\t"):
            _, score, box, text = row.split("\t", 3)
            results[current][-1].append((text, float(score), [float(v) for v in box.split(",")]))
        else:
            results[current].append([])
    return results


def run_c(demo, source: list[str], images: list[str], env: dict | None = None) -> dict[str, list]:
    """{image: [(text, score, [8 floats]), ...]} from one run of the C example over all images.

    `demo` is the program, or a list (e.g. ["qemu-aarch64", "-L", sysroot, program])."""
    cmd = [*demo] if isinstance(demo, (list, tuple)) else [demo]
    out = subprocess.run(
        [*cmd, *source, *images], env=env, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(
            f"{' '.join(cmd)} exited with {out.returncode}:\n"
            f"{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
        )
    return parse_output(out.stdout, images)


def compare_runs(a: dict[str, list], b: dict[str, list], tol: float) -> tuple[list[str], float]:
    """Two runs of the C example (e.g. x86 and aarch64): same texts, boxes within tol."""
    failures, worst = [], 0.0
    for img in sorted(set(a) | set(b)):
        la, lb = a.get(img, []), b.get(img, [])
        if len(la) != len(lb):
            failures.append(f"{img}: {len(la)} vs {len(lb)} lines")
            continue
        for i, ((ta, sa, ba), (tb, sb, bb)) in enumerate(zip(la, lb)):
            d = max(abs(x - y) for x, y in zip(ba, bb))
            worst = max(worst, d)
            if ta != tb or abs(sa - sb) > 1e-3 or d > tol:
                failures.append(f"{img}: line {i}: {ta!r} {sa} {ba} vs {tb!r} {sb} {bb}")
    return failures, worst


def compare(c_lines: list, py_result, tol: float) -> tuple[list[str], float]:
    """Failures (empty if equal) and the largest box corner difference seen."""
    failures, worst = [], 0.0
    if len(c_lines) != len(py_result.lines):
        failures.append(f"C gives {len(c_lines)} lines, Python {len(py_result.lines)}")
    for i, ((text, score, box), line) in enumerate(zip(c_lines, py_result.lines)):
        pbox = [float(v) for v in line.box.reshape(-1)]
        d = max(abs(a - b) for a, b in zip(box, pbox))
        worst = max(worst, d)
        if text != line.text:
            failures.append(f"line {i}: text {text!r} != {line.text!r}")
        if abs(score - line.score) > 1e-3:
            failures.append(f"line {i}: score {score} != {line.score}")
        if d > tol:
            failures.append(f"line {i}: box {box} != {pbox} ({d:.2f} px)")
    return failures, worst


def predictor_for(args):
    import edgeocr

    if args.bundle:
        return edgeocr.Predictor(args.bundle)
    if args.det or args.rec:
        return edgeocr.Predictor(det=args.det, cls=args.cls, rec=args.rec, keys=args.keys)
    return edgeocr.Predictor()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("demo")
    ap.add_argument("images", nargs="+")
    ap.add_argument("--bundle")
    ap.add_argument("--det")
    ap.add_argument("--cls")
    ap.add_argument("--rec")
    ap.add_argument("--keys", help="dictionary file for a rec model without one (e.g. .nb)")
    ap.add_argument("--tol", type=float, default=0.5)
    args = ap.parse_args(argv)
    try:
        import edgeocr
        from edgeocr.models import resolve_model_set

        py = predictor_for(args)
        default = resolve_model_set() if not (args.bundle or args.det or args.rec) else None
    except Exception as e:  # noqa: BLE001 - any missing piece means "cannot compare here"
        print(f"SKIP: edgeocr's Python package or the models are unavailable: {e}")
        return SKIP

    env = dict(os.environ)
    for v in ("EDGEOCR_BUNDLE", "EDGEOCR_DET_MODEL", "EDGEOCR_CLS_MODEL", "EDGEOCR_REC_MODEL"):
        env.pop(v, None)
    env.setdefault("EDGEOCR_ORT_LIBRARY", edgeocr.runtime_info()["library_path"])
    if args.bundle:
        source = ["--bundle", args.bundle]
    else:
        paths = default or {"det": args.det, "cls": args.cls, "rec": args.rec}
        source = [a for r in ("det", "cls", "rec") if paths[r] for a in (f"--{r}", paths[r])]
        if default and default.get("keys"):  # the set's dictionary, for a rec model without one
            source += ["--keys", default["keys"]]
        if default and default.get("recheck"):  # the set's second recogniser
            source += ["--recheck", default["recheck"]]
        if args.keys:
            source += ["--keys", args.keys]
    with tempfile.TemporaryDirectory() as tmp:
        images = as_pnm(args.images, tmp)
        try:
            c = run_c(args.demo, source, images, env)
        except RuntimeError as e:
            print(f"FAIL: {e}")
            return 1
        failed, lines, worst = 0, 0, 0.0
        for img in images:
            fails, w = compare(c.get(img, []), py.predict(img), args.tol)
            worst = max(worst, w)
            lines += len(c.get(img, []))
            for f in fails:
                print(f"FAIL: {img}: {f}")
            failed += bool(fails)
    print(
        f"C example vs Python predictor ({' '.join(source)}): {len(images)} image(s), "
        f"{lines} lines, "
        f"{failed} image(s) differ; largest box difference {worst:.2f} px (tolerance {args.tol})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
