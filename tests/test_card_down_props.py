"""Final Card-Down under random play: no card is ever made or lost, refusals change nothing.

Legal games are built the way a screen would drive them: ask ``expecting()`` what may
come next and pick something it allows at random, cards entered exactly or quickly
(mixed, as a table switching modes would). Around every legal event a random wrong or
garbled event is tried: if the match refuses it, nothing may have changed. The choices
come from a ``random.Random`` seeded by hypothesis, so a failure shrinks to a seed.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEvent
from companion.games.card_down import COLOURS, DECK_SIZE, SUITS, VALUES, Card, CardDown

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo")

games = st.tuples(
    st.integers(min_value=2, max_value=10),  # players
    st.floats(min_value=0.0, max_value=1.0),  # how often a card is entered exactly
    st.floats(min_value=0.05, max_value=0.9),  # how often a player draws rather than plays
    st.integers(min_value=0, max_value=2**32),  # seed of the table's choices
)


def random_card(rnd: random.Random) -> Card:
    return Card(rnd.choice(VALUES), rnd.choice(COLOURS), rnd.choice(SUITS))


def legal_card(match: CardDown, rnd: random.Random, exact: float) -> dict[str, str] | None:
    """A card the player may discard now, as an event's card (None: a quick plain card)."""
    if rnd.random() >= exact:
        if match.stacked:
            return {"value": "2"}
        quick = Card(rnd.choice("02ABCD"))
        return None if rnd.random() < 0.6 or match.why_not(quick) else quick.as_json()
    for _ in range(50):
        card = random_card(rnd)
        if match.stacked:
            card = card._replace(value="2")
        elif match.declared and card.value != "0":
            card = card._replace(colour=match.declared)
        elif match.top is not None and match.top.exact:
            # keep one field of the top card so it matches
            field = rnd.randrange(3)
            card = card._replace(**{card._fields[field]: match.top[field]})
        if match.why_not(card) is None:
            return card.as_json()
    return {"value": "2"} if match.stacked else None


def legal_event(match: CardDown, rnd: random.Random, exact: float, draws: float) -> dict:
    expect = match.expecting()
    player = expect.player
    kinds = expect.types
    if kinds[0] == "turn_up":
        if "end_match" in kinds and rnd.random() < 0.2:
            return {"type": "end_match"}
        if rnd.random() < exact:
            return {"type": "turn_up", "card": random_card(rnd).as_json()}
        return {"type": "turn_up"}
    if kinds[0] == "said":
        return {"type": rnd.choice(("said", "forgot")), "player": player,
                "word": expect.choices["word"][0]}
    if kinds[0] == "colour":
        if rnd.random() < 0.2:
            return {"type": "pass", "player": player}
        return {"type": "colour", "player": player, "colour": rnd.choice(COLOURS)}
    if kinds[0] == "hand":
        who = rnd.choice(expect.choices["player"])
        held = match.in_hand[who]
        values = [rnd.choice(VALUES) for _ in range(held)]
        if rnd.random() < 0.5 or match.too_many(values):
            return {"type": "hand", "player": who, "sum": rnd.randint(0, 15 * held)}
        return {"type": "hand", "player": who, "values": values}
    if "call_out" in kinds and rnd.random() < 0.7:
        offender, word = rnd.choice(expect.choices["call_out"])
        return {"type": "call_out", "player": player, "offender": offender, "word": word}
    if "pass" in kinds and rnd.random() < 0.3:
        return {"type": "pass", "player": player}
    draw_kind = next((kind for kind in ("draw", "draw_stack") if kind in kinds), None)
    no_two = match.stacked and match.why_not(Card("2"))     # all 50 2s are on the pile
    if draw_kind and (rnd.random() < draws or no_two):
        return {"type": draw_kind, "player": player}
    if no_two:
        return {"type": "pass", "player": player}
    card = legal_card(match, rnd, exact)
    return {"type": "play", "player": player, **({"card": card} if card else {})}


