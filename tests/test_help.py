"""Help on the device and on the table page (issue 37 item 1), and the words at the table
(issue 35 item 5): every game's menu, its setup, Tools and Settings have Help; Help says
the buttons of the screen it was opened from, the game and how a turn goes in; it
scrolls, BACK returns where it was opened and nothing in the game changes. The hints
say the buttons in whole words where the line allows, and one source (a screen's keys)
gives both its hint and its Help, in every language."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import random
import re
from types import SimpleNamespace

import pytest
from test_link import ok, owned  # noqa: F401  (owned is a fixture)

import companion.ui
from companion import games, lang
from companion.device.buttons import Press
from companion.lang import LANGUAGES
from companion.session import Session
from companion.store import Store
from companion.ui import games as ui_games
from companion.ui.card_down.turns import WordQuestion
from companion.ui.final_count.table import CALL_KEYS, FinalCountSetup, FinalCountTable, HandResult
from companion.ui.help import HelpScreen, game_sections, lines_of
from companion.ui.home import home_menu, settings_menu
from companion.ui.keys import BUTTONS, PICKER_KEYS, Keys
from companion.ui.roster import LetterPicker
from companion.ui.screen import Confirm, Context, Menu, Screen
from companion.ui.tools import tools_menu


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


def push(screen: Screen, ctx: Context, *buttons: str) -> Screen:
    """Press ``buttons`` in turn ("hold:down" is a long press), animations let run."""
    for button in buttons:
        screen = screen.press(ctx, press(button.removeprefix("hold:"), button.startswith("hold:")))
        while screen.tick_after() is not None:
            screen = screen.tick(ctx)
    return screen


def open_row(menu: Menu, ctx: Context, label: str) -> Screen:
    """OK on the menu row that says ``label``, reached with DOWN as a person would."""
    labels = [str(item.label) for item in menu.items]
    menu.selected = 0
    return push(menu, ctx, *["down"] * labels.index(label), "ok")


@pytest.fixture
def english():
    lang.use("en")
    yield
    lang.use("en")


# -- every screen's keys ----------------------------------------------------------------------


def ui_modules() -> list:
    names = [info.name for info in pkgutil.walk_packages(companion.ui.__path__, "companion.ui.")]
    return [importlib.import_module(name) for name in [*names, "companion.club.offer"]]


def keys_in(module) -> list[tuple[str, Keys]]:
    """(where, keys) of every Keys a module makes: its constants and its classes'."""
    found = [(f"{module.__name__}.{name}", value) for name, value in vars(module).items()
             if isinstance(value, Keys)]
    for name, cls in vars(module).items():
        if inspect.isclass(cls) and cls.__module__ == module.__name__:
            found += [(f"{module.__name__}.{name}.{attr}", value)
                      for attr, value in vars(cls).items() if isinstance(value, Keys)]
    return found


def every_keys() -> list[tuple[str, Keys]]:
    seen: dict[int, tuple[str, Keys]] = {}
    for module in ui_modules():
        for where, keys in keys_in(module):
            seen.setdefault(id(keys), (where, keys))
    return list(seen.values())


def test_a_screen_cannot_set_a_hint_of_its_own() -> None:
    with pytest.raises(TypeError, match="keys"):
        class Forgetful(Screen):  # noqa: F841 - defining it is the test
            hint = "OK go"
    with pytest.raises(TypeError, match="keys"):
        class Sneaky(Screen):  # noqa: F841
            @property
            def hint(self) -> str:
                return "OK go"


def test_every_screen_with_a_hint_says_its_buttons_in_help() -> None:
    """Screens read their hint from their keys: no screen has a hint without keys, and
    every key has a sentence."""
    found = every_keys()
    assert len(found) > 60
    for where, keys in found:
        hint = keys.hint_line(n=2, player="Ann", word="UNO")
        assert not hint or keys.keys, f"{where}: a hint with no Help"
        for key in keys.keys:
            assert key.button and str(key.does).strip(), where
            assert set(re.split("/", key.button)) <= set(BUTTONS), f"{where}: {key.button}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_hint_names_only_buttons_its_help_explains_in_every_language(code) -> None:
    """The same keys drive the hint and Help: a button the hint names (in any language)
    is one Help says what it does."""
    lang.use(code)
    try:
        for where, keys in every_keys():
            for form in keys.hints:
                text = str(form).format(n=2, player="Ann", word="UNO")
                named = {("DOWN" if word == "DN" else word)
                         for word in re.split(r"[\s/:]+", text) if word in BUTTONS}
                assert named <= keys.buttons(), f"{code} {where}: {text!r} names {named}"
    finally:
        lang.use("en")


