"""Full Counter, Final Card-Down and Block Lottery speak the device's language: every
text their screens draw goes through companion.lang with the place it is drawn in as its
context, a switch of language changes the next frame, and the English stays as it was.

No catalog is needed: a fake translation (capitals outside the ``{fields}``) stands in
for one.
"""

from __future__ import annotations

import gettext
import random
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from babel.messages.extract import extract_from_file

import companion.lang as lang
from companion.session import Session
from companion.ui import canvas as canvas_module
from companion.ui.block_lottery.draw import describe_event
from companion.ui.block_lottery.round_end import RoundOver
from companion.ui.block_lottery.table import BlockLotteryTable
from companion.ui.card_down.table import CardDownSetup, CardDownTable
from companion.ui.card_down.turns import CardPicker, WordQuestion
from companion.ui.full_counter.cards import card_of, label
from companion.ui.full_counter.deck import DeckScreen
from companion.ui.full_counter.table import FullCounterTable
from companion.ui.full_counter.turns import CardsHeld
from companion.ui.screen import Context, wrap

ROOT = Path(__file__).resolve().parents[1]
FILES = ["companion/ui/full_counter/table.py", "companion/ui/full_counter/cards.py",
         "companion/ui/full_counter/turns.py", "companion/ui/full_counter/results.py",
         "companion/ui/full_counter/deck.py",
         "companion/ui/card_down/table.py", "companion/ui/card_down/words.py",
         "companion/ui/card_down/turns.py", "companion/ui/card_down/hands.py",
         "companion/ui/block_lottery/setup.py", "companion/ui/block_lottery/draw.py",
         "companion/ui/block_lottery/table.py", "companion/ui/block_lottery/round_end.py"]
KEYWORDS = {"pgettext": ((1, "c"), 2), "npgettext": ((1, "c"), 2, 3), "lazy": ((1, "c"), 2),
            "_": None, "ngettext": (1, 2), "N_": None}
FIELD = re.compile(r"(\{[^}]*\})")


def shout(text: str) -> str:
    """``text`` in capitals, its ``{fields}`` left as they are."""
    return "".join(part if part.startswith("{") else part.upper()
                   for part in FIELD.split(text))


class Shouting(gettext.NullTranslations):
    """A language that writes everything in capitals, and notes every context asked."""

    def __init__(self, words: dict[str, str] | None = None):
        super().__init__()
        self.contexts: list[str] = []
        self.words = words or {}

    def gettext(self, message):
        return shout(message)

    def ngettext(self, singular, plural, n):
        return shout(singular if n == 1 else plural)

    def pgettext(self, context, message):
        self.contexts.append(context)
        return self.words.get(message, shout(message))

    def npgettext(self, context, singular, plural, n):
        self.contexts.append(context)
        return shout(singular if n == 1 else plural)


@pytest.fixture
def speak(monkeypatch):
    """``speak(translation)`` makes it the device's language (None: English again);
    the language goes back to English after the test."""
    monkeypatch.setattr(lang, "_current", ["en", lang._NONE])

    def use(translation: gettext.NullTranslations | None) -> None:
        lang._current[:] = ["en", lang._NONE] if translation is None else ["xx", translation]

    return use


@pytest.fixture
def drawn(monkeypatch):
    """The texts drawn (every piece of text goes through the glyph cache), in order."""
    texts: list[str] = []
    glyphs = canvas_module._glyphs

    def recording(text: str, scale: int):
        texts.append(text)
        return glyphs(text, scale)

    monkeypatch.setattr(canvas_module, "_glyphs", recording)

    def frame(screen) -> list[str]:
        texts.clear()
        screen.render()
        return list(texts)

    return frame


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


def full_counter(players=("Ann", "Bob", "Cy")):
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0))
    table = FullCounterTable(Session.start("full-counter", list(players), {}), None)
    question = table.route(ctx)
    question.press(ctx, press("ok"))  # Ann shows a face-up Gold Bar: she starts
    return ctx, table


def card_down(players=("Ann", "Bob", "Cy")):
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0))
    return ctx, CardDownTable(Session.start("card-down", list(players), {}), None)


def block_lottery(players=("Ann", "Bob", "Cy")):
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0))
    return ctx, BlockLotteryTable(Session.start("block-lottery", list(players), {}), None)


