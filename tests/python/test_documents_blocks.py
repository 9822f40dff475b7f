"""hOCR and ALTO of parsed pages (Predictor.parse / parse_pages, `edgeocr predict -m document
--format hocr|alto`): the layout regions as the formats' blocks, in reading order, every line in
exactly one block (edgeocr/documents/hocr.py and alto.py say which block each region type is);
a page of OCR lines keeps its line-per-block output; the searchable PDF of parsed pages keeps
its word layer.

The pages are tests/data/docparse's (tools/gen_doc_pages.py), parsed with the ``document`` set.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from conftest import model_set_paths

import edgeocr
from edgeocr.documents import write_document

lxml_etree = pytest.importorskip("lxml.etree", reason="lxml is not installed")

DATA = Path(__file__).resolve().parents[1] / "data"
DOCPARSE = DATA / "docparse" / "images"
PAGES = ["doc_en_2col_11.png", "doc_zh_1col_12.png", "doc_en_3col_13.jpg", "doc_en_2col_14.png"]
XHTML = "{http://www.w3.org/1999/xhtml}"
ALTO = "{http://www.loc.gov/standards/alto/ns-v4#}"

# The hOCR 1.2 classes (the spec's typesetting, float, logical, inline and engine-specific
# classes).
HOCR_CLASSES = {
    "ocr_page", "ocr_carea", "ocr_line", "ocr_separator", "ocr_noise", "ocr_float",
    "ocr_textfloat", "ocr_textimage", "ocr_image", "ocr_linedrawing", "ocr_photo", "ocr_header",
    "ocr_footer", "ocr_pageno", "ocr_table", "ocr_document", "ocr_title", "ocr_author",
    "ocr_abstract", "ocr_part", "ocr_chapter", "ocr_section", "ocr_subsection",
    "ocr_subsubsection", "ocr_display", "ocr_blockquote", "ocr_par", "ocr_linear", "ocr_caption",
    "ocr_glyph", "ocr_glyphs", "ocr_dropcap", "ocr_math", "ocr_chem", "ocr_cinfo", "ocrx_block",
    "ocrx_line", "ocrx_word",
}  # fmt: skip
# Each region type's hOCR block class (hocr.py).
HOCR_BLOCK = {"header": "ocr_header", "footer": "ocr_footer", "page_number": "ocr_pageno",
              "table": "ocr_table", "figure": "ocr_image"}  # fmt: skip


@pytest.fixture(scope="module")
def predictor():
    model_set_paths("document")
    return edgeocr.Predictor(models="document", threads=2, precision="fp32")


@pytest.fixture(scope="module")
def parsed(predictor):
    docs = [predictor.parse(str(DOCPARSE / name)) for name in PAGES]
    types = {r.type for d in docs for r in d.regions}
    # The pages hold what the writers map: furniture, headings, figures, a table.
    assert {"header", "title", "text", "figure", "table"} <= types, types
    return docs


def _text_lines(doc) -> list[list[str]]:
    """The words of each line that has text, in the blocks' order: the regions in reading
    order, each region's lines in its order, except a table with cells: its lines cell by cell
    (a line in the first cell that names it), then those no cell names."""
    index = {id(line): k for k, line in enumerate(doc.lines)}
    order = []
    for region in doc.regions:
        mine = [index[id(line)] for line in region.lines]
        table = region.table
        if table is not None and table.cells:
            first = []
            for cell in table.cells:
                first += [k for k in cell.lines if k in mine and k not in first]
            mine = first + [k for k in mine if k not in first]
        order += mine
    assert sorted(order) == list(range(len(doc.lines)))  # every line in one region
    lines = [doc.lines[k] for k in order]
    return [[str(w.text) for w in line.words if str(w.text).strip()] for line in lines
            if str(line.text).strip()]  # fmt: skip


def _bbox(el) -> tuple[int, ...]:
    m = re.search(r"bbox (-?\d+) (-?\d+) (-?\d+) (-?\d+)", el.get("title", ""))
    assert m, el.get("title")
    return tuple(int(v) for v in m.groups())


def _inside(inner, outer) -> bool:
    return (inner[0] >= outer[0] and inner[1] >= outer[1] and inner[2] <= outer[2]
            and inner[3] <= outer[3])  # fmt: skip


def _overlap(u, v) -> float:
    """hocr-check's relative overlap: the intersection over the larger box's area."""
    w, h = min(u[2], v[2]) - max(u[0], v[0]), min(u[3], v[3]) - max(u[1], v[1])

    def area(b):
        return max(0, b[2] - b[0]) * max(0, b[3] - b[1])

    return max(0, w) * max(0, h) / max(area(u), area(v), 1)


# -- hOCR ----------------------------------------------------------------------------------------


def test_hocr_regions_are_blocks_in_reading_order(tmp_path, parsed):
    out = tmp_path / "doc.hocr"
    write_document(parsed, out, "hocr")
    root = lxml_etree.parse(str(out)).getroot()  # well-formed XML (XHTML)
    caps = set(root.find(f".//{XHTML}meta[@name='ocr-capabilities']").get("content").split())
    used = {e.get("class") for e in root.iter() if (e.get("class") or "").startswith("ocr")}
    assert used <= HOCR_CLASSES, used - HOCR_CLASSES
    assert used - {"ocrx_word"} <= caps
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    pages = root.findall(f".//{XHTML}div[@class='ocr_page']")
    assert len(pages) == len(parsed)
    for page, doc in zip(pages, parsed):
        blocks = list(page)
        # One block per region, in the regions' order, of the region's class.
        assert len(blocks) == len(doc.regions)
        got_lines = []
        for block, region in zip(blocks, doc.regions):
            want = HOCR_BLOCK.get(region.type, "ocr_carea")
            assert (block.tag, block.get("class")) == (f"{XHTML}div", want), region
            lines_here = []
            for par in block:
                assert par.get("class") == "ocr_par"
                # A heading's paragraph has HTML's heading role at its level.
                assert par.tag == f"{XHTML}p"
                if region.type == "title":
                    assert par.get("role") == "heading", region
                    assert par.get("aria-level") == str(region.heading_level), region
                else:
                    assert par.get("role") is None
                assert _inside(_bbox(par), _bbox(block))
                for line in par:
                    assert line.get("class") == "ocr_line"
                    assert _inside(_bbox(line), _bbox(par))
                    words = list(line)
                    assert words and all(w.get("class") == "ocrx_word" for w in words)
                    lines_here.append([w.text for w in words])
            # The region's own lines, in its order (a table's cell by cell when it has cells).
            if region.table is None or not region.table.cells:
                assert lines_here == [
                    [w.text for w in ln.words if w.text.strip()]
                    for ln in region.lines
                    if ln.text.strip()
                ]
            got_lines += lines_here
        # Every line of the page in exactly one block, in reading order.
        assert got_lines == _text_lines(doc)


def test_hocr_check_passes(tmp_path, parsed):
    """hocr-tools' hocr-check, one page a file (its overlap checks compare every page's boxes
    with every other's): every check passes, but for the overlap of content areas where the
    layout model's own region boxes overlap as much (they are written as the model gave them)."""
    # Installed beside this Python (a virtual environment need not be on PATH), else on PATH.
    beside = Path(sys.executable).parent / "hocr-check"
    exe = str(beside) if beside.exists() else shutil.which("hocr-check")
    if exe is None:
        pytest.skip("hocr-check is not installed (pip install hocr-tools)")
    for k, doc in enumerate(parsed):
        one = tmp_path / f"page{k}.hocr"
        write_document([doc], one, "hocr")
        r = subprocess.run([exe, str(one)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        report = r.stderr.splitlines()
        assert sum(1 for ln in report if ln.startswith("ok ")) > len(doc.regions)
        failed = [ln for ln in report if ln.startswith("not ok")]
        assert all(ln.endswith("mostly_nonoverlapping/carea") for ln in failed), failed
        if failed:
            careas = [r.box for r in doc.regions if HOCR_BLOCK.get(r.type) is None]
            assert any(
                _overlap(a, b) > 0.2 for i, a in enumerate(careas) for b in careas[i + 1 :]
            ), PAGES[k]


def test_hocr_read_back_by_ocrmypdf(tmp_path, parsed):
    """OCRmyPDF's hOCR reader finds every word of a parsed page, in reading order."""
    parser = pytest.importorskip(
        "ocrmypdf.hocrtransform.hocr_parser",
        reason="ocrmypdf is not installed (pip install 'edgeocr[pdf]')",
    )
    from ocrmypdf.hocrtransform import OcrClass

    def words(el):
        if el.ocr_class == OcrClass.WORD:
            yield el.text
        for c in el.children:
            yield from words(c)

    for k, doc in enumerate(parsed):
        one = tmp_path / f"page{k}.hocr"
        write_document([doc], one, "hocr")
        got = list(words(parser.HocrParser(one).parse()))
        want = [unicodedata.normalize("NFKC", w) for ws in _text_lines(doc) for w in ws]
        assert got == want, PAGES[k]


# -- ALTO ----------------------------------------------------------------------------------------

# What alto-4-2.xsd allows where the writer puts it: the children of each element, in the order
# the schema's sequences give them, and each element's attributes.
_BLOCK_ATTRS = {"ID", "STYLEREFS", "TAGREFS", "PROCESSINGREFS", "HEIGHT", "WIDTH", "HPOS", "VPOS",
                "ROTATION", "IDNEXT", "CS"}  # fmt: skip
_BLOCKS = ("TextBlock", "Illustration", "GraphicalElement", "ComposedBlock")
_CHILDREN = {
    "alto": ("Description", "Styles", "Tags", "Layout"),
    "Layout": ("Page",),
    "Page": ("TopMargin", "LeftMargin", "RightMargin", "BottomMargin", "PrintSpace"),
    "TopMargin": _BLOCKS,
    "BottomMargin": _BLOCKS,
    "PrintSpace": _BLOCKS,
    "ComposedBlock": _BLOCKS,
    "TextBlock": ("TextLine",),
    "Illustration": (),
    "TextLine": ("String", "SP"),
    "Tags": ("LayoutTag", "StructureTag", "RoleTag", "NamedEntityTag", "OtherTag"),
}
_ORDERED = ("alto", "Page")  # sequences: children in this order, each once
_ATTRS = {
    "Page": {"ID", "PHYSICAL_IMG_NR", "WIDTH", "HEIGHT"},
    "TopMargin": {"ID", "HPOS", "VPOS", "WIDTH", "HEIGHT"},
    "BottomMargin": {"ID", "HPOS", "VPOS", "WIDTH", "HEIGHT"},
    "PrintSpace": {"ID", "HPOS", "VPOS", "WIDTH", "HEIGHT"},
    "TextBlock": _BLOCK_ATTRS,
    "Illustration": _BLOCK_ATTRS | {"TYPE", "FILEID"},
    "ComposedBlock": _BLOCK_ATTRS | {"TYPE", "FILEID"},
    "TextLine": {"ID", "HPOS", "VPOS", "WIDTH", "HEIGHT", "TAGREFS"},
    "String": {"ID", "HPOS", "VPOS", "WIDTH", "HEIGHT", "WC", "CONTENT"},
    "SP": {"HPOS", "VPOS", "WIDTH"},
    "StructureTag": {"ID", "TYPE", "LABEL"},
}
_NCNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9._-]*$")


def _alto_schema_rules(root) -> None:
    """The ALTO 4.2 schema's rules for what the writer writes (children, their order,
    attributes, IDs unique NCNames, every IDREF naming an ID, the tags' required LABEL)."""
    ids = {}
    for e in root.iter():
        if e.get("ID") is not None:
            assert _NCNAME.match(e.get("ID")), e.get("ID")
            assert e.get("ID") not in ids, e.get("ID")
            ids[e.get("ID")] = e
    for e in root.iter(f"{ALTO}*"):
        name = e.tag[len(ALTO) :]
        kids = [c.tag[len(ALTO) :] for c in e if isinstance(c.tag, str)]
        if name in _CHILDREN:
            assert set(kids) <= set(_CHILDREN[name]), (name, kids)
            if name in _ORDERED:
                order = [_CHILDREN[name].index(k) for k in kids]
                assert order == sorted(set(order)) or name == "Layout", (name, kids)
        if name in _ATTRS:
            assert set(e.attrib) <= _ATTRS[name], (name, set(e.attrib) - _ATTRS[name])
        if name.endswith("Tag") and name != "Tag":
            assert e.get("ID") and e.get("LABEL"), e.attrib
        if name == "Page":
            assert e.get("ID") and e.get("PHYSICAL_IMG_NR")
        if name in _BLOCKS:
            assert e.get("ID")
        for ref in ("IDNEXT",):
            if e.get(ref) is not None:
                assert e.get(ref) in ids, e.get(ref)
        for ref in (e.get("TAGREFS") or "").split():
            assert ref in ids and ids[ref].tag == f"{ALTO}StructureTag", ref


def _alto_xsd() -> bytes | None:
    """alto-4-2.xsd where EDGEOCR_ALTO_XSD names it (no package ships it), with its xlink import
    answered by a local schema of the one attribute group it uses (the import names a URL)."""
    import os

    path = os.environ.get("EDGEOCR_ALTO_XSD")
    if not path:
        return None
    return Path(path).read_bytes()


_XLINK = b"""<?xml version="1.0" encoding="UTF-8"?>
<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="http://www.w3.org/1999/xlink"
  attributeFormDefault="qualified">
  <xsd:attributeGroup name="simpleLink">
    <xsd:attribute name="type" type="xsd:string"/><xsd:attribute name="href" type="xsd:anyURI"/>
    <xsd:attribute name="role" type="xsd:string"/><xsd:attribute name="arcrole" type="xsd:string"/>
    <xsd:attribute name="title" type="xsd:string"/><xsd:attribute name="show" type="xsd:string"/>
    <xsd:attribute name="actuate" type="xsd:string"/>
  </xsd:attributeGroup>
</xsd:schema>
"""


def _reading_order(page) -> list:
    """The page's top-level blocks followed by IDNEXT from the first one (the one no block
    names), each once."""
    spaces = [c for c in page if c.tag[len(ALTO) :] in ("TopMargin", "BottomMargin", "PrintSpace")]
    top = [b for s in spaces for b in s]
    named = {b.get("IDNEXT") for b in top}
    first = [b for b in top if b.get("ID") not in named]
    assert len(first) == 1, [b.get("ID") for b in first]
    by_id = {b.get("ID"): b for b in top}
    order, b = [], first[0]
    while b is not None:
        order.append(b)
        b = by_id.get(b.get("IDNEXT"))
    assert len(order) == len(top)
    return order


def test_alto_regions_are_blocks_in_reading_order(tmp_path, parsed):
    out = tmp_path / "doc.xml"
    write_document(parsed, out, "alto")
    root = lxml_etree.parse(str(out)).getroot()
    _alto_schema_rules(root)
    tags = {t.get("ID"): t.get("LABEL") for t in root.iter(f"{ALTO}StructureTag")}
    pages = root.findall(f"{ALTO}Layout/{ALTO}Page")
    assert len(pages) == len(parsed)
    for page, doc in zip(pages, parsed):
        order = _reading_order(page)
        assert len(order) == len(doc.regions)
        got_lines = []
        for block, region in zip(order, doc.regions):
            name = block.tag[len(ALTO) :]
            refs = (block.get("TAGREFS") or "").split()
            assert tags[refs[0]] == region.type
            if region.type == "title":
                assert f"heading_{region.heading_level}" in refs
            space = block.getparent().tag[len(ALTO) :]
            if region.furniture:
                want = {"header": "TopMargin", "footer": "BottomMargin"}.get(region.type)
                assert space in ("TopMargin", "BottomMargin") and space == (want or space)
            else:
                assert space == "PrintSpace"
            if region.type == "table":
                assert (name, block.get("TYPE")) == ("ComposedBlock", "table")
            elif region.type == "figure":
                if name == "ComposedBlock":  # a figure with text read in it
                    assert block.get("TYPE") == "figure"
                    assert block[0].tag == f"{ALTO}Illustration"
                else:
                    assert name == "Illustration" and not region.lines
            else:
                assert name == "TextBlock"
            lines = [
                [s.get("CONTENT") for s in ln.iter(f"{ALTO}String")]
                for ln in block.iter(f"{ALTO}TextLine")
            ]
            if region.table is None or not region.table.cells:
                assert lines == [
                    [w.text for w in ln.words if w.text.strip()]
                    for ln in region.lines
                    if ln.text.strip()
                ]
            got_lines += lines
        assert got_lines == _text_lines(doc)
    xsd = _alto_xsd()
    if xsd is not None:  # the schema itself, where the machine has it
        (tmp_path / "xlink.xsd").write_bytes(_XLINK)
        xsd = xsd.replace(
            b"http://www.loc.gov/standards/xlink/xlink.xsd",
            (tmp_path / "xlink.xsd").as_uri().encode(),
        )
        schema = lxml_etree.XMLSchema(lxml_etree.fromstring(xsd, base_url=tmp_path.as_uri() + "/"))
        assert schema.validate(lxml_etree.parse(str(out))), schema.error_log


def test_alto_read_by_alto_tools(tmp_path, parsed):
    """alto-tools (an ALTO reader of its own) gives back every line of the parsed pages."""
    pytest.importorskip("alto_tools", reason="alto-tools is not installed (pip install alto-tools)")
    out = tmp_path / "doc.xml"
    write_document(parsed, out, "alto")
    reader = (
        "import sys; from alto_tools.alto_tools import main; sys.argv[0] = 'alto-tools'; main()"
    )
    r = subprocess.run(
        [sys.executable, "-c", reader, "-t", str(out)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr[-2000:]
    got = sorted(ln.strip() for ln in r.stdout.splitlines() if ln.strip())
    # It reads in document order (margins before the print space), so compare as a multiset.
    want = sorted(" ".join(ws) for doc in parsed for ws in _text_lines(doc))
    assert got == want


# -- what stays as it was ------------------------------------------------------------------------


def test_a_page_of_ocr_lines_keeps_one_block_per_line(predictor):
    """predict()'s page (no layout): one ocr_carea / TextBlock per line, no block classes, no
    tags, no margins, as before there were parsed pages."""
    r = predictor.predict(str(DOCPARSE / PAGES[0]))
    n = len([ln for ln in r.lines if ln.text.strip()])
    h, a = io.StringIO(), io.StringIO()
    from edgeocr.documents.alto import AltoWriter
    from edgeocr.documents.hocr import HocrWriter

    for writer in (HocrWriter(h, "x"), AltoWriter(a, "x")):
        writer.add(r)
        writer.finish()
    hocr = h.getvalue()
    assert 'content="ocr_page ocr_carea ocr_par ocr_line ocrx_word ocrp_wconf"' in hocr
    assert hocr.count('class="ocr_carea"') == hocr.count('class="ocr_par"') == n
    assert not re.search(r"ocr_(header|footer|pageno|table|image)|role=", hocr)
    root = lxml_etree.fromstring(a.getvalue().encode())
    _alto_schema_rules(root)
    assert root.find(f"{ALTO}Tags") is None
    page = root.find(f"{ALTO}Layout/{ALTO}Page")
    assert [c.tag[len(ALTO) :] for c in page] == ["PrintSpace"]
    blocks = list(page[0])
    assert len(blocks) == n and all(len(b) == 1 for b in blocks)
    assert not any(b.get("TAGREFS") or b.get("IDNEXT") for b in blocks)


def test_searchable_pdf_of_parsed_pages_keeps_its_word_layer(tmp_path, predictor):
    """parse_pages of a scanned PDF written as a searchable PDF: pdftotext finds the words."""
    pytest.importorskip("pikepdf", reason="pikepdf is not installed (pip install 'edgeocr[pdf]')")
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed (apt-get install poppler-utils)")
    from doc_fixtures import pdf_from_images

    scan = pdf_from_images([DOCPARSE / PAGES[0], DOCPARSE / PAGES[2]], tmp_path / "scan.pdf", 200)
    pages = []
    out = tmp_path / "scan.ocr.pdf"
    write_document(predictor.parse_pages(scan, dpi=200), out, on_page=pages.append)
    assert len(pages) == 2 and all(p.regions for p in pages)
    for k, doc in enumerate(pages):
        text = subprocess.run(
            ["pdftotext", "-f", str(k + 1), "-l", str(k + 1), str(out), "-"],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        found = set(text.split())
        words = [w for ws in _text_lines(doc) for w in ws]
        assert len(words) > 100
        assert sum(w in found for w in words) >= 0.95 * len(words), k


# -- the CLI ---------------------------------------------------------------------------------------


def test_cli_parses_for_hocr_and_alto_with_a_layout_model(tmp_path, parsed):
    """`edgeocr predict -m document --format hocr|alto` writes the regions as blocks; with OCR
    models alone the lines, as before."""
    exe = [sys.executable, "-m", "edgeocr.cli", "predict", "--threads", "2"]
    page = str(DOCPARSE / PAGES[1])
    want = parsed[1]
    for fmt in ("hocr", "alto"):
        out = tmp_path / f"doc.{fmt}"
        r = subprocess.run(
            [*exe, "-m", "document", page, "--format", fmt, "-o", str(out)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        text = out.read_text(encoding="utf-8")
        if fmt == "hocr":
            assert (
                text.count('class="ocr_table"')
                == sum(1 for g in want.regions if g.type == "table")
                > 0
            )
            assert text.count('id="block_1_') == len(want.regions)
        else:
            root = lxml_etree.fromstring(text.encode())
            assert len(_reading_order(root.find(f"{ALTO}Layout/{ALTO}Page"))) == len(want.regions)
    out = tmp_path / "plain.hocr"
    r = subprocess.run(
        [*exe, "-m", "ppocr-v4-mobile", page, "--format", "hocr", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    text = out.read_text(encoding="utf-8")
    assert "ocr_table" not in text and text.count('class="ocr_carea"') > len(want.regions)


def test_a_tables_lines_are_written_cell_by_cell(parsed):
    """A table whose cells name their lines (TableCell.lines, indices into the page's lines):
    one hOCR ocr_par / ALTO TextBlock per cell that has lines, in the cells' order, then the
    table's lines no cell names; a line a cell names twice, or one outside the table, is
    written once, where it belongs."""
    import dataclasses

    from edgeocr.documents.alto import AltoWriter
    from edgeocr.documents.hocr import HocrWriter
    from edgeocr.results import Table, TableCell

    doc = next(d for d in parsed if any(r.type == "table" and len(r.lines) >= 6 for r in d.regions))
    k = next(i for i, r in enumerate(doc.regions) if r.type == "table" and len(r.lines) >= 6)
    index = {id(line): i for i, line in enumerate(doc.lines)}
    mine = [index[id(line)] for line in doc.regions[k].lines]
    outside = next(i for i in range(len(doc.lines)) if i not in mine)
    cells = [
        TableCell(0, 0, lines=tuple(mine[1::2])),
        TableCell(0, 1, lines=()),  # no lines: no paragraph
        TableCell(1, 0, lines=(mine[0], mine[2], mine[0], outside)),
    ]
    regions = list(doc.regions)
    regions[k] = dataclasses.replace(regions[k], table=Table(2, 2, cells, "model"))
    page = dataclasses.replace(doc, regions=regions)
    rest = [i for i in mine[2::2] if i != mine[2]]
    want = [mine[1::2], [mine[0], mine[2]], rest]
    words = [[w.text for w in line.words if w.text.strip()] for line in doc.lines]
    h, a = io.StringIO(), io.StringIO()
    for writer in (HocrWriter(h, "x"), AltoWriter(a, "x")):
        writer.add(page)
        writer.finish()
    root = lxml_etree.fromstring(h.getvalue().encode())
    table = root.findall(f".//{XHTML}div[@class='ocr_page']/{XHTML}div")[k]
    assert table.get("class") == "ocr_table"
    got = [[[w.text for w in ln] for ln in par] for par in table]
    assert got == [[words[i] for i in g] for g in want]
    root = lxml_etree.fromstring(a.getvalue().encode())
    _alto_schema_rules(root)
    block = _reading_order(root.find(f"{ALTO}Layout/{ALTO}Page"))[k]
    assert (block.tag, block.get("TYPE")) == (f"{ALTO}ComposedBlock", "table")
    got = [[[s.get("CONTENT") for s in ln.iter(f"{ALTO}String")] for ln in tb] for tb in block]
    assert got == [[words[i] for i in g] for g in want]
    # The lines outside the table are still each written once.
    every = [
        [s.get("CONTENT") for s in ln.iter(f"{ALTO}String")] for ln in root.iter(f"{ALTO}TextLine")
    ]
    assert sorted(map(tuple, every)) == sorted(map(tuple, _text_lines(doc)))
