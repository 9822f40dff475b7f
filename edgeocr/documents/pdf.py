"""Searchable PDF: an invisible text layer, word by word on the recogniser's word boxes.

* The pages of an input PDF are kept as they are (their content streams, images, resources,
  boxes and /Rotate are not touched): the page's content is wrapped in ``q``/``Q`` and a content
  stream with the text layer is appended, so it renders byte for byte as before.
* An image (or a frame of a multi-page TIFF) becomes a page of its own, sized by its resolution:
  a JPEG file keeps its JPEG bytes, anything else is stored losslessly (Flate; 1 bit per pixel
  for black-and-white pages) from the pixels the recogniser read.

Each word is one text object in render mode 3 (invisible) in the glyphless font of font.py,
its text stretched (the text matrix) to fill the word's box from the baseline-left corner of the
text's own frame: a word read upside down or on a vertical line is laid in that direction.
Pixels map to PDF points through the page's size as displayed (its CropBox within its MediaBox,
turned by /Rotate), so boxes land where the image shows the words at any DPI. Written with
pikepdf (qpdf): it edits a PDF in place without parsing or rewriting its content streams, keeps
what it does not understand, and writes files that ``qpdf --check`` accepts (docs/documents.md).
"""

from __future__ import annotations

import io
import math
import os
import zlib

import numpy as np

from ..errors import DocumentError, InvalidInputError
from .font import ADVANCE, DESCENT, UNITS_PER_EM, CidAllocator, add_font, finish_font
from .layout import page_lines, page_size
from .pages import is_pdf_header, open_document

FONT_RESOURCE = "/EdgeOCRText"
# A word whose text runs this close (degrees) to a page axis is laid along that axis: text
# extractors (poppler, PDFium) build words from glyphs on one baseline, and a slightly skewed
# baseline splits a word into runs of characters.
SNAP_DEGREES = 15.0
# Image pages are moved to a temporary file every this many pages (their images are then read
# from there when the output is written, not held in memory).
PART_PAGES = 16
BASELINE = -DESCENT / UNITS_PER_EM  # the baseline's height in the word box, from its bottom


def _pikepdf():
    try:
        import pikepdf
    except ImportError as e:  # pragma: no cover - the [pdf] extra brings it
        raise InvalidInputError(
            "writing PDF files needs pikepdf (pip install 'edgeocr[pdf]')"
        ) from e
    return pikepdf


