"""Issue 27 point 3: one name, one player, everywhere. What the screen draws as nothing is
not a letter; one key (companion.names.player_key) says "the same player" in the roster,
import's duplicate check, the figures, the club's league and seasons and the Players
pages; the roster's cap holds for ``sim --new --players`` and import; the set-up's
placeholder seats (P1, P2, P3) are no one."""

from __future__ import annotations

import json
import random
import re
import sqlite3
import unicodedata
from pathlib import Path

import pytest
from companion_cli import companion
from hypothesis import example, given
from hypothesis import strategies as st
from test_import import export_all, play_scoreboard, run_import

from companion import font
from companion.club.seasons import parse_seasons, season_table
from companion.club.web import league
from companion.commands.importer import import_text
from companion.errors import BadName, StoreError
from companion.names import NAME_MAX, check_name, check_players, placeholder_seats, player_key
from companion.remote.web.pages import player_figures, player_page_data
from companion.session import Session
from companion.stats import figures
from companion.store import ROSTER_MAX, Store

# -- what the screen draws as nothing -----------------------------------------------------------

#: Characters with a cell in the font that has no pixel: Latin-1's control codes and
#: no-break space (and the space, which is the gap between words).
BLANK = "".join(char for char in font.chars() if not any(font.glyph(char)))


def test_every_drawable_character_but_the_space_draws_something():
    assert " " in BLANK and "\x85" in BLANK and "\xa0" in BLANK
    for char in font.chars():
        assert font.drawable(char) == (char == " " or any(font.glyph(char))), repr(char)
    assert not any(font.drawable(char) for char in BLANK if char != " ")


def test_i_with_grave_is_drawn_from_the_font_source_not_blank():
    """5x8 has Ѝ and ѝ as empty cells: they come from 6x9, with their grave."""
    for marked, plain in (("Ѝ", "И"), ("ѝ", "и")):
        assert font.drawable(marked) and any(font.glyph(marked))
        assert font.glyph(marked) != font.glyph(plain)
        assert any(font.glyph(marked)[: font.ACCENT_ROWS + 2])  # the grave, above
    assert check_name("Ѝван") == "Ѝван"
    assert check_name("Ѝван", ["Иван"]) == "Ѝван"  # two names: the grave shows


@given(st.text(alphabet=BLANK, min_size=1, max_size=NAME_MAX))
def test_a_name_that_draws_as_nothing_is_refused(text):
    with pytest.raises(BadName):
        check_name(text)


@given(st.text(alphabet="AnnBobЖиЍ", min_size=1, max_size=6), st.integers(0, 6),
       st.sampled_from([char for char in BLANK if not char.isspace()]
                       + ["\u200b", "\u200d", "\u00ad"]))
def test_names_that_differ_only_by_blank_cells_are_one_player(name, where, blank):
    """A roster stored before the rule (a blank cell, a zero-width mark in a name) still
    compares: the cell that draws nothing makes no other player."""
    name = name.strip() or "Ann"
    padded = name[:where] + blank + name[where:]
    assert player_key(padded) == player_key(name)
    with pytest.raises(BadName, match="same name as"):
        check_name(name, [padded])


# -- one key ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("one", "other"), [
    ("Ann", "ann"), ("Ann", " ANN "), ("Ann", "\u0410nn"), ("Bob", "\u0412ob"),
    ("Peter", "\u03a1eter"), ("Åsa", "åsa"), ("Straße", "STRASSE"), ("Mary Jo", "mary  jo"),
])
def test_one_player_in_many_spellings(one, other):
    assert player_key(one) == player_key(other)
    with pytest.raises(BadName, match="same name as|would look like"):
        check_players([one, other])


@pytest.mark.parametrize(("one", "other"), [
    ("Ann", "Anna"), ("Zoë", "Zoe"), ("Алёна", "Алена"), ("Jo", "J0"), ("Ivan", "Inan"),
    ("Ѝван", "Иван"), ("Ànn", "ann"),
])
def test_two_players(one, other):
    assert player_key(one) != player_key(other)


