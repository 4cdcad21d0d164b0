"""Full Counter's cards as the screens name them: a number, or a letter for the two
powers without one (W for Wildfire, M for Dirty Mirror), and back from a picker's label
to the card.

The table (:mod:`companion.ui.full_counter.table`) and its questions
(:mod:`companion.ui.full_counter.turns`) both pick cards with these labels, so they
live below them.
"""

from __future__ import annotations

from companion.games import full_counter as rules
from companion.lang import lazy

# Translators: the button names printed on the device (UP, DN/DOWN, OK, BACK, ROLL) stay
# as they are inside every hint of these screens; card numbers stay digits.

#: Picker labels of the two powers without a number (a letter or two beside the numbers).
POWER_LABELS = {
    # Translators: Full Counter, the card picker's label of the Wildfire card (the power
    # that burns the pile), beside the card numbers: one or two letters.
    rules.WILDFIRE: lazy("screen 2", "W"),
    # Translators: Full Counter, the card picker's label of the Dirty Mirror card (it
    # copies the card under it), beside the card numbers: one or two letters.
    rules.MIRROR: lazy("screen 2", "M"),
}
def label(card: rules.Card) -> str:
    """A card as the picker shows it: its number, or W / M."""
    return str(POWER_LABELS.get(card, card))  # type: ignore[arg-type]


def card_of(text: str) -> rules.Card:
    """The card behind a picker label."""
    for card, shown in POWER_LABELS.items():
        if text in (shown, shown.message):  # as shown now, or in English
            return card
    return int(text)
