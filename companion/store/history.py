"""The past, read for people and for the figures: finished matches newest first, and
one :class:`~companion.store.records.MatchSummary` per match for :mod:`companion.stats`."""

from __future__ import annotations

from typing import Any

from companion.store.file import StoreFile
from companion.store.records import (
    SELECT_MATCH,
    SELECT_SUMMARY,
    MatchRecord,
    MatchSummary,
    record,
    summary,
)

__all__ = ["History"]


class History(StoreFile):
    """Finished (and abandoned) matches as the History screen, the page and the figures
    read them."""

    def history(self, limit: int = 20) -> list[MatchRecord]:
        """Finished matches, newest first."""
        with self._reading() as conn:
            rows = conn.execute(
                SELECT_MATCH + " WHERE finished IS NOT NULL AND abandoned = 0"
                " ORDER BY finished DESC, id DESC LIMIT ?",
                (max(0, int(limit)),),
            ).fetchall()
        return [record(row) for row in rows]

    def ids_from(self, origin: str) -> set[int]:
        """Ids of the matches played at club table ``origin`` ("": on this device)."""
        with self._reading() as conn:
            rows = conn.execute("SELECT id FROM matches WHERE origin = ?",
                                (str(origin),)).fetchall()
        return {int(row["id"]) for row in rows}

    def with_entered_dice(self, ids: list[int]) -> set[int]:
        """Which of the matches ``ids`` hold faces typed in from real dice (an event with
        ``"entered": true``, at a table with ``[dice] physical``): the history marks them.
        One query per 500 ids, reading only events that name the field."""
        return self._with_entered(ids, tokens=False)

    def with_entered_tokens(self, ids: list[int]) -> set[int]:
        """Which of the matches ``ids`` hold lottery tokens typed in from the real tin (a
        ``token`` event with ``"entered": true``, ``[tokens] physical``)."""
        return self._with_entered(ids, tokens=True)

    def _with_entered(self, ids: list[int], tokens: bool) -> set[int]:
        # Block Lottery's "token" event is the one whose "entered" is a token, not dice
        # (companion.table.bag.entered_tokens says the same of events in memory).
        found: set[int] = set()
        ids = [int(match_id) for match_id in ids]
        kind = "=" if tokens else "!="
        with self._reading() as conn:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT DISTINCT match_id FROM events WHERE match_id IN ({marks})"
                    " AND instr(event, '\"entered\"') > 0 AND CASE WHEN json_valid(event)"
                    " THEN json_extract(event, '$.entered') = 1 AND"
                    f" COALESCE(json_extract(event, '$.type'), '') {kind} 'token' ELSE 0 END",
                    chunk,
                ).fetchall()
                found.update(int(row["match_id"]) for row in rows)
        return found

    def past(self, limit: int = 200) -> list[MatchRecord]:
        """Finished and abandoned matches, newest first (the web page's history)."""
        with self._reading() as conn:
            rows = conn.execute(
                SELECT_MATCH + " WHERE finished IS NOT NULL OR abandoned = 1"
                " ORDER BY COALESCE(finished, started) DESC, id DESC LIMIT ?",
                (max(0, int(limit)),),
            ).fetchall()
        return [record(row) for row in rows]

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
        sql = f"{SELECT_SUMMARY} WHERE {' AND '.join(where)} ORDER BY finished, id"
        with self._reading() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [summary(row) for row in rows]

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
