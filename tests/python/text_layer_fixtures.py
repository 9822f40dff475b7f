"""PDFs written byte by byte for the text-layer tests (tests/python/test_pdf_text_layer.py):
real text in the standard fonts, ruled tables, rotated pages and text, invisible layers over
"scans", fonts whose ToUnicode maps lie or map nowhere, text far outside the page, and hostile
sizes (100,000 characters on a page, a table of 10,000 cells).

Nothing here uses PDFium (the reader under test): the files are written by hand, a "scan" is a
Pillow drawing stored as a Flate image.
"""

from __future__ import annotations

import zlib
from pathlib import Path


class PdfWriter:
    """A PDF of numbered objects, written with a correct cross-reference table."""

    def __init__(self):
        self.objs: list[bytes | None] = [None, None]  # 1: catalog, 2: page tree
        self.pages: list[int] = []

    def add(self, body: bytes) -> int:
        self.objs.append(body)
        return len(self.objs)

    def stream(self, data: bytes, dictionary: bytes = b"", compress: bool = False) -> int:
        if compress:
            data = zlib.compress(data)
            dictionary += b" /Filter /FlateDecode"
        return self.add(
            b"<< /Length %d %s >>\nstream\n" % (len(data), dictionary) + data + b"\nendstream"
        )

    def page(
        self,
        size: tuple[float, float],
        content: bytes,
        fonts: dict[str, int] | None = None,
        xobjects: dict[str, int] | None = None,
        extra: bytes = b"",
    ) -> int:
        res = b""
        if fonts:
            res += (
                b"/Font << "
                + b" ".join(b"/%s %d 0 R" % (k.encode(), v) for k, v in fonts.items())
                + b" >> "
            )
        if xobjects:
            res += (
                b"/XObject << "
                + b" ".join(b"/%s %d 0 R" % (k.encode(), v) for k, v in xobjects.items())
                + b" >> "
            )
        contents = self.stream(content, compress=len(content) > 4096)
        num = self.add(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents %d 0 R "
            b"/Resources << %s>> %s>>" % (size[0], size[1], contents, res, extra)
        )
        self.pages.append(num)
        return num

    def write(self, path) -> Path:
        self.objs[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
        kids = b" ".join(b"%d 0 R" % p for p in self.pages)
        self.objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(self.pages))
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for k, body in enumerate(self.objs, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.objs) + 1)
        out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
        out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
            len(self.objs) + 1,
            xref,
        )
        Path(path).write_bytes(bytes(out))
        return Path(path)


def standard_font(w: PdfWriter, name: str = "Helvetica", to_unicode: int | None = None) -> int:
    extra = b" /ToUnicode %d 0 R" % to_unicode if to_unicode else b""
    return w.add(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding%s >>"
        % (name.encode(), extra)
    )


def to_unicode_cmap(w: PdfWriter, mapping: dict[int, int]) -> int:
    """A ToUnicode CMap stream mapping one-byte codes to the code points given."""
    lines = b"".join(b"<%02X> <%04X>\n" % (c, u) for c, u in sorted(mapping.items()))
    data = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        b"/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"%d beginbfchar\n" % len(mapping) + lines + b"endbfchar\n"
        b"endcmap CMapName currentdict /CMap defineresource pop end end\n"
    )
    return w.stream(data)


def scrambled(ch: str) -> str:
    """The letter a lying ToUnicode map gives for ``ch``: letters moved 7 places, digits 3."""
    if "a" <= ch <= "z":
        return chr((ord(ch) - 97 + 7) % 26 + 97)
    if "A" <= ch <= "Z":
        return chr((ord(ch) - 65 + 7) % 26 + 65)
    if "0" <= ch <= "9":
        return chr((ord(ch) - 48 + 3) % 10 + 48)
    return ch


def _esc(text: str) -> bytes:
    return (
        text.encode("latin-1").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    )


def text_ops(lines, font: str = "F1", size: float = 12, mode: int = 0) -> bytes:
    """A text object drawing each (x, y, text) at its place (points, from the bottom left)."""
    out = [b"BT /%s %g Tf %d Tr" % (font.encode(), size, mode)]
    for x, y, text in lines:
        out.append(b"1 0 0 1 %g %g Tm (%s) Tj" % (x, y, _esc(text)))
    out.append(b"ET")
    return b"\n".join(out) + b"\n"


# Three paragraphs and a heading, as a page of a report.
REPORT_LINES = [
    "Quarterly results of the northern region",
    "Revenue grew by twelve percent over the quarter",
    "while operating costs stayed close to the plan",
    "agreed with the board in January of this year.",
    "The new warehouse in Leeds opened in March and",
    "now handles most of the orders from Scotland.",
]


