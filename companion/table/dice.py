"""Six-sided dice for the table: single rolls and a cup of dice that can be held.

The device's dice roller and the games that need a die (a pool of 15 in Block Lottery,
one die in Final Count) roll here. Nothing in this module picks its own randomness: the
caller hands in a :class:`random.Random`, so a seeded one gives the same rolls every
time::

    >>> import random
    >>> cup = DiceCup(count=3)
    >>> first = cup.roll(random.Random(7))
    >>> len(first), all(1 <= face <= 6 for face in first)
    (3, True)
    >>> cup.toggle_hold(0)              # keep the first die
    >>> cup.roll(random.Random(8))[0] == first[0]
    True
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from companion.errors import BadSetup
from companion.lang import npgettext, pgettext

SIDES = 6


def roll_die(rng: random.Random) -> int:
    """Roll one six-sided die.

    >>> roll_die(random.Random(1)) in range(1, 7)
    True
    """
    return rng.randrange(1, SIDES + 1)


def roll_dice(rng: random.Random, count: int) -> list[int]:
    """Roll ``count`` six-sided dice at once, in the order they land.

    >>> faces = roll_dice(random.Random(1), 4)
    >>> len(faces), all(1 <= face <= 6 for face in faces)
    (4, True)
    >>> roll_dice(random.Random(1), 0)
    []
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        text = pgettext("screen 21xN", "cannot roll {value} dice: give a whole number, 0 or more")
        raise BadSetup(text.format(value=repr(count)))
    return [roll_die(rng) for _ in range(count)]


def entered(event: Mapping[str, Any]) -> bool:
    """True for an event whose faces were typed in from real dice (``"entered": true``).

    >>> entered({"type": "roll", "value": 6, "entered": True}), entered({"type": "roll"})
    (True, False)
    """
    return event.get("entered") is True


def entered_dice(events: Iterable[Any]) -> int:
    """How many events of a log carry faces typed in from real dice: the history, the
    match page, the exports and the club mark a match that has any. (A lottery token
    typed in is counted by :func:`companion.table.bag.entered_tokens`.)"""
    return sum(1 for event in events if isinstance(event, Mapping) and entered(event)
               and event.get("type") != TOKEN_EVENT)


#: The event that draws a lottery token (Block Lottery's ``token``): its ``"entered"``
#: is a token from the real tin, not dice.
TOKEN_EVENT = "token"


class DiceCup:
    """1-15 six-sided dice; some may be held while the rest are re-rolled; remembers the
    last rolls.

    >>> cup = DiceCup(count=2, history=3)
    >>> cup.faces is None, cup.total
    (True, 0)
    >>> faces = cup.roll(random.Random(3))
    >>> cup.total == sum(faces), cup.history == [faces]
    (True, True)
    >>> cup.count = 4                   # a new number of dice starts afresh
    >>> cup.faces is None, cup.held
    (True, frozenset())
    """

    MAX_DICE = 15

    def __init__(self, count: int = 1, history: int = 8):
        if isinstance(history, bool) or not isinstance(history, int) or history < 0:
            text = pgettext("screen 21xN", "the roll history keeps 0 or more rolls, not {value}")
            raise BadSetup(text.format(value=repr(history)))
        self._count = self._checked_count(count)
        self._faces: tuple[int, ...] | None = None
        self._held: frozenset[int] = frozenset()
        self._history: deque[tuple[int, ...]] = deque(maxlen=history)

    @classmethod
    def _checked_count(cls, count: int) -> int:
        if isinstance(count, bool) or not isinstance(count, int):
            text = pgettext("screen 21xN", "the number of dice must be a whole number, not {value}")
            raise BadSetup(text.format(value=repr(count)))
        if not 1 <= count <= cls.MAX_DICE:
            text = pgettext("screen 21xN", "the cup holds 1 to {most} dice, not {value}")
            raise BadSetup(text.format(most=cls.MAX_DICE, value=count))
        return count

    @property
    def count(self) -> int:
        """How many dice are in the cup (1-15)."""
        return self._count

    @count.setter
    def count(self, count: int) -> None:
        self._count = self._checked_count(count)
        # Old faces and holds name dice that may no longer exist: start afresh.
        self._faces = None
        self._held = frozenset()

    @property
    def faces(self) -> tuple[int, ...] | None:
        """The dice as they lie now, or None before the first roll."""
        return self._faces

    @property
    def held(self) -> frozenset[int]:
        """Indexes (0-based) of the dice kept out of the next roll."""
        return self._held

    @property
    def total(self) -> int:
        """Sum of the faces showing (0 before the first roll)."""
        return sum(self._faces) if self._faces is not None else 0

    @property
    def history(self) -> list[tuple[int, ...]]:
        """The last rolls, newest first."""
        return list(self._history)

    def roll(self, rng: random.Random) -> tuple[int, ...]:
        """Roll every die that is not held (all of them the first time); return the faces.

        Raises :class:`BadSetup` when every die is held, as nothing would change.
        """
        if self._faces is None:
            faces = tuple(roll_dice(rng, self._count))
        else:
            if len(self._held) == self._count:
                raise BadSetup(pgettext("screen 21xN", "every die is held: release one to roll"))
            faces = tuple(
                face if index in self._held else roll_die(rng)
                for index, face in enumerate(self._faces)
            )
        self._faces = faces
        self._history.appendleft(faces)
        return faces

    def toggle_hold(self, index: int) -> None:
        """Hold the die at ``index`` (0-based) if it is free, free it if it is held."""
        if self._faces is None:
            raise BadSetup(pgettext("screen 21xN",
                                    "roll the dice first, then choose which to hold"))
        if isinstance(index, bool) or not isinstance(index, int):
            text = pgettext("screen 21xN", "choose a die by its number, not {value}")
            raise BadSetup(text.format(value=repr(index)))
        if not 0 <= index < self._count:
            text = npgettext("screen 21xN", "there is no die number {value}: the cup has {n} die",
                             "there is no die number {value}: the cup has {n} dice", self._count)
            raise BadSetup(text.format(value=index + 1, n=self._count))
        self._held = self._held ^ {index}

    def release_all(self) -> None:
        """Free every held die, so the next roll rolls them all."""
        self._held = frozenset()
