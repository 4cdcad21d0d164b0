"""Final Card-Down: the rules (RULINGS.md CD1-CD7) as examples, event by event."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.errors import BadSetup, IllegalEvent
from companion.games import new_match
from companion.games.card_down import (
    DECK_SIZE,
    EFFECTS,
    PLAIN_VALUES,
    VALUES,
    WORDS,
    Card,
    CardDown,
    DiscardPile,
    card_points,
    refusal,
)

PLAYERS = ("Ann", "Bob", "Cy")


def card(text: str) -> dict[str, str]:
    """ "7 red hearts" as an event's card; "A" alone is a quick card."""
    words = text.split()
    if len(words) == 1:
        return {"value": words[0]}
    value, colour, suit = words
    return {"value": value, "colour": colour, "suit": suit}


def play(player: str, text: str | None = None) -> dict:
    event = {"type": "play", "player": player}
    if text:
        event["card"] = card(text)
    return event


def draw(player: str) -> dict:
    return {"type": "draw", "player": player}


def started(players=PLAYERS, top: str | None = "7 red hearts", **options) -> CardDown:
    match = CardDown(list(players), options)
    match.apply({"type": "turn_up", "card": card(top)} if top else {"type": "turn_up"})
    return match


def refused(match: CardDown, event: dict, message: str) -> None:
    before, count = match.state(), len(match.events)
    with pytest.raises(IllegalEvent) as info:
        match.apply(event)
    assert message in str(info.value)
    assert match.state() == before
    assert len(match.events) == count


def counted(match: CardDown) -> int:
    state = match.state()
    return state["draw_pile"] + state["discard_pile"] + sum(state["in_hand"].values())


def go_down_to(match: CardDown, player: str, cards: int) -> None:
    """Everyone else draws while ``player`` plays 0s until they hold ``cards``; words are
    answered as said."""
    while match.in_hand[player] > cards:
        current = match.current
        if current == player:
            match.apply(play(player, "0"))
            if match.expecting().types[0] == "said":
                match.apply({"type": "said", "player": player, "word": match.words_due[0]})
        else:
            match.apply(draw(current))


def to_turn_of(match: CardDown, player: str) -> None:
    while match.current != player:
        match.apply(draw(match.current))


# -- CD1: the deck, the players ---------------------------------------------------------


def test_the_deck_has_800_cards_worth_0_to_15() -> None:
    assert DECK_SIZE == 800
    assert [card_points(value) for value in VALUES] == list(range(16))
    assert card_points("A") == 10 and card_points("F") == 15
    assert set(EFFECTS) | set(PLAIN_VALUES) == set(VALUES)


@pytest.mark.parametrize("count", [1, 11])
def test_two_to_ten_players(count: int) -> None:
    with pytest.raises(BadSetup, match="2 to 10 players"):
        new_match("card-down", [f"P{n}" for n in range(count)])
    assert len(new_match("card-down", [f"P{n}" for n in range(10)]).players) == 10


def test_a_negative_number_of_games_is_refused() -> None:
    with pytest.raises(BadSetup, match="games"):
        CardDown(["Ann", "Bob"], {"games": -1})


@pytest.mark.parametrize(("bad", "message"), [
    ({"value": "G", "colour": "red", "suit": "hearts"}, "not a card value"),
    ({"value": "7", "colour": "pink", "suit": "hearts"}, "not a colour"),
    ({"value": "7", "colour": "red", "suit": "cups"}, "not a suit"),
    ({"value": "7", "colour": "red"}, "value, colour and suit"),
    ({"colour": "red"}, "value, colour and suit"),
    ("7", "a card is an object"),
])
def test_cards_that_do_not_exist_are_refused(bad, message) -> None:
    match = started()
    refused(match, {"type": "play", "player": "Ann", "card": bad}, message)


# -- CD2: the deal and the first card ----------------------------------------------------


