"""The invisible text layer's font: a glyphless TrueType font, built here, embedded as a Type 0
font (CIDFontType2, Identity-H) with a ToUnicode CMap.

Every character of the text layer is a CID of its own, given in order of first use (so any
Unicode character, Chinese and those outside the Basic Multilingual Plane included, costs two
bytes in the content stream); every CID draws the font's one glyph, which has an advance of half
an em and no outline. Readers (pdftotext, PDFium, browsers, copy and paste) take the text from
the ToUnicode CMap, and nothing is drawn: the layer is also written in text render mode 3
(invisible). Why this rather than a real font: the page image is what people see, so the layer
needs no shapes, and a glyphless font is a few hundred bytes, the same for every script
(docs/documents.md, "Searchable PDF").
"""

from __future__ import annotations

import struct
import zlib

UNITS_PER_EM = 1000
ADVANCE = 500  # every glyph's advance width, font units
ASCENT, DESCENT = 800, -200  # the em box, font units: the text box runs from DESCENT to ASCENT
FONT_NAME = "EdgeOCR-Glyphless"


def _checksum(data: bytes) -> int:
    data += b"\0" * (-len(data) % 4)
    return sum(struct.unpack(f">{len(data) // 4}L", data)) & 0xFFFFFFFF


def _name_table(family: str) -> bytes:
    # Windows platform (3), Unicode BMP (1), US English (0x409): family, subfamily, full
    # name, PostScript name.
    records = [(1, family), (2, "Regular"), (4, family), (6, family)]
    strings = b""
    entries = b""
    for name_id, text in records:
        raw = text.encode("utf-16-be")
        entries += struct.pack(">6H", 3, 1, 0x409, name_id, len(raw), len(strings))
        strings += raw
    header = struct.pack(">3H", 0, len(records), 6 + 12 * len(records))
    return header + entries + strings


def glyphless_truetype() -> bytes:
    """A TrueType font with two empty glyphs (.notdef and the one every CID draws), both
    ADVANCE wide, and the tables PDF readers and font libraries look for."""
    n_glyphs = 2
    head = struct.pack(
        ">2HlLL2H2q4h2H3h",
        1,  # majorVersion
        0,  # minorVersion
        0x00010000,  # fontRevision 1.0
        0,  # checkSumAdjustment, set below
        0x5F0F3CF5,  # magicNumber
        0x000B,  # flags: baseline at y=0, lsb at x=0, integer scaling
        UNITS_PER_EM,
        0,  # created
        0,  # modified
        0,  # xMin
        DESCENT,  # yMin
        ADVANCE,  # xMax
        ASCENT,  # yMax
        0,  # macStyle
        8,  # lowestRecPPEM
        2,  # fontDirectionHint
        0,  # indexToLocFormat: short offsets
        0,  # glyphDataFormat
    )
    hhea = struct.pack(
        ">2H3hH3h3h4hhH",
        1,
        0,
        ASCENT,
        DESCENT,
        0,  # lineGap
        ADVANCE,  # advanceWidthMax
        0,  # minLeftSideBearing
        0,  # minRightSideBearing
        0,  # xMaxExtent
        1,  # caretSlopeRise
        0,  # caretSlopeRun
        0,  # caretOffset
        0,
        0,
        0,
        0,  # reserved
        0,  # metricDataFormat
        n_glyphs,  # numberOfHMetrics
    )
    maxp = struct.pack(">L14H", 0x00010000, n_glyphs, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0)
    hmtx = struct.pack(">HhHh", ADVANCE, 0, ADVANCE, 0)
    loca = struct.pack(">3H", 0, 0, 0)  # both glyphs empty
    glyf = b"\0\0\0\0"  # not used (every glyph is empty); some parsers want the table present
    # cmap: one format 4 subtable with only the closing segment (glyphs are reached by CID).
    fmt4 = struct.pack(">7H", 4, 24, 0, 2, 2, 0, 0) + struct.pack(">4H", 0xFFFF, 0, 0xFFFF, 1)
    fmt4 += struct.pack(">H", 0)  # idRangeOffset
    cmap = struct.pack(">2H", 0, 1) + struct.pack(">2HL", 3, 1, 12) + fmt4
    post = struct.pack(">LlhhL4L", 0x00030000, 0, -100, 50, 0, 0, 0, 0, 0)
    os2 = struct.pack(
        ">Hh2H12h10s4L4s3H5h2L2h3H",
        4,  # version
        ADVANCE,  # xAvgCharWidth
        400,  # usWeightClass
        5,  # usWidthClass
        0,  # fsType: installable
        650,
        700,
        0,
        140,  # subscript
        650,
        700,
        0,
        480,  # superscript
        50,  # strikeout size
        300,  # strikeout position
        0,  # sFamilyClass
        b"\0" * 10,  # panose
        0,
        0,
        0,
        0,  # unicode ranges
        b"EOCR",  # achVendID
        0x0040,  # fsSelection: regular
        0,  # usFirstCharIndex
        0xFFFF,  # usLastCharIndex
        ASCENT,  # sTypoAscender
        DESCENT,  # sTypoDescender
        0,  # sTypoLineGap
        ASCENT,  # usWinAscent
        -DESCENT,  # usWinDescent
        1,
        0,  # code page ranges: Latin 1
        0,  # sxHeight
        0,  # sCapHeight
        0,  # usDefaultChar
        32,  # usBreakChar
        1,  # usMaxContext
    )
    tables = {
        b"OS/2": os2,
        b"cmap": cmap,
        b"glyf": glyf,
        b"head": head,
        b"hhea": hhea,
        b"hmtx": hmtx,
        b"loca": loca,
        b"maxp": maxp,
        b"name": _name_table(FONT_NAME),
        b"post": post,
    }
    n = len(tables)
    entry_selector = n.bit_length() - 1
    search_range = 16 << entry_selector
    directory = struct.pack(
        ">L4H", 0x00010000, n, search_range, entry_selector, n * 16 - search_range
    )
    offset = 12 + 16 * n
    records, body, at = b"", b"", 0
    for tag in sorted(tables):
        data = tables[tag]
        if tag == b"head":
            at = offset + len(body) + 8  # checkSumAdjustment's place
        records += struct.pack(">4sLLL", tag, _checksum(data), offset + len(body), len(data))
        body += data + b"\0" * (-len(data) % 4)
    font = directory + records + body
    adjust = (0xB1B0AFBA - _checksum(font)) & 0xFFFFFFFF
    return font[:at] + struct.pack(">L", adjust) + font[at + 4 :]