@given(st.text(alphabet=font.chars(), min_size=1, max_size=NAME_MAX),
       st.text(alphabet=font.chars(), min_size=1, max_size=NAME_MAX))
def test_names_seated_together_are_two_players_and_one_spelling_is_one(first, second):
    try:
        seats = check_players([first, second])
    except BadName:
        return
    assert player_key(seats[0]) != player_key(seats[1])
    for name in seats:
        # In capitals letter for letter (ΰ's capital is two characters: not drawn).
        upper = "".join(c.upper() if len(c.upper()) == 1 else c for c in name)
        assert player_key(name) == player_key(name.casefold()) == player_key(upper)
        assert player_key(name) == player_key(f"  {name} ")


@given(st.text(alphabet=font.chars(), min_size=1, max_size=NAME_MAX))
def test_names_drawn_with_the_same_cells_are_one_player(name):
    """The key is the screen's: every character may be swapped for one drawn with the
    same pixels (Cyrillic А for A) and the player is the same."""
    def shown(char: str) -> bool:  # drawn, and no space, control or format code
        return font.drawable(char) and unicodedata.category(char)[0] not in "CZ"

    twins = {}
    for char in filter(shown, font.chars()):
        twins.setdefault(font.glyph(char), []).append(char)
    swapped = "".join(twins[font.glyph(char)][-1] if shown(char) else char for char in name)
    assert player_key(swapped) == player_key(name)


def test_keys_of_long_text_are_not_kept():
    text = "x" * 100_000
    assert player_key(text) == text
    assert player_key(["not", "a", "name"]) == ""  # a broken stored value: no traceback


# -- the key: a name and its case fold are one player (issue 35, item 4) -------------------------


def _capitals(name: str) -> str:
    """``name`` in capitals letter for letter (ŉ's capital is two characters: kept)."""
    return "".join(char.upper() if len(char.upper()) == 1 else char for char in name)


@given(st.text(alphabet=font.chars() + "\u0307\u0259\u02bc", max_size=NAME_MAX))
@example("\u018f")  # Ə: drawn as Cyrillic Ә, folds to Latin ə
@example("\u0130")  # İ: folds to i and a combining dot
@example("\u0149")  # ŉ: folds to ʼn
def test_a_name_in_any_case_is_one_key(name):
    key = player_key(name)
    assert key == player_key(name.casefold()) == player_key(name.lower())
    assert key == player_key(_capitals(name)) == player_key(f" {name}  ")
    assert key == player_key(unicodedata.normalize("NFD", name))


def test_schwa_is_one_player_in_both_cases():
    """The last session's note: "Ə" keyed as Cyrillic ә while "ə" kept the Latin letter."""
    assert player_key("\u018f") == player_key("\u0259") == player_key("\u04d9")
    assert player_key("\u0130") == player_key("i\u0307") != player_key("i")
    assert player_key("\u0149") == player_key("\u02bcn") != player_key("n")
    assert player_key("Stra\u00dfe") == player_key("STRASSE")


# -- import's duplicate check -----------------------------------------------------------------


def test_the_same_match_spelled_otherwise_is_not_stored_twice(tmp_path: Path):
    with Store.in_dir(tmp_path / "a") as source:
        play_scoreboard(source, random.Random(3), ["Ann", "Bob"])
    text = export_all(tmp_path / "a")
    respelled = re.sub(r'"uid": "[^"]+"', '"uid": "copy-1"', text).replace('"Ann"', '"ann"')
    assert respelled != text and '"ann"' in respelled
    with Store.in_dir(tmp_path / "b") as store:
        assert import_text(store, text, lambda line: None) == (1, 0)
        said = []
        assert import_text(store, respelled, said.append) == (0, 1)
        assert "stored already (as match 1)" in said[0]
        assert len(store.history()) == 1 and sorted(store.roster()) == ["Ann", "Bob"]
        assert figures(store)["players"]["Ann"]["plays"] == 1  # counted once


