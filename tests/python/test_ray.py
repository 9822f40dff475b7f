"""edgeocr.ray: batch OCR on Ray Data gives the in-process Predictor's answers, one row per input,
through bad files and a killed actor. One local Ray (2 CPUs) for the whole session."""

import json
import os
import shutil
import signal
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO

pa = pytest.importorskip("pyarrow", reason="pyarrow (comes with 'edgeocr[ray]') is not installed")

# Ray's own modules warn about their own deprecated settings while they start and run a Dataset.
pytestmark = pytest.mark.filterwarnings(r"ignore::DeprecationWarning:ray\.")

DATA = REPO / "tests" / "data"
GOOD = ["sample_en.png", "sample_en_gray.png", "sample_en_rot180.png", "line_en.png"]
MODELS = "ppocr-v4-mobile"


@pytest.fixture(scope="session")
def ray_cluster():
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'edgeocr[ray]')")
    pytest.importorskip(
        "ray.data", reason="ray[data] is not installed (pip install 'edgeocr[ray]')"
    )
    from edgeocr.ray import init_local_ray

    init_local_ray(ray, num_cpus=2, object_store_memory=256 * 2**20)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def reference(v4_paths):
    import edgeocr

    return edgeocr.Predictor(models=MODELS, threads=1)


@pytest.fixture
def pages(tmp_path):
    """Good pages, a corrupt one, an empty one and a missing one (absolute paths)."""
    d = tmp_path / "pages"
    d.mkdir()
    for name in GOOD:
        shutil.copy(DATA / name, d / name)
    (d / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40)
    (d / "empty.jpg").write_bytes(b"")
    good = [str(d / n) for n in GOOD]
    return d, good, good + [str(d / "corrupt.png"), str(d / "empty.jpg"), str(d / "missing.png")]


def expected_row(predictor, image):
    """What the in-process Predictor says, in the row's terms (computed here, not by edgeocr.ray)"""
    try:
        r = predictor.predict(image)
    except Exception as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {e}", "lines": None, "width": None, "height": None}
    return {
        "error": None,
        "width": r.image_size[0],
        "height": r.image_size[1],
        "lines": [(ln.text, ln.score, ln.box) for ln in r.lines],
    }


def assert_same(row, exp):
    assert row["error"] == exp["error"]
    assert row["width"] == exp["width"] and row["height"] == exp["height"]
    if exp["lines"] is None:
        assert row["lines"] is None
        return
    assert len(row["lines"]) == len(exp["lines"])
    for got, (text, score, box) in zip(row["lines"], exp["lines"]):
        assert got["text"] == text
        assert got["score"] == score
        np.testing.assert_array_equal(np.asarray(got["box"], np.float32), box)


# -- the actor class on its own (no cluster needed) ------------------------------


def test_actor_batch_in_process(v4_paths, reference, pages):
    """One call: rows in input order, from paths and from bytes, the caller's columns kept."""
    from edgeocr.ray import RESULT_COLUMNS, PredictorActor

    _, good, paths = pages
    actor = PredictorActor(models=MODELS, threads=1)
    out = actor({"path": np.array(paths, object), "page_id": np.arange(len(paths))})
    assert out.column_names == [*RESULT_COLUMNS, "page_id"]
    rows = out.to_pylist()
    assert [r["path"] for r in rows] == paths
    assert [r["page_id"] for r in rows] == list(range(len(paths)))
    for row, p in zip(rows, paths):
        assert_same(row, expected_row(reference, p))
    assert "image file not found" in rows[-1]["error"] and rows[-1]["error"].startswith(
        "InvalidInputError"
    )

    blobs = [Path(p).read_bytes() for p in good[:2]] + [b"not an image"]
    out = actor(pa.table({"bytes": blobs}))
    rows = out.to_pylist()
    assert "bytes" not in out.column_names and [r["path"] for r in rows] == [None] * 3
    for row, b in zip(rows, blobs):
        assert_same(row, expected_row(reference, b))
    assert rows[2]["error"].startswith("InvalidInputError: image bytes: not a readable image")


