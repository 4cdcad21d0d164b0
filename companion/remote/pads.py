"""Entry pads: what a phone offers for each event a match may take now, as data.

A pad is built from the match's own description of what may come next
(:meth:`Match.expecting`: the legal types, whose turn, the allowed values per field)
and its :meth:`Match.state` (how many cards the Board may hold, who holds which dice),
the same data the OLED's pickers use, so the phone and the buttons never offer
different things. The page draws each pad as buttons (one tap a card or a face),
steppers for numbers and a Send button; it never shows a JSON box.

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
#: Steppers never go past these (the engines refuse more anyway).
POINTS_RANGE = (-9999, 9999)
CARDS_COUNTED = (0, 200)


def field(name: str, label: str, kind: str, values: Sequence[Any] = (), **extra: Any,
          ) -> dict[str, Any]:
    return {"name": name, "label": label, "kind": kind, "values": list(values), **extra}


def fixed(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "label": name, "kind": "fixed", "value": value, "values": []}


def _player(expect: Any, choices: Sequence[str] | None = None, label: str | None = None,
            ) -> dict[str, Any]:
    """Whose event it is: fixed when it is someone's turn, else tap one."""
    if expect.player is not None and choices is None:
        return fixed("player", expect.player)
    names = list(choices if choices is not None else expect.choices.get("player", ()))
    return field("player", label or _("Player"), "one", names)


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


# -- one function per game: (match, expect) -> {type: fields} ----------------------------


def _final_count(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
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


def _block_lottery(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
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


def _card_down(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
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


def _full_counter(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
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


def _count_up(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    turn = [fixed("player", expect.player)]
    return {"play": [*turn, field("card", _("Card"), "one", expect.choices.get("card", ()))],
            "pass": turn}


def _scoreboard(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    return {"points": [field("player", _("Player"), "one", expect.choices.get("player", ()),
                             value=expect.player),
                       field("points", _("Points"), "number", min=POINTS_RANGE[0],
                             max=POINTS_RANGE[1], value=0)],
            "end": []}


GAMES: dict[str, Callable[[Any, Any], dict[str, list[dict[str, Any]]]]] = {
    "final-count": _final_count, "block-lottery": _block_lottery, "card-down": _card_down,
    "full-counter": _full_counter, "count-up-21": _count_up, "scoreboard": _scoreboard,
}


def pads(match: Any, physical: Callable[[str], bool] | None = None) -> list[dict[str, Any]]:
    """The pads for every event ``match`` may take now (see the module docstring); []
    when it takes none (the game is over) or the game has no pads.

    The dice and the tokens are the device's: a chance event's pad has no face or token
    pads and sends the event without them, which the device draws (Block Lottery's
    token pad is the Draw button); only at a table that uses its own of that kind
    (``physical(kind)``: ``[dice] physical`` or ``[tokens] physical`` is true) does it
    ask for them."""
    expect = match.expecting()
    build = GAMES.get(match.game_id)
    if build is None or not expect.types:
        return []
    by_type = build(match, expect)
    labels = [_(TYPE_LABELS[kind]) if kind in TYPE_LABELS
              else kind.replace("_", " ").capitalize() for kind in expect.types]
    made = []
    for kind, label in zip(expect.types, labels, strict=True):
        if kind not in by_type:
            continue
        fields = by_type[kind]
        send = _(SEND_LABELS[kind]) if kind in SEND_LABELS else label
        chance = match.chance({"type": kind})
        if chance is not None and not (physical is not None and physical(chance.kind)):
            fields = [item for item in fields if item["name"] != chance.field]
            # Translators: the Send button of a pad whose die the device rolls.
            send = _(DEVICE_ROLLS.get(kind, ROLL))
        made.append({"type": kind, "label": label, "send": send, "player": expect.player,
                     "fields": fields})
    return made
