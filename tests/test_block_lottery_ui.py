"""Block Lottery on the device: what each press does at the table."""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace

import pytest

from companion.session import Session
from companion.store import Store
from companion.ui.block_lottery.round_end import (
    GameOver,
    RerollScreen,
    RoundOver,
    RoundResult,
    ScoreEntry,
)
from companion.ui.block_lottery.setup import BlockLotterySetup, NumbersEditor
from companion.ui.block_lottery.table import BlockLotteryTable
from companion.ui.games import setup_screen, table_screen
from companion.ui.play import Standings, ValuePicker
from companion.ui.screen import Confirm, Context, Menu, Message

HINT_COLUMNS = 21


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


def push(screen, ctx, *buttons: str):
    """Press ``buttons`` in turn ("hold:up" is a long press); each frame is drawn and
    the animation let run, as the device would."""
    for button in buttons:
        long = button.startswith("hold:")
        screen = screen.press(ctx, press(button.removeprefix("hold:"), long))
        screen = settle(screen, ctx)
    return screen


def settle(screen, ctx):
    screen.render()
    assert len(screen.hint) <= HINT_COLUMNS, screen.hint
    while screen.tick_after() is not None:
        screen = screen.tick(ctx)
        screen.render()
    return screen


def game(players=("Ann", "Bob", "Cy"), seed=1, store=None, **options):
    ctx = Context(rng=random.Random(seed), anim_rng=random.Random(0), store=store)
    session = Session.start("block-lottery", list(players), options, store=store)
    return ctx, BlockLotteryTable(session, None)


def take_all(table, ctx, takers):
    """Each name in ``takers`` takes the die under the cursor (OK, pick, OK)."""
    screen = table
    for name in takers:
        menu = push(screen, ctx, "ok")
        assert isinstance(menu, Menu) and menu.title.startswith("Who takes a ")
        menu.selected = table.match.players.index(name)
        screen = push(menu, ctx, "ok")
    return screen


# -- setup -------------------------------------------------------------------------------


def test_the_setup_lists_players_variants_prizes_and_deck_and_starts_the_game():
    ctx = Context(rng=random.Random(1))
    setup = setup_screen(ctx, "block-lottery", None, ["Ann", "Bob"])
    assert isinstance(setup, BlockLotterySetup)
    labels = [label for label, _ in setup.rows]
    assert labels == ["Players: Ann, Bob", "Lucky Card: off", "Long Game: off",
                      "Round 1: 1 2 3", "Round 2: 2 3 4", "Round 3: 3 4 5",
                      "Deck 7x1-7 +3 wild", "Start", "Help"]  # no turns: no Timer row
    setup = push(setup, ctx, "down", "ok", "down", "ok")
    assert setup.options["lucky_card_bonus"] and setup.options["long_game"]
    table = push(setup, ctx, "roll")
    assert isinstance(table, BlockLotteryTable)
    assert table.match.options["lucky_card_bonus"] and table.match.options["long_game"]
    assert table.match.players == ("Ann", "Bob")


def test_prize_values_are_changed_with_the_buttons_and_the_default_is_shown():
    ctx = Context(rng=random.Random(1))
    setup = BlockLotterySetup(None, ["Ann", "Bob", "Cy"])
    editor = push(setup, ctx, "down", "down", "down", "down", "ok")   # round 2's card
    assert isinstance(editor, NumbersEditor) and editor.title == "Round 2 prizes"
    assert editor.values == [2, 3, 4] and editor.defaults == [2, 3, 4]
    # low space 2 -> 1, middle stays, high 4 -> 6
    back = push(editor, ctx, "down", "ok", "ok", "up", "up", "ok")
    assert back is setup
    assert setup.options["prizes"] == [[1, 2, 3], [1, 3, 6], [3, 4, 5]]
    assert [label for label, _ in setup.rows][4] == "Round 2: 1 3 6"
    editor = push(setup, ctx, "ok")
    assert editor.values == [1, 3, 6] and editor.defaults == [2, 3, 4]
    push(editor, ctx, "hold:ok")                       # the printed defaults again
    assert editor.values == [2, 3, 4]
    push(editor, ctx, "back")                           # BACK on the first: unchanged
    assert setup.options["prizes"][1] == [1, 3, 6]
    table = push(setup, ctx, "roll")
    assert table.match.state()["options"]["prizes"] == [[1, 2, 3], [1, 3, 6], [3, 4, 5]]


