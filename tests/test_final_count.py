"""Final Count: the worked examples of the rule text and RULINGS FC1-FC12."""

from __future__ import annotations

import copy

import pytest

from companion.errors import BadSetup, IllegalEvent
from companion.games import engine, new_match
from companion.games.final_count import (
    EMPTY_PILE_ACTION,
    FACE_ACTIONS,
    RANKS,
    FinalCount,
    Total,
    best_total,
    card_value,
    draw_pile_after_deal,
    goal_from_rolls,
    score_hand,
)

# -- building events ------------------------------------------------------------------


def roll(player: str, value: int) -> dict:
    return {"type": "roll", "player": player, "value": value}


def call(player: str) -> dict:
    return {"type": "call", "player": player}


def board(*cards: str) -> dict:
    return {"type": "board", "cards": list(cards)}


def hand(player: str, *cards: str) -> dict:
    return {"type": "hand", "player": player, "cards": list(cards)}


def goal(first: int, second: int) -> dict:
    return {"type": "goal", "rolls": [first, second]}


def match_of(players: str = "Ann,Bob,Cy", events=(), **options) -> FinalCount:
    match = FinalCount(players.split(","), options)
    for event in events:
        match.apply(event)
    return match


def refused(match: FinalCount, event: object, message: str) -> None:
    """``event`` is refused with ``message`` in the reason, and nothing changes."""
    before = copy.deepcopy(match.state())
    count = len(match.events)
    with pytest.raises(IllegalEvent) as info:
        match.apply(event)  # type: ignore[arg-type]
    assert message in str(info.value)
    assert match.state() == before
    assert len(match.events) == count


def call_at_once(match: FinalCount) -> None:
    """The player whose turn it is calls; everyone else rolls a 5 (touches no pile)."""
    match.apply(call(match.expecting().player))
    while match.state()["phase"] == "play":
        match.apply(roll(match.expecting().player, 5))


# -- the pure rules ---------------------------------------------------------------------


def test_card_values() -> None:
    assert [card_value(rank) for rank in RANKS] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    with pytest.raises(ValueError):
        card_value("Z")


def test_aces_are_one_or_eleven_each_to_the_players_best() -> None:
    assert best_total(["A", "K"]) == Total(21, False, False)
    assert best_total(["A", "A"]) == (22, False, False)
    # 70 + one ace: 81 would bust, so the ace is 1
    assert best_total(["K"] * 4 + ["Q"] * 3 + ["A"]) == (71, False, False)
    # two aces: one 11 and one 1 is the best that fits
    assert best_total(["K"] * 4 + ["Q", "Q", "2", "A", "A"]) == (74, False, False)
    assert best_total(["K", "K", "K", "K", "Q", "Q", "5", "A", "A"]) == (67, False, False)


def test_bust_is_above_75_in_every_ace_choice() -> None:
    assert best_total(["K"] * 4 + ["Q"] * 3 + ["5"]) == (75, False, False)
    assert best_total(["K"] * 4 + ["Q"] * 3 + ["6"]) == (76, True, False)
    assert best_total(["K"] * 4 + ["Q"] * 3 + ["5", "A"]) == (76, True, False)


def test_hit_goal_is_exact_with_some_ace_choice() -> None:
    assert best_total(["10", "10", "2", "A"], goal=33) == (33, False, True)
    assert best_total(["10", "10", "2", "A"], goal=23) == (23, False, True)
    assert best_total(["10", "10", "2", "A"], goal=34) == (33, False, False)
    assert best_total(["K", "Q", "A", "A", "K", "9"], goal=61) == (61, False, True)


def test_goal_from_rolls_the_larger_is_the_tens() -> None:
    assert goal_from_rolls(4, 6) == 64
    assert goal_from_rolls(6, 4) == 64
    assert goal_from_rolls(3, 3) == 33


def standing(**totals: int) -> dict[str, Total]:
    return {name: best_total([], None)._replace(total=t) for name, t in totals.items()}


