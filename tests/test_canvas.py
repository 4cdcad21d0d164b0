"""The drawing layer: the shipped font strip, text placement, dice pips."""

import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from companion.ui.canvas import FONT_FILE, Canvas, _glyphs, clip, text_width

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import make_font  # noqa: E402


def test_the_shipped_font_strip_is_pillows_font():
    assert FONT_FILE.read_bytes() == make_font.render_strip().tobytes()


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

    for found in pkgutil.iter_modules(ui.__path__):
        module = importlib.import_module(f"companion.ui.{found.name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            for attribute in ("hint", "note"):
                text = cls.__dict__.get(attribute)
                if isinstance(text, str):
                    assert len(text) <= 21, f"{found.name}.{name}.{attribute}: {text!r}"
