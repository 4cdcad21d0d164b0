"""Final Card-Down on the device: what each press does at the table, the store's resume
and undo, and a whole game pressed on the mock pins then exported and replayed."""

from __future__ import annotations

import random
from types import SimpleNamespace

from companion_cli import play_export_replay

from companion.session import Session
from companion.store import Store
from companion.ui.card_down.hands import GameResult, MatchOver, SumPicker, WentOut
from companion.ui.card_down.table import CardDownSetup, CardDownTable
from companion.ui.card_down.turns import CardPicker, ColourMenu, SpecialCard, WordQuestion
from companion.ui.play import Standings, ValuePicker
from companion.ui.screen import Confirm, Context, Menu, Message


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


def game(players=("Ann", "Bob", "Cy"), exact=False, store=None, **options):
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0), store=store)
    session = Session.start("card-down", list(players), options, store=store)
    table = CardDownTable(session, None)
    table.exact = exact
    return ctx, table


def presses(screen, ctx, *buttons: str):
    """Press each button in turn ("hold ok" is a long press); the screen at the end.
    Every screen on the way is drawn, so none of them can fail to render."""
    for button in buttons:
        long = button.startswith("hold ")
        screen = screen.press(ctx, press(button.removeprefix("hold "), long))
        assert screen.render().size == (128, 64)
    return screen


def test_setup_starts_a_quick_game_with_the_options() -> None:
    ctx = Context(rng=random.Random(1))
    setup = CardDownSetup(None, ["Ann", "Bob"])
    setup = presses(setup, ctx, "down", "ok", "ok", "down", "ok")  # 2 games, exact entry
    table = setup.press(ctx, press("roll"))
    assert isinstance(table, CardDownTable) and table.exact
    assert table.match.options == {"games": 2}
    assert table.match.players == ("Ann", "Bob")
    assert table.hint == "ROLL card"


def test_quick_turns_are_one_press_each() -> None:
    ctx, table = game()
    screen = presses(table, ctx, "roll")             # the first card is turned up
    assert table.match.state()["phase"] == "play"
    screen = presses(screen, ctx, "ok")              # Ann played a plain card
    assert table.match.in_hand["Ann"] == 6 and table.match.current == "Bob"
    screen = presses(screen, ctx, "roll")            # Bob drew
    assert table.match.in_hand["Bob"] == 8 and table.match.current == "Cy"
    assert screen is table and table.hint == "OK/DOWN lay ROLL draw"


def test_a_special_card_is_two_presses() -> None:
    ctx, table = game()
    screen = presses(table, ctx, "roll", "down")
    assert isinstance(screen, SpecialCard)
    screen = presses(screen, ctx, "up")              # Ann played a 2
    assert table.match.state()["stacked"] == 2
    assert table.hint == "OK a 2  ROLL draw 2"
    screen = presses(screen, ctx, "ok")              # Bob a 2 on it: one press
    screen = presses(screen, ctx, "roll")            # Cy draws the 4
    assert table.match.in_hand["Cy"] == 11 and table.match.current == "Ann"
    screen = presses(screen, ctx, "down", "down")    # Ann: an A skips Bob
    assert table.match.current == "Cy"
    screen = presses(screen, ctx, "down", "ok")      # Cy: a B reverses
    assert table.match.current == "Bob"
    screen = presses(screen, ctx, "down", "hold roll")  # Bob: a 0 (held ROLL)
    assert table.match.state()["top"]["value"] == "0" and table.match.current == "Ann"


def test_a_c_gives_one_more_card_or_roll_for_none() -> None:
    ctx, table = game()
    screen = presses(table, ctx, "roll", "down", "roll")   # Ann: a C
    assert table.match.current == "Ann" and table.hint == "OK/DOWN lay  ROLL end"
    screen = presses(screen, ctx, "roll")                  # no second card
    assert table.match.current == "Bob" and table.match.in_hand["Ann"] == 6


def test_a_d_asks_for_the_colour() -> None:
    ctx, table = game()
    screen = presses(table, ctx, "roll", "down", "hold ok")
    assert isinstance(screen, ColourMenu)
    screen = presses(screen, ctx, "down", "ok")            # Blue
    assert table.match.state()["declared"] == "blue" and screen is table
    assert table.match.current == "Bob"


