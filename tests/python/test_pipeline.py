"""The OCR pipeline end to end: Predictor, inputs, results, threads, bad input."""

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import edgeocr
from edgeocr import InvalidInputError, ModelError, ModelNotFoundError
from edgeocr.evaluate import normalize_text, polygon_iou

DATA = Path(__file__).resolve().parents[1] / "data"
EXPECTED = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))


def texts(result):
    return [normalize_text(line.text) for line in result.lines]


def expected(name):
    return [normalize_text(t) for t in EXPECTED[name]["lines"]]


@pytest.mark.parametrize("name", ["sample_en.png", "sample_en_skew6.png", "sample_en_gray.png"])
def test_reads_rendered_text_in_reading_order(predictor, name):
    r = predictor.predict(DATA / name)
    assert texts(r) == expected(name)
    for line in r.lines:
        assert line.box.shape == (4, 2) and line.box.dtype == np.float32
        assert 0.8 < line.score <= 1.0
        assert not line.flipped
    assert set(r.timings) >= {"det", "cls", "rec", "total"}
    assert r.timings["total"] >= r.timings["det"] + r.timings["rec"]


def test_boxes_match_the_rendered_text(predictor):
    r = predictor.predict(DATA / "sample_en.png")
    for line, gt in zip(r.lines, EXPECTED["sample_en.png"]["boxes"]):
        assert polygon_iou(line.box, np.array(gt, np.float32)) > 0.5
        # clockwise from top-left
        tl, tr, br, bl = line.box
        assert tl[0] < tr[0] and bl[0] < br[0] and tl[1] < bl[1] and tr[1] < br[1]


def test_upside_down_page_is_flipped_and_ordered_as_read(predictor):
    r = predictor.predict(DATA / "sample_en_rot180.png")
    assert texts(r) == expected("sample_en_rot180.png")
    assert all(line.flipped for line in r.lines)


def test_lines_carry_the_turn_they_were_read_with(predictor, v4_paths):
    """OcrLine.turns is the pipeline's own turn of the crop: the page turned by k quarter turns
    clockwise reads the same lines with turns k (1: vertical, read turned; 2, 3: flipped too),
    and a tall box is turned or not as the rotate_ratio it was read with says."""
    import cv2

    img = cv2.imread(str(DATA / "sample_en.png"))
    turned_pages = [
        img,
        cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE),
        cv2.rotate(img, cv2.ROTATE_180),
        cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE),
    ]
    want = sorted(expected("sample_en.png"))
    for k, page in enumerate(turned_pages):
        r = predictor.predict(page)
        assert sorted(texts(r)) == want, k
        for line in r.lines:
            assert line.turns == k and line.flipped == (k >= 2), (k, line)
            assert line.to_dict()["turns"] == k
            # the box's corners from `turns` on are the text's: its top edge is its longest
            tl, tr, br, bl = np.roll(line.box, -line.turns, axis=0)
            assert np.hypot(*(tr - tl)) > 3 * np.hypot(*(bl - tl))
    from doc_fixtures import squeezed_digit

    tall = squeezed_digit()
    assert [ln.turns for ln in predictor.predict(tall).lines] == [1]
    upright = edgeocr.Predictor(models="ppocr-v4-mobile", threads=1, rotate_ratio=5.0)
    assert [(ln.text, ln.turns) for ln in upright.predict(tall).lines] == [("8", 0)]
    # rec only: the classifier's flip of the one line
    line = predictor.recognize(cv2.rotate(cv2.imread(str(DATA / "line_en.png")), cv2.ROTATE_180))
    assert line.flipped and line.turns == 2


def test_without_cls_upside_down_text_is_not_read(v4_paths):
    p = edgeocr.Predictor(models="ppocr-v4-mobile", use_cls=False, threads=2)
    r = p.predict(DATA / "sample_en_rot180.png")
    assert texts(r) != expected("sample_en_rot180.png")


