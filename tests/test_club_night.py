"""A club night (companion/club/night.py, rounds.py): ``companion club --seat`` end to
end, the night's results and standings from the dashboard's store, and a running
dashboard sending the round to the tables over a real Mosquitto."""

from __future__ import annotations

import io
import itertools
import json
import os
from pathlib import Path

import pytest
from companion_cli import companion

from companion.club import night as nights
from companion.club.offers import DEVICE_NOTE, device_notes, keep_offer, new_offer_id
from companion.club.seating import Seat, pairs
from companion.session import Session
from companion.store import Store

NINE = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy"]


def seat(state: Path, *more: str) -> dict:
    done = companion("club", "--seat", "final-count", "--present", ",".join(NINE),
                     "--tables", "3", "--json", "--state-dir", str(state), *more)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


def met_in(round_: dict) -> set[frozenset[str]]:
    return {frozenset(pair) for table in round_["tables"]
            for pair in itertools.combinations(table["players"], 2)}


def test_the_bar_nine_at_three_tables_twice_and_nobody_meets_again(tmp_path):
    state = tmp_path / "club"
    first, second = seat(state), seat(state)
    for number, round_ in ((1, first), (2, second)):
        assert round_["round"] == number and round_["game"] == "final-count"
        assert [len(t["players"]) for t in round_["tables"]] == [3, 3, 3]
        assert sorted(p for t in round_["tables"] for p in t["players"]) == sorted(NINE)
        assert [t["table"] for t in round_["tables"]] == ["table-1", "table-2", "table-3"]
    assert not met_in(first) & met_in(second)
    stored = json.loads((state / nights.NIGHT_FILE).read_text())
    assert [r["round"] for r in stored["rounds"]] == [1, 2]


def test_round_one_is_the_seeds_draw_and_the_seed_is_shown(tmp_path):
    one = seat(tmp_path / "a", "--seed", "42")
    again = seat(tmp_path / "b", "--seed", "42")
    assert one["seed"] == 42 and one["tables"] == again["tables"]
    done = companion("club", "--seat", "final-count", "--present", ",".join(NINE),
                     "--tables", "3", "--state-dir", str(tmp_path / "c"))
    assert done.returncode == 0
    assert done.stdout.startswith("Round 1: Final Count (draw seed ")
    assert "table-1" in done.stdout and "no dashboard running" in done.stderr


def test_a_night_that_cannot_be_seated_is_one_line(tmp_path):
    done = companion("club", "--seat", "count-up-21", "--present", "Ann,Bob,Cy",
                     "--tables", "3", "--state-dir", str(tmp_path / "club"))
    assert done.returncode == 2  # an argument to change, as any bad argument
    assert done.stderr.count("\n") == 1 and "without one left over" in done.stderr
    assert not (tmp_path / "club" / nights.NIGHT_FILE).exists()


def play(store: Store, players: list[str], points: list[int], offer: tuple[str, str] = ("", ""),
         ) -> str:
    """A finished Scoreboard match: points to the players in turn; ``offer`` (table,
    offer id): the dashboard took it as started from that round offer at that table."""
    session = Session.start("scoreboard", players, store=store)
    for value, player in zip(points, itertools.cycle(players), strict=False):
        session.apply({"type": "points", "player": player, "points": value})
    session.apply({"type": "end"})
    uid = store.match(session.match_id).uid
    if offer[1]:
        keep_offer(store, uid, offer[1], offer[0])
    return uid