def test_hints_use_whole_words_where_the_line_allows(english) -> None:
    """DN only where DOWN leaves no room on the 21 columns; no cut words."""
    for where, keys in every_keys():
        for form in keys.hints:
            text = str(form)
            if "DN" in text.split("/") or re.search(r"\bDN\b", text):
                assert len(text.replace("DN", "DOWN")) > 21, f"{where}: {text!r}"
            assert not re.search(r"\b(rnd|fx|min|rev|OK>)\b", text), f"{where}: {text!r}"
            assert len(text.format(n=2, player="Ann", word="UNO")) <= 21 or len(keys.hints) > 1


def game_modules(game_id: str) -> list:
    """The modules of a game's screens: its package and every module in it."""
    main = games.info(game_id).screens
    return [module for module in ui_modules()
            if module.__name__ == main or module.__name__.startswith(main + ".")]


#: Every game's Help, as its screens package gives it.
GUIDES = {info.game_id: ui_games.game_screens(info.game_id).guide for info in games.GAMES}


@pytest.mark.parametrize("game_id", sorted(GUIDES))
def test_the_game_lists_every_screen_it_has_for_its_help_page(game_id) -> None:
    """A new screen of a game cannot be left out of the page's help: every keys its
    rooms make are in the table's ``all_keys`` (a place shared by several hints once)."""
    listed = ui_games.table_class(game_id).all_keys
    headings = {keys.heading() for keys in listed}
    for module in game_modules(game_id):
        for where, keys in keys_in(module):
            if keys.keys:
                assert keys in listed or keys.heading() in headings, f"{where} not in all_keys"
    assert PICKER_KEYS in listed or game_id in ("count-up-21", "scoreboard")
    # Keys of the game sharing a place say the same buttons (the page shows it once).
    by_place: dict[str, Keys] = {}
    for module in game_modules(game_id):
        for where, keys in keys_in(module):
            first = by_place.setdefault(str(keys.place), keys)
            assert first.said() == keys.said(), where


# -- Help on the device -----------------------------------------------------------------------


def stored_game(tmp_path) -> tuple[Context, Store, FinalCountTable]:
    store = Store(tmp_path / "companion.db")
    ctx = Context(rng=random.Random(5), anim_rng=random.Random(0), store=store)
    session = Session.start("final-count", ["Ann", "Bob", "Cy"], {}, store=store)
    table = FinalCountTable(session, home_menu(ctx))
    table = push(table, ctx, "roll", "roll", "roll", "roll")
    return ctx, store, table


def help_text(screen: HelpScreen) -> str:
    return " ".join(line.text for line in screen.lines)


def test_help_from_the_game_menu_reads_and_changes_nothing(tmp_path, english) -> None:
    ctx, store, table = stored_game(tmp_path)
    match = table.match
    before = (list(match.events), match.state(), store.events(table.session.match_id))
    menu = push(table, ctx, "back")
    assert isinstance(menu, Menu) and str(menu.items[-1].label) == "Help"
    shown = open_row(menu, ctx, "Help")
    assert isinstance(shown, HelpScreen) and shown.hint == "UP/DOWN more  OK back"
    assert shown.lines[0].heading and shown.lines[0].text == "This screen"
    # The buttons of the screen it came from: the table's, as its hint says them.
    assert table.keys is CALL_KEYS
    assert "ROLL: Roll the die for the player named" in help_text(shown)
    assert "OK: Call: everyone else has one more turn" in help_text(shown)
    assert "2 to 4 players draw and swap cards" in help_text(shown)  # the game
    assert "When the hand ends, enter the Board's cards" in help_text(shown)  # a turn
    # It scrolls: three lines a press, to the end and back; a long press by section.
    assert push(shown, ctx, "down").top == 3
    push(shown, ctx, "hold:down")
    assert shown.lines[shown.top].heading and shown.lines[shown.top].text == "The game"
    for _ in range(100):
        push(shown, ctx, "down")
    assert shown.top == len(shown.lines) - 4
    push(shown, ctx, "hold:up", "hold:up", "hold:up", "hold:up", "hold:up")
    assert shown.top == 0
    push(shown, ctx, "up")
    assert shown.top == 0
    # ROLL and OK in Help do not roll or call: BACK (and OK) return to the menu.
    assert push(shown, ctx, "roll") is menu
    assert push(open_row(menu, ctx, "Help"), ctx, "ok") is menu
    assert push(open_row(menu, ctx, "Help"), ctx, "back") is menu
    after = (list(match.events), match.state(), store.events(table.session.match_id))
    assert after == before
    assert push(menu, ctx, "back") is table and table.match.events == before[0]
    store.close()


