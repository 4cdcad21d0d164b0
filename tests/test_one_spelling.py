"""Issue 35, item 4: one player whatever the spelling. A name whose player key
(companion.names.player_key) is a roster name's is that roster player, written as the
roster writes it, everywhere a name comes in: the letter picker (test_roster_ui), NEW
from the serial console and the page, ``sim --new --players``, import, RENAME PLAYER.
Never refused as a lookalike of itself; two seats of one player are still refused."""

from __future__ import annotations

import random
import re
import unicodedata
from pathlib import Path

import pytest
from companion_cli import companion
from hypothesis import example, given
from hypothesis import strategies as st
from test_import import export_all, play_scoreboard, run_import
from test_link import ok, owned, run  # noqa: F401 - owned is the apps' fixture
from web_device import Device

from companion import font
from companion.errors import BadName
from companion.names import NAME_MAX, check_name, player_key, roster_name, seat_players
from companion.stats import figures
from companion.store import Store

KATE = "\u039a\u0391\u03a4\u0395"  # ΚΑΤΕ in Greek capitals: drawn as KATE
BOB = "\u0412ob"  # Вob with a Cyrillic В: drawn as Bob

# -- one rule: any spelling of a roster player is that player -------------------------------------


def _shown(char: str) -> bool:
    """Drawn, and no space, control or format code (a soft hyphen is drawn as "-" but
    is no letter of a name: the rule refuses it, the key leaves it out)."""
    return font.drawable(char) and unicodedata.category(char)[0] not in "CZ"


def _same_cells() -> dict[bytes, list[str]]:
    cells: dict[bytes, list[str]] = {}
    for char in filter(_shown, font.chars()):
        cells.setdefault(font.glyph(char), []).append(char)
    return cells


SAME_CELLS = _same_cells()


def _respellings(char: str) -> list[str]:
    """Ways to write ``char`` that the screen shows alike, ignoring case: itself, its
    other cases and case fold, and every character drawn with the same pixels."""
    ways = {char, char.lower(), char.upper(), char.casefold()}
    if _shown(char):
        ways.update(SAME_CELLS[font.glyph(char)])
    return sorted(way for way in ways if way)


@st.composite
def rosters(draw) -> list[str]:
    """A roster as the rule builds it: names added one by one, none like another."""
    roster: list[str] = []
    for name in draw(st.lists(st.text(alphabet=font.chars(), min_size=1, max_size=NAME_MAX),
                              min_size=1, max_size=6)):
        try:
            roster.append(check_name(name, roster))
        except BadName:
            continue
    if not roster:
        roster.append(draw(st.sampled_from(["Ann", KATE, BOB, "\u0417o\u00eb"])))
    return roster


@st.composite
def respelled(draw) -> tuple[list[str], str, str]:
    """(roster, one of its names, another spelling of it, letter by letter)."""
    roster = draw(rosters())
    name = draw(st.sampled_from(roster))
    spelling = "".join(draw(st.sampled_from(_respellings(char))) for char in name)
    return roster, name, spelling


@given(respelled())
@example((["Bob", KATE], KATE, "Kate"))
@example((["Ann"], "Ann", "\u0430NN"))
def test_any_spelling_of_a_roster_name_is_that_name(case):
    roster, name, spelling = case
    assert player_key(spelling) == player_key(name)
    assert roster_name(spelling, roster) == name
    assert roster_name(name, roster) == name  # the roster's spelling finds itself
    try:
        typed = check_name(spelling)
    except BadName:
        return  # a spelling the rule refuses (too long in capitals: ß as SS) is no name
    assert seat_players([typed], roster) == [name]


@given(rosters(), st.lists(st.text(alphabet=font.chars(), min_size=1, max_size=NAME_MAX),
                           min_size=1, max_size=4))
