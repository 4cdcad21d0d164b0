"""Where each player finished a match, and the ratings folded from those places.

openskill is imported here alone: the device's start does not pay for it (the History
screens import the figures when they are opened).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from openskill.models import PlackettLuce

from companion.errors import CompanionError
from companion.games import engine
from companion.store import MatchSummary

_MODEL = PlackettLuce()


def places(
    players: Sequence[str], totals: Mapping[str, float], winners: Iterable[str], low_wins: bool
) -> dict[str, int]:
    """Each player's finishing place (see :mod:`companion.stats`)::

        >>> places(["Ann", "Bob", "Cy", "Dee"], {"Ann": 9, "Bob": 5, "Cy": 5, "Dee": 7},
        ...        ["Ann"], low_wins=False)
        {'Ann': 1, 'Bob': 3, 'Cy': 3, 'Dee': 2}
    """
    chosen = set(winners)
    won = [name for name in players if name in chosen]
    others = [name for name in players if name not in won]

    def behind(name: str) -> tuple[bool, float]:
        total = totals.get(name)
        if total is None:
            return (True, 0.0)
        return (False, total if low_wins else -total)

    keys = {name: behind(name) for name in others}
    table = {name: 1 for name in won}
    for name in others:
        table[name] = 1 + len(won) + sum(1 for other in others if keys[other] < keys[name])
    return table


@cache
def _engine_low_wins(game_id: str) -> bool | None:
    try:
        return not engine(game_id).high_wins
    except CompanionError:
        return None


def low_wins(match: MatchSummary) -> bool:
    """Whether the lowest total wins ``match``: its result's flag, else its engine's
    rule, else what its winners show (a winner below the top total)."""
    if match.low_wins is not None:
        return match.low_wins
    rule = _engine_low_wins(match.game_id)
    if rule is not None:
        return rule
    won = [match.totals[name] for name in match.winners if name in match.totals]
    return bool(won) and max(won) < max(match.totals.values())


def rate(ratings: dict[str, Any], keys: list[str], placed: Mapping[str, int]) -> None:
    """Apply one match to ``ratings`` (player key -> openskill rating): ``keys`` finished
    at ``placed``; a match of fewer than two players rates no one."""
    if len(keys) < 2:
        return
    teams = [[ratings.get(key) or _MODEL.rating()] for key in keys]
    rated = _MODEL.rate(teams, ranks=[placed[key] for key in keys])
    for key, (rating,) in zip(keys, rated, strict=True):
        ratings[key] = rating


def shown_rating(rating: Any) -> float | None:
    """A rating as the figures show it: its ordinal (mu - 3 sigma) to one decimal."""
    return None if rating is None else round(rating.ordinal(), 1)