def test_actor_reads_documents_page_by_page(v4_paths, reference, pages, tmp_path):
    """A PDF or multi-page TIFF row gives one row per page (``page``), its columns repeated."""
    pytest.importorskip("pypdfium2", reason="pip install 'edgeocr[test]' (pypdfium2)")
    from doc_fixtures import pdf_from_images, tiff_from_images

    from edgeocr.ray import PredictorActor

    _, good, _ = pages
    pdf = str(pdf_from_images(good[:2], tmp_path / "two.pdf", resolution=100))
    tif = str(tiff_from_images(good[:3], tmp_path / "three.tif"))
    paths = [good[0], pdf, tif, str(tmp_path / "missing.pdf")]
    out = PredictorActor(models=MODELS, threads=1)({"path": paths, "id": [10, 20, 30, 40]})
    rows = out.to_pylist()
    assert [(r["path"], r["page"], r["page_count"], r["id"]) for r in rows] == [
        (good[0], 0, 1, 10),
        (pdf, 0, 2, 20),
        (pdf, 1, 2, 20),
        (tif, 0, 3, 30),
        (tif, 1, 3, 30),
        (tif, 2, 3, 30),
        (paths[3], 0, 1, 40),
    ]
    assert_same(rows[0], expected_row(reference, good[0]))
    for row, src in zip(rows[3:6], good[:3]):  # TIFF pages are lossless: the images' own rows
        assert_same(row, expected_row(reference, src))
    assert all(r["error"] is None and r["lines"] for r in rows[1:3])
    assert rows[6]["error"].startswith("InvalidInputError") and rows[6]["lines"] is None


class FailOnCall:
    """A preprocess hook that raises a plain RuntimeError (no EdgeOCRError) on its n-th call."""

    def __init__(self, n: int):
        self.n, self.calls = n, 0

    def __call__(self, img):
        self.calls += 1
        if self.calls == self.n:
            raise RuntimeError(f"hook failed on call {self.n}")
        return img


def test_actor_a_page_that_raises_is_an_error_row(v4_paths, reference, pages, tmp_path):
    """A plain exception while a document's page is read (here the Predictor's preprocess hook
    on page 2 of 3) is that page's error row: the task does not fail, the pages after it still
    come out, the document's other rows are the pages' own."""
    pytest.importorskip("pypdfium2", reason="pip install 'edgeocr[test]' (pypdfium2)")
    from doc_fixtures import pdf_from_images

    from edgeocr.ray import PredictorActor

    _, good, _ = pages
    pdf = str(pdf_from_images(good[:3], tmp_path / "three.pdf", resolution=100))
    actor = PredictorActor(models=MODELS, threads=1, preprocess=FailOnCall(2))
    rows = actor({"path": [pdf, good[0]]}).to_pylist()
    assert [(r["path"], r["page"], r["page_count"]) for r in rows] == [
        (pdf, 0, 3),
        (pdf, 1, 3),
        (pdf, 2, 3),
        (good[0], 0, 1),
    ]
    assert rows[1]["error"] == "RuntimeError: hook failed on call 2" and rows[1]["lines"] is None
    assert all(r["error"] is None and r["lines"] for r in (rows[0], rows[2], rows[3]))
    assert_same(rows[3], expected_row(reference, good[0]))


