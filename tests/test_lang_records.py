"""The records speak the device's language: `companion stats`, backup and restore, import
and export, the game log's errors and the serial console's refusals (with a fake
translation that shouts every message, the catalogs being made elsewhere); what programs
read (the console's reply codes and keywords, HELP) stays English; and the font draws
every letter the six languages need."""

import gettext
import io
import json
import re

import pytest

import companion.lang as lang
from companion import font
from companion.commands.backup import backup_main
from companion.commands.importer import import_main, import_text
from companion.errors import ImportRefused, StoreError
from companion.remote.protocol import COMMANDS, EOL
from companion.remote.serial import Console
from companion.stats import figures, format_table, stats_main
from companion.store import Store

_FIELD = re.compile(r"(\{[^{}]*\})")


def _shout(message: str) -> str:
    """``message`` in capitals, its ``{fields}`` left as they are (they are filled in)."""
    return "".join(part if _FIELD.fullmatch(part) else part.upper()
                   for part in _FIELD.split(message))


class Shouting(gettext.NullTranslations):
    """A language whose every message is the English in capitals."""

    def gettext(self, message):
        return _shout(message)

    def pgettext(self, context, message):
        return _shout(message)

    def ngettext(self, singular, plural, n):
        return _shout(singular if n == 1 else plural)

    def npgettext(self, context, singular, plural, n):
        return _shout(singular if n == 1 else plural)


@pytest.fixture
def shouting(monkeypatch):
    monkeypatch.setattr(lang, "_current", ["xx", Shouting()])


def _english(monkeypatch) -> None:
    monkeypatch.setattr(lang, "_current", ["en", gettext.NullTranslations()])


@pytest.fixture
def played(tmp_path):
    """A state directory whose game log holds one finished Final Count."""
    with Store.in_dir(tmp_path, clock=lambda: 1_700_000_000.0) as store:
        mid = store.new_match("final-count", ["Ann", "Bob"], {})
        store.finish(mid, {"over": True, "totals": {"Ann": 310, "Bob": 120},
                           "winners": ["Ann"]})
    return tmp_path


# -- companion stats ---------------------------------------------------------------------


def test_the_stats_table_headings_and_words_are_translated_and_switch_live(
        played, monkeypatch, shouting):
    with Store.in_dir(played) as store:
        shown = figures(store)
    translated = format_table(shown)
    heading = translated.splitlines()[1].split()
    assert heading == ["PLAYER", "PLAYS", "WINS", "WON", "AVG", "BEST", "PLACE", "STREAK",
                       "RATING", "TIME", "LAST"]
    assert "1 PLAYED" in translated and "0 MIN IN ALL" in translated
    assert "Final Count (final-count)" in translated  # the game's name as its sheet prints it
    _english(monkeypatch)  # the next table drawn speaks the new language
    english = format_table(shown)
    assert english.splitlines()[1].split()[:3] == ["player", "plays", "wins"]
    assert "1 played" in english


def test_stats_says_its_refusals_and_empty_record_translated(tmp_path, played, shouting):
    out, err = io.StringIO(), io.StringIO()
    assert stats_main(played, players=["Cy"], out=out, err=err) == 1
    assert "Cy: NO FINISHED GAMES (NO PLAYER OF THAT NAME ON THE ROSTER: Ann, Bob)" \
        in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert stats_main(played, since="yesterday", out=out, err=err) == 2
    assert err.getvalue() == ("companion stats: --SINCE IS A DATE LIKE 2026-01-31, "
                              "NOT 'yesterday'\n")
    Store.in_dir(tmp_path / "empty").close()
    out = io.StringIO()
    assert stats_main(tmp_path / "empty", out=out, err=io.StringIO()) == 0
    assert out.getvalue() == "NO FINISHED GAMES YET.\n"


def test_stats_decimals_and_dates_are_written_as_the_language_writes_them(
        played, monkeypatch):
    class German(gettext.NullTranslations):
        def pgettext(self, context, message):
            return {"decimal separator": ",",
                    "a date in digits": "{day}.{month}.{year}"}.get(context, message)

    with Store.in_dir(played) as store:
        shown = figures(store)
    monkeypatch.setattr(lang, "_current", ["de", German()])
    row = format_table(shown).splitlines()[2]
    assert "3,4" in row and "3.4" not in row  # Ann's rating
    assert re.search(r"\d\d\.\d\d\.\d{4}$", row)  # the day she last played