def test_every_input_kind_gives_the_same_answer(predictor):
    import cv2
    from PIL import Image

    path = DATA / "sample_en.png"
    bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
    want = texts(predictor.predict(path))
    variants = {
        "str": str(path),
        "bytes": path.read_bytes(),
        "bgr": bgr,
        "pil": Image.open(path),
        "bgra": cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA),
        "uint16": bgr.astype(np.uint16) * 257,
        "strided": np.ascontiguousarray(np.pad(bgr, ((0, 0), (0, 8), (0, 0)), constant_values=255))[
            :, : bgr.shape[1]
        ],
        "negative-stride": np.ascontiguousarray(bgr[::-1])[::-1],
        "gray-hw1": cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)[:, :, None],
    }
    for name, img in variants.items():
        assert texts(predictor.predict(img)) == want, name


def test_rgba_png_with_transparency_is_read(predictor, tmp_path):
    from PIL import Image

    im = Image.open(DATA / "sample_en.png").convert("RGBA")
    p = tmp_path / "rgba.png"
    im.save(p)
    assert texts(predictor.predict(p)) == expected("sample_en.png")


def test_predict_batch_and_iter_match_predict(predictor):
    names = ["sample_en.png", "sample_en_rot180.png", "line_en.png"]
    single = [texts(predictor.predict(DATA / n)) for n in names]
    batch = [texts(r) for r in predictor.predict_batch([DATA / n for n in names])]
    streamed = [texts(r) for r in predictor.predict_iter(DATA / n for n in names)]
    assert batch == single == streamed


def test_throughput_mode_gives_the_same_results_in_order(predictor):
    names = ["sample_en.png", "sample_en_rot180.png", "line_en.png", "sample_en_skew6.png"] * 2
    want = [(texts(r), r.boxes.tolist()) for r in map(predictor.predict, (DATA / n for n in names))]
    for workers in (1, 2, 3):
        got = [
            (texts(r), r.boxes.tolist())
            for r in predictor.predict_batch([DATA / n for n in names], workers=workers)
        ]
        assert got == want
        got = [
            (texts(r), r.boxes.tolist())
            for r in predictor.predict_iter((DATA / n for n in names), workers=workers)
        ]
        assert got == want


def test_predict_batch_from_several_threads_at_once(predictor):
    names = ["sample_en.png", "line_en.png", "sample_en_rot180.png"]
    want = [texts(predictor.predict(DATA / n)) for n in names]
    got, errors = {}, []

    def call(k):
        try:
            got[k] = [
                texts(r)
                for r in predictor.predict_batch([DATA / n for n in names], workers=1 + k % 2)
            ]
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert errors == [] and all(got[k] == want for k in range(4))


def test_predict_iter_reads_ahead_a_bounded_number_of_images(predictor):
    pulled = []

    def images():
        for i in range(50):
            pulled.append(i)
            yield DATA / "line_en.png"

    it = predictor.predict_iter(images(), workers=2)
    next(it)
    assert len(pulled) <= 2 * 2 + 1  # the window, not the whole stream
    it.close()  # stopping early neither hangs nor runs the rest
    assert len(pulled) <= 2 * 2 + 1


def test_a_bad_image_in_a_stream_raises_at_its_place(predictor):
    stream = [DATA / "line_en.png", b"not an image", DATA / "line_en.png"]
    it = predictor.predict_iter(stream, workers=2)
    assert texts(next(it)) == texts(predictor.predict(DATA / "line_en.png"))
    with pytest.raises(InvalidInputError):
        next(it)
    with pytest.raises(InvalidInputError):
        predictor.predict_batch(stream)
    assert predictor.predict_batch([]) == []


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_workers_must_be_a_positive_integer(predictor, v4_paths, workers):
    with pytest.raises(InvalidInputError, match="workers"):
        predictor.predict_batch([DATA / "line_en.png"], workers=workers)
    with pytest.raises(InvalidInputError, match="workers"):
        edgeocr.Predictor(rec=v4_paths["rec"], workers=workers)


