"""Issue 30: the menus, Tools, History, the roster, pairing and the base screens speak
the device's language, and a switch of language shows at the next draw (no restart).

No catalog is needed: a fake translation writes every screen text in capitals (keeping
the ``{placeholders}``), a comma for the decimal point and day-first dates.
"""

from __future__ import annotations

import gettext
import json
import random
import re
from types import SimpleNamespace

import pytest

import companion.lang as lang
from companion.config import Config, Display
from companion.lang import lazy
from companion.ui import canvas as canvas_module
from companion.ui.canvas import Canvas, clip, fits_beside, fitting, text_width
from companion.ui.history import PlayerCard, _day, _duration, _num
from companion.ui.home import home_menu, settings_menu, settings_screen
from companion.ui.pair import _ago, _forget, phone_paired
from companion.ui.roster import PlayerPicker, roster_menu
from companion.ui.screen import (
    Confirm,
    Context,
    Lines,
    Menu,
    MenuItem,
    Message,
    Screen,
    folded,
    wrap,
)
from companion.ui.tools import BagScreen, DiceScreen, FirstPlayer, ShuffleGuide, tools_menu


def _shout(message: str) -> str:
    """Capitals outside ``{fields}``, so .format() still finds them."""
    return re.sub(r"[^{}]+(?=\{|$)|(?<=\})[^{}]+", lambda part: part.group().upper(),
                  message)


class Shouting(gettext.NullTranslations):
    """A stand-in catalog: screen texts in capitals, German numbers and dates."""

    OWN = {"decimal separator": ",", "a day and month in digits, no year": "{day}.{month}."}

    def gettext(self, message):
        return _shout(message)

    def pgettext(self, context, message):
        return self.OWN.get(context, _shout(message))

    def ngettext(self, singular, plural, n):
        return _shout(singular if n == 1 else plural)

    def npgettext(self, context, singular, plural, n):
        return _shout(singular if n == 1 else plural)


@pytest.fixture
def speak(monkeypatch):
    """Call ``speak()`` to switch to the fake language, ``speak("en")`` back."""
    monkeypatch.setattr(lang, "_current", ["en", gettext.NullTranslations()])

    def switch(code: str = "xx") -> None:
        lang._current[:] = ["en", gettext.NullTranslations()] if code == "en" \
            else [code, Shouting()]
    return switch


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


def picture(screen: Screen) -> bytes:
    return screen.render().tobytes()


def test_the_fake_keeps_the_fields():
    assert _shout("Token bag: {n} left") == "TOKEN BAG: {n} LEFT"
    assert _shout("{name}\nmay now") == "{name}\nMAY NOW"


def test_the_main_menu_switches_language_between_two_draws(speak):
    home = home_menu(Context())
    english = picture(home)
    labels = [str(item.label) for item in home.items]
    assert labels[-3:] == ["Tools", "History", "Settings"]
    speak()
    assert picture(home) != english  # the same menu object, drawn again
    assert [str(item.label) for item in home.items][-3:] == ["TOOLS", "HISTORY", "SETTINGS"]
    # the game titles stay as their rule sheets print them, the product name too
    assert [str(item.label) for item in home.items][:-3] == labels[:-3]
    assert home.title == "Tabletop Companion"
    speak("en")
    assert picture(home) == english


def test_settings_menu_follows_the_switch_it_sits_under(speak):
    menu = settings_menu(Context(), home_menu())
    before = picture(menu)
    speak()
    assert menu.title == "SETTINGS" and picture(menu) != before
    assert [str(item.label) for item in menu.items] == ["PAIR A PHONE", "PAIRED PHONES",
                                                        "LANGUAGE", "SPEECH", "THIS DEVICE",
                                                        "HELP"]


def test_this_device_lines_are_translated_with_numbers_as_the_language_writes(speak):
    speak()
    ctx = Context(config=Config(display=Display(rotate=2, contrast=255),
                                source="/etc/companion.toml"))
    screen = settings_screen(ctx, Menu("Settings", []))
    assert screen.title == "SETTINGS"
    assert "CONTRAST 255" in screen.lines and "ROTATE 180" in screen.lines
    assert "SERIAL OFF" in screen.lines and "WEB OFF" in screen.lines
    assert "CONFIG FILE:" in screen.lines and screen.lines[-1] == "/etc/companion.toml"
    assert any(line.startswith("LONG PRESS ") and "," in line for line in screen.lines)


