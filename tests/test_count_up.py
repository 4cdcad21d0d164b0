"""Count Up 21: the rule text's examples and every ruling (CU1-CU5), event by event."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.errors import BadSetup, IllegalEvent
from companion.games import new_match
from companion.games.count_up import CountUp, follows, game_winner
from companion.table import scores

DOC = Path(__file__).resolve().parent.parent / "docs" / "events.md"


def play(player: str, card: int) -> dict:
    return {"type": "play", "player": player, "card": card}


def pass_(player: str) -> dict:
    return {"type": "pass", "player": player}


def match(*events: dict, games_to_win: int = 3) -> CountUp:
    game = CountUp(["Ann", "Bob"], {"games_to_win": games_to_win})
    for event in events:
        game.apply(event)
    return game


def refused(game: CountUp, event: dict, words: str) -> None:
    """``event`` is refused with a reason containing ``words``, and nothing changes."""
    before = json.dumps(game.state(), sort_keys=True)
    with pytest.raises(IllegalEvent, match=re.escape(words)):
        game.apply(event)
    assert json.dumps(game.state(), sort_keys=True) == before


def lead_and_take(leader: str, card: int) -> list[dict]:
    """A trick of one card: the other player passes at once and the leader takes it."""
    other = "Bob" if leader == "Ann" else "Ann"
    return [play(leader, card), pass_(other)]


def one_sided_game(leader: str, cards: range) -> list[dict]:
    """The leader leads all 8 of ``cards`` and the other passes each time: 8-0."""
    events: list[dict] = []
    for card in cards:
        events += lead_and_take(leader, card)
    return events


# -- CU1: two players, 8 cards each -------------------------------------------------------


def test_exactly_two_players_with_eight_cards_each():
    game = new_match("count-up-21", ["Ann", "Bob"])
    assert game.state()["cards_left"] == {"Ann": 8, "Bob": 8}
    for players in (["Ann"], ["Ann", "Bob", "Cy"]):
        with pytest.raises(BadSetup, match="takes 2 players, not"):
            new_match("count-up-21", players)


def test_games_to_win_is_an_option_from_1_to_9():
    assert match().options == {"games_to_win": 3}
    with pytest.raises(BadSetup, match="1 to 9"):
        CountUp(["Ann", "Bob"], {"games_to_win": 0})
    with pytest.raises(BadSetup, match="whole number"):
        CountUp(["Ann", "Bob"], {"games_to_win": "3"})


# -- CU2: the lead, following by +1..+3, passing ---------------------------------------------


def test_the_rule_text_example_after_7_play_8_9_or_10():
    game = match(play("Ann", 7))
    expect = game.expecting()
    assert expect.player == "Bob" and expect.types == ("play", "pass")
    assert expect.choices["card"] == (8, 9, 10)
    assert expect.prompt == "Bob: play 8, 9 or 10, or pass"
    refused(game, play("Bob", 11), "11 cannot follow 7: play 8, 9 or 10, or pass")
    refused(game, play("Bob", 6), "6 cannot follow 7")
    game.apply(play("Bob", 10))
    assert game.state()["highest"] == 10 and game.expecting().choices["card"] == (11, 12, 13)


def test_the_leader_plays_any_card_and_cannot_pass():
    game = match()
    assert game.expecting().types == ("play",)
    assert game.expecting().choices["card"] == tuple(range(1, 22))
    assert game.expecting().prompt == "Ann leads: any card"
    refused(game, pass_("Ann"), "Ann leads this trick and must play a card")
    game.apply(play("Ann", 21))
    assert game.state()["highest"] == 21


def test_never_above_21():
    assert follows(19) == (20, 21)
    assert follows(21) == ()
    game = match(play("Ann", 19))
    assert game.expecting().choices["card"] == (20, 21)
    refused(game, play("Bob", 22), "cards are numbered 1 to 21, not 22")
    game.apply(play("Bob", 21))
    expect = game.expecting()
    assert expect.types == ("pass",) and expect.prompt == "Ann cannot follow: pass"
    refused(game, play("Ann", 22), "cards are numbered 1 to 21")


@pytest.mark.parametrize("card", [0, -3, 2.0, "8", None, True, [8]])
def test_a_card_is_a_whole_number_1_to_21(card):
    refused(match(), play("Ann", card), "cards are numbered 1 to 21")


def test_a_number_already_played_this_game_is_refused():
    game = match(*lead_and_take("Ann", 9), play("Ann", 7))
    assert game.expecting().choices["card"] == (8, 10)
    refused(game, play("Bob", 9), "9 was already played this game; Bob may play 8 or 10, or pass")
    game.apply(pass_("Bob"))
    refused(game, play("Ann", 7), "7 was already played this game; Ann may lead any card")
    assert 7 not in game.expecting().choices["card"]


def test_nothing_may_follow_when_the_next_three_are_played():
    game = match(*lead_and_take("Ann", 8), *lead_and_take("Ann", 9), *lead_and_take("Ann", 10),
                 play("Ann", 7))
    assert game.expecting().types == ("pass",)
    assert game.state()["may_play"] == []
    refused(game, play("Bob", 8), "8 was already played this game; Bob may pass")


def test_a_pass_gives_the_trick_to_the_other_player_who_leads_next():
    game = match(play("Ann", 5), play("Bob", 6))
    game.apply(pass_("Ann"))
    state = game.state()
    assert state["tricks"] == {"Ann": 0, "Bob": 1}
    assert state["last_trick"] == {"leader": "Ann", "cards": [5, 6], "winner": "Bob"}
    assert state["leader"] == state["current"] == "Bob" and state["trick"] == []
    assert state["cards_left"] == {"Ann": 7, "Bob": 7}


def test_only_the_player_on_turn_plays_or_passes():
    game = match(play("Ann", 5))
    refused(game, play("Ann", 6), "it is Bob's turn, not Ann's")
    refused(game, pass_("Ann"), "it is Bob's turn, not Ann's")
    refused(game, play("Zed", 6), '"Zed" is not playing')


def test_event_fields_are_checked():
    refused(match(), {"type": "play", "player": "Ann"}, 'a play event needs "card"')
    refused(match(), {"type": "play", "player": "Ann", "card": 3, "suit": "x"}, 'no field "suit"')
    refused(match(play("Ann", 3)), {"type": "pass", "player": "Bob", "card": 4},
            'no field "card"')
    refused(match(), {"type": "call", "player": "Ann"}, 'Count Up 21 has no "call" event')


def test_a_player_with_no_cards_must_pass():
    # Ann leads all her 8 cards; Bob passes 7 times, then follows her last card.
    events = []
    for card in (1, 3, 5, 7, 9, 11, 13):
        events += lead_and_take("Ann", card)
    game = match(*events, play("Ann", 15), play("Bob", 16))
    assert game.state()["cards_left"] == {"Ann": 0, "Bob": 7}
    expect = game.expecting()
    assert expect.types == ("pass",) and expect.prompt == "Ann has no cards: pass"
    refused(game, play("Ann", 17), "Ann has no cards left and must pass")


# -- CU3 and CU4: the end of a game, more tricks, the last trick ---------------------------------


def test_the_game_ends_when_a_trick_ends_and_a_hand_is_empty():
    game = match(*one_sided_game("Ann", range(1, 16, 2))[:-1])
    # Ann's 8th card is out, but the trick is still open: Bob may follow.
    assert game.state()["cards_left"]["Ann"] == 0 and game.state()["game_number"] == 1
    assert game.expecting().types == ("play", "pass")
    game.apply(pass_("Bob"))
    result = game.result()
    assert result["games"][0]["tricks"] == {"Ann": 8, "Bob": 0}
    assert result["games"][0]["winner"] == "Ann" and result["totals"] == {"Ann": 1, "Bob": 0}
    assert game.state()["game_number"] == 2


def test_the_supplement_playing_your_last_card_can_lose_the_trick():
    # Ann has one card left and plays it; Bob follows; Ann must pass: Bob's trick.
    events = []
    for card in (1, 3, 5, 7, 9, 11, 13):
        events += lead_and_take("Ann", card)
    game = match(*events, play("Ann", 15), play("Bob", 16), pass_("Ann"))
    record = game.result()["games"][0]
    assert record["tricks"] == {"Ann": 7, "Bob": 1}
    assert record["last_trick"] == "Bob" and record["winner"] == "Ann"


def test_more_tricks_wins_else_the_last_trick():
    assert game_winner({"Ann": 4, "Bob": 3}, "Bob") == ("Ann", False)
    assert game_winner({"Ann": 3, "Bob": 3}, "Bob") == ("Bob", True)
    assert game_winner({"Ann": 3, "Bob": 3}, "Ann") == ("Ann", True)


def test_more_tricks_wins_the_game_in_a_close_finish():
    # 4 tricks each; then both play their last cards and Ann, with none, must pass.
    events = [play("Ann", 1), play("Bob", 2), pass_("Ann")]                 # Bob 1
    events += lead_and_take("Bob", 3) + lead_and_take("Bob", 4) + lead_and_take("Bob", 5)
    events += [play("Bob", 6), play("Ann", 7), pass_("Bob")]                # Ann 1
    events += lead_and_take("Ann", 8) + lead_and_take("Ann", 9)             # Ann 3
    events += [play("Ann", 10), play("Bob", 11), play("Ann", 12), pass_("Bob")]  # Ann 4
    game = match(*events)
    state = game.state()
    assert state["cards_left"] == {"Ann": 2, "Bob": 2}
    assert state["tricks"] == {"Ann": 4, "Bob": 4} and state["leader"] == "Ann"
    # Ann leads; both play out their hands; Ann, on turn with none, passes: Bob's, 5-4.
    game.apply(play("Ann", 13))
    game.apply(play("Bob", 14))
    game.apply(play("Ann", 15))
    game.apply(play("Bob", 16))
    game.apply(pass_("Ann"))
    record = game.result()["games"][0]
    assert record["tricks"] == {"Ann": 4, "Bob": 5} and record["winner"] == "Bob"
    assert record["tie_break"] is False


def test_a_tie_broken_by_the_last_trick():
    # Game 2 of the documented example: Bob leads, tricks end 3-3, Ann took the last.
    game2 = example_events()[-21:]
    assert game2[0] == play("Bob", 10)
    game = match(*one_sided_game("Ann", range(1, 9)), *game2[:-2])
    assert game.state()["tricks"] == {"Ann": 2, "Bob": 3}
    assert game.state()["cards_left"] == {"Ann": 2, "Bob": 0}
    assert game.state()["trick"] == [18]
    game.apply(play("Ann", 19))
    assert game.expecting().prompt == "Bob has no cards: pass"
    game.apply(pass_("Bob"))
    record = game.result()["games"][1]
    assert record["tricks"] == {"Ann": 3, "Bob": 3}
    assert (record["last_trick"], record["tie_break"], record["winner"]) == ("Ann", True, "Ann")


# -- CU5: the match, alternating leaders ------------------------------------------------------


def test_first_to_three_games_with_the_first_leader_alternating():
    game = match()
    leaders = []
    for number in range(1, 6):
        leader = game.state()["first_leader"]
        leaders.append(leader)
        assert game.state()["game_number"] == number and game.expecting().player == leader
        for event in one_sided_game(leader, range(1, 9)):  # the leader takes every trick
            game.apply(event)
    assert leaders == ["Ann", "Bob", "Ann", "Bob", "Ann"]
    result = game.result()
    assert result["over"] is True and result["totals"] == {"Ann": 3, "Bob": 2}
    assert result["winners"] == ["Ann"]
    assert [record["winner"] for record in result["games"]] == leaders
    assert game.expecting().types == () and game.expecting().prompt == "Match over: Ann won 3-2"


def test_nothing_is_accepted_after_the_match():
    game = match(*one_sided_game("Ann", range(1, 9)), games_to_win=1)
    assert game.over and game.result()["winners"] == ["Ann"]
    assert game.state()["current"] is None
    for event in (play("Ann", 10), pass_("Bob"), play("Bob", 1)):
        refused(game, event, "the game is over")


def test_winners_are_empty_until_the_match_is_over():
    game = match(*one_sided_game("Ann", range(1, 9)))
    assert game.result()["totals"] == {"Ann": 1, "Bob": 0}
    assert game.result()["winners"] == [] and not game.over


# -- replay, undo, the documented example ------------------------------------------------------


def example_events() -> list[dict]:
    section = DOC.read_text(encoding="utf-8").split("\n## count-up-21\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    block = re.search(r"```jsonl\n(.*?)```", section.split("### Example game", 1)[1], re.S)
    return [json.loads(line) for line in block.group(1).splitlines() if line.strip()]


def test_the_documented_example_and_result():
    events = example_events()
    start = events[0]
    game = CountUp(start["players"], start["options"])
    for event in events[1:]:
        game.apply(event)
    section = DOC.read_text(encoding="utf-8").split("\n## count-up-21\n", 1)[1]
    shown = json.loads(re.search(r"```json\n(\{\n.*?)```", section, re.S).group(1))
    assert game.result() == shown
    assert shown["games"][0]["tie_break"] is False and shown["games"][1]["tie_break"] is True


def test_undo_and_replay_give_the_same_table():
    events = example_events()[1:]
    game = CountUp(["Ann", "Bob"], {"games_to_win": 2})
    for event in events[:25]:
        game.apply(event)
    again = CountUp.replay(game.players, game.options, events[:24])
    assert game.undone().state() == again.state()


def test_a_result_puts_the_winners_count_first() -> None:
    # "Bob won 0-1" read as Bob losing: the winner's count comes first, as a table says it.
    assert scores.tally({"Ann": 0, "Bob": 1}, "Bob") == "1-0"
    # A one-game match that Bob, the second player, wins: he takes Ann's lead, then leads
    # and keeps every trick.
    game = match(play("Ann", 1), play("Bob", 2), pass_("Ann"),
                 *one_sided_game("Bob", range(3, 17, 2)), games_to_win=1)
    assert game.result()["totals"] == {"Ann": 0, "Bob": 1}
    assert game.expecting().prompt == "Match over: Bob won 1-0"
