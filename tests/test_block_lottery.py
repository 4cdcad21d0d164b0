"""Block Lottery: the examples of the rule text and RULINGS BL1-BL9, one by one."""

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
from companion.games.block_lottery import (
    DEFAULT_PRIZES,
    LOTTERY_TOKENS,
    BlockLottery,
    RoundScore,
    final_winners,
    lottery_by_space,
    lucky_number,
    score_round,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "events.md"

# -- building events --------------------------------------------------------------------

#: A pool of 15 with every face: three 1s, 2s and 4s, two 3s, 5s and 6s.
POOL = [1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 6, 2]


def pool(faces=POOL) -> dict:
    return {"type": "pool", "faces": list(faces)}


def take(player: str, face: int) -> dict:
    return {"type": "take", "player": player, "face": face}


def end(player: str, cause: str) -> dict:
    return {"type": "end", "player": player, "cause": cause}


def reroll(player: str, before: list[int], after: list[int]) -> dict:
    return {"type": "reroll", "player": player, "from": before, "to": after}


def token(name: str) -> dict:
    return {"type": "token", "token": name}


def score(player: str, blocks: int, hand: int, lucky: int | None = None) -> dict:
    event = {"type": "score", "player": player, "blocks": blocks, "hand": hand}
    if lucky is not None:
        event["lucky"] = lucky
    return event


def match_of(players: str = "Ann,Bob,Cy", events=(), **options) -> BlockLottery:
    match = BlockLottery(players.split(","), options)
    for event in events:
        match.apply(event)
    return match


def refused(match: BlockLottery, event: object, message: str) -> None:
    """``event`` is refused with ``message`` in the reason, and nothing changes."""
    before = copy.deepcopy(match.state())
    count = len(match.events)
    with pytest.raises(IllegalEvent) as info:
        match.apply(event)  # type: ignore[arg-type]
    assert message in str(info.value)
    assert match.state() == before
    assert len(match.events) == count


def ended_round(**options) -> BlockLottery:
    """Round 1 played: Ann took two 4s, Bob a 1, then Cy could not draw."""
    return match_of(events=[pool(), take("Ann", 4), take("Ann", 4), take("Bob", 1),
                            end("Cy", "deck_out")], **options)


def at_scoring(tokens=("4", "1", "ALL"), **options) -> BlockLottery:
    """Round 1 with Ann on 4 4 and Bob on 1, Ann ended it with an empty hand."""
    match = match_of(events=[pool(), take("Ann", 4), take("Ann", 4), take("Bob", 1),
                             end("Ann", "empty_hand")], **options)
    for name in tokens:
        match.apply(token(name))
    return match


#: Tokens that leave a 1 unscored: in play_round the player who takes a 1 and ends the
#: round scores blocks + 1, the others blocks - hand (at least 0).
NO_LOTTERY = ("2", "3", "4")


def play_round(match: BlockLottery, counts: dict[str, tuple[int, int]], *,
               ender: str = "Ann", tokens=NO_LOTTERY) -> None:
    """One whole round: ``ender`` takes a 1 and ends it with an empty hand, then the
    ``tokens`` are drawn and everyone's (blocks, hand) ``counts`` are entered."""
    match.apply(pool())
    match.apply(take(ender, 1))
    match.apply(end(ender, "empty_hand"))
    for name in tokens:
        match.apply(token(name))
    for player, (blocks, hand) in counts.items():
        lucky = 0 if match.options["lucky_card_bonus"] and lucky_number(match.tokens) else None
        match.apply(score(player, blocks, hand, lucky))


# -- the pure rules ------------------------------------------------------------------------


def test_a_die_scores_on_every_space_it_matches_all_scores_everything_none_nothing() -> None:
    # BL6: a 4 scores on the 4 space and again on ALL; NONE scores for nobody
    assert lottery_by_space([4, 4, 1], ["4", "NONE", "ALL"], [1, 2, 3]) == [2, 0, 9]
    assert lottery_by_space([6], ["ALL", "6", "NONE"], [3, 4, 5]) == [3, 4, 0]
    assert lottery_by_space([], ["1", "2", "ALL"], [1, 2, 3]) == [0, 0, 0]
    # spaces not drawn yet score nothing
    assert lottery_by_space([2, 2], ["2"], [1, 2, 3]) == [2]


def test_the_round_score_is_cards_plus_dice_plus_lottery_minus_hand() -> None:
    # BL7, the rule text's "Scoring the round"
    assert score_round(9, 2, [4, 4, 1], ["4", "NONE", "ALL"], [1, 2, 3]) == RoundScore(
        cards=9, dice=3, lottery=11, lucky=0, hand=2, raw=21, score=21)
    assert score_round(3, 1, [5], ["1", "2", "3"], [1, 2, 3], lucky=4).score == 3 + 1 + 4 - 1


def test_a_round_score_below_zero_scores_zero() -> None:
    part = score_round(0, 8, [], ["1", "2", "3"], [1, 2, 3])
    assert (part.raw, part.score) == (-8, 0)


def test_the_lucky_number_is_the_middle_token_if_it_is_a_face() -> None:
    assert lucky_number(["1", "5", "ALL"]) == 5
    assert lucky_number(["1", "NONE", "5"]) is None
    assert lucky_number(["1", "ALL"]) is None
    assert lucky_number(["3"]) is None


def test_the_tie_break_is_the_best_round_3_then_a_shared_win() -> None:
    assert final_winners({"Ann": 40, "Bob": 30}, {"Ann": 1, "Bob": 20}) == (["Ann"], False)
    assert final_winners({"Ann": 30, "Bob": 30, "Cy": 12},
                         {"Ann": 8, "Bob": 11, "Cy": 15}) == (["Bob"], True)
    assert final_winners({"Ann": 30, "Bob": 30, "Cy": 30},
                         {"Ann": 9, "Bob": 9, "Cy": 2}) == (["Ann", "Bob"], True)
    assert final_winners({"Ann": 30, "Bob": 30}, {"Ann": 9, "Bob": 9}) == (["Ann", "Bob"], False)


# -- BL1, BL2: players, deck, prizes ----------------------------------------------------------


def test_bl1_two_to_six_players() -> None:
    assert engine("block-lottery") is BlockLottery
    new_match("block-lottery", ["A", "B"])
    new_match("block-lottery", list("ABCDEF"))
    for players in (["A"], list("ABCDEFG")):
        with pytest.raises(BadSetup, match="2 to 6 players"):
            new_match("block-lottery", players)


def test_bl1_the_deck_is_configurable_and_must_deal_six_each() -> None:
    assert match_of().deck_size == 52
    assert match_of(cards_per_number=8, wilds=4).deck_size == 60
    with pytest.raises(BadSetup, match="cannot deal 6 each"):
        match_of("A,B,C,D,E,F", cards_per_number=5, wilds=0)
    with pytest.raises(BadSetup, match="cards_per_number"):
        match_of(cards_per_number=0)


def test_bl1_the_eight_tokens() -> None:
    assert LOTTERY_TOKENS == ("1", "2", "3", "4", "5", "6", "NONE", "ALL")
    assert ended_round().expecting().choices["token"] == LOTTERY_TOKENS


def test_bl2_default_prizes_and_printed_ones_instead() -> None:
    assert DEFAULT_PRIZES == ((1, 2, 3), (2, 3, 4), (3, 4, 5))
    assert BlockLottery.option_defaults["prizes"] == [[1, 2, 3], [2, 3, 4], [3, 4, 5]]
    assert match_of().state()["prizes"] == [1, 2, 3]
    printed = [[1, 1, 5], [2, 2, 6], [0, 3, 9]]
    match = match_of(prizes=printed)
    assert match.state()["prizes"] == [1, 1, 5]
    assert match.state()["options"]["prizes"] == printed


@pytest.mark.parametrize("prizes", [
    [[1, 2, 3], [2, 3, 4]], [[1, 2], [2, 3, 4], [3, 4, 5]], [[1, 2, 3], [2, 3, 4], [3, 4, -1]],
    [[1, 2, 3], [2, 3, 4], [3, 4, True]], [[1, 2, 3], [2, 3, 4], [3, 4, 100]], [[1, 2, 3], 4, 5],
])
def test_bl2_prizes_that_are_not_three_cards_of_three_values_are_refused(prizes) -> None:
    with pytest.raises(BadSetup):
        match_of(prizes=prizes)


def test_prizes_of_each_round_score_that_round() -> None:
    match = match_of(prizes=[[1, 1, 1], [5, 6, 7], [2, 2, 2]])
    play_round(match, {"Ann": (3, 0), "Bob": (0, 8), "Cy": (0, 8)}, tokens=("1", "ALL", "6"))
    # Ann's one die (a 1) on the 1 space and on ALL, at round 1's prizes
    assert match.result()["rounds"][0]["players"]["Ann"]["lottery"] == 1 + 1
    play_round(match, {"Ann": (3, 0), "Bob": (0, 8), "Cy": (0, 8)}, tokens=("1", "ALL", "6"))
    assert match.result()["rounds"][1]["players"]["Ann"]["lottery"] == 5 + 6


# -- BL3: the pool ----------------------------------------------------------------------------


def test_bl3_the_pool_is_fifteen_dice_and_shows_how_many_of_each_face() -> None:
    match = match_of()
    assert match.expecting().types == ("pool",)
    refused(match, pool(POOL[:14]), "15 dice")
    refused(match, pool(POOL[:14] + [7]), "a die shows 1 to 6")
    refused(match, {"type": "pool", "faces": "1" * 15}, "15 dice")
    match.apply(pool())
    state = match.state()
    assert state["pool"] == [3, 3, 2, 3, 2, 2] and state["pool_left"] == 15
    assert state["rolled"] == POOL
    refused(match, pool(), "the pool is rolled once")


def test_bl3_a_taken_die_keeps_its_face_and_must_be_in_the_pool() -> None:
    match = match_of(events=[pool([4] * 14 + [2])])
    match.apply(take("Bob", 2))
    assert match.state()["dice"]["Bob"] == [2]
    assert match.state()["pool"] == [0, 0, 0, 14, 0, 0]
    assert match.state()["last_take"] == {"player": "Bob", "face": 2}
    refused(match, take("Ann", 2), "there is no 2 in the pool (it has 4 4")
    refused(match, take("Ann", 7), "a die shows 1 to 6")
    refused(match, take("Zed", 4), '"Zed" is not playing')


def test_dice_cannot_be_taken_before_the_pool_or_after_the_end() -> None:
    refused(match_of(), take("Ann", 1), "roll the pool for round 1 first")
    refused(ended_round(), take("Ann", 1), "the round is over")


# -- BL4: the end of a round ------------------------------------------------------------------


def test_bl4_taking_the_last_die_ends_the_round_and_that_player_deals_next() -> None:
    match = match_of(events=[pool([3] * 15)])
    for _ in range(14):
        match.apply(take("Ann", 3))
    assert match.state()["phase"] == "play"
    match.apply(take("Bob", 3))
    state = match.state()
    assert (state["phase"], state["ended_by"], state["end"]) == ("finalise", "Bob", "last_die")
    for name in ("1", "2", "3"):
        match.apply(token(name))
    for player, counts in (("Ann", (9, 0)), ("Bob", (3, 3)), ("Cy", (0, 6))):
        match.apply(score(player, *counts))
    assert (match.state()["round"], match.state()["dealer"]) == (2, "Bob")
    assert match.state()["first_player"] == "Cy"


def test_bl4_an_empty_hand_ends_the_round_only_for_a_player_with_a_die() -> None:
    match = match_of(events=[pool()])
    refused(match, end("Ann", "empty_hand"), "Ann has no dice")
    assert match.expecting().choices["empty_hand"] == ()
    match.apply(take("Ann", 6))
    assert match.expecting().choices["empty_hand"] == ("Ann",)
    match.apply(end("Ann", "empty_hand"))
    assert (match.state()["ended_by"], match.state()["end"]) == ("Ann", "empty_hand")


def test_bl4_no_card_to_draw_ends_the_round_for_anyone() -> None:
    match = match_of(events=[pool(), end("Cy", "deck_out")])
    assert (match.state()["phase"], match.state()["ended_by"]) == ("finalise", "Cy")


def test_the_last_die_is_not_declared_and_unknown_causes_are_refused() -> None:
    match = match_of(events=[pool()])
    refused(match, end("Ann", "last_die"), "ends it by itself")
    refused(match, end("Ann", "bored"), '"empty_hand" or "deck_out"')
    refused(match, {"type": "end", "player": "Ann"}, 'needs "cause"')


def test_the_first_dealer_is_the_last_player_entered() -> None:
    state = match_of().state()
    assert (state["dealer"], state["first_player"]) == ("Cy", "Ann")


# -- BL5: re-rolls and the draw ---------------------------------------------------------------


def test_bl5_each_player_re_rolls_any_of_their_dice_once() -> None:
    match = ended_round()
    assert match.expecting().choices["player"] == ("Ann", "Bob")
    match.apply(reroll("Ann", [4], [6]))
    assert match.state()["dice"]["Ann"] == [4, 6]
    assert match.state()["rerolled"] == {"Ann": {"from": [4], "to": [6]}}
    refused(match, reroll("Ann", [4], [5]), "already re-rolled")
    refused(match, reroll("Bob", [4], [5]), "Bob has no 4 to re-roll (their dice: 1)")
    refused(match, reroll("Cy", [1], [5]), "Cy has no 1")
    refused(match, reroll("Bob", [1], [5, 6]), '"to" lists the 1 new face, one per die')
    refused(match, reroll("Bob", [], []), '"from" lists the faces')
    refused(match, reroll("Bob", [1], [0]), "a die shows 1 to 6")
    match.apply(reroll("Bob", [1], [1]))  # rolling the same face again is a re-roll too
    assert match.expecting().choices["player"] == ()


def test_bl5_the_first_token_ends_the_re_rolls() -> None:
    match = ended_round()
    match.apply(token("NONE"))
    assert match.state()["phase"] == "lottery"
    refused(match, reroll("Ann", [4], [6]), "dice are set")


def test_bl5_three_tokens_without_replacement_on_the_lowest_free_space() -> None:
    match = ended_round()
    match.apply(token("ALL"))
    refused(match, token("ALL"), "token ALL is already on the prize card")
    refused(match, token("7"), 'no token "7"')
    refused(match, token(4), "no token 4")
    match.apply(token("4"))
    assert match.state()["tokens_left"] == ["1", "2", "3", "5", "6", "NONE"]
    match.apply(token("NONE"))
    assert match.state()["tokens"] == ["ALL", "4", "NONE"]
    assert match.state()["phase"] == "scoring"
    refused(match, token("1"), "tokens are drawn once the round has ended")


def test_tokens_only_after_the_round() -> None:
    refused(match_of(events=[pool()]), token("1"), "once the round has ended")


# -- BL6, BL7: scoring a round ----------------------------------------------------------------


def test_bl6_bl7_every_part_of_the_round_score() -> None:
    match = at_scoring()
    refused(match, {"type": "token", "token": "2"}, "tokens are drawn once")
    match.apply(score("Ann", 10, 0))
    assert match.state()["entered"] == {"Ann": {"blocks": 10, "hand": 0, "lucky": 0}}
    match.apply(score("Bob", 3, 2))
    match.apply(score("Cy", 0, 12))
    record = match.result()["rounds"][0]
    ann, bob, cy = (record["players"][p] for p in ("Ann", "Bob", "Cy"))
    # Ann: 4 4 on "4" (1 each) and on ALL (3 each): 2 + 6
    assert (ann["cards"], ann["dice"], ann["lottery"], ann["hand"], ann["score"]) == (
        10, 2, 8, 0, 20)
    assert ann["lottery_by_space"] == [2, 0, 6]
    # Bob: his 1 on the "1" space (2) and on ALL (3)
    assert (bob["lottery"], bob["raw"], bob["score"]) == (5, 7, 7)
    assert (cy["raw"], cy["score"]) == (-12, 0)
    assert record["points"] == {"Ann": 20, "Bob": 7, "Cy": 0}
    assert match.result()["totals"] == {"Ann": 20, "Bob": 7, "Cy": 0}


def test_counts_that_cannot_be_true_are_refused() -> None:
    match = at_scoring()
    refused(match, score("Cy", 2, 0), "a block is at least 3 cards")
    refused(match, score("Bob", 0, 4), "Bob took dice, so Bob played a block first")
    refused(match, score("Ann", 5, 1), "Ann ended the round with an empty hand")
    refused(match, score("Cy", 53, 0), "the deck has 52")
    refused(match, score("Cy", -1, 0), "0 or more")
    refused(match, score("Cy", 3, True), "0 or more")
    refused(match, score("Cy", 3, 0, lucky=0), "only for the Lucky Card Bonus")
    refused(match, {"type": "score", "player": "Cy", "blocks": 3}, 'needs "hand"')
    match.apply(score("Ann", 40, 0))
    refused(match, score("Bob", 10, 3), "53 cards entered this round; the deck has only 52")
    match.apply(score("Bob", 3, 0))


def test_the_cards_add_up_to_what_was_dealt_and_to_the_deck_when_it_ran_out() -> None:
    match = at_scoring()
    match.apply(score("Ann", 3, 0))
    match.apply(score("Bob", 3, 0))
    refused(match, score("Cy", 0, 11), "only 17 cards entered; 18 were dealt")
    match.apply(score("Cy", 0, 12))

    match = ended_round()
    for name in ("1", "2", "3"):
        match.apply(token(name))
    match.apply(score("Ann", 20, 3))
    match.apply(score("Bob", 20, 3))
    refused(match, score("Cy", 0, 5), "the deck ran out, so all 52 cards")
    match.apply(score("Cy", 0, 6))
    assert match.state()["round"] == 2


def test_scores_only_after_the_lottery_and_once_each() -> None:
    refused(ended_round(), score("Ann", 3, 0), "cards are counted after the lottery")
    match = at_scoring()
    match.apply(score("Ann", 3, 0))
    refused(match, score("Ann", 3, 0), "Ann's cards are already entered")


# -- BL8: three rounds and the winner ------------------------------------------------------------


def test_bl8_three_rounds_highest_total_wins() -> None:
    match = match_of("Ann,Bob")
    play_round(match, {"Ann": (10, 0), "Bob": (0, 2)})
    assert match.state()["dealer"] == "Ann"
    play_round(match, {"Ann": (5, 0), "Bob": (12, 0)}, ender="Bob")
    assert match.state()["dealer"] == "Bob"
    assert match.result()["winners"] == [] and not match.over
    play_round(match, {"Ann": (3, 0), "Bob": (0, 9)})
    assert match.over and match.expecting().types == ()
    result = match.result()
    assert len(result["rounds"]) == 3
    assert result["totals"] == {"Ann": 11 + 5 + 4, "Bob": 0 + 13 + 0}
    assert result["winners"] == ["Ann"] and result["tie_break"] is False
    refused(match, pool(), "the game is over")


def test_bl8_equal_totals_go_to_the_best_round_3() -> None:
    match = match_of("Ann,Bob")
    play_round(match, {"Ann": (12, 0), "Bob": (0, 12)}, tokens=NO_LOTTERY)  # 13, 0
    play_round(match, {"Ann": (3, 0), "Bob": (0, 12)}, tokens=NO_LOTTERY)   # 4, 0
    play_round(match, {"Ann": (0, 12), "Bob": (16, 0)}, ender="Bob", tokens=NO_LOTTERY)
    result = match.result()
    assert result["totals"] == {"Ann": 17, "Bob": 17}
    assert [r["points"] for r in result["rounds"]][-1] == {"Ann": 0, "Bob": 17}
    assert result["winners"] == ["Bob"] and result["tie_break"] is True

    match = match_of("Ann,Bob")
    play_round(match, {"Ann": (0, 12), "Bob": (12, 0)}, ender="Bob", tokens=NO_LOTTERY)
    play_round(match, {"Ann": (0, 12), "Bob": (3, 0)}, ender="Bob", tokens=NO_LOTTERY)
    play_round(match, {"Ann": (16, 0), "Bob": (0, 12)}, tokens=NO_LOTTERY)
    result = match.result()
    assert result["totals"] == {"Ann": 17, "Bob": 17}
    assert result["winners"] == ["Ann"] and result["tie_break"] is True


def test_bl8_equal_totals_and_equal_round_3_share_the_win() -> None:
    match = match_of("Ann,Bob")
    play_round(match, {"Ann": (3, 0), "Bob": (0, 9)}, tokens=NO_LOTTERY)    # 4, 0
    play_round(match, {"Ann": (0, 9), "Bob": (3, 0)}, ender="Bob", tokens=NO_LOTTERY)  # 0, 4
    play_round(match, {"Ann": (5, 0), "Bob": (7, 1)}, tokens=NO_LOTTERY)    # 6, 6
    result = match.result()
    assert result["totals"] == {"Ann": 10, "Bob": 10}
    assert result["winners"] == ["Ann", "Bob"] and result["tie_break"] is False
    assert match.expecting().prompt == "Game over: Ann & Bob won"


# -- BL9: the variants -------------------------------------------------------------------------


def test_bl9_lucky_cards_score_the_round_number_each() -> None:
    # the rule text's example: the 5 is the middle token in round 2, five natural 5s in
    # blocks score 2 each
    match = match_of("Ann,Bob", lucky_card_bonus=True)
    play_round(match, {"Ann": (3, 0), "Bob": (0, 9)}, tokens=("1", "2", "3"))
    match.apply(pool())
    match.apply(take("Bob", 5))
    match.apply(end("Bob", "empty_hand"))
    for name in ("NONE", "5", "3"):
        match.apply(token(name))
    state = match.state()
    assert (state["lucky_number"], state["lucky_each"]) == (5, 2)
    refused(match, score("Bob", 8, 0), 'needs "lucky"')
    refused(match, score("Bob", 8, 0, lucky=9), "9 lucky cards but only 8 in blocks")
    refused(match, score("Bob", 8, 0, lucky=8), "8 natural 5s entered; the deck has only 7")
    match.apply(score("Bob", 8, 0, lucky=5))
    refused(match, score("Ann", 4, 8, lucky=3), "8 natural 5s")
    match.apply(score("Ann", 4, 8, lucky=2))
    record = match.result()["rounds"][1]
    bob = record["players"]["Bob"]
    assert (record["lucky_number"], record["lucky_each"]) == (5, 2)
    # Bob: 8 cards + 1 die + his 5 on the middle space (3) + 5 lucky x 2
    assert (bob["lucky_cards"], bob["lucky"], bob["score"]) == (5, 10, 8 + 1 + 3 + 10)


def test_bl9_no_lucky_cards_when_the_middle_token_is_none_or_all() -> None:
    for middle in ("NONE", "ALL"):
        match = at_scoring(tokens=("2", middle, "3"), lucky_card_bonus=True)
        assert match.state()["lucky_number"] is None
        refused(match, score("Bob", 3, 0, lucky=1), f"the middle token is {middle}")
        match.apply(score("Bob", 3, 0))       # "lucky" may be left out
        match.apply(score("Ann", 3, 0, lucky=0))  # or given as 0


def test_bl9_lucky_cards_score_3_each_in_round_3() -> None:
    match = match_of("Ann,Bob", lucky_card_bonus=True)
    play_round(match, {"Ann": (3, 0), "Bob": (0, 9)}, tokens=("1", "2", "3"))
    play_round(match, {"Ann": (3, 0), "Bob": (0, 9)}, tokens=("1", "2", "3"))
    match.apply(pool())
    match.apply(take("Ann", 6))
    match.apply(end("Ann", "empty_hand"))
    for name in ("1", "4", "2"):
        match.apply(token(name))
    match.apply(score("Ann", 6, 0, lucky=2))
    match.apply(score("Bob", 0, 9, lucky=0))
    assert match.result()["rounds"][2]["players"]["Ann"]["lucky"] == 6


def test_bl9_without_the_variant_lucky_cards_do_not_count() -> None:
    match = at_scoring(tokens=("2", "4", "3"))
    assert match.state()["lucky_number"] is None
    refused(match, score("Ann", 3, 0, lucky=1), "only for the Lucky Card Bonus")


def test_bl9_in_the_long_game_an_empty_hand_does_not_end_the_round() -> None:
    match = match_of(events=[pool(), take("Ann", 1)], long_game=True)
    assert match.expecting().choices["cause"] == ("deck_out",)
    refused(match, end("Ann", "empty_hand"), "in the Long Game an empty hand does not end")
    match.apply(end("Bob", "deck_out"))
    assert match.state()["end"] == "deck_out"


# -- the log ------------------------------------------------------------------------------------


def test_replay_and_undo_give_the_same_match() -> None:
    match = at_scoring()
    match.apply(score("Ann", 3, 0))
    again = BlockLottery.replay(match.players, match.options, match.events)
    assert again.state() == match.state()
    assert match.undone().state() == BlockLottery.replay(
        match.players, match.options, match.events[:-1]).state()


def test_wrong_fields_are_refused() -> None:
    match = match_of(events=[pool()])
    refused(match, {"type": "take", "player": "Ann", "face": 1, "dice": 2}, 'no field "dice"')
    refused(match, {"type": "take", "player": "Ann"}, 'needs "face"')
    refused(match, {"type": "deal"}, 'has no "deal" event')


def example_log() -> str:
    """The jsonl block under "### Example game" in the block-lottery section."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## block-lottery\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```jsonl\n(.*?)```", section.split("### Example game", 1)[1], re.S)
    assert found, "no ```jsonl block in the example"
    return found.group(1)


def test_the_documented_example_replays_to_the_documented_result(tmp_path) -> None:
    path = tmp_path / "example.jsonl"
    path.write_text(example_log(), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert replay_main("block-lottery", None, [], str(path), out=out, err=err) == 0, err.getvalue()
    result = json.loads(out.getvalue())
    assert result["over"] is True
    assert result["totals"] == {"Ann": 53, "Bob": 53, "Cy": 34}
    assert result["winners"] == ["Bob"] and result["tie_break"] is True
    assert [r["points"] for r in result["rounds"]] == [
        {"Ann": 26, "Bob": 9, "Cy": 0}, {"Ann": 23, "Bob": 21, "Cy": 7},
        {"Ann": 4, "Bob": 23, "Cy": 27}]
    assert [(r["dealer"], r["ended_by"], r["end"]) for r in result["rounds"]] == [
        ("Cy", "Ann", "empty_hand"), ("Ann", "Cy", "last_die"), ("Cy", "Bob", "deck_out")]
    documented = DOC.read_text(encoding="utf-8").split("\n## block-lottery\n", 1)[1]
    shown = json.loads(re.search(r"```json\n(.*?)```", documented, re.S).group(1))
    assert shown["rounds"][0] == result["rounds"][0]
    assert {k: v for k, v in shown.items() if k != "rounds"} == {
        k: v for k, v in result.items() if k != "rounds"}