def is_pdf_source(source) -> bool:
    """Whether ``source`` (a path or bytes) holds a PDF, by the rule pages in use."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return is_pdf_header(bytes(source[:1024]))
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, "rb") as f:
                return is_pdf_header(f.read(1024))
        except OSError:
            return False
    return False


def _num(v: float) -> str:
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


class PixelsToPoints:
    """The affine map from a page image's pixels (origin top-left, y down) to the PDF page's
    default user space (points, y up) for a page whose displayed box (CropBox within MediaBox,
    ``box`` = (llx, lly, urx, ury)) is turned ``rotate`` degrees clockwise (/Rotate) and was
    rendered to ``width`` x ``height`` pixels."""

    def __init__(self, width: int, height: int, box, rotate: int = 0):
        llx, lly, urx, ury = (float(v) for v in box)
        bw, bh = urx - llx, ury - lly
        rotate %= 360
        dw, dh = (bh, bw) if rotate in (90, 270) else (bw, bh)
        sx, sy = dw / width, dh / height
        # pixel -> displayed (u, v), y up: u = sx x, v = dh - sy y
        a = np.array([[sx, 0.0, 0.0], [0.0, -sy, dh]])
        # displayed -> box-relative user space, by the rotation
        r = {
            0: [[1, 0, 0], [0, 1, 0]],
            90: [[0, -1, bw], [1, 0, 0]],
            180: [[-1, 0, bw], [0, -1, bh]],
            270: [[0, 1, 0], [-1, 0, bh]],
        }.get(rotate)
        if r is None:
            raise DocumentError(f"/Rotate must be a multiple of 90, got {rotate}")
        r = np.array(r, np.float64)
        m = r[:, :2] @ a
        m[:, 2] = r[:, :2] @ a[:, 2] + r[:, 2] + (llx, lly)
        self.m = m

    def __call__(self, pts) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        return p @ self.m[:, :2].T + self.m[:, 2]


def text_layer(result, to_points: PixelsToPoints, font_name: str, cids: CidAllocator) -> bytes:
    """The content stream of ``result``'s words, invisible, in font ``font_name`` (empty bytes
    when there are none).

    Between two words of a line a space is laid from the end of the first to the start of the
    next (at least a twentieth of the text's height wide): the recogniser's word boxes may touch,
    and text extractors break words at a space character or at a gap.
    """
    width, height = page_size(result)
    ops = []
    space = cids.encode(" ").hex().upper()
    for line in page_lines(result, width, height):
        placed = []
        for word in line.words:
            code = cids.encode(word.text)
            n = len(code) // 2
            tl, tr, _br, bl = to_points(_snapped(word.quad))
            up = tl - bl
            if n == 0 or not np.all(np.isfinite(up)) or not np.any(up) or not np.any(tr - tl):
                continue
            along = (tr - tl) / (n * ADVANCE / UNITS_PER_EM)  # glyph advances fill the width
            m = (*along, *up, *(bl + up * BASELINE))
            if all(math.isfinite(v) for v in m):
                placed.append((m, code, tl, tr, up))
        for i, (m, code, _tl, tr, up) in enumerate(placed):
            ops.append(f"{_matrix(m)} Tm <{code.hex().upper()}> Tj")
            if i + 1 < len(placed):
                unit = (tr - _tl) / np.hypot(*(tr - _tl))
                gap = float(np.dot(placed[i + 1][2] - tr, unit))
                w = max(gap, float(np.hypot(*up)) / 20)
                sm = (*(unit * w / (ADVANCE / UNITS_PER_EM)), *up, *(tr - up * (1 - BASELINE)))
                if all(math.isfinite(v) for v in sm):
                    ops.append(f"{_matrix(sm)} Tm <{space}> Tj")
    if not ops:
        return b""
    body = "\n".join(ops)
    return f"BT\n3 Tr\n{font_name} 1 Tf\n{body}\nET\n".encode("ascii")


# The content stream text_layer's output goes in (SearchablePdf._lay): the page's own content
# closed, then the invisible text in edgeocr's font. redo_ocr finds edgeocr's layers by it.
_LAYER_HEAD = b"\nQ\nBT\n3 Tr\n" + FONT_RESOURCE.encode("ascii")


def remove_edgeocr_layer(page) -> int:
    """Take the text layers edgeocr laid on ``page`` (a pikepdf page) out again; the page's own
    content and any other text are kept. Returns the number of layers removed."""
    import pikepdf

    contents = page.obj.get("/Contents")
    if contents is None:
        return 0
    streams = list(contents) if isinstance(contents, pikepdf.Array) else [contents]
    removed = 0
    for st in streams:
        try:
            data = st.read_bytes()
        except pikepdf.PdfError:
            continue
        if data.startswith(_LAYER_HEAD):
            st.write(b"\nQ\n")  # the Q that closes the page's own content stays
            removed += 1
    return removed


class _LinesOf:
    """``result`` seen with only ``lines``: the rest of its attributes (size, page) its own."""

    def __init__(self, result, lines):
        self._result, self.lines = result, lines

    def __getattr__(self, name):
        return getattr(self._result, name)


def _not_from_layer(result):
    """``result`` without the lines its page's own text layer gave (a page parsed from its text
    layer, ``text_action`` "text-layer"): that text is in the page already, so a searchable PDF
    lays only what OCR read there (its pictures), never a second copy of the page's text."""
    if getattr(result, "text_action", "") != "text-layer":
        return result
    styles = getattr(result, "line_styles", None) or []
    lines = list(result.lines)
    if len(styles) != len(lines):
        return _LinesOf(result, [])  # sources unknown: the page's own text stands alone
    return _LinesOf(result, [ln for ln, st in zip(lines, styles) if st.get("source") == "ocr"])


