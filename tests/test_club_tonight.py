"""Tonight's tables (companion/club/tonight.py): ``--tables`` takes a number (the tables
online now, most recently seen first) or names (exactly those); a round that cannot be
seated says why in one line, exit 2; the organiser's form ticks tables by name, and
seats off the page's event loop with one name check."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from companion_cli import companion
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.club import night as nights
from companion.club import tonight
from companion.club.seating import Seat
from companion.errors import RoundRefused

NINE = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy"]
HOLDER = ("import sys; from companion.club.rounds import DashboardLock; "
          "lock = DashboardLock(sys.argv[1]); assert lock.take(); print('held', flush=True); "
          "sys.stdin.read()")


def heard(state: Path, **last_seen: float) -> None:
    """The dashboard's ledger has heard these tables, each last at the time given."""
    from companion.club.ledger import LEDGER_NAME, Ledger

    state.mkdir(parents=True, exist_ok=True)
    ledger = Ledger(state / LEDGER_NAME)
    for table, at in last_seen.items():
        ledger.seen(table.replace("_", "-"), at)
    ledger.close()


def seat(state: Path, present: list[str], tables: str, *more: str):
    return companion("club", "--seat", "final-count", "--present", ",".join(present),
                     "--tables", tables, "--json", "--state-dir", str(state), *more)


def seated_at(done) -> list[str]:
    assert done.returncode == 0, done.stderr
    return [table["table"] for table in json.loads(done.stdout)["tables"]]


def test_the_bar_named_tables_seat_exactly_those(tmp_path):
    state = tmp_path / "club"
    heard(state, **{f"table_{n}": 1_000.0 + n for n in range(1, 9)})
    assert seated_at(seat(state, NINE[:5], "table-4,table-6")) == ["table-4", "table-6"]
    assert seated_at(seat(state, NINE[:8], "table-6,table-4")) == ["table-6", "table-4"]
    done = seat(state, NINE[:4], "table-4,table-6,table-9")  # table-9: never heard
    assert seated_at(done) == ["table-4", "table-6"]
    assert json.loads(done.stdout)["empty"] == ["table-9"]
    assert "Traceback" not in done.stderr


def test_the_bar_thirteen_players_at_one_table_exit_2_in_one_line(tmp_path):
    done = seat(tmp_path / "club", [f"P{n}" for n in range(13)], "1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("companion: Final Count: 13 players need at least 4 tables of "
                           "at most 4, not 1\n")
    assert not (tmp_path / "club" / nights.NIGHT_FILE).exists()


@pytest.mark.parametrize("where", ["/proc/1/x", "FILE/x"])
def test_the_bar_a_state_dir_that_cannot_be_made_is_one_line(tmp_path, where):
    (tmp_path / "FILE").write_text("not a directory")
    where = where.replace("FILE", str(tmp_path / "FILE"))
    for done in (seat(Path(where), NINE, "3"),
                 companion("club", "--broker", "mqtt://127.0.0.1:1", "--state-dir", where)):
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "--state-dir" in done.stderr and "Traceback" not in done.stderr


def test_a_table_named_like_a_number_is_named_with_a_comma_after_it(tmp_path):
    """Found attacking issue 36: a club whose tables are named 3, 7 and 12 could not
    seat table 7 alone (``--tables 7`` is seven tables, ``--tables 7,`` was refused).
    A comma at the end names the one table; a number that is also a table's name says
    how to name it."""
    state = tmp_path / "club"
    heard(state, **{"3": 3_000.0, "7": 2_000.0, "12": 1_000.0})
    assert seated_at(seat(state, NINE[:3], "7,")) == ["7"]
    assert seated_at(seat(state, NINE[:3], " 12 , ")) == ["12"]
    done = seat(state, NINE[:6], "3")
    assert seated_at(done) == ["3", "7", "12"]  # three tables, the latest heard first
    assert ("companion club: 3 is how many tables to seat: to seat only the table named "
            "3, write --tables 3,\n") in done.stderr
    assert "how many tables" not in seat(state, NINE[:6], "2").stderr  # no table "2"
    for bad in (",", "7,,", ",7"):
        done = seat(state, NINE[:3], bad)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr


def test_a_round_that_leaves_tables_empty_says_which(tmp_path):
    done = seat(tmp_path / "club", NINE[:4], "3")  # 4 players of Final Count: 2 tables
    assert seated_at(done) == ["table-1", "table-2"]
    assert json.loads(done.stdout)["empty"] == ["table-3"]
    assert ("companion club: Final Count seats 2 to 4 at a table: 1 table of those asked "
            "for stays empty (table-3)\n") in done.stderr
    assert "no dashboard is running" in done.stderr  # which are online is not known


def test_a_number_seats_the_tables_online_now_most_recently_seen_first(tmp_path):
    """With a dashboard running: the online ones, the latest heard first; a round that
    needs more than are online is refused (exit 2, one line) and nothing is stored."""
    state = tmp_path / "club"
    heard(state, table_1=5_000.0, table_2=1_000.0, table_3=3_000.0, table_4=4_000.0,
          table_5=2_000.0)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(state)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        tonight.write_online(state, ["table-2", "table-3", "table-5"])
        assert seated_at(seat(state, NINE[:6], "2")) == ["table-3", "table-5"]
        assert seated_at(seat(state, NINE[:6], "3")) == ["table-3", "table-5", "table-2"]
        before = (state / nights.NIGHT_FILE).read_bytes()
        done = seat(state, NINE, "4")
        assert done.returncode == 2 and done.stderr.count("\n") == 1
        assert ("Final Count: this round needs 4 tables, only 3 are online now (table-3, "
                "table-5 and table-2)") in done.stderr
        assert (state / nights.NIGHT_FILE).read_bytes() == before
        # Named, an offline table is seated all the same, and said.
        done = seat(state, NINE[:6], "table-1,table-3")
        assert seated_at(done) == ["table-1", "table-3"]
        assert json.loads(done.stdout)["offline"] == ["table-1"]
        assert "table-1 is offline now" in done.stderr
    finally:
        holder.kill()
        holder.wait(30)


def test_without_a_dashboard_the_latest_heard_come_first_then_tables_never_heard(tmp_path):
    state = tmp_path / "club"
    heard(state, table_7=2_000.0, table_4=3_000.0)
    assert seated_at(seat(state, NINE[:6], "3")) == ["table-4", "table-7", "table-1"]


club_tables = st.lists(
    st.builds(tonight.ClubTable, st.sampled_from([f"table-{n}" for n in range(1, 13)]),
              st.booleans(), st.one_of(st.none(), st.floats(0, 1e6))),
    max_size=12, unique_by=lambda table: table.name)