def test_two_tied_at_71_get_35_each() -> None:
    score = score_hand(standing(Ann=71, Bob=71, Cy=60), caller="Ann")
    assert score.winners == ["Ann", "Bob"]
    assert score.points == {"Ann": 35, "Bob": 35, "Cy": 0}
    assert (score.pot, score.bonus, score.split) == (71, 0, 35)


def test_three_tied_at_69_get_23_each() -> None:
    score = score_hand(standing(Ann=69, Bob=69, Cy=69, Dee=12), caller="Cy")
    assert score.points == {"Ann": 23, "Bob": 23, "Cy": 23, "Dee": 0}


def test_two_tied_at_71_when_the_caller_lost_get_40_each() -> None:
    score = score_hand(standing(Ann=71, Bob=71, Cy=70), caller="Cy")
    assert score.points == {"Ann": 40, "Bob": 40, "Cy": 0}
    assert (score.pot, score.bonus, score.split) == (81, 10, 40)


def test_everyone_busts_nobody_scores() -> None:
    busts = {"Ann": Total(80, True, False), "Bob": Total(77, True, False)}
    score = score_hand(busts, caller="Ann")
    assert score.winners == [] and score.points == {"Ann": 0, "Bob": 0}
    assert (score.pot, score.bonus, score.split) == (0, 0, 0)


def test_a_bust_cannot_win_even_with_the_highest_total() -> None:
    totals = {"Ann": Total(80, True, False), "Bob": Total(40, False, False)}
    assert score_hand(totals, caller="Bob").points == {"Ann": 0, "Bob": 40}


def test_hit_goal_beats_a_higher_total_and_scores_75() -> None:
    totals = {"Ann": Total(64, False, True), "Bob": Total(75, False, False)}
    assert score_hand(totals, caller="Ann").points == {"Ann": 75, "Bob": 0}
    assert score_hand(totals, caller="Bob").points == {"Ann": 85, "Bob": 0}
    both = {"Ann": Total(64, False, True), "Bob": Total(64, False, True)}
    assert score_hand(both, caller="Ann").points == {"Ann": 37, "Bob": 37}


def test_the_screen_lines_for_die_faces_fit_21_characters() -> None:
    assert sorted(FACE_ACTIONS) == [1, 2, 3, 4, 5, 6]
    for face, action in FACE_ACTIONS.items():
        assert len(f"{face}: {action}") <= 21
    assert len(f"4: {EMPTY_PILE_ACTION}") <= 21


# -- setting up ---------------------------------------------------------------------------


def test_registry_and_players() -> None:
    assert engine("final-count") is FinalCount
    assert new_match("final-count", ["Ann", "Bob"]).options == {"hit_goal": False}
    with pytest.raises(BadSetup):
        FinalCount(["Ann"])
    with pytest.raises(BadSetup):
        FinalCount(["A", "B", "C", "D", "E"])
    with pytest.raises(BadSetup):
        FinalCount(["Ann", "Bob"], {"hit_goal": "yes"})
    FinalCount(["A", "B", "C", "D"])


@pytest.mark.parametrize("players, pile", [(2, 44), (3, 41), (4, 38)])
def test_draw_pile_after_the_deal(players: int, pile: int) -> None:
    assert draw_pile_after_deal(players) == pile
    match = FinalCount(["Ann", "Bob", "Cy", "Dee"][:players])
    assert match.state()["draw_pile"] == pile


# -- turns -------------------------------------------------------------------------------


def test_last_entered_deals_first_and_first_entered_plays_first() -> None:
    match = match_of()
    state = match.state()
    assert (state["hand"], state["dealer"], state["current"], state["phase"]) == (
        1,
        "Cy",
        "Ann",
        "play",
    )
    assert match.expecting().types == ("roll", "call")
    assert match.expecting().player == "Ann"
    assert match.expecting().choices == {"value": (1, 2, 3, 4, 5, 6), "caller": ("Ann",)}
    assert match.expecting().prompt == "Ann: roll or call"


