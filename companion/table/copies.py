"""Every card is one the deck holds: the cards a table has shown, by where they are now
(on the pile, burnt, in a player's hand), and the refusal, in words, of an entry that
would need more cards of one kind than the deck has::

    >>> seen = Seen()
    >>> seen.add(BURNT, [2, 2, 2, 2])
    >>> seen.too_many([2], copies=lambda kind: 4, cards_of=lambda kind, n: f"{kind}s")
    'the deck has 4 2s: 4 are burnt already'

The companion never sees a card, but it hears every card a player names. A game keeps
a :class:`Seen` of the cards named, moves them as the rules do (a pick-up moves the pile
into a hand, a burn takes it out of play) and asks :meth:`Seen.too_many` before it
changes anything. A card shown into a hand may be played again: a play from that hand
may be those very cards, so they count once. The kinds of card (a value, a power) and
how many of each a deck holds are the game's own.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass

from companion.lang import and_list, npgettext

#: The places every game has: the pile played onto (Full Counter), the discard pile
#: (Card-Down), the cards taken out of play (Full Counter's burns).
PILE, DISCARD, BURNT = "pile", "discard", "burnt"


@dataclass(frozen=True)
class Hand:
    """A player's hand, as a place: the cards a pick-up (or the end of a game) showed
    there."""

    player: str


Place = str | Hand
Kind = Hashable
_NONE: Mapping[Kind, int] = {}


class Seen:
    """The cards of each kind the table has shown, by the place they are now; the kinds
    of a place in the order they were first seen there."""

    def __init__(self) -> None:
        self.places: dict[Place, Counter[Kind]] = {}

    def __deepcopy__(self, memo: dict) -> Seen:
        # A match copies its state before every event: counters of hashable kinds need
        # no more than a copy each (copy.deepcopy's generic walk is several times slower).
        copied = Seen()
        copied.places = {place: Counter(held) for place, held in self.places.items()}
        return copied

    def add(self, place: Place, cards: Iterable[Kind]) -> None:
        self.places.setdefault(place, Counter()).update(cards)

    def remove(self, place: Place, cards: Iterable[Kind]) -> None:
        """``cards`` leave ``place``: as many of each kind as were seen there."""
        held = self.places.get(place)
        if held is None:
            return
        held.subtract(cards)
        for kind in [kind for kind, n in held.items() if n <= 0]:
            del held[kind]

    def move(self, source: Place, target: Place) -> None:
        """Every card seen at ``source`` is at ``target`` now (a pick-up, a burn)."""
        self.add(target, self.places.pop(source, Counter()).elements())

    def at(self, place: Place) -> Counter[Kind]:
        """The cards seen at ``place`` (a copy)."""
        return Counter(self.looking_at(place))

    def looking_at(self, place: Place | None) -> Mapping[Kind, int]:
        """The cards seen at ``place`` as they are kept (read them, never change them):
        :meth:`at` without the copy, for the checks made for every card offered."""
        return self.places.get(place, _NONE) if place is not None else _NONE

    def count(self, kind: Kind) -> int:
        """How many cards of ``kind`` are seen anywhere."""
        return sum(held.get(kind, 0) for held in self.places.values())

    def where(self, kind: Kind) -> list[tuple[Place, int]]:
        """Where the cards of ``kind`` are: (place, how many), in the order the places
        were first used."""
        return [(place, held[kind]) for place, held in self.places.items() if held[kind] > 0]

    def left(self, kind: Kind, copies: int, mine: Place | None = None) -> int:
        """How many more cards of ``kind`` may be named besides what is seen, from a deck
        of ``copies`` of it. Cards of ``mine`` (the hand they come from) may be the very
        cards seen there, so they are not counted twice."""
        return copies - self.count(kind) + self.looking_at(mine).get(kind, 0)

    def over(self, cards: Iterable[Kind], copies: Callable[[Kind], int],
             mine: Place | None = None) -> tuple[Kind, int] | None:
        """The first kind of ``cards`` the deck cannot hold besides what is seen (see
        :meth:`left`), and how many of it ``cards`` name; None when it holds them all.
        ``copies`` says how many of a kind the deck holds."""
        for kind, wanted in Counter(cards).items():
            if wanted > self.left(kind, copies(kind), mine):
                return kind, wanted
        return None

    def too_many(self, cards: Iterable[Kind], copies: Callable[[Kind], int],
                 cards_of: Callable[[Kind, int], str], mine: Place | None = None) -> str | None:
        """:meth:`over` in words (None: the deck can hold them): ``cards_of`` names ``n``
        cards of a kind ("Gold Bars")."""
        found = self.over(cards, copies, mine)
        if found is None:
            return None
        kind, wanted = found
        most = copies(kind)
        return deck_has(most, cards_of(kind, most), self.where(kind), wanted)


def deck_has(copies: int, cards: str, where: Iterable[tuple[Place, int]], wanted: int) -> str:
    """The refusal: "the deck has 4 Gold Bars: 4 are burnt already" (the places each
    with its count), or "the deck has 4 Gold Bars, not 5" when none is seen yet."""
    known = [seen_at(place, n) for place, n in where]
    if not known:
        # Translators: {cards} is a kind of card for {n} ("Gold Bars", "cards of value
        # 7"); {value} how many one entry named.
        return (npgettext("screen 21xN", "the deck has {n} {cards}, not {value}",
                          "the deck has {n} {cards}, not {value}", copies)
                .format(n=copies, cards=cards, value=wanted))
    # Translators: {cards} is a kind of card for {n} ("Gold Bars", "cards of value 7");
    # {known} where those already seen are ("3 are on the pile and 1 is burnt").
    return (npgettext("screen 21xN", "the deck has {n} {cards}: {known} already",
                      "the deck has {n} {cards}: {known} already", copies)
            .format(n=copies, cards=cards, known=and_list(known)))


def seen_at(place: Place, n: int) -> str:
    """``n`` cards at ``place`` in words: "4 are burnt", "1 is in Bob's hand"."""
    if isinstance(place, Hand):
        return (npgettext("screen 21xN", "{n} is in {name}'s hand", "{n} are in {name}'s hand", n)
                .format(n=n, name=place.player))
    words = {
        # Translators: cards of one kind seen on the pile played onto (Full Counter).
        PILE: npgettext("screen 21xN", "{n} is on the pile", "{n} are on the pile", n),
        DISCARD: npgettext("screen 21xN", "{n} is on the discard pile",
                           "{n} are on the discard pile", n),
        # Translators: cards of one kind taken out of play (a burnt pile).
        BURNT: npgettext("screen 21xN", "{n} is burnt", "{n} are burnt", n),
    }
    return words[place].format(n=n)


def cards_of_value(value: object, n: int) -> str:
    """``n`` cards of a plain value, to follow "the deck has {n}": "cards of value 7"."""
    # Translators: follows a count in "the deck has 4 cards of value 7".
    return (npgettext("screen 21xN", "card of value {value}", "cards of value {value}", n)
            .format(value=value))
