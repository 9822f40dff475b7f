"""OCRmyPDF plugin: edgeocr as OCRmyPDF's OCR engine.

    pip install 'edgeocr[pdf]'
    ocrmypdf --plugin edgeocr.ocrmypdf in.pdf out.pdf
    ocrmypdf --plugin edgeocr.ocrmypdf --edgeocr-model ppocr-v6-small --jobs 4 in.pdf out.pdf

OCRmyPDF (17) renders each page, hands the image to this engine and grafts the text it gets
back onto its own copy of the page. The engine implements ``generate_hocr`` (edgeocr's hOCR,
which OCRmyPDF parses and renders with its own fpdf2 renderer: the default) and
``generate_pdf`` (a text-only page in edgeocr's glyphless font, for ``--pdf-renderer
sandwich``). Tesseract's OCRmyPDF plugin is blocked while this one is loaded, so Tesseract need
not be installed; its options stay accepted (and unused). Each OCRmyPDF worker (``--jobs``)
loads one `edgeocr.Predictor` running on one thread, as OCRmyPDF asks of engines. Languages
(``-l``) select nothing: the model set decides what is read (docs/documents.md, "OCRmyPDF").
"""

from __future__ import annotations

import threading
from pathlib import Path

from ocrmypdf import hookimpl
from ocrmypdf.pluginspec import OcrEngine, OrientationConfidence

from .documents.hocr import HocrWriter
from .documents.output import AtomicFile
from .documents.pdf import SearchablePdf
from .documents.text import TextWriter, version

TESSERACT_PLUGIN = "ocrmypdf.builtin_plugins.tesseract_ocr"
# What the default model sets read (PP-OCR's Chinese + English dictionaries), as OCRmyPDF (and
# Tesseract) name languages.
LANGUAGES = frozenset({"eng", "chi_sim", "chi_tra"})

_lock = threading.Lock()
_predictors: dict = {}


def _predictor(options):
    from .predictor import Predictor

    model = getattr(options, "edgeocr_model", None)
    with _lock:
        if model not in _predictors:
            _predictors[model] = Predictor(model, threads=1)
        return _predictors[model]


def _recognise(input_file: Path, options):
    """The page image's result, with the image's resolution as its dpi."""
    from PIL import Image

    with Image.open(input_file) as im:
        dpi = im.info.get("dpi", (72.0, 72.0))
    result = _predictor(options).predict(str(input_file))
    try:
        result.dpi = float(dpi[0]) if float(dpi[0]) > 0 else 72.0
    except (TypeError, ValueError, IndexError):
        result.dpi = 72.0
    return result


def _write_text(result, output_text: Path) -> None:
    with AtomicFile(output_text, binary=False) as out:
        TextWriter(out.file).add(result)
        out.commit()


class EdgeOcrEngine(OcrEngine):
    """edgeocr's det -> cls -> rec pipeline as an OCRmyPDF engine."""

    @staticmethod
    def version() -> str:
        return version()

    @staticmethod
    def creator_tag(options) -> str:
        return f"edgeocr {version()}"

    def __str__(self) -> str:
        return f"edgeocr {version()}"

    @staticmethod
    def languages(options) -> set[str]:
        return set(LANGUAGES)

    @staticmethod
    def get_orientation(input_file: Path, options) -> OrientationConfidence:
        # Lines read upside down are turned by edgeocr's classifier; whole-page rotation is not
        # detected (confidence 0: OCRmyPDF leaves the page as it is).
        return OrientationConfidence(angle=0, confidence=0.0)

    @staticmethod
    def get_deskew(input_file: Path, options) -> float:
        return 0.0

    @staticmethod
    def generate_hocr(input_file: Path, output_hocr: Path, output_text: Path, options) -> None:
        result = _recognise(input_file, options)
        with AtomicFile(output_hocr, binary=False) as out:
            writer = HocrWriter(out.file, str(input_file))
            writer.add(result)
            writer.finish()
            out.commit()
        _write_text(result, output_text)

    @staticmethod
    def generate_pdf(input_file: Path, output_pdf: Path, output_text: Path, options) -> None:
        result = _recognise(input_file, options)
        width, height = result.image_size
        builder = SearchablePdf()
        try:
            builder.add_blank(result, width * 72.0 / result.dpi, height * 72.0 / result.dpi)
            with AtomicFile(output_pdf, binary=True) as out:
                builder.save(out.file)
                out.commit()
        finally:
            builder.close()
        _write_text(result, output_text)


@hookimpl
def initialize(plugin_manager) -> None:
    # Tesseract's plugin would insist on the tesseract program (its check_options); its option
    # model is registered below instead, so that OCRmyPDF's checks of those options still run.
    plugin_manager.set_blocked(TESSERACT_PLUGIN)


@hookimpl
def register_options():
    from ocrmypdf.builtin_plugins.tesseract_ocr import TesseractOptions

    return {"tesseract": TesseractOptions}


@hookimpl
def add_options(parser) -> None:
    from ocrmypdf.builtin_plugins.tesseract_ocr import TesseractOptions

    TesseractOptions.add_arguments_to_parser(parser)
    group = parser.add_argument_group("edgeocr", "edgeocr's OCR engine (edgeocr.ocrmypdf)")
    group.add_argument(
        "--edgeocr-model",
        metavar="MODEL",
        help="edgeocr model set name, folder or bundle (default: edgeocr's default set)",
    )


@hookimpl
def get_ocr_engine(options):
    if options is not None and getattr(options, "ocr_engine", "auto") not in ("auto", None):
        return None  # --ocr-engine none (or tesseract): not ours
    return EdgeOcrEngine()
