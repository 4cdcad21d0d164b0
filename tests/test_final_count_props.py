"""Final Count under random play: legal games keep the invariants, junk changes nothing.

Legal games are built the way a screen would drive them: ask ``expecting()`` (and the
card limits in ``state()``) what may come next, and pick a legal value at random. The
random source is a hypothesis-seeded ``random.Random`` so failures shrink to a seed.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEvent
from companion.games.final_count import (
    COPIES_OF_EACH_RANK,
    GAME_TARGET,
    RANKS,
    FinalCount,
    draw_pile_after_deal,
)

NAMES = ("Ann", "Bob", "Cy", "Dee")
MAX_EVENTS = 1500

games = st.tuples(
    st.integers(min_value=2, max_value=4),
    st.booleans(),
    st.randoms(use_true_random=False),
)


def unseen_cards(state: dict[str, Any]) -> list[str]:
    """The deck minus every card entered this hand (one deck: 4 of each rank)."""
    left = Counter({rank: COPIES_OF_EACH_RANK for rank in RANKS})
    entered = state["entered"]
    left.subtract(entered["board"] or [])
    for cards in entered["hands"].values():
        left.subtract(cards)
    return list(left.elements())


def legal_event(match: FinalCount, rnd: random.Random) -> dict[str, Any]:
    """A random event that the rules allow now, chosen from what the match expects."""
    expect = match.expecting()
    kind = expect.types[0]
    if "call" in expect.types and rnd.random() < 0.25:
        kind = "call"
    if kind == "goal":
        return {"type": "goal", "rolls": [rnd.choice(expect.choices["rolls"]) for _ in "ab"]}
    if kind == "roll":
        return {"type": "roll", "player": expect.player, "value": rnd.choice(FACES_WEIGHTED)}
    if kind == "call":
        return {"type": "call", "player": rnd.choice(expect.choices["caller"])}
    state = match.state()  # only now: the card limits and what was entered
    if kind == "board":
        low, high = state["card_limits"]["board"]
        return {"type": "board", "cards": pick_cards(state, low, high, rnd)}
    player = rnd.choice(expect.choices["player"])
    low, high = state["card_limits"]["hands"][player]
    return {"type": "hand", "player": player, "cards": pick_cards(state, low, high, rnd)}


# Extra 1s, 2s and 3s so that hands grow, totals climb and games end in fewer hands.
FACES_WEIGHTED = (1, 1, 2, 2, 3, 3, 4, 5, 6)


def pick_cards(state: dict[str, Any], low: int, high: int, rnd: random.Random) -> list[str]:
    size = high if rnd.random() < 0.5 else rnd.randint(low, high)
    return rnd.sample(unseen_cards(state), size)


def check_invariants(match: FinalCount, before: dict[str, Any]) -> None:
    state = match.state()
    expect = match.expecting()
    # totals never go down, and are the sum of the points of the hands played
    assert all(state["totals"][p] >= before["totals"][p] for p in match.players)
    assert state["totals"] == {
        p: sum(hand["players"][p]["points"] for hand in state["hands"]) for p in match.players
    }
    # exactly one current player while turns are taken, and none otherwise
    if state["phase"] == "play":
        assert state["current"] in match.players and expect.player == state["current"]
    else:
        assert state["current"] is None
    # the game is over exactly when a cumulative total has reached 300
    assert match.over == (max(state["totals"].values()) >= GAME_TARGET)
    assert match.over == (state["phase"] == "over") == (expect.types == ())
    assert state["winners"] == (
        [p for p, t in state["totals"].items() if t == max(state["totals"].values())]
        if match.over
        else []
    )
    # the draw pile: what the deal left, minus the rolls that took a card
    drawn = sum(1 for roll in state["rolls"] if roll["took_card"])
    assert state["draw_pile"] == draw_pile_after_deal(len(match.players)) - drawn >= 0
    # the final round is the players after the caller still to play, current first
    if state["caller"] is not None and state["phase"] == "play":
        assert state["final_round"][0] == state["current"]
        assert state["caller"] not in state["final_round"]
    else:
        assert state["final_round"] == []
    assert state["dealer"] == NAMES[: len(match.players)][(state["hand"] - 2) % len(match.players)]
    for hand in state["hands"]:
        winners = hand["winners"]
        assert all(hand["players"][p]["points"] == hand["split"] for p in winners)
        assert hand["split"] == (hand["pot"] // len(winners) if winners else 0)


def play(match: FinalCount, rnd: random.Random, stop: int = MAX_EVENTS):
    """Apply random legal events to ``match``, yielding after each (at most ``stop``)."""
    while not match.over and len(match.events) < stop:
        event = legal_event(match, rnd)
        assert event["type"] in match.expecting().types
        match.apply(event)
        yield event


def played(players: int, hit_goal: bool, rnd: random.Random, stop: int) -> FinalCount:
    """A match some random legal way into a game."""
    match = FinalCount(NAMES[:players], {"hit_goal": hit_goal})
    for _ in play(match, rnd, stop):
        pass
    return match


@settings(max_examples=12, deadline=None)
@given(games)
def test_random_legal_games_keep_the_invariants(game) -> None:
    players, hit_goal, rnd = game
    match = FinalCount(NAMES[:players], {"hit_goal": hit_goal})
    before = match.state()
    for _ in play(match, rnd):
        check_invariants(match, before)
        before = match.state()  # state() is a fresh snapshot every time
        if before["phase"] in ("board", "hands"):
            # entering cards: one card too few or too many is refused, every time
            for event in wrong_events(match, rnd):
                with pytest.raises(IllegalEvent):
                    match.apply(event)
            assert match.state() == before
    assert match.over, "a random game should reach 300"
    # the whole log replays to the same match, and so does every prefix's undo
    again = FinalCount.replay(match.players, match.options, match.events)
    assert again.state() == match.state()
    assert again.result() == match.result()


@settings(max_examples=20, deadline=None)
@given(games, st.integers(min_value=0, max_value=200))
def test_replay_equals_the_match_applied_event_by_event(game, stop) -> None:
    players, hit_goal, rnd = game
    match = played(players, hit_goal, rnd, stop)
    again = FinalCount.replay(match.players, match.options, copy.deepcopy(match.events))
    assert again.state() == match.state()
    if match.events:
        assert (
            match.undone().state()
            == FinalCount.replay(match.players, match.options, match.events[:-1]).state()
        )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 15) | st.sampled_from([*NAMES, "Zed", *RANKS]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
junk_events = st.fixed_dictionaries(
    {"type": st.sampled_from(["goal", "roll", "call", "board", "hand", "start", "pass", 3])},
    optional={
        "player": st.sampled_from([*NAMES, "Zed", "", None, ["Ann"]]),
        "value": json_values,
        "rolls": json_values,
        "cards": json_values,
        "extra": json_values,
    },
)


@settings(max_examples=30, deadline=None)
@given(games, st.integers(min_value=0, max_value=120), st.lists(junk_events, max_size=8))
def test_random_events_are_refused_and_change_nothing(game, stop, junk) -> None:
    players, hit_goal, rnd = game
    match = played(players, hit_goal, rnd, stop)
    for event in junk:
        before = copy.deepcopy(match.state())
        expected = match.expecting()
        count = len(match.events)
        try:
            match.apply(event)
        except IllegalEvent as refusal:
            assert str(refusal)
            assert match.state() == before
            assert len(match.events) == count
        else:
            # whatever got through was something the match said it was waiting for
            assert event["type"] in expected.types


def wrong_events(match: FinalCount, rnd: random.Random) -> list[dict[str, Any]]:
    """Events that must be refused now, whatever the moment."""
    expect = match.expecting()
    state = match.state()
    others = [p for p in match.players if p != expect.player]
    wrong: list[dict[str, Any]] = [
        {"type": "roll", "player": "Zed", "value": 3},
        {"type": "roll", "player": expect.player or "Ann", "value": rnd.choice([0, 7, -1, 2.5])},
        {"type": "roll", "player": rnd.choice(others), "value": 3},
        {"type": "hand", "player": "Ann", "cards": ["A", "1"]},
        {"type": "board", "cards": ["Z", "K"]},
        {"type": "goal", "rolls": [0, 4]},
        {"type": "shuffle"},
    ]
    if state["caller"] is not None or state["phase"] != "play":
        wrong.append({"type": "call", "player": rnd.choice(match.players)})
    if state["phase"] == "hands":
        entered = list(state["entered"]["hands"])
        if entered:
            wrong.append({"type": "hand", "player": entered[0], "cards": ["2", "3", "4"]})
        # one card too few or too many, all of them cards that are still unseen
        waiting = rnd.choice(expect.choices["player"])
        low, high = state["card_limits"]["hands"][waiting]
        for size in (low - 1, high + 1):
            cards = rnd.sample(unseen_cards(state), size)
            wrong.append({"type": "hand", "player": waiting, "cards": cards})
    if state["phase"] == "board":
        low, high = state["card_limits"]["board"]
        for size in (low - 1, high + 1):
            wrong.append({"type": "board", "cards": rnd.sample(unseen_cards(state), size)})
        wrong.append({"type": "board", "cards": ["J"] * 5})
    return wrong


@settings(max_examples=30, deadline=None)
@given(games, st.integers(min_value=0, max_value=150))
def test_events_that_break_the_rules_are_always_refused(game, stop) -> None:
    players, hit_goal, rnd = game
    match = played(players, hit_goal, rnd, stop)
    for event in wrong_events(match, rnd):
        before = copy.deepcopy(match.state())
        with pytest.raises(IllegalEvent):
            match.apply(event)
        assert match.state() == before
