"""Club mode without a broker: the publisher's stream against the receiver's store.

A fake link stands in for paho: it records every message the real :class:`Publisher`
hands it, and the test decides which the broker acknowledges, which are lost in an
outage and in what order (with duplicates) the dashboard gets them. Hypothesis plays
random histories of events, undos, outages and device restarts; whatever happens, once
the link is back and the outbox is empty, the receiver's store equals the device's.
"""

from __future__ import annotations

import random
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.club import wire
from companion.club.publisher import Publisher
from companion.club.receiver import Receiver
from companion.config import Club
from companion.session import Session
from companion.store import Store

PLAYERS = ("Ann", "Bob")


class FakeLink:
    """Records publishes; ``mid`` grows like paho's."""

    def __init__(self):
        self.sent: list[tuple[int, str, bytes]] = []
        self.unacked: list[int] = []
        self.mid = 0

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> int:
        self.mid += 1
        self.sent.append((self.mid, topic, payload))
        self.unacked.append(self.mid)
        return self.mid

    def stop(self) -> None:
        pass


class Device:
    """One table: a store, a session and a publisher driven on this thread, and the
    network between it and one dashboard (a :class:`Receiver`), run by hand: the test
    decides what is delivered when, what an outage loses, and in what order (with
    duplicates) messages arrive."""

    def __init__(self, rng: random.Random, copies: int = 1):
        self.rng = rng
        self.copies = copies
        self.store = Store(":memory:", clock=self._clock)
        self.now = time.time() - 86400.0  # yesterday: a clock the dashboard believes
        self.timer = 0.0  # the publisher's resend clock
        self.link = FakeLink()
        self.in_flight: list[tuple[str, bytes]] = []
        self.history: list[tuple[str, bytes]] = []  # every message it ever sent
        self.publisher = self._publisher()
        self.session = Session.start("scoreboard", list(PLAYERS), store=self.store,
                                     listeners=[self._signal])
        self.publisher.handle(("signal", self.session.match_id))  # as the app does
        self.replies: list[tuple[str, bytes]] = []
        self.dashboard = Store(":memory:")
        self.receiver = Receiver(self.dashboard, lambda *r: self.replies.append(r),
                                 clock=lambda: self.timer, sync_every=0.0)

    def _clock(self) -> float:
        self.now += 0.25
        return self.now

    def _publisher(self) -> Publisher:
        publisher = Publisher(Club(broker="mqtt://unused", table="t1"), ":memory:",
                              clock=lambda: self.timer, resend_every=1.0)
        publisher.attach(self.store, self.link)
        publisher.handle(("up",))
        return publisher

    def _signal(self, session, event, undone=False):
        self.publisher.handle(("signal", session.match_id))

    def play(self, count: int) -> None:
        for _ in range(count):
            if self.session.match.over:
                return
            seat = len(self.session.match.events) % len(PLAYERS)
            self.session.apply({"type": "points", "player": PLAYERS[seat],
                                "points": self.rng.randint(0, 9)})

    def undo(self) -> None:
        if self.session.match.events:
            self.session.undo()

    def end(self) -> None:
        events = self.session.match.events
        if not self.session.match.over and events and len(events) % 2 == 0:
            self.session.apply({"type": "end"})

    def _take_sent(self) -> None:
        sent = [(topic, data) for _, topic, data in self.link.sent]
        self.history += sent
        self.in_flight += sent
        self.link.sent.clear()

    def outbox(self) -> list[tuple[str, bytes]]:
        """Every message the table sent that is still in flight (none delivered yet)."""
        self._take_sent()
        return list(self.in_flight)

    def deliver(self, count: int) -> None:
        """The oldest ``count`` messages in flight reach the dashboard (each ``copies``
        times, shuffled among themselves); its replies reach the table."""
        self._take_sent()
        batch, self.in_flight = self.in_flight[:count], self.in_flight[count:]
        batch = batch * self.copies
        self.rng.shuffle(batch)
        for topic, data in batch:
            self.receiver.handle(topic, data)
        self.receiver.receipts()
        replies, self.replies = self.replies, []
        for topic, data in replies:
            self.publisher.handle(("message", topic, data))

    def outage(self) -> None:
        """The link drops: every message in flight may or may not have arrived."""
        self._take_sent()
        self.in_flight = [m for m in self.in_flight if self.rng.random() < 0.5]
        self.publisher.handle(("down",))
        self.publisher.handle(("up",))

    def restart(self) -> None:
        """The device reboots: the publisher's memory is gone, the store is not."""
        self.outage()
        self.publisher = self._publisher()

    def wait(self) -> None:
        """Time passes: the publisher resends what has no receipt, the dashboard asks
        for what it lacks."""
        self.timer += 200.0
        self.publisher.handle(("tick",))
        self.receiver.behind()
        self.receiver.behind()

    def settle(self, accept: bool = False) -> None:
        """Everything in flight arrives and time passes until the table's outbox is
        empty (nothing lost any more); ``accept``: the organiser accepts whatever the
        dashboard holds (a finished match rewritten) as it comes."""
        for _ in range(20):
            if accept:
                for row in self.receiver.ledger.held():
                    self.receiver.ledger.decide(row["uid"], "accepted")
                self.receiver.review()  # as the dashboard does every few seconds
            self.deliver(10**6)
            if accept and self.receiver.ledger.held():
                continue  # held just now (the table is told so): accepted next round
            if not self.store.unpublished() and not self.link.sent:
                return
            self.wait()
        raise AssertionError("the outbox never empties")


