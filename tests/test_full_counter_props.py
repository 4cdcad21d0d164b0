"""Full Counter under random play: whose turn always matches a brute-force walk round
the table, what expecting() offers is exactly what is accepted, and junk changes nothing.

Games are built the way a screen drives them: ask ``expecting()`` what may come next and
pick from it at random. The random source is a hypothesis-seeded ``random.Random`` so
failures shrink to a seed.
"""

from __future__ import annotations

import copy
import random
from typing import Any, NamedTuple

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEvent
from companion.games.full_counter import (
    ABILITIES,
    BACK_STABBER,
    BLACK_MARKET,
    EFFECTS,
    FullCounter,
)

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")
MAX_EVENTS = 150

games = st.tuples(
    st.integers(min_value=2, max_value=5),
    st.booleans(),
    st.randoms(use_true_random=False),
)


def brute_force_next(players: tuple[str, ...], out: set[str], player: str, direction: int,
                     skip: int) -> str:
    """Write out everyone after ``player`` in the direction of play, the player last,
    drop who is out, and count ``skip`` places on, round and round."""
    n = len(players)
    seat = players.index(player)
    ring = [players[(seat + direction * step) % n] for step in range(1, n + 1)]
    still_in = [name for name in ring if name not in out]
    return still_in[skip % len(still_in)]


def random_event(match: FullCounter, rnd: random.Random) -> dict[str, Any]:
    """A legal event, chosen from what the match expects."""
    expect = match.expecting()
    if "starter" in expect.types:
        value = expect.choices["value"][0]
        if rnd.random() < 0.4:
            return {"type": "starter", "value": value, "face_up": [], "in_hand": []}
        holders = rnd.sample(match.players, rnd.randint(1, len(match.players)))
        return {"type": "starter", "value": value, "face_up": holders}
    player = expect.player
    roll = rnd.random()
    if roll < 0.06:
        return {"type": "out", "player": rnd.choice(expect.choices["out"])}
    if roll < 0.16 and "pickup" in expect.types:
        return {"type": "pickup", "player": player}
    if match.quick:
        effect = rnd.choice(EFFECTS)
        event: dict[str, Any] = {"type": "play", "player": player, "effect": effect}
        if effect in ABILITIES:
            event["count"] = rnd.choice(expect.choices["count"])
        return event
    if roll < 0.24:
        return {"type": "blind", "player": player, "value": rnd.choice(match.deck.cards())}
    if roll < 0.34:
        first = rnd.choice(expect.choices["first"])
        last = first + rnd.choice([-3, -2, -1, 1, 2, 3])
        if 1 <= last <= match.deck.numbers:
            return {"type": "chain", "player": player, "first": first, "last": last}
    value = rnd.choice(expect.choices["value"])
    count = rnd.randint(1, min(2, match.deck.copies_of(value)))
    return {"type": "play", "player": player, "value": value, "count": count}


class Before(NamedTuple):
    """What the checks need from the match before an event (a cheap copy)."""

    phase: str
    current: str | None
    direction: int
    burns: int
    blind_legal: bool


def before_of(match: FullCounter, event: dict[str, Any]) -> Before:
    legal = (event["type"] == "blind" and match.phase == "play"
             and event["value"] in match.legal_cards())
    return Before(match.phase, match.current, match.direction, match.burns, legal)


def expected_turn(before: Before, event: dict[str, Any], after: FullCounter) -> str | None:
    """Whose turn it should be after ``event``, walking the table by brute force."""
    kind, player = event["type"], event.get("player")
    direction = after.direction
    out = set(after.out)
    if kind == "out":
        if before.current != player:
            return before.current
        return brute_force_next(after.players, out, player, direction, 0)
    if after.burns > before.burns:
        return player                                  # a burn: the same player again
    if kind == "pickup" or (kind == "blind" and not after.pile):
        return brute_force_next(after.players, out, player, direction, 0)
    if kind == "chain":
        last_card = event["last"]
        skip = int(after.deck.role(last_card) == BACK_STABBER)
    elif after.quick:
        skip = event.get("count", 1) if event.get("effect") == BACK_STABBER else 0
    else:
        skip = event.get("count", 1) if after.deck.role(event["value"]) == BACK_STABBER else 0
    return brute_force_next(after.players, out, player, direction, skip)


