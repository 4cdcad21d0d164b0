"""The drawing layer: the shipped font, text placement, dice pips."""

import os
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from companion import font
from companion.ui.canvas import Canvas, _glyphs, clip, text_width

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import make_font  # noqa: E402


def test_the_shipped_font_is_what_make_font_writes():
    if not (make_font.MISC_FIXED / "5x8.pcf.gz").exists():
        reason = "the X11 misc-fixed fonts are missing: apt-get install xfonts-base"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    chars, glyphs = make_font.render()
    assert font.CHARS_FILE.read_text(encoding="utf-8") == chars
    assert font.GLYPH_FILE.read_bytes() == glyphs


def test_latin1_is_pillows_font_cell_for_cell():
    for code in range(32, 256):
        assert font.glyph(chr(code)) == make_font.latin1_cell(chr(code)).tobytes(), code


def test_the_font_and_its_licence_ship_in_the_package():
    assert (font.DATA / "FONT-LICENSE.txt").read_text().count("Public domain font") == 1
    assert font.GLYPH_FILE.stat().st_size == len(font.chars()) * font.CELL_H


def test_each_character_draws_as_pillows_bitmap_font_draws_it():
    font = ImageFont.load_default_imagefont()
    for char in "Ag9:?#ÅÉçü":
        ours = Canvas()
        ours.text(3, 12, char)
        theirs = Image.new("1", (128, 64))
        ImageDraw.Draw(theirs).text((3, 10), char, font=font, fill=1)
        assert ours.image.tobytes() == theirs.tobytes(), char


def test_a_line_is_its_characters_6_pixels_apart():
    line = Canvas()
    line.text(3, 12, "Ann 6")
    apart = Canvas()
    for i, char in enumerate("Ann 6"):
        apart.text(3 + 6 * i, 12, char)
    assert line.image.tobytes() == apart.image.tobytes()


def test_latin1_names_keep_their_accents_and_others_show_a_question_mark():
    assert _glyphs("Å", 1).tobytes() != _glyphs("A", 1).tobytes()
    assert _glyphs("☃", 1).tobytes() == _glyphs("?", 1).tobytes()
    assert _glyphs("中", 1).tobytes() == _glyphs("ﷺ", 1).tobytes() == _glyphs("?", 1).tobytes()


@pytest.mark.parametrize("name", ["Łukasz", "Šárka", "Ğülşen", "Σοφία", "Ωμέγα", "Ярослав",
                                  "Жанна", "Дмитрий", "Їжак", "O’Brien"])
def test_latin_greek_and_cyrillic_names_show_as_typed(name):
    """Every letter has its own glyph: none is a '?', and no two different letters of
    the name share pixels unless they are the same letter."""
    missing = font.glyph("?")
    cells = {char: font.glyph(char) for char in name}
    assert all(font.drawable(char) and cells[char] != missing for char in name), name
    assert len(set(cells.values())) == len(cells), name
    assert _glyphs(name, 1).tobytes() != _glyphs("?" * len(name), 1).tobytes()


def test_letters_that_look_alike_are_drawn_with_the_same_pixels():
    """Cyrillic and Greek letters shaped like Latin ones are drawn as those Latin ones,
    so the screen never shows two looks for one shape (and the name rule can compare
    pixels)."""
    for latin, other in [("A", "А"), ("a", "а"), ("O", "О"), ("o", "о"), ("E", "Е"),
                         ("P", "Р"), ("C", "С"), ("O", "Ο"), ("A", "Α"), ("H", "Н")]:
        assert font.glyph(latin) == font.glyph(other), (latin, other)
    assert _glyphs("Аnn", 1).tobytes() == _glyphs("Ann", 1).tobytes()


def test_extra_glyphs_sit_on_the_same_baseline_as_latin1():
    """Capitals fill rows 3-8 of the cell in both fonts: a mixed name reads as one line."""
    def rows(char):
        return [row for row, byte in enumerate(font.glyph(char)) if byte]

    assert rows("H") == list(range(3, 9))
    for char in "ЖШЯБΣΩЛ":
        assert rows(char) == list(range(3, 9)), char


def test_big_text_is_the_small_text_scaled_by_whole_pixels():
    small, big = _glyphs("42", 1), _glyphs("42", 3)
    assert big.size == (small.width * 3, small.height * 3)
    assert big.resize(small.size, Image.Resampling.NEAREST).tobytes() == small.tobytes()


def test_clip_and_width():
    assert clip("Tabletop Companion rules", 10) == "Tabletop ~"
    assert text_width("abc", 2) == 36


def test_every_fixed_hint_and_note_fits_one_line():
    """21 characters fit on a line; a longer hint would be cut with a '~'."""
    import importlib
    import inspect
    import pkgutil

    import companion.ui as ui

    # Every module of ui, those of a game's own package too.
    for found in pkgutil.walk_packages(ui.__path__, "companion.ui."):
        module = importlib.import_module(found.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            for attribute in ("hint", "note"):
                text = cls.__dict__.get(attribute)
                if isinstance(text, str):
                    assert len(text) <= 21, f"{found.name}.{name}.{attribute}: {text!r}"