@example([KATE, "Bob"], ["Kate", "bob"])
@example(["Ann"], ["\u00c0nn", "Bob"])
def test_seating_twice_seats_the_same(roster, names):
    try:
        seats = seat_players(names, roster)
    except BadName:
        return
    assert seat_players(seats, roster) == seats
    assert len({player_key(name) for name in seats}) == len(seats)  # one seat a player
    for given_name, seat in zip(names, seats, strict=True):
        assert player_key(seat) == player_key(given_name)
        assert seat in roster or roster_name(seat, roster) is None  # a roster spelling or new


@pytest.mark.parametrize("names", [["Kate", KATE], [KATE, "kate"], ["Kate", "KATE"]])
def test_two_seats_of_one_player_are_refused_in_words(names):
    with pytest.raises(BadName, match="would look like|is the same name as"):
        seat_players(names, [KATE])
    with pytest.raises(BadName, match="would look like|is the same name as"):
        seat_players(names, [])


def test_a_new_name_like_another_roster_name_is_still_refused():
    with pytest.raises(BadName, match="\u00c0nn would look like Ann on the screen"):
        seat_players(["\u00c0nn", "Bob"], ["Ann"])  # the title bar hides the grave


def test_a_roster_name_stored_before_the_rule_is_never_a_seats_spelling():
    """A blank cell in a roster name from before the rule: "Ann" typed is that player,
    seated as typed (the roster's spelling would be refused)."""
    assert seat_players(["Ann"], ["An\x85n"]) == ["Ann"]


# -- every way in ---------------------------------------------------------------------------------


