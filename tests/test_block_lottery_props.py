"""Block Lottery under random play: legal games keep the invariants, junk changes nothing.

Legal games are built the way the screens drive them: ask ``expecting()`` (and
``state()``) what may come next and pick a legal outcome at random. The random source is
a hypothesis-seeded ``random.Random``, so a failure shrinks to a seed.
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
from companion.games.block_lottery import (
    HAND_SIZE,
    LOTTERY_TOKENS,
    MIN_BLOCK,
    POOL_SIZE,
    ROUNDS,
    BlockLottery,
)

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Flo")
MAX_EVENTS = 400

games = st.tuples(
    st.integers(min_value=2, max_value=6),
    st.fixed_dictionaries({"lucky_card_bonus": st.booleans(), "long_game": st.booleans()}),
    st.randoms(use_true_random=False),
)


def legal_event(match: BlockLottery, rnd: random.Random) -> dict[str, Any]:
    """A random event the rules allow now, chosen from what the match expects."""
    expect = match.expecting()
    kind = expect.types[0]
    if kind == "pool":
        return {"type": "pool", "faces": [rnd.randint(1, 6) for _ in range(POOL_SIZE)]}
    if kind == "take":
        return play_event(expect.choices, rnd)
    if kind == "reroll":
        waiting = expect.choices["player"]
        if waiting and rnd.random() < 0.5:
            return reroll_event(match, rnd.choice(waiting), rnd)
        kind = "token"
    if kind == "token":
        return {"type": "token", "token": rnd.choice(expect.choices["token"])}
    return score_event(match, rnd)


def play_event(choices: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    chance = rnd.random()
    if chance < 0.04:
        return {"type": "end", "player": rnd.choice(choices["player"]), "cause": "deck_out"}
    if chance < 0.10 and choices["empty_hand"]:
        return {"type": "end", "player": rnd.choice(choices["empty_hand"]),
                "cause": "empty_hand"}
    return {"type": "take", "player": rnd.choice(choices["player"]),
            "face": rnd.choice(choices["face"])}


def reroll_event(match: BlockLottery, player: str, rnd: random.Random) -> dict[str, Any]:
    dice = match.state()["dice"][player]
    picked = rnd.sample(dice, rnd.randint(1, len(dice)))
    return {"type": "reroll", "player": player, "from": picked,
            "to": [rnd.randint(1, 6) for _ in picked]}


def score_event(match: BlockLottery, rnd: random.Random) -> dict[str, Any]:
    """Counts for the next player that leave room for a true round whoever comes after.

    The remaining players are entered in seat order, but the one who ended the round
    with an empty hand (hand 0) never last: the last entry takes up the rest of the
    cards, in hand.
    """
    state = match.state()
    waiting = list(match.expecting().choices["player"])
    ender = state["ended_by"] if state["end"] == "empty_hand" else None
    if len(waiting) > 1 and waiting[-1] == ender:
        waiting.insert(0, waiting.pop())
    player = waiting[0]
    least = {p: MIN_BLOCK if state["dice"][p] else 0 for p in waiting}
    entered = sum(row["blocks"] + row["hand"] for row in state["entered"].values())
    deck = 7 * match.options["cards_per_number"] + match.options["wilds"]
    dealt = HAND_SIZE * len(match.players)
    if len(waiting) == 1:
        target = deck if state["end"] == "deck_out" else max(dealt, entered + least[player])
        rest = target - entered
        blocks = max(least[player], rest if player == ender else 0)
        hand = rest - blocks
    else:
        target = deck if state["end"] == "deck_out" else rnd.randint(dealt, deck)
        spare = target - entered - sum(least.values())
        extra = rnd.randint(0, max(0, min(spare, 12)))
        blocks, hand = least[player], 0
        if player == ender or (blocks and rnd.random() < 0.5):
            blocks += extra
        elif extra >= MIN_BLOCK and rnd.random() < 0.5:
            blocks += extra
        else:
            hand += extra
    event = {"type": "score", "player": player, "blocks": blocks, "hand": hand}
    if match.options["lucky_card_bonus"] and state["lucky_number"] is not None:
        used = sum(row["lucky"] for row in state["entered"].values())
        event["lucky"] = rnd.randint(0, max(0, min(blocks, 7 - used)))
    return event


def check_invariants(match: BlockLottery) -> None:
    state = match.state()
    dice = state["dice"]
    held = Counter(face for faces in dice.values() for face in faces)
    pool = Counter({face: count for face, count in zip(range(1, 7), state["pool"],
                                                         strict=True) if count})
    if state["phase"] == "pool":
        assert state["rolled"] == [] and state["pool_left"] == 0 and not held
    else:
        # dice are never created or lost between the pool and the players
        assert state["pool_left"] + sum(held.values()) == POOL_SIZE
        if not state["rerolled"]:
            assert pool + held == Counter(state["rolled"])
        # the faces in the pool are the ones rolled and not taken: re-rolls never touch it
        assert not pool - Counter(state["rolled"])
    assert state["pool_left"] == sum(state["pool"]) >= 0
    # tokens are drawn without replacement from the eight
    tokens = state["tokens"]
    assert len(tokens) == len(set(tokens)) <= 3 and set(tokens) <= set(LOTTERY_TOKENS)
    assert sorted(tokens + state["tokens_left"]) == sorted(LOTTERY_TOKENS)
    # the totals are the rounds' points; no round score below 0
    rounds = state["rounds"]
    assert len(rounds) <= ROUNDS and match.over == (len(rounds) == ROUNDS)
    assert state["totals"] == {p: sum(r["points"][p] for r in rounds) for p in match.players}
    for number, record in enumerate(rounds, start=1):
        assert record["round"] == number
        for row in record["players"].values():
            assert row["score"] == max(0, row["raw"]) >= 0
            assert row["raw"] == (row["cards"] + row["dice"] + row["lottery"] + row["lucky"]
                                  - row["hand"])
            assert row["dice"] == len(row["faces"])
        assert sum(row["dice"] for row in record["players"].values()) <= POOL_SIZE
    # whoever ended a round deals the next
    for before, after in zip(rounds, rounds[1:], strict=False):
        assert after["dealer"] == before["ended_by"]
    if rounds and not match.over:
        assert state["dealer"] == rounds[-1]["ended_by"]
    assert match.over == (state["phase"] == "over") == (match.expecting().types == ())
    if match.over:
        best = max(state["totals"].values())
        assert set(state["winners"]) <= {p for p, t in state["totals"].items() if t == best}
    else:
        assert state["winners"] == []


def play(match: BlockLottery, rnd: random.Random, stop: int = MAX_EVENTS):
    """Apply random legal events to ``match``, yielding after each (at most ``stop``)."""
    while not match.over and len(match.events) < stop:
        event = legal_event(match, rnd)
        assert event["type"] in match.expecting().types
        match.apply(event)
        yield event


def played(players: int, options: dict, rnd: random.Random, stop: int) -> BlockLottery:
    match = BlockLottery(NAMES[:players], options)
    for _ in play(match, rnd, stop):
        pass
    return match


@settings(max_examples=25, deadline=None)
@given(games)
def test_random_legal_games_keep_the_invariants(game) -> None:
    players, options, rnd = game
    match = BlockLottery(NAMES[:players], options)
    check_invariants(match)
    for _ in play(match, rnd):
        check_invariants(match)
    assert match.over, "a random game should finish its three rounds"
    again = BlockLottery.replay(match.players, match.options, match.events)
    assert again.state() == match.state()
    assert again.result() == match.result()


@settings(max_examples=25, deadline=None)
@given(games, st.integers(min_value=0, max_value=120))
def test_undo_is_the_log_without_its_last_event(game, stop) -> None:
    players, options, rnd = game
    match = played(players, options, rnd, stop)
    again = BlockLottery.replay(match.players, match.options, copy.deepcopy(match.events))
    assert again.state() == match.state()
    if match.events:
        assert match.undone().state() == BlockLottery.replay(
            match.players, match.options, match.events[:-1]).state()


def wrong_events(match: BlockLottery, rnd: random.Random) -> list[dict[str, Any]]:
    """Events that must be refused now, whatever the moment."""
    state = match.state()
    phase = state["phase"]
    absent = [face for face in range(1, 7) if not state["pool"][face - 1]]
    wrong: list[dict[str, Any]] = [
        {"type": "take", "player": "Zed", "face": 3},
        {"type": "take", "player": "Ann", "face": rnd.choice([0, 7, -1, 2.5, "3", None])},
        {"type": "pool", "faces": [3] * 14},
        {"type": "token", "token": rnd.choice(["7", "none", 4, None, "Ann"])},
        {"type": "score", "player": "Ann", "blocks": rnd.choice([1, 2]), "hand": 0},
        {"type": "reroll", "player": "Ann", "from": [7], "to": [1]},
        {"type": "end", "player": "Ann", "cause": "last_die"},
        {"type": "shuffle"},
    ]
    if absent:
        wrong.append({"type": "take", "player": "Bob", "face": rnd.choice(absent)})
    if state["tokens"]:
        wrong.append({"type": "token", "token": rnd.choice(state["tokens"])})
    if phase != "pool":
        wrong.append({"type": "pool", "faces": [1] * POOL_SIZE})
    if phase != "play":
        wrong.append({"type": "take", "player": "Ann", "face": 1})
        wrong.append({"type": "end", "player": "Ann", "cause": "deck_out"})
    if phase != "finalise":
        wrong.append({"type": "reroll", "player": "Ann", "from": [1], "to": [2]})
    for player, done in state["rerolled"].items():
        wrong.append({"type": "reroll", "player": player, "from": done["to"][:1], "to": [1]})
    for player in state["entered"]:
        wrong.append({"type": "score", "player": player, "blocks": 3, "hand": 3})
    if phase == "scoring":
        deck = 7 * match.options["cards_per_number"] + match.options["wilds"]
        player = match.expecting().choices["player"][0]
        wrong.append({"type": "score", "player": player, "blocks": deck + 1, "hand": 0})
    if phase == "play" and match.options["long_game"]:
        wrong.append({"type": "end", "player": "Ann", "cause": "empty_hand"})
    if phase == "play" and not state["dice"]["Ann"]:
        wrong.append({"type": "end", "player": "Ann", "cause": "empty_hand"})
    return wrong


@settings(max_examples=30, deadline=None)
@given(games, st.integers(min_value=0, max_value=150))
def test_events_that_break_the_rules_change_nothing(game, stop) -> None:
    players, options, rnd = game
    match = played(players, options, rnd, stop)
    for event in wrong_events(match, rnd):
        before = copy.deepcopy(match.state())
        count = len(match.events)
        with pytest.raises(IllegalEvent) as refusal:
            match.apply(event)
        assert str(refusal.value)
        assert match.state() == before and len(match.events) == count


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60)
    | st.sampled_from([*NAMES, "Zed", *LOTTERY_TOKENS, "empty_hand", "deck_out"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
junk_events = st.fixed_dictionaries(
    {"type": st.sampled_from(["pool", "take", "end", "reroll", "token", "score", "start", 3])},
    optional={
        "player": st.sampled_from([*NAMES, "Zed", "", None, ["Ann"]]),
        "faces": json_values,
        "face": json_values,
        "cause": json_values,
        "from": json_values,
        "to": json_values,
        "token": json_values,
        "blocks": json_values,
        "hand": json_values,
        "lucky": json_values,
    },
)


@settings(max_examples=30, deadline=None)
@given(games, st.integers(min_value=0, max_value=120), st.lists(junk_events, max_size=8))
def test_random_events_are_refused_and_change_nothing(game, stop, junk) -> None:
    players, options, rnd = game
    match = played(players, options, rnd, stop)
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
            check_invariants(match)
