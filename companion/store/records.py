"""A match as the rest of the code sees it (:class:`MatchRecord`, :class:`MatchSummary`),
the SQL that reads one, and the JSON text a row keeps its players, options, events and
result in."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

from companion.errors import StoreCorrupt, StoreError, written
from companion.lang import pgettext
from companion.store.sql import READ, said

__all__ = ["MatchRecord", "MatchSummary", "checked_uid"]


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


SELECT_MATCH = (
    "SELECT id, game_id, players, options, started, finished, result, abandoned, uid, origin,"
    " (SELECT COUNT(*) FROM events WHERE events.match_id = matches.id) AS event_count"
    " FROM matches"
)


#: One result key is read as JSON text only when it has the type the figures want.
def _result_part(key: str, json_type: str) -> str:
    return (f"CASE WHEN json_valid(result) THEN CASE json_type(result, '$.{key}')"
            f" WHEN '{json_type}' THEN json_extract(result, '$.{key}') END END")


SELECT_SUMMARY = (
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


def summary(row: sqlite3.Row) -> MatchSummary:
    """A row of :data:`SELECT_SUMMARY` as a :class:`MatchSummary`."""
    (match_id, uid, game_id, players, started, finished, totals, winners, flag, rounds,
     first_event, last_event) = row
    try:  # read for every match by the figures: no per-row message unless one fails
        players, totals, winners = (json.loads(players), json.loads(totals or "{}"),
                                    json.loads(winners or "[]"))
    except (TypeError, ValueError) as err:
        raise StoreCorrupt(said(READ, pgettext("screen 21x8", "match {n} is damaged")
                                .format(n=match_id))) from err
    return MatchSummary(
        match_id, uid or "", game_id, tuple(name for name in players if isinstance(name, str)),
        float(started), finished,
        {name: value for name, value in totals.items()
         if isinstance(value, int | float) and not isinstance(value, bool)},
        tuple(name for name in winners if isinstance(name, str)),
        None if flag not in ("true", "false") else flag == "true",
        rounds, first_event, last_event,
    )


def record(row: sqlite3.Row) -> MatchRecord:
    """A row of :data:`SELECT_MATCH` as a :class:`MatchRecord`."""
    match_id = row["id"]
    players = load(row["players"], pgettext("screen 21x8", "the players of match {n}")
                   .format(n=match_id))
    options = load(row["options"], pgettext("screen 21x8", "the options of match {n}")
                   .format(n=match_id))
    result = load(row["result"], pgettext("screen 21x8", "the result of match {n}")
                  .format(n=match_id)) if row["result"] else None
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


def match_row(
    conn: sqlite3.Connection, match_id: int, *, with_count: bool = False
) -> sqlite3.Row:
    """The match's row (all of :data:`SELECT_MATCH` with ``with_count``, else its id and
    state), or StoreError "no match N"."""
    if isinstance(match_id, bool) or not isinstance(match_id, int):
        raise StoreError(pgettext("screen 21x8", "a match id is a number, not {value}")
                         .format(value=written(match_id)))
    if with_count:
        row = conn.execute(SELECT_MATCH + " WHERE id = ?", (match_id,)).fetchone()
    else:
        row = conn.execute(
            "SELECT id, finished, abandoned FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
    if row is None:
        raise StoreError(pgettext("screen 21x8", "no match {n}").format(n=match_id))
    return row


#: How many hex digits of the device's id begin each match uid it makes.
UID_DEVICE_DIGITS = 16


def new_uid(device: str = "") -> str:
    """A fresh identity, 32 hex digits: this device's (random), or a match's made on
    ``device``: the device id's first :data:`UID_DEVICE_DIGITS` digits, then random
    ones, so a club dashboard can tell which device made a match
    (:mod:`companion.club.receiver`)."""
    return (device[:UID_DEVICE_DIGITS] + os.urandom(16).hex())[:32]


def checked_uid(uid: str) -> str:
    """``uid`` if it can name a match (also in an import), else StoreError."""
    if not isinstance(uid, str) or not 1 <= len(uid) <= 64 or not uid.isprintable():
        raise StoreError(pgettext("screen 21x8", "a match uid is 1 to 64 printable "
                                  "characters, not {value}").format(value=written(uid)))
    return uid


def dump(value: Any, what: str) -> str:
    """``value`` as the JSON text a row keeps, or StoreError naming ``what``."""
    # ASCII-escaped so any str (even a lone surrogate) can be stored; loads() restores it.
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        # Translators: {what} names what was to be saved ("the result", "the players
        # of match 3", a message of its own); write it so it reads with any of them.
        raise StoreError(pgettext("screen 21x8", "{what} cannot be saved as JSON: {reason}")
                         .format(what=what, reason=err)) from err


def load(text: str, what: str) -> Any:
    """Stored JSON text back as a value; StoreCorrupt naming ``what`` if it is damaged."""
    try:
        return json.loads(text)
    except (TypeError, ValueError) as err:
        # Translators: {what} names what is damaged ("the players of match 3", "event 2
        # of match 3", a message of its own); write it so it reads with any of them.
        raise StoreCorrupt(said(READ, pgettext("screen 21x8", "{what} is damaged")
                                .format(what=what))) from err


def load_event(text: str, match_id: int, seq: int) -> dict[str, Any]:
    """One stored event (a JSON object) back as a dict, or StoreCorrupt."""
    what = pgettext("screen 21x8", "event {seq} of match {n}").format(seq=seq, n=match_id)
    event = load(text, what)
    if not isinstance(event, dict):
        raise StoreCorrupt(said(READ, pgettext("screen 21x8", "{what} is damaged")
                                .format(what=what)))
    return event
