"""Final Card-Down: match the top card by value, colour or suit, and be first to empty your hand.

How a game goes at the table, and the event that tells the companion about each step
(docs/events.md has every field; RULINGS.md CD1-CD7 settle the unclear points):

1. Seven cards are dealt to each player from the 800-card deck and the top card of the
   rest is turned up to start the discard pile (``turn_up``). Its effect is ignored.
2. On their turn a player may first call out the player before them for a TRIO, DUO or
   UNO they forgot (``call_out``: the offender draws 2). Then they either draw one card
   (``draw``) or discard a card that matches the top card's value, colour or suit, or
   any 0 (``play``).
3. The card's value may have an effect: 2 makes the next player draw 2 unless they play
   a 2 too (the 2s stack; ``draw_stack`` takes them all); A skips the next player; B
   reverses the order (with two players it skips); C lets the player discard one more
   card (``play`` again, or ``pass``); D lets them name the colour the next card must
   have (``colour``, or ``pass``).
4. A player who goes down to 3, 2 or 1 card must say TRIO, DUO or UNO; the companion
   asks whether they did (``said`` or ``forgot``).
5. When the draw pile runs out, the discard pile except its top card is turned over to
   become the new draw pile, unshuffled.
6. The game ends the moment a player discards their last card. The cards left in each
   hand are entered (``hand``: the values, or just their sum); each player scores the
   sum and the lowest cumulative total leads the match. The next game starts with the
   next ``turn_up``; ``end_match`` ends the match between games (or the ``games``
   option does after that many).

Cards are entered exactly (value, colour and suit: the match checks every play) or
quickly (only what matters for the turn order: nothing for a plain card, the value for
a 0, 2, A, B, C or D). The match counts every card either way: draw pile + discard pile
+ hands = 800 at every step.

The module is pure: no I/O, no clock, no random. The helpers at the top (:class:`Card`,
:func:`refusal`, :data:`EFFECTS`, :data:`WORDS`) are the rules themselves, for the screens
as much as for the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from companion.errors import BadSetup, IllegalEvent, written
from companion.games.base import Event, Expect, Match, Said, check_fields, n_cards
from companion.lang import _, lazy, pgettext
from companion.table import scores
from companion.table.copies import DISCARD, Hand, Seen, cards_of_value
from companion.table.seats import LEFT, RIGHT, Seats

# -- the components (CD1) --------------------------------------------------------------

#: The sixteen values, 0 (NULL) to F, as entered.
VALUES: tuple[str, ...] = tuple("0123456789ABCDEF")
COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple")
SUITS: tuple[str, ...] = ("hearts", "diamonds", "clubs", "spades", "questions")
COPIES_OF_EACH_CARD = 2
DECK_SIZE = len(VALUES) * len(COLOURS) * len(SUITS) * COPIES_OF_EACH_CARD  # 800
#: Cards of one value: every colour and suit, two of each.
COPIES_OF_EACH_VALUE = len(COLOURS) * len(SUITS) * COPIES_OF_EACH_CARD  # 50
HAND_SIZE = 7

NULL = "0"
DRAW_TWO, SKIP, REVERSE, ONE_MORE, NAME_COLOUR = "2", "A", "B", "C", "D"
#: What each value with an effect does, short enough for a 17-character line (CD4).
#: Each said in the language of the screen that looks it up (:class:`Said`).
EFFECTS: Said = Said({
    # Translators: what a card does when discarded (the card's value is shown beside).
    NULL: lazy("screen 17", "goes on anything"),
    DRAW_TWO: lazy("screen 17", "next draws 2"),
    SKIP: lazy("screen 17", "skip next"),
    REVERSE: lazy("screen 17", "reverse"),
    ONE_MORE: lazy("screen 17", "one more card"),
    NAME_COLOUR: lazy("screen 17", "name a colour"),
})
#: The colours and suits as a person reads them, on the screen and the pages alike (the
#: events, and what programs read, keep the English codes).
COLOUR_WORDS: Said = Said({
    # Translators: a Final Card-Down card colour (7 characters: "{colour} {suit}" fits 17).
    "red": lazy("screen 7", "red"),
    # Translators: a Final Card-Down card colour.
    "blue": lazy("screen 7", "blue"),
    # Translators: a Final Card-Down card colour.
    "green": lazy("screen 7", "green"),
    # Translators: a Final Card-Down card colour.
    "yellow": lazy("screen 7", "yellow"),
    # Translators: a Final Card-Down card colour.
    "purple": lazy("screen 7", "purple"),
})
SUIT_WORDS: Said = Said({
    # Translators: a Final Card-Down card suit (9 characters: "{colour} {suit}" fits 17).
    "hearts": lazy("screen 9", "hearts"),
    # Translators: a Final Card-Down card suit.
    "diamonds": lazy("screen 9", "diamonds"),
    # Translators: a Final Card-Down card suit.
    "clubs": lazy("screen 9", "clubs"),
    # Translators: a Final Card-Down card suit.
    "spades": lazy("screen 9", "spades"),
    # Translators: a Final Card-Down card suit (the deck's fifth suit, a question mark).
    "questions": lazy("screen 9", "questions"),
})


def colour_word(colour: str | None) -> str:
    """A card colour as a person reads it ("red" in the language spoken); anything not
    a colour as it is."""
    return COLOUR_WORDS.get(colour, str(colour))


def suit_word(suit: str | None) -> str:
    """A card suit as a person reads it; anything not a suit as it is."""
    return SUIT_WORDS.get(suit, str(suit))


def card_words(value: str, colour: str, suit: str) -> str:
    """An exact card as a person reads it: "7 red hearts" in the language spoken."""
    # Translators: the top card's colour and suit, beside its value (17 characters).
    return f"{value} " + pgettext("screen 17", "{colour} {suit}").format(
        colour=colour_word(colour), suit=suit_word(suit))


#: Values without an effect: a quick-mode card whose value is not given is one of these.
PLAIN_VALUES: tuple[str, ...] = tuple(value for value in VALUES if value not in EFFECTS)
#: Cards a stacked 2 adds, and a call-out costs the offender.
CARDS_PER_TWO = 2
CALL_OUT_CARDS = 2
#: What a player must say on going down to this many cards (CD6).
WORDS: dict[int, str] = {3: "TRIO", 2: "DUO", 1: "UNO"}

#: The phases of a game, as state()["phase"] names them.
DEAL, PLAY, HANDS, OVER = "deal", "play", "hands", "over"
#: What the player whose turn it is still owes after a C or a D.
AGAIN, COLOUR = "again", "colour"


def card_points(value: str) -> int:
    """A card's value in points: 0-9 as written, A = 10 ... F = 15 (CD1, CD7)."""
    if value not in VALUES:
        raise ValueError(f"{written(value)} is not a card value")
    return VALUES.index(value)


