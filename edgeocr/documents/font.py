"""The invisible text layer's font: a glyphless TrueType font (``edgeocr/data/glyphless.ttf``,
built once by tools/make_glyphless_font.py), embedded as a Type 0 font (CIDFontType2,
Identity-H) with a ToUnicode CMap.

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

import functools
import os
import zlib

# The font file's metrics and name (tools/make_glyphless_font.py builds the file from these; a
# test reads it back with fontTools and checks it has them).
UNITS_PER_EM = 1000
ADVANCE = 500  # every glyph's advance width, font units
ASCENT, DESCENT = 800, -200  # the em box, font units: the text box runs from DESCENT to ASCENT
FONT_NAME = "EdgeOCR-Glyphless"
_FONT_FILE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "glyphless.ttf")


@functools.lru_cache(maxsize=1)
def glyphless_truetype() -> bytes:
    """The bytes of the glyphless TrueType font (``edgeocr/data/glyphless.ttf``, built by
    tools/make_glyphless_font.py): two empty glyphs, .notdef and the one every CID draws, both
    ADVANCE wide, in an em of UNITS_PER_EM from DESCENT to ASCENT, named FONT_NAME."""
    with open(_FONT_FILE, "rb") as f:
        return f.read()


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

    font = glyphless_truetype()
    font_file = pikepdf.Stream(pdf, zlib.compress(font))
    font_file.Filter = Name.FlateDecode
    font_file.Length1 = len(font)
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
