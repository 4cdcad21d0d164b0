"""The game log: roster, matches and every match's event log in one SQLite file.

A match is a fold over its events (see :mod:`companion.games.base`), so saving a game is
appending one row per event. :meth:`Store.append` commits *and syncs* before it returns,
and the app shows an event's effect only after that, so whatever is on the screen is
on the SD card even if the power is pulled the next instant. Resume is replaying
:meth:`Store.events`; undo is :meth:`Store.pop`::

    >>> import tempfile
    >>> store = Store.in_dir(tempfile.mkdtemp(), clock=lambda: 1700000000.0)
    >>> mid = store.new_match("final-count", ["Ann", "Bob"], {})
    >>> store.append(mid, {"type": "roll", "player": "Ann", "value": 3})
    1
    >>> store.events(mid)
    [{'type': 'roll', 'player': 'Ann', 'value': 3}]
    >>> store.pop(mid)["value"]
    3
    >>> store.roster()
    ['Ann', 'Bob']
    >>> store.close()

Durability: WAL journal with ``synchronous=FULL`` (each commit fsyncs the WAL), one
transaction per call. Failures never half-apply: every write runs in one transaction
that is rolled back on any error, and every error comes out as a
:class:`~companion.errors.StoreError` with a line a person can read ("cannot write the
game log: disk full"). Two subclasses tell the app what it may do next:

- :class:`StoreCorrupt`: the file is damaged or not a database. The app shows the
  message, then :meth:`Store.set_aside` renames the file (never deletes it) so the
  device can start with an empty log; :meth:`Store.open_or_set_aside` does both.
- :class:`StoreTooNew`: a newer companion wrote the file. It is never touched or
  moved; the app runs the Tools without a store.

Threads and processes: a Store is owned by one thread (the app's state thread) and has
no lock of its own. Other *processes* may read at the same time (``companion export``
opens the file read-only; WAL lets readers and the one writer run together).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

from companion.errors import StoreError
from companion.names import NAME_MAX, BadName, check_name, check_players

__all__ = [
    "MIGRATIONS",
    "NAME_MAX",
    "SCHEMA_VERSION",
    "MatchRecord",
    "MatchSummary",
    "Store",
    "StoreCorrupt",
    "StoreTooNew",
    "DuplicateMatch",
    "ROSTER_MAX",
    "RosterFull",
]

Clock = Callable[[], float]
#: The largest id SQLite can store (a signed 64-bit integer).
_MAX_ID = 2**63 - 1

#: Most names on the roster: a list longer than this is no longer pickable with five
#: buttons, and a second way in (serial, web) must not be able to grow it without end.
ROSTER_MAX = 200

#: The meta key prefix (then a match's uid) under which the club publisher records the
#: state of the match the broker acknowledged (see :meth:`Store.unpublished`).
PUBLISHED_STATE = "published-state:"

#: Marks the file as ours (``PRAGMA application_id``), so a stray SQLite file at the
#: same path is refused instead of being "migrated" into.
APPLICATION_ID = 0x54544331  # "TTC1"

#: How long a write waits for a reader in another process that holds a lock briefly
#: (WAL readers rarely block the writer; this only covers WAL recovery/checkpoints).
BUSY_TIMEOUT_S = 3.0

#: Forward migrations: step ``i`` takes the file from version ``i`` to ``i + 1``, inside
#: one transaction together with the new ``user_version``. Never edit a released step;
#: append a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the first schema.
    (
        f"PRAGMA application_id = {APPLICATION_ID}",
        """CREATE TABLE players (
            name TEXT PRIMARY KEY COLLATE NOCASE,
            added REAL NOT NULL,
            last_used REAL
        )""",
        """CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            game_id TEXT NOT NULL,
            players TEXT NOT NULL,
            options TEXT NOT NULL,
            started REAL NOT NULL,
            finished REAL,
            result TEXT,
            abandoned INTEGER NOT NULL DEFAULT 0 CHECK (abandoned IN (0, 1))
        )""",
        """CREATE TABLE events (
            match_id INTEGER NOT NULL REFERENCES matches (id),
            seq INTEGER NOT NULL,
            event TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (match_id, seq)
        ) WITHOUT ROWID""",
        "CREATE INDEX matches_by_finish ON matches (finished)",
    ),
    # 2: a match keeps one identity wherever it goes (export/import, club dashboards):
    # ``uid``; ``origin`` is where it was played ("" = this device, else a club table);
    # ``published`` is how many of its events the club broker has acknowledged (the
    # outbox mark); ``meta`` holds this device's own id.
    (
        "ALTER TABLE matches ADD COLUMN uid TEXT",
        "UPDATE matches SET uid = lower(hex(randomblob(16)))",
        "CREATE UNIQUE INDEX matches_by_uid ON matches (uid)",
        "ALTER TABLE matches ADD COLUMN origin TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE matches ADD COLUMN published INTEGER NOT NULL DEFAULT 0",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
)

#: The schema version this program writes.
SCHEMA_VERSION = len(MIGRATIONS)

_MEMORY = ":memory:"
_WRITE = "cannot write the game log"
_READ = "cannot read the game log"


class StoreCorrupt(StoreError):
    """The file is damaged or not a database; :meth:`Store.set_aside` can move it away."""


class StoreTooNew(StoreError):
    """A newer companion wrote the file; it is left exactly as it is."""


class RosterFull(StoreError):
    """The roster holds :data:`ROSTER_MAX` names already."""

    full = True


class DuplicateMatch(StoreError):
    """A match with this uid is stored already (an import or a delivery seen twice)."""

    def __init__(self, uid: str, match_id: int):
        super().__init__(f"match {uid} is stored already (as match {match_id})")
        self.uid = uid
        self.match_id = match_id


@dataclass(frozen=True)
class MatchRecord:
    """One row of the matches table, with the number of events in its log."""

    id: int
    game_id: str
    players: tuple[str, ...]
    options: dict[str, Any]
    started: float
    finished: float | None
    result: dict[str, Any] | None
    abandoned: bool
    event_count: int
    #: The match's identity on every device (kept by export/import and the club).
    uid: str = ""
    #: Where it was played: "" on this device, else the club table's name.
    origin: str = ""

    @property
    def in_progress(self) -> bool:
        """Neither finished nor abandoned: it can be resumed."""
        return self.finished is None and not self.abandoned

    @property
    def state(self) -> str:
        """``playing``, ``finished`` or ``abandoned`` (as club mode names them)."""
        if self.abandoned:
            return "abandoned"
        return "finished" if self.finished is not None else "playing"

    def to_json(self) -> dict[str, Any]:
        """As plain JSON (for the serial console's HISTORY)."""
        data = asdict(self)
        data["players"] = list(self.players)
        return data


class MatchSummary(NamedTuple):
    """What the figures (:mod:`companion.stats`) need of one match, read by SQLite
    without loading its whole result or log: the result's ``totals``, ``winners``,
    ``low_wins`` flag (None when the result has none) and how many hands, rounds or games
    it lists; the times of its first and last event (None without events)."""

    id: int
    uid: str
    game_id: str
    players: tuple[str, ...]
    started: float
    finished: float | None
    totals: dict[str, Any]
    winners: tuple[str, ...]
    low_wins: bool | None
    rounds: int | None
    first_event: float | None
    last_event: float | None


class Store:
    """The SQLite game log (see the module docstring).

    ``path`` may be ``":memory:"`` for tests of other modules. ``readonly=True`` opens an
    existing file without ever writing to it (``mode=ro``), for ``companion export``.
    """

    DEFAULT_NAME = "companion.db"

    def __init__(
        self, path: str | os.PathLike[str], *, clock: Clock = time.time, readonly: bool = False
    ):
        self.path = Path(path)
        self.readonly = readonly
        self._clock = clock
        self._memory = str(path) == _MEMORY
        self._conn: sqlite3.Connection | None = None
        if self._memory and readonly:
            raise StoreError("an in-memory game log cannot be opened read-only")
        self._conn = self._open()

    # -- opening, closing, setting aside ---------------------------------------------

    @classmethod
    def in_dir(cls, state_dir: str | os.PathLike[str], **kw: Any) -> Store:
        """Open (or create) ``state_dir/companion.db``, creating the directory if needed."""
        directory = Path(state_dir)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(
                f"cannot create the state directory {directory}: {err.strerror or err}"
            ) from err
        return cls(directory / cls.DEFAULT_NAME, **kw)

    @classmethod
    def open_or_set_aside(
        cls, state_dir: str | os.PathLike[str], **kw: Any
    ) -> tuple[Store, str | None]:
        """A working store in ``state_dir``, and a message for the screen or None.

        A damaged file is renamed (see :meth:`set_aside`) and a new empty log started;
        the message says where the old one went. A file from a newer version raises
        :class:`StoreTooNew` and is not moved; any other error (read-only, disk full)
        raises too, because starting afresh would not fix it.
        """
        try:
            return cls.in_dir(state_dir, **kw), None
        except StoreTooNew:
            raise
        except StoreCorrupt:
            clock = kw.get("clock", time.time)
            moved = cls.set_aside(Path(state_dir) / cls.DEFAULT_NAME, clock=clock)
        message = f"Game log damaged: kept as {moved.name}, starting a new one"
        return cls.in_dir(state_dir, **kw), message

    @classmethod
    def set_aside(cls, path: str | os.PathLike[str], *, clock: Clock = time.time) -> Path:
        """Rename a damaged log to ``<name>.bad-<UTC time>`` with its -wal/-shm; return it.

        Nothing is deleted: the old file can still be rescued by hand. The sidecars go
        first, because a stale ``companion.db-wal`` next to a fresh ``companion.db``
        could be replayed into it. Close any Store on the file before calling this.
        """
        src = Path(path)
        if not src.exists():
            raise StoreError(f"no game log at {src}")
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
        dest = src.with_name(f"{src.name}.bad-{stamp}")
        attempt = 1
        # os.rename silently replaces an existing target: never let it eat an older one.
        while any(Path(str(dest) + s).exists() for s in ("", "-wal", "-shm")):
            dest = src.with_name(f"{src.name}.bad-{stamp}-{attempt}")
            attempt += 1
        try:
            for suffix in ("-wal", "-shm"):
                side = Path(str(src) + suffix)
                if side.exists():
                    os.rename(side, str(dest) + suffix)
            os.rename(src, dest)
            _fsync_dir(src.parent)
        except OSError as err:
            reason = err.strerror or err
            raise StoreError(f"cannot set the damaged game log aside: {reason}") from err
        return dest

    def close(self) -> None:
        """Close the file (idempotent). Everything was committed already."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error:
                # Only the final checkpoint can fail here; the WAL stays and the next
                # open replays it, so no committed event is lost.
                pass

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- matches and the event log -----------------------------------------------------

    def new_match(
        self,
        game_id: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        uid: str | None = None,
        origin: str = "",
    ) -> int:
        """Record a new match and return its id; its players become "recently used".

        ``uid`` (default: a new random one) is the match's identity on every device;
        ``origin`` names the club table it is played at ("" here). A uid stored already
        raises :class:`DuplicateMatch`.
        """
        players_json, options_json = _match_json(game_id, players, options)
        uid = _new_uid() if uid is None else checked_uid(uid)
        now = self._now()
        with self._transaction() as conn:
            self._refuse_duplicate(conn, uid)
            cursor = conn.execute(
                "INSERT INTO matches (game_id, players, options, started, uid, origin)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, players_json, options_json, now, uid, str(origin)),
            )
            match_id = cursor.lastrowid
            self._mark_used(conn, list(players), now)
        assert match_id is not None
        return match_id

    def import_match(
        self,
        game_id: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None,
        events: Sequence[tuple[Mapping[str, Any], float]],
        *,
        started: float,
        finished: float | None,
        result: Mapping[str, Any] | None,
        uid: str,
        origin: str = "",
    ) -> int:
        """Store a whole match played elsewhere, with its own times, in one transaction.

        ``events`` are (event, time) pairs in order; ``finished``/``result`` are None for
        a match still being played. The caller has replayed the events through the
        engine: the store only keeps them. A uid stored already raises
        :class:`DuplicateMatch` and nothing is written.
        """
        players_json, options_json = _match_json(game_id, players, options)
        uid = checked_uid(uid)
        rows = [(_dump(dict(event), "the event"), float(at)) for event, at in events]
        result_json = None if result is None else _dump(dict(result), "the result")
        with self._transaction() as conn:
            self._refuse_duplicate(conn, uid)
            cursor = conn.execute(
                "INSERT INTO matches (game_id, players, options, started, finished, result,"
                " uid, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, players_json, options_json, float(started), finished, result_json,
                 uid, str(origin)),
            )
            match_id = cursor.lastrowid
            assert match_id is not None
            conn.executemany(
                "INSERT INTO events (match_id, seq, event, at) VALUES (?, ?, ?, ?)",
                [(match_id, seq, text, at) for seq, (text, at) in enumerate(rows, 1)],
            )
            self._mark_used(conn, list(players), float(started))
        return match_id

    def find_uid(self, uid: str) -> int | None:
        """The local id of the match with this uid, or None."""
        with self._reading() as conn:
            row = conn.execute("SELECT id FROM matches WHERE uid = ?", (str(uid),)).fetchone()
        return None if row is None else int(row["id"])

    def event_times(self, match_id: int) -> list[float]:
        """When each event of the match was stored, in order (what an export carries)."""
        with self._reading() as conn:
            self._match_row(conn, match_id)
            rows = conn.execute(
                "SELECT at FROM events WHERE match_id = ? ORDER BY seq", (match_id,)
            ).fetchall()
        return [float(row["at"]) for row in rows]

    def device_id(self) -> str:
        """This device's own random id, made once and kept in the file."""
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()
        if row is not None:
            return str(row["value"])
        made = _new_uid()
        with self._transaction() as conn:
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('device_id', ?)",
                         (made,))
            (value,) = conn.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()
        return str(value)

    # -- the club outbox (companion.club): what the broker has acknowledged ------------

    def published(self, match_id: int) -> int:
        """How many of the match's first events the club broker has acknowledged."""
        with self._reading() as conn:
            self._match_row(conn, match_id)
            (count,) = conn.execute(
                "SELECT published FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
        return int(count)

    def mark_published(
        self, match_id: int, old: int, new: int, sent: Sequence[tuple[Mapping[str, Any], float]]
    ) -> bool:
        """Move the outbox mark from ``old`` to ``new`` if nothing changed meanwhile.

        ``sent`` are the (event, time) pairs ``old + 1 .. new`` as they were published.
        The mark moves only if it still is ``old`` (an undo lowers it) and those events
        are still the match's events ``old + 1 .. new`` (an undo and a new event could
        have replaced one); returns whether it moved. One transaction, so the publisher
        thread's own connection never races the app's appends and undos.
        """
        if new - old != len(sent):
            raise StoreError("the published events do not match the mark")
        with self._transaction() as conn:
            self._match_row(conn, match_id)
            (mark,) = conn.execute(
                "SELECT published FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
            rows = conn.execute(
                "SELECT event, at FROM events WHERE match_id = ? AND seq > ? AND seq <= ?"
                " ORDER BY seq", (match_id, old, new),
            ).fetchall()
            stored = [(_load_event(row["event"], match_id, 0), row["at"]) for row in rows]
            if mark != old or stored != [(dict(e), float(t)) for e, t in sent]:
                return False
            conn.execute("UPDATE matches SET published = ? WHERE id = ?", (new, match_id))
        return True

    def events_since(self, match_id: int, after: int) -> list[tuple[int, dict[str, Any], float]]:
        """The match's events after seq ``after``, as (seq, event, time), in order."""
        with self._reading() as conn:
            self._match_row(conn, match_id)
            rows = conn.execute(
                "SELECT seq, event, at FROM events WHERE match_id = ? AND seq > ? ORDER BY seq",
                (match_id, int(after)),
            ).fetchall()
        return [(int(r["seq"]), _load_event(r["event"], match_id, r["seq"]), float(r["at"]))
                for r in rows]

    def unpublished(self) -> list[int]:
        """Ids of this device's own matches the club has not fully seen, oldest first.

        A match is fully seen when the broker acknowledged all its events and its state
        as it is now (:attr:`MatchRecord.state`, written out again in SQL here): the
        meta value :data:`PUBLISHED_STATE` + uid, written by the publisher.
        """
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT m.id FROM matches m LEFT JOIN meta s"
                " ON s.key = ? || m.uid WHERE m.origin = '' AND ("
                " m.published < (SELECT COUNT(*) FROM events e WHERE e.match_id = m.id)"
                " OR s.value IS NULL OR s.value != CASE WHEN m.abandoned THEN 'abandoned'"
                " WHEN m.finished IS NOT NULL THEN 'finished' ELSE 'playing' END)"
                " ORDER BY m.id", (PUBLISHED_STATE,)
            ).fetchall()
        return [int(row["id"]) for row in rows]

    def meta(self, key: str) -> str | None:
        """A value kept in the file's ``meta`` table (None when unset)."""
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (str(key),)).fetchone()
        return None if row is None else str(row["value"])

    def set_meta(self, key: str, value: str | None) -> None:
        """Keep ``value`` under ``key`` in the ``meta`` table (None removes it)."""
        with self._transaction() as conn:
            if value is None:
                conn.execute("DELETE FROM meta WHERE key = ?", (str(key),))
            else:
                conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             (str(key), str(value)))

    def append(self, match_id: int, event: Mapping[str, Any], *, at: float | None = None) -> int:
        """Add ``event`` to the match's log and return its seq (1, 2, ...).

        Committed and synced when this returns. On StoreError nothing was written: the
        caller must refuse the event so the screen never shows what the file lacks.
        Append the last event *before* :meth:`finish`; a finished match takes no more.
        ``at`` keeps the time it was played elsewhere (a club dashboard); default now.
        """
        if not isinstance(event, Mapping):
            raise StoreError("an event is a JSON object")
        text = _dump(dict(event), "the event")
        now = self._now() if at is None else float(at)
        with self._transaction() as conn:
            self._open_match(conn, match_id)
            (seq,) = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE match_id = ?", (match_id,)
            ).fetchone()
            conn.execute(
                "INSERT INTO events (match_id, seq, event, at) VALUES (?, ?, ?, ?)",
                (match_id, seq, text, now),
            )
        return int(seq)

    def pop(self, match_id: int) -> dict[str, Any]:
        """Undo: remove the match's last event and return it.

        Undoing the event that ended a match reopens it (``finished`` and ``result`` are
        cleared), so it is offered for resume again. StoreError "nothing to undo" when
        the log is empty.
        """
        with self._transaction() as conn:
            row = self._match_row(conn, match_id)
            if row["abandoned"]:
                raise StoreError(f"match {match_id} was abandoned")
            last = conn.execute(
                "SELECT seq, event FROM events WHERE match_id = ? ORDER BY seq DESC LIMIT 1",
                (match_id,),
            ).fetchone()
            if last is None:
                raise StoreError("nothing to undo")
            event = _load_event(last["event"], match_id, last["seq"])
            conn.execute(
                "DELETE FROM events WHERE match_id = ? AND seq = ?", (match_id, last["seq"])
            )
            # The club outbox mark never counts an event that is gone: a later event at
            # this seq is new and must be published again (see companion.club).
            conn.execute(
                "UPDATE matches SET published = MIN(published, ?) WHERE id = ?",
                (last["seq"] - 1, match_id),
            )
            if row["finished"] is not None:
                conn.execute(
                    "UPDATE matches SET finished = NULL, result = NULL WHERE id = ?", (match_id,)
                )
        return event

    def events(self, match_id: int) -> list[dict[str, Any]]:
        """The match's events in order (what :meth:`Match.replay` takes)."""
        with self._reading() as conn:
            self._match_row(conn, match_id)
            rows = conn.execute(
                "SELECT seq, event FROM events WHERE match_id = ? ORDER BY seq", (match_id,)
            ).fetchall()
        return [_load_event(row["event"], match_id, row["seq"]) for row in rows]

    def match(self, match_id: int) -> MatchRecord:
        """The match with this id; StoreError when there is none."""
        with self._reading() as conn:
            row = self._match_row(conn, match_id, with_count=True)
        return _record(row)

    def unfinished(self) -> MatchRecord | None:
        """The newest match neither finished nor abandoned (offered for resume), or None.

        Newest means the highest id, not the latest clock time: a Pi without a real-time
        clock can boot with its clock far off.
        """
        with self._reading() as conn:
            row = conn.execute(
                _SELECT_MATCH + " WHERE finished IS NULL AND abandoned = 0 ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return None if row is None else _record(row)

    def finish(
        self, match_id: int, result: Mapping[str, Any], *, at: float | None = None
    ) -> None:
        """Mark the match finished with its result JSON (``totals``, ``winners``, ...).

        Finishing again replaces the result (e.g. after a power cut between the last
        append and the first finish, the app replays and finishes once more). ``at``
        keeps the time it finished elsewhere (a club dashboard); default now.
        """
        if not isinstance(result, Mapping):
            raise StoreError("a result is a JSON object")
        text = _dump(dict(result), "the result")
        now = self._now() if at is None else float(at)
        with self._transaction() as conn:
            row = self._match_row(conn, match_id)
            if row["abandoned"]:
                raise StoreError(f"match {match_id} was abandoned")
            conn.execute(
                "UPDATE matches SET finished = ?, result = ? WHERE id = ?", (now, text, match_id)
            )

    def abandon(self, match_id: int) -> None:
        """Give the match up: it is kept but never offered for resume or counted."""
        with self._transaction() as conn:
            row = self._match_row(conn, match_id)
            if row["finished"] is not None:
                raise StoreError(f"match {match_id} is already finished")
            conn.execute("UPDATE matches SET abandoned = 1 WHERE id = ?", (match_id,))

    def resolve(self, ref: str | int) -> int:
        """A match id from ``"current"`` (in progress), ``"last"`` (newest finished) or a number."""
        text = str(ref).strip().lower()
        if text == "current":
            current = self.unfinished()
            if current is None:
                raise StoreError("no match in progress")
            return current.id
        if text == "last":
            with self._reading() as conn:
                row = conn.execute(
                    "SELECT id FROM matches WHERE finished IS NOT NULL AND abandoned = 0"
                    " ORDER BY finished DESC, id DESC LIMIT 1"
                ).fetchone()
            if row is None:
                raise StoreError("no finished match yet")
            return int(row["id"])
        if text.isascii() and text.isdigit():
            # Past SQLite's largest id (or Python's longest int) there is no such match;
            # say so here rather than let the driver overflow.
            if len(text) > 19 or int(text) > _MAX_ID:
                raise StoreError(f"no match {text[:20]}{'...' if len(text) > 20 else ''}")
            match_id = int(text)
            with self._reading() as conn:
                self._match_row(conn, match_id)
            return match_id
        raise StoreError(f"a match is 'current', 'last' or a number, not {str(ref)!r}")

    # -- roster, history, stats ----------------------------------------------------------

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
            existing = _find_player(conn, clean)
            if existing is not None:
                raise StoreError(f"{existing} is already on the roster")
            _roster_lookalike(conn, clean)
            count = conn.execute("SELECT COUNT(*) FROM players").fetchone()[0]
            if count >= ROSTER_MAX:
                raise RosterFull(f"the roster is full ({ROSTER_MAX} names); "
                                 "remove one to add another")
            conn.execute(
                "INSERT INTO players (name, added, last_used) VALUES (?, ?, NULL)", (clean, now)
            )
        return clean

    def remove_player(self, name: str) -> None:
        """Take a name off the roster (any case); past matches keep it."""
        clean = name.strip() if isinstance(name, str) else ""
        if not clean:
            raise StoreError("a player needs a name")
        with self._transaction() as conn:
            existing = _find_player(conn, clean)
            if existing is None:
                raise StoreError(f"{clean} is not on the roster")
            conn.execute("DELETE FROM players WHERE name = ?", (existing,))

    def rename_player(self, old: str, new: str) -> str:
        """Rename a roster name (any case); past matches keep the name they were
        played under. The new name is checked as :meth:`add_player` checks one.
        Returns the new name as stored."""
        clean_old = old.strip() if isinstance(old, str) else ""
        if not clean_old:
            raise StoreError("a player needs a name")
        clean = _roster_name(new)
        with self._transaction() as conn:
            existing = _find_player(conn, clean_old)
            if existing is None:
                raise StoreError(f"{clean_old} is not on the roster")
            taken = _find_player(conn, clean)
            if taken is not None and taken != existing:
                raise StoreError(f"{taken} is already on the roster")
            _roster_lookalike(conn, clean, keep=existing)
            conn.execute("UPDATE players SET name = ? WHERE name = ?", (clean, existing))
        return clean

    def history(self, limit: int = 20) -> list[MatchRecord]:
        """Finished matches, newest first."""
        with self._reading() as conn:
            rows = conn.execute(
                _SELECT_MATCH + " WHERE finished IS NOT NULL AND abandoned = 0"
                " ORDER BY finished DESC, id DESC LIMIT ?",
                (max(0, int(limit)),),
            ).fetchall()
        return [_record(row) for row in rows]

    def past(self, limit: int = 200) -> list[MatchRecord]:
        """Finished and abandoned matches, newest first (the web page's history)."""
        with self._reading() as conn:
            rows = conn.execute(
                _SELECT_MATCH + " WHERE finished IS NOT NULL OR abandoned = 1"
                " ORDER BY COALESCE(finished, started) DESC, id DESC LIMIT ?",
                (max(0, int(limit)),),
            ).fetchall()
        return [_record(row) for row in rows]

    def summaries(
        self,
        *,
        finished: bool = True,
        game: str | None = None,
        since: float | None = None,
        after: tuple[float, int] | None = None,
    ) -> list[MatchSummary]:
        """Finished matches (``finished=False``: unfinished ones) that are not abandoned,
        in the order they finished (then by id), as :class:`MatchSummary`.

        ``game`` keeps one game's; ``since`` those finished at or after that time;
        ``after`` those after a (finished, id) already seen (for figures kept up to date
        one finished match at a time).
        """
        where = ["abandoned = 0", "finished IS NOT NULL" if finished else "finished IS NULL"]
        params: list[Any] = []
        if game is not None:
            where.append("game_id = ?")
            params.append(game)
        if since is not None and finished:
            where.append("finished >= ?")
            params.append(float(since))
        if after is not None and finished:
            where.append("(finished > ? OR (finished = ? AND id > ?))")
            params += [float(after[0]), float(after[0]), int(after[1])]
        sql = f"{_SELECT_SUMMARY} WHERE {' AND '.join(where)} ORDER BY finished, id"
        with self._reading() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [_summary(row) for row in rows]

    def finished_mark(self, since: float | None = None) -> tuple[int, int]:
        """(how many, sum of ids) of the finished, not abandoned matches (finished at or
        after ``since``): a finish, an undone finish or an import changes it, so figures
        kept from :meth:`summaries` can tell whether they still hold."""
        sql = ("SELECT COUNT(*), COALESCE(SUM(id), 0) FROM matches"
               " WHERE abandoned = 0 AND finished IS NOT NULL")
        params: list[Any] = []
        if since is not None:
            sql += " AND finished >= ?"
            params.append(float(since))
        with self._reading() as conn:
            count, total = conn.execute(sql, params).fetchone()
        return int(count), int(total)

    # -- internals -------------------------------------------------------------------

    def _now(self) -> float:
        return float(self._clock())

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("the game log is closed")
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed (and, with synchronous=FULL, synced) on exit.

        BEGIN IMMEDIATE takes the write lock up front, so the reads inside (next seq,
        match state) cannot go stale. Any error rolls everything back.
        """
        conn = self._live()
        if self.readonly:
            raise StoreError(f"{_WRITE}: it was opened read-only")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise _translate(err, _WRITE) from err
        try:
            yield conn
            conn.execute("COMMIT")
        except sqlite3.Error as err:
            self._rollback()
            raise _translate(err, _WRITE) from err
        except BaseException:
            self._rollback()
            raise

    @contextmanager
    def one_moment(self) -> Iterator[None]:
        """Reads inside see the file as it was at one moment (one SQLite read
        transaction), however another connection writes meanwhile; no writes inside.

        For a reader on its own connection, such as the club publisher, which must never
        pair a log read before an undo with a state read after it.
        """
        conn = self._live()
        try:
            conn.execute("BEGIN")
        except sqlite3.Error as err:
            raise _translate(err, _READ) from err
        try:
            yield
        finally:
            if conn.in_transaction:
                try:
                    conn.execute("COMMIT")
                except sqlite3.Error:
                    conn.execute("ROLLBACK")

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        conn = self._live()
        try:
            yield conn
        except sqlite3.Error as err:
            raise _translate(err, _READ) from err

    def _rollback(self) -> None:
        conn = self._conn
        if conn is not None and conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                # SQLite already rolled back (e.g. after SQLITE_FULL); nothing is pending.
                pass

    def _match_row(
        self, conn: sqlite3.Connection, match_id: int, *, with_count: bool = False
    ) -> sqlite3.Row:
        if isinstance(match_id, bool) or not isinstance(match_id, int):
            raise StoreError(f"a match id is a number, not {match_id!r}")
        if with_count:
            row = conn.execute(_SELECT_MATCH + " WHERE id = ?", (match_id,)).fetchone()
        else:
            row = conn.execute(
                "SELECT id, finished, abandoned FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
        if row is None:
            raise StoreError(f"no match {match_id}")
        return row

    def _refuse_duplicate(self, conn: sqlite3.Connection, uid: str) -> None:
        row = conn.execute("SELECT id FROM matches WHERE uid = ?", (uid,)).fetchone()
        if row is not None:
            raise DuplicateMatch(uid, int(row["id"]))

    def _open_match(self, conn: sqlite3.Connection, match_id: int) -> None:
        row = self._match_row(conn, match_id)
        if row["abandoned"]:
            raise StoreError(f"match {match_id} was abandoned")
        if row["finished"] is not None:
            raise StoreError(f"match {match_id} is finished")

    def _mark_used(self, conn: sqlite3.Connection, names: list[str], now: float) -> None:
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

    def _open(self) -> sqlite3.Connection:
        where = "in memory" if self._memory else str(self.path)
        doing = f"cannot open the game log {where}"
        created = False
        if not self._memory:
            if self.path.is_dir():
                raise StoreError(f"{doing}: it is a directory")
            if not self.path.parent.is_dir():
                raise StoreError(f"{doing}: no directory {self.path.parent}")
            if self.readonly and not self.path.is_file():
                raise StoreError(f"no game log at {self.path}")
            created = not self.path.exists()
        try:
            conn = self._connect(doing)
        except sqlite3.Error as err:
            no_wal = not Path(f"{self.path}-wal").exists()
            if not (self.readonly and no_wal and _code(err) in _CANNOT_SHARE):
                raise _translate(err, doing) from err
            # A reader of a WAL file needs its -shm; in a directory we may not write
            # (e.g. /var/lib/companion while the service is stopped) it cannot make one.
            # With no -wal there is no writer and everything is in the main file, so
            # read it as immutable instead.
            try:
                conn = self._connect(doing, immutable=True)
            except sqlite3.Error as again:
                raise _translate(again, doing) from again
        if created:
            # SQLite syncs the directory for its WAL, not for a new main file: do it so
            # the file itself survives a power cut right after its first event.
            try:
                _fsync_dir(self.path.parent)
            except OSError:
                pass
        return conn

    def _connect(self, doing: str, *, immutable: bool = False) -> sqlite3.Connection:
        """A connection that passed :meth:`_prepare`, or the error (closed again)."""
        if self.readonly:
            # mode=ro: never writes and never creates a file where none exists.
            target = self.path.resolve().as_uri() + "?mode=ro"
            if immutable:
                target += "&immutable=1"
        else:
            target = _MEMORY if self._memory else str(self.path)
        # isolation_level=None: no implicit transactions; we BEGIN/COMMIT ourselves.
        # check_same_thread=False: the app may open the store before handing it to its
        # state thread; it is still used by one thread at a time.
        conn = sqlite3.connect(
            target,
            uri=self.readonly,
            isolation_level=None,
            timeout=BUSY_TIMEOUT_S,
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        try:
            self._prepare(conn, doing)
        except BaseException:
            conn.close()
            raise
        return conn

    def _prepare(self, conn: sqlite3.Connection, doing: str) -> None:
        # The first read: a file that is not a database fails here (SQLITE_NOTADB).
        version = _pragma(conn, "user_version")
        # Checked before anything writes (even the journal mode), so a newer program's
        # file is left byte for byte as it was.
        if version > SCHEMA_VERSION:
            raise StoreTooNew(
                f"the game log {self.path.name} is from a newer version of the companion "
                f"(schema {version}; this one knows up to {SCHEMA_VERSION}); it was left as it is"
            )
        if _pragma(conn, "application_id") != APPLICATION_ID:
            has_tables = conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
            if version or has_tables:
                raise StoreError(f"{doing}: it is not a Tabletop Companion game log")
        if version and not self._memory:
            self._check_intact(conn)
        if self.readonly:
            if version < SCHEMA_VERSION:
                raise StoreError(
                    f"{doing}: it needs upgrading; start the companion once"
                    if version
                    else f"{doing}: it is empty"
                )
            return
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != ("memory" if self._memory else "wal"):
            raise StoreError(f"{doing}: this file system cannot hold a write-ahead log")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        if version == SCHEMA_VERSION:
            # Prove the file is writable now rather than at a game's first event: SQLite
            # quietly opens a read-only file read-only. (Migrations below write anyway.)
            _commit(conn, [f"PRAGMA user_version = {version}"])
        for step in range(version, SCHEMA_VERSION):
            # A step and its version number commit together, so a power cut mid-way
            # leaves the file at the old version, ready to migrate again.
            _commit(conn, [*MIGRATIONS[step], f"PRAGMA user_version = {step + 1}"])

    def _check_intact(self, conn: sqlite3.Connection) -> None:
        # A SQLite file is whole pages; a ragged size means it was cut short (which
        # quick_check alone can miss when the cut falls in a page's free space). Not
        # checked read-only: the owner may be checkpointing into the file right now.
        # Nor while a -wal holds pages: SQLite will write them back at the next checkpoint.
        page_size = _pragma(conn, "page_size")
        size = self.path.stat().st_size
        wal = Path(f"{self.path}-wal")
        pending = wal.exists() and wal.stat().st_size > 0
        if not self.readonly and not pending and page_size and size % page_size:
            raise StoreCorrupt(f"the game log {self.path.name} is damaged (cut short)")
        problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchmany(3)]
        if problems != ["ok"]:
            raise StoreCorrupt(f"the game log {self.path.name} is damaged ({problems[0]})")


_SELECT_MATCH = (
    "SELECT id, game_id, players, options, started, finished, result, abandoned, uid, origin,"
    " (SELECT COUNT(*) FROM events WHERE events.match_id = matches.id) AS event_count"
    " FROM matches"
)


#: One result key is read as JSON text only when it has the type the figures want.
def _result_part(key: str, json_type: str) -> str:
    return (f"CASE WHEN json_valid(result) THEN CASE json_type(result, '$.{key}')"
            f" WHEN '{json_type}' THEN json_extract(result, '$.{key}') END END")


_SELECT_SUMMARY = (
    "SELECT id, uid, game_id, players, started, finished,"
    f" {_result_part('totals', 'object')} AS totals,"
    f" {_result_part('winners', 'array')} AS winners,"
    " CASE WHEN json_valid(result) THEN json_type(result, '$.low_wins') END AS low_wins,"
    # Hands (Final Count), rounds (Block Lottery, the scoreboard) or games (the others).
    " CASE WHEN json_valid(result) THEN COALESCE(json_array_length(result, '$.hands'),"
    " json_array_length(result, '$.rounds'), json_array_length(result, '$.games')) END"
    " AS rounds,"
    " (SELECT at FROM events WHERE match_id = matches.id ORDER BY seq LIMIT 1)"
    " AS first_event,"
    " (SELECT at FROM events WHERE match_id = matches.id ORDER BY seq DESC LIMIT 1)"
    " AS last_event"
    " FROM matches"
)


def _summary(row: sqlite3.Row) -> MatchSummary:
    (match_id, uid, game_id, players, started, finished, totals, winners, flag, rounds,
     first_event, last_event) = row
    try:  # read for every match by the figures: no per-row message unless one fails
        players, totals, winners = (json.loads(players), json.loads(totals or "{}"),
                                    json.loads(winners or "[]"))
    except (TypeError, ValueError) as err:
        raise StoreCorrupt(f"{_READ}: match {match_id} is damaged") from err
    return MatchSummary(
        match_id, uid or "", game_id, tuple(name for name in players if isinstance(name, str)),
        float(started), finished,
        {name: value for name, value in totals.items()
         if isinstance(value, int | float) and not isinstance(value, bool)},
        tuple(name for name in winners if isinstance(name, str)),
        None if flag not in ("true", "false") else flag == "true",
        rounds, first_event, last_event,
    )


def _record(row: sqlite3.Row) -> MatchRecord:
    players = _load(row["players"], f"the players of match {row['id']}")
    options = _load(row["options"], f"the options of match {row['id']}")
    result = _load(row["result"], f"the result of match {row['id']}") if row["result"] else None
    return MatchRecord(
        id=int(row["id"]),
        game_id=row["game_id"],
        players=tuple(players),
        options=options,
        started=row["started"],
        finished=row["finished"],
        result=result,
        abandoned=bool(row["abandoned"]),
        event_count=int(row["event_count"]),
        uid=row["uid"] or "",
        origin=row["origin"] or "",
    )


def _match_json(
    game_id: str, players: Sequence[str], options: Mapping[str, Any] | None
) -> tuple[str, str]:
    """The players and options of a new match as stored text, checked."""
    if not isinstance(game_id, str) or not game_id:
        raise StoreError("a match needs a game id")
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise StoreError("players are a list of names")
    names = list(players)
    if not names or not all(isinstance(name, str) and name.strip() for name in names):
        raise StoreError("players are a list of names")
    try:
        check_players(names)  # the one name rule (companion.names), from every way in
    except BadName as refused:
        raise StoreError(f"the players: {refused}") from None
    return _dump(names, "the players"), _dump(dict(options or {}), "the options")


def _new_uid() -> str:
    return os.urandom(16).hex()


def checked_uid(uid: str) -> str:
    """``uid`` if it can name a match (also in an import), else StoreError."""
    if not isinstance(uid, str) or not 1 <= len(uid) <= 64 or not uid.isprintable():
        raise StoreError(f"a match uid is 1 to 64 printable characters, not {uid!r}")
    return uid


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
    """The roster's spelling of ``name``, compared case-insensitively.

    Python's casefold, not SQLite's NOCASE (which folds ASCII only), so "Åsa" and "åsa"
    are one player too.
    """
    wanted = name.casefold()
    for (stored,) in conn.execute("SELECT name FROM players"):
        if stored.casefold() == wanted:
            return stored
    return None


def _dump(value: Any, what: str) -> str:
    # ASCII-escaped so any str (even a lone surrogate) can be stored; loads() restores it.
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise StoreError(f"{what} cannot be saved as JSON: {err}") from err


def _load(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError) as err:
        raise StoreCorrupt(f"{_READ}: {what} is damaged") from err


def _load_event(text: str, match_id: int, seq: int) -> dict[str, Any]:
    event = _load(text, f"event {seq} of match {match_id}")
    if not isinstance(event, dict):
        raise StoreCorrupt(f"{_READ}: event {seq} of match {match_id} is damaged")
    return event


def _commit(conn: sqlite3.Connection, statements: Sequence[str]) -> None:
    """Run ``statements`` as one transaction (used while opening, before _transaction)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in statements:
            conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _pragma(conn: sqlite3.Connection, name: str) -> int:
    return int(conn.execute(f"PRAGMA {name}").fetchone()[0])


def _fsync_dir(directory: Path) -> None:
    """Make a rename or a new file in ``directory`` survive a power cut."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: Errors of a read-only connection that cannot open or create the -shm file.
_CANNOT_SHARE = (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN)


def _code(err: sqlite3.Error) -> int | None:
    """The primary SQLite result code of ``err`` (None for a hand-made exception)."""
    code = getattr(err, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _translate(err: sqlite3.Error, doing: str) -> StoreError:
    """A sqlite3 error as one line a person can act on ("...: disk full")."""
    primary = _code(err)
    text = str(err).lower()
    corrupt = False
    if primary == sqlite3.SQLITE_FULL or "disk is full" in text:
        reason = "disk full"
    elif primary == sqlite3.SQLITE_READONLY or "readonly" in text:
        reason = "it is read-only"
    elif (
        primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
        or "malformed" in text
        or "not a database" in text
    ):
        reason, corrupt = "the file is damaged", True
    elif primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text:
        reason = "another program is holding it locked"
    elif primary == sqlite3.SQLITE_CANTOPEN or "unable to open" in text:
        reason = "the file cannot be opened (check the directory and its permissions)"
    elif primary in (sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH):
        reason = "permission denied"
    elif primary == sqlite3.SQLITE_IOERR or "i/o error" in text:
        reason = "the storage failed to read or write (disk I/O error)"
    else:
        reason = str(err)
    return (StoreCorrupt if corrupt else StoreError)(f"{doing}: {reason}")
