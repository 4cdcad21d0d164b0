"""Storing and judging a match: the receiver's part that applies a match's log to the
store (cuts and events, each event checked by the game's engine), settles it once its
log equals the table's retained state, and counts it with the engine's result, unless a
claim disagrees or it is a match counted already (refused, on the ledger's record).

Mixed into :class:`~companion.club.receiver.Receiver`; a settled match keeps only its
summary (length, chain hash, result), read back from the store's notes on a restart.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from companion.club import wire
from companion.club.ledger import content_digest, fingerprint
from companion.club.mirror import MIRROR_KEY, Mirror, safe_result
from companion.club.offers import keep_offer, taken_by, valid_offer_id
from companion.club.review import SETTLED
from companion.errors import CompanionError, StoreError, WireError
from companion.games import new_match, replay
from companion.names import as_seats, player_key

#: A table's time is believed when it lies between this (2020-01-01) and a few minutes
#: past the dashboard's own clock; else the dashboard's receive time stands in for it
#: (a table whose clock is wrong must not put "9600 h played" in the league).
EARLIEST = 1_577_836_800.0
SKEW = 600.0


class MatchBook:
    """Stores and judges each match (see the module doc)."""

    def _load(self, table: str, uid: str) -> Mirror:
        """The mirror of a match, from the store when it is there already (a settled
        one as its summary only: no replay, so a restart with years of finished
        matches costs a row read each)."""
        mirror = Mirror(uid, table)
        match_id = self.store.find_uid(uid)
        if match_id is not None:
            record = self.store.match(match_id)
            saved = json.loads(self.store.meta(MIRROR_KEY + uid) or "{}")
            mirror.table = record.origin
            mirror.device = saved.get("device", "")
            mirror.gen = int(saved.get("gen", 0))
            mirror.state = saved.get("state") or record.state
            mirror.hold = str(saved.get("hold", ""))
            mirror.offer = str(saved.get("offer", ""))
            mirror.match_id = match_id
            if mirror.state != "playing" and saved.get("count") == record.event_count \
                    and isinstance(saved.get("hash"), str):
                mirror.summary, mirror.hashes = (record.event_count, saved["hash"]), None
                mirror.result = record.result
            else:
                self._hydrate(mirror)
        self.mirrors[uid] = mirror
        return mirror

    def preload(self) -> int:
        """Know every settled match from the store's notes in one read (a restart with
        years of finished matches then reads no match, replays no log); how many."""
        loaded = 0
        for key, text in self.store.meta_under(MIRROR_KEY).items():
            try:
                note = json.loads(text)
                uid, state = key[len(MIRROR_KEY):], note["state"]
                if state == "playing" or uid in self.mirrors:
                    continue
                mirror = Mirror(uid, str(note["table"]), device=str(note["device"]),
                                match_id=int(note["id"]), gen=int(note["gen"]), hashes=None,
                                summary=(int(note["count"]), str(note["hash"])), state=state,
                                hold=str(note.get("hold", "")),
                                offer=str(note.get("offer", "")))
            except (ValueError, KeyError, TypeError):
                continue  # an older note: that match is read when it is heard of
            self.mirrors[uid] = mirror
            loaded += 1
        return loaded

    def _hydrate(self, mirror: Mirror) -> None:
        """Read a stored match's log back: its chain hashes and its engine."""
        assert mirror.match_id is not None
        record = self.store.match(mirror.match_id)
        rows = [(event, at) for _, event, at in self.store.events_since(mirror.match_id, 0)]
        mirror.hashes = wire.chain(rows)
        mirror.game = replay(record.game_id, record.players, record.options,
                             [event for event, _ in rows])
        mirror.summary = None

    def _lighten(self, mirror: Mirror) -> None:
        """A settled match: keep its summary and result, let its engine go."""
        mirror.summary = (mirror.count, mirror.last_hash)
        mirror.result = safe_result(mirror.game) if mirror.result is None else mirror.result
        mirror.hashes, mirror.game = None, None

    def _verdict(self, mirror: Mirror, msg: dict[str, Any]) -> str:
        """Try one message: ``applied``, ``stale`` (dropped), ``wait`` (the caller keeps
        it) or ``conflict`` (dropped; the table is asked for the match again)."""
        self.tries += 1
        verdict = self._try(mirror, msg)
        if verdict == "conflict":
            self._ask(mirror)
        return verdict

    def _try(self, mirror: Mirror, msg: dict[str, Any]) -> str:
        try:
            if msg["op"] == "cut":
                return self._cut(mirror, msg)
            return self._event(mirror, msg)
        except CompanionError as err:  # an illegal event, a store refusal
            self._say(logging.ERROR, "apply", mirror.table,
                      "club: %s/%s: cannot apply %s %s: %s", mirror.table, mirror.uid,
                      msg["op"], msg.get("seq", msg["gen"]), err)
            return "stale"

    def _cut(self, mirror: Mirror, msg: dict[str, Any]) -> str:
        gen, keep = msg["gen"], msg["keep"]
        if mirror.match_id is None:
            if keep:
                self._ask(mirror)
                return "wait"
            self._create(mirror, msg["match"])
        elif gen <= mirror.gen:
            return "stale"
        elif keep > mirror.count:
            return "wait"
        elif mirror.hashes[keep] != msg["hash"]:
            return "conflict"
        elif keep < mirror.count and mirror.state in SETTLED and mirror.hold != "accepted":
            return self._compare_from(mirror, gen, keep)
        else:
            self._truncate(mirror, keep, gen)
        mirror.gen = gen
        self._save(mirror)
        return "applied"

    def _event(self, mirror: Mirror, msg: dict[str, Any]) -> str:
        gen, seq = msg["gen"], msg["seq"]
        if mirror.candidate is not None and gen == mirror.candidate[0]:
            return self._compare(mirror, msg)
        if mirror.match_id is None or gen > mirror.gen:
            return "wait"
        if gen < mirror.gen:
            return "stale"
        if seq <= mirror.count:
            return "stale" if mirror.hashes[seq] == msg["hash"] else "conflict"
        if seq > mirror.count + 1:
            return "wait"
        event, at = msg["event"], float(msg["at"])
        if msg["prev"] != mirror.hashes[-1] or wire.link(msg["prev"], event, at) != msg["hash"]:
            return "conflict"
        assert mirror.game is not None and mirror.match_id is not None
        mirror.game.check(event)
        self.store.append(mirror.match_id, event, at=at)
        mirror.game.apply(event)
        mirror.hashes.append(msg["hash"])
        self.on_applied(at)
        return "applied"

    def _create(self, mirror: Mirror, header: dict[str, Any]) -> None:
        game_id = wire.need(header, "game_id", str)
        players = wire.need(header, "players", list)
        options = wire.need(header, "options", dict)
        started = self._believed(mirror, "started", wire.moment(header, "started"))
        mirror.game = new_match(game_id, players, options)  # the engine checks the setup
        mirror.match_id = self.store.import_match(
            game_id, list(mirror.game.players), mirror.game.options, [], started=started,
            finished=None, result=None, uid=mirror.uid, origin=mirror.table)
        mirror.hashes = [""]
        self._unknown.get(mirror.table, set()).discard(mirror.uid)
        if "offer" in header:
            self._claim_offer(mirror, header["offer"])

    def _claim_offer(self, mirror: Mirror, offer_id: Any) -> None:
        """The match says it was started from round offer ``offer_id``: kept with it
        when the offer is one this dashboard sent to the table it came from (or when
        this dashboard seated no night: the night's results check it there) and no
        other match from that table took it first; else it is a match like any other,
        and the claim is on record."""
        sent = self.offers_sent()
        if valid_offer_id(offer_id) and (sent is None or sent.get(offer_id) == mirror.table):
            first = taken_by(self.store, offer_id, mirror.table)
            if first in (None, mirror.uid):
                keep_offer(self.store, mirror.uid, offer_id, mirror.table)
                mirror.offer = offer_id
                return
            # A second match from one offer (a made-up one, or one dated before the
            # first): it would have replaced the round's result after it was shown.
            self.ledger.note(mirror.table, mirror.uid, "offer",
                             {"sent_to": mirror.table, "taken_by": first})
            self._say(logging.WARNING, "offer", mirror.table,
                      "club: %s: match %s claims a round offer match %s was started from; "
                      "it is a match like any other, never a round's result", mirror.table,
                      mirror.uid, first)
            return
        sent_to = sent.get(offer_id) if sent is not None and valid_offer_id(offer_id) else None
        self.ledger.note(mirror.table, mirror.uid, "offer", {"sent_to": sent_to})
        self._say(logging.WARNING, "offer", mirror.table,
                  "club: %s: match %s claims a round offer this dashboard did not send to "
                  "%s; it is a match like any other, never a round's result", mirror.table,
                  mirror.uid, mirror.table)

    def _truncate(self, mirror: Mirror, keep: int, gen: int) -> None:
        game = mirror.game
        assert mirror.match_id is not None and game is not None
        if keep == mirror.count:
            return
        if mirror.state in SETTLED:
            # A settled match rewritten later: a counted one only once the organiser
            # accepted it (review.py), any of them on the record, with what it was.
            record = self.store.match(mirror.match_id)
            dropped = game.events[keep:]
            self.ledger.note(mirror.table, mirror.uid, "rewritten", {
                "generation": [mirror.gen, gen], "events": [mirror.count, keep],
                "dropped": dropped[:50], "result": record.result, "was": mirror.state,
                "accepted": mirror.hold == "accepted"})
            self.ledger.uncount(mirror.uid)
            self.ledger.withdraw(mirror.uid)
            self._held_rows = None
            self.results += 1
            self._say(logging.WARNING, "rewritten", mirror.table,
                      "club: %s rewrote finished match %s: generation %d keeps %d of its %d "
                      "events", mirror.table, mirror.uid, gen, keep, mirror.count)
            mirror.state, mirror.hold = "playing", ""
        while mirror.count > keep:
            self.store.pop(mirror.match_id)
            mirror.hashes.pop()
        mirror.game = replay(game.game_id, game.players, game.options, game.events[:keep])

    def _save(self, mirror: Mirror) -> None:
        self.store.set_meta(MIRROR_KEY + mirror.uid, json.dumps(
            {"device": mirror.device, "gen": mirror.gen, "state": mirror.state,
             "count": mirror.count, "hash": mirror.last_hash, "id": mirror.match_id,
             "table": mirror.table, "hold": mirror.hold, "offer": mirror.offer}))

    def _settle(self, mirror: Mirror) -> None:
        """Finish or abandon the stored match once its log equals the retained state."""
        self._receipts_due.add(mirror.uid)
        info = mirror.info
        if info is None or mirror.match_id is None or mirror.waiting:
            return
        if (info["count"], info["hash"]) != (mirror.count, mirror.last_hash):
            return
        if info["state"] in ("playing", mirror.state) or mirror.state in ("refused", "held"):
            return  # nothing (new) to settle: no need to read the stored match
        if info["state"] == "finished" and not (mirror.game and mirror.game.over):
            # The engine has the last word: a log it does not see ended is not finished,
            # whatever a (faulty) table says; the match stays open for what follows.
            return
        record = self.store.match(mirror.match_id)
        try:
            if info["state"] == "finished" and record.finished is None:
                self._finish(mirror, info)
            elif info["state"] == "abandoned" and not record.abandoned:
                self.store.abandon(mirror.match_id)
                mirror.state = "abandoned"
                self.results += 1
            self._save(mirror)
            if mirror.state != "playing":
                self._lighten(mirror)
        except (StoreError, WireError) as err:
            self._say(logging.ERROR, "settle", mirror.table, "club: %s/%s: %s",
                      mirror.table, mirror.uid, err)

    def _finish(self, mirror: Mirror, info: dict[str, Any]) -> None:
        """Count the finished match with the engine's result, unless the table's claim
        disagrees with it or the same match is counted already (refused, on record), or
        its events are a counted match's with other times (held for the organiser)."""
        assert mirror.game is not None and mirror.match_id is not None
        game = mirror.game
        computed = json.loads(json.dumps(game.result()))
        claimed = info.get("result")
        if _canonical(claimed) != _canonical(computed):
            self._refuse(mirror, "claim", {"claimed": claimed, "computed": computed},
                         "its claimed result disagrees with its events")
            return
        mark = fingerprint(game.game_id, game.players, game.options, mirror.last_hash)
        twin = self.ledger.counted_as(mark)
        if twin is not None and twin != mirror.uid:
            self._refuse(mirror, "duplicate", {"same_as": twin},
                         f"it is match {twin} again (same players, options, events, times)")
            return
        at = self._believed(mirror, "finished", wire.moment(info, "finished"))
        like = self.ledger.counted_like(_content(game))
        if like is not None and like != mirror.uid:
            self._hold_duplicate(mirror, like, computed, at)
            return
        self._count(mirror, computed, at)

    def _count(self, mirror: Mirror, computed: Any, at: float) -> None:
        """Finish the stored match with ``computed`` at ``at``: the league counts it."""
        game = mirror.game
        assert game is not None and mirror.match_id is not None
        self.store.finish(mirror.match_id, computed, at=at)
        mirror.result = computed
        mark = fingerprint(game.game_id, game.players, game.options, mirror.last_hash)
        self.ledger.count(mark, mirror.uid, _content(game))
        mirror.state = "finished"
        self.results += 1

    def _believed(self, mirror: Mirror, what: str, told: float) -> float:
        """The table's time ``told`` for ``what``, or the dashboard's own receive time
        when the table's clock cannot be right (kept beside it in the audit trail)."""
        now = self.wall()
        if told == told and EARLIEST <= told <= now + SKEW:  # (NaN is not believed)
            return told
        self.ledger.note(mirror.table, mirror.uid, "clock",
                         {"what": what, "table_time": repr(told), "received": now})
        self._say(logging.WARNING, "clock", mirror.table,
                  "club: %s's clock is off (%s %r); match %s keeps the dashboard's time",
                  mirror.table, what, told, mirror.uid)
        return now

    def _refuse(self, mirror: Mirror, what: str, detail: dict[str, Any], why: str) -> None:
        self.ledger.note(mirror.table, mirror.uid, what, detail)
        self._say(logging.ERROR, what, mirror.table, "club: %s: match %s not counted: %s",
                  mirror.table, mirror.uid, why)
        mirror.state = "refused"


def _content(game: Any) -> str:
    """The match's fingerprint without its times (the same events, whenever played),
    and without its spelling: "ann" for "Ann" is the same player (one
    :func:`~companion.names.player_key`), in the seats, the options and the events."""
    seated = list(game.players)
    return fingerprint(game.game_id, [player_key(name) for name in seated],
                       _plain(as_seats(dict(game.options), seated)),
                       content_digest(_plain(as_seats(list(game.events), seated))))


def _plain(part: Any) -> Any:
    """:func:`~companion.names.as_seats`'s seats as JSON can write them, keys too: a
    seat is ``"\\u0000seat N"``, a string no name or event field holds (names refuse
    control characters)."""
    if isinstance(part, tuple):
        return f"\u0000seat {part[1]}"
    if isinstance(part, list):
        return [_plain(item) for item in part]
    if isinstance(part, dict):
        return {_plain(key): _plain(item) for key, item in part.items()}
    return part


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