def test_one_predictor_shared_by_8_threads(predictor):
    names = ["sample_en.png", "sample_en_rot180.png", "sample_en_skew6.png", "line_en.png"]
    images = [str(DATA / n) for n in names]
    want = {n: (texts(r), r.boxes.tolist()) for n, r in zip(images, map(predictor.predict, images))}
    errors = []

    def work(k):
        try:
            for i in range(6):
                img = images[(k + i) % len(images)]
                r = predictor.predict(img)
                if (texts(r), r.boxes.tolist()) != want[img]:
                    errors.append((k, img))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_steady_state_reuses_pooled_memory(predictor):
    path = DATA / "sample_en.png"
    predictor.predict(path)
    before = predictor.memory_stats()
    for _ in range(3):
        predictor.predict(path)
    after = predictor.memory_stats()
    assert after["misses"] == before["misses"]
    assert after["hits"] > before["hits"]
    assert after["in_use_bytes"] == 0


def test_results_serialise_and_draw(predictor):
    r = predictor.predict(DATA / "sample_en.png")
    d = json.loads(r.to_json())
    assert [normalize_text(x["text"]) for x in d["lines"]] == expected("sample_en.png")
    assert d["image_size"] == [r.image_size[0], r.image_size[1]]
    assert len(d["lines"][0]["box"]) == 4
    img = r.draw()
    assert img.shape[:2] == (r.image_size[1], r.image_size[0])
    assert (img != 255).any()
    assert "lines" in repr(r) and r.text.count("\n") == len(r.lines) - 1
    assert r.boxes.shape == (len(r.lines), 4, 2)


def test_recognition_only(predictor):
    line = predictor.recognize(DATA / "line_en.png")
    assert normalize_text(line.text) == expected("line_en.png")[0]
    rec_only = edgeocr.Predictor(predictor.paths["rec"])
    r = rec_only.predict(DATA / "line_en.png")
    assert texts(r) == expected("line_en.png")


def test_detection_only(predictor):
    det_only = edgeocr.Predictor(predictor.paths["det"], threads=2)
    r = det_only.predict(DATA / "sample_en.png")
    assert len(r.lines) == 4 and all(line.text == "" for line in r.lines)


def test_folder_of_models_and_explicit_paths(v4_paths, tmp_path):
    import shutil

    for role in ("det", "cls", "rec"):
        shutil.copy(v4_paths[role], tmp_path / f"my_{role}.onnx")
    p = edgeocr.Predictor(tmp_path, threads=2)
    assert texts(p.predict(DATA / "sample_en.png")) == expected("sample_en.png")
    p2 = edgeocr.Predictor(det=v4_paths["det"], rec=v4_paths["rec"], threads=2)
    assert texts(p2.predict(DATA / "sample_en.png")) == expected("sample_en.png")


def test_dictionary_from_keys_when_metadata_is_missing(v4_paths, tmp_path):
    onnx = pytest.importorskip("onnx")
    m = onnx.load(v4_paths["rec"])
    chars = next(p.value for p in m.metadata_props if p.key == "character").splitlines()
    del m.metadata_props[:]
    bare = tmp_path / "rec_nometa.onnx"
    onnx.save(m, bare)
    with pytest.raises(ModelError, match="no dictionary.*keys="):
        edgeocr.Predictor(det=v4_paths["det"], rec=bare)
    keys = tmp_path / "keys.txt"
    keys.write_text("\n".join(chars) + "\n", encoding="utf-8")
    p = edgeocr.Predictor(det=v4_paths["det"], rec=bare, keys=keys, threads=2)
    assert texts(p.predict(DATA / "sample_en.png")) == expected("sample_en.png")
    with pytest.raises(ModelError, match="6625 classes but the keys given has 10 characters"):
        edgeocr.Predictor(det=v4_paths["det"], rec=bare, keys=list("0123456789"))


def test_config_defaults_agree_with_the_core():
    from edgeocr import _core

    py = edgeocr.PipelineConfig().to_core()
    core = _core.default_config()
    assert set(py) == set(core)
    for k in py:
        assert py[k] == pytest.approx(core[k]), k


