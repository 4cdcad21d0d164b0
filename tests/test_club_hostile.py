"""Issue 23 point 4: a hostile table costs the club little. Work is counted, never
timed: messages tried, bytes held, the order tables are served in."""

from __future__ import annotations

import logging
import random

from companion.club import wire
from companion.club.dashboard import Dashboard, Lanes
from companion.club.receiver import MAX_WAITING, Receiver
from companion.store import Store
from tests.test_club_receiver import Device


def reversed_log(events: int) -> tuple[Device, list[tuple[str, bytes]]]:
    device = Device(random.Random(5))
    device.play(events)
    return device, [(t, d) for t, d in device.outbox() if "/log/" in t]


def test_out_of_order_messages_cost_linear_work():
    device, log = reversed_log(1500)
    for size in (500, 1500):
        receiver = Receiver(Store(":memory:"), lambda *r: None, clock=lambda: 0.0)
        part = log[:size + 1]  # the cut and the first ``size`` events
        for topic, data in reversed(part):  # every event before what it follows
            receiver.handle(topic, data)
        uid = device.store.match(device.session.match_id).uid
        store = receiver.store
        assert len(store.events(store.find_uid(uid))) == size
        # Each message tried when it arrives and once more when its turn comes.
        assert receiver.tries <= 2 * len(part)


def test_a_flood_of_waiting_messages_is_capped_and_asked_for_again(caplog):
    device, log = reversed_log(MAX_WAITING + 300)
    asked: list = []
    receiver = Receiver(Store(":memory:"), lambda *r: asked.append(r), clock=lambda: 0.0)
    with caplog.at_level(logging.WARNING, "companion.club"):
        for topic, data in reversed(log[2:]):  # the cut and event 1 never come
            receiver.handle(topic, data)
    mirror = next(iter(receiver.mirrors.values()))
    assert mirror.waiting == MAX_WAITING  # what one match may hold, whatever comes
    assert receiver.tries <= len(log)
    assert "wait; dropped one" in caplog.text


def test_an_oversized_payload_is_dropped_in_one_line(caplog):
    receiver = Receiver(Store(":memory:"), lambda *r: None)
    with caplog.at_level(logging.WARNING, "companion.club"):
        receiver.handle("companion/t1/log/" + "a" * 32, b"{" + b" " * wire.MAX_PAYLOAD + b"}")
    assert "more than a club message may be" in caplog.text
    assert receiver.mirrors == {}


def test_lanes_serve_tables_in_turn_and_cap_each_tables_bytes():
    lanes = Lanes(cap=1000)
    for _ in range(50):
        lanes.put("companion/bad/log/x", b"x" * 30)
    lanes.put("companion/good/log/y", b"honest")
    assert lanes.dropped == 50 - 1000 // (30 + len("companion/bad/log/x"))
    served = [lanes.get()[0].split("/")[1] for _ in range(3)]
    assert served == ["bad", "good", "bad"]


def test_the_dashboard_serves_an_honest_table_between_a_hostile_tables_messages(tmp_path):
    """5000 messages of one table queued before one of another: the honest one is the
    second handled, not the 5001st."""
    dashboard = Dashboard("mqtt://127.0.0.1:1", tmp_path, sync_every=1e9)
    handled: list[str] = []

    class Recording:
        def handle(self, topic: str, data: bytes, retained: bool = False) -> None:
            handled.append(topic.split("/")[1])
            if len(handled) == 3:
                dashboard.queue.put(("stop",))

        def receipts(self) -> int:
            return 0

        def behind(self) -> list:
            return []

    for n in range(5000):
        dashboard.post("message", f"companion/bad/log/u{n}", b"{}")
    dashboard.post("message", "companion/good/log/v", b"{}")
    dashboard._loop(Recording())
    assert handled == ["bad", "good", "bad"]
