"""``companion club``: the club's dashboard, subscribed to every table.

A :class:`Dashboard` is one thread that owns the dashboard's store and a
:class:`~companion.club.receiver.Receiver`; paho's thread only posts what arrives. Its
broker session is persistent (the client id is kept in the store), so the broker queues
every table's messages while the dashboard is down and delivers them when it is back.

What arrives is sorted into one lane per table (:class:`Lanes`) and served round robin,
so a table that floods the dashboard waits behind its own messages, never an honest
table's; a lane holds at most :data:`LANE_BYTES` (the rest is dropped: the table sends
it again until it has a receipt). Every ``sync_every`` seconds, whatever else is
arriving, the receiver asks for what is missing (:meth:`Receiver.behind`); whenever the
lanes run dry it sends the receipts.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.club import moves, wire
from companion.club.ledger import LEDGER_NAME, Ledger
from companion.club.login import PAUSE_FIRST, PAUSE_MOST, Comeback, LoginFight
from companion.club.receiver import Receiver
from companion.club.rounds import ROUNDS_TOPIC, RoundSender, round_table
from companion.errors import CompanionError, StoreError, one_line
from companion.lang import _

log = logging.getLogger("companion.club")

#: The most message bytes one table may have waiting on the dashboard.
LANE_BYTES = 4 * 1024 * 1024
#: The page's snapshot is made at most this often (seconds; an open page takes at most
#: a few updates a second anyway).
SNAPSHOT_EVERY = 0.1
#: The most messages, and the longest time (seconds), one batch of the store takes.
BURST_MOST = 64
BURST_TIME = 0.025


def taken_text(username: str) -> str:
    """What the organiser reads when another client logged in with the dashboard's
    login (the broker makes a login its client id, so only one of them can be on)."""
    # Translators: {login} is the broker user name the dashboard logs in with.
    return _("another client is using the login {login}").format(
        # Translators: in place of the login's name when the dashboard has none.
        login=username or _("(none)"))


class Lanes:
    """Messages waiting to be handled, one first-in-first-out lane per table, served
    round robin (a table's share of the dashboard is one message in turn)."""

    def __init__(self, cap: int = LANE_BYTES):
        self.cap = cap
        self._lanes: dict[str, deque[tuple[str, bytes, bool]]] = {}
        self._bytes: dict[str, int] = {}
        self._turns: deque[str] = deque()  # tables with something waiting, in turn
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._turns)

    def put(self, topic: str, data: bytes, retained: bool = False) -> bool:
        """Queue a message in its table's lane; False (dropped) when the lane is full."""
        table = topic.split("/", 2)[1] if topic.count("/") >= 2 else ""
        size = len(data) + len(topic)
        if self._bytes.get(table, 0) + size > self.cap:
            self.dropped += 1
            return False
        lane = self._lanes.get(table)
        if lane is None:
            lane = self._lanes[table] = deque()
            self._turns.append(table)
        lane.append((topic, data, retained))
        self._bytes[table] = self._bytes.get(table, 0) + size
        return True

    def get(self) -> tuple[str, bytes, bool]:
        """The next table's oldest message (IndexError when nothing waits)."""
        table = self._turns.popleft()
        lane = self._lanes[table]
        topic, data, retained = lane.popleft()
        self._bytes[table] -= len(data) + len(topic)
        if lane:
            self._turns.append(table)
        else:
            del self._lanes[table], self._bytes[table]
        return topic, data, retained


class SentOffers:
    """Every round offer the dashboard in ``state_dir`` sent, with its table (None when
    it seated no night), read again only when the night's file changed."""

    def __init__(self, state_dir: Path):
        self.state_dir = Path(state_dir)
        self._seen: tuple[Any, dict[str, str] | None] = (None, None)

    def __call__(self) -> dict[str, str] | None:
        from companion.club.night import NIGHT_FILE, offers_sent

        try:
            info = os.stat(self.state_dir / NIGHT_FILE)
            mark: Any = (info.st_mtime_ns, info.st_size)
        except OSError:
            return None
        if mark != self._seen[0]:
            self._seen = (mark, offers_sent(self.state_dir))
        return self._seen[1]


