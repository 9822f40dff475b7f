"""ALTO v4 (namespace ``http://www.loc.gov/standards/alto/ns-v4#``, schema alto-4-2.xsd):
``Page`` / ``PrintSpace`` / ``TextBlock`` / ``TextLine`` / ``String`` with ``HPOS``, ``VPOS``,
``WIDTH``, ``HEIGHT`` in pixels (``MeasurementUnit`` pixel) and the word confidence ``WC``
(0-1); ``SP`` between the words of a line. edgeocr finds lines, not blocks: each line is one
``TextBlock``. A line read upside down or turned has its ``ROTATION`` (degrees, counter-clockwise,
as ALTO defines it). Written as pages come; all pages of a document go in one file (ALTO allows
any number of ``Page`` elements in ``Layout``).
"""

from __future__ import annotations

from .layout import page_lines, page_number, page_size
from .text import attr, version, xml_text

NAMESPACE = "http://www.loc.gov/standards/alto/ns-v4#"
SCHEMA_LOCATION = f"{NAMESPACE} http://www.loc.gov/standards/alto/v4/alto-4-2.xsd"


def _pos(b) -> str:
    x0, y0, x1, y1 = b
    return f'HPOS="{x0}" VPOS="{y0}" WIDTH="{x1 - x0}" HEIGHT="{y1 - y0}"'


class AltoWriter:
    """ALTO v4 of a document, written to ``out`` (a text file) page by page."""

    extension = ".xml"

    def __init__(self, out, title: str = ""):
        self.out = out
        self.n = 0
        source = (
            f"    <sourceImageInformation>\n      <fileName>{xml_text(title)}</fileName>\n"
            "    </sourceImageInformation>\n"
            if title
            else ""
        )
        out.write(
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
            "  <Layout>\n"
        )

    def add(self, result) -> None:
        """One ``Page`` (an `OcrResult` or `PageResult`; a failed page has an empty
        ``PrintSpace``)."""
        self.n += 1
        p = self.n
        width, height = page_size(result)
        w = self.out.write
        w(
            f'    <Page ID="page_{p}" PHYSICAL_IMG_NR="{page_number(result) + 1}" '
            f'WIDTH="{width}" HEIGHT="{height}">\n'
            f"      <PrintSpace {_pos((0, 0, width, height))}>\n"
        )
        lines = page_lines(result, width, height) if getattr(result, "error", None) is None else []
        for i, line in enumerate(lines, 1):
            rotation = f' ROTATION="{line.angle}"' if line.turns else ""
            w(f'        <TextBlock ID="block_{p}_{i}" {_pos(line.bbox)}{rotation}>\n')
            w(f'          <TextLine ID="line_{p}_{i}" {_pos(line.bbox)}>\n')
            for j, word in enumerate(line.words, 1):
                if j > 1:
                    prev = line.words[j - 2].bbox
                    gap_x0, gap_x1 = sorted((prev[2], word.bbox[0]))
                    y0 = min(prev[1], word.bbox[1])
                    w(f'            <SP HPOS="{gap_x0}" VPOS="{y0}" WIDTH="{gap_x1 - gap_x0}"/>\n')
                wc = min(max(word.score, 0.0), 1.0)
                w(
                    f'            <String ID="string_{p}_{i}_{j}" {_pos(word.bbox)} '
                    f'WC="{wc:.4f}" CONTENT={attr(word.text)}/>\n'
                )
            w("          </TextLine>\n        </TextBlock>\n")
        w("      </PrintSpace>\n    </Page>\n")

    def finish(self) -> None:
        self.out.write("  </Layout>\n</alto>\n")
