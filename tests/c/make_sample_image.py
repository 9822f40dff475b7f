"""Regenerates tests/c/data/sample.ppm, the C tests' sample image: a few
lines of printed text (DejaVu Sans) on a tinted background, as binary PPM.

    python tests/c/make_sample_image.py
"""

import os

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LINES = [("edgeocr C API", 30), ("Invoice No. 2024-0815", 22), ("Total: 42.50 EUR", 22)]


def main():
    img = Image.new("RGB", (360, 150), (246, 240, 226))
    draw = ImageDraw.Draw(img)
    y = 14
    for text, size in LINES:
        draw.text((18, y), text, font=ImageFont.truetype(FONT, size), fill=(30, 34, 60))
        y += size + 22
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sample.ppm")
    img.save(out, format="PPM")
    print(out, img.size)


if __name__ == "__main__":
    main()
