"""The device's side of club mode: publish the game log, with the log itself as outbox.

A :class:`Publisher` is a thread with its own connection to the store's file (SQLite WAL
lets the app's connection and this one work side by side; a write waits out the other
briefly with the busy timeout). So the app's thread never waits for the broker, nor for
this thread: after an event or an undo it only calls :meth:`Publisher.signal`, which
puts an item on a queue. The Store object itself stays owned by the app's thread.

Delivered means the dashboard has it, not the broker: a broker acknowledges a message it
then loses in a crash, and MQTT 3.1.1 acknowledges a publish its ACL denied. So the
outbox mark (``matches.published``, moved by :meth:`Store.mark_published` only if the
log did not change meanwhile; an undo lowers it in the same transaction) moves only on
the dashboard's own receipt ("stored up to seq N of match uid, chain hash H, state S")
on ``companion/<table>/receipt``. Until a match is confirmed whole, this thread sends it
again, on a timer of its own (every ``resend_every`` seconds, then less and less often),
and counts it as *not confirmed*: the OLED's club mark and the table's retained status
say so. The receiver drops what it already has (see :mod:`companion.club.wire` for the
generations that make that safe with undo).
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.club import wire
from companion.club.offers import device_offer, offers_started
from companion.club.rounds import already_started, parse_offer, round_topic
from companion.config import Club
from companion.errors import CompanionError, StoreError, WireError
from companion.store import PUBLISHED_STATE

log = logging.getLogger("companion.club")

Row = tuple[dict[str, Any], float]
#: The meta key of the device's generation counter.
GEN_KEY = "club-gen"


#: The first resend of an unconfirmed match waits this long (seconds); each further
#: one waits twice as long as the last, up to :data:`RESEND_MAX`.
RESEND_EVERY = 5.0
RESEND_MAX = 120.0
#: The table's MQTT keepalive (seconds). A table whose link stalls (Wi-Fi gone, power
#: cut) is shown offline by its will once the broker gives up on it: when it has heard
#: nothing for more than 1.5 times this (whole seconds, so 7 s here) at one of its
#: checks, which Mosquitto 2.0.11 (Debian 12) makes only every 6 s. With 10 s that was
#: 16 to 22 s after the table's last packet (17.6 s median measured); with 4 s it is at
#: most 14 s (paho pings an idle broker every 4 s: a few bytes).
KEEPALIVE = 4


@dataclass
class Outgoing:
    """What this thread knows of one match's stream (rebuilt after a restart)."""

    match_id: int
    uid: str
    header: dict[str, Any]
    rows: list[Row]          # the log as last read
    hashes: list[str]        # chain hashes of ``rows``
    mark: int                # the store's published mark: what a dashboard confirmed
    gen: int = 0
    keep: int = 0
    cut_sent: bool = False
    cut_confirmed: bool = False  # a receipt showed the dashboard has this generation
    sent_upto: int = 0       # events keep+1 .. sent_upto are published in this gen
    exposed: int = 0         # the highest seq ever handed to the broker in this gen
    state: str = "playing"
    finished: float | None = None
    result: dict[str, Any] | None = None
    info_sent: tuple[int, int, str] | None = None
    receipt: tuple[int, str, str] | None = None  # (seq, hash, state) last confirmed
    resend_at: float | None = None  # when to send it again if still not confirmed
    resends: int = 0         # resends since the last receipt that moved anything

    def confirmed(self) -> bool:
        """A dashboard has stored the whole log as it is now, in its present state (or
        stored it and refused to count it: that is final too, and logged there; or
        holds it for the organiser, who decides there)."""
        if self.receipt is None:
            return False
        seq, digest, state = self.receipt
        return (seq == len(self.rows) and digest == self.hashes[-1]
                and (state in (self.state, "held")
                     or (state, self.state) == ("refused", "finished")))