def test_help_stays_open_when_the_match_changes_from_afar(owned, english) -> None:  # noqa: F811
    """A phone rolls (ROLL, EVENT, UNDO from afar) while someone reads Help: Help stayed
    only until then, the table took its place mid-line. It stays where it was scrolled;
    BACK goes to the menu it came from, BACK again to the table as it is now."""
    app = owned()
    ok(app, "NEW final-count Ann,Bob")
    app._presses([Press("back")])
    menu = app.screen
    labels = [str(item.label) for item in menu.items]
    app._presses([Press("down")] * labels.index("Help") + [Press("ok"), Press("down")])
    shown = app.screen
    assert isinstance(shown, HelpScreen) and shown.top == 3
    assert ok(app, "ROLL")["event"]["player"] == "Ann"
    ok(app, 'EVENT {"type": "roll", "player": "Bob"}')
    ok(app, "UNDO")
    assert app.screen is shown and shown.top == 3
    app._presses([Press("back")])
    assert app.screen is menu
    app._presses([Press("back")])
    assert isinstance(app.screen, FinalCountTable)
    assert ok(app, "STATUS")["expecting"]["player"] == "Bob"


def test_help_from_a_result_says_that_screens_buttons(tmp_path, english) -> None:
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0))
    session = Session.start("final-count", ["Ann", "Bob"], {})
    table = FinalCountTable(session, None)
    session.apply({"type": "call", "player": "Ann"})
    session.apply({"type": "roll", "player": "Bob", "value": 2})
    table.board_opened = session.match.hand_number
    for event in ({"type": "board", "cards": ["10", "9"]},
                  {"type": "hand", "player": "Ann", "cards": ["10", "9", "8"]},
                  {"type": "hand", "player": "Bob", "cards": ["2", "3", "4"]}):
        session.apply(event)
    result = table.route(ctx)
    assert isinstance(result, HandResult)
    menu = push(result, ctx, "back")
    shown = open_row(menu, ctx, "Help")
    assert "OK/ROLL: The totals after this hand." in help_text(shown)
    assert push(shown, ctx, "back") is menu


def test_help_on_the_setup_opens_before_the_game_and_goes_back(english) -> None:
    ctx = Context(rng=random.Random(1))
    setup = FinalCountSetup(home_menu(ctx), ["Ann", "Bob"])
    labels = [label for label, _ in setup.rows]
    assert labels[-2:] == ["Start", "Help"]
    shown = push(setup, ctx, "up", "ok")              # UP from the first row: Help
    assert isinstance(shown, HelpScreen)
    assert "ROLL: Start the game" in help_text(shown)
    assert push(shown, ctx, "back") is setup and setup.names == ["Ann", "Bob"]


@pytest.mark.parametrize("game_id", sorted(GUIDES))
def test_every_game_has_help_on_its_setup_and_in_its_menu(game_id, english) -> None:
    ctx = Context(rng=random.Random(1))
    setup = ui_games.setup_screen(ctx, game_id, home_menu(ctx), ["Ann", "Bob"])
    shown = setup.rows[-1][1](ctx)
    assert isinstance(shown, HelpScreen) and str(GUIDES[game_id].about[0]) in help_text(shown)
    table = setup.begin(ctx)
    while not isinstance(table, ui_games.table_class(game_id)):
        table = table.parent if not hasattr(table, "table") else table.table
    menu = table.menu(ctx)
    shown = open_row(menu, ctx, "Help")
    assert str(GUIDES[game_id].turn[0]) in help_text(shown)