# -- English as it was ---------------------------------------------------------------------


def test_english_is_drawn_as_before(speak, drawn) -> None:
    ctx, table = full_counter()
    # the last play ("Ann leads") is the engine's words
    assert drawn(table) == ["Ann's turn", ">>", "ANY", "pile 0 dk 25", "Ann", "leads",
                            "ROLL play  OK other"]
    assert drawn(CardsHeld(table.match, table))[:2] == ["Cards: hand up down",
                                                         "deck 25, pile 0"]
    ctx, cards = card_down()
    assert drawn(cards) == ["Game 1", "pile 779", "Dealer: Cy", "7 each, turn one up",
                            "First: Ann", "ROLL turned up"]
    ctx, lottery = block_lottery()
    assert drawn(lottery)[:2] == ["Round 1 of 3", "deal 6"]
    assert lottery.hint == "ROLL roll the pool"


# -- another language, switched live --------------------------------------------------------


def test_full_counter_table_speaks_the_language_and_switches_live(speak, drawn) -> None:
    ctx, table = full_counter()
    english = drawn(table)
    speak(Shouting({"ANY": "JED"}))
    assert drawn(table) == ["Ann'S TURN", ">>", "JED", "PILE 0 DK 25", "Ann", "LEADS",
                            "ROLL PLAY  OK OTHER"]
    speak(None)
    assert drawn(table) == english


def test_full_counter_menus_and_counts_speak_the_language(speak, drawn) -> None:
    ctx, table = full_counter()
    speak(Shouting())
    held = drawn(CardsHeld(table.match, table))
    assert held[:2] == ["CARDS: HAND UP DOWN", "DECK 25, PILE 0"]
    assert held[-1] == "UP/DOWN MORE  OK BACK"
    others = table.press(ctx, press("ok"))
    assert others.title == "Ann: OTHER"
    menu = table.menu(ctx)
    assert "LOSSES" in [item.label for item in menu.items]   # found though translated
    assert "SHUFFLE GUIDE" in [item.label for item in menu.items]
    assert drawn(DeckScreen(SimpleNamespace(deck=dict(table.match.deck.profile()))))[:3] == [
        "DECK", "52 CARDS", "NUMBERS 1-11"]


def test_full_counter_power_labels_follow_the_language(speak) -> None:
    from companion.games import full_counter as rules

    speak(Shouting({"W": "Fw", "M": "Sp"}))
    assert label(rules.WILDFIRE) == "Fw" and label(rules.MIRROR) == "Sp"
    assert card_of("Fw") == rules.WILDFIRE and card_of("Sp") == rules.MIRROR
    assert card_of("W") == rules.WILDFIRE  # entered before the switch: still the card
    assert card_of("7") == 7


def test_card_down_speaks_the_language_and_switches_live(speak, drawn) -> None:
    ctx, table = card_down()
    setup = CardDownSetup(None, ["Ann", "Bob"])
    speak(Shouting())
    assert drawn(table) == ["GAME 1", "PILE 779", "DEALER: Cy", "7 EACH, TURN ONE UP",
                            "FIRST: Ann", "ROLL TURNED UP"]
    assert [row for row, _ in setup.option_rows()] == ["GAMES: UNTIL YOU STOP",
                                                       "ENTRY: QUICK"]
    speak(None)
    table.press(ctx, press("roll"))  # the first card turned up
    english = drawn(table)
    speak(Shouting())
    shouted = drawn(table)
    assert shouted != english and "PILE 778" in shouted and "OK/DOWN LAY ROLL DRAW" in shouted
    assert any(text.startswith("NEXT ") for text in shouted)


def test_card_down_colours_and_suits_are_words_of_the_language(speak, drawn) -> None:
    ctx, table = card_down()
    table.exact = True
    picker = table.press(ctx, press("roll"))
    assert isinstance(picker, CardPicker)
    english = drawn(picker)
    speak(Shouting())
    shouted = drawn(picker)
    assert "VALUE" in shouted and "RED" in shouted and "HEARTS" in shouted
    assert "value" in english and "red" in english and "hearts" in english


