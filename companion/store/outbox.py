"""The club outbox (:mod:`companion.club`): how far the broker has acknowledged each of
this device's matches. The event log itself is the outbox; only the mark is kept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.errors import StoreError
from companion.lang import pgettext
from companion.store.file import StoreFile
from companion.store.records import load_event, match_row

__all__ = ["PUBLISHED_STATE", "Outbox"]

#: The meta key prefix (then a match's uid) under which the club publisher records the
#: state of the match the broker acknowledged (see :meth:`Outbox.unpublished`).
PUBLISHED_STATE = "published-state:"


class Outbox(StoreFile):
    """The publisher's marks: what it still has to send, and moving the mark once sent."""

    def published(self, match_id: int) -> int:
        """How many of the match's first events the club broker has acknowledged."""
        with self._reading() as conn:
            match_row(conn, match_id)
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
            raise StoreError(pgettext("screen 21x8", "the published events do not match the mark"))
        with self._transaction() as conn:
            match_row(conn, match_id)
            (mark,) = conn.execute(
                "SELECT published FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
            rows = conn.execute(
                "SELECT event, at FROM events WHERE match_id = ? AND seq > ? AND seq <= ?"
                " ORDER BY seq", (match_id, old, new),
            ).fetchall()
            stored = [(load_event(row["event"], match_id, 0), row["at"]) for row in rows]
            if mark != old or stored != [(dict(e), float(t)) for e, t in sent]:
                return False
            conn.execute("UPDATE matches SET published = ? WHERE id = ?", (new, match_id))
        return True

    def events_since(self, match_id: int, after: int) -> list[tuple[int, dict[str, Any], float]]:
        """The match's events after seq ``after``, as (seq, event, time), in order."""
        with self._reading() as conn:
            match_row(conn, match_id)
            rows = conn.execute(
                "SELECT seq, event, at FROM events WHERE match_id = ? AND seq > ? ORDER BY seq",
                (match_id, int(after)),
            ).fetchall()
        return [(int(r["seq"]), load_event(r["event"], match_id, r["seq"]), float(r["at"]))
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
