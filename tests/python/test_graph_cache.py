"""The on-disk cache of ONNX Runtime's optimised graphs (csrc/loader/graph_cache.h) and the
trust rules of every disk cache (csrc/common/disk_cache.h).

A known set's file and a verified bundle member are known by their sha256; their sessions keep
ONNX Runtime's optimised graph in $EDGEOCR_CACHE_DIR/ort and later load it with graph optimisation
off. These tests check that a later load takes its sessions from the cache (a hit touches its
entry), reads the same lines, scores and boxes, bit for bit, as a load without the cache; that an
entry runs only once verified (damaged, cut, forged, swapped, linked or foreign entries are
refused and made again from the models, with the same lines); that folders which are not the
user's alone are not used; that there is no disk cache without HOME or when turned off; and that
the cache stays within its bounds.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from cache_entries import entry_bytes, split
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


def _child(cache, env=None, **kw):
    """_read(**kw) in a child process under tests/python/limits.py's limits: (lines as JSON,
    stderr). ``cache``: its EDGEOCR_CACHE_DIR (None: unset); ``env``: more of its environment
    (a value None: unset)."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from test_graph_cache import _read; "
        f"print(json.dumps(_read(**{kw!r})))"
    )
    e = dict(os.environ)
    e.pop("EDGEOCR_CACHE_DIR", None)
    if cache is not None:
        e["EDGEOCR_CACHE_DIR"] = str(cache)
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    r = run_limited([sys.executable, "-c", code, str(Path(__file__).parent)], env=e)
    assert r.returncode == 0, r.describe()
    return json.loads(r.stdout.splitlines()[-1]), r.stderr


def _read_limited(cache: Path, **kw) -> list:
    return _child(cache, **kw)[0]


def _entries(cache: Path) -> list[Path]:
    d = cache / "ort"
    return sorted(d.glob("*.entry")) if d.is_dir() else []


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
    # Folders edgeocr makes are the user's only (the digest folder, sha256/, is made only when a
    # digest was not already known in this process: earlier tests may have hashed these files).
    folders = [cache, *(p for p in cache.rglob("*") if p.is_dir())]
    assert cache / "ort" in folders
    for d in folders:
        assert d.stat().st_mode & 0o777 == 0o700, d
    for e in entries:
        assert e.stat().st_mode & 0o777 == 0o600, e
        split(e)  # a record that matches the content

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


def _by_size(entries):
    return sorted(entries, key=lambda e: e.stat().st_size)  # cls < det < rec for PP-OCRv4


