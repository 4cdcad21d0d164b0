"""The device's bitmap font as data: which characters the screen can draw, and each one's
pixels.

The font ships in ``companion/data`` (made by ``scripts/make_font.py``; licences in
``companion/data/FONT-LICENSE.txt``): Latin-1 in X11 courB08, plus Latin Extended, Greek
and Cyrillic letters and the marks translators write (– — “ ” „ …) from the X11
misc-fixed fonts. Each glyph is an 8x11 cell of 11
bytes, one per row (the top bit is the leftmost pixel). Nothing here needs Pillow, so
the name rule (:mod:`companion.names`) can ask "can the screen draw this?" cheaply;
:mod:`companion.ui.canvas` turns the same bytes into pictures::

    >>> drawable("Ж"), drawable("中"), drawable("\\x85")  # the last: a blank cell
    (True, False, False)
    >>> glyph("А") == glyph("A")  # Cyrillic A is drawn as Latin A: the same pixels
    True
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
#: The glyphs, one 8x11 cell after another, and the characters they draw, in order.
GLYPH_FILE, CHARS_FILE = DATA / "font8x11.bin", DATA / "font8x11.txt"
CELL_W, CELL_H = 8, 11
#: The rows above the capitals, where only accents are: the screen draws text this many
#: rows higher than its cell (lines pack at 10 px), so text at the panel's top edge (the
#: title bar) shows its cells without them: "Ànn's cards" there reads "Ann's cards".
ACCENT_ROWS = 2
#: What an undrawable character shows as.
MISSING = "?"
#: The spaces the screen draws as the space between words: the space, the no-break
#: space and the narrow no-break space French writes before : ; ? ! (the screen keeps
#: a no-break space's words together on one line: companion.ui.screen.wrap).
SPACES = " \u00a0\u202f"


@lru_cache(maxsize=1)
def _loaded() -> tuple[dict[str, int], bytes]:
    chars = CHARS_FILE.read_text(encoding="utf-8")
    return {char: index for index, char in enumerate(chars)}, GLYPH_FILE.read_bytes()


def glyph_data() -> bytes:
    """Every cell, one after the other (11 bytes each, in the order of :func:`chars`)."""
    return _loaded()[1]


def chars() -> str:
    """Every character the screen can draw, in the order their glyphs are stored."""
    return "".join(_loaded()[0])


@lru_cache(maxsize=1)
def _kinds() -> tuple[frozenset[str], frozenset[str]]:
    """(the characters drawn as something, those whose cell draws nothing): asked for
    every character of every name checked (an import checks each match's names), so
    the cells are looked at once."""
    empty = frozenset(char for char in _loaded()[0] if not any(glyph(char)))
    return frozenset(_loaded()[0]) - (empty - {" "}), empty


def drawable(char: str) -> bool:
    """Whether the screen draws ``char`` (one character) as something: it has a glyph
    for it, and the glyph has a pixel, unless it is the space between words. Latin-1's
    control codes and no-break space are cells with nothing in them: not drawable."""
    return char in _kinds()[0]


def blank(char: str) -> bool:
    """Whether ``char`` has a cell in the font that draws nothing (the space too)."""
    return char in _kinds()[1]


def glyph_index(char: str) -> int:
    """Where ``char``'s cell is in the glyph file; an undrawable one gets ``MISSING``'s,
    a space of :data:`SPACES` the space's."""
    index = _loaded()[0]
    if char in SPACES:
        return index[" "]
    return index.get(char, index[MISSING])


def glyph(char: str) -> bytes:
    """The 11 bytes of ``char``'s cell (``MISSING``'s if the screen cannot draw it)."""
    start = glyph_index(char) * CELL_H
    return _loaded()[1][start : start + CELL_H]
