"""``companion club --web``: the real command, a real broker, the club page over HTTP."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from companion.club.publisher import Publisher
from companion.club.web import league
from companion.config import Club
from companion.session import Session
from companion.store import Store
from tests.mosquitto import Mosquitto, free_port, wait_for


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory):
    with Mosquitto(tmp_path_factory.mktemp("mosquitto-web")) as running:
        yield running


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status, reply.read().decode()
    except OSError:
        return 0, ""


def play_a_match(store: Store, publisher: Publisher, players: list[str], points: list[int]):
    session = Session.start("scoreboard", players, store=store, listeners=[publisher.listener])
    for value in points:
        player = players[len(session.match.events) % len(players)]
        session.apply({"type": "points", "player": player, "points": value})
    session.apply({"type": "end"})
    return session


def test_the_club_command_serves_every_table_and_the_league(broker, tmp_path: Path):
    port = free_port()
    command = subprocess.Popen(
        [sys.executable, "-m", "companion", "club", "--broker", broker.url,
         "--web", f"127.0.0.1:{port}", "--state-dir", str(tmp_path / "club")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stores, publishers = [], []
    try:
        for name, players, points in (("north", ["Ann", "Bob"], [10, 3, 8, 1]),
                                      ("south", ["Ann", "Cy"], [2, 9])):
            store = Store.in_dir(tmp_path / name)
            publisher = Publisher(Club(broker=broker.url, table=name), store.path,
                                  retry=(0.05, 0.5)).start()
            stores.append(store)
            publishers.append(publisher)
            play_a_match(store, publisher, players, points)

        def both_finished() -> bool:
            status, body = get(f"http://127.0.0.1:{port}/api/club")
            if status != 200:
                return False
            data = json.loads(body)
            tables = data["tables"]
            return all(tables.get(t, {}).get("match") and
                       tables[t]["match"]["state"] == "finished" for t in ("north", "south")) \
                and data["league"] and data["league"][0]["plays"] == 2
        wait_for(both_finished, what="both tables on the club page")
        data = json.loads(get(f"http://127.0.0.1:{port}/api/club")[1])
        rows = {row["name"]: row for row in data["league"][0]["rows"]}
        assert rows["Ann"]["plays"] == 2 and rows["Ann"]["wins"] == 1  # across two tables
        assert rows["Cy"]["wins"] == 1 and rows["Bob"]["wins"] == 0
        status, page = get(f"http://127.0.0.1:{port}/")
        assert status == 200 and "north" in page and "south" in page and "League" in page
        status, history = get(f"http://127.0.0.1:{port}/api/history")
        assert status == 200 and {m["origin"] for m in json.loads(history)} == {"north", "south"}
        status, page = get(f"http://127.0.0.1:{port}/history")
        assert status == 200 and ">Table</th>" in page and ">south</td>" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/club/stream",
                                    timeout=10) as stream:
            lines = [stream.readline().decode() for _ in range(4)]
        assert "event: view\n" in lines
    finally:
        for publisher in publishers:
            publisher.stop()
        for store in stores:
            store.close()
        command.send_signal(signal.SIGTERM)
        out, err = command.communicate(timeout=30)
    assert command.returncode == 0, err
    assert "companion club: subscribed to" in err
    # stats and export pick one table of the club (issue 23 point 5)
    club = str(tmp_path / "club")
    north = subprocess.run([sys.executable, "-m", "companion", "stats", "--state-dir", club,
                            "--table", "north", "--json"], capture_output=True, text=True,
                           timeout=60)
    players = json.loads(north.stdout)["games"]["scoreboard"]["players"]
    assert set(players) == {"Ann", "Bob"} and players["Ann"]["wins"] == 1
    south = subprocess.run([sys.executable, "-m", "companion", "export", "--state-dir", club,
                            "--all", "--table", "south"], capture_output=True, text=True,
                           timeout=60)
    assert south.returncode == 0 and "Cy" in south.stdout and "Bob" not in south.stdout


def test_the_club_command_without_a_broker_says_so_in_one_line(tmp_path: Path):
    done = subprocess.run([sys.executable, "-m", "companion", "club", "--state-dir",
                           str(tmp_path)], capture_output=True, text=True, timeout=60,
                          env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2  # a missing argument: usage (README)
    assert done.stderr.strip().count("\n") == 0 and "--broker" in done.stderr


def test_a_bad_broker_url_is_one_line(tmp_path: Path):
    done = subprocess.run([sys.executable, "-m", "companion", "club", "--broker",
                           "http://x", "--state-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "mqtt://" in done.stderr  # a bad argument (README)
    assert "Traceback" not in done.stderr


def test_the_league_puts_the_best_rating_first():
    rows = league({"games": {"g": {"title": "G", "plays": 3, "players": {
        "Ann": {"rating": 1.5, "wins": 1, "plays": 3},
        "Bob": {"rating": 4.0, "wins": 2, "plays": 3},
        "Cy": {"rating": None, "wins": 0, "plays": 0}}}}})[0]["rows"]
    assert [row["name"] for row in rows] == ["Bob", "Ann"]  # Cy never finished a match