def test_seven_each_and_the_first_card_turned_up() -> None:
    match = CardDown(list(PLAYERS))
    state = match.state()
    assert state["phase"] == "deal" and state["dealer"] == "Cy"
    assert state["in_hand"] == {"Ann": 7, "Bob": 7, "Cy": 7}
    assert state["draw_pile"] == 800 - 21 and counted(match) == 800
    match.apply({"type": "turn_up", "card": card("7 red hearts")})
    state = match.state()
    assert state["draw_pile"] == 800 - 21 - 1 and state["discard_pile"] == 1
    assert state["top"] == {"value": "7", "colour": "red", "suit": "hearts"}
    assert state["current"] == "Ann" and state["next"] == "Bob"


@pytest.mark.parametrize("top", ["2 red hearts", "A red hearts", "B red hearts",
                                 "C red hearts", "D red hearts"])
def test_the_first_cards_effect_is_ignored(top: str) -> None:
    match = started(top=top)
    state = match.state()
    assert (state["current"], state["stacked"], state["declared"]) == ("Ann", 0, None)
    assert state["direction"] == "left" and state["follow_up"] is None
    match.apply(draw("Ann"))
    assert match.current == "Bob"


def test_the_first_card_must_still_be_matched() -> None:
    match = started(top="D red hearts")
    refused(match, play("Ann", "5 blue clubs"), "matches neither")
    match.apply(play("Ann", "5 blue hearts"))


def test_the_first_card_may_be_turned_up_without_saying_what_it_is() -> None:
    match = started(top=None)
    assert match.state()["top"] == {"value": None, "colour": None, "suit": None}
    match.apply(play("Ann", "5 blue clubs"))  # nothing known, nothing to refuse
    assert match.current == "Bob"


def test_turn_up_only_at_the_deal() -> None:
    refused(started(), {"type": "turn_up"}, "once, at the deal")


# -- CD3: a turn --------------------------------------------------------------------------


@pytest.mark.parametrize("played", ["7 blue clubs", "3 red clubs", "3 blue hearts",
                                    "0 blue clubs"])
def test_a_card_matches_by_value_colour_or_suit_or_is_a_0(played: str) -> None:
    match = started()
    match.apply(play("Ann", played))
    assert match.state()["top"] == card(played)
    assert match.in_hand["Ann"] == 6 and match.current == "Bob"


def test_a_card_that_matches_nothing_is_refused_with_the_reason() -> None:
    match = started()
    refused(match, play("Ann", "3 blue clubs"),
            "3 blue clubs matches neither the value, colour nor suit of 7 red hearts")


def test_drawing_takes_one_card_and_ends_the_turn() -> None:
    match = started()
    match.apply(draw("Ann"))
    state = match.state()
    assert state["in_hand"]["Ann"] == 8 and state["draw_pile"] == 800 - 22 - 1
    assert state["current"] == "Bob"


def test_only_the_player_whose_turn_it_is() -> None:
    match = started()
    refused(match, play("Bob", "7 blue clubs"), "it is Ann's turn, not Bob's")
    refused(match, draw("Zed"), '"Zed" is not playing')


def test_fields_are_checked() -> None:
    match = started()
    refused(match, {"type": "draw", "player": "Ann", "cards": 1}, 'no field "cards"')
    refused(match, {"type": "draw"}, 'needs "player"')
    refused(match, {"type": "shuffle"}, 'has no "shuffle" event')


# -- CD4: the effects ----------------------------------------------------------------------


def test_a_2_makes_the_next_player_draw_2_and_lose_their_turn() -> None:
    match = started()
    match.apply(play("Ann", "2 red clubs"))
    assert match.state()["stacked"] == 2
    assert match.expecting().types == ("play", "draw_stack")
    refused(match, draw("Bob"), "must play a 2 or draw the 2")
    refused(match, play("Bob", "9 red clubs"), "only a 2 may go on them")
    refused(match, play("Bob", "0 red clubs"), "only a 2 may go on them")
    match.apply({"type": "draw_stack", "player": "Bob"})
    state = match.state()
    assert state["in_hand"]["Bob"] == 9 and state["stacked"] == 0
    assert state["current"] == "Cy"
    match.apply(play("Cy", "2 blue spades"))  # a 2 on a 2 with nothing stacked: no drawing
    assert match.state()["stacked"] == 2


