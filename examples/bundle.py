"""Pack a model set into one .eocr bundle (models, dictionary, settings), then OCR with it.

    pip install ".[models,pack]"
    python examples/bundle.py tests/data/sample_en.png ppocr.eocr

A bundle is what a device app ships: the C API opens the same file
(examples/c/ocr_demo.c --bundle ppocr.eocr page.ppm) and reads the same lines.
`edgeocr-pack --models ppocr-v4det-v6rec -o ppocr.eocr` does the packing from the command line.
"""

import sys

import edgeocr
from edgeocr.models import resolve_model_set
from edgeocr.pack import load_bundle
from edgeocr.pack.packer import pack

image = sys.argv[1] if len(sys.argv) > 1 else "page.jpg"
output = sys.argv[2] if len(sys.argv) > 2 else "ppocr.eocr"

# A set a bundle holds whole: det, cls and rec (the default set's recheck model is not yet a
# bundle member; docs/model-ladder.md, "Recheck").
models = resolve_model_set("ppocr-v4det-v6rec")  # {"det": path, "cls": path, "rec": path}
pack(output, det=models["det"], cls=models["cls"], rec=models["rec"])
with load_bundle(output) as b:
    print(f"{output}: {', '.join(m['role'] for m in b.manifest['models'])}", file=sys.stderr)

for line in edgeocr.Predictor(output).predict(image).lines:
    print(f"{line.score:.3f}  {line.text}")
