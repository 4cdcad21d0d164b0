"""Where each player finished a match, and the ratings folded from those places.

openskill is imported here alone: the device's start does not pay for it (the History
screens import the figures when they are opened).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import NamedTuple

from openskill.models import PlackettLuce

from companion.errors import CompanionError
from companion.games import engine
from companion.store import MatchSummary

#: The model and its parameters: openskill's Plackett-Luce with its defaults.
_MODEL = PlackettLuce()
_BETA_SQUARED = _MODEL.beta ** 2
_TAU_SQUARED = _MODEL.tau * _MODEL.tau


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


class Rating(NamedTuple):
    """One player's rating in one game, as openskill's model keeps it."""

    mu: float
    sigma: float

    def ordinal(self) -> float:
        """mu - 3 sigma: the skill the player is 99.7 % sure to have (openskill's)."""
        return self.mu - 3.0 * self.sigma


#: A player's rating before their first match in a game.
NEW = Rating(_MODEL.mu, _MODEL.sigma)


def rate(ratings: dict[str, Rating], keys: list[str], placed: Mapping[str, int]) -> None:
    """Apply one match to ``ratings`` (player key -> :class:`Rating`): ``keys`` finished
    at ``placed``; a match of fewer than two players rates no one.

    This is openskill's ``PlackettLuce().rate(teams, ranks=...)`` for teams of one,
    step for step, so each rating is the model's to the last bit (tests/test_stats.py
    compares the two over random matches). The model's own ``rate`` copies every team
    deeply and draws a random id (os.urandom) for each copy: over a long history that
    was most of the time ``companion stats`` took.
    """
    if len(keys) < 2:
        return
    order = sorted(keys, key=placed.__getitem__)  # best first; a tie keeps seat order
    ranks = [placed[key] for key in order]
    mus, sigmas, variances = [], [], []
    for key in order:
        mu, sigma = ratings.get(key, NEW)
        sigma = math.sqrt(sigma * sigma + _TAU_SQUARED)  # the model's drift (tau) first
        mus.append(mu)
        sigmas.append(sigma)
        variances.append(sigma ** 2)
    spread = 0.0
    for variance in variances:
        spread += variance + _BETA_SQUARED
    c = math.sqrt(spread)
    strengths = [math.exp(mu / c) for mu in mus]
    # At each place: the strengths of everyone placed there or below it, summed in order.
    fields = []
    for rank in ranks:
        field = 0.0
        for strength, other in zip(strengths, ranks, strict=True):
            if other >= rank:
                field += strength
        fields.append(field)
    sharing = [ranks.count(rank) for rank in ranks]  # how many share each place
    for i, key in enumerate(order):
        omega = delta = 0.0
        for q, rank in enumerate(ranks):
            if rank <= ranks[i]:
                chance = strengths[i] / fields[q]
                delta += chance * (1 - chance) / sharing[q]
                if q == i:
                    omega += (1 - chance) / sharing[q]
                else:
                    omega -= chance / sharing[q]
        omega *= variances[i] / c
        delta *= variances[i] / c ** 2
        delta *= math.sqrt(variances[i]) / c  # the model's gamma
        # A team of one: the player carries the whole team's variance (openskill's
        # sigma**2 / team sigma_squared is 1), so its omega and delta are theirs.
        ratings[key] = Rating(mus[i] + omega,
                              sigmas[i] * math.sqrt(max(1 - delta, _MODEL.kappa)))


def shown_rating(rating: Rating | None) -> float | None:
    """A rating as the figures show it: its ordinal (mu - 3 sigma) to one decimal."""
    return None if rating is None else round(rating.ordinal(), 1)
