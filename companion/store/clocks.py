"""The turn timer's record: what the clocks of the match being played read at its last
pause, resume or undo, kept so a restart (or a power cut) gives each player their time
back.

The events' own stored times say when each turn began and ended; what they cannot say
is a pause (no event), or the time a player spent on a turn that an undo took back
(its event is gone). So at those moments the timer's whole state is kept, one row in
the ``meta`` table (``clock:<match id>``), with the number of events it follows and the
stored time of the last of them, which tells a record that no longer fits the log (an
undo whose record was not written yet) from one that does. One row for the whole log:
keeping a match's record drops any other's (only the match being played is resumed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from companion.errors import StoreError
from companion.lang import pgettext
from companion.store.file import StoreFile
from companion.store.records import match_row

__all__ = ["Clocks"]

#: The ``meta`` key of a match's record: this and the match's id.
PREFIX = "clock:"


class Clocks(StoreFile):
    """The turn timer's record of the match being played (see the module docstring)."""

    def keep_clock(self, match_id: int, state: Mapping[str, Any]) -> None:
        """Keep ``state`` (:meth:`companion.table.timer.TurnTimer.state`) as what the
        match's clocks read now, after its events so far. Committed and synced when
        this returns, in one small transaction."""
        with self._transaction() as conn:
            match_row(conn, match_id)
            seq, last = _last_event(conn, match_id)
            try:
                text = json.dumps({"seq": int(seq), "event_at": last, "at": self._now(),
                                   "player": state["player"], "paused": bool(state["paused"]),
                                   "used": {str(name): float(spent) for name, spent
                                            in state["used"].items()}}, allow_nan=False)
            except (KeyError, TypeError, ValueError, AttributeError) as err:
                raise StoreError(pgettext("screen 21x8", "the timer's record cannot be kept "
                                          "({reason})").format(reason=err)) from None
            key = f"{PREFIX}{int(match_id)}"
            conn.execute("DELETE FROM meta WHERE substr(key, 1, ?) = ? AND key != ?",
                         (len(PREFIX), PREFIX, key))
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, text))

    def clock_record(self, match_id: int) -> dict[str, Any] | None:
        """The match's kept record, ``{"seq", "at", "player", "paused", "used"}``, while it
        still fits its log (the events it followed are the log's first ``seq``); None
        when there is none, it no longer fits, or it is not one (a hand-edited file)."""
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?",
                               (f"{PREFIX}{int(match_id)}",)).fetchone()
            if row is None:
                return None
            kept = _checked(row["value"])
            if kept is None:
                return None
            count, _ = _last_event(conn, match_id)
            at = conn.execute("SELECT at FROM events WHERE match_id = ? AND seq = ?",
                              (match_id, kept["seq"])).fetchone()
        if kept["seq"] > count or (kept["seq"] and at["at"] != kept["event_at"]):
            return None
        return kept


def _last_event(conn: Any, match_id: int) -> tuple[int, float | None]:
    """(how many events the match has, when the last of them was stored)."""
    row = conn.execute("SELECT seq, at FROM events WHERE match_id = ? ORDER BY seq DESC"
                       " LIMIT 1", (match_id,)).fetchone()
    return (0, None) if row is None else (int(row["seq"]), float(row["at"]))


def _checked(text: str) -> dict[str, Any] | None:
    """A record as kept, or None for anything else."""
    try:
        kept = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(kept, dict):
        return None
    seq, at, player, used = (kept.get(key) for key in ("seq", "at", "player", "used"))
    if not (isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0
            and _seconds(at) and (player is None or isinstance(player, str))
            and isinstance(kept.get("paused"), bool) and isinstance(used, dict)
            and all(isinstance(name, str) and _seconds(spent) and spent >= 0
                    for name, spent in used.items())):
        return None
    return kept


def _seconds(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