def report_page(path, *, rotate: int = 0, crop: tuple | None = None) -> Path:
    """A born-digital page: a bold heading at 18 pt, body text at 11 pt in Helvetica, a ruled
    table of 3 x 3 cells, two columns of text at the bottom. ``rotate``: /Rotate; ``crop``: a
    CropBox."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    f2 = standard_font(w, "Helvetica-Bold")
    content = text_ops([(72, 720, "Annual Report 2024")], "F2", 18)
    content += text_ops([(72, 690 - 16 * k, t) for k, t in enumerate(REPORT_LINES)], "F1", 11)
    # a ruled table: 3 rows x 3 columns, 0.8 pt lines
    x0, y0, cw, rh = 72, 480, 130, 24
    rules = [b"0.8 w 0 G"]
    for r in range(4):
        rules.append(b"%g %g m %g %g l S" % (x0, y0 - r * rh, x0 + 3 * cw, y0 - r * rh))
    for c in range(4):
        rules.append(b"%g %g m %g %g l S" % (x0 + c * cw, y0, x0 + c * cw, y0 - 3 * rh))
    content += b"\n".join(rules) + b"\n"
    cells = [["Region", "Sales", "Growth"], ["North", "1250", "12%"], ["South", "980", "4%"]]
    content += text_ops(
        [(x0 + 6 + c * cw, y0 - 17 - r * rh, cells[r][c]) for r in range(3) for c in range(3)],
        "F1",
        11,
    )
    # two columns with a narrow gutter (12 pt: about one em of 11 pt text)
    left = ["Sales in the north rose", "as the new depot opened", "early in the second month"]
    right = ["Costs in the south fell", "after the old lease ended", "and staff moved to Leeds"]
    content += text_ops([(72, 360 - 14 * k, t) for k, t in enumerate(left)], "F1", 11)
    content += text_ops([(72 + 125 + 12, 360 - 14 * k, t) for k, t in enumerate(right)], "F1", 11)
    extra = b""
    if rotate:
        extra += b"/Rotate %d " % rotate
    if crop:
        extra += b"/CropBox [%g %g %g %g] " % crop
    w.page((612, 792), content, {"F1": f1, "F2": f2}, extra=extra)
    return w.write(path)


def rotated_text_page(path, angle: int) -> Path:
    """One line of text turned by ``angle`` degrees (counter-clockwise) by its text matrix."""
    import math

    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    content = b"BT /F1 14 Tf %.6f %.6f %.6f %.6f 300 400 Tm (Turned text reads here) Tj ET\n" % (
        c,
        s,
        -s,
        c,
    )
    w.page((612, 792), content, {"F1": f1})
    return w.write(path)


def lying_font_page(path) -> Path:
    """Helvetica with a ToUnicode map that moves every letter 7 places: the page shows
    REPORT_LINES, its text layer says something else."""
    w = PdfWriter()
    mapping = {c: ord(scrambled(chr(c))) for c in range(0x20, 0x7F)}
    f1 = standard_font(w, "Helvetica", to_unicode_cmap(w, mapping))
    content = text_ops([(72, 700 - 22 * k, t) for k, t in enumerate(REPORT_LINES)], "F1", 14)
    w.page((612, 792), content, {"F1": f1})
    return w.write(path)


def unmapped_font_page(path) -> Path:
    """Helvetica whose ToUnicode maps every code to a private-use code point (as fonts of glyph
    ids do): the text layer has no usable characters."""
    w = PdfWriter()
    f1 = standard_font(
        w, "Helvetica", to_unicode_cmap(w, {c: 0xE000 + c for c in range(0x20, 0x7F)})
    )
    content = text_ops([(72, 700 - 22 * k, t) for k, t in enumerate(REPORT_LINES)], "F1", 14)
    w.page((612, 792), content, {"F1": f1})
    return w.write(path)


def _scan_image(lines, size_px: tuple[int, int], font_px: int) -> bytes:
    """A gray "scan" with ``lines`` of text drawn by Pillow at (x, y) pixels."""
    from PIL import Image, ImageDraw, ImageFont

    im = Image.new("L", size_px, 255)
    draw = ImageDraw.Draw(im)
    font = ImageFont.load_default(size=font_px)
    for x, y, text in lines:
        draw.text((x, y), text, fill=0, font=font)
    return im.tobytes()


def scan_page(path, shown, layer, *, under: bool = False) -> Path:
    """A scanned page: an image showing the lines ``shown`` with an invisible (render mode 3)
    text layer of ``layer`` over it, at the same places (one line each), as OCR tools write
    them. ``under``: the layer is drawn in render mode 0 before the image, which covers it."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    dpi = 150
    px = (int(612 * dpi / 72), int(792 * dpi / 72))
    place = [(72, 700 - 30 * k) for k in range(len(shown))]
    img_lines = [
        (int(x * dpi / 72), int((792 - y - 15) * dpi / 72), t) for (x, y), t in zip(place, shown)
    ]
    data = _scan_image(img_lines, px, int(18 * dpi / 72))
    img = w.stream(
        data,
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8" % px,
        compress=True,
    )
    image_op = b"q 612 0 0 792 0 0 cm /Im1 Do Q\n"
    text = text_ops([(x, y, t) for (x, y), t in zip(place, layer)], "F1", 18, 0 if under else 3)
    content = text + image_op if under else image_op + text
    w.page((612, 792), content, {"F1": f1}, {"Im1": img})
    return w.write(path)