def test_the_deck_is_set_on_the_setup_screen_too():
    ctx = Context(rng=random.Random(1))
    setup = BlockLotterySetup(None, ["Ann", "Bob"])
    editor = push(setup, ctx, "up", "up", "up", "ok")   # round the top, past Help, Start
    assert editor.title == "Deck" and editor.defaults == [7, 3]
    push(editor, ctx, "up", "ok", "down", "roll")
    assert (setup.options["cards_per_number"], setup.options["wilds"]) == (8, 2)
    assert push(setup, ctx, "roll").match.deck_size == 58


# -- the round -------------------------------------------------------------------------------


def test_roll_rolls_the_pool_and_the_screen_counts_each_face():
    ctx, table = game()
    assert table.hint == "ROLL roll the pool"
    table = push(table, ctx, "roll")
    state = table.match.state()
    assert len(state["rolled"]) == 15 and state["pool_left"] == 15
    assert state["pool"] == [state["rolled"].count(face) for face in range(1, 7)]
    assert table.hint == "OK take  ROLL end"


def test_a_player_takes_a_die_in_two_or_three_presses():
    ctx, table = game()
    table = push(table, ctx, "roll")
    first = table.face
    assert table.match.state()["pool"][first - 1] > 0
    table = push(table, ctx, "ok", "ok")                 # Ann (plays first) takes it
    assert table.match.state()["dice"]["Ann"] == [first]
    # the same player again is the default; another face is a DOWN away
    before = table.match.state()["pool"]
    push(table, ctx, "down")
    other = table.face
    table = push(table, ctx, "ok", "down", "ok")          # Bob takes it
    assert table.match.state()["dice"]["Bob"] == [other]
    after = table.match.state()["pool"]
    assert after[other - 1] == before[other - 1] - 1 and sum(after) == 13


def test_the_last_die_ends_the_round_and_says_who_deals_next():
    ctx, table = game()
    table = push(table, ctx, "roll")
    screen = take_all(table, ctx, ["Ann"] * 14 + ["Bob"])
    assert isinstance(screen, RoundOver)
    assert table.match.state()["end"] == "last_die"
    shown = screen.render()
    assert shown.getbbox() is not None
    screen = push(screen, ctx, "ok")
    assert screen is table and table.match.phase == "finalise"


def test_roll_declares_the_other_ends_of_a_round():
    ctx, table = game()
    table = push(table, ctx, "roll")
    menu = push(table, ctx, "roll")
    assert [item.label for item in menu.items] == ["Deck ran out", "Empty hand"]
    nobody = push(menu, ctx, "down", "ok")                # nobody has a die yet
    assert isinstance(nobody, Message)
    table = take_all(table, ctx, ["Bob"])
    menu = push(table, ctx, "roll", "down", "ok")
    assert menu.title == "Whose hand is empty?" and [i.label for i in menu.items] == ["Bob"]
    over = push(menu, ctx, "ok")
    assert isinstance(over, RoundOver)
    assert (table.match.state()["ended_by"], table.match.state()["end"]) == ("Bob", "empty_hand")


def test_in_the_long_game_only_the_deck_ends_the_round_by_hand():
    ctx, table = game(long_game=True)
    table = take_all(push(table, ctx, "roll"), ctx, ["Ann"])
    menu = push(table, ctx, "roll")
    assert [item.label for item in menu.items] == ["Deck ran out"]
    who = push(menu, ctx, "ok")
    assert who.title == "Who could not draw?"
    push(who, ctx, "down", "down", "ok")
    assert (table.match.state()["ended_by"], table.match.state()["end"]) == ("Cy", "deck_out")


def ended(seed=1, **options):
    """A round in which Ann took 3 dice and Bob 1, then Cy could not draw."""
    ctx, table = game(seed=seed, **options)
    table = take_all(push(table, ctx, "roll"), ctx, ["Ann", "Ann", "Ann", "Bob"])
    over = push(table, ctx, "roll", "ok", "down", "down", "ok")
    assert isinstance(over, RoundOver)
    return ctx, push(over, ctx, "ok")


