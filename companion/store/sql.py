"""Small helpers over :mod:`sqlite3` that every part of the store shares: one
transaction while opening, reading a pragma, syncing a directory, and turning a sqlite3
error into one line a person can act on."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from companion.errors import StoreCorrupt, StoreError
from companion.lang import lazy, pgettext

# Store errors are shown on the screen (the start-up notice, a failed backup: folded
# into at most 8 lines of 21), printed by the commands and sent as a refusal's words.
#: The start of every error line, by what the store was doing.
WRITE = lazy("screen 21x8", "cannot write the game log")
READ = lazy("screen 21x8", "cannot read the game log")

#: Errors of a read-only connection that cannot open or create the -shm file.
CANNOT_SHARE = (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN)


def commit(conn: sqlite3.Connection, statements: Sequence[str]) -> None:
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


def pragma(conn: sqlite3.Connection, name: str) -> int:
    """The integer value of ``PRAGMA name``."""
    return int(conn.execute(f"PRAGMA {name}").fetchone()[0])


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new file in ``directory`` survive a power cut."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def code(err: sqlite3.Error) -> int | None:
    """The primary SQLite result code of ``err`` (None for a hand-made exception)."""
    value = getattr(err, "sqlite_errorcode", None)
    return value & 0xFF if isinstance(value, int) else None


def said(doing: object, reason: object) -> str:
    """What failed and why, as one line: "cannot write the game log: disk full"."""
    # Translators: {doing} says what failed ("cannot write the game log"), {reason} why
    # ("disk full"); both are messages of their own.
    return pgettext("screen 21x8", "{doing}: {reason}").format(doing=doing, reason=reason)


def translate(err: sqlite3.Error, doing: str) -> StoreError:
    """A sqlite3 error as one line a person can act on ("...: disk full")."""
    primary = code(err)
    text = str(err).lower()
    corrupt = False
    if primary == sqlite3.SQLITE_FULL or "disk is full" in text:
        reason = pgettext("screen 21x8", "disk full")
    elif primary == sqlite3.SQLITE_READONLY or "readonly" in text:
        reason = pgettext("screen 21x8", "it is read-only")
    elif (
        primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
        or "malformed" in text
        or "not a database" in text
    ):
        reason, corrupt = pgettext("screen 21x8", "the file is damaged"), True
    elif primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text:
        reason = pgettext("screen 21x8", "another program is holding it locked")
    elif primary == sqlite3.SQLITE_CANTOPEN or "unable to open" in text:
        reason = pgettext("screen 21x8", "the file cannot be opened (check the directory "
                                         "and its permissions)")
    elif primary in (sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH):
        reason = pgettext("screen 21x8", "permission denied")
    elif primary == sqlite3.SQLITE_IOERR or "i/o error" in text:
        reason = pgettext("screen 21x8", "the storage failed to read or write "
                                         "(disk I/O error)")
    else:
        reason = str(err)
    return (StoreCorrupt if corrupt else StoreError)(said(doing, reason))
