"""The game screens speak the language chosen, and follow a switch at the next frame.

No catalog is needed: a fake translation writes every message in capitals (its
``{fields}`` kept as they are), so a screen drawn in it shows which of its words went
through the language and which are data (names, scores, card ranks).
"""

import gettext
import random
import re
from types import SimpleNamespace

import pytest
from PIL import ImageChops

import companion.lang as lang
import companion.timer as table_timer
from companion.session import Session
from companion.ui.canvas import Canvas
from companion.ui.count_up.table import PASS, CountUpTable
from companion.ui.final_count.table import FinalCountSetup, FinalCountTable
from companion.ui.quit import QuitUnsaved
from companion.ui.resume import resume_offer
from companion.ui.scoreboard.table import ScoreboardSetup, ScoreboardTable
from companion.ui.screen import Context, Menu
from companion.ui.timer import SandTimerScreen


def _shout(message: str) -> str:
    """``message`` in capitals outside its ``{fields}``."""
    return "".join(part if part.startswith("{") else part.upper()
                   for part in re.split(r"(\{[^}]*\})", message))


class Shouting(gettext.NullTranslations):
    """A fake language: every message in capitals; ``seen`` keeps each count asked for."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[str, int]] = []

    def gettext(self, message):
        return _shout(message)

    def pgettext(self, context, message):
        return _shout(message)

    def ngettext(self, singular, plural, n):
        return _shout(singular if n == 1 else plural)

    def npgettext(self, context, singular, plural, n):
        self.seen.append((plural, n))
        return _shout(singular if n == 1 else plural)


@pytest.fixture
def speak(monkeypatch):
    """``speak("xx")`` switches to the shouting language, ``speak("en")`` back; the
    original language comes back after the test."""
    fake = Shouting()
    monkeypatch.setattr(lang, "_current", list(lang._current))

    def switch(code: str) -> Shouting:
        lang._current[:] = [code, fake if code == "xx" else gettext.NullTranslations()]
        return fake

    switch("en")
    return switch


def press(button, long=False):
    return SimpleNamespace(button=button, long=long)


def drawn(screen) -> list[str]:
    """Every text ``screen`` draws (title, lines, hint) as plain strs, in order."""
    texts: list[str] = []
    text, hint = Canvas.text, Canvas.hint

    def record_text(canvas, x, y, words, **kw):
        texts.append(words)
        text(canvas, x, y, words, **kw)

    def record_hint(canvas, words):
        texts.append(words)
        hint(canvas, words)

    Canvas.text, Canvas.hint = record_text, record_hint
    try:
        screen.render()
    finally:
        Canvas.text, Canvas.hint = text, hint
    assert all(type(words) is str for words in texts), texts
    return texts


def final_count(hit_goal=False):
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0))
    session = Session.start("final-count", ["Ann", "Bob", "Cy"], {"hit_goal": hit_goal})
    return ctx, FinalCountTable(session, None)


def test_a_final_count_screen_changes_language_between_two_frames(speak):
    ctx, table = final_count()
    table.press(ctx, press("roll"))
    while table.tick_after() is not None:
        table.tick(ctx)
    english = table.render()
    english_words = drawn(table)
    assert "Hand 1" in english_words and "ROLL roll  OK call" in english_words

    speak("xx")
    shouted = table.render()
    words = drawn(table)
    assert ImageChops.difference(english, shouted).getbbox() is not None
    assert "HAND 1" in words and "ROLL ROLL  OK CALL" in words
    assert "NEXT Bob" in words  # the name is data: as it was entered
    assert not set(words) & {"Hand 1", "ROLL roll  OK call"}

    speak("en")
    assert ImageChops.difference(english, table.render()).getbbox() is None


def test_class_hints_and_titles_follow_a_switch(speak):
    setup = FinalCountSetup(None, ["Ann", "Bob"])
    assert setup.hint == "OK change  ROLL start" and setup.note == "First entered starts"
    assert "Hit Goal: off" in drawn(setup)
    speak("xx")
    assert setup.hint == "OK CHANGE  ROLL START" and setup.note == "FIRST ENTERED STARTS"
    words = drawn(setup)
    assert "HIT GOAL: OFF" in words and "START" in words
    assert setup.rows[0][0] == "PLAYERS: Ann, Bob"  # the row under the cursor, inverted
    assert "Final Count" in words  # the game's name stays as its rule sheet prints it

    sand = SandTimerScreen(Context(), None)
    assert drawn(sand)[0] == "SAND TIMER" and sand.hint == "UP/DOWN TIME  ROLL GO"


def test_the_game_menu_speaks_it_and_scoreboard_still_finds_its_place(speak):
    speak("xx")
    ctx = Context(rng=random.Random(1))
    session = Session.start("scoreboard", ["Ann", "Bob"], {"target": 0, "low_wins": False})
    table = ScoreboardTable(session, None)
    menu = table.menu(ctx)
    labels = [item.label for item in menu.items]
    assert labels == ["BACK TO THE GAME", "FINAL SCORES NOW", "STANDINGS", "LEAVE (KEPT)",
                      "END THIS GAME", "HELP"]
    assert "ROLL Ann  OK PICK" in drawn(table)
    assert ScoreboardSetup(None, ["Ann", "Bob"]).rows[1][0] == "TARGET: NONE"


def test_count_up_shows_pass_in_the_language_and_enters_the_rules_pass(speak):
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0))
    session = Session.start("count-up-21", ["Ann", "Bob"], {"games_to_win": 3})
    table = CountUpTable(session, Menu("Home", []))
    for _ in range(8):  # Ann leads 9
        table.press(ctx, press("up"))
    table.press(ctx, press("ok"))
    speak("xx")
    table.press(ctx, press("down"))  # round to the pass
    assert table.selected() == PASS
    words = drawn(table)
    assert "PASS" in words and "pass" not in words and "OK PLAY  ROLL PASS" in words
    table.press(ctx, press("ok"))
    assert table.match.events[-1] == {"type": "pass", "player": "Bob"}


def test_counts_in_words_pass_their_number(speak):
    fake = speak("xx")
    quit_screen = QuitUnsaved(3, lambda ctx: None, Menu("Home", []))
    assert " ".join(quit_screen.lines).startswith("3 EVENTS ARE NOT SAVED")
    assert ("{n} events are not saved: free some space first, or they are lost.", 3) \
        in fake.seen
    assert quit_screen.hint == "OK QUIT  BACK STAY"


def test_the_resume_question_and_the_turn_timer_speak_it(speak):
    speak("xx")
    ctx = Context()
    ctx.parked = Session.start("final-count", ["Ann", "Bob"], {"hit_goal": False})
    question = resume_offer(ctx, Menu("Home", []))
    assert question.title == "UNFINISHED GAME"
    assert question.lines[0] == "RESUME Final Count,"

    config = SimpleNamespace(timer=SimpleNamespace(turn=30, mode="turn"))
    timer = table_timer.TableTimer(lambda: 0.0, config)
    timer.follow(ctx.parked)
    timer.toggle_pause()
    shown: list[list[str]] = []
    original = table_timer.mark_time
    table_timer.mark_time = lambda image, texts, fraction: shown.append(texts) or ""
    try:
        timer.draw(Canvas().image)
    finally:
        table_timer.mark_time = original
    assert shown[0][0] == "PAUSED 0:30"