def test_turns_go_left_and_the_roller_may_still_call() -> None:
    match = match_of(events=[roll("Ann", 4)])
    expect = match.expecting()
    assert expect.player == "Bob"
    assert expect.choices["caller"] == ("Ann", "Bob")
    assert match.state()["may_call"] == ["Ann", "Bob"]
    match.apply(roll("Bob", 4))
    assert match.expecting().choices["caller"] == ("Bob", "Cy")
    match.apply(roll("Cy", 4))
    assert match.state()["current"] == "Ann"


def test_call_right_after_own_roll_starts_the_final_round_left_of_the_caller() -> None:
    match = match_of(events=[roll("Ann", 4), call("Ann")])
    state = match.state()
    assert state["caller"] == "Ann"
    assert state["final_round"] == ["Bob", "Cy"]
    assert state["current"] == "Bob"
    assert match.expecting().types == ("roll",)
    assert match.expecting().prompt == "Bob: last roll"


def test_final_round_countdown_every_other_player_once_in_seat_order() -> None:
    match = match_of("Ann,Bob,Cy,Dee", [roll("Ann", 5), call("Bob")])
    assert match.state()["final_round"] == ["Cy", "Dee", "Ann"]
    seen = []
    while match.state()["phase"] == "play":
        player = match.state()["current"]
        seen.append((player, list(match.state()["final_round"])))
        match.apply(roll(player, 6))
    assert seen == [("Cy", ["Cy", "Dee", "Ann"]), ("Dee", ["Dee", "Ann"]), ("Ann", ["Ann"])]
    state = match.state()
    assert (state["phase"], state["current"], state["final_round"]) == ("board", None, [])
    assert match.expecting().types == ("board",)
    assert match.expecting().prompt == "Enter the Board cards"


def test_two_players_call_at_the_start_of_the_first_turn() -> None:
    match = match_of("Ann,Bob", [call("Ann")])
    assert match.state()["final_round"] == ["Bob"]
    match.apply(roll("Bob", 1))
    assert match.state()["phase"] == "board"


def test_turn_order_across_hands_as_the_dealer_moves() -> None:
    match = match_of()
    firsts = []
    for _ in range(4):
        state = match.state()
        firsts.append((state["hand"], state["dealer"], state["current"]))
        call_at_once(match)
        match.apply(board("2", "3"))
        for player in ("Ann", "Bob", "Cy"):
            match.apply(hand(player, "4", "5", "6"))
    assert firsts == [(1, "Cy", "Ann"), (2, "Ann", "Bob"), (3, "Bob", "Cy"), (4, "Cy", "Ann")]


# -- refusals -------------------------------------------------------------------------------


def test_wrong_player_wrong_value_and_strangers_are_refused() -> None:
    match = match_of(events=[roll("Ann", 2)])
    refused(match, roll("Cy", 3), "it is Bob's turn, not Cy's")
    refused(match, roll("Ann", 3), "it is Bob's turn, not Ann's")
    refused(match, roll("Bob", 7), "a die shows 1 to 6, not 7")
    refused(match, roll("Bob", 0), "a die shows 1 to 6, not 0")
    refused(match, roll("Bob", True), "a die shows 1 to 6")
    refused(match, roll("Bob", "3"), "a die shows 1 to 6")
    refused(match, roll("Zed", 3), '"Zed" is not playing')
    refused(match, call("Zed"), '"Zed" is not playing')
    refused(match, call("Cy"), "Cy cannot call now: it is Bob's turn (Ann may still call")


def test_malformed_events_are_refused() -> None:
    match = match_of()
    refused(match, {"type": "dance"}, 'no "dance" event')
    refused(match, {"player": "Ann"}, 'needs a "type"')
    refused(match, ["roll"], "an event is a JSON object")
    refused(match, {"type": "roll", "player": "Ann"}, 'a roll event needs "value"')
    refused(match, {"type": "roll", "player": "Ann", "value": 3, "vlaue": 3}, 'no field "vlaue"')
    refused(match, {"type": "call", "player": ["Ann"]}, "is not playing")