def test_the_word_question_and_the_call_out() -> None:
    ctx, table = game(players=("Ann", "Bob"))
    screen = presses(table, ctx, "roll")
    for _ in range(3):
        screen = presses(screen, ctx, "ok", "roll")         # Ann plays, Bob draws
    screen = presses(screen, ctx, "ok")                    # Ann goes down to 3
    assert isinstance(screen, WordQuestion) and screen.word == "TRIO"
    screen = presses(screen, ctx, "ok", "roll", "ok")      # said; Bob draws; Ann to 2
    assert isinstance(screen, WordQuestion) and screen.word == "DUO"
    screen = presses(screen, ctx, "down")                  # forgot
    assert screen is table and table.match.current == "Bob"
    assert table.match.state()["call_outs"] == [{"offender": "Ann", "word": "DUO"}]
    screen = presses(screen, ctx, "up")                    # Bob calls her out
    assert table.match.in_hand["Ann"] == 4 and table.match.current == "Bob"
    hands = presses(screen, ctx, "up")                     # nothing to call: the counts
    assert hands.title == "Cards in hand"
    assert any("Ann" in line and line.rstrip().endswith("4") for line in hands.lines)


def test_back_on_a_question_opens_the_game_menu_and_undo_works() -> None:
    ctx, table = game(players=("Ann", "Bob"))
    screen = presses(table, ctx, "roll", "down", "hold ok")
    menu = presses(screen, ctx, "back")
    assert isinstance(menu, Menu)
    labels = [item.label for item in menu.items]
    assert labels[:3] == ["Back to the game", "Card entry", "Cards in hand"]
    assert labels[3].startswith("Undo Ann play")
    menu.selected = 3
    back = menu.press(ctx, press("ok"))
    assert back is table and table.match.in_hand["Ann"] == 7


def test_exact_entry_starts_on_the_top_card_and_refuses_with_the_reason() -> None:
    ctx, table = game(exact=True)
    picker = presses(table, ctx, "roll")
    assert isinstance(picker, CardPicker)
    picker = presses(picker, ctx, *["down"] * 7, "roll")  # 7 red hearts turned up
    assert picker is table and table.match.state()["top"] == {
        "value": "7", "colour": "red", "suit": "hearts"}
    picker = presses(table, ctx, "ok")
    assert picker.choice == ["7", "red", "hearts"]
    picker = presses(picker, ctx, "down", "ok", "down", "ok", "down")  # 8 blue diamonds
    assert picker.choice == ["8", "blue", "diamonds"]
    refused = picker.press(ctx, press("roll"))
    assert isinstance(refused, Message) and refused.title == "Not allowed"
    assert "matches neither" in " ".join(refused.lines)
    back = refused.press(ctx, press("ok"))
    assert back is picker
    picker = presses(picker, ctx, "up")                  # 8 blue hearts: the suit matches
    done = picker.press(ctx, press("roll"))
    assert done is table and table.match.current == "Bob"


def test_the_entry_mode_switches_in_the_game_menu_and_is_kept_on_resume(tmp_path) -> None:
    store = Store(tmp_path / "companion.db")
    ctx, table = game(store=store)
    presses(table, ctx, "roll", "ok")
    menu = table.press(ctx, press("back"))
    assert menu.items[1].note == "quick"
    menu.selected = 1
    note = menu.press(ctx, press("ok"))
    assert table.exact and isinstance(note, Message)
    picker = presses(note, ctx, "ok", "ok")
    assert isinstance(picker, CardPicker)
    presses(picker, ctx, "roll")                         # an exact card on a quick one
    resumed = CardDownTable(Session.resume(store, table.session.match_id), None)
    assert resumed.exact and resumed.match.state() == table.match.state()
    resumed.session.undo()
    again = CardDownTable(Session.resume(store, table.session.match_id), None)
    assert not again.exact and len(again.match.events) == 2
    store.close()


def play_to_the_end(ctx, table):
    """Ann plays out her 7 cards (saying every word) while Bob draws: the game is over."""
    screen = presses(table, ctx, "roll")
    while table.match.state()["phase"] == "play":
        screen = presses(screen, ctx, "ok" if table.match.current == "Ann" else "roll")
        if isinstance(screen, WordQuestion):
            screen = presses(screen, ctx, "ok")
    return screen


