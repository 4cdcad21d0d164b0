"""The dashboard's own book beside its game log: who each table is, what was counted,
what was refused or rewritten, and when each table was last heard.

The game log (:class:`~companion.store.Store`) holds the matches as any device does;
what only a club dashboard needs lives here, in ``club-ledger.db`` in the dashboard's
state directory (stdlib SQLite, WAL, one writer: the dashboard's thread):

- ``devices``: the table each device speaks for (the first table it was heard on; a
  match a table publishes must carry the id of one of its devices, so a table cannot
  publish another table's match as its own; a table's Pi may be replaced, a Pi may not
  speak for two tables). A device is known by the digits of its id a match's uid
  carries (:data:`~companion.store.UID_DEVICE_DIGITS`): a uid read off a table's page
  gives those away, and a made-up id that only begins with them is the same device;
- ``seen``: when each table was last heard (written at most once a minute per table);
- ``counted``: the content fingerprint of every finished match the league counts, so
  the same match sent again under a new uid is one match, not two;
- ``audit``: one row per refusal or rewrite (what, when, which table, the details), for
  the organiser (``companion club`` logs the same line).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from companion.errors import StoreError
from companion.store.records import UID_DEVICE_DIGITS

#: The ledger's file in the dashboard's state directory.
LEDGER_NAME = "club-ledger.db"
#: A table's "last seen" is written to the file at most this often (seconds).
SEEN_WRITE_EVERY = 60.0

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS devices (device TEXT PRIMARY KEY, table_name TEXT NOT NULL,"
    " first_seen REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS seen (table_name TEXT PRIMARY KEY, at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS counted (fingerprint TEXT PRIMARY KEY,"
    " uid TEXT NOT NULL UNIQUE)",
    "CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY, at REAL NOT NULL,"
    " table_name TEXT NOT NULL, uid TEXT NOT NULL, what TEXT NOT NULL,"
    " detail TEXT NOT NULL)",
)


def fingerprint(game_id: str, players: Sequence[str], options: Any, chain_hash: str) -> str:
    """What makes two matches the same match whatever their uids: the game, the players
    in their seats, the options, and every event with its time (the log's chain hash)."""
    text = json.dumps([game_id, list(players), options, chain_hash], sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _key(device: str) -> str:
    """What the ledger knows a device by: the part of its id every uid it makes carries."""
    return device[:UID_DEVICE_DIGITS]


class Ledger:
    """The dashboard's book (see the module doc); ``path`` None keeps it in memory."""

    def __init__(self, path: str | Path | None = None, *,
                 clock: Callable[[], float] = time.time):
        self.clock = clock
        try:
            self._conn = sqlite3.connect(":memory:" if path is None else str(path),
                                         isolation_level=None, check_same_thread=False)
            if path is not None:
                self._conn.execute("PRAGMA journal_mode = WAL")
            for statement in _SCHEMA:
                self._conn.execute(statement)
        except sqlite3.Error as err:
            raise StoreError(f"cannot open the club ledger {path}: {err}") from None
        self._tables: dict[str, str] = {}
        for device, table in self._conn.execute(
                "SELECT device, table_name FROM devices ORDER BY first_seen DESC"):
            self._tables[_key(device)] = table  # an older ledger kept whole ids
        self._seen: dict[str, float] = dict(self._conn.execute(
            "SELECT table_name, at FROM seen"))
        self._seen_saved = dict(self._seen)

    def close(self) -> None:
        self._conn.close()

    # -- tables ----------------------------------------------------------------------

    def table_of(self, device: str) -> str | None:
        """The table this device speaks for (None: never heard of)."""
        return self._tables.get(_key(device))

    def claim(self, table: str, device: str) -> bool:
        """True when ``device`` may speak for ``table``: it is one of the table's devices,
        or a new device, now bound to the table."""
        key = _key(device)
        known = self._tables.get(key)
        if known is not None:
            return known == table
        self._conn.execute("INSERT OR REPLACE INTO devices (device, table_name, first_seen)"
                           " VALUES (?, ?, ?)", (key, table, self.clock()))
        self._tables[key] = table
        return True

    def seen(self, table: str, at: float) -> bool:
        """The table was heard at ``at``; True when its "last seen" moved by a second or
        more (the page shows it), written to the file at most once a minute."""
        before = self._seen.get(table)
        self._seen[table] = at
        if at - self._seen_saved.get(table, float("-inf")) >= SEEN_WRITE_EVERY:
            self._conn.execute("INSERT OR REPLACE INTO seen (table_name, at) VALUES (?, ?)",
                               (table, at))
            self._seen_saved[table] = at
        return before is None or at - before >= 1.0

    def last_seen(self, table: str) -> float | None:
        return self._seen.get(table)

    # -- counted matches -----------------------------------------------------------------

    def counted_as(self, mark: str) -> str | None:
        """The uid of the counted match with this fingerprint, or None."""
        row = self._conn.execute("SELECT uid FROM counted WHERE fingerprint = ?",
                                 (mark,)).fetchone()
        return None if row is None else str(row[0])

    def count(self, mark: str, uid: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO counted (fingerprint, uid) VALUES (?, ?)",
                           (mark, uid))

    def uncount(self, uid: str) -> None:
        """The match is no longer finished as counted (its log was rewritten)."""
        self._conn.execute("DELETE FROM counted WHERE uid = ?", (uid,))

    # -- the audit trail -------------------------------------------------------------------

    def note(self, table: str, uid: str, what: str, detail: dict[str, Any]) -> None:
        """One row of the audit trail: ``what`` happened to match ``uid`` of ``table``."""
        self._conn.execute(
            "INSERT INTO audit (at, table_name, uid, what, detail) VALUES (?, ?, ?, ?, ?)",
            (self.clock(), table, uid, what, json.dumps(detail, sort_keys=True)))

    def audit(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest rows of the audit trail first."""
        rows = self._conn.execute(
            "SELECT at, table_name, uid, what, detail FROM audit ORDER BY id DESC LIMIT ?",
            (int(limit),)).fetchall()
        return [{"at": at, "table": table, "uid": uid, "what": what,
                 "detail": json.loads(detail)} for at, table, uid, what, detail in rows]