def test_only_the_first_call_counts() -> None:
    match = match_of(events=[call("Ann")])
    refused(match, call("Bob"), "Ann already called; only the first call counts")
    refused(match, call("Ann"), "Ann already called")
    match.apply(roll("Bob", 3))
    refused(match, call("Bob"), "Ann already called")


def test_the_roller_cannot_call_once_the_next_player_rolled() -> None:
    match = match_of(events=[roll("Ann", 2), roll("Bob", 2)])
    refused(match, call("Ann"), "Ann cannot call now: it is Cy's turn (Bob may still call")


def test_cards_only_after_the_final_round_board_first_then_hands_once() -> None:
    match = match_of()
    refused(match, board("2", "3"), "the Board is entered once, after the final round")
    refused(match, hand("Ann", "2", "3", "4"), "hands are entered after the Board")
    call_at_once(match)
    refused(match, roll("Ann", 3), "nobody is taking turns now (enter the Board's cards)")
    refused(match, call("Ann"), "nobody is taking turns now")
    refused(match, hand("Ann", "2", "3", "4"), "enter the Board first")
    match.apply(board("2", "3"))
    refused(match, board("2", "3"), "the Board is entered once")
    match.apply(hand("Bob", "4", "5", "6"))
    refused(match, hand("Bob", "4", "5", "6"), "Bob's cards are already entered")
    refused(match, hand("Zed", "4", "5", "6"), '"Zed" is not playing')
    refused(match, hand("Ann", "4", "5", "X"), '"X" is not a card rank')
    refused(match, hand("Ann", "4", "5", 6), "6 is not a card rank")
    refused(match, {"type": "hand", "player": "Ann", "cards": "456"}, "cards are a list")
    assert match.expecting().choices["player"] == ("Ann", "Cy")


# -- the Hit Goal ---------------------------------------------------------------------------


def test_hit_goal_is_rolled_once_per_hand_before_play() -> None:
    match = match_of(hit_goal=True)
    expect = match.expecting()
    assert (expect.types, expect.player, expect.prompt) == (
        ("goal",),
        None,
        "Roll for the Hit Goal",
    )
    assert match.state()["phase"] == "goal" and match.state()["current"] is None
    refused(match, roll("Ann", 3), "roll for the Hit Goal first")
    refused(match, call("Ann"), "roll for the Hit Goal first")
    refused(match, goal(4, 7), "a die shows 1 to 6, not 7")
    refused(match, {"type": "goal", "rolls": [4]}, "two rolls")
    match.apply(goal(4, 6))
    state = match.state()
    assert (state["goal"], state["goal_rolls"], state["current"]) == (64, [4, 6], "Ann")
    refused(match, goal(1, 1), "once per hand, before play")


@pytest.mark.parametrize("rolls, target", [((4, 6), 64), ((6, 4), 64), ((3, 3), 33)])
def test_goal_event_makes_the_goal(rolls, target) -> None:
    assert match_of(events=[goal(*rolls)], hit_goal=True).state()["goal"] == target


def test_goal_without_the_option_is_refused() -> None:
    refused(match_of(), goal(4, 6), "the Hit Goal is not in play")


def test_nobody_on_the_goal_plays_for_the_highest_total_then_a_new_goal() -> None:
    match = match_of("Ann,Bob", [goal(6, 4), call("Ann"), roll("Bob", 5)], hit_goal=True)
    match.apply(board("K", "9"))
    match.apply(hand("Ann", "K", "Q", "5"))  # 19 + 25 = 44
    match.apply(hand("Bob", "Q", "J", "A"))  # 19 + 21 = 40, or 50 with the ace as 11
    last = match.state()["hands"][-1]
    assert (last["hand"], last["dealer"], last["goal"], last["caller"]) == (1, "Bob", 64, "Ann")
    assert last["players"]["Ann"] == {
        "cards": ["K", "Q", "5"],
        "total": 44,
        "bust": False,
        "hit_goal": False,
        "points": 0,
    }
    assert last["players"]["Bob"]["total"] == 50
    assert last["winners"] == ["Bob"] and last["bonus"] == 10 and last["split"] == 60
    state = match.state()
    assert (state["phase"], state["goal"], state["goal_rolls"]) == ("goal", None, [])
    assert (state["hand"], state["dealer"], state["totals"]) == (2, "Ann", {"Ann": 0, "Bob": 60})


