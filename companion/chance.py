"""Every chance a game leaves to luck, and the one rule for it whatever way it comes in.

The dice and the lottery tokens are the device's. Which event field holds a chance is
the engine's to say (:meth:`companion.games.base.Match.chance`: Final Count's ``roll``
and ``goal``, Block Lottery's ``pool``, a re-roll's ``to`` and a lottery ``token``);
this module draws it and decides what a remote may send, so the rule is written once
for every game and every way in (the buttons, the serial console, the page):

- The device draws it. A remote asks for a draw and never chooses what it shows: an
  event without its chance (``{"type": "roll", "player": "Ann"}``, ``{"type":
  "token"}``, a re-roll without ``"to"``) is drawn here exactly as the ROLL button
  draws it; the same event carrying a chosen value is refused (:data:`REFUSALS`).
- A table that uses its own dice (``[dice] physical = true``) or draws real tokens from
  the tin (``[tokens] physical = true``) enters what came up; it is kept with
  ``"entered": true`` (the history, the match and club pages and the exports say so),
  and a remote cannot ask the device to draw that kind then.

**Undo is never a re-roll.** The device's draws come from the match's own source
(:class:`MatchChances`): a secret made when the match starts, kept with it in the game
log (so it survives a power cut) and never shown anywhere while it is played (not on
the page, the serial console, the club or in an export), and the draw's place in the
match: its event type, its player, and how many such events of that player count
already ("Bob's 4th roll", "the 2nd token"). A draw that is undone comes back the same
when it is drawn again at that place, from the buttons or from afar, in any order of
the other events; the rules' own re-rolls are a new place each (the next re-roll).
Nobody can compute a face still to come: each place's values are HMAC-SHA256 of the
secret (:class:`Drawn`). A refusal never tells a value that would have been drawn:
the event is checked with stand-ins first (:func:`drawn`).

Replay and import do not come through here: a stored log is the record, its draws are
taken as they are.
"""

from __future__ import annotations

import hmac
import json
import random
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from companion.errors import IllegalEvent
from companion.games.base import DICE, TOKENS, Chance
from companion.lang import N_, _
from companion.table.bag import TokenBag
from companion.table.dice import DiceCup, roll_dice

__all__ = [
    "PHYSICAL",
    "REFUSALS",
    "SECRET_BYTES",
    "Drawn",
    "MatchChances",
    "drawn",
    "from_afar",
    "new_secret",
]

#: The length of a match's secret (bytes).
SECRET_BYTES = 32

#: Why an event with a chosen value from a remote is refused, by kind of chance.
REFUSALS = {
    # Translators: [dice] physical = true is a line of the config file, typed as it is.
    DICE: N_("the device rolls the dice here; a table that rolls real dice sets "
             "[dice] physical = true"),
    # Translators: [tokens] physical = true is a line of the config file, typed as it is.
    TOKENS: N_("the device draws the tokens here; a table that draws real tokens from the "
               "tin sets [tokens] physical = true"),
}
#: Why a remote cannot ask the device to draw at a table that uses its own, by kind.
PHYSICAL = {
    # Translators: EVENT is the console's command, typed as it is.
    DICE: N_("this table rolls real dice ([dice] physical = true): enter the faces "
             "rolled (the page's pads, or EVENT on the console)"),
    # Translators: EVENT is the console's command, typed as it is.
    TOKENS: N_("this table draws real tokens ([tokens] physical = true): enter the token "
               "drawn (the page's pads, or EVENT on the console)"),
}


def new_secret() -> bytes:
    """A match's secret from the operating system's randomness."""
    return secrets.token_bytes(SECRET_BYTES)


