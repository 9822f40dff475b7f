"""OCR on one image with the default models: its lines in reading order.

pip install ".[models]"
python examples/one_image.py tests/data/sample_en.png
"""

import sys

import edgeocr

image = sys.argv[1] if len(sys.argv) > 1 else "page.jpg"
predictor = edgeocr.Predictor()  # the default model set; threads=N, any PipelineConfig field
result = predictor.predict(image)  # a path, numpy BGR/gray array, PIL image or bytes
for line in result.lines:  # line.box: (4, 2) float32 corners, clockwise from top-left
    print(f"{line.score:.3f}  {line.text}")
print(f"{len(result.lines)} lines in {result.timings['total'] * 1000:.0f} ms", file=sys.stderr)