class Publisher:
    """Publishes this device's matches under ``companion/<table>/`` (see the module doc).

    ``link_factory(post)`` makes the broker connection (default: a
    :class:`~companion.club.mqtt.BrokerLink` from ``club``); ``on_link(up)`` is called
    from this thread when the link comes up or goes down, ``on_lag(n)`` when the number
    of matches a dashboard has not confirmed (after a resend) changes (the OLED's mark).
    ``clock`` times the resends (:data:`RESEND_EVERY`).
    """

    def __init__(
        self,
        club: Club,
        db_path: str | Path,
        *,
        on_link: Callable[[bool], None] = lambda up: None,
        on_lag: Callable[[int], None] = lambda count: None,
        link_factory: Callable[[Callable[..., None], str, bytes], Any] | None = None,
        retry: tuple[float, float] = (0.5, 10.0),
        resend_every: float = RESEND_EVERY,
        clock: Callable[[], float] = time.monotonic,
        on_round: Callable[[Any], None] = lambda offer: None,
    ):
        self.club = club
        self.on_round = on_round  # a round the organiser seated (companion.club.rounds)
        self.table = club.table
        self.db_path = Path(db_path)
        self.on_link = on_link
        self.on_lag = on_lag
        self.retry = retry
        self.resend_every = resend_every
        self.clock = clock
        self._link_factory = link_factory
        self.queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self.up = False
        self._thread: threading.Thread | None = None
        self._matches: dict[int, Outgoing] = {}
        self._current: str | None = None
        self._current_id = 0
        self._status_sent: tuple[bool, str | None, int] | None = None
        self.lagging = 0
        self.device = ""
        self._why = ""  # the last reason the broker could not be reached
        self.offered: Any = None  # the last round offered to the table

    # -- what other threads call (never blocks) ------------------------------------

    def start(self) -> Publisher:
        self._thread = threading.Thread(target=self._run, name="club-publisher", daemon=True)
        self._thread.start()
        return self

    def signal(self, match_id: int | None = None) -> None:
        """Something changed in this match (None: look at every unpublished match)."""
        self.queue.put(("signal", match_id))

    def listener(self, session: Any, event: Any, undone: bool = False) -> None:
        """A :class:`~companion.session.Session` listener: signal the session's match."""
        self.signal(getattr(session, "match_id", None))

    def stop(self, timeout: float = 5.0) -> None:
        self.queue.put(("stop",))
        if self._thread is not None:
            self._thread.join(timeout)

    def post(self, *item: Any) -> None:
        self.queue.put(item)

    # -- the publisher's thread ----------------------------------------------------

    def _run(self) -> None:
        from companion.store import Store

        try:
            store = Store(self.db_path)
        except StoreError as err:
            log.error("club mode off: %s", err)
            return
        link = None
        try:
            self.device = store.device_id()
            link = self._open_link()
            self.attach(store, link)
            while True:
                try:
                    item = self.queue.get(timeout=self._until_resend())
                except queue.Empty:
                    item = ("tick",)
                if item[0] == "stop":
                    break
                self._guarded(item)
        except CompanionError as err:
            log.error("club mode off: %s", err)
        finally:
            if link is not None:
                if self.up:
                    self._publish(wire.status_topic(self.table), self._status(False),
                                  retain=True)
                link.stop()
            store.close()

    def attach(self, store: Any, link: Any) -> None:
        """Start publishing ``store`` over ``link`` (on the calling thread, which then
        owns both; :meth:`start` does this on the publisher's own thread)."""
        self.store, self.link = store, link
        self.device = store.device_id()
        newest = store.unfinished() or next(iter(store.history(1)), None)
        if newest is not None:
            self._current, self._current_id = newest.uid, newest.id
        self._pass_all()

    def handle(self, item: tuple[Any, ...]) -> None:
        """Handle ``item`` and whatever it queued, as the thread would (tests call it)."""
        self._guarded(item)
        while not self.queue.empty():
            self._guarded(self.queue.get_nowait())

    def _open_link(self) -> Any:
        will = wire.encode({"device": self.device, "table": self.table, "online": False})
        if self._link_factory is not None:
            return self._link_factory(self.post, wire.status_topic(self.table), will)
        from companion.club.mqtt import BrokerLink

        club = self.club
        # The client id is the table's login (the broker's use_username_as_clientid does
        # the same), never something on the open club page: an id a neighbour can work
        # out is one they can connect with and knock this table offline.
        client_id = club.username or f"companion-{self.table}-{secrets.token_hex(6)}"
        return BrokerLink(
            wire.Broker.parse(club.broker), client_id,
            self.post, username=club.username, password=club.password,
            ca_file=club.ca_file, will=(wire.status_topic(self.table), will),
            subscribe=[wire.sync_topic(self.table), wire.receipt_topic(self.table),
                       round_topic(self.table)],
            retry=self.retry, keepalive=KEEPALIVE,
        ).start()

    def _guarded(self, item: tuple[Any, ...]) -> None:
        try:
            self._handle(item)
        except StoreError as err:  # the game goes on; the next signal tries again
            log.error("club publisher: %s", err)
        except Exception:  # noqa: BLE001 - a club bug must never stop the table
            log.exception("club publisher failed on %r", item[0])

    def _handle(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "signal":
            if item[1] is None:
                self._pass_all()
            else:
                self._pass(item[1])
        elif kind == "tick":
            self._resend_due()
        elif kind == "up":
            self.up, self._why = True, ""
            self._status_sent = None
            for out in self._matches.values():
                self._rewind(out)
            self._pass_all()
            self._send_status()  # online at once, not at the next event
            self.on_link(True)
        elif kind == "down":
            self.up = False
            self.on_link(False)
        elif kind == "failed":
            if item[1] != self._why:  # once per reason, not at every retry
                log.warning("club: cannot reach the broker %s: %s; retrying",
                            self.club.broker, item[1])
            self._why = item[1]
        elif kind == "message" and item[1] == round_topic(self.table):
            self._round(item[2])
        elif kind == "message":
            where = _topic(item[1])
            if where == "receipt":
                self._receipt(item[2])
            elif where == "sync":
                self._sync_request(item[2])
        # ("acked", mid): the broker has a message; that proves nothing (module doc)

    def _pass_all(self) -> None:
        for match_id in sorted(set(self.store.unpublished()) | set(self._matches)):
            self._pass(match_id)

    # -- one match -----------------------------------------------------------------

    def _pass(self, match_id: int) -> None:
        # The log and the match's state as of one moment: the app's thread writes
        # meanwhile, and a log read before its last events paired with "finished" read
        # after them would tell the club the match ended short.
        with self.store.one_moment():
            out = self._matches.get(match_id)
            new_gen = out is None or self._refresh(out)
            if out is None:
                out = self._load(match_id)
            record = self.store.match(match_id)
        if new_gen:
            self._new_gen(out, out.mark)
        out.state = record.state
        out.finished, out.result = record.finished, record.result
        if match_id >= self._current_id:  # the table shows its newest match
            self._current, self._current_id = out.uid, match_id
        if self.up:
            self._send(out)
        self._settle(out)

    def _load(self, match_id: int) -> Outgoing:
        record = self.store.match(match_id)
        rows = [(event, at) for _, event, at in self.store.events_since(match_id, 0)]
        header = {"game_id": record.game_id, "players": list(record.players),
                  "options": record.options, "started": record.started}
        offer_id = device_offer(self.store, record.uid)
        if offer_id:  # started from the club round's offer: the round's result
            header["offer"] = offer_id
        out = Outgoing(match_id, record.uid, header, rows, wire.chain(rows),
                       self.store.published(match_id))
        self._matches[match_id] = out
        return out

    def _refresh(self, out: Outgoing) -> bool:
        """Read what changed since the mark; True when that changed anything already
        published (an undo): then a new generation must start."""
        mark = self.store.published(out.match_id)
        fresh = [(event, at) for _, event, at in self.store.events_since(out.match_id, mark)]
        rows = out.rows[:mark] + fresh
        same = mark
        while same < min(len(rows), len(out.rows)) and rows[same] == out.rows[same]:
            same += 1
        out.hashes = out.hashes[:same] + wire.chain(rows[same:], out.hashes[same])
        out.rows, out.mark = rows, mark
        out.sent_upto = min(out.sent_upto, same)
        return same < out.exposed

    def _new_gen(self, out: Outgoing, keep: int) -> None:
        gen = int(self.store.meta(GEN_KEY) or 0) + 1
        self.store.set_meta(GEN_KEY, str(gen))
        out.gen, out.keep = gen, keep
        out.cut_sent = out.cut_confirmed = False
        out.sent_upto = out.exposed = min(keep, out.mark)
        out.info_sent = None

    def _rewind(self, out: Outgoing) -> None:
        """Send again whatever no dashboard has confirmed (after a reconnect, or when
        its receipt is overdue): the cut unless a receipt showed it arrived, the events
        after the confirmed mark, the match's state."""
        out.cut_sent = out.cut_confirmed
        start = max(out.keep, out.mark) if out.cut_confirmed else out.keep
        out.sent_upto = min(out.sent_upto, start)
        out.info_sent = None

    def _send(self, out: Outgoing) -> None:
        table, uid = self.table, out.uid
        if not out.cut_sent:
            self._publish(wire.log_topic(table, uid), wire.encode({
                "op": "cut", "device": self.device, "uid": uid, "gen": out.gen,
                "keep": out.keep, "hash": out.hashes[out.keep], "match": out.header,
            }))
            out.cut_sent = True
        for seq in range(out.sent_upto + 1, len(out.rows) + 1):
            event, at = out.rows[seq - 1]
            self._publish(wire.log_topic(table, uid), wire.encode({
                "op": "event", "device": self.device, "uid": uid, "gen": out.gen,
                "seq": seq, "prev": out.hashes[seq - 1], "hash": out.hashes[seq],
                "event": event, "at": at,
            }))
        out.sent_upto = len(out.rows)
        out.exposed = max(out.exposed, out.sent_upto)
        key = (out.gen, len(out.rows), out.state)
        if out.info_sent != key:
            self._publish(wire.match_topic(table, uid), wire.encode(self._info(out)),
                          retain=True)
            out.info_sent = key
        if out.resend_at is None and not out.confirmed():
            out.resend_at = self.clock() + self.resend_every
        self._send_status()

    def _send_status(self) -> None:
        status = (True, self._current, self.lagging)
        if self.up and self._status_sent != status:
            self._publish(wire.status_topic(self.table), self._status(True), retain=True)
            self._status_sent = status

    def _info(self, out: Outgoing) -> dict[str, Any]:
        return {"device": self.device, "uid": out.uid, "table": self.table, **out.header,
                "gen": out.gen, "count": len(out.rows), "hash": out.hashes[-1],
                "state": out.state, "finished": out.finished, "result": out.result}

    def _status(self, online: bool) -> bytes:
        return wire.encode({"device": self.device, "table": self.table, "online": online,
                            "current": self._current, "unconfirmed": self.lagging})

    def _publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        self.link.publish(topic, payload, retain=retain)

    # -- receipts: what a dashboard has stored -----------------------------------------

    def _receipt(self, data: bytes) -> None:
        try:
            uid, gen, seq, digest, state = wire.fields(
                data, ("uid", str), ("gen", int), ("seq", int), ("hash", str), ("state", str))
            if state not in wire.RECEIPT_STATES:
                raise WireError(f"a receipt's state is not {wire.RECEIPT_STATES}")
        except WireError as err:
            log.warning("club: bad receipt: %s", err)
            return
        match_id = self.store.find_uid(uid)
        out = None if match_id is None else self._matches.get(match_id)
        if out is None or seq > len(out.rows) or out.hashes[seq] != digest:
            return  # settled already, or a receipt for a log this table no longer has
        moved = False
        if gen >= out.gen:
            moved = not out.cut_confirmed
            out.cut_confirmed = True
        if seq > out.mark:
            if not self.store.mark_published(out.match_id, out.mark, seq,
                                             out.rows[out.mark:seq]):
                self.signal(out.match_id)  # the log changed meanwhile: look again
                return
            out.mark, moved = seq, True
        if state == "refused":
            log.warning("club: the dashboard stored match %s but does not count it "
                        "(its log there says why)", uid)
        elif state == "held" and (out.receipt or (0, "", ""))[2] != "held":
            log.info("club: the dashboard holds match %s for the organiser", uid)
        out.receipt = (seq, digest, state)
        if moved:  # the dashboard is there: the next resend waits a whole interval
            out.resends = 0
            out.resend_at = None if out.confirmed() else self.clock() + self.resend_every
        self._settle(out)

    def _settle(self, out: Outgoing) -> None:
        """Once a dashboard confirmed every event and the final state, remember that (the
        match leaves :meth:`Store.unpublished`); a finished match is then forgotten here."""
        if out.confirmed():
            out.resend_at, out.resends = None, 0
            key = PUBLISHED_STATE + out.uid
            if self.store.meta(key) != out.state:
                self.store.set_meta(key, out.state)
            if out.state != "playing":
                self._matches.pop(out.match_id, None)
        self._count_lagging()

    # -- the resend timer (this thread's own; never the app's) -------------------------

    def _until_resend(self) -> float | None:
        """Seconds until the next resend is due (None: nothing waits for a receipt)."""
        due = [out.resend_at for out in self._matches.values() if out.resend_at is not None]
        if not due or not self.up:
            return None
        return max(0.0, min(due) - self.clock())

    def _resend_due(self) -> None:
        """Send again every match whose receipt is overdue; each waits longer next time."""
        now = self.clock()
        for out in list(self._matches.values()):
            if out.resend_at is None or out.resend_at > now or not self.up:
                continue
            out.resends += 1
            out.resend_at = now + min(self.resend_every * 2 ** out.resends, RESEND_MAX)
            self._rewind(out)
            self._send(out)
        self._count_lagging()

    def _count_lagging(self) -> None:
        """Matches sent again at least once and still not confirmed: the table's
        "N matches not confirmed" (status, OLED)."""
        lagging = sum(1 for out in self._matches.values()
                      if out.resends and not out.confirmed())
        if lagging != self.lagging:
            self.lagging = lagging
            self.on_lag(lagging)
            self._send_status()

    # -- a dashboard asks for a match again --------------------------------------------

    def _sync_request(self, data: bytes) -> None:
        try:
            uid, have, digest = wire.fields(data, ("uid", str), ("have", int), ("hash", str))
        except WireError as err:
            log.warning("club: bad sync request: %s", err)
            return
        match_id = self.store.find_uid(uid)
        if match_id is None or self.store.match(match_id).origin:
            return
        out = self._matches.get(match_id) or self._load(match_id)
        self._refresh(out)
        keep = have if have <= len(out.rows) and out.hashes[have] == digest else 0
        self._new_gen(out, keep)
        self._pass(match_id)

    def _round(self, data: bytes) -> None:
        """A round the organiser seated for this table: checked, then handed to the app
        (an empty message clears a retained round: nothing to show)."""
        if not data:
            return
        try:
            offer = parse_offer(data, self.table)
        except WireError as err:
            log.warning("club: dropped a round: %s", err)
            return
        if offer == self.offered:
            return  # the broker's kept copy again after a reconnect
        self.offered = offer
        recent = [] if offer.offer_id else [*self.store.summaries(finished=False),
                                            *self.store.past(5)]
        started = offers_started(self.store) if offer.offer_id else set()
        if not already_started(offer, recent, time.time(), started):  # once, not per boot
            self.on_round(offer)


def _topic(topic: str) -> str:
    """The kind of a topic this table subscribes to ("" for anything else)."""
    try:
        return wire.parse_topic(topic).kind
    except WireError:
        return ""