def test_actor_leaves_out_the_done_pages(v4_paths, pages, tmp_path):
    """A ``done_pages`` column: the document's other pages only (what --resume sends)."""
    pytest.importorskip("pypdfium2", reason="pip install 'edgeocr[test]' (pypdfium2)")
    from doc_fixtures import pdf_from_images

    from edgeocr.ray import PredictorActor

    _, good, _ = pages
    pdf = str(pdf_from_images(good[:3], tmp_path / "three.pdf", resolution=100))
    actor = PredictorActor(models=MODELS, threads=1)
    whole = actor({"path": [pdf]}).to_pylist()
    out = actor(pa.table({"path": [pdf, pdf], "done_pages": [[0, 2], None]}))
    assert "done_pages" not in out.column_names
    rows = out.to_pylist()
    assert [r["page"] for r in rows] == [1, 0, 1, 2]
    assert [r["lines"] for r in rows] == [whole[1]["lines"]] + [r["lines"] for r in whole]


def test_actor_applies_the_predictors_pixel_cap(v4_paths, pages):
    """max_image_pixels refuses a page in the actor as Predictor.predict(path) does."""
    import edgeocr
    from edgeocr.ray import PredictorActor

    _, good, _ = pages
    kw = {"models": MODELS, "threads": 1, "max_image_pixels": 1000}
    rows = PredictorActor(**kw)(pa.table({"path": good[:1]})).to_pylist()
    assert_same(rows[0], expected_row(edgeocr.Predictor(**kw), good[0]))
    assert rows[0]["error"].startswith("InvalidInputError")


def test_actor_under_a_memory_budget(v4_paths, pages):
    """With max_memory_mb the Predictor decodes each page inside its budget; same rows."""
    import edgeocr
    from edgeocr.ray import PredictorActor

    _, good, paths = pages
    kw = {"models": MODELS, "threads": 1, "max_memory_mb": 400}
    chosen = [good[0], paths[-1]]
    rows = PredictorActor(**kw)(pa.table({"path": chosen})).to_pylist()
    reference = edgeocr.Predictor(**kw)
    for row, p in zip(rows, chosen):
        assert_same(row, expected_row(reference, p))
    assert rows[0]["error"] is None and rows[1]["error"].startswith("InvalidInputError")


def test_actor_needs_path_or_bytes(v4_paths):
    import edgeocr
    from edgeocr.ray import PredictorActor

    with pytest.raises(edgeocr.InvalidInputError, match="'path' or a 'bytes' column"):
        PredictorActor(models=MODELS, threads=1)(pa.table({"x": [1]}))


def test_expand_inputs(pages):
    from edgeocr.ray import expand_inputs

    d, good, _ = pages
    files = expand_inputs(
        str(d)
    )  # a folder: its images (the empty .jpg too: its row says what is wrong)
    assert sorted(os.path.basename(p) for p in files) == sorted([*GOOD, "corrupt.png", "empty.jpg"])
    assert expand_inputs(str(d / "sample_en*.png")) == sorted(good[:3])
    assert expand_inputs([str(d / "nope.png")]) == [str(d / "nope.png")]


# -- on a local Ray cluster --------------------------------------------------------


def test_local_ray_workers_run_at_the_callers_priority(ray_cluster):
    """Ray starts workers at niceness 15 by default; a local Ray edgeocr starts must not, or its
    actors get only what every other process on the machine leaves them."""

    @ray_cluster.remote(num_cpus=1)
    def niceness():
        return os.getpriority(os.PRIO_PROCESS, 0)

    assert ray_cluster.get(niceness.remote()) == os.getpriority(os.PRIO_PROCESS, 0)


def test_ray_rows_match_in_process(ray_cluster, v4_paths, reference, pages):
    """Two actors, batches of 2: one row per input, as Predictor.predict says; bad files: rows."""
    import edgeocr.ray

    _, _, paths = pages
    ds = edgeocr.ray.ocr_dataset(paths, MODELS, workers=2, threads=1, batch_size=2)
    rows = ds.take_all()
    assert sorted(r["path"] for r in rows) == sorted(paths)
    for row in rows:
        assert_same(row, expected_row(reference, row["path"]))
        assert row["worker"] and (row["error"] is not None or row["ocr_s"] > 0)
    assert sum(r["error"] is not None for r in rows) == 3


