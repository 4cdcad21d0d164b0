"""Issue 23, points 1 and 3 without a broker: receipts move the table's outbox mark (the
broker's acknowledgements do not), an unconfirmed match is sent again on the
publisher's own timer, and the dashboard recomputes every result (a disagreeing claim,
the same match under a new uid, a match the table did not make: refused, on record)."""

from __future__ import annotations

import json
import logging
import random

from companion.club import wire
from companion.club.publisher import Publisher
from companion.club.receiver import Receiver
from companion.config import Club
from companion.session import Session
from companion.store import Store
from tests.test_club_receiver import Device, FakeLink

PLAYERS = ("Ann", "Bob")


def finished_device(seed: int = 1, points=(10, 2)) -> Device:
    device = Device(random.Random(seed))
    for value in points:
        seat = len(device.session.match.events) % 2
        device.session.apply({"type": "points", "player": PLAYERS[seat], "points": value})
    device.session.apply({"type": "end"})
    return device


def uid_of(device: Device) -> str:
    return device.store.match(device.session.match_id).uid


def test_the_brokers_acknowledgement_moves_nothing_a_receipt_does():
    device = finished_device()
    for mid in list(device.link.unacked):  # the broker has every message
        device.publisher.handle(("acked", mid))
    assert device.store.published(device.session.match_id) == 0
    assert device.store.unpublished() == [device.session.match_id]
    device.deliver(10**6)  # the dashboard stores it and says so
    assert device.store.published(device.session.match_id) == 3
    assert device.store.unpublished() == []


def test_a_receipt_for_another_log_moves_nothing():
    device = finished_device()
    uid = uid_of(device)
    forged = wire.encode({"uid": uid, "gen": 9, "seq": 3, "hash": "0" * 32,
                          "state": "finished"})
    device.publisher.handle(("message", wire.receipt_topic("t1"), forged))
    device.publisher.handle(("message", wire.receipt_topic("t1"), b"not json"))
    assert device.store.published(device.session.match_id) == 0


def test_an_unconfirmed_match_is_sent_again_on_the_publishers_timer_less_and_less_often():
    lags: list[int] = []
    store = Store(":memory:")
    now = [0.0]
    link = FakeLink()
    publisher = Publisher(Club(broker="mqtt://unused", table="t1"), ":memory:",
                          clock=lambda: now[0], resend_every=5.0, on_lag=lags.append)
    publisher.attach(store, link)
    publisher.handle(("up",))
    session = Session.start("scoreboard", list(PLAYERS), store=store,
                            listeners=[lambda s, e, undone=False: publisher.handle(
                                ("signal", s.match_id))])
    session.apply({"type": "points", "player": "Ann", "points": 4})
    first = len(link.sent)
    assert publisher._until_resend() == 5.0  # the thread's queue waits this long
    now[0] = 4.9
    publisher.handle(("tick",))
    assert len(link.sent) == first and lags == []
    now[0] = 5.0
    publisher.handle(("tick",))
    resent = [json.loads(data)["op"] for _, topic, data in link.sent[first:] if "/log/" in topic]
    assert resent == ["cut", "event"]  # the whole generation again: the cut may be lost
    assert lags == [1]  # "1 match not confirmed": the OLED's mark, the status
    status = [json.loads(d) for _, t, d in link.sent if t.endswith("/status")][-1]
    assert status["unconfirmed"] == 1
    assert publisher._until_resend() == 10.0  # twice as long before the next one
    receiver = Receiver(Store(":memory:"), lambda *r: replies.append(r))
    replies: list = []
    for _, topic, data in link.sent:
        receiver.handle(topic, data)
    receiver.receipts()
    for topic, data in replies:
        publisher.handle(("message", topic, data))
    assert lags == [1, 0] and store.unpublished() == []
    assert publisher._until_resend() is None  # nothing waits: the thread sleeps


def test_a_claimed_result_that_disagrees_with_the_events_is_refused_and_logged(caplog):
    """Bob wins 10-2 by the events; the table claims "Ann 9999, winner Ann"."""
    device = Device(random.Random(1))
    original = device.link.publish

    def forging(topic, payload, *, retain=False):
        message = json.loads(payload)
        if "/match/" in topic and message.get("state") == "finished":
            message["result"] = {"over": True, "totals": {"Ann": 9999, "Bob": 0},
                                 "winners": ["Ann"]}
            payload = json.dumps(message).encode()
        return original(topic, payload, retain=retain)

    device.link.publish = forging
    for player, value in (("Ann", 2), ("Bob", 10)):
        device.session.apply({"type": "points", "player": player, "points": value})
    device.session.apply({"type": "end"})
    with caplog.at_level(logging.ERROR, "companion.club"):
        device.settle()  # the table is told "refused": it stops sending it
    mirrored = device.dashboard.find_uid(uid_of(device))
    record = device.dashboard.match(mirrored)
    assert record.finished is None and record.result is None  # not counted
    assert device.dashboard.events(mirrored) == device.session.match.events
    refusals = [r for r in caplog.records if "not counted" in r.getMessage()]
    assert len(refusals) == 1 and "\n" not in refusals[0].getMessage()
    audit = device.receiver.ledger.audit()
    assert audit[0]["what"] == "claim" and audit[0]["detail"]["claimed"]["totals"]["Ann"] == 9999
    assert audit[0]["detail"]["computed"]["winners"] == ["Bob"]