def _matrix(m) -> str:
    return " ".join(_num(v) for v in m)


def _snapped(quad: np.ndarray) -> np.ndarray:
    """``quad`` (the text's corners from its top-left, pixels) as the rectangle of its size and
    centre along the nearest page axis, when its text runs within SNAP_DEGREES of one."""
    tl, tr, br, bl = quad
    angle = math.degrees(math.atan2(*(tr - tl)[::-1]))
    axis = round(angle / 90.0) * 90.0
    if abs(angle - axis) > SNAP_DEGREES:
        return quad
    w = (np.hypot(*(tr - tl)) + np.hypot(*(br - bl))) / 2
    h = (np.hypot(*(bl - tl)) + np.hypot(*(br - tr))) / 2
    u = np.array([math.cos(math.radians(axis)), math.sin(math.radians(axis))])
    v = np.array([-u[1], u[0]])  # from the text's top to its bottom (pixels: y down)
    c = quad.mean(axis=0)
    return np.array(
        [c - u * w / 2 - v * h / 2, c + u * w / 2 - v * h / 2, c + u * w / 2 + v * h / 2,
         c - u * w / 2 + v * h / 2]
    )  # fmt: skip


def _box(page) -> tuple[float, float, float, float]:
    """The box a renderer shows: the CropBox within the MediaBox (each normalised)."""

    def rect(r):
        x0, y0, x1, y1 = (float(v) for v in r)
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)

    media = rect(page.mediabox)
    if "/CropBox" not in page.obj:
        return media
    crop = rect(page.cropbox)
    box = (max(media[0], crop[0]), max(media[1], crop[1]), min(media[2], crop[2]))
    box = (*box, min(media[3], crop[3]))
    if box[2] <= box[0] or box[3] <= box[1]:
        return media
    return box


