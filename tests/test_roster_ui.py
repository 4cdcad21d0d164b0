"""The roster on the device: spelling names, seating players, history and stats."""

import random
from types import SimpleNamespace

import pytest

from companion.store import Store
from companion.ui.canvas import BODY_TOP, Canvas, text_width
from companion.ui.final_count.table import FinalCountSetup, FinalCountTable
from companion.ui.history import history_menu
from companion.ui.home import home_menu, start_screen
from companion.ui.roster import LETTERS, LetterPicker, PlayerPicker
from companion.ui.screen import Context, Message


def press(button, long=False):
    return SimpleNamespace(button=button, long=long)


@pytest.fixture
def ctx(tmp_path):
    store = Store(tmp_path / "companion.db", clock=lambda: 1_700_000_000.0)
    yield Context(rng=random.Random(1), anim_rng=random.Random(2), store=store)
    store.close()


def spell(picker, c, name):
    for char in name.upper():
        target = LETTERS.index(char)
        while picker.cursor != target:
            picker.press(c, press("down"))
        picker.press(c, press("ok"))


def test_spelling_a_name_capitalises_each_word(ctx):
    done = []
    picker = LetterPicker(lambda c, name: done.append(name) or picker, None)
    spell(picker, ctx, "mary-jo")
    picker.press(ctx, press("back"))
    spell(picker, ctx, "o")
    picker.press(ctx, press("ok", long=True))
    assert done == ["Mary-Jo"]


def test_an_empty_name_is_not_accepted(ctx):
    picker = LetterPicker(lambda c, name: picker, None)
    shown = picker.press(ctx, press("roll"))
    assert isinstance(shown, Message)


def test_seat_players_from_the_roster_most_recent_first(ctx):
    for name in ("Ann", "Bob", "Cy", "Dee"):
        ctx.store.add_player(name)
    setup = FinalCountSetup(home_menu(ctx))
    picker = setup.press(ctx, press("ok"))
    assert isinstance(picker, PlayerPicker)
    assert picker.rows[0] == "+ New name"
    # pick Cy then Ann: that is the seat order
    for name in ("Cy", "Ann"):
        picker.selected = picker.rows.index(name)
        picker.press(ctx, press("ok"))
    assert picker.chosen == ["Cy", "Ann"]
    back = picker.press(ctx, press("roll"))
    assert back is setup and setup.names == ["Cy", "Ann"]
    table = setup.press(ctx, press("roll"))
    assert isinstance(table, FinalCountTable)
    assert table.match.players == ("Cy", "Ann")
    assert set(ctx.store.roster()[:2]) == {"Cy", "Ann"}  # the players just used come first


def test_too_few_or_too_many_players_are_refused(ctx):
    picker = PlayerPicker(ctx, 2, 4, lambda c, names: None, home_menu(ctx))
    assert isinstance(picker.press(ctx, press("roll")), Message)


def test_adding_a_name_seats_it_and_a_roster_name_seats_that_player(ctx):
    ctx.store.add_player("Ann")
    picker = PlayerPicker(ctx, 2, 4, lambda c, names: None, home_menu(ctx))
    letters = picker.press(ctx, press("ok"))          # "+ New name"
    spell(letters, ctx, "ann")
    back = letters.press(ctx, press("ok", long=True))
    assert back is picker and picker.chosen == ["Ann"]  # spelled as the roster has her
    letters = picker.press(ctx, press("ok"))
    spell(letters, ctx, "zoe")
    back = letters.press(ctx, press("ok", long=True))
    assert back is picker and picker.chosen == ["Ann", "Zoe"]
    assert sorted(ctx.store.roster()) == ["Ann", "Zoe"]  # nobody twice


def test_without_a_store_players_are_p1_to_pn():
    c = Context(rng=random.Random(1))
    picker = PlayerPicker(c, 2, 4, lambda c, names: None, None)
    assert picker.rows == ["P1", "P2", "P3", "P4"]


def test_history_stats_and_resume(ctx):
    setup = FinalCountSetup(home_menu(ctx), ["Ann", "Bob"])
    table = setup.press(ctx, press("roll"))
    table.press(ctx, press("roll"))
    # the device restarts: the unfinished game is offered
    offer = start_screen(ctx)
    assert "Resume Final Count" in " ".join(offer.lines)
    resumed = offer.press(ctx, press("ok"))
    assert isinstance(resumed, FinalCountTable)
    assert resumed.match.events == table.match.events
    history = history_menu(ctx, home_menu(ctx))
    titles = [item.label for item in history.items]
    assert titles == ["Players", "Finished games", "All time", "Roster"]  # nothing finished


def ring_centre(draw) -> bytes:
    """The pixels of the ring's middle slot (the letter OK adds) as ``draw`` leaves them."""
    canvas = Canvas()
    draw(canvas)
    return canvas.image.crop((56, BODY_TOP + 19, 74, BODY_TOP + 44)).tobytes()


