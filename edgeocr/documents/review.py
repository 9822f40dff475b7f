"""The review page: parsed pages as one self-contained HTML file, to see what the parser saw.

``edgeocr predict doc.pdf --format html -o review.html`` (or ``write_document(pages,
"review.html", format="html")``) writes, per page, the page image with its layout regions as an
overlay and the page's Markdown rendered beside it:

* a region is a box in its type's colour (edgeocr/draw.py's palette) with its reading-order
  number; hovering or focusing it shows its type, score, label, source of text, where its
  Markdown sits (the page Markdown's lines) and the start of its text; clicking it scrolls the
  Markdown pane to its block, which is highlighted (and the block's number links back);
* the Markdown pane renders the core's Markdown (`DocumentResult.markdown_blocks`, the blocks
  of `to_markdown`, each with its region): a heading as ``<h1>``-``<h6>``, a table from its
  cells (`Table.to_html`, the core's writer, as the Markdown holds tables with spans), a list as
  a list, a figure as its reference and caption, a paragraph as a paragraph. No Markdown parser:
  each block's form is known from its region, and the core's backslash escapes are undone;
* nothing runs and nothing is fetched: no script, styles inline, the images as data: URIs, and
  a Content-Security-Policy that forbids scripts and any network access; every text of the page
  is escaped (a page that reads ``<script>`` shows it), characters XML cannot hold dropped;
* size: each page image is scaled to at most ``max_side`` pixels (1600) on its longer side and
  written as WebP (JPEG where OpenCV has no WebP), its quality lowered (then its size) until it
  fits ``max_image_bytes`` (400 KB).
"""

from __future__ import annotations

import base64
import re

from .._numpy import np
from ..draw import REGION_COLORS, ink_on, page_sources, place_labels, text_source
from ..errors import EdgeOCRError, InvalidInputError
from .drawings import PageImages
from .text import attr, version, xml_text

MAX_SIDE = 1600
MAX_IMAGE_BYTES = 400_000
IMAGE_QUALITY = 75
# Characters of a region's text the hover tip shows (the Markdown pane has it all).
TIP_CHARS = 280
# A badge's font size, as a share of the page's width (at least 9 CSS px); its size in ems
# (digits * 0.62 + 0.7 wide, 1.3 high).
BADGE_EM = 0.016
# A figure's picture in the Markdown pane: at most this many pixels on its longer side and bytes.
FIGURE_SIDE = 480
FIGURE_BYTES = 60_000

_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # a backslash escape of ASCII punctuation
_FIGURE = re.compile(r"^!\[(.*)\]\(([^()]*)\)$", re.S)
_NUMBERED = re.compile(r"^(\d+)\. (.*)$", re.S)


def unescaped(md: str) -> str:
    """Markdown text with the core's backslash escapes undone (its writer puts a backslash
    before ASCII punctuation only, a backslash itself included)."""
    return _ESCAPED.sub(r"\1", md)


def encode_page(
    image, max_side: int = MAX_SIDE, max_bytes: int = MAX_IMAGE_BYTES
) -> tuple[str, bytes]:
    """A page image for the review page: ``(mime type, bytes)``, WebP where OpenCV writes it
    (about two thirds of a JPEG's size on text pages; every current browser reads it), else
    JPEG; scaled to at most ``max_side`` pixels on its longer side, its quality lowered and
    then its size until it is at most ``max_bytes``."""
    import cv2

    from ..draw import bgr_copy

    img = bgr_copy(image)
    h, w = img.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    quality = IMAGE_QUALITY
    kind = _image_kind()
    for _ in range(40):
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        small = img if size == (w, h) else cv2.resize(img, size, interpolation=cv2.INTER_AREA)
        data = _encode(kind, small, quality)
        if len(data) <= max_bytes or (quality <= 40 and max(size) <= 200):
            break
        if quality > 40:
            quality -= 15
        else:
            scale *= 0.8
    return ("image/webp" if kind == ".webp" else "image/jpeg"), data


def _encode(kind: str, img, quality: int) -> bytes:
    import cv2

    flag = cv2.IMWRITE_WEBP_QUALITY if kind == ".webp" else cv2.IMWRITE_JPEG_QUALITY
    ok, data = cv2.imencode(kind, img, [flag, quality])
    if not ok:
        raise InvalidInputError(f"the page image cannot be encoded as {kind[1:].upper()}")
    return data.tobytes()


_KIND: list = []


