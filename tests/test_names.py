"""The one rule for names (companion.names), and every way a name comes in using it: the
store, a new game, the command line, the replay, the serial console."""

import json
import random
import unicodedata

import pytest
from companion_cli import companion
from hypothesis import given
from hypothesis import strategies as st

from companion import font, names, store
from companion.errors import BadName, BadSetup, CompanionError, StoreError
from companion.names import NAME_MAX, check_name, check_players, split_players
from companion.session import Session
from companion.store import Store

# -- the rule ------------------------------------------------------------------------------


def test_a_name_comes_back_clean():
    assert check_name("  Zoë ") == "Zoë"
    assert check_name("Zoe\u0308") == "Zoë"  # e + combining diaeresis: one letter (NFC)
    assert check_name("Mary   Jo") == "Mary Jo"
    assert check_name("Mary\u00a0Jo") == "Mary Jo"  # a no-break space is a space
    assert check_name("x" * NAME_MAX) == "x" * NAME_MAX


@pytest.mark.parametrize(("name", "reason"), [
    ("", "a player needs a name"),
    ("   ", "a player needs a name"),
    ("x" * (NAME_MAX + 1), f"at most {NAME_MAX} characters"),
    ("B" * 37, f"at most {NAME_MAX} characters"),
    ("Ann,Bob", "cannot contain a comma"),
    ("Ann\nBob", "control characters"),
    ("Ann\x1b[2J", "control characters"),
    ("\u202eAnn", "control characters"),      # right-to-left override
    ("Ann\u200f", "control characters"),      # right-to-left mark
    ("An\u200bn", "control characters"),      # zero-width space
    ("An\u200dn", "control characters"),      # zero-width joiner
    ("Ann\u00ad", "control characters"),      # soft hyphen
    ("中文名", "the screen cannot draw '中' (U+4E2D)"),
    ("ﷺﷺﷺ", "the screen cannot draw 'ﷺ' (U+FDFA)"),
    ("Ann ☃", "the screen cannot draw '☃'"),
    ("Ngô Bảo", "the screen cannot draw 'ả'"),
    (42, "a name is text"),
])
def test_what_a_name_cannot_be(name, reason):
    with pytest.raises(BadName) as refused:
        check_name(name)
    assert reason in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("name", ["Łukasz", "Šárka", "Ğülşen", "Σοφία", "Ωμέγα", "Ярослав",
                                  "Жанна Їжак", "O’Brien", "Zoë", "Mary-Jo", "Åsa"])
def test_latin_greek_and_cyrillic_names_are_welcome(name):
    assert check_name(name) == name


@pytest.mark.parametrize(("name", "other"), [
    ("ann", "Ann"),
    ("ÅSA", "åsa"),
    ("Аnn", "Ann"),       # Cyrillic А
    ("аnn", "ann"),       # Cyrillic а
    ("АNN", "ann"),       # Cyrillic А, the rest in capitals
    ("Оlga", "Olga"),     # Cyrillic О
    ("Вob", "Bob"),       # Cyrillic В
    ("Вob", "BOB"),
    ("Αnna", "Anna"),     # Greek Α
    ("Ρeter", "Peter"),   # Cyrillic Р... or Greek Ρ: both draw as P
    ("Peter", "Рeter"),
])
def test_a_name_that_would_look_like_another_is_refused(name, other):
    assert names.looks_like(name, other)
    with pytest.raises(BadName, match="the same name as|would look like") as refused:
        check_name(name, others=["Cy", other])
    assert other in str(refused.value)


@pytest.mark.parametrize(("name", "other"), [
    ("Ann", "Anna"), ("Ivan", "Inan"), ("Zoë", "Zoe"), ("Łukasz", "Lukasz"),
    ("Ярослав", "Ярослава"), ("Σοφία", "Sofia"), ("Jo", "J0"),
])
def test_names_that_look_different_are_both_fine(name, other):
    assert not names.looks_like(name, other)
    assert check_name(name, others=[other]) == name


def test_lookalikes_are_the_same_pixels_on_the_screen():
    """The rule is exact: "would look like" means the screen draws the same cells."""
    assert [font.glyph(c) for c in "Аnn"] == [font.glyph(c) for c in "Ann"]
    assert [font.glyph(c) for c in "Ivan"] != [font.glyph(c) for c in "Inan"]