def letter_in_the_centre(letter):
    return ring_centre(lambda canvas: canvas.text(
        56 + (18 - text_width(letter, 2)) // 2, BODY_TOP + 24, letter, scale=2, invert=True))


def test_the_letter_ring_adds_the_case_it_shows(ctx):
    """Before every OK, the middle of the ring shows exactly the letter that OK adds."""
    picker = LetterPicker(lambda c, name: picker, None)
    for char in "MARY-JO DE":
        while LETTERS[picker.cursor] != char:
            picker.press(ctx, press("down"))
        shown = ring_centre(picker.draw)
        before = picker.name
        picker.press(ctx, press("ok"))
        added = picker.name[len(before):]
        assert shown == letter_in_the_centre("_" if added == " " else added), picker.name
    assert picker.name == "Mary-Jo De"


def test_shift_turns_the_case_of_the_next_letter(ctx):
    done = []
    picker = LetterPicker(lambda c, name: done.append(name) or picker, None)
    for char in "D^J":
        while LETTERS[picker.cursor] != char:
            picker.press(ctx, press("down"))
        picker.press(ctx, press("ok"))
    assert picker.name == "DJ"
    assert ring_centre(picker.draw) == letter_in_the_centre("j")  # shift lasts one letter
    picker.press(ctx, press("ok", long=True))
    assert done == ["DJ"]


def test_a_spelling_of_a_roster_name_seats_that_player(ctx):
    """Issue 35, item 4: "Оlga" with a Cyrillic О (added over the serial console, say)
    is the player the letter ring spells OLGA: seated as the roster writes her, never
    refused as a lookalike of herself, and not added twice."""
    ctx.store.add_player("\u041elga")
    ctx.store.add_player("Bob")
    picker = PlayerPicker(ctx, 2, 4, lambda c, names: None, home_menu(ctx))
    letters = picker.press(ctx, press("ok"))          # "+ New name"
    spell(letters, ctx, "olga")
    assert letters.press(ctx, press("ok", long=True)) is picker
    assert picker.chosen == ["\u041elga"]
    assert sorted(ctx.store.roster()) == ["Bob", "\u041elga"]
    letters = picker.press(ctx, press("ok"))          # once more: seated once
    spell(letters, ctx, "OLGA")
    assert letters.press(ctx, press("ok", long=True)) is picker
    assert picker.chosen == ["\u041elga"]
    picker.selected = picker.rows.index("Bob")
    picker.press(ctx, press("ok"))
    started = []
    picker.seated = lambda c, names: started.append(names) or picker
    picker.press(ctx, press("roll"))
    assert started == [["\u041elga", "Bob"]]


def test_a_name_that_would_look_like_another_on_the_roster_is_refused(ctx):
    ctx.store.add_player("Ànn")  # added over the serial console, say
    picker = PlayerPicker(ctx, 2, 4, lambda c, names: None, home_menu(ctx))
    letters = picker.press(ctx, press("ok"))          # "+ New name"
    spell(letters, ctx, "ann")
    refused = letters.press(ctx, press("ok", long=True))
    assert isinstance(refused, Message)
    assert "Ann would look like Ànn" in " ".join(refused.lines)
    assert refused.press(ctx, press("back")) is letters and letters.name == "Ann"
    assert ctx.store.roster() == ["Ànn"]


def test_the_roster_menu_says_a_spelling_of_a_roster_name_is_there(ctx):
    from companion.ui.roster import roster_menu

    ctx.store.add_player("\u041elga")
    menu = roster_menu(ctx, home_menu(ctx))
    letters = menu.press(ctx, press("ok"))            # "+ New name"
    spell(letters, ctx, "olga")
    said = letters.press(ctx, press("ok", long=True))
    assert isinstance(said, Message)
    assert "\u041elga is already on the roster" in " ".join(said.lines)
    assert ctx.store.roster() == ["\u041elga"]


def test_a_setup_offers_the_roster_never_p1_to_p3(ctx):
    """Issue 21, item 6: with names on the roster a setup seats the most recent of them,
    and a game is never played (or stored) as P1, P2, P3."""
    from companion.ui.games import setup_screen
    from companion.ui.play import SetupScreen

    ctx.store.add_player("Ann")
    setup = setup_screen(ctx, "final-count", None)
    assert setup.names is None                      # one name: fewer than the game needs
    picker = setup.press(ctx, press("roll"))        # Start: pick the players first
    assert isinstance(picker, PlayerPicker)
    assert ctx.store.history() == [] and ctx.store.unfinished() is None
    for name in ("Bob", "Cy", "Dee"):
        ctx.store.add_player(name)
    setup = setup_screen(ctx, "final-count", None)
    assert setup.names == ctx.store.roster()[:3]
    assert setup.rows[0][0].startswith("Players: ") and "P1" not in setup.rows[0][0]
    table = setup.press(ctx, press("roll"))
    assert isinstance(table, FinalCountTable)
    seated = list(setup.names)
    stored = ctx.store.match(ctx.store.unfinished().id)
    assert list(stored.players) == seated and set(seated) <= set(ctx.store.roster())
    two = setup_screen(ctx, "count-up-21", None)
    assert len(two.names) == 2 and isinstance(two, SetupScreen)


def test_without_a_roster_a_setup_still_plays_as_p1_to_p3():
    ctx = Context(rng=random.Random(1))
    from companion.ui.games import setup_screen

    setup = setup_screen(ctx, "final-count", None)
    assert setup.names is None and "P1, P2, P3" in setup.rows[0][0]
    assert isinstance(setup.press(ctx, press("roll")), FinalCountTable)


def test_the_seat_count_says_a_fixed_number_once(ctx):
    seated = lambda c, names: None  # noqa: E731 - never called here
    assert PlayerPicker(ctx, 2, 2, seated, None).title == "Players 0 of 2"  # not "of 2-2"
    assert PlayerPicker(ctx, 2, 4, seated, None).title == "Players 0 of 2-4"