class SearchablePdf:
    """A searchable PDF built page by page from `PageResult`s (or `OcrResult`s of images).

    The first result decides the document: from a PDF, that PDF is the output, all of its pages
    kept and the read ones given a text layer; from an image, a new PDF. Results from other
    sources come after: an image as a new page, another PDF's pages appended (all of them).
    ``source`` overrides the results' ``source`` (needed for bytes, arrays and PIL images, whose
    results say only "PDF bytes" or "image bytes"); ``password`` opens encrypted PDFs (the output
    keeps their encryption).
    """

    def __init__(self, *, source=None, password: str | None = None):
        self.pikepdf = _pikepdf()
        self.source_override = source
        self.password = password
        self.out: _Target | None = None  # the output document
        self.inputs: dict = {}  # source key -> (pikepdf.Pdf, index of its first page in output)
        self.part: _Target | None = None  # image pages not yet moved to a file
        self.part_pages = 0
        self.parts: list = []  # parts written to files and reopened (their data stays there)
        self.tmpdir: str | None = None
        self.pages_with_text = 0
        self.layers_removed = 0  # edgeocr's earlier text layers taken out (redo_ocr)
        self.encrypted = False

    # -- sources ------------------------------------------------------------
    def _source(self, result):
        src = self.source_override if self.source_override is not None else result.source
        if src is None:
            raise InvalidInputError(
                "a PDF needs the pages' source: this result has none (pass source=)"
            )
        return src

    def _key(self, src):
        return os.fspath(src) if isinstance(src, (str, os.PathLike)) else id(src)

    def _open_pdf(self, src):
        pikepdf = self.pikepdf
        fp = io.BytesIO(bytes(src)) if isinstance(src, (bytes, bytearray, memoryview)) else src
        try:
            return pikepdf.open(fp, password=self.password or "")
        except pikepdf.PasswordError as e:
            raise DocumentError(f"{self._name(src)}: the PDF needs its password: {e}") from None
        except (pikepdf.PdfError, OSError, ValueError) as e:
            raise DocumentError(f"{self._name(src)}: qpdf cannot read the PDF ({e})") from None

    @staticmethod
    def _name(src) -> str:
        return os.fspath(src) if isinstance(src, (str, os.PathLike)) else type(src).__name__

    def _pdf_input(self, src):
        key = self._key(src)
        if key in self.inputs:
            return self.inputs[key]
        doc = self._open_pdf(src)
        if self.out is None:  # the first source: the output is this PDF, edited
            self.out = _Target(doc)
            self.encrypted = bool(doc.is_encrypted)
            entry = (doc, 0)
        else:
            self._flush_part()  # image pages before this PDF's pages
            entry = (doc, len(self.out.pdf.pages))
            self.out.pdf.pages.extend(doc.pages)
        self.inputs[key] = entry
        return entry

    def _output(self) -> _Target:
        if self.out is None:
            self.out = _Target(self.pikepdf.new())
        return self.out

    # -- pages ----------------------------------------------------------------
    def add(self, result) -> None:
        """Lay ``result``'s words on its page (adding the page first for an image)."""
        src = self._source(result)
        page_index = int(getattr(result, "page", 0) or 0)
        failed = getattr(result, "error", None) is not None
        if is_pdf_source(src):
            doc, first = self._pdf_input(src)
            if not 0 <= page_index < len(doc.pages):
                raise DocumentError(
                    f"{self._name(src)}: page {page_index + 1} is not in the PDF "
                    f"({len(doc.pages)} pages)"
                )
            if not failed:
                page = self.out.pdf.pages[first + page_index]
                if getattr(result, "text_action", "") == "redo":
                    self.layers_removed += remove_edgeocr_layer(page)
                self._lay(page, _not_from_layer(result), self.out)
            return
        if failed:
            return  # an image page that could not be read has no pixels to make a page of
        self._output()
        if self.part is None:
            self.part = _Target(self.pikepdf.new())
        page = self._image_page(result, src, page_index, self.part.pdf)
        self._lay(page, result, self.part)
        self.part_pages += 1
        if self.part_pages >= PART_PAGES:
            self._flush_part()

    def _flush_part(self) -> None:
        """Move the image pages made so far to a file and append them to the output from there:
        qpdf copies their images into the output when it is written, so they are not held in
        memory meanwhile."""
        if self.part is None:
            return
        import tempfile

        if self.tmpdir is None:
            self.tmpdir = tempfile.mkdtemp(prefix="edgeocr-pdf-")
        path = os.path.join(self.tmpdir, f"part{len(self.parts)}.pdf")
        self.part.finish()
        self.part.pdf.save(path)
        self.part.pdf.close()
        self.part, self.part_pages = None, 0
        doc = self.pikepdf.open(path)
        self.parts.append(doc)
        self._output().pdf.pages.extend(doc.pages)

    def add_blank(self, result, width_pt: float, height_pt: float) -> None:
        """A page of ``width_pt`` x ``height_pt`` holding only ``result``'s text layer, in one
        content stream with the font as /F1: the text-only page OCRmyPDF's sandwich renderer
        grafts onto its own page (it looks the font up by that name)."""
        pikepdf = self.pikepdf
        from pikepdf import Array, Dictionary, Name

        out = self._output()
        width, height = page_size(result)
        content = b""
        if width > 0 and height > 0 and getattr(result, "error", None) is None:
            box = (0.0, 0.0, width_pt, height_pt)
            content = text_layer(result, PixelsToPoints(width, height, box), "/F1", out.cids)
        page = Dictionary(
            Type=Name.Page,
            MediaBox=Array([0, 0, width_pt, height_pt]),
            Resources=Dictionary(Font=Dictionary(F1=out.font_object())),
            Contents=pikepdf.Stream(out.pdf, content),
        )
        out.pdf.pages.append(pikepdf.Page(page))

    def _lay(self, page, result, target: _Target) -> None:
        width, height = page_size(result)
        if width <= 0 or height <= 0:
            return
        pikepdf = self.pikepdf
        rotate = int(page.obj.get("/Rotate", 0)) if "/Rotate" in page.obj else 0
        if rotate % 90:
            rotate = 0  # not a valid /Rotate: renderers ignore it
        name = self._font_name(page, target.font_object())
        content = text_layer(
            result, PixelsToPoints(width, height, _box(page), rotate), name, target.cids
        )
        if not content:
            return
        page.contents_add(pikepdf.Stream(target.pdf, b"q\n"), prepend=True)
        page.contents_add(pikepdf.Stream(target.pdf, b"\nQ\n" + content))
        self.pages_with_text += 1

    def _font_name(self, page, font) -> str:
        pikepdf = self.pikepdf
        resources = page.resources
        fonts = resources.get("/Font")
        name, k = FONT_RESOURCE, 0
        while fonts is not None and name in fonts:
            if fonts[name].is_indirect and fonts[name].objgen == font.objgen:
                return name  # shared resources: already there
            k += 1
            name = f"{FONT_RESOURCE}{k}"
        page.add_resource(font, pikepdf.Name.Font, name=pikepdf.Name(name))
        return name

    def _image_page(self, result, src, index: int, pdf):
        pikepdf = self.pikepdf
        from pikepdf import Array, Dictionary, Name

        width, height = page_size(result)
        w_pt = float(getattr(result, "width_pt", 0) or 0)
        h_pt = float(getattr(result, "height_pt", 0) or 0)
        if not (w_pt > 0 and h_pt > 0):  # an OcrResult of an image: its dpi, else 72
            dpi = float(getattr(result, "dpi", 0) or 72.0)
            w_pt, h_pt = width * 72.0 / dpi, height * 72.0 / dpi
        image = self._image_xobject(src, index, width, height, pdf)
        content = f"q {_num(w_pt)} 0 0 {_num(h_pt)} 0 0 cm /Im0 Do Q\n".encode("ascii")
        page = Dictionary(
            Type=Name.Page,
            MediaBox=Array([0, 0, w_pt, h_pt]),
            Resources=Dictionary(XObject=Dictionary(Im0=image)),
            Contents=pikepdf.Stream(pdf, content),
        )
        pdf.pages.append(pikepdf.Page(page))
        return pdf.pages[-1]

    def _image_xobject(self, src, index: int, width: int, height: int, pdf):
        pikepdf = self.pikepdf
        from pikepdf import Name

        jpeg = _jpeg_bytes(src, index, width, height)
        if jpeg is not None:
            data, colorspace = jpeg
            stream = pikepdf.Stream(pdf, data)
            stream.Filter = Name.DCTDecode
            return self._image_dict(stream, width, height, colorspace, 8)
        img = _page_pixels(src, index)
        if img.shape[0] != height or img.shape[1] != width:
            raise DocumentError(
                f"{self._name(src)}: page {index + 1} is {img.shape[1]}x{img.shape[0]} pixels now, "
                f"{width}x{height} when it was read"
            )
        alpha = None
        if img.ndim == 3 and img.shape[2] in (2, 4):
            alpha = np.ascontiguousarray(img[:, :, -1])
            img = img[:, :, 0] if img.shape[2] == 2 else img[:, :, :3]
        if img.ndim == 3 and img.shape[2] == 1:
            img = img[:, :, 0]
        if img.ndim == 2:
            if np.all((img == 0) | (img == 255)):  # black and white: 1 bit per pixel
                data, bpc = np.packbits(img > 127, axis=1).tobytes(), 1
            else:
                data, bpc = np.ascontiguousarray(img).tobytes(), 8
            colorspace = Name.DeviceGray
        else:
            data, bpc = np.ascontiguousarray(img[:, :, ::-1]).tobytes(), 8  # BGR -> RGB
            colorspace = Name.DeviceRGB
        stream = pikepdf.Stream(pdf, zlib.compress(data, 6))
        stream.Filter = Name.FlateDecode
        xobj = self._image_dict(stream, width, height, colorspace, bpc)
        if alpha is not None and not np.all(alpha == 255):
            mask = pikepdf.Stream(pdf, zlib.compress(alpha.tobytes(), 6))
            mask.Filter = Name.FlateDecode
            xobj.SMask = self._image_dict(mask, width, height, Name.DeviceGray, 8)
        return xobj

    @staticmethod
    def _image_dict(stream, width, height, colorspace, bpc):
        from pikepdf import Name

        stream.Type = Name.XObject
        stream.Subtype = Name.Image
        stream.Width = width
        stream.Height = height
        stream.ColorSpace = colorspace
        stream.BitsPerComponent = bpc
        return stream

    # -- output -----------------------------------------------------------------
    def save(self, fileobj) -> None:
        """Write the PDF to ``fileobj`` (a binary file open for writing)."""
        pikepdf = self.pikepdf
        self._flush_part()
        out = self._output()
        if len(out.pdf.pages) == 0:
            raise InvalidInputError("no pages to write: none were read, or none could be decoded")
        out.finish()
        out.pdf.save(
            fileobj,
            encryption=True if self.encrypted else False,
            object_stream_mode=pikepdf.ObjectStreamMode.preserve,
        )

    def close(self) -> None:
        """Close every file this writer opened and remove its temporary files."""
        import shutil

        docs = [doc for doc, _ in self.inputs.values()] + self.parts
        for t in (self.part, self.out):
            if t is not None and all(t.pdf is not d for d in docs):
                docs.append(t.pdf)
        for doc in docs:
            doc.close()
        self.inputs, self.parts, self.part, self.out = {}, [], None, None
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None