def test_stacked_2s_add_up_and_the_first_without_a_2_draws_them_all() -> None:
    match = started()
    match.apply(play("Ann", "2 red hearts"))
    match.apply(play("Bob", "2 blue clubs"))
    match.apply(play("Cy", "2 green spades"))
    assert match.state()["stacked"] == 6
    match.apply({"type": "draw_stack", "player": "Ann"})
    assert match.in_hand["Ann"] == 6 + 6 and match.current == "Bob"
    refused(match, {"type": "draw_stack", "player": "Bob"}, "no 2s are stacked")


def test_an_a_skips_the_next_player() -> None:
    match = started()
    match.apply(play("Ann", "A red clubs"))
    assert match.current == "Cy"
    match.apply(play("Cy", "A blue clubs"))
    assert match.current == "Bob"


def test_a_b_reverses_the_order() -> None:
    match = started(players=("Ann", "Bob", "Cy", "Dee"))
    match.apply(play("Ann", "B red clubs"))
    assert match.state()["direction"] == "right" and match.current == "Dee"
    match.apply(draw("Dee"))
    assert match.current == "Cy"
    match.apply(play("Cy", "B blue clubs"))
    assert match.state()["direction"] == "left" and match.current == "Dee"


def test_with_two_players_a_b_acts_as_an_a() -> None:
    match = started(players=("Ann", "Bob"))
    match.apply(play("Ann", "B red clubs"))
    assert match.current == "Ann" and match.state()["direction"] == "left"
    match.apply(play("Ann", "A red spades"))
    assert match.current == "Ann"


def test_a_c_lets_the_player_discard_one_more_matching_card() -> None:
    match = started()
    match.apply(play("Ann", "C red clubs"))
    assert match.current == "Ann" and match.expecting().types == ("play", "pass")
    refused(match, draw("Ann"), "may play one more card or pass")
    refused(match, play("Ann", "9 blue hearts"), "matches neither")  # must match the C
    match.apply(play("Ann", "9 blue clubs"))
    assert match.in_hand["Ann"] == 5 and match.current == "Bob"


def test_after_a_c_the_player_may_pass() -> None:
    match = started()
    match.apply(play("Ann", "C red clubs"))
    match.apply({"type": "pass", "player": "Ann"})
    assert match.current == "Bob" and match.in_hand["Ann"] == 6


def test_the_card_after_a_c_has_its_effect_and_a_c_after_a_c_gives_one_more() -> None:
    match = started()
    match.apply(play("Ann", "C red clubs"))
    match.apply(play("Ann", "C blue clubs"))
    assert match.current == "Ann"
    match.apply(play("Ann", "A blue spades"))
    assert match.current == "Cy" and match.in_hand["Ann"] == 4


def test_a_d_names_the_colour_the_next_card_must_have() -> None:
    match = started()
    match.apply(play("Ann", "D red clubs"))
    assert match.current == "Ann" and match.expecting().types == ("colour", "pass")
    refused(match, play("Ann", "D red spades"), "names a colour for the D first")
    refused(match, {"type": "colour", "player": "Ann", "colour": "pink"}, "not a colour")
    match.apply({"type": "colour", "player": "Ann", "colour": "blue"})
    assert match.state()["declared"] == "blue" and match.current == "Bob"
    refused(match, play("Bob", "D red clubs"), "is not blue: after the D only blue or a 0")
    match.apply(play("Bob", "0 green spades"))
    assert match.state()["declared"] is None
    match.apply(play("Cy", "4 green hearts"))  # the 0 is matched as usual


def test_the_named_colour_lasts_until_a_card_goes_on_it() -> None:
    match = started()
    match.apply(play("Ann", "D red clubs"))
    match.apply({"type": "colour", "player": "Ann", "colour": "yellow"})
    match.apply(draw("Bob"))
    assert match.state()["declared"] == "yellow"
    match.apply(play("Cy", "5 yellow diamonds"))
    assert match.state()["declared"] is None