def _image_kind() -> str:
    """ ".webp" where this OpenCV writes WebP (checked once), else ".jpg"."""
    if not _KIND:
        import cv2

        try:
            ok, _ = cv2.imencode(
                ".webp", np.zeros((8, 8), np.uint8), [cv2.IMWRITE_WEBP_QUALITY, 75]
            )
        except cv2.error:
            ok = False
        _KIND.append(".webp" if ok else ".jpg")
    return _KIND[0]


def _pct(v: float, whole: float) -> str:
    return f"{100.0 * v / whole:.3f}%" if whole > 0 else "0%"


def _rgba(hex_color: str, alpha: float) -> str:
    v = int(hex_color[1:], 16)
    return f"rgba({v >> 16},{(v >> 8) & 255},{v & 255},{alpha})"


def _style() -> str:
    rules = []
    for t, c in REGION_COLORS.items():
        rules.append(
            f".t-{t}{{--c:{c};--f:{_rgba(c, 0.14)};--h:{_rgba(c, 0.45)};--ink:{ink_on(c)}}}"
        )
    return _CSS + "\n".join(rules) + "\n"


_CSS = """
:root{--c:#000;--f:rgba(0,0,0,.1);--h:rgba(0,0,0,.4);--ink:#fff}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;
background:#f3f3f1}
header.top{padding:12px 20px;background:#fff;border-bottom:1px solid #ddd}
header.top h1{margin:0;font-size:18px}
.legend{display:flex;flex-wrap:wrap;gap:6px 14px;margin:8px 0 0;padding:0;list-style:none;
font-size:13px}
.legend li{display:flex;align-items:center;gap:5px}
.sw{display:inline-block;width:22px;height:13px;border:2px solid var(--c);background:var(--f)}
.sw.furn,.r.furn{border-style:dashed;
background-image:repeating-linear-gradient(45deg,var(--h) 0 1px,transparent 1px 7px)}
section.page{margin:16px;background:#fff;border:1px solid #ddd;border-radius:4px}
section.page>h2{margin:0;padding:8px 14px;font-size:16px;border-bottom:1px solid #eee}
section.page>h2 small{font-weight:normal;color:#555;margin-left:8px}
.note{margin:8px 14px;color:#7a3b00}
.cols{display:grid;grid-template-columns:minmax(0,1.15fr) minmax(0,1fr);gap:16px;padding:14px}
@media (max-width:900px){.cols{grid-template-columns:1fr}}
.frame{position:relative;container-type:inline-size;background:#fff;outline:1px solid #ccc}
.frame img{position:absolute;left:0;top:0;height:100%;display:block}
.r{position:absolute;display:block;border:2px solid var(--c);background:var(--f);color:inherit;
text-decoration:none}
.r:hover,.r:focus{background:var(--h);outline:2px solid #000;z-index:5}
.r:target{outline:3px solid #000;outline-offset:2px;z-index:5}
.b{position:absolute;display:block;padding:0 .25em;font-size:11px;font-size:max(9px,var(--b));
line-height:1.25;font-weight:600;background:var(--c);color:var(--ink);text-decoration:none;
white-space:nowrap;border-radius:2px;z-index:3}
.tip{display:none;position:absolute;left:0;top:100%;z-index:10;width:max-content;max-width:360px;
padding:6px 8px;background:#fffff4;color:#111;border:1px solid #555;font-size:12.5px;
line-height:1.35;box-shadow:0 2px 6px rgba(0,0,0,.25);white-space:normal}
.r:hover .tip,.r:focus .tip{display:block}
.tip b{display:block}
.tip q{display:block;margin-top:4px;color:#333;quotes:none;font-style:italic}
.md{min-width:0;overflow-wrap:anywhere}
.blk{position:relative;margin:0 0 10px;padding:2px 6px 2px 34px;border-left:4px solid var(--c);
scroll-margin-top:40px}
.blk:target{background:#fff6c2;outline:2px solid #000}
.blk>.bk{position:absolute;left:4px;top:3px;min-width:24px;padding:0 3px;font-size:11px;
font-weight:600;text-align:center;background:var(--c);color:var(--ink);text-decoration:none;
border-radius:2px}
.blk h1,.blk h2,.blk h3,.blk h4,.blk h5,.blk h6,.blk p,.blk ul,.blk ol{margin:.2em 0}
.blk h1{font-size:1.6em}.blk h2{font-size:1.3em}.blk h3{font-size:1.1em}
.blk table{border-collapse:collapse;margin:.3em 0;font-size:13px}
.blk td,.blk th{border:1px solid #999;padding:2px 6px;vertical-align:top}
.blk th{background:#f0f0f0}
.blk figure{margin:.2em 0}
.blk .ref{display:inline-block;padding:10px 16px;border:1px dashed #777;color:#555}
.blk figure img{display:block;max-width:100%;border:1px solid #ccc}
.blk figure .name{font-size:12px;color:#555}
.blk ul.marks{list-style:none;padding-left:1em}
.empty{color:#777;font-style:italic}
"""


