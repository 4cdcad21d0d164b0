"""A scoreboard for any game: running totals, shared wins, split points, a target.

Nothing here knows a particular game. A *round* is a mapping player -> points scored in
it (players missing from a round scored 0); *totals* map player -> cumulative points in
seat order. Games where the lowest total is best pass ``high_wins=False``::

    >>> totals = add_points({"Ann": 40, "Bob": 35}, {"Bob": 5})
    >>> winners(totals)
    ['Ann', 'Bob']
    >>> split_points(71, 2)
    35
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


def zero_totals(players: Iterable[str]) -> dict[str, int]:
    """Everyone on 0, in seat order."""
    return {player: 0 for player in players}


def add_points(totals: Mapping[str, int], points: Mapping[str, int]) -> dict[str, int]:
    """New totals with one round's ``points`` added (``totals`` is left as it was).

    A name in ``points`` that is not in ``totals`` is a mistake, not a new player.
    """
    unknown = [player for player in points if player not in totals]
    if unknown:
        raise ValueError(f"not on the scoreboard: {', '.join(map(str, unknown))}")
    return {player: total + points.get(player, 0) for player, total in totals.items()}


def running_totals(
    players: Iterable[str], rounds: Iterable[Mapping[str, int]]
) -> list[dict[str, int]]:
    """The totals after each round, in order (the scoresheet's running columns)."""
    totals = zero_totals(players)
    columns = []
    for points in rounds:
        totals = add_points(totals, points)
        columns.append(totals)
    return columns


def final_totals(players: Iterable[str], rounds: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """The totals after all ``rounds``."""
    totals = zero_totals(players)
    for points in rounds:
        totals = add_points(totals, points)
    return totals


def winners(totals: Mapping[str, int], high_wins: bool = True) -> list[str]:
    """Everyone on the best total (highest, or lowest if not ``high_wins``): ties share.

    In the order of ``totals``; [] when there is nobody.
    """
    if not totals:
        return []
    best = max(totals.values()) if high_wins else min(totals.values())
    return [player for player, total in totals.items() if total == best]


def split_points(points: int, ways: int) -> int:
    """Each tied winner's share of ``points``, rounded down (71 between 2 -> 35)."""
    if ways < 1:
        raise ValueError("points are split between at least one winner")
    return points // ways


def target_reached(totals: Mapping[str, int], target: int) -> bool:
    """True once any cumulative total is at ``target`` or beyond.

    A target is always reached from below, also in low-wins games (the game stops when
    someone climbs to it; then the lowest total wins).
    """
    return any(total >= target for total in totals.values())


def standings(totals: Mapping[str, int], high_wins: bool = True) -> list[tuple[int, str, int]]:
    """(place, player, total), best first; equal totals share a place (1, 1, 3).

    Equal totals keep the order of ``totals`` (seat order), so the list is stable.
    """
    order = sorted(totals.items(), key=lambda item: -item[1] if high_wins else item[1])
    table: list[tuple[int, str, int]] = []
    for position, (player, total) in enumerate(order, start=1):
        place = table[-1][0] if table and table[-1][2] == total else position
        table.append((place, player, total))
    return table


@dataclass(frozen=True)
class Scoreboard:
    """A whole scoresheet: players, the rounds so far, an optional target.

    Immutable: :meth:`add_round` returns a new scoreboard, so undo is keeping the old one.
    """

    players: tuple[str, ...]
    rounds: tuple[Mapping[str, int], ...] = ()
    target: int | None = None
    high_wins: bool = True
    _totals: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "rounds", tuple(dict(points) for points in self.rounds))
        # computed once: the scoreboard never changes after this
        object.__setattr__(self, "_totals", final_totals(self.players, self.rounds))

    def add_round(self, points: Mapping[str, int]) -> Scoreboard:
        """This scoreboard with one more round."""
        add_points(self._totals, points)  # refuses unknown names before anything changes
        return Scoreboard(self.players, (*self.rounds, dict(points)), self.target, self.high_wins)

    @property
    def totals(self) -> dict[str, int]:
        """Cumulative points per player, in seat order."""
        return dict(self._totals)

    @property
    def over(self) -> bool:
        """True once the target is reached (never, without a target)."""
        return self.target is not None and target_reached(self._totals, self.target)

    def winners(self) -> list[str]:
        """The players on the best total (shared on a tie)."""
        return winners(self._totals, self.high_wins)

    def standings(self) -> list[tuple[int, str, int]]:
        """(place, player, total), best first."""
        return standings(self._totals, self.high_wins)


def tally(counts: Mapping[str, int], winner: str) -> str:
    """Two players' counts as a table says a result, the winner's first: "3-1", never
    "1-3" for the one who won (Bob won 0-1 read as Bob losing)."""
    other = next((count for name, count in counts.items() if name != winner), 0)
    return f"{counts[winner]}-{other}"