def test_a_d_without_a_colour_named_is_matched_as_usual() -> None:
    match = started()
    match.apply(play("Ann", "D red clubs"))
    match.apply({"type": "pass", "player": "Ann"})
    assert match.state()["declared"] is None
    match.apply(play("Bob", "D blue spades"))


def test_pass_and_colour_only_after_a_c_or_d() -> None:
    match = started()
    refused(match, {"type": "pass", "player": "Ann"}, "only after a C or a D")
    match.apply(play("Ann", "C red clubs"))
    refused(match, {"type": "colour", "player": "Ann", "colour": "red"}, "only after a D")


# -- CD5: the draw pile runs out ---------------------------------------------------------


def test_an_empty_draw_pile_turns_the_discard_pile_over_keeping_the_top() -> None:
    match = CardDown.replay(["Ann", "Bob"], {}, [
        {"type": "turn_up", "card": card("7 red hearts")},
        play("Ann", "7 red clubs"), play("Bob", "7 blue clubs"), play("Ann", "7 blue hearts"),
    ])
    assert match.state()["discard_pile"] == 4
    while match.draw_pile > 1:
        match.apply(draw(match.current))
    assert counted(match) == 800
    match.apply(draw(match.current))  # the last card: the discard pile turns over
    state = match.state()
    assert state["turned_over"] == 3
    assert (state["draw_pile"], state["discard_pile"]) == (3, 1)
    assert state["top"] == card("7 blue hearts")
    assert counted(match) == 800
    match.apply(draw(match.current))
    assert match.state()["turned_over"] == 0  # only the event that turned it over says so
    assert match.state()["draw_pile"] == 2


def test_a_stack_draw_goes_on_through_the_turned_over_pile() -> None:
    events = [{"type": "turn_up", "card": card("7 red hearts")}, play("Ann", "7 red clubs"),
              play("Bob", "7 green clubs"), play("Ann", "7 blue clubs")]
    match = CardDown.replay(["Ann", "Bob"], {}, events)
    while match.draw_pile > 2:
        match.apply(draw(match.current))
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "2 blue hearts"))
    before = match.in_hand["Bob"]
    match.apply({"type": "draw_stack", "player": "Bob"})  # 2 from the old pile
    assert match.in_hand["Bob"] == before + 2
    state = match.state()
    assert state["turned_over"] == 4 and state["draw_pile"] == 4 and counted(match) == 800
    match.apply(play("Ann", "2 blue spades"))
    match.apply(play("Bob", "2 red spades"))
    match.apply({"type": "draw_stack", "player": "Ann"})  # 4 left, 4 to draw, 2 turn over
    state = match.state()
    assert state["turned_over"] == 2 and state["draw_pile"] == 2 and counted(match) == 800


# -- CD6: TRIO, DUO, UNO -------------------------------------------------------------------


@pytest.mark.parametrize("cards", [3, 2, 1])
def test_going_down_to_3_2_1_asks_for_the_word(cards: int) -> None:
    match = started()
    go_down_to(match, "Ann", cards + 1)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "0 red clubs"))
    word = WORDS[cards]
    assert match.expecting().types == ("said", "forgot")
    assert match.expecting().prompt == f"Did Ann say {word}?"
    refused(match, draw("Ann"), f"did Ann say {word}?")
    refused(match, {"type": "said", "player": "Ann", "word": "SOLO"}, f"the word is {word}")
    match.apply({"type": "said", "player": "Ann", "word": word})
    assert match.current == "Bob" and match.expecting().types == ("play", "draw")


def test_a_forgotten_word_costs_2_cards_when_the_next_player_calls_it() -> None:
    match = started()
    go_down_to(match, "Ann", 2)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "0 red clubs"))
    match.apply({"type": "forgot", "player": "Ann", "word": "UNO"})
    assert match.current == "Bob"
    assert "call_out" in match.expecting().types
    assert match.state()["call_outs"] == [{"offender": "Ann", "word": "UNO"}]
    call = {"type": "call_out", "player": "Bob", "offender": "Ann", "word": "UNO"}
    refused(match, {**call, "player": "Cy"}, "it is Bob's turn")
    refused(match, {**call, "word": "DUO"}, "may call out Ann for UNO, not Ann for DUO")
    match.apply(call)
    assert match.in_hand["Ann"] == 3 and match.current == "Bob"
    refused(match, call, "nobody can be called out now")  # once per count
    match.apply(draw("Bob"))


