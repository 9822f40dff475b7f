import importlib
import importlib.util
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def shared_dir() -> Path:
    env = os.environ.get("EDGEOCR_SHARED_DIR")
    return Path(env) if env else REPO.parent / "shared"


def dev_dir() -> Path:
    return shared_dir() / "datasets" / "dev"


@pytest.fixture(scope="session")
def v4_paths():
    """det/cls/rec of PP-OCRv4 mobile from the rapidocr-onnxruntime wheel (a test dependency)."""
    from edgeocr.models import MODEL_SETS

    paths = MODEL_SETS["ppocr-v4-mobile"].paths()
    if paths is None:
        pytest.skip("rapidocr-onnxruntime==1.4.4 is not installed (pip install 'edgeocr[test]')")
    return paths


@pytest.fixture(scope="session")
def v6_paths():
    from edgeocr.models import MODEL_SETS

    paths = MODEL_SETS["ppocr-v6-small"].paths()
    if paths is None:
        pytest.skip("rapidocr==3.10.0 is not installed (pip install 'edgeocr[test]')")
    return paths


@pytest.fixture(scope="session")
def dev_set() -> Path:
    d = dev_dir()
    if not (d / "e2e_synth.jsonl").exists():
        pytest.skip(f"the dev set is not at {d} (set EDGEOCR_SHARED_DIR to the shared/ folder)")
    return d


@pytest.fixture(scope="session")
def predictor(v4_paths):
    import edgeocr

    return edgeocr.Predictor(models="ppocr-v4-mobile", threads=2)


def load_paddle_lite():
    """edgeocr.paddle_lite, or the package loaded from its folder when edgeocr itself does not
    import (e.g. the compiled core is not built): the .nb tests need only the translator."""
    try:
        return importlib.import_module("edgeocr.paddle_lite")
    except Exception:  # noqa: BLE001 - edgeocr's own __init__ may not import yet
        name = "_edgeocr_paddle_lite_under_test"
        if name in sys.modules:
            return sys.modules[name]
        pkg_dir = REPO / "edgeocr" / "paddle_lite"
        spec = importlib.util.spec_from_file_location(
            name, pkg_dir / "__init__.py", submodule_search_locations=[str(pkg_dir)])
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod
