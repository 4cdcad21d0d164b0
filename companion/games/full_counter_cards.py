"""Full Counter's cards: which are powers and abilities, what they are called at the
table, and the deck profile (:class:`Deck`, the ``deck`` option: how many of each card,
which number plays which role; RULINGS FU1 is the default).

Pure data and checks, for the engine (:mod:`companion.games.full_counter`), its
screens and the phone's pads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import BadSetup, IllegalEvent, written
from companion.lang import npgettext, pgettext
from companion.table.copies import cards_of_value

#: The two powers without a number. Numbered cards are entered as their number.
WILDFIRE, MIRROR = "wildfire", "mirror"
#: The numbered cards that do something, by their role in the deck profile.
NUCLEAR_BLAST, GOLD_BAR = "nuclear_blast", "gold_bar"
BLACK_MARKET, BACK_STABBER, MAGNETIC_RAYS = "black_market", "back_stabber", "magnetic_rays"
ROLES: tuple[str, ...] = (NUCLEAR_BLAST, GOLD_BAR, BLACK_MARKET, BACK_STABBER, MAGNETIC_RAYS)
#: Abilities act once per card laid (FU6); a chain's last card acts once.
ABILITIES: tuple[str, ...] = (BLACK_MARKET, BACK_STABBER, MAGNETIC_RAYS)

NAMES: dict[str, str] = {
    NUCLEAR_BLAST: "Nuclear Blast",
    GOLD_BAR: "Gold Bar",
    BLACK_MARKET: "Black Market",
    BACK_STABBER: "Back Stabber",
    MAGNETIC_RAYS: "Magnetic Rays",
    WILDFIRE: "Wildfire",
    MIRROR: "Dirty Mirror",
}

#: ``n`` cards of one name, for the refusal of a card the deck has run out of ("the deck
#: has 4 Gold Bars: ..."): the names as the cards print them, counted.
# Translators: a Full Counter card's name as its cards print it, for a count of them
# ("the deck has 4 Gold Bars"); the names stay as printed, as elsewhere.
MANY: dict[str, Callable[[int], str]] = {
    NUCLEAR_BLAST: lambda n: npgettext("card names", "Nuclear Blast", "Nuclear Blasts", n),
    GOLD_BAR: lambda n: npgettext("card names", "Gold Bar", "Gold Bars", n),
    BLACK_MARKET: lambda n: npgettext("card names", "Black Market", "Black Markets", n),
    BACK_STABBER: lambda n: npgettext("card names", "Back Stabber", "Back Stabbers", n),
    MAGNETIC_RAYS: lambda n: npgettext("card names", "Magnetic Rays", "Magnetic Rays", n),
    WILDFIRE: lambda n: npgettext("card names", "Wildfire", "Wildfires", n),
    MIRROR: lambda n: npgettext("card names", "Dirty Mirror", "Dirty Mirrors", n),
}

#: FU1: numbered cards 1-11, four of each, four Wildfire, four Dirty Mirror = 52 cards.
DEFAULT_DECK: dict[str, Any] = {
    "numbers": 11,
    "copies": 4,
    WILDFIRE: 4,
    MIRROR: 4,
    NUCLEAR_BLAST: 1,
    GOLD_BAR: 2,
    BLACK_MARKET: 3,
    BACK_STABBER: 7,
    MAGNETIC_RAYS: 8,
}
#: What each profile entry may be, for the checks and the setup screen.
PROFILE_LIMITS: dict[str, tuple[int, int]] = {
    "numbers": (3, 20), "copies": (1, 8), WILDFIRE: (0, 8), MIRROR: (0, 8)}

Card = int | str


@dataclass(frozen=True)
class Deck:
    """A deck profile: numbered cards 1..``numbers``, ``copies`` of each, the powers
    without a number, and which number plays which role (None: not in this deck)."""

    numbers: int
    copies: int
    wildfire: int
    mirror: int
    roles: Mapping[int, str]

    def __deepcopy__(self, memo: dict) -> Deck:
        return self  # never changes, so a match's safety copy may share it

    @classmethod
    def from_option(cls, given: Mapping[str, Any]) -> Deck:
        """The profile named by the ``deck`` option (entries left out keep FU1's);
        BadSetup says what is wrong with it."""
        unknown = sorted(set(given) - set(DEFAULT_DECK))
        if unknown:
            text = pgettext("screen 21xN", "the deck profile has no {keys} (it has: {known})")
            raise BadSetup(text.format(keys=", ".join(unknown), known=", ".join(DEFAULT_DECK)))
        profile = {**DEFAULT_DECK, **given}
        for key, (low, high) in PROFILE_LIMITS.items():
            if not is_whole(profile[key]) or not low <= profile[key] <= high:
                text = pgettext("screen 21xN", "deck {key} is a whole number {low}-{high}, "
                                "not {value}")
                raise BadSetup(text.format(key=key, low=low, high=high,
                                           value=written(profile[key])))
        roles: dict[int, str] = {}
        for role in ROLES:
            number = profile[role]
            if number is None:
                continue
            if not is_whole(number) or not 1 <= number <= profile["numbers"]:
                text = pgettext("screen 21xN", "deck {key} is a card 1-{most} or null, not {value}")
                raise BadSetup(text.format(key=role, most=profile["numbers"],
                                           value=written(number)))
            if number in roles:
                text = pgettext("screen 21xN", "card {value} cannot be both {card} and {other}")
                raise BadSetup(text.format(value=number, card=NAMES[roles[number]],
                                           other=NAMES[role]))
            roles[number] = role
        return cls(profile["numbers"], profile["copies"], profile[WILDFIRE], profile[MIRROR],
                   roles)

    @property
    def size(self) -> int:
        return self.numbers * self.copies + self.wildfire + self.mirror

    def profile(self) -> dict[str, Any]:
        """The profile as the ``deck`` option spells it."""
        by_role = {role: number for number, role in self.roles.items()}
        return {"numbers": self.numbers, "copies": self.copies, WILDFIRE: self.wildfire,
                MIRROR: self.mirror, **{role: by_role.get(role) for role in ROLES}}

    def cards(self) -> list[Card]:
        """Every kind of card in the deck: the numbers, then Wildfire and Dirty Mirror."""
        powers = [card for card in (WILDFIRE, MIRROR) if self.copies_of(card)]
        return [*range(1, self.numbers + 1), *powers]

    def number_of(self, role: str) -> int | None:
        return next((number for number, name in self.roles.items() if name == role), None)

    def role(self, card: Card) -> str | None:
        """``card``'s role: an ability or power, or None for a plain number."""
        if card in (WILDFIRE, MIRROR):
            return str(card)
        return self.roles.get(card)  # type: ignore[call-overload]

    def is_power(self, card: Card) -> bool:
        """Power cards go on anything (FU4)."""
        return self.role(card) in (NUCLEAR_BLAST, WILDFIRE, MIRROR)

    def copies_of(self, card: Card) -> int:
        return {WILDFIRE: self.wildfire, MIRROR: self.mirror}.get(card, self.copies)  # type: ignore[arg-type]

    def name(self, card: Card) -> str:
        """How the table calls ``card``: "7 Back Stabber", "Wildfire", "5"."""
        role = self.role(card)
        if card in (WILDFIRE, MIRROR):
            return NAMES[str(card)]
        return f"{card} {NAMES[role]}" if role else str(card)

    def cards_of(self, card: Card, n: int) -> str:
        """``n`` cards like ``card``, to follow a count: "Gold Bars", "cards of value 5"."""
        role = self.role(card)
        return MANY[role](n) if role else cards_of_value(card, n)

    def card(self, value: object) -> Card:
        """``value`` if it names a card of this deck, else refused."""
        if is_whole(value) and 1 <= value <= self.numbers:  # type: ignore[operator]
            return value  # type: ignore[return-value]
        if value in (WILDFIRE, MIRROR) and self.copies_of(value):  # type: ignore[arg-type]
            return value  # type: ignore[return-value]
        powers = [card for card in (WILDFIRE, MIRROR) if self.copies_of(card)]
        also = f' or "{powers[0]}"' if len(powers) == 1 else ""
        if len(powers) == 2:
            also = f', "{WILDFIRE}" or "{MIRROR}"'
        # Translators: {also} is ' or "wildfire"' (codes as typed), or nothing.
        text = pgettext("screen 21xN", "a card is 1-{most}{also}, not {value}")
        raise IllegalEvent(text.format(most=self.numbers, also=also, value=written(value)))

    def starter_values(self) -> list[int]:
        """The values asked about to find the starter: the Gold Bar, then 3, 4, ...
        (FU2): every other number from low to high, except the Nuclear Blast."""
        gold = self.number_of(GOLD_BAR)
        blast = self.number_of(NUCLEAR_BLAST)
        rest = [n for n in range(1, self.numbers + 1) if n not in (gold, blast)]
        return ([gold] if gold else []) + rest


def is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
