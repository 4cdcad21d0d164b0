"""Tonight's tables: which of the club's tables a round seats its players at.

The organiser gives a number or names (``companion club --seat ... --tables 3`` or
``--tables table-4,table-6``; the club page's form ticks tables by name):

- **names**: exactly those tables, filled in the order given (a round that needs fewer
  leaves the last ones empty); a named table that is offline now, or was never heard
  by the dashboard, is seated all the same and said (its device gets the round when it
  connects; a name never heard may be a typing slip);
- **a number**: the tables online now, most recently seen first. While a dashboard runs
  on the state dir (it writes :data:`ONLINE_FILE` whenever a table comes or goes) a
  round that needs more tables than are online is refused, so no table that is away, or
  was never seen, is given players while live ones wait. With no dashboard running
  nobody knows which tables are online: the tables heard most recently are seated, then
  ``table-1``, ``table-2``, ... that were never heard (a club's first night).

A round that uses fewer tables than asked for (4 players of a game for 2 to 4 at 3
tables sit at 2) says which stay empty. Everything here but :func:`club_tables` and
:func:`write_online` is pure.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.club.night import Round
from companion.errors import RoundRefused
from companion.lang import _, and_list, ngettext

#: The tables online now, as the running dashboard last wrote them (beside its store).
ONLINE_FILE = "club-online.json"
#: Most tables a round may name.
TABLES_MAX = 500


@dataclass(frozen=True)
class ClubTable:
    """One of the club's tables as the dashboard knows it: whether it is online now
    (None: nobody knows, no dashboard is running) and when it was last heard (None:
    never)."""

    name: str
    online: bool | None
    last_seen: float | None


@dataclass
class Tonight:
    """What a seated round says of its tables besides who sits where: the tables asked
    for that stay empty, the seated ones not online now, and the sentences for the
    organiser."""

    empty: list[str] = field(default_factory=list)
    offline: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"empty": list(self.empty), "offline": list(self.offline),
                "notes": list(self.notes)}


def ordered(tables: Sequence[ClubTable]) -> list[ClubTable]:
    """Online first, then the rest; each most recently seen first (never seen last, in
    natural order: table-2 before table-10)."""
    return sorted(tables, key=lambda t: (t.online is not True, t.last_seen is None,
                                         -(t.last_seen or 0.0), natural(t.name)))


def candidates(tables: Sequence[ClubTable], asked: int | Sequence[str]) -> list[str]:
    """The tables a round may fill, in the order it fills them: the names asked for, or
    for a number that many of :func:`ordered` (then ``table-1``, ``table-2``, ... not
    heard of, when the club knows fewer)."""
    if not isinstance(asked, int):
        return list(asked)
    names = [table.name for table in ordered(tables)][:asked]
    known = {table.name for table in tables}
    number = 0
    while len(names) < asked:
        number += 1
        if f"table-{number}" not in known:
            names.append(f"table-{number}")
    return names


def said(rnd: Round, tables: Sequence[ClubTable], asked: int | Sequence[str], *,
         known: bool) -> Tonight:
    """What a round seated at :func:`candidates` says of tonight's tables, or
    :class:`~companion.errors.RoundRefused` when a number was asked for and it needs
    more tables than are online now; ``known``: which tables are online is known (a
    dashboard runs)."""
    from companion.games import engine, title

    rules = engine(rnd.game)
    game, low, high = title(rnd.game), rules.min_players, rules.max_players
    used = [seat.table for seat in rnd.seats]
    by_name = {table.name: table for table in tables}
    tonight = Tonight(empty=[name for name in candidates(tables, asked) if name not in used])
    away = [name for name in used if name not in by_name or not by_name[name].online]
    if known:
        tonight.offline = away
    if isinstance(asked, int) and known and away:
        online = [table.name for table in ordered(tables) if table.online]
        need = ngettext("{game}: this round needs {n} table", "{game}: this round needs "
                        "{n} tables", len(used)).format(game=game, n=len(used))
        have = ngettext("only {n} is online now ({tables})", "only {n} are online now "
                        "({tables})", len(online)).format(
                            n=len(online), tables=and_list(online)) if online else \
            _("none is online now")
        # Translators: {need} says how many tables the round needs, {have} how many are
        # online; the command line's --tables takes table names too.
        raise RoundRefused(_("{need}, {have}: name the tables to seat (--tables "
                              "table-4,table-6) or tick them on the club page")
                            .format(need=need, have=have))
    if tonight.empty:
        tonight.notes.append(ngettext(
            "{game} seats {low} to {high} at a table: {n} table of those asked for stays "
            "empty ({tables})", "{game} seats {low} to {high} at a table: {n} tables of "
            "those asked for stay empty ({tables})", len(tonight.empty)).format(
                game=game, low=low, high=high, n=len(tonight.empty),
                tables=and_list(tonight.empty)))
    if isinstance(asked, int):
        if str(asked) in by_name:
            # Translators: {n} is a number the organiser gave as --tables, and also the
            # name of one of the club's tables; "--tables {n}," stays as it is.
            tonight.notes.append(_("{n} is how many tables to seat: to seat only the "
                                   "table named {n}, write --tables {n},").format(n=asked))
        if not known:
            tonight.notes.append(_("no dashboard is running, so which tables are online "
                                   "is not known: the tables heard most recently are "
                                   "seated"))
        return tonight
    for name in away:
        if name not in by_name or by_name[name].last_seen is None:
            tonight.notes.append(_("{table} has never been heard by the dashboard (is its "
                                   "name right?); it gets its seats when it connects")
                                 .format(table=name))
        elif known:
            tonight.notes.append(_("{table} is offline now; it gets its seats when it "
                                   "connects").format(table=name))
    return tonight


def natural(name: str) -> tuple[Any, ...]:
    """A table's name in natural order (table-2 before table-10)."""
    import re

    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.split(r"(\d+)", name.casefold()))


# -- the dashboard's state dir ------------------------------------------------------------


def club_tables(state_dir: Path, online: set[str] | None) -> list[ClubTable]:
    """The tables the dashboard's ledger has heard of (when each was last heard), and
    the ``online`` ones (None: unknown) even if the ledger has not written them yet."""
    from companion.club.ledger import LEDGER_NAME

    seen: dict[str, float | None] = {}
    path = Path(state_dir) / LEDGER_NAME
    if path.exists():
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                for name, at in db.execute("SELECT table_name, MAX(at) FROM (SELECT "
                                           "table_name, at FROM seen UNION ALL SELECT "
                                           "table_name, first_seen FROM devices) GROUP "
                                           "BY table_name"):
                    seen[str(name)] = float(at) if at is not None else None
        except sqlite3.Error:
            seen = {}
    for name in online or ():
        seen.setdefault(name, None)
    return [ClubTable(name, None if online is None else name in online, at)
            for name, at in seen.items()]


def online_now(state_dir: Path) -> set[str]:
    """The tables the running dashboard last wrote as online (none before it wrote)."""
    try:
        data = json.loads((Path(state_dir) / ONLINE_FILE).read_text(encoding="utf-8"))
        return {str(name) for name in data["online"]}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def write_online(state_dir: Path, names: Sequence[str]) -> None:
    """The dashboard writes which tables are online now (a new file moved over the old:
    a reader sees one or the other)."""
    path = Path(state_dir) / ONLINE_FILE
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps({"online": sorted(names)}), encoding="utf-8")
    os.replace(partial, path)
