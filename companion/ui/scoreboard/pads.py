"""The scoreboard's pads on the phone: a player's points for the round, and the end.
"""

from __future__ import annotations

from typing import Any

from companion.lang import _
from companion.ui.pads import field

#: A stepper of points never goes past these (the engine refuses more anyway).
POINTS_RANGE = (-9999, 9999)


def pads(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    return {"points": [field("player", _("Player"), "one", expect.choices.get("player", ()),
                             value=expect.player),
                       field("points", _("Points"), "number", min=POINTS_RANGE[0],
                             max=POINTS_RANGE[1], value=0)],
            "end": []}