def test_sim_new_with_a_spelling_of_a_roster_name_plays_as_that_player(tmp_path: Path):
    """The bar: with "ΚΑΤΕ" on the roster ``sim --new final-count --players Kate,Bob``
    plays, and the match is ΚΑΤΕ's."""
    state = tmp_path / "state"
    with Store.in_dir(state) as store:
        store.add_player(KATE)
    script = tmp_path / "script.txt"
    script.write_text("ROLL\n")
    done = companion("sim", "--new", "final-count", "--players", "Kate,Bob", "--script",
                     str(script), "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    with Store.in_dir(state) as store:
        match = store.unfinished()
        assert match is not None and match.players == (KATE, "Bob")
        assert store.events(match.id)[0]["player"] == KATE
        assert sorted(store.roster()) == sorted(["Bob", KATE])  # Kate was not added
    done = companion("sim", "--new", "final-count", "--players", f"Kate,{KATE}", "--script",
                     str(script), "--state-dir", str(state))
    assert done.returncode == 2 and "would look like Kate" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_new_over_the_serial_console_seats_the_roster_player(owned):  # noqa: F811
    app = owned()
    ok(app, f"ADD PLAYER {KATE}")
    status = ok(app, "NEW final-count Kate,Bob")
    assert status["players"] == [KATE, "Bob"]
    assert ok(app, "ROLL")["event"]["player"] == KATE
    assert sorted(ok(app, "PLAYERS")) == sorted(["Bob", KATE])
    ok(app, "LEAVE")
    code, message = run(app, f"NEW final-count kate,{KATE}")  # one player, two seats
    assert code == "BADARG" and "would look like" in message
    assert ok(app, "STATUS").get("game") is None
    code, message = run(app, "ADD PLAYER KATE")  # that player is there already
    assert code != "OK" and f"{KATE} is already on the roster" in message


def test_new_from_the_page_seats_the_roster_player(tmp_path: Path):
    device = Device(tmp_path / "state")
    try:
        device.pair()
        assert device.client.post("/api/players", json={"name": KATE}).status_code == 200
        reply = device.client.post("/api/matches", json={
            "game": "final-count", "players": ["Kate", "Bob"]})
        assert reply.status_code == 200, reply.text
        assert reply.json()["players"] == [KATE, "Bob"]
        assert device.state()["players"] == [KATE, "Bob"]
        assert sorted(device.roster()) == sorted(["Bob", KATE])
    finally:
        device.close()


def test_rename_to_another_spelling_of_the_same_player(owned):  # noqa: F811
    app = owned()
    ok(app, "ADD PLAYER Bob")
    ok(app, "ADD PLAYER Ann")
    assert ok(app, f"RENAME PLAYER Bob,{BOB}") == {"renamed": "Bob", "to": BOB}
    assert ok(app, "RENAME PLAYER bob,BOB")["to"] == "BOB"  # found in any spelling
    code, message = run(app, "RENAME PLAYER Ann,bob")  # another player's name
    assert code != "OK" and "BOB is already on the roster" in message
    assert sorted(ok(app, "PLAYERS")) == ["Ann", "BOB"]


# -- import after a rename ------------------------------------------------------------------------


def test_an_own_export_imported_after_a_rename_stores_nothing_twice(tmp_path: Path):
    """The bar: RENAME PLAYER Bob,Вob, then this device's own export goes back in:
    every match is said to be stored already, none refused, nothing stored twice; on
    another device whose roster says Вob the same file is stored, Bob being Вob."""
    state = tmp_path / "a"
    with Store.in_dir(state) as store:
        play_scoreboard(store, random.Random(1), ["Ann", "Bob"])
        play_scoreboard(store, random.Random(2), ["Bob", "Cy"])
        store.rename_player("Bob", BOB)
        play_scoreboard(store, random.Random(3), [BOB, "Ann"])  # as the roster writes him
        assert sorted(store.roster()) == sorted(["Ann", "Cy", BOB])
    text = export_all(state)
    status, out, err = run_import(state, text, tmp_path)
    assert status == 1 and err.count("\n") == 1, err
    assert "3 matches stored already (not imported again); 0 stored" in err
    assert "nothing was imported" not in err and "look like" not in err
    assert out.count("stored already") == 3
    with Store.in_dir(state) as store:
        assert len(store.history()) == 3 and sorted(store.roster()) == sorted(["Ann", "Cy", BOB])
    # A match stored under another uid but the same in everything else: still once.
    copied = re.sub(r'"uid": "[^"]+"', lambda m: m.group(0)[:-1] + '-copy"', text)
    status, out, err = run_import(state, copied, tmp_path)
    assert status == 1 and "3 matches stored already" in err
    # Another device whose roster says Вob: stored, Bob and Вob one player.
    other = tmp_path / "b"
    with Store.in_dir(other) as store:
        store.add_player(BOB)
    status, out, err = run_import(other, text, tmp_path)
    assert status == 0, err
    with Store.in_dir(other) as store:
        assert sorted(store.roster()) == sorted(["Ann", "Cy", BOB])
        shown = figures(store)["players"]
        assert [row["plays"] for name, row in shown.items()
                if player_key(name) == player_key("bob")] == [3]


def test_an_own_export_imported_after_a_rename_to_a_lookalike_refuses_nothing(tmp_path):
    """A rename to a name the title bar draws like the old one ("Ann" to "Ànn") makes
    no past match a lookalike: those matches are stored already and brought no one."""
    state = tmp_path / "a"
    with Store.in_dir(state) as store:
        play_scoreboard(store, random.Random(4), ["Ann", "Bob"])
        store.rename_player("Ann", "\u00c0nn")
    status, _, err = run_import(state, export_all(state), tmp_path)
    assert status == 1 and "1 match stored already (not imported again); 0 stored" in err
    with Store.in_dir(state) as store:
        assert len(store.history()) == 1 and sorted(store.roster()) == ["Bob", "\u00c0nn"]
    # A new match with the old name would put a lookalike on the roster: refused.
    fresh = tmp_path / "b"
    with Store.in_dir(fresh) as store:
        play_scoreboard(store, random.Random(5), ["Ann", "Cy"])
    status, _, err = run_import(state, export_all(fresh), tmp_path)
    assert status == 1 and "Ann would look like \u00c0nn" in err
    assert "nothing was imported" in err


# -- an event's names: the seat's spelling, whatever way it comes in ---------------------------


def test_an_event_from_afar_names_a_seated_player_in_any_spelling(owned):  # noqa: F811
    """Found by attacking issue 35: with the roster's ΚΑΤΕ seated by "Kate", the serial
    console refused ``EVENT {"type": "roll", "player": "Kate"}`` ("'Kate' is not
    playing (players: ΚΑΤΕ, Bob)"): the name locked out by its own lookalike again. An
    event's names are the seats' now, so the draw is the seat's own place too."""
    app = owned()
    ok(app, f"ADD PLAYER {KATE}")
    ok(app, "NEW final-count Kate,Bob")
    rolled = ok(app, 'EVENT {"type": "roll", "player": "kate"}')["event"]
    assert rolled["player"] == KATE
    assert ok(app, "UNDO")["undone"] == rolled
    assert ok(app, "ROLL")["event"] == rolled  # the seat's place: the same face again
    assert ok(app, 'EVENT {"type": "call", "player": "BOB"}')["event"] == {
        "type": "call", "player": "Bob"}
    code, message = run(app, 'EVENT {"type": "roll", "player": "Kat"}')
    assert code == "ILLEGAL" and '"Kat" is not playing' in message  # no one's spelling
    assert [event["player"] for event in app.ctx.store.events(1)] == [KATE, "Bob"]


def test_an_event_from_the_page_names_a_seated_player_in_any_spelling(tmp_path: Path):
    device = Device(tmp_path / "state")
    try:
        device.pair()
        assert device.client.post("/api/players", json={"name": "Zo\u00eb"}).status_code == 200
        reply = device.client.post("/api/matches", json={
            "game": "count-up-21", "players": ["Zo\u00eb", "Bob"]})
        assert reply.status_code == 200, reply.text
        typed = unicodedata.normalize("NFD", "zo\u00eb")  # a phone's keyboard, decomposed
        reply = device.client.post("/api/events", json={
            "event": {"type": "play", "player": typed, "card": 7}})
        assert reply.status_code == 200, reply.text
        assert reply.json()["event"] == {"type": "play", "player": "Zo\u00eb", "card": 7}
    finally:
        device.close()


def test_every_field_that_names_players_takes_any_spelling():
    """Full Counter's starter names players in lists, Final Card-Down's call-out its
    offender: each engine says which fields name players, and each takes a spelling."""
    from test_card_down import go_down_to, started, to_turn_of
    from test_card_down import play as card_down_play
    from test_full_counter import starter

    from companion.games.full_counter import FullCounter
    from companion.names import seated_spellings

    counter = FullCounter(["Ann", "Bob", "Cy"], {"zones": True, "seen_cards": True})
    event = seated_spellings(starter(2, [], ["\u0412ob", "ann"]), counter.player_fields,
                             counter.players)
    assert event["in_hand"] == ["Bob", "Ann"]
    counter.apply(event)
    assert counter.starter == "Ann"  # the first clockwise from the dealer (Cy)
    card_down = started()
    go_down_to(card_down, "Ann", 2)
    to_turn_of(card_down, "Ann")
    card_down.apply(card_down_play("Ann", "0 red clubs"))
    card_down.apply({"type": "forgot", "player": "Ann", "word": "UNO"})
    call = {"type": "call_out", "player": "bob", "offender": "\u0430nn", "word": "UNO"}
    card_down.apply(seated_spellings(call, card_down.player_fields, card_down.players))
    assert card_down.in_hand["Ann"] == 3
    # What names no seated player, and every field no player is named in, stay as typed.
    assert seated_spellings({"type": "token", "token": "all", "player": "Al"},
                            ("player",), ["ALL", "Bob"]) == {
        "type": "token", "token": "all", "player": "Al"}