# -- backup, restore, import ---------------------------------------------------------------


def test_what_a_backup_holds_and_a_restore_refusal_are_translated(
        played, tmp_path, shouting):
    out = io.StringIO()
    assert backup_main(played, str(tmp_path), "", out=out) == 0
    assert out.getvalue().endswith(": 1 MATCH, 0 EVENTS, 2 PLAYERS\n")  # one is singular
    with pytest.raises(StoreError) as refused:
        backup_main(tmp_path / "nowhere", str(tmp_path), "", out=io.StringIO())
    assert str(refused.value).startswith("NO GAME LOG IN ")
    assert "(companion.db NOT FOUND)" in str(refused.value)


def test_an_import_refusal_and_what_was_stored_are_translated(played, tmp_path, shouting):
    with Store.in_dir(played) as store, pytest.raises(ImportRefused) as refused:
        import_text(store, '{"type": "start"}\n', print, now=1_700_000_000.0)
    assert str(refused.value) == 'LINE 1: THE START LINE NAMES NO "game"'
    export = tmp_path / "edited.jsonl"
    export.write_text("[1]\n", encoding="utf-8")
    err = io.StringIO()
    assert import_main(str(played), str(export), out=io.StringIO(), err=err) == 1
    assert err.getvalue() == (f"companion import: {export}: LINE 1: AN EVENT IS A JSON "
                              "OBJECT; NOTHING WAS IMPORTED\n")


def test_a_game_log_error_is_translated(played, shouting):
    with Store.in_dir(played) as store, pytest.raises(StoreError) as refused:
        store.remove_player("Cy")
    assert str(refused.value) == "Cy IS NOT ON THE ROSTER"


# -- the serial console --------------------------------------------------------------------


def _replies(console_input: bytes) -> list[str]:
    sent: list[bytes] = []
    console = Console(app=None, send=sent.append)  # type: ignore[arg-type]
    console.feed(console_input)
    return [line.decode().removesuffix(EOL) for line in sent]


def test_serial_reply_codes_stay_english_and_the_words_after_them_are_translated(shouting):
    unknown, usage, empty = _replies(b"DANCE\nPROMPT MAYBE\nEVENT\n")
    assert unknown == "ERR UNKNOWN NO COMMAND 'DANCE'; HELP LISTS THE COMMANDS"
    assert usage == "ERR BADARG USAGE: PROMPT ON|OFF"  # the keywords stay as typed
    assert empty == 'ERR BADJSON USAGE: EVENT {"type": ...}'
    (bad_byte,) = _replies(b"\xff\n")
    assert bad_byte == "ERR ENCODING THE LINE IS NOT UTF-8 (BYTE 1)"


def test_the_consoles_help_stays_english(shouting):
    (help_reply,) = _replies(b"HELP\n")
    assert help_reply.startswith("OK [")
    listed = json.loads(help_reply[3:])
    assert listed == [f"{usage}  -  {what}" for usage, what in COMMANDS]
    assert listed[0] == "HELP  -  this list"


# -- the font ------------------------------------------------------------------------------

LETTERS = ("ąęłńśźżóćĄĘŁŃŚŹŻÓĆ" "ßäöüÄÖÜ" "éèêëçàâîïôûùÿœæÉÈÊÇÀŒ«»" "ñáíú¿¡Ñ" "ìò"
           + "".join(map(chr, range(ord("а"), ord("я") + 1)))
           + "".join(map(chr, range(ord("А"), ord("Я") + 1))) + "ёЁ")
MARKS = "„“”‘’–—…"


@pytest.mark.parametrize("char", LETTERS + MARKS)
def test_every_letter_and_mark_the_six_languages_need_is_drawn(char):
    assert font.drawable(char) and not font.blank(char), char
    assert font.glyph(char) != font.glyph(font.MISSING), char


def test_the_marks_translators_write_are_told_apart_from_one_another():
    cells = {char: font.glyph(char) for char in "„“”‘’—…"}
    assert len(set(cells.values())) == len(cells)
    assert font.glyph("–") == font.glyph("-")  # an en dash is drawn as the hyphen it looks like
