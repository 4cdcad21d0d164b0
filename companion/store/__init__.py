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

One concern a file; :class:`Store` joins them into the one API the rest of the code uses:

- :mod:`~companion.store.file`: opening (checks, migrations, WAL), closing, setting a
  damaged file aside, transactions; :mod:`~companion.store.schema` the tables and
  migrations; what can go wrong is the store's part of :mod:`companion.errors`;
- :mod:`~companion.store.log`: matches and their events (new, append, undo, finish,
  import); :mod:`~companion.store.played` a match as played (the events undo took back,
  kept marked undone) and its secret; :mod:`~companion.store.history` the past, for
  people and for the figures;
- :mod:`~companion.store.roster`: the names players are picked from;
- :mod:`~companion.store.outbox`: the club publisher's marks;
  :mod:`~companion.store.meta`: this device's id and other kept values;
  :mod:`~companion.store.clocks`: the turn timer's record of the match being played;
- :mod:`~companion.store.backup`: a backup file of the log, checking one, putting it back.

Durability: WAL journal with ``synchronous=FULL`` (each commit fsyncs the WAL), one
transaction per call (inside :meth:`Store.batch`, one savepoint per call and one commit
for the batch: the club dashboard stores a burst of messages so). Failures never
half-apply: every write runs in one transaction that is rolled back on any error, and
every error comes out as a
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

from companion.errors import (
    BackupError,
    BackupTooNew,
    DuplicateMatch,
    LogInUse,
    RosterFull,
    StoreCorrupt,
    StoreTooNew,
)
from companion.names import NAME_MAX
from companion.store.backup import BACKUP_SUFFIX, Snapshots
from companion.store.clocks import Clocks
from companion.store.file import BUSY_TIMEOUT_S
from companion.store.history import History
from companion.store.log import MatchLog
from companion.store.meta import Meta
from companion.store.outbox import PUBLISHED_STATE, Outbox
from companion.store.played import Move, TakenBack
from companion.store.records import UID_DEVICE_DIGITS, MatchRecord, MatchSummary, checked_uid
from companion.store.roster import ROSTER_MAX, Roster, joining
from companion.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

__all__ = [
    "APPLICATION_ID",
    "BACKUP_SUFFIX",
    "BUSY_TIMEOUT_S",
    "MIGRATIONS",
    "NAME_MAX",
    "PUBLISHED_STATE",
    "SCHEMA_VERSION",
    "UID_DEVICE_DIGITS",
    "MatchRecord",
    "MatchSummary",
    "Move",
    "TakenBack",
    "Store",
    "StoreCorrupt",
    "StoreTooNew",
    "BackupError",
    "BackupTooNew",
    "LogInUse",
    "DuplicateMatch",
    "ROSTER_MAX",
    "RosterFull",
    "joining",
    "checked_uid",
]


class Store(MatchLog, History, Roster, Outbox, Meta, Snapshots, Clocks):
    """The SQLite game log (see the module docstring): one file, one connection, every
    part of what is kept in it.

    ``path`` may be ``":memory:"`` for tests of other modules. ``readonly=True`` opens an
    existing file without ever writing to it (``mode=ro``), for ``companion export``.
    """
