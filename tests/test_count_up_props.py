"""Count Up 21 under random play: legal matches keep the invariants, junk changes nothing.

Legal matches are played the way the screens drive them: ask ``expecting()`` what may
come next and pick at random (passing now and then when a play is possible too).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEvent
from companion.games.count_up import CARDS, DEALT_TO_EACH_PLAYER, CountUp

PLAYERS = ("Ann", "Bob")
MAX_EVENTS = 2000

matches = st.tuples(st.integers(min_value=1, max_value=4), st.randoms(use_true_random=False))


def legal_event(match: CountUp, rnd: random.Random) -> dict[str, Any]:
    expect = match.expecting()
    player = expect.player
    if "play" in expect.types and ("pass" not in expect.types or rnd.random() < 0.7):
        return {"type": "play", "player": player, "card": rnd.choice(expect.choices["card"])}
    return {"type": "pass", "player": player}


def play(match: CountUp, rnd: random.Random, stop: int = MAX_EVENTS):
    while not match.over and len(match.events) < stop:
        event = legal_event(match, rnd)
        assert event["type"] in match.expecting().types
        match.apply(event)
        yield event


def played(games_to_win: int, rnd: random.Random, stop: int) -> CountUp:
    match = CountUp(PLAYERS, {"games_to_win": games_to_win})
    for _ in play(match, rnd, stop):
        pass
    return match


def cards_played_by(match: CountUp) -> dict[str, int]:
    """Cards each player put down this game: a trick's cards alternate from its leader."""
    count = dict.fromkeys(PLAYERS, 0)
    tricks = [(trick["leader"], trick["cards"]) for trick in match.history]
    for leader, cards in [*tricks, (match.leader, match.trick)]:
        other = next(p for p in PLAYERS if p != leader)
        for position in range(len(cards)):
            count[leader if position % 2 == 0 else other] += 1
    return count


def check_invariants(match: CountUp) -> None:
    state = match.state()
    # no number is played twice in a game, and every one is a card 1-21
    assert len(set(state["played"])) == len(state["played"])
    assert set(state["played"]) <= set(CARDS)
    # tricks won add up to tricks played; cards left never negative and never above 8
    assert sum(state["tricks"].values()) == state["tricks_played"]
    assert all(0 <= left <= DEALT_TO_EACH_PLAYER for left in state["cards_left"].values())
    # every card played came out of its player's hand
    played_by = cards_played_by(match)
    assert all(state["cards_left"][p] == DEALT_TO_EACH_PLAYER - played_by[p] for p in PLAYERS)
    assert len(state["played"]) == sum(played_by.values())
    # the trick counts up by 1 to 3 each time, never above 21
    trick = state["trick"]
    assert all(1 <= later - earlier <= 3 for earlier, later in zip(trick, trick[1:], strict=False))
    assert state["highest"] == (trick[-1] if trick else None)
    # games: the winner had more tricks, or the same and the last trick
    for record in state["games"]:
        tricks = record["tricks"]
        other = next(p for p in PLAYERS if p != record["winner"])
        assert tricks[record["winner"]] > tricks[other] or (
            tricks[record["winner"]] == tricks[other] and record["last_trick"] == record["winner"]
        )
        assert record["history"][-1]["winner"] == record["last_trick"]
        numbers = [card for trick in record["history"] for card in trick["cards"]]
        assert len(numbers) == len(set(numbers))
    # the first leaders alternate, starting with the first player entered
    leaders = [record["first_leader"] for record in state["games"]]
    assert leaders == [PLAYERS[i % 2] for i in range(len(leaders))]
    # the match score is the games won, and the match ends at games_to_win
    assert sum(state["totals"].values()) == len(state["games"])
    assert match.over == (max(state["totals"].values()) == match.games_to_win)
    assert state["winners"] == ([max(state["totals"], key=state["totals"].get)]
                                if match.over else [])
    assert (state["current"] is None) == match.over == (match.expecting().types == ())


@settings(max_examples=25, deadline=None)
@given(matches)
def test_random_legal_matches_keep_the_invariants(game) -> None:
    games_to_win, rnd = game
    match = CountUp(PLAYERS, {"games_to_win": games_to_win})
    check_invariants(match)
    for _ in play(match, rnd):
        check_invariants(match)
    assert match.over, "a match always ends: every trick uses up cards"
    again = CountUp.replay(match.players, match.options, match.events)
    assert again.result() == match.result() and again.state() == match.state()


def wrong_events(match: CountUp, rnd: random.Random) -> list[dict[str, Any]]:
    """Events that must be refused now, whatever the moment."""
    state = match.state()
    player = state["current"]
    other = next(p for p in PLAYERS if p != player)
    allowed = set(state["may_play"])
    wrong: list[dict[str, Any]] = [
        {"type": "play", "player": other, "card": rnd.choice(CARDS)},
        {"type": "pass", "player": other},
        {"type": "play", "player": "Zed", "card": 5},
        {"type": "play", "player": player, "card": rnd.choice([0, 22, -1, 1.5, "7"])},
        {"type": "play", "player": player, "card": rnd.choice(CARDS), "extra": 1},
        {"type": "deal"},
    ]
    if state["played"]:
        wrong.append({"type": "play", "player": player, "card": rnd.choice(state["played"])})
    outside = [card for card in CARDS if card not in allowed]
    if outside:
        wrong.append({"type": "play", "player": player, "card": rnd.choice(outside)})
    if not state["trick"]:
        wrong.append({"type": "pass", "player": player})
    return wrong


@settings(max_examples=30, deadline=None)
@given(matches, st.integers(min_value=0, max_value=150))
def test_events_that_break_the_rules_are_refused_and_change_nothing(game, stop) -> None:
    games_to_win, rnd = game
    match = played(games_to_win, rnd, stop)
    if match.over:
        events = [{"type": "play", "player": "Ann", "card": 1}, {"type": "pass", "player": "Bob"}]
    else:
        events = wrong_events(match, rnd)
    for event in events:
        before = copy.deepcopy(match.state())
        count = len(match.events)
        with pytest.raises(IllegalEvent) as refusal:
            match.apply(event)
        assert str(refusal.value)
        assert match.state() == before and len(match.events) == count


@settings(max_examples=20, deadline=None)
@given(matches, st.integers(min_value=1, max_value=120))
def test_undo_is_replaying_all_but_the_last_event(game, stop) -> None:
    games_to_win, rnd = game
    match = played(games_to_win, rnd, stop)
    previous = CountUp.replay(match.players, match.options, match.events[:-1])
    assert match.undone().state() == previous.state()