class _Target:
    """A PDF being written and the text layer's font in it (made on first use)."""

    def __init__(self, pdf):
        self.pdf = pdf
        self.cids = CidAllocator()
        self.font = None

    def font_object(self):
        if self.font is None:
            self.font = add_font(self.pdf, self.cids)
        return self.font

    def finish(self) -> None:
        if self.font is not None:
            finish_font(self.font, self.cids)


def _jpeg_bytes(src, index: int, width: int, height: int):
    """(the file's bytes, its PDF colour space) when page ``index`` of ``src`` is a whole JPEG
    file of this size in gray or RGB (kept as it is), else None."""
    if index != 0 or not isinstance(src, (str, os.PathLike, bytes, bytearray, memoryview)):
        return None
    from pikepdf import Name
    from PIL import Image

    try:
        if isinstance(src, (str, os.PathLike)):
            with open(src, "rb") as f:
                data = f.read()
        else:
            data = bytes(src)
        if data[:2] != b"\xff\xd8":
            return None
        with Image.open(io.BytesIO(data)) as im:
            if im.format != "JPEG" or im.size != (width, height):
                return None
            spaces = {"L": Name.DeviceGray, "RGB": Name.DeviceRGB}
            if im.mode not in spaces:
                return None  # CMYK (Adobe's inverted convention) and others: lossless pixels
            return data, spaces[im.mode]
    except (OSError, ValueError, SyntaxError):
        return None


def _page_pixels(src, index: int) -> np.ndarray:
    """The pixels of page ``index`` of the image (or multi-frame image) ``src``, decoded as
    `Predictor.predict_pages` decoded them."""
    if isinstance(src, str) and not os.path.exists(src):
        raise InvalidInputError(
            f"{src}: the page's image is needed for the PDF and this is not a file "
            "(pass source= the image: bytes, array or PIL image)"
        )
    doc = open_document(src)
    try:
        page = doc.read(index)
    finally:
        doc.close()
    if page.image is None:
        raise page.error or DocumentError(f"page {index + 1} cannot be read")
    return page.image