def test_a_seat_list_is_checked_name_by_name_and_against_itself():
    assert check_players([" Ann", "Zoe\u0308", "Σοφία"]) == ["Ann", "Zoë", "Σοφία"]
    assert check_players([]) == []  # how many players: the game's rule
    with pytest.raises(BadName, match="ann is the same name as Ann"):
        check_players(["Ann", "Bob", "ann"])
    with pytest.raises(BadName, match="would look like Ann"):
        check_players(["Ann", "Аnn"])
    with pytest.raises(BadName, match="list of names"):
        check_players("Ann,Bob")
    with pytest.raises(BadName, match="control"):
        check_players(["Ann", "Bo\u202eb"])


def test_comma_separated_players():
    assert split_players(" Ann , Bob,Cy") == ["Ann", "Bob", "Cy"]
    with pytest.raises(BadName, match="needs a name"):
        split_players("Ann,,Bob")


def test_a_refusal_is_a_typed_companion_error():
    assert issubclass(BadName, BadSetup) and issubclass(BadName, CompanionError)
    assert store.NAME_MAX == names.NAME_MAX == 12


@given(st.text(max_size=20))
def test_any_text_is_a_clean_drawable_name_or_a_refusal(text):
    try:
        clean = check_name(text)
    except BadName as refused:
        assert str(refused) and "\n" not in str(refused)
        return
    assert 1 <= len(clean) <= NAME_MAX
    assert clean == clean.strip() and "," not in clean and "  " not in clean
    assert all(font.drawable(char) for char in clean)
    assert unicodedata.is_normalized("NFC", clean)
    assert check_name(clean) == clean  # checking again changes nothing


@given(st.text(alphabet=font.chars(), min_size=1, max_size=NAME_MAX),
       st.text(alphabet=font.chars(), min_size=1, max_size=NAME_MAX))
def test_two_names_that_pass_together_never_draw_the_same(first, second):
    try:
        seats = check_players([first, second])
    except BadName:
        return
    drawn = [[font.glyph(c) for c in name.casefold()] for name in seats]
    assert drawn[0] != drawn[1]
    assert [font.glyph(c) for c in seats[0]] != [font.glyph(c) for c in seats[1]]


# -- every way in --------------------------------------------------------------------------


@pytest.fixture
def game_log(tmp_path):
    with Store(tmp_path / "companion.db", clock=lambda: 1_700_000_000.0) as log:
        yield log


def test_the_roster_uses_the_rule(game_log):
    game_log.add_player("Ann")
    game_log.add_player(" Zoe\u0308 ")
    for bad, reason in [("Ànn", "would look like Ann"), ("中文名", "cannot draw"),
                        ("Bo\u202eb", "control"), ("", "needs a name"),
                        ("Аnn", "Ann is already on the roster")]:  # a Cyrillic А: Ann
        with pytest.raises(StoreError, match=reason):
            game_log.add_player(bad)
    assert sorted(game_log.roster()) == ["Ann", "Zoë"]
    with pytest.raises(StoreError, match="would look like Ann"):
        game_log.rename_player("Zoë", "Ànn")
    with pytest.raises(StoreError, match="Ann is already on the roster"):
        game_log.rename_player("Zoë", "АNN")  # another player's spelling
    game_log.rename_player("Ann", "ANN")  # the same name in other capitals: fine
    game_log.rename_player("ann", "\u0410nn")  # or other letters drawn alike: fine
    assert sorted(game_log.roster()) == ["Zoë", "\u0410nn"]


def test_a_new_match_in_the_store_uses_the_rule(game_log):
    for players in (["Ann", "Аnn"], ["Ann", "B" * 37], ["Ann", "Bo\u200bb"]):
        with pytest.raises(StoreError, match="the players: "):
            game_log.new_match("final-count", players, {})
    assert game_log.history() == [] and game_log.unfinished() is None


def test_a_new_game_seats_clean_names_or_none(game_log):
    session = Session.start("final-count", [" Zoe\u0308", "Ярослав "], {}, store=game_log)
    assert session.match.players == ("Zoë", "Ярослав")
    assert game_log.match(session.match_id).players == ("Zoë", "Ярослав")
    with pytest.raises(BadName, match="would look like"):
        Session.start("final-count", ["Ann", "Аnn"], {}, store=game_log)
    assert game_log.unfinished().id == session.match_id  # the refused one left nothing


