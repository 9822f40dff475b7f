"""The on-disk cache of ONNX Runtime's optimised graphs (csrc/loader/graph_cache.h).

A known set's file and a verified bundle member are known by their sha256; their sessions keep
ONNX Runtime's optimised graph in $EDGEOCR_CACHE_DIR/ort and later load it with graph optimisation
off. These tests check that a later load takes its sessions from the cache (a hit touches its
entry), reads the same lines, scores and boxes, bit for bit, as a load without the cache, and that
the cache survives damaged entries and stays within its bounds.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from limits import run_limited

import edgeocr

DATA = Path(__file__).resolve().parents[1] / "data"
IMAGES = [DATA / "sample_en.png", DATA / "sample_en_rot180.png"]
DAY = 24 * 3600


def _read(**kw) -> list:
    p = edgeocr.Predictor(threads=1, **kw)
    out = []
    for img in IMAGES:
        if img.exists():
            r = p.predict(str(img))
            out.append([(ln.text, ln.score, ln.box.tolist()) for ln in r.lines])
    assert out and out[0], "sample_en.png read no lines"
    return out


def _read_limited(cache: Path, **kw) -> list:
    """_read(**kw) in a child process under tests/python/limits.py's limits, as JSON."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from test_graph_cache import _read; "
        f"print(json.dumps(_read(**{kw!r})))"
    )
    r = run_limited(
        [sys.executable, "-c", code, str(Path(__file__).parent)],
        env=dict(os.environ, EDGEOCR_CACHE_DIR=str(cache)),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.splitlines()[-1])


def _entries(cache: Path) -> list[Path]:
    d = cache / "ort"
    return sorted(d.glob("*.onnx")) if d.is_dir() else []


def _age(paths, seconds: float) -> None:
    t = time.time() - seconds
    for p in paths:
        os.utime(p, (t, t))


def test_sessions_come_from_the_cache_with_the_same_results(v4_paths, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(cache))
    monkeypatch.setenv("EDGEOCR_GRAPH_CACHE", "0")
    plain = _read(models="ppocr-v4-mobile")
    assert _entries(cache) == []  # turned off: nothing written
    monkeypatch.delenv("EDGEOCR_GRAPH_CACHE")

    assert _read(models="ppocr-v4-mobile") == plain  # made and saved
    entries = _entries(cache)
    assert len(entries) == 3  # det, cls, rec
    assert not list((cache / "ort").glob(".tmp-*"))

    _age(entries, 2 * DAY)
    assert _read(models="ppocr-v4-mobile") == plain  # from the cache
    for e in entries:  # each hit touched its entry: the sessions came from these files
        assert time.time() - e.stat().st_mtime < DAY, e

    # Damaged entries are removed and made again; the text is still the models' own. The damaged
    # files are hostile input to the runtime: read in a child under an address-space limit and a
    # timeout.
    for e in entries:
        e.write_bytes(b"\x08\x07 not an optimised graph")
    _age(entries, 2 * DAY)
    assert _read_limited(cache, models="ppocr-v4-mobile") == json.loads(json.dumps(plain))
    assert _entries(cache) == entries
    for e in entries:
        assert e.stat().st_size > 1000 and time.time() - e.stat().st_mtime < DAY


def test_only_files_known_by_their_sha256_are_cached(v4_paths, tmp_path, monkeypatch):
    """A copy of a known set's file is known by its digest; a file of no known set is not
    hashed, and its session is not cached."""
    import onnx

    cache = tmp_path / "cache"
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(cache))
    det = tmp_path / "det.onnx"
    det.write_bytes(Path(v4_paths["det"]).read_bytes())
    _read(det=str(det), rec=v4_paths["rec"])
    assert len(_entries(cache)) == 2  # det and rec
    m = onnx.load(v4_paths["cls"])
    m.doc_string = "another file"
    other = tmp_path / "cls.onnx"
    onnx.save(m, str(other))
    before = set(_entries(cache))
    _read(det=str(det), cls=str(other), rec=v4_paths["rec"])
    assert set(_entries(cache)) == before


def test_the_cache_keeps_its_bounds(v4_paths, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    d = cache / "ort"
    d.mkdir(parents=True)
    fakes = []
    for i in range(70):  # older and older
        p = d / f"{i:064x}.onnx"
        p.write_bytes(b"x" * 10)
        _age([p], DAY + i * 60)
        fakes.append(p)
    stale, fresh = d / ".tmp-stale1", d / ".tmp-fresh1"
    stale.write_bytes(b"partial")
    fresh.write_bytes(b"partial")
    _age([stale], 2 * 3600)
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(cache))
    _read(models="ppocr-v4-mobile")
    entries = _entries(cache)
    assert len(entries) == 64
    new = [e for e in entries if e not in fakes]
    assert len(new) == 3  # the three just written are kept: the most recently used
    kept = [f for f in fakes if f.exists()]
    assert kept == fakes[: 64 - 3]  # the oldest went first
    assert not stale.exists() and fresh.exists()  # a dead writer's file goes after an hour


def test_verified_bundle_members_are_cached(v4_paths, tmp_path, monkeypatch):
    from edgeocr.pack import pack

    bundle = tmp_path / "v4.eocr"
    pack(str(bundle), det=v4_paths["det"], cls=v4_paths["cls"], rec=v4_paths["rec"])
    cache = tmp_path / "cache"
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(cache))
    monkeypatch.setenv("EDGEOCR_GRAPH_CACHE", "0")
    plain = _read(model=str(bundle))
    monkeypatch.delenv("EDGEOCR_GRAPH_CACHE")
    assert _read(model=str(bundle)) == plain
    entries = _entries(cache)
    assert len(entries) == 3
    _age(entries, 2 * DAY)
    assert _read(model=str(bundle)) == plain
    assert all(time.time() - e.stat().st_mtime < DAY for e in entries)


def test_a_cache_folder_that_cannot_be_used_is_no_error(v4_paths, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(blocker))
    _read(models="ppocr-v4-mobile")
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize("value", ["0"])
def test_graph_cache_dir_is_off_when_asked(value, tmp_path, monkeypatch):
    monkeypatch.setenv("EDGEOCR_GRAPH_CACHE", value)
    assert edgeocr._core.loader.graph_cache_dir() == ""
    monkeypatch.delenv("EDGEOCR_GRAPH_CACHE")
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(tmp_path))
    assert edgeocr._core.loader.graph_cache_dir() == str(tmp_path / "ort")