def test_ok_marks_dice_and_roll_re_rolls_them():
    ctx, table = ended()
    before = table.match.state()["dice"]["Ann"]
    reroll = push(table, ctx, "ok")
    assert isinstance(reroll, RerollScreen) and reroll.player == "Ann"
    face = reroll.face
    push(reroll, ctx, "ok")
    assert reroll.title == "Ann: 1 up"
    done = push(reroll, ctx, "roll")
    assert done is reroll and reroll.title.startswith("Ann rolled ")
    record = table.match.state()["rerolled"]["Ann"]
    assert record["from"] == [face] and len(record["to"]) == 1
    after = Counter(before)
    after[face] -= 1
    after[record["to"][0]] += 1
    assert table.match.state()["dice"]["Ann"] == sorted(after.elements())
    back = push(reroll, ctx, "ok")
    assert back is table
    refused = push(table, ctx, "ok")                     # Ann has had her re-roll
    assert isinstance(refused, Message)


def test_a_re_roll_can_be_the_faces_rolled_at_the_table():
    ctx, table = ended()
    reroll = push(table, ctx, "down", "ok")                  # Bob, one die
    assert reroll.player == "Bob"
    assert isinstance(push(reroll, ctx, "roll"), Message)    # nothing picked up yet
    picker = push(reroll, ctx, "ok", "hold:roll")
    assert isinstance(picker, ValuePicker)
    after = push(picker, ctx, "down", "down", "ok", "roll")  # a 3
    assert after is table
    assert table.match.state()["rerolled"]["Bob"]["to"] == [3]
    assert table.match.events[-1]["entered"] is True  # typed in: never passed off as rolled


def test_the_lottery_asks_first_while_someone_may_re_roll_then_draws_three_tokens():
    ctx, table = ended()
    ask = push(table, ctx, "roll")
    assert isinstance(ask, Confirm) and "Ann, Bob" in ask.lines[0]
    assert push(ask, ctx, "back") is table and table.match.tokens == []
    table = push(table, ctx, "roll")
    table = table.press(ctx, press("ok"))                # yes
    assert table.ceremony.spinning                       # the draw is shown landing
    table = settle(table, ctx)
    assert len(table.match.tokens) == 1 and table.hint == "ROLL draw a token"
    table = push(table, ctx, "roll", "roll")
    tokens = table.match.tokens
    assert len(set(tokens)) == 3 and table.match.phase == "scoring"
    assert table.hint == "ROLL count the cards"          # the card stays up till ROLL
    assert isinstance(push(table, ctx, "roll"), ScoreEntry)


def at_scoring(seed=1, **options):
    ctx, table = ended(seed=seed, **options)
    table = push(table, ctx, "roll", "ok", "roll", "roll")
    return ctx, table, push(table, ctx, "roll")


def test_counting_cards_shows_the_score_and_the_next_player_follows():
    ctx, table, entry = at_scoring()
    assert entry.player == "Ann" and entry.values["blocks"] == 3   # she took dice
    push(entry, ctx, "down")                             # 3 -> 0 skips 2 and 1
    assert entry.values["blocks"] == 0
    push(entry, ctx, "up")
    assert entry.values["blocks"] == 3
    push(entry, ctx, "hold:up", "ok", "up", "up")        # 8 in blocks, 2 in hand
    part = entry.score()
    assert (part.cards, part.dice, part.hand) == (8, 3, 2)
    bob = push(entry, ctx, "roll")
    assert isinstance(bob, ScoreEntry) and bob.player == "Bob"
    assert table.match.state()["entered"]["Ann"] == {"blocks": 8, "hand": 2, "lucky": 0}


def test_counts_that_cannot_be_true_are_refused_and_the_entry_stays():
    ctx, table, entry = at_scoring()
    push(entry, ctx, "down")                             # Ann took dice: 0 blocks is wrong
    refused = push(entry, ctx, "roll")
    assert isinstance(refused, Message) and refused.title == "Not allowed"
    assert "played a block" in " ".join(refused.lines)
    assert push(refused, ctx, "ok") is entry and entry.values["blocks"] == 0


