"""Make an ONNX model digestible by x2paddle 1.6: tensor and node names become
valid Python identifiers (x2paddle writes Python code that uses them).

Runs inside the Paddle Lite root (onnx 1.14). usage: prepare_onnx.py IN.onnx OUT.onnx
"""

import re
import sys

import onnx


def clean(name: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", name) if name else name


def main(src: str, dst: str) -> None:
    model = onnx.load(src)
    g = model.graph
    for node in g.node:
        node.name = clean(node.name)
        node.input[:] = [clean(v) for v in node.input]
        node.output[:] = [clean(v) for v in node.output]
    for v in list(g.input) + list(g.output) + list(g.value_info) + list(g.initializer):
        v.name = clean(v.name)
    onnx.save(model, dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
