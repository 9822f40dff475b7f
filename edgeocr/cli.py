"""Command line: `edgeocr predict|models|eval|convert|runtime|config` and `edgeocr-pack`."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .progress import Progress


def _expand(inputs: list[str]) -> tuple[list[str], bool]:
    from .image_io import image_files

    files, from_dir = [], False
    for item in inputs:
        if os.path.isdir(item):
            from_dir = True
            files += image_files(item, recursive=True)
        else:
            files.append(item)
    return files, from_dir


def predictor_from_args(args):
    """The Predictor that ``--model/--threads/--no-cls`` (:func:`add_model_arguments`) ask for."""
    from .predictor import Predictor

    kw = {"threads": args.threads}
    if getattr(args, "no_cls", False):
        kw["use_cls"] = False
    if getattr(args, "precision", None):
        kw["precision"] = args.precision
    if getattr(args, "table_method", None):
        kw["table_method"] = args.table_method
    return Predictor(args.model, **kw)


def cmd_predict(args) -> int:
    """`edgeocr predict`: OCR the images (folders: their images) and print or draw the lines."""
    from .errors import EdgeOCRError

    if args.ray:  # scale-out on Ray Data: edgeocr/ray/, a layer above, found by name
        import importlib

        return importlib.import_module(_RAY_MODULE).run_cli(args)
    files, from_dir = _expand(args.inputs)
    if not files:
        print("edgeocr predict: no images found", file=sys.stderr)
        return 2
    from .cli_startup import allow_quick_exit, make_predictor

    p = make_predictor(lambda: predictor_from_args(args), files[0], bool(args.draw))
    allow_quick_exit()  # nothing of this command needs the interpreter's teardown (run())
    if args.format is not None or args.output is not None:  # one document: edgeocr/documents
        from .cli_documents import write_documents

        return write_documents(args, p, files)
    drawings = None
    if args.draw:  # an OSError (a file there) is reported by main
        from .documents.drawings import drawing_folder

        drawings = drawing_folder(args.draw, args.password, p)
    # With a layout model among the models, --draw draws the parsed page (regions, reading order).
    parse = drawings is not None and "layout" in p.roles
    progress = Progress(len(files), from_dir and (sys.stderr.isatty() or args.progress))
    failures = 0
    for path in files:
        if _is_document(path, args):  # PDF, multi-page TIFF: page by page
            failures += _predict_document(p, path, args, len(files), drawings, parse)
            progress.step()
            continue
        try:
            r = p.parse(path) if parse else p.predict(path)
        except EdgeOCRError as e:
            failures += 1
            if args.json:
                print(
                    json.dumps(
                        {"source": path, "error": str(e), "type": type(e).__name__},
                        ensure_ascii=False,
                    )
                )
            else:
                print(f"{path}: error: {e}", file=sys.stderr)
            progress.step()
            continue
        if args.json:
            print(r.to_json())
        else:
            if len(files) > 1:
                print(f"== {path} ({len(r.lines)} lines, {r.timings['total'] * 1000:.0f} ms)")
            for line in r.lines:
                print(f"{line.text}\t{line.score:.3f}")
            if len(files) == 1:
                t = r.timings
                print(
                    f"-- {len(r.lines)} lines in {t['total'] * 1000:.0f} ms "
                    f"(det {t['det'] * 1000:.0f}, cls {t['cls'] * 1000:.0f}, rec "
                    f"{t['rec'] * 1000:.0f})",
                    file=sys.stderr,
                )
        if drawings is not None and not drawings.add_reporting(r):
            failures += 1
        progress.step()
    return 1 if failures else 0


def _is_document(path: str, args) -> bool:
    from .documents.pages import is_document

    asked = args.pages is not None or args.dpi is not None or args.password is not None
    asked = asked or getattr(args, "skip_text", False) or getattr(args, "redo_ocr", False)
    return asked or is_document(path)


def _predict_document(p, path: str, args, n_files: int, drawings=None, parse=False) -> int:
    """The pages of one document, printed as they come (text, or one JSON object per page),
    each drawn into ``drawings`` (a DrawingFolder; parsed pages with ``parse``). Returns the
    number of failures (pages, or 1 for a document that cannot be opened)."""
    from .cli_documents import say_text_layer
    from .errors import EdgeOCRError

    def error(where: str, e: EdgeOCRError, page: int | None = None) -> None:
        if args.json:
            d = {"source": path, "error": str(e), "type": type(e).__name__}
            if page is not None:
                d["page"] = page
            print(json.dumps(d, ensure_ascii=False))
        else:
            print(f"{where}: error: {e}", file=sys.stderr)

    try:
        pages = (p.parse_pages if parse else p.predict_pages)(
            path,
            args.pages,
            dpi=args.dpi,
            password=args.password,
            skip_text=args.skip_text,
            redo_ocr=args.redo_ocr,
        )
    except EdgeOCRError as e:
        error(path, e)
        return 1
    failures = 0
    for r in pages:
        say_text_layer(path, r)
        if r.error is not None:
            failures += 1
            error(f"{path}: page {r.page + 1}", r.error, r.page)
            continue
        if drawings is not None and not drawings.add_reporting(r):
            failures += 1
        if args.json:
            print(r.to_json())
            continue
        total = r.timings.get("total", 0.0) * 1000
        print(f"== {path} page {r.page + 1} ({len(r.lines)} lines, {total:.0f} ms)")
        for line in r.lines:
            print(f"{line.text}\t{line.score:.3f}")
    return failures


def cmd_models(args) -> int:
    """`edgeocr models`: the model sets and whether they are installed."""
    from .models import list_models, measured

    rows = list_models()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        mark = "*" if r["default"] else " "
        status = (
            f"installed, {r['size_mb']} MB"
            if r["installed"]
            else f"not installed (pip install {' '.join(repr(x) for x in r['package'].split())})"
        )
        rung = f" [{r['rung']}]" if r["rung"] else ""
        print(f"{mark} {r['name'] + rung:<32} {status}\n    {r['description']}")
        m = r["measured"]
        if m:
            print(
                f"    measured: {m['time_vs_default']:.2f}x the default's time, "
                f"1-NED {100 * m['one_minus_ned']:.1f}, det H {100 * m['det_hmean']:.1f}, "
                f"line accuracy {100 * m['line_acc']:.1f}"
            )
    where = measured()["measured"]
    print("(* = default; [rung]: a name for that set, e.g. edgeocr predict -m fastest IMAGE)")
    if where:
        print(
            f"measured {where.get('date', '?')} on {where.get('machine', '?')}: "
            f"{where.get('pages', '')}; your device: edgeocr bench --ladder --target-ms MS"
        )
    return 0


def cmd_convert(args) -> int:
    """`edgeocr convert`: translate a Paddle Lite .nb model to an ONNX file."""
    import edgeocr._core as _core

    from .errors import ModelNotFoundError

    try:
        with open(args.model, "rb") as f:
            nb = f.read()
    except OSError as e:
        raise ModelNotFoundError(f"{args.model}: cannot read the file ({e.strerror or e})") from e
    data = _core.nb_to_onnx(nb, args.model)
    with open(args.output, "wb") as f:
        f.write(data)
    print(f"wrote {args.output} ({len(data) / 2**20:.1f} MiB)")
    return 0


def cmd_runtime(args) -> int:
    """`edgeocr runtime`: which ONNX Runtime is used, and its self-test."""
    from ._runtime import runtime_info, selftest

    info = runtime_info()
    print(f"ONNX Runtime {info['version']} from {info['library_path']}")
    rep = selftest()
    print(f"self-test: {'ok' if rep['ok'] else 'FAILED'} ({rep['checks']} checks)")
    if not rep["ok"]:
        print(rep["failures"])
        return 1
    return 0


def cmd_config(args) -> int:
    """`edgeocr config`: compiler and linker flags for the C API."""
    from . import c_config

    out = []
    if args.cflags:
        out.append(c_config.cflags())
    if args.libs:
        out.append(c_config.libs())
    if args.cmake_dir:
        out.append(c_config.cmake_dir())
    print(" ".join(out))
    return 0


def add_model_arguments(p) -> None:
    """The model options every predicting subcommand takes (``--model``, ``--threads`` ...)."""
    p.add_argument(
        "--model",
        "-m",
        default=None,
        help="model set name (see `edgeocr models`), a folder, a .onnx/.nb file "
        "(default: the default set)",
    )
    p.add_argument(
        "--threads", "-t", type=int, default=None, help="intra-op threads (default: runtime's)"
    )
    p.add_argument("--no-cls", action="store_true", help="skip the 180-degree direction classifier")
    p.add_argument(
        "--precision",
        choices=["auto", "fp32", "int8"],
        default=None,
        help="auto: a model set's int8 models (made once, cached) where the CPU has VNNI / "
        "dot product; int8; fp32 (default: $EDGEOCR_PRECISION, else fp32)",
    )
    p.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar even when not on a terminal",
    )


def add_page_arguments(p) -> None:
    """Documents (PDF, multi-page TIFF): ``--pages``, ``--dpi``, ``--password``."""
    p.add_argument(
        "--pages",
        metavar="LIST",
        help="pages of a PDF or multi-page TIFF to read, 1-based: '1-3,7', '5-' (default: all)",
    )
    p.add_argument("--dpi", type=float, help="resolution PDF pages are rendered at (default 200)")
    p.add_argument("--password", help="password of an encrypted PDF")
    text = p.add_mutually_exclusive_group()
    text.add_argument(
        "--skip-text",
        action="store_true",
        help="a PDF page that already has text is kept as it is (not read), as OCRmyPDF's",
    )
    text.add_argument(
        "--redo-ocr",
        action="store_true",
        help="a PDF page with edgeocr's own earlier text layer is read again and the layer "
        "replaced; real text is kept (a page with only real text is not read), as OCRmyPDF's",
    )


def add_output_arguments(p) -> None:
    """Documents out: ``--format`` and ``--output`` (docs/documents.md)."""
    p.add_argument(
        "--format",
        "-f",
        choices=("text", "markdown", "json", "jsonl", "tsv", "hocr", "alto", "pdf", "html"),
        help="write every input's pages, in order, as one document: plain text, Markdown, the "
        "JSON document tree or the review page, html (pages parsed: layout regions, tables, "
        "reading order; docs/document-parsing.md), JSON lines, Tesseract TSV, hOCR, ALTO v4 or a "
        "searchable PDF "
        "(default with -o: from its extension: .md, .json, .jsonl, .tsv, .hocr, .xml, .pdf)",
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="OUT",
        help="the document to write ('-': standard output; written whole or not at all); "
        "with --ray: OUT.parquet or OUT.jsonl, a folder of parts the workers write",
    )


def build_parser(plugins: bool = True) -> argparse.ArgumentParser:
    """The `edgeocr` argument parser, tooling subcommands included when installed (and
    ``plugins``: a command line naming a built-in subcommand does not pay for importing them)."""
    from ._core import __version__

    ap = argparse.ArgumentParser(
        prog="edgeocr", description="OCR on edge devices: PP-OCR models in a C++ core."
    )
    ap.add_argument("--version", action="version", version=f"edgeocr {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("predict", help="OCR images or folders of images")
    p.add_argument("inputs", nargs="+", metavar="IMAGE_OR_DIR")
    add_model_arguments(p)
    p.add_argument("--json", action="store_true", help="one JSON object per image (JSON lines)")
    p.add_argument(
        "--draw",
        metavar="OUT_DIR",
        help="write a picture of each page here (NAME.png; NAME-p3.png for page 3 of a PDF or "
        "TIFF): the parsed page's regions, reading order and tables when the pages are parsed "
        "(a layout model among the models, --format markdown/json/html), else the lines",
    )
    add_page_arguments(p)
    add_output_arguments(p)
    _ray_arguments(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("models", help="list the model sets and whether they are installed")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("convert", help="translate a Paddle Lite .nb model to ONNX")
    p.add_argument("model")
    p.add_argument("--output", "-o", required=True)
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("runtime", help="which ONNX Runtime is used, and its self-test")
    p.set_defaults(func=cmd_runtime)

    p = sub.add_parser("config", help="compiler/linker flags for the C API")
    p.add_argument("--cflags", action="store_true")
    p.add_argument("--libs", action="store_true")
    p.add_argument("--cmake-dir", action="store_true")
    p.set_defaults(func=cmd_config)

    # Commands that live in their own modules register themselves: each module
    # has register(subparsers) adding its parsers with set_defaults(func=...).
    import importlib

    for name in _PLUGIN_COMMANDS if plugins else ():
        try:
            mod = importlib.import_module(f"edgeocr.{name}")
        except ModuleNotFoundError as e:
            if e.name and e.name.startswith("edgeocr"):
                continue  # that part is not in this build
            raise
        if hasattr(mod, "register"):
            mod.register(sub)
    return ap


# Modules under edgeocr/ that add subcommands (see build_parser).
_PLUGIN_COMMANDS = ("evaluate.cli", "pack.cli", "bench", "export")
# The subcommands build_parser defines itself: importing the plugins (the tooling's numpy/OpenCV
# code, ~0.1 s) is skipped when the first word of the command line is one of these.
_BUILTIN_COMMANDS = ("predict", "models", "convert", "runtime", "config")
# What runs `edgeocr predict --ray` (its run_cli(args)); imported only then.
_RAY_MODULE = "edgeocr.ray.cli"


def _ray_arguments(parser) -> None:
    """The ``--ray`` options of ``edgeocr predict`` (run by edgeocr/ray/cli.py's run_cli)."""
    g = parser.add_argument_group(
        "scale-out on Ray Data (pip install 'edgeocr[ray]'; docs/scale-out.md)"
    )
    g.add_argument(
        "--ray",
        action="store_true",
        help="run on a Ray cluster (a local one unless --address); "
        "--threads is per actor (default 2)",
    )
    g.add_argument(
        "--address",
        help="Ray cluster to join (e.g. ray://head:10001 or auto; default: start a local Ray)",
    )
    g.add_argument(
        "--workers",
        "-w",
        type=int,
        default=None,
        help="actors, each with its own Predictor (default: the cluster's CPUs // --threads)",
    )
    g.add_argument(
        "--resume",
        action="store_true",
        help="skip the pages already in --output (a document: the pages not yet written)",
    )
    g.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="images per actor call (default: edgeocr.ray.DEFAULT_BATCH_SIZE, 8)",
    )


def main(argv=None) -> int:
    """The `edgeocr` command: run a subcommand; an EdgeOCRError is a message and exit status 2."""
    from .errors import EdgeOCRError

    argv = sys.argv[1:] if argv is None else list(argv)
    first = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(plugins=first not in _BUILTIN_COMMANDS).parse_args(argv)
    try:
        return args.func(args)
    except EdgeOCRError as e:
        print(f"edgeocr: error: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:  # an optional extra that is not installed: say which
        from .extras import missing_module_message

        msg = missing_module_message(e)
        if msg is None:
            raise
        print(f"edgeocr {args.command}: error: {msg}", file=sys.stderr)
        return 2
    except OSError as e:  # a file or folder of the command line: missing, unwritable, not a folder
        print(f"edgeocr: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def run() -> None:
    """The console script `edgeocr`: main(); after `edgeocr predict`, a quick exit
    (edgeocr/cli_startup.py, end_process)."""
    from .cli_startup import end_process

    end_process(main())


if __name__ == "__main__":
    sys.exit(main())