class CidAllocator:
    """CIDs for characters, in order of first use (CID 0 is .notdef and never given)."""

    def __init__(self):
        self.cids: dict[str, int] = {}

    def encode(self, text: str) -> bytes:
        """``text`` as Identity-H codes: two bytes per character."""
        out = bytearray()
        for ch in text:
            cid = self.cids.get(ch)
            if cid is None:
                cid = len(self.cids) + 1
                if cid > 0xFFFF:
                    cid = 0  # past 65535 distinct characters: drawn, but not extractable
                else:
                    self.cids[ch] = cid
            out += cid.to_bytes(2, "big")
        return bytes(out)

    def to_unicode_cmap(self) -> bytes:
        """The ToUnicode CMap of the CIDs given so far (UTF-16BE, surrogate pairs above U+FFFF)."""
        lines = [
            "/CIDInit /ProcSet findresource begin",
            "12 dict begin",
            "begincmap",
            "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
            "/CMapName /Adobe-Identity-UCS def",
            "/CMapType 2 def",
            "1 begincodespacerange",
            "<0000> <FFFF>",
            "endcodespacerange",
        ]
        items = sorted((cid, ch) for ch, cid in self.cids.items())
        for i in range(0, len(items), 100):  # at most 100 entries per block
            block = items[i : i + 100]
            lines.append(f"{len(block)} beginbfchar")
            for cid, ch in block:
                lines.append(f"<{cid:04X}> <{ch.encode('utf-16-be').hex().upper()}>")
            lines.append("endbfchar")
        lines += [
            "endcmap",
            "CMapName currentdict /CMap defineresource pop",
            "end",
            "end",
        ]
        return ("\n".join(lines) + "\n").encode("ascii")

    def cid_to_gid_map(self) -> bytes:
        """Every CID given so far to glyph 1 (CID 0 to glyph 0)."""
        return b"\0\0" + b"\0\1" * len(self.cids)


def add_font(pdf, cids: CidAllocator):
    """The Type 0 font for ``pdf`` (a pikepdf.Pdf), its ToUnicode and CID-to-glyph map
    written from ``cids`` by :func:`finish_font` once every page is laid out."""
    import pikepdf
    from pikepdf import Array, Dictionary, Name

    font_file = pikepdf.Stream(pdf, zlib.compress(glyphless_truetype()))
    font_file.Filter = Name.FlateDecode
    font_file.Length1 = len(glyphless_truetype())
    descriptor = pdf.make_indirect(
        Dictionary(
            Type=Name.FontDescriptor,
            FontName=Name("/" + FONT_NAME),
            Flags=4,  # symbolic
            FontBBox=Array([0, DESCENT, ADVANCE, ASCENT]),
            ItalicAngle=0,
            Ascent=ASCENT,
            Descent=DESCENT,
            CapHeight=ASCENT,
            StemV=80,
            FontFile2=font_file,
        )
    )
    cid_to_gid = pikepdf.Stream(pdf, b"")
    to_unicode = pikepdf.Stream(pdf, b"")
    cid_font = pdf.make_indirect(
        Dictionary(
            Type=Name.Font,
            Subtype=Name.CIDFontType2,
            BaseFont=Name("/" + FONT_NAME),
            CIDSystemInfo=Dictionary(Registry="Adobe", Ordering="Identity", Supplement=0),
            FontDescriptor=descriptor,
            DW=ADVANCE,
            CIDToGIDMap=cid_to_gid,
        )
    )
    return pdf.make_indirect(
        Dictionary(
            Type=Name.Font,
            Subtype=Name.Type0,
            BaseFont=Name("/" + FONT_NAME),
            Encoding=Name("/Identity-H"),
            DescendantFonts=Array([cid_font]),
            ToUnicode=to_unicode,
        )
    )


def finish_font(font, cids: CidAllocator) -> None:
    """Write the ToUnicode CMap and the CID-to-glyph map of ``font`` (from :func:`add_font`)."""
    from pikepdf import Name

    font.ToUnicode.write(zlib.compress(cids.to_unicode_cmap()), filter=Name.FlateDecode)
    font.DescendantFonts[0].CIDToGIDMap.write(
        zlib.compress(cids.cid_to_gid_map()), filter=Name.FlateDecode
    )
