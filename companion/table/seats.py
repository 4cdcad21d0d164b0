"""Seats around the table: who plays next, who deals, who still gets a turn.

Players sit in the order they were entered. The seat after yours in that order is on
your *left*; the last seat's left neighbour is the first seat. Turn order goes round to
the left (``LEFT = +1``) unless a game reverses it (``RIGHT = -1``: Full Counter's Black
Market, Card-Down's B card), so every walk here takes a ``direction``. Players who are
out of the game (Full Counter) keep their seat but are stepped over (``out``).

Everything is pure: a :class:`Seats` never changes, it only answers questions::

    >>> seats = Seats(("Ann", "Bob", "Cy"))
    >>> seats.left_of("Cy")
    'Ann'
    >>> seats.next_player("Ann", skip=1)
    'Cy'
    >>> seats.others_after("Bob")
    ('Cy', 'Ann')
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

#: Round the table in entry order (the usual way).
LEFT = 1
#: Round the table against entry order (after a reverse card).
RIGHT = -1


@dataclass(frozen=True)
class Seats:
    """The players in seat order, and walks around them."""

    players: tuple[str, ...]

    def __init__(self, players: Iterable[str]):
        names = tuple(players)
        if not names:
            raise ValueError("a table needs at least one player")
        if len(set(names)) != len(names):
            raise ValueError("two seats have the same player")
        # frozen dataclass: the one assignment goes around the freeze on purpose
        object.__setattr__(self, "players", names)

    def __deepcopy__(self, memo: dict) -> Seats:
        # immutable: a match's safety copy can share it
        return self

    def __len__(self) -> int:
        return len(self.players)

    def __iter__(self) -> Iterator[str]:
        return iter(self.players)

    def __contains__(self, player: object) -> bool:
        return player in self.players

    def seat_of(self, player: str) -> int:
        """The 0-based seat of ``player`` (ValueError if they are not at the table)."""
        try:
            return self.players.index(player)
        except ValueError:
            raise ValueError(f"{player!r} is not at the table") from None

    def left_of(self, player: str, direction: int = LEFT) -> str:
        """The neighbour one seat on in ``direction`` (left for LEFT, right for RIGHT)."""
        return self.players[(self.seat_of(player) + _step(direction)) % len(self.players)]

    def next_player(
        self,
        player: str,
        direction: int = LEFT,
        skip: int = 0,
        out: Collection[str] = (),
    ) -> str:
        """Who plays after ``player``: step over players who are ``out``, then pass over
        ``skip`` more players still in (a skip card). ``player`` themselves may come round
        again (two players and a skip: you play again). ValueError if everyone is out.
        """
        if skip < 0:
            raise ValueError("cannot skip a negative number of players")
        step = _step(direction)
        seat = self.seat_of(player)
        if all(name in out for name in self.players):
            raise ValueError("every player is out")
        to_pass = skip
        while True:
            seat = (seat + step) % len(self.players)
            if self.players[seat] in out:
                continue
            if to_pass == 0:
                return self.players[seat]
            to_pass -= 1

    def others_after(
        self, player: str, direction: int = LEFT, out: Collection[str] = ()
    ) -> tuple[str, ...]:
        """Every other player once, in turn order, starting with the next seat.

        This is "after the call, every other player takes one more turn": the player
        named is not in it, nor is anyone who is ``out``.
        """
        return tuple(name for name in self.round_from(player, direction)[1:] if name not in out)

    def round_from(self, player: str, direction: int = LEFT) -> tuple[str, ...]:
        """All players once, in turn order, starting with ``player``."""
        step = _step(direction)
        seat = self.seat_of(player)
        count = len(self.players)
        return tuple(self.players[(seat + step * i) % count] for i in range(count))

    @property
    def first_dealer(self) -> str:
        """The last player entered deals first, so the first player entered plays first."""
        return self.players[-1]

    def next_dealer(self, dealer: str) -> str:
        """The deal passes to the left after every hand."""
        return self.left_of(dealer, LEFT)

    def dealer_of_hand(self, number: int) -> str:
        """Who deals hand ``number`` (1-based) when the deal passes left every hand."""
        if number < 1:
            raise ValueError("hands are numbered from 1")
        return self.players[(number - 2) % len(self.players)]


def _step(direction: int) -> int:
    if direction not in (LEFT, RIGHT):
        raise ValueError(f"direction is +1 (left) or -1 (right), not {direction!r}")
    return direction
