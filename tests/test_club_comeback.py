"""A dashboard pushed off its login comes back (companion/club/login.py, dashboard.py):
growing pauses between tries, the login its own again once it stays connected, a broker
that is away never read as a taken login; and one store, one dashboard (the state dir's
lock). The same against a real Mosquitto: tests/test_club_tls.py."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest

from companion.clock import ManualClock
from companion.club.dashboard import Dashboard
from companion.club.localbroker import wait_for
from companion.club.login import PAUSE_FIRST, PAUSE_MOST, SETTLE, WINDOW, Comeback
from companion.errors import CompanionError


def test_the_pauses_grow_from_longer_than_the_fight_to_ten_minutes():
    clock = ManualClock()
    comeback = Comeback(clock)
    assert not comeback.active and not comeback.try_now()
    pauses = [comeback.taken() for _ in range(7)]
    assert pauses[0] == PAUSE_FIRST > WINDOW  # the other has forgotten the fight's drops
    assert pauses == [min(PAUSE_FIRST * 2 ** n, PAUSE_MOST) for n in range(7)]
    assert pauses[-1] == PAUSE_MOST == 600
    clock.advance(PAUSE_MOST - 1)
    assert not comeback.try_now()
    clock.advance(1)
    assert comeback.try_now() and not comeback.try_now()  # one try at a time
    comeback.up()
    clock.advance(SETTLE - 0.1)
    assert not comeback.settled() and comeback.active
    clock.advance(0.1)
    assert comeback.settled() and not comeback.active
    assert comeback.taken() == PAUSE_FIRST  # a later push-off starts again from the first


def test_a_broker_that_is_away_is_not_a_taken_login():
    clock = ManualClock()
    comeback = Comeback(clock, first=4, most=100)
    comeback.taken()
    comeback.give_up()
    assert not comeback.active and comeback.due is None and not comeback.try_now()


class FakeLink:
    """What the dashboard asks of its broker link: started and stopped, counted."""

    def __init__(self, broker, client_id, post, **kw):
        self.post = post
        self.username = kw.get("username", "")
        self.starts = self.stops = 0
        FakeLink.made.append(self)

    made: list[FakeLink] = []

    def start(self):
        self.starts += 1
        return self

    def stop(self):
        self.stops += 1
        self.post("down")  # paho says so when it disconnects: the last words

    def publish(self, topic, payload, *, retain=False):
        return 0


@pytest.fixture
def fake_link(monkeypatch):
    FakeLink.made.clear()
    monkeypatch.setattr("companion.club.mqtt.BrokerLink", FakeLink)
    return FakeLink.made


def _roundtrip(dash: Dashboard) -> None:
    """Everything posted so far has been handled by the dashboard's thread."""
    done = threading.Event()
    dash.call(lambda receiver: done.set())
    assert done.wait(10)


def test_a_dashboard_pushed_off_waits_longer_each_time_and_keeps_the_login_once_settled(
        tmp_path, fake_link):
    from companion.club.web import ClubPage
    from companion.store import Store

    clock = ManualClock(1000.0)
    notices: list[str] = []
    told: list[str | None] = []
    dash = Dashboard("mqtt://127.0.0.1:1", tmp_path / "club", username="dashboard",
                     sync_every=0.02, clock=clock, retake=(45.0, 600.0))
    dash.on_notice = notices.append
    dash.start()
    dash.on_change = lambda snapshot: told.append(dash.problem)
    link = fake_link[0]
    try:
        assert link.starts == 1
        for _ in range(3):  # dropped as soon as it is on, again and again
            dash.post("up")
            dash.post("down")
        wait_for(lambda: dash.login_taken and link.stops == 1, what="the login taken")
        _roundtrip(dash)
        assert dash.problem.startswith("another client is using the login dashboard; "
                                       "this dashboard tries again at ")
        assert told[-1] == dash.problem  # every open page is told at once
        taken = [text for text in notices if "another client" in text]
        assert len(taken) == 1 and "less and less often" in taken[0]
        data = asyncio.run(ClubPage(dash, Store(dash.db_path, readonly=True)).data())
        assert data["broker"] == {"connected": False, "problem": dash.problem}
        assert link.starts == 1  # no try before the pause is over
        clock.advance(45.0)
        wait_for(lambda: link.starts == 2, what="the first try after 45 s")
        dash.post("up")  # the other client is still there: dropped at once
        dash.post("down")
        wait_for(lambda: link.stops == 2, what="the link stopped again")
        _roundtrip(dash)
        assert dash.login_taken and link.starts == 2
        assert len([text for text in notices if "another client" in text]) == 1  # once
        clock.advance(89.0)
        _roundtrip(dash)
        assert link.starts == 2  # the second pause is twice the first
        clock.advance(1.0)
        wait_for(lambda: link.starts == 3, what="the second try after 90 s")
        dash.post("up")  # the other client has quit: the login stays
        _roundtrip(dash)
        assert dash.problem is None and dash.up.is_set()
        clock.advance(SETTLE)
        wait_for(lambda: not dash.login_taken, what="the login ours again")
        assert notices[-1] == "subscribed to mqtt://127.0.0.1:1"
        dash.post("down")  # one drop later on is a broker away, not a fight
        _roundtrip(dash)
        assert dash.problem == "lost the broker; retrying" and not dash.login_taken
        assert link.stops == 2
    finally:
        dash.stop()


