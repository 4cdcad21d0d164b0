"""Entry pads: what a phone offers for each event a match may take now, as data.

A pad is built from the match's own description of what may come next
(:meth:`Match.expecting`: the legal types, whose turn, the allowed values per field)
and its :meth:`Match.state` (how many cards the Board may hold, who holds which dice),
the same data the OLED's pickers use, so the phone and the buttons never offer
different things. The page draws each pad as buttons (one tap a card or a face),
steppers for numbers and a Send button; it never shows a JSON box. Each game builds its
own fields in its screens package (``pads(match, expect) -> {type: fields}``, the
``pads`` of its :class:`~companion.ui.games.GameScreens`, with :func:`field` and
:func:`fixed`); this module names the pads and their Send buttons and leaves the
device's chances to the device.

``pads(match)`` is a list, one entry per legal event type::

    {"type": "board", "label": "Board cards", "send": "Enter the Board", "player": None,
     "fields": [{"name": "cards", "label": "Cards", "kind": "many",
                 "values": ["A", "2", ...], "min": 2, "max": 3}]}

Field kinds: ``fixed`` (sent as ``value``, not asked: whose turn it is), ``one`` (tap one
of ``values``), ``many`` (tap ``values`` one at a time into a list of ``min``..``max``;
``distinct``: each at most once), ``number`` (a stepper from ``min`` to ``max``,
starting at ``value``). ``names`` (optional) says how a value is shown on its button,
keyed by the value as text (``{"7": "7 Back Stabber"}``); the value is what is sent.
A field whose ``name`` has a dot (``card.value``) fills a part
of an object (``{"card": {"value": ...}}``); ``optional`` fields may be left out.
``by_player`` (on a field after a ``player`` field) narrows it to the player chosen:
``{"Ann": {"values": [...], "min": 3, "max": 4}}`` (the dice Ann holds, the cards
Ann may hold).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.lang import N_, _
from companion.ui.games import game_screens, has_screens

#: What each event type is called on a button or a pad's heading.
TYPE_LABELS = {
    "roll": N_("Roll the die"), "goal": N_("Hit Goal rolls"), "call": N_("Call"),
    "board": N_("Board cards"), "hand": N_("A hand"), "play": N_("Play"),
    "chain": N_("Play a run"), "blind": N_("Face-down card"), "pickup": N_("Pick up the pile"),
    "out": N_("Out of cards"), "points": N_("Points"), "end": N_("End"),
    "end_match": N_("End the match"), "turn_up": N_("Turn up a card"),
    "call_out": N_("Call out"), "said": N_("Said it"), "forgot": N_("Forgot to say it"),
    "colour": N_("Name a colour"), "pass": N_("Pass"), "draw": N_("Draw a card"),
    "draw_stack": N_("Draw the stack"), "pool": N_("Roll the pool"), "take": N_("Take a die"),
    "reroll": N_("Re-roll"), "token": N_("Draw a token"), "score": N_("Count cards"),
    "starter": N_("Who has it?"),
}
#: What the pad's Send button says, where the type's label is not a deed.
SEND_LABELS = {
    "roll": N_("Enter the roll"), "goal": N_("Set the goal"), "board": N_("Enter the Board"),
    "hand": N_("Enter the hand"), "points": N_("Enter the points"),
    "score": N_("Enter the count"), "pool": N_("Enter the pool"), "take": N_("Take it"),
    "end": N_("End it"), "reroll": N_("Re-roll them"), "token": N_("Draw it"),
    "play": N_("Play it"), "chain": N_("Play the run"), "blind": N_("Turn it over"),
    "starter": N_("Enter who has it"), "turn_up": N_("Turn it up"),
    "call_out": N_("Call them out"), "colour": N_("Name it"), "out": N_("Out"),
}
#: The Send button of a chance event the device draws (no face or token pads: the
#: device rolls the dice and draws the tokens).
DEVICE_ROLLS = {
    "roll": N_("Roll the die"), "goal": N_("Roll for the goal"), "pool": N_("Roll the pool"),
    "reroll": N_("Re-roll them"),
    # Translators: the page's button that asks the device to draw a lottery token.
    "token": N_("Draw"),
}
#: The Send button of a pad whose die the device rolls, for a kind not named above.
ROLL = N_("Roll")


def field(name: str, label: str, kind: str, values: Sequence[Any] = (), **extra: Any,
          ) -> dict[str, Any]:
    """A field of a pad: its event field's ``name``, its ``label`` in the device's
    words, its ``kind`` and ``values`` (see the module docstring) and any of ``min``,
    ``max``, ``value``, ``names``, ``optional``, ``distinct``, ``by_player``."""
    return {"name": name, "label": label, "kind": kind, "values": list(values), **extra}


def fixed(name: str, value: Any) -> dict[str, Any]:
    """A field sent as ``value`` and not asked (whose turn it is)."""
    return {"name": name, "label": name, "kind": "fixed", "value": value, "values": []}


def pads(match: Any, physical: Callable[[str], bool] | None = None) -> list[dict[str, Any]]:
    """The pads for every event ``match`` may take now (see the module docstring); []
    when it takes none (the game is over) or the game has no pads.

    The dice and the tokens are the device's: a chance event's pad has no face or token
    pads and sends the event without them, which the device draws (Block Lottery's
    token pad is the Draw button); only at a table that uses its own of that kind
    (``physical(kind)``: ``[dice] physical`` or ``[tokens] physical`` is true) does it
    ask for them."""
    expect = match.expecting()
    build = _pads_of(match.game_id)
    if build is None or not expect.types:
        return []
    by_type = build(match, expect)
    own = game_screens(match.game_id).labels
    labels = [str(own[kind][0]) if kind in own else _(TYPE_LABELS[kind]) if kind in TYPE_LABELS
              else kind.replace("_", " ").capitalize() for kind in expect.types]
    made = []
    for kind, label in zip(expect.types, labels, strict=True):
        if kind not in by_type:
            continue
        fields = by_type[kind]
        send = (str(own[kind][1]) if kind in own else
                _(SEND_LABELS[kind]) if kind in SEND_LABELS else label)
        chance = match.chance({"type": kind})
        if chance is not None and not (physical is not None and physical(chance.kind)):
            fields = [item for item in fields if item["name"] != chance.field]
            # Translators: the Send button of a pad whose die the device rolls.
            send = _(DEVICE_ROLLS.get(kind, ROLL))
        made.append({"type": kind, "label": label, "send": send, "player": expect.player,
                     "fields": fields})
    return made


def _pads_of(game_id: str) -> Callable[[Any, Any], dict[str, list[dict[str, Any]]]] | None:
    """The game's own pads (its screens package's), None for a game without them."""
    return game_screens(game_id).pads if has_screens(game_id) else None
