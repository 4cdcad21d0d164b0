"""Club mode end to end through a real Mosquitto broker (started by these tests).

Each test plays real matches on device stores (a :class:`Session`, as the buttons do),
with a :class:`Publisher` per table and a :class:`Dashboard`, and waits (generously,
never on fixed sleeps) until the dashboard's store equals each device's own, event for
event: the same events at the same times, the same result. Faults: the broker killed
and restarted mid-match, a device offline for 200 events, the dashboard restarted or
started late, duplicate and reordered delivery published by hand.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from companion.club import wire
from companion.club.dashboard import Dashboard
from companion.club.ledger import LEDGER_NAME, Ledger
from companion.club.main import review_main
from companion.club.publisher import Publisher
from companion.config import Club
from companion.session import Session
from companion.store import Store
from tests.mosquitto import Mosquitto, wait_for

PLAYERS = ("Ann", "Bob", "Cy")
RETRY = (0.05, 0.5)
RESEND = 0.3  # a table sends an unconfirmed match again after this (then less often)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory):
    with Mosquitto(tmp_path_factory.mktemp("mosquitto")) as running:
        yield running


class Table:
    """A device at one table: its own store, a publisher, the match being played."""

    def __init__(self, directory: Path, name: str, url: str):
        self.name, self.url = name, url
        self.store = Store.in_dir(directory / name)
        self.publisher: Publisher | None = None
        self.session: Session | None = None
        self.links: list[bool] = []
        self.lags: list[int] = []  # what the OLED's mark was told: matches not confirmed

    def connect(self) -> Table:
        self.publisher = Publisher(Club(broker=self.url, table=self.name), self.store.path,
                                   on_link=self.links.append, on_lag=self.lags.append,
                                   retry=RETRY, resend_every=RESEND).start()
        return self

    def disconnect(self) -> None:
        """The device goes off the network (or is switched off): no publisher."""
        assert self.publisher is not None
        self.publisher.stop()
        self.publisher = None

    def _listeners(self):
        return [] if self.publisher is None else [self.publisher.listener]

    def new(self, game: str = "scoreboard") -> Table:
        self.session = Session.start(game, list(PLAYERS), {}, store=self.store,
                                     listeners=self._listeners())
        return self

    def play(self, count: int, rng: random.Random | None = None) -> None:
        rng = rng or random.Random(count)
        assert self.session is not None
        self.session.listeners = self._listeners()
        for _ in range(count):
            seat = len(self.session.match.events) % len(PLAYERS)
            self.session.apply({"type": "points", "player": PLAYERS[seat],
                                "points": rng.randint(-5, 30)})

    def undo(self) -> None:
        assert self.session is not None
        self.session.listeners = self._listeners()
        self.session.undo()

    def end(self) -> None:
        assert self.session is not None
        self.session.listeners = self._listeners()
        self.play(-len(self.session.match.events) % len(PLAYERS))  # finish the round
        self.session.apply({"type": "end"})

    def matches(self) -> list[int]:
        return [record.id for record in self.store.history(1000)] + (
            [self.store.unfinished().id] if self.store.unfinished() else [])

    def close(self) -> None:
        if self.publisher is not None:
            self.disconnect()
        self.store.close()


def copy_of(store: Store, match_id: int) -> dict:
    record = store.match(match_id)
    return {"uid": record.uid, "game_id": record.game_id, "players": record.players,
            "events": store.events(match_id), "times": store.event_times(match_id),
            "finished": record.finished, "result": record.result,
            "abandoned": record.abandoned}


def differences(dashboard: Dashboard, *tables: Table) -> list[str]:
    """How the dashboard's store differs from the tables' own (empty: it equals them)."""
    found = []
    with Store(dashboard.db_path, readonly=True) as club:
        for table in tables:
            for match_id in table.matches():
                mine = copy_of(table.store, match_id)
                theirs_id = club.find_uid(mine["uid"])
                if theirs_id is None or club.match(theirs_id).origin != table.name:
                    found.append(f"{table.name} match {match_id}: not on the dashboard")
                    continue
                theirs = copy_of(club, theirs_id)
                for key in mine:
                    if theirs[key] != mine[key]:
                        found.append(f"{table.name} match {match_id} {key}: table "
                                     f"{_brief(mine[key])}, dashboard {_brief(theirs[key])}")
    return found


def _brief(value: object) -> str:
    return f"{len(value)} items" if isinstance(value, list) else repr(value)


def mirrored(dashboard: Dashboard, *tables: Table) -> bool:
    """Every match of every table is in the dashboard's store, event for event."""
    return not differences(dashboard, *tables)


