"""Pack a model set into one .eocr bundle (models, dictionary, settings), then OCR with it.

    pip install ".[models,pack]"
    python examples/bundle.py tests/data/sample_en.png ppocr.eocr

A bundle is what a device app ships: the C API opens the same file
(examples/c/ocr_demo.c --bundle ppocr.eocr page.ppm) and reads the same lines.
`edgeocr-pack --models ppocr-v6-tiny-recheck -o ppocr.eocr` does the packing from the command line.
"""

import sys

import edgeocr
from edgeocr.models import resolve_model_set
from edgeocr.pack import load_bundle
from edgeocr.pack.packer import pack

image = sys.argv[1] if len(sys.argv) > 1 else "page.jpg"
output = sys.argv[2] if len(sys.argv) > 2 else "ppocr.eocr"

# The default set: det, cls, rec with its dictionary file, and the recheck model that re-reads the
# lines rec is unsure of (docs/model-ladder.md, "Recheck").
m = resolve_model_set("ppocr-v6-tiny-recheck")  # {"det": path, ..., "recheck": path, "keys": path}
pack(output, det=m["det"], cls=m["cls"], rec=m["rec"], keys=m["keys"], recheck=m["recheck"])
with load_bundle(output) as b:
    print(f"{output}: {', '.join(m['role'] for m in b.manifest['models'])}", file=sys.stderr)

for line in edgeocr.Predictor(output).predict(image).lines:
    print(f"{line.score:.3f}  {line.text}")
