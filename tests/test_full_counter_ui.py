"""Full Counter on the device: what each press does at the table, and a whole match
pressed on the mock pins by ``companion sim --script``, exported and replayed."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

from companion_cli import play_export_replay

from companion.session import Session
from companion.ui.canvas import Canvas
from companion.ui.full_counter.results import GameResult, MatchOver
from companion.ui.full_counter.table import (
    DeckScreen,
    FullCounterSetup,
    FullCounterTable,
    play_event,
)
from companion.ui.full_counter.turns import BlindPicker, StarterQuestion
from companion.ui.play import Standings, ValuePicker
from companion.ui.screen import Confirm, Context, Menu, Message

#: A whole match of two games as pressed on the buttons (Ann, Bob, Cy; Cy deals first).
#: Each row is one thing said at the table; the comment says what the device makes of it.
MATCH_PRESSES: list[tuple[str, str]] = [
    ("OK", "Ann has a face-up Gold Bar: she starts"),
    ("ROLL DOWN DOWN DOWN OK OK ROLL", "Ann lays two 5s"),
    ("ROLL OK ROLL", "Bob lays a 5 (the picker starts on the value to beat)"),
    ("ROLL OK ROLL", "Cy lays the fourth 5: burn, Cy again"),
    ("ROLL DOWN DOWN DOWN DOWN DOWN OK ROLL", "Cy lays a 7: Ann is skipped"),
    ("ROLL DOWN OK DOWN OK DOWN OK ROLL", "Bob chains 8-9-10"),
    ("OK OK", "Cy picks up the pile"),
    ("ROLL UP UP UP OK ROLL", "Ann lays a Wildfire: burn, Ann again"),
    ("OK DOWN OK", "Ann had no cards left: out; Bob's turn"),
    ("ROLL DOWN OK ROLL", "Bob lays a 3: anticlockwise, Cy next (Ann is out)"),
    ("OK DOWN OK OK", "Cy flips a blind 2: below 3, he picks up"),
    ("OK DOWN DOWN OK OK", "Bob is out: Cy, last, loses game 1"),
    ("OK", "game 1's result seen; on to game 2, Cy deals"),
    ("DOWN DOWN DOWN OK DOWN OK", "no face-up Gold Bar; Bob has one in hand"),
    ("ROLL DOWN DOWN OK ROLL", "Bob lays a 4"),
    ("ROLL DOWN DOWN DOWN DOWN OK ROLL", "Cy lays an 8: descending"),
    ("ROLL DOWN OK ROLL", "Ann tries a 9: refused, the reason shown"),
    ("OK BACK UP UP OK ROLL", "Ann lays a 7 instead: Bob skipped"),
    ("OK OK", "Cy picks up"),
    ("OK DOWN DOWN OK OK", "Ann is out"),
    ("OK DOWN OK OK", "Bob is out: Cy loses game 2"),
    ("DOWN OK", "the players end the match"),
]


def presses_of(rows: list[tuple[str, str]]) -> list[str]:
    return [word.lower() for buttons, _ in rows for word in buttons.split()]


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


def push(screen, ctx, buttons: str):
    for button in buttons.split():
        screen = screen.press(ctx, press(button.lower()))
        screen.render()  # every screen on the way must draw
    return screen


def table(players=("Ann", "Bob", "Cy"), **options):
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0))
    session = Session.start("full-counter", list(players), options)
    table = FullCounterTable(session, None)
    return ctx, table, table.route(ctx)


def started(players=("Ann", "Bob", "Cy"), **options):
    """A table where the first player (a face-up Gold Bar) is to play."""
    ctx, table_screen, question = table(players, **options)
    return ctx, table_screen, push(question, ctx, "OK")


# -- setup ------------------------------------------------------------------------------


def test_setup_shows_mode_games_and_the_deck_profile_and_roll_starts():
    ctx = Context(rng=random.Random(1))
    setup = FullCounterSetup(None, ["Ann", "Bob"])
    assert [item.label for item in setup.items] == [
        "Players: Ann, Bob", "Mode: full, counted", "Games: until ended",
        "Deck: FU1, 52 cards", "Turn timer: off", "Start", "Help"]
    setup = push(setup, ctx, "DOWN OK DOWN OK OK")
    assert setup.items[1].label == "Mode: quick, no count" and setup.items[2].label == "Games: 3"
    question = push(setup, ctx, "ROLL")
    assert isinstance(question, StarterQuestion)
    match = question.table.match
    assert match.options["quick"] and match.options["games"] == 3
    assert match.players == ("Ann", "Bob")


def test_the_deck_profile_is_edited_and_a_clash_is_refused():
    ctx = Context(rng=random.Random(1))
    setup = FullCounterSetup(None, ["Ann", "Bob"])
    deck = push(setup, ctx, "DOWN DOWN DOWN OK")
    assert isinstance(deck, DeckScreen)
    deck = push(deck, ctx, "DOWN DOWN DOWN DOWN DOWN DOWN DOWN OK UP UP OK")  # Back Stabber
    assert setup.deck["back_stabber"] == 9
    before = dict(setup.deck)
    refused = push(deck, ctx, "UP OK DOWN OK")     # Black Market 3 -> 2: taken
    assert isinstance(refused, Message) and "cannot be both" in " ".join(refused.lines)
    # The refusal keeps the value as set, still being edited: the draft is not lost.
    again = push(refused, ctx, "OK")
    assert again is deck and deck.key == "black_market" and deck.editing == 3
    assert setup.deck["black_market"] == 2 and deck.hint == "UP/DOWN value OK keep"
    cancelled = push(deck, ctx, "BACK")             # BACK cancels the edit: 3 again
    assert cancelled is deck and deck.editing is None and setup.deck == before
    back = push(deck, ctx, "BACK")
    assert back is setup and setup.items[3].label == "Deck: own, 52 cards"
    question = push(setup, ctx, "ROLL")
    assert question.table.match.deck.role(9) == "back_stabber"


def test_a_deck_too_small_for_the_players_cannot_start():
    ctx = Context(rng=random.Random(1))
    setup = FullCounterSetup(None, ["A", "B", "C", "D", "E"])
    setup.deck["numbers"] = 9
    refused = push(setup, ctx, "ROLL")
    assert isinstance(refused, Message) and refused.title == "Cannot start"


# -- finding the starter ----------------------------------------------------------------------


def test_the_starter_questions_go_clockwise_from_the_dealer():
    ctx, _, question = table(("Ann", "Bob", "Cy", "Dee"))
    assert question.title == "Face-up Gold Bar?"
    assert [item.label for item in question.items] == ["Ann", "Bob", "Cy", "Dee", "Nobody"]
    assert question.items[3].note == "deals"
    in_hand = push(question, ctx, "UP OK")
    assert in_hand.title == "Gold Bar in hand?"
    back = push(in_hand, ctx, "BACK")
    assert back.title == "Face-up Gold Bar?"
    next_value = push(back, ctx, "UP OK UP OK")
    assert next_value.title == "Who has a face-up 3?"
    assert next_value.table.match.state()["asking"]["value"] == 3
    game = push(next_value, ctx, "DOWN DOWN OK")
    assert isinstance(game, FullCounterTable) and game.match.current == "Cy"


def test_back_on_the_first_question_opens_the_game_menu():
    ctx, _, question = table()
    menu = push(question, ctx, "BACK")
    assert isinstance(menu, Menu) and menu.items[0].label == "Back to the game"


# -- entering plays ---------------------------------------------------------------------------


def test_a_plain_play_is_three_presses_from_the_value_to_beat():
    ctx, game, screen = started()
    screen = push(screen, ctx, "ROLL DOWN DOWN OK ROLL")       # Ann: 4
    picker = push(screen, ctx, "ROLL")
    assert isinstance(picker, ValuePicker) and picker.title == "Bob"
    assert picker.prompt == "4 or higher"
    assert picker.values[picker.cursor] == "4"
    screen = push(picker, ctx, "OK ROLL")
    assert screen is game and game.match.current == "Cy"
    assert game.match.state()["top"]["run"] == 2


def test_an_illegal_value_is_refused_with_the_value_to_beat_and_the_picker_stays():
    ctx, game, screen = started()
    screen = push(screen, ctx, "ROLL DOWN DOWN DOWN DOWN OK ROLL")   # Ann: 6
    picker = push(screen, ctx, "ROLL UP OK")
    refused = push(picker, ctx, "ROLL")
    assert isinstance(refused, Message) and refused.title == "Not allowed"
    assert "5 cannot go on 6: ascending, so 6-11" in " ".join(refused.lines)
    assert push(refused, ctx, "OK") is picker and game.match.current == "Bob"


def test_a_chain_and_a_muddle_and_the_effect_shown_while_entering():
    ctx, game, screen = started()
    picker = push(screen, ctx, "ROLL DOWN DOWN DOWN DOWN DOWN OK")       # 7
    assert picker.summary(picker.entered) == "skip"
    picker = push(picker, ctx, "OK")
    assert picker.summary(picker.entered) == "skip x2"
    muddle = push(picker, ctx, "DOWN DOWN OK ROLL")                      # 7 7 9
    assert isinstance(muddle, Message) and "chain of consecutive" in " ".join(muddle.lines)
    picker = push(muddle, ctx, "OK BACK BACK BACK UP UP OK DOWN OK DOWN OK")   # 7 8 9
    assert picker.summary(picker.entered) == "chain"
    push(picker, ctx, "ROLL")
    assert game.match.events[-1] == {"type": "chain", "player": "Ann", "first": 7, "last": 9}
    assert game.match.current == "Bob"                  # the 7 inside the chain skips nobody


def test_play_event_reads_sets_and_chains():
    assert play_event("Ann", ["wildfire"]) == {"type": "play", "player": "Ann",
                                              "value": "wildfire"}
    assert play_event("Ann", [9, 9, 9]) == {"type": "play", "player": "Ann", "value": 9,
                                            "count": 3}
    assert play_event("Ann", [9, 8]) == {"type": "chain", "player": "Ann", "first": 9,
                                         "last": 8}


def test_pickups_blind_cards_and_going_out_are_under_ok():
    # A match that does not count the cards (one begun before they were counted): out
    # and blind cards are pressed under OK.
    ctx, game, screen = started(zones=False)
    screen = push(screen, ctx, "ROLL DOWN DOWN DOWN DOWN DOWN DOWN DOWN OK ROLL")   # Ann: 9
    others = push(screen, ctx, "OK")
    assert [item.label for item in others.items] == [
        "Picked up the pile", "Blind card flipped", "Ann is out", "Someone is out"]
    blind = push(others, ctx, "DOWN OK")
    assert isinstance(blind, BlindPicker)
    after = push(blind, ctx, "OK")                                 # a blind 2: picks up
    assert after is game and game.match.state()["last"]["text"] == "blind 2: picked up"
    assert game.match.current == "Cy"
    push(game, ctx, "OK DOWN OK")                                  # "Bob is out"
    assert game.match.state()["out"] == ["Bob"]


def test_quick_mode_roll_is_a_plain_play_and_ok_the_powers():
    ctx, game, screen = started(("Ann", "Bob", "Cy", "Dee"), quick=True)
    assert game.hint == "ROLL plain  OK power"
    push(screen, ctx, "ROLL")
    assert game.match.current == "Bob"
    powers = push(game, ctx, "OK")
    assert [item.label for item in powers.items][:6] == [
        "Black Market", "Back Stabber", "Magnetic Rays", "Nuclear Blast", "Wildfire",
        "Four: burned"]
    counts = push(powers, ctx, "DOWN OK")
    assert counts.title == "Back Stabber played"
    push(counts, ctx, "DOWN OK")                                   # two Back Stabbers
    assert game.match.current == "Ann"
    push(game, ctx, "OK DOWN DOWN DOWN DOWN DOWN OK")              # four of a kind
    assert game.match.current == "Ann" and game.match.state()["burns"] == 1


# -- the end of a game and of the match ----------------------------------------------------------


def test_the_loser_is_shown_deals_next_and_the_match_ends_from_the_result():
    ctx, game, screen = started(("Ann", "Bob"), zones=False)
    result = push(screen, ctx, "OK DOWN DOWN OK OK")               # Someone is out: Ann
    assert isinstance(result, GameResult) and result.record["loser"] == "Bob"
    assert result.hint == "OK next  DOWN end"
    losses = push(result, ctx, "UP")
    assert isinstance(losses, Standings) and losses.rows == [("Ann", 0), ("Bob", 1)]
    question = push(losses, ctx, "OK OK")
    assert isinstance(question, StarterQuestion)
    assert question.items[-2].label == "Bob" and question.items[-2].note == "deals"
    confirm = push(question, ctx, "BACK")                          # the game menu
    labels = [item.label for item in confirm.items]
    assert "End the match" in labels and "Losses" in labels and "Shuffle guide" in labels
    end = push(confirm, ctx, "DOWN " * labels.index("End the match") + "OK")
    assert isinstance(end, Confirm)
    over = push(end, ctx, "OK")
    assert isinstance(over, MatchOver) and game.match.result()["winners"] == ["Ann"]


def test_undo_from_the_game_menu_takes_back_the_last_play():
    ctx, game, screen = started()
    push(screen, ctx, "ROLL OK ROLL")
    menu = push(game, ctx, "BACK")
    assert menu.items[1].label == "Undo Ann play 2"
    back = push(menu, ctx, "DOWN OK")
    assert back is game and game.match.current == "Ann" and game.match.state()["pile"] == 0


def test_the_shuffle_guide_knows_the_deck_size():
    ctx, game, screen = started(deck={"numbers": 10})
    menu = push(screen, ctx, "BACK")
    labels = [item.label for item in menu.items]
    guide = push(menu, ctx, "DOWN " * labels.index("Shuffle guide") + "OK")
    assert guide.cards == 48


def test_the_whole_match_pressed_in_process():
    ctx, game, screen = table(zones=False)      # uncounted: players go out by a press
    for buttons, said in MATCH_PRESSES:
        screen = push(screen, ctx, buttons)
        if said.startswith("Ann tries a 9"):
            assert isinstance(screen, Message), said
    assert isinstance(screen, MatchOver)
    result = game.match.result()
    assert result["over"] and result["totals"] == {"Ann": 0, "Bob": 0, "Cy": 2}
    assert result["winners"] == ["Ann", "Bob"]


# -- through the mock pins ------------------------------------------------------------------------


def test_a_whole_match_through_the_pins_then_export_and_replay(tmp_path):
    lines = ["# Full Counter, Ann Bob Cy: two games, Cy loses both"]
    for buttons, said in MATCH_PRESSES:
        lines += [f"# {said}"] + buttons.split()
    played = play_export_replay(tmp_path, "full-counter", ["Ann", "Bob", "Cy"],
                                "\n".join(lines) + "\n", "--seed", "1", "--screens", "text",
                                "--option", "zones=false")
    assert played.sim.stdout.count("--- step ") == len(presses_of(MATCH_PRESSES))
    events = played.log
    assert events[0]["type"] == "start" and events[0]["game"] == "full-counter"
    assert [event["type"] for event in events].count("out") == 4
    assert events[-1] == {"type": "end"}
    result = played.result
    assert result["over"] is True
    assert result["totals"] == {"Ann": 0, "Bob": 0, "Cy": 2}
    assert result["winners"] == ["Ann", "Bob"]
    assert [game["loser"] for game in result["games"]] == ["Cy", "Cy"]


# -- a match that counts the cards (every new one entered by values) -----------------------------

#: 18 cards, 1-3 six times, no powers: two players hold all of it, the deck is empty.
SMALL_DECK = {"numbers": 3, "copies": 6, "wildfire": 0, "mirror": 0, "nuclear_blast": None,
              "gold_bar": 2, "black_market": None, "back_stabber": None, "magnetic_rays": None}
#: A whole counted game (Ann, Bob; Bob deals): face-up and face-down cards are entered
#: with the same presses as any card, and nobody presses "out".
COUNTED_PRESSES: list[tuple[str, str]] = [
    ("OK", "Ann has a face-up Gold Bar: she starts"),
    ("ROLL OK OK OK ROLL", "Ann lays her three 1s: face up next"),
    ("ROLL OK ROLL", "Bob lays a fourth 1: burn, Bob again"),
    ("ROLL DOWN OK OK ROLL", "Bob lays two 2s, his hand is empty"),
    ("ROLL OK OK ROLL", "Ann lays two face-up 2s: burn, Ann again"),
    ("ROLL OK ROLL", "Ann lays her last face-up card, a 1: face down next"),
    ("ROLL DOWN DOWN OK ROLL", "Bob lays a face-up 3"),
    ("ROLL DOWN DOWN OK", "ROLL turns over Ann's face-down card: a 3"),
    ("ROLL OK ROLL", "Bob lays a face-up 3"),
    ("ROLL DOWN DOWN OK", "Ann's face-down 3: the fourth 3 burns, Ann again"),
    ("ROLL OK", "Ann's last card, a face-down 1: she is out and Bob loses"),
]


def test_a_counted_game_needs_no_press_for_face_up_face_down_or_out():
    ctx, game, screen = table(("Ann", "Bob"), deck=dict(SMALL_DECK))
    assert game.match.options["zones"] is True            # a new match counts
    for buttons, _said in COUNTED_PRESSES[:5]:
        screen = push(screen, ctx, buttons)
    state = game.match.state()
    assert state["zones"]["Ann"] == {"hand": 0, "face_up": 1, "blind": 3}
    assert state["playing_from"]["Ann"] == "face_up" and state["deck"] == 0
    others = push(screen, ctx, "OK")
    assert [item.label for item in others.items] == ["Cards held"]   # no "out", no blind
    cards = push(others, ctx, "OK")
    assert drawn(cards)[:4] == ["Cards: hand up down", "deck 0, pile 0",
                                "Ann           0  1  3", "Bob           0  3  3"]
    screen = push(cards, ctx, "OK BACK")
    screen = push(game, ctx, "DOWN")                      # DOWN: the same screen
    screen = push(screen, ctx, "OK")
    for buttons, _said in COUNTED_PRESSES[5:7]:
        screen = push(screen, ctx, buttons)
    assert game.hint == "ROLL flip  OK other"
    assert isinstance(push(game, ctx, "ROLL"), BlindPicker)
    screen = push(game, ctx, "ROLL DOWN DOWN OK")
    for buttons, _said in COUNTED_PRESSES[8:]:
        screen = push(screen, ctx, buttons)
    assert isinstance(screen, GameResult) and screen.record["loser"] == "Bob"
    assert screen.record["out"] == ["Ann"]
    assert [event["type"] for event in game.match.events].count("out") == 0
    assert all("zone" not in event for event in game.match.events)


def test_the_table_screen_shows_the_pile_the_deck_and_what_the_player_holds():
    ctx, game, screen = started(("Ann", "Bob"))
    push(screen, ctx, "ROLL DOWN DOWN OK ROLL")           # Ann lays a 4
    assert {"pile 1 dk 33", "Ann", "4"} <= set(drawn(game))
    game.match.zones.held["Bob"].update(hand=0)
    game.match.zones.deck = 0
    assert {"pile 1", "face up 3"} <= set(drawn(game))    # past the hand: said


def drawn(screen) -> list[str]:
    """Every piece of text ``screen`` draws, in order."""
    canvas, texts = Canvas(), []
    draw_text = canvas.text
    canvas.text = lambda x, y, text, **how: (texts.append(text), draw_text(x, y, text, **how))
    screen.draw(canvas)
    return texts


def test_a_counted_game_through_the_pins_then_export_and_replay(tmp_path):
    lines = ["# Full Counter counted, Ann Bob, an 18-card deck"]
    for buttons, said in [*COUNTED_PRESSES, ("DOWN OK", "the players end the match")]:
        lines += [f"# {said}"] + buttons.split()
    played = play_export_replay(tmp_path, "full-counter", ["Ann", "Bob"],
                                "\n".join(lines) + "\n", "--seed", "1", "--option",
                                "deck=" + json.dumps(SMALL_DECK))
    assert played.log[0]["options"]["zones"] is True
    assert played.result["games"][0]["loser"] == "Bob" and played.result["over"]
    assert "out" not in [event["type"] for event in played.log]