def test_ray_dataset_of_bytes(ray_cluster, v4_paths, reference, pages):
    """A Dataset from read_binary_files: bytes decoded in the actor, errors named by path."""
    import edgeocr.ray

    d, good, _ = pages
    ds = ray_cluster.data.read_binary_files([*good[:2], str(d / "corrupt.png")], include_paths=True)
    rows = edgeocr.ray.ocr_dataset(ds, MODELS, workers=1, threads=1).take_all()
    assert len(rows) == 3
    for row in rows:
        path = row["path"] if os.path.isabs(row["path"]) else "/" + row["path"]
        assert_same(
            row, expected_row(reference, path)
        )  # predict(path) also decodes the file's bytes


def test_ray_actor_killed_is_restarted_and_batch_retried(ray_cluster, v4_paths, reference, pages):
    """SIGKILL the actor after its first batch: it is restarted, its queued batches are retried,
    and every input comes out exactly once with the same answer."""
    import edgeocr.ray

    _, good, _ = pages
    paths = good  # 4 batches of 1: the kill comes with 3 still to do
    ds = edgeocr.ray.ocr_dataset(paths, MODELS, workers=1, threads=1, batch_size=1)
    rows, killed = [], None
    for batch in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
        rows += batch.to_pylist()
        if killed is None:
            killed = int(rows[0]["worker"].rsplit(":", 1)[1])
            os.kill(killed, signal.SIGKILL)
    assert sorted(r["path"] for r in rows) == sorted(paths)
    pids = {int(r["worker"].rsplit(":", 1)[1]) for r in rows}
    assert killed in pids and len(pids) >= 2, "no row came from a restarted actor"
    for row in rows:
        assert_same(row, expected_row(reference, row["path"]))


def read_output(out: Path) -> list[dict]:
    """Every row of a --output folder (JSON-lines or Parquet parts)."""
    import pyarrow.parquet as pq

    if out.suffix == ".parquet":
        return pq.read_table(out).to_pylist() if any(out.glob("*.parquet")) else []
    return [json.loads(s) for f in sorted(out.glob("*.jsonl")) for s in f.read_text().splitlines()]


def rewrite_output(out: Path, rows: list[dict], cut: str = "") -> None:
    """The folder as a run that stopped after ``rows`` leaves it: one part holding them, and
    ``cut`` (the start of a row cut off mid-write) at its end (JSON lines)."""
    import pyarrow.parquet as pq

    from edgeocr.ray import result_schema

    shutil.rmtree(out)
    out.mkdir()
    if out.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows, schema=result_schema()), out / "a.parquet")
        return
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    (out / "a.jsonl").write_text(text + cut, encoding="utf-8")


def cli_argv(inputs, out) -> list[str]:
    return [
        "predict", *map(str, inputs), "--model", MODELS, "--ray", "--workers", "1",
        "--threads", "1", "--output", str(out),
    ]  # fmt: skip


