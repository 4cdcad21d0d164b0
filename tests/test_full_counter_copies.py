"""Full Counter counted: every card is one the deck holds. The cards seen (on the pile,
burnt, picked up into a hand) are counted against the deck profile's copies, and a play
that would need more is refused in words, from the buttons, a remote or ``replay``: the
worked example of issue 35, each place a card is seen, the hand that holds only what
it picked up, what the screens offer, and old uncounted logs as they were."""

from __future__ import annotations

import json

import pytest
from companion_cli import companion
from test_full_counter import chain, match_of, pickup, play, refused, starter
from test_full_counter_ui import push, started
from test_full_counter_zones import write_log

from companion.errors import BadSetup, IllegalEvent
from companion.games.full_counter import FullCounter
from companion.ui.pads import pads
from companion.ui.play import ValuePicker
from companion.ui.screen import Message

#: Issue 35's bar: the starter and five Gold Bars, two players. Four in a row burn the
#: pile (Bob plays again); the fifth is one the deck does not have.
FIVE_GOLD_BARS = [starter(2, ["A"]), play("A", 2), play("B", 2), play("A", 2), play("B", 2),
                  play("B", 2)]


def counted(players: str = "Ann,Bob,Cy", events=(), **options) -> FullCounter:
    return match_of(players, events, zones=True, seen_cards=True, **options)


# -- the worked example ---------------------------------------------------------------------


def test_bar_replay_refuses_the_fifth_gold_bar_at_line_6(tmp_path):
    log = write_log(tmp_path / "log.jsonl", FIVE_GOLD_BARS)
    done = companion("replay", "full-counter", "--players", "A,B", "--events", str(log))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "line 6: the deck has 4 Gold Bars: 4 are burnt already\n"
    write_log(log, FIVE_GOLD_BARS[:5])
    done = companion("replay", "full-counter", "--players", "A,B", "--events", str(log),
                     "--state")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["state"]["burnt"] == 4


def test_the_bar_is_written_in_docs_events_md():
    from test_full_counter import DOCS

    section = DOCS.read_text(encoding="utf-8").split("\n## full-counter\n")[1]
    block = section.split("a log of the starter and five Gold Bars")[1]
    log = block.split("```jsonl\n")[1].split("```")[0]
    assert [json.loads(line) for line in log.splitlines()] == FIVE_GOLD_BARS
    assert "`line 6:\nthe deck has 4 Gold Bars: 4 are burnt already`" in block


def test_replay_refuses_the_starter_and_six_twos_however_they_come(tmp_path):
    six = [play("Ann", 2), play("Bob", 2), play("Cy", 2), play("Ann", 2), play("Ann", 2),
           play("Bob", 2)]                          # the fourth burns: Ann again
    log = write_log(tmp_path / "log.jsonl", [starter(2, ["Ann"]), *six])
    done = companion("replay", "full-counter", "--players", "Ann,Bob,Cy", "--events", str(log))
    assert done.returncode == 1
    assert done.stderr == "line 6: the deck has 4 Gold Bars: 4 are burnt already\n"
    write_log(log, [starter(2, ["Ann"]), play("Ann", 2, 3), play("Bob", 2, 3)])
    done = companion("replay", "full-counter", "--players", "Ann,Bob,Cy", "--events", str(log))
    assert done.stderr == "line 3: the deck has 4 Gold Bars: 3 are on the pile already\n"


def test_the_refusal_changes_nothing_and_the_same_table_plays_on():
    match = counted("A,B", FIVE_GOLD_BARS[1:5])
    refused(match, play("B", 2), "the deck has 4 Gold Bars: 4 are burnt already")
    match.apply(play("B", 6))
    assert match.state()["burnt"] == 4 and match.current == "A"


# -- where the seen cards are ---------------------------------------------------------------


def test_each_place_is_said_with_its_count():
    refused(counted(events=[play("Ann", 5, 2), pickup("Bob"), play("Cy", 5)]),
            play("Ann", 5, 2), "the deck has 4 cards of value 5: 2 are in Bob's hand and 1 is "
                               "on the pile already")


