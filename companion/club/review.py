"""What the dashboard holds for the organiser instead of changing the league by itself.

- A counted match that a table later rewrites (a new generation whose log differs from
  the counted one: an undo after the end, a match played on) is **held**: the league
  keeps the counted result, and the table's later generations are set aside, until the
  organiser accepts the rewrite (the dashboard then asks the table for the match and
  follows it, on the audit trail as ``rewritten``) or refuses it (the counted match
  stays, and the table's rewrite is answered ``refused`` so it stops sending it).
- A finished match whose events are a counted match's again, under another uid with its
  times moved, is **held** as a ``duplicate``: stored, not counted, until accepted
  (counted then) or refused. The very same match, times and all, is refused outright.
- A settled match sent again (a dashboard that catches up: a new one, a second one, one
  restored from a backup, asks for it, and the table cuts a new generation) is compared
  event by event with what is stored: when it is the same log, nothing changes and
  nothing goes on the record.

The organiser decides with ``companion club --review / --accept UID / --refuse UID`` or
on the club page; the decision is written in the ledger and applied by
:meth:`Review.review`, which the dashboard runs every few seconds. Mixed into
:class:`~companion.club.receiver.Receiver`.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from companion import lang
from companion.club.mirror import Mirror, safe_result
from companion.errors import CompanionError
from companion.lang import _

#: A settled match's states whose log, when a table sends it again, is compared first.
SETTLED = ("finished", "refused", "held")


def day_and_hour(when: float | None) -> str:
    """A time the organiser reads (when a match was held, a season locked, a table last
    seen) as the language writes a day and an hour; "-" for None and "?" for a time no
    calendar can show (a table whose clock said year 3 billion)."""
    if when is None:
        return "-"
    try:
        return lang.date_time(datetime.datetime.fromtimestamp(when))
    except (OverflowError, OSError, ValueError):
        return "?"


def match_words(record: Any) -> dict[str, Any]:
    """What a held row tells of its match: the game, the players, when it was played
    (finished, else started)."""
    return {"game": record.game_id, "players": list(record.players),
            "played": record.finished if record.finished is not None else record.started}


def held_line(row: dict[str, Any]) -> str:
    """A held match in words for the organiser (``companion club --review``, the club
    page): which table, what happened, the match (its game, players and when it was
    played: never its uid), what the league counts meanwhile."""
    from companion.games import title

    detail = row.get("detail") or {}
    when = day_and_hour(detail.get("played", detail.get("finished", row.get("at"))))
    game, players = detail.get("game"), detail.get("players")
    if isinstance(game, str) and isinstance(players, list):
        # Translators: a held match: its game's name, its players, when it was played.
        match = _("{game} with {players}, {when}").format(
            game=title(game), players=", ".join(str(name) for name in players), when=when)
    else:  # a row held before the ledger kept the match's game and players
        match = when
    if row.get("what") == "duplicate":
        return _("{table} sent a counted match again with other times: {match}; not "
                 "counted unless accepted").format(table=row["table"], match=match)
    winners = [str(name) for name in ((detail.get("result") or {}).get("winners") or [])]
    if not winners:
        return _("{table} rewrote a counted match (won by nobody): {match}; the league "
                 "keeps it as counted unless accepted").format(table=row["table"], match=match)
    return _("{table} rewrote a counted match (won by {winners}): {match}; the league keeps "
             "it as counted unless accepted").format(
        table=row["table"], winners=", ".join(winners), match=match)


class Review:
    """Holds rewrites and duplicates for the organiser (see the module doc)."""

    # -- a settled match sent again ---------------------------------------------------

    def _compare_from(self, mirror: Mirror, gen: int, keep: int) -> str:
        """A cut of generation ``gen`` keeping ``keep`` of a settled match's events: what
        follows is compared with the stored log before anything is changed."""
        mirror.candidate = (gen, keep)
        waiting = sorted(key for key in mirror.events if key[0] == gen)
        for key in waiting:
            msg = mirror.events.pop(key)
            if self._verdict(mirror, msg) == "wait":
                self._hold(mirror, msg)
        if mirror.candidate is None and mirror.gen == gen:
            self._drain(mirror)
        return "stale"

    def _compare(self, mirror: Mirror, msg: dict[str, Any]) -> str:
        """One event of the generation under comparison: the same as the stored one
        (the log is the same through its end once the last one is: no change, no
        record), or the first that differs (a rewrite)."""
        assert mirror.candidate is not None and mirror.hashes is not None
        gen, keep = mirror.candidate
        seq = msg["seq"]
        if seq <= keep:
            return "stale"
        if seq <= mirror.count and mirror.hashes[seq] == msg["hash"]:
            if seq == mirror.count:  # the chain hash says every event before is the same
                mirror.candidate, mirror.gen = None, gen
                self._save(mirror)
            return "stale"
        self._rewritten(mirror, gen, keep)
        if mirror.gen == gen:  # followed (not counted): this event is the next one
            return self._event(mirror, msg)
        return "stale"

    def _info_rewrites(self, mirror: Mirror, info: dict[str, Any]) -> None:
        """A counted match's retained state from a newer generation that says another
        log than the counted one: the table rewrote it."""
        if mirror.state != "finished" or mirror.hold or mirror.match_id is None:
            return
        if info["gen"] > mirror.gen and \
                (info["count"], info["hash"]) != (mirror.count, mirror.last_hash):
            self._rewritten(mirror, info["gen"], None)

    def _rewritten(self, mirror: Mirror, gen: int, keep: int | None) -> None:
        """The table's log of a settled match differs from the stored one from
        generation ``gen`` on: held when the match is counted, else followed."""
        mirror.candidate = None
        if mirror.state != "finished":  # not in the league: followed, on the record
            if keep is not None:
                self._truncate(mirror, keep, gen)
                mirror.gen = gen
                self._save(mirror)
            return
        assert mirror.match_id is not None
        self.ledger.hold(mirror.table, mirror.uid, "rewritten", {
            "generation": [mirror.gen, gen], "events": mirror.count, "kept": keep,
            "result": self._result(mirror),
            **match_words(self.store.match(mirror.match_id))})
        mirror.hold = "held"
        self._held_rows = None
        mirror.cuts.clear()
        mirror.events.clear()
        self._save(mirror)
        self._say(logging.WARNING, "held", mirror.table,
                  "club: %s rewrote counted match %s (generation %d); the league keeps it "
                  "as counted until the organiser decides (companion club --review)",
                  mirror.table, mirror.uid, gen)
        self.changed("")

    def _held_drops(self, mirror: Mirror, gen: int) -> bool:
        """A message of a generation the organiser holds or refused: set aside."""
        return mirror.hold in ("held", "refused") and gen > mirror.gen

    # -- a match counted already, with its times moved ------------------------------------

    def _hold_duplicate(self, mirror: Mirror, twin: str, computed: Any, at: float) -> None:
        assert mirror.game is not None
        self.ledger.hold(mirror.table, mirror.uid, "duplicate", {
            "same_as": twin, "finished": at, "result": computed,
            "game": mirror.game.game_id, "players": list(mirror.game.players)})
        mirror.state = "held"
        self._held_rows = None
        self._say(logging.WARNING, "held", mirror.table,
                  "club: %s: match %s has the events of counted match %s with other times; "
                  "held for the organiser (companion club --review)",
                  mirror.table, mirror.uid, twin)
        self.changed("")

    # -- the organiser's decisions ---------------------------------------------------------

    def held_rows(self) -> list[dict[str, Any]]:
        """What waits for the organiser, in words, for the club page (no uid: the page
        shows none; ``id`` names the row for the organiser's decision)."""
        if self._held_rows is None:
            self._held_rows = [{"id": row["id"], "table": row["table"], "what": row["what"],
                                "text": held_line(self._described(row))}
                               for row in self.ledger.held()]
        return self._held_rows

    def _described(self, row: dict[str, Any]) -> dict[str, Any]:
        """A held row with its match's game, players and time (a row held before the
        ledger kept them has them read from the store)."""
        if "game" in row["detail"]:
            return row
        match_id = self.store.find_uid(row["uid"])
        if match_id is None:
            return row
        return {**row, "detail": {**row["detail"], **match_words(self.store.match(match_id))}}

    def organiser(self, ident: int, decision: str) -> bool:
        """The organiser's decision on held row ``ident`` (the club page), applied at
        once; False when no such row waits."""
        row = next((r for r in self.ledger.held() if r["id"] == ident), None)
        if row is None or self.ledger.decide(row["uid"], decision) is None:
            return False
        self.review()
        return True

    def review(self) -> int:
        """Apply the decisions the ledger holds that are not applied yet (from ``companion
        club --accept/--refuse`` or the club page); how many."""
        done = 0
        for row in self.ledger.decided():
            mirror = self.mirrors.get(row["uid"])
            if mirror is None and self.store.find_uid(row["uid"]) is not None:
                mirror = self._load(row["table"], row["uid"])
            try:
                if mirror is not None:
                    self._decide(mirror, row["what"], row["decision"], row["detail"])
            except CompanionError as err:
                self._say(logging.ERROR, "review", row["table"],
                          "club: %s/%s: cannot apply the organiser's decision: %s",
                          row["table"], row["uid"], err)
            self.ledger.applied(row["id"])
            done += 1
        if done:
            self._held_rows = None
            self.changed("")
        return done

    def _decide(self, mirror: Mirror, what: str, decision: str, detail: dict[str, Any]) -> None:
        accepted = decision == "accepted"
        if what == "rewritten" and mirror.hold == "held":
            mirror.hold = "accepted" if accepted else "refused"
            self._save(mirror)
            if accepted:  # the table sends the match again; the rewrite is followed
                self._asked.pop(mirror.uid, None)  # from where it parted from the counted
                kept = detail.get("kept")            # log, when a cut said so
                kept = kept if isinstance(kept, int) else mirror.parted
                if isinstance(kept, int) and mirror.hashes is None:
                    self._hydrate(mirror)
                self._ask(mirror, kept if isinstance(kept, int) else None)
        elif what == "duplicate" and mirror.state == "held":
            if accepted:
                if mirror.hashes is None:
                    self._hydrate(mirror)
                assert mirror.game is not None
                self._count(mirror, safe_result(mirror.game), float(detail["finished"]))
            else:
                mirror.state = "refused"
            self._save(mirror)
            self._lighten(mirror)
        self._receipts_due.add(mirror.uid)
        self._log_decision(mirror, what, decision)
        self._touch(mirror)
        self.changed("")

    def _log_decision(self, mirror: Mirror, what: str, decision: str) -> None:
        logging.getLogger("companion.club").info(
            "club: the organiser %s the %s match %s of %s", decision,
            "rewritten" if what == "rewritten" else "duplicate", mirror.uid, mirror.table)