def test_an_honest_claim_is_counted_with_the_engines_result():
    device = finished_device(points=(2, 10))
    device.settle()
    record = device.dashboard.match(device.dashboard.find_uid(uid_of(device)))
    assert record.finished is not None and record.result["winners"] == ["Bob"]
    assert device.receiver.ledger.audit() == []


def test_the_same_match_under_a_new_uid_is_one_match():
    device = finished_device(points=(2, 10))
    device.settle()
    uid = uid_of(device)
    twin = uid[:16] + "f" * 16
    for topic, data in device.history:  # every message again, under a new uid
        message = json.loads(data)
        if message.get("uid") == uid:
            message["uid"] = twin
            device.receiver.handle(topic.replace(uid, twin), json.dumps(message).encode())
    finished = [m for m in device.dashboard.past(10) if m.finished is not None]
    assert [m.uid for m in finished] == [uid]
    audit = device.receiver.ledger.audit()
    assert audit[0]["what"] == "duplicate" and audit[0]["detail"]["same_as"] == uid


def test_a_match_not_made_on_the_sending_device_is_dropped(caplog):
    receiver = Receiver(Store(":memory:"), lambda *r: None)
    cut = {"op": "cut", "device": "a" * 32, "uid": "b" * 32, "gen": 1, "keep": 0,
           "hash": "", "match": {"game_id": "scoreboard", "players": list(PLAYERS),
                                 "options": {}, "started": 1.0}}
    with caplog.at_level(logging.WARNING, "companion.club"):
        receiver.handle(wire.log_topic("t1", "b" * 32), wire.encode(cut))
        ok = dict(cut, uid="a" * 16 + "c" * 16)
        receiver.handle(wire.log_topic("t1", ok["uid"]), wire.encode(ok))
        # the same device speaking for a second table: refused
        other = dict(cut, uid="a" * 16 + "d" * 16)
        receiver.handle(wire.log_topic("t2", other["uid"]), wire.encode(other))
    assert receiver.store.find_uid("b" * 32) is None
    assert receiver.store.find_uid(ok["uid"]) is not None
    assert receiver.store.find_uid(other["uid"]) is None
    assert "was not made on its device" in caplog.text and "is t1's, not t2's" in caplog.text


def test_a_made_up_device_id_with_another_tables_digits_is_that_tables_device(caplog):
    """A uid read off a table's page (an export) gives away its device's first 16 digits.
    A hostile table made up a device id beginning with them: the ledger took it for a new
    device of its own, so it could take a match of the victim's the dashboard had not
    seen yet, and the victim's own messages for it were then dropped for ever."""
    receiver = Receiver(Store(":memory:"), lambda *r: None)
    victim = "a" * 32
    cut = {"op": "cut", "device": victim, "uid": "a" * 16 + "c" * 16, "gen": 1, "keep": 0,
           "hash": "", "match": {"game_id": "scoreboard", "players": list(PLAYERS),
                                 "options": {}, "started": 1.0}}
    receiver.handle(wire.log_topic("t1", cut["uid"]), wire.encode(cut))  # an earlier match
    taken = dict(cut, uid="a" * 16 + "d" * 16)  # the victim's next match, read off its page
    with caplog.at_level(logging.WARNING, "companion.club"):
        receiver.handle(wire.log_topic("t2", taken["uid"]),
                        wire.encode(dict(taken, device="a" * 16 + "f" * 16)))
        assert receiver.store.find_uid(taken["uid"]) is None
        receiver.handle(wire.log_topic("t1", taken["uid"]), wire.encode(taken))
    assert receiver.store.match(receiver.store.find_uid(taken["uid"])).origin == "t1"
    assert "is t1's, not t2's" in caplog.text


def test_a_finished_match_rewritten_later_is_on_record():
    device = finished_device(points=(2, 10))
    device.settle()
    device.session.undo()  # the end taken back, another hand played, ended again
    for player, value in (("Ann", 30), ("Bob", 1)):
        device.session.apply({"type": "points", "player": player, "points": value})
    device.session.apply({"type": "end"})
    device.settle(accept=True)  # the organiser accepts the rewrite
    mirrored = device.dashboard.find_uid(uid_of(device))
    assert device.dashboard.match(mirrored).result["winners"] == ["Ann"]
    rewrite = [row for row in device.receiver.ledger.audit() if row["what"] == "rewritten"]
    assert len(rewrite) == 1 and rewrite[0]["table"] == "t1"
    assert rewrite[0]["detail"]["result"]["winners"] == ["Bob"]
    assert rewrite[0]["detail"]["dropped"] == [{"type": "end"}]
    assert rewrite[0]["detail"]["accepted"] is True