def test_planted_entries_are_refused_and_made_again(v4_paths, tmp_path, monkeypatch):
    """Whoever could write the entries does not choose the graph: an entry swapped with another
    model's (the issue's "given as the det model, but it looks like a rec model"), one whose
    graph was replaced under its record, one cut short, a symbolic link to another entry, a file
    not the user's, and a well-formed entry written for another key are each refused, removed
    and made again from the models' own bytes; the lines are those of a load without the cache
    and no error names the user's model files. Read in a child under limits (hostile files)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(cache))
    monkeypatch.setenv("EDGEOCR_GRAPH_CACHE", "0")
    plain = json.loads(json.dumps(_read(models="ppocr-v4-mobile")))
    monkeypatch.delenv("EDGEOCR_GRAPH_CACHE")
    _read(models="ppocr-v4-mobile")
    cls, det, rec = _by_size(_entries(cache))
    graphs = {e: split(e)[0] for e in (cls, det, rec)}

    def check_made_again():
        assert sorted(_entries(cache)) == sorted([cls, det, rec])
        for e in (cls, det, rec):
            assert not e.is_symlink() and e.stat().st_uid == os.geteuid()
            # This model's graph made again (ONNX Runtime's names differ between runs, so
            # the bytes do: the sizes of det, cls and rec tell them apart).
            assert abs(len(split(e)[0]) - len(graphs[e])) < 0.01 * len(graphs[e]), e

    # 1. det and rec swapped; cls's graph replaced by det's under cls's own record.
    d, r = det.read_bytes(), rec.read_bytes()
    det.write_bytes(r)
    rec.write_bytes(d)
    content, _ = split(cls)
    cls.write_bytes(graphs[det] + cls.read_bytes()[len(content) :])
    lines, err = _child(cache, models="ppocr-v4-mobile")
    assert lines == plain and "looks like" not in err and "Traceback" not in err
    check_made_again()

    # 2. det a link to rec's entry; rec cut in half; cls not the user's (as root: owned by
    #    nobody), or, as another user, an entry written for another key (what a file renamed
    #    from another model's entry is).
    det.unlink()
    det.symlink_to(rec)
    rec.write_bytes(rec.read_bytes()[: rec.stat().st_size // 2])
    if os.geteuid() == 0:
        os.chown(cls, 65534, 65534)
    else:
        cls.write_bytes(entry_bytes(b"another key", graphs[det]))
    lines, err = _child(cache, models="ppocr-v4-mobile")
    assert lines == plain and "looks like" not in err
    check_made_again()

    # 3. A well-formed entry for another key under det's name.
    det.write_bytes(entry_bytes(b"edgeocr-ort-graph-v2\nmodel someone else's", graphs[rec]))
    lines, _ = _child(cache, models="ppocr-v4-mobile")
    assert lines == plain
    check_made_again()
    # And now the cache serves its own entries again: every hit touches its entry.
    _age(_entries(cache), 2 * DAY)
    assert json.loads(json.dumps(_read(models="ppocr-v4-mobile"))) == plain
    assert all(time.time() - e.stat().st_mtime < DAY for e in _entries(cache))


def _plant_everywhere(cache: Path) -> list[Path]:
    """A well-formed-looking file in each cache folder, to see whether a load touches it."""
    out = []
    for sub in ("ort", "sha256", "nb"):
        (cache / sub).mkdir(parents=True, exist_ok=True)
        p = cache / sub / ("f" * 64 + ".entry")
        p.write_bytes(b"planted")
        out.append(p)
    return out


@pytest.mark.parametrize("which", ["root", "sub"])
def test_folders_writable_by_others_are_not_used(which, v4_paths, tmp_path):
    """A cache folder writable by group or others is not used (its entries are neither read nor
    written, nor removed) and named once in a one-line warning; the lines are unchanged."""
    cache = tmp_path / "cache"
    planted = _plant_everywhere(cache)
    os.chmod(cache, 0o700)
    bad = cache if which == "root" else cache / "ort"
    os.chmod(bad, 0o775)
    want = _read_limited(tmp_path / "clean", models="ppocr-v4-mobile")
    lines, err = _child(cache, models="ppocr-v4-mobile")
    assert lines == want
    warnings = [ln for ln in err.splitlines() if "not using the cache folder" in ln]
    assert len(warnings) == 1 and str(bad) in warnings[0] and "0775" in warnings[0], err
    assert all(p.read_bytes() == b"planted" for p in planted)
    assert list((cache / "ort").iterdir()) == [planted[0]]  # nothing written there
    if which == "sub":  # the other folders are the user's: the digest cache was used
        assert len(list((cache / "sha256").glob("*.entry"))) > 1


def test_folders_not_the_users_or_linked_are_not_used(v4_paths, tmp_path):
    cache = tmp_path / "cache"
    planted = _plant_everywhere(cache)
    os.chmod(cache, 0o700)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    planted[0].unlink()
    (cache / "ort").rmdir()
    (cache / "ort").symlink_to(elsewhere)  # a subfolder that is a link
    if os.geteuid() == 0:
        os.chown(cache / "sha256", 65534, 65534)
    else:
        pytest.skip("chown to another user needs root")
    want = _read_limited(tmp_path / "clean", models="ppocr-v4-mobile")
    lines, err = _child(cache, models="ppocr-v4-mobile")
    assert lines == want
    assert "symbolic link" in err and "not by this user" in err, err
    assert list(elsewhere.iterdir()) == []
    assert planted[1].read_bytes() == b"planted"
    assert list((cache / "sha256").iterdir()) == [planted[1]]


def test_no_disk_cache_without_home_or_when_turned_off(v4_paths, tmp_path, monkeypatch):
    """No HOME and no EDGEOCR_CACHE_DIR: no disk cache (never a shared /tmp folder);
    EDGEOCR_CACHE_DIR=off, or disk_cache=False for one Predictor: none either."""
    code = (
        "import json; from edgeocr import _core; l = _core.loader; "
        "print(json.dumps([l.cache_root(), l.cache_folder('ort'), l.graph_cache_dir(), "
        "_core.nb_default_cache_dir()]))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "EDGEOCR_CACHE_DIR")}
    for extra in ({}, {"EDGEOCR_CACHE_DIR": "off", "HOME": str(tmp_path / "home")}):
        r = run_limited([sys.executable, "-c", code], env={**env, **extra}, cwd=str(tmp_path))
        assert r.returncode == 0, r.describe()
        assert json.loads(r.stdout) == ["", "", "", ""], extra
    # A Predictor still loads and reads without HOME, and writes nothing where it runs.
    lines, err = _child(None, env={"HOME": None}, models="ppocr-v4-mobile")
    assert lines and "cache" not in err
    assert not (tmp_path / "home").exists()
    # EDGEOCR_CACHE_DIR names a folder, but this Predictor keeps off the disk caches.
    cache = tmp_path / "cache"
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(cache))
    assert _read(models="ppocr-v4-mobile", disk_cache=False) == _read(models="ppocr-v4-mobile")
    assert len(_entries(cache)) == 3  # the second Predictor's
    for e in cache.rglob("*.entry"):
        e.unlink()
    _read(models="ppocr-v4-mobile", disk_cache=False)
    assert list(cache.rglob("*.entry")) == []
    with pytest.raises(edgeocr.InvalidInputError, match="disk_cache must be True or False"):
        edgeocr.Predictor(models="ppocr-v4-mobile", disk_cache="no")


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
        p = d / f"{i:064x}.entry"
        p.write_bytes(b"x" * 10)
        _age([p], DAY + i * 60)
        fakes.append(p)
    stale, fresh = d / ".tmp-stale1", d / ".tmp-fresh1"
    stale.write_bytes(b"partial")
    fresh.write_bytes(b"partial")
    _age([stale], 2 * 3600)
    legacy, other = d / f"{0:064x}.onnx", d / "README"  # an older format's entry; not ours
    legacy.write_bytes(b"x")
    other.write_text("a file someone keeps here")
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", str(cache))
    _read(models="ppocr-v4-mobile")
    entries = _entries(cache)
    assert len(entries) == 64
    new = [e for e in entries if e not in fakes]
    assert len(new) == 3  # the three just written are kept: the most recently used
    kept = [f for f in fakes if f.exists()]
    assert kept == fakes[: 64 - 3]  # the oldest went first
    assert not stale.exists() and fresh.exists()  # a dead writer's file goes after an hour
    assert not legacy.exists() and other.exists()


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
    monkeypatch.setenv("EDGEOCR_CACHE_DIR", "off")
    assert edgeocr._core.loader.graph_cache_dir() == ""
