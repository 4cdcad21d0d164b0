"""The one rule for dice arriving from a remote (the serial console, the page): the die is
the device's.

Every face a game needs from a die is rolled by the device. A remote asks for a roll
and never chooses what it shows: a die event without its faces (``{"type": "roll",
"player": "Ann"}``, ``{"type": "pool"}``, a re-roll without ``"to"``) is rolled here
with the device's own random source, exactly as the ROLL button rolls; the same event
carrying faces is refused with :data:`REFUSAL`. A table that rolls real dice says so
with ``[dice] physical = true``; then the faces a remote types in are taken and kept
with ``"entered": true`` (the history, the exports and the club show them as entered),
and a remote cannot ask the device to roll.

Which field of which event holds a die's faces is the engine's to say
(:meth:`companion.games.base.Match.die_roll`); this module only decides, so the rule is
written once for every game and every way in. Replay and import do not come through
here: a stored log is the record, its rolls are taken as they are.
"""

from __future__ import annotations

import random
from typing import Any

from companion.errors import IllegalEvent
from companion.lang import N_, _
from companion.table.dice import DiceCup, roll_dice

__all__ = ["PHYSICAL_ROLL", "REFUSAL", "remote_faces"]

#: Why an event with a chosen face from a remote is refused (the issue's words).
# Translators: [dice] physical = true is a line of the config file, typed as it is.
REFUSAL = N_("the device rolls the dice here; a table that rolls real dice sets "
             "[dice] physical = true")
#: Why a remote cannot ask the device to roll at a table with real dice.
# Translators: EVENT is the console's command, typed as it is.
PHYSICAL_ROLL = N_("this table rolls real dice ([dice] physical = true): enter the faces "
                   "rolled (the page's pads, or EVENT on the console)")


def remote_faces(match: Any, event: dict[str, Any], physical: bool,
                 rng: random.Random) -> dict[str, Any]:
    """``event`` as a remote may have it applied: unchanged when no die decides it; with
    the faces rolled here when it left them out; with ``"entered": true`` added when the
    table rolls real dice (``physical``). Raises :class:`~companion.errors.IllegalEvent`
    (ILLEGAL from a command) for chosen faces without ``physical``, and for a request to
    roll with it. The caller's dict is never changed."""
    where = match.die_roll(event)
    if where is None:
        return event
    field, count = where
    if not physical:
        if field in event or "entered" in event:
            raise IllegalEvent(_(REFUSAL))
        # No game rolls more than a cup holds (Block Lottery's 15): a longer "from" from
        # afar gets no more faces than that, and the engine refuses the mismatch.
        faces = roll_dice(rng, 1 if count is None else min(count, DiceCup.MAX_DICE))
        return {**event, field: faces[0] if count is None else faces}
    if field not in event:
        # Translators: {field} is the event's JSON key that holds the faces.
        raise IllegalEvent(_('{refusal}; "{field}" holds them').format(
            refusal=_(PHYSICAL_ROLL), field=field))
    return {**event, "entered": event.get("entered", True)}