def test_a_failed_attempt_while_taken_means_the_broker_is_away(tmp_path, fake_link):
    clock = ManualClock(1000.0)
    dash = Dashboard("mqtt://127.0.0.1:1", tmp_path / "club", sync_every=0.02,
                     clock=clock, retake=(45.0, 600.0))
    dash.on_notice = lambda text: None
    dash.start()
    link = fake_link[0]
    try:
        for _ in range(3):
            dash.post("up")
            dash.post("down")
        wait_for(lambda: dash.login_taken and link.stops == 1, what="the login taken")
        clock.advance(45.0)
        wait_for(lambda: link.starts == 2, what="the try")
        dash.post("failed", "Connection refused")
        _roundtrip(dash)
        assert not dash.login_taken and dash.problem == "Connection refused"
        dash.post("up")
        dash.post("down")
        _roundtrip(dash)
        assert dash.problem == "lost the broker; retrying" and link.stops == 1
    finally:
        dash.stop()


# -- one store, one dashboard ---------------------------------------------------------------

#: Another process holding a state dir's lock as a running dashboard does, until killed.
HOLDER = ("import sys; from companion.club.rounds import DashboardLock; "
          "lock = DashboardLock(sys.argv[1]); assert lock.take(); print('held', flush=True); "
          "sys.stdin.read()")


def test_a_second_dashboard_on_a_store_in_use_is_refused_in_one_line(tmp_path, fake_link):
    first = Dashboard("mqtt://127.0.0.1:1", tmp_path / "club").start()
    try:
        with pytest.raises(CompanionError) as refused:
            Dashboard("mqtt://127.0.0.1:1", tmp_path / "club").start()
        text = str(refused.value)
        assert "\n" not in text and "another companion club is running on" in text
        assert len(fake_link) == 1  # the second never opened the store nor connected
    finally:
        first.stop()
    Dashboard("mqtt://127.0.0.1:1", tmp_path / "club").start().stop()  # free again


def test_a_dashboard_killed_leaves_no_lock_behind(tmp_path):
    """A crash or a power cut: the kernel lets go of the lock with the process."""
    from companion.club.rounds import DashboardLock

    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert DashboardLock.held(tmp_path)
        assert not DashboardLock(tmp_path).take(tries=1)
    finally:
        holder.kill()
        holder.wait(30)
    assert not DashboardLock.held(tmp_path)
    lock = DashboardLock(tmp_path)
    assert lock.take()
    lock.release()


def test_companion_club_twice_on_one_state_dir_is_one_line(tmp_path):
    from companion_cli import companion

    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "club")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        done = companion("club", "--broker", "mqtt://127.0.0.1:1", "--state-dir",
                         str(tmp_path / "club"))
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
        assert "another companion club is running on" in done.stderr
        assert not (tmp_path / "club" / "companion.db").exists()
    finally:
        holder.kill()
        holder.wait(30)