def test_picked_up_cards_may_be_played_again_by_their_holder():
    match = counted(events=[play("Ann", 5, 3), pickup("Bob"), play("Cy", 5)])
    refused(match, play("Ann", 5), "the deck has 4 cards of value 5: 3 are in Bob's hand and "
                                   "1 is on the pile already")
    match.apply(play("Ann", 6))
    match.apply(pickup("Bob"))                      # Bob holds all four 5s, and a 6
    match.apply(play("Cy", 1))                      # Nuclear Blast: anything goes
    match.apply(play("Ann", 4))
    match.apply(play("Bob", 5, 4))                  # his own four: they burn the pile
    assert match.state()["burnt"] == 6 and match.current == "Bob"   # 1, 4 and four 5s
    refused(match, play("Bob", 5), "the deck has 4 cards of value 5: 4 are burnt already")


def test_a_hand_of_picked_up_cards_holds_nothing_else():
    match = counted("Ann,Bob", [play("Ann", 9), play("Bob", 10), pickup("Ann")])
    match.zones.deck = 0                            # the deck is gone: no more draws
    match.zones.held["Ann"]["hand"] = 2             # she has laid her own cards
    match.apply(play("Bob", 4))
    refused(match, play("Ann", 5), "Ann holds 2 cards in hand: 9 and 10 picked up and 0 "
                                   "others")
    refused(match, chain("Ann", 5, 6), "Ann holds 2 cards in hand")
    match.apply(chain("Ann", 9, 10))                # her own cards: fine
    assert match.state()["out"] == [] and match.state()["playing_from"]["Ann"] == "face_up"


def test_a_burn_and_a_new_deal_are_counted_right():
    match = counted("Ann,Bob", [play("Ann", "wildfire"), play("Ann", "wildfire", 2),
                                play("Ann", 4), play("Bob", "wildfire")])
    refused(match, play("Bob", "wildfire"), "the deck has 4 Wildfires: 4 are burnt already")
    assert "wildfire" not in match.expecting().choices["value"]
    match.zones.held["Ann"].update(hand=0, face_up=0, blind=1)
    match.zones.deck = 0
    match.apply(play("Bob", 5))
    match.apply({"type": "blind", "player": "Ann", "value": 6})   # her last card: Bob loses
    assert match.state()["phase"] == "deal"
    match.apply(starter(2, ["Bob"]))
    match.apply(play("Bob", "wildfire", 3))         # a fresh deck: nothing seen yet
    assert match.state()["burnt"] == 3


def test_the_deck_profile_says_the_copies():
    match = counted("Ann,Bob", deck={"copies": 2, "mirror": 1, "numbers": 12})
    match.apply(play("Ann", 11, 2))
    refused(match, play("Bob", 11), "the deck has 2 cards of value 11: 2 are on the pile "
                                    "already")
    match.apply(play("Bob", "mirror"))
    refused(match, play("Ann", "mirror"), "the deck has 1 Dirty Mirror: 1 is on the pile "
                                          "already")


def test_a_new_match_holds_the_cards_to_the_deck_and_a_log_from_before_replays_as_it_was(
        tmp_path):
    from companion.session import Session
    from companion.store import Store

    store = Store(tmp_path / "companion.db")
    session = Session.start("full-counter", ["A", "B"], {}, store=store)
    assert session.match.options["seen_cards"] is True
    assert Session.start("full-counter", ["A", "B"], {"quick": True}).match.options[
        "seen_cards"] is False
    # A counted match stored before seen_cards: it resumes, and plays on, as it was.
    old_id = store.new_match("full-counter", ["A", "B"], {"zones": True})
    for event in FIVE_GOLD_BARS:
        store.append(old_id, event)
    resumed = Session.resume(store, old_id)
    assert resumed.match.state()["pile"] == 1 and resumed.match.options["seen_cards"] is False
    store.close()
    log = write_log(tmp_path / "old.jsonl", [
        {"type": "start", "players": ["A", "B"], "options": {"zones": True}}, *FIVE_GOLD_BARS])
    done = companion("replay", "full-counter", "--events", str(log))
    assert done.returncode == 0, done.stderr