def copy_of(store: Store, match_id: int) -> tuple:
    record = store.match(match_id)
    return (store.events(match_id), store.event_times(match_id), record.finished,
            record.result, record.abandoned, record.game_id, record.players)


OPS = st.lists(st.one_of(
    st.tuples(st.just("play"), st.integers(1, 6)),
    st.tuples(st.just("undo"), st.integers(1, 3)),
    st.tuples(st.just("deliver"), st.integers(0, 8)),
    st.tuples(st.just("outage"), st.just(0)),
    st.tuples(st.just("restart"), st.just(0)),
    st.tuples(st.just("wait"), st.just(0)),
    st.tuples(st.just("end"), st.just(0)),
), max_size=25)


def run(device: Device, ops: list[tuple[str, int]]) -> None:
    """Play ``ops`` (:data:`OPS`) on ``device``."""
    for op, n in ops:
        if op == "play":
            device.play(n)
        elif op == "undo":
            for _ in range(n):
                device.undo()
        elif op == "deliver":
            device.deliver(n)
        else:
            getattr(device, op)()


def assert_mirrored(device: Device) -> int:
    """The dashboard's store holds the device's match as the device does (its id
    there)."""
    uid = device.store.match(device.session.match_id).uid
    mirrored = device.dashboard.find_uid(uid)
    assert mirrored is not None
    assert copy_of(device.dashboard, mirrored) == copy_of(device.store,
                                                          device.session.match_id)
    return mirrored


@settings(max_examples=60, deadline=None)
@given(ops=OPS, seed=st.integers(0, 2**16), copies=st.integers(1, 3))
def test_any_history_any_delivery_order_ends_equal(ops, seed, copies):
    device = Device(random.Random(seed), copies)
    run(device, ops)
    device.settle(accept=True)  # a finished match undone is held until accepted
    mirrored = assert_mirrored(device)
    assert device.dashboard.match(mirrored).origin == "t1"
    assert device.store.published(device.session.match_id) == len(device.session.match.events)


