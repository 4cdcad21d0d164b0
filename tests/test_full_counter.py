"""Full Counter: the rule text's examples and RULINGS FU1-FU8, quick mode, the match
record, the documented example, replay, and undo and resume through the store."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import pytest

from companion.commands.replay import replay_main
from companion.errors import BadSetup, IllegalEvent
from companion.games import engine, new_match
from companion.games.full_counter import DEFAULT_DECK, Deck, FullCounter, top_run
from companion.session import Session
from companion.store import Store

DOCS = Path(__file__).resolve().parent.parent / "docs" / "events.md"

# -- building events ------------------------------------------------------------------


def starter(value: int, face_up=(), in_hand=None) -> dict:
    event = {"type": "starter", "value": value, "face_up": list(face_up)}
    if in_hand is not None:
        event["in_hand"] = list(in_hand)
    return event


def play(player: str, value, count: int | None = None) -> dict:
    event = {"type": "play", "player": player, "value": value}
    if count is not None:
        event["count"] = count
    return event


def chain(player: str, first: int, last: int) -> dict:
    return {"type": "chain", "player": player, "first": first, "last": last}


def quick(player: str, effect: str | None = None, count: int | None = None) -> dict:
    event: dict = {"type": "play", "player": player}
    if effect is not None:
        event["effect"] = effect
    if count is not None:
        event["count"] = count
    return event


def blind(player: str, value) -> dict:
    return {"type": "blind", "player": player, "value": value}


def pickup(player: str) -> dict:
    return {"type": "pickup", "player": player}


def out(player: str) -> dict:
    return {"type": "out", "player": player}


def match_of(players: str = "Ann,Bob,Cy", events=(), **options) -> FullCounter:
    """A match; Cy (last entered) deals; by default Ann (dealer's left) starts."""
    match = FullCounter(players.split(","), options)
    first = players.split(",")[0]
    for event in [starter(2, [first]), *events]:
        match.apply(event)
    return match


def refused(match: FullCounter, event: object, message: str) -> None:
    """``event`` is refused with ``message`` in the reason, and nothing changes."""
    before = copy.deepcopy(match.state())
    count = len(match.events)
    with pytest.raises(IllegalEvent) as info:
        match.apply(event)  # type: ignore[arg-type]
    assert message in str(info.value)
    assert match.state() == before
    assert len(match.events) == count


# -- FU1: players and the deck profile ------------------------------------------------


def test_fu1_two_to_five_players():
    assert engine("full-counter") is FullCounter
    for players in ("Ann,Bob", "A,B,C,D,E"):
        FullCounter(players.split(","))
    for players in ("Ann", "A,B,C,D,E,F"):
        with pytest.raises(BadSetup, match="2 to 5 players"):
            FullCounter(players.split(","))


def test_fu1_the_default_deck():
    deck = Deck.from_option({})
    assert deck.size == 52
    assert deck.cards() == [*range(1, 12), "wildfire", "mirror"]
    assert [deck.name(card) for card in (1, 2, 3, 5, 7, 8, "wildfire", "mirror")] == [
        "1 Nuclear Blast", "2 Gold Bar", "3 Black Market", "5", "7 Back Stabber",
        "8 Magnetic Rays", "Wildfire", "Dirty Mirror"]
    assert [card for card in deck.cards() if deck.is_power(card)] == [1, "wildfire", "mirror"]
    assert FullCounter(["A", "B"]).options["deck"] == DEFAULT_DECK


def test_fu1_the_profile_is_an_option_and_missing_entries_keep_fu1():
    match = FullCounter(["Ann", "Bob"], {"deck": {"back_stabber": 9, "wildfire": 2}})
    deck = match.state()["options"]["deck"]
    assert deck["back_stabber"] == 9 and deck["wildfire"] == 2 and deck["numbers"] == 11
    assert match.deck.size == 50
    match.apply(starter(2, ["Ann"]))
    match.apply(play("Ann", 7))                        # 7 is a plain number now
    assert match.current == "Bob"
    match.apply(play("Bob", 9))                        # and 9 the skip
    assert match.current == "Bob"                      # two players: round to him again


@pytest.mark.parametrize(("deck", "message"), [
    ({"jokers": 2}, "no jokers"),
    ({"copies": 0}, "copies is a whole number 1-8"),
    ({"numbers": 7}, "magnetic_rays is a card 1-7"),
    ({"gold_bar": 3}, "cannot be both"),
    ({"nuclear_blast": "1"}, "nuclear_blast is a card"),
    ({"mirror": True}, "mirror is a whole number"),
])
def test_fu1_a_profile_that_does_not_add_up_is_refused(deck, message):
    with pytest.raises(BadSetup, match=message):
        FullCounter(["Ann", "Bob"], {"deck": deck})


def test_fu1_the_deck_must_deal_nine_each():
    FullCounter(list("ABCDE"))                          # 45 of 52
    with pytest.raises(BadSetup, match="cannot deal 9 cards to each of 5"):
        FullCounter(list("ABCDE"), {"deck": {"numbers": 9}})


def test_a_role_may_be_left_out_of_the_deck():
    match = match_of("Ann,Bob", deck={"black_market": None, "wildfire": 0})
    assert match.deck.name(3) == "3"
    refused(match, play("Ann", "wildfire"), "a card is 1-11 or \"mirror\"")


# -- FU2: the deal and the starting player ----------------------------------------------


def test_fu2_first_face_up_gold_bar_clockwise_from_the_dealer():
    match = FullCounter(["Ann", "Bob", "Cy", "Dee"])      # Dee deals; Ann is on her left
    assert match.dealer == "Dee"
    assert match.expecting().types == ("starter",)
    assert match.expecting().prompt == "Who has a 2 (Gold Bar)?"
    match.apply(starter(2, ["Dee", "Cy", "Bob"]))
    assert match.current == "Bob" and match.starter == "Bob"


def test_fu2_the_dealer_counts_last():
    match = FullCounter(["Ann", "Bob", "Cy"])
    match.apply(starter(2, ["Cy"], ["Ann"]))              # face up beats in hand
    assert match.current == "Cy"


def test_fu2_then_in_hand_then_the_next_value():
    match = FullCounter(["Ann", "Bob", "Cy"])
    refused(match, starter(2, []), "nobody has a face-up 2 (Gold Bar): say who has one in hand")
    match.apply(starter(2, [], ["Cy", "Bob"]))
    assert match.current == "Bob"

    match = FullCounter(["Ann", "Bob", "Cy"])
    match.apply(starter(2, [], []))
    assert match.state()["asking"] == {"value": 3, "name": "3 (Black Market)"}
    refused(match, starter(2, ["Ann"]), "who holds a 3 (Black Market), not 2")
    match.apply(starter(3, [], []))
    match.apply(starter(4, [], ["Cy"]))
    assert match.current == "Cy" and match.phase == "play"


def test_fu2_the_nuclear_blast_is_not_asked_and_nobody_at_all_means_dealers_left():
    match = FullCounter(["Ann", "Bob", "Cy"])
    assert match.deck.starter_values() == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    for value in match.deck.starter_values():
        match.apply(starter(value, [], []))
    assert match.current == "Ann" and match.phase == "play"


def test_fu2_the_starter_may_lead_any_value():
    match = match_of()
    assert match.state()["free"] and match.state()["to_beat"] is None
    assert match.expecting().prompt == "Ann: any card"
    match.apply(play("Ann", 11))
    assert match.state()["to_beat"] == 11


def test_no_play_before_the_starter_is_found():
    match = FullCounter(["Ann", "Bob"])
    refused(match, play("Ann", 5), "nobody is taking turns now (find who starts")
    refused(match, starter(2, ["Zed"]), '"Zed" is not playing')
    refused(match, {"type": "starter", "value": 2, "face_up": "Ann"},
            "face_up is a list of players")


# -- FU3: sets, chains, picking up -----------------------------------------------------


def test_fu3_a_set_of_one_value_and_the_next_need_not_match_the_count():
    match = match_of(events=[play("Ann", 5, 3)])
    state = match.state()
    assert state["to_beat"] == 5 and state["top"] == {"card": 5, "value": 5, "run": 3}
    assert state["pile"] == 3 and state["last"] == {"player": "Ann", "text": "3x 5"}
    match.apply(play("Bob", 6))
    assert match.current == "Cy"


def test_fu3_a_set_is_at_most_the_copies_in_the_deck():
    match = match_of()
    refused(match, play("Ann", 5, 5), "a set of 5 is 1 to 4 cards, not 5")
    refused(match, play("Ann", 5, 0), "not 0")


def test_fu3_a_chain_needs_a_legal_first_card_and_its_last_card_acts():
    match = match_of(events=[play("Ann", 6)])
    refused(match, chain("Bob", 5, 7), "5 cannot go on 6: ascending, so 6-11")
    match.apply(chain("Bob", 6, 8))                   # ends on Magnetic Rays
    state = match.state()
    assert state["order"] == "descending" and state["to_beat"] == 8 and state["pile"] == 4
    assert match.current == "Cy"
    match.apply(chain("Cy", 7, 5))                    # down is a chain too; its 7 does not skip
    assert match.current == "Ann" and match.state()["to_beat"] == 5


def test_fu3_a_chain_through_a_back_stabber_does_not_skip_but_ending_on_one_does():
    match = match_of(events=[chain("Ann", 6, 8), chain("Bob", 8, 7)])
    assert match.state()["order"] == "descending"     # Bob's 8 was not his last card
    assert match.current == "Ann"                      # his last card, 7, skipped Cy


def test_fu3_a_chain_is_two_or_more_numbers():
    match = match_of()
    refused(match, chain("Ann", 5, 5), "a chain has at least two values")
    refused(match, chain("Ann", 10, 12), "numbered cards 1-11, not 12")
    refused(match, chain("Ann", "wildfire", 2), 'not "wildfire"')


def test_fu3_picking_up_takes_the_pile_and_ends_the_turn():
    match = match_of(events=[play("Ann", 9, 2), pickup("Bob")])
    state = match.state()
    assert state["pile"] == 0 and state["free"] and match.current == "Cy"
    assert state["last"] == {"player": "Bob", "text": "picked up"}
    refused(match, pickup("Cy"), "the pile is empty: Cy may play any card")
    assert "pickup" not in match.expecting().types


def test_fu3_only_the_player_whose_turn_it_is():
    match = match_of()
    refused(match, play("Bob", 5), "it is Ann's turn, not Bob's")
    refused(match, pickup("Zed"), '"Zed" is not playing')


# -- FU4: what may be played -------------------------------------------------------------


def test_fu4_ascending_is_the_value_or_higher():
    match = match_of(events=[play("Ann", 6)])
    refused(match, play("Bob", 5), "5 cannot go on 6: ascending, so 6-11 or a power card")
    match.apply(play("Bob", 6))                        # equal is fine
    assert match.expecting().choices["value"] == (1, 6, 7, 8, 9, 10, 11, "wildfire", "mirror")


def test_fu4_descending_is_the_value_or_lower():
    match = match_of(events=[play("Ann", 8), play("Bob", 6)])
    assert match.state()["order"] == "descending"
    refused(match, play("Cy", 7), "7 Back Stabber cannot go on 6: descending, so 1-6")
    match.apply(play("Cy", 6))
    assert match.expecting().prompt == "Ann: 6 or lower"


@pytest.mark.parametrize("power", [1, "wildfire", "mirror"])
def test_fu4_power_cards_go_on_anything(power):
    match = match_of(events=[play("Ann", 11)])
    match.apply(play("Bob", power))


# -- FU5: the powers and burning ---------------------------------------------------------


def test_fu5_nuclear_blast_frees_the_next_player_and_ends_the_turn_without_a_burn():
    match = match_of(events=[play("Ann", 10), play("Bob", 1)])
    state = match.state()
    assert match.current == "Cy" and state["free"] and state["pile"] == 2
    assert state["burns"] == 0
    match.apply(play("Cy", 2))                         # any value, even below 10


def test_fu5_wildfire_burns_and_the_same_player_plays_again_any_value():
    match = match_of(events=[play("Ann", 10), play("Bob", "wildfire")])
    state = match.state()
    assert match.current == "Bob" and state["pile"] == 0 and state["free"]
    assert state["burns"] == 1 and state["last"]["text"] == "Wildfire BURN"
    match.apply(play("Bob", 2))
    assert match.current == "Cy"


def test_fu5_dirty_mirror_takes_the_value_not_the_ability():
    match = match_of(events=[play("Ann", 7), play("Cy", "mirror")])   # Ann's 7 skipped Bob
    state = match.state()
    assert state["top"] == {"card": "mirror", "value": 7, "run": 2}
    assert match.current == "Ann"                      # the mirror skipped nobody
    refused(match, play("Ann", 6), "6 cannot go on 7")
    match = match_of(events=[play("Ann", 3), play("Cy", "mirror")])    # Ann reversed: Cy
    assert match.state()["direction"] == "anticlockwise" and match.current == "Bob"


def test_fu5_a_mirror_on_an_empty_pile_lets_the_next_player_play_anything():
    match = match_of(events=[play("Ann", "mirror")])
    assert match.state()["free"] and match.current == "Bob"
    match.apply(play("Bob", "mirror"))                 # a mirror on it has nothing either
    assert match.state()["free"]
    match.apply(play("Cy", 4))
    assert match.state()["top"]["run"] == 1


def test_fu5_a_mirror_on_a_nuclear_blast_counts_one_without_freeing_anyone():
    match = match_of(events=[play("Ann", 8), play("Bob", 1), play("Cy", "mirror")])
    assert not match.state()["free"] and match.state()["to_beat"] == 1
    refused(match, play("Ann", 2), "2 Gold Bar cannot go on 1: descending, so 1 or a power")


def test_fu5_four_in_a_row_from_several_players_burns_and_the_completer_goes_again():
    match = match_of(events=[play("Ann", 5, 2), play("Bob", 5)])
    assert match.state()["top"]["run"] == 3
    match.apply(play("Cy", 5))
    state = match.state()
    assert match.current == "Cy" and state["pile"] == 0 and state["burns"] == 1
    assert state["last"] == {"player": "Cy", "text": "5 BURN"}


def test_fu5_mirrors_count_towards_four_and_more_than_four_burns_too():
    match = match_of(events=[play("Ann", 9, 3), play("Bob", "mirror", 2)])
    assert match.current == "Bob" and match.state()["burns"] == 1


def test_fu5_four_only_counts_in_a_row():
    match = match_of(events=[play("Ann", 5, 2), play("Bob", 6), play("Cy", "mirror"),
                             play("Ann", 6)])
    assert match.state()["top"]["run"] == 3
    match = match_of(events=[play("Ann", 5, 3), chain("Bob", 5, 6)])
    assert match.state()["burns"] == 0 and match.state()["top"]["run"] == 1


def test_fu5_a_burn_keeps_direction_and_order_but_has_no_one_to_skip():
    match = match_of(events=[play("Ann", 8), play("Bob", 7, 3), play("Cy", 7)])
    state = match.state()
    assert match.current == "Cy" and state["burns"] == 1 and state["order"] == "descending"


def test_top_run_counts_values_not_cards():
    from companion.games.full_counter import PileCard

    pile = [PileCard("A", 5, 5), PileCard("B", "mirror", 5), PileCard("C", 6, 6)]
    assert top_run(pile) == 1 and top_run(pile[:2]) == 2 and top_run([]) == 0
    assert top_run([PileCard("A", "mirror", None)]) == 0


# -- FU6: abilities ----------------------------------------------------------------------


def test_fu6_black_market_reverses_and_two_cancel_and_three_reverse():
    match = match_of("Ann,Bob,Cy,Dee", events=[play("Ann", 3)])
    assert match.state()["direction"] == "anticlockwise" and match.current == "Dee"
    match.apply(play("Dee", 3, 2))
    assert match.state()["direction"] == "anticlockwise" and match.current == "Cy"
    match.apply(pickup("Cy"))
    assert match.current == "Bob"
    match.apply(play("Bob", 3, 3))
    assert match.state()["direction"] == "clockwise" and match.current == "Cy"


def test_fu6_back_stabber_skips_once_per_card():
    match = match_of("Ann,Bob,Cy,Dee", events=[play("Ann", 7)])
    assert match.current == "Cy"
    match.apply(play("Cy", 7, 2))
    assert match.current == "Bob"                      # Dee and Ann skipped
    match.apply(play("Bob", 7))                        # the fourth 7 burns: Bob again
    assert match.current == "Bob"


def test_fu6_back_stabber_with_two_players_is_another_turn():
    match = match_of("Ann,Bob", events=[play("Ann", 7)])
    assert match.current == "Ann"


def test_fu6_skips_go_the_way_of_play_after_a_reverse():
    match = match_of("Ann,Bob,Cy,Dee", events=[play("Ann", 3), play("Dee", 7)])
    assert match.current == "Bob"                      # anticlockwise from Dee, past Cy


def test_fu6_magnetic_rays_flip_until_the_next_one():
    match = match_of(events=[play("Ann", 8)])
    assert match.state()["order"] == "descending"
    match.apply(play("Bob", "wildfire"))
    match.apply(play("Bob", 10))
    assert match.state()["order"] == "descending"     # burns do not undo it
    match.apply(pickup("Cy"))
    match.apply(play("Ann", 8, 2))
    assert match.state()["order"] == "descending"     # two flips cancel
    match.apply(play("Bob", 8))
    assert match.state()["order"] == "ascending"


# -- FU7: face-up and blind cards ----------------------------------------------------------


def test_fu7_a_legal_blind_card_is_played():
    match = match_of(events=[play("Ann", 5), blind("Bob", 7)])
    assert match.current == "Ann"                      # the blind 7 skipped Cy
    assert match.state()["last"]["text"] == "blind 7 Back Stabber"


def test_fu7_an_illegal_blind_card_picks_up_the_pile_with_it():
    match = match_of(events=[play("Ann", 9), blind("Bob", 4)])
    state = match.state()
    assert state["pile"] == 0 and state["free"] and match.current == "Cy"
    assert state["last"]["text"] == "blind 4: picked up"


def test_fu7_a_blind_power_always_plays():
    match = match_of(events=[play("Ann", 11), blind("Bob", "wildfire")])
    assert match.current == "Bob" and match.state()["burns"] == 1


def test_fu7_a_face_up_card_that_cannot_play_is_a_pickup():
    match = match_of(events=[play("Ann", 11)])
    refused(match, play("Bob", 4), "4 cannot go on 11")
    match.apply(pickup("Bob"))
    assert match.current == "Cy"


def test_a_blind_card_must_be_a_card():
    match = match_of()
    refused(match, blind("Ann", 12), "a card is 1-11, \"wildfire\" or \"mirror\", not 12")
    refused(match, blind("Ann", True), "not true")


# -- FU8: going out, losing, the match ------------------------------------------------------


def test_fu8_players_go_out_and_the_last_one_left_loses_and_deals_next():
    match = match_of(events=[play("Ann", 5), out("Ann"), play("Bob", 6)])
    assert match.state()["out"] == ["Ann"] and match.current == "Cy"
    refused(match, out("Ann"), "Ann is already out")
    match.apply(play("Cy", 7))                         # skips Ann (out) and Bob: Cy again
    assert match.current == "Cy"
    match.apply(out("Cy"))
    result = match.result()
    assert result["totals"] == {"Ann": 0, "Bob": 1, "Cy": 0}
    assert result["games"] == [{"game": 1, "dealer": "Cy", "starter": "Ann",
                                "out": ["Ann", "Cy"], "loser": "Bob",
                                "winners": ["Ann", "Cy"],
                                "losses": {"Ann": 0, "Bob": 1, "Cy": 0}}]
    assert result["winners"] == [] and not result["over"]
    state = match.state()
    assert state["phase"] == "deal" and state["dealer"] == "Bob" and state["game_number"] == 2
    assert state["direction"] == "clockwise" and state["order"] == "ascending"
    assert match.expecting().types == ("starter", "end")
    match.apply(starter(2, ["Ann", "Cy"]))
    assert match.current == "Cy"                       # Cy is first from Bob's left


def test_fu8_out_on_your_own_turn_passes_it_on():
    match = match_of(events=[play("Ann", "wildfire"), out("Ann")])
    assert match.current == "Bob" and match.state()["free"]


def test_fu8_out_goes_during_a_game_only():
    match = FullCounter(["Ann", "Bob"])
    refused(match, out("Ann"), "players go out during a game")


def test_the_match_ends_between_games_and_fewest_losses_win():
    match = match_of("Ann,Bob", events=[out("Ann")])        # Bob loses game 1, deals 2
    refused(match, {"type": "end", "now": True}, 'an end event has no field "now" (fields: none)')
    match.apply(starter(2, ["Bob"]))
    refused(match, {"type": "end"}, "the match ends between games (finish this game first)")
    match.apply(out("Bob"))                                  # Ann loses game 2
    match.apply({"type": "end"})
    result = match.result()
    assert result["over"] and result["totals"] == {"Ann": 1, "Bob": 1}
    assert result["winners"] == ["Ann", "Bob"] and result["low_wins"] is True
    assert match.expecting().types == ()
    refused(match, starter(2, ["Ann"]), "the game is over")


def test_end_needs_a_game_played():
    refused(FullCounter(["Ann", "Bob"]), {"type": "end"}, "no game is played yet")


def test_the_games_option_ends_the_match_by_itself():
    match = match_of("Ann,Bob", events=[out("Bob")], games=2)
    assert not match.over
    match.apply(starter(2, [], ["Bob"]))
    match.apply(out("Bob"))
    assert match.over and match.result()["winners"] == ["Bob"]
    assert match.state()["game_number"] == 2
    with pytest.raises(BadSetup):
        FullCounter(["Ann", "Bob"], {"games": -1})


# -- quick mode -----------------------------------------------------------------------------


def test_quick_mode_keeps_turns_direction_order_and_burns_without_values():
    match = match_of("Ann,Bob,Cy,Dee", quick=True)
    assert match.expecting().types == ("play", "out")
    match.apply(quick("Ann"))
    assert match.current == "Bob" and not match.state()["free"]
    match.apply(quick("Bob", "back_stabber", 2))
    assert match.current == "Ann"
    match.apply(quick("Ann", "black_market"))
    assert match.current == "Dee" and match.state()["direction"] == "anticlockwise"
    match.apply(quick("Dee", "magnetic_rays"))
    assert match.state()["order"] == "descending"
    match.apply(quick("Cy", "four"))
    assert match.current == "Cy" and match.state()["burns"] == 1
    match.apply(quick("Cy", "nuclear_blast"))
    assert match.current == "Bob" and match.state()["free"]
    match.apply(quick("Bob", "wildfire"))
    assert match.current == "Bob" and match.state()["burns"] == 2
    match.apply(quick("Bob", "plain"))
    match.apply(pickup("Ann"))
    state = match.state()
    assert match.current == "Dee" and state["to_beat"] is None and state["pile"] is None
    assert state["top"] is None


def test_quick_mode_refuses_values_chains_and_blind_cards():
    match = match_of(quick=True)
    refused(match, play("Ann", 5), 'a play event has no field "value"')
    refused(match, chain("Ann", 5, 6), "quick mode has no chain event")
    refused(match, blind("Ann", 5), "quick mode has no blind event")
    refused(match, quick("Ann", "jump"), "a quick play's effect is one of plain")
    refused(match, quick("Ann", "wildfire", 2), "count goes with an ability")
    refused(match, quick("Ann", "back_stabber", 5), "count is 1 to 4, not 5")
    match = match_of(quick=True, deck={"magnetic_rays": None})
    refused(match, quick("Ann", "magnetic_rays"), "this deck has no Magnetic Rays")


def test_full_mode_refuses_effects():
    refused(match_of(), quick("Ann", "plain"), "a play event needs \"value\"")
    refused(match_of(), {**play("Ann", 5), "effect": "plain"}, 'has no field "effect"')


# -- the record, the docs, replay, the store ------------------------------------------------


def test_a_refused_event_of_any_shape_changes_nothing():
    match = match_of(events=[play("Ann", 6)])
    for event in ([], {"type": "dance"}, {"player": "Bob"}, play("Bob", "6"),
                  play("Bob", 6, True), {"type": "pickup"}, starter(2, ["Bob"])):
        with pytest.raises(IllegalEvent):
            before = copy.deepcopy(match.state())
            match.apply(event)  # type: ignore[arg-type]
        assert match.state() == before


def documented_example() -> tuple[list[dict], dict]:
    """The example log of docs/events.md's full-counter section, and its result there."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("\n## full-counter\n"):]
    log = re.search(r"```jsonl\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"`result\(\)` is JSON:\n\n```json\n(.*?)```", section, re.S).group(1)
    return [json.loads(line) for line in log.splitlines() if line.strip()], json.loads(shown)


def test_the_documented_example_replays_to_the_documented_result():
    lines, shown = documented_example()
    start, events = lines[0], lines[1:]
    match = FullCounter.replay(start["players"], start["options"], events)
    assert match.result() == shown


def test_companion_replay_prints_over_totals_winners(tmp_path):
    lines, shown = documented_example()
    log = tmp_path / "example.jsonl"
    log.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    out_text, err = io.StringIO(), io.StringIO()
    assert replay_main("full-counter", None, None, str(log), out_text, err) == 0, err.getvalue()
    result = json.loads(out_text.getvalue())
    assert (result["over"], result["totals"], result["winners"]) == (
        True, {"Ann": 0, "Bob": 1, "Cy": 1}, ["Ann"])
    log.write_text(json.dumps(lines[0]) + "\n" + json.dumps(play("Ann", 5)) + "\n")
    assert replay_main("full-counter", None, None, str(log), io.StringIO(), err) == 1
    assert "line 2: nobody is taking turns now" in err.getvalue()


def test_undo_and_resume_through_the_store(tmp_path):
    lines, _ = documented_example()
    store = Store(tmp_path / "companion.db")
    session = Session.start("full-counter", ["Ann", "Bob", "Cy"], {"quick": False, "zones": False},
                            store=store)
    for event in lines[1:12]:
        session.apply(event)
    before = session.match.state()
    session.apply(lines[12])
    assert session.undo() == lines[12]
    assert session.match.state() == before
    with pytest.raises(IllegalEvent):
        session.apply(play("Ann", 2))                  # refused: not stored
    resumed = Session.resume(store, session.match_id)
    assert resumed.match.state() == before
    for event in lines[12:]:
        resumed.apply(event)
    assert store.match(session.match_id).result["winners"] == ["Ann"]
    store.close()


def test_new_match_by_id():
    match = new_match("full-counter", ["Ann", "Bob"], {"quick": True})
    assert match.quick and match.title == "Full Counter"
