"""Where every card of a Full Counter deal is, by count: each player's hand, face-up and
face-down cards, and the deck (the pile is the engine's; burnt cards are counted here).

The companion never sees a card, but it hears every play, so it knows how many cards
are where (RULINGS FU2, FU3, FU7 and docs/events.md, "Counting the cards"):

- the deal gives each player 3 face down, 3 face up and 3 in hand; the rest is the deck;
- a play from the hand draws back up to 3 while the deck lasts;
- face-up cards are played once the hand is empty and the deck gone, face-down ones
  after the face-up ones;
- a pick-up puts the pile into the hand (with the face-up card that could not be
  played, when the player is on face-up cards).

It also keeps the cards it heard named (:class:`~companion.table.copies.Seen`): those
on the pile, the burnt ones and the ones a pick-up put into a hand, which may be played
again. So it refuses a play that would need more of a card than the deck profile has
("the deck has 4 Gold Bars: 4 are burnt already"), and a play from a hand that would
need more cards than the hand holds besides the picked-up ones it knows.

It refuses, in words, what the counts make impossible; the engine asks it before it
changes anything, so a refusal leaves both as they were.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from companion.errors import IllegalEvent
from companion.games.full_counter_cards import Card, Deck
from companion.lang import and_list, npgettext, pgettext
from companion.table.copies import BURNT, PILE, Hand, Seen
from companion.words import counted

HAND, FACE_UP, BLIND = "hand", "face_up", "blind"
#: The zones a play may name (a face-down card is its own event, ``blind``).
PLAY_ZONES: tuple[str, ...] = (HAND, FACE_UP)
#: 3 in hand, 3 face up, 3 face down (FU2); a hand is drawn back up to 3 (FU3).
EACH_ZONE = 3


class Zones:
    """The counts of one deal, from the deal until every card is played or burnt."""

    def __init__(self, players: Sequence[str], profile: Deck):
        self.profile = profile
        self.held: dict[str, dict[str, int]] = {
            name: {HAND: EACH_ZONE, FACE_UP: EACH_ZONE, BLIND: EACH_ZONE} for name in players}
        self.deck = profile.size - 3 * EACH_ZONE * len(players)
        self.burnt = 0
        #: The cards named so far this deal: on the pile, burnt, picked up into a hand.
        self.seen = Seen()

    def total(self, player: str) -> int:
        return sum(self.held[player].values())

    def holding(self, player: str) -> str:
        """What ``player`` holds, in words: "9 cards: 3 in hand, 3 face-up, 3 face-down"."""
        held = self.held[player]
        # Translators: {cards} is a count of cards ("9 cards"), then the three places.
        return (pgettext("screen 21xN", "{cards}: {hand} in hand, {face_up} face-up, "
                         "{blind} face-down")
                .format(cards=counted(self.total(player), "card"), hand=held[HAND],
                        face_up=held[FACE_UP], blind=held[BLIND]))

    def playing_from(self, player: str) -> str:
        """The zone ``player`` plays from now: the hand, then face-up cards once the hand
        is empty and the deck gone, then face-down cards (FU7)."""
        held = self.held[player]
        if held[HAND] or self.deck:
            return HAND
        return FACE_UP if held[FACE_UP] else BLIND

    # -- checks (nothing changes) -------------------------------------------------------

    def check_play(self, player: str, zone: str, cards: int) -> None:
        """Refuse a play of ``cards`` cards from ``zone`` that the counts rule out."""
        now = self.playing_from(player)
        if zone != now:
            raise IllegalEvent(self._not_yet(player, zone, now))
        held = self.held[player][zone]
        if cards > held:
            text = {HAND: pgettext("screen 21xN", "{name} has {n} in hand, not {value}: a play "
                                   "is at most the cards held there"),
                    FACE_UP: pgettext("screen 21xN", "{name} has {n} face-up, not {value}: a "
                                      "play is at most the cards held there"),
                    BLIND: pgettext("screen 21xN", "{name} has {n} face-down, not {value}: a "
                                    "play is at most the cards held there")}[zone]
            raise IllegalEvent(text.format(name=player, n=held, value=cards))

    def check_cards(self, player: str, zone: str, cards: Sequence[Card]) -> None:
        """Refuse ``cards`` laid from ``zone`` when the deck cannot hold them all besides
        the cards seen, or the hand cannot hold them besides its picked-up cards."""
        reason = self.short_of(player, zone, cards)
        if reason is not None:
            raise IllegalEvent(reason)

    def short_of(self, player: str, zone: str, cards: Sequence[Card]) -> str | None:
        """Why ``player`` cannot lay ``cards`` from ``zone`` by the cards seen, in words
        (None: they can)."""
        own = Hand(player) if zone == HAND else None
        reason = self.seen.too_many(cards, self.profile.copies_of, self.profile.cards_of, own)
        others = self._others_short(player, zone, cards) if reason is None else None
        if others is None:
            return reason
        picked = self.seen.looking_at(Hand(player))
        # Translators: {held} is a count of cards ("3 cards"), {cards} the cards picked
        # up ("9 and 10"), {n} how many other cards the hand holds.
        return (npgettext("screen 21xN", "{name} holds {held} in hand: {cards} picked up and "
                          "{n} other", "{name} holds {held} in hand: {cards} picked up and "
                          "{n} others", others)
                .format(name=player, held=counted(self.held[player][HAND], "card"), n=others,
                        cards=and_list(self.profile.name(card) for card, n in picked.items()
                                       for _ in range(n))))

    def may_lay(self, player: str, zone: str, card: Card) -> bool:
        """Whether one ``card`` may come from ``zone`` (:meth:`short_of` says why not),
        for every card offered."""
        own = Hand(player) if zone == HAND else None
        return (self.seen.left(card, self.profile.copies_of(card), own) >= 1
                and self._others_short(player, zone, [card]) is None)

    def _others_short(self, player: str, zone: str, cards: Sequence[Card]) -> int | None:
        """The other cards ``player``'s hand holds besides its picked-up ones, when a play
        of ``cards`` from it needs more of them; None when it does not. The picked-up
        cards are in the hand until one of their kind is played: the rest of the play
        comes from the others."""
        if zone != HAND:
            return None
        picked = self.seen.looking_at(Hand(player))
        others = self.held[player][HAND] - sum(picked.values())
        needed = sum(max(0, n - picked.get(card, 0)) for card, n in Counter(cards).items())
        return others if needed > others else None

    def _not_yet(self, player: str, zone: str, now: str) -> str:
        """Why ``player`` cannot play from ``zone`` while the counts say ``now``."""
        held = self.held[player]
        face_up = zone == FACE_UP
        if now == HAND and held[HAND]:
            text = (npgettext("screen 21xN",
                              "{name} still has {n} card in hand: face-up cards come once "
                              "the hand is empty and the deck gone",
                              "{name} still has {n} cards in hand: face-up cards come once "
                              "the hand is empty and the deck gone", held[HAND]) if face_up
                    else npgettext("screen 21xN",
                                   "{name} still has {n} card in hand: face-down cards come "
                                   "once the hand is empty and the deck gone",
                                   "{name} still has {n} cards in hand: face-down cards come "
                                   "once the hand is empty and the deck gone", held[HAND]))
            return text.format(name=player, n=held[HAND])
        if now == HAND:
            text = (npgettext("screen 21xN",
                              "the deck still has {n} card: face-up cards come once the hand "
                              "is empty and the deck gone",
                              "the deck still has {n} cards: face-up cards come once the "
                              "hand is empty and the deck gone", self.deck) if face_up
                    else npgettext("screen 21xN",
                                   "the deck still has {n} card: face-down cards come once the "
                                   "hand is empty and the deck gone",
                                   "the deck still has {n} cards: face-down cards come once "
                                   "the hand is empty and the deck gone", self.deck))
            return text.format(n=self.deck)
        if now == FACE_UP and zone == BLIND:
            return (pgettext("screen 21xN", "{name} still has {n} face-up: face-down cards "
                             "come after them").format(name=player, n=held[FACE_UP]))
        if now == FACE_UP:
            return (pgettext("screen 21xN", "{name} has no cards in hand: the next card is "
                             "one of the face-up ones").format(name=player))
        return (pgettext("screen 21xN", "{name} has only face-down cards left: the next one "
                         "is turned over (blind)").format(name=player))

    # -- changes ------------------------------------------------------------------------

    def lay(self, player: str, zone: str, cards: Sequence[Card]) -> None:
        """``cards`` leave ``zone`` for the pile (from the hand: picked-up ones first)."""
        self.held[player][zone] -= len(cards)
        if zone == HAND:
            self.seen.remove(Hand(player), cards)
        self.seen.add(PILE, cards)

    def draw(self, player: str) -> None:
        """Draw back up to 3 in hand while the deck lasts (FU3)."""
        drawn = min(self.deck, max(0, EACH_ZONE - self.held[player][HAND]))
        self.held[player][HAND] += drawn
        self.deck -= drawn

    def pick_up(self, player: str, pile: int) -> None:
        """The pile goes into the hand; a player on face-up cards takes the face-up card
        that could not be played with it (FU7)."""
        held = self.held[player]
        if self.playing_from(player) == FACE_UP:
            held[FACE_UP] -= 1
            held[HAND] += 1
        held[HAND] += pile
        self.seen.move(PILE, Hand(player))

    def burn(self, pile: int) -> None:
        """The pile's cards leave the game (Wildfire, four of a kind)."""
        self.burnt += pile
        self.seen.move(PILE, BURNT)

    def state(self) -> dict[str, dict[str, int]]:
        return {name: dict(held) for name, held in self.held.items()}
