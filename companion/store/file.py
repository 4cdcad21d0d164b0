"""The game log's file: opening (checks, migrations, WAL), closing, setting a damaged
file aside, and the one-transaction-per-call discipline every other part writes under.

Durability: WAL journal with ``synchronous=FULL`` (each commit fsyncs the WAL), one
transaction per call (a savepoint of one batch inside :meth:`StoreFile.batch`), rolled
back on any error, and every error comes out as a
:class:`~companion.errors.StoreError` with a line a person can read.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self
from urllib.parse import quote

from companion.errors import StoreCorrupt, StoreError, StoreTooNew
from companion.lang import pgettext
from companion.store import schema
from companion.store.restoring import recover
from companion.store.sql import (
    CANNOT_SHARE,
    READ,
    WRITE,
    code,
    commit,
    fsync_dir,
    pragma,
    said,
    translate,
)

__all__ = ["BUSY_TIMEOUT_S", "Clock", "StoreFile"]

Clock = Callable[[], float]

#: How long a write waits for a reader in another process that holds a lock briefly
#: (WAL readers rarely block the writer; this only covers WAL recovery/checkpoints).
BUSY_TIMEOUT_S = 3.0

MEMORY = ":memory:"


class StoreFile:
    """One open game log file (see :class:`companion.store.Store`, which adds what is
    kept in it).

    ``path`` may be ``":memory:"`` for tests of other modules. ``readonly=True`` opens an
    existing file without ever writing to it (``mode=ro``), for ``companion export``.
    ``vfs`` names a SQLite VFS registered in this process's SQLite library to open the
    file through (tests that simulate a power cut); None is the operating system's.
    """

    DEFAULT_NAME = "companion.db"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Clock = time.time,
        readonly: bool = False,
        vfs: str | None = None,
    ):
        self.path = Path(path)
        self.readonly = readonly
        self.vfs = vfs
        self._clock = clock
        self._batched = False  # inside batch(): each transaction a savepoint
        self._memory = str(path) == MEMORY
        self._conn: sqlite3.Connection | None = None
        if self._memory and readonly:
            raise StoreError(pgettext("screen 21x8",
                                      "an in-memory game log cannot be opened read-only"))
        if self._memory and vfs is not None:
            raise StoreError(pgettext("screen 21x8",
                                      "an in-memory game log has no file system to choose"))
        self._conn = self._open()

    # -- opening, closing, setting aside ---------------------------------------------

    @classmethod
    def in_dir(cls, state_dir: str | os.PathLike[str], **kw: Any) -> Self:
        """Open (or create) ``state_dir/companion.db``, creating the directory if needed."""
        directory = Path(state_dir)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(
                pgettext("screen 21x8", "cannot create the state directory {folder}: {reason}")
                .format(folder=directory, reason=err.strerror or err)
            ) from err
        return cls(directory / cls.DEFAULT_NAME, **kw)

    @classmethod
    def open_or_set_aside(
        cls, state_dir: str | os.PathLike[str], **kw: Any
    ) -> tuple[Self, str | None]:
        """A working store in ``state_dir``, and a message for the screen or None.

        A damaged file is renamed (see :meth:`set_aside`) and a new empty log started;
        the message says where the old one went. A file from a newer version raises
        :class:`StoreTooNew` and is not moved; any other error (read-only, disk full)
        raises too, because starting afresh would not fix it. A restore that was cut off
        is finished or undone first (:func:`~companion.store.restoring.recover`), and the
        message says which.
        """
        restored = recover(state_dir)
        try:
            return cls.in_dir(state_dir, **kw), restored
        except StoreTooNew:
            raise
        except StoreCorrupt:
            clock = kw.get("clock", time.time)
            moved = cls.set_aside(Path(state_dir) / cls.DEFAULT_NAME, clock=clock)
        message = pgettext("screen 21x8", "Game log damaged: kept as {file}, starting a new "
                                          "one").format(file=moved.name)
        return cls.in_dir(state_dir, **kw), "; ".join(filter(None, (restored, message)))

    @classmethod
    def set_aside(
        cls, path: str | os.PathLike[str], *, clock: Clock = time.time, label: str = "bad"
    ) -> Path:
        """Rename a log to ``<name>.<label>-<UTC time>`` with its -wal/-shm; return it.

        ``label`` says why: ``bad`` (damaged, the default) or ``before-restore``.
        Nothing is deleted: the old file can still be rescued by hand. The sidecars go
        first, because a stale ``companion.db-wal`` next to a fresh ``companion.db``
        could be replayed into it. Close any Store on the file before calling this.
        """
        src = Path(path)
        sides = [Path(str(src) + suffix) for suffix in ("-wal", "-shm")]
        if not src.exists() and not any(side.exists() for side in sides):
            raise StoreError(pgettext("screen 21x8", "no game log at {file}").format(file=src))
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
        dest = src.with_name(f"{src.name}.{label}-{stamp}")
        attempt = 1
        # os.rename silently replaces an existing target: never let it eat an older one.
        while any(Path(str(dest) + s).exists() for s in ("", "-wal", "-shm")):
            dest = src.with_name(f"{src.name}.{label}-{stamp}-{attempt}")
            attempt += 1
        try:
            for side, suffix in zip(sides, ("-wal", "-shm"), strict=True):
                if side.exists():
                    os.rename(side, str(dest) + suffix)
            if src.exists():
                os.rename(src, dest)
            fsync_dir(src.parent)
        except OSError as err:
            reason = err.strerror or err
            said = (pgettext("screen 21x8", "cannot set the damaged game log aside: {reason}")
                    if label == "bad" else
                    pgettext("screen 21x8", "cannot set the game log aside: {reason}"))
            raise StoreError(said.format(reason=reason)) from err
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

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions ------------------------------------------------------------------

    def _now(self) -> float:
        return float(self._clock())

    def now(self) -> float:
        """The wall clock the log stamps its events and records with (Unix time)."""
        return self._now()

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(pgettext("screen 21x8", "the game log is closed"))
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed (and, with synchronous=FULL, synced) on exit.

        BEGIN IMMEDIATE takes the write lock up front, so the reads inside (next seq,
        match state) cannot go stale. Any error rolls everything back.
        """
        conn = self._live()
        if self.readonly:
            raise StoreError(said(WRITE, pgettext("screen 21x8", "it was opened read-only")))
        begin, commit, undo = ("SAVEPOINT one", "RELEASE one", self._undo_one) \
            if self._batched else ("BEGIN IMMEDIATE", "COMMIT", self._rollback)
        try:
            conn.execute(begin)
        except sqlite3.Error as err:
            raise translate(err, WRITE) from err
        try:
            yield conn
            conn.execute(commit)
        except sqlite3.Error as err:
            undo()
            raise translate(err, WRITE) from err
        except BaseException:
            undo()
            raise

    @contextmanager
    def batch(self) -> Iterator[None]:
        """The write transactions inside are committed together on exit, with one sync
        (and only then seen by other connections): each is still all or nothing (a
        savepoint), but none is durable before the batch ends. For a writer that tells
        nobody what it stored before the batch is over (the club dashboard sends its
        receipts after it): a burst of a hundred events costs one sync, not a hundred.
        A failed commit loses the whole batch (StoreError)."""
        conn = self._live()
        if self.readonly:
            raise StoreError(said(WRITE, pgettext("screen 21x8", "it was opened read-only")))
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise translate(err, WRITE) from err
        self._batched = True
        try:
            yield
            conn.execute("COMMIT")
        except sqlite3.Error as err:
            self._rollback()
            raise translate(err, WRITE) from err
        except BaseException:
            self._rollback()
            raise
        finally:
            self._batched = False

    def _undo_one(self) -> None:
        """Undo one transaction of a batch (its savepoint), keeping the others."""
        try:
            self._live().execute("ROLLBACK TO one")
            self._live().execute("RELEASE one")
        except sqlite3.Error:
            pass  # the batch itself is gone: its commit says so

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
            raise translate(err, READ) from err
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
            raise translate(err, READ) from err

    def _rollback(self) -> None:
        conn = self._conn
        if conn is not None and conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                # SQLite already rolled back (e.g. after SQLITE_FULL); nothing is pending.
                pass

    # -- opening -------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        doing = (pgettext("screen 21x8", "cannot open the game log in memory") if self._memory else
                 pgettext("screen 21x8", "cannot open the game log {file}").format(file=self.path))
        created = False
        if not self._memory:
            if self.path.is_dir():
                raise StoreError(said(doing, pgettext("screen 21x8", "it is a directory")))
            if not self.path.parent.is_dir():
                raise StoreError(said(doing, pgettext("screen 21x8", "no directory {folder}")
                                      .format(folder=self.path.parent)))
            if self.readonly and not self.path.is_file():
                raise StoreError(pgettext("screen 21x8", "no game log at {file}")
                                 .format(file=self.path))
            created = not self.path.exists()
        try:
            conn = self._connect(doing)
        except sqlite3.Error as err:
            no_wal = not Path(f"{self.path}-wal").exists()
            if not (self.readonly and no_wal and code(err) in CANNOT_SHARE):
                raise translate(err, doing) from err
            # A reader of a WAL file needs its -shm; in a directory we may not write
            # (e.g. /var/lib/companion while the service is stopped) it cannot make one.
            # With no -wal there is no writer and everything is in the main file, so
            # read it as immutable instead.
            try:
                conn = self._connect(doing, immutable=True)
            except sqlite3.Error as again:
                raise translate(again, doing) from again
        if created:
            # SQLite syncs the directory for its WAL, not for a new main file: do it so
            # the file itself survives a power cut right after its first event.
            try:
                fsync_dir(self.path.parent)
            except OSError:
                pass
        return conn

    def _connect(self, doing: str, *, immutable: bool = False) -> sqlite3.Connection:
        """A connection that passed :meth:`_prepare`, or the error (closed again)."""
        params = []
        if self.readonly:
            # mode=ro: never writes and never creates a file where none exists.
            params.append("mode=ro")
            if immutable:
                params.append("immutable=1")
        if self.vfs is not None:
            params.append(f"vfs={quote(self.vfs)}")
        if params:
            target = self.path.resolve().as_uri() + "?" + "&".join(params)
        else:
            target = MEMORY if self._memory else str(self.path)
        # isolation_level=None: no implicit transactions; we BEGIN/COMMIT ourselves.
        # check_same_thread=False: the app may open the store before handing it to its
        # state thread; it is still used by one thread at a time.
        conn = sqlite3.connect(
            target,
            uri=bool(params),
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
        version = pragma(conn, "user_version")
        # Checked before anything writes (even the journal mode), so a newer program's
        # file is left byte for byte as it was.
        if version > schema.SCHEMA_VERSION:
            raise StoreTooNew(pgettext(
                "screen 21x8", "the game log {file} is from a newer version of the companion "
                "(schema {value}; this one knows up to {total}); it was left as it is").format(
                    file=self.path.name, value=version, total=schema.SCHEMA_VERSION))
        if pragma(conn, "application_id") != schema.APPLICATION_ID:
            has_tables = conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
            if version or has_tables:
                raise StoreError(said(doing, pgettext(
                    "screen 21x8", "it is not a Tabletop Companion game log")))
        if version and not self._memory:
            self._check_intact(conn)
        if self.readonly:
            if version < schema.SCHEMA_VERSION:
                raise StoreError(said(doing, pgettext(
                    "screen 21x8", "it needs upgrading; start the companion once")
                    if version else pgettext("screen 21x8", "it is empty")))
            return
        if not version:
            # Before the first write (even the journal mode's), or it has no effect.
            conn.execute(f"PRAGMA page_size = {schema.PAGE_SIZE}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != ("memory" if self._memory else "wal"):
            raise StoreError(said(doing, pgettext(
                "screen 21x8", "this file system cannot hold a write-ahead log")))
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        if version == schema.SCHEMA_VERSION:
            # Prove the file is writable now rather than at a game's first event: SQLite
            # quietly opens a read-only file read-only. (Migrations below write anyway.)
            commit(conn, [f"PRAGMA user_version = {version}"])
        for step in range(version, schema.SCHEMA_VERSION):
            # A step and its version number commit together, so a power cut mid-way
            # leaves the file at the old version, ready to migrate again.
            commit(conn, [*schema.MIGRATIONS[step], f"PRAGMA user_version = {step + 1}"])

    def _check_intact(self, conn: sqlite3.Connection) -> None:
        # A SQLite file is whole pages; a ragged size means it was cut short (which
        # quick_check alone can miss when the cut falls in a page's free space). Not
        # checked read-only: the owner may be checkpointing into the file right now.
        # Nor while a -wal holds pages: SQLite will write them back at the next checkpoint.
        page_size = pragma(conn, "page_size")
        size = self.path.stat().st_size
        wal = Path(f"{self.path}-wal")
        pending = wal.exists() and wal.stat().st_size > 0
        if not self.readonly and not pending and page_size and size % page_size:
            raise StoreCorrupt(pgettext(
                "screen 21x8", "the game log {file} is damaged (cut short)").format(
                    file=self.path.name))
        problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchmany(3)]
        if problems != ["ok"]:
            raise StoreCorrupt(pgettext(
                "screen 21x8", "the game log {file} is damaged ({reason})").format(
                    file=self.path.name, reason=problems[0]))