def test_the_nights_standings_come_from_the_matches_started_from_its_offers(tmp_path):
    store = Store.in_dir(tmp_path)
    try:
        night = nights.Night("2026-11-26")
        rnd = nights.Round(1, "scoreboard", 1, 0.0, [
            Seat("table-1", ("Ann", "Bob")), Seat("table-2", ("Cy", "Di"))],
            {"table-1": new_offer_id(), "table-2": new_offer_id()})
        night.rounds.append(rnd)
        one, two = rnd.offers["table-1"], rnd.offers["table-2"]
        play(store, ["Cy", "Di"], [1, 9], ("table-1", two))   # table-2's offer, table-1
        play(store, ["Ann", "Bob"], [1, 9], ("table-1", one))  # Bob wins
        play(store, ["Cy", "Di"], [7, 2], ("table-2", two))    # Cy wins
        play(store, ["Ann", "Cy"], [5, 1])       # not from an offer: not counted
        play(store, ["Ann", "Bob"], [9, 1])      # the group again, not from the offer
        play(store, ["Ann", "Bob"], [9, 1], ("table-1", one))  # a second from the offer
        play(store, ["Ann", "Di"], [9, 1], ("table-2", two))   # not the seat's players
        matches = nights.matches_of(store, night)
        found = nights.results(rnd, matches)
        assert found["table-1"].winners == ("Bob",) and found["table-2"].winners == ("Cy",)
        rows = nights.standings(night, matches)
        assert [(row["name"], row["wins"]) for row in rows][:2] in (
            [("Bob", 1), ("Cy", 1)], [("Cy", 1), ("Bob", 1)])
        assert {row["name"] for row in rows} == {"Ann", "Bob", "Cy", "Di"}
        assert sum(row["plays"] for row in rows) == 4
        # Round 2 seats the winners together, the others together: Swiss-style.
        two_ = nights.next_round(night, "scoreboard", ["Ann", "Bob", "Cy", "Di"],
                                 ["table-1", "table-2"], matches, now=10.0, seed=3)
        assert {frozenset(s.players) for s in two_.seats} == {
            frozenset(("Bob", "Cy")), frozenset(("Ann", "Di"))}
        assert not pairs([two_.seats]) & pairs([rnd.seats])
        assert len({*two_.offers.values(), one, two}) == 4  # an id of its own per table
    finally:
        store.close()


def test_a_round_keeps_its_offers_in_the_nights_file_only(tmp_path):
    night = nights.Night("2026-11-26")
    night.rounds.append(nights.next_round(night, "final-count", NINE[:6], ["t1", "t2"], [],
                                          0, 1))
    nights.save(tmp_path, night)
    offers = night.rounds[0].offers
    assert set(offers) == {"t1", "t2"} and all(len(o) >= 22 for o in offers.values())
    assert nights.load(tmp_path, "2026-11-26").rounds[0].offers == offers
    assert nights.offers_sent(tmp_path) == {offers["t1"]: "t1", offers["t2"]: "t2"}
    assert "offer" not in json.dumps(night.rounds[0].as_json())  # printed: no ids
    # A night's file from before offers still loads: its rounds have no result.
    old = json.loads((tmp_path / nights.NIGHT_FILE).read_text())
    for table in old["rounds"][0]["tables"]:
        del table["offer"]
    (tmp_path / nights.NIGHT_FILE).write_text(json.dumps(old))
    before = nights.load(tmp_path, "2026-11-26").rounds[0]
    assert before.offers == {} and nights.results(before, []) == {"t1": None, "t2": None}


def test_late_arrivals_and_leavers_are_taken_in(tmp_path):
    night = nights.Night("2026-11-26")
    tables = ["t1", "t2", "t3"]
    night.rounds.append(nights.next_round(night, "final-count", NINE[:6], tables, [], 0, 1))
    later = [*NINE[1:6], "Zoe", "Yan"]  # Ann left, two came
    two = nights.next_round(night, "final-count", later, tables, [], 1, 2)
    assert sorted(p for s in two.seats for p in s.players) == sorted(later)
    assert not pairs([two.seats]) & pairs(r.seats for r in night.rounds)


# -- the round on the tables, over a real Mosquitto -----------------------------------------


