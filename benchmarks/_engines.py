#!/usr/bin/env python3
"""The OCR engines the benchmarks time, as block workers (benchmarks/_blocks.py).

    python benchmarks/_engines.py ENGINE [--threads 2] [--models NAME]

ENGINE is one of:

* ``edgeocr``: ``edgeocr.Predictor(models=NAME, threads=N, precision="fp32")`` (NAME "default":
  ``Predictor()``'s own set; any ``--setting key=value`` is passed through).
* ``tesseract``: Tesseract 5 in this process through its C API (benchmarks/tesseract.py), with the
  language the parent gives per page.
* ``rapidocr-1.4.4``: rapidocr_onnxruntime 1.4.4, its bundled PP-OCRv4 mobile models + cls.
* ``rapidocr-3.10``: rapidocr 3.10.0, the PP-OCRv6 small det/rec + mobile cls in its wheel.
* ``faster-paddle``: faster-paddle 1.0.4 (``OcrEngine("tiny")``, models inside its extension; no
  cls, upright boxes).
* ``rapidocrlite``: rapidocrlite 5 (import name ``rapidocr``; run it from a venv of its own, see
  benchmarks/README.md), given the PP-OCRv6 small det/rec and mobile cls files of the
  rapidocr 3.10.0 wheel (the same files, same SHA-256, as its default download), by
  ``--model-dir`` (default: ``$RAPIDOCR310_MODELS``), and the dictionary it would download, written
  from the rec model's metadata (``--keys``, :func:`write_v6_small_keys`).

Each reader returns [{"text", "box", "score"}] per page (box: four [x, y] points).
Only the standard library is imported at module level: the worker may run in a venv that has
nothing but its engine.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _blocks  # noqa: E402

ENGINES = (
    "edgeocr",
    "tesseract",
    "rapidocr-1.4.4",
    "rapidocr-3.10",
    "faster-paddle",
    "rapidocrlite",
)


def _quad(box) -> list:
    return [[float(x), float(y)] for x, y in box]


def _rapid_lines(boxes, txts, scores) -> list:
    return [
        {"text": t, "box": _quad(b), "score": float(s)}
        for b, t, s in zip(boxes if boxes is not None else [], txts or [], scores or [])
    ]


class Edgeocr:
    def __init__(self, models: str, threads: int, settings: list):
        import edgeocr

        # Settings as keywords: over the set's own settings (a PipelineConfig would replace them).
        overrides = {k: _value(v) for k, v in (s.split("=", 1) for s in settings)}
        self.predictor = edgeocr.Predictor(
            models=None if models == "default" else models,
            threads=threads,
            precision="fp32",
            **overrides,
        )

    def __call__(self, path: str, lang: str) -> list:
        return [
            {"text": ln.text, "box": _quad(ln.box), "score": float(ln.score)}
            for ln in self.predictor.predict(path).lines
        ]


def _value(s: str):
    for cast in (int, float):
        try:
            return cast(s)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(s.lower(), s)


class Tesseract:
    def __init__(self, threads: int):
        import tesseract

        self.engine = tesseract.Tesseract(threads)

    def __call__(self, path: str, lang: str) -> list:
        return self.engine(path, lang or "chi_sim+eng")


class RapidV4:
    def __init__(self, threads: int):
        from rapidocr_onnxruntime import RapidOCR

        self.engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1, use_cls=True)

    def __call__(self, path: str, lang: str) -> list:
        result, _ = self.engine(path)
        result = result or []
        return _rapid_lines([r[0] for r in result], [r[1] for r in result], [r[2] for r in result])


def _v6_small_files(model_dir: str | None, keys: str | None = None) -> dict:
    if model_dir is None:
        import importlib.util

        spec = importlib.util.find_spec("rapidocr")
        model_dir = os.path.join(list(spec.submodule_search_locations)[0], "models")
    md = Path(model_dir)
    paths = {
        "Det.model_path": md / "PP-OCRv6_det_small.onnx",
        "Rec.model_path": md / "PP-OCRv6_rec_small.onnx",
        "Cls.model_path": md / "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
    }
    if keys:
        paths["Rec.rec_keys_path"] = Path(keys)
    for p in paths.values():
        if not p.is_file():
            raise SystemExit(f"model file missing: {p} (refusing to download)")
    return {k: str(v) for k, v in paths.items()}


def write_v6_small_keys(model_dir: str, out: str) -> str:
    """The dictionary rapidocrlite downloads (ppocrv6_dict.txt), written from the character list
    that the rapidocr 3.10 wheel's PP-OCRv6_rec_small.onnx carries in its metadata (the same
    18708 lines; needs the onnx package, so the parent calls it)."""
    import onnx

    m = onnx.load(os.path.join(model_dir, "PP-OCRv6_rec_small.onnx"), load_external_data=False)
    chars = {p.key: p.value for p in m.metadata_props}["character"]
    with open(out, "w", encoding="utf-8") as f:
        f.write(chars.rstrip("\n") + "\n")
    return out


class RapidV6:
    """rapidocr 3.10 (or rapidocrlite 5, which has the same API) on the PP-OCRv6 small files."""

    def __init__(self, threads: int, model_dir: str | None = None, keys: str | None = None):
        from rapidocr import RapidOCR

        self.engine = RapidOCR(
            params={
                "Global.log_level": "warning",
                "Global.use_cls": True,
                "EngineConfig.onnxruntime.intra_op_num_threads": threads,
                "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                **_v6_small_files(model_dir, keys),
            }
        )

    def __call__(self, path: str, lang: str) -> list:
        r = self.engine(path)
        return _rapid_lines(r.boxes, r.txts, r.scores)


class FasterPaddle:
    def __init__(self, threads: int):
        import faster_paddle

        self.engine = faster_paddle.OcrEngine("tiny", threads=threads)

    def __call__(self, path: str, lang: str) -> list:
        with open(path, "rb") as f:
            r = self.engine.ocr(f.read())
        lines = []
        for _, b in sorted(r.get("bounds", {}).items(), key=lambda kv: int(kv[0])):
            (x0, y0), (x1, y1) = b["topLeftCoord"], b["bottomRightCoord"]
            box = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
            lines.append({"text": b["text"], "box": _quad(box), "score": float(b["confidence"])})
        return lines


def make_reader(args):
    name = args.engine
    if name == "edgeocr":
        return Edgeocr(args.models, args.threads, args.setting)
    if name == "tesseract":
        return Tesseract(args.threads)
    if name == "rapidocr-1.4.4":
        return RapidV4(args.threads)
    if name == "rapidocr-3.10":
        return RapidV6(args.threads)
    if name == "faster-paddle":
        return FasterPaddle(args.threads)
    if name == "rapidocrlite":
        return RapidV6(
            args.threads, args.model_dir or os.environ.get("RAPIDOCR310_MODELS"), args.keys
        )
    raise SystemExit(f"unknown engine {name!r}; known: {', '.join(ENGINES)}")


def engine(
    name: str,
    label: str | None = None,
    *,
    python: str | None = None,
    threads: int = 2,
    models: str = "default",
    settings: tuple = (),
    model_dir: str | None = None,
    keys: str | None = None,
) -> _blocks.Engine:
    """The _blocks.Engine that runs ENGINE in a worker (``python``: another venv's interpreter)."""
    cmd = [python or sys.executable, os.path.abspath(__file__), name, "--threads", str(threads)]
    if name == "edgeocr":
        cmd += ["--models", models] + [a for s in settings for a in ("--setting", s)]
    if model_dir:
        cmd += ["--model-dir", model_dir]
    if keys:
        cmd += ["--keys", keys]
    # Every thread pool the engines use (ORT's, OpenMP's, rayon's) held to `threads`. OpenMP
    # (Tesseract's LSTM) waits passively: on a machine loaded past its cores a spinning wait
    # costs Tesseract far more than it does on a quiet one.
    env = {
        "OMP_NUM_THREADS": str(threads),
        "OMP_THREAD_LIMIT": str(threads),
        "OMP_WAIT_POLICY": "PASSIVE",
    }
    return _blocks.Engine(label or name, cmd, env)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine", choices=ENGINES)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", default="default")
    ap.add_argument("--setting", action="append", default=[], help="edgeocr: key=value")
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--keys", default=None, help="rapidocrlite: the rec dictionary file")
    args = ap.parse_args(argv)
    _blocks.serve(lambda: make_reader(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
