"""Final Count on the device: what each press does at the table."""

import random
from types import SimpleNamespace

from companion.session import Session
from companion.ui.final_count.table import FinalCountTable, HandResult
from companion.ui.play import Standings, ValuePicker
from companion.ui.screen import Context, Menu, Message


def press(button, long=False):
    return SimpleNamespace(button=button, long=long)


def game(players=("Ann", "Bob", "Cy"), hit_goal=False, seed=1):
    ctx = Context(rng=random.Random(seed), anim_rng=random.Random(0))
    session = Session.start("final-count", list(players), {"hit_goal": hit_goal})
    return ctx, FinalCountTable(session, None)


def settle(screen, ctx):
    while screen.tick_after() is not None:
        screen = screen.tick(ctx)
    return screen


def test_hit_goal_takes_two_rolls_then_the_first_player_rolls():
    ctx, table = game(hit_goal=True)
    assert table.hint == "ROLL roll for goal"
    table.press(ctx, press("roll"))
    assert table.match.phase == "goal" and table.goal_first is not None
    table = settle(table.press(ctx, press("roll")), ctx)
    state = table.match.state()
    a, b = state["goal_rolls"]
    assert state["goal"] == max(a, b) * 10 + min(a, b)
    assert state["current"] == "Ann" and table.hint == "ROLL roll  OK call"


def test_roll_always_rolls_for_whoever_is_next():
    ctx, table = game()
    for expected in ("Ann", "Bob", "Cy", "Ann"):
        assert table.match.state()["current"] == expected
        table = settle(table.press(ctx, press("roll")), ctx)
        assert table.match.state()["last_roll"]["player"] == expected


def test_call_is_one_press_at_the_start_and_two_after_a_roll():
    ctx, table = game()
    table.press(ctx, press("ok"))                   # Ann calls before rolling: one press
    assert table.match.state()["caller"] == "Ann"
    assert table.match.state()["final_round"] == ["Bob", "Cy"]

    ctx, table = game()
    table = settle(table.press(ctx, press("roll")), ctx)   # Ann rolled
    chooser = table.press(ctx, press("ok"))
    assert isinstance(chooser, Menu)
    assert [(item.label, item.note) for item in chooser.items] == [("Ann", "rolled"),
                                                                   ("Bob", "")]
    after = chooser.press(ctx, press("ok"))
    assert after is table and table.match.state()["caller"] == "Ann"


def test_the_final_round_counts_down_then_asks_for_the_cards():
    ctx, table = game()
    table.press(ctx, press("ok"))                   # Ann calls
    table = settle(table.press(ctx, press("roll")), ctx)   # Bob's last turn
    assert table.match.state()["final_round"] == ["Cy"]
    shown = settle(table.press(ctx, press("roll")), ctx)   # Cy's last turn
    # The last roll stays on the screen first: its roller learns what it does (issue 21)
    assert shown is table and table.match.phase == "board"
    last = table.match.state()["last_roll"]
    assert last["player"] == "Cy" and table.hint == "OK Board cards"
    picture = text_on(table)
    assert f"{last['value']}: {last['action']}" in picture and "then cards" in picture
    picker = table.press(ctx, press("ok"))
    assert isinstance(picker, ValuePicker) and picker.title == "Board cards"


def text_on(screen) -> str:
    """Every piece of text ``screen`` draws, one per line (the canvas's text calls)."""
    from companion.ui.canvas import Canvas

    drawn = []
    original = Canvas.text

    def recording(canvas, x, y, text, **kw):
        drawn.append(text)
        return original(canvas, x, y, text, **kw)

    Canvas.text = recording
    try:
        screen.render()
    finally:
        Canvas.text = original
    return "\n".join(drawn)


def final_roll(ctx, table):
    """The final round's last roll, then OK past it to the Board's picker."""
    settle(table.press(ctx, press("roll")), ctx)
    return table.press(ctx, press("ok"))


def test_a_second_press_while_the_last_roll_spins_does_not_skip_it():
    ctx, table = game(players=("Ann", "Bob"))
    table.press(ctx, press("ok"))                   # Ann calls
    shown = table.press(ctx, press("roll"))         # Bob's last roll: the die turns...
    assert shown is table and table.match.phase == "board" and table.tick_after() is not None
    for button in ("roll", "ok"):                   # ...and a quick second press
        assert table.press(ctx, press(button)) is table
    settle(table, ctx)                              # the die stops on its face
    assert isinstance(table.press(ctx, press("ok")), ValuePicker)


def test_after_a_call_the_screen_says_who_called():
    ctx, table = game()
    table.press(ctx, press("ok"))                   # Ann calls before rolling
    assert "Ann called, Bob next" in text_on(table)
    ctx, table = game()
    table = settle(table.press(ctx, press("roll")), ctx)   # Ann rolled
    table.press(ctx, press("ok")).press(ctx, press("down")).press(ctx, press("ok"))  # Bob calls
    assert table.match.state()["caller"] == "Bob"
    picture = text_on(table)
    assert "Bob called" in picture and "Ann rolled" in picture
    table = settle(table.press(ctx, press("roll")), ctx)   # Cy's last turn: the roll again
    assert "called" not in text_on(table)


