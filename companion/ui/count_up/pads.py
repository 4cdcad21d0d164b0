"""Count Up 21's pads on the phone: a card played, or a pass.
"""

from __future__ import annotations

from typing import Any

from companion.lang import _
from companion.ui.pads import field, fixed


def pads(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    turn = [fixed("player", expect.player)]
    return {"play": [*turn, field("card", _("Card"), "one", expect.choices.get("card", ()))],
            "pass": turn}
