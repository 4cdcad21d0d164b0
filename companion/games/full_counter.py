"""Full Counter: get rid of every card; the last player still holding cards loses.

How a game goes at the table, and the event that tells the companion about each step
(docs/events.md has every field; RULINGS.md FU1-FU8 settle the unclear points):

1. The dealer deals each player 3 cards face down, 3 face up on them and 3 in hand;
   players may swap hand and face-up cards. The device asks who holds a face-up Gold
   Bar, then who holds one in hand, then the same for 3s, 4s, ... (``starter``) and
   finds the first such player clockwise from the dealer: they lead, any value.
2. On their turn a player lays one value (any number of those cards) or a chain of
   consecutive values (``play``, ``chain``), or picks up the whole pile (``pickup``).
   From face-down cards they flip one blind (``blind``): it plays if it is legal,
   otherwise the pile (with it) goes into their hand.
3. A card must be the value to beat or higher while ascending, or lower while
   descending. Power cards (Nuclear Blast, Wildfire, Dirty Mirror) go on anything.
   Abilities act once per card laid: Black Market reverses the direction, Back
   Stabber skips the next player, Magnetic Rays flips ascending/descending. Wildfire,
   and four of one value in a row on the pile, burn the pile: the same player again.
4. A player with no cards left is out (``out``). The last one still in loses the game
   and deals the next one. The match record counts losses; the players end the match
   between games (``end``), or it ends after the number of games agreed.

With the option ``zones`` (every new match entered by values) the companion also
counts each player's hand, face-up and face-down cards, the deck and the pile from the
deal and the plays (:class:`~companion.games.full_counter_zones.Zones`): a play comes
from the zone the counts say, a player whose last card leaves is out at once, and what
the counts rule out is refused. A log from before the option replays without it.
With ``seen_cards`` as well (every new counted match) every card named is held to
the deck profile's copies: the cards seen on the pile, burnt or picked up into a hand
count, and a play that would need more of a card than the deck has is refused.

Quick mode (option ``quick``) keeps turns, direction, ascending/descending and burns
right without the values: a play is only its effect (plain, an ability, a power).

The module is pure: no I/O, no clock, no random. The cards and the deck profile
(which numbers are which powers and abilities, how many of each: an option whose
default is FU1) are :mod:`companion.games.full_counter_cards`, named here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from companion.errors import BadSetup, IllegalEvent, written
from companion.games.base import Event, Expect, Match, check_fields, n_cards
from companion.games.full_counter_cards import (  # noqa: F401 - the cards, named here too
    ABILITIES,
    BACK_STABBER,
    BLACK_MARKET,
    DEFAULT_DECK,
    GOLD_BAR,
    MAGNETIC_RAYS,
    MIRROR,
    NAMES,
    NUCLEAR_BLAST,
    PROFILE_LIMITS,
    ROLES,
    WILDFIRE,
    Card,
    Deck,
    is_whole,
)
from companion.games.full_counter_zones import BLIND, FACE_UP, HAND, PLAY_ZONES, Zones
from companion.lang import _, and_list, lazy, ngettext, pgettext
from companion.table import scores
from companion.table.seats import LEFT, RIGHT, Seats

#: 3 face down, 3 face up, 3 in hand (FU2).
DEALT_EACH = 9
#: Four of one value in a row on the pile burn it (FU5).
FOUR_OF_A_KIND = 4

#: Quick mode: what a play did, without its values. "four" is a completed four of a kind.
PLAIN, FOUR = "plain", "four"
EFFECTS: tuple[str, ...] = (PLAIN, BLACK_MARKET, BACK_STABBER, MAGNETIC_RAYS, NUCLEAR_BLAST,
                            WILDFIRE, FOUR)

#: Turn order in words: seat order is clockwise (the next seat is on the left).
DIRECTIONS = {LEFT: "clockwise", RIGHT: "anticlockwise"}

#: What the last play was, kept as messages and their fields (a field's value may be
#: words itself), said in the language of the screen each time it is drawn.
Words = Any


def said_text(words: Words) -> str:
    """``words`` (a text as is, or a (message, fields) pair) as one line of text."""
    if isinstance(words, tuple):
        message, fields = words
        return str(message).format(**{key: said_text(value) for key, value in fields.items()})
    return str(words)

#: The phases, as state()["phase"] names them: finding the starter, playing, finished.
DEAL, PLAY, OVER = "deal", "play", "over"

class PileCard(NamedTuple):
    """One card on the pile: who laid it, what it is (None in quick mode), and the value
    it counts as (a Dirty Mirror counts as the card under it; None: no value)."""

    player: str
    card: Card | None
    value: int | None

    def __deepcopy__(self, memo: dict) -> PileCard:
        return self


class FinishedGame:
    """The record of a finished game (JSON, the shape result() shows). It never changes,
    so the safety copy Match.apply makes before every event may share it rather than
    copy the whole history of the match each time."""

    __slots__ = ("record",)

    def __init__(self, record: dict[str, Any]):
        self.record = record

    def __deepcopy__(self, memo: dict) -> FinishedGame:
        return self


def top_run(pile: Sequence[PileCard]) -> int:
    """How many cards of the top card's value lie on top of the pile in a row (mirrors
    count as the value they took); 0 for an empty pile or a top without a value."""
    if not pile or pile[-1].value is None:
        return 0
    value, run = pile[-1].value, 0
    for card in reversed(pile):
        if card.value != value:
            break
        run += 1
    return run


# -- the match ------------------------------------------------------------------------


class FullCounter(Match):
    """A match of Full Counter: games until the players end it; fewest losses wins."""

    game_id = "full-counter"
    title = "Full Counter"
    min_players = 2
    max_players = 5
    #: ``zones`` is false unless a match says so: a log from before the cards were
    #: counted replays as it was played. A new match counts them (:meth:`new_options`).
    #: ``seen_cards`` likewise: a counted log from before it replays without checking
    #: the cards seen against the deck's copies, so a match stored then still resumes.
    option_defaults = {"quick": False, "games": 0, "deck": dict(DEFAULT_DECK), "zones": False,
                       "seen_cards": False}
    player_fields = ("player", "face_up", "in_hand")  # the starter names who holds it

    @classmethod
    def new_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """A new match entered by values counts the cards (quick mode cannot) and holds
        every card named to the deck's copies."""
        zones = options.get("zones", options.get("quick") is not True)
        return {"zones": zones, "seen_cards": zones is True, **options}

    def setup(self) -> None:
        self.deck = Deck.from_option(self.options["deck"])
        if self.deck.size < DEALT_EACH * len(self.players):
            text = pgettext("screen 21xN", "a {total}-card deck cannot deal {each} cards to "
                            "each of {n} players")
            raise BadSetup(text.format(total=self.deck.size, each=DEALT_EACH,
                                       n=len(self.players)))
        if not is_whole(self.options["games"]) or self.options["games"] < 0:
            raise BadSetup(pgettext("screen 21xN", "option games is how many games the match "
                                    "lasts (0: until ended)"))
        self.options["deck"] = self.deck.profile()
        self.quick: bool = self.options["quick"]
        if self.quick and self.options["zones"]:
            raise BadSetup(pgettext("screen 21xN", "quick mode does not count the cards: zones "
                                    "needs the values entered (quick=false)"))
        if self.options["seen_cards"] and not self.options["zones"]:
            raise BadSetup(pgettext("screen 21xN", "seen_cards needs the cards counted "
                                    "(zones=true)"))
        self.seats = Seats(self.players)
        self.losses: dict[str, int] = scores.zero_totals(self.players)
        self.games: list[FinishedGame] = []
        self.dealer = self.seats.first_dealer
        self._new_deal()

    def _new_deal(self) -> None:
        """A fresh game: everyone in, clockwise, ascending, an empty pile; the starter is
        found first (FU2)."""
        self.phase = DEAL
        self.asking = 0  # index into the deck's starter values
        self.starter: str | None = None
        self.current: str | None = None
        self.direction = LEFT
        self.ascending = True
        self.free = True  # the next card may be any value
        self.pile: list[PileCard] = []
        self.burns = 0
        self.out: list[str] = []
        self.last: dict[str, Any] | None = None
        # The cards each player holds, by count, when the match counts them.
        self.zones = Zones(self.players, self.deck) if self.options["zones"] else None

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def game_number(self) -> int:
        return len(self.games) + (0 if self.over else 1)

    # -- finding the starter (FU2) ----------------------------------------------------

    def on_starter(self, event: Event) -> None:
        """Who holds the value asked about now, face up and (if nobody) in hand."""
        check_fields(event, "starter", ("value", "face_up"), ("in_hand",))
        if self.phase != DEAL:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "the starter is found before the first play ({now})")
                               .format(now=self._now()))
        asked = self.deck.starter_values()[self.asking]
        if not is_whole(event["value"]) or event["value"] != asked:
            text = pgettext("screen 21xN", "the question now is who holds a {card}, not {value}")
            raise IllegalEvent(text.format(card=self._card_words(asked),
                                           value=written(event["value"])))
        face_up = self._names(event["face_up"], "face_up")
        in_hand = self._names(event["in_hand"], "in_hand") if "in_hand" in event else None
        if face_up:
            self._start_game(self._first_from_dealer(face_up))
        elif in_hand is None:
            # In the table's words: the page shows this under its "In hand" choice.
            text = pgettext("screen 21xN", "nobody has a face-up {card}: say who has one in "
                            "hand (or that nobody has)")
            raise IllegalEvent(text.format(card=self._card_words(asked)))
        elif in_hand:
            self._start_game(self._first_from_dealer(in_hand))
        elif self.asking + 1 < len(self.deck.starter_values()):
            self.asking += 1
        else:
            # Nobody holds any number asked about: the dealer's left neighbour leads.
            self._start_game(self.seats.left_of(self.dealer))

    @property
    def from_dealers_left(self) -> tuple[str, ...]:
        """Everyone clockwise from the dealer's left, the dealer last (FU2's order)."""
        return self.seats.round_from(self.seats.left_of(self.dealer))

    def _first_from_dealer(self, holders: Iterable[str]) -> str:
        """The first of ``holders`` counting clockwise from the dealer."""
        found = set(holders)
        return next(name for name in self.from_dealers_left if name in found)

    def _start_game(self, starter: str) -> None:
        self.starter = self.current = starter
        self.phase = PLAY
        # Translators: the last play's words, beside the player's name: "Ann leads".
        self.last = {"player": starter, "words": lazy("screen 13x2", "leads")}

    def _names(self, names: object, field: str) -> list[str]:
        if not isinstance(names, list):
            raise IllegalEvent(pgettext("screen 21xN", '{field} is a list of players, like ["Ann"]')
                               .format(field=field))
        for name in names:
            if name not in self.players:
                text = pgettext("screen 21xN", "{name} is not playing (players: {names})")
                raise IllegalEvent(text.format(name=written(name), names=", ".join(self.players)))
        return list(names)

    # -- a turn -------------------------------------------------------------------------

    def on_play(self, event: Event) -> None:
        """One value laid, as many cards of it as the player lays (FU3); in quick mode
        only what the play did (``effect``)."""
        if self.quick:
            check_fields(event, "play", ("player",), ("effect", "count"))
            player = self._turn(event)
            self._quick_play(player, event.get("effect", PLAIN), event.get("count"))
            return
        check_fields(event, "play", ("player", "value"), ("count", "zone"))
        player = self._turn(event)
        card = self.deck.card(event["value"])
        count = event.get("count", 1)
        if not is_whole(count) or not 1 <= count <= self.deck.copies_of(card):
            text = pgettext("screen 21xN", "a set of {card} is 1 to {most} cards, not {value}")
            raise IllegalEvent(text.format(card=self.deck.name(card),
                                           most=self.deck.copies_of(card), value=written(count)))
        zone = self._zone_of(event, player, count)
        self._check_legal(card)
        self._check_cards(player, zone, [card] * count)
        burned = self._lay(player, [card] * count, times=count, zone=zone)
        # Translators: the last play, "3x 5": three cards of value 5.
        self._said(player, (lazy("screen 13x2", "{n}x {card}"),
                            {"n": count, "card": self.deck.name(card)}) if count > 1
                   else self.deck.name(card), burned)
        self._after_counted(player, zone)

    def on_chain(self, event: Event) -> None:
        """A run of consecutive values, ``first`` to ``last`` (either way up); the first
        must be legal and only the last card's effect applies (FU3)."""
        self._full_mode_only("chain")
        check_fields(event, "chain", ("player", "first", "last"), ("zone",))
        player = self._turn(event)
        first, last = event["first"], event["last"]
        for value in (first, last):
            if not is_whole(value) or not 1 <= value <= self.deck.numbers:
                text = pgettext("screen 21xN",
                                "a chain runs through numbered cards 1-{most}, not {value}")
                raise IllegalEvent(text.format(most=self.deck.numbers, value=written(value)))
        if first == last:
            text = pgettext("screen 21xN", "a chain has at least two values; {value} alone is "
                                           "a play")
            raise IllegalEvent(text.format(value=first))
        step = 1 if last > first else -1
        cards = list(range(first, last + step, step))
        zone = self._zone_of(event, player, len(cards))
        self._check_legal(first)
        self._check_cards(player, zone, cards)
        burned = self._lay(player, cards, times=1, zone=zone)
        self._said(player, (lazy("screen 13x2", "chain {first}-{last}"),
                            {"first": first, "last": last}), burned)
        self._after_counted(player, zone)

    def on_blind(self, event: Event) -> None:
        """A face-down card turned over: it plays if legal, else the player picks up the
        pile with it (FU7)."""
        self._full_mode_only("blind")
        check_fields(event, "blind", ("player", "value"))
        player = self._turn(event)
        card = self.deck.card(event["value"])
        if self.zones is not None:
            self.zones.check_play(player, BLIND, 1)
        self._check_cards(player, BLIND, [card])
        if self._legal(card):
            burned = self._lay(player, [card], times=1, zone=BLIND)
            # Translators: a face-down card turned over and played, "blind 7".
            self._said(player, (lazy("screen 13x2", "blind {card}"),
                                {"card": self.deck.name(card)}), burned)
            self._after_counted(player, BLIND)
        else:
            if self.zones is not None:  # the card goes into the hand with the pile
                self.zones.lay(player, BLIND, [card])
                self.zones.pick_up(player, len(self.pile) + 1)
            self._pick_up(player)
            # Translators: a face-down card turned over that could not be played: the
            # player took the pile with it. {value} is the card's number (its name would
            # not leave the outcome room in the table's right column).
            self._said(player, (lazy("screen 13x2", "blind {value}: picked up"),
                                {"value": card if isinstance(card, int)
                                 else self.deck.name(card)}))

    def on_pickup(self, event: Event) -> None:
        """The player cannot play: the whole pile goes into their hand; turn over (FU3)."""
        check_fields(event, "pickup", ("player",))
        player = self._turn(event)
        if not self.pile:
            raise IllegalEvent(pgettext("screen 21xN", "the pile is empty: {name} may play any "
                                                       "card")
                               .format(name=player))
        if self.zones is not None:
            self.zones.pick_up(player, len(self.pile))
        self._pick_up(player)
        self._said(player, lazy("screen 13x2", "picked up"))

    def on_out(self, event: Event) -> None:
        """A player has no cards left (FU8); the last one still in loses."""
        check_fields(event, "out", ("player",))
        player = self.player_field(event)
        if self.phase != PLAY:
            raise IllegalEvent(pgettext("screen 21xN", "players go out during a game ({now})")
                               .format(now=self._now()))
        if player in self.out:
            raise IllegalEvent(pgettext("screen 21xN", "{name} is already out").format(name=player))
        if self.zones is not None:  # counted: out comes by itself with the last card
            # Translators: {cards} is what the player holds, "9 cards: 3 in hand, ...".
            raise IllegalEvent(pgettext("screen 21xN", "{name} still holds {cards}")
                               .format(name=player, cards=self.zones.holding(player)))
        self.last = {"player": player, "words": lazy("screen 13x2", "is out")}
        self._go_out(player)

    def _go_out(self, player: str) -> None:
        """``player`` has no cards left; with one player left the game is over."""
        self.out.append(player)
        if len(self.out) == len(self.players) - 1:
            self._finish_game(next(name for name in self.players if name not in self.out))
        elif self.current == player:
            self.current = self._next_after(player)

    def _after_counted(self, player: str, zone: str | None) -> None:
        """Counted: the player whose last card left is out at once (FU8); one who moves
        on to face-up or face-down cards is told so in the last play's words."""
        if self.zones is None or self.last is None:
            return
        if self.zones.total(player) == 0:
            # Translators: {play} is the last play's words ("3x 5"); the player is out.
            self._said(player, (lazy("screen 13x2", "{play}, out"), {"play": self.last["words"]}))
            self._go_out(player)
            return
        now = self.zones.playing_from(player)
        if now != zone and now in (FACE_UP, BLIND):
            message = (lazy("screen 13x2", "{play}; face up next") if now == FACE_UP
                       else lazy("screen 13x2", "{play}; face down next"))
            self._said(player, (message, {"play": self.last["words"]}))

    def _zone_of(self, event: Event, player: str, cards: int) -> str | None:
        """Where a play of ``cards`` cards comes from: the event's ``zone``, else the one
        the counts say (hand, then face-up); refused when the counts rule it out. None
        when the match does not count the cards."""
        if self.zones is None:
            if "zone" in event:
                raise IllegalEvent(pgettext("screen 21xN", "this match does not count the cards "
                                            "(option zones): a play has no zone"))
            return None
        zone = event.get("zone", self.zones.playing_from(player))
        if "zone" in event and zone not in PLAY_ZONES:
            # Translators: {zones} are codes (hand, face_up), left as they are.
            text = pgettext("screen 21xN", "a play's zone is {zones}, not {value} "
                            "(a face-down card is a blind event)")
            raise IllegalEvent(text.format(zones=" or ".join(PLAY_ZONES), value=written(zone)))
        if zone == BLIND:
            zone = HAND  # a play while only face-down cards are left: refused, saying why
        self.zones.check_play(player, zone, cards)
        return str(zone)

    def _check_cards(self, player: str, zone: str | None, cards: list[Card]) -> None:
        """Counted (option ``seen_cards``): refuse cards the deck cannot hold besides the
        ones seen this deal."""
        if self.zones is not None and zone is not None and self.options["seen_cards"]:
            self.zones.check_cards(player, zone, cards)

    def on_end(self, event: Event) -> None:
        """The players end the match between games; fewest losses wins."""
        check_fields(event, "end", ())
        if self.phase != DEAL or not self.games:
            when = (pgettext("screen 21xN", "finish this game first") if self.phase == PLAY
                    else pgettext("screen 21xN", "no game is played yet"))
            raise IllegalEvent(pgettext("screen 21xN", "the match ends between games ({now})")
                               .format(now=when))
        self.phase = OVER

    # -- the rules of laying cards ------------------------------------------------------

    def _turn(self, event: Event) -> str:
        player = self.player_field(event)
        if self.phase != PLAY:
            raise IllegalEvent(pgettext("screen 21xN", "nobody is taking turns now ({now})")
                               .format(now=self._now()))
        if player != self.current:
            raise IllegalEvent(pgettext("screen 21xN", "it is {name}'s turn, not {player}'s")
                               .format(name=self.current, player=player))
        return player

    def _full_mode_only(self, kind: str) -> None:
        if self.quick:
            text = pgettext("screen 21xN", "quick mode has no {kind} event: enter a play by "
                                           "its effect")
            raise IllegalEvent(text.format(kind=kind))

    @property
    def to_beat(self) -> int | None:
        """The value the next card must match or beat; None when any value goes."""
        if self.free or not self.pile:
            return None
        return self.pile[-1].value

    def _legal(self, card: Card) -> bool:
        """FU4: >= the value to beat ascending, <= descending; powers go on anything."""
        beat = self.to_beat
        if beat is None or self.deck.is_power(card):
            return True
        return card >= beat if self.ascending else card <= beat  # type: ignore[operator]

    def _check_legal(self, card: Card) -> None:
        if self._legal(card):
            return
        beat = self.to_beat
        low, high = (beat, self.deck.numbers) if self.ascending else (1, beat)
        allowed = str(low) if low == high else f"{low}-{high}"
        text = (pgettext("screen 21xN", "{card} cannot go on {value}: ascending, so {allowed} "
                         "or a power card") if self.ascending
                else pgettext("screen 21xN", "{card} cannot go on {value}: descending, so "
                              "{allowed} or a power card"))
        raise IllegalEvent(text.format(card=self.deck.name(card), value=beat, allowed=allowed))

    @property
    def order(self) -> str:
        return "ascending" if self.ascending else "descending"

    def _lay(self, player: str, cards: list[Card], times: int, zone: str | None) -> bool:
        """Put ``cards`` on the pile from ``zone`` (None: not counted); the last card's
        effect acts ``times`` times. True if that burned the pile."""
        for card in cards:
            self.pile.append(PileCard(player, card, self._value_on_pile(card)))
        if self.zones is not None and zone is not None:
            self.zones.lay(player, zone, cards)
        burned = self._after_play(player, self.deck.role(cards[-1]), times)
        if self.zones is not None and zone == HAND:
            # After a Wildfire the player plays again before drawing (the rule text),
            # unless it was their last card in hand: nothing to play without drawing.
            wildfire = cards[-1] == WILDFIRE
            if not wildfire or not self.zones.held[player][HAND]:
                self.zones.draw(player)
        return burned

    def _value_on_pile(self, card: Card) -> int | None:
        if card == WILDFIRE:
            return None
        if card == MIRROR:
            # The mirror copies the value under it, never the ability (FU5).
            return self.pile[-1].value if self.pile else None
        return card  # type: ignore[return-value]

    def _after_play(self, player: str, role: str | None, times: int,
                    four: bool = False) -> bool:
        """FU5, FU6: abilities, powers and burns after a play; then whose turn it is.
        True if the pile burned."""
        skip = 0
        for _time in range(times):
            if role == BLACK_MARKET:
                self.direction = -self.direction
            elif role == MAGNETIC_RAYS:
                self.ascending = not self.ascending
            elif role == BACK_STABBER:
                skip += 1
        if role == WILDFIRE or four or top_run(self.pile) >= FOUR_OF_A_KIND:
            # Burned: the same player goes again, any value (skips have nobody to skip).
            if self.zones is not None:
                self.zones.burn(len(self.pile))
            self.pile = []
            self.burns += 1
            self.free = True
            self.current = player
            return True
        # After a Nuclear Blast, or a mirror with no value under it, anything goes.
        no_value = role == MIRROR and self.pile[-1].value is None
        self.free = role == NUCLEAR_BLAST or no_value
        self.current = self._next_after(player, skip)
        return False

    def _quick_play(self, player: str, effect: object, count: object) -> None:
        if effect not in EFFECTS:
            # Translators: {effects} are codes (plain, black_market, ...), as they are.
            text = pgettext("screen 21xN", "a quick play's effect is one of {effects}, not {value}")
            raise IllegalEvent(text.format(effects=", ".join(EFFECTS), value=written(effect)))
        if effect in ROLES and self.deck.number_of(effect) is None:  # type: ignore[arg-type]
            raise IllegalEvent(pgettext("screen 21xN", "this deck has no {card}")
                               .format(card=NAMES[effect]))  # type: ignore[index]
        if effect == WILDFIRE and not self.deck.wildfire:
            raise IllegalEvent(pgettext("screen 21xN", "this deck has no {card}")
                               .format(card="Wildfire"))
        if count is not None and effect not in ABILITIES:
            raise IllegalEvent(pgettext("screen 21xN", "count goes with an ability: {effects}")
                               .format(effects=", ".join(ABILITIES)))
        times = 1 if count is None else count
        if not is_whole(times) or not 1 <= times <= self.deck.copies:  # type: ignore[operator]
            raise IllegalEvent(pgettext("screen 21xN", "count is 1 to {most}, not {value}")
                               .format(most=self.deck.copies, value=written(count)))
        role = None if effect in (PLAIN, FOUR) else str(effect)
        self.pile.append(PileCard(player, None, None))
        burned = self._after_play(player, role, times, four=effect == FOUR)  # type: ignore[arg-type]
        words: Words = NAMES.get(str(effect)) or (
            lazy("screen 13x2", "played") if effect == PLAIN
            else lazy("screen 13x2", "four of a kind"))
        self._said(player, (lazy("screen 13x2", "{n}x {card}"), {"n": times, "card": words})
                   if times > 1 else words, burned)

    def _pick_up(self, player: str) -> None:
        self.pile = []
        self.free = True
        self.current = self._next_after(player)

    def _next_after(self, player: str, skip: int = 0) -> str:
        return self.seats.next_player(player, self.direction, skip, self.out)

    def _said(self, player: str, what: Words, burned: bool = False) -> None:
        """Remember the last thing that happened, for the screen's "last" line (as
        messages: :meth:`state` says them in the language of the moment)."""
        if burned:
            # Translators: the pile burned after the play ({play}, "5"): "5 BURN".
            what = (lazy("screen 13x2", "{play} BURN"), {"play": what})
        self.last = {"player": player, "words": what}

    # -- the end of a game (FU8) -----------------------------------------------------------

    def _finish_game(self, loser: str) -> None:
        self.losses = scores.add_points(self.losses, {loser: 1})
        self.games.append(FinishedGame({
            "game": len(self.games) + 1,
            "dealer": self.dealer,
            "starter": self.starter,
            "out": list(self.out),
            "loser": loser,
            "winners": [name for name in self.players if name != loser],
            "losses": {name: int(name == loser) for name in self.players},
        }))
        self.dealer = loser  # the loser deals the next game
        self._new_deal()
        if self.options["games"] and len(self.games) >= self.options["games"]:
            self.phase = OVER

    def _now(self) -> str:
        if self.phase == DEAL:
            return (pgettext("screen 21xN", "find who starts: who holds a {card}?")
                    .format(card=self._card_words(self.asking_value)))
        if self.phase == PLAY:
            return pgettext("screen 21xN", "it is {name}'s turn").format(name=self.current)
        return pgettext("screen 21xN", "the match is over")

    @property
    def asking_value(self) -> int:
        return self.deck.starter_values()[self.asking]

    def play_words(self) -> str:
        """What the player on turn may play, in words and without their name (the
        picker's title holds the name): "7 or higher", "any card", "5 or lower, face
        up" (a counted match playing from the face-up cards)."""
        beat = self.to_beat
        if beat is None:
            # Translators: Full Counter, what the player on turn may play.
            words = pgettext("screen 21", "any card")
        elif self.ascending:
            words = pgettext("screen 21", "{value} or higher").format(value=beat)
        else:
            words = pgettext("screen 21", "{value} or lower").format(value=beat)
        if (self.zones is not None and self.current is not None
                and self.zones.playing_from(self.current) == FACE_UP):
            # Translators: {prompt} is what the player may play ("7 or higher").
            words = pgettext("screen 21", "{prompt}, face up").format(prompt=words)
        return words

    def _card_words(self, value: int) -> str:
        role = self.deck.role(value)
        return f"{value} ({NAMES[role]})" if role else str(value)

    # -- what the screens read ---------------------------------------------------------

    def legal_cards(self) -> list[Card]:
        """Every kind of card that may be laid now (full mode)."""
        return [card for card in self.deck.cards() if self._legal(card)]

    def expecting(self) -> Expect:
        """What comes next. Choices are keyed by event field:

        - ``deal``: ``starter`` (and ``end`` after a game) with ``{"value": (asked,),
          "face_up": players, "in_hand": players}``, player None.
        - ``play``, full mode: ``play``, ``chain``, ``blind``, ``pickup`` (not on an
          empty pile), ``out``; ``player`` is whose turn; ``{"value": legal cards,
          "first": legal chain starts, "count": (1..copies), "out": players still in}``.
        - ``play``, quick mode: ``play``, ``pickup``, ``out`` with ``{"effect": EFFECTS,
          "count": (1..copies), "out": players still in}``.
        - ``over``: nothing.
        """
        if self.phase == DEAL:
            types = ("starter", "end") if self.games else ("starter",)
            everyone = tuple(self.players)
            return Expect(types, None, {"value": (self.asking_value,), "face_up": everyone,
                                        "in_hand": everyone},
                          pgettext("turn prompt", "Who has a {card}?")
                          .format(card=self._card_words(self.asking_value)))
        if self.phase == PLAY:
            still_in = tuple(self.still_in)
            counts = tuple(range(1, self.deck.copies + 1))
            pickup = ("pickup",) if self.pile else ()
            if self.quick:
                return Expect(("play", *pickup, "out"), self.current,
                              {"effect": EFFECTS, "count": counts, "out": still_in},
                              pgettext("screen 21", "{name} to play").format(name=self.current))
            cards = self.legal_cards()
            starts = tuple(card for card in cards if isinstance(card, int))
            # Translators: whose turn it is and what they may play ("Ann: 7 or higher");
            # the picker shows the name in its title and {what} under it.
            prompt = pgettext("turn prompt", "{name}: {what}").format(
                name=self.current, what=self.play_words())
            if self.zones is not None:
                return self._counted_expect(cards, starts, pickup, prompt)
            return Expect(("play", "chain", "blind", *pickup, "out"), self.current,
                          {"value": tuple(cards), "first": starts, "count": counts,
                           "out": still_in}, prompt)
        return Expect((), None, {}, pgettext("turn prompt", "Match over: {names} won")
                      .format(names=" & ".join(self.winners)))

    def _counted_expect(self, cards: list[Card], starts: tuple[Card, ...],
                        pickup: tuple[str, ...], prompt: str) -> Expect:
        """expecting() when the cards are counted: the zone the current player plays
        from decides between a play and a blind card; ``out`` comes by itself."""
        assert self.zones is not None and self.current is not None
        zone = self.zones.playing_from(self.current)
        # A card the deck has run out of (by the cards seen) is not offered.
        cards = [card for card in (self.deck.cards() if zone == BLIND else cards)
                 if not self.options["seen_cards"] or self.zones.may_lay(self.current, zone,
                                                                          card)]
        starts = tuple(card for card in starts if card in cards)
        if zone == BLIND:
            return Expect(("blind", *pickup), self.current,
                          {"value": tuple(cards), "out": ()},
                          pgettext("turn prompt", "{name}: a face-down card")
                          .format(name=self.current))
        held = self.zones.held[self.current][zone]
        counts = tuple(range(1, min(self.deck.copies, held) + 1))
        chain = ("chain",) if held >= 2 else ()
        return Expect(("play", *chain, *pickup), self.current,
                      {"value": tuple(cards), "first": starts if chain else (),
                       "count": counts, "out": ()}, prompt)

    @property
    def still_in(self) -> list[str]:
        return [name for name in self.players if name not in self.out]

    @property
    def winners(self) -> list[str]:
        """Fewest losses, once the match is over (ties share); [] before."""
        return scores.winners(self.losses, high_wins=False) if self.over else []

    def result(self) -> dict[str, Any]:
        """The match record: ``totals`` are losses (lowest is best); ``winners`` the
        fewest losses once the match is over; ``games`` one record per finished game."""
        return {
            "game": self.game_id,
            "players": list(self.players),
            "over": self.over,
            "low_wins": True,
            "totals": dict(self.losses),
            "winners": self.winners,
            "games": [_copy_game(game.record) for game in self.games],
        }

    def state(self) -> dict[str, Any]:
        """The table now, as JSON (docs/events.md lists every key)."""
        top = self.pile[-1] if self.pile else None
        return {
            **self.result(),
            "options": {**self.options, "deck": self.deck.profile()},
            "phase": self.phase,
            "game_number": self.game_number,
            "dealer": self.dealer,
            "asking": None if self.phase != DEAL else {
                "value": self.asking_value, "name": self._card_words(self.asking_value)},
            "starter": self.starter,
            "current": self.current,
            "direction": DIRECTIONS[self.direction],
            "order": self.order,
            "free": self.free,
            "to_beat": None if self.quick else self.to_beat,
            "top": None if top is None or self.quick else {
                "card": top.card, "value": top.value, "run": top_run(self.pile)},
            "pile": None if self.quick else len(self.pile),
            "burns": self.burns,
            "out": list(self.out),
            "still_in": self.still_in,
            "last": None if self.last is None
            else {"player": self.last["player"], "text": said_text(self.last["words"])},
            "leaders": scores.winners(self.losses, high_wins=False),
            **self._counts(),
        }

    def _counts(self) -> dict[str, Any]:
        """state()'s counts of the cards (all null when the match does not count them):
        ``zones`` per player, the ``deck``, the ``burnt`` cards and which zone each
        player still in plays from (``playing_from``)."""
        zones = self.zones
        if zones is None or self.over:
            return {"zones": None, "deck": None, "burnt": None, "playing_from": None}
        return {"zones": zones.state(), "deck": zones.deck, "burnt": zones.burnt,
                "playing_from": {name: zones.playing_from(name) for name in self.still_in}}

    def outcome(self) -> str:
        """Fewest losses wins (FU8); equal fewest share the win."""
        fewest = self.losses[self.winners[0]] if self.winners else 0
        if len(self.winners) == 1:
            return (ngettext("{name} wins with the fewest losses, {n} loss",
                             "{name} wins with the fewest losses, {n} losses", fewest)
                    .format(name=self.winners[0], n=fewest))
        return (ngettext("{names} share the win with {n} loss each",
                         "{names} share the win with {n} losses each", fewest)
                .format(names=and_list(self.winners), n=fewest))

    def table_facts(self) -> list[tuple[str, Any]]:
        """Direction, up or down, the value to beat, the top of the pile, burns, who is
        out; the card asked for while finding the starter."""
        state = self.state()
        top = state["top"]
        asking = state["asking"]
        order = _("going up") if self.ascending else _("going down")
        top_text = None
        if top is not None:
            top_text = (_("{card} (x{n})").format(card=top["card"], n=top["run"])
                        if top["run"] > 1 else f"{top['card']}")
        return [
            # Translators: a game's number in the match (not which game is played).
            (pgettext("game in a match", "Game"), state["game_number"]),
            # Translators: the card asked for to find who starts, "a 3".
            (_("Looking for"), None if asking is None
             else _("a {card}").format(card=asking["name"])),
            (_("Direction"), _("clockwise") if self.direction == LEFT else _("anticlockwise")),
            (_("Order"), order if self.phase == PLAY else None),
            (_("To beat"), None if self.phase != PLAY else
             _("anything") if state["to_beat"] is None else state["to_beat"]),
            (_("Top of pile"), top_text),
            (_("Pile"), None if state["pile"] is None else n_cards(state["pile"])),
            # Translators: how many times the pile burned (a label).
            (_("Burns"), state["burns"] or None),
            (_("Deck"), None if state["deck"] is None else n_cards(state["deck"])),
            (_("Cards held"), _("not counted in quick mode") if self.quick else None),
            (_("On face-up cards"), self._playing_from_words(state, FACE_UP)),
            (_("On face-down cards"), self._playing_from_words(state, BLIND)),
            (_("Out"), ", ".join(state["out"])),
        ]

    @staticmethod
    def _playing_from_words(state: Mapping[str, Any], zone: str) -> str:
        """Who plays from ``zone`` now ("Ann, Bob"), counted; "" for nobody."""
        playing_from = state["playing_from"] or {}
        return ", ".join(name for name, now in playing_from.items() if now == zone)

    def player_columns(self) -> list[tuple[str, Mapping[str, Any]]]:
        """Counted: each player's cards in hand, face up and face down, columns of the
        page's player table."""
        zones = self._counts()["zones"]
        if zones is None:
            return []
        return [(label, {name: held[zone] for name, held in zones.items()})
                for label, zone in ((_("Hand"), HAND), (_("Face up"), FACE_UP),
                                    (_("Face down"), BLIND))]


MATCH = FullCounter


def _copy_game(game: Mapping[str, Any]) -> dict[str, Any]:
    return {**game, "out": list(game["out"]), "winners": list(game["winners"]),
            "losses": dict(game["losses"])}
