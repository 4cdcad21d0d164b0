"""Issue 36: a result counts for the seat it was given, a device move known to every
dashboard, and a held list in words. Through a real Mosquitto with the logins and the
ACL of deploy/club (tests/test_club_tls.py's broker) where a table or a dashboard
crosses the broker.

- A round's result is the match started from the offer its table was sent (the offer's
  id in the match's start line), from that table: table-7, with its own login and
  device, publishing a legal match of table t1's seated players (without an offer, with
  its own, with t1's) changes neither the round nor the night's standings; a second
  game of the seated group does not replace the first.
- ``--move-device`` is kept on the broker (retained, dashboards only): a dashboard
  built from nothing afterwards takes the moved device's matches at its new table.
- The held list on the open club page tells the match in words, never a uid.
"""

from __future__ import annotations

import html
import io
import json
import time
import urllib.request
from pathlib import Path

from companion.club import night as nights
from companion.club import wire
from companion.club.dashboard import Dashboard
from companion.club.ledger import LEDGER_NAME, Ledger
from companion.club.main import organiser_main
from companion.club.moves import TOPIC, Move, move_topic, parse_move
from companion.club.offers import DEVICE_NOTE, device_notes
from companion.club.publisher import Publisher
from companion.club.web import serve
from companion.config import Club
from companion.games import replay
from companion.session import Session
from companion.store import Store
from tests import test_club, test_club_tls
from tests.mosquitto import free_port, wait_for
from tests.test_club import RETRY
from tests.test_club_tls import USERS, _link, mqtts

# The fixtures: the TLS broker with the logins and the shipped ACL; a plain broker.
secure = test_club_tls.secure
broker, club = test_club.broker, test_club.club

SEATED = ["Ann", "Bob", "Cy", "Di"]


class Night:
    """A dashboard (login ``dashboard``) with its club page, and the tables of a round
    seated on it, each a device with its own store and login."""

    def __init__(self, secure, tmp_path: Path):
        self.broker, self.ca = secure
        self.tmp = tmp_path
        self.state = tmp_path / "club"
        self.dash = Dashboard(mqtts(self.broker), self.state, username="dashboard",
                              password=USERS["dashboard"], ca_file=str(self.ca),
                              sync_every=0.2, retry=RETRY).start()
        self.server = serve(self.dash, f"127.0.0.1:{free_port()}")
        self.stores: dict[str, Store] = {}
        self.publishers: list[Publisher] = []
        self.offered: dict[str, list] = {}

    def device(self, table: str, login: str | None = None, clone_of: Store | None = None,
               ) -> tuple[Store, Publisher]:
        """A device at ``table`` logged in as ``login`` (its own by default);
        ``clone_of``: a device that took another one's id (a copied SD card)."""
        store = Store.in_dir(self.tmp / f"{table}-{len(self.stores)}")
        if clone_of is not None:
            store.set_meta("device_id", clone_of.device_id())
        self.stores[f"{table}-{len(self.stores)}"] = store
        offered = self.offered.setdefault(table, [])
        login = login or table
        club = Club(broker=mqtts(self.broker), table=table, username=login,
                    password=USERS[login], ca_file=str(self.ca))
        publisher = Publisher(club, store.path, retry=RETRY, resend_every=0.3,
                              on_round=offered.append).start()
        self.publishers.append(publisher)
        return store, publisher

    def seat(self, tables: list[str]) -> nights.Round:
        """The organiser seats round 1 of ``SEATED`` at ``tables`` (the dashboard sends
        each table its seats within a few seconds)."""
        day = nights.night_of(time.time())
        night = nights.load(self.state, day)
        rnd = nights.next_round(night, "scoreboard", SEATED, tables, [], time.time(), 7)
        night.rounds.append(rnd)
        nights.save(self.state, night)
        return rnd

    def offer(self, table: str, rnd: nights.Round) -> object:
        """The offer of ``rnd`` as ``table``'s device got it (the broker may hand it an
        older round it kept first)."""
        def got() -> list:
            return [o for o in self.offered[table] if o.offer_id == rnd.offers[table]]
        wait_for(got, what=f"{table} to be offered its seats")
        return got()[0]

    def api(self) -> dict:
        with urllib.request.urlopen(f"{self.server.url}/api/club", timeout=10) as reply:
            return json.loads(reply.read())

    def page(self) -> str:
        with urllib.request.urlopen(f"{self.server.url}/", timeout=10) as reply:
            return html.unescape(reply.read().decode())

    def stored(self, uid: str) -> bool:
        """The dashboard has the match ``uid`` finished."""
        with Store(self.dash.db_path, readonly=True) as kept:
            found = kept.find_uid(uid)
            return found is not None and kept.match(found).finished is not None

    def close(self) -> None:
        for publisher in self.publishers:
            publisher.stop()
        for store in self.stores.values():
            store.close()
        self.server.stop()
        self.dash.stop()