def test_the_call_out_must_come_at_the_start_of_the_next_turn() -> None:
    match = started()
    go_down_to(match, "Ann", 4)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "0 red clubs"))
    match.apply({"type": "forgot", "player": "Ann", "word": "TRIO"})
    match.apply(draw("Bob"))
    assert match.state()["call_outs"] == []
    refused(match, {"type": "call_out", "player": "Cy", "offender": "Ann", "word": "TRIO"},
            "nobody can be called out now")


def test_after_a_skip_the_player_who_plays_next_may_call_out() -> None:
    match = started()
    go_down_to(match, "Ann", 3)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "A red clubs"))
    match.apply({"type": "forgot", "player": "Ann", "word": "DUO"})
    assert match.current == "Cy"
    match.apply({"type": "call_out", "player": "Cy", "offender": "Ann", "word": "DUO"})
    assert match.in_hand["Ann"] == 4


def test_nobody_calls_out_a_player_who_plays_again() -> None:
    match = started(players=("Ann", "Bob"))
    go_down_to(match, "Ann", 2)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "A red clubs"))
    match.apply({"type": "forgot", "player": "Ann", "word": "UNO"})
    assert match.current == "Ann" and match.state()["call_outs"] == []


def test_two_words_in_one_turn_after_a_c() -> None:
    match = started()
    go_down_to(match, "Ann", 4)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "C red clubs"))
    match.apply({"type": "forgot", "player": "Ann", "word": "TRIO"})
    match.apply(play("Ann", "C red spades"))
    match.apply({"type": "said", "player": "Ann", "word": "DUO"})
    match.apply({"type": "pass", "player": "Ann"})
    assert match.state()["call_outs"] == [{"offender": "Ann", "word": "TRIO"}]


def test_the_word_is_due_again_each_time_the_count_is_reached() -> None:
    match = started()
    go_down_to(match, "Ann", 4)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "0 red clubs"))
    match.apply({"type": "forgot", "player": "Ann", "word": "TRIO"})
    match.apply({"type": "call_out", "player": "Bob", "offender": "Ann", "word": "TRIO"})
    assert match.in_hand["Ann"] == 5
    go_down_to(match, "Ann", 4)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", "0 blue clubs"))
    assert match.expecting().choices["word"] == ("TRIO",)


# -- CD7: the end of a game, scoring, the match ------------------------------------------


def finish_first_game(match: CardDown, last: str = "2 red clubs") -> None:
    go_down_to(match, "Ann", 1)
    to_turn_of(match, "Ann")
    match.apply(play("Ann", last))


def test_the_last_card_ends_the_game_at_once_without_its_effect() -> None:
    match = started()
    finish_first_game(match, last="2 red clubs")
    state = match.state()
    assert state["phase"] == "hands" and state["went_out"] == "Ann"
    assert state["stacked"] == 0 and state["current"] is None
    assert state["in_hand"]["Ann"] == 0 and counted(match) == 800
    assert match.expecting().types == ("hand",)
    assert match.expecting().choices["player"] == ("Bob", "Cy")
    refused(match, draw("Bob"), "nobody is taking turns now")


