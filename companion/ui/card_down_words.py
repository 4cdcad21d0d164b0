"""What every Final Card-Down screen says the same way: the colours and suits in the
language spoken, the exact picker's three parts, the buttons of quick mode's special
cards, where text beside the big top card starts, and a message folded into lines.

The table (:mod:`companion.ui.card_down`), the questions of a turn
(:mod:`companion.ui.card_down_turns`) and the end of a game
(:mod:`companion.ui.card_down_hands`) all use these, so they live below them.
"""

from __future__ import annotations

from companion.games import card_down as rules
from companion.lang import lazy

# Translators: the button names printed on the device (UP, DN/DOWN, OK, BACK, ROLL) stay
# as they are inside every hint of these screens; card values (0-9, A-F) and the words a
# player must say (TRIO, DUO, UNO) stay as the cards and the rule sheet print them.

#: Where text beside the big top-card value starts (17 characters fit there).
BESIDE_X = 24
#: Quick mode: the button (and long press) that names each special card, in the order
#: the chooser lists them.
SPECIAL_KEYS: tuple[tuple[str, bool, str], ...] = (
    ("up", False, rules.DRAW_TWO),
    ("down", False, rules.SKIP),
    ("ok", False, rules.REVERSE),
    ("roll", False, rules.ONE_MORE),
    ("ok", True, rules.NAME_COLOUR),
    ("roll", True, rules.NULL),
)
#: The colours and suits as the screens say them (the events keep the English codes).
COLOUR_WORDS = {
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
}
SUIT_WORDS = {
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
}
#: The exact card picker's three parts, as its title names the one being changed.
FIELD_WORDS = {
    # Translators: the part of a card being picked: its value (0-9, A-F).
    "value": lazy("screen 6", "value"),
    # Translators: the part of a card being picked: its colour.
    "colour": lazy("screen 6", "colour"),
    # Translators: the part of a card being picked: its suit.
    "suit": lazy("screen 6", "suit"),
}


def colour_word(colour: str) -> str:
    """A card colour as the screen says it."""
    return str(COLOUR_WORDS.get(colour, colour))


def suit_word(suit: str) -> str:
    """A card suit as the screen says it."""
    return str(SUIT_WORDS.get(suit, suit))

