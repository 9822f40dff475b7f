"""Hostile corpus (issue 13): generated models and image bombs.

Every case runs in a child process (tests/python/limits.py) under an
address-space limit, a CPU-time limit of 15 s and a wall-clock timeout, and
must end in a result or an edgeocr.EdgeOCRError within 1.2 GB peak RSS. The
child is this file run as a script: ``python test_hostile.py predict SPEC``.

Images: tests/python/hostile_images.py (a bomb of each format, containers
whose frames are bombs, decoders that need more memory than the cap allows),
an encoded file larger than any image under the cap can be, and zero-stride
arrays of 60000 x 60000; through the Python Predictor.

Models: tests/python/hostile_models.py (det, cls and rec models whose
outputs have wrong, empty, too small or huge shapes, or whose fixed input
sizes are absurd; layout and table models of the wrong output count, rank,
type or class count, with bad labels, NaN / inf outputs, every cell firing,
outputs fitting no stride or huge at run time), through the Python Predictor
(predict, or parse for the document models) and through the C API
(examples/c/ocr_demo.c compiled against the installed libedgeocr; --markdown
for the document models).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DATA = REPO / "tests" / "data"
PAGE = DATA / "sample_en.png"  # several lines: cls and rec get batches of more than one crop
C_PAGE = REPO / "tests" / "c" / "data" / "sample.ppm"


# ---------------------------------------------------------------------------
# The child: one case, its outcome as one JSON line on stdout.


def _child(spec: dict) -> int:
    import edgeocr

    out = {"outcome": None}
    try:
        p = edgeocr.Predictor(
            det=spec.get("det"),
            cls=spec.get("cls"),
            rec=spec.get("rec"),
            keys=spec.get("keys"),
            layout=spec.get("layout"),
            table=spec.get("table"),
            threads=1,
            **spec.get("settings", {}),
        )
        if spec.get("parse"):
            d = p.parse(spec["image"])
            md = d.to_markdown()
            out.update(outcome="result", lines=len(d.lines), regions=len(d.regions), md=len(md))
        elif spec.get("array") is not None:
            import numpy as np

            # Views that claim 60000 x 60000 pixels and hold one: a copy would take GBs.
            dtype, channels = spec["array"]
            shape = (60000, 60000) + ((channels,) if channels else ())
            view = np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape, (0,) * len(shape))
            r = p.predict(view)
            out.update(outcome="result", lines=len(r.lines))
        elif spec.get("image") is not None:
            r = p.predict(spec["image"])
            out.update(outcome="result", lines=len(r.lines))
        else:
            out.update(outcome="result", lines=0)
    except edgeocr.EdgeOCRError as e:
        out.update(outcome="error", type=type(e).__name__, message=str(e))
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "predict":
    sys.exit(_child(json.loads(sys.argv[2])))


# ---------------------------------------------------------------------------
# The tests.

import pytest  # noqa: E402

sys.path.insert(0, str(HERE))
import hostile_images  # noqa: E402
import hostile_models  # noqa: E402
from conftest import document_models  # noqa: E402
from limits import CPU_SECONDS, PEAK_RSS_MB, run_limited  # noqa: E402

pytest.importorskip("onnx")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile_models")


def _real_layout():
    return document_models("layout")["layout"]


def _spec(case, path, v4_paths, keys_file=None):
    role = hostile_models.CASES[case][0]
    spec = {"image": str(PAGE)}
    if role in ("layout", "table"):
        spec.update(det=v4_paths["det"], cls=v4_paths["cls"], rec=v4_paths["rec"], parse=True)
        if role == "layout":
            spec["layout"] = path
        else:
            spec.update(layout=_real_layout(), table=path)
    elif role == "det":
        spec["det"] = path
    elif role == "cls":
        spec.update(det=v4_paths["det"], cls=path, rec=v4_paths["rec"])
    else:
        spec.update(det=v4_paths["det"], cls=v4_paths["cls"], rec=path, keys=hostile_models.KEYS)
    return spec


def _check_bounds(o, what):
    assert not o.timed_out and o.returncode >= 0, f"{what}: crashed or hung\n{o.describe()}"
    assert o.peak_rss_mb <= PEAK_RSS_MB, (
        f"{what}: peak RSS {o.peak_rss_mb:.0f} MiB > {PEAK_RSS_MB}\n{o.describe()}"
    )
    assert o.cpu_seconds <= CPU_SECONDS, o.describe()


@pytest.mark.parametrize("case", sorted(hostile_models.CASES))
def test_hostile_model_through_predictor(case, model_dir, v4_paths):
    role, _, expected = hostile_models.CASES[case]
    path = hostile_models.build(case, model_dir)
    o = run_limited(
        [sys.executable, str(Path(__file__)), "predict", json.dumps(_spec(case, path, v4_paths))]
    )
    _check_bounds(o, case)
    assert o.returncode == 0, f"{case}: not an EdgeOCRError\n{o.describe()}"
    got = json.loads(o.stdout.strip().splitlines()[-1])
    if expected == "result":
        assert got["outcome"] == "result", got
        if role == "layout":
            # Bounded whatever the model says: at most layout_max_regions (300) from the layout
            # model, plus regions made for stray lines.
            assert got["regions"] <= 300 + got["lines"], got
            assert got["regions"] >= hostile_models.MIN_REGIONS.get(case, 0), got
    elif expected == "bounded":
        assert got["outcome"] in ("result", "error"), got
    elif expected == "ModelError":
        assert got["outcome"] == "error" and got["type"] == "ModelError", got
        # The message names the model file (and, for outputs, the output and its shape).
        assert case in got["message"], got
    else:
        assert got["outcome"] == "error", got


# ocr_demo: the C example built against the installed libedgeocr (conftest.py).


@pytest.mark.parametrize("case", sorted(hostile_models.CASES))
def test_hostile_model_through_c_api(case, model_dir, v4_paths, ocr_demo, tmp_path):
    import edgeocr

    role, _, expected = hostile_models.CASES[case]
    path = hostile_models.build(case, model_dir)
    models = {"det": v4_paths["det"], "cls": v4_paths["cls"], "rec": v4_paths["rec"]}
    if role == "table":
        models["layout"] = _real_layout()
    models[role] = path
    if role == "rec":
        keys = tmp_path / "keys.txt"
        keys.write_text("\n".join(hostile_models.KEYS) + "\n")
        extra = ["--keys", str(keys)]
    else:
        extra = []
    if role == "det":
        models = {"det": path}
    args = [str(ocr_demo), "--threads", "1"]
    for r, p in models.items():
        args += [f"--{r}", p]
    env = dict(os.environ, EDGEOCR_ORT_LIBRARY=edgeocr.runtime_info()["library_path"])
    for v in ("EDGEOCR_DET_MODEL", "EDGEOCR_CLS_MODEL", "EDGEOCR_REC_MODEL"):
        env.pop(v, None)
    if role in ("layout", "table"):
        extra.append("--markdown")  # edgeocr_predictor_parse
    o = run_limited([*args, *extra, str(C_PAGE)], env=env)
    _check_bounds(o, case)
    if expected == "bounded":
        assert o.returncode in (0, 1), o.describe()
        return
    if expected == "result":
        assert o.returncode == 0, o.describe()
        return
    assert o.returncode == 1, f"{case}: expected a failing status\n{o.describe()}"
    if expected == "ModelError":
        assert "INVALID_MODEL" in o.stderr and case in o.stderr, o.describe()


def _image_outcome(spec, v4_paths, what):
    spec = dict(spec, det=v4_paths["det"], cls=v4_paths["cls"], rec=v4_paths["rec"])
    o = run_limited([sys.executable, str(Path(__file__)), "predict", json.dumps(spec)])
    _check_bounds(o, what)
    assert o.returncode == 0, f"{what}: not an EdgeOCRError\n{o.describe()}"
    return json.loads(o.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", sorted(hostile_images.CASES))
def test_image_bomb(case, tmp_path, v4_paths):
    maker, expected = hostile_images.CASES[case]
    path = tmp_path / case
    path.write_bytes(maker())
    got = _image_outcome({"image": str(path)}, v4_paths, case)
    if expected == "result":
        assert got["outcome"] == "result", got
    elif expected == "refused":
        assert got["outcome"] == "error" and got["type"] == "InvalidInputError", got
        assert "more than" in got["message"], got
    else:
        assert got["outcome"] in ("result", "error"), got


# Hostile pages for document parsing (Predictor.parse and edgeocr_predictor_parse_encoded, with
# the real layout and table models): name -> (page maker, rec model used, expected).


def _page(size, draw=None):
    def make(path):
        from PIL import Image, ImageDraw

        img = Image.new("L", size, 255)
        if draw:
            draw(ImageDraw.Draw(img), size)
        img.save(path)

    return make


def _ruled(d, size):
    w, h = size
    for y in range(0, h, 24):
        d.line([(0, y), (w - 1, y)], fill=0, width=2)
    for x in range(0, w, 60):
        d.line([(x, 0), (x, h - 1)], fill=0, width=2)


def _scattered_words(d, size):
    from PIL import ImageFont

    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 18)
    for y in range(40, size[1] - 40, 70):
        for x in range(40, size[0] - 60, 90):
            d.text((x, y), "42", font=font, fill=0)


PAGE_CASES = {
    "empty_page": (_page((1240, 1754)), True, "empty"),
    "one_pixel": (_page((1, 1)), True, "result"),
    "all_table_lines": (_page((1240, 1754), _ruled), True, "result"),
    # 1323 words on an A4 page at 300 dpi: det_max_candidates (1000) lines, read by det only (a
    # thousand recognitions are an honest page's cost, not a hostile one's).
    "thousands_of_words": (_page((2480, 3508), _scattered_words), False, "result"),
    "huge_page": (_page((9000, 9000)), True, "empty"),
    "over_the_pixel_cap": (_page((12000, 12000)), True, "refused"),
}


def _page_spec(case, tmp_path, v4_paths):
    maker, with_rec, _ = PAGE_CASES[case]
    paths = document_models("layout", "table")
    image = tmp_path / f"{case}.png"
    maker(image)
    spec = {"det": v4_paths["det"], "cls": v4_paths["cls"], "parse": True, "image": str(image)}
    spec.update(layout=paths["layout"], table=paths["table"])
    if with_rec:
        spec["rec"] = v4_paths["rec"]
    return spec


@pytest.mark.parametrize("case", sorted(PAGE_CASES))
def test_hostile_page_through_parse(case, tmp_path, v4_paths):
    expected = PAGE_CASES[case][2]
    spec = _page_spec(case, tmp_path, v4_paths)
    o = run_limited([sys.executable, str(Path(__file__)), "predict", json.dumps(spec)])
    _check_bounds(o, case)
    assert o.returncode == 0, f"{case}: not an EdgeOCRError\n{o.describe()}"
    got = json.loads(o.stdout.strip().splitlines()[-1])
    if expected == "refused":
        assert got["outcome"] == "error" and got["type"] == "InvalidInputError", got
        assert "more than" in got["message"], got
        return
    assert got["outcome"] == "result", got
    assert got["regions"] <= 300 + got["lines"] and got["lines"] <= 1000, got
    if expected == "empty":  # nothing on the page: no lines, no text, and no made-up regions
        assert got["lines"] == 0 and got["md"] == 0, got


@pytest.mark.parametrize("case", sorted(PAGE_CASES))
def test_hostile_page_through_c_api(case, tmp_path, v4_paths, ocr_demo):
    import edgeocr

    expected = PAGE_CASES[case][2]
    spec = _page_spec(case, tmp_path, v4_paths)
    args = [str(ocr_demo), "--threads", "1", "--markdown"]
    for r in ("det", "cls", "rec", "layout", "table"):
        if r in spec:
            args += [f"--{r}", spec[r]]
    env = dict(os.environ, EDGEOCR_ORT_LIBRARY=edgeocr.runtime_info()["library_path"])
    for v in ("EDGEOCR_DET_MODEL", "EDGEOCR_CLS_MODEL", "EDGEOCR_REC_MODEL"):
        env.pop(v, None)
    o = run_limited([*args, spec["image"]], env=env)
    _check_bounds(o, case)
    if expected == "refused":
        assert o.returncode == 1 and "INVALID_ARGUMENT" in o.stderr, o.describe()
        assert "max_pixels" in o.stderr, o.describe()
        return
    assert o.returncode == 0, o.describe()
    if expected == "empty":
        assert o.stdout == "", o.describe()


def test_file_larger_than_any_image_under_the_cap_is_not_read(tmp_path, v4_paths):
    path = tmp_path / "sparse.bmp"
    with open(path, "wb") as f:
        f.write(b"BM")
        f.truncate(600 << 20)  # sparse: takes no disk
    got = _image_outcome({"image": str(path)}, v4_paths, "600 MiB file")
    assert got["outcome"] == "error" and got["type"] == "InvalidInputError", got
    assert "MiB file is more than" in got["message"], got


@pytest.mark.parametrize("array", [("uint8", 0), ("uint8", 3), ("uint16", 0), ("int32", 4)])
def test_zero_stride_array_above_the_cap_is_refused_before_any_copy(array, v4_paths):
    got = _image_outcome({"array": list(array)}, v4_paths, f"zero-stride {array}")
    assert got["outcome"] == "error" and got["type"] == "InvalidInputError", got
    assert "60000x60000 pixels is more than the limit" in got["message"], got


# Paths that are not files: /dev/zero never ends (read whole, it would take all memory), a pipe
# blocks until a writer comes. Refused before anything is read, with and without a memory budget
# (a budgeted call reads the header first).


def _not_a_file(kind, tmp_path, name):
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.symlink("/dev/zero", path)
    return str(path)


@pytest.mark.parametrize("budget", [None, 256])
@pytest.mark.parametrize("kind", ["dev_zero", "fifo"])
def test_image_path_that_is_not_a_file_is_refused_unread(kind, budget, tmp_path, v4_paths):
    spec = {"image": _not_a_file(kind, tmp_path, "page.png")}
    if budget:
        spec["settings"] = {"max_memory_mb": budget}
    got = _image_outcome(spec, v4_paths, f"{kind} as an image")
    assert got["outcome"] == "error" and got["type"] == "InvalidInputError", got
    assert "not a regular file" in got["message"], got


def _snippet_outcome(code: str, what: str) -> dict:
    """Runs `code` (which sets `out`) in a limited child; returns its outcome as _child does."""
    wrapper = (
        "import json, edgeocr\n"
        "try:\n" + "".join(f"    {line}\n" for line in code.strip().splitlines()) + "    "
        "out = {'outcome': 'result'}\n"
        "except edgeocr.EdgeOCRError as e:\n"
        "    out = {'outcome': 'error', 'type': type(e).__name__, 'message': str(e)}\n"
        "print(json.dumps(out))\n"
    )
    o = run_limited([sys.executable, "-c", wrapper])
    _check_bounds(o, what)
    assert o.returncode == 0, f"{what}: not an EdgeOCRError\n{o.describe()}"
    return json.loads(o.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["dev_zero", "fifo"])
def test_model_path_that_is_not_a_file_is_refused_unread(kind, tmp_path, v4_paths):
    # .nb files: read by edgeocr.Model itself, mapped by the C++ loader for a Predictor (which
    # opened a pipe and waited for a writer); .onnx files: read by the runtime.
    for name in ("model.nb", "model.onnx"):
        path = _not_a_file(kind, tmp_path, f"{kind}_{name}")
        got = _snippet_outcome(f"edgeocr.Model({path!r})", f"{kind} as {name}")
        assert got["outcome"] == "error" and got["type"] == "ModelError", got
        assert "not a regular file" in got["message"], got
        got = _snippet_outcome(f"edgeocr.Predictor({path!r})", f"{kind} as {name}")
        assert got["outcome"] == "error" and got["type"] == "ModelError", got
    keys = _not_a_file(kind, tmp_path, "keys.txt")
    call = f"edgeocr.Predictor(det={v4_paths['det']!r}, rec={v4_paths['rec']!r}, keys={keys!r})"
    got = _snippet_outcome(call, f"{kind} as the keys file")
    assert got["outcome"] == "error" and got["type"] == "ModelError", got
    assert "not a regular file" in got["message"], got


# Buffers the core reads as bytes (model data, .nb data, bundles): a reversed or strided view's
# pointer is not where its bytes start, so only contiguous buffers are taken.
_VIEWS = {
    "reversed": "memoryview(np.frombuffer(data, np.uint8)[::-1])",
    "every_second": "memoryview(np.frombuffer(data * 2, np.uint8)[::2])",
    "rows_cut": "memoryview(np.frombuffer(data[: len(data) // 64 * 64], np.uint8)"
    ".reshape(-1, 64)[:, :32])",
}


@pytest.mark.parametrize("view", sorted(_VIEWS))
@pytest.mark.parametrize(
    "call",
    [
        "edgeocr.Model(data=VIEW)",
        "edgeocr.Predictor(VIEW, task='det')",
        "edgeocr._core.nb_to_onnx(VIEW)",
        "edgeocr._core.loader.Bundle.from_buffer(VIEW)",
    ],
)
def test_non_contiguous_buffer_is_refused(call, view, v4_paths):
    code = f"import numpy as np\ndata = open({v4_paths['det']!r}, 'rb').read()\n" + call.replace(
        "VIEW", _VIEWS[view]
    )
    got = _snippet_outcome(code, f"{call} on a {view} view")
    assert got["outcome"] == "error" and got["type"] == "InvalidInputError", got
    assert "not contiguous" in got["message"], got