def test_settings_are_checked(v4_paths):
    with pytest.raises(InvalidInputError, match="unknown pipeline setting"):
        edgeocr.Predictor(models="ppocr-v4-mobile", det_treshold=0.3)
    with pytest.raises(InvalidInputError, match="det_limit_type"):
        edgeocr.Predictor(models="ppocr-v4-mobile", det_limit_type="medium")
    with pytest.raises(InvalidInputError, match="thresh"):
        edgeocr.Predictor(models="ppocr-v4-mobile", det_thresh=1.5)
    with pytest.raises(ModelNotFoundError, match="unknown model set"):
        edgeocr.Predictor(models="ppocr-v99")
    with pytest.raises(ModelError, match="given as the det model"):
        edgeocr.Predictor(det=v4_paths["rec"], rec=v4_paths["rec"])


def test_settings_change_the_result(v4_paths):
    strict = edgeocr.Predictor(models="ppocr-v4-mobile", drop_score=0.999, threads=2)
    assert len(strict.predict(DATA / "sample_en.png").lines) < 4


def test_small_image_is_not_enlarged_past_det_max_upscale(v4_paths):
    # sample_en.png is 720 x 268: det_limit_side_len 736 ('min') alone would read it at 1984 x 736.
    for cap, size in ((1.0, (704, 256)), (2.0, (1440, 544)), (1000.0, (1984, 736))):
        p = edgeocr.Predictor(
            models="ppocr-v4-mobile", threads=2, det_max_upscale=cap, max_memory_mb=4096
        )
        plan = p.plan(720, 268)
        assert plan["det_size"] == size and not plan["det_scaled"] and not plan["det_tiles"]
        r = p.predict(DATA / "sample_en.png")
        assert texts(r) == expected("sample_en.png")
        for line, gt in zip(r.lines, EXPECTED["sample_en.png"]["boxes"]):
            assert polygon_iou(line.box, np.array(gt, np.float32)) > 0.5


def test_rec_pad_to_line_reads_a_line_the_same_in_any_batch(v4_paths):
    # 'line': a line is padded to its own width bucket only, so how many lines share a run (and
    # which) cannot change what it reads; 'batch' pads it to the widest of its batch.
    def read(**kw):
        p = edgeocr.Predictor(models="ppocr-v4-mobile", threads=2, **kw)
        return [(ln.text, ln.score) for ln in p.predict(DATA / "sample_en.png").lines]

    # pytest.approx compares flat sequences only (pytest 9 refuses nested ones): texts exactly,
    # scores approximately.
    alone = read(rec_pad_to="line", rec_batch=1)
    batched = read(rec_pad_to="line", rec_batch=6)
    assert [t for t, _ in batched] == [t for t, _ in alone]
    assert [s for _, s in batched] == pytest.approx([s for _, s in alone], rel=1e-5)
    assert [t for t, _ in alone] == [t for t, _ in read(rec_pad_to="batch", rec_batch=1)]
    # The page's four lines fall in different buckets: padded to the widest, some score differently.
    batch = read(rec_pad_to="batch", rec_batch=6)
    assert [s for _, s in batch] != pytest.approx([s for _, s in alone], rel=1e-5)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda d: d / "missing.png", "not found"),
        (lambda d: _write(d / "empty.png", b""), "empty"),
        (
            lambda d: _write(d / "trunc.png", (DATA / "sample_en.png").read_bytes()[:300]),
            "not a readable image",
        ),
        (
            lambda d: _write(d / "text.jpg", b"hello, I am not a picture\n" * 20),
            "not a readable image",
        ),
        (lambda d: d, "directory"),
        (lambda d: np.zeros((0, 10, 3), np.uint8), "empty"),
        (lambda d: np.zeros((2, 10, 10, 3), np.uint8), "4 dimensions"),
        (lambda d: np.zeros((10, 10, 5), np.uint8), "channels"),
        (lambda d: np.full((10, 10, 3), np.nan, np.float32), "float32 is not supported"),
        (lambda d: np.zeros((10, 10), bool), "bool is not supported"),
        (lambda d: 42, "cannot read an image from int"),
    ],
)
def test_bad_inputs_raise_invalid_input(predictor, tmp_path, make, match):
    with pytest.raises(InvalidInputError, match=match):
        predictor.predict(make(tmp_path))


