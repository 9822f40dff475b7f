"""OCR on every image of a folder, with a progress line, one JSON line per image on stdout.

    pip install ".[models]"
    python examples/folder_progress.py tests/data > results.jsonl

A file that is not a readable image is reported and skipped, not fatal. For throughput on many
cores see Predictor(workers=N) and predict_iter() (docs/usage.md); `edgeocr predict FOLDER` does
this from the command line.
"""

import json
import sys
from pathlib import Path

import edgeocr

folder = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
images = sorted(p for p in folder.iterdir() if p.suffix.lower() in {".png", ".jpg", ".jpeg"})
predictor = edgeocr.Predictor()
done = 0
for path in images:
    try:
        result = predictor.predict(path)
    except edgeocr.InvalidInputError as e:  # unreadable, empty, too large: one message
        print(f"\nskipped {path}: {e}", file=sys.stderr)
        continue
    print(json.dumps({"path": str(path), **result.to_dict()}, ensure_ascii=False))
    done += 1
    print(f"\r{done}/{len(images)} images", end="", file=sys.stderr, flush=True)
print(file=sys.stderr)
