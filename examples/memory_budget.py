"""OCR within a memory budget: everything a call allocates (ONNX Runtime's activations, tensors,
decoded pixels) stays under max_memory_mb; a page that needs more runs det in tiles and rec in
smaller batches, and a call that cannot fit is refused with ResourceError.

    pip install ".[models]"
    python examples/memory_budget.py tests/data/sample_en.png 300

`edgeocr bench --memory` finds the budget your pages need (docs/memory-budget.md).
"""

import sys

import edgeocr

image = sys.argv[1] if len(sys.argv) > 1 else "page.jpg"
budget_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 300

predictor = edgeocr.Predictor(max_memory_mb=budget_mb)
try:
    result = predictor.predict(image)
except edgeocr.ResourceError as e:  # nothing fits: say so, never an out-of-memory kill
    sys.exit(f"does not fit in {budget_mb:g} MB: {e}")
for line in result.lines:
    print(f"{line.score:.3f}  {line.text}")
high = predictor.memory_stats()["high_water_bytes"] / 2**20
print(f"high water {high:.0f} MiB of a {budget_mb:g} MB budget", file=sys.stderr)