class Card(NamedTuple):
    """A card as far as the companion knows it; a field is None when it was not entered.

    Exact entry gives all three. Quick entry gives only the value of a card with an
    effect (or a 0), or nothing at all for a plain card: a card without a value is
    treated as plain (no effect) and cannot be refused for not matching.
    """

    value: str | None = None
    colour: str | None = None
    suit: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self  # immutable: a match's safety copy may share it

    @property
    def exact(self) -> bool:
        return None not in self

    @property
    def effect(self) -> str | None:
        """The value whose effect this card has, or None for a plain card (CD4)."""
        return self.value if self.value in EFFECTS and self.value != NULL else None

    def as_json(self) -> dict[str, str]:
        """The event form: only the fields that are known."""
        return {field: known for field, known in self._asdict().items() if known is not None}

    def __str__(self) -> str:
        if self.exact:
            return card_words(self.value, self.colour, self.suit)
        if self.value is not None:
            # said aloud: "an eight", "an A", "an E", "an F"
            if self.value in "8AEF":
                # Translators: a card known by its value only, "an 8"/"an A" (in refusals).
                return pgettext("screen 21xN", "an {card}").format(card=self.value)
            return pgettext("screen 21xN", "a {card}").format(card=self.value)
        return pgettext("screen 21xN", "a plain card")


def card_from_event(raw: object) -> Card:
    """The card an event names: ``{"value", "colour", "suit"}`` (exact) or
    ``{"value"}`` alone (quick); refused otherwise."""
    if not isinstance(raw, Mapping):
        raise IllegalEvent(pgettext("screen 21xN",
                                    'a card is an object, like {{"value": "7", "colour": "red", '
                                    '"suit": "hearts"}} or {{"value": "A"}}').format())
    fields = set(raw)
    if fields not in ({"value"}, {"value", "colour", "suit"}):
        text = pgettext("screen 21xN", "a card gives value, colour and suit (exact) or its "
                        "value alone (quick), not {fields}")
        raise IllegalEvent(text.format(fields=", ".join(sorted(map(str, fields)))
                                       or pgettext("screen 21xN", "nothing")))
    value = raw["value"]
    if value not in VALUES:
        raise IllegalEvent(_not_a_value(value))
    if fields == {"value"}:
        return Card(value)
    colour, suit = raw["colour"], raw["suit"]
    if colour not in COLOURS:
        raise IllegalEvent(_not_a_colour(colour))
    if suit not in SUITS:
        raise IllegalEvent(pgettext("screen 21xN", "{value} is not a suit ({suits})")
                           .format(value=written(suit), suits=", ".join(SUITS)))
    return Card(value, colour, suit)