def test_cli_ray_jsonl_resume(ray_cluster, v4_paths, reference, pages, tmp_path, capsys):
    """JSON-lines parts written on the workers; a run cut off after 3 rows, the 4th cut
    mid-line: --resume drops the cut line and does the 3 others again."""
    from edgeocr.cli import main

    d, _, _ = pages
    out = tmp_path / "out.jsonl"
    argv = cli_argv([d], out)
    assert main(argv) == 1  # two bad files: error rows, exit status 1
    assert out.is_dir() and list(out.glob("*.jsonl"))
    rows = read_output(out)
    assert len(rows) == 6
    first = {r["path"]: r for r in rows}
    for r in rows:  # the in-process answers, through JSON
        assert_same(r, expected_row(reference, r["path"]))
    assert "6 pages, 2 errors" in capsys.readouterr().err
    assert main(argv) == 2  # the output exists: refused without --resume

    rewrite_output(out, rows[:3], json.dumps(rows[3])[:20])
    assert main([*argv, "--resume"]) in (0, 1)
    err = capsys.readouterr().err
    assert "3 pages" in err and "dropped a line cut off mid-write" in err
    again = read_output(out)
    assert sorted(r["path"] for r in again) == sorted(first)
    for r in again:
        assert r["lines"] == first[r["path"]]["lines"] and r["error"] == first[r["path"]]["error"]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_cli_ray_resume_a_document_cut_mid_batch(
    ray_cluster, v4_paths, pages, tmp_path, capsys, fmt
):
    """A 3-page PDF whose run stopped after its first page: --resume reads its 2 other pages
    (and nothing else), and every (path, page) is in the output once, as the whole run wrote
    it."""
    pytest.importorskip("pypdfium2", reason="pip install 'edgeocr[test]' (pypdfium2)")
    from doc_fixtures import pdf_from_images

    from edgeocr.cli import main

    _, good, _ = pages
    pdf = str(pdf_from_images(good[:3], tmp_path / "three.pdf", resolution=100))
    out = tmp_path / f"out.{fmt}"
    argv = cli_argv([pdf, good[3]], out)
    assert main(argv) == 0
    rows = read_output(out)
    want = [(pdf, 0), (pdf, 1), (pdf, 2), (good[3], 0)]
    assert sorted((r["path"], r["page"]) for r in rows) == sorted(want)
    whole = {(r["path"], r["page"]): r for r in rows}
    capsys.readouterr()

    kept = [r for r in rows if r["path"] != pdf or r["page"] == 0]
    rewrite_output(out, kept)
    assert main([*argv, "--resume"]) == 0
    assert "2 pages, 0 errors" in capsys.readouterr().err
    again = read_output(out)
    assert sorted((r["path"], r["page"]) for r in again) == sorted(whole)
    for r in again:
        w = whole[(r["path"], r["page"])]
        assert r["lines"] == w["lines"] and r["page_count"] == w["page_count"]
    assert main([*argv, "--resume"]) == 0  # all done now: nothing runs
    assert "0 pages, 0 errors" in capsys.readouterr().err.splitlines()[-1]


def test_cli_ray_parquet(ray_cluster, v4_paths, reference, pages, tmp_path, capsys):
    """Parquet parts written on the workers (Dataset.write_parquet); a part cut off mid-write
    is removed on --resume and its pages done again."""
    import pyarrow.parquet as pq

    from edgeocr.cli import main

    _, good, _ = pages
    out = tmp_path / "out.parquet"
    argv = cli_argv(good[:2], out)
    assert main(argv) == 0
    rows = pq.read_table(out).to_pylist()
    assert sorted(r["path"] for r in rows) == sorted(good[:2])
    for row in rows:
        assert_same(row, expected_row(reference, row["path"]))
    assert main([*argv, "--resume"]) == 0  # all done: nothing runs
    assert "0 pages, 0 errors" in capsys.readouterr().err.splitlines()[-1]
    assert len(pq.read_table(out)) == 2

    rewrite_output(out, rows[:1])
    (out / "b.parquet").write_bytes(b"PAR1" + b"\0" * 100)  # a part cut off before its footer
    assert main([*argv, "--resume"]) == 0
    err = capsys.readouterr().err
    assert "removed" in err and "1 pages, 0 errors" in err
    assert sorted(r["path"] for r in pq.read_table(out).to_pylist()) == sorted(good[:2])


def test_cli_ray_relative_output(ray_cluster, v4_paths, reference, pages, tmp_path, monkeypatch):
    """A relative --output lands beside the caller, not in the workers' working folder (the
    README's Ray command gives out.parquet; from a checkout the workers run in another one)."""
    import pyarrow.parquet as pq

    from edgeocr.cli import main

    _, good, _ = pages
    monkeypatch.chdir(tmp_path)
    assert main(cli_argv(good[:2], "out.parquet")) == 0
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert sorted(r["path"] for r in rows) == sorted(good[:2])