def visible_and_invisible_page(path) -> Path:
    """Visible text (four lines) in one text object, different invisible text (render mode 3, two
    lines) in another."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    content = text_ops([(72, 700 - 22 * k, t) for k, t in enumerate(REPORT_LINES[:4])], "F1", 14)
    content += text_ops(
        [(72, 500 - 22 * k, t) for k, t in enumerate(REPORT_LINES[4:])], "F1", 14, 3
    )
    w.page((612, 792), content, {"F1": f1})
    return w.write(path)


def outside_page(path, inside: int = 1, outside: int = 200) -> Path:
    """``inside`` lines on the page and ``outside`` lines far outside it (x = -30000 and y = 1e6
    points)."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    lines = [(72, 700 - 16 * k, REPORT_LINES[k % len(REPORT_LINES)]) for k in range(inside)]
    lines += [
        (-30000 + 10 * k, 1e6 - 16 * k, "hidden keyword stuffing far away") for k in range(outside)
    ]
    w.page((612, 792), text_ops(lines, "F1", 11), {"F1": f1})
    return w.write(path)


def many_chars_page(path, n_chars: int = 100_000, covers: int = 0) -> Path:
    """One page holding ``n_chars`` characters: lines of 100 characters at 2 pt, in one text
    object per line; then ``covers`` white rectangles over the whole page."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    per = 100
    text = ("abcdefghij" * 10)[:per]
    n_lines = n_chars // per
    ops = [b"BT /F1 2 Tf"]
    for k in range(n_lines):
        col, row = divmod(k, 380)
        ops.append(b"1 0 0 1 %g %g Tm (%s) Tj" % (10 + col * 120, 780 - row * 2.05, text.encode()))
    ops.append(b"ET")
    ops += [b"1 g 0 0 1836 792 re f"] * covers
    w.page((612 * 3, 792), b"\n".join(ops), {"F1": f1})
    return w.write(path)


def big_table_page(path, rows: int = 100, cols: int = 100) -> Path:
    """A table of rows x cols cells: every cell a stroked rectangle (its own path) and a number
    (its own text object)."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    cw, rh = 20, 7.5
    ops = [b"0.3 w"]
    for r in range(rows):
        for c in range(cols):
            ops.append(b"%g %g %g %g re S" % (20 + c * cw, 20 + r * rh, cw, rh))
    for r in range(rows):
        for c in range(cols):
            ops.append(
                b"BT /F1 4 Tf %g %g Td (%d) Tj ET" % (22 + c * cw, 22 + r * rh, r * cols + c)
            )
    w.page((40 + cols * cw, 40 + rows * rh), b"\n".join(ops), {"F1": f1})
    return w.write(path)


