"""A bag of named tokens, drawn one at a time without putting them back.

Block Lottery draws three of its eight lottery tokens onto the prize card; the Tools
menu offers the same bag for any game. The caller hands in the :class:`random.Random`,
so a seeded one draws the same tokens every time::

    >>> import random
    >>> bag = TokenBag(["red", "blue", "red"])   # a bag may hold two of a token
    >>> first = bag.draw(random.Random(5))
    >>> sorted(bag.remaining + bag.drawn)
    ['blue', 'red', 'red']
    >>> bag.reset()
    >>> bag.remaining, bag.drawn
    (('red', 'blue', 'red'), ())
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.errors import BadSetup
from companion.lang import pgettext
from companion.table.dice import TOKEN_EVENT, entered

#: The token no die scores on, and the token every die scores on.
NONE, ALL = "NONE", "ALL"
#: The eight lottery tokens: one per die face, plus NONE and ALL.
LOTTERY_TOKENS: tuple[str, ...] = ("1", "2", "3", "4", "5", "6", NONE, ALL)


class TokenBag:
    """Named tokens drawn without replacement.

    >>> bag = TokenBag()
    >>> len(bag.remaining)
    8
    >>> token = bag.draw(random.Random(0))
    >>> bag.drawn == (token,), token in LOTTERY_TOKENS, len(bag.remaining)
    (True, True, 7)
    """

    def __init__(self, tokens: Sequence[str] = LOTTERY_TOKENS):
        # A lone string is a Sequence of letters; "ABC" as a bag of A, B, C is a trap.
        if isinstance(tokens, str):
            raise BadSetup(pgettext("screen 21xN",
                                    "list the tokens one by one, not as a single piece of text"))
        self._tokens = tuple(tokens)
        if not self._tokens:
            raise BadSetup(pgettext("screen 21xN", "a token bag needs at least one token"))
        if not all(isinstance(token, str) and token for token in self._tokens):
            raise BadSetup(pgettext("screen 21xN", "every token needs a name"))
        # Positions in the original list, so two tokens of the same name stay distinct
        # and `remaining` keeps the original order.
        self._left: list[int] = list(range(len(self._tokens)))
        self._drawn: list[int] = []

    @property
    def remaining(self) -> tuple[str, ...]:
        """Tokens still in the bag, in the order the bag was filled."""
        return tuple(self._tokens[i] for i in self._left)

    @property
    def drawn(self) -> tuple[str, ...]:
        """Tokens taken out so far, first drawn first."""
        return tuple(self._tokens[i] for i in self._drawn)

    def draw(self, rng: random.Random) -> str:
        """Take one token out at random, each remaining token equally likely."""
        if not self._left:
            raise BadSetup(pgettext("screen 21xN", "the bag is empty"))
        position = self._left.pop(rng.randrange(len(self._left)))
        self._drawn.append(position)
        return self._tokens[position]

    def reset(self) -> None:
        """Put every drawn token back into the bag."""
        self._left = list(range(len(self._tokens)))
        self._drawn = []


def entered_tokens(events: Iterable[Any]) -> int:
    """How many lottery tokens of a log were typed in from the table's real tin
    (``[tokens] physical``): the history, the match page and the club mark a match that
    has any, as they mark entered dice.

    >>> entered_tokens([{"type": "token", "token": "4", "entered": True},
    ...                 {"type": "token", "token": "2"}])
    1
    """
    return sum(1 for event in events if isinstance(event, Mapping) and entered(event)
               and event.get("type") == TOKEN_EVENT)