def test_tools_and_settings_have_help(english) -> None:
    ctx = Context()
    home = home_menu(ctx)
    tools = tools_menu(home)
    shown = open_row(tools, ctx, "Help")
    text = help_text(shown)
    for name in ("Dice", "Token bag", "Shuffle guide", "First player", "Sand timer"):
        assert any(line.heading and line.text == name for line in shown.lines)
    assert "hold OK: Let every die go." in text and "UP/DOWN: Move to the row above" in text
    assert push(shown, ctx, "back") is tools
    settings = settings_menu(ctx, home)
    shown = open_row(settings, ctx, "Help")
    text = help_text(shown)
    assert "Pair a phone" in text and "A long BACK stops a turn timer" in text
    assert push(shown, ctx, "ok") is settings


def test_help_fits_the_screen_in_every_language() -> None:
    """Every line Help draws is at most 21 columns, headings included, in every
    language; and the fold loses no word."""
    for code in LANGUAGES:
        lang.use(code)
        try:
            for game_id in GUIDES:
                sections = game_sections(game_id, ui_games.table_class(game_id).all_keys)
                lines = lines_of(sections)
                assert all(len(line.text) <= 21 for line in lines), (code, game_id)
                words = " ".join(line.text for line in lines).split()
                expected = " ".join(
                    [s.heading for s in sections]
                    + [t for s in sections for t in s.texts]
                    + [f"{b}: {d}" for s in sections for b, d in s.keys]).split()
                assert sorted(words) == sorted(expected), (code, game_id)
        finally:
            lang.use("en")


def test_a_help_screen_draws_its_headings_with_a_rule() -> None:
    shown = HelpScreen("Help", game_sections("count-up-21"), Menu("Home", []))
    picture = shown.render()
    row = 11 + 3  # the first body line's middle: the rule after "The game"
    lit = [picture.getpixel((x, row)) for x in range(60, 120)]
    assert all(lit)


# -- words at the table (issue 35 item 5) -----------------------------------------------------


def test_the_word_question_names_the_word_that_is_due(english, monkeypatch) -> None:
    from companion.ui.canvas import Canvas
    from companion.ui.card_down.table import CardDownTable

    said: list[str] = []
    original = Canvas.line
    monkeypatch.setattr(Canvas, "line", lambda self, row, text, **kw: (
        said.append(text), original(self, row, text, **kw))[1])
    table = CardDownTable(Session.start("card-down", ["Ann", "Maximilianus"], {}), None)
    for word, name, line in (("UNO", "Ann", "Did Ann say UNO?"),
                             ("TRIO", "Maximilianus", "Said TRIO in time?")):
        question = WordQuestion.__new__(WordQuestion)
        question.table, question.player, question.word, question.parent = (
            table, name, word, table)
        table.match.in_hand[name] = {"UNO": 1, "TRIO": 3}[word]
        said.clear()
        question.render()
        assert line in said
        assert question.hint == "OK said  DOWN forgot"


def test_the_name_picker_says_roll_ends_the_name(english) -> None:
    got: list[str] = []
    picker = LetterPicker(lambda ctx, name: got.append(name) or Menu("x", []), Menu("Home", []))
    assert picker.hint == "OK add  ROLL done"
    assert any(key.button == "ROLL" and "done" in str(key.does) for key in picker.keys.keys)
    ctx = Context()
    push(picker, ctx, "ok", "down", "ok", "roll")
    assert got == ["Ab"]