@pytest.mark.parametrize(("players", "reason"), [
    ("Ann,\u202eBob", "control characters"),
    ("Ann," + "B" * 37, "at most 12 characters"),
    ("Ann,,Bob", "needs a name"),
    ("Ann,中文名", "cannot draw '中'"),
    ("Ann,Аnn", "would look like Ann"),
])
def test_sim_new_players_uses_the_rule(tmp_path, players, reason):
    done = companion("sim", "--new", "final-count", "--players", players,
                     "--state-dir", str(tmp_path / "state"))
    assert done.returncode != 0
    assert reason in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_replay_players_uses_the_rule(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"type": "roll", "player": "Ann", "value": 3}) + "\n")
    done = companion("replay", "final-count", "--players", "Ann,Bo\u200fb", "--events",
                     str(log))
    assert done.returncode == 2
    assert "--players: a name cannot contain control characters" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_serial_console_uses_the_rule(game_log):
    from companion.remote import commands

    app = _App(game_log)
    with pytest.raises(commands.RemoteError, match="would look like Ann") as refused:
        commands.run(app, "new_game", "final-count", ["Ann", "Аnn"], {})
    assert refused.value.code == "BADARG"
    assert commands.run(app, "add_player", " Zoe\u0308")["added"] == "Zoë"
    with pytest.raises(commands.RemoteError, match="would look like Zoë"):
        commands.run(app, "add_player", "Zoê")
    with pytest.raises(commands.RemoteError, match="Zoë is already on the roster"):
        commands.run(app, "add_player", "ZОË")  # a Cyrillic О: Zoë herself


class _App:
    """Just enough of the app for the remote commands to reach the store."""

    def __init__(self, log):
        from companion.ui.screen import Context

        self.ctx = Context(rng=random.Random(1), store=log)


# -- as drawn, everywhere (issue 21, item 5) ----------------------------------------------------

#: Every way the screens draw a name: the title bar (a card-entry screen's "Ann's cards"),
#: a body line, a highlighted list row, the hint band.
PLACES = {
    "title": lambda canvas, text: canvas.title(text),
    "line": lambda canvas, text: canvas.line(1, text),
    "highlighted": lambda canvas, text: canvas.line(2, text, invert=True),
    "hint": lambda canvas, text: canvas.hint(text),
}
#: Capitals with marks above them and the letters they could pass for.
MARKED = "AaÀÁÂÃÄÅàäEeÈÉÊËЁЕёеIiÌÍÎÏЇІOoÒÓÔÖöОоNnÑ"


def drawn(name: str, place: str) -> bytes:
    from companion.ui.canvas import Canvas

    canvas = Canvas()
    PLACES[place](canvas, f"{name}'s cards")
    return canvas.image.tobytes()


def test_a_name_whose_accent_the_title_bar_hides_is_a_lookalike():
    assert drawn("Ànn", "title") == drawn("Ann", "title")  # what the bug report saw
    for other in ("Ànn", "Ánn", "Änn", "Ãnn"):  # (Å shows its ring: another name)
        with pytest.raises(BadName, match="would look like Ann"):
            check_name(other, ["Ann"])
    assert check_name("Ànn", ["Bob"]) == "Ànn"


@given(st.text(alphabet=MARKED, min_size=1, max_size=4),
       st.text(alphabet=MARKED, min_size=1, max_size=4))
def test_names_drawn_the_same_anywhere_are_lookalikes(first, second):
    if first.casefold() == second.casefold():
        return
    same = [place for place in PLACES if drawn(first, place) == drawn(second, place)]
    assert not same or names.looks_like(first, second), (first, second, same)


def test_yo_and_yi_keep_their_dots():
    """The small font lost Ё's and Ї's dots (Ё was drawn as Е): they are drawn as Ë and Ï
    now, so "Алёна" and "Алена" are two names on every screen but the title bar's."""
    assert font.glyph("Ё") != font.glyph("Е") and font.glyph("Ё") == font.glyph("Ë")
    assert font.glyph("Ї") != font.glyph("І") and font.glyph("Ї") == font.glyph("Ï")
    for marked in ("Ё", "Ї", "ё", "ї", "Й", "й"):
        base = unicodedata.normalize("NFD", marked)[0]
        assert font.glyph(marked) != font.glyph(base), marked
    assert check_name("Алёна", ["Алена"]) == "Алёна"


@pytest.mark.parametrize(("name", "other"), [
    ("Éric", "Eric"), ("Èva", "Eva"), ("Ëva", "Eva"), ("Ёва", "Ева"), ("José", "Jose"),
])
def test_a_name_one_pixel_from_another_in_the_title_bar_is_a_lookalike(name, other):
    """É, È, Ê, Ë and Ё keep one pixel of their own beside E once the title bar hides
    their marks: "Éric's cards" and "Eric's cards" read the same there (issue 21, 5)."""
    title = [drawn(n, "title") for n in (name, other)]
    apart = sum(bin(a ^ b).count("1") for a, b in zip(*title, strict=True))
    assert 0 < apart <= 1, apart  # a lone pixel
    with pytest.raises(BadName, match=f"would look like {other}"):
        check_name(name, ["Cy", other])