@settings(max_examples=150, deadline=None)
@given(club_tables, st.integers(1, 14), st.integers(0, 40), st.booleans())
def test_a_number_never_seats_a_table_away_while_a_live_one_waits(tables, asked, players,
                                                                   known):
    if not known:
        tables = [tonight.ClubTable(t.name, None, t.last_seen) for t in tables]
    listed = tonight.candidates(tables, asked)
    assert len(listed) == len(set(listed)) == asked
    used = listed[:max(1, min(asked, players // 2))]  # the seating fills the first ones
    rnd = nights.Round(1, "final-count", 1, 0.0, [Seat(name, ("A", "B")) for name in used])
    online = [t.name for t in tonight.ordered(tables) if t.online]
    if known and len(used) > len(online):
        with pytest.raises(RoundRefused) as refused:
            tonight.said(rnd, tables, asked, known=known)
        assert "\n" not in str(refused.value)
        return
    said = tonight.said(rnd, tables, asked, known=known)
    by_recency = [t.name for t in tonight.ordered(tables)]
    if known:  # only online tables, the latest heard first
        assert used == online[:len(used)] and not said.offline
    else:  # the heard ones by recency, then never heard ones
        assert used == (by_recency + [n for n in listed if n not in by_recency])[:len(used)]
    assert said.empty == listed[len(used):]


def test_counts_read_right_with_one(tmp_path):
    from companion.club.seating import table_sizes
    from companion.errors import SeatingError

    with pytest.raises(SeatingError, match="^1 player is too few for one table"):
        table_sizes(1, 3, 2, 4)
    with pytest.raises(SeatingError, match="^5 players need at least 2 tables of at most "
                                           "4, not 1$"):
        table_sizes(5, 1, 2, 4)


# -- the organiser's form ----------------------------------------------------------------------


def test_the_form_ticks_tonights_tables_and_seats_in_a_process_of_its_own(
        tmp_path, monkeypatch):
    import asyncio
    import urllib.error
    import urllib.request

    import companion.names
    from companion.club import wire
    from companion.club.dashboard import Dashboard
    from companion.club.localbroker import free_port, wait_for
    from companion.club.organiser import COOKIE
    from companion.club.web import serve

    checks: list[bool] = []
    real_check = companion.names.check_players

    def check_players(names):
        try:
            asyncio.get_running_loop()
            checks.append(True)  # on an event loop: a viewer's stream would wait
        except RuntimeError:
            checks.append(False)
        return real_check(names)

    heard(tmp_path / "club", table_1=1_000.0)
    dash = Dashboard("mqtt://127.0.0.1:1", tmp_path / "club", sync_every=0.05)
    dash.on_notice = lambda text: None
    dash.start()
    server = serve(dash, f"127.0.0.1:{free_port()}")
    token = server.organiser_link.split("token=", 1)[1]

    def call(path: str, body: object = None) -> tuple[int, str]:
        headers = {"Cookie": f"{COOKIE}={token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers.update({"Content-Type": "application/json", "Origin": server.url})
        request = urllib.request.Request(f"{server.url}{path}", data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, reply.read().decode()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode()

    try:
        dash.post("message", wire.status_topic("table-3"), wire.encode(
            {"device": "ab" * 16, "table": "table-3", "online": True}), False)
        wait_for(lambda: dash.snapshot()["tables"].get("table-3", {}).get("online"),
                 what="table-3 online")
        page = call("/")[1]
        form = page.split('id="seat-round"', 1)[1].split("</form>", 1)[0]
        assert '<input type="checkbox" name="table" value="table-3" checked> table-3 ' \
            '<small class="meta">online</small>' in form
        assert '<input type="checkbox" name="table" value="table-1"> table-1 ' \
            '<small class="meta">offline</small>' in form
        assert form.index("table-3") < form.index("table-1")  # online first
        monkeypatch.setattr(companion.names, "check_players", check_players)
        seat = {"game": "final-count", "present": "Ann, Bob, Cy", "tables": ["table-3"]}
        status, text = call("/api/club/seat", seat)
        assert status == 200, text
        assert [t["table"] for t in json.loads(text)["tables"]] == ["table-3"]
        assert checks == []  # not in the page's process: in the seat worker's
        status, text = call("/api/club/seat", {**seat, "tables": 2, "present": NINE[:6]})
        assert status == 400 and json.loads(text)["error"] == (
            "Final Count: this round needs 2 tables, only 1 is online now (table-3): name "
            "the tables to seat (--tables table-4,table-6) or tick them on the club page")
        for bad in ([], ["table-3", "table-3"], ["tab le"], [3], ["x"] * 501):
            status, text = call("/api/club/seat", {**seat, "tables": bad})
            assert status == 400 and "tables" in json.loads(text)["error"], bad
        assert nights.load(tmp_path / "club", nights.night_of(time.time())) \
            .current.number == 1
    finally:
        server.stop()
        dash.stop()


def test_the_seat_worker_checks_the_names_once_in_a_process_of_its_own(tmp_path,
                                                                       monkeypatch):
    import asyncio
    import os

    import companion.names
    from companion.club.organiser import SeatWorker, seat_in_worker

    worker = SeatWorker()
    try:
        assert asyncio.run(worker.run(os.getpid)) != os.getpid()
    finally:
        worker.close()
    checked: list[int] = []
    real_check = companion.names.check_players
    monkeypatch.setattr(companion.names, "check_players",
                        lambda names: checked.append(1) or real_check(names))
    seated = seat_in_worker("en", tmp_path, "final-count", "Ann, Bob\nCy", ["table-2"],
                            None, set())
    assert checked == [1] and seated["tables"] == [{"table": "table-2",
                                                    "players": seated["tables"][0]["players"]}]
    assert sorted(seated["tables"][0]["players"]) == ["Ann", "Bob", "Cy"]
    assert seated["offline"] == ["table-2"] and seated["notes"]
