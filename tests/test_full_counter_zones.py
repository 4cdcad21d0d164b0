"""Full Counter with the cards counted (option ``zones``): every zone known from the deal
and the plays, the refusals the counts make possible, going out by itself, the bar of
issue 27 through ``companion replay --state``, and old logs replaying as they did."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from companion_cli import companion
from test_full_counter import (
    blind,
    chain,
    documented_example,
    match_of,
    out,
    pickup,
    play,
    refused,
    starter,
)

from companion.commands.replay import replay_main
from companion.errors import BadSetup
from companion.games.full_counter import Deck, FullCounter
from companion.games.full_counter_zones import Zones
from companion.session import Session

NINE = {"hand": 3, "face_up": 3, "blind": 3}


def counted(players: str = "Ann,Bob,Cy", events=(), **options) -> FullCounter:
    return match_of(players, events, zones=True, **options)


def zones_of(match: FullCounter, player: str) -> dict[str, int]:
    return match.state()["zones"][player]


def set_zones(match: FullCounter, deck: int | None = None, **held: dict[str, int]) -> None:
    """Put the counts where a test needs them (as a long game would have), keeping every
    card of the deck somewhere: what leaves the players and the deck is burnt."""
    zones = match.zones
    for name, counts in held.items():
        zones.held[name].update(counts)
    if deck is not None:
        zones.deck = deck
    placed = sum(zones.total(name) for name in match.players) + zones.deck + len(match.pile)
    zones.burnt = match.deck.size - placed


# -- the deal ------------------------------------------------------------------------------


def test_the_deal_gives_nine_each_and_the_rest_is_the_deck():
    match = counted()
    state = match.state()
    assert state["zones"] == {"Ann": NINE, "Bob": NINE, "Cy": NINE}
    assert (state["deck"], state["pile"], state["burnt"]) == (52 - 27, 0, 0)
    assert state["playing_from"] == {"Ann": "hand", "Bob": "hand", "Cy": "hand"}


def test_a_changed_deck_profile_changes_the_deck():
    assert counted(deck={"numbers": 10}).state()["deck"] == 48 - 27
    assert counted("Ann,Bob", deck={"copies": 3, "wildfire": 0}).state()["deck"] == 37 - 18


def test_without_the_option_nothing_is_counted():
    state = match_of().state()
    assert state["zones"] is state["deck"] is state["burnt"] is None
    assert state["options"]["zones"] is False


def test_quick_mode_does_not_count_and_says_so():
    with pytest.raises(BadSetup, match="quick mode does not count the cards"):
        FullCounter(["Ann", "Bob"], {"quick": True, "zones": True})
    assert FullCounter.new_options({"quick": True}) == {"zones": False, "seen_cards": False,
                                                        "quick": True}
    assert FullCounter.new_options({})["zones"] is True
    assert FullCounter.new_options({"zones": False}) == {"zones": False, "seen_cards": False}


# -- each count rule -----------------------------------------------------------------------


def test_a_play_from_the_hand_draws_back_up_to_three():
    match = counted(events=[play("Ann", 4)])
    assert zones_of(match, "Ann") == NINE and match.state()["deck"] == 24
    match.apply(play("Bob", 5, 2))                          # a set counts every card
    assert zones_of(match, "Bob") == NINE and match.state()["deck"] == 22
    match.apply(chain("Cy", 6, 8))                          # a chain every card of it
    assert zones_of(match, "Cy") == NINE and match.state()["deck"] == 19
    assert match.state()["pile"] == 6


def test_a_dirty_mirror_is_a_card():
    match = counted(events=[play("Ann", 4), play("Bob", "mirror")])
    assert match.state()["pile"] == 2 and match.state()["deck"] == 23


def test_a_pickup_moves_the_pile_into_the_hand():
    match = counted(events=[play("Ann", 4), play("Bob", 5), pickup("Cy")])
    assert zones_of(match, "Cy") == {"hand": 5, "face_up": 3, "blind": 3}
    assert match.state()["pile"] == 0


def test_a_hand_over_three_draws_nothing():
    match = counted(events=[play("Ann", 4), play("Bob", 5), pickup("Cy"), play("Ann", 5),
                            play("Bob", 6), play("Cy", 6)])
    assert zones_of(match, "Cy")["hand"] == 4 and match.state()["deck"] == 21


def test_burns_take_the_pile_out_of_play_and_nuclear_blast_does_not():
    match = counted(events=[play("Ann", 4), play("Bob", "wildfire")])
    state = match.state()
    assert (state["pile"], state["burnt"], state["deck"]) == (0, 2, 24)   # Bob: no draw
    match.apply(play("Bob", 1))                             # Nuclear Blast: stays
    match.apply(play("Cy", 5, 3))
    match.apply(play("Ann", 5))                             # the fourth 5: burns
    state = match.state()
    assert (state["pile"], state["burnt"]) == (0, 7)


def test_after_a_wildfire_the_player_plays_again_before_drawing():
    match = counted(events=[play("Ann", "wildfire")])
    assert zones_of(match, "Ann")["hand"] == 2 and match.state()["deck"] == 25
    match.apply(play("Ann", 6))                             # then draws back up to 3
    assert zones_of(match, "Ann")["hand"] == 3 and match.state()["deck"] == 23


def test_a_wildfire_that_was_the_last_card_in_hand_draws_at_once():
    match = counted(events=[play("Ann", "wildfire", 3)])
    assert zones_of(match, "Ann")["hand"] == 3 and match.state()["deck"] == 22


def test_face_up_cards_come_when_the_hand_is_empty_and_the_deck_gone():
    match = counted()
    set_zones(match, deck=0, Ann={"hand": 1})
    match.apply(play("Ann", 4))
    assert zones_of(match, "Ann") == {"hand": 0, "face_up": 3, "blind": 3}
    assert match.state()["playing_from"]["Ann"] == "face_up"
    assert match.state()["last"]["text"] == "4; face up next"
    match.apply(play("Bob", 5))
    match.apply(play("Cy", 6))
    assert match.expecting().prompt == "Ann: 6 or higher, face up"
    match.apply(play("Ann", 9, 2))                          # no zone named: from the counts
    assert zones_of(match, "Ann") == {"hand": 0, "face_up": 1, "blind": 3}


def test_a_face_up_card_that_cannot_be_played_picks_up_the_pile_and_it():
    match = counted()
    set_zones(match, deck=0, Ann={"hand": 0})
    match.apply({**play("Ann", 9), "zone": "face_up"})
    match.apply(play("Bob", 10))
    match.apply(play("Cy", 11))
    match.apply(pickup("Ann"))                              # could not beat 11 face up
    assert zones_of(match, "Ann") == {"hand": 4, "face_up": 1, "blind": 3}
    assert match.state()["playing_from"]["Ann"] == "hand"


def test_face_down_cards_come_after_the_face_up_ones():
    match = counted()
    set_zones(match, deck=0, Ann={"hand": 0, "face_up": 0})
    assert match.expecting().types == ("blind",)
    match.apply(blind("Ann", 5))                            # legal: played
    assert zones_of(match, "Ann") == {"hand": 0, "face_up": 0, "blind": 2}
    match.apply(play("Bob", 9))
    match.apply(play("Cy", 10))
    match.apply(blind("Ann", 4))                            # not legal: picks up, it too
    assert zones_of(match, "Ann") == {"hand": 4, "face_up": 0, "blind": 1}
    assert match.state()["pile"] == 0 and match.current == "Bob"
    match.apply(play("Bob", 6))
    match.apply(play("Cy", 6))
    assert match.state()["playing_from"]["Ann"] == "hand"   # from the hand again
    assert "blind" not in match.expecting().types


def test_a_player_whose_last_card_leaves_is_out_at_once():
    match = counted()
    set_zones(match, deck=0, Ann={"hand": 0, "face_up": 0, "blind": 1})
    match.apply(blind("Ann", 5))
    state = match.state()
    assert state["out"] == ["Ann"] and state["last"]["text"] == "blind 5, out"
    assert match.current == "Bob" and state["zones"]["Ann"] == {"hand": 0, "face_up": 0,
                                                                 "blind": 0}
    assert state["playing_from"] == {"Bob": "hand", "Cy": "hand"}


def test_out_after_a_burn_passes_the_turn_and_the_last_one_left_loses():
    match = counted("Ann,Bob")
    set_zones(match, deck=0, Ann={"hand": 1, "face_up": 0, "blind": 0})
    match.apply(play("Ann", "wildfire"))                    # burns, and her last card
    assert match.state()["phase"] == "deal"                 # Bob, last left, lost
    game = match.result()["games"][0]
    assert (game["loser"], game["out"]) == ("Bob", ["Ann"])
    assert match.state()["zones"] == {"Ann": NINE, "Bob": NINE}   # a fresh deal
    assert match.state()["deck"] == 52 - 18


# -- each refusal --------------------------------------------------------------------------


def test_out_while_the_player_holds_cards_is_refused_with_what_they_hold():
    match = counted()
    refused(match, out("Bob"), "Bob still holds 9 cards: 3 in hand, 3 face-up, 3 face-down")
    assert "out" not in match.expecting().types


def test_a_play_of_more_cards_than_the_zone_holds_is_refused():
    match = counted()
    refused(match, play("Ann", 4, 4), "Ann has 3 in hand, not 4")
    refused(match, chain("Ann", 4, 7), "Ann has 3 in hand, not 4")
    set_zones(match, deck=0, Ann={"hand": 0, "face_up": 2})
    refused(match, play("Ann", 9, 3), "Ann has 2 face-up, not 3")
    assert match.expecting().choices["count"] == (1, 2)


def test_a_face_up_card_while_the_hand_or_the_deck_has_cards_is_refused():
    match = counted()
    refused(match, {**play("Ann", 4), "zone": "face_up"},
            "Ann still has 3 cards in hand: face-up cards come once the hand is empty")
    set_zones(match, Ann={"hand": 0})
    refused(match, {**play("Ann", 4), "zone": "face_up"}, "the deck still has 25 cards")


def test_a_face_down_card_while_face_up_cards_remain_is_refused():
    match = counted()
    refused(match, blind("Ann", 4), "Ann still has 3 cards in hand: face-down cards come")
    set_zones(match, deck=0, Ann={"hand": 0})
    refused(match, blind("Ann", 4), "Ann still has 3 face-up: face-down cards come after them")
    refused(match, {**play("Ann", 4), "zone": "hand"}, "Ann has no cards in hand")
    set_zones(match, Ann={"face_up": 0})
    refused(match, play("Ann", 4), "Ann has only face-down cards left")


def test_a_zone_is_hand_or_face_up_and_only_when_counting():
    refused(counted(), {**play("Ann", 4), "zone": "blind"}, "a play's zone is hand or face_up")
    refused(match_of(), {**play("Ann", 4), "zone": "hand"}, "does not count the cards")


# -- the bar: companion replay --state -----------------------------------------------------

BAR = [starter(2, ["Ann"]), play("Ann", 9, 2), pickup("Bob"), play("Cy", 5), play("Ann", 6)]


def write_log(path: Path, events) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return path


def test_bar_replay_state_after_a_starter_three_plays_and_a_pickup(tmp_path):
    log = write_log(tmp_path / "bar.jsonl", BAR)
    done = companion("replay", "full-counter", "--players", "Ann,Bob,Cy", "--option",
                     "zones=true", "--events", str(log), "--state")
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)["state"]
    assert state["zones"] == {"Ann": NINE, "Bob": {"hand": 5, "face_up": 3, "blind": 3},
                              "Cy": NINE}
    assert (state["deck"], state["pile"]) == (21, 2)
    write_log(log, [*BAR, out("Bob")])
    done = companion("replay", "full-counter", "--players", "Ann,Bob,Cy", "--option",
                     "zones=true", "--events", str(log), "--state")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == "line 6: Bob still holds 11 cards: 5 in hand, 3 face-up, " \
                                  "3 face-down"
    write_log(log, [starter(2, ["Ann"]), out("Bob")])
    done = companion("replay", "full-counter", "--players", "Ann,Bob,Cy", "--option",
                     "zones=true", "--events", str(log))
    assert (done.returncode, done.stderr.strip()) == (
        1, "line 2: Bob still holds 9 cards: 3 in hand, 3 face-up, 3 face-down")


def test_replay_counts_by_default_without_a_start_line(tmp_path):
    log = write_log(tmp_path / "bar.jsonl", BAR)
    out_text, err = io.StringIO(), io.StringIO()
    assert replay_main("full-counter", "Ann,Bob,Cy", [], str(log), out_text, err,
                       state=True) == 0, err.getvalue()
    assert json.loads(out_text.getvalue())["state"]["deck"] == 21


@pytest.mark.parametrize("game,players,events", [
    ("final-count", "Ann,Bob", [{"type": "roll", "player": "Ann", "value": 3}]),
    ("scoreboard", "Ann,Bob", [{"type": "points", "player": "Ann", "points": 5}]),
])
def test_replay_state_for_every_game(tmp_path, game, players, events):
    log = write_log(tmp_path / "log.jsonl", events)
    out_text, err = io.StringIO(), io.StringIO()
    assert replay_main(game, players, [], str(log), out_text, err, state=True) == 0
    printed = json.loads(out_text.getvalue())
    assert printed["state"]["totals"] == printed["totals"]
    out_text = io.StringIO()
    assert replay_main(game, players, [], str(log), out_text, err) == 0
    assert "state" not in json.loads(out_text.getvalue())


# -- old logs replay unchanged -------------------------------------------------------------


def test_a_log_whose_start_line_has_no_zones_replays_as_it_always_did(tmp_path):
    lines, shown = documented_example()      # presses out while, by count, cards remain
    assert "zones" not in lines[0]["options"]
    log = write_log(tmp_path / "example.jsonl", lines)
    out_text, err = io.StringIO(), io.StringIO()
    assert replay_main("full-counter", None, None, str(log), out_text, err,
                       state=True) == 0, err.getvalue()
    printed = json.loads(out_text.getvalue())
    assert {key: printed[key] for key in shown} == shown
    assert printed["state"]["zones"] is None
    # The same events counted: the first out is refused.
    counted_log = write_log(tmp_path / "counted.jsonl",
                            [{**lines[0], "options": {"zones": True}}, *lines[1:]])
    err = io.StringIO()
    assert replay_main("full-counter", None, None, str(counted_log), io.StringIO(), err) == 1
    assert err.getvalue() == ("line 19: Cy still has 3 cards in hand: face-down cards come "
                              "once the hand is empty and the deck gone\n")
    # With the cards seen held to the deck too: Bob's third Black Market cannot be in
    # his hand, which holds only the cards he picked up.
    write_log(counted_log, [{**lines[0], "options": {"zones": True, "seen_cards": True}},
                            *lines[1:]])
    err = io.StringIO()
    assert replay_main("full-counter", None, None, str(counted_log), io.StringIO(), err) == 1
    assert err.getvalue() == ("line 17: Bob holds 5 cards in hand: 5, 7 Back Stabber, "
                              "8 Magnetic Rays, 9 and 10 picked up and 0 others\n")


def test_a_new_match_counts_and_a_stored_old_one_resumes_uncounted(tmp_path):
    from companion.store import Store

    store = Store(tmp_path / "companion.db")
    session = Session.start("full-counter", ["Ann", "Bob"], {"quick": False}, store=store)
    assert session.match.options["zones"] is True
    assert store.match(session.match_id).options["zones"] is True
    quick = Session.start("full-counter", ["Ann", "Bob"], {"quick": True})
    assert quick.match.options["zones"] is False
    old = {"quick": False, "games": 0, "deck": session.match.deck.profile()}
    old_id = store.new_match("full-counter", ["Ann", "Bob"], old)
    for event in (starter(2, ["Ann"]), out("Ann")):
        store.append(old_id, event)
    resumed = Session.resume(store, old_id)
    assert resumed.match.result()["games"][0]["loser"] == "Bob"
    store.close()


def test_zones_words():
    zones = Zones(["Ann", "Bob"], Deck.from_option({}))
    assert zones.holding("Ann") == "9 cards: 3 in hand, 3 face-up, 3 face-down"
    zones.held["Ann"].update(hand=1, face_up=0, blind=0)
    assert zones.holding("Ann") == "1 card: 1 in hand, 0 face-up, 0 face-down"


# -- the page: counts as columns of the player table, cards by their names ----------------


@pytest.fixture
def device(tmp_path):
    from web_device import Device

    made = Device(tmp_path / "state")
    yield made
    made.close()


def player_rows(page: str) -> list[list[str]]:
    """The player table's header and rows as text cells."""
    import re

    table = page[page.index('<table class="scores'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    return [[re.sub(r"<[^>]+>", "", cell).strip()
             for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows]


def test_a_match_started_from_the_page_counts_and_shows_the_counts_as_columns(device):
    device.pair()
    assert device.client.post("/api/matches", json={
        "game": "full-counter", "players": ["Ann", "Bob"]}).status_code == 200
    for event in (starter(2, ["Ann"]), play("Ann", 9, 2)):
        assert device.client.post("/api/events", json={"event": event}).status_code == 200
    reply = device.client.post("/api/events", json={"event": out("Bob")})
    assert reply.status_code == 409
    assert "Bob still holds 9 cards: 3 in hand, 3 face-up, 3 face-down" in reply.text
    page = device.client.get("/", headers={"accept": "text/html"}).text
    rows = player_rows(page)
    assert rows[0] == ["Player", "Total", "Hand", "Face up", "Face down"]
    assert [row[2:] for row in rows[1:]] == [["3", "3", "3"], ["3", "3", "3"]]
    facts = {fact["label"]: fact["text"] for fact in device.state()["context"]["facts"]}
    assert facts["Deck"] == "32 cards" and facts["Pile"] == "2 cards"


def test_card_downs_cards_in_hand_are_a_column_too(device):
    device.pair()
    device.client.post("/api/matches", json={"game": "card-down", "players": ["Ann", "Bob"]})
    rows = player_rows(device.client.get("/", headers={"accept": "text/html"}).text)
    assert rows[0][-1] == "In hand" and [row[-1] for row in rows[1:]] == ["7", "7"]
    facts = [fact["label"] for fact in device.state()["context"]["facts"]]
    assert "Cards in hand" not in facts


def test_the_pads_name_the_cards_as_the_deck_prints_them():
    from companion.ui.pads import pads

    match = counted()
    by_type = {pad["type"]: pad for pad in pads(match)}
    assert set(by_type) == {"play", "chain"}                 # no out, no blind yet
    value = next(f for f in by_type["play"]["fields"] if f["name"] == "value")
    assert [value["names"][str(card)] for card in (1, 2, 3, 7, 8, "wildfire", "mirror")] == [
        "1 Nuclear Blast", "2 Gold Bar", "3 Black Market", "7 Back Stabber",
        "8 Magnetic Rays", "Wildfire", "Dirty Mirror"]
    count = next(f for f in by_type["play"]["fields"] if f["name"] == "count")
    assert count["max"] == 3                                 # three in hand
    set_zones(match, deck=0, Ann={"hand": 0, "face_up": 0})
    assert [pad["type"] for pad in pads(match)] == ["blind"]
    quick = FullCounter(["Ann", "Bob"], {"quick": True})
    quick.apply(starter(2, ["Ann"]))
    effect = next(f for f in pads(quick)[0]["fields"] if f["name"] == "effect")
    assert effect["names"]["back_stabber"] == "Back Stabber"
    assert effect["names"]["four"] == "Four of a kind"


def test_the_new_game_form_does_not_ask_what_a_new_match_gets_by_itself():
    from companion.remote.web.pages import playable_games

    full_counter = next(game for game in playable_games() if game["id"] == "full-counter")
    assert "zones" not in full_counter["options"] and "quick" in full_counter["options"]


def test_quick_mode_says_the_cards_are_not_counted():
    quick = FullCounter(["Ann", "Bob"], {"quick": True})
    facts = {fact["label"]: fact["text"] for fact in quick.context()["facts"]}
    assert facts["Cards held"] == "not counted in quick mode"
    assert quick.context()["columns"] == []