def wrong_event(match: CardDown, rnd: random.Random) -> dict[str, Any]:
    """Something a confused table or a noisy serial line might send."""
    player = rnd.choice([*match.players, "Zed", None])
    return rnd.choice([
        {"type": "play", "player": player, "card": random_card(rnd).as_json()},
        {"type": "play", "player": player, "card": {"value": rnd.choice("0123ABCDZ")}},
        {"type": "play", "player": player},
        {"type": "draw", "player": player},
        {"type": "draw_stack", "player": player},
        {"type": "pass", "player": player},
        {"type": "colour", "player": player, "colour": rnd.choice([*COLOURS, "pink"])},
        {"type": rnd.choice(("said", "forgot")), "player": player,
         "word": rnd.choice(("TRIO", "DUO", "UNO", "SOLO"))},
        {"type": "call_out", "player": player, "offender": rnd.choice(match.players),
         "word": rnd.choice(("TRIO", "DUO", "UNO"))},
        {"type": "hand", "player": player, "sum": rnd.randint(-5, 300)},
        {"type": "hand", "player": player, "values": ["7"] * rnd.randint(0, 12)},
        {"type": "turn_up"},
        {"type": "end_match"},
        {"type": "play", "player": player, "card": "7 red hearts"},
        {"type": "draw", "player": player, "cards": 2},
        {"type": "shuffle"},
        {"kind": "draw"},
    ])


def check_cards(match: CardDown) -> None:
    state = match.state()
    in_hands = sum(state["in_hand"].values())
    assert state["draw_pile"] + state["discard_pile"] + in_hands == DECK_SIZE
    assert min(state["in_hand"].values()) >= 0
    assert state["draw_pile"] >= 0
    if state["phase"] == "play":
        assert state["discard_pile"] >= 1 and state["current"] in match.players
    # one deck: no exact card three times on the discard pile, no value more than 50
    # times there and in the hands entered
    exact = Counter(card for card in match.discard.cards if card.exact)
    assert max(exact.values(), default=0) <= 2
    values = Counter(card.value for card in match.discard.cards if card.value is not None)
    for entry in match.entered.values():
        values.update(entry.values or ())
    assert max(values.values(), default=0) <= 50


def play_out(players: int, exact: float, draws: float, rnd: random.Random,
             limit: int) -> CardDown:
    match = CardDown(list(NAMES[:players]), {"games": 2})
    check_cards(match)
    for _ in range(limit):
        if match.over:
            break
        wrong = wrong_event(match, rnd)
        before, count = match.state(), len(match.events)
        try:
            match.apply(wrong)
        except IllegalEvent:
            assert match.state() == before and len(match.events) == count
        check_cards(match)
        if match.over:
            break
        match.apply(legal_event(match, rnd, exact, draws))
        check_cards(match)
    return match


@settings(max_examples=40, deadline=None)
@given(games)
def test_no_card_is_made_or_lost_and_refusals_change_nothing(game) -> None:
    players, exact, draws, seed = game
    match = play_out(players, exact, draws, random.Random(seed), limit=400)
    replayed = CardDown.replay(match.players, match.options, match.events)
    assert replayed.state() == match.state()


@settings(max_examples=4, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_the_draw_pile_runs_out_and_turns_over_without_losing_a_card(seed) -> None:
    rnd = random.Random(seed)
    match = CardDown(["Ann", "Bob"], {"games": 1})
    match.apply({"type": "turn_up"})
    while match.state()["turned_over"] == 0:
        assert not match.over, "the game ended before the draw pile ran out"
        state = match.state()
        if match.phase == "play" and match.expecting().types[:2] == ("play", "draw"):
            # Mostly draws, so the 780-card draw pile runs out; never a player's last
            # card, so nobody goes out first.
            play = rnd.random() < 0.3 and state["in_hand"][match.current] > 1
            event = {"type": "play" if play else "draw", "player": match.current}
        else:
            event = legal_event(match, rnd, 0.5, 0.7)
        match.apply(event)
        check_cards(match)
    assert match.state()["turned_over"] > 0
