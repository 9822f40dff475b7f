"""Which pip extra brings each optional module, so that a missing one is one line that says what
to install, not a traceback. The command-line entry points (``edgeocr``, ``edgeocr-pack``) turn a
``ModuleNotFoundError`` for one of these into that line; tests/python/test_first_errors.py runs
each entry point with the module blocked and checks every extra named here against pyproject.toml.
"""

from __future__ import annotations

#: top-level module -> (the requirement in pyproject.toml that brings it, the extra that has it)
OPTIONAL_MODULES: dict[str, tuple[str, str]] = {
    "onnx": ("onnx", "pack"),
    "torch": ("torch", "export"),
    "onnx2torch": ("onnx2torch", "bench"),
    "pyclipper": ("pyclipper", "bench"),
    "rapidocr_onnxruntime": ("rapidocr-onnxruntime", "models"),
    "rapidocr": ("rapidocr", "models"),
    "ray": ("ray[data]", "ray"),
    "pyarrow": ("ray[data]", "ray"),
    "paddle": ("paddlepaddle", "paddle"),
    "paddle2onnx": ("paddle2onnx", "paddle"),
    "yaml": ("pyyaml", "paddle"),
    "pikepdf": ("pikepdf", "pdf"),
    "ocrmypdf": ("ocrmypdf", "pdf"),
}


def missing_module_message(err: ModuleNotFoundError) -> str | None:
    """The line for a missing optional module (None when ``err`` is about another module)."""
    top = (getattr(err, "name", None) or "").split(".")[0]
    if top not in OPTIONAL_MODULES:
        return None
    req, extra = OPTIONAL_MODULES[top]
    return (
        f"this needs the Python module '{top}' ({req.split('[')[0]}), which is not installed: "
        f'pip install "edgeocr[{extra}]" (from the checkout: pip install ".[{extra}]")'
    )