def test_card_down_word_question_speaks_the_language(speak, drawn) -> None:
    ctx, table = card_down(("Ann", "Bob"))
    table.match.in_hand["Ann"] = 3
    question = WordQuestion.__new__(WordQuestion)
    question.table, question.player, question.word, question.parent = table, "Ann", "TRIO", table
    speak(Shouting({"{word}?": "¿{word}?"}))
    texts = drawn(question)
    assert texts[:3] == ["Ann: 3 CARDS", "¿TRIO?", "DID Ann SAY TRIO?"]


def test_block_lottery_speaks_the_language_and_switches_live(speak, drawn) -> None:
    ctx, table = block_lottery()
    english = drawn(table)
    speak(Shouting({"NONE": "NUL"}))
    shouted = drawn(table)
    assert shouted[:2] == ["ROUND 1 OF 3", "DEAL 6"]
    assert shouted[-1] == "ROLL ROLL THE POOL"
    assert describe_event({"type": "take", "player": "Ann", "face": 4}) == "Ann TOOK A 4"
    assert describe_event({"type": "token", "token": "NONE"}) == "TOKEN NUL"
    speak(None)
    assert drawn(table) == english


def test_block_lottery_round_end_is_one_sentence_of_the_language(speak, drawn) -> None:
    ctx, table = block_lottery(("Ann", "Bob"))
    table.press(ctx, press("roll"))
    while table.tick_after() is not None:
        table.tick(ctx)
    table.press(ctx, press("roll"))          # end the round
    menu = table._end_menu(ctx)
    speak(Shouting())
    assert table._end_menu(ctx).title == "END THE ROUND"
    assert [item.label for item in menu.items][0] == "Deck ran out"  # built before
    speak(None)
    ended = menu.items[0].open(ctx, menu).items[0].open(ctx, menu)
    screen = ended if isinstance(ended, RoundOver) else table.route(ctx)
    assert isinstance(screen, RoundOver)
    speak(Shouting())
    assert drawn(screen)[:2] == ["ROUND 1 OVER", "Ann COULD NOT DRAW."]


# -- the messages and their places -----------------------------------------------------------


def messages() -> list[tuple[str, int, str, str]]:
    """(file, line, context, message) of every message of these screens."""
    found = []
    for name in FILES:
        for line, text, _comments, context in extract_from_file(
                "python", ROOT / name, keywords=KEYWORDS, comment_tags=("Translators:",)):
            for message in (text if isinstance(text, tuple) else (text,)):
                found.append((name, line, context, message))
    return found


def test_every_message_has_its_screen_place_and_fits_it_in_english() -> None:
    """Every message names a screen place ("screen 21", "screen 21x4"), and its English
    words (placeholders left out: lang-check fills them with sample values) fit it."""
    found = messages()
    assert len(found) > 250
    for name, line, context, message in found:
        where = f"{name}:{line} {message!r}"
        # "screen 21xN": folded into a box that scrolls (Help); "(if it fits)": tried
        # before a shorter message (the name alone, at the least), so never cut.
        place = re.fullmatch(r"screen (\d+)(?:x(\d+|N))?( \(if it fits\))?", context or "")
        assert place, f"{where}: no screen place ({context!r})"
        if place[3]:
            continue
        width, rows = int(place[1]), (99 if place[2] == "N" else int(place[2] or 1))
        text = FIELD.sub("", message)
        lines = [folded for part in text.split("\n") for folded in wrap(part, width)]
        assert "\n" not in message or rows > 1, where
        assert rows > 1 or len(text) <= width, f"{where}: wider than {width}"
        assert len(lines) <= rows, f"{where}: more than {rows} lines"
        assert all(len(word) <= width for word in text.split()), f"{where}: a long word"


def test_every_context_asked_while_playing_is_a_screen_place(speak, drawn) -> None:
    shouting = Shouting()
    speak(shouting)
    ctx, table = full_counter()
    drawn(table)
    drawn(CardsHeld(table.match, table))
    ctx, cards = card_down()
    drawn(cards)
    ctx, lottery = block_lottery()
    drawn(lottery)
    assert shouting.contexts
    # "turn prompt": the engines' prompts, which the page shows and these screens ask
    # the engine for without drawing them.
    assert all(re.fullmatch(r"screen \d+(x(\d+|N))?( \(if it fits\))?", context)
               or context == "turn prompt" for context in shouting.contexts), \
        shouting.contexts