# -- the roster's cap ---------------------------------------------------------------------------


def full_roster(state: Path, count: int = ROSTER_MAX) -> None:
    with Store.in_dir(state) as store:
        for number in range(count):
            store.add_player(f"Pl {number}")


def test_a_full_roster_refuses_two_new_names_from_the_command_line(tmp_path: Path):
    """The bar: on a roster of 200 names ``sim --new --players`` with two new names exits
    2 and adds no one."""
    state = tmp_path / "state"
    full_roster(state)
    script = tmp_path / "script.txt"
    script.write_text("OK\n")
    done = companion("sim", "--new", "final-count", "--players", "Xena,Yuri", "--script",
                     str(script), "--state-dir", str(state))
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "roster is full (200 of 200 names)" in done.stderr and "Xena, Yuri" in done.stderr
    with Store.in_dir(state) as store:
        assert len(store.roster()) == ROSTER_MAX and "Xena" not in store.roster()
        assert store.history() == [] and store.unfinished() is None
    # Names the roster has (in any spelling) are no new names: that game starts.
    done = companion("sim", "--new", "final-count", "--players", "pl 1,PL 2", "--script",
                     str(script), "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    with Store.in_dir(state) as store:
        assert len(store.roster()) == ROSTER_MAX and store.unfinished() is not None


def test_an_import_that_would_overfill_the_roster_imports_nothing(tmp_path: Path):
    with Store.in_dir(tmp_path / "a") as source:
        play_scoreboard(source, random.Random(4), ["Pl 1", "Xena"])
        play_scoreboard(source, random.Random(5), ["Pl 2", "Yuri"])
    text = export_all(tmp_path / "a")
    state = tmp_path / "b"
    full_roster(state, ROSTER_MAX - 1)
    status, _, err = run_import(state, text, tmp_path)
    assert status == 1 and err.count("\n") == 1
    assert "roster is full (200 of 200 names), so Yuri cannot join it" in err
    assert "nothing was imported" in err
    with Store.in_dir(state) as store:
        assert len(store.roster()) == ROSTER_MAX - 1 and store.history() == []


# -- placeholder seats --------------------------------------------------------------------------


def test_placeholder_seats_are_the_set_ups_names_in_seat_order():
    from companion.ui.count_up.table import CountUpSetup
    from companion.ui.play import SetupScreen
    from companion.ui.scoreboard.table import ScoreboardSetup

    for setup in (SetupScreen, CountUpSetup, ScoreboardSetup):
        assert placeholder_seats(setup.default_names)
    assert not placeholder_seats(["P2", "P1"]) and not placeholder_seats(["P1", "Ann"])
    assert not placeholder_seats([])


def test_a_game_played_on_an_empty_roster_adds_no_one(tmp_path: Path):
    """A set-up with nobody on the roster plays as P1, P2, P3: seats, not players."""
    from companion.ui.games import setup_screen
    from companion.ui.screen import Context

    with Store(tmp_path / "companion.db", clock=lambda: 1_700_000_000.0) as store:
        ctx = Context(rng=random.Random(1), store=store)
        setup = setup_screen(ctx, "scoreboard", None)
        setup.press(ctx, _press("roll"))
        match = store.unfinished()
        assert list(match.players) == ["P1", "P2"] and store.roster() == []
        session = Session.resume(store, match.id)
        for event in ({"type": "points", "player": "P1", "points": 5},
                      {"type": "points", "player": "P2", "points": 0}, {"type": "end"}):
            session.apply(event)
        assert store.match(match.id).finished is not None
        play_scoreboard(store, random.Random(6), ["Ann", "P2"])  # a real player beside
        shown = figures(store)
        assert set(shown["players"]) == {"Ann", "P2"}  # "P2" here is a chosen name
        assert shown["games"]["scoreboard"]["plays"] == 2  # the game was played twice
        assert sorted(store.roster()) == ["Ann", "P2"]  # no P1: it only ever held a seat


def _press(button: str):
    from types import SimpleNamespace

    return SimpleNamespace(button=button, long=False)


# -- everywhere the same: season, league, Players page ------------------------------------------


def test_a_season_the_league_and_the_players_page_count_the_same_players(tmp_path: Path):
    """The issue's case: "Ann" at one table, "ann" at another, "Аnn" (a Cyrillic А) at a
    third, and placeholder seats at a fourth."""
    with Store.in_dir(tmp_path) as store:
        store.add_player("Ann")
        for table, (ann, bob) in enumerate([("Ann", "Bob"), ("ann", "Bob"), ("\u0410nn", "bob"),
                                            ("P1", "P2")]):
            store.import_match("scoreboard", [ann, bob], {}, [({"type": "end"}, 1.8e9 + table)],
                               started=1.8e9, finished=1.8e9 + table,
                               result={"over": True, "totals": {ann: 10, bob: 5},
                                       "winners": [ann]},
                               uid=f"t{table}-1", origin=f"t{table}")
        (season,) = season_table(store, parse_seasons("All: 2020-01-01..2030-12-31"))
        seasoned = {player_key(row["name"]): (row["plays"], row["wins"])
                    for row in season["games"][0]["rows"]}
        (game,) = league(figures(store))
        leagued = {player_key(row["name"]): (row["plays"], row["wins"])
                   for row in game["rows"]}
        page = player_figures(store)
        assert seasoned == leagued == {"ann": (3, 3), "bob": (3, 0)}
        assert page["roster_figures"]["Ann"]["plays"] == 3  # not "0 played"
        assert page["roster_figures"]["Ann"]["wins"] == 3
        assert set(page["roster"]) == {"Ann", "Bob"}  # P1 and P2 are no one
        assert player_page_data(store, "ANN")["name"] == "Ann"
        assert len(player_page_data(store, "\u0410nn")["matches"]) == 3


def test_a_roster_and_history_stored_with_ann_and_ann_still_open(tmp_path: Path):
    """Before one key a history could hold "Ann" and "ann", and a roster "Ann" beside
    "Аnn" (a Cyrillic А) or a name with a blank cell: they stay listed (either can go),
    a lookup takes the exact spelling, and the figures count one player."""
    with Store.in_dir(tmp_path) as store:
        play_scoreboard(store, random.Random(7), ["Ann", "Bob"])
    with sqlite3.connect(tmp_path / Store.DEFAULT_NAME) as conn:
        for number, name in enumerate(("\u0410nn", "An\x85n")):
            conn.execute("INSERT INTO players (name, added, last_used) VALUES (?, ?, NULL)",
                         (name, number))
    with Store.in_dir(tmp_path) as store:
        play_scoreboard(store, random.Random(8), ["ann", "Bob"])
        assert sorted(store.roster()) == sorted(["An\x85n", "Ann", "Bob", "\u0410nn"])
        assert sorted(figures(store)["players"]) == ["Bob", "ann"]  # as last spelt
        page = player_figures(store)
        assert page["roster_figures"]["Ann"] == page["roster_figures"]["\u0410nn"]
        assert page["roster_figures"]["Ann"]["plays"] == 2
        assert page["roster_figures"]["An\x85n"]["plays"] == 2
        store.remove_player("\u0410nn")  # that one, not the Latin Ann
        assert sorted(store.roster()) == sorted(["An\x85n", "Ann", "Bob"])
        with pytest.raises(StoreError, match="Ann is already on the roster"):
            store.add_player("ANN")
    done = companion("stats", "--state-dir", str(tmp_path), "--player", "ANN", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["players"]["ann"]["plays"] == 2