def test_with_the_lucky_card_bonus_the_lucky_cards_are_counted_when_they_count():
    for seed in range(1, 40):  # a seed whose middle token is a face
        ctx, table, entry = at_scoring(seed, lucky_card_bonus=True)
        if table.match.state()["lucky_number"] is not None:
            break
    assert entry.fields == ["blocks", "hand", "lucky"]
    push(entry, ctx, "up", "up", "ok", "ok", "up", "up")   # 5 blocks, 2 lucky
    assert entry.score().lucky == 2 * 1
    push(entry, ctx, "roll")
    assert table.match.state()["entered"]["Ann"]["lucky"] == 2


def test_the_round_result_shows_every_part_then_the_totals_then_the_next_round():
    ctx, table, entry = at_scoring()
    screen = push(entry, ctx, "hold:up", "roll")         # Ann: 8 blocks
    screen = push(screen, ctx, "roll")                   # Bob: 3 blocks
    # the deck ran out: Cy holds the other 41 cards
    screen = push(screen, ctx, "ok", *["hold:up"] * 8, "up", "roll")
    assert isinstance(screen, RoundResult)
    record = table.match.result()["rounds"][0]
    assert record["players"]["Cy"]["score"] == 0 and record["players"]["Cy"]["raw"] == -41
    pages = [push(screen, ctx)]
    for _ in range(3):
        screen = push(screen, ctx, "ok")
        pages.append(screen.page)
    assert pages[1:] == [1, 2, 3]
    totals = push(screen, ctx, "ok")
    assert isinstance(totals, Standings) and totals.title == "After round 1"
    table = push(totals, ctx, "ok")
    assert table.match.state()["round"] == 2 and table.match.state()["dealer"] == "Cy"
    assert table.hint == "ROLL roll the pool"


def test_undo_from_the_game_menu_puts_the_die_back_in_the_pool():
    ctx, table = game()
    table = take_all(push(table, ctx, "roll"), ctx, ["Ann", "Bob"])
    face = table.match.state()["last_take"]["face"]
    menu = push(table, ctx, "back")
    assert menu.items[1].label == f"Undo Bob took a {face}"
    back = push(menu, ctx, "down", "ok")
    assert back is table
    assert table.match.state()["dice"]["Bob"] == [] and table.match.state()["pool_left"] == 14


def test_undo_of_the_last_die_takes_back_the_end_of_the_round():
    ctx, table = game()
    table = push(table, ctx, "roll")
    over = take_all(table, ctx, ["Ann"] * 15)
    menu = push(over, ctx, "back")
    table = push(menu, ctx, "down", "ok")
    assert table.match.phase == "play" and table.match.state()["pool_left"] == 1
    assert isinstance(take_all(table, ctx, ["Bob"]), RoundOver)


def whole_game(table, ctx):
    """Three rounds, each ended a different way, through the screens only."""
    screen = push(table, ctx, "roll")
    screen = take_all(screen, ctx, ["Ann"] * 15)                # round 1: the last die
    assert isinstance(screen, RoundOver)
    # re-rolls (none), yes to the lottery, three tokens, on to the cards
    screen = push(screen, ctx, "ok", "roll", "ok", "roll", "roll", "roll")
    screen = push(screen, ctx, "hold:up", "roll",                # Ann 8 in blocks
                  "ok", "hold:up", "roll",                       # Bob 5 in hand
                  "ok", "hold:up", "roll")                       # Cy 5 in hand
    screen = push(screen, ctx, "ok", "ok", "ok", "ok", "ok")    # results, totals
    assert table.match.state()["round"] == 2
    screen = take_all(push(screen, ctx, "roll"), ctx, ["Bob"])  # round 2: Bob's hand
    screen = push(screen, ctx, "roll", "down", "ok", "ok")
    assert isinstance(screen, RoundOver)
    screen = push(screen, ctx, "ok", "roll", "ok", "roll", "roll", "roll")
    screen = push(screen, ctx, "hold:up", "ok", "hold:up", "roll",   # Ann 5 and 5
                  "roll",                                            # Bob 3 and 0
                  "ok", "hold:up", "roll")                           # Cy 5 in hand
    screen = push(screen, ctx, "ok", "ok", "ok", "ok", "ok")
    assert table.match.state()["round"] == 3
    screen = push(screen, ctx, "roll", "roll", "ok", "ok")      # round 3: the deck
    assert isinstance(screen, RoundOver)
    screen = push(screen, ctx, "ok", "roll", "roll", "roll", "roll")
    for ups in (3, 2, 2):                                        # 18 + 17 + 17 = 52
        screen = push(screen, ctx, "ok", *["hold:up"] * 3, *["up"] * ups, "roll")
    return screen