def wait_mirrored(dashboard: Dashboard, *tables: Table) -> None:
    try:
        wait_for(lambda: mirrored(dashboard, *tables), what="the dashboard to equal the tables")
    except AssertionError as err:
        raise AssertionError(f"{err}: {'; '.join(differences(dashboard, *tables))}") from None


def log_stream(device: str, uid: str, header: dict, gen: int, keep: int,
               log: list) -> list[bytes]:
    """A generation of a match's log as a device publishes it: the cut, then the events
    after ``keep`` of ``log`` ((event, time) pairs)."""
    hashes = wire.chain(log)
    msgs = [wire.encode({"op": "cut", "device": device, "uid": uid, "gen": gen,
                         "keep": keep, "hash": hashes[keep], "match": header})]
    for seq in range(keep + 1, len(log) + 1):
        event, at = log[seq - 1]
        msgs.append(wire.encode({"op": "event", "device": device, "uid": uid, "gen": gen,
                                 "seq": seq, "prev": hashes[seq - 1],
                                 "hash": hashes[seq], "event": event, "at": at}))
    return msgs


def all_published(*tables: Table) -> bool:
    return all(not table.store.unpublished() for table in tables)


@pytest.fixture
def club(tmp_path: Path, broker: Mosquitto):
    made: list = []

    def table(name: str) -> Table:
        made.append(Table(tmp_path, name, broker.url))
        return made[-1]

    def dashboard(state: str = "club") -> Dashboard:
        made.append(Dashboard(broker.url, tmp_path / state, sync_every=0.5,
                              retry=RETRY).start())
        return made[-1]

    yield table, dashboard
    for thing in reversed(made):
        if isinstance(thing, Table):
            thing.close()
        else:
            thing.stop()


def test_a_live_match_with_undo_reaches_the_dashboard_event_for_event(club):
    table, dashboard = club
    dash = dashboard()
    seven = table("table-7").connect().new()
    seven.play(12)
    seven.undo()
    seven.undo()
    seven.play(5)
    seven.end()
    wait_mirrored(dash, seven)
    wait_for(lambda: all_published(seven), what="the outbox to empty")
    assert seven.store.published(seven.session.match_id) == len(seven.session.match.events)
    assert seven.links[0] is True  # the OLED's mark went up
    view = dash.snapshot()["tables"]["table-7"]
    assert view["online"] is True and view["match"]["state"] == "finished"


def _held(state_dir: Path) -> list[dict]:
    out = io.StringIO()
    assert review_main(state_dir, as_json=True, out=out) == 0
    return json.loads(out.getvalue())["held"]


def test_undo_of_the_finishing_event_is_held_until_the_organiser_accepts_it(club, tmp_path):
    """Issue 27 point 4 through a real Mosquitto: the counted match a table rewrites is
    held (the league keeps it, `companion club --review` lists it); once accepted with
    `--accept UID` the dashboard follows the table's log, on the audit trail."""
    table, dashboard = club
    dash = dashboard()
    one = table("t1").connect().new()
    one.play(6)
    one.end()
    wait_mirrored(dash, one)
    uid = one.store.match(one.session.match_id).uid
    one.undo()  # the end is taken back: the match is being played again
    one.play(3)
    wait_for(lambda: [row["uid"] for row in _held(tmp_path / "club")] == [uid],
             what="the rewrite to be held for the organiser")
    with Store(dash.db_path, readonly=True) as store:
        kept = store.match(store.find_uid(uid))
        assert kept.finished is not None and len(store.events(kept.id)) == 7  # as counted
    assert review_main(tmp_path / "club", ("accepted", uid), out=io.StringIO()) == 0
    wait_mirrored(dash, one)
    with Store(dash.db_path, readonly=True) as store:
        assert store.match(store.find_uid(uid)).finished is None
    assert _held(tmp_path / "club") == []
    ledger = Ledger(tmp_path / "club" / LEDGER_NAME)
    rewritten = [row for row in ledger.audit() if row["what"] == "rewritten"]
    ledger.close()
    assert len(rewritten) == 1 and rewritten[0]["detail"]["accepted"] is True


