"""The scoreboard under random entries: the sheet adds up, rounds stay whole, junk
changes nothing."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEvent
from companion.games.scoreboard import POINTS_LIMIT, Scoreboard

NAMES = tuple(f"P{n}" for n in range(1, 11))

boards = st.tuples(
    st.integers(min_value=2, max_value=10),
    st.sampled_from([0, 0, 30, 100]),
    st.booleans(),
    st.randoms(use_true_random=False),
)


def new_board(players: int, target: int, low_wins: bool) -> Scoreboard:
    return Scoreboard(NAMES[:players], {"target": target, "low_wins": low_wins})


def legal_event(board: Scoreboard, rnd: random.Random) -> dict[str, Any]:
    expect = board.expecting()
    if "end" in expect.types and rnd.random() < 0.05:
        return {"type": "end"}
    player = rnd.choice(expect.choices["player"])
    return {"type": "points", "player": player, "points": rnd.randint(-10, 25)}


def check_invariants(board: Scoreboard) -> None:
    state = board.state()
    rounds = state["rounds"]
    # the totals are the sum of the complete rounds, and every round has every player
    assert all(set(r["points"]) == set(board.players) for r in rounds)
    assert state["totals"] == {p: sum(r["points"][p] for r in rounds) for p in board.players}
    # rounds entered: everyone has the complete rounds, plus one if in the current round
    done = len(rounds)
    assert state["rounds_entered"] == {p: done + (p in state["entered"]) for p in board.players}
    assert set(state["waiting"]) | set(state["entered"]) == (set() if board.over
                                                              else set(board.players))
    assert not set(state["waiting"]) & set(state["entered"])
    # over exactly by end, or by a complete round that reached the target
    reached = bool(state["target"]) and any(t >= state["target"] for t in state["totals"].values())
    assert board.over == (state["ended_by"] is not None) == (reached or state["ended_by"] == "end")
    if board.over:
        assert state["entered"] == {}
        best = (min if state["low_wins"] else max)(state["totals"].values())
        assert state["winners"] == [p for p, t in state["totals"].items() if t == best]
    else:
        assert state["winners"] == []
    assert state["can_end"] == (not board.over and done > 0 and not state["entered"])


@settings(max_examples=30, deadline=None)
@given(boards, st.integers(min_value=0, max_value=200))
def test_random_sheets_keep_the_invariants(board_setup, events) -> None:
    *setup, rnd = board_setup
    board = new_board(*setup)
    for _ in range(events):
        if board.over:
            break
        board.apply(legal_event(board, rnd))
        check_invariants(board)
    again = Scoreboard.replay(board.players, board.options, board.events)
    assert again.state() == board.state()


def wrong_events(board: Scoreboard, rnd: random.Random) -> list[dict[str, Any]]:
    state = board.state()
    wrong: list[dict[str, Any]] = [
        {"type": "points", "player": "Zed", "points": 1},
        {"type": "points", "player": rnd.choice(board.players), "points": POINTS_LIMIT + 1},
        {"type": "points", "player": rnd.choice(board.players), "points": rnd.choice(
            [1.5, "3", None, True])},
        {"type": "points", "player": rnd.choice(board.players)},
        {"type": "roll", "value": 3},
    ]
    if state["entered"]:
        wrong.append({"type": "points", "player": rnd.choice(list(state["entered"])),
                      "points": 1})
        wrong.append({"type": "end"})
    if not state["rounds"]:
        wrong.append({"type": "end"})
    if board.over:
        wrong.append({"type": "points", "player": board.players[0], "points": 1})
    return wrong


@settings(max_examples=30, deadline=None)
@given(boards, st.integers(min_value=0, max_value=120))
def test_events_that_break_the_rules_are_refused_and_change_nothing(board_setup, stop) -> None:
    *setup, rnd = board_setup
    board = new_board(*setup)
    while not board.over and len(board.events) < stop:
        board.apply(legal_event(board, rnd))
    for event in wrong_events(board, rnd):
        before = copy.deepcopy(board.state())
        count = len(board.events)
        with pytest.raises(IllegalEvent) as refusal:
            board.apply(event)
        assert str(refusal.value)
        assert board.state() == before and len(board.events) == count
