"""Seating a club night: who sits at which table, round after round. Pure (no I/O, no
clock; the random draw is the caller's seeded :class:`random.Random`).

- Table sizes stay within the game's range and as equal as possible (they differ by at
  most one); fewer tables are used when the players cannot fill them all.
- Round 1 is a random draw.
- Later rounds are Swiss-style: players are taken in the order of their standing in the
  night, and each table is filled with the best-placed player still standing and the
  players nearest below them who have not yet met anyone at it. A search (tables filled
  one after another, every choice tried in standing order) finds a seating with no pair
  that has met already whenever one exists; past a budget of steps (big nights) the
  seating with the fewest such pairs found by a greedy fill and swaps stands.

Players are compared by :func:`key` (a name's case does not make another player).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from companion.errors import SeatingError
from companion.lang import _, ngettext, npgettext
from companion.names import player_key

#: Most steps the exact search may take before the greedy fill takes over (a step is
#: one player tried at one seat): small nights are searched whole, 200 players at 50
#: tables stay well under a second.
SEARCH_BUDGET = 20_000


@dataclass(frozen=True)
class Seat:
    """One table of a round: its name and who sits at it."""

    table: str
    players: tuple[str, ...]


def key(name: str) -> str:
    """The player a name is, for pairs and standings: the one key every count of
    players uses (:func:`companion.names.player_key`: "ann" and "Аnn" are Ann)."""
    return player_key(name)


def table_sizes(count: int, tables: int, low: int, high: int) -> list[int]:
    """How many sit at each table: ``count`` players on at most ``tables`` tables of
    ``low`` to ``high``, as equal as possible (largest first)."""
    if count < low:
        raise SeatingError(ngettext("{n} player is too few for one table (the game takes "
                                    "{low} to {high})", "{n} players are too few for one "
                                    "table (the game takes {low} to {high})", count)
                           .format(n=count, low=low, high=high))
    used = min(tables, count // low)
    if used * high < count:
        need = -(-count // high)
        if need > tables:
            # Two numbers, each with its own plural: the players and the tables.
            players = npgettext("seating: players who need tables", "{n} player",
                                "{n} players", count).format(n=count)
            needed = npgettext("seating: tables needed", "{n} table", "{n} tables",
                               need).format(n=need)
            # Translators: {players} is "13 players", {tables} "4 tables" (both said
            # above, each with its plural), {high} the most a table seats, {given} the
            # number of tables the organiser gave.
            raise SeatingError(_("{players} need at least {tables} of at most {high}, not "
                                 "{given}").format(players=players, tables=needed,
                                                   high=high, given=tables))
        raise SeatingError(ngettext("{n} player cannot sit at tables of {low} to {high} "
                                    "without one left over", "{n} players cannot sit at "
                                    "tables of {low} to {high} without one left over", count)
                           .format(n=count, low=low, high=high))
    base, extra = divmod(count, used)
    return [base + 1] * extra + [base] * (used - extra)


def pairs(rounds: Iterable[Iterable[Seat]]) -> set[frozenset[str]]:
    """Every pair of players (by :func:`key`) who sat at one table in ``rounds``."""
    met: set[frozenset[str]] = set()
    for seats in rounds:
        for seat in seats:
            names = [key(name) for name in seat.players]
            met.update(frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1:])
    return met


def repeats(seats: Iterable[Seat], met: set[frozenset[str]]) -> int:
    """How many pairs at these tables have met already."""
    return len(pairs([seats]) & met)


def seat_round(players: Sequence[str], tables: Sequence[str], low: int, high: int,
               rng: random.Random, *, ranking: Sequence[str] = (),
               met: set[frozenset[str]] | None = None,
               budget: int = SEARCH_BUDGET) -> list[Seat]:
    """Seat ``players`` at the ``tables`` (names; the first ones are used when fewer
    are needed). No ``met``: round 1, a random draw. Else ``ranking`` (names, best
    first; players missing from it, late arrivals, come after it in random order) and
    the pairs already met (:func:`pairs`) make a Swiss-style round."""
    if len({key(name) for name in players}) != len(players):
        raise SeatingError(_("a player is named twice"))
    sizes = table_sizes(len(players), len(tables), low, high)
    order = list(players)
    rng.shuffle(order)
    if not met:
        return _deal(order, sizes, tables)
    place = {key(name): index for index, name in enumerate(ranking)}
    order.sort(key=lambda name: place.get(key(name), len(place)))  # stable: drawn ties
    found = _search(order, sizes, met, budget)
    if found is None:
        found = _improve(_greedy(order, sizes, met), met)
    return [Seat(name, tuple(group)) for name, group in zip(tables, found, strict=False)]


def _deal(order: list[str], sizes: list[int], tables: Sequence[str]) -> list[Seat]:
    seats, start = [], 0
    for name, size in zip(tables, sizes, strict=False):
        seats.append(Seat(name, tuple(order[start:start + size])))
        start += size
    return seats


def _search(order: list[str], sizes: list[int], met: set[frozenset[str]],
            budget: int) -> list[list[str]] | None:
    """Tables with no pair met already, each filled with the best-placed player left
    and the nearest below who fit; None when there is none or the budget ran out."""
    # Who met whom, by place in ``order``: built from the pairs met (a few hundred),
    # not by asking of every pair of players (200 players: 40,000 questions).
    place = {key(name): index for index, name in enumerate(order)}
    clash: list[set[int]] = [set() for _ in order]
    for pair in met:
        placed = [place[name] for name in pair if name in place]
        if len(placed) == 2:
            clash[placed[0]].add(placed[1])
            clash[placed[1]].add(placed[0])
    left = [True] * len(order)
    tables: list[list[int]] = []
    steps = [0]

    def fill(sizes_left: list[int]) -> bool:
        if not sizes_left:
            return True
        head = left.index(True)  # the best-placed player left heads the next table
        for size in sorted(set(sizes_left), reverse=True):  # at most two sizes
            rest = list(sizes_left)
            rest.remove(size)
            left[head] = False
            if grow([head], size, head + 1, rest):
                return True
            left[head] = True
        return False

    def grow(group: list[int], size: int, start: int, rest: list[int]) -> bool:
        if len(group) == size:
            tables.append(list(group))
            if fill(rest):
                return True
            tables.pop()
            return False
        for index in range(start, len(order)):
            steps[0] += 1
            if steps[0] > budget:
                return False
            if not left[index] or any(other in clash[index] for other in group):
                continue
            left[index] = False
            group.append(index)
            if grow(group, size, index + 1, rest):
                return True
            group.pop()
            left[index] = True
            if steps[0] > budget:
                return False
        return False

    if not fill(list(sizes)):
        return None
    return [[order[index] for index in group] for group in tables]


def _greedy(order: list[str], sizes: list[int], met: set[frozenset[str]]) -> list[list[str]]:
    """Each table: the best-placed player left, then whoever adds the fewest pairs met
    already, nearest in standing first."""
    left = list(order)
    tables = []
    for size in sizes:
        group = [left.pop(0)]
        while len(group) < size:
            best = min(range(len(left)), key=lambda i: (
                sum(frozenset((key(left[i]), key(other))) in met for other in group), i))
            group.append(left.pop(best))
        tables.append(group)
    return tables


def _improve(tables: list[list[str]], met: set[frozenset[str]],
             passes: int = 3) -> list[list[str]]:
    """Swap players between tables while a swap lowers the pairs met already."""
    def cost(group: list[str], skip: int = -1, extra: str | None = None) -> int:
        names = [key(n) for i, n in enumerate(group) if i != skip]
        if extra is not None:
            names.append(key(extra))
        return sum(frozenset((a, b)) in met for i, a in enumerate(names) for b in names[i + 1:])

    for _pass in range(passes):
        better = False
        for a, first in enumerate(tables):
            if not cost(first):
                continue
            for i, one in enumerate(first):
                for second in tables[a + 1:]:
                    for j, other in enumerate(second):
                        now = cost(first) + cost(second)
                        then = cost(first, i, other) + cost(second, j, one)
                        if then < now:
                            first[i], second[j] = other, one
                            one = other
                            better = True
        if not better:
            break
    return tables