class Drawn(random.Random):
    """The values of one place of a match: a :class:`random.Random` whose bits are
    HMAC-SHA256 of the place's key and a block counter, so the same place gives the
    same faces in the same order (a re-roll of three dice and one of four share their
    first three) and no other place's values tell anything about them."""

    def __init__(self, key: bytes):
        self._key = key
        self._block = 0
        self._bytes = b""
        super().__init__()

    def seed(self, *args: Any, **kw: Any) -> None:  # the key is the seed
        return None

    def _take(self, count: int) -> bytes:
        while len(self._bytes) < count:
            self._bytes += hmac.digest(self._key, self._block.to_bytes(8, "big"), "sha256")
            self._block += 1
        taken, self._bytes = self._bytes[:count], self._bytes[count:]
        return taken

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        whole = (k + 7) // 8
        return int.from_bytes(self._take(whole), "big") >> (whole * 8 - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53

    def getstate(self) -> Any:
        raise NotImplementedError("a match's draws have no state to save")

    def setstate(self, state: Any) -> None:
        raise NotImplementedError("a match's draws have no state to set")


class MatchChances:
    """A match's own random source: :meth:`at` a place gives its :class:`Drawn`."""

    def __init__(self, secret: bytes):
        if not isinstance(secret, bytes) or len(secret) < 16:
            raise ValueError("a match's secret is at least 16 bytes")
        self._secret = secret

    @property
    def secret(self) -> bytes:
        """What the game log keeps (and nothing else shows)."""
        return self._secret

    def __repr__(self) -> str:  # never the secret itself, even in a log or a traceback
        return "MatchChances(<secret>)"

    def at(self, kind: str, who: str, number: int) -> Drawn:
        """The values of the ``number``-th (from 0) draw of ``kind`` for ``who`` ("" for
        nobody's): ("roll", "Bob", 3) is Bob's fourth roll; ("shuffle", "", 1) the
        shuffle guide before the match's second game."""
        place = json.dumps([kind, who, number], ensure_ascii=False).encode("utf-8")
        key = hmac.digest(self._secret, b"companion chance\x00" + place, "sha256")
        return Drawn(key)

    def for_event(self, match: Any, event: Mapping[str, Any]) -> Drawn:
        """The values of ``event``'s place in ``match``: its type, its player and how
        many such events of theirs count already (undone ones never count)."""
        kind, who = str(event.get("type", "")), _who(event)
        number = sum(1 for past in match.events
                     if past.get("type") == kind and _who(past) == who)
        return self.at(kind, who, number)


def _who(event: Mapping[str, Any]) -> str:
    player = event.get("player")
    return player if isinstance(player, str) else ""


def drawn(match: Any, event: dict[str, Any], chances: MatchChances) -> dict[str, Any]:
    """``event`` with the device's draw in its chance field (unchanged when no chance
    decides it; a copy, the caller's dict is never changed). The event is checked with
    stand-ins first: IllegalEvent before anything is drawn, so a refusal never tells a
    value still to come."""
    chance = match.chance(event)
    if chance is None:
        return event
    match.check({**event, chance.field: _stand_in(chance)})
    return {**event, chance.field: _draw(chance, chances.for_event(match, event))}


def _stand_in(chance: Chance) -> Any:
    """A legal-looking value that tells nothing: the first token in the tin, 1s."""
    if chance.kind == TOKENS:
        return chance.bag[0] if chance.bag else ""
    return 1 if chance.count is None else [1] * min(chance.count, DiceCup.MAX_DICE)


def _draw(chance: Chance, source: random.Random) -> Any:
    if chance.kind == TOKENS:
        return TokenBag(chance.bag).draw(source)
    # No game rolls more than a cup holds (Block Lottery's 15): the engine refuses more.
    faces = roll_dice(source, 1 if chance.count is None else min(chance.count,
                                                                  DiceCup.MAX_DICE))
    return faces[0] if chance.count is None else faces


def physical_dice(config: Any) -> bool:
    """True when the table rolls its own dice and enters the faces (``[dice] physical``);
    False (the device rolls) for the defaults and for no configuration at all."""
    return physical(config, "dice")


def physical(config: Any, kind: str) -> bool:
    """True when the table uses its own chances of ``kind`` (the configuration's, read
    for every game and every way in here) and enters them: ``"dice"``
    (``[dice] physical``) or ``"tokens"`` (``[tokens] physical``, the lottery tokens
    drawn from the real tin); False (the device draws) for the defaults, for no
    configuration at all and for any other kind."""
    if kind not in ("dice", "tokens"):
        return False
    return getattr(getattr(config, kind, None), "physical", False) is True


def from_afar(match: Any, event: dict[str, Any], chances: MatchChances,
              physical: Callable[[str], bool]) -> dict[str, Any]:
    """``event`` as a remote may have it applied: unchanged when no chance decides it;
    with the device's draw when it left it out; with ``"entered": true`` added when the
    table uses its own dice or tokens (``physical(kind)``). Raises
    :class:`~companion.errors.IllegalEvent` (ILLEGAL from a command) for a chosen value
    without ``physical``, and for a request to draw with it."""
    chance = match.chance(event)
    if chance is None:
        return event
    if not physical(chance.kind):
        if chance.field in event or "entered" in event:
            raise IllegalEvent(_(REFUSALS[chance.kind]))
        return drawn(match, event, chances)
    if chance.field not in event:
        # Translators: {field} is the event's JSON key that holds the faces or the token.
        holds = (_('{refusal}; "{field}" holds it') if chance.count is None
                 else _('{refusal}; "{field}" holds them'))
        raise IllegalEvent(holds.format(refusal=_(PHYSICAL[chance.kind]), field=chance.field))
    return {**event, "entered": event.get("entered", True)}
