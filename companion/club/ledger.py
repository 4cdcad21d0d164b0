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
- ``counted``: the fingerprint of every finished match the league counts (and of its
  content without the times), so the same match sent again under a new uid is one
  match, not two;
- ``held``: what waits for the organiser (``companion club --review``, the club page):
  a counted match a table rewrote later, or a match that is a counted one again with its
  times moved; each accepted or refused there (the decision is written here, and the
  dashboard applies it within a few seconds, or when it next starts);
- ``refused``: a device refused because it is bound to another table (which device,
  the table it spoke for, the table it is bound to, when last), for the organiser, who
  may move it (``companion club --move-device ID --to TABLE``, the club page);
- ``moves``: the last move of each device moved (its table, the tables it was moved
  from, when), by this dashboard's organiser or learned from the broker
  (:mod:`companion.club.moves`), and whether the broker has it yet (``announced``);
- ``locked``: the seasons the organiser locked, each with its standings as they were
  counted then: nothing that arrives later changes them;
- ``audit``: one row per refusal or rewrite (what, when, which table, the details), for
  the organiser (``companion club`` logs the same line).

Another process (``companion club --move-device``, ``--lock-season``, ``--accept``)
writes here while the dashboard runs: :meth:`Ledger.outside` tells the dashboard so.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from companion.club.moves import former_tables
from companion.errors import StoreError
from companion.lang import _
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
    "CREATE TABLE IF NOT EXISTS held (id INTEGER PRIMARY KEY, at REAL NOT NULL,"
    " table_name TEXT NOT NULL, uid TEXT NOT NULL, what TEXT NOT NULL,"
    " detail TEXT NOT NULL, decision TEXT, decided REAL, applied INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS refused (id INTEGER PRIMARY KEY, device TEXT NOT NULL,"
    " table_name TEXT NOT NULL, bound TEXT NOT NULL, at REAL NOT NULL,"
    " UNIQUE (device, table_name))",
    "CREATE TABLE IF NOT EXISTS locked (season TEXT PRIMARY KEY, at REAL NOT NULL,"
    " standings TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY, at REAL NOT NULL,"
    " table_name TEXT NOT NULL, uid TEXT NOT NULL, what TEXT NOT NULL,"
    " detail TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS moves (device TEXT PRIMARY KEY, table_name TEXT NOT NULL,"
    " former TEXT NOT NULL, at REAL NOT NULL, announced INTEGER NOT NULL DEFAULT 0)",
)