def test_hit_goal_beats_a_higher_total_at_the_table() -> None:
    events = [goal(5, 4), roll("Ann", 1), roll("Bob", 1), call("Ann"), roll("Bob", 4)]
    match = match_of("Ann,Bob", events, hit_goal=True)
    match.apply(board("K", "Q"))  # 20
    match.apply(hand("Ann", "K", "K", "A", "3"))  # 20 + 24 = 44, or 54 with the ace as 11
    match.apply(hand("Bob", "Q", "Q", "J", "5"))  # 20 + 35 = 55
    last = match.state()["hands"][-1]
    assert last["players"]["Ann"] == {
        "cards": ["K", "K", "A", "3"],
        "total": 54,
        "bust": False,
        "hit_goal": True,
        "points": 75,
    }
    assert last["players"]["Bob"]["total"] == 55
    assert last["winners"] == ["Ann"] and last["bonus"] == 0

    match = match_of("Ann,Bob", events, hit_goal=True)
    match.apply(board("K", "Q"))
    match.apply(hand("Bob", "K", "K", "A", "3"))  # hits 54
    match.apply(hand("Ann", "Q", "Q", "J", "5"))  # 55 is higher...
    last = match.state()["hands"][-1]
    assert last["winners"] == ["Bob"]  # ...but loses to the goal, and the caller lost
    assert last["players"]["Bob"]["points"] == 85 and last["pot"] == 85


# -- the draw pile --------------------------------------------------------------------------


def test_draw_pile_count_through_a_hand() -> None:
    match = match_of()
    counts = [match.state()["draw_pile"]]
    for player, value in [("Ann", 1), ("Bob", 2), ("Cy", 3), ("Ann", 4), ("Bob", 5), ("Cy", 6)]:
        match.apply(roll(player, value))
        counts.append(match.state()["draw_pile"])
        assert match.state()["last_roll"] == {
            "player": player,
            "value": value,
            "action": FACE_ACTIONS[value],
            "entered": False,
        }
    assert counts == [41, 40, 39, 38, 38, 38, 38]


def test_an_empty_draw_pile_makes_1_to_4_do_nothing() -> None:
    match = match_of("Ann,Bob")
    players = ["Ann", "Bob"]
    for turn in range(44):
        match.apply(roll(players[turn % 2], 1 + turn % 3))
    assert match.state()["draw_pile"] == 0
    for value in (1, 2, 3, 4, 5, 6):
        player = match.state()["current"]
        match.apply(roll(player, value))
        action = EMPTY_PILE_ACTION if value <= 4 else FACE_ACTIONS[value]
        assert match.state()["last_roll"] == {"player": player, "value": value, "action": action,
                                              "entered": False}
        assert match.state()["draw_pile"] == 0
        assert match.state()["rolls"][-1]["took_card"] is False
    assert len(match.state()["rolls"]) == 50  # the rolls still happen and are recorded
    # only the 3s that found a card let the Board grow: 14 of the first 44 rolls
    call_at_once(match)
    limits = match.state()["card_limits"]
    assert limits["board"] == [2, 2 + 14]


def test_the_draw_pile_is_full_again_next_hand() -> None:
    match = match_of("Ann,Bob", [roll("Ann", 1), call("Bob"), roll("Ann", 3)])
    assert match.state()["draw_pile"] == 42
    match.apply(board("2", "3"))
    match.apply(hand("Ann", "4", "5", "6"))
    match.apply(hand("Bob", "4", "5", "6"))
    state = match.state()
    assert (state["draw_pile"], state["rolls"], state["last_roll"]) == (44, [], None)
    assert (state["caller"], state["final_round"], state["entered"]) == (
        None,
        [],
        {"board": None, "hands": {}},
    )