def test_a_dashboard_that_starts_late_sees_every_table(club):
    table, dashboard = club
    tables = [table(f"t{n}").connect().new() for n in range(4)]
    for n, each in enumerate(tables):
        each.play(5 + n)
    tables[0].end()
    tables[1].new().play(3)  # a second match at one table
    # Sent, sent again, and not confirmed: with no dashboard nothing is delivered.
    wait_for(lambda: all(each.lags and each.lags[-1] > 0 for each in tables),
             what="every table to say its matches are not confirmed")
    assert not all_published(*tables)
    dash = dashboard()
    wait_mirrored(dash, *tables)
    wait_for(lambda: all_published(*tables), what="the receipts to empty the outboxes")
    wait_for(lambda: all(each.lags[-1] == 0 for each in tables), what="the marks to clear")
    wait_for(lambda: set(dash.snapshot()["tables"]) >= {"t0", "t1", "t2", "t3"})


def test_the_broker_killed_and_restarted_mid_match_loses_nothing(club, broker):
    table, dashboard = club
    dash = dashboard()
    one, two = table("k1").connect().new(), table("k2").connect().new()
    one.play(20)
    two.play(10)
    broker.kill()
    one.play(15)  # the device never waits for the broker
    one.undo()
    two.play(8)
    two.end()
    wait_for(lambda: one.links[-1] is False, what="the link to go down")
    broker.start()
    one.play(10)
    one.end()
    wait_mirrored(dash, one, two)
    wait_for(lambda: all_published(one, two), what="the outboxes to empty")


def test_a_device_offline_for_200_events_catches_up_after_a_restart(club):
    table, dashboard = club
    dash = dashboard()
    far = table("far").connect().new()
    far.play(30)
    wait_mirrored(dash, far)
    far.disconnect()  # switched off the network (or rebooted) mid-match
    far.play(200)
    far.undo()
    far.play(1)
    with Store(dash.db_path, readonly=True) as store:
        uid = far.store.match(far.session.match_id).uid
        assert len(store.events(store.find_uid(uid))) == 30
    far.connect()  # back: the outbox is sent from the published mark
    far.play(2)
    far.end()
    wait_mirrored(dash, far)


def test_the_dashboard_restarted_gets_what_it_missed(club, tmp_path):
    table, dashboard = club
    dash = dashboard("club")
    one = table("r1").connect().new()
    one.play(10)
    wait_mirrored(dash, one)
    dash.stop()
    one.play(25)
    one.undo()
    one.end()
    two = table("r2").connect().new()
    two.play(7)
    again = dashboard("club")  # the same state dir: its broker session was kept
    wait_mirrored(again, one, two)
    fresh = dashboard("fresh")  # a new dashboard with nothing: the tables resend
    wait_mirrored(fresh, one, two)


def test_duplicate_and_reordered_delivery_ends_equal(club, broker):
    """Messages published by hand: the device's stream shuffled, doubled, with an old
    generation's events and an undo arriving before what it undoes."""
    from companion.club.mqtt import BrokerLink

    table, dashboard = club
    dash = dashboard()
    source = table("raw")  # never connected: its log is published by hand below
    source.new()
    source.play(12)
    uid = source.store.match(source.session.match_id).uid
    device = source.store.device_id()
    rows = list(zip(source.store.events(source.session.match_id),
                    source.store.event_times(source.session.match_id), strict=True))
    old = rows[:8] + [({"type": "points", "player": PLAYERS[8 % 3], "points": 99}, 1.0)]
    header = {"game_id": "scoreboard", "players": list(PLAYERS), "options": {"target": 0,
              "low_wins": False}, "started": source.store.match(source.session.match_id).started}

    def stream(gen: int, keep: int, log: list) -> list[bytes]:
        return log_stream(device, uid, header, gen, keep, log)

    # gen 1 had a 9th event that was undone (gen 2 cuts back to 8 and goes on).
    first, second = stream(1, 0, old), stream(2, 8, rows)
    messages = first + second + first[3:6] + second[1:3]
    random.Random(7).shuffle(messages)
    posted: list = []
    raw = BrokerLink(wire.Broker.parse(broker.url), "raw-publisher",
                     lambda *item: posted.append(item)).start()
    try:
        wait_for(lambda: ("up",) in posted, what="the raw publisher to connect")
        topic = wire.log_topic("raw", uid)
        mids = [raw.publish(topic, message) for message in messages]
        wait_for(lambda: {item[1] for item in posted if item[0] == "acked"} >= set(mids))
        # The first cut may well arrive late: until then nothing can be stored.
        wait_mirrored(dash, source)
    finally:
        raw.stop()


