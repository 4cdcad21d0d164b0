"""Full Counter counted, played with real cards: a shuffled deck of the profile is dealt
to players who lay only cards they hold, and the companion hears their plays as the
device would send them. No play from real cards is ever refused or left out of what
``expecting()`` offers; what the companion has seen of each card is never more than the
deck holds, and never more than the table really has where it says; a card the deck has
run out of is refused and the refusal changes nothing.

The shuffle and the players' choices come from a ``random.Random`` seeded by hypothesis,
so a failure names its seed.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalEvent
from companion.games.full_counter import MIRROR, WILDFIRE, Deck, FullCounter
from companion.games.full_counter_zones import BLIND, FACE_UP, HAND
from companion.table.copies import BURNT, PILE, Hand

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")
MAX_EVENTS = 300

PROFILES = [{}, {"numbers": 8, "copies": 5}, {"wildfire": 0}, {"numbers": 10, "copies": 2}]
tables = st.tuples(st.sampled_from(PROFILES), st.integers(min_value=2, max_value=5),
                   st.integers(min_value=0, max_value=2**32))


class Table:
    """The real cards of one deal, which the companion never sees: each player's hand,
    face-up and face-down cards, the deck, the pile and the burnt cards."""

    def __init__(self, match: FullCounter, rnd: random.Random):
        self.match = match
        self.rnd = rnd
        self.deal()

    def deal(self) -> None:
        deck = self.match.deck
        cards: list[Any] = [card for card in deck.cards() for _ in range(deck.copies_of(card))]
        self.rnd.shuffle(cards)
        self.hand: dict[str, list[Any]] = {}
        self.up: dict[str, list[Any]] = {}
        self.down: dict[str, list[Any]] = {}
        for name in self.match.players:
            self.down[name], self.up[name], self.hand[name] = (
                [cards.pop() for _ in range(3)] for _ in range(3))
        self.deck, self.pile, self.burnt = cards, [], []

    # -- the rules the players follow (FU4), from what the table shows -----------------

    def legal(self, card: Any) -> bool:
        beat = self.match.to_beat
        if beat is None or self.match.deck.is_power(card):
            return True
        return card >= beat if self.match.ascending else card <= beat

    def turn(self) -> tuple[dict[str, Any], list[Any], str]:
        """The current player's move from the cards they hold: the event, the cards it
        lays (or turns over) and the zone they come from."""
        match, rnd = self.match, self.rnd
        player = match.current
        zone = match.zones.playing_from(player)
        if zone == BLIND:
            card = self.down[player].pop(rnd.randrange(len(self.down[player])))
            return {"type": "blind", "player": player, "value": card}, [card], BLIND
        held = self.hand[player] if zone == HAND else self.up[player]
        moves: list[tuple[dict[str, Any], list[Any]]] = []
        for card, have in Counter(held).items():
            if self.legal(card):
                count = rnd.randint(1, have)
                moves.append(({"type": "play", "player": player, "value": card,
                               "count": count}, [card] * count))
        numbers = {card for card in held if isinstance(card, int)}
        for first in sorted(numbers):
            step = rnd.choice([-1, 1])
            run = [first]
            while run[-1] + step in numbers and rnd.random() < 0.7:
                run.append(run[-1] + step)
            if len(run) >= 2 and self.legal(first):
                moves.append(({"type": "chain", "player": player, "first": first,
                               "last": run[-1]}, run))
        if not moves or (self.pile and rnd.random() < 0.05):
            return {"type": "pickup", "player": player}, [], zone
        event, cards = rnd.choice(moves)
        return event, cards, zone

    def after(self, event: dict[str, Any], cards: list[Any], zone: str, laid: bool,
              games: int) -> None:
        """Move the real cards as the move did (``laid``: the cards went on the pile)."""
        player = event["player"]
        if not laid:                           # a pick-up, or a blind card that was not legal
            taken = [self.up[player].pop(self.rnd.randrange(len(self.up[player])))] \
                if event["type"] == "pickup" and zone == FACE_UP else []
            self.hand[player] += self.pile + cards + taken
            self.pile = []
            return
        for card in cards if zone != BLIND else ():   # a blind card left in turn()
            (self.hand if zone == HAND else self.up)[player].remove(card)
        self.pile += cards
        if len(self.match.games) == games and not self.match.pile:
            self.burnt += self.pile            # a Wildfire or four of a kind
            self.pile = []
        if zone == HAND and (cards[-1] != WILDFIRE or not self.hand[player]):
            while self.deck and len(self.hand[player]) < 3:
                self.hand[player].append(self.deck.pop())


def check_seen(match: FullCounter, table: Table) -> None:
    """The counts are the table's; what is seen is never more than the deck holds nor
    than the table has where it is said to be."""
    zones = match.zones
    for name in match.players:
        assert zones.held[name] == {HAND: len(table.hand[name]), FACE_UP: len(table.up[name]),
                                    BLIND: len(table.down[name])}, name
        picked = zones.seen.at(Hand(name))
        assert not picked - Counter(table.hand[name]), (name, picked, table.hand[name])
    assert (zones.deck, zones.burnt) == (len(table.deck), len(table.burnt))
    assert zones.seen.at(PILE) == Counter(table.pile)
    assert zones.seen.at(BURNT) == Counter(table.burnt)
    for card in match.deck.cards():
        assert zones.seen.count(card) <= match.deck.copies_of(card), card


def refuse_run_out(match: FullCounter, table: Table) -> None:
    """A card every copy of which is seen away from the current player's hand is refused
    (in words, when it would be legal), and the refusal changes nothing."""
    zones = match.zones
    own = zones.seen.at(Hand(match.current))
    for card in match.deck.cards():
        if zones.seen.count(card) - own[card] < match.deck.copies_of(card):
            continue
        event = {"type": "play", "player": match.current, "value": card}
        before = copy.deepcopy(match.state())
        try:
            match.apply(event)
        except IllegalEvent as refusal:
            assert match.state() == before
            if table.legal(card) and zones.playing_from(match.current) != BLIND:
                assert str(refusal).startswith("the deck has"), refusal
        else:
            raise AssertionError(f"{event} taken though every copy is seen elsewhere")


def starter(match: FullCounter, table: Table) -> dict[str, Any]:
    value = match.asking_value
    face_up = [name for name in match.players if value in table.up[name]]
    if face_up:
        return {"type": "starter", "value": value, "face_up": face_up}
    in_hand = [name for name in match.players if value in table.hand[name]]
    return {"type": "starter", "value": value, "face_up": [], "in_hand": in_hand}


@settings(max_examples=40, deadline=None)
@given(tables)
def test_real_cards_are_never_refused_and_what_is_seen_fits_the_deck(game):
    profile, players, seed = game
    rnd = random.Random(seed)
    players = min(players, Deck.from_option(profile).size // 9)
    match = FullCounter(NAMES[:players], {"zones": True, "seen_cards": True, "games": 3,
                                         "deck": profile})
    table = Table(match, rnd)
    for _ in range(MAX_EVENTS):
        if match.over:
            break
        games = len(match.games)
        if match.phase == "deal":
            match.apply(starter(match, table))
            continue
        refuse_run_out(match, table)
        offered = match.expecting().choices
        event, cards, zone = table.turn()
        laid = event["type"] != "pickup" and (event["type"] != "blind" or table.legal(cards[0]))
        if event["type"] in ("play", "blind"):
            assert event["value"] in offered["value"], (event, offered)
        if event["type"] == "chain":
            assert event["first"] in offered["first"], (event, offered)
        match.apply(event)                     # real cards: never refused
        if len(match.games) > games:
            table.deal()
        else:
            table.after(event, cards, zone, laid, games)
        check_seen(match, table)
    again = FullCounter.replay(match.players, match.options, match.events)
    assert again.state() == match.state()


def test_a_mirror_and_a_wildfire_are_counted_as_themselves():
    match = FullCounter(["Ann", "Bob"], {"zones": True, "seen_cards": True,
                                         "deck": {"mirror": 1}})
    match.apply({"type": "starter", "value": 2, "face_up": ["Ann"]})
    match.apply({"type": "play", "player": "Ann", "value": MIRROR})
    before = copy.deepcopy(match.state())
    try:
        match.apply({"type": "play", "player": "Bob", "value": MIRROR})
    except IllegalEvent as refusal:
        assert str(refusal) == "the deck has 1 Dirty Mirror: 1 is on the pile already"
    assert match.state() == before
    assert MIRROR not in match.expecting().choices["value"]
    assert WILDFIRE in match.expecting().choices["value"]
