"""The scoreboard on the device: setup, the sheet, the number picker, the end."""

import random
from types import SimpleNamespace

from companion.session import Session
from companion.ui.play import Standings
from companion.ui.scoreboard.table import (
    GameOver,
    NumberPicker,
    ScoreboardSetup,
    ScoreboardTable,
)
from companion.ui.screen import Confirm, Context, Menu, Message
from companion.ui.tools import tools_menu

HOME = Menu("Home", [])


def press(button, long=False):
    return SimpleNamespace(button=button, long=long)


def sheet(players=("Ann", "Bob", "Cy"), **options):
    ctx = Context(rng=random.Random(1))
    session = Session.start("scoreboard", list(players), options)
    return ctx, ScoreboardTable(session, HOME)


def enter(picker, ctx, presses):
    for button in presses:
        long = button.startswith("hold ")
        picker = picker.press(ctx, press(button.removeprefix("hold "), long))
    return picker


def test_tools_opens_the_setup_which_starts_a_sheet():
    ctx = Context(rng=random.Random(1))
    tools = tools_menu(None)
    tools.selected = [item.label for item in tools.items].index("Scoreboard")
    setup = tools.press(ctx, press("ok"))
    assert isinstance(setup, ScoreboardSetup) and setup.parent is tools
    setup.names = ["Ann", "Bob", "Cy"]
    setup.press(ctx, press("down"))
    target = setup.press(ctx, press("ok"))          # the target's number picker
    assert isinstance(target, NumberPicker) and target.value == 100
    target = enter(target, ctx, ["down", "ok", "ok", "ok", "up", "up"])  # 100-10, then +2
    assert target.value == 92
    assert target.press(ctx, press("roll")) is setup and setup.target == 92
    setup.press(ctx, press("down"))
    setup.press(ctx, press("ok"))                   # lowest total wins
    table = setup.press(ctx, press("roll"))
    assert isinstance(table, ScoreboardTable)
    assert table.match.options == {"target": 92, "low_wins": True}
    assert table.parent is tools


def test_the_picker_steps_negative_numbers_and_zero():
    ctx, table = sheet()
    picker = table.press(ctx, press("roll"))
    assert isinstance(picker, NumberPicker) and (picker.title, picker.right) == ("Ann", "round 1")
    picker = enter(picker, ctx, ["down", "down"])
    assert picker.value == -2 and picker.shown() == "-2"
    picker = enter(picker, ctx, ["ok", "up", "up", "up"])   # step 5
    assert picker.value == 13 and picker.step == 5 and picker.shown() == "+13"
    picker = enter(picker, ctx, ["hold ok"])                # back to 0
    assert picker.value == 0 and picker.step == 5
    picker = enter(picker, ctx, ["ok", "ok", "up"])         # 10, 100
    assert picker.value == 100
    picker = enter(picker, ctx, ["down"] * 110)             # stops at the limit
    assert picker.value == -9999


def test_roll_enters_and_goes_straight_on_to_the_next_player():
    ctx, table = sheet()
    picker = table.press(ctx, press("roll"))
    picker = enter(picker, ctx, ["up", "up", "up", "roll"])         # Ann +3
    assert isinstance(picker, NumberPicker) and (picker.title, picker.right) == ("Bob", "round 1")
    picker = enter(picker, ctx, ["down", "roll"])                   # Bob -1
    assert (picker.title, picker.right) == ("Cy", "round 1")
    back = enter(picker, ctx, ["roll"])                             # Cy 0: round complete
    assert back is table
    state = table.match.state()
    assert state["totals"] == {"Ann": 3, "Bob": -1, "Cy": 0} and state["round"] == 2
    assert table.hint == "ROLL Ann  OK pick"


def test_the_step_carries_over_to_the_next_entry():
    ctx, table = sheet(players=("Ann", "Bob"))
    picker = enter(table.press(ctx, press("roll")), ctx, ["ok", "up", "roll"])
    assert picker.step == 5 and picker.value == 0


