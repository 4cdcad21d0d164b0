"""The figures a group asks of its record: who wins, by how much, how often, and ratings.

Everything here is computed from the stored matches (:meth:`Store.summaries
<companion.store.Store.summaries>`), never kept beside them, so importing older matches
or undoing a finish gives the same figures as if it had always been so::

    >>> import tempfile
    >>> from companion.store import Store
    >>> store = Store.in_dir(tempfile.mkdtemp(), clock=lambda: 1700000000.0)
    >>> mid = store.new_match("final-count", ["Ann", "Bob"], {})
    >>> store.finish(mid, {"over": True, "totals": {"Ann": 310, "Bob": 120},
    ...                    "winners": ["Ann"]})
    >>> ann = figures(store)["games"]["final-count"]["players"]["Ann"]
    >>> ann["wins"], ann["best_score"], ann["avg_place"], ann["rating"]
    (1, 310, 1.0, 3.4)
    >>> store.close()

What counts: finished matches that were not abandoned, in the order they finished (then
by id). Unfinished ones count only in ``last_played``; abandoned ones not at all.

- **Places**: the winners share first place; the others follow by total, best first (the
  lowest in a game where the lowest total wins), equal totals sharing a place, and a
  place skips as many as share the one before it (1, 1, 3). A player without a total
  comes last.
- **Ratings**: openskill's Plackett-Luce model with its default parameters, one rating
  per player per game, each match applied in finishing order with those places. Shown
  as the ordinal, mu - 3 sigma, rounded to one decimal.
- **Best score**: the highest total, or the lowest when every counted match of the game
  is one where the lowest total wins (a match's ``low_wins`` flag, else its engine's).
- **Time played**: from a match's first event to its last.
- **Names**: one player per :func:`companion.names.player_key` ("Ann", "ann" and "Аnn"
  with a Cyrillic А are one), shown as last spelt; the club's league and seasons and
  the Players page count players the same way. A match seated only with the set-up's
  placeholders (P1, P2, P3: :func:`companion.names.placeholder_seats`) counts for its
  game, but its seats are no one's figures.
- **A period** (``since``, seconds since the epoch) keeps the matches finished then or
  later; ratings are then over those matches alone.

:func:`figures` reads the store afresh (``companion stats``); :func:`cached_figures`
keeps what it folded per store and period, and on the next call folds in only the
matches finished since, recomputing from scratch when anything else changed (an undone
finish, an import, a match finished again): see :meth:`Store.finished_mark
<companion.store.Store.finished_mark>`.

The rooms: :mod:`~companion.stats.periods` (the periods), :mod:`~companion.stats.ratings`
(a match's places and the ratings, the only one importing openskill),
:mod:`~companion.stats.tally` (the figures, afresh or kept) and
:mod:`~companion.stats.report` (``companion stats``: the tables printed).
"""

from __future__ import annotations

from typing import Any

from companion.stats import periods
from companion.stats.periods import period_start, since_date
from companion.stats.ratings import places
from companion.stats.report import format_table, stats_main
from companion.stats.tally import _KEPT as _KEPT  # what cached_figures keeps (benches, tests)
from companion.stats.tally import (
    Tally,
    cached_figures,
    figures,
    forget,
    keep,
    opponents,
    rival_and_nemesis,
    warm,
    without_unplayed,
)

__all__ = [
    "PERIODS",  # noqa: F822 - given by the module's __getattr__, in the language spoken
    "Tally",
    "cached_figures",
    "figures",
    "forget",
    "format_table",
    "keep",
    "opponents",
    "period_start",
    "places",
    "rival_and_nemesis",
    "since_date",
    "stats_main",
    "warm",
    "without_unplayed",
]



def __getattr__(name: str) -> Any:
    """``PERIODS`` (:mod:`companion.stats.periods`): read anew each time, in the language
    spoken now."""
    if name == "PERIODS":
        return periods.PERIODS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