# -- checking the entered cards (FC12) ----------------------------------------------------


def scored(players: str, events) -> FinalCount:
    """A match whose hand is over and waits for the Board."""
    match = match_of(players, events)
    assert match.state()["phase"] == "board"
    return match


def test_everyone_keeps_at_least_3_and_the_board_2() -> None:
    match = scored("Ann,Bob", [call("Ann"), roll("Bob", 6)])
    refused(match, board("K"), "the Board has 1 card; it keeps at least 2")
    match.apply(board("K", "Q"))
    refused(match, hand("Ann", "A", "K"), "Ann has 2 cards; everyone keeps at least 3")
    refused(match, hand("Ann"), "Ann has 0 cards; everyone keeps at least 3")


def test_at_most_3_plus_own_1s_plus_others_2s_and_board_2_plus_3s() -> None:
    events = [roll("Ann", 1), roll("Bob", 2), roll("Cy", 3), roll("Ann", 2), call("Bob")]
    events += [roll("Cy", 1), roll("Ann", 6)]
    match = scored("Ann,Bob,Cy", events)
    limits = {"Ann": [3, 5], "Bob": [3, 4], "Cy": [3, 6]}
    assert match.state()["card_limits"] == {"board": [2, 3], "hands": limits}
    refused(match, board("2", "3", "4", "5"), "the Board has 4 cards; at most 3 this hand")
    match.apply(board("2", "3", "4"))
    # Ann: own 1 + Bob's 2; Bob: Ann's 2; Cy: own 1 + Ann's 2 + Bob's 2
    assert match.state()["card_limits"] == {"board": None, "hands": limits}
    refused(
        match,
        hand("Ann", "A", "A", "A", "K", "K", "K"),
        "Ann has 6 cards; at most 5 this hand (3 dealt + 1 from own 1s + 1 from others' 2s)",
    )
    refused(match, hand("Bob", "5", "5", "5", "6", "6"), "Bob has 5 cards; at most 4")


def test_all_cards_together_cannot_exceed_dealt_plus_drawn() -> None:
    # Ann's and Cy's 2s could each have gone to Bob, or one to Ann / Cy:
    # each player alone may have 5, but only 2 cards were drawn in all.
    events = [roll("Ann", 2), roll("Bob", 2), call("Cy"), roll("Ann", 6), roll("Bob", 5)]
    match = scored("Ann,Bob,Cy", events)
    match.apply(board("2", "3"))
    assert match.state()["card_limits"]["hands"] == {"Ann": [3, 4], "Bob": [3, 4], "Cy": [3, 5]}
    match.apply(hand("Cy", "4", "4", "4", "5", "5"))  # both 2s went to Cy
    assert match.state()["card_limits"]["hands"] == {"Ann": [3, 3], "Bob": [3, 3]}
    refused(
        match,
        hand("Bob", "6", "6", "6", "7"),
        "Bob has 4 cards; only 13 cards are out this hand, which leaves 3 for Bob",
    )


def test_no_rank_more_than_four_times() -> None:
    match = scored("Ann,Bob", [call("Ann"), roll("Bob", 4)])
    refused(match, board("K", "K", "K"), "the Board has 3 cards; at most 2")
    match.apply(board("K", "K"))
    match.apply(hand("Ann", "K", "K", "2"))
    refused(
        match, hand("Bob", "K", "3", "4"), "5 cards of rank K entered this hand; a deck has only 4"
    )


def test_a_1_or_2_on_an_empty_pile_gives_no_extra_card() -> None:
    match = match_of("Ann,Bob")
    for turn in range(44):  # Ann rolls 3s, Bob rolls 3s: the Board could take them all
        match.apply(roll(["Ann", "Bob"][turn % 2], 3))
    match.apply(roll("Ann", 1))
    match.apply(roll("Bob", 2))
    match.apply(call("Ann"))
    match.apply(roll("Bob", 1))
    match.apply(board("2", "3"))
    assert match.state()["card_limits"]["hands"] == {"Ann": [3, 3], "Bob": [3, 3]}
    refused(match, hand("Ann", "4", "5", "6", "7"), "Ann has 4 cards; at most 3 this hand")