def test_seen_cards_needs_the_cards_counted():
    with pytest.raises(BadSetup, match=r"seen_cards needs the cards counted \(zones=true\)"):
        FullCounter(["A", "B"], {"seen_cards": True})
    assert FullCounter.new_options({"zones": False})["seen_cards"] is False


def test_the_new_game_form_does_not_ask_it():
    from companion.remote.web.pages import playable_games

    options = next(game for game in playable_games() if game["id"] == "full-counter")["options"]
    assert "seen_cards" not in options and "zones" not in options


def test_an_uncounted_match_and_quick_mode_count_no_copies():
    match = match_of("A,B", FIVE_GOLD_BARS[1:])     # a log from before zones: as it was
    assert match.state()["burns"] == 1 and match.current == "A"
    quick = FullCounter(["A", "B"], {"quick": True})
    quick.apply(starter(2, ["A"]))
    for _ in range(6):
        quick.apply({"type": "play", "player": quick.current, "effect": "wildfire"})


# -- what the screens and the page offer ------------------------------------------------------


def test_expecting_leaves_out_what_the_deck_has_run_out_of_but_not_a_holders_own():
    match = counted(events=[play("Ann", 5, 3), pickup("Bob"), play("Cy", 5)])
    assert 5 not in match.expecting().choices["value"]                  # Ann
    match.apply(play("Ann", 6))
    match.apply(pickup("Bob"))
    match.apply(play("Cy", 1))
    match.apply(play("Ann", 1))                     # Bob: anything
    choices = match.expecting().choices
    assert 5 in choices["value"] and 5 in choices["first"]              # his own 5s
    match.apply(play("Bob", 4))
    choices = match.expecting().choices                                 # Cy, on a 4
    assert 5 not in choices["value"] and 5 not in choices["first"]
    assert 6 in choices["value"]
    value = next(field for field in pads(match)[0]["fields"] if field["name"] == "value")
    assert 5 not in value["values"] and 6 in value["values"]


def test_the_device_says_why_a_card_the_deck_has_run_out_of_is_refused():
    ctx, game, screen = started(("A", "B"))
    for event in FIVE_GOLD_BARS[1:5]:
        game.match.apply(event)
    picker = push(screen, ctx, "ROLL")
    assert isinstance(picker, ValuePicker) and picker.values[picker.cursor] == "2"
    said = push(picker, ctx, "OK ROLL")
    assert isinstance(said, Message) and said.title == "Not allowed"
    assert " ".join(said.lines) == "the deck has 4 Gold Bars: 4 are burnt already"
    assert push(said, ctx, "OK") is picker and len(game.match.events) == 5


@pytest.fixture
def device(tmp_path):
    from web_device import Device

    made = Device(tmp_path / "state")
    yield made
    made.close()


def test_the_page_gets_the_words_and_the_match_is_unchanged(device):
    device.pair()
    assert device.client.post("/api/matches", json={
        "game": "full-counter", "players": ["A", "B"]}).status_code == 200
    for event in FIVE_GOLD_BARS[:5]:
        assert device.client.post("/api/events", json={"event": event}).status_code == 200
    reply = device.client.post("/api/events", json={"event": FIVE_GOLD_BARS[5]})
    assert reply.status_code == 409
    assert "the deck has 4 Gold Bars: 4 are burnt already" in reply.text
    assert device.state()["seq"] == 5 and 2 not in device.state()["expecting"]["choices"]["value"]


def test_the_words_are_said_in_the_language_of_the_table():
    from companion import lang

    match = counted("A,B", FIVE_GOLD_BARS[1:5])
    lang.use("de")
    try:
        with pytest.raises(IllegalEvent) as refusal:
            match.apply(play("B", 2))
    finally:
        lang.use("en")
    assert str(refusal.value) == "das Deck hat 4 Gold Bars, davon schon 4 verbrannt"
