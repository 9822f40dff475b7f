"""ALTO v4 (namespace ``http://www.loc.gov/standards/alto/ns-v4#``, schema alto-4-2.xsd):
``Page`` / ``PrintSpace`` / ``TextBlock`` / ``TextLine`` / ``String`` with ``HPOS``, ``VPOS``,
``WIDTH``, ``HEIGHT`` in pixels (``MeasurementUnit`` pixel) and the word confidence ``WC``
(0-1); ``SP`` between the words of a line. A line read upside down or turned has its
``ROTATION`` (degrees, counter-clockwise, as ALTO defines it) on its block. Written as pages
come; all pages of a document go in one file (ALTO allows any number of ``Page`` elements in
``Layout``).

A page of OCR lines (`Predictor.predict` / `predict_pages`): each line is one ``TextBlock``.

A parsed page (`Predictor.parse` / `parse_pages`: a `DocumentResult`) is written as its layout
regions, each one block, tagged with its type: ALTO 4 has no block type attribute, so the
document's ``Tags`` hold a ``StructureTag`` per region type (``ID`` "region_TYPE", ``LABEL`` the
type) and per heading level ("heading_1" the title, "heading_2", "heading_3" section headings),
and each block names its tags in ``TAGREFS``. A text region (text, title, list, caption,
reference, equation) is a ``TextBlock``; a figure an ``Illustration`` (with the text read in it:
a ``ComposedBlock TYPE="figure"`` of the ``Illustration`` and a ``TextBlock``); a table a
``ComposedBlock TYPE="table"`` holding a ``TextBlock`` per cell that has lines, in the cells'
order. The page's furniture goes in ``TopMargin`` (a running header, a page number above the
middle) and ``BottomMargin`` (a footer, a page number below), the body in ``PrintSpace``. The
schema puts ``BottomMargin`` before ``PrintSpace``, so the reading order (the regions' order:
top furniture, body, bottom furniture) is each block's ``IDNEXT``: the next block to read. Every
line is in exactly one block.
"""

from __future__ import annotations

from ..results import REGION_TYPES
from .layout import furniture_side, page_blocks, page_lines, page_number, page_size
from .text import attr, version, xml_text

NAMESPACE = "http://www.loc.gov/standards/alto/ns-v4#"
SCHEMA_LOCATION = f"{NAMESPACE} http://www.loc.gov/standards/alto/v4/alto-4-2.xsd"
# The region types of a parsed page and the heading levels: each a StructureTag of a parsed
# document.
HEADING_LEVELS = (1, 2, 3)


def _pos(b) -> str:
    x0, y0, x1, y1 = b
    return f'HPOS="{x0}" VPOS="{y0}" WIDTH="{x1 - x0}" HEIGHT="{y1 - y0}"'


