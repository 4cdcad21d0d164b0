"""Issue 23 point 4: a hostile table costs the club little. Work is counted, never
timed: messages tried, bytes held, the order tables are served in."""

from __future__ import annotations

import json
import logging
import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

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
        store = Store(":memory:")  # a burst of messages is one batch of it
        results = 0

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
    assert handled[:3] == ["bad", "good", "bad"]  # (the burst under way ends first)


def test_a_status_of_the_wrong_shape_does_not_break_the_club_page():
    """A table's retained status with "current" a list or an object made every later
    snapshot raise TypeError: the club page froze for every table (and again after each
    dashboard restart, the status being retained)."""
    receiver = Receiver(Store(":memory:"), lambda *r: None)
    snapshots: list = []
    receiver.changed = lambda uid: snapshots.append(receiver.snapshot())
    for current, device in ((["x"], {"a": 1}), ({"a": 1}, ["d"]), (7, 7.5)):
        receiver.handle("companion/bad/status", wire.encode(
            {"online": True, "current": current, "device": device}))
        table = receiver.snapshot()["tables"]["bad"]
        assert (table["current"], table["device"], table["match"]) == (None, None, None)
    assert len(snapshots) == 3


def _cut(device: str, uid: str, started: object) -> bytes:
    return wire.encode({"op": "cut", "device": device, "uid": uid, "gen": 1, "keep": 0,
                        "hash": "", "match": {"game_id": "scoreboard", "players": ["Ann", "Bob"],
                                              "options": {}, "started": started}})


def test_times_that_are_no_float_are_dropped_in_one_line(caplog):
    """A time too big for a float raised OverflowError out of handle() (a traceback in the
    dashboard's log); 1e999 and NaN (JSON Python reads) were stored as inf and nan."""
    device = Store(":memory:").device_id()
    uid = device[:16] + "0" * 16
    now = [0.0]
    receiver = Receiver(Store(":memory:"), lambda *r: None, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, "companion.club"):
        receiver.handle(f"companion/t1/log/{uid}1", _cut(device, uid + "1", 10**400))
        receiver.handle(f"companion/t1/log/{uid}", _cut(device, uid, 1.7e9))
        event = {"type": "points", "player": "Ann", "points": 3}
        for text in (str(10**400), "1e999", "NaN"):
            digest = wire.link("", event, 1.0)
            data = wire.encode({"op": "event", "device": device, "uid": uid, "gen": 1,
                                "seq": 1, "prev": "", "hash": digest, "event": event,
                                "at": 1.0}).replace(b'"at":1.0', b'"at":' + text.encode())
            receiver.handle(f"companion/t1/log/{uid}", data)
        assert caplog.text.count("'at' is not a finite time") == 1  # one line a minute
        now[0] = 60.0
        receiver.lines.flush()
    assert "'started' is not a finite time" in caplog.text
    assert caplog.text.count("'at' is not a finite time") == 2
    assert "'at' is not a finite time (2 like it in the last minute)" in caplog.text
    match_id = receiver.store.find_uid(uid)
    assert receiver.store.events(match_id) == []


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.just(10**400) | st.floats()
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=3),
    max_leaves=8)
_KEYS = ("op", "gen", "keep", "seq", "hash", "prev", "at", "event", "match", "count",
         "state", "finished", "result", "online", "current", "started", "game_id",
         "players", "options")


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(["status", "match/U", "log/U"]),
       values=st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=10),
       header=st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=6),
       started=st.booleans(), op=st.sampled_from(["cut", "event"]))
def test_no_payload_raises_out_of_the_receiver(kind, values, header, started, op):
    """Whatever a table publishes, handle() logs and drops or applies it: no exception
    reaches the dashboard's loop (where it would be a traceback in the log), and the
    club page's snapshot still works after it."""
    device = "ab" * 16
    uid = device[:16] + "cd" * 8
    receiver = Receiver(Store(":memory:"), lambda *r: None, clock=lambda: 0.0)
    topic = f"companion/t1/{kind.replace('U', uid)}"
    # A valid-looking base that the drawn values override, so a draw gets past the
    # first check more often than not.
    payload = {"device": device, "uid": uid, "online": True, "op": op, "gen": 2, "keep": 0,
               "seq": 1, "hash": "", "prev": "", "event": {}, "at": 1.7e9, "count": 1,
               "state": "finished", **values}
    if "match" not in values:
        payload["match"] = {"game_id": "scoreboard", "players": ["Ann", "Bob"],
                            "options": {}, "started": 1.7e9, **header}
    data = json.dumps({"v": 1, **payload}).encode()
    if started:  # the match is there already
        receiver.handle(f"companion/t1/log/{uid}", _cut(device, uid, 1.7e9))
    receiver.handle(topic, data)
    receiver.behind()
    receiver.receipts()
    receiver.snapshot()
    match_id = receiver.store.find_uid(uid)
    times = [] if match_id is None else [
        at for _, _, at in receiver.store.events_since(match_id, 0)]
    assert all(math.isfinite(at) for at in times)


def test_a_match_its_table_never_sends_is_asked_for_less_and_less_often():
    """A retained state the table cannot answer (a match it no longer has, or one made
    up) was asked for every ``sync_every`` seconds for ever: 200 syncs in 10 minutes for
    each. Now the asks back off, and progress brings the normal pace back."""
    device = Store(":memory:").device_id()
    asked: list = []
    now = [0.0]
    receiver = Receiver(Store(":memory:"), lambda *r: asked.append(r), clock=lambda: now[0],
                        sync_every=3.0)
    for n in range(3):
        uid = device[:16] + f"{n:016x}"
        receiver.handle(f"companion/t1/match/{uid}", wire.encode(
            {"device": device, "uid": uid, "gen": 1, "count": 4, "hash": "x" * 32,
             "state": "playing"}))
    assert len(asked) == 3  # asked at once, as before
    while now[0] < 600:
        now[0] += 1.0
        receiver.behind()
    per_match = (len(asked) - 3) / 3
    assert 5 <= per_match <= 10  # 3, 6, 12, ... 192, then every 300 s; was 199


def test_the_lagging_line_says_1_match(caplog):
    now = [0.0]
    receiver = Receiver(Store(":memory:"), lambda *r: None, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, "companion.club"):
        for count in (1, 3):
            receiver.handle("companion/t8/status", wire.encode(
                {"online": True, "unconfirmed": count}))
        now[0] = 61.0
        receiver.lines.flush()  # the table's second line comes with the minute's count
    assert "t8: 1 match not confirmed" in caplog.text
    assert "t8: 3 matches not confirmed (1 like it in the last minute)" in caplog.text
