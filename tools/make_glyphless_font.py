#!/usr/bin/env python3
"""Build edgeocr/data/glyphless.ttf: the searchable PDF's glyphless TrueType font.

Two glyphs (.notdef and the one every CID of the text layer draws), both ADVANCE font units
wide and without an outline, and the tables PDF readers and font libraries look for (OS/2,
cmap, glyf, head, hhea, hmtx, loca, maxp, name, post). The metrics and the name are those of
``edgeocr.documents.font`` (UNITS_PER_EM, ADVANCE, ASCENT, DESCENT, FONT_NAME), which writes the
PDF's font dictionaries around this file. The output is deterministic (no timestamps), so the
file is committed and shipped in the wheel and the sdist:

    python tools/make_glyphless_font.py            # writes edgeocr/data/glyphless.ttf
    python tools/make_glyphless_font.py --check    # exits 1 if the committed file differs

tests/python/test_documents_out.py checks that the committed file equals what this builds and
that fontTools reads it as a valid font with those glyphs and metrics.
"""

from __future__ import annotations

import argparse
import importlib.util
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "edgeocr" / "data" / "glyphless.ttf"


def _font_module():
    """edgeocr/documents/font.py of this checkout, loaded on its own (it imports nothing of
    edgeocr at module level), so this tool needs no compiled core."""
    spec = importlib.util.spec_from_file_location(
        "_edgeocr_font", REPO / "edgeocr" / "documents" / "font.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_FONT = _font_module()
UNITS_PER_EM, ADVANCE = _FONT.UNITS_PER_EM, _FONT.ADVANCE
ASCENT, DESCENT, FONT_NAME = _FONT.ASCENT, _FONT.DESCENT, _FONT.FONT_NAME


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--check", action="store_true", help="compare with the file on disk, write nothing"
    )
    args = ap.parse_args(argv)
    font = glyphless_truetype()
    if args.check:
        if not OUT.is_file() or OUT.read_bytes() != font:
            print(f"{OUT} differs from what {Path(__file__).name} builds", file=sys.stderr)
            return 1
        print(f"{OUT}: up to date ({len(font)} bytes)")
        return 0
    OUT.write_bytes(font)
    print(f"wrote {OUT} ({len(font)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
