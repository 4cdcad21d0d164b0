"""Issue 36 without a broker: the round offer's id from the device's press to the
dashboard's round (offers.py, night.results), a device move learned from the broker
(moves.py, the ledger), and held rows in words (tests/test_club_bind.py has all three
through a real Mosquitto)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.club import night as nights
from companion.club import wire
from companion.club.ledger import LEDGER_NAME, Ledger
from companion.club.mirror import safe_result
from companion.club.moves import FORMER_MAX, Move, move_topic, parse_move
from companion.club.offers import (
    DASHBOARD_NOTE,
    DEVICE_NOTE,
    Played,
    device_notes,
    new_offer_id,
    valid_offer_id,
)
from companion.club.publisher import Publisher
from companion.club.receiver import Receiver
from companion.club.review import held_line
from companion.club.rounds import Offer, parse_offer
from companion.club.seating import Seat
from companion.config import Club
from companion.errors import WireError
from companion.games import replay
from companion.session import Session
from companion.store import Store
from tests.test_club_organiser import DEVICE, match_messages, origins, send
from tests.test_club_receiver import FakeLink

OTHER = "cd34ab12ef56ab78" + "0" * 16


# -- the offer's id, from the dashboard to the device and back ----------------------------


def test_offer_ids_are_unguessable_and_checked_where_they_arrive():
    ids = {new_offer_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(valid_offer_id(i) and len(i) >= 22 for i in ids)
    for bad in ("", "short", "x" * 65, "a/b+c#d" * 4, None, 12, ["x" * 22]):
        assert not valid_offer_id(bad)
    round_ = {"night": "2026-11-26", "round": 1, "game": "scoreboard", "table": "t1",
              "players": ["Ann", "Bob"]}
    assert parse_offer(wire.encode(round_), "t1").offer_id == ""  # a dashboard before ids
    offer_id = new_offer_id()
    assert parse_offer(wire.encode({**round_, "offer": offer_id}), "t1").offer_id == offer_id
    for bad in ("../x", 7, "x" * 200, None):
        with pytest.raises(WireError):
            parse_offer(wire.encode({**round_, "offer": bad}), "t1")


def test_the_match_and_its_offer_are_stored_in_one_go_and_travel_in_its_start_line():
    """The device's store keeps the offer with the new match (one transaction, so the
    publisher never reads the match without it); the cut's header and the retained
    state carry it; a match started with NEW carries none."""
    store = Store(":memory:")
    link = FakeLink()
    publisher = Publisher(Club(broker="mqtt://unused", table="t1"), ":memory:")
    publisher.attach(store, link)
    publisher.handle(("up",))
    offer_id = new_offer_id()
    offered = Session.start("scoreboard", ["Ann", "Bob"], store=store,
                            notes=device_notes(offer_id))
    plain = Session.start("scoreboard", ["Ann", "Bob"], store=store)
    uids = [store.match(s.match_id).uid for s in (offered, plain)]
    assert store.meta(DEVICE_NOTE + uids[0]) == offer_id
    assert store.meta(DEVICE_NOTE + uids[1]) is None
    for session in (offered, plain):
        publisher.handle(("signal", session.match_id))
    sent = [json.loads(data) for _, _, data in link.sent]
    cuts = {m["uid"]: m["match"] for m in sent if m.get("op") == "cut"}
    states = {m["uid"]: m for m in sent if "count" in m}
    assert cuts[uids[0]]["offer"] == offer_id and states[uids[0]]["offer"] == offer_id
    assert "offer" not in cuts[uids[1]] and "offer" not in states[uids[1]]


def test_a_game_started_while_the_log_cannot_be_written_keeps_its_offer_for_later():
    offer_id = new_offer_id()
    session = Session.start("scoreboard", ["Ann", "Bob"], notes=device_notes(offer_id))
    store = Store(":memory:")
    session.save_to(store)  # saving works again: the match and its offer, together
    assert store.meta(DEVICE_NOTE + store.match(session.match_id).uid) == offer_id


def offered_messages(table: str, n: int, offer_id: object,
                     device: str = DEVICE) -> list[tuple[str, bytes]]:
    """:func:`match_messages` whose start line says it was started from ``offer_id``."""
    messages = []
    for topic, data in match_messages(table, n):
        payload = json.loads(data)
        payload["device"] = device
        payload["uid"] = device[:16] + payload["uid"][16:]
        if payload["op"] == "cut":
            payload["match"]["offer"] = offer_id
        messages.append((topic.replace(DEVICE[:16], device[:16]), wire.encode(payload)))
    return messages


def test_the_dashboard_keeps_an_offer_only_from_the_table_it_was_sent_to(tmp_path):
    replies: list = []
    receiver = Receiver(Store(":memory:"), lambda *r: replies.append(r),
                        ledger=Ledger(tmp_path / LEDGER_NAME), clock=lambda: 0.0)
    mine, theirs = new_offer_id(), new_offer_id()
    receiver.offers_sent = lambda: {mine: "t1", theirs: "t2"}
    send(receiver, offered_messages("t1", 1, mine))
    send(receiver, offered_messages("t1", 2, theirs))     # t2's offer claimed by t1
    send(receiver, offered_messages("t1", 3, "not/an id"))
    send(receiver, offered_messages("t2", 4, theirs, OTHER))  # t2's own, its own device
    notes = {key[len(DASHBOARD_NOTE):]: json.loads(value) for key, value in
             receiver.store.meta_under(DASHBOARD_NOTE).items()}
    uid = DEVICE[:16] + f"{1:016x}"
    assert notes == {uid: {"offer": mine, "table": "t1"},
                     OTHER[:16] + f"{4:016x}": {"offer": theirs, "table": "t2"}}
    assert origins(receiver) == ["t1", "t1", "t1"]  # each a match like any other
    claims = [(row["uid"][-1], row["detail"]) for row in receiver.ledger.audit()
              if row["what"] == "offer"]
    assert sorted(claims) == [("2", {"sent_to": "t2"}), ("3", {"sent_to": None})]
    receiver.receipts()
    said = {json.loads(data)["uid"]: json.loads(data).get("offer") for _, data in replies}
    assert said[uid] == mine and said[DEVICE[:16] + f"{2:016x}"] is None
    # A dashboard that seated no night keeps what it is told: the night's results
    # check the offer and the table there.
    second = Receiver(Store(":memory:"), lambda *r: None, clock=lambda: 0.0)
    send(second, offered_messages("t1", 2, theirs))
    assert len(second.store.meta_under(DASHBOARD_NOTE)) == 1


def test_a_restarted_dashboard_keeps_the_offer_its_receipts_say(tmp_path):
    store_path = tmp_path / "club.db"
    offer_id = new_offer_id()
    first = Receiver(Store(store_path), lambda *r: None, clock=lambda: 0.0)
    send(first, offered_messages("t1", 1, offer_id))
    first.store.close()
    replies: list = []
    again = Receiver(Store(store_path), lambda *r: replies.append(r), clock=lambda: 0.0)
    again.preload()
    send(again, offered_messages("t1", 1, offer_id))  # the table sends it again
    again.receipts()
    assert [json.loads(data)["offer"] for _, data in replies] == [offer_id]


def summary(match_id: int, players: tuple[str, ...], game: str = "scoreboard",
            started: float = 0.0) -> object:
    return SimpleNamespace(id=match_id, game_id=game, players=players, uid=f"u{match_id}",
                           started=started)


SEATS = [Seat("t1", ("Ann", "Bob")), Seat("t2", ("Cy", "Di"))]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["t1", "t2", "t3"]),
                          st.sampled_from(["o1", "o2", "o3", "x"]),
                          st.sampled_from([("Ann", "Bob"), ("Cy", "Di"), ("ann", "BOB"),
                                           ("Ann", "Cy")]),
                          st.sampled_from(["scoreboard", "final-count"]),
                          st.integers(0, 5)), max_size=12),
       st.randoms(use_true_random=False))
def test_a_rounds_result_is_only_ever_the_first_match_from_its_tables_offer(claims, rng):
    """Whatever finished matches claim whatever offers from whatever tables, in any
    order: a table's result is the first stored match that came from that table, from
    the offer it was sent, of the round's game with its seat's players; nothing else
    ever is, and a match stored later never replaces it, whenever it says it started."""
    rnd = nights.Round(1, "scoreboard", 1, 0.0, SEATS, {"t1": "o1", "t2": "o2"})
    played = [Played(summary(n, players, game, float(started)), offer, table)
              for n, (table, offer, players, game, started) in enumerate(claims, 1)]
    rng.shuffle(played)
    found = nights.results(rnd, played)
    for seat in SEATS:
        fits = [p.match for p in played if p.table == seat.table and
                p.offer == rnd.offers[seat.table] and p.match.game_id == "scoreboard" and
                {n.casefold() for n in p.match.players} ==
                {n.casefold() for n in seat.players}]
        expected = min(fits, key=lambda m: m.id) if fits else None
        assert found[seat.table] is expected
    for started in (6.0, -1.0):  # stored later, started later or "before" them all
        later = Played(summary(10**6, ("Ann", "Bob"), started=started), "o1", "t1")
        assert nights.results(rnd, [*played, later])["t1"] is (found["t1"] or later.match)


def finished_match_messages(uid: str, offer_id: str, started: float, winner: str,
                            table: str = "t1") -> list[tuple[str, bytes]]:
    """A finished Scoreboard match of Ann and Bob at ``table`` from ``offer_id`` (none:
    "") as its table publishes it: the cut, its two events and end, its retained state."""
    header = {"game_id": "scoreboard", "players": ["Ann", "Bob"], "options": {},
              "started": started, **({"offer": offer_id} if offer_id else {})}
    events = [({"type": "points", "player": name, "points": 9 if name == winner else 1},
               started + n) for n, name in enumerate(("Ann", "Bob"), 1)]
    events.append(({"type": "end"}, started + 3))
    hashes = wire.chain(events)
    messages = [(wire.log_topic(table, uid), wire.encode(
        {"op": "cut", "device": DEVICE, "uid": uid, "gen": 1, "keep": 0, "hash": "",
         "match": header}))]
    for seq, (event, at) in enumerate(events, 1):
        messages.append((wire.log_topic(table, uid), wire.encode(
            {"op": "event", "device": DEVICE, "uid": uid, "gen": 1, "seq": seq,
             "prev": hashes[seq - 1], "hash": hashes[seq], "event": event, "at": at})))
    result = safe_result(replay("scoreboard", ["Ann", "Bob"], {}, [e for e, _ in events]))
    messages.append((wire.match_topic(table, uid), wire.encode(
        {"device": DEVICE, "uid": uid, "table": table, **header, "gen": 1, "count": 3,
         "hash": hashes[3], "state": "finished", "finished": started + 3,
         "result": result})))
    return messages


@pytest.mark.parametrize("second_dashboard", [False, True])
def test_a_second_match_from_one_offer_never_replaces_the_rounds_result(
        tmp_path, second_dashboard):
    """Found attacking issue 36: the round's result was the first *started* match from
    the table's offer, by the time the table wrote in it; after its round was shown
    (Ann won), the table sent another match from the same offer dated a minute before
    it, Bob winning, and the round's result, the night's standings and the next round's
    seating turned to Bob. The dashboard takes one match from an offer at a table, the
    first it stores; another is a match like any other (in the league), on record.
    A second dashboard (no night of its own) does the same."""
    replies: list = []
    receiver = Receiver(Store(":memory:"), lambda *r: replies.append(r),
                        ledger=Ledger(tmp_path / LEDGER_NAME), clock=lambda: 1_800_000_000.0)
    offer_id = new_offer_id()
    receiver.offers_sent = (lambda: None) if second_dashboard else \
        (lambda: {offer_id: "t1"})
    rnd = nights.Round(1, "scoreboard", 1, 1_790_000_000.0, [Seat("t1", ("Ann", "Bob"))],
                       {"t1": offer_id})
    night = nights.Night("2026-11-26", [rnd])
    first, second = DEVICE[:16] + "1" * 16, DEVICE[:16] + "2" * 16

    def round_and_standings() -> tuple:
        matches = nights.matches_of(receiver.store, night)
        won = nights.results(rnd, matches)["t1"]
        return won and won.winners, [(row["name"], row["wins"])
                                     for row in nights.standings(night, matches)]

    send(receiver, finished_match_messages(first, offer_id, 1_790_000_100.0, "Ann"))
    shown = round_and_standings()
    assert shown == (("Ann",), [("Ann", 1), ("Bob", 0)])
    send(receiver, finished_match_messages(second, offer_id, 1_790_000_040.0, "Bob"))
    assert receiver.store.match(receiver.store.find_uid(second)).finished is not None
    assert round_and_standings() == shown
    claims = [(row["uid"], row["detail"]) for row in receiver.ledger.audit()
              if row["what"] == "offer"]
    assert claims == [(second, {"sent_to": "t1", "taken_by": first})]
    receiver.receipts()
    said = {json.loads(data)["uid"]: json.loads(data).get("offer") for _, data in replies}
    assert said == {first: offer_id, second: None}


# -- a device move learned from the broker ---------------------------------------------------


def test_a_move_on_the_broker_is_checked_like_anything_arriving():
    move = Move(DEVICE[:16], "t2", ("t1",), 1_800_000_000.0)
    assert parse_move(move_topic(move.device), move.payload()) == move
    bad = [(move_topic(OTHER[:16]), move.payload()),  # another device's topic
           (move_topic(move.device), Move(DEVICE, "t2", (), 1.0).payload()),
           (move_topic(move.device), Move(move.device, "t 2", (), 1.0).payload()),
           (move_topic(move.device), Move(move.device, "t2", ("a/b",), 1.0).payload()),
           (move_topic(move.device),
            Move(move.device, "t2", tuple(f"t{n}" for n in range(FORMER_MAX + 1)),
                 1.0).payload()),
           (move_topic(move.device), b'{"v":1,"device":"x","table":"t2","former":[],'
                                     b'"at":1e999}'),
           (move_topic(move.device), b"x" * 70_000)]
    for topic, data in bad:
        with pytest.raises(WireError):
            parse_move(topic, data)
    assert "/" not in move_topic("ab/cd+#" + "0" * 9)[len("companion-club/moves/"):]


def test_a_dashboard_learns_a_move_and_sets_the_devices_past_aside_quietly(tmp_path):
    """A dashboard that never heard of the device binds it as the move says; what the
    device still says at its former table is its past (no row for the organiser); its
    matches at its table now are taken."""
    receiver = Receiver(Store(":memory:"), lambda *r: None, clock=lambda: 0.0,
                        ledger=Ledger(tmp_path / LEDGER_NAME))
    move = Move(DEVICE[:16], "t2", ("t1",), 1_800_000_000.0)
    receiver.handle(move_topic(move.device), move.payload(), True)
    send(receiver, match_messages("t1", 1))
    send(receiver, match_messages("t2", 2))
    send(receiver, match_messages("t3", 3))  # never its table: refused, for the organiser
    assert origins(receiver) == ["t2"]
    assert [(row["table"], row["bound"]) for row in receiver.refused_rows()] == [("t3", "t2")]
    assert receiver.ledger.unannounced() == []  # the broker has it: not published again
    receiver.handle(move_topic(move.device), move.payload(), True)  # its echo: no change
    assert len([row for row in receiver.ledger.audit() if row["what"] == "moved"]) == 1
    receiver.handle(move_topic(move.device), b"not json", True)  # dropped, one line


def test_a_device_moved_on_a_forged_row_that_plays_on_at_its_table_is_said(tmp_path):
    """Found attacking issue 36: table-7 sends a match under t1's device id; the page
    lists "a device bound to t1 spoke for table-7 ... until the organiser moves it", and
    the organiser, taking it for a Pi carried across the room, moves it. t1's own Pi,
    still at t1, then had every new match set aside as "its past" there: no row, a log
    line at INFO, t1's games gone from the club without a word. A match started at a
    table after the device was moved away from it is not its past: it is listed for the
    organiser (who can move it back); what was started there before the move stays
    set aside quietly."""
    moved_at = 1_790_000_500.0
    receiver = Receiver(Store(":memory:"), lambda *r: None, clock=lambda: moved_at,
                        ledger=Ledger(tmp_path / LEDGER_NAME, clock=lambda: moved_at))
    receiver.request = lambda *r: None
    uid = [DEVICE[:16] + f"{n:016x}" for n in range(5)]
    send(receiver, finished_match_messages(uid[1], "", 1_790_000_000.0, "Ann"))  # at t1
    send(receiver, finished_match_messages(uid[2], "", 1_790_000_100.0, "Bob", "table-7"))
    [row] = receiver.refused_rows()
    assert (row["table"], row["bound"]) == ("table-7", "t1")
    assert receiver.move_refused(row["id"])  # the organiser falls for it
    assert receiver.ledger.table_of(DEVICE) == "table-7"
    send(receiver, finished_match_messages(uid[3], "", 1_790_000_200.0, "Ann"))  # before
    assert receiver.refused_rows() == []  # its past at t1: quiet
    send(receiver, finished_match_messages(uid[4], "", moved_at + 60, "Bob"))  # t1 plays on
    assert [(row["table"], row["bound"]) for row in receiver.refused_rows()] == [
        ("t1", "table-7")]
    assert receiver.store.find_uid(uid[4]) is None  # still not taken: the organiser decides


def test_the_organisers_move_is_published_once_and_an_older_one_does_not_undo_it(tmp_path):
    published: list = []
    receiver = Receiver(Store(":memory:"), lambda *r: None, clock=lambda: 0.0,
                        ledger=Ledger(tmp_path / LEDGER_NAME, clock=lambda: 2e9))
    up = [False]
    receiver.announce = lambda topic, data: up[0] and not published.append((topic, data))
    send(receiver, match_messages("t1", 1))
    send(receiver, match_messages("t2", 2))
    ident = receiver.refused_rows()[0]["id"]
    assert receiver.move_refused(ident)  # Move on the club page, the broker away
    assert published == [] and len(receiver.ledger.unannounced()) == 1
    up[0] = True
    receiver.behind()  # the next check, the broker back
    receiver.behind()
    assert [parse_move(*item) for item in published] == [
        Move(DEVICE[:16], "t2", ("t1",), 2e9)]
    older = Move(DEVICE[:16], "t3", ("t1",), 1e9)  # another dashboard's, before ours
    receiver.handle(move_topic(older.device), older.payload(), True)
    assert receiver.ledger.table_of(DEVICE) == "t2"


# -- held rows in words ----------------------------------------------------------------------


def test_a_held_line_tells_the_match_never_its_uid():
    row = {"table": "t7", "at": 1_800_000_000.0, "what": "duplicate", "uid": "u" * 32,
           "detail": {"same_as": "s" * 32, "finished": 1_800_000_000.0, "result": {},
                      "game": "final-count", "players": ["Ann", "Cy"]}}
    line = held_line(row)
    assert line.startswith("t7 sent a counted match again with other times: Final Count "
                           "with Ann, Cy, ")
    assert "u" * 32 not in line and "s" * 32 not in line
    old = {**row, "detail": {"same_as": "s" * 32, "finished": 1_800_000_000.0}}
    assert "s" * 32 not in held_line(old)  # a row from an older ledger: still no uid


def test_old_stores_without_offers_still_load(tmp_path: Path):
    """A dashboard's notes and a night's file from before offers: their matches stay
    matches (in the league), none is a round's result."""
    store = Store(tmp_path / "club.db")
    receiver = Receiver(store, lambda *r: None, clock=lambda: 0.0)
    send(receiver, match_messages("t1", 1))
    note_key = next(iter(store.meta_under("club:")))
    note = json.loads(store.meta(note_key))
    del note["offer"]
    store.set_meta(note_key, json.dumps(note))
    again = Receiver(store, lambda *r: None, clock=lambda: 0.0)
    again.preload()
    send(again, match_messages("t1", 1))
    assert origins(again) == ["t1"]
    night = nights.Night("2026-11-26", [nights.Round(1, "scoreboard", 1, 0.0, SEATS)])
    assert nights.matches_of(store, night) == []
    assert Offer("2026-11-26", 1, "scoreboard", ("Ann", "Bob")).offer_id == ""
