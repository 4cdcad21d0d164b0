"""Write companion/data/font8x11.bin: Pillow's built-in bitmap font (X11 courB08), the
Latin-1 characters 32-255, as one raw 1-bit strip of 8x11-pixel cells. The font
advances 6 pixels a character, but some glyphs reach a pixel further on either side, so
each cell holds its glyph drawn 1 pixel in from the cell's left edge.

Loading Pillow's default font decodes base64 and a PNG at every start (about 20 ms on a
desktop, far more on a Pi Zero); the strip loads with one ``Image.frombytes``.
``tests/test_canvas.py`` checks that the strip still matches what Pillow draws.

    python scripts/make_font.py
"""

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FIRST, LAST = 32, 255
CELL_W, CELL_H, MARGIN = 8, 11, 1
OUT = Path(__file__).resolve().parent.parent / "companion" / "data" / "font8x11.bin"


def render_strip() -> Image.Image:
    font = ImageFont.load_default_imagefont()
    strip = Image.new("1", ((LAST - FIRST + 1) * CELL_W, CELL_H))
    for code in range(FIRST, LAST + 1):
        # Drawn alone, so no neighbour's spill lands in the cell.
        glyph = Image.new("1", (CELL_W, CELL_H))
        ImageDraw.Draw(glyph).text((MARGIN, 0), chr(code), font=font, fill=1)
        strip.paste(glyph, ((code - FIRST) * CELL_W, 0))
    return strip


if __name__ == "__main__":
    OUT.write_bytes(render_strip().tobytes())
    print(f"wrote {OUT}")