def test_huge_header_is_refused_before_decoding(predictor, tmp_path):
    import struct
    import zlib

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    png = b"\x89PNG\r\n\x1a\n" + chunk(
        b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
    )
    png += chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + chunk(b"IEND", b"")
    p = _write(tmp_path / "huge.png", png)
    with pytest.raises(InvalidInputError, match="100000x100000 pixels is more than the limit"):
        predictor.predict(p)


@pytest.mark.parametrize("shape", [(1, 1, 3), (1, 3000, 3), (3000, 1, 3), (1, 1)])
def test_degenerate_sizes_give_an_empty_result(predictor, shape):
    r = predictor.predict(np.full(shape, 255, np.uint8))
    assert r.lines == []


def test_v6_small_model_set(v6_paths):
    p = edgeocr.Predictor(models="ppocr-v6-small", threads=2)
    assert texts(p.predict(DATA / "sample_en.png")) == expected("sample_en.png")


def test_cli_predict_json_and_models(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "edgeocr.cli",
            "predict",
            str(DATA / "sample_en.png"),
            str(DATA / "line_en.png"),
            "--json",
            "--threads",
            "2",
            "--draw",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [normalize_text(x["text"]) for x in rows[0]["lines"]] == expected("sample_en.png")
    assert (tmp_path / "sample_en.png").exists()
    bad = subprocess.run(
        [sys.executable, "-m", "edgeocr.cli", "predict", str(tmp_path / "none.png")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 1 and "not found" in bad.stderr
    models = subprocess.run(
        [sys.executable, "-m", "edgeocr.cli", "models"], capture_output=True, text=True
    )
    assert "ppocr-v4-mobile" in models.stdout


def _write(path, data):
    path.write_bytes(data)
    return path


def test_cli_file_and_folder_errors_are_messages_not_tracebacks(tmp_path, capsys):
    from edgeocr import cli

    a_file = _write(tmp_path / "a_file", b"x")
    m = ["--model", "ppocr-v4-mobile", "-t", "1"]
    # --draw into a path that is a file
    assert cli.main(["predict", str(DATA / "line_en.png"), "--draw", str(a_file), *m]) == 2
    assert "edgeocr: error:" in capsys.readouterr().err
    # convert into a folder that does not exist
    nb = sorted((DATA / "paddle_lite_ops").glob("*.nb"))[0]
    assert cli.main(["convert", str(nb), "-o", str(tmp_path / "no" / "x.onnx")]) == 2
    assert "No such file or directory" in capsys.readouterr().err
    # eval on a folder without labels, on bad labels, with a baseline that is not a report
    assert cli.main(["eval", str(tmp_path / "none"), *m]) == 2
    assert "no labelled set here" in capsys.readouterr().err
    labelled = tmp_path / "labelled"
    labelled.mkdir()
    _write(labelled / "e2e_synth.jsonl", b"{not json\n")
    assert cli.main(["eval", str(labelled), *m]) == 2
    assert "not a labelled set" in capsys.readouterr().err
    _write(labelled / "e2e_synth.jsonl", b"")
    assert cli.main(["eval", str(labelled), "--baseline", str(a_file), *m]) == 2
    assert "not an edgeocr eval report" in capsys.readouterr().err
    assert cli.main(["eval", str(labelled), "--limit", "-1", *m]) == 2
    assert "--limit" in capsys.readouterr().err


def test_batch_of_one_path_or_of_no_iterable_is_invalid_input(predictor):
    # A str or bytes would be iterated character by character ("image file not found: /").
    for bad in (str(DATA / "line_en.png"), (DATA / "line_en.png").read_bytes(), None, 5):
        with pytest.raises(InvalidInputError, match="take an iterable of images"):
            predictor.predict_batch(bad)
    assert predictor.predict_batch([]) == []


def test_draw_arguments_are_checked(predictor):
    r = predictor.predict(DATA / "line_en.png")
    for kw in ({"thickness": 10**9}, {"thickness": 0}, {"color": "red"}, {"color": (0, 0)}):
        with pytest.raises(InvalidInputError):  # were cv2.error
            r.draw(**kw)
    assert r.draw(color=np.array([0, 0, 255]), thickness=1).shape[:2] == (46, 460)
