"""Final Count's pads on the phone: the goal's two rolls, a roll, who calls, the Board's
cards and each hand's, each hand as many cards as its player may hold.
"""

from __future__ import annotations

from typing import Any

from companion.lang import _
from companion.ui.pads import field, fixed


def pads(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    state = match.state()
    limits = state["card_limits"]
    hands = limits["hands"].values()
    ranks = expect.choices.get("cards", ())
    return {
        "goal": [field("rolls", _("Two rolls"), "many", expect.choices.get("rolls", ()),
                       min=2, max=2)],
        "roll": [fixed("player", expect.player),
                 field("value", _("Die"), "one", expect.choices.get("value", ()))],
        "call": [field("player", _("Who calls"), "one", expect.choices.get("caller", ()))],
        "board": [field("cards", _("Cards"), "many", ranks,
                        min=(limits["board"] or [2, 2])[0], max=(limits["board"] or [2, 2])[1])],
        "hand": [field("player", _("Player"), "one", expect.choices.get("player", ())),
                 field("cards", _("Cards"), "many", ranks,
                       min=min((low for low, _high in hands), default=3),
                       max=max((high for _low, high in hands), default=3),
                       by_player={name: {"min": low, "max": high}
                                  for name, (low, high) in limits["hands"].items()})],
    }