def _badge_size(text: str, page_w: float) -> tuple:
    em = BADGE_EM * page_w
    return ((len(text) * 0.62 + 0.7) * em, 1.3 * em)


def _block_html(region, block: str, picture: str = "") -> str:
    """One Markdown block of ``region`` as HTML (its form is known from its region: see the
    module's note); ``picture``: a figure's image (a data: URI) to show for its reference."""
    t = region.type
    table = getattr(region, "table", None)
    if t == "table" and table is not None and table.cells and table.to_html():
        return table.to_html()  # the core's writer: cells' text escaped there
    if t == "title" and block.startswith("#"):
        level = len(block) - len(block.lstrip("#"))
        if 1 <= level <= 6 and block[level : level + 1] == " ":
            return f"<h{level}>{xml_text(unescaped(block[level + 1 :]))}</h{level}>"
    if t == "figure":
        m = _FIGURE.match(block)
        if m:
            cap = unescaped(m.group(1))
            ref = xml_text(m.group(2))
            shown = (
                f'<img src="{picture}" alt="{ref}"><span class="name">{ref}</span>'
                if picture
                else f'<span class="ref">{ref}</span>'
            )
            return (
                f"<figure>{shown}"
                + (f"<figcaption>{xml_text(cap)}</figcaption>" if cap else "")
                + "</figure>"
            )
    if "\n" in block:  # a list: an item per line ("- text", or "N. text" numbered)
        items = block.split("\n")
        numbered = [_NUMBERED.match(i) for i in items]
        if all(numbered):
            lis = "".join(
                f'<li value="{int(m.group(1))}">{xml_text(unescaped(m.group(2)))}</li>'
                for m in numbered
            )
            return f"<ol>{lis}</ol>"
        texts = [unescaped(i[2:] if i.startswith("- ") else i) for i in items]
        marks = all(x[:1] and not x[:1].isalnum() for x in texts)  # the items keep their bullets
        lis = "".join(f"<li>{xml_text(x)}</li>" for x in texts)
        return f'<ul class="marks">{lis}</ul>' if marks else f"<ul>{lis}</ul>"
    return f"<p>{xml_text(unescaped(block))}</p>"