class Dashboard:
    """Keeps every table's matches in ``state_dir``'s store, from ``broker_url``."""

    def __init__(
        self,
        broker_url: str,
        state_dir: str | Path,
        *,
        username: str = "",
        password: str = "",
        ca_file: str = "",
        sync_every: float = 3.0,
        retry: tuple[float, float] = (0.5, 10.0),
        retake: tuple[float, float] = (PAUSE_FIRST, PAUSE_MOST),
        clock: Callable[[], float] = time.monotonic,
    ):
        self.broker = wire.Broker.parse(broker_url)
        self.state_dir = Path(state_dir)
        self.auth = {"username": username, "password": password, "ca_file": ca_file}
        self.sync_every = sync_every
        self.retry = retry
        self.clock = clock
        self.lanes = Lanes()
        self.queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self.up = threading.Event()
        self.ready = threading.Event()
        self.error: str | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._snapshot: dict[str, Any] = {"tables": {}, "results": 0, "held": [],
                                          "refused_devices": [], "locked": {}}
        #: Called from the dashboard's thread after anything changed (the web page).
        self.on_change: Callable[[dict[str, Any]], None] = lambda snapshot: None
        #: The league's seasons (:class:`~companion.club.seasons.Season`), for the page.
        self.seasons: list[Any] = []
        #: Why the broker is not connected (None while it is): the club page says so.
        self.problem: str | None = "connecting"
        #: One line for the organiser (connected, lost, cannot connect and why): logged
        #: by default (a problem as a warning); ``companion club`` prints it.
        self.on_notice: Callable[[str], None] = self._log_notice
        self._fight = LoginFight(clock)
        #: Taking the login back after another client took it: growing pauses.
        self._comeback = Comeback(clock, first=retake[0], most=retake[1])
        self._link: Any = None
        self._paused = False  # the link is stopped between tries to take the login back
        self._online: list[str] | None = None  # the tables online, as last written
        self._rounds: RoundSender | None = None
        self._dirty, self._shown = False, float("-inf")  # the page's snapshot
        self._results = 0  # the results stored for good (the receiver's counter)
        self._stored: list[float] = []  # events applied in the batch being stored
        #: Called on the dashboard's thread with each event's time of play once it is
        #: stored for good (``bench --club``'s lag).
        self.on_stored: Callable[[float], None] = lambda at: None

    @property
    def db_path(self) -> Path:
        from companion.store import Store

        return self.state_dir / Store.DEFAULT_NAME

    def start(self) -> Dashboard:
        """Open the store and connect (in the background); raises if the store fails."""
        self._thread = threading.Thread(target=self._run, name="club-dashboard", daemon=True)
        self._thread.start()
        self.ready.wait()
        if self.error:
            raise CompanionError(self.error)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.queue.put(("stop",))
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def login_taken(self) -> bool:
        """Another client took the dashboard's login and it is not back for good yet
        (it tries again after growing pauses)."""
        return self._comeback.active

    def snapshot(self) -> dict[str, Any]:
        """Every table now (safe from any thread). The tables are as the last snapshot
        made them (at most :data:`SNAPSHOT_EVERY` old); ``results`` counts every result
        stored so far, so the league read with it is never an older one."""
        with self._lock:
            snapshot = self._snapshot
        stored = self._results
        return snapshot if snapshot["results"] == stored else {**snapshot, "results": stored}

    def call(self, fn: Callable[[Receiver], Any]) -> None:
        """Run ``fn(receiver)`` on the dashboard's thread (tests, the bench)."""
        self.queue.put(("call", fn))

    def post(self, *item: Any) -> None:
        self.queue.put(item)

    # -- the dashboard's thread --------------------------------------------------------

    def _run(self) -> None:
        from companion.club.mqtt import BrokerLink
        from companion.store import Store

        if not self._take_state_dir():
            return
        try:
            store = Store.in_dir(self.state_dir)
            ledger = Ledger(self.state_dir / LEDGER_NAME)
            # The device moves first: the broker sends each subscription's retained
            # messages in turn, so a dashboard built from nothing binds a moved device
            # before it hears the device's table.
            link = BrokerLink(
                self.broker, f"companion-club-{store.device_id()[:12]}", self.post,
                subscribe=(moves.TOPIC, *wire.DASHBOARD_TOPICS, ROUNDS_TOPIC),
                persistent=True,
                retry=self.retry, **self.auth)
        except (StoreError, CompanionError) as err:
            self.error = str(err)
            self._rounds.close()  # the state dir is free again
            self.ready.set()
            return
        self._link = link
        receiver = Receiver(store, lambda topic, data: link.publish(topic, data),
                            sync_every=self.sync_every, ledger=ledger, clock=self.clock)
        receiver.changed = lambda uid: self._changed(receiver)
        receiver.offers_sent = SentOffers(self.state_dir)
        receiver.announce = lambda topic, data: self._announce(link, topic, data)
        receiver.preload()
        self.ready.set()
        link.start()
        try:
            self._loop(receiver)
        finally:
            link.stop()
            self._rounds.close()
            ledger.close()
            store.close()

    def _take_state_dir(self) -> bool:
        """One store, one dashboard: the state dir's lock, taken before the store is
        opened (with the night's rounds it sends); False, and :attr:`error` says why,
        when another dashboard holds it or the state dir cannot be written."""
        from companion.club.tonight import write_online

        try:
            self._rounds = RoundSender.for_dashboard(self.state_dir, self)
            if self._rounds is not None:
                write_online(self.state_dir, [])  # not a crashed one's: none until heard
                return True
            self.error = _("another companion club is running on {path}: one store, one "
                           "dashboard (stop that one, or give this one a --state-dir of "
                           "its own)").format(path=self.state_dir)
        except OSError as err:
            if self._rounds is not None:
                self._rounds.close()
            self.error = _("cannot keep the club's store in {path}: {problem}").format(
                path=self.state_dir, problem=err.strerror or err)
        self.ready.set()
        return False

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> Any:
        """Publish on the dashboard's broker link (the night's rounds)."""
        return self._link.publish(topic, payload, retain=retain)

    def _burst(self, receiver: Any) -> None:
        """Handle the messages waiting, in turn, as one batch of the store (one sync
        for all: a sync a message was most of the dashboard's time with 200 tables), at
        most :data:`BURST_MOST` of them or :data:`BURST_TIME` seconds; nothing is
        receipted before the batch is committed (receipts go when the lanes run dry).
        A batch the store cannot commit is lost whole: its matches are read from the
        store again and the tables send them again."""
        topics: list[str] = []
        start = self.clock()
        try:
            with receiver.store.batch():
                while self.lanes and len(topics) < BURST_MOST and \
                        self.clock() - start < BURST_TIME:
                    topic, data, retained = self.lanes.get()
                    topics.append(topic)
                    self._guarded("message", receiver.handle, topic, data, retained)
        except Exception as err:  # noqa: BLE001 - whatever broke it, the batch is lost
            log.error("club dashboard: %s; %d messages are asked for again",
                      one_line(str(err) or type(err).__name__), len(topics))
            receiver.forget({topic.rsplit("/", 1)[1] for topic in topics
                             if topic.count("/") == 3})
            self._stored.clear()
            return
        self._results = receiver.results  # committed: the page may read them now
        stored = list(self._stored)
        self._stored.clear()  # the list the receiver appends to
        for at in stored:
            self.on_stored(at)

    def _loop(self, receiver: Any) -> None:
        """Until "stop": take in what arrived (into the lanes), handle what waits in
        turn, and every ``sync_every`` seconds ask for what is missing."""
        receiver.on_applied = self._stored.append  # told once the batch is committed
        next_check = self.clock() + self.sync_every
        while True:
            try:
                if self.lanes:
                    item = self.queue.get_nowait()
                else:
                    wake = next_check
                    if self._comeback.due is not None:
                        wake = min(wake, self._comeback.due)
                    if self._dirty:  # the page's snapshot is due then
                        wake = min(wake, self._shown + SNAPSHOT_EVERY)
                    item = self.queue.get(timeout=max(0.0, wake - self.clock()))
            except queue.Empty:
                item = None
            if item is not None:
                if item[0] == "stop":
                    return
                if item[0] == "message" and moves.is_move_topic(item[1]):
                    self._guarded("move", receiver.handle, *item[1:4])  # before the rest
                elif item[0] == "message" and round_table(item[1]):
                    self._guarded("round", self._rounds.heard, *item[1:3])
                elif item[0] == "message":
                    self.lanes.put(*item[1:4])
                else:
                    self._guarded(item[0], self._control, item, receiver)
                continue  # take in everything that arrived before handling more
            if self.lanes:
                self._burst(receiver)
            else:
                self._guarded("receipts", receiver.receipts)
            self._guarded("login", self._come_back)
            self._guarded("snapshot", self._show, receiver)
            if self.clock() >= next_check:  # whatever else is arriving
                self._guarded("online", self._write_online, receiver)
                if self.up.is_set():  # "sent" means sent: not queued for a broker away
                    self._guarded("round",
                                  lambda: self._rounds.check() and receiver.changed(""))
                self._guarded("sync", receiver.behind)
                self._guarded("receipts", receiver.receipts)
                next_check = self.clock() + self.sync_every

    def _control(self, item: tuple[Any, ...], receiver: Any) -> None:
        kind = item[0]
        if kind == "call":
            item[1](receiver)
        elif self._paused:
            return  # the stopped link's last words, between tries to take the login back
        elif kind == "up":
            self._fight.up()
            self._comeback.up()
            self.up.set()
            self._say(None, _("subscribed to {broker}").format(broker=self.broker))
        elif kind == "down":
            if not self.up.is_set():
                return  # a refused login's socket closing: its reason stands
            self.up.clear()
            # Dropped again before it settled: the other client still has the login.
            if self._fight.down() or self._comeback.active:
                return self._taken()
            self._say(_("lost the broker; retrying"),
                      _("lost the broker {broker}; retrying").format(broker=self.broker))
        elif kind == "failed":
            self._fight.failed()
            self._comeback.give_up()  # the broker is away, not the login taken
            said = None
            if item[1] != self.problem:  # once per reason, not at every retry
                said = _("cannot reach the broker {broker}: {problem}; retrying").format(
                    broker=self.broker, problem=item[1])
            self._say(item[1], said)

    def _say(self, problem: str | None, notice: str | None) -> None:
        """The broker's state changed: the page's line (``problem``, None: connected)
        and the organiser's line (``notice``)."""
        changed = problem != self.problem
        self.problem = problem
        if notice is not None:
            self.on_notice(notice)
        if changed:  # every open club page says it at once
            self.on_change(self.snapshot())

    def _taken(self) -> None:
        """Another client logs in with this dashboard's login: stop the link (each try
        would push the other off in turn, and neither would store anything) and try to
        take it back after a pause, each one longer while the login stays taken."""
        first = not self._comeback.active
        pause = self._comeback.taken()
        self._paused = True
        if self._link is not None:
            self._link.stop()
        from companion.clock import day_text

        at = day_text(time.time() + pause, "%H:%M:%S")
        problem = _("{taken}; this dashboard tries again at {time}").format(
            taken=taken_text(self._link.username if self._link else ""), time=at)
        # Said once; the page keeps the time of the next try.
        self._say(problem, _("{problem} on {broker}, then less and less often (each "
                             "dashboard needs a login of its own: docs/club.md)")
                  .format(problem=problem, broker=self.broker) if first else None)

    def _come_back(self) -> None:
        """Try to take the login back when a try is due; forget the fight once the login
        has been this dashboard's for a while."""
        if self._comeback.try_now() and self._link is not None:
            self._paused = False
            self._link.start()
        elif self._comeback.settled():
            self._fight.clear()

    def _write_online(self, receiver: Any) -> None:
        """Which tables are online now, for ``--seat --tables N`` (written when it
        changes)."""
        from companion.club.tonight import write_online

        online = sorted(name for name, table in receiver.tables.items() if table.get("online"))
        if online != self._online:
            write_online(self.state_dir, online)
            self._online = online

    def _announce(self, link: Any, topic: str, data: bytes) -> bool:
        """Publish a retained message (a device move) while the broker is there."""
        if not self.up.is_set():
            return False
        link.publish(topic, data, retain=True)
        return True

    def _log_notice(self, text: str) -> None:
        log.log(logging.WARNING if self.problem else logging.INFO, "club: %s", text)

    @staticmethod
    def _guarded(what: str, fn: Callable[..., Any], *args: Any) -> None:
        try:
            fn(*args)
        except StoreError as err:
            log.error("club dashboard: %s", err)
        except Exception:  # noqa: BLE001 - one bad message must not stop the club
            log.exception("club dashboard failed on %r", what)

    def _changed(self, receiver: Receiver) -> None:
        """Something changed: the page's snapshot is made again, at most every
        :data:`SNAPSHOT_EVERY` seconds (200 tables change it 500 times a second; it was
        made each time, a fifth of the dashboard's work)."""
        self._dirty = True

    def _show(self, receiver: Receiver) -> None:
        if not self._dirty or self.clock() < self._shown + SNAPSHOT_EVERY:
            return
        self._dirty, self._shown = False, self.clock()
        self._results = receiver.results
        snapshot = receiver.snapshot()
        snapshot["results"] = receiver.results
        snapshot["held"] = receiver.held_rows()
        snapshot["refused_devices"] = receiver.refused_rows()
        snapshot["locked"] = receiver.locked()
        with self._lock:
            self._snapshot = snapshot
        self.on_change(snapshot)