def test_a_title_kept_lazy_reads_as_a_str_of_the_language_spoken_now(speak):
    dice = DiceScreen()
    assert type(dice.title) is str and dice.title == "Dice"
    speak()
    assert dice.title == "DICE" and json.dumps({"screen": dice.title}) == '{"screen": "DICE"}'
    menu = tools_menu(None)
    assert type(menu.title) is str and menu.title == "TOOLS"
    assert menu.hint == "UP/DOWN MOVE  OK PICK"


def test_a_title_set_on_a_screen_may_be_lazy_and_switches(speak):
    message = Message(lazy("screen 21", "Players"), [lazy("screen 21", "Coming soon.")], None)
    english = picture(message)
    speak()
    assert message.title == "PLAYERS" and picture(message) != english
    assert message.hint == "OK BACK"


def test_the_base_screens_own_words(speak):
    speak()
    assert Confirm("Q", ["x"], lambda ctx: None, Menu("M", [])).hint == "OK YES   BACK NO"
    lines = Lines("L", [])
    assert [str(line) for line in lines.lines] == ["(NOTHING YET)"]
    assert lines.hint == "UP/DOWN MORE  OK BACK"
    long_message = Message("M", ["a"] * 6)
    assert long_message.hint == "UP/DOWN MORE  OK BACK"


def test_the_canvas_takes_lazy_texts_wherever_it_takes_text(speak):
    said = lazy("screen 21", "Dice")
    speak()
    for draw in (lambda c, t: c.text(1, 1, t), lambda c, t: c.line(0, t),
                 lambda c, t: c.title(t, t), lambda c, t: c.hint(t),
                 lambda c, t: c.centered(20, t), lambda c, t: c.big_text(1, 20, t),
                 lambda c, t: c.paragraph([t, t])):
        lazily, plainly = Canvas(), Canvas()
        draw(lazily, said)
        draw(plainly, "DICE")
        assert lazily.image.tobytes() == plainly.image.tobytes()
    assert clip(said, 3) == "DI~" and text_width(said) == 4 * canvas_module.CHAR_W
    assert fits_beside(said, lazy("screen 21", "held")) and fitting(said, "x") == "DICE"
    assert wrap(lazy("screen 21", "Every token goes back")) == ["EVERY TOKEN GOES BACK"]


def test_a_menu_draws_lazy_labels_and_notes(speak):
    menu = Menu("M", [MenuItem(lazy("screen 21", "Dice"), lambda c, m: None,
                               note=lazy("screen 5", "soon"))])
    speak()
    plain = Menu("M", [MenuItem("DICE", lambda c, m: None, note="SOON")])
    assert picture(menu) == picture(plain)


def test_folded_keeps_the_english_breaks_and_folds_a_long_translation():
    assert folded("Every token goes\nback in the bag.") == ["Every token goes",
                                                           "back in the bag."]
    assert folded("Jeder Spielstein kommt zurück in den Beutel.") == [
        "Jeder Spielstein", "kommt zurück in den", "Beutel."]


def test_tools_speak_the_language(speak):
    ctx = Context(rng=random.Random(3), anim_rng=random.Random(4))
    dice = DiceScreen()
    english = picture(dice)
    speak()
    assert picture(dice) != english and dice.hint == "UP/DOWN COUNT OK ROLL"
    from companion.table.bag import TokenBag
    bag = BagScreen(TokenBag(["1", "2", "3"]))
    assert bag.title == "TOKEN BAG: 3 LEFT"
    bag.press(ctx, press("roll"))
    assert bag._lines()[0].startswith("DRAWN: ") and bag._lines()[1].startswith("LEFT: ")
    refill = bag.press(ctx, press("ok"))
    assert refill.title == "REFILL THE BAG?"
    assert refill.lines == ["EVERY TOKEN GOES", "BACK IN THE BAG."]
    guide = ShuffleGuide(8, 2, [[1, 2] * 4, [2, 1] * 4], None)
    assert guide.title == "HOW TO DEAL"
    guide.press(ctx, press("ok"))
    assert guide.title == "PASS 1/2 CARDS 1-8"
    first = FirstPlayer()
    assert first.hint == "UP/DOWN SEATS ROLL GO" and first.title == "FIRST PLAYER"