def test_a_whole_game_entered_by_values_then_the_next_game() -> None:
    ctx, table = game(players=("Ann", "Bob"))
    screen = play_to_the_end(ctx, table)
    assert isinstance(screen, WentOut)
    picker = presses(screen, ctx, "ok")
    assert isinstance(picker, ValuePicker) and picker.title == "Bob's cards"
    assert picker.limits == (13, 13)
    picker = presses(picker, ctx, "ok")                     # one card only: refused
    refused = picker.press(ctx, press("roll"))
    assert isinstance(refused, Message) and "holds 13 cards, not 1" in " ".join(refused.lines)
    picker = presses(refused, ctx, "ok", *["ok"] * 12)      # thirteen 5s
    result = presses(picker, ctx, "roll")
    assert isinstance(result, GameResult)
    assert table.match.result()["totals"] == {"Ann": 0, "Bob": 65}
    standings = presses(result, ctx, "ok")
    assert isinstance(standings, Standings) and standings.rows[0] == ("Ann", 0)
    screen = presses(standings, ctx, "ok")
    assert screen is table and table.match.state()["phase"] == "deal"
    assert table.hint == "ROLL card  DOWN end"
    confirm = presses(screen, ctx, "down")
    assert isinstance(confirm, Confirm)
    over = presses(confirm, ctx, "ok")
    assert isinstance(over, MatchOver) and table.match.result()["winners"] == ["Ann"]
    assert isinstance(presses(over, ctx, "down"), Standings)


def test_sums_instead_of_values() -> None:
    ctx, table = game(players=("Ann", "Bob"), games=1)
    screen = play_to_the_end(ctx, table)
    picker = presses(screen, ctx, "down")
    assert isinstance(picker, SumPicker) and picker.most == 13 * 15
    picker = presses(picker, ctx, "hold up", "hold up", "up", "down", "up")
    assert picker.total == 21
    result = presses(picker, ctx, "roll")
    assert isinstance(result, GameResult)
    assert table.match.result()["totals"] == {"Ann": 0, "Bob": 21}
    over = presses(result, ctx, "ok", "ok")
    assert isinstance(over, MatchOver) and table.match.over


def test_the_draw_pile_running_out_is_announced() -> None:
    ctx, table = game(players=("Ann", "Bob"))
    screen = presses(table, ctx, "roll", "ok", "ok")        # 3 cards on the discard pile
    while table.match.draw_pile > 1:
        table.match.apply({"type": "draw", "player": table.match.current})
    note = presses(table, ctx, "roll")
    assert isinstance(note, Message) and note.title == "Draw pile empty"
    assert "2 cards to draw." in note.lines
    assert presses(note, ctx, "ok") is table and screen is table


def test_every_table_picture_draws() -> None:
    ctx, table = game(players=tuple(f"Player{n}" for n in range(10)))
    presses(table, ctx, "roll", "ok", "down", "up", "roll", "down", "hold ok")
    for screen in (table, SpecialCard(table), CardPicker(table, "x", "Player3")):
        assert screen.render().size == (128, 64)


#: A whole quick game for Ann, Bob and Cy as pressed at the table (see the comments).
WHOLE_GAME = """\
ROLL          # the first card is turned up
OK            # Ann: a plain card (6 left)
DOWN
UP            # Bob: a 2
OK            # Cy: a 2 on it
ROLL          # Ann draws the 4 (10)
DOWN
DOWN          # Bob: an A, Cy is skipped
ROLL          # Ann draws (11)
OK            # Bob: 4 left
ROLL
ROLL          # Cy, Ann draw
OK
OK            # Bob: 3 left, said TRIO
ROLL
ROLL
OK
DOWN          # Bob: 2 left, forgot DUO
UP            # Cy calls him out: Bob draws 2 (4)
ROLL
ROLL
OK
OK            # Bob: 3, TRIO
ROLL
ROLL
OK
OK            # Bob: 2, DUO
ROLL
ROLL          # Cy 11, Ann 16
DOWN
ROLL          # Bob: a C
OK            # UNO
OK            # and his last card: the game is over
DOWN          # hands as sums
HOLD UP       # +10
WAIT 0.1      # (a hold straight after the same button would fall in its bounce window)
HOLD UP       # +10
UP
UP
UP
OK            # Ann: 23
UP
UP
UP
UP
UP
UP
UP
ROLL          # Cy: 7
OK            # the points, then the standings
OK            # the match is over (games=1)
"""


def test_a_whole_game_through_the_pins_exported_and_replayed(tmp_path) -> None:
    result = play_export_replay(tmp_path, "card-down", ["Ann", "Bob", "Cy"], WHOLE_GAME,
                                "--option", "games=1", "--seed", "1").result
    assert result["over"] is True
    assert result["totals"] == {"Ann": 23, "Bob": 0, "Cy": 7}
    assert result["winners"] == ["Bob"]
    game = result["games"][0]
    assert game["went_out"] == "Bob"
    assert game["players"]["Ann"]["cards"] == 16 and game["players"]["Cy"]["cards"] == 11