def test_hands_are_entered_as_values_or_sums_and_checked_against_the_count() -> None:
    match = started()
    finish_first_game(match)
    bob, cy = match.in_hand["Bob"], match.in_hand["Cy"]
    refused(match, {"type": "hand", "player": "Ann", "values": []}, "Ann went out: 0 points")
    refused(match, {"type": "hand", "player": "Bob", "values": ["F"] * (bob - 1)},
            f"Bob holds {bob} cards, not {bob - 1}")
    refused(match, {"type": "hand", "player": "Bob", "values": ["G"] * bob}, "not a card value")
    refused(match, {"type": "hand", "player": "Cy", "sum": 15 * cy + 1}, f"add up to 0-{15 * cy}")
    refused(match, {"type": "hand", "player": "Cy", "sum": True}, "add up to")
    refused(match, {"type": "hand", "player": "Cy"}, 'needs "values"')
    refused(match, {"type": "hand", "player": "Cy", "sum": 3, "values": []}, 'no field "sum"')
    match.apply({"type": "hand", "player": "Bob", "values": ["A", "F"] + ["0"] * (bob - 2)})
    refused(match, {"type": "hand", "player": "Bob", "sum": 1}, "already entered")
    match.apply({"type": "hand", "player": "Cy", "sum": 12})
    result = match.result()
    assert result["totals"] == {"Ann": 0, "Bob": 25, "Cy": 12}
    game = result["games"][0]
    assert game["went_out"] == "Ann" and game["dealer"] == "Cy"
    assert game["players"]["Bob"] == {"cards": bob, "values": ["A", "F"] + ["0"] * (bob - 2),
                                      "points": 25}
    assert game["players"]["Cy"]["values"] is None
    assert game["players"]["Ann"] == {"cards": 0, "values": [], "points": 0}
    assert result["over"] is False and result["winners"] == []


def test_the_next_game_is_dealt_by_the_next_seat_and_totals_add_up() -> None:
    match = started()
    finish_first_game(match)
    match.apply({"type": "hand", "player": "Bob", "sum": 30})
    match.apply({"type": "hand", "player": "Cy", "sum": 20})
    state = match.state()
    assert state["phase"] == "deal" and state["game_number"] == 2 and state["dealer"] == "Ann"
    assert state["in_hand"] == {"Ann": 7, "Bob": 7, "Cy": 7} and counted(match) == 800
    assert match.expecting().types == ("turn_up", "end_match")
    match.apply({"type": "turn_up"})
    assert match.current == "Bob"
    refused(match, {"type": "end_match"}, "the match ends between games")


def test_end_match_lowest_total_wins_and_ties_share() -> None:
    match = started()
    finish_first_game(match)
    match.apply({"type": "hand", "player": "Bob", "sum": 20})
    match.apply({"type": "hand", "player": "Cy", "sum": 20})
    match.apply({"type": "end_match"})
    result = match.result()
    assert result["over"] is True and result["winners"] == ["Ann"]
    refused(match, {"type": "turn_up"}, "the game is over")


def test_the_games_option_ends_the_match_after_that_many() -> None:
    match = started(games=1)
    finish_first_game(match)
    match.apply({"type": "hand", "player": "Bob", "sum": 0})
    match.apply({"type": "hand", "player": "Cy", "sum": 4})
    assert match.over and match.result()["winners"] == ["Ann", "Bob"]
    assert match.expecting().prompt == "Match over: Ann & Bob won"


def test_end_match_is_refused_before_any_game_is_over() -> None:
    refused(CardDown(list(PLAYERS)), {"type": "end_match"}, "after at least one")


# -- quick entry -------------------------------------------------------------------------


def test_quick_entry_keeps_counts_order_and_stacks() -> None:
    match = started(top=None)
    match.apply(play("Ann"))                     # a plain card
    match.apply(play("Bob", "2"))                # a 2
    refused(match, play("Cy"), "only a 2 may go on them")
    match.apply(play("Cy", "2"))
    match.apply({"type": "draw_stack", "player": "Ann"})
    assert match.in_hand == {"Ann": 6 + 4, "Bob": 6, "Cy": 6}
    match.apply(play("Bob", "A"))
    assert match.current == "Ann"
    match.apply(play("Ann", "B"))
    assert match.current == "Cy" and match.state()["direction"] == "right"
    match.apply(play("Cy", "D"))
    match.apply({"type": "colour", "player": "Cy", "colour": "green"})
    refused(match, play("Bob", "5 red clubs"), "is not green")
    match.apply(play("Bob"))                     # quick: its colour is not known, so fine
    assert counted(match) == 800