def degenerate_page(path) -> Path:
    """Text in matrices and sizes that mean nothing: a zero matrix, a size of 0, a negative
    size, 1e30 scales, a zero horizontal scale, huge character spacing; and one good line."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    ops = [
        b"BT /F1 12 Tf 0 0 0 0 100 100 Tm (zero matrix) Tj ET",
        b"BT /F1 0 Tf 100 200 Td (size zero) Tj ET",
        b"BT /F1 -12 Tf 100 300 Td (negative size) Tj ET",
        b"BT /F1 12 Tf 1e30 0 0 1e30 100 400 Tm (huge scale) Tj ET",
        b"BT /F1 12 Tf 0 Tz 100 450 Td (no width) Tj ET",
        b"BT /F1 12 Tf 1e20 Tc 100 500 Td (spaced out) Tj ET",
        b"BT /F1 12 Tf 1e-30 0 0 1e-30 100 550 Tm (tiny scale) Tj ET",
        b"BT /F1 12 Tf 72 700 Td (A good line of text) Tj ET",
    ]
    # Each in its own graphics state (Tz and Tc would carry over to the next text object).
    w.page((612, 792), b"\n".join(b"q " + op + b" Q" for op in ops), {"F1": f1})
    return w.write(path)


def many_objects_page(path, n_paths: int = 30_000, segments: int = 300_000) -> Path:
    """``n_paths`` short stroked lines, each its own path object, one path of ``segments``
    segments, and form XObjects nested 40 deep, each drawing a line; and a line of text."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    ops = [b"0.5 w"]
    for k in range(n_paths):
        x, y = 20 + (k % 200) * 3, 20 + (k // 200) * 4
        ops.append(b"%g %g m %g %g l S" % (x, y, x + 2.5, y))
    big = [
        b"%g %g m %g %g l" % (10 + (k % 500), 10, 10 + (k % 500), 700) for k in range(segments // 2)
    ]
    ops.append(b"\n".join(big) + b" S")
    # forms nested 40 deep
    inner = None
    for _ in range(40):
        body = b"0 0 m 100 0 l S" + (b" /Fx Do" if inner else b"")
        res = b"/Resources << /XObject << /Fx %d 0 R >> >>" % inner if inner else b""
        inner = w.stream(body, b"/Type /XObject /Subtype /Form /BBox [0 0 600 800] " + res)
    ops.append(b"q 1 0 0 1 50 600 cm /Fx Do Q")
    ops.append(b"BT /F1 12 Tf 72 740 Td (Text among many objects) Tj ET")
    w.page((612, 792), b"\n".join(ops), {"F1": f1}, {"Fx": inner})
    return w.write(path)


def cid_font_page(path) -> Path:
    """A Type 0 font (Identity-H, a CIDFontType2 not embedded) without a ToUnicode map: its
    codes are glyph ids, which text extractors give as "(cid:36)" or as the code's character."""
    w = PdfWriter()
    desc = w.add(
        b"<< /Type /FontDescriptor /FontName /GlyphIds /Flags 4 /FontBBox [0 -200 1000 900] "
        b"/ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 >>"
    )
    cid = w.add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /GlyphIds /CIDSystemInfo << "
        b"/Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor %d 0 R "
        b"/DW 600 /CIDToGIDMap /Identity >>" % desc
    )
    font = w.add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /GlyphIds /Encoding /Identity-H "
        b"/DescendantFonts [%d 0 R] >>" % cid
    )
    lines = [bytes(range(0x24, 0x24 + 20)), bytes(range(0x11, 0x11 + 16))]
    ops = [b"BT /F1 14 Tf 72 700 Td"]
    for k, codes in enumerate(lines):
        hexcodes = b"".join(b"%04X" % c for c in codes)
        ops.append((b"0 -20 Td " if k else b"") + b"<" + hexcodes + b"> Tj")
    ops.append(b"ET")
    w.page((612, 792), b"\n".join(ops), {"F1": font})
    return w.write(path)


def vertical_cjk_page(path, text: str = "重要事项进展情况", columns: int = 3) -> Path:
    """Chinese written vertically (STSong-Light, UniGB-UCS2-V: one of the fonts every PDF
    reader must provide), ``columns`` columns read right to left, and one horizontal line."""
    w = PdfWriter()
    desc = w.add(
        b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 4 "
        b"/FontBBox [-250 -143 600 857] /ItalicAngle 0 /Ascent 857 /Descent -143 "
        b"/CapHeight 857 /StemV 91 >>"
    )
    cid = w.add(
        b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << "
        b"/Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /FontDescriptor %d 0 R /DW 1000 >>"
        % desc
    )
    fonts = {}
    for name, enc in (("FV", b"UniGB-UCS2-V"), ("FH", b"UniGB-UCS2-H")):
        fonts[name] = w.add(
            b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /%s "
            b"/DescendantFonts [%d 0 R] >>" % (enc, cid)
        )
    codes = "".join(f"{ord(c):04X}" for c in text).encode()
    ops = []
    for k in range(columns):
        ops.append(b"BT /FV 20 Tf %g 700 Td <%s> Tj ET" % (400 - 40 * k, codes))
    ops.append(b"BT /FH 20 Tf 100 200 Td <%s> Tj ET" % codes)
    w.page((612, 792), b"\n".join(ops), fonts)
    return w.write(path)


def redacted_page(path) -> Path:
    """REPORT_LINES with the second line under a black box and the fourth under a white box,
    both drawn after the text (a redaction that left the text in the file, a white-out), and a
    grey shading drawn before the fifth line (a background: the line shows)."""
    w = PdfWriter()
    f1 = standard_font(w, "Helvetica")
    ys = [700 - 22 * k for k in range(len(REPORT_LINES))]
    ops = [b"0.85 g 60 %g 420 20 re f 0 g" % (ys[4] - 5)]
    ops.append(text_ops([(72, y, t) for y, t in zip(ys, REPORT_LINES)], "F1", 14))
    ops.append(b"0 g 60 %g 420 20 re f" % (ys[1] - 5))
    ops.append(b"1 g 60 %g 420 20 re f" % (ys[3] - 5))
    w.page((612, 792), b"\n".join(ops), {"F1": f1})
    return w.write(path)
