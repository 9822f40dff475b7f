"""Prints det;cls;rec;ort;layout;table for the C tests: the PP-OCRv4 mobile models, the ONNX
Runtime library and the document-parsing models of the installed Python packages ("" for what
is missing).
Run by CMake at configure time; needs neither edgeocr's C++ module nor a build: the model sets
and the document models are found by the checkout's edgeocr/models.py (the one list of where
they are), loaded without the package's __init__ (which needs the compiled core)."""

import glob
import importlib
import importlib.util
import os
import sys
import types

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def edgeocr_models():
    """The checkout's edgeocr/models.py, as a module of a stand-in package (it imports only
    .errors, which imports nothing)."""
    pkg = types.ModuleType("_edgeocr_checkout")
    pkg.__path__ = [os.path.join(REPO, "edgeocr")]
    sys.modules[pkg.__name__] = pkg
    return importlib.import_module(pkg.__name__ + ".models")


def package_dir(name):
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def ort_library():
    root = package_dir("onnxruntime")
    if root is None:
        return ""
    hits = sorted(glob.glob(os.path.join(root, "capi", "libonnxruntime.so*")), key=len)
    return hits[-1] if hits else ""


models = edgeocr_models()
ocr = models.MODEL_SETS["ppocr-v4-mobile"].paths() or {}
documents = models.document_model_paths()
found = [ocr.get(r, "") for r in ("det", "cls", "rec")]
found += [ort_library(), documents.get("layout", ""), documents.get("table", "")]
print(";".join(found))
