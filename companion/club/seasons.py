"""Seasons: the club's league over a date range, with a written tie-break order.

A season is a name and a range of days, given in the config (``[club] seasons``) or on
the command line (``companion club --season``), one or several separated by ``;``::

    seasons = "Spring 2026: 2026-03-01..2026-05-31; Summer: 2026-06-01..2026-08-31"

A match belongs to the season in which it finished (local dates, both ends included).

Standings, per game: each player's matches played, wins and average place (1 = best;
tied totals share a place). The order, written down once here and on the club page:

1. more wins;
2. a better (lower) average place;
3. more matches played;
4. still level: the same rank, shared (listed by name).

Players are matched across tables as the league and every figure match them, by
:func:`companion.names.player_key`: "ann" at one table and "Ann" at another are one
player, and so are names the screen draws alike ("Ann" and "Аnn" with a Cyrillic А),
in one row under the latest spelling; a row that gathers spellings beyond case carries
one question for the organiser ("Ann / Аnn: one player?"). A match seated only with the
set-up's placeholders (P1, P2, P3) has no one in it to rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.errors import SeasonError
from companion.lang import N_, gettext
from companion.names import placeholder_seats, player_key

# A season's dates are read below the club (the config checks [club] seasons with it).
from companion.seasons import SEASONS_MAX, Season, parse_seasons

__all__ = ["SEASONS_MAX", "TIE_BREAK", "Season", "SeasonError", "parse_seasons", "places",
           "season_table", "standings"]

#: The tie-break order, as the club page prints it (translated where it is shown).
TIE_BREAK = (N_("more wins"), N_("better average place"), N_("more matches played"),
             N_("still level: the rank is shared"))


@dataclass
class _Row:
    names: list[str] = field(default_factory=list)
    plays: int = 0
    wins: int = 0
    places: int = 0


def places(totals: dict[str, Any], players: Sequence[str], low_wins: bool) -> dict[str, int]:
    """Each player's place by total (1 = best; equal totals share a place)."""
    def score(name: str) -> float:
        value = totals.get(name)
        return value if isinstance(value, int | float) and not isinstance(value, bool) \
            else float("-inf") if not low_wins else float("inf")
    ordered = sorted(players, key=score, reverse=not low_wins)
    placed: dict[str, int] = {}
    for index, name in enumerate(ordered):
        same = index and score(name) == score(ordered[index - 1])
        placed[name] = placed[ordered[index - 1]] if same else index + 1
    return placed


def standings(matches: Iterable[Any], season: Season | None = None) -> list[dict[str, Any]]:
    """Per game, the players in the written order, for ``matches``
    (:class:`~companion.store.MatchSummary`, finished ones) finished in ``season`` (None:
    all time); each game lists the organiser's questions about lookalike names."""
    games: dict[str, dict[str, _Row]] = {}
    for match in matches:
        if match.finished is None or (season is not None and not season.holds(match.finished)):
            continue
        if placeholder_seats(match.players):
            continue  # the game was played, by no one the league knows
        rows = games.setdefault(match.game_id, {})
        placed = places(match.totals or {}, match.players, bool(match.low_wins))
        for name in match.players:
            row = rows.setdefault(player_key(name), _Row())
            if name in row.names:
                row.names.remove(name)
            row.names.append(name)  # the latest spelling last, as the league shows it
            row.plays += 1
            row.wins += name in match.winners
            row.places += placed[name]
    result = []
    for game_id, rows in sorted(games.items()):
        ranked = sorted(rows.items(), key=lambda kv: _order(kv[1]) + (kv[0],))
        table, rank, last = [], 0, None
        for index, (_, row) in enumerate(ranked):
            if _order(row) != last:
                rank, last = index + 1, _order(row)
            spelt: dict[str, str] = {}
            for name in row.names:
                spelt.setdefault(name.casefold(), name)  # case is no question
            table.append({"rank": rank, "name": row.names[-1], "plays": row.plays,
                          "wins": row.wins, "avg_place": round(row.places / row.plays, 2),
                          "question": gettext("{names}: one player?").format(
                              names=" / ".join(sorted(spelt.values())))
                          if len(spelt) > 1 else None})
        result.append({"game_id": game_id, "rows": table})
    return result


def _order(row: _Row) -> tuple[float, float, float]:
    return (-row.wins, row.places / row.plays, -row.plays)


def season_table(store: Any, seasons: Sequence[Season]) -> list[dict[str, Any]]:
    """Every season's standings from ``store`` (one read of the finished matches)."""
    matches = list(store.summaries())
    return [{"name": s.name, "first": s.first.isoformat(), "last": s.last.isoformat(),
             "games": standings(matches, s)} for s in seasons]
