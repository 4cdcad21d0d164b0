"""What every Final Card-Down screen says the same way: the colours and suits in the
language spoken (the rules' words, :func:`colour_word` and :func:`suit_word`, which the
pages say too), the exact picker's three parts, the buttons of quick mode's special
cards, where text beside the big top card starts, and a message folded into lines.

The table (:mod:`companion.ui.card_down.table`), the questions of a turn
(:mod:`companion.ui.card_down.turns`) and the end of a game
(:mod:`companion.ui.card_down.hands`) all use these, so they live below them.
"""

from __future__ import annotations

from companion.games import card_down as rules
from companion.games.card_down import colour_word, suit_word
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
#: The exact card picker's three parts, as its title names the one being changed.
FIELD_WORDS = {
    # Translators: the part of a card being picked: its value (0-9, A-F).
    "value": lazy("screen 6", "value"),
    # Translators: the part of a card being picked: its colour.
    "colour": lazy("screen 6", "colour"),
    # Translators: the part of a card being picked: its suit.
    "suit": lazy("screen 6", "suit"),
}


__all__ = ["BESIDE_X", "FIELD_WORDS", "SPECIAL_KEYS", "colour_word", "suit_word"]
