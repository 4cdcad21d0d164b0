"""Every refusal a second way in gets is said in the device's language after its English
code (issue 38.3): over the serial console in Russian, UNDO with nothing to undo answers
``ERR ILLEGAL`` and Russian words; with a language that shouts every message, no
refusal of the console or the page keeps a word of English; a count in a refusal goes
through the language's plural forms, never forms glued together by hand."""

from __future__ import annotations

import re

import pytest
from test_lang_records import Shouting

from companion import lang
from companion.config import Config, Ui
from companion.games import GAMES
from companion.remote.protocol import EOL
from companion.remote.serial import Console
from companion.ui.moves import EVENT_WORDS


@pytest.fixture
def started(rig):
    """An app speaking ``language`` whose owner is the test's thread (commands run at
    once, as the console's owner-thread calls do)."""
    return lambda language: rig(Config(ui=Ui(language)))[0]


def _replies(app, *lines: str) -> list[str]:
    sent: list[bytes] = []
    console = Console(app, send=sent.append)
    for line in lines:
        console.feed(line.encode() + b"\n")
    return [reply.decode().removesuffix(EOL) for reply in sent]


def test_undo_with_nothing_to_undo_answers_in_russian_over_the_serial_console(started):
    app = started("ru")
    new, undo = _replies(app, "NEW final-count Ann,Bob", "UNDO")
    assert new.startswith("OK ")
    assert undo.startswith("ERR ILLEGAL ")
    words = undo.removeprefix("ERR ILLEGAL ")
    assert words == lang.pgettext("screen 21xN", "nothing to undo") != "nothing to undo"
    assert re.search("[а-яё]", words), words


#: Console lines each refused, and the code each gets.
REFUSED = [
    ("UNDO", "NOGAME"),
    ("LEAVE", "NOGAME"),
    ("ROLL", "NOGAME"),
    ("NEW chess Ann,Bob", "BADARG"),
    ("NEW final-count Ann", "BADARG"),
    ("REMOVE PLAYER Zed", "STORE"),
    ("RENAME PLAYER Zed", "BADARG"),
    ("HISTORY lots", "BADARG"),
    ("EXPORT nowhere", "BADARG"),
    ("NEW final-count Ann,Bob", None),
    ("UNDO", "ILLEGAL"),
    ('EVENT {"type": "dance"}', "ILLEGAL"),
    ('EVENT {"type": "roll", "player": "Bob", "value": 3}', "ILLEGAL"),
    ("NEW count-up-21 Ann,Bob", "OPEN"),
    # JSON the reader cannot read: its own English reason is said in the language.
    ('EVENT {', "BADJSON"),
    ('EVENT {"type" "roll"}', "BADJSON"),
    ('EVENT {"type": "roll",}', "BADJSON"),
    ('EVENT {"type": "roll"} and more', "BADJSON"),
    ('EVENT {"type": "ro', "BADJSON"),
    ('EVENT {"type": "\\q"}', "BADJSON"),
    ('EVENT {"type": ', "BADJSON"),
]


#: What programs read stays English in a refusal too: game ids and event types.
PROGRAM_WORDS = ({word for info in GAMES for word in info.game_id.split("-")}
                 | set(EVENT_WORDS))


def test_no_refusal_of_the_console_keeps_a_word_of_english(started, monkeypatch):
    app = started("en")
    monkeypatch.setattr(lang, "_current", ["xx", Shouting()])
    replies = _replies(app, *(line for line, _code in REFUSED))
    for (line, code), reply in zip(REFUSED, replies, strict=True):
        if code is None:
            assert reply.startswith("OK "), (line, reply)
            continue
        assert reply.startswith(f"ERR {code} "), (line, reply)
        words = reply.split(" ", 2)[2]
        # What is left lower-case is what the person typed (names, ids) and the game
        # ids and event types (a program's words), never English.
        english = [word for word in re.findall(r"\b[a-z]{3,}\b", words)
                   if word not in line and word not in PROGRAM_WORDS]
        assert english == [], (line, reply)


@pytest.mark.parametrize("code", lang.LANGUAGES[1:])
def test_json_the_console_cannot_read_is_refused_in_the_language(started, code):
    """The JSON reader's own English ("Expecting property name enclosed in double
    quotes") never follows ERR BADJSON: what is wrong and where, in the catalog's words."""
    app = started(code)
    try:
        (reply,) = _replies(app, 'EVENT {"type": "roll",}')
    finally:
        lang.use("en")
    assert reply.startswith("ERR BADJSON ")
    said = reply.removeprefix("ERR BADJSON ")
    lang.use(code)
    try:
        reason = lang.gettext("a key in double quotes is missing at character {n}")
        expected = lang.gettext("not JSON ({reason})").format(reason=reason.format(n=17))
    finally:
        lang.use("en")
    assert said == expected and "Expecting" not in said and "{" not in said


def test_the_busy_refusal_counts_through_the_plural_forms():
    from companion.remote import calls

    lang.use("ru")
    try:
        said = lang.ngettext(
            "{command} was not run: {n} command is waiting for the device already",
            "{command} was not run: {n} commands are waiting for the device already",
            calls.PENDING_MAX).format(command="UNDO", n=calls.PENDING_MAX)
    finally:
        lang.use("en")
    assert "|||" not in said and f"{calls.PENDING_MAX} команд" in said, said
