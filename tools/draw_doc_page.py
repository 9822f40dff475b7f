#!/usr/bin/env python3
"""A parsed page's drawing (`DocumentResult.draw`), scaled down for the docs.

    python tools/draw_doc_page.py PAGE.png -o docs/images/drawing.png [--width 900] [--colors 96]

The page is parsed with the default models (the installed layout and table models), drawn,
scaled to ``--width`` pixels (area averaging) and written as a PNG of at most ``--colors``
colours (Pillow's median cut), which keeps a drawing of a text page small. Prints the regions
and the file's size. docs/images/doc_parse_drawing.png is
``/work/shared/datasets/docparse-real-dev/pages/mineru_paper_en_01.png`` drawn this way.
"""

from __future__ import annotations

import argparse
import os
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--width", type=int, default=900)
    ap.add_argument("--colors", type=int, default=96)
    args = ap.parse_args(argv)

    import cv2
    from PIL import Image

    import edgeocr

    doc = edgeocr.Predictor().parse(args.page)
    for k, r in enumerate(doc.regions):
        print(f"{k + 1:3d} {r.type:15s} {r.score:.2f} {' '.join(r.text.split())[:60]}")
    img = doc.draw()
    h, w = img.shape[:2]
    if w > args.width:
        img = cv2.resize(img, (args.width, round(h * args.width / w)), interpolation=cv2.INTER_AREA)
    pic = Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
    pic = pic.quantize(
        colors=args.colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    pic.save(args.output, optimize=True)
    print(f"{args.output}: {pic.size[0]} x {pic.size[1]}, {os.path.getsize(args.output)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
