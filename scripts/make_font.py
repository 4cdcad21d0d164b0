"""Write the device font: companion/data/font8x11.bin (the glyphs) and font8x11.txt (which
character each glyph is).

Every glyph is an 8x11-pixel 1-bit cell, one byte per row, so the .bin file is a column
of cells 8 pixels wide, glyph after glyph (11 bytes each); the .txt file holds the same
characters, in the same order, as UTF-8. Characters advance 6 pixels; each cell holds
its glyph drawn 1 pixel in from the cell's left edge because some glyphs reach a pixel
further on either side. The baseline is row 8: capitals fill rows 3-8, accents sit in
rows 0-2, descenders in rows 9-10.

- Latin-1 (32-255) is Pillow's built-in bitmap font (X11 courB08, Adobe; the look of
  every screen and README image), exactly as Pillow draws it.
- Latin Extended, Greek and Cyrillic letters come from the X11 misc-fixed fonts
  (public domain): 5x8 where it has the letter, drawn one pixel bolder when it is at
  most 4 pixels wide so it matches courB08's weight; else 6x9 as it is. A letter that
  misc-fixed draws exactly like a Latin-1 character (Cyrillic А and Latin A, Greek Ο and
  Latin O) gets that character's courB08 glyph, so lookalikes are the same pixels on
  the screen: companion.names refuses a name that would look like another player's by
  comparing these cells. A letter whose mark the small font loses (5x8 draws Ё as Е)
  takes the Latin-1 glyph with that mark on the same base (Ё is drawn as Ë, Ї as Ï).

Needs the misc-fixed PCF files (Debian: ``apt-get install xfonts-base``). Loading the
result is one file read; Pillow's own font decodes base64 and a PNG at every start
(about 20 ms on a desktop, far more on a Pi Zero). ``tests/test_canvas.py`` checks that
the shipped files are what this script writes.

    python scripts/make_font.py
"""

from __future__ import annotations

import gzip
import unicodedata
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFont, PcfFontFile

FIRST, LAST = 32, 255
CELL_W, CELL_H, MARGIN, BASELINE = 8, 11, 1, 8
DATA = Path(__file__).resolve().parent.parent / "companion" / "data"
OUT_GLYPHS, OUT_CHARS = DATA / "font8x11.bin", DATA / "font8x11.txt"
MISC_FIXED = Path("/usr/share/fonts/X11/misc")
#: Where names are written in Latin, Greek and Cyrillic letters, plus the curly apostrophe
#: (O’Brien) and the marks translators write (dashes, quotes as German and Polish open
#: them, the ellipsis). Right-to-left scripts are left out: the screen draws left to
#: right only.
EXTRA_BLOCKS = ((0x0100, 0x024F), (0x0370, 0x03FF), (0x0400, 0x052F), (0x1E00, 0x1EFF),
                (0x2013, 0x2014), (0x2018, 0x2019), (0x201C, 0x201E), (0x2026, 0x2026))
#: The marks of ``EXTRA_BLOCKS`` that are not letters but are drawn all the same.
MARKS = "–—‘’“”„…"


def latin1_cell(char: str) -> Image.Image:
    """``char`` (Latin-1) as Pillow draws its built-in font, in one cell."""
    cell = Image.new("1", (CELL_W, CELL_H))
    ImageDraw.Draw(cell).text((MARGIN, 0), char, font=ImageFont.load_default_imagefont(),
                              fill=1)
    return cell