def test_an_exact_card_goes_on_a_card_that_was_entered_quickly() -> None:
    match = started()
    match.apply(play("Ann", "A"))                # only the value is known
    match.apply(play("Cy", "9 blue clubs"))      # cannot be refused: colour, suit unknown
    refused(match, play("Ann", "3 green spades"), "matches neither")


def test_refusal_refuses_only_a_sure_mismatch() -> None:
    top = Card("7", "red", "hearts")
    assert refusal(Card("3", "blue", "clubs"), top, None, 0)
    assert refusal(Card("3"), top, None, 0) is None
    assert refusal(Card(), top, None, 0) is None
    assert refusal(Card(), top, None, 2)                 # a plain card is not a 2
    assert refusal(Card("2"), top, None, 2) is None
    assert refusal(Card("3", "blue", "hearts"), top, "green", 0)
    assert refusal(Card("0", "blue", "hearts"), top, "green", 0) is None


def test_one_deck_has_two_of_each_card() -> None:
    match = started()
    match.apply(play("Ann", "7 red hearts"))
    refused(match, play("Bob", "7 red hearts"), "both 7 red hearts cards are already")


def test_one_deck_has_fifty_cards_of_each_value_however_they_are_entered() -> None:
    match = started()
    # As a long game would leave it: 49 quick 7s under the one turned up.
    match.discard = DiscardPile([Card("7")] * 49 + list(match.discard.cards))
    refused(match, play("Ann", "7"), "the deck has 50 cards of value 7: 50 are on the discard "
                                     "pile already")
    refused(match, play("Ann", "7 blue clubs"), "the deck has 50 cards of value 7")
    match.apply(play("Ann", "9 red clubs"))
    match.apply(draw("Bob"))
    match.discard = DiscardPile(match.discard.cards[-1:])      # turned over: out of sight
    match.apply(play("Cy", "7"))                               # a quick 7 matches the 9


def test_the_hands_at_the_end_hold_no_more_of_a_value_than_the_deck() -> None:
    match = started()
    finish_first_game(match)
    bob = match.in_hand["Bob"]
    on_pile = sum(card.value == "F" for card in match.discard.cards)
    match.discard = DiscardPile((Card("F"),) * (50 - bob - on_pile) + match.discard.cards)
    match.apply({"type": "hand", "player": "Bob", "values": ["F"] * bob})   # 50 exactly
    cy = match.in_hand["Cy"]
    refused(match, {"type": "hand", "player": "Cy", "values": ["F"] + ["0"] * (cy - 1)},
            f"the deck has 50 cards of value F: {50 - bob} are on the discard pile and {bob} "
            "are in Bob's hand already")
    match.apply({"type": "hand", "player": "Cy", "values": ["E"] + ["0"] * (cy - 1)})


def test_undo_is_the_log_without_its_last_event() -> None:
    match = started()
    match.apply(play("Ann", "2 red clubs"))
    before = match.state()
    match.apply({"type": "draw_stack", "player": "Bob"})
    assert match.undone().state() == before


# -- the documentation ---------------------------------------------------------------------


def docs_section() -> str:
    text = (Path(__file__).resolve().parent.parent / "docs" / "events.md").read_text("utf-8")
    return text.split("\n## card-down\n", 1)[1].split("\n## ", 1)[0]


def test_the_example_in_the_docs_replays_to_the_documented_result() -> None:
    section = docs_section()
    log = re.search(r"### Example game.*?```jsonl\n(.*?)```", section, re.S).group(1)
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]
    start, events = lines[0], lines[1:]
    match = CardDown.replay(start["players"], start["options"], events)
    documented = json.loads(re.search(r"`result\(\)` is JSON:\n\n```json\n(.*?)```", section,
                                      re.S).group(1))
    assert match.result() == documented
    kinds = {event["type"] for event in events}
    assert kinds >= set(CardDown.event_types()) - {"end_match", "pass"}


def test_every_state_key_is_documented() -> None:
    documented = set(re.findall(r"^\| `(\w+)`", docs_section(), re.M))
    match = started()
    assert set(match.state()) - set(match.result()) <= documented
    assert set(CardDown.event_types()) <= documented