class ReviewWriter:
    """The review page (the module's note), a page at a time: the `write_document` writer of
    the "html" format. ``images``: where page images come from (default: a `PageImages` over
    the results' sources, or ``source``, opened with ``password``); ``max_side`` and
    ``max_image_bytes`` bound each page's image."""

    extension = ".html"

    def __init__(
        self,
        out,
        title: str = "",
        *,
        images: PageImages | None = None,
        source=None,
        password: str | None = None,
        max_pixels: int | None = None,
        max_side: int = MAX_SIDE,
        max_image_bytes: int = MAX_IMAGE_BYTES,
    ):
        self.out, self.title = out, title
        self.images = images if images is not None else PageImages(source, password, max_pixels)
        self.max_side, self.max_image_bytes = int(max_side), int(max_image_bytes)
        if self.max_side < 16 or self.max_image_bytes < 1000:
            raise InvalidInputError("max_side must be >= 16 and max_image_bytes >= 1000")
        self.pages = 0

    def add(self, result) -> None:
        if getattr(result, "error", None) is None and not hasattr(result, "regions"):
            raise InvalidInputError(
                "the review page shows parsed pages (Predictor.parse_pages: DocumentResult), "
                f"got {type(result).__name__}"
            )
        if self.pages == 0:
            self._start()
        self.pages += 1
        self.out.write(self._page(result))

    def _page(self, r) -> str:
        k = self.pages
        src = getattr(r, "source", None)
        head = f"Page {int(getattr(r, 'page', 0) or 0) + 1}"
        info = [str(src)] if src else []
        if getattr(r, "error", None) is not None:
            return (
                f'<section class="page" id="p{k}"><h2>{xml_text(head)}'
                f"<small>{xml_text(' · '.join(info))}</small></h2>"
                f'<p class="note">{xml_text(f"this page could not be read: {r.error}")}</p>'
                "</section>\n"
            )
        w, h = int(r.width or 0), int(r.height or 0)
        info.append(f"{w} x {h} px at {float(r.dpi):g} dpi")
        info.append(f"{len(r.regions)} regions")
        sources = page_sources(r)
        mixed = len(sources) > 1
        if r.regions or r.lines:
            info.append(
                "text from OCR and the PDF's text layer"
                if mixed
                else "text from the PDF's text layer"
                if sources == {"pdf"}
                else "text from OCR"
            )
        notes = []
        if getattr(r, "text_action", "") == "kept":
            notes.append("the PDF page's text was kept as it is (not parsed)")
        img_html = ""
        pictures: dict = {}  # figure region -> its crop, a data: URI
        try:
            image = self.images.get(r)
            encoded = encode_page(image, self.max_side, self.max_image_bytes)
            img_html = f'<img src="{_data_uri(*encoded)}" alt="page {k}"'
            for i, reg in enumerate(r.regions):
                box = _finite_box(reg.box, w, h)
                if box is None or reg.type != "figure":
                    continue
                x0, y0, x1, y1 = (round(v) for v in box)
                if x1 - x0 >= 4 and y1 - y0 >= 4:
                    crop = image[y0:y1, x0:x1]
                    pictures[i] = _data_uri(*encode_page(crop, FIGURE_SIDE, FIGURE_BYTES))
        except EdgeOCRError as e:
            notes.append(f"the page image could not be read again: {e}")

        blocks = r.markdown_blocks()
        first_line, by_region = _block_lines(blocks)

        # Badges: placed where they cover no other badge (draw.place_labels), in page pixels; a
        # margin right of the page takes those with no room. A region whose box is not finite
        # has neither box nor badge (its Markdown block still shows).
        boxes = [_finite_box(reg.box, w, h) for reg in r.regions]
        shown = [i for i, b in enumerate(boxes) if b is not None]
        placed, margin = place_labels(
            [boxes[i] for i in shown],
            [_badge_size(str(i + 1), w) for i in shown],
            w,
            h,
            gap=0.002 * w,
        )
        rects = dict(zip(shown, placed))
        fw = w + margin
        parts = [
            f'<section class="page" id="p{k}"><h2>{xml_text(head)}'
            f"<small>{xml_text(' · '.join(info))}</small></h2>"
        ]
        parts += [f'<p class="note">{xml_text(n)}</p>' for n in notes]
        parts.append('<div class="cols"><div class="scan">')
        style = f"aspect-ratio:{fw}/{max(h, 1)};--b:{100 * BADGE_EM * w / max(fw, 1):.4f}cqw"
        parts.append(f'<div class="frame" style="{style}">')
        if img_html:
            parts.append(f'{img_html} style="width:{_pct(w, fw)}">')
        # Larger regions first: a smaller one lies over them and takes the pointer.
        order = sorted(
            shown, key=lambda i: -(boxes[i][2] - boxes[i][0]) * (boxes[i][3] - boxes[i][1])
        )
        for i in order:
            reg = r.regions[i]
            x0, y0, x1, y1 = boxes[i]
            cls = f"r t-{_css_name(reg.type)}" + (" furn" if reg.furniture else "")
            target = f"#p{k}-m{i + 1}" if i in by_region else f"#p{k}-r{i + 1}"
            pos = (
                f"left:{_pct(x0, fw)};top:{_pct(y0, h)};"
                f"width:{_pct(x1 - x0, fw)};height:{_pct(y1 - y0, h)}"
            )
            parts.append(
                f'<a class="{cls}" id="p{k}-r{i + 1}" href="{target}" style="{pos}">'
                f'<span class="tip">{self._tip(r, i, first_line.get(i), mixed)}</span></a>'
            )
        for i in shown:
            reg = r.regions[i]
            bx0, by0, _, _ = rects[i]
            target = f"#p{k}-m{i + 1}" if i in by_region else f"#p{k}-r{i + 1}"
            parts.append(
                f'<a class="b t-{_css_name(reg.type)}" href="{target}" '
                f'style="left:{_pct(bx0, fw)};top:{_pct(by0, h)}">{i + 1}</a>'
            )
        parts.append("</div></div>")  # .frame, .scan
        parts.append('<div class="md">')
        if not blocks:
            parts.append('<p class="empty">(this page\'s Markdown is empty)</p>')
        seen = set()
        for region, text in blocks:
            reg = r.regions[region] if 0 <= region < len(r.regions) else None
            if reg is None:
                continue
            bid = f' id="p{k}-m{region + 1}"' if region not in seen else ""
            seen.add(region)
            parts.append(
                f'<div class="blk t-{_css_name(reg.type)}"{bid}>'
                f'<a class="bk" href="#p{k}-r{region + 1}" title={attr(reg.type)}>{region + 1}</a>'
                f"{_block_html(reg, text, pictures.get(region, ''))}</div>"
            )
        parts.append("</div></div></section>\n")  # .md, .cols, section
        return "".join(parts)

    def _tip(self, r, i: int, lines, mixed: bool) -> str:
        reg = r.regions[i]
        head = f"{i + 1} · {reg.type}"
        if reg.type == "title" and reg.heading_level:
            head += f" (heading level {int(reg.heading_level)})"
        facts = [f"score {float(reg.score):.2f}"]
        if reg.label and reg.label != reg.type:
            facts.append(f"model's label: {reg.label}")
        if not reg.from_layout:
            facts.append("lines outside every layout region")
        if mixed:
            facts.append("text from " + ("the PDF" if text_source(reg) == "pdf" else "OCR"))
        if reg.caption_of >= 0:
            facts.append(f"caption of {reg.caption_of + 1}")
        if reg.table is not None:
            facts.append(f"table {reg.table.rows} x {reg.table.cols} ({reg.table.method})")
        if lines is not None:
            a, b = lines
            where = f"lines {a}-{b}" if b > a else f"line {a}"
            facts.append(f"{where} of the page's Markdown")
        elif reg.furniture:
            facts.append("not in the Markdown (furniture)")
        else:
            facts.append("not in the Markdown (no text)")
        x0, y0, x1, y1 = (float(v) for v in reg.box)
        facts.append(f"box {x0:.0f},{y0:.0f} - {x1:.0f},{y1:.0f}")
        text = " ".join(reg.text.split())
        if len(text) > TIP_CHARS:
            text = text[: TIP_CHARS - 1] + "…"
        out = f"<b>{xml_text(head)}</b>{xml_text(' · '.join(facts))}"
        if text:
            out += f"<q>{xml_text(text)}</q>"
        return out

    def _start(self) -> None:
        title = self.title or "pages"
        legend = "".join(
            f'<li><span class="sw t-{t}"></span>{xml_text(t)}</li>'
            for t in REGION_COLORS
            if t not in ("header", "footer", "page_number")
        )
        legend += (
            '<li><span class="sw furn t-header"></span>furniture (header, footer, page number: '
            "left out of the Markdown)</li>"
        )
        self.out.write(
            "<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">\n'
            # Nothing runs and nothing is fetched, whatever the page's text holds.
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "img-src data:; style-src 'unsafe-inline'\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content={attr("edgeocr " + version())}>\n'
            f"<title>{xml_text(title)} · edgeocr review</title>\n"
            f"<style>{_style()}</style></head>\n<body>\n"
            f'<header class="top"><h1>{xml_text(title)}</h1>'
            f'<ul class="legend">{legend}</ul>'
            '<p class="hint" style="margin:6px 0 0;font-size:13px;color:#444">Each box is a '
            "region the parser found, numbered in reading order: point at one for its type, "
            "score and text; click it to find it in the Markdown beside the page (a block's "
            "number leads back to its box).</p></header>\n<main>\n"
        )

    def finish(self) -> None:
        if self.pages == 0:
            self._start()
            self.out.write('<p class="empty" style="margin:16px">(no pages)</p>\n')
        self.out.write("</main>\n</body></html>\n")
        self.images.close()


def _data_uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def _css_name(region_type: str) -> str:
    """A region type as a CSS class name (a newer core's unknown type: letters, digits, _)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", str(region_type)) or "other"


def _finite_box(box, w: int, h: int) -> tuple | None:
    """A region's box clipped to the page, or None when it is not 4 finite numbers."""
    import math

    try:
        x0, y0, x1, y1 = (float(v) for v in box)
    except (TypeError, ValueError):
        return None
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
        return None
    x0, x1 = sorted((min(max(x0, 0.0), float(w)), min(max(x1, 0.0), float(w))))
    y0, y1 = sorted((min(max(y0, 0.0), float(h)), min(max(y1, 0.0), float(h))))
    return (x0, y0, x1, y1)


def _block_lines(blocks) -> tuple[dict, dict]:
    """For the Markdown ``blocks`` of a page: region -> (first, last) line of its blocks in the
    page's Markdown, and region -> its blocks' texts."""
    first_line: dict = {}
    by_region: dict = {}
    line = 1
    for region, text in blocks:
        n = text.count("\n") + 1
        a, _ = first_line.get(region, (line, line))
        first_line[region] = (min(a, line), line + n - 1)
        by_region.setdefault(region, []).append(text)
        line += n + 1
    return first_line, by_region