def test_the_bonus_is_split_only_between_winners():
    from companion.ui.final_count.table import HandResult as Result

    ctx, table = game(players=("Ann", "Bob"))
    table.press(ctx, press("ok"))                   # Ann calls, and will lose: +10
    screen = final_roll(ctx, table)
    screen = enter(screen, ctx, ["2", "3"])
    screen = enter(screen, ctx, ["4", "5", "6"])    # Ann
    result = enter(screen, ctx, ["K", "Q", "9"])    # Bob wins alone
    assert isinstance(result, Result) and result.hand["winners"] == ["Bob"]
    titles = []
    from companion.ui.canvas import Canvas

    original = Canvas.title
    Canvas.title = lambda canvas, text, right="", **kw: titles.append(right) or original(
        canvas, text, right, **kw)
    try:
        result.render()
    finally:
        Canvas.title = original
    assert titles == ["+10 bonus"]


def test_an_impossible_entry_is_refused_with_the_reason_and_the_picker_stays():
    ctx, table = game(players=("Ann", "Bob"))
    table.press(ctx, press("ok"))
    picker = final_roll(ctx, table)
    picker.press(ctx, press("ok"))                  # just one card on the Board
    refused = picker.press(ctx, press("roll"))
    assert isinstance(refused, Message) and refused.title == "Not allowed"
    assert "Board" in " ".join(refused.lines)
    assert table.match.phase == "board"
    back = refused.press(ctx, press("ok"))
    assert isinstance(back, ValuePicker) and back.title == "Board cards"


def enter(picker, ctx, ranks):
    for rank in ranks:
        while picker.values[picker.cursor] != rank:
            picker.press(ctx, press("down"))
        picker.press(ctx, press("ok"))
    return picker.press(ctx, press("roll"))


def test_a_hand_scored_then_totals_then_the_next_hand():
    ctx, table = game(players=("Ann", "Bob"))
    table.press(ctx, press("ok"))                   # Ann calls
    screen = final_roll(ctx, table)                 # Bob's last roll, then the cards
    screen = enter(screen, ctx, ["K", "Q"])         # the Board: 20
    screen = enter(screen, ctx, ["A", "K", "9"])    # Ann: 30 with the ace as 11, +20
    result = enter(screen, ctx, ["10", "J", "5"])   # Bob: 25 + 20 = 45
    assert isinstance(result, HandResult)
    hand = table.match.result()["hands"][0]
    assert hand["players"]["Ann"]["total"] == 50    # the ace counts 11 for Ann
    assert hand["winners"] == ["Ann"]
    totals = result.press(ctx, press("ok"))
    assert isinstance(totals, Standings)
    assert totals.rows[0] == ("Ann", 50)
    back = totals.press(ctx, press("ok"))
    assert back is table and table.match.state()["hand"] == 2
    assert table.match.state()["dealer"] == "Ann"


def test_undo_from_the_game_menu_takes_back_the_last_roll():
    ctx, table = game()
    table = settle(table.press(ctx, press("roll")), ctx)
    table = settle(table.press(ctx, press("roll")), ctx)
    menu = table.press(ctx, press("back"))
    labels = [item.label for item in menu.items]
    assert labels[1].startswith("Undo Bob roll")
    menu.selected = 1
    back = menu.press(ctx, press("ok"))
    assert back is table
    assert len(table.match.events) == 1 and table.match.state()["current"] == "Bob"


def to_cards(table, ctx):
    """Ann calls at once; Bob and Cy take their last turns: the Board's picker."""
    table.press(ctx, press("ok"))
    table = settle(table.press(ctx, press("roll")), ctx)
    return final_roll(ctx, table)


def refused_then_ok(picker, ctx, reason):
    refused = picker.press(ctx, press("roll"))
    assert isinstance(refused, Message) and refused.title == "Not allowed"
    assert reason in " ".join(refused.lines)
    return refused.press(ctx, press("ok"))


def test_a_refused_hand_keeps_its_cards_and_the_cursor():
    ctx, table = game()
    picker = enter(to_cards(table, ctx), ctx, ["K", "Q"])       # the Board
    picker = enter(picker, ctx, ["A", "K", "9"])                 # Ann
    assert picker.title == "Bob's cards"
    for rank in ("10", "J"):                                     # Bob: only two cards
        while picker.values[picker.cursor] != rank:
            picker.press(ctx, press("down"))
        picker.press(ctx, press("ok"))
    back = refused_then_ok(picker, ctx, "everyone keeps at least")
    assert back is picker
    assert back.entered == ["10", "J"] and back.values[back.cursor] == "J"
    back.press(ctx, press("ok"))                                 # one more J: now allowed
    assert enter(back, ctx, []).title == "Cy's cards"


def test_a_refused_board_keeps_its_cards_and_the_cursor():
    ctx, table = game()
    picker = to_cards(table, ctx)
    assert picker.values[picker.cursor] == "10"
    for _ in range(3):
        picker.press(ctx, press("ok"))                           # three cards: one too many
    back = refused_then_ok(picker, ctx, "the Board has 3 cards")
    assert back is picker and back.entered == ["10"] * 3 and back.values[back.cursor] == "10"
    assert table.match.phase == "board"