def test_the_device_starts_club_mode_after_its_first_frame_and_shows_the_mark(
        club, broker, tmp_path):
    from companion.clock import ManualClock
    from companion.config import Config
    from companion.launch import club_link, make_app
    from companion.sim import sim_board_factory, sim_panel
    from companion.ui.screen import CLUB_RULE

    _, dashboard = club
    dash = dashboard()
    config = Config(club=Club(broker=broker.url, table="app-table"))
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock(), seed=1, state_dir=tmp_path / "device")
    left, rule_y = CLUB_RULE[0] + 1, CLUB_RULE[1]  # a dot of the rule the mark breaks
    try:
        with club_link(app, config.club) as started:
            assert started == []  # nothing before the first frame
            app.start()
            assert app.image.getpixel((left, rule_y)) == 1  # a whole rule: no link yet
            app.pump()  # the queued start runs after the first frame
            assert len(started) == 1

            def marked() -> bool:
                app.pump()
                return app.ctx.club_up
            wait_for(marked, what="the club mark")
            assert app.image.getpixel((left, rule_y)) == 0  # dotted: the link is up
            session = Session.start("scoreboard", ["Ann", "Bob"], store=app.ctx.store,
                                    listeners=app.ctx.listeners)
            for points in (5, 7, 9, 11):
                player = ("Ann", "Bob")[len(session.match.events) % 2]
                session.apply({"type": "points", "player": player, "points": points})
            session.undo()
            uid = app.ctx.store.match(session.match_id).uid

            def there() -> bool:
                with Store(dash.db_path, readonly=True) as store:
                    found = store.find_uid(uid)
                    return found is not None and \
                        store.events(found) == app.ctx.store.events(session.match_id)
            wait_for(there, what="the app's match on the dashboard")
    finally:
        app.board.close()


def test_the_dashboard_down_and_the_broker_restarted_empty_loses_nothing(club, broker):
    """The Bar of issue 23: the dashboard is down while a table finishes its game, and
    the broker then restarts without what it kept (killed inside its autosave interval,
    or its disk lost): the broker had acknowledged every message, yet only the
    dashboard's receipts move the table's outbox mark, so the table sends again and the
    dashboard ends equal to it."""
    table, dashboard = club
    dash = dashboard("club")
    nine = table("bar-9").connect().new()
    nine.play(4)
    wait_mirrored(dash, nine)
    dash.stop()
    nine.play(4)
    nine.end()  # the game's last events: the broker acknowledges them, nobody stores them
    wait_for(lambda: nine.lags and nine.lags[-1] == 1, what="the table to say it waits")
    assert nine.store.unpublished() == [nine.session.match_id]
    broker.kill()
    for saved in broker.directory.glob("*.db"):
        saved.unlink()  # its queue for the dashboard, the retained states: all gone
    broker.start()
    again = dashboard("club")
    wait_mirrored(again, nine)
    wait_for(lambda: all_published(nine), what="the receipt to empty the outbox")
    with Store(again.db_path, readonly=True) as store:
        record = store.match(store.find_uid(nine.store.match(nine.session.match_id).uid))
        assert record.finished is not None
        assert store.events(record.id) == nine.session.match.events


