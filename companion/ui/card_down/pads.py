"""Final Card-Down's pads on the phone: a card by its value, colour and suit (each colour
and suit in the device's words), a draw, a pass, the word said or forgotten, a colour
named, a call-out, each hand after a game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.lang import _
from companion.ui.pads import field, fixed


def _words(values: Sequence[str], word: Callable[[str], str]) -> dict[str, str]:
    """How each of ``values`` is shown on its button (a colour in the device's words)."""
    return {value: word(value) for value in values}


def _card_fields(prefix: str, choices: Any, optional: bool) -> list[dict[str, Any]]:
    """A Card-Down card: its value, and (exact entry) colour and suit, each colour and
    suit shown in the device's words (the English code is what is sent)."""
    from companion.games.card_down import colour_word, suit_word

    colours, suits = choices.get("colour", ()), choices.get("suit", ())
    return [field(f"{prefix}.value", _("Value"), "one", choices.get("value", ()),
                  optional=optional),
            field(f"{prefix}.colour", _("Colour"), "one", colours, optional=True,
                  names=_words(colours, colour_word)),
            field(f"{prefix}.suit", _("Suit"), "one", suits, optional=True,
                  names=_words(suits, suit_word))]


def pads(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    from companion.games.card_down import colour_word

    state = match.state()
    turn = [fixed("player", expect.player)]
    held = state["in_hand"]
    waiting = expect.choices.get("player", ())
    word = expect.choices.get("word", ("",))[0] if expect.choices.get("word") else ""
    offenders = [item["offender"] for item in state["call_outs"]]
    return {
        "turn_up": _card_fields("card", expect.choices, optional=True),
        "play": turn + _card_fields("card", expect.choices, optional=True),
        "draw": turn, "draw_stack": turn, "pass": turn,
        "said": [*turn, fixed("word", word)], "forgot": [*turn, fixed("word", word)],
        "colour": [*turn, field("colour", _("Colour"), "one", expect.choices.get("colour", ()),
                                names=_words(expect.choices.get("colour", ()), colour_word))],
        "call_out": [*turn, field("offender", _("Who forgot"), "one", offenders),
                     field("word", _("The word"), "one",
                           sorted({item["word"] for item in state["call_outs"]}))],
        "hand": [field("player", _("Player"), "one", waiting),
                 field("values", _("Cards"), "many", expect.choices.get("value", ()), min=1,
                       max=max((held.get(name, 0) for name in waiting), default=1),
                       by_player={name: {"min": held.get(name, 0), "max": held.get(name, 0)}
                                  for name in waiting})],
        "end_match": [],
    }
