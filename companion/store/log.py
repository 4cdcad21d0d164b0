"""The match log: a match is started, takes one event at a time (each committed and
synced before the screen shows it), can be undone, finished or abandoned, and can be
imported whole from another device."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from companion.errors import BadName, DuplicateMatch, StoreError
from companion.lang import pgettext
from companion.names import as_seats, check_players, player_key
from companion.store.meta import Meta
from companion.store.played import Played, TakenBack, insert_undone
from companion.store.records import (
    SELECT_MATCH,
    MatchRecord,
    checked_uid,
    dump,
    load,
    load_event,
    match_row,
    new_uid,
    record,
)
from companion.store.roster import mark_used

__all__ = ["MatchLog"]

#: The largest id SQLite can store (a signed 64-bit integer).
_MAX_ID = 2**63 - 1


class MatchLog(Meta, Played):  # a new match's uid carries this device's id
    """Matches and their event logs (resume is replaying :meth:`events`, undo is
    :meth:`pop`)."""

    def new_match(
        self,
        game_id: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        uid: str | None = None,
        origin: str = "",
        started: float | None = None,
        notes: Mapping[str, str] | None = None,
        secret: bytes | None = None,
    ) -> int:
        """Record a new match and return its id; its players become "recently used".

        ``uid`` (default: a new one, :func:`new_uid` on this device) is the match's
        identity on every device;
        ``origin`` names the club table it is played at ("" here). A uid stored already
        raises :class:`DuplicateMatch`. ``started`` keeps when it began (a game played
        while the log could not be written); default now. ``notes`` are kept in the
        ``meta`` table in the same transaction, each value under its key followed by the
        new match's uid (the club's round offer the match was started from: whoever
        reads the match then finds its notes too). ``secret`` is the seed of the device's
        draws in it (:mod:`companion.chance`), kept and never shown.
        """
        players_json, options_json = _match_json(game_id, players, options)
        uid = new_uid(self.device_id()) if uid is None else checked_uid(uid)
        now = self._now() if started is None else float(started)
        with self._transaction() as conn:
            self._refuse_duplicate(conn, uid)
            cursor = conn.execute(
                "INSERT INTO matches (game_id, players, options, started, uid, origin, secret)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, players_json, options_json, now, uid, str(origin),
                 None if secret is None else bytes(secret)),
            )
            match_id = cursor.lastrowid
            mark_used(conn, list(players), now)
            conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                             [(str(key) + uid, str(value))
                              for key, value in (notes or {}).items()])
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
        undone: Sequence[TakenBack] = (),
    ) -> int:
        """Store a whole match played elsewhere, with its own times, in one transaction.

        ``events`` are (event, time) pairs in order; ``finished``/``result`` are None for
        a match still being played; ``undone`` the events taken back in it. The caller
        has replayed the events through the engine: the store only keeps them. A uid
        stored already raises :class:`DuplicateMatch` and nothing is written.
        """
        with self._transaction() as conn:
            return self._insert_played(
                conn, game_id, players, options, events, started=started, finished=finished,
                result=result, uid=uid, origin=origin, undone=undone)

    def import_many(self, matches: Sequence[Mapping[str, Any]]) -> list[int | DuplicateMatch]:
        """Store a batch of whole matches in one transaction (``companion import``):
        each item holds :meth:`import_match`'s arguments by name. One commit (one sync)
        for the lot, so a long history goes in quickly.

        Unlike :meth:`import_match`, a match equal to a stored one in game, players,
        options, times and every event (with its time) is the same match whatever its
        uid says: its place in the answer is that :class:`DuplicateMatch`, and nothing
        of it is written; the others are, and their places hold their new ids.
        """
        answers: list[int | DuplicateMatch] = []
        with self._transaction() as conn:
            for match in matches:
                try:
                    answers.append(self._insert_played(conn, **match, same_content=True))
                except DuplicateMatch as duplicate:
                    answers.append(duplicate)
        return answers

    def _insert_played(
        self,
        conn: sqlite3.Connection,
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
        undone: Sequence[TakenBack] = (),
        same_content: bool = False,
    ) -> int:
        """Insert one whole match inside the caller's transaction (see
        :meth:`import_match`); DuplicateMatch before anything of it is written."""
        players_json, options_json = _match_json(game_id, players, options)
        uid = checked_uid(uid)
        what = pgettext("screen 21x8", "the event")
        rows = [(dump(dict(event), what), float(at)) for event, at in events]
        result_json = None if result is None else dump(dict(result), pgettext("screen 21x8",
                                                                              "the result"))
        self._refuse_duplicate(conn, uid)
        if same_content and finished is not None:
            _refuse_same_match(conn, game_id, players_json, options_json,
                               float(started), float(finished), rows)
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
        insert_undone(conn, match_id, undone)
        mark_used(conn, list(players), float(started))
        return match_id

    def find_uid(self, uid: str) -> int | None:
        """The local id of the match with this uid, or None."""
        with self._reading() as conn:
            row = conn.execute("SELECT id FROM matches WHERE uid = ?", (str(uid),)).fetchone()
        return None if row is None else int(row["id"])

    def event_times(self, match_id: int) -> list[float]:
        """When each event of the match was stored, in order (what an export carries)."""
        with self._reading() as conn:
            match_row(conn, match_id)
            rows = conn.execute(
                "SELECT at FROM events WHERE match_id = ? ORDER BY seq", (match_id,)
            ).fetchall()
        return [float(row["at"]) for row in rows]

    def append(self, match_id: int, event: Mapping[str, Any], *, at: float | None = None) -> int:
        """Add ``event`` to the match's log and return its seq (1, 2, ...).

        Committed and synced when this returns. On StoreError nothing was written: the
        caller must refuse the event so the screen never shows what the file lacks.
        Append the last event *before* :meth:`finish`; a finished match takes no more.
        ``at`` keeps the time it was played elsewhere (a club dashboard); default now.
        """
        if not isinstance(event, Mapping):
            raise StoreError(pgettext("screen 21x8", "an event is a JSON object"))
        text = dump(dict(event), pgettext("screen 21x8", "the event"))
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
        """Undo: take the match's last event that counts out of its log and return it.

        It is kept, marked undone at the place it held (:meth:`Played.played`), in the
        same commit. Undoing the event that ended a match reopens it (``finished`` and
        ``result`` are cleared), so it is offered for resume again. StoreError "nothing
        to undo" when no event counts.
        """
        with self._transaction() as conn:
            row = match_row(conn, match_id)
            if row["abandoned"]:
                raise StoreError(pgettext("screen 21x8", "match {n} was abandoned")
                                 .format(n=match_id))
            last = conn.execute(
                "SELECT seq, event, at FROM events WHERE match_id = ?"
                " ORDER BY seq DESC LIMIT 1", (match_id,),
            ).fetchone()
            if last is None:
                raise StoreError(pgettext("screen 21x8", "nothing to undo"))
            event = load_event(last["event"], match_id, last["seq"])
            conn.execute(
                "INSERT INTO undone (match_id, seq, event, at, undone) VALUES (?, ?, ?, ?, ?)",
                (match_id, last["seq"], last["event"], last["at"], self._now()))
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
            match_row(conn, match_id)
            rows = conn.execute(
                "SELECT seq, event FROM events WHERE match_id = ? ORDER BY seq", (match_id,)
            ).fetchall()
        return [load_event(row["event"], match_id, row["seq"]) for row in rows]

    def match(self, match_id: int) -> MatchRecord:
        """The match with this id; StoreError when there is none."""
        with self._reading() as conn:
            row = match_row(conn, match_id, with_count=True)
        return record(row)

    def unfinished(self) -> MatchRecord | None:
        """The newest match neither finished nor abandoned (offered for resume), or None.

        Newest means the highest id, not the latest clock time: a Pi without a real-time
        clock can boot with its clock far off.
        """
        with self._reading() as conn:
            row = conn.execute(
                SELECT_MATCH + " WHERE finished IS NULL AND abandoned = 0 ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return None if row is None else record(row)

    def finish(
        self, match_id: int, result: Mapping[str, Any], *, at: float | None = None
    ) -> None:
        """Mark the match finished with its result JSON (``totals``, ``winners``, ...).

        Finishing again replaces the result (e.g. after a power cut between the last
        append and the first finish, the app replays and finishes once more). ``at``
        keeps the time it finished elsewhere (a club dashboard); default now.
        """
        if not isinstance(result, Mapping):
            raise StoreError(pgettext("screen 21x8", "a result is a JSON object"))
        text = dump(dict(result), pgettext("screen 21x8", "the result"))
        now = self._now() if at is None else float(at)
        with self._transaction() as conn:
            row = match_row(conn, match_id)
            if row["abandoned"]:
                raise StoreError(pgettext("screen 21x8", "match {n} was abandoned")
                                 .format(n=match_id))
            conn.execute(
                "UPDATE matches SET finished = ?, result = ? WHERE id = ?", (now, text, match_id)
            )

    def abandon(self, match_id: int) -> None:
        """Give the match up: it is kept but never offered for resume or counted."""
        with self._transaction() as conn:
            row = match_row(conn, match_id)
            if row["finished"] is not None:
                raise StoreError(pgettext("screen 21x8", "match {n} is already finished")
                                 .format(n=match_id))
            conn.execute("UPDATE matches SET abandoned = 1 WHERE id = ?", (match_id,))

    def resolve(self, ref: str | int) -> int:
        """A match id from ``"current"`` (in progress), ``"last"`` (newest finished) or a number."""
        text = str(ref).strip().lower()
        if text == "current":
            current = self.unfinished()
            if current is None:
                raise StoreError(pgettext("screen 21x8", "no match in progress"))
            return current.id
        if text == "last":
            with self._reading() as conn:
                row = conn.execute(
                    "SELECT id FROM matches WHERE finished IS NOT NULL AND abandoned = 0"
                    " ORDER BY finished DESC, id DESC LIMIT 1"
                ).fetchone()
            if row is None:
                raise StoreError(pgettext("screen 21x8", "no finished match yet"))
            return int(row["id"])
        if text.isascii() and text.isdigit():
            # Past SQLite's largest id (or Python's longest int) there is no such match;
            # say so here rather than let the driver overflow.
            if len(text) > 19 or int(text) > _MAX_ID:
                raise StoreError(pgettext("screen 21x8", "no match {n}").format(
                    n=text[:20] + ("..." if len(text) > 20 else "")))
            match_id = int(text)
            with self._reading() as conn:
                match_row(conn, match_id)
            return match_id
        raise StoreError(pgettext("screen 21x8", "a match is 'current', 'last' or a number, "
                                  "not {value}").format(value=repr(str(ref))))

    def _refuse_duplicate(self, conn: sqlite3.Connection, uid: str) -> None:
        row = conn.execute("SELECT id FROM matches WHERE uid = ?", (uid,)).fetchone()
        if row is not None:
            raise DuplicateMatch(uid, int(row["id"]))

    def _open_match(self, conn: sqlite3.Connection, match_id: int) -> None:
        row = match_row(conn, match_id)
        if row["abandoned"]:
            raise StoreError(pgettext("screen 21x8", "match {n} was abandoned").format(n=match_id))
        if row["finished"] is not None:
            raise StoreError(pgettext("screen 21x8", "match {n} is finished").format(n=match_id))


def _refuse_same_match(
    conn: sqlite3.Connection, game_id: str, players_json: str, options_json: str,
    started: float, finished: float, rows: Sequence[tuple[str, float]],
) -> None:
    """DuplicateMatch when a stored match equals this one in everything but its uid
    (and origin): a copy with its label edited is still the same game, and so is one
    whose players are spelled otherwise but are the same players ("ann" for "Ann": one
    :func:`~companion.names.player_key`), in its seats, options and events alike. Cheap:
    only the matches that finished at that very moment (the ``finished`` index) are
    compared."""
    candidates = conn.execute(
        "SELECT id, uid, players, options FROM matches"
        " WHERE finished = ? AND started = ? AND game_id = ?", (finished, started, game_id)
    ).fetchall()
    mine = json.loads(players_json)
    for row in candidates:
        theirs = load(row["players"], pgettext("screen 21x8", "the players"))
        if ([player_key(name) for name in theirs] != [player_key(name) for name in mine]
                or as_seats(load(row["options"], pgettext("screen 21x8", "the options")), theirs)
                != as_seats(json.loads(options_json), mine)):
            continue
        stored = conn.execute(
            "SELECT event, at FROM events WHERE match_id = ? ORDER BY seq", (row["id"],)
        ).fetchall()
        if len(stored) == len(rows) and all(
            at == their["at"] and as_seats(json.loads(text), mine)
            == as_seats(load(their["event"], pgettext("screen 21x8", "an event")), theirs)
            for (text, at), their in zip(rows, stored, strict=True)
        ):
            raise DuplicateMatch(row["uid"] or "", int(row["id"]))


def _match_json(
    game_id: str, players: Sequence[str], options: Mapping[str, Any] | None
) -> tuple[str, str]:
    """The players and options of a new match as stored text, checked."""
    if not isinstance(game_id, str) or not game_id:
        raise StoreError(pgettext("screen 21x8", "a match needs a game id"))
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise StoreError(pgettext("screen 21x8", "players are a list of names"))
    names = list(players)
    if not names or not all(isinstance(name, str) and name.strip() for name in names):
        raise StoreError(pgettext("screen 21x8", "players are a list of names"))
    try:
        check_players(names)  # the one name rule (companion.names), from every way in
    except BadName as refused:
        raise StoreError(pgettext("screen 21x8", "the players: {reason}")
                         .format(reason=refused)) from None
    return (dump(names, pgettext("screen 21x8", "the players")),
            dump(dict(options or {}), pgettext("screen 21x8", "the options")))
