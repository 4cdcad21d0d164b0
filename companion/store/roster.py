"""The roster: the names a table picks players from, most recently used first.

Names follow the one name rule (:mod:`companion.names`) and are kept as typed; they are
compared by :func:`companion.names.player_key`, so "Åsa", "åsa" and "Аsa" (a Cyrillic А)
are one player: a new match seats that player under the roster's spelling
(:meth:`Roster.seat_players`), and adding or renaming to another spelling of a name on
the roster says it is there already. A roster written before that rule may hold two
names with one key ("Åsa" and "åsa", or "Ann" and "Аnn"; SQLite's NOCASE already kept
out "Ann" beside "ann"): both stay listed (either can be removed), a lookup takes the
one spelled exactly so first, and the figures count them as one player.

A match whose seats are only the set-up's placeholders (P1, P2, ... in seat order:
:func:`companion.names.placeholder_seats`) adds no one to the roster.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from companion.errors import BadName, RosterFull, StoreError
from companion.lang import pgettext
from companion.names import check_name, placeholder_seats, player_key, roster_name
from companion.names import seat_players as seated_by_the_rule
from companion.store.file import StoreFile

__all__ = ["ROSTER_MAX", "Roster", "joining", "mark_used"]

#: Most names on the roster: a list longer than this is no longer pickable with five
#: buttons, and a second way in (serial, web) must not be able to grow it without end.
ROSTER_MAX = 200


class Roster(StoreFile):
    """Adding, removing and renaming roster names."""

    def roster(self) -> list[str]:
        """Player names: most recently used first, then never-used ones newest first."""
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT name FROM players ORDER BY last_used IS NULL, last_used DESC,"
                " added DESC, name COLLATE NOCASE"
            ).fetchall()
        return [row["name"] for row in rows]

    def add_player(self, name: str) -> str:
        """Add a name to the roster and return it as added (cleaned by the one name rule,
        :mod:`companion.names`); StoreError says why one is refused."""
        clean = _roster_name(name)
        now = self._now()
        with self._transaction() as conn:
            existing = _find_player(conn, clean)  # any spelling of a roster player
            if existing is not None:
                raise StoreError(pgettext("screen 21x8", "{name} is already on the roster")
                                 .format(name=existing))
            _roster_lookalike(conn, clean)
            count = conn.execute("SELECT COUNT(*) FROM players").fetchone()[0]
            if count >= ROSTER_MAX:
                raise RosterFull(pgettext("screen 21x8", "the roster is full ({total} names); "
                                          "remove one to add another").format(total=ROSTER_MAX))
            conn.execute(
                "INSERT INTO players (name, added, last_used) VALUES (?, ?, NULL)", (clean, now)
            )
        return clean

    def remove_player(self, name: str) -> None:
        """Take a name off the roster (any case); past matches keep it."""
        clean = name.strip() if isinstance(name, str) else ""
        if not clean:
            raise StoreError(pgettext("screen 21x8", "a player needs a name"))
        with self._transaction() as conn:
            existing = _find_player(conn, clean)
            if existing is None:
                raise StoreError(pgettext("screen 21x8", "{name} is not on the roster")
                                 .format(name=clean))
            conn.execute("DELETE FROM players WHERE name = ?", (existing,))

    def rename_player(self, old: str, new: str) -> str:
        """Rename a roster name (any case); past matches keep the name they were
        played under. The new name is checked as :meth:`add_player` checks one.
        Returns the new name as stored."""
        clean_old = old.strip() if isinstance(old, str) else ""
        if not clean_old:
            raise StoreError(pgettext("screen 21x8", "a player needs a name"))
        clean = _roster_name(new)
        with self._transaction() as conn:
            existing = _find_player(conn, clean_old)
            if existing is None:
                raise StoreError(pgettext("screen 21x8", "{name} is not on the roster")
                                 .format(name=clean_old))
            taken = _find_player(conn, clean)  # any spelling of another roster player
            if taken is not None and taken != existing:
                raise StoreError(pgettext("screen 21x8", "{name} is already on the roster")
                                 .format(name=taken))
            _roster_lookalike(conn, clean, keep=existing)
            conn.execute("UPDATE players SET name = ? WHERE name = ?", (clean, existing))
        return clean

    def seat_players(self, names: object) -> list[str]:
        """A new match's players as the roster writes them, by the one name rule
        (:func:`companion.names.seat_players`: "Kate" is the roster's "ΚΑΤΕ"); BadName
        for a name it refuses, RosterFull when the new names would take the roster past
        :data:`ROSTER_MAX` (nothing changes either way)."""
        roster = self.roster()
        seats = seated_by_the_rule(names, roster)
        joining(roster, seats)
        return seats


def joining(roster: Sequence[str], players: Sequence[str]) -> list[str]:
    """The names of ``players`` that would join ``roster`` (one per player key, none
    for placeholder seats); RosterFull, one line, when they would take it past
    :data:`ROSTER_MAX` names."""
    if placeholder_seats(players):
        return []
    known = {player_key(name) for name in roster}
    new: dict[str, str] = {}
    for name in players:
        key = player_key(name)
        if key not in known:
            new.setdefault(key, name)
    if new and len(roster) + len(new) > ROSTER_MAX:
        # Translators: {names} lists the players who cannot join the roster.
        raise RosterFull(pgettext("screen 21x8", "the roster is full ({n} of {total} names), "
                                  "so {names} cannot join it; remove a name first, or play "
                                  "with names on the roster").format(
                                      n=len(roster), total=ROSTER_MAX,
                                      names=", ".join(new.values())))
    return list(new.values())


def mark_used(conn: sqlite3.Connection, names: list[str], now: float) -> None:
    """Put ``names`` on the roster (if they are not) as used at ``now`` (a new match);
    placeholder seats (:func:`~companion.names.placeholder_seats`) are not names."""
    if placeholder_seats(names):
        return
    for name in names:
        clean = name.strip()
        existing = _find_player(conn, clean)
        if existing is None:
            conn.execute(
                "INSERT INTO players (name, added, last_used) VALUES (?, ?, ?)",
                (clean, now, now),
            )
        else:
            conn.execute("UPDATE players SET last_used = ? WHERE name = ?", (now, existing))


def _roster_name(name: object, others: Sequence[str] = ()) -> str:
    """``name`` cleaned by the one name rule (:func:`companion.names.check_name`), not
    like any of ``others``, or StoreError saying why it cannot be on the roster."""
    try:
        return check_name(name, others)
    except BadName as refused:
        raise StoreError(str(refused)) from None


def _roster_lookalike(conn: sqlite3.Connection, name: str, keep: str | None = None) -> None:
    """StoreError if ``name`` would look like a roster name on the screen (``keep``, the
    name being renamed, does not count)."""
    others = [stored for (stored,) in conn.execute("SELECT name FROM players")]
    _roster_name(name, [other for other in others if other != keep])


def _find_player(conn: sqlite3.Connection, name: str) -> str | None:
    """The roster's spelling of ``name`` (:func:`companion.names.roster_name`: spelled
    exactly so, else in other capitals, else with its player key). Python's casefold,
    not SQLite's NOCASE (which folds ASCII only), so "Åsa" and "åsa" are one player too.
    """
    return roster_name(name, [row[0] for row in conn.execute("SELECT name FROM players")])