def play(store: Store, publisher: Publisher, players: list[str], winner: str,
         offer_id: str = "", by: int = 8) -> str:
    """A legal Scoreboard match of ``players`` that ``winner`` wins by ``by`` points,
    started as OK on a round's offer starts it (``offer_id``) or as NEW does; its uid."""
    session = Session.start("scoreboard", players, store=store,
                            listeners=[publisher.listener], notes=device_notes(offer_id))
    for player in players:
        session.apply({"type": "points", "player": player,
                       "points": 1 + by if player == winner else 1})
    session.apply({"type": "end"})
    return store.match(session.match_id).uid


def dated_before(store: Store, publisher: Publisher, uid: str, players: list[str],
                 winner: str, offer_id: str) -> str:
    """A match from ``offer_id`` that its table says it started a minute before match
    ``uid`` (found attacking issue 36: the first *started* was the round's result, by
    the table's word); its uid."""
    started = store.match(store.find_uid(uid)).started - 60
    match_id = store.new_match("scoreboard", players, started=started,
                               notes=device_notes(offer_id))
    events = [{"type": "points", "player": name, "points": 9 if name == winner else 1}
              for name in players] + [{"type": "end"}]
    for n, event in enumerate(events, 1):
        store.append(match_id, event, at=started + n)
    store.finish(match_id, replay("scoreboard", players, {}, events).result(),
                 at=started + len(events))
    publisher.signal(match_id)
    return store.match(match_id).uid


def result_of(night: dict, table: str) -> dict | None:
    return next(t["result"] for t in night["tables"] if t["table"] == table)


def test_a_forged_round_result_changes_neither_the_round_nor_the_standings(secure, tmp_path):
    """Issue 36 F1: table-7, with only its own login and device, publishes legal matches
    of t1's seated players in which the other player wins: without an offer, with
    table-7's own offer, with t1's offer (as if it had leaked), and from a copy of t1's
    device. t1's round result stays the match t1 started from its offer, and the night's
    standings stay as that match made them."""
    club = Night(secure, tmp_path)
    try:
        rnd = club.seat(["t1", "table-7"])
        mine = next(seat for seat in rnd.seats if seat.table == "t1")
        players, loser = list(mine.players), mine.players[1]
        t1, t1_link = club.device("t1")
        seven, seven_link = club.device("table-7")
        offer = club.offer("t1", rnd)
        assert offer.players == mine.players
        genuine = play(t1, t1_link, players, winner=players[0], offer_id=offer.offer_id)
        assert t1.meta(DEVICE_NOTE + genuine) == offer.offer_id  # in the start line
        wait_for(lambda: result_of(club.api()["night"], "t1"), what="t1's round result")
        before = club.api()["night"]
        assert result_of(before, "t1")["winners"] == [players[0]]
        assert [(row["name"], row["wins"]) for row in before["standings"]] == \
            [(players[0], 1), (loser, 0)]

        own = club.offer("table-7", rnd).offer_id
        forged = [play(seven, seven_link, players, winner=loser, by=2),
                  play(seven, seven_link, players, winner=loser, offer_id=own, by=3),
                  play(seven, seven_link, players, winner=loser,
                       offer_id=rnd.offers["t1"], by=4)]
        wait_for(lambda: all(club.stored(uid) for uid in forged),
                 what="table-7's matches to be stored (as matches like any other)")
        copy, copy_link = club.device("table-7", clone_of=t1)  # t1's device id, copied
        play(copy, copy_link, players, winner=loser, offer_id=rnd.offers["t1"], by=5)
        wait_for(lambda: club.api()["refused_devices"],
                 what="t1's device speaking for table-7 to be refused")
        after = club.api()["night"]
        assert after == before
        assert result_of(after, "table-7") is None  # its own offer, not its seat's players
        ledger = Ledger(club.state / LEDGER_NAME)
        claims = [row for row in ledger.audit() if row["what"] == "offer"]
        ledger.close()
        assert [(row["table"], row["uid"], row["detail"]) for row in claims] == \
            [("table-7", forged[2], {"sent_to": "t1"})]
        text = club.page() + json.dumps(club.api())
        assert not any(offer_id in text for offer_id in rnd.offers.values())
    finally:
        club.close()