def _not_a_value(value: object) -> str:
    return (pgettext("screen 21xN", "{value} is not a card value (values: {values})")
            .format(value=written(value), values=" ".join(VALUES)))


def _not_a_colour(colour: object) -> str:
    return (pgettext("screen 21xN", "{value} is not a colour ({colours})")
            .format(value=written(colour), colours=", ".join(COLOURS)))


def refusal(card: Card, top: Card | None, declared: str | None, stacked: int) -> str | None:
    """Why ``card`` may not be discarded now, or None if it may (CD3, CD4).

    ``top`` is the top of the discard pile, ``declared`` the colour named with a D that
    is on top, ``stacked`` the cards the stacked 2s make the player draw. What was not
    entered cannot be held against a card: only a sure mismatch is refused.
    """
    if stacked:
        if card.value == DRAW_TWO:
            return None
        return (pgettext("screen 21xN",
                         "{n} to draw from 2s: only a 2 may go on them, or draw the {n}")
                .format(n=stacked))
    if card.value == NULL:
        return None
    if declared is not None:
        if card.colour in (None, declared):
            return None
        # Translators: {colour} is the colour named with the D (red, blue, ...).
        return (pgettext("screen 21xN",
                         "{card} is not {colour}: after the D only {colour} or a 0 may go")
                .format(card=card, colour=colour_word(declared)))
    if top is None:
        return None
    pairs = list(zip(card, top, strict=True))
    if any(mine is None or theirs is None or mine == theirs for mine, theirs in pairs):
        return None
    return (pgettext("screen 21xN",
                     "{card} matches neither the value, colour nor suit of {top}; any 0 would do")
            .format(card=card, top=top))


class DiscardPile:
    """The discard pile, bottom card first. It never changes: adding a card makes a new
    pile, so the match's safety copy before every event can share it."""

    __slots__ = ("cards",)

    def __init__(self, cards: Iterable[Card] = ()):
        self.cards: tuple[Card, ...] = tuple(cards)

    def __deepcopy__(self, memo: dict[int, Any]) -> DiscardPile:
        return self

    def __len__(self) -> int:
        return len(self.cards)

    @property
    def top(self) -> Card | None:
        return self.cards[-1] if self.cards else None

    def plus(self, card: Card) -> DiscardPile:
        return DiscardPile((*self.cards, card))

    def copies(self, card: Card) -> int:
        return self.cards.count(card)


class Entered(NamedTuple):
    """One player's hand at the end of a game: its values (or None if only the sum was
    entered) and its points."""

    values: tuple[str, ...] | None
    points: int


class SettledGame:
    """The record of a finished game (JSON, the shape result() shows). It never changes
    once made, so copies of the match share it."""

    __slots__ = ("record",)

    def __init__(self, record: dict[str, Any]):
        self.record = record

    def __deepcopy__(self, memo: dict[int, Any]) -> SettledGame:
        return self


# -- the match --------------------------------------------------------------------------