def fingerprint(game_id: str, players: Sequence[str], options: Any, chain_hash: str) -> str:
    """What makes two matches the same match whatever their uids: the game, the players
    in their seats, the options, and every event with its time (the log's chain hash)."""
    text = json.dumps([game_id, list(players), options, chain_hash], sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def content_digest(events: Sequence[Any]) -> str:
    """What a log says without its times: two matches with the same events in the same
    order have the same digest, whenever they were played."""
    text = json.dumps(list(events), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


#: Most devices listed as refused for speaking for another table (a hostile table could
#: only add devices bound elsewhere, but the list stays short whatever happens).
REFUSED_MAX = 100
#: How many hex digits a device id given by the organiser has at least (what a uid carries).
DEVICE_DIGITS = UID_DEVICE_DIGITS

#: What the organiser may decide of a held match.
DECISIONS = ("accepted", "refused")


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
                                         isolation_level=None, check_same_thread=False,
                                         timeout=10.0)
            if path is not None:
                self._conn.execute("PRAGMA journal_mode = WAL")
            for statement in _SCHEMA:
                self._conn.execute(statement)
            columns = [row[1] for row in self._conn.execute("PRAGMA table_info(counted)")]
            if "content" not in columns:  # a ledger from before times-moved duplicates
                self._conn.execute("ALTER TABLE counted ADD COLUMN content TEXT")
            self._conn.execute("CREATE INDEX IF NOT EXISTS counted_content"
                               " ON counted (content)")
        except sqlite3.Error as err:
            raise StoreError(_("cannot open the club ledger {path}: {problem}")
                             .format(path=path, problem=err)) from None
        self._tables: dict[str, str] = {}
        self._former: dict[str, frozenset[str]] = {}
        self._moved_at: dict[str, float] = {}
        self._read_bindings()
        self._seen: dict[str, float] = dict(self._conn.execute(
            "SELECT table_name, at FROM seen"))
        self._seen_saved = dict(self._seen)
        self._version = self._data_version()

    def _data_version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def outside(self) -> bool:
        """True when another process wrote to the ledger since the last call (the
        organiser's command line): the bindings are read again."""
        version = self._data_version()
        if version == self._version:
            return False
        self._version = version
        self._read_bindings()
        return True

    def _read_bindings(self) -> None:
        """The devices' tables and the tables they were moved from, from the file."""
        self._tables = {}
        for device, table in self._conn.execute(
                "SELECT device, table_name FROM devices ORDER BY first_seen DESC"):
            self._tables[_key(device)] = table  # an older ledger kept whole ids
        self._former, self._moved_at = {}, {}
        for device, former, at in self._conn.execute("SELECT device, former, at FROM moves"):
            try:
                self._former[device] = frozenset(str(name) for name in json.loads(former))
                self._moved_at[device] = float(at)
            except (TypeError, ValueError):
                continue  # a row no dashboard wrote: the device keeps its binding only

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

    def move(self, device: str, table: str) -> str | None:
        """The organiser binds ``device`` to ``table`` (its matches are taken from there
        on); the table it was bound to, or None when the device was never heard of (then
        nothing changes)."""
        key = _key(device)
        row = self._conn.execute("SELECT table_name FROM devices WHERE device = ?",
                                 (key,)).fetchone()
        if row is None:
            return None
        self._conn.execute("UPDATE devices SET table_name = ? WHERE device = ?", (table, key))
        self._conn.execute("DELETE FROM refused WHERE device = ? AND table_name = ?",
                           (key, table))
        self._tables[key] = table
        former = former_tables(sorted(self._former.get(key, ())), table, str(row[0]))
        self._keep_move(key, table, former, self.clock(), announced=False)
        self.note(table, "", "moved", {"device": key, "from": row[0], "to": table})
        return str(row[0])

    def learn(self, move: Any) -> bool:
        """A device move another dashboard published (:class:`~.moves.Move`): bind the
        device as it says (a device never heard of too), unless this dashboard's own
        last move of it is newer; True when anything changed."""
        key = _key(move.device)
        row = self._conn.execute("SELECT table_name, former, at FROM moves WHERE device = ?",
                                 (key,)).fetchone()
        if row is not None and (row[2] > move.at or (
                row[0] == move.table and self._former.get(key) == set(move.former)
                and self._tables.get(key) == move.table)):
            return False  # ours is newer (the broker learns it), or it is the same move
        before = self._tables.get(key)
        self._conn.execute("INSERT OR REPLACE INTO devices (device, table_name, first_seen)"
                           " VALUES (?, ?, COALESCE((SELECT first_seen FROM devices WHERE"
                           " device = ?), ?))", (key, move.table, key, self.clock()))
        self._tables[key] = move.table
        self._keep_move(key, move.table, move.former, move.at, announced=True)
        for table in (move.table, *move.former):
            self._conn.execute("DELETE FROM refused WHERE device = ? AND table_name = ?",
                               (key, table))
        if before != move.table:
            self.note(move.table, "", "moved", {"device": key, "from": before,
                                                "to": move.table, "learned": True})
        return True

    def _keep_move(self, key: str, table: str, former: Sequence[str], at: float, *,
                   announced: bool) -> None:
        self._conn.execute("INSERT OR REPLACE INTO moves (device, table_name, former, at,"
                           " announced) VALUES (?, ?, ?, ?, ?)",
                           (key, table, json.dumps(list(former)), at, int(announced)))
        self._former[key] = frozenset(former)
        self._moved_at[key] = at

    def unannounced(self) -> list[dict[str, Any]]:
        """The organiser's moves the broker does not have yet (to be published)."""
        return [{"device": device, "table": table, "former": json.loads(former), "at": at}
                for device, table, former, at in self._conn.execute(
                    "SELECT device, table_name, former, at FROM moves WHERE announced = 0")]

    def announced(self, device: str, at: float) -> None:
        """The move of ``device`` made at ``at`` is on the broker."""
        self._conn.execute("UPDATE moves SET announced = 1 WHERE device = ? AND at = ?",
                           (_key(device), at))

    def moved_from(self, device: str, table: str, started: float | None = None) -> bool:
        """``device`` was moved away from ``table`` (by the organiser, here or on another
        dashboard): what it still says there is its past, not a second table; but not a
        match ``started`` there after the move (a table's clock: a device moved on a
        forged row, still playing at its table, is said, not silenced)."""
        key = _key(device)
        if table not in self._former.get(key, ()) or self._tables.get(key) == table:
            return False
        return started is None or started <= self._moved_at.get(key, float("inf"))

    def refuse_device(self, device: str, table: str) -> bool:
        """``device``, bound to another table, spoke for ``table``: listed for the
        organiser (once per device and table; its time moved at most once a minute). True
        when the list changed."""
        key, bound, now = _key(device), self._tables.get(_key(device)), self.clock()
        if bound is None or bound == table:
            return False
        row = self._conn.execute("SELECT at FROM refused WHERE device = ? AND table_name = ?",
                                 (key, table)).fetchone()
        if row is not None:
            if now - row[0] >= SEEN_WRITE_EVERY:
                self._conn.execute("UPDATE refused SET at = ?, bound = ? WHERE device = ? AND"
                                   " table_name = ?", (now, bound, key, table))
            return False
        if self._conn.execute("SELECT count(*) FROM refused").fetchone()[0] >= REFUSED_MAX:
            return False
        self._conn.execute("INSERT INTO refused (device, table_name, bound, at)"
                           " VALUES (?, ?, ?, ?)", (key, table, bound, now))
        return True

    def refused_devices(self) -> list[dict[str, Any]]:
        """The devices refused for speaking for a table they are not bound to, newest
        first (a row whose device was moved there since is gone)."""
        rows = self._conn.execute("SELECT id, device, table_name, bound, at FROM refused"
                                  " ORDER BY at DESC").fetchall()
        return [{"id": ident, "device": device, "table": table, "bound": bound, "at": at}
                for ident, device, table, bound, at in rows
                if self._tables.get(device) != table]

    # -- locked seasons ---------------------------------------------------------------------

    def lock(self, season: str, standings: Any) -> dict[str, Any] | None:
        """Lock ``season`` with its ``standings`` as counted now; None when it was locked
        already (its first lock stands)."""
        if self.locked().get(season) is not None:
            return None
        at = self.clock()
        self._conn.execute("INSERT INTO locked (season, at, standings) VALUES (?, ?, ?)",
                           (season, at, json.dumps(standings, sort_keys=True)))
        return {"at": at, "standings": standings}

    def locked(self) -> dict[str, dict[str, Any]]:
        """Every locked season: when, and its standings then."""
        return {season: {"at": at, "standings": json.loads(standings)}
                for season, at, standings in self._conn.execute(
                    "SELECT season, at, standings FROM locked")}

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

    def counted_like(self, content: str) -> str | None:
        """The uid of a counted match with this content fingerprint (times aside)."""
        row = self._conn.execute("SELECT uid FROM counted WHERE content = ? LIMIT 1",
                                 (content,)).fetchone()
        return None if row is None else str(row[0])

    def count(self, mark: str, uid: str, content: str | None = None) -> None:
        self._conn.execute("DELETE FROM counted WHERE uid = ?", (uid,))
        self._conn.execute("INSERT OR REPLACE INTO counted (fingerprint, uid, content)"
                           " VALUES (?, ?, ?)", (mark, uid, content))

    def uncount(self, uid: str) -> None:
        """The match is no longer finished as counted (its log was rewritten)."""
        self._conn.execute("DELETE FROM counted WHERE uid = ?", (uid,))

    # -- held for the organiser -----------------------------------------------------------

    def hold(self, table: str, uid: str, what: str, detail: dict[str, Any]) -> None:
        """Match ``uid`` waits for the organiser (``what``: ``rewritten`` or
        ``duplicate``); a match already waiting keeps its first row."""
        if self.pending(uid) is None:
            self._conn.execute(
                "INSERT INTO held (at, table_name, uid, what, detail) VALUES (?, ?, ?, ?, ?)",
                (self.clock(), table, uid, what, json.dumps(detail, sort_keys=True)))

    def pending(self, uid: str) -> dict[str, Any] | None:
        """The row of ``uid`` that waits for a decision, or None."""
        rows = self.held(uid=uid)
        return rows[0] if rows else None

    def held(self, *, uid: str | None = None, every: bool = False,
             limit: int = 200) -> list[dict[str, Any]]:
        """What waits for the organiser, oldest first (``every``: decided ones too,
        newest first)."""
        where, args = ("1" if every else "decision IS NULL"), []
        if uid is not None:
            where += " AND uid = ?"
            args.append(uid)
        order = "id DESC" if every else "id"
        rows = self._conn.execute(
            "SELECT id, at, table_name, uid, what, detail, decision, decided FROM held"
            f" WHERE {where} ORDER BY {order} LIMIT ?", (*args, int(limit))).fetchall()
        return [{"id": ident, "at": at, "table": table, "uid": uid_, "what": what,
                 "detail": json.loads(detail), "decision": decision, "decided": decided}
                for ident, at, table, uid_, what, detail, decision, decided in rows]

    def decide(self, uid: str, decision: str) -> dict[str, Any] | None:
        """The organiser's word on held match ``uid`` (``accepted`` or ``refused``); the
        row decided, or None when nothing of that uid waits."""
        if decision not in DECISIONS:
            raise ValueError(f"a decision is one of {DECISIONS}")
        row = self.pending(uid)
        if row is None:
            return None
        self._conn.execute("UPDATE held SET decision = ?, decided = ? WHERE id = ?"
                           " AND decision IS NULL", (decision, self.clock(), row["id"]))
        return {**row, "decision": decision}

    def decided(self) -> list[dict[str, Any]]:
        """Decisions the dashboard has not applied yet, oldest first."""
        rows = self._conn.execute(
            "SELECT id, table_name, uid, what, detail, decision FROM held"
            " WHERE decision IS NOT NULL AND applied = 0 ORDER BY id").fetchall()
        return [{"id": ident, "table": table, "uid": uid, "what": what,
                 "detail": json.loads(detail), "decision": decision}
                for ident, table, uid, what, detail, decision in rows]

    def applied(self, ident: int) -> None:
        self._conn.execute("UPDATE held SET applied = 1 WHERE id = ?", (ident,))

    def withdraw(self, uid: str) -> None:
        """What waited of ``uid`` is moot (the table rewrote the held match itself)."""
        self._conn.execute("UPDATE held SET decision = 'withdrawn', decided = ?, applied = 1"
                           " WHERE uid = ? AND decision IS NULL", (self.clock(), uid))

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
