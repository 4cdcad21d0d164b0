"""Issue 29 point 3, the organiser's tools: a device bound to another table is named
and can be moved (command line and page), two devices speaking for one table at once
are warned of (page and log), and a locked season keeps its standings whatever comes
later. Through a real Mosquitto where it crosses the broker (tests/mosquitto.py)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

from starlette.testclient import TestClient

from companion.club import wire
from companion.club.ledger import LEDGER_NAME, Ledger
from companion.club.main import organiser_main, review_main
from companion.club.organiser_tools import TWO_DEVICES_WINDOW
from companion.club.publisher import Publisher
from companion.club.receiver import Receiver
from companion.club.seasons import parse_seasons
from companion.club.web import ClubPage
from companion.config import Club
from companion.store import Store
from tests import test_club
from tests.companion_cli import companion
from tests.mosquitto import wait_for
from tests.test_club import RETRY
from tests.test_club_seasons import finish
from tests.test_club_truth import FakeDashboard

broker, club = test_club.broker, test_club.club  # the real broker's fixtures
HEADERS = {"Origin": "http://testserver", "Content-Type": "application/json"}
DEVICE = "ab12cd34ef56ab78" + "0" * 16


class Dashboard(FakeDashboard):
    """What the club page reads of a dashboard, with the organiser's parts, its calls
    run at once (the dashboard's thread, in a real one)."""

    seasons: list = []

    def snapshot(self) -> dict:
        receiver = self.receiver
        return {**super().snapshot(), "held": receiver.held_rows(),
                "refused_devices": receiver.refused_rows(), "locked": receiver.locked()}

    def call(self, fn):
        fn(self.receiver)


def organisers_browser(page: ClubPage, state_dir) -> TestClient:
    """A browser on any machine that opened the organiser's link."""
    from companion.club.organiser import organiser_token

    client = TestClient(page.asgi(), client=("192.168.1.30", 5000))
    opened = client.get(f"/organiser?token={organiser_token(state_dir)}",
                        follow_redirects=False)
    assert opened.status_code == 303
    return client


def receiver_in(tmp_path: Path, clock=lambda: 0.0) -> Receiver:
    return Receiver(Store(":memory:"), lambda *r: None, clock=clock,
                    ledger=Ledger(tmp_path / LEDGER_NAME))


def match_messages(table: str, n: int) -> list[tuple[str, bytes]]:
    """A one-event match's cut and event, made on :data:`DEVICE`, sent for ``table``."""
    uid = DEVICE[:16] + f"{n:016x}"
    header = {"game_id": "scoreboard", "players": ["Ann", "Bob"], "options": {},
              "started": 1_790_000_000.0 + n}
    event, at = {"type": "points", "player": "Ann", "points": 3}, 1_790_000_010.0 + n
    hashes = wire.chain([(event, at)])
    return [(wire.log_topic(table, uid), wire.encode(
                {"op": "cut", "device": DEVICE, "uid": uid, "gen": 1, "keep": 0, "hash": "",
                 "match": header})),
            (wire.log_topic(table, uid), wire.encode(
                {"op": "event", "device": DEVICE, "uid": uid, "gen": 1, "seq": 1, "prev": "",
                 "hash": hashes[1], "event": event, "at": at}))]


def send(receiver: Receiver, messages: list[tuple[str, bytes]]) -> None:
    for topic, data in messages:
        receiver.handle(topic, data)


def origins(receiver: Receiver) -> list[str]:
    """The tables the matches of :func:`match_messages` are stored for."""
    found = (receiver.store.find_uid(DEVICE[:16] + f"{n:016x}") for n in range(1, 4))
    return sorted(receiver.store.match(i).origin for i in found if i is not None)


# -- a device bound to another table ----------------------------------------------------

def test_a_device_bound_to_another_table_is_named_and_moved_from_the_command_line(
        tmp_path, caplog):
    replies: list[tuple[str, bytes]] = []
    receiver = receiver_in(tmp_path)
    receiver.request = lambda topic, data: replies.append((topic, data))
    send(receiver, match_messages("t1", 1))
    send(receiver, match_messages("t2", 2))  # the Pi carried to table t2
    assert origins(receiver) == ["t1"]
    assert [row["text"] for row in receiver.refused_rows()] == [
        "a device bound to t1 spoke for t2: its matches are dropped until the organiser "
        "moves it to t2"]
    assert DEVICE not in json.dumps(receiver.refused_rows())  # the open page: no id
    out = io.StringIO()
    assert review_main(tmp_path, out=out) == 0
    assert f"{DEVICE[:16]}  a device bound to t1 spoke for t2" in out.getvalue()
    out = io.StringIO()
    assert review_main(tmp_path, as_json=True, out=out) == 0
    assert json.loads(out.getvalue())["refused_devices"][0]["device"] == DEVICE[:16]
    assert organiser_main(tmp_path, move=("f" * 16, "t2")) == 1  # never heard of
    out = io.StringIO()
    assert organiser_main(tmp_path, move=(DEVICE, "t2"), out=out) == 0
    assert out.getvalue().startswith(f"Device {DEVICE[:16]} moved from t1 to t2")
    receiver.behind()  # the running dashboard reads what the command line wrote
    assert receiver.refused_rows() == []
    asked = [json.loads(data) for topic, data in replies if topic == wire.sync_topic("t2")]
    assert [(a["uid"], a["have"]) for a in asked] == [(DEVICE[:16] + f"{2:016x}", 0)]
    send(receiver, match_messages("t2", 2))  # the table sends it again: taken now
    assert origins(receiver) == ["t1", "t2"]
    send(receiver, match_messages("t1", 3))  # and the device no longer speaks for t1
    assert origins(receiver) == ["t1", "t2"]
    moved = [row for row in receiver.ledger.audit() if row["what"] == "moved"]
    assert moved[0]["detail"] == {"device": DEVICE[:16], "from": "t1", "to": "t2"}


def test_the_organiser_moves_a_device_on_the_club_page(tmp_path):
    receiver = receiver_in(tmp_path)
    send(receiver, match_messages("t1", 1))
    send(receiver, match_messages("t2", 2))
    dashboard = Dashboard(receiver)
    dashboard.state_dir = tmp_path
    page = ClubPage(dashboard, receiver.store)
    ident = receiver.refused_rows()[0]["id"]
    away = TestClient(page.asgi(), client=("192.168.1.20", 5000))
    assert "a device bound to t1 spoke for t2" in away.get("/").text
    assert away.get("/api/club").json()["refused_devices"][0]["table"] == "t2"
    refused = away.post(f"/api/club/devices/{ident}/move", content="{}", headers=HEADERS)
    assert refused.status_code == 403
    # Not even from the dashboard's own machine: only the organiser's browser.
    here = TestClient(page.asgi(), client=("127.0.0.1", 5000))
    assert here.post(f"/api/club/devices/{ident}/move", content="{}",
                     headers=HEADERS).status_code == 403
    local = organisers_browser(page, tmp_path)
    assert f'data-post="/api/club/devices/{ident}/move">Move to t2' in local.get("/").text
    done = local.post(f"/api/club/devices/{ident}/move", content="{}", headers=HEADERS)
    assert done.status_code == 200 and done.json() == {"ok": True}
    assert local.post(f"/api/club/devices/{ident}/move", content="{}",
                      headers=HEADERS).status_code == 404  # moved already
    send(receiver, match_messages("t2", 2))
    assert origins(receiver) == ["t1", "t2"]


def test_a_pi_carried_to_another_table_is_moved_there_through_a_real_broker(
        club, broker, tmp_path):
    from companion.session import Session

    _, dashboard = club
    dash = dashboard()
    store = Store.in_dir(tmp_path / "pi")

    def publisher_for(table: str) -> Publisher:
        return Publisher(Club(broker=broker.url, table=table), store.path, retry=RETRY,
                         resend_every=0.3).start()
    publisher = publisher_for("t1")
    try:
        first = Session.start("scoreboard", ["Ann", "Bob"], {}, store=store,
                              listeners=[publisher.listener])
        first.apply({"type": "points", "player": "Ann", "points": 4})
        first.apply({"type": "points", "player": "Bob", "points": 2})
        first.apply({"type": "end"})
        wait_for(lambda: not store.unpublished(), what="t1's match to be stored")
        publisher.stop()
        publisher = publisher_for("t2")  # the Pi carried to table t2
        second = Session.start("scoreboard", ["Cy", "Di"], {}, store=store,
                               listeners=[publisher.listener])
        second.apply({"type": "points", "player": "Cy", "points": 7})
        wait_for(lambda: dash.snapshot()["refused_devices"],
                 what="the page to name the device bound to t1")
        assert dash.snapshot()["refused_devices"][0]["table"] == "t2"
        assert organiser_main(tmp_path / "club", move=(store.device_id(), "t2"),
                              out=io.StringIO()) == 0
        uid = store.match(second.match_id).uid

        def stored_for_t2() -> bool:
            with Store(dash.db_path, readonly=True) as kept:
                found = kept.find_uid(uid)
                return found is not None and kept.match(found).origin == "t2"
        wait_for(stored_for_t2, what="the table's match to be taken for t2 once moved")
        wait_for(lambda: not dash.snapshot()["refused_devices"], what="the row to go")
        wait_for(lambda: not store.unpublished(), what="the table's outbox to empty")
    finally:
        publisher.stop()
        store.close()


# -- two devices speaking for one table at once -----------------------------------------

def status(device: str, online: bool = True) -> bytes:
    return wire.encode({"device": device, "table": "t5", "online": online, "current": None})


def test_two_devices_speaking_for_one_table_are_warned_of_on_the_page_and_in_the_log(
        tmp_path, caplog):
    now = [100.0]
    receiver = receiver_in(tmp_path, clock=lambda: now[0])
    one, two = "1" * 32, "2" * 32
    topic = wire.status_topic("t5")
    receiver.handle(topic, status(one))
    receiver.handle(topic, status(two), retained=True)  # the broker's old copy: no
    receiver.handle(topic, status(two, online=False))   # a will: says nobody speaks
    assert not receiver.snapshot()["tables"]["t5"]["two_devices"]
    now[0] += 5
    receiver.handle(topic, status(two))
    assert receiver.snapshot()["tables"]["t5"]["two_devices"]
    assert "2 devices speak for t5 at once" in caplog.text
    page = ClubPage(Dashboard(receiver), receiver.store)
    client = TestClient(page.asgi(), client=("192.168.1.20", 5000))
    assert "Two devices speak for t5 at once" in client.get("/").text
    assert client.get("/api/club").json()["tables"]["t5"]["two_devices"] is True
    now[0] += TWO_DEVICES_WINDOW / 2
    receiver.handle(topic, status(two))  # only the second one speaks on
    now[0] += TWO_DEVICES_WINDOW / 2 + 1
    receiver.behind()
    assert not receiver.snapshot()["tables"]["t5"]["two_devices"]


def test_a_pi_replaced_later_is_not_two_devices(tmp_path):
    now = [0.0]
    receiver = receiver_in(tmp_path, clock=lambda: now[0])
    receiver.handle(wire.status_topic("t5"), status("1" * 32))
    now[0] += TWO_DEVICES_WINDOW + 60  # the old Pi is gone; the new one starts
    receiver.handle(wire.status_topic("t5"), status("2" * 32))
    assert not receiver.snapshot()["tables"]["t5"]["two_devices"]


def test_two_pis_configured_as_one_table_are_warned_of_through_a_real_broker(
        club, broker, tmp_path, caplog):
    from tests.test_club import Table

    _, dashboard = club
    dash = dashboard()
    pis = [Table(tmp_path / pi, "t5", broker.url).connect().new() for pi in "ab"]
    try:
        for pi in pis:
            pi.play(2)
        wait_for(lambda: (dash.snapshot()["tables"].get("t5") or {}).get("two_devices"),
                 what="the page to warn of two devices at t5")
        assert "devices speak for t5 at once" in caplog.text
    finally:
        for pi in pis:
            pi.close()


# -- a locked season ---------------------------------------------------------------------

SEASONS = "Spring: 2026-03-01..2026-05-31; Summer: 2026-06-01..2026-08-31"


def spring_winner(page: ClubPage) -> tuple[str, object]:
    page._league = None  # as a new result would
    spring = asyncio.run(page.data())["seasons"][0]
    return spring["games"][0]["rows"][0]["name"], spring["locked"]


def test_a_locked_season_keeps_its_standings_whatever_arrives_later(tmp_path):
    store = Store.in_dir(tmp_path)
    finish(store, "2026-03-02", {"Ann": 10, "Bob": 5})
    ledger = Ledger(tmp_path / LEDGER_NAME)
    receiver = Receiver(store, lambda *r: None, ledger=ledger)
    dashboard = Dashboard(receiver)
    dashboard.seasons = parse_seasons(SEASONS)
    dashboard.state_dir = tmp_path
    page = ClubPage(dashboard, store)
    assert spring_winner(page) == ("Ann", None)
    spring = dashboard.seasons[0]
    out = io.StringIO()
    assert organiser_main(tmp_path, season=spring, out=out) == 0  # the command line
    assert out.getvalue().startswith("Season Spring locked")
    assert organiser_main(tmp_path, season=spring) == 1  # locked already
    receiver.behind()  # the running dashboard reads the ledger again
    for day in ("2026-04-01", "2026-04-02", "2026-05-30"):  # late matches: Bob wins
        finish(store, day, {"Ann": 1, "Bob": 9})
    name, locked = spring_winner(page)
    assert name == "Ann" and isinstance(locked, float)
    client = organisers_browser(page, tmp_path)
    html = client.get("/").text
    assert "nothing that arrives later changes them" in html
    assert "/api/club/seasons/0/lock" not in html and "/api/club/seasons/1/lock" in html
    away = TestClient(page.asgi(), client=("10.0.0.9", 5000))
    assert away.post("/api/club/seasons/1/lock", content="{}",
                     headers=HEADERS).status_code == 403
    assert client.post("/api/club/seasons/1/lock", content="{}",
                       headers=HEADERS).json() == {"ok": True, "locked": "Summer"}
    assert client.post("/api/club/seasons/1/lock", content="{}",
                       headers=HEADERS).status_code == 404
    assert client.post("/api/club/seasons/7/lock", content="{}",
                       headers=HEADERS).status_code == 404
    assert set(receiver.locked()) == {"Spring", "Summer"}
    store.close()


def test_a_held_rewrite_accepted_after_the_lock_leaves_the_season_as_it_was(tmp_path):
    from tests.test_club_review import finished, held, rewrite, uid_of

    device = finished(tmp_path)  # Ann won 9-1, counted
    dashboard = Dashboard(device.receiver)
    played = device.dashboard.match(device.dashboard.find_uid(uid_of(device))).finished
    import datetime as dt

    day = dt.date.fromtimestamp(played)
    dashboard.seasons = parse_seasons(f"This week: {day}..{day + dt.timedelta(days=6)}")
    page = ClubPage(dashboard, device.dashboard)
    assert device.receiver.lock(dashboard.seasons[0])
    rewrite(device)  # Bob wins instead
    device.settle(accept=True)
    assert held(tmp_path) == []
    with_bob = asyncio.run(page.data())
    assert {r["name"]: r["wins"] for r in with_bob["league"][0]["rows"]} == \
        {"Ann": 0, "Bob": 1}  # the all-time league follows the accepted rewrite
    rows = with_bob["seasons"][0]["games"][0]["rows"]
    assert [(r["name"], r["wins"]) for r in rows] == [("Ann", 1), ("Bob", 0)]


# -- the command line --------------------------------------------------------------------

def test_the_organisers_flags_say_what_is_wrong_in_one_line(tmp_path):
    for args, words in ((("--move-device", "xyz", "--to", "t2"), "device id"),
                        (("--move-device", DEVICE), "go together"),
                        (("--to", "t2"), "go together"),
                        (("--move-device", DEVICE, "--to", "a/b"), "table"),
                        (("--lock-season", "Winter", "--season", "Spring: "
                          "2026-03-01..2026-05-31"), "no season 'Winter'")):
        result = companion("club", *args, "--state-dir", str(tmp_path))
        assert result.returncode == 2, args
        assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1, \
            result.stderr
    result = companion("club", "--lock-season", "Spring", "--season",
                       "Spring: 2026-03-01..2026-05-31", "--state-dir", str(tmp_path))
    assert result.returncode == 1 and "no club dashboard" in result.stderr
