"""OCRmyPDF plugin: edgeocr as OCRmyPDF's OCR engine.

    pip install 'edgeocr[pdf]'
    ocrmypdf --plugin edgeocr.ocrmypdf in.pdf out.pdf
    ocrmypdf --plugin edgeocr.ocrmypdf --edgeocr-model ppocr-v6-small --jobs 4 in.pdf out.pdf

OCRmyPDF (17) renders each page, hands the image to this engine and grafts the text it gets
back onto its own copy of the page. The engine implements ``generate_ocr`` (OCRmyPDF 17's
engine API: the page's lines and words as an ``OcrElement`` tree, which OCRmyPDF renders with
its own fpdf2 renderer: the default), ``generate_pdf`` (a text-only page in edgeocr's glyphless
font, for ``--pdf-renderer sandwich``) and ``generate_hocr`` (edgeocr's hOCR, which the
OcrEngine interface requires and an OCRmyPDF without ``generate_ocr`` calls). Tesseract's
OCRmyPDF plugin is blocked while this one is loaded, so Tesseract need not be installed. Each
OCRmyPDF worker (``--jobs``) loads one `edgeocr.Predictor` running on one thread, as OCRmyPDF
asks of engines. Languages (``-l``) select nothing: the model set decides what is read
(docs/documents.md, "OCRmyPDF"). Only OCRmyPDF's plugin interface is used (``ocrmypdf.hookimpl``,
``ocrmypdf.pluginspec``, the ``OcrElement`` model of ``ocrmypdf.hocrtransform``).
"""

from __future__ import annotations

import io
import threading
from pathlib import Path

from ocrmypdf import hookimpl
from ocrmypdf.pluginspec import OcrEngine, OrientationConfidence
from pydantic import BaseModel

from .documents.hocr import HocrWriter
from .documents.layout import baseline, page_lines
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


def _text(result) -> str:
    """The page's plain text, as OCRmyPDF's sidecar file takes it."""
    out = io.StringIO()
    TextWriter(out).add(result)
    return out.getvalue()


def _write_text(result, output_text: Path) -> None:
    with AtomicFile(output_text, binary=False) as out:
        out.file.write(_text(result))
        out.commit()


def ocr_tree(result, page_number: int = 0):
    """``result`` (an `OcrResult` with a ``dpi``) as OCRmyPDF's ``OcrElement`` tree: the page,
    then per line a paragraph holding the line and its words (the nesting OCRmyPDF's hOCR
    reader makes of edgeocr's hOCR), boxes in page pixels, word confidences 0-1, a turned
    line's ``textangle`` (from `OcrLine.turns`) or an upright line's ``baseline``."""
    from ocrmypdf.hocrtransform import Baseline, BoundingBox, OcrClass, OcrElement

    width, height = result.image_size
    page = OcrElement(
        ocr_class=OcrClass.PAGE,
        bbox=BoundingBox(0, 0, width, height),
        dpi=float(result.dpi),
        page_number=page_number,
    )
    for line in page_lines(result, width, height):
        x0, y0, x1, y1 = line.bbox
        if x1 <= x0 or y1 <= y0:
            continue  # a line clipped to nothing by the page's edge: nothing to lay out
        words = [
            OcrElement(
                ocr_class=OcrClass.WORD,
                bbox=BoundingBox(*word.bbox),
                text=word.text,
                confidence=min(max(word.score, 0.0), 1.0),
            )
            for word in line.words
        ]
        slope, offset, _height = baseline(line)
        element = OcrElement(
            ocr_class=OcrClass.LINE,
            bbox=BoundingBox(*line.bbox),
            baseline=None if line.turns else Baseline(slope=slope, intercept=offset),
            textangle=float(line.angle) if line.turns else None,
            children=words,
        )
        page.children.append(
            OcrElement(
                ocr_class=OcrClass.PARAGRAPH, bbox=BoundingBox(*line.bbox), children=[element]
            )
        )
    return page


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
    def supports_generate_ocr() -> bool:
        return True

    @staticmethod
    def generate_ocr(input_file: Path, options, page_number: int = 0):
        result = _recognise(input_file, options)
        return ocr_tree(result, page_number), _text(result)

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


class TesseractNamespace(BaseModel):
    """OCRmyPDF 17 checks ``options.tesseract`` (page segmentation mode, downsampling) whatever
    the engine, and its Tesseract plugin, which registers that namespace, is blocked here. So
    the namespace is this model's: the fields OCRmyPDF fills from its own ``tesseract_*``
    options (``ocrmypdf.ocr(tesseract_timeout=...)``), kept and unused."""

    config: list[str] = []
    pagesegmode: int | None = None
    oem: int | None = None
    thresholding: int | None = None
    timeout: float | None = None
    non_ocr_timeout: float | None = None
    downsample_above: int = 32767
    downsample_large_images: bool | None = None


@hookimpl
def initialize(plugin_manager) -> None:
    # Tesseract's plugin would insist on the tesseract program (its check_options).
    plugin_manager.set_blocked(TESSERACT_PLUGIN)


@hookimpl
def register_options():
    return {"tesseract": TesseractNamespace}


@hookimpl
def add_options(parser) -> None:
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