def test_a_running_dashboard_sends_the_round_and_the_table_starts_it_with_one_press(
        tmp_path):
    """``--seat`` with the dashboard running: each table is sent its seats; the device
    shows "Round 1: Ann, Bob, Cy - start?" and OK starts that game, the players joining
    its roster as with NEW. An open game is not silently ended: the table is asked."""
    from companion.clock import ManualClock
    from companion.club.dashboard import Dashboard
    from companion.club.offer import RoundOffer
    from companion.club.rounds import seat_main
    from companion.config import Club, Config
    from companion.device.buttons import Press
    from companion.launch import club_link, make_app
    from companion.sim import sim_board_factory, sim_panel
    from companion.ui.screen import Confirm
    from tests.mosquitto import Mosquitto, wait_for

    with Mosquitto(tmp_path / "broker") as broker:
        dash = Dashboard(broker.url, tmp_path / "club", sync_every=0.2,
                         retry=(0.05, 0.5)).start()
        config = Config(club=Club(broker=broker.url, table="table-2"))
        app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(),
                       clock=ManualClock(), seed=1, state_dir=tmp_path / "device")
        try:
            with club_link(app, config.club):
                app.start()
                # A game already open at the table when the round comes.
                open_game = Session.start("scoreboard", ["Zed", "Yul"], store=app.ctx.store,
                                          listeners=app.ctx.listeners)
                open_game.apply({"type": "points", "player": "Zed", "points": 3})

                def connected() -> bool:
                    app.pump()
                    return app.ctx.club_up
                wait_for(connected, what="the table to connect")
                out = io.StringIO()
                seat_main(tmp_path / "club", "final-count", ["Ann", "Bob", "Cy", "Di",
                                                            "Ed", "Flo"],
                          ("table-1", "table-2"), seed=11, out=out)
                tables = nights.load(tmp_path / "club", _today()).current.as_json()["tables"]
                mine = next(t for t in tables if t["table"] == "table-2")
                assert "table-2" in out.getvalue()

                def offered() -> bool:
                    app.pump()
                    return isinstance(app.screen, RoundOffer)
                wait_for(offered, what="the round on the table's screen")
                text = " ".join(app.screen.lines)
                assert f"Round 1: {', '.join(mine['players'])} - start?" in text
                assert "Final Count" in text
                app.post("press", Press("ok"))
                app.pump()
                assert isinstance(app.screen, Confirm)  # the open game is asked about
                app.post("press", Press("ok"))
                app.pump()
                session = app.current_session()
                assert session is not None and session.match.game_id == "final-count"
                assert list(session.match.players) == mine["players"]
                # The round's offer id is kept with the match: its start line carries it.
                night = nights.load(tmp_path / "club", _today())
                uid = app.ctx.store.match(session.match_id).uid
                assert app.ctx.store.meta(DEVICE_NOTE + uid) == night.current.offers["table-2"]
                roster = {name.casefold() for name in app.ctx.store.roster()}
                assert {name.casefold() for name in mine["players"]} <= roster
                assert app.ctx.store.match(open_game.match_id).abandoned
        finally:
            app.board.close()
            dash.stop()


def _today() -> str:
    import time

    return nights.night_of(time.time())


def test_a_round_arriving_is_checked_like_anything_arriving():
    from companion.club.rounds import parse_offer
    from companion.club.wire import encode
    from companion.errors import WireError

    def offer(**changes):
        payload = {"night": "2026-11-26", "round": 2, "game": "final-count",
                   "table": "table-7", "players": ["Ann", "Bob", "Cy"], **changes}
        return encode(payload)

    got = parse_offer(offer(), "table-7")
    assert (got.round, got.game, got.players) == (2, "final-count", ("Ann", "Bob", "Cy"))
    assert parse_offer(offer(players=[" Ann ", "Bob"]), "table-7").players == ("Ann", "Bob")
    for bad in (offer(table="table-8"), offer(round=0), offer(round=10**9),
                offer(game="nope"), offer(players=["Ann", "Аnn"]),
                offer(players=["Ann", "B\u202eob"]), offer(players=["A" * 40, "Bob"]),
                offer(players=["Ann", "Bob", "Cy", "Di", "Ed"]), offer(players="Ann,Bob"),
                offer(night="x" * 200), b"x" * 70_000, b"[]"):
        with pytest.raises(WireError):
            parse_offer(bad, "table-7")


