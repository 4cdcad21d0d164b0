"""The games, the table helpers, names and words speak the chosen language.

No catalog is needed: a fake translation upper-cases every message outside its
``{fields}``, so a test sees which words went through gettext (and in which place) and
that the next call after a switch of language speaks the new one.
"""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest

import companion.lang as lang
from companion import words
from companion.errors import BadName, BadSetup, IllegalEvent
from companion.games import new_match
from companion.games.final_count import FACE_ACTIONS
from companion.names import check_name
from companion.table.dice import DiceCup
from companion.table.timer import timer_label

ROOT = Path(__file__).resolve().parents[1]


def _shout(text: str) -> str:
    """``text`` upper-cased outside its ``{fields}``, which must still be filled."""
    return re.sub(r"[^{}]+(?=\{|$)|(?<=\})[^{}]+", lambda m: m.group(0).upper(), text)


class Shouting(gettext.NullTranslations):
    """A language that shouts; it records each context it was asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.contexts: list[str] = []

    def gettext(self, message):
        return _shout(message)

    def pgettext(self, context, message):
        self.contexts.append(context)
        return _shout(message)

    def ngettext(self, singular, plural, n):
        return _shout(singular if n == 1 else plural)

    def npgettext(self, context, singular, plural, n):
        self.contexts.append(context)
        return _shout(singular if n == 1 else plural)


@pytest.fixture
def shouting(monkeypatch):
    language = Shouting()
    monkeypatch.setattr(lang, "_current", ["xx", language])
    return language


def refusal(match, event) -> str:
    with pytest.raises(IllegalEvent) as caught:
        match.apply(event)
    return str(caught.value)


def test_the_fake_language_keeps_fields():
    assert _shout("{name} busts at {total}") == "{name} BUSTS AT {total}"
    assert _shout("{n} dice") == "{n} DICE"


def test_a_refusal_is_said_in_the_language_of_the_screen(shouting):
    match = new_match("final-count", ["Ann", "Bob"])
    assert refusal(match, {"type": "roll", "player": "Bob", "value": 3}) == \
        "IT IS Ann'S TURN, NOT Bob'S"
    assert "screen 21xN" in shouting.contexts
    assert refusal(match, {"type": "roll", "player": "Ann", "value": 9}) == \
        "A DIE SHOWS 1 TO 6, NOT 9"
    assert match.events == []  # refused in any language, nothing changes


def test_setup_refusals_and_names_speak_too(shouting):
    with pytest.raises(BadSetup, match="THIS GAME TAKES 2 TO 4 PLAYERS, NOT 1"):
        new_match("final-count", ["Ann"])
    with pytest.raises(BadName, match="A NAME CANNOT CONTAIN A COMMA"):
        check_name("Ann, Bob")
    with pytest.raises(BadSetup, match="EVERY DIE IS HELD"):
        cup = DiceCup(count=1)
        cup.roll(__import__("random").Random(1))
        cup.toggle_hold(0)
        cup.roll(__import__("random").Random(1))


def test_prompts_face_actions_and_facts_switch_live(shouting, monkeypatch):
    match = new_match("final-count", ["Ann", "Bob"])
    assert match.expecting().prompt == "Ann: ROLL OR CALL"
    match.apply({"type": "roll", "player": "Ann", "value": 3})
    assert match.state()["last_roll"]["action"] == "DRAW FOR BOARD"
    assert f"3: {FACE_ACTIONS[3]}" == "3: DRAW FOR BOARD"
    assert match.note(match.events[-1]) == "DRAW FOR BOARD"
    facts = {fact["label"]: fact["text"] for fact in match.context()["facts"]}
    assert facts["LAST ROLL"] == "Ann ROLLED 3: DRAW FOR BOARD"
    assert facts["DRAW PILE"] == "43 CARDS"  # 52 - 2 x 3 - 2 - the 3 drawn
    # Back to English: the same match, asked again, speaks English (nothing cached).
    monkeypatch.setattr(lang, "_current", ["en", gettext.NullTranslations()])
    assert match.state()["last_roll"]["action"] == "draw for Board"
    assert f"3: {FACE_ACTIONS[3]}" == "3: draw for Board"
    assert match.expecting().prompt == "Bob: roll or call"


def test_counted_goes_through_ngettext_with_the_number(shouting):
    assert words.counted(1, "die") == "1 DIE"
    assert words.counted(3, "die") == "3 DICE"
    assert words.counted(2.5, "round") == "2.5 ROUNDS"
    assert words.and_list(["Ann", "Bob", "Cy"]) == "Ann, Bob AND Cy"


def test_counted_writes_decimals_as_the_language_does(monkeypatch):
    class German(gettext.NullTranslations):
        def pgettext(self, context, message):
            return "," if context == "decimal separator" else message

    monkeypatch.setattr(lang, "_current", ["de", German()])
    assert words.counted(2.5, "round") == "2,5 rounds"


def test_a_counted_noun_without_plural_forms_is_refused_loudly():
    with pytest.raises(KeyError, match="COUNTS"):
        words.counted(2, "sheep")


def _counted_nouns() -> set[str]:
    """Every noun companion/ passes to words.counted as a literal, in Python and in
    the templates' ``counted("...")`` filter, and every game's unit."""
    nouns: set[str] = set()
    for path in (ROOT / "companion").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "counted"
                    and len(node.args) == 2 and isinstance(node.args[1], ast.Constant)):
                nouns.add(node.args[1].value)
    for path in (ROOT / "companion").rglob("*.html"):
        nouns.update(re.findall(r"counted\(\s*[\"'](\w+)[\"']", path.read_text("utf-8")))
    from companion.games import GAMES
    nouns.update(info.unit for info in GAMES)
    return nouns


def test_every_noun_counted_anywhere_has_its_plural_forms():
    nouns = _counted_nouns()
    assert {"card", "match", "round", "hand", "game"} <= nouns  # the scan works
    assert nouns <= set(words.COUNTS), sorted(nouns - set(words.COUNTS))
    for noun in words.COUNTS:  # English is unchanged: singular for 1, the plural else
        assert words.counted(1, noun) == f"1 {noun}"
        assert words.counted(2, noun) == f"2 {words.plural(noun)}"


def test_timer_labels_are_screen_rows(shouting):
    assert timer_label(45, "turn") == "TURN TIMER: 45 S"
    assert timer_label(600, "clock") == "CLOCK: 10 MIN EACH"
    assert "screen 21" in shouting.contexts


def test_english_outcome_is_unchanged():
    match = new_match("final-count", ["Ann", "Bob"])
    assert match.expecting().prompt == "Ann: roll or call"
    assert match.note({"type": "call"}) == ""


@pytest.mark.parametrize("game, event, said, prompt", [
    ("card-down", {"type": "play", "player": "Ann"},
     "NOBODY IS TAKING TURNS NOW (TURN UP THE FIRST CARD)", "DEAL 7 EACH, TURN UP A CARD"),
    ("block-lottery", {"type": "take", "player": "Ann", "face": 3},
     "DICE ARE TAKEN ONLY WHILE THE ROUND IS PLAYED (ROLL THE POOL FOR ROUND 1 FIRST)",
     "ROUND 1: ROLL THE POOL"),
    ("count-up-21", {"type": "pass", "player": "Bob"}, "IT IS Ann'S TURN, NOT Bob'S",
     "Ann LEADS: ANY CARD"),
    ("scoreboard", {"type": "end"}, "NOTHING IS SCORED YET: ENTER A ROUND FIRST",
     "ROUND 1: Ann'S POINTS"),
    # The card's name stays as the card prints it (a game word, like a rank).
    ("full-counter", {"type": "out", "player": "Ann"},
     "PLAYERS GO OUT DURING A GAME (FIND WHO STARTS: WHO HOLDS A 2 (Gold Bar)?)",
     "WHO HAS A 2 (Gold Bar)?"),
])
def test_every_game_refuses_and_prompts_in_the_chosen_language(shouting, game, event, said,
                                                               prompt):
    match = new_match(game, ["Ann", "Bob"])
    assert refusal(match, event) == said
    assert match.expecting().prompt == prompt


def test_full_counter_last_play_is_said_anew_after_a_switch(shouting, monkeypatch):
    match = new_match("full-counter", ["Ann", "Bob"], {"quick": True})
    match.apply({"type": "starter", "value": match.expecting().choices["value"][0],
                 "face_up": ["Ann"]})
    assert match.state()["last"] == {"player": "Ann", "text": "LEADS"}
    monkeypatch.setattr(lang, "_current", ["en", gettext.NullTranslations()])
    assert match.state()["last"] == {"player": "Ann", "text": "leads"}


def test_block_lottery_says_how_a_round_ended_as_one_sentence(shouting):
    from companion.games.block_lottery import CAUSE_WORDS, LAST_DIE, ended_words

    assert ended_words("Ann", LAST_DIE) == "Ann TOOK THE LAST DIE"
    assert CAUSE_WORDS[LAST_DIE] == "TOOK THE LAST DIE"
    assert isinstance(CAUSE_WORDS[LAST_DIE], str)  # a screen may slice it


def test_card_effects_are_plain_text_in_the_language_of_the_moment(shouting, monkeypatch):
    from companion.games.card_down import EFFECTS, SKIP

    assert EFFECTS[SKIP] == "SKIP NEXT" and type(EFFECTS[SKIP]) is str
    monkeypatch.setattr(lang, "_current", ["en", gettext.NullTranslations()])
    assert EFFECTS[SKIP] == "skip next" and EFFECTS.message(SKIP) == "skip next"