def test_a_claimed_result_that_disagrees_with_the_events_is_not_counted(club, broker):
    """The Bar of issue 23, second half: Bob wins 10-2 by the events; the table's
    retained match state claims "Ann 9999, winner Ann". The dashboard recomputes the
    result with the engine, refuses the claim, and the league does not count it."""
    from companion.club.mqtt import BrokerLink
    from companion.stats import figures

    table, dashboard = club
    dash = dashboard()
    liar = table("liar")

    def forging_link(post, will_topic, will):
        link = BrokerLink(wire.Broker.parse(broker.url), "liar-link", post,
                          will=(will_topic, will), retry=RETRY,
                          subscribe=[wire.sync_topic("liar"), wire.receipt_topic("liar")])
        honest = link.publish

        def publish(topic, payload, *, retain=False):
            claim = wire.decode(payload)
            if "/match/" in topic and claim.get("state") == "finished":
                claim["result"] = {"over": True, "totals": {"Ann": 9999, "Bob": 0},
                                   "winners": ["Ann"]}
                payload = wire.encode(claim)
            return honest(topic, payload, retain=retain)
        link.publish = publish
        return link.start()

    liar.publisher = Publisher(Club(broker=broker.url, table="liar"), liar.store.path,
                               link_factory=forging_link, resend_every=RESEND).start()
    session = Session.start("scoreboard", ["Ann", "Bob"], store=liar.store,
                            listeners=[liar.publisher.listener])
    session.apply({"type": "points", "player": "Ann", "points": 2})
    session.apply({"type": "points", "player": "Bob", "points": 10})
    session.apply({"type": "end"})
    uid = liar.store.match(session.match_id).uid
    # The receipt says "refused": the table stops sending it (its outbox empties).
    wait_for(lambda: all_published(liar), what="the dashboard's answer")
    with Store(dash.db_path, readonly=True) as store:
        record = store.match(store.find_uid(uid))
        assert store.events(record.id) == session.match.events
        assert record.finished is None and record.result is None
        league = figures(store)
    assert league["plays"] == 0  # Ann's 9999 is nowhere in the league


def test_a_gap_is_asked_for_while_other_tables_keep_the_dashboard_busy(club, broker):
    """Issue 23 point 2: the dashboard asks for what it lacks every few seconds whatever
    else is arriving (it used to wait for 3 s of silence, which a busy club never has)."""
    import threading
    import time

    from companion.club.mqtt import BrokerLink

    table, dashboard = club
    dashboard()  # sync_every=0.5
    source = table("gappy").new()
    source.play(5)
    record = source.store.match(source.session.match_id)
    rows = list(zip(source.store.events(record.id), source.store.event_times(record.id),
                    strict=True))
    header = {"game_id": "scoreboard", "players": list(PLAYERS),
              "options": {"target": 0, "low_wins": False}, "started": record.started}
    messages = log_stream(source.store.device_id(), record.uid, header, 1, 0, rows)
    del messages[4]  # event 4 never arrives
    posted: list = []
    raw = BrokerLink(wire.Broker.parse(broker.url), "gappy-raw", lambda *item: posted.append(item),
                     subscribe=[wire.sync_topic("gappy")]).start()
    busy = BrokerLink(wire.Broker.parse(broker.url), "busy-raw", lambda *item: None).start()
    stop = threading.Event()

    def chatter() -> None:  # another table's status, every 20 ms: never 0.5 s of quiet
        while not stop.is_set():
            busy.publish(wire.status_topic("busy"), wire.encode(
                {"device": "b" * 32, "online": True, "current": None}))
            time.sleep(0.02)
    noise = threading.Thread(target=chatter, daemon=True)
    try:
        wait_for(lambda: ("up",) in posted, what="the raw publisher to connect")
        noise.start()
        for message in messages:
            raw.publish(wire.log_topic("gappy", record.uid), message)
        wait_for(lambda: any(item[0] == "message" for item in posted),
                 what="the dashboard to ask for the gap while the club is busy")
        asked = wire.decode(next(item[2] for item in posted if item[0] == "message"))
        assert asked["uid"] == record.uid and asked["have"] == 3
    finally:
        stop.set()
        noise.join(5)
        busy.stop()
        raw.stop()