class CardDown(Match):
    """A match of Final Card-Down: games until the table stops (or ``games`` are played)."""

    game_id = "card-down"
    title = "Final Card-Down"
    min_players = 2
    max_players = 10
    #: games: how many games make the match; 0 = the table decides after each game.
    option_defaults = {"games": 0}
    high_wins = False  # CD7: the lowest hand sum is best
    player_fields = ("player", "offender")  # a call-out names who forgot the word

    def setup(self) -> None:
        if self.options["games"] < 0:
            raise BadSetup(pgettext("screen 21xN", "option games is how many games make the "
                                    "match (0: until you stop)"))
        self.seats = Seats(self.players)
        self.totals: dict[str, int] = scores.zero_totals(self.players)
        self.games: list[SettledGame] = []
        self.game_number = 1
        self.turnovers = 0
        # (index of the event that turned the discard pile over, cards it turned over)
        self.last_turnover: tuple[int, int] | None = None
        self._deal()

    def _deal(self) -> None:
        """Seven cards each are out; the first card is still to be turned up (CD2)."""
        self.phase = DEAL
        self.dealer = self.seats.dealer_of_hand(self.game_number)
        self.in_hand: dict[str, int] = {player: HAND_SIZE for player in self.players}
        self.draw_pile = DECK_SIZE - HAND_SIZE * len(self.players)
        self.discard = DiscardPile()
        self.direction = LEFT
        self.current: str | None = None
        self.stacked = 0  # cards the 2s on top make the next player draw
        self.declared: str | None = None  # the colour named with the D on top
        self.skip = 0  # players the card just played skips when the turn ends
        self.words_due: list[str] = []  # words the current player must be asked about
        self.follow_up: str | None = None  # AGAIN after a C, COLOUR after a D
        self.forgotten: list[str] = []  # words the current player forgot this turn
        self.call_outs: list[tuple[str, str]] = []  # (offender, word) that may be called now
        self.went_out: str | None = None
        self.entered: dict[str, Entered] = {}

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def top(self) -> Card | None:
        """The top card of the discard pile (None before the first card is turned up)."""
        return self.discard.top

    # -- events -----------------------------------------------------------------------

    def on_turn_up(self, event: Event) -> None:
        """The first card of a game is turned up from the deck; its effect is ignored."""
        check_fields(event, "turn_up", optional=("card",))
        if self.phase != DEAL:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "the first card is turned up once, at the deal ({now})")
                               .format(now=self._now()))
        card = card_from_event(event["card"]) if "card" in event else Card()
        self.draw_pile -= 1
        self.discard = self.discard.plus(card)
        self.current = self.seats.left_of(self.dealer)
        self.phase = PLAY

    def on_play(self, event: Event) -> None:
        """The player whose turn it is discards a card (CD3, CD4); the last one ends the
        game at once (CD7)."""
        check_fields(event, "play", ("player",), optional=("card",))
        player = self._turn_of(event)
        if self.follow_up == COLOUR:
            raise IllegalEvent(self._colour_first(player))
        card = card_from_event(event["card"]) if "card" in event else Card()
        reason = self.why_not(card)
        if reason:
            raise IllegalEvent(reason)
        self._act()
        self.in_hand[player] -= 1
        self.discard = self.discard.plus(card)
        self.declared = None
        self.follow_up = None
        self.skip = 0
        left = self.in_hand[player]
        if left == 0:
            self._go_out(player)
            return
        if left in WORDS:
            self.words_due.append(WORDS[left])
        self._card_effect(card)
        self._end_turn_if_done(player)

    def on_said(self, event: Event) -> None:
        """The player said TRIO, DUO or UNO as they went down to 3, 2 or 1 card (CD6)."""
        player, _ = self._answer(event, "said")
        self._end_turn_if_done(player)

    def on_forgot(self, event: Event) -> None:
        """The player did not say it: the next player may call them out (CD6)."""
        player, word = self._answer(event, "forgot")
        self.forgotten.append(word)
        self._end_turn_if_done(player)

    def on_colour(self, event: Event) -> None:
        """After a D the player names the colour the next card must have (CD4)."""
        check_fields(event, "colour", ("player", "colour"))
        player = self._follow_up_of(event, COLOUR, "colour")
        colour = event["colour"]
        if colour not in COLOURS:
            raise IllegalEvent(_not_a_colour(colour))
        self.declared = colour
        self.follow_up = None
        self._end_turn_if_done(player)

    def on_pass(self, event: Event) -> None:
        """No second card after a C, or no colour named after a D: the turn ends."""
        check_fields(event, "pass", ("player",))
        player = self._follow_up_of(event, None, "pass")
        self.follow_up = None
        self._end_turn_if_done(player)

    def on_draw(self, event: Event) -> None:
        """The player draws one card instead of discarding; their turn ends (CD3)."""
        check_fields(event, "draw", ("player",))
        player = self._turn_start_of(event, "draw")
        if self.stacked:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "{name} must play a 2 or draw the {n} (draw_stack)")
                               .format(name=player, n=self.stacked))
        self._act()
        self._draw(player, 1)
        self._end_turn(player)

    def on_draw_stack(self, event: Event) -> None:
        """The player does not play a 2 on the 2s: they draw the total, turn over (CD4)."""
        check_fields(event, "draw_stack", ("player",))
        player = self._turn_start_of(event, "draw_stack")
        if not self.stacked:
            raise IllegalEvent(pgettext("screen 21xN", "no 2s are stacked on the discard pile; "
                                        "draw one card (draw)"))
        self._act()
        self._draw(player, self.stacked)
        self.stacked = 0
        self._end_turn(player)

    def on_call_out(self, event: Event) -> None:
        """At the start of their turn the player calls out the one before them for a word
        they forgot; the offender draws 2 (CD6). Once per word each time it was due."""
        check_fields(event, "call_out", ("player", "offender", "word"))
        player = self._turn_start_of(event, "call_out")
        claim = (event["offender"], event["word"])
        if claim not in self.call_outs:
            raise IllegalEvent(self._no_call_out(player, claim))
        self.call_outs.remove(claim)
        self._draw(claim[0], CALL_OUT_CARDS)

    def on_hand(self, event: Event) -> None:
        """What one player holds when the game is over: the values, or just their sum."""
        kind = "values" if "values" in event else "sum"
        if kind not in event:
            raise IllegalEvent(pgettext("screen 21xN", 'a hand event needs "values" (the cards) '
                                        'or "sum" (their total)'))
        check_fields(event, "hand", ("player", kind))
        player = self.player_field(event)
        if self.phase != HANDS:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "hands are entered when someone has gone out ({now})")
                               .format(now=self._now()))
        if player in self.entered:
            text = (pgettext("screen 21xN", "{name} went out: 0 points")
                    if player == self.went_out
                    else pgettext("screen 21xN", "{name} is already entered"))
            raise IllegalEvent(text.format(name=player))
        held = self.in_hand[player]
        if kind == "values":
            values = value_list(event["values"])
            if len(values) != held:
                raise IllegalEvent(pgettext("screen 21xN", "{name} holds {cards}, not {n}")
                                   .format(name=player, cards=n_cards(held), n=len(values)))
            reason = self.too_many(values)
            if reason:
                raise IllegalEvent(reason)
            self.entered[player] = Entered(tuple(values), sum(map(card_points, values)))
        else:
            total = event["sum"]
            most = held * card_points(VALUES[-1])
            if isinstance(total, bool) or not isinstance(total, int) or not 0 <= total <= most:
                text = pgettext("screen 21xN", "{name}'s {cards} add up to 0-{most}, not {value}")
                raise IllegalEvent(text.format(name=player, cards=n_cards(held), most=most,
                                               value=written(total)))
            self.entered[player] = Entered(None, total)
        if len(self.entered) == len(self.players):
            self._settle_game()

    def on_end_match(self, event: Event) -> None:
        """The table stops: the match ends between games with the standings as they are."""
        check_fields(event, "end_match")
        if self.phase != DEAL or not self.games:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "the match ends between games, after at least one ({now})")
                               .format(now=self._now()))
        self.phase = OVER

    # -- turns ------------------------------------------------------------------------

    def why_not(self, card: Card) -> str | None:
        """Why the player whose turn it is may not discard ``card`` now (None: they may).

        The rules of :func:`refusal`, plus one deck: no exact card three times on the
        discard pile, no value more than 50 times.
        """
        reason = refusal(card, self.top, self.declared, self.stacked)
        if reason is None and card.exact and self.discard.copies(card) >= COPIES_OF_EACH_CARD:
            reason = (pgettext("screen 21xN", "both {card} cards are already on the discard "
                               "pile; the deck has {n} of each")
                      .format(card=card, n=COPIES_OF_EACH_CARD))
        if reason is None and card.value is not None:
            reason = self.too_many([card.value])
        return reason

    def too_many(self, values: list[str]) -> str | None:
        """Why ``values`` cannot be cards of the deck besides the ones seen this game (on
        the discard pile, in the hands entered at its end), in words; None: they can. A
        turned-over discard pile is out of sight again until its cards are played."""
        seen = Seen()
        seen.add(DISCARD, [card.value for card in self.discard.cards if card.value is not None])
        for player, entry in self.entered.items():
            seen.add(Hand(player), entry.values or ())
        return seen.too_many(values, lambda value: COPIES_OF_EACH_VALUE, cards_of_value)

    def _turn_of(self, event: Event) -> str:
        """The event's player, refused unless it is their move and no question is open."""
        player = self.player_field(event)
        if self.phase != PLAY:
            raise IllegalEvent(pgettext("screen 21xN", "nobody is taking turns now ({now})")
                               .format(now=self._now()))
        if player != self.current:
            raise IllegalEvent(pgettext("screen 21xN", "it is {name}'s turn, not {player}'s")
                               .format(name=self.current, player=player))
        if self.words_due:
            # Translators: {word} is what the player must say (TRIO, DUO, UNO), as is;
            # "said" and "forgot" are the events that answer.
            text = pgettext("screen 21xN", "first: did {name} say {word}? (said or forgot)")
            raise IllegalEvent(text.format(name=player, word=self.words_due[0]))
        return player

    def _turn_start_of(self, event: Event, kind: str) -> str:
        player = self._turn_of(event)
        if self.follow_up == AGAIN:
            # Translators: {kind} is the event refused (draw, call_out), as is.
            text = pgettext("screen 21xN",
                            "after the C {name} may play one more card or pass, not {kind}")
            raise IllegalEvent(text.format(name=player, kind=kind))
        if self.follow_up == COLOUR:
            raise IllegalEvent(self._colour_first(player))
        return player

    @staticmethod
    def _colour_first(player: str) -> str:
        return (pgettext("screen 21xN", "{name} names a colour for the D first (or passes)")
                .format(name=player))

    def _follow_up_of(self, event: Event, wanted: str | None, kind: str) -> str:
        player = self._turn_of(event)
        if self.follow_up is None or (wanted is not None and self.follow_up != wanted):
            text = (pgettext("screen 21xN", "{kind} comes only after a D ({now})")
                    if wanted == COLOUR
                    else pgettext("screen 21xN", "{kind} comes only after a C or a D ({now})"))
            raise IllegalEvent(text.format(kind=kind, now=self._now()))
        return player

    def _answer(self, event: Event, kind: str) -> tuple[str, str]:
        check_fields(event, kind, ("player", "word"))
        player = self.player_field(event)
        if self.phase != PLAY or not self.words_due or player != self.current:
            raise IllegalEvent(pgettext("screen 21xN", "nobody has a word to say now ({now})")
                               .format(now=self._now()))
        word = event["word"]
        if word != self.words_due[0]:
            text = pgettext("screen 21xN", "{name} has {cards}: the word is {word}, not {value}")
            raise IllegalEvent(text.format(name=player, cards=n_cards(self.in_hand[player]),
                                           word=self.words_due[0], value=written(word)))
        self.words_due.pop(0)
        return player, word

    def _no_call_out(self, player: str, claim: tuple[Any, Any]) -> str:
        if not self.call_outs:
            return (pgettext("screen 21xN", "nobody can be called out now; {name} may play or draw")
                    .format(name=player))
        # Translators: one call-out a player may make, "Bob for UNO".
        each = pgettext("screen 21xN", "{name} for {word}")
        can = ", ".join(each.format(name=offender, word=word) for offender, word in self.call_outs)
        wrong = each.format(name=claim[0], word=claim[1])
        return (pgettext("screen 21xN", "{name} may call out {can}, not {claim}")
                .format(name=player, can=can, claim=wrong))

    def _act(self) -> None:
        """The player has begun their turn proper: the moment to call out has passed."""
        self.call_outs = []

    def _card_effect(self, card: Card) -> None:
        """What the card just discarded does to the turn (CD4)."""
        effect = card.effect
        if effect == DRAW_TWO:
            self.stacked += CARDS_PER_TWO
        elif effect == SKIP:
            self.skip = 1
        elif effect == REVERSE:
            if len(self.players) == 2:
                self.skip = 1  # with two players a reverse acts as a skip
            else:
                self.direction = RIGHT if self.direction == LEFT else LEFT
        elif effect == ONE_MORE:
            self.follow_up = AGAIN
        elif effect == NAME_COLOUR:
            self.follow_up = COLOUR

    def _end_turn_if_done(self, player: str) -> None:
        if not self.words_due and self.follow_up is None:
            self._end_turn(player)

    def _end_turn(self, player: str) -> None:
        """The turn passes on; the words this player forgot may be called by the next."""
        following = self.seats.next_player(player, self.direction, skip=self.skip)
        self.call_outs = [(player, word) for word in self.forgotten] if following != player else []
        self.forgotten = []
        self.skip = 0
        self.current = following

    def _draw(self, player: str, cards: int) -> None:
        """``player`` takes ``cards`` from the draw pile, turning the discard pile over
        whenever the draw pile runs out (CD5). Cards that are nowhere are not drawn."""
        drawn = 0
        while drawn < cards:
            if not self.draw_pile:
                self._turn_over()
                if not self.draw_pile:
                    break  # every other card is in someone's hand
            taken = min(cards - drawn, self.draw_pile)
            self.draw_pile -= taken
            drawn += taken
            if not self.draw_pile:
                self._turn_over()
        self.in_hand[player] += drawn

    def _turn_over(self) -> None:
        """The discard pile but its top card becomes the draw pile, face down and not
        shuffled: the first card played is the first drawn (CD5)."""
        top, turned = self.discard.top, len(self.discard) - 1
        if top is None or turned < 1:
            return
        self.draw_pile = turned
        self.discard = DiscardPile((top,))
        self.turnovers += 1
        previous = self.last_turnover[1] if self._turned_over_now() else 0
        # Events are logged after their handler: this event's index is len(events).
        self.last_turnover = (len(self.events), previous + turned)

    def _turned_over_now(self) -> bool:
        return self.last_turnover is not None and self.last_turnover[0] == len(self.events)

    # -- the end of a game (CD7) -----------------------------------------------------

    def _go_out(self, player: str) -> None:
        """The player discarded their last card: the game is over, no effect resolves."""
        self.went_out = player
        self.current = None
        self.words_due, self.follow_up, self.forgotten, self.call_outs = [], None, [], []
        self.entered = {player: Entered((), 0)}
        self.phase = HANDS

    def _settle_game(self) -> None:
        points = {player: self.entered[player].points for player in self.players}
        self.totals = scores.add_points(self.totals, points)
        self.games.append(SettledGame({
            "game": self.game_number,
            "dealer": self.dealer,
            "went_out": self.went_out,
            "players": {
                player: {
                    "cards": self.in_hand[player],
                    "values": None if entry.values is None else list(entry.values),
                    "points": entry.points,
                }
                for player, entry in self.entered.items()
            },
            "turnovers": self.turnovers,
        }))
        self.turnovers = 0
        if self.options["games"] and len(self.games) >= self.options["games"]:
            self.phase = OVER
            return
        self.game_number += 1
        self._deal()

    def _now(self) -> str:
        """What the match is waiting for, to explain a refusal."""
        if self.phase == PLAY:
            return self.expecting().prompt
        if self.phase == DEAL:
            return pgettext("screen 21xN", "turn up the first card")
        if self.phase == HANDS:
            return pgettext("screen 21xN", "enter the cards left in each hand")
        return pgettext("screen 21xN", "the match is over")

    # -- what the screens read -------------------------------------------------------

    def expecting(self) -> Expect:
        """What comes next (docs/events.md has the table of phases and choices)."""
        cards = {"value": VALUES, "colour": COLOURS, "suit": SUITS}
        if self.phase == DEAL:
            types = ("turn_up", "end_match") if self.games else ("turn_up",)
            return Expect(types, None, cards,
                          pgettext("turn prompt", "Deal 7 each, turn up a card"))
        if self.phase == HANDS:
            waiting = self._not_entered()
            return Expect(("hand",), None, {"player": waiting, "value": VALUES},
                          pgettext("turn prompt", "Enter {name}'s cards").format(name=waiting[0])
                          if len(waiting) == 1 else pgettext("turn prompt", "Enter each hand"))
        if self.phase == OVER:
            return Expect((), None, {}, pgettext("turn prompt", "Match over: {names} won")
                          .format(names=" & ".join(self._leaders())))
        player = self.current
        if self.words_due:
            word = self.words_due[0]
            return Expect(("said", "forgot"), player, {"word": (word,)},
                          pgettext("turn prompt", "Did {name} say {word}?")
                          .format(name=player, word=word))
        if self.follow_up == COLOUR:
            return Expect(("colour", "pass"), player, {"colour": COLOURS},
                          pgettext("turn prompt", "{name} names a colour").format(name=player))
        if self.follow_up == AGAIN:
            return Expect(("play", "pass"), player, cards,
                          pgettext("turn prompt", "{name}: one more card?").format(name=player))
        if self.stacked:
            types: tuple[str, ...] = ("play", "draw_stack")
            choices: dict[str, tuple[Any, ...]] = {**cards, "value": (DRAW_TWO,)}
            prompt = (pgettext("turn prompt", "{name}: a 2 or draw {n}")
                      .format(name=player, n=self.stacked))
        else:
            types, choices = ("play", "draw"), dict(cards)
            prompt = pgettext("turn prompt", "{name}: play or draw").format(name=player)
        if self.call_outs:
            types += ("call_out",)
            choices["call_out"] = tuple(self.call_outs)
        return Expect(types, player, choices, prompt)

    def _not_entered(self) -> tuple[str, ...]:
        return tuple(player for player in self.players if player not in self.entered)

    def _leaders(self) -> list[str]:
        return scores.winners(self.totals, high_wins=False)

    def result(self) -> dict[str, Any]:
        """The standings: over, totals, winners (lowest total; [] until over), games."""
        return {
            "game": self.game_id,
            "players": list(self.players),
            "over": self.over,
            "totals": dict(self.totals),
            "winners": self._leaders() if self.over else [],
            "games": [_copy_game(game.record) for game in self.games],
        }

    def state(self) -> dict[str, Any]:
        """The table now, as JSON (docs/events.md lists every key)."""
        top = self.top
        playing = self.phase == PLAY
        return {
            **self.result(),
            "options": dict(self.options),
            "phase": self.phase,
            "game_number": self.game_number,
            "dealer": self.dealer,
            "current": self.current,
            "next": self.seats.next_player(self.current, self.direction, skip=self.skip)
            if playing and self.current else None,
            "direction": "left" if self.direction == LEFT else "right",
            "top": None if top is None else top._asdict(),
            "declared": self.declared,
            "stacked": self.stacked,
            "follow_up": self.follow_up,
            "word_due": self.words_due[0] if self.words_due else None,
            "call_outs": [{"offender": who, "word": word} for who, word in self.call_outs],
            "in_hand": dict(self.in_hand),
            "draw_pile": self.draw_pile,
            "discard_pile": len(self.discard),
            "turned_over": self.last_turnover[1] if self._turned_over_last() else 0,
            "went_out": self.went_out,
            "entered": {player: entry.points for player, entry in self.entered.items()},
            "leaders": self._leaders(),
        }

    def _turned_over_last(self) -> bool:
        """True when the event applied last turned the discard pile over."""
        return self.last_turnover is not None and self.last_turnover[0] == len(self.events) - 1

    def table_facts(self) -> list[tuple[str, Any]]:
        """The top card and a declared colour, the direction, a stack of 2s, what is
        still owed, every hand count, the piles."""
        state = self.state()
        top = state["top"]
        if top is not None and top.get("colour") and top.get("suit"):
            card = card_words(top["value"], top["colour"], top["suit"])
        else:  # a quick entry: the value alone, if it was given
            card = None if top is None else str(top.get("value") or "")
        if top is not None and top.get("value") in EFFECTS:
            # Translators: the top card and what it does, "A red hearts (skip next)".
            card = _("{card} ({effect})").format(card=card, effect=EFFECTS[top["value"]])
        return [
            # Translators: a game's number in the match (not which game is played).
            (pgettext("game in a match", "Game"), state["game_number"]),
            (_("Top card"), card),
            (_("Colour named"), state["declared"] and colour_word(state["declared"])),
            (_("Direction"), _("clockwise") if state["direction"] == "left"
             else _("anticlockwise")),
            # Translators: 2s stacked on the discard pile; the text is "draw 4".
            (_("Stack"), None if not state["stacked"]
             else _("draw {n}").format(n=state["stacked"])),
            # Translators: who plays next (a label).
            (_("Next"), state["next"]),
            (_("Must say"), None if state["word_due"] is None
             else _("{name}: {word}").format(name=state["current"], word=state["word_due"])),
            (_("Draw pile"), n_cards(state["draw_pile"])),
            (_("Went out"), state["went_out"]),
        ]

    def player_columns(self) -> list[tuple[str, Mapping[str, Any]]]:
        """The cards each player holds, a column of the page's player table."""
        # Translators: a column of the page: cards each player holds.
        return [(_("In hand"), dict(self.in_hand))]


MATCH = CardDown


def value_list(values: object) -> list[str]:
    """``values`` if it is a list of card values, else refused."""
    if not isinstance(values, list):
        raise IllegalEvent(pgettext("screen 21xN", 'values are a list, like ["3", "F", "0"]'))
    for value in values:
        if value not in VALUES:
            raise IllegalEvent(_not_a_value(value))
    return list(values)


def _copy_game(game: Mapping[str, Any]) -> dict[str, Any]:
    """A deep-enough copy so callers cannot change the match through result()."""
    return {
        **game,
        "players": {
            player: {**row, "values": None if row["values"] is None else list(row["values"])}
            for player, row in game["players"].items()
        },
    }