def test_the_club_page_shows_the_round_its_results_as_they_come_and_the_standings(tmp_path):
    import html
    import urllib.request

    from companion.club.dashboard import Dashboard
    from companion.club.publisher import Publisher
    from companion.club.rounds import seat_main
    from companion.club.web import serve
    from companion.config import Club
    from tests.mosquitto import Mosquitto, free_port, wait_for

    def page(path: str) -> str:
        with urllib.request.urlopen(f"{server.url}{path}", timeout=10) as reply:
            return reply.read().decode()

    with Mosquitto(tmp_path / "broker") as broker:
        dash = Dashboard(broker.url, tmp_path / "club", sync_every=0.2,
                         retry=(0.05, 0.5)).start()
        server = serve(dash, f"127.0.0.1:{free_port()}")
        store = Store.in_dir(tmp_path / "table-1")
        offered: list = []
        publisher = Publisher(Club(broker=broker.url, table="table-1"), store.path,
                              retry=(0.05, 0.5), on_round=offered.append).start()
        try:
            seat_main(tmp_path / "club", "scoreboard", ["Ann", "Bob", "Cy", "Di"],
                      ("table-1", "table-2"), seed=5, out=io.StringIO(), wait=0)
            data = json.loads(page("/api/club"))
            night = data["night"]
            assert night["round"] == 1 and night["finished"] == 0
            seated = night["tables"][0]["players"]
            assert night["tables"][0]["table"] == "table-1" and night["tables"][0]["result"] is None
            text = html.unescape(page("/"))
            assert "Round 1" in text and "draw seed 5" in text and seated[0] in text
            wait_for(lambda: offered, what="the round's offer at the table")
            offer_id = offered[0].offer_id
            assert offer_id and offer_id not in text and offer_id not in page("/api/club")
            # As OK on the offer starts it (test_club_night's device test presses it).
            session = Session.start("scoreboard", seated, store=store,
                                    listeners=[publisher.listener],
                                    notes=device_notes(offer_id))
            for player, points in zip(seated, (2, 9), strict=True):
                session.apply({"type": "points", "player": player, "points": points})
            session.apply({"type": "end"})

            def finished() -> dict:
                night = json.loads(page("/api/club"))["night"]
                return night if night["finished"] == 1 else {}
            wait_for(finished, what="the round's first result on the page")
            night = finished()
            assert night["tables"][0]["result"]["winners"] == [seated[1]]
            assert night["standings"][0]["name"] == seated[1]
            assert night["standings"][0]["wins"] == 1
            text = html.unescape(page("/"))
            assert "Tonight's standings" in text and "1 of 2 tables finished" in text
        finally:
            publisher.stop()
            store.close()
            server.stop()
            dash.stop()


