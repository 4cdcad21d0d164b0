"""The dashboard's side: every table's matches, kept in one ordinary :class:`Store`.

A :class:`Receiver` takes club messages in whatever order and number the broker
delivers them and keeps the store equal, event for event, to each device's own log:

- a message already applied (same generation, seq and chain hash) is dropped;
- one from an older generation is dropped (an undo or a restart replaced it);
- one that comes too early (a gap before it, or a generation whose cut has not arrived)
  waits in the match's buffer (keyed by generation and seq, so a flood of them costs
  linear work, and at most :data:`MAX_WAITING` per match) until what it follows is there;
- a message that contradicts what is stored (another chain hash at the same place) asks
  the table to send the match again (``sync``), as does a match that stays behind what
  its retained state says (:meth:`Receiver.behind`): a dashboard that starts late, or a
  broker that lost its queue, catches up that way.

What it stores it confirms: :meth:`Receiver.receipts` sends each table, on its receipt
topic, "stored up to seq N of match uid" (the table's outbox mark moves on that only).

Results are recomputed, never taken: every event goes through the game's engine before
it is stored, and a finished match is counted with the engine's result. A table's claim
that disagrees, the same match again under a new uid (same content fingerprint), or a
match whose uid does not carry the device id of the table that sent it is refused, in
one log line and a row of the :class:`~companion.club.ledger.Ledger`'s audit trail; so
is a finished match rewritten by a later generation kept on record there.

Matches are stored with ``origin`` = the table's name, so stats, export, History and
ratings work across the club.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.club import wire
from companion.club.ledger import Ledger, fingerprint
from companion.errors import CompanionError, StoreError
from companion.games import Match, new_match, replay
from companion.store import UID_DEVICE_DIGITS
from companion.table.dice import entered_dice
from companion.words import counted

log = logging.getLogger("companion.club")

#: Meta key prefix under which the dashboard keeps each mirrored match's device and
#: generation.
MIRROR_KEY = "club:"
#: A table's time is believed when it lies between this (2020-01-01) and a few minutes
#: past the dashboard's own clock; else the dashboard's receive time stands in for it
#: (a table whose clock is wrong must not put "9600 h played" in the league).
EARLIEST = 1_577_836_800.0
SKEW = 600.0
#: Most messages one match may hold waiting for what they follow; past that the newest
#: is dropped and the table asked to send the match again (a hostile or broken table
#: cannot fill the dashboard's memory).
MAX_WAITING = 2000
#: A match that stays behind while its table does not answer is asked for again less and
#: less often (``sync_every``, twice that, ... up to this many seconds): a retained state
#: of a match its table no longer has (a replaced SD card) or a flood of made-up ones
#: must not cost a sync message every few seconds each, for ever.
ASK_MAX = 300.0


@dataclass
class Mirror:
    """One device match as the dashboard holds it."""

    uid: str
    table: str
    device: str = ""
    match_id: int | None = None
    gen: int = 0
    hashes: list[str] | None = field(default_factory=lambda: [""])
    game: Match | None = None
    #: A settled match keeps only its length, chain hash and result, not its engine nor
    #: its hashes (a club with years of history): (count, hash); ``hashes`` is None then.
    summary: tuple[int, str] | None = None
    result: dict[str, Any] | None = None
    cuts: dict[int, dict[str, Any]] = field(default_factory=dict)  # waiting, by gen
    events: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    info: dict[str, Any] | None = None
    state: str = "playing"   # as stored: playing, finished, abandoned; or refused
    checked: tuple[int, int] | None = None  # (gen, count) at the last behind() check
    unanswered: int = 0  # behind() asks since the match last made progress

    @property
    def count(self) -> int:
        return self.summary[0] if self.hashes is None else len(self.hashes) - 1

    @property
    def last_hash(self) -> str:
        return self.summary[1] if self.hashes is None else self.hashes[-1]

    @property
    def waiting(self) -> int:
        return len(self.cuts) + len(self.events)

    def behind(self) -> bool:
        """Its retained state says more than is stored, or messages wait in the buffer."""
        if self.waiting:
            return True
        info = self.info
        if info is None:
            return False
        if (info["gen"], info["count"]) == (self.gen, self.count):
            return info["hash"] != self.last_hash
        return (info["gen"], info["count"]) > (self.gen, self.count)


class Receiver:
    """Applies club messages to ``store`` (owned by the caller's thread).

    ``request(topic, payload)`` publishes: a ``sync`` to ask a table for a match again
    (spaced ``sync_every`` seconds apart on ``clock`` per match) and the receipts.
    ``ledger`` is the dashboard's book (default: one in memory).
    """

    def __init__(
        self,
        store: Any,
        request: Callable[[str, bytes], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        sync_every: float = 3.0,
        ledger: Ledger | None = None,
        wall: Callable[[], float] = time.time,
    ):
        self.store = store
        self.request = request
        self.clock = clock
        self.sync_every = sync_every
        self.ledger = ledger or Ledger()
        self.wall = wall
        #: Grows whenever a stored result changes (a match finished, reopened, abandoned):
        #: the key of the league the club page shows.
        self.results = 0
        self.mirrors: dict[str, Mirror] = {}
        self.tables: dict[str, dict[str, Any]] = {}
        self._asked: dict[str, float] = {}
        self._receipts_due: set[str] = set()
        #: How many times a buffered or arriving message was tried (the work a flood of
        #: out-of-order messages costs: tests count it, never time it).
        self.tries = 0
        #: Called (uid; "" for a table's status) after something changed (the web page).
        self.changed: Callable[[str], None] = lambda uid: None
        #: Called with an event's time of play once it is stored (``bench --club``).
        self.on_applied: Callable[[float], None] = lambda at: None
        self._views: dict[str, dict[str, Any]] = {}

    # -- messages ------------------------------------------------------------------

    def handle(self, topic: str, data: bytes, retained: bool = False) -> None:
        """One message from the broker (``retained``: the broker's kept copy, which says
        nothing of when the table was last heard); a bad one is logged and dropped."""
        try:
            where = wire.parse_topic(topic)
            if not retained:
                self._heard(where.table)
            if not data:
                return  # a retained message being cleared
            payload = wire.decode(data)
            if where.kind == "status":
                self._status(where.table, payload)
            elif where.kind == "match":
                self._info(where.table, where.uid, payload)
            elif where.kind == "log":
                self._log(where.table, where.uid, payload)
        except wire.WireError as err:
            log.warning("club: dropped a message on %s: %s", topic[:200], err)

    def _status(self, table: str, payload: dict[str, Any]) -> None:
        wire.need(payload, "online", bool)
        unconfirmed = payload.get("unconfirmed", 0)
        if not isinstance(unconfirmed, int) or isinstance(unconfirmed, bool) or \
                not 0 <= unconfirmed <= 10**6:
            unconfirmed = 0
        before = self.tables.get(table, {}).get("unconfirmed", 0)
        if unconfirmed and unconfirmed != before:
            # The table sends them again until a receipt comes; if this stays, its
            # receipts do not reach it (its login, the ACL) or its messages do not
            # reach the dashboard.
            log.warning("club: %s: %s not confirmed", table, counted(unconfirmed, "match"))
        # What a table says of itself is only believed in its shape: a "current" that
        # is a list or an object would break every later snapshot (the club page).
        self.tables[table] = {"table": table, "online": payload["online"],
                              "device": _text(payload.get("device")),
                              "current": _text(payload.get("current")),
                              "unconfirmed": unconfirmed,
                              "last_seen": self.ledger.last_seen(table)}
        self.changed("")

    def _heard(self, table: str) -> None:
        """The table spoke just now: its "last seen" (kept in the ledger, so a restarted
        dashboard still knows it)."""
        now = self.wall()
        if self.ledger.seen(table, now) and table in self.tables:
            self.tables[table]["last_seen"] = now
            self.changed("")

    def _info(self, table: str, uid: str, payload: dict[str, Any]) -> None:
        for key in ("gen", "count"):
            wire.need(payload, key, int)
        wire.need(payload, "hash", str)
        if payload.get("state") not in wire.STATES:
            raise wire.WireError("'state' is not playing, finished or abandoned")
        mirror = self._mirror(table, uid, payload)
        if mirror is None:
            return
        if mirror.info is None or wire.info_key(payload) >= wire.info_key(mirror.info):
            mirror.info = payload
        if mirror.match_id is None and not mirror.waiting:
            self._ask(mirror)  # a match we never saw the start of (a late dashboard)
        self._settle(mirror)
        self._touch(mirror)

    def _log(self, table: str, uid: str, payload: dict[str, Any]) -> None:
        op = payload.get("op")
        wire.need(payload, "gen", int)
        if op == "cut":
            wire.need(payload, "keep", int)
            wire.need(payload, "hash", str)
            wire.need(payload, "match", dict)
        elif op == "event":
            wire.need(payload, "seq", int)
            for key in ("prev", "hash"):
                wire.need(payload, key, str)
            wire.need(payload, "event", dict)
            wire.moment(payload, "at")
        else:
            raise wire.WireError(f"unknown log op {op!r}")
        mirror = self._mirror(table, uid, payload)
        if mirror is None:
            return
        if mirror.hashes is None:
            self._hydrate(mirror)  # a settled match hears of its log again
        verdict = self._verdict(mirror, payload)
        if verdict == "wait":
            self._hold(mirror, payload)
        elif verdict == "applied":
            self._drain(mirror)
        self._settle(mirror)
        self._touch(mirror)

    def _mirror(self, table: str, uid: str, payload: Mapping[str, Any]) -> Mirror | None:
        """The match's mirror, or None (logged) when this table may not speak for it: the
        uid must carry the device's id, the device must be the table's, and a match
        seen from one table stays that table's."""
        device = wire.need(payload, "device", str)
        mirror = self.mirrors.get(uid)
        if mirror is not None and mirror.device == device and mirror.table == table:
            return mirror  # the common case, checked when the mirror was made
        if len(device) < UID_DEVICE_DIGITS or not uid.startswith(device[:UID_DEVICE_DIGITS]):
            log.warning("club: %s sent match %s, which was not made on its device %s; "
                        "dropped", table, uid[:40], device[:40])
            return None
        if not self.ledger.claim(table, device):
            log.warning("club: device %s is %s's, not %s's; a message for match %s "
                        "dropped", device[:40], self.ledger.table_of(device), table, uid[:40])
            return None
        mirror = mirror or self._load(table, uid)
        if mirror.device and mirror.device != device or mirror.table != table:
            log.warning("club: %s/%s claims match %s of another device; dropped",
                        table, device[:40], uid[:40])
            return None
        mirror.device = device
        return mirror

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
                                summary=(int(note["count"]), str(note["hash"])), state=state)
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
        mirror.result = _safe_state(mirror.game) if mirror.result is None else mirror.result
        mirror.hashes, mirror.game = None, None

    # -- applying a match's log ------------------------------------------------------

    def _hold(self, mirror: Mirror, msg: dict[str, Any]) -> None:
        """Keep a message that comes too early, keyed by where it goes (a duplicate
        replaces its twin: nothing grows but the distinct places)."""
        if mirror.waiting >= MAX_WAITING:
            log.warning("club: %s/%s: more than %d messages wait; dropped one, asking "
                        "again", mirror.table, mirror.uid, MAX_WAITING)
            self._ask(mirror)
            return
        if msg["op"] == "cut":
            mirror.cuts[msg["gen"]] = msg
        else:
            mirror.events[(msg["gen"], msg["seq"])] = msg

    def _drain(self, mirror: Mirror) -> None:
        """After something applied: apply what waited for it, each message tried once
        more at most per step (the next event of the generation, then waiting cuts)."""
        gen = None
        while mirror.waiting:
            if gen != mirror.gen:  # a new generation makes older waiting ones stale
                gen = mirror.gen
                self._drop_stale(mirror)
            nxt = mirror.events.pop((mirror.gen, mirror.count + 1), None)
            if nxt is not None:
                verdict = self._verdict(mirror, nxt)
                if verdict == "wait":
                    self._hold(mirror, nxt)
                    return
                continue
            if not self._next_cut(mirror):
                return

    def _next_cut(self, mirror: Mirror) -> bool:
        """Apply the oldest waiting cut that can be applied now; False if none can."""
        for gen in sorted(mirror.cuts):
            msg = mirror.cuts[gen]
            if self._could_cut(mirror, msg):
                del mirror.cuts[gen]
                self._verdict(mirror, msg)
                return True
        return False

    @staticmethod
    def _could_cut(mirror: Mirror, msg: dict[str, Any]) -> bool:
        if mirror.match_id is None:
            return msg["keep"] == 0
        return msg["keep"] <= mirror.count

    @staticmethod
    def _drop_stale(mirror: Mirror) -> None:
        """Forget waiting messages of generations older than the mirror's (called once
        per generation the mirror moves to, so a flood costs linear work)."""
        for gen in [g for g in mirror.cuts if g <= mirror.gen]:
            del mirror.cuts[gen]
        for key in [k for k in mirror.events if k[0] < mirror.gen]:
            del mirror.events[key]

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
            log.error("club: %s/%s: cannot apply %s %s: %s", mirror.table, mirror.uid,
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
        else:
            self._truncate(mirror, keep, gen)
        mirror.gen = gen
        self._save(mirror)
        return "applied"

    def _event(self, mirror: Mirror, msg: dict[str, Any]) -> str:
        gen, seq = msg["gen"], msg["seq"]
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

    def _truncate(self, mirror: Mirror, keep: int, gen: int) -> None:
        game = mirror.game
        assert mirror.match_id is not None and game is not None
        if keep == mirror.count:
            return
        if mirror.state in ("finished", "refused"):
            # A finished match rewritten later: allowed (an undo of the last hand), but
            # on the record, with what it was.
            record = self.store.match(mirror.match_id)
            dropped = game.events[keep:]
            self.ledger.note(mirror.table, mirror.uid, "rewritten", {
                "generation": [mirror.gen, gen], "events": [mirror.count, keep],
                "dropped": dropped[:50], "result": record.result, "was": mirror.state})
            self.ledger.uncount(mirror.uid)
            self.results += 1
            log.warning("club: %s rewrote finished match %s: generation %d keeps %d of "
                        "its %d events", mirror.table, mirror.uid, gen, keep, mirror.count)
            mirror.state = "playing"
        while mirror.count > keep:
            self.store.pop(mirror.match_id)
            mirror.hashes.pop()
        mirror.game = replay(game.game_id, game.players, game.options, game.events[:keep])

    def _save(self, mirror: Mirror) -> None:
        self.store.set_meta(MIRROR_KEY + mirror.uid, json.dumps(
            {"device": mirror.device, "gen": mirror.gen, "state": mirror.state,
             "count": mirror.count, "hash": mirror.last_hash, "id": mirror.match_id,
             "table": mirror.table}))

    def _settle(self, mirror: Mirror) -> None:
        """Finish or abandon the stored match once its log equals the retained state."""
        self._receipts_due.add(mirror.uid)
        info = mirror.info
        if info is None or mirror.match_id is None or mirror.waiting:
            return
        if (info["count"], info["hash"]) != (mirror.count, mirror.last_hash):
            return
        if info["state"] in ("playing", mirror.state) or mirror.state == "refused":
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
        except (StoreError, wire.WireError) as err:
            log.error("club: %s/%s: %s", mirror.table, mirror.uid, err)

    def _finish(self, mirror: Mirror, info: dict[str, Any]) -> None:
        """Count the finished match with the engine's result, unless the table's claim
        disagrees with it or the same match is counted already (refused, on record)."""
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
        self.store.finish(mirror.match_id, computed, at=at)
        mirror.result = computed
        self.ledger.count(mark, mirror.uid)
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
        log.warning("club: %s's clock is off (%s %r); match %s keeps the dashboard's "
                    "time", mirror.table, what, told, mirror.uid)
        return now

    def _refuse(self, mirror: Mirror, what: str, detail: dict[str, Any], why: str) -> None:
        self.ledger.note(mirror.table, mirror.uid, what, detail)
        log.error("club: %s: match %s not counted: %s", mirror.table, mirror.uid, why)
        mirror.state = "refused"

    # -- receipts: what the dashboard has stored, for each table -------------------------

    def receipts(self) -> int:
        """Send each table a receipt for every match that changed or was sent again since
        the last call ("stored up to seq N of match uid, chain hash H, state S"); how
        many. The dashboard calls it whenever its queue runs dry."""
        sent = 0
        for uid in sorted(self._receipts_due):
            mirror = self.mirrors.get(uid)
            if mirror is None or mirror.match_id is None:
                continue
            self.request(wire.receipt_topic(mirror.table), wire.encode({
                "uid": uid, "gen": mirror.gen, "seq": mirror.count,
                "hash": mirror.last_hash, "state": mirror.state}))
            sent += 1
        self._receipts_due.clear()
        return sent

    # -- asking a table for a match again --------------------------------------------------

    def behind(self) -> list[str]:
        """Ask again for every match that made no progress since the last call while
        behind; the uids asked for. Call it every ``sync_every`` seconds or so."""
        asked = []
        now = self.clock()
        for mirror in self.mirrors.values():
            mark = (mirror.gen, mirror.count)
            if not mirror.behind() or mirror.checked != mark:
                mirror.unanswered = 0  # progress: ask at the normal pace again
            else:
                wait = min(self.sync_every * 2 ** min(mirror.unanswered, 16), ASK_MAX)
                last = self._asked.get(mirror.uid)
                if (last is None or now - last >= wait) and self._ask(mirror):
                    asked.append(mirror.uid)
                    mirror.unanswered += 1
            mirror.checked = mark
        return asked

    def any_behind(self) -> bool:
        return any(mirror.behind() for mirror in self.mirrors.values())

    def _ask(self, mirror: Mirror) -> bool:
        last = self._asked.get(mirror.uid)
        when = self.clock()
        if last is not None and when - last < self.sync_every:
            return False
        self._asked[mirror.uid] = when
        self.request(wire.sync_topic(mirror.table), wire.encode(
            {"uid": mirror.uid, "have": mirror.count, "hash": mirror.last_hash}))
        return True

    # -- the live view ---------------------------------------------------------------------

    def _touch(self, mirror: Mirror) -> None:
        """The match changed: its view is made again when a snapshot needs it (only a
        table's current match is ever shown, so a restart's thousands cost nothing)."""
        self._views.pop(mirror.uid, None)
        self.changed(mirror.uid)

    def snapshot(self) -> dict[str, Any]:
        """Every table as plain JSON: online, its current match and the match's state
        (each match's view is made when it changes, so this stays cheap)."""
        tables = {}
        for name, status in sorted(self.tables.items()):
            entry = dict(status)
            entry["match"] = self._view(status.get("current") or "")
            tables[name] = entry
        return {"tables": tables}

    def _view(self, uid: str) -> dict[str, Any] | None:
        view = self._views.get(uid)
        mirror = self.mirrors.get(uid)
        if view is None and mirror is not None:
            view = self._views[uid] = self._match_view(mirror)
        return view

    def _result(self, mirror: Mirror) -> dict[str, Any] | None:
        """A settled match's stored result (read once, when it is first shown)."""
        if mirror.result is None and mirror.match_id is not None:
            mirror.result = self.store.match(mirror.match_id).result
        return mirror.result

    def _match_view(self, mirror: Mirror) -> dict[str, Any]:
        info = mirror.info or {}
        game = mirror.game
        return {
            "uid": mirror.uid,
            "game_id": info.get("game_id") or (game.game_id if game else None),
            "players": list(game.players) if game else info.get("players", []),
            "events": mirror.count,
            "state": mirror.state if mirror.state == "refused" else info.get("state", "playing"),
            "standings": _safe_state(game) if game else self._result(mirror),
            "behind": mirror.behind(),
            "entered_dice": self._entered_dice(mirror),
        }

    def _entered_dice(self, mirror: Mirror) -> bool:
        """True when the match holds faces the table typed in from real dice ("entered":
        true, ``[dice] physical``) rather than rolled by its device: the page says so."""
        if mirror.game is not None:
            return entered_dice(mirror.game.events) > 0
        if mirror.match_id is None:
            return False
        return mirror.match_id in self.store.with_entered_dice([mirror.match_id])


def _text(value: Any) -> str | None:
    """A short string a table said of itself, or None (anything else)."""
    return value if isinstance(value, str) and len(value) <= 200 else None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _safe_state(game: Match | None) -> dict[str, Any] | None:
    if game is None:
        return None
    try:
        return game.result()
    except Exception:  # noqa: BLE001 - a view must not break the dashboard
        return None