def test_refused_cards_change_nothing_and_a_good_entry_then_passes() -> None:
    match = scored("Ann,Bob", [call("Ann"), roll("Bob", 4)])
    match.apply(board("Q", "5"))
    refused(match, hand("Ann", "A", "K"), "everyone keeps at least 3")
    match.apply(hand("Ann", "A", "K", "9"))
    assert match.state()["entered"] == {"board": ["Q", "5"], "hands": {"Ann": ["A", "K", "9"]}}
    assert match.expecting().prompt == "Enter Bob's cards"
    assert match.expecting().choices["player"] == ("Bob",)


# -- scoring at the table -------------------------------------------------------------------


def play_hand(match: FinalCount, board_cards, hands: dict[str, list[str]], caller: str) -> dict:
    """Roll 5s until ``caller`` may call, let them call, finish, and enter the cards."""
    while match.expecting().player != caller:
        match.apply(roll(match.expecting().player, 5))
    match.apply(call(caller))
    while match.state()["phase"] == "play":
        match.apply(roll(match.expecting().player, 5))
    match.apply(board(*board_cards))
    for player, cards in hands.items():
        match.apply(hand(player, *cards))
    return match.state()["hands"][-1]


TIED_AT_71 = {
    "board": board("K", "K", "Q", "Q"),  # 40
    "hands": [
        hand("Ann", "K", "J", "10", "A"),  # 71 (the ace as 11 would bust)
        hand("Bob", "K", "J", "10", "A"),  # 71
        hand("Cy", "2", "3", "4"),  # 49
    ],
}
# Ann and Bob draw twice for themselves, Cy twice for the Board.
DRAWS = [roll("Ann", 1), roll("Bob", 1), roll("Cy", 3), roll("Ann", 1), roll("Bob", 1)]
DRAWS += [roll("Cy", 3)]


def test_tie_at_71_two_winners_35_each() -> None:
    events = [*DRAWS, roll("Ann", 5), roll("Bob", 5), roll("Cy", 5), call("Ann")]
    match = match_of("Ann,Bob,Cy", [*events, roll("Bob", 6), roll("Cy", 6)])
    match.apply(TIED_AT_71["board"])
    for event in TIED_AT_71["hands"]:
        match.apply(event)
    last = match.state()["hands"][-1]
    assert [last["players"][p]["total"] for p in ("Ann", "Bob", "Cy")] == [71, 71, 49]
    assert (last["winners"], last["pot"], last["bonus"], last["split"]) == (
        ["Ann", "Bob"],
        71,
        0,
        35,
    )
    assert match.state()["totals"] == {"Ann": 35, "Bob": 35, "Cy": 0}


def test_tie_at_71_when_the_caller_lost_40_each() -> None:
    events = [*DRAWS, roll("Ann", 5), roll("Bob", 5), call("Cy")]
    match = match_of("Ann,Bob,Cy", [*events, roll("Ann", 6), roll("Bob", 6)])
    match.apply(TIED_AT_71["board"])
    for event in reversed(TIED_AT_71["hands"]):  # any order; the last one settles
        match.apply(event)
    last = match.state()["hands"][-1]
    assert (last["winners"], last["pot"], last["bonus"], last["split"]) == (
        ["Ann", "Bob"],
        81,
        10,
        40,
    )
    assert match.state()["totals"] == {"Ann": 40, "Bob": 40, "Cy": 0}


