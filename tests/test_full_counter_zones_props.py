"""Full Counter with the cards counted, under random legal play: no count ever goes
below zero, every card dealt is in exactly one place (a player's zones, the deck, the
pile or burnt), a player is out exactly when they hold nothing, refused events change
nothing, and a replayed log gives the same counts.

Games are driven the way the screens drive them: from what ``expecting()`` offers,
picked by a hypothesis-seeded ``random.Random``.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEvent
from companion.games.full_counter import FullCounter

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")
MAX_EVENTS = 400

games = st.tuples(st.integers(min_value=2, max_value=5),
                  st.sampled_from([{}, {"numbers": 8, "copies": 5}, {"wildfire": 0}]),
                  st.randoms(use_true_random=False))


def counted_match(players: int, deck: dict) -> FullCounter:
    return FullCounter(NAMES[:players], {"zones": True, "games": 2, "deck": deck})


def random_event(match: FullCounter, rnd: random.Random) -> dict[str, Any]:
    """A legal event from what the match expects (a blind card may not be legal: then
    it picks up, as at the table)."""
    expect = match.expecting()
    if "starter" in expect.types:
        holders = rnd.sample(match.players, rnd.randint(1, len(match.players)))
        return {"type": "starter", "value": expect.choices["value"][0], "face_up": holders}
    player = expect.player
    if "pickup" in expect.types and rnd.random() < 0.08:
        return {"type": "pickup", "player": player}
    if "blind" in expect.types:
        return {"type": "blind", "player": player, "value": rnd.choice(expect.choices["value"])}
    if not expect.choices["value"]:
        return {"type": "pickup", "player": player}
    counts = expect.choices["count"]
    if "chain" in expect.types and expect.choices["first"] and rnd.random() < 0.15:
        first = rnd.choice(expect.choices["first"])
        last = first + rnd.choice([-1, 1]) * rnd.randint(1, max(counts) - 1)
        if 1 <= last <= match.deck.numbers:
            return {"type": "chain", "player": player, "first": first, "last": last}
    value = rnd.choice(expect.choices["value"])
    count = rnd.randint(1, min(max(counts), match.deck.copies_of(value)))
    return {"type": "play", "player": player, "value": value, "count": count}


def check_counts(match: FullCounter) -> None:
    state = match.state()
    if state["zones"] is None:
        return
    for name, held in state["zones"].items():
        assert min(held.values()) >= 0, (name, held)
        assert (sum(held.values()) == 0) == (name in state["out"]), (name, held, state["out"])
    assert state["deck"] >= 0 and state["burnt"] >= 0
    assert state["pile"] == len(match.pile)
    placed = sum(sum(held.values()) for held in state["zones"].values())
    assert placed + state["deck"] + state["pile"] + state["burnt"] == match.deck.size
    if state["phase"] == "play":
        player = state["current"]
        held = state["zones"][player]
        assert held["hand"] or not state["deck"], "a hand empty while the deck lasts"


@settings(max_examples=40, deadline=None)
@given(games)
def test_counts_never_go_negative_and_every_card_is_in_one_place(game):
    players, deck, rnd = game
    match = counted_match(players, deck)
    games_seen = 0
    for _ in range(MAX_EVENTS):
        if match.over:
            break
        match.apply(random_event(match, rnd))
        check_counts(match)
        games_seen = len(match.games)
    again = FullCounter.replay(match.players, match.options, match.events)
    assert again.state() == match.state()
    assert games_seen == len(match.result()["games"])


junk = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "chain", "blind", "pickup", "out"])},
    optional={"player": st.sampled_from(NAMES),
              "value": st.one_of(st.integers(0, 12), st.sampled_from(["wildfire", "mirror"])),
              "count": st.integers(0, 5), "first": st.integers(1, 11),
              "last": st.integers(1, 11),
              "zone": st.sampled_from(["hand", "face_up", "blind", "deck", None])})


@settings(max_examples=40, deadline=None)
@given(games, st.lists(junk, min_size=1, max_size=25))
def test_refused_events_change_no_count(game, events):
    players, deck, rnd = game
    match = counted_match(players, deck)
    for _ in range(rnd.randrange(150)):
        if match.over:
            return
        match.apply(random_event(match, rnd))
    for event in events:
        before = copy.deepcopy(match.state())
        try:
            match.apply(event)
        except IllegalEvent:
            assert match.state() == before
            continue
        check_counts(match)
        if match.over:
            return