class MiscFixed:
    """The glyphs of one misc-fixed PCF file by code point (Pillow's own reader keeps only
    the first 256, so the encoding table is read here)."""

    def __init__(self, name: str):
        with gzip.open(MISC_FIXED / f"{name}.pcf.gz") as handle:
            font = PcfFontFile.PcfFontFile(handle)
            metrics = font._load_metrics()
            bitmaps = font._load_bitmaps(metrics)
            fp, _, i16, _ = font._getformat(PcfFontFile.PCF_BDF_ENCODINGS)
            first_col, last_col, first_row, last_row, _ = (i16(fp.read(2)) for _ in range(5))
            cols = last_col - first_col + 1
            offsets = [i16(fp.read(2)) for _ in range((last_row - first_row + 1) * cols)]
        self.glyphs = {}
        for index, offset in enumerate(offsets):
            if offset != 0xFFFF:
                code = (first_row + index // cols) * 256 + first_col + index % cols
                self.glyphs[code] = (metrics[offset], bitmaps[offset])

    def cell(self, char: str, *, bold: bool = False) -> Image.Image | None:
        """``char`` on the courB08 baseline in one cell; None if absent, too big or blank
        (then the next font is asked)."""
        found = self.glyphs.get(ord(char))
        if found is None:
            return None
        (width, height, left, _, _, ascent, _, _), bitmap = found
        x, top = MARGIN + left, BASELINE + 1 - ascent
        if x < 0 or top < 0 or x + width + bold > CELL_W or top + height > CELL_H:
            return None
        cell = Image.new("1", (CELL_W, CELL_H))
        cell.paste(bitmap, (x, top))
        if cell.getbbox() is None:
            return None  # 5x8 has Ѝ and ѝ as empty cells: a letter drawn as nothing is absent
        if bold:
            cell = ImageChops.logical_or(cell, ImageChops.offset(cell, 1, 0))
        return cell


def extra_chars() -> list[str]:
    """The letters (and the :data:`MARKS`) of ``EXTRA_BLOCKS``."""
    chars = []
    for first, last in EXTRA_BLOCKS:
        for code in range(first, last + 1):
            char = chr(code)
            if unicodedata.category(char)[0] == "L" or char in MARKS:
                chars.append(char)
    return chars


def _mark_lost(char: str, source: MiscFixed, plain: Image.Image,
               found: dict[bytes, str]) -> str | None:
    """The Latin-1 letter to draw ``char`` with when ``source`` draws it without its mark
    (exactly as its base letter): the same mark on the base's Latin-1 twin (Ё: Е is
    drawn as E, so Ë); None when the mark is kept, or Latin-1 has no such letter."""
    parts = unicodedata.decomposition(char).split()
    if len(parts) != 2 or parts[0].startswith("<"):
        return None
    base, mark = (chr(int(part, 16)) for part in parts)
    drawn_base = source.cell(base)
    if drawn_base is None or drawn_base.tobytes() != plain.tobytes():
        return None
    twin = found.get(plain.tobytes())
    composed = unicodedata.normalize("NFC", (twin or base) + mark)
    return composed if len(composed) == 1 and FIRST <= ord(composed) <= LAST else None


def render() -> tuple[str, bytes]:
    """(the characters, their cells) in the order they are shipped."""
    latin1 = [chr(code) for code in range(FIRST, LAST + 1)]
    cells = {char: latin1_cell(char).tobytes() for char in latin1}
    sources = (MiscFixed("5x8"), MiscFixed("6x9"))
    # Each source's Latin-1 cells, to find the letters it draws exactly like one of them.
    twins = [{} for _ in sources]
    for source, found in zip(sources, twins, strict=True):
        for other in reversed(latin1):  # the lowest code wins: A before any other A
            drawn = source.cell(other)
            if drawn is not None:
                found[drawn.tobytes()] = other
    for char in extra_chars():
        for source, found in zip(sources, twins, strict=True):
            plain = source.cell(char)
            if plain is None:
                continue
            twin = found.get(plain.tobytes())
            marked = _mark_lost(char, source, plain, found)
            if marked is not None:
                cells[char] = cells[marked]
            elif twin is not None:
                cells[char] = cells[twin]
            else:
                thin = source is sources[1] or source.glyphs[ord(char)][0][0] > 4
                cells[char] = (plain if thin else source.cell(char, bold=True)).tobytes()
            break
    chars = "".join(cells)
    return chars, b"".join(cells[char] for char in chars)


if __name__ == "__main__":
    chars, glyphs = render()
    OUT_GLYPHS.write_bytes(glyphs)
    OUT_CHARS.write_text(chars, encoding="utf-8")
    print(f"wrote {OUT_GLYPHS} and {OUT_CHARS}: {len(chars)} characters")
