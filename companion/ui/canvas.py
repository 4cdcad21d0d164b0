"""Drawing on the 128x64 one-bit screen: text lines, big digits, pip dice, the hint line.

Everything is drawn at the panel's native size with a bitmap font, because anti-aliased
TrueType turns to mush on a 1-bit OLED. Big text is the same font scaled up by whole
pixels, so it stays crisp::

    >>> canvas = Canvas()
    >>> canvas.title("Dice")
    >>> canvas.die(10, 14, 24, face=5)
    >>> canvas.big_text(80, 14, "17")
    >>> canvas.hint("ROLL roll  OK hold")
    >>> canvas.image.size
    (128, 64)
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from companion import font

# Every function here that takes a text also takes a lazy message (companion.lang.lazy)
# and turns it into the current language's str at the door: the drawing works on str.

WIDTH, HEIGHT = 128, 64
#: Pixels per character and per text line of the small font.
CHAR_W, LINE_H = 6, 10
#: Characters that fit on one line.
COLUMNS = WIDTH // CHAR_W
#: The y of the hint line at the bottom, and the last row the body may use above it.
HINT_Y = HEIGHT - LINE_H
BODY_TOP, BODY_BOTTOM = LINE_H + 1, HINT_Y - 2
#: Pixels between a menu's rows: one more than a line's, so that an accent over a
#: capital ("Ámbar") under the highlighted row stays off its bar; four rows still end
#: above the hint line.
MENU_PITCH = LINE_H + 1
# The bitmap font leaves two rows above its capitals for accents; drawing two rows
# higher packs lines at 10 px with the glyphs still clear of each other (and hides those
# rows in the title bar: companion.names compares names as it shows them).
_FONT_TOP = font.ACCENT_ROWS
#: The font (see companion.font): Latin-1, Latin Extended, Greek and Cyrillic in 8x11
#: cells, each glyph 1 pixel in from its cell's left edge. Characters advance 6 pixels;
#: ink may reach 1 further. A character outside the font shows as font.MISSING.
CELL_W, CELL_H, CELL_MARGIN = font.CELL_W, font.CELL_H, 1

# Pip positions on a 3x3 grid (column, row) for each face: how real dice are printed.
PIPS = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}


@lru_cache(maxsize=1)
def font_strip() -> Image.Image:
    """Every glyph, one 8x11 cell under the other: cell i is at y = i * 11."""
    data = font.glyph_data()
    return Image.frombytes("1", (CELL_W, len(data)), data)  # 8 pixels: a byte a row


@lru_cache(maxsize=512)
def _glyphs(text: str, scale: int) -> Image.Image:
    """``text`` in the small font, scaled by whole pixels; 11 rows per line of text
    (two above the capitals, two below the baseline)."""
    strip = font_strip()
    # One spare column each side for ink that reaches past the 6-pixel advance.
    line = Image.new("1", (max(1, len(text)) * CHAR_W + 2, CELL_H))
    for i, char in enumerate(text):
        top = font.glyph_index(char) * CELL_H
        glyph = strip.crop((0, top, CELL_W, top + CELL_H))
        line.paste(1, (i * CHAR_W + 1 - CELL_MARGIN, 0), glyph)
    line = line.crop((1, 0, line.width - 1, CELL_H))
    if scale == 1:
        return line
    return line.resize((line.width * scale, line.height * scale), Image.Resampling.NEAREST)


def text_width(text: str, scale: int = 1) -> int:
    """Width in pixels of ``text`` at ``scale``."""
    return len(str(text)) * CHAR_W * scale


def clip(text: str, columns: int = COLUMNS) -> str:
    """``text`` cut to ``columns`` characters, with a '~' where it was cut."""
    text = str(text)
    return text if len(text) <= columns else text[: columns - 1] + "~"


def fits_beside(title: str, right: str) -> bool:
    """True when ``title`` and ``right`` share the title bar with neither cut."""
    return len(str(title)) + 1 + len(str(right)) <= COLUMNS


def fitting(*texts: str, room: int = COLUMNS) -> str:
    """The first of ``texts`` that fits one line (of ``room`` columns): the same thing
    said shorter and shorter, never cut (the last should always fit)."""
    said = [str(text) for text in texts]
    return next((text for text in said if len(text) <= room), said[-1])


def newest_that_fit(tokens: list[str], room: int) -> str:
    """The last ``tokens`` that fit ``room`` columns, "< " before them when not all do."""
    if len(" ".join(tokens)) <= room:
        return " ".join(tokens)
    shown: list[str] = []
    while len(" ".join(["<", tokens[-len(shown) - 1], *shown])) <= room:
        shown.insert(0, tokens[-len(shown) - 1])
    return " ".join(["<", *shown])


def first_that_fit(tokens: list[str], room: int) -> str:
    """The first ``tokens`` that fit ``room`` columns, " >" after them when not all do."""
    if len(" ".join(tokens)) <= room:
        return " ".join(tokens)
    shown: list[str] = []
    while len(" ".join([*shown, tokens[len(shown)], ">"])) <= room:
        shown.append(tokens[len(shown)])
    return " ".join([*shown, ">"])


class Canvas:
    """One frame being drawn. ``image`` is the finished 128x64 mode-"1" picture."""

    def __init__(self) -> None:
        self.image = Image.new("1", (WIDTH, HEIGHT))
        self.draw = ImageDraw.Draw(self.image)

    # -- text ------------------------------------------------------------------------

    def text(self, x: int, y: int, text: str, *, invert: bool = False, scale: int = 1) -> None:
        """Small (or scaled) text with its top-left corner at (x, y)."""
        text = str(text)
        if not text:
            return
        glyphs = _glyphs(text, scale)
        top = y - _FONT_TOP * scale
        if invert:
            self.draw.rectangle((x - 1, y - 1, x + glyphs.width, top + glyphs.height - 1),
                                fill=1)
            self.image.paste(0, (x, top), glyphs)
        else:
            self.image.paste(1, (x, top), glyphs)

    def line(self, row: int, text: str, *, invert: bool = False, center: bool = False,
             pitch: int = LINE_H) -> None:
        """Small text on text line ``row`` of the body (row 0 sits under the title),
        the lines ``pitch`` pixels apart (:data:`MENU_PITCH` in a menu)."""
        text = clip(text)
        x = (WIDTH - text_width(text)) // 2 if center else 1
        y = BODY_TOP + row * pitch
        if invert:
            self.draw.rectangle((0, y - 1, WIDTH - 1, y + LINE_H - 2), fill=1)
            self.image.paste(0, (x, y - _FONT_TOP), _glyphs(text, 1))
        else:
            self.text(x, y, text)

    def big_text(self, x: int, y: int, text: str, scale: int = 3, *, right: bool = False) -> None:
        """Big text (3x: capitals 21 px tall) for scores, die totals and names."""
        text = str(text)
        if right:
            x -= text_width(text, scale) - scale
        self.text(x, y, text, scale=scale)

    def centered(self, y: int, text: str, scale: int = 1) -> None:
        """Text centred across the screen."""
        text = clip(text, WIDTH // (CHAR_W * scale))
        self.text((WIDTH - text_width(text, scale) + scale) // 2, y, text, scale=scale)

    def title(self, text: str, right: str = "", *, right_gives_way: bool = False) -> None:
        """The title bar: white text on a dark screen, a rule under it, ``right`` flush
        right; with ``right_gives_way`` it is left out rather than cut the title."""
        text, right = str(text), str(right)
        if right_gives_way and not fits_beside(text, right):
            right = ""
        room = COLUMNS - (len(right) + 1 if right else 0)
        self.text(1, 0, clip(text, room))
        if right:
            self.text(WIDTH - text_width(right), 0, right)
        self.draw.line((0, LINE_H - 1, WIDTH - 1, LINE_H - 1), fill=1)

    def hint(self, text: str) -> None:
        """The one-line hint of what the buttons do, inverted along the bottom edge."""
        text = str(text)
        if not text:
            return
        self.draw.rectangle((0, HINT_Y, WIDTH - 1, HEIGHT - 1), fill=1)
        self.image.paste(0, (1, HINT_Y + 1 - _FONT_TOP), _glyphs(clip(text), 1))

    def paragraph(self, lines: list[str], first_row: int = 0, center: bool = False) -> None:
        """Several body lines."""
        for row, text in enumerate(lines, start=first_row):
            self.line(row, text, center=center)

    # -- dice ------------------------------------------------------------------------

    def die(self, x: int, y: int, size: int, face: int, *, held: bool = False) -> None:
        """A die ``size`` pixels square with ``face`` drawn as pips; ``held`` inverts it."""
        paper, ink = (1, 0) if held else (0, 1)
        self.draw.rounded_rectangle(
            (x, y, x + size - 1, y + size - 1), radius=max(1, size // 6), fill=paper, outline=1
        )
        pip = max(2, size // 6)
        for col, row in PIPS[face]:
            # Pip centres sit at a quarter, half and three quarters of the face.
            cx = x + (size - 1) * (1 + col) / 4
            cy = y + (size - 1) * (1 + row) / 4
            box = (round(cx - pip / 2), round(cy - pip / 2))
            box = (*box, box[0] + pip - 1, box[1] + pip - 1)
            if pip < 4:
                self.draw.rectangle(box, fill=ink)
            else:
                self.draw.ellipse(box, fill=ink)

    def frame(self, box: tuple[int, int, int, int], *, fill: int = 0) -> None:
        """A rectangle outline (``fill`` 1 makes it solid)."""
        self.draw.rectangle(box, outline=1, fill=fill)

    def underline(self, x: int, y: int, width: int) -> None:
        """A 2-pixel bar: the cursor under a die or a digit."""
        self.draw.rectangle((x, y, x + width - 1, y + 1), fill=1)


def dice_layout(count: int, width: int, height: int, gap: int = 3) -> tuple[int, int, int]:
    """(columns, rows, die size) that fit ``count`` dice biggest into width x height."""
    best = (count, 1, 0)
    for rows in range(1, 4):
        cols = -(-count // rows)
        size = min((width + gap) // cols - gap, (height + gap) // rows - gap, 36)
        if size > best[2]:
            best = (cols, rows, size)
    return best