def test_all_bust_nobody_scores_and_play_goes_on() -> None:
    events = [roll("Ann", 1), roll("Bob", 1), roll("Ann", 3), roll("Bob", 3), call("Ann")]
    match = scored("Ann,Bob", [*events, roll("Bob", 6)])
    match.apply(board("K", "K", "Q", "Q"))  # 40
    match.apply(hand("Ann", "K", "Q", "J", "9"))  # 79
    match.apply(hand("Bob", "K", "Q", "J", "8"))  # 78
    last = match.state()["hands"][-1]
    assert [last["players"][p]["bust"] for p in ("Ann", "Bob")] == [True, True]
    assert last["winners"] == [] and match.state()["totals"] == {"Ann": 0, "Bob": 0}
    assert match.state()["hand"] == 2 and not match.over


def test_a_tie_at_300_shares_the_win() -> None:
    # Ann and Bob tie at 50 every hand and Cy (who calls) loses: (50 + 10) // 2 = 30 each.
    match = match_of("Ann,Bob,Cy")
    hands = {"Ann": ["K", "K", "Q"], "Bob": ["Q", "Q", "J"], "Cy": ["2", "3", "4"]}
    for number in range(1, 11):
        assert not match.over
        last = play_hand(match, ["K", "K"], hands, caller="Cy")
        assert last["hand"] == number and last["split"] == 30
    assert match.state()["totals"] == {"Ann": 300, "Bob": 300, "Cy": 0}
    assert match.over
    result = match.result()
    assert result["winners"] == ["Ann", "Bob"] and result["over"] is True
    assert len(result["hands"]) == 10
    state = match.state()
    assert (state["phase"], state["current"], state["hand"]) == ("over", None, 10)
    assert match.expecting().types == ()
    assert match.expecting().prompt == "Game over: Ann & Bob won"
    refused(match, roll("Ann", 3), "the game is over")


def test_the_game_ends_after_the_hand_that_reaches_300_highest_wins() -> None:
    match = match_of("Ann,Bob,Cy")
    hands = {"Ann": ["K", "K", "Q"], "Bob": ["Q", "Q", "J"], "Cy": ["2", "3", "4"]}
    for _ in range(9):
        play_hand(match, ["K", "K"], hands, caller="Cy")
    assert match.state()["totals"] == {"Ann": 270, "Bob": 270, "Cy": 0}
    assert not match.over and match.result()["winners"] == []
    assert match.state()["leaders"] == ["Ann", "Bob"]
    # Ann alone wins the 10th hand with 50, and Cy called: 60
    last = play_hand(
        match,
        ["K", "K"],
        {"Ann": ["K", "K", "Q"], "Bob": ["Q", "Q", "2"], "Cy": ["2", "3", "4"]},
        caller="Cy",
    )
    assert last["winners"] == ["Ann"] and last["split"] == 60
    assert match.over and match.result()["winners"] == ["Ann"]
    assert match.result()["totals"] == {"Ann": 330, "Bob": 270, "Cy": 0}


# -- the whole match as a fold ---------------------------------------------------------------


def test_replay_and_undo_give_the_same_state() -> None:
    events = [roll("Ann", 1), roll("Bob", 2), call("Bob"), roll("Cy", 3), roll("Ann", 4)]
    events += [board("K", "Q", "2"), hand("Cy", "A", "9", "9"), hand("Ann", "5", "5", "5", "5")]
    match = match_of("Ann,Bob,Cy", events)
    again = FinalCount.replay(["Ann", "Bob", "Cy"], {}, events)
    assert again.state() == match.state()
    assert match.undone().state() == match_of("Ann,Bob,Cy", events[:-1]).state()


def test_result_is_a_copy() -> None:
    match = match_of("Ann,Bob", [call("Ann"), roll("Bob", 4), board("2", "3")])
    match.apply(hand("Ann", "4", "5", "6"))
    match.apply(hand("Bob", "7", "8", "9"))
    result = match.result()
    result["hands"][0]["players"]["Ann"]["cards"].append("K")
    result["totals"]["Ann"] = 999
    assert match.result()["hands"][0]["players"]["Ann"]["cards"] == ["4", "5", "6"]
    assert match.result()["totals"]["Ann"] == 0