def test_the_organiser_seats_a_round_from_the_club_page_and_nobody_else(tmp_path):
    import urllib.error
    import urllib.request

    from companion.club.dashboard import Dashboard
    from companion.club.organiser import COOKIE
    from companion.club.web import serve
    from tests.mosquitto import Mosquitto, free_port

    def call(path: str, body: dict | None = None, cookie: str = "") -> tuple[int, str, dict]:
        headers = {"Cookie": f"{COOKIE}={cookie}"} if cookie else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers.update({"Content-Type": "application/json", "Origin": server.url})
        request = urllib.request.Request(f"{server.url}{path}", data=data, headers=headers)

        class Keep(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kw):
                return None  # see the redirect itself, with its cookie
        try:
            with urllib.request.build_opener(Keep).open(request, timeout=10) as reply:
                return reply.status, reply.read().decode(), dict(reply.headers)
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read().decode(), dict(refused.headers)

    with Mosquitto(tmp_path / "broker") as broker:
        dash = Dashboard(broker.url, tmp_path / "club", retry=(0.05, 0.5)).start()
        server = serve(dash, f"127.0.0.1:{free_port()}")
        try:
            link = server.organiser_link
            token = link.split("token=", 1)[1]
            seat = {"game": "final-count", "present": "Ann, Bob, Cy\nDi, Ed, Flo",
                    "tables": ["table-1", "table-2"]}
            status, text, _ = call("/api/club/seat", seat)
            assert status == 401 and "organiser" in json.loads(text)["error"]
            assert call("/api/club/seat", seat, cookie="guess")[0] == 401
            assert call("/organiser?token=guess")[0] == 401
            status, _, headers = call(link[len(server.url):])
            assert status == 303 and f"{COOKIE}={token}" in headers.get("set-cookie", "")
            assert "Seat the next round" not in call("/")[1]
            assert "Seat the next round" in call("/", cookie=token)[1]
            status, text, _ = call("/api/club/seat", seat, cookie=token)
            assert status == 200, text
            round_ = json.loads(text)
            assert round_["round"] == 1 and [len(t["players"]) for t in round_["tables"]] \
                == [3, 3]
            assert nights.load(tmp_path / "club", _today()).current.number == 1
            page = call("/", cookie=token)[1]  # the form keeps who is present
            present = page.split('name="present"', 1)[1].split("</textarea>", 1)[0]
            assert all(name in present for name in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo"))
            status, text, _ = call("/api/club/seat", {**seat, "present": "Ann,Аnn,Bob"},
                                   cookie=token)
            assert status == 400 and "look like" in json.loads(text)["error"]
            status, text, _ = call("/api/club/seat", {**seat, "tables": ["table-1"]},
                                   cookie=token)
            assert status == 400 and "tables" in json.loads(text)["error"]
            status, text, _ = call("/api/club/seat", {**seat, "tables": 2}, cookie=token)
            assert status == 400 and "none is online now" in json.loads(text)["error"]
            assert nights.load(tmp_path / "club", _today()).current.number == 1  # unchanged
        finally:
            server.stop()
            dash.stop()


def test_an_offer_refused_by_the_roster_says_why_and_back_leaves_the_screen_as_it_was(
        tmp_path):
    from companion.clock import ManualClock
    from companion.club.offer import RoundOffer, offer_round
    from companion.club.rounds import Offer
    from companion.config import Config
    from companion.device.buttons import Press
    from companion.launch import make_app
    from companion.sim import sim_board_factory, sim_panel
    from companion.ui.screen import Message

    app = make_app(Config(), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock(), seed=1, state_dir=tmp_path / "device")
    try:
        app.start()
        app.ctx.store.add_player("Ann")
        before = app.screen
        offer = Offer("2026-11-26", 3, "final-count", ("Ànn", "Bob"))  # a grave the title bar hides
        app.post("call", lambda app: offer_round(app, offer))
        app.pump()
        assert isinstance(app.screen, RoundOffer)
        newer = Offer("2026-11-26", 4, "final-count", ("Ànn", "Bob"))
        app.post("call", lambda app: offer_round(app, newer))
        app.pump()
        assert app.screen.offer.round == 4 and app.screen.parent is before  # replaced
        app.post("press", Press("ok"))
        app.pump()
        assert isinstance(app.screen, Message) and "look like Ann" in " ".join(app.screen.lines)
        assert app.current_session() is None and app.ctx.store.roster() == ["Ann"]
        app.post("press", Press("ok"))
        app.pump()
        assert app.screen is before
        app.post("call", lambda app: offer_round(app, offer))
        app.pump()
        app.post("press", Press("back"))
        app.pump()
        assert app.screen is before and app.current_session() is None
    finally:
        app.board.close()


def test_a_newer_round_takes_the_place_of_the_older_ones_question(tmp_path):
    """Found attacking issue 36: round 1's offer, OK, "A game is not finished. Keep it
    as abandoned and start round 1?"; the organiser seats again and round 2 arrives on
    top. BACK on round 2 brought round 1's question back, and OK there abandoned the
    open game and started round 1. A newer offer takes the place of the older one's
    question (and of its refusal) as it takes the place of the offer."""
    from companion.clock import ManualClock
    from companion.club.offer import RoundOffer, offer_round
    from companion.club.rounds import Offer
    from companion.config import Config
    from companion.device.buttons import Press
    from companion.launch import make_app
    from companion.sim import sim_board_factory, sim_panel
    from companion.ui.screen import Confirm

    app = make_app(Config(), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock(), seed=1, state_dir=tmp_path / "device")
    try:
        app.start()
        open_game = Session.start("scoreboard", ["Zed", "Yul"], store=app.ctx.store,
                                  listeners=app.ctx.listeners)
        app.pump()
        before = app.screen
        one = Offer("2026-11-26", 1, "scoreboard", ("Ann", "Bob"), new_offer_id())
        two = Offer("2026-11-26", 2, "scoreboard", ("Cy", "Di"), new_offer_id())
        app.post("call", lambda app: offer_round(app, one))
        app.pump()
        app.post("press", Press("ok"))
        app.pump()
        assert isinstance(app.screen, Confirm) and "round 1?" in " ".join(app.screen.lines)
        app.post("call", lambda app: offer_round(app, two))
        app.pump()
        assert isinstance(app.screen, RoundOffer) and app.screen.offer.round == 2
        assert app.screen.parent is before
        app.post("press", Press("back"))
        app.pump()
        assert app.screen is before
        record = app.ctx.store.match(open_game.match_id)
        assert not record.abandoned and record.finished is None  # still open
        assert len(app.ctx.store.meta_under(DEVICE_NOTE)) == 0  # no round started
    finally:
        app.board.close()


def test_a_night_runs_until_six_in_the_morning():
    import datetime as dt

    def at(text: str) -> float:
        return dt.datetime.fromisoformat(text).timestamp()  # local time, as day_text

    assert nights.night_of(at("2026-11-26T19:00")) == "2026-11-26"
    assert nights.night_of(at("2026-11-27T00:30")) == "2026-11-26"
    assert nights.night_of(at("2026-11-27T06:30")) == "2026-11-27"


def test_the_sender_sends_each_round_once_and_clears_what_is_no_offer_any_more(tmp_path):
    from companion.club import wire
    from companion.club.rounds import RoundSender, round_topic

    sent: list = []
    day = ["2026-11-26"]
    sender = RoundSender(tmp_path, lambda *message: sent.append(message), lambda: day[0])

    def echo() -> None:  # what the broker keeps comes back to the dashboard
        for topic, data, _ in sent:
            sender.heard(topic, data)

    night = nights.Night("2026-11-26")
    night.rounds.append(nights.next_round(night, "final-count", NINE[:6], ["t1", "t2", "t3"],
                                          [], 0, 1))
    nights.save(tmp_path, night)
    assert sender.check() == 3 and sender.check() == 0  # once
    assert {topic for topic, _, retain in sent if retain} == {
        round_topic(t) for t in ("t1", "t2", "t3")}
    echo()
    sent.clear()
    night.rounds.append(nights.next_round(night, "final-count", NINE[:4], ["t1", "t2", "t3"],
                                          [], 1, 2))
    nights.save(tmp_path, night)
    assert sender.check() == 2
    assert (round_topic("t3"), b"", True) in sent  # not in round 2: its offer cleared
    echo()
    # Another dashboard's round for t4 (and t5's from before offer ids): not this one's.
    theirs = wire.encode({"night": "2026-11-26", "round": 1, "game": "final-count",
                          "table": "t4", "players": ["Zed", "Yul"], "offer": new_offer_id()})
    sender.heard(round_topic("t4"), theirs)
    sender.heard(round_topic("t5"), theirs.replace(b"t4", b"t5"))
    sent.clear()
    day[0] = "2026-11-27"
    os.utime(tmp_path / nights.NIGHT_FILE, ns=(1, 1))  # looked at again the next night
    assert sender.check() == 0
    assert sorted(sent) == [(round_topic(t), b"", True) for t in ("t1", "t2")]


def test_a_second_dashboard_leaves_the_rounds_of_the_first_alone(tmp_path):
    """Found attacking issue 36: a second dashboard started on a state dir whose night
    file is from an earlier night (a laptop that seated last week's night) cleared the
    round of every table its ledger knew, tonight's rounds that the first dashboard
    seated among them: a table that connected afterwards was never offered its seat.
    It clears only its own rounds that are no offer any more (here: last week's at t2),
    and leaves the first dashboard's alone."""
    from companion.club.dashboard import Dashboard
    from companion.club.ledger import LEDGER_NAME, Ledger
    from companion.club.mqtt import BrokerLink
    from companion.club.rounds import round_payload, round_topic
    from companion.club.wire import Broker
    from tests.mosquitto import Mosquitto, wait_for

    old = tmp_path / "laptop"  # the second dashboard's state dir, from last week
    last_week = nights.Night("2026-01-08")
    last_week.rounds.append(nights.next_round(last_week, "scoreboard", NINE[:4],
                                              ["t1", "t2"], [], 0, 1))
    nights.save(old, last_week)
    ledger = Ledger(old / LEDGER_NAME)
    for table in ("t1", "t2"):
        ledger.seen(table, 1.0)
    ledger.close()
    with Mosquitto(tmp_path / "broker") as broker:
        seen: list = []
        link = BrokerLink(Broker.parse(broker.url), "watcher", lambda *i: seen.append(i),
                          subscribe=["companion/+/round"], retry=(0.05, 0.5)).start()
        first = Dashboard(broker.url, tmp_path / "club", sync_every=0.2,
                          retry=(0.05, 0.5)).start()
        made = [link, first]
        try:
            wait_for(lambda: ("up",) in seen, what="the watcher to connect")
            stale = round_payload("2026-01-08", last_week.current, last_week.current.seats[1])
            link.publish(round_topic("t2"), stale, retain=True)  # kept from last week
            tonight = nights.Night(nights.night_of(__import__("time").time()))
            tonight.rounds.append(nights.next_round(tonight, "scoreboard", NINE[4:6],
                                                    ["t1"], [], 0, 2))
            nights.save(tmp_path / "club", tonight)
            offer = tonight.current.offers["t1"]

            def kept(table: str) -> bytes | None:
                found = [item[2] for item in seen if item[0] == "message" and
                         item[1] == round_topic(table)]
                return found[-1] if found else None
            wait_for(lambda: offer.encode() in (kept("t1") or b""),
                     what="the first dashboard to send t1 its seat")
            second = Dashboard(broker.url, old, sync_every=0.2, retry=(0.05, 0.5)).start()
            made.append(second)
            wait_for(lambda: kept("t2") == b"", what="the second's own old round cleared")
            marker = b'{"v":1,"marker":true}'
            link.publish("companion/t9/round", marker)  # in order after what came before
            wait_for(lambda: kept("t9") == marker, what="the marker")
            assert offer.encode() in kept("t1")
        finally:
            for thing in reversed(made):
                thing.stop()


def test_a_round_the_table_has_started_is_not_offered_again_after_a_reboot():
    from types import SimpleNamespace as Match

    from companion.club.rounds import Offer, already_started

    # A round from a dashboard before offer ids: told by its game and players.
    offer = Offer("2026-11-26", 2, "final-count", ("Ann", "Bob", "Cy"))
    now = 1_800_000_000.0
    assert already_started(offer, [Match(game_id="final-count", players=("cy", "ANN", "Bob"),
                                          started=now - 600)], now)
    for other in (Match(game_id="scoreboard", players=("Ann", "Bob", "Cy"), started=now),
                  Match(game_id="final-count", players=("Ann", "Bob"), started=now),
                  Match(game_id="final-count", players=("Ann", "Bob", "Cy"),
                        started=now - 86_400)):
        assert not already_started(offer, [other], now)
    # With an id: by the offer alone, whatever the table played.
    with_id = Offer("2026-11-26", 2, "final-count", ("Ann", "Bob", "Cy"), "o" * 22)
    same = [Match(game_id="final-count", players=("Ann", "Bob", "Cy"), started=now)]
    assert not already_started(with_id, same, now, {"p" * 22})
    assert already_started(with_id, [], now, {"o" * 22})


def round_message(number: int, offer_id: str, players: tuple[str, ...] = ("Ann", "Bob"),
                  ) -> bytes:
    from companion.club import wire

    return wire.encode({"night": "2026-11-26", "round": number, "game": "scoreboard",
                        "table": "t1", "players": list(players), "offer": offer_id})


def test_the_group_seated_again_at_its_table_is_offered_its_next_round(tmp_path):
    """Found attacking issue 36: a round was "started already" when the table had a
    match of its game with its players from the last 12 hours, so round 2 of a group the
    night seated again at its table (a small club, or no seating without a repeat), or
    round 1 after the group played that game with NEW, never reached the screen, and
    the round had no result at that table. A round with an offer id is shown until a
    match is started from that offer, and then never again, also after a reboot."""
    from companion.club.publisher import Publisher
    from companion.club.rounds import round_topic
    from companion.config import Club
    from tests.test_club_receiver import FakeLink

    store = Store.in_dir(tmp_path / "device")

    def publisher(offered: list) -> Publisher:
        made = Publisher(Club(broker="mqtt://unused", table="t1"), store.path,
                         on_round=offered.append)
        made.attach(store, FakeLink())
        made.handle(("up",))
        return made

    def finish(session: Session) -> None:
        for player in session.match.players:
            session.apply({"type": "points", "player": player, "points": 3})
        session.apply({"type": "end"})

    try:
        offered: list = []
        table = publisher(offered)
        finish(Session.start("scoreboard", ["Ann", "Bob"], store=store))  # with NEW
        one, two = new_offer_id(), new_offer_id()
        table.handle(("message", round_topic("t1"), round_message(1, one)))
        assert [offer.round for offer in offered] == [1]
        finish(Session.start("scoreboard", ["Ann", "Bob"], store=store,
                             notes=device_notes(one)))  # OK on round 1's offer
        table.handle(("message", round_topic("t1"), round_message(2, two)))
        assert [offer.round for offer in offered] == [1, 2]  # the same group, round 2
        table.handle(("message", round_topic("t1"), round_message(2, two)))
        assert len(offered) == 2  # the broker's kept copy again: once
        finish(Session.start("scoreboard", ["Ann", "Bob"], store=store,
                             notes=device_notes(two)))
        again: list = []  # a reboot: the broker hands the kept round over again
        publisher(again).handle(("message", round_topic("t1"), round_message(2, two)))
        assert again == []
        publisher(again).handle(("message", round_topic("t1"), round_message(1, one)))
        assert again == []
    finally:
        store.close()
