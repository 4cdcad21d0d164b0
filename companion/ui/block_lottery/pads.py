"""Block Lottery's pads on the phone: the pool's 15 dice, a die taken, the round's end and
why, a re-roll from the dice the player holds, a token, each player's cards counted.
"""

from __future__ import annotations

from typing import Any

from companion.lang import _
from companion.ui.pads import field

#: A count of cards never goes past these on a stepper (the engine refuses more anyway).
CARDS_COUNTED = (0, 200)


def pads(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    from companion.games import block_lottery as rules

    state = match.state()
    faces = list(rules.FACES)
    score = [field("player", _("Player"), "one", expect.choices.get("player", ())),
             field("blocks", _("Cards in blocks"), "number", min=CARDS_COUNTED[0],
                   max=CARDS_COUNTED[1], value=0),
             field("hand", _("Cards in hand"), "number", min=CARDS_COUNTED[0],
                   max=CARDS_COUNTED[1], value=0)]
    if state["lucky_number"] is not None:
        score.append(field("lucky", _("Lucky cards"), "number", min=CARDS_COUNTED[0],
                           max=CARDS_COUNTED[1], value=0))
    most = max((len(dice) for dice in state["dice"].values()), default=0)
    return {
        "pool": [field("faces", _("The 15 dice"), "many", faces, min=rules.POOL_SIZE,
                       max=rules.POOL_SIZE)],
        "take": [field("player", _("Who takes"), "one", expect.choices.get("player", ())),
                 field("face", _("Face"), "one", expect.choices.get("face", ()))],
        "end": [field("player", _("Who ends the round"), "one", expect.choices.get("player", ())),
                field("cause", _("Why"), "one", expect.choices.get("cause", ()),
                      names={cause: rules.CAUSE_WORDS.get(cause, cause)
                             for cause in expect.choices.get("cause", ())})],
        "reroll": [field("player", _("Who re-rolls"), "one", expect.choices.get("player", ())),
                   field("from", _("Dice picked up"), "many", faces, min=1, max=most,
                         by_player={name: {"values": sorted(set(dice)), "max": len(dice)}
                                    for name, dice in state["dice"].items()}),
                   field("to", _("New faces"), "many", expect.choices.get("to", ()), min=1,
                         max=most)],
        "token": [field("token", _("Token"), "one", expect.choices.get("token", ()))],
        "score": score,
    }