def test_a_second_game_of_the_seated_group_does_not_replace_the_first(secure, tmp_path):
    """The group plays on at its table: a rematch started with NEW (no offer), or a
    second match the device started from the same offer, is a match like any other,
    and the round keeps the first; its receipts say the offer."""
    club = Night(secure, tmp_path)
    receipts: list = []
    watcher = _link(club.broker, club.ca, "t1", USERS["t1"], receipts,
                    subscribe=[wire.receipt_topic("t1")])
    try:
        rnd = club.seat(["t1", "table-7"])
        players = list(next(seat for seat in rnd.seats if seat.table == "t1").players)
        t1, t1_link = club.device("t1")
        offer_id = club.offer("t1", rnd).offer_id
        first = play(t1, t1_link, players, winner=players[0], offer_id=offer_id)
        wait_for(lambda: result_of(club.api()["night"], "t1"), what="t1's round result")
        again = [play(t1, t1_link, players, winner=players[1], by=2),
                 play(t1, t1_link, players, winner=players[1], offer_id=offer_id, by=3),
                 dated_before(t1, t1_link, first, players, winner=players[1],
                              offer_id=offer_id)]
        wait_for(lambda: all(club.stored(uid) for uid in again), what="the rematches")
        night = club.api()["night"]
        assert result_of(night, "t1")["winners"] == [players[0]] and night["finished"] == 1
        assert [(row["name"], row["wins"], row["plays"]) for row in night["standings"]] == \
            [(players[0], 1, 1), (players[1], 0, 1)]
        league = {row["name"]: row["wins"] for row in club.api()["league"][0]["rows"]}
        assert league == {players[0]: 1, players[1]: 3}  # every match still counts there

        def said(uid: str) -> set:
            return {json.loads(item[2]).get("offer") for item in receipts
                    if item[0] == "message" and json.loads(item[2])["uid"] == uid}
        wait_for(lambda: said(first) == {offer_id} and
                 said(again[0]) == said(again[1]) == said(again[2]) == {None},
                 what="the receipts of every match")
    finally:
        watcher.stop()
        club.close()