def test_a_whole_game_ends_on_the_winner_and_the_store_has_it(tmp_path):
    store = Store(tmp_path / "companion.db")
    try:
        ctx, table = game(store=store)
        screen = whole_game(table, ctx)
        assert isinstance(screen, RoundResult)
        result = table.match.result()
        assert result["over"] and len(result["rounds"]) == 3
        assert [r["end"] for r in result["rounds"]] == ["last_die", "empty_hand", "deck_out"]
        assert [r["dealer"] for r in result["rounds"]] == ["Cy", "Ann", "Bob"]
        screen = push(screen, ctx, "ok", "ok", "ok", "ok")
        assert isinstance(screen, GameOver)
        assert push(screen, ctx, "down").title == "Final standings"
        assert store.unfinished() is None
        assert store.match(table.session.match_id).result["winners"] == result["winners"]
    finally:
        store.close()


def test_resume_from_the_store_comes_back_where_the_table_was(tmp_path):
    store = Store(tmp_path / "companion.db")
    try:
        ctx, table = game(store=store)
        table = take_all(push(table, ctx, "roll"), ctx, ["Ann", "Ann", "Bob"])
        push(table, ctx, "roll", "ok", "ok")                   # Ann could not draw
        state = table.match.state()
        record = store.unfinished()
        assert record is not None and record.id == table.session.match_id
        resumed = Session.resume(store, record.id)
        assert resumed.match.state() == state
        screen = table_screen(resumed, None).route(ctx)
        assert isinstance(screen, RoundOver)                     # told again why it ended
        table = push(screen, ctx, "ok")
        assert table.match.phase == "finalise" and table.hint == "OK re-roll  ROLL draw"
    finally:
        store.close()


@pytest.mark.parametrize("players", [2, 6])
def test_every_screen_draws_for_two_and_six_players(players):
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"][:players]
    ctx, table = game(players=names, lucky_card_bonus=True)
    screen = push(table, ctx, "roll")
    screen = take_all(screen, ctx, names * (15 // players) + names[: 15 % players])
    assert isinstance(screen, RoundOver)
    screen = push(screen, ctx, "ok", "down", "down", "up")     # the re-roll list scrolls
    assert table.row == 1
    screen = push(screen, ctx, "roll", "ok", "roll", "roll", "roll")
    for _ in names:
        screen = push(screen, ctx, "ok", "hold:up", "ok", "ok", "roll")
    assert isinstance(screen, RoundResult)
    for _ in names:
        screen = push(screen, ctx, "ok")
    assert isinstance(push(screen, ctx, "ok"), Standings)


def test_a_refused_take_goes_back_to_the_menu_still_on_the_player_picked():
    """The last die of a face went meanwhile (the serial console): the take is refused
    and the table is back in the "Who takes" menu on the same player, not wiped."""
    ctx, table = game()
    table = push(table, ctx, "roll")
    face = table.face
    menu = push(table, ctx, "ok")
    menu.selected = 2                                        # Cy
    for _ in range(table.match.state()["pool"][face - 1]):   # every die of it goes
        table.session.apply({"type": "take", "player": "Ann", "face": face})
    refused = push(menu, ctx, "ok")
    assert isinstance(refused, Message) and refused.title == "Not allowed"
    back = push(refused, ctx, "ok")
    assert back is menu and menu.selected == 2 and menu.title == f"Who takes a {face}?"
