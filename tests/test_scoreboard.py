"""The scoreboard: rounds, one entry per player per round, target, low wins, end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.errors import BadSetup, IllegalEvent
from companion.games import new_match
from companion.games.scoreboard import Scoreboard

DOC = Path(__file__).resolve().parent.parent / "docs" / "events.md"
END = {"type": "end"}


def points(player: str, value: int) -> dict:
    return {"type": "points", "player": player, "points": value}


def sheet(*events: dict, players=("Ann", "Bob", "Cy"), **options) -> Scoreboard:
    board = Scoreboard(list(players), options)
    for event in events:
        board.apply(event)
    return board


def refused(board: Scoreboard, event: dict, words: str) -> None:
    before = json.dumps(board.state(), sort_keys=True)
    with pytest.raises(IllegalEvent, match=re.escape(words)):
        board.apply(event)
    assert json.dumps(board.state(), sort_keys=True) == before


def test_players_and_options():
    assert new_match("scoreboard", ["A", "B"]).options == {"target": 0, "low_wins": False}
    assert len(new_match("scoreboard", [f"P{n}" for n in range(10)]).players) == 10
    with pytest.raises(BadSetup, match="2 to 10 players"):
        new_match("scoreboard", ["Solo"])
    with pytest.raises(BadSetup, match="2 to 10 players"):
        new_match("scoreboard", [f"P{n}" for n in range(11)])
    with pytest.raises(BadSetup, match="target is 0"):
        new_match("scoreboard", ["A", "B"], {"target": -5})
    with pytest.raises(BadSetup, match="unknown option"):
        new_match("scoreboard", ["A", "B"], {"rounds": 5})


def test_a_round_is_complete_when_everyone_has_an_entry_in_any_order():
    board = sheet(points("Cy", 7), points("Ann", -5))
    state = board.state()
    assert state["round"] == 1 and state["entered"] == {"Cy": 7, "Ann": -5}
    assert state["waiting"] == ["Bob"] and state["totals"] == {"Ann": 0, "Bob": 0, "Cy": 0}
    assert state["rounds_entered"] == {"Ann": 1, "Bob": 0, "Cy": 1}
    assert board.expecting().player == "Bob" and board.expecting().types == ("points",)
    board.apply(points("Bob", 0))
    state = board.state()
    assert state["round"] == 2 and state["entered"] == {}
    assert state["waiting"] == ["Ann", "Bob", "Cy"]
    assert state["totals"] == {"Ann": -5, "Bob": 0, "Cy": 7}
    assert state["rounds"] == [{"round": 1, "points": {"Ann": -5, "Bob": 0, "Cy": 7}}]
    assert state["leaders"] == ["Cy"]


def test_a_second_entry_in_an_unfinished_round_is_refused():
    board = sheet(points("Ann", 5))
    refused(board, points("Ann", 3), "Ann already has 5 in round 1; waiting for Bob, Cy "
                                     "(undo to change it)")
    board.apply(points("Bob", 1))
    board.apply(points("Cy", 2))
    board.apply(points("Ann", 3))                   # round 2: a new entry for Ann is fine
    assert board.state()["entered"] == {"Ann": 3}


@pytest.mark.parametrize("value", [1.5, "5", None, True, [5]])
def test_points_are_whole_numbers(value):
    refused(sheet(), points("Ann", value), "points are a whole number")


def test_points_are_bounded_per_entry():
    board = sheet(points("Ann", 9999), points("Bob", -9999))
    refused(board, points("Cy", 10000), "points are -9999 to 9999 per entry, not 10000")
    refused(sheet(), points("Zed", 1), '"Zed" is not playing')
    refused(sheet(), {"type": "points", "player": "Ann"}, 'a points event needs "points"')


def test_the_target_ends_the_game_after_the_round_that_reaches_it():
    board = sheet(points("Ann", 60), target=50)
    assert not board.over                           # the round is not complete yet
    board.apply(points("Bob", 10))
    board.apply(points("Cy", 55))
    result = board.result()
    assert result["over"] and result["ended_by"] == "target"
    assert result["winners"] == ["Ann"] and result["target"] == 50
    refused(board, points("Ann", 1), "the game is over")
    refused(board, END, "the game is over")


def test_low_wins_with_a_target_reached_from_below():
    # Hearts to 100: the game stops when someone climbs to 100; the lowest wins.
    board = sheet(points("Ann", 40), points("Bob", 100), points("Cy", 20), target=100,
                  low_wins=True)
    result = board.result()
    assert result["over"] and result["winners"] == ["Cy"] and result["low_wins"] is True
    assert board.state()["standings"] == [[1, "Cy", 20], [2, "Ann", 40], [3, "Bob", 100]]


def test_ties_share_the_win():
    board = sheet(points("Ann", 10), points("Bob", 10), points("Cy", 3), END)
    assert board.result()["winners"] == ["Ann", "Bob"]


def test_end_only_between_rounds_and_after_one():
    refused(sheet(), END, "nothing is scored yet: enter a round first")
    half = sheet(points("Ann", 1), points("Bob", 2), points("Cy", 3), points("Bob", 4))
    refused(half, END, "round 2 is half entered: waiting for Ann, Cy (enter 0 for no "
                       "points, or undo)")
    assert half.expecting().types == ("points",)
    refused(half, {"type": "end", "now": True}, 'no field "now"')
    done = sheet(points("Ann", 1), points("Bob", 2), points("Cy", 3))
    assert done.expecting().types == ("points", "end") and done.state()["can_end"]
    done.apply(END)
    result = done.result()
    assert result["over"] and result["ended_by"] == "end" and result["winners"] == ["Cy"]
    assert done.expecting().types == () and done.expecting().prompt == "Game over: Cy won"


def test_without_a_target_the_game_runs_until_end():
    board = sheet(players=("Ann", "Bob"))
    for _ in range(50):
        board.apply(points("Ann", 9999))
        board.apply(points("Bob", -9999))
    assert not board.over and board.state()["round"] == 51
    assert board.result()["target"] is None and board.result()["winners"] == []


def test_undo_and_replay():
    events = [points("Ann", 5), points("Bob", 7), points("Cy", 1), points("Bob", 2)]
    board = sheet(*events)
    assert board.undone().state() == sheet(*events[:-1]).state()
    again = Scoreboard.replay(["Ann", "Bob", "Cy"], None, events)
    assert again.state() == board.state()


def section() -> str:
    return DOC.read_text(encoding="utf-8").split("\n## scoreboard\n", 1)[1].split("\n## ", 1)[0]


def test_the_documented_example_and_result():
    block = re.search(r"```jsonl\n(.*?)```", section().split("### Example game", 1)[1], re.S)
    events = [json.loads(line) for line in block.group(1).splitlines() if line.strip()]
    start, events = events[0], events[1:]
    board = Scoreboard(start["players"], start["options"])
    for number, event in enumerate(events):
        board.apply(event)
        if number == 6:  # Bob's 30 takes him past 50, but the round is not complete
            assert not board.over and board.state()["entered"] == {"Bob": 30}
    shown = json.loads(re.search(r"```json\n(\{\n.*?)```", section(), re.S).group(1))
    assert board.result() == shown