def test_a_device_move_is_known_to_a_dashboard_built_afterwards(secure, tmp_path):
    """Issue 36 F4: a Pi carried from t1 to t2 is moved with --move-device on one
    dashboard; a second dashboard (its own login) built from nothing afterwards binds it
    to t2 as well, counts its match there, and lists no refused device. A table's login
    cannot write a move."""
    broker, ca = secure
    first = Dashboard(mqtts(broker), tmp_path / "club", username="dashboard",
                      password=USERS["dashboard"], ca_file=str(ca), sync_every=0.2,
                      retry=RETRY).start()
    store = Store.in_dir(tmp_path / "pi")
    device = store.device_id()[:16]
    made: list = [first]

    def publisher_for(table: str) -> Publisher:
        made.append(Publisher(Club(broker=mqtts(broker), table=table, username=table,
                                   password=USERS[table], ca_file=str(ca)),
                              store.path, retry=RETRY, resend_every=0.3).start())
        return made[-1]

    def stored(dash: Dashboard, uid: str, table: str) -> bool:
        with Store(dash.db_path, readonly=True) as kept:
            found = kept.find_uid(uid)
            return found is not None and kept.match(found).origin == table and \
                kept.match(found).finished is not None
    try:
        at_t1 = publisher_for("t1")
        play(store, at_t1, ["Ann", "Bob"], winner="Ann")
        wait_for(lambda: not store.unpublished(), what="t1's match to be stored")
        at_t1.stop()
        at_t2 = publisher_for("t2")  # the Pi carried to table t2
        moved_uid = play(store, at_t2, ["Cy", "Di"], winner="Cy")
        wait_for(lambda: first.snapshot()["refused_devices"], what="the device refused")
        assert organiser_main(tmp_path / "club", move=(device, "t2"), out=io.StringIO()) == 0
        wait_for(lambda: stored(first, moved_uid, "t2"), what="the move on the first")

        # A table's login cannot write (nor read) a move; the broker keeps the dashboard's.
        seen: list = []
        hostile = _link(broker, ca, "table-7", USERS["table-7"], seen, subscribe=[TOPIC])
        made.append(hostile)
        wait_for(lambda: ("up",) in seen, what="table-7 to connect")
        forged = Move(device, "table-7", ("t2",), time.time() + 3600)
        hostile.publish(move_topic(device), forged.payload(), retain=True)

        second = Dashboard(mqtts(broker), tmp_path / "club-2", username="dashboard-2",
                           password=USERS["dashboard-2"], ca_file=str(ca), sync_every=0.2,
                           retry=RETRY).start()
        made.append(second)
        wait_for(lambda: stored(second, moved_uid, "t2"),
                 what="the second dashboard to count the moved device's match at t2")
        ledger = Ledger(tmp_path / "club-2" / LEDGER_NAME)
        assert ledger.table_of(device) == "t2" and ledger.moved_from(device, "t1")
        ledger.close()
        # (the module's broker keeps other tests' tables: only this device's count)
        assert not [row for row in second.snapshot()["refused_devices"]
                    if row["table"] in ("t1", "t2")]
        assert not [item for item in seen if item[0] == "message"]
        kept: list = []
        watcher = _link(broker, ca, "dashboard-2", USERS["dashboard-2"], kept,
                        subscribe=[TOPIC])
        made.append(watcher)
        wait_for(lambda: [item for item in kept if item[0] == "message"], what="the move")
        topic, data = next(item[1:3] for item in kept if item[0] == "message")
        assert parse_move(topic, data).table == "t2" and parse_move(topic, data).former == \
            ("t1",)
    finally:
        for thing in reversed(made):
            thing.stop()
        store.close()


def test_the_held_list_on_the_open_page_has_no_uid(club, broker, tmp_path):
    """Issue 36 F5: a counted match rewritten by its table, and a counted match sent
    again with its times moved by an hour (a copy of the table's device), are held; the
    club page and /api/club tell each in words (table, game, players, when), with no
    uid and no device id anywhere."""
    table, dashboard = club
    dash = dashboard()
    server = serve(dash, f"127.0.0.1:{free_port()}")
    try:
        one = table("t1").connect().new()
        one.play(6)
        one.end()
        wait_for(lambda: not one.store.unpublished(), what="the match to be counted")
        record = one.store.match(one.session.match_id)
        copy = Store.in_dir(tmp_path / "copy")  # the same match again, an hour later
        copy.set_meta("device_id", one.store.device_id())
        events = [(event, at + 3600) for event, at in zip(
            one.store.events(record.id), one.store.event_times(record.id), strict=True)]
        copy.import_match(record.game_id, list(record.players), record.options, events,
                          started=record.started + 3600, finished=record.finished + 3600,
                          result=record.result, uid=one.store.device_id()[:16] + "d" * 16)
        twin = Publisher(Club(broker=broker.url, table="t1"), copy.path, retry=RETRY).start()
        one.undo()
        one.play(3)

        def page() -> str:
            with urllib.request.urlopen(f"{server.url}/", timeout=10) as reply:
                return html.unescape(reply.read().decode())

        def api() -> dict:
            with urllib.request.urlopen(f"{server.url}/api/club", timeout=10) as reply:
                return json.loads(reply.read())
        wait_for(lambda: len(api()["held"]) == 2, what="both to be held")
        texts = [row["text"] for row in api()["held"]]
        assert any(text.startswith("t1 rewrote a counted match (won by ") for text in texts)
        assert any(text.startswith("t1 sent a counted match again with other times: ")
                   for text in texts)
        assert all("Scoreboard with Ann, Bob, Cy, " in text for text in texts)
        shown = page() + json.dumps(api())
        assert "Held for the organiser" in shown and texts[0] in shown
        for secret in (record.uid, one.store.device_id()[:16], *(
                m.uid for m in copy.history(5))):
            assert secret not in shown
        twin.stop()
        copy.close()
    finally:
        server.stop()