def expected_direction(before: Before, event: dict[str, Any], after: FullCounter) -> int:
    if event["type"] not in ("play", "chain", "blind") or before.phase != "play":
        return before.direction
    if event["type"] == "chain":
        reversals = int(after.deck.role(event["last"]) == BLACK_MARKET)
    elif after.quick:
        reversals = event.get("count", 1) if event.get("effect") == BLACK_MARKET else 0
    else:
        laid = event["value"]
        if event["type"] == "blind" and not before.blind_legal:
            return before.direction
        reversals = event.get("count", 1) if after.deck.role(laid) == BLACK_MARKET else 0
    return before.direction * (-1) ** reversals


@settings(max_examples=30, deadline=None)
@given(games)
def test_turn_order_and_direction_match_a_brute_force_walk(game):
    players, quick, rnd = game
    match = FullCounter(NAMES[:players], {"quick": quick})
    for _ in range(MAX_EVENTS):
        event = random_event(match, rnd)
        before = before_of(match, event)
        match.apply(event)
        if match.phase != "play" or before.phase != "play":
            continue                                   # a game began or ended
        assert match.direction == expected_direction(before, event, match), event
        assert match.current == expected_turn(before, event, match), event
        assert match.current in match.still_in
        assert len(match.still_in) >= 2


@settings(max_examples=20, deadline=None)
@given(games)
def test_what_expecting_offers_is_exactly_what_is_accepted(game):
    players, quick, rnd = game
    match = FullCounter(NAMES[:players], {"quick": quick})
    for _ in range(MAX_EVENTS // 2):
        expect = match.expecting()
        if expect.player is not None and not quick:
            for card in match.deck.cards():
                event = {"type": "play", "player": expect.player, "value": card}
                try:
                    match.check(event)
                    accepted = True
                except IllegalEvent as err:
                    accepted = False
                    assert "or a power card" in str(err)
                    assert str(match.state()["to_beat"]) in str(err)
                assert accepted == (card in expect.choices["value"]), card
            top = match.state()["top"]
            assert top is None or top["run"] < 4     # four on top always burned
        match.apply(random_event(match, rnd))


junk_values = st.one_of(st.none(), st.booleans(), st.integers(-2, 14),
                        st.sampled_from(["wildfire", "mirror", "7", "joker", ""]),
                        st.lists(st.sampled_from(NAMES + ("Zed",)), max_size=3))
junk_events = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "chain", "blind", "pickup", "out", "starter", "end",
                              "roll", ""])},
    optional={"player": st.sampled_from(NAMES + ("Zed", None)),
              "value": junk_values, "count": junk_values, "first": junk_values,
              "last": junk_values, "effect": st.sampled_from(EFFECTS + ("jump",)),
              "face_up": junk_values, "in_hand": junk_values, "extra": st.just(1)})


@settings(max_examples=40, deadline=None)
@given(games, st.lists(junk_events, min_size=1, max_size=30))
def test_refused_events_change_nothing(game, junk):
    players, quick, rnd = game
    match = FullCounter(NAMES[:players], {"quick": quick})
    for _ in range(rnd.randrange(40)):
        match.apply(random_event(match, rnd))
    for event in junk:
        before = copy.deepcopy(match.state())
        count = len(match.events)
        try:
            match.apply(event)
        except IllegalEvent:
            assert match.state() == before
            assert len(match.events) == count
            continue
        assert len(match.events) == count + 1


@settings(max_examples=25, deadline=None)
@given(games)
def test_replay_and_undo_agree_with_playing(game):
    players, quick, rnd = game
    match = FullCounter(NAMES[:players], {"quick": quick, "games": 3})
    states = [match.state()]
    while not match.over and len(match.events) < MAX_EVENTS:
        match.apply(random_event(match, rnd))
        states.append(match.state())
    again = FullCounter.replay(match.players, match.options, match.events)
    assert again.state() == match.state()
    assert match.undone().state() == states[-2]
    result = match.result()
    assert sum(result["totals"].values()) == len(result["games"])
    if match.over:
        fewest = min(result["totals"].values())
        assert result["winners"] == [p for p, n in result["totals"].items() if n == fewest]
