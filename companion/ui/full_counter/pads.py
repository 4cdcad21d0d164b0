"""Full Counter's pads on the phone: who starts, a play by its card (or, quick, by what it
did), a run, a face-down card, a pick-up, who is out.
"""

from __future__ import annotations

from typing import Any

from companion.lang import _
from companion.ui.pads import field, fixed


def pads(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    from companion.games import full_counter as rules

    turn = [fixed("player", expect.player)]
    counts = expect.choices.get("count", (1,))
    count = field("count", _("How many"), "number", min=min(counts), max=max(counts), value=1)
    everyone = list(match.players)
    cards = match.deck.cards()
    # Each card as the deck prints it ("7 Back Stabber"), each effect by its name.
    names = {str(card): match.deck.name(card) for card in cards}
    effects = {effect: rules.NAMES.get(effect, effect.capitalize())
               for effect in rules.EFFECTS}
    effects[rules.FOUR] = _("Four of a kind")
    play = ([*turn, field("effect", _("What it did"), "one", expect.choices.get("effect", ()),
                          names=effects), count] if match.quick else
            [*turn, field("value", _("Card"), "one", expect.choices.get("value", ()),
                          names=names), count])
    return {
        "starter": [fixed("value", (expect.choices.get("value") or (None,))[0]),
                    field("face_up", _("Face up"), "many", expect.choices.get("face_up", ()),
                          min=0, max=len(everyone), distinct=True),
                    field("in_hand", _("In hand"), "many", expect.choices.get("in_hand", ()),
                          min=0, max=len(everyone), distinct=True, optional=True)],
        "play": play,
        "chain": [*turn, field("first", _("From"), "one", expect.choices.get("first", ()),
                               names=names),
                  field("last", _("To"), "one", [card for card in cards if isinstance(card, int)],
                        names=names)],
        "blind": [*turn, field("value", _("The card"), "one", cards, names=names)],
        "pickup": turn,
        "out": [field("player", _("Who is out"), "one", expect.choices.get("out", ()))],
        "end": [],
    }