class AltoWriter:
    """ALTO v4 of a document, written to ``out`` (a text file) page by page."""

    extension = ".xml"

    def __init__(self, out, title: str = ""):
        self.out = out
        self.title = title
        self.n = 0
        self._head_written = False

    def _head(self, parsed: bool) -> None:
        """The document's head; with the region type tags when the first page is parsed."""
        self._head_written = True
        title = self.title
        source = (
            f"    <sourceImageInformation>\n      <fileName>{xml_text(title)}</fileName>\n"
            "    </sourceImageInformation>\n"
            if title
            else ""
        )
        tags = ""
        if parsed:
            tags = (
                "  <Tags>\n"
                + "".join(
                    f'    <StructureTag ID="region_{t}" TYPE="region type" LABEL="{t}"/>\n'
                    for t in REGION_TYPES
                )
                + "".join(
                    f'    <StructureTag ID="heading_{h}" TYPE="heading level" LABEL="{h}"/>\n'
                    for h in HEADING_LEVELS
                )
                + "  </Tags>\n"
            )
        self.out.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<alto xmlns="{NAMESPACE}" xmlns:xlink="http://www.w3.org/1999/xlink"\n'
            '      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"\n'
            f'      xsi:schemaLocation="{SCHEMA_LOCATION}">\n'
            "  <Description>\n"
            "    <MeasurementUnit>pixel</MeasurementUnit>\n"
            f"{source}"
            '    <Processing ID="OCR_0">\n'
            "      <processingCategory>contentGeneration</processingCategory>\n"
            "      <processingSoftware>\n"
            "        <softwareName>edgeocr</softwareName>\n"
            f"        <softwareVersion>{xml_text(version())}</softwareVersion>\n"
            "      </processingSoftware>\n"
            "    </Processing>\n"
            "  </Description>\n"
            f"{tags}"
            "  <Layout>\n"
        )

    def add(self, result) -> None:
        """One ``Page`` (an `OcrResult`, `PageResult` or `DocumentResult`; a failed page has an
        empty ``PrintSpace``)."""
        failed = getattr(result, "error", None) is not None
        width, height = page_size(result)
        blocks = None if failed else page_blocks(result, width, height)
        if not self._head_written:
            self._head(blocks is not None or getattr(result, "regions", None) is not None)
        self.n += 1
        p = self.n
        w = self.out.write
        w(
            f'    <Page ID="page_{p}" PHYSICAL_IMG_NR="{page_number(result) + 1}" '
            f'WIDTH="{width}" HEIGHT="{height}">\n'
        )
        if blocks is not None:
            self._blocks(p, blocks, width, height)
            w("    </Page>\n")
            return
        w(f"      <PrintSpace {_pos((0, 0, width, height))}>\n")
        lines = page_lines(result, width, height) if not failed else []
        for i, line in enumerate(lines, 1):
            rotation = f' ROTATION="{line.angle}"' if line.turns else ""
            w(f'        <TextBlock ID="block_{p}_{i}" {_pos(line.bbox)}{rotation}>\n')
            self._text_line(line, f"{p}_{i}", "          ")
            w("        </TextBlock>\n")
        w("      </PrintSpace>\n    </Page>\n")

    def _text_line(self, line, key: str, pad: str) -> None:
        w = self.out.write
        w(f'{pad}<TextLine ID="line_{key}" {_pos(line.bbox)}>\n')
        for j, word in enumerate(line.words, 1):
            if j > 1:
                prev = line.words[j - 2].bbox
                gap_x0, gap_x1 = sorted((prev[2], word.bbox[0]))
                y0 = min(prev[1], word.bbox[1])
                w(f'{pad}  <SP HPOS="{gap_x0}" VPOS="{y0}" WIDTH="{gap_x1 - gap_x0}"/>\n')
            wc = min(max(word.score, 0.0), 1.0)
            w(
                f'{pad}  <String ID="string_{key}_{j}" {_pos(word.bbox)} '
                f'WC="{wc:.4f}" CONTENT={attr(word.text)}/>\n'
            )
        w(f"{pad}</TextLine>\n")

    def _blocks(self, p: int, blocks, width: int, height: int) -> None:
        """A parsed page: its furniture in TopMargin / BottomMargin, its body in PrintSpace, each
        region one block, chained in reading order by IDNEXT (the module's doc)."""
        ids = [f"block_{p}_{k}" for k in range(1, len(blocks) + 1)]
        # The page's lines, numbered in reading order (the regions' order), whatever space each
        # block is written in.
        first_line, n = [], 0
        for b in blocks:
            first_line.append(n)
            n += len(b.lines)
        spaces = {"top": [], "bottom": [], "body": []}
        for k, b in enumerate(blocks):
            spaces[furniture_side(b, height) if b.furniture else "body"].append(k)
        top = [blocks[k].bbox for k in spaces["top"]]
        bottom = [blocks[k].bbox for k in spaces["bottom"]]
        y0 = max((b[3] for b in top), default=0)
        y1 = min((b[1] for b in bottom), default=height)
        if y0 > y1:  # furniture overlapping: the print space is the page
            y0, y1 = 0, height
        w = self.out.write
        for name, space, box in (
            ("TopMargin", "top", (0, 0, width, y0)),
            ("BottomMargin", "bottom", (0, y1, width, height)),
            ("PrintSpace", "body", (0, y0, width, y1)),
        ):
            if space != "body" and not spaces[space]:
                continue
            w(f"      <{name} {_pos(box)}>\n")
            for k in spaces[space]:
                nxt = ids[k + 1] if k + 1 < len(blocks) else None
                self._block(ids[k], blocks[k], nxt, p, first_line[k])
            w(f"      </{name}>\n")

    def _block(self, bid: str, b, nxt: str | None, p: int, n: int) -> None:
        w = self.out.write
        tags = f"region_{b.type}" if b.type in REGION_TYPES else ""
        if b.type == "title" and b.heading_level in HEADING_LEVELS:
            tags += f" heading_{b.heading_level}"
        refs = f' TAGREFS="{tags.strip()}"' if tags.strip() else ""
        refs += f' IDNEXT="{nxt}"' if nxt is not None else ""
        pad = "        "
        if b.type == "table" or (b.type == "figure" and b.groups):
            w(f'{pad}<ComposedBlock ID="{bid}" {_pos(b.bbox)} TYPE="{b.type}"{refs}>\n')
            if b.type == "figure":
                w(f'{pad}  <Illustration ID="{bid}_0" {_pos(b.bbox)}/>\n')
            for g, group in enumerate(b.groups, 1):
                n = self._text_block(f"{bid}_{g}", group, "", p, n, pad + "  ")
            w(f"{pad}</ComposedBlock>\n")
        elif b.type == "figure":
            w(f'{pad}<Illustration ID="{bid}" {_pos(b.bbox)} TYPE="figure"{refs}/>\n')
        else:
            self._text_block(bid, b.lines, refs, p, n, pad, b.bbox)

    def _text_block(self, bid, lines, refs, p, n, pad, box=None) -> int:
        """A TextBlock of ``lines`` (numbered from ``n`` + 1); returns the last line's number."""
        w = self.out.write
        if box is None:
            box = (
                min(ln.bbox[0] for ln in lines),
                min(ln.bbox[1] for ln in lines),
                max(ln.bbox[2] for ln in lines),
                max(ln.bbox[3] for ln in lines),
            )
        turns = {ln.turns for ln in lines}
        rotation = ""
        if len(turns) == 1 and lines[0].turns:  # every line turned the same way
            rotation = f' ROTATION="{lines[0].angle}"'
        w(f'{pad}<TextBlock ID="{bid}" {_pos(box)}{rotation}{refs}>\n')
        for line in lines:
            n += 1
            self._text_line(line, f"{p}_{n}", pad + "  ")
        w(f"{pad}</TextBlock>\n")
        return n

    def finish(self) -> None:
        if not self._head_written:
            self._head(False)
        self.out.write("  </Layout>\n</alto>\n")