def test_ok_enters_for_the_player_under_the_cursor_and_refuses_a_second_entry():
    ctx, table = sheet()
    table.press(ctx, press("down"))
    table.press(ctx, press("down"))                                 # Cy
    picker = table.press(ctx, press("ok"))
    assert (picker.title, picker.right) == ("Cy", "round 1")
    nxt = enter(picker, ctx, ["up", "roll"])
    assert (nxt.title, nxt.right) == ("Ann", "round 1")   # the first still to enter
    assert table.match.state()["rounds_entered"] == {"Ann": 0, "Bob": 0, "Cy": 1}
    no = table.press(ctx, press("ok"))                              # Cy again
    assert isinstance(no, Message) and no.title == "Not now"
    assert "Cy already has 1 in round 1" in " ".join(no.lines)
    assert no.press(ctx, press("ok")) is table


def test_back_leaves_the_picker_without_entering():
    ctx, table = sheet()
    picker = table.press(ctx, press("roll"))
    picker.press(ctx, press("up"))
    assert picker.press(ctx, press("back")) is table and table.match.events == []


def test_reaching_the_target_ends_on_the_winner():
    ctx, table = sheet(players=("Ann", "Bob"), target=10)
    picker = table.press(ctx, press("roll"))
    picker = enter(picker, ctx, ["ok", "ok", "up", "roll"])         # Ann +10
    over = enter(picker, ctx, ["roll"])                             # Bob 0
    assert isinstance(over, GameOver)
    assert table.match.result()["winners"] == ["Ann"]
    totals = over.press(ctx, press("down"))
    assert isinstance(totals, Standings) and totals.rows[0] == ("Ann", 10)
    assert over.press(ctx, press("ok")) is HOME


def test_final_scores_now_from_the_game_menu():
    ctx, table = sheet(players=("Ann", "Bob"), low_wins=True)
    picker = table.press(ctx, press("roll"))
    enter(picker, ctx, ["up", "roll", "up", "up", "roll"])          # Ann 1, Bob 2
    menu = table.press(ctx, press("back"))
    labels = [item.label for item in menu.items]
    assert labels[:4] == ["Back to the game", "Undo Bob points 2", "Final scores now",
                          "Standings"]
    standings = menu.items[3].open(ctx, menu)
    assert standings.rows == [("Ann", 1), ("Bob", 2)]     # lowest first: low wins
    menu.selected = 2
    confirm = menu.press(ctx, press("ok"))
    assert isinstance(confirm, Confirm)
    over = confirm.press(ctx, press("ok"))
    assert isinstance(over, GameOver) and table.match.result()["winners"] == ["Ann"]


def test_final_scores_now_in_a_half_round_says_why_not():
    ctx, table = sheet(players=("Ann", "Bob"))
    enter(table.press(ctx, press("roll")), ctx, ["up", "roll", "roll"])  # round 1
    enter(table.press(ctx, press("roll")), ctx, ["roll"])                # Ann, round 2
    menu = table.press(ctx, press("back"))
    menu.selected = 2
    refusal = menu.press(ctx, press("ok")).press(ctx, press("ok"))
    assert isinstance(refusal, Message) and "half entered" in " ".join(refusal.lines)


def test_the_sheet_draws_leaders_and_rounds():
    ctx, table = sheet(players=[f"P{n}" for n in range(1, 8)], target=50)
    enter(table.press(ctx, press("roll")), ctx, ["up", "roll"])
    table.render()
    for _ in range(6):
        table.press(ctx, press("down"))
    assert table.top == 3 and table.selected == 6
    for screen in (table, ScoreboardSetup(None, None), table.press(ctx, press("roll"))):
        assert screen.render().size == (128, 64)


def test_a_refused_entry_keeps_the_number_and_the_step_in_the_picker():
    """Ann's points came in another way meanwhile: ROLL is refused, and OK goes back to
    the same picker with the number and step as they were."""
    ctx, table = sheet()
    picker = enter(table.press(ctx, press("roll")), ctx, ["ok", "up", "up", "up"])
    assert (picker.value, picker.step) == (15, 5)
    table.session.apply({"type": "points", "player": "Ann", "points": 4})
    refused = picker.press(ctx, press("roll"))
    assert isinstance(refused, Message) and refused.title == "Not allowed"
    back = refused.press(ctx, press("ok"))
    assert back is picker and (picker.value, picker.step) == (15, 5)
