"""The moves of the game log in words, for the undo row: "Ann roll 3", "Bob play 9".

The log's own event types (docs/events.md) are codes; a person at the table reads them
as words in the device's language (:data:`EVENT_WORDS`), the values after them as the
log holds them.
"""

from __future__ import annotations

from companion.lang import lazy

#: The log's event types as the undo row says them (docs/events.md); a type not here
#: (from a newer device) is shown as its code.
# Translators: the kinds of moves in the game log, each a word or two in the undo
# row ("Undo Ann roll 3"); "_" joins two words (call_out: a call-out).
EVENT_WORDS = {
    "blind": lazy("screen 12", "blind"),
    "board": lazy("screen 12", "board"),
    "call": lazy("screen 12", "call"),
    "call_out": lazy("screen 12", "call_out"),
    "chain": lazy("screen 12", "chain"),
    "colour": lazy("screen 12", "colour"),
    "draw": lazy("screen 12", "draw"),
    "draw_stack": lazy("screen 12", "draw_stack"),
    "end": lazy("screen 12", "end"),
    "forgot": lazy("screen 12", "forgot"),
    "goal": lazy("screen 12", "goal"),
    "hand": lazy("screen 12", "hand"),
    "out": lazy("screen 12", "out"),
    "pass": lazy("screen 12", "pass"),
    "pickup": lazy("screen 12", "pickup"),
    "play": lazy("screen 12", "play"),
    "points": lazy("screen 12", "points"),
    "pool": lazy("screen 12", "pool"),
    "reroll": lazy("screen 12", "reroll"),
    "roll": lazy("screen 12", "roll"),
    "said": lazy("screen 12", "said"),
    "score": lazy("screen 12", "score"),
    "start": lazy("screen 12", "start"),
    "starter": lazy("screen 12", "starter"),
    "take": lazy("screen 12", "take"),
    "token": lazy("screen 12", "token"),
    "turn_up": lazy("screen 12", "turn_up"),
}


def describe(event: dict) -> str:
    """A short description of an event for the undo line ("Ann roll 3", "Bob play 9")."""
    words = [str(event.get("player", "")), move_word(event)]
    for key, value in event.items():
        if key in ("type", "player", "entered"):  # "entered": a mark, not a value
            continue
        if isinstance(value, dict):  # a card: its value, colour, suit
            value = [part for part in value.values() if part is not None]
        words.append(" ".join(map(str, value)) if isinstance(value, list) else str(value))
    return " ".join(w for w in words if w)


def move_word(event: dict) -> str:
    """The kind of move ``event`` is, as a word ("roll"); its code when unknown."""
    kind = str(event.get("type", ""))
    return str(EVENT_WORDS.get(kind, kind))

