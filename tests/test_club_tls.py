"""Club mode over TLS with passwords and the ACL of deploy/club, on a real Mosquitto.

A test CA and a broker certificate are made with ``openssl``; every table logs in with
its own name and password; the ACL is the example shipped in ``deploy/club/``, so what
the example promises is what is tested: a table publishes only under its own topic.
"""

from __future__ import annotations

import html
import math
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from companion.club import wire
from companion.club.dashboard import Dashboard
from companion.club.mqtt import BrokerLink
from companion.club.publisher import Publisher
from companion.config import Club
from companion.session import Session
from companion.store import Store
from tests.mosquitto import Mosquitto, wait_for

ACL = Path(__file__).resolve().parent.parent / "deploy" / "club" / "companion.acl"
USERS = {"dashboard": "dash-secret", "t1": "one-secret", "t2": "two-secret",
         "table-7": "seven-secret", "table-8": "eight-secret",
         "dashboard-2": "dash-two-secret"}


def need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        reason = f"{tool} is not installed: the TLS club test needs it"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def make_ca(directory: Path) -> None:
    """A CA and a broker certificate for localhost / 127.0.0.1, valid for 2 days."""
    openssl = need("openssl")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=directory, check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
        "-out", "ca.crt", "-days", "2", "-subj", "/CN=companion-test-ca")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
        "-out", "server.csr", "-subj", "/CN=localhost")
    (directory / "ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "ext")


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("tls")
    make_ca(directory)
    passwd = directory / "passwd"
    tool = need("mosquitto_passwd")
    for user, password in USERS.items():
        flags = ["-b", "-c"] if not passwd.exists() else ["-b"]
        subprocess.run([tool, *flags, str(passwd), user, password], check=True,
                       capture_output=True)
    extra = "\n".join([
        f"certfile {directory / 'server.crt'}",
        f"keyfile {directory / 'server.key'}",
        f"cafile {directory / 'ca.crt'}",
        "allow_anonymous false",
        f"password_file {passwd}",
        f"acl_file {ACL}",
    ]) + "\n"
    with Mosquitto(directory / "broker", extra=extra) as broker:
        yield broker, directory / "ca.crt"


def mqtts(broker: Mosquitto) -> str:
    return f"mqtts://127.0.0.1:{broker.port}"


def play_a_match(store: Store, publisher: Publisher) -> tuple[Session, str]:
    """A finished Scoreboard match of Ann and Bob at the table, and its uid."""
    session = Session.start("scoreboard", ["Ann", "Bob"], store=store,
                            listeners=[publisher.listener])
    for points in (3, 4, 5, 6):
        player = ("Ann", "Bob")[len(session.match.events) % 2]
        session.apply({"type": "points", "player": player, "points": points})
    session.apply({"type": "end"})
    return session, store.match(session.match_id).uid


def test_a_table_plays_to_the_dashboard_over_tls_with_passwords(secure, tmp_path):
    broker, ca = secure
    dash = Dashboard(mqtts(broker), tmp_path / "club", username="dashboard",
                     password=USERS["dashboard"], ca_file=str(ca), sync_every=0.5,
                     retry=(0.05, 0.5)).start()
    store = Store.in_dir(tmp_path / "t1")
    club = Club(broker=mqtts(broker), table="t1", username="t1", password=USERS["t1"],
                ca_file=str(ca))
    publisher = Publisher(club, store.path, retry=(0.05, 0.5)).start()
    try:
        session, uid = play_a_match(store, publisher)

        def mirrored() -> bool:
            with Store(dash.db_path, readonly=True) as club_store:
                found = club_store.find_uid(uid)
                return found is not None and club_store.events(found) == \
                    store.events(session.match_id) and club_store.match(found).finished
        wait_for(mirrored, what="the match over TLS")
        wait_for(lambda: not store.unpublished(), what="the outbox to empty")
    finally:
        publisher.stop()
        dash.stop()
        store.close()


def _link(broker: Mosquitto, ca: Path, user: str, password: str, posted: list,
          subscribe=()) -> BrokerLink:
    return BrokerLink(wire.Broker.parse(mqtts(broker)), f"test-{user}-{len(posted)}",
                      lambda *item: posted.append(item), username=user, password=password,
                      ca_file=str(ca), subscribe=subscribe, retry=(0.05, 0.5)).start()


def test_the_acl_keeps_a_table_to_its_own_topic(secure):
    broker, ca = secure
    seen: list = []
    watcher = _link(broker, ca, "dashboard", USERS["dashboard"], seen,
                    subscribe=["companion/#"])
    sent: list = []
    table = _link(broker, ca, "t1", USERS["t1"], sent)
    try:
        wait_for(lambda: ("up",) in seen and ("up",) in sent, what="both to connect")
        table.publish("companion/t2/log/forged", b'{"v":1}')  # another table's topic
        table.publish("companion/t2/status", b'{"v":1}', retain=True)
        table.publish("companion/t1/log/marker", b'{"v":1,"marker":true}')
        # One client's messages arrive in order: once the marker is here, the forged
        # ones would have been here before it.
        wait_for(lambda: any(item[:2] == ("message", "companion/t1/log/marker")
                             for item in seen), what="the table's own message")
        topics = {item[1] for item in seen if item[0] == "message"}
        assert not any(topic.startswith("companion/t2/") for topic in topics)
    finally:
        table.stop()
        watcher.stop()


def test_the_acl_keeps_receipts_and_sync_requests_the_dashboards(secure):
    """A table can neither write another table's receipts (they would mark that table's
    matches delivered when the dashboard has nothing) or resend requests, nor read them:
    only the dashboard's reach the table they are for."""
    broker, ca = secure
    dashboard_seen: list = []
    dashboard = _link(broker, ca, "dashboard", USERS["dashboard"], dashboard_seen)
    victim_seen: list = []
    victim = _link(broker, ca, "t2", USERS["t2"], victim_seen,
                   subscribe=[wire.receipt_topic("t2"), wire.sync_topic("t2")])
    hostile_seen: list = []
    hostile = _link(broker, ca, "t1", USERS["t1"], hostile_seen,
                    subscribe=["companion/+/receipt", "companion/+/sync", "companion/#"])
    try:
        wait_for(lambda: all(("up",) in seen for seen in
                             (dashboard_seen, victim_seen, hostile_seen)), what="connect")
        forged = b'{"v":1,"uid":"x","gen":1,"seq":9,"hash":"h","state":"finished"}'
        hostile.publish(wire.receipt_topic("t2"), forged)
        hostile.publish(wire.sync_topic("t2"), b'{"v":1,"uid":"x","have":0,"hash":""}')
        hostile.publish(wire.receipt_topic("t1"), forged)  # not even its own
        time.sleep(0.3)  # the forged ones go first (another client: no order to rely on)
        dashboard.publish(wire.receipt_topic("t2"), b'{"v":1,"marker":true}')
        wait_for(lambda: any(item[0] == "message" for item in victim_seen),
                 what="the dashboard's receipt")
        time.sleep(0.3)
        got = [item[1:3] for item in victim_seen if item[0] == "message"]
        assert got == [(wire.receipt_topic("t2"), b'{"v":1,"marker":true}')]
        assert [item for item in hostile_seen if item[0] == "message"] == []
    finally:
        hostile.stop()
        victim.stop()
        dashboard.stop()


def test_a_table_reads_its_own_round_and_writes_none(secure):
    """companion/<table>/round: the dashboard writes it; a table reads its own only,
    and cannot write one (its own nor another's)."""
    from companion.club.rounds import round_topic

    broker, ca = secure
    dashboard_seen: list = []
    dashboard = _link(broker, ca, "dashboard", USERS["dashboard"], dashboard_seen,
                      subscribe=["companion/#"])
    table_seen: list = []
    table = _link(broker, ca, "t1", USERS["t1"], table_seen, subscribe=["companion/+/round"])
    try:
        wait_for(lambda: ("up",) in dashboard_seen and ("up",) in table_seen, what="connect")
        table.publish(round_topic("t1"), b'{"v":1,"forged":1}')
        table.publish(round_topic("t2"), b'{"v":1,"forged":2}')
        time.sleep(0.3)
        dashboard.publish(round_topic("t2"), b'{"v":1,"other":true}')
        dashboard.publish(round_topic("t1"), b'{"v":1,"mine":true}')
        wait_for(lambda: any(item[0] == "message" for item in table_seen), what="its round")
        time.sleep(0.3)
        got = [item[1:3] for item in table_seen if item[0] == "message"]
        assert got == [(round_topic("t1"), b'{"v":1,"mine":true}')]
        assert not any(b"forged" in item[2] for item in dashboard_seen if item[0] == "message")
    finally:
        table.stop()
        dashboard.stop()


def test_a_wrong_password_never_connects_and_never_blocks(secure, tmp_path):
    broker, ca = secure
    refused_before = broker.log.read_text().count("not authorised")
    posted: list = []
    link = _link(broker, ca, "t1", "wrong", posted)  # returns at once: nothing waits
    try:
        wait_for(lambda: broker.log.read_text().count("not authorised") > refused_before,
                 what="the broker to refuse the password")
        assert ("up",) not in posted
    finally:
        link.stop()


def listening_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` listens on (any address, IPv4 or IPv6): its socket
    inodes (``/proc/PID/fd``) looked up in ``/proc/net/tcp*``."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


@pytest.fixture
def example_broker(secure, tmp_path):
    """deploy/club/mosquitto.conf with only its paths and port made local, running:
    (its port, its process)."""
    from companion.club.localbroker import free_port, mosquitto_binary

    _, ca = secure
    certs = ca.parent
    port = free_port()
    text = (ACL.parent / "mosquitto.conf").read_text()
    for shipped, local in (("/etc/mosquitto/companion.passwd", str(certs / "passwd")),
                           ("/etc/mosquitto/companion.acl", str(ACL)),
                           ("/etc/mosquitto/certs/", f"{certs}/"),
                           ("listener 8883", f"listener {port} 127.0.0.1")):
        assert shipped in text
        text = text.replace(shipped, local)
    text += f"persistence_location {tmp_path}/\nlog_dest file {tmp_path}/log\n"
    text += "log_type error\nlog_type warning\nlog_type notice\n"
    if os.geteuid() == 0:
        text += "user root\n"
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(text)
    broker = subprocess.Popen([mosquitto_binary(), "-c", str(conf)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield port, broker
    finally:
        broker.terminate()
        broker.wait(30)


def _example_link(port: int, ca: Path, user: str, client_id: str, posted: list,
                  subscribe=()) -> BrokerLink:
    return BrokerLink(wire.Broker.parse(f"mqtts://127.0.0.1:{port}"), client_id,
                      lambda *item: posted.append(item), username=user,
                      password=USERS[user], ca_file=str(ca), subscribe=subscribe,
                      retry=(0.05, 0.5)).start()


def test_the_example_broker_config_runs_as_shipped(secure, example_broker, monkeypatch):
    """deploy/club/mosquitto.conf with only its paths and port made local: it starts,
    takes a table over TLS with its password, and caps a message's size."""
    _, ca = secure
    port, _ = example_broker
    posted: list = []
    link = _example_link(port, ca, "t1", "example-t1", posted)
    try:
        wait_for(lambda: ("up",) in posted, what="a table to log in to the example broker")
        # Its message_size_limit: a big payload never reaches the dashboard (whose own
        # cap is lifted here, to see the broker's).
        monkeypatch.setattr("companion.club.mqtt.MAX_PAYLOAD", 10**9)
        seen: list = []
        watcher = _example_link(port, ca, "dashboard", "example-dash", seen,
                                subscribe=["companion/#"])
        try:
            wait_for(lambda: ("up",) in seen, what="the dashboard to log in")
            link.publish("companion/t1/log/big", b"x" * (wire.MAX_PAYLOAD + 1))
            link.publish("companion/t1/log/small", b'{"v":1}')
            wait_for(lambda: any(item[:2] == ("message", "companion/t1/log/small")
                                 for item in seen), what="the small message")
            assert not any(item[:2] == ("message", "companion/t1/log/big") for item in seen)
        finally:
            watcher.stop()
    finally:
        link.stop()


def test_the_example_broker_listens_only_on_its_tls_port(secure, example_broker):
    """No default listener on 1883 (plain text, every interface) beside the TLS one,
    whether 1883 is free or not: the broker's own listening sockets are read."""
    port, broker = example_broker
    wait_for(lambda: port in listening_ports(broker.pid), what="the TLS listener")
    time.sleep(0.2)  # every listener is opened before the broker serves any
    assert listening_ports(broker.pid) == {port}


def test_a_login_asking_for_another_tables_client_id_gets_its_own(secure, example_broker):
    """table-7's login asking for client id "table-8" is table-7 on the broker: table-8,
    connected, is not knocked off (it would be, were the id taken as asked)."""
    _, ca = secure
    port, _ = example_broker
    log_file = Path(example_broker[1].args[2]).parent / "log"
    victim: list = []
    eight = _example_link(port, ca, "table-8", "table-8", victim)
    intruder: list = []
    seven = None
    try:
        wait_for(lambda: ("up",) in victim, what="table-8 to connect")
        seven = _example_link(port, ca, "table-7", "table-8", intruder)
        wait_for(lambda: ("up",) in intruder, what="table-7 to connect")
        wait_for(lambda: " as table-7 " in log_file.read_text(),
                 what="the broker to name table-7's login by its user name")
        time.sleep(0.5)  # a takeover would have dropped table-8 by now
        assert ("down",) not in victim
        assert " as table-8 " in log_file.read_text()  # table-8's own, once
        assert log_file.read_text().count(" as table-8 ") == 1
    finally:
        if seven is not None:
            seven.stop()
        eight.stop()


def _club_page(dash: Dashboard) -> str:
    from companion.club.localbroker import free_port
    from companion.club.web import serve

    server = serve(dash, f"127.0.0.1:{free_port()}")
    try:
        with urllib.request.urlopen(f"{server.url}/", timeout=10) as reply:
            return html.unescape(reply.read().decode())
    finally:
        server.stop()


def test_a_dashboard_pushed_off_its_login_backs_off_and_takes_it_back_once_it_is_free(
        secure, example_broker, tmp_path):
    """Another client with the dashboard's login on the example broker (a login is its
    client id), one that reconnects by itself as a second dashboard would: the one
    pushed off says so in one line and on the page and tries again after growing pauses
    (no push-off war: the other keeps the club between tries); once the other quits it
    takes the login back, once, and catches up with what a table played meanwhile. A
    second dashboard with the ACL's second login sits beside it all along."""
    _, ca = secure
    port, _ = example_broker
    url = f"mqtts://127.0.0.1:{port}"
    lines: list[tuple[float, str]] = []

    def dashboard(name: str, user: str) -> Dashboard:
        dash = Dashboard(url, tmp_path / name, username=user, password=USERS[user],
                         ca_file=str(ca), retry=(0.05, 0.5), sync_every=0.3,
                         retake=(0.4, 3.2))
        dash.on_notice = lambda text: lines.append((time.monotonic(), f"{name}: {text}"))
        return dash.start()

    first = dashboard("first", "dashboard")
    third = other = publisher = None
    store = Store.in_dir(tmp_path / "t1")
    posted: list = []
    try:
        wait_for(first.up.is_set, what="the first dashboard to connect")
        third = dashboard("third", "dashboard-2")
        wait_for(third.up.is_set, what="the dashboard with the second login")
        other = _example_link(port, ca, "dashboard", "another-program", posted,
                              subscribe=["companion/#"])
        def said_taken() -> list[str]:
            return [text for _, text in lines if "another client" in text]
        wait_for(said_taken, what="the first dashboard to be pushed off and say so")
        taken_at = time.monotonic()
        said = said_taken()
        assert said and said[0].startswith(
            "first: another client is using the login dashboard; this dashboard tries "
            "again at "), said
        # A table plays while the other client holds the login.
        publisher = Publisher(Club(broker=url, table="t1", username="t1",
                                   password=USERS["t1"], ca_file=str(ca)), store.path,
                              retry=(0.05, 0.5), resend_every=0.3).start()
        session, uid = play_a_match(store, publisher)
        wait_for(lambda: publisher.up, what="the table to connect")
        time.sleep(2.0)  # the other holds the login a while: the first tries, rarely
        held_for = time.monotonic() - taken_at
        other.stop()
        quit_at = time.monotonic()
        # Tries while taken: pauses of 0.4, 0.8, 1.6, 3.2 s: a handful, never a war.
        tries = [text for at, text in lines if taken_at <= at < quit_at
                 and text.startswith("first: subscribed")]
        assert len(tries) <= 1 + math.log2(held_for / 0.4 + 1), tries
        assert posted.count(("down",)) <= 4 + len(tries)  # the fight, then one a try
        wait_for(lambda: first.up.is_set() and not first.login_taken, timeout=30,
                 what="the first dashboard to take its login back for good")

        def caught_up() -> bool:
            with Store(first.db_path, readonly=True) as club_store:
                found = club_store.find_uid(uid)
                return found is not None and club_store.match(found).finished is not None
        wait_for(caught_up, what="the match played meanwhile on the first dashboard")
        after = [text for at, text in lines if at >= quit_at and text.startswith("first")]
        assert [text for text in after if "subscribed" in text] == [
            f"first: subscribed to {url}"], after
        assert not [text for text in after if "another client" in text]
        assert first.problem is None and third.problem is None and third.up.is_set()
        taken = [text for _, text in lines if "another client" in text]
        assert len(taken) == 1 and taken[0].startswith("first: another client")
    finally:
        for running in (publisher, other, first, third):
            if running is not None:
                running.stop()
        store.close()


def test_a_dashboards_wrong_password_is_on_the_page(secure, tmp_path):
    broker, ca = secure
    dash = Dashboard(mqtts(broker), tmp_path / "club", username="dashboard",
                     password="wrong", ca_file=str(ca), retry=(0.05, 0.5))
    dash.on_notice = lambda text: None
    dash.start()
    try:
        wait_for(lambda: dash.problem and "refused" in dash.problem, what="the refusal")
        assert "the broker refused the login dashboard: wrong user name or password" \
            in _club_page(dash)
    finally:
        dash.stop()


def test_a_table_with_another_tables_credentials_is_never_counted_delivered(secure, tmp_path):
    """Table "t2" configured with t1's login: the ACL denies every publish, and MQTT
    3.1.1 acknowledges a denied publish all the same. No receipt comes, so its matches
    stay in the outbox and the table says so (the OLED's mark: "not confirmed")."""
    broker, ca = secure
    dash = Dashboard(mqtts(broker), tmp_path / "club", username="dashboard",
                     password=USERS["dashboard"], ca_file=str(ca), sync_every=0.5,
                     retry=(0.05, 0.5)).start()
    store = Store.in_dir(tmp_path / "t2")
    lags: list[int] = []
    club = Club(broker=mqtts(broker), table="t2", username="t1", password=USERS["t1"],
                ca_file=str(ca))
    publisher = Publisher(club, store.path, retry=(0.05, 0.5), resend_every=0.2,
                          on_lag=lags.append).start()
    try:
        session = Session.start("scoreboard", ["Ann", "Bob"], store=store,
                                listeners=[publisher.listener])
        for points in (3, 4):
            player = ("Ann", "Bob")[len(session.match.events) % 2]
            session.apply({"type": "points", "player": player, "points": points})
        session.apply({"type": "end"})
        wait_for(lambda: publisher.up, what="the table to connect")
        wait_for(lambda: lags and lags[-1] == 1, what="the table to say 1 match not confirmed")
        assert store.unpublished() == [session.match_id]
        assert store.published(session.match_id) == 0
        with Store(dash.db_path, readonly=True) as club_store:
            assert club_store.find_uid(store.match(session.match_id).uid) is None
    finally:
        publisher.stop()
        dash.stop()
        store.close()


def test_a_tls_failure_is_one_line_and_the_page_says_why(secure, tmp_path):
    """The dashboard without the CA: the broker's certificate cannot be checked. The
    command says so in one line (it used to print only "subscribed to ..."), and the
    club page says it is not connected instead of "No table has reported yet"."""
    import asyncio
    import io
    import threading

    from companion.club.main import club_main
    from companion.club.web import ClubPage

    broker, _ = secure
    out = io.StringIO()
    stop = threading.Event()
    done: list[int] = []
    runner = threading.Thread(target=lambda: done.append(club_main(
        mqtts(broker), tmp_path / "club", stop=stop, out=out)), daemon=True)
    runner.start()
    try:
        wait_for(lambda: "cannot reach the broker" in out.getvalue(), what="the TLS line")
    finally:
        stop.set()
        runner.join(30)
    lines = [line for line in out.getvalue().splitlines() if "cannot reach" in line]
    assert len(lines) == 1 and "CERTIFICATE_VERIFY_FAILED" in lines[0]
    assert "subscribed to" not in out.getvalue()
    assert done == [0]

    dash = Dashboard(mqtts(broker), tmp_path / "club2", retry=(0.05, 0.5))
    dash.on_notice = lambda text: None
    dash.start()
    try:
        wait_for(lambda: dash.problem and "CERTIFICATE" in dash.problem, what="the reason")
        page = ClubPage(dash, Store(dash.db_path, readonly=True))
        data = asyncio.run(page.data())
        assert data["broker"]["connected"] is False
        assert "CERTIFICATE_VERIFY_FAILED" in data["broker"]["problem"]
    finally:
        dash.stop()


def test_a_broker_that_restarts_or_stalls_is_never_read_as_a_taken_login():
    from companion.club.login import LoginFight

    now = [0.0]
    fight = LoginFight(lambda: now[0])
    for _ in range(10):  # restarts: a failed attempt between every drop
        fight.up()
        now[0] += 1
        assert not fight.down()
        fight.failed()
    for _ in range(5):  # a drop now and then, reconnected at once
        fight.up()
        now[0] += 31
        assert not fight.down()
    now[0] += 31
    results = []
    for _ in range(3):  # dropped as soon as it is on, again and again
        fight.up()
        now[0] += 0.5
        results.append(fight.down())
    assert results == [False, False, True]
