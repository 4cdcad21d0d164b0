"""A match as it was played: its events that count and those taken back (undo keeps
them, marked undone), and the match's secret, the seed of the device's draws
(:mod:`companion.chance`), which never leaves the file.

Undo moves the last event that counts from the log (``events``) into ``undone``, with
the place it held and when it was taken back, in the same commit (see
:meth:`companion.store.log.MatchLog.pop`): resume, replay, the club and the figures
read the events that count, as before; the match page, History and ``companion
export`` read :meth:`Played.played`, where each event taken back stands at its place,
before what took that place."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from companion.errors import StoreError
from companion.lang import pgettext
from companion.store.file import StoreFile
from companion.store.records import dump, load_event, match_row

__all__ = ["Move", "Played", "TakenBack"]


class Move(NamedTuple):
    """One line of a match as played: the place it holds (or held) in the log, the
    event, when it was played, and whether it was taken back."""

    seq: int
    event: dict[str, Any]
    at: float
    undone: bool = False


class TakenBack(NamedTuple):
    """An event taken back, as an import or a game saved late gives it to the store: the
    place it held, the event, when it was played and when it was taken back."""

    seq: int
    event: Mapping[str, Any]
    at: float
    undone: float


class Played(StoreFile):
    """What was taken back, and the secret of each match."""

    def played(self, match_id: int) -> list[Move]:
        """Every event of the match in order, each one taken back (``undone``) at the
        place it held, before the one that counts there now (in the order they were
        taken back)."""
        with self._reading() as conn:
            match_row(conn, match_id)
            rows = conn.execute(
                "SELECT seq, event, at, 0 AS undone, 0 AS n FROM events WHERE match_id = ?"
                " UNION ALL SELECT seq, event, at, 1, n FROM undone WHERE match_id = ?"
                " ORDER BY seq, undone DESC, n", (match_id, match_id)).fetchall()
        return [Move(int(row["seq"]), load_event(row["event"], match_id, row["seq"]),
                     float(row["at"]), bool(row["undone"])) for row in rows]

    def undone_count(self, match_id: int) -> int:
        """How many events of the match were taken back."""
        with self._reading() as conn:
            (count,) = conn.execute("SELECT COUNT(*) FROM undone WHERE match_id = ?",
                                    (match_id,)).fetchone()
        return int(count)

    def keep_undone(self, match_id: int, taken: Sequence[TakenBack]) -> None:
        """Keep events taken back while the log could not be written (a game played
        unsaved), in one commit."""
        with self._transaction() as conn:
            match_row(conn, match_id)
            insert_undone(conn, match_id, taken)

    def match_secret(self, match_id: int) -> bytes | None:
        """The match's secret (None for a match from before secrets, or imported)."""
        with self._reading() as conn:
            match_row(conn, match_id)
            row = conn.execute("SELECT secret FROM matches WHERE id = ?",
                               (match_id,)).fetchone()
        secret = row["secret"]
        return bytes(secret) if secret is not None else None

    def keep_secret(self, match_id: int, secret: bytes) -> bytes:
        """Give the match ``secret`` unless it has one (one shorter than ``secret``, from
        a damaged or edited file, is none); return the one it keeps."""
        with self._transaction() as conn:
            match_row(conn, match_id)
            conn.execute("UPDATE matches SET secret = ?1 WHERE id = ?2 AND"
                         " (secret IS NULL OR length(secret) < length(?1))",
                         (bytes(secret), match_id))
            (kept,) = conn.execute("SELECT secret FROM matches WHERE id = ?",
                                   (match_id,)).fetchone()
        return bytes(kept)


def insert_undone(conn: sqlite3.Connection, match_id: int,
                  taken: Sequence[TakenBack]) -> None:
    """Insert ``taken`` into the ``undone`` table inside the caller's transaction."""
    what = pgettext("screen 21x8", "the event")
    rows = []
    for item in taken:
        if isinstance(item.seq, bool) or not isinstance(item.seq, int) or item.seq < 1:
            raise StoreError(pgettext("screen 21x8", "an event's place is a whole number "
                                                     "from 1, not {value}").format(value=item.seq))
        rows.append((match_id, item.seq, dump(dict(item.event), what), float(item.at),
                     float(item.undone)))
    conn.executemany("INSERT INTO undone (match_id, seq, event, at, undone)"
                     " VALUES (?, ?, ?, ?, ?)", rows)
