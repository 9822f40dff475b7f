"""The C example's lines equal the Python predictor's on the same image.

    python compare_with_python.py path/to/ocr_demo image.ppm

Both run the default model set with default settings; texts must be equal,
scores within 1e-3 and box corners within 0.15 px (the example prints one
decimal). Exits with 77 (skipped) when edgeocr's Python module or the
default models are not installed.
"""

import os
import subprocess
import sys

SKIP = 77


def main(demo: str, image: str) -> int:
    try:
        import edgeocr
        from edgeocr.models import resolve_model_set

        paths = resolve_model_set()
    except Exception as e:  # noqa: BLE001 - any missing piece means "cannot compare here"
        print(f"SKIP: edgeocr's Python package or its default models are unavailable: {e}")
        return SKIP
    py = edgeocr.Predictor().predict(image)

    env = dict(os.environ)
    for role in ("det", "cls", "rec"):
        env[f"EDGEOCR_{role.upper()}_MODEL"] = paths[role]
    env.setdefault("EDGEOCR_ORT_LIBRARY", edgeocr.runtime_info()["library_path"])
    out = subprocess.run([demo, image], env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(out.stdout, out.stderr)
        print(f"FAIL: {demo} exited with {out.returncode}")
        return 1
    c_lines = []
    for row in out.stdout.splitlines():
        score, box, text = row.split("\t", 2)
        c_lines.append((text, float(score), [float(v) for v in box.split(",")]))

    failures = []
    if len(c_lines) != len(py.lines):
        failures.append(f"C gives {len(c_lines)} lines, Python {len(py.lines)}")
    for i, ((text, score, box), line) in enumerate(zip(c_lines, py.lines)):
        pbox = [float(v) for v in line.box.reshape(-1)]
        if text != line.text:
            failures.append(f"line {i}: text {text!r} != {line.text!r}")
        if abs(score - line.score) > 1e-3:
            failures.append(f"line {i}: score {score} != {line.score}")
        if max(abs(a - b) for a, b in zip(box, pbox)) > 0.15:
            failures.append(f"line {i}: box {box} != {pbox}")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"C example == Python predictor on {image}: {len(c_lines)} lines")
        for text, score, _ in c_lines:
            print(f"  {score:.4f}  {text}")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: compare_with_python.py OCR_DEMO IMAGE")
    sys.exit(main(sys.argv[1], sys.argv[2]))