def lottery_count(tmp_path=None):
    from companion.ui.block_lottery.round_end import ScoreEntry
    from companion.ui.block_lottery.table import BlockLotteryTable

    ctx = Context(rng=random.Random(3), anim_rng=random.Random(0))
    session = Session.start("block-lottery", ["Ann", "Bob"], {})
    table = BlockLotteryTable(session, None)
    session.apply({"type": "pool", "faces": [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3]})
    session.apply({"type": "take", "player": "Ann", "face": 1})
    session.apply({"type": "end", "player": "Bob", "cause": "deck_out"})
    for _ in range(3):
        token = session.match.tokens_left[0]
        session.apply({"type": "token", "token": token})
    table.lottery_shown = session.match.round_number
    entry = table.route(ctx)
    assert isinstance(entry, ScoreEntry)
    return ctx, table, entry


def test_the_card_count_hint_names_the_number_and_back_asks_before_dropping_it(english) -> None:
    ctx, table, entry = lottery_count()
    assert entry.hint == "UP/DOWN count OK next"
    events = list(table.match.events)
    # Nothing typed yet: BACK is the game menu at once.
    assert isinstance(push(entry, ctx, "back"), Menu)
    push(entry, ctx, "up", "up", "ok", "up")             # blocks 3 -> 5, hand 1
    assert entry.values["blocks"] == 5 and entry.values["hand"] == 1
    assert push(entry, ctx, "back") is entry and entry.cursor == 0   # the line before
    asked = push(entry, ctx, "back")
    assert isinstance(asked, Confirm) and asked.title == "Leave the count?"
    assert "Ann" in " ".join(asked.lines)
    assert push(asked, ctx, "back") is entry               # BACK: counting goes on
    assert entry.values["blocks"] == 5 and entry.values["hand"] == 1
    menu = push(push(entry, ctx, "back"), ctx, "ok")       # OK: leave, nothing entered
    assert isinstance(menu, Menu) and table.match.events == events
    help_screen = open_row(menu, ctx, "Help")
    assert "UP/DOWN: Change the number marked" in help_text(help_screen)


# -- the table page -----------------------------------------------------------------------------


@pytest.fixture
def device(tmp_path):
    from test_web_api import Device

    made = Device(tmp_path / "state")
    yield made
    made.close()


def page_text(html: str) -> str:
    import html as html_module

    return re.sub(r"\s+", " ", html_module.unescape(re.sub(r"<[^>]+>", " ", html)))


def test_the_page_has_a_help_page_per_game_with_the_devices_words(device, english) -> None:
    index = device.client.get("/help", headers={"accept": "text/html"})
    assert index.status_code == 200
    for game_id in GUIDES:
        assert f'href="/help/{game_id}"' in index.text
        page = device.client.get(f"/help/{game_id}", headers={"accept": "text/html"})
        assert page.status_code == 200
        text = page_text(page.text)
        for paragraph in (*GUIDES[game_id].about, *GUIDES[game_id].turn):
            assert str(paragraph) in text
        for keys in ui_games.table_class(game_id).all_keys:
            if keys.keys:
                assert keys.heading() in text
                for _button, does in keys.said():
                    assert does in text
    tools = page_text(device.client.get("/help/tools", headers={"accept": "text/html"}).text)
    assert "Let every die go." in tools and "Sand timer" in tools
    settings = page_text(device.client.get("/help/settings",
                                           headers={"accept": "text/html"}).text)
    assert "A long BACK stops a turn timer" in settings


def test_the_table_page_links_the_games_help_and_every_page_links_help(device) -> None:
    device.pair()
    device.client.post("/api/matches", json={"game": "card-down", "players": ["Ann", "Bob"]})
    page = device.client.get("/", headers={"accept": "text/html"}).text
    assert 'href="/help/card-down"' in page and 'href="/help"' in page


def test_help_pages_keep_the_door_and_refuse_what_they_do_not_know(device) -> None:
    unknown = device.client.get("/help/nothing", headers={"accept": "application/json"})
    assert unknown.status_code == 404 and unknown.json()["error"] == "no help for 'nothing'"
    long = device.client.get("/help/" + "x" * 5000, headers={"accept": "text/html"})
    assert long.status_code == 404 and "x" * 100 not in long.text
    elsewhere = device.client.get("/help", headers={"host": "evil.example"})
    assert elsewhere.status_code in (400, 421)
    writes = device.client.post("/help/final-count", json={})
    assert writes.status_code in (403, 405, 415)