def test_stale_duplicate_and_gapped_messages_are_not_stored_twice():
    device = Device(random.Random(1))
    device.play(6)
    device.undo()
    device.play(2)
    log = [(t, d) for t, d in device.outbox() if "/log/" in t]
    requests: list = []
    dashboard = Store(":memory:")
    receiver = Receiver(dashboard, lambda *r: requests.append(r), clock=lambda: 0.0)
    for topic, data in reversed(log + log):  # everything backwards, twice
        receiver.handle(topic, data)
    uid = device.store.match(device.session.match_id).uid
    assert dashboard.events(dashboard.find_uid(uid)) == device.session.match.events
    assert requests == []  # nothing was missing: no need to ask the table again


def test_a_forged_or_broken_message_is_dropped(caplog):
    dashboard = Store(":memory:")
    receiver = Receiver(dashboard, lambda *r: None)
    receiver.handle("companion/t1/log/abc", b"not json")
    receiver.handle("companion/t1/log/abc", wire.encode({"op": "event", "gen": -1}))
    receiver.handle("companion/t1/log/abc", wire.encode(
        {"op": "cut", "device": "d", "uid": "abc", "gen": 1, "keep": 0, "hash": "",
         "match": {"game_id": "no-such-game", "players": ["A", "B"], "options": {},
                   "started": 1.0}}))
    receiver.handle("elsewhere/t1/log/abc", b"{}")
    assert dashboard.find_uid("abc") is None
    assert "dropped" in caplog.text


def test_the_publisher_never_pairs_a_short_log_with_the_end_of_the_match(tmp_path):
    """The app's thread writes while the publisher reads (two connections to one file):
    the game is played to its end between the publisher's read of the log and its read
    of the match's state. What it publishes describes one moment, never "finished"
    with the events before the end."""
    path = tmp_path / "companion.db"
    app_store = Store(path)
    session = Session.start("scoreboard", list(PLAYERS), store=app_store)
    session.apply({"type": "points", "player": "Ann", "points": 3})

    class RacedStore(Store):
        armed = False

        def events_since(self, match_id, after):
            rows = super().events_since(match_id, after)
            if RacedStore.armed:  # the table plays on, then ends the game
                RacedStore.armed = False
                for points in (4, 5, 6):
                    seat = len(session.match.events) % len(PLAYERS)
                    session.apply({"type": "points", "player": PLAYERS[seat],
                                   "points": points})
                session.apply({"type": "end"})
            return rows

    link = FakeLink()
    publisher = Publisher(Club(broker="mqtt://unused", table="t1"), path)
    publisher.attach(RacedStore(path), link)
    publisher.handle(("up",))
    RacedStore.armed = True
    publisher.handle(("signal", session.match_id))
    assert not RacedStore.armed
    publisher.handle(("signal", session.match_id))  # what the app's listener sends
    infos = [wire.decode(data) for _, topic, data in link.sent if "/match/" in topic]
    assert infos and infos[-1]["state"] == "finished"
    for info in infos:
        if info["state"] == "finished":
            assert info["count"] == len(session.match.events) == 5


def test_a_table_that_says_finished_too_early_does_not_close_the_dashboards_match():
    device = Device(random.Random(3))
    device.play(4)
    device.end()
    messages = device.outbox()
    logs = [(t, d) for t, d in messages if "/log/" in t]
    final = next(d for t, d in reversed(messages) if "/match/" in t)
    early = dict(wire.decode(final), count=1, hash=wire.decode(logs[1][1])["hash"])
    dashboard = Store(":memory:")
    receiver = Receiver(dashboard, lambda *r: None, clock=lambda: 0.0)
    topic = next(t for t, _ in messages if "/match/" in t)
    receiver.handle(topic, wire.encode(early))  # "finished" at one event
    for log_topic, data in logs:
        receiver.handle(log_topic, data)
    uid = device.store.match(device.session.match_id).uid
    mirrored = dashboard.find_uid(uid)
    assert dashboard.events(mirrored) == device.session.match.events
    receiver.handle(topic, final)
    assert copy_of(dashboard, mirrored) == copy_of(device.store, device.session.match_id)
