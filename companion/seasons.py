"""A season: a name and a range of days, as ``[club] seasons`` and ``companion club
--season`` write them, one or several separated by ``;``::

    >>> [s.name for s in parse_seasons("Spring: 2026-03-01..2026-05-31; Summer: "
    ...                                "2026-06-01..2026-08-31")]
    ['Spring', 'Summer']

A match belongs to the season in which it finished (local dates, both ends included).
The league over a season is the club's (:mod:`companion.club.seasons`); reading one is
here, below the club, because the configuration checks it.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass

from companion.errors import SeasonError
from companion.lang import gettext, ngettext

SEASONS_MAX = 50


@dataclass(frozen=True)
class Season:
    """A named range of days; ``start`` and ``end`` as epoch seconds (end exclusive)."""

    name: str
    first: dt.date
    last: dt.date

    @property
    def start(self) -> float:
        return time.mktime(self.first.timetuple())

    @property
    def end(self) -> float:
        return time.mktime((self.last + dt.timedelta(days=1)).timetuple())

    def holds(self, when: float | None) -> bool:
        return when is not None and self.start <= when < self.end


def parse_seasons(text: str) -> list[Season]:
    """``"NAME: YYYY-MM-DD..YYYY-MM-DD; ..."`` as seasons; SeasonError says what is wrong."""
    seasons: list[Season] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        name, colon, dates = part.rpartition(":")
        name = name.strip()
        first_text, dots, last_text = dates.strip().partition("..")
        if not colon or not name or not dots:
            raise SeasonError(gettext("a season is 'NAME: YYYY-MM-DD..YYYY-MM-DD', not "
                                      "{text!r}").format(text=part[:80]))
        if len(name) > 40 or not name.isprintable():
            raise SeasonError(gettext("a season's name is 1 to 40 printable characters: "
                                      "{season!r}").format(season=name[:80]))
        try:
            first = dt.date.fromisoformat(first_text.strip())
            last = dt.date.fromisoformat(last_text.strip())
        except ValueError:
            raise SeasonError(gettext("season {season!r}: dates are YYYY-MM-DD")
                              .format(season=name)) from None
        if last < first:
            raise SeasonError(gettext("season {season!r} ends before it starts")
                              .format(season=name))
        if any(s.name == name for s in seasons):
            raise SeasonError(gettext("two seasons are named {season!r}").format(season=name))
        seasons.append(Season(name, first, last))
    if len(seasons) > SEASONS_MAX:
        raise SeasonError(ngettext("at most {n} season", "at most {n} seasons", SEASONS_MAX)
                          .format(n=SEASONS_MAX))
    return seasons