def test_first_player_keeps_the_word_order_around_the_seat(speak, monkeypatch):
    first = FirstPlayer()
    first.press(Context(rng=random.Random(1), anim_rng=random.Random(2)), press("roll"))
    first.spinner.frames_left = 0
    english = picture(first)

    class SeatFirst(Shouting):
        def pgettext(self, context, message):
            return "{n}. PLATZ" if message == "Seat {n} starts" else super().pgettext(
                context, message)

    lang._current[:] = ["xx", SeatFirst()]
    german = picture(first)
    assert german != english
    plain = Canvas()
    plain.text(76, canvas_module.BODY_TOP + 10, ". PLATZ")
    row = (76, canvas_module.BODY_TOP + 8, 128, canvas_module.BODY_TOP + 20)
    assert first.render().crop(row).tobytes() == plain.image.crop(row).tobytes()


def test_history_numbers_and_days_as_the_language_writes_them(speak):
    assert _num(2.5) == "2.5" and _num(2.0) == "2" and _num(7) == "7" and _num(None) == "-"
    assert _duration(30 * 60) == "30 min" and _duration(90 * 60) == "1h30"
    day = 1_700_000_000.0
    english = _day(day)
    assert re.fullmatch(r"\d\d-\d\d", english)
    speak()
    assert _num(2.5) == "2,5" and _num(2.0) == "2" and _num(12.25) == "12,2"
    assert _duration(30 * 60) == "30 MIN"
    month, date = english.split("-")
    assert _day(day) == f"{date}.{month}."


def test_a_players_card_switches_language(speak):
    row = {"wins": 2, "plays": 3, "win_rate": 2 / 3, "avg_place": 1.5, "longest_streak": 2,
           "seconds_played": 600, "last_played": 1_700_000_000.0, "rating": 27.5,
           "avg_score": 20.25, "best_score": 30}
    shown = {"players": {"Ann": row},
             "games": {"scoreboard": {"title": "Scoreboard", "low_wins": False,
                                      "players": {"Ann": row}}}}
    card = PlayerCard("Ann", shown, Menu("M", []))
    english = picture(card)
    assert card.pages[0][2][0] == "won 2 of 3 67%"
    speak()
    assert picture(card) != english  # "All games" is lazy: the same card, drawn again
    card.press(Context(), press("down"))
    assert card.hint == "UP/DOWN GAME  OK BACK"


def test_roster_and_seating_speak_the_language(speak):
    class Roster:
        def roster(self):
            return ["Ann", "Bob"]

    ctx = Context(store=Roster())
    speak()
    menu = roster_menu(ctx, Menu("History", []))
    assert menu.title == "ROSTER" and menu.items[0].label == "+ NEW NAME"
    confirm = menu.items[1].open(ctx, menu)
    assert confirm.title == "REMOVE A NAME"
    assert confirm.lines == ["TAKE Ann OFF", "THE ROSTER? PAST", "GAMES", "KEEP THE NAME."]
    picker = PlayerPicker(ctx, 2, 4, lambda ctx, names: Menu("x", []), menu)
    assert picker.title == "PLAYERS 0 OF 2-4" and picker.rows[0] == "+ NEW NAME"
    # OK on the translated first row still opens the letter picker
    letters = picker.press(ctx, press("ok"))
    assert letters.title == "NEW NAME" and letters.hint == "OK ADD  ROLL DONE"
    refused = picker.press(ctx, press("roll"))
    assert refused.lines == ["SEAT 2 TO 4", "PLAYERS FIRST."]


def test_the_roster_question_is_folded_not_cut_in_english():
    class Roster:
        def roster(self):
            return ["Maximilianna"]

    ctx = Context(store=Roster())
    menu = roster_menu(ctx, Menu("History", []))
    confirm = menu.items[1].open(ctx, menu)
    # "the roster? Past games" is 22 characters: it used to end "Past gam~"
    assert confirm.lines == ["Take Maximilianna off", "the roster? Past", "games",
                             "keep the name."]


def test_pairing_words_speak_the_language(speak):
    speak()
    paired = phone_paired(Menu("M", []), "Firefox on Android")
    assert paired.title == "PHONE PAIRED"
    assert paired.lines == ["Firefox on Android", "MAY NOW ADD PLAYERS,", "START GAMES AND",
                            "ENTER EVENTS."]
    assert (_ago(300), _ago(3 * 3600), _ago(2 * 86400)) == ("5M", "3H", "2D")
    phone = SimpleNamespace(name="Safari on iPhone")
    forget = _forget(Context(), Menu("Paired phones", [], Menu("S", [])), phone)
    assert forget.title == "FORGET" and forget.lines[0].startswith("FORGET Safari")
