"""The places the translators asked for (issue 38): each screen gives a translation the
room its honest word needs where the layout has it, or a longer form tried first
("(if it fits)") with the short one after it, and English draws as before.

Every screen here is drawn through the screen inspector: what it says, and that nothing
is cut, off the panel or touching.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from companion import lang
from companion.commands.inspect import Inspector, long_names
from companion.session import Session
from companion.ui.games import table_screen
from companion.ui.screen import Context, Menu


@pytest.fixture
def speak():
    """``speak(code)`` speaks a language for the test; English again afterwards."""
    yield lang.use
    lang.use("en")


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


def drawn(screen) -> list[str]:
    """Every text ``screen`` draws, in order; it fails on anything cut, off the panel
    or touching."""
    with Inspector() as inspector:
        problems = inspector.check(screen)
        texts = inspector.texts()
    assert problems == [], problems
    return texts


def table(game: str, names, **options):
    session = Session.start(game, list(names), options)
    return session, table_screen(session, Menu("Home", []))


# -- the Scoreboard's target when the lowest wins ----------------------------------------------


@pytest.mark.parametrize(("code", "target", "right"), [
    ("en", 99999, "to 99999 low"),
    ("ru", 100, "до 100, мин."),        # the whole phrase where the title leaves room
    ("ru", 99999, "до 99999"),          # 14 columns do not fit beside "Раунд 1": the target
    ("pl", 500, "do 500, min."),
])
def test_a_low_target_says_low_where_the_title_leaves_room(speak, code, target, right):
    speak(code)
    _, screen = table("scoreboard", ["Ann", "Bob"], target=target, low_wins=True)
    assert drawn(screen)[1] == right


# -- Block Lottery: a player's dice, ALL, a prize space's points --------------------------------


def _all_dice_taken(names):
    """A round whose 15 dice all went to the first player (the last take ends it)."""
    session, screen = table("block-lottery", names)
    session.apply({"type": "pool", "faces": [1] * 15})
    for _ in range(15):
        session.apply({"type": "take", "player": names[0], "face": 1})
    return session, screen


def test_fifteen_dice_are_said_whole_beside_a_long_name(speak):
    """"15 dados", "15 kości": 8 columns beside a name of 12 letters, in the re-rolls'
    list and in the menu of who takes a die."""
    for code, said in (("es", "15 dados"), ("pl", "15 kości"), ("en", "15 dice")):
        speak(code)
        names = long_names(code)[:3]
        session, screen = _all_dice_taken(names)
        ctx = Context(rng=random.Random(1))
        rerolls = screen.route(ctx).press(ctx, press("ok"))
        assert f"{names[0]} {said}" in drawn(rerolls)
        session, screen = table("block-lottery", names)
        session.apply({"type": "pool", "faces": [1] * 15})
        for _ in range(14):
            session.apply({"type": "take", "player": names[0], "face": 1})
        menu = screen.route(ctx)._who_takes(ctx)
        rows = [text.split() for text in drawn(menu)]     # the note is flush right
        assert [names[0], *said.replace("15", "14").split()] in rows


def test_the_all_token_has_five_letters_in_its_prize_space(speak):
    speak("pl")
    names = long_names("pl")[:3]
    session, screen = _all_dice_taken(names)
    session.apply({"type": "token", "token": "ALL"})
    texts = drawn(screen.route(Context(rng=random.Random(1))))
    assert "KAŻDA" in texts and "1 pkt" in texts


def test_a_prize_space_is_measured_at_one_prize_not_three():
    """The points under a prize space are one prize's (99 at most), so lang-check fills
    them so; the points a hand wins elsewhere are three prizes' (297)."""
    from companion.commands.langcheck import filled

    assert filled("{points} pkt", "pl", "{points} pt") == "99 pkt"
    assert filled("{points} pkt", "pl") == "297 pkt"
    assert filled("mecz {first}-{second}", "pl", "games {first}-{second}") == "mecz 9-9"


# -- Count Up 21's title, Card-Down's draw pile ------------------------------------------------


def test_count_ups_title_has_nine_columns_for_the_game(speak):
    """"Partie 17" beside "match 8-8": the longest match (9 games to win) is 17 games."""
    from companion.games import count_up

    for code, title, score in (("fr", "Partie 17", "match 8-8"), ("pl", "Partia 17", "mecz 8-8"),
                               ("en", "Game 17", "games 8-8")):
        speak(code)
        names = long_names(code)[:2]
        session, screen = table("count-up-21", names, games_to_win=count_up.MAX_GAMES_TO_WIN)
        session.match.game_number = 17
        session.match.totals = dict.fromkeys(names, 8)
        assert drawn(screen)[:2] == [title, score]


def test_card_downs_draw_pile_is_said_whole_beside_a_short_name(speak):
    import test_card_down as rules

    speak("ru")
    for names, right in ((["Аня", "Оля", "Юра"], "колода {n}"),
                         (list(long_names("ru")[:3]), "кол. {n}")):
        session, screen = table("card-down", names)
        session.apply({"type": "turn_up", "card": rules.card("7 red hearts")})
        pile = session.match.state()["draw_pile"]
        texts = drawn(screen.route(Context()))
        assert texts[:2] == [session.match.state()["current"], right.format(n=pile)]


# -- Final Count: the marks whole, who called ------------------------------------------------


def _hand_result(names, caller, bust, winner):
    """The first hand's result: ``bust`` draws three cards more (a roll of 1) and goes
    over 75, ``winner`` has the best total, ``caller`` calls as soon as the rules let."""
    from companion.ui.final_count.table import HandResult

    session, screen = table("final-count", names)
    match = session.match
    drawn_more = 0
    while match.state()["phase"] == "play":
        expect = match.expecting()
        if expect.player == caller and "call" in expect.types and drawn_more == 3:
            session.apply({"type": "call", "player": caller})
            continue
        more = expect.player == bust and drawn_more < 3
        drawn_more += more
        session.apply({"type": "roll", "player": expect.player, "value": 1 if more else 5})
    session.apply({"type": "board", "cards": ["K", "K"]})
    hands = {name: ["2", "3", "4"] for name in names}
    hands[bust], hands[winner] = ["K", "Q", "J", "10", "9", "8"], ["K", "Q", "A"]
    for name, cards in hands.items():
        session.apply({"type": "hand", "player": name, "cards": cards})
    return HandResult(screen, 0)


def test_a_hands_marks_are_whole_words_where_the_names_leave_room(speak):
    speak("ru")
    short = ["Аня", "Оля", "Юра"]
    texts = drawn(_hand_result(short, caller="Юра", bust="Аня", winner="Оля"))
    assert any("ПЕРЕБОР" in text for text in texts) and any("ПОБЕДА" in text for text in texts)
    names = list(long_names("ru")[:3])
    texts = drawn(_hand_result(names, caller=names[2], bust=names[0], winner=names[1]))
    assert not any("ПЕРЕБОР" in text or "ПОБЕДА" in text for text in texts)
    speak("en")
    texts = drawn(_hand_result(["Ann", "Bob", "Cy"], caller="Cy", bust="Ann", winner="Bob"))
    assert any(text.startswith("Ann ") and "BUST" in text for text in texts)


def test_who_called_is_said_whole_beside_a_short_name(speak):
    speak("es")
    for names, said in ((["Ana", "Eva", "Luz"], "Ana se plantó"),
                        (list(long_names("es")[:3]), "Plante: {name}")):
        session, screen = table("final-count", names)
        match = session.match
        while match.expecting().player != names[0] or "call" not in match.expecting().types:
            session.apply({"type": "roll", "player": match.expecting().player, "value": 5})
        session.apply({"type": "roll", "player": names[0], "value": 5})
        session.apply({"type": "call", "player": names[0]})
        texts = drawn(screen.route(Context(rng=random.Random(1))))
        assert said.format(name=names[0]) in texts, texts


# -- the counts on two lines, the score page's first line ----------------------------------------


def test_full_counters_pile_and_deck_take_two_lines_in_german(speak):
    speak("de")
    names = long_names("de")[:3]
    session, screen = table("full-counter", names)
    ctx = Context(rng=random.Random(1))
    screen.apply(ctx, {"type": "starter", "value": 2, "face_up": [names[0]]})
    state = session.match.state()
    texts = drawn(screen.route(ctx))
    assert f"Stapel {state['pile']}" in texts and f"Deck {state['deck']}" in texts
    speak("en")
    assert f"pile {state['pile']} dk {state['deck']}" in drawn(screen.route(ctx))


def test_the_lucky_score_page_gives_cards_and_dice_the_whole_first_line(speak):
    import test_block_lottery as rules

    for code, line in (("de", "Karten 8 Würfel 15"), ("en", "Cards 8 Dice 15")):
        speak(code)
        names = long_names(code)[:2]
        session, screen = table("block-lottery", names, lucky_card_bonus=True)
        session.apply({"type": "pool", "faces": [1] * 15})
        for _ in range(15):
            session.apply({"type": "take", "player": names[0], "face": 1})
        for token in ("ALL", "3", "NONE"):
            session.apply({"type": "token", "token": token})
        for name in names:  # the 12 cards dealt, all laid in blocks
            session.apply(rules.score(name, 8 if name == names[0] else 4, 0, lucky=0))
        ctx = Context(rng=random.Random(1))
        page = screen.route(ctx)
        seen = []
        for _ in range(4):
            seen += drawn(page)
            page = page.press(ctx, press("down"))
        assert line in seen, seen


# -- how many games, how many seats ----------------------------------------------------------


def test_how_many_games_and_seats_are_said_whole_beside_the_title(speak):
    from companion.ui.tools import FirstPlayer

    speak("es")
    seats = FirstPlayer()
    assert drawn(seats)[1] == "4 sitios"
    seats.players = 10
    assert drawn(seats)[1] == "10 jug."      # beside "¿Quién sale?" the short form
    speak("en")
    assert drawn(seats)[1] == "10 seats"


def test_a_match_over_says_its_games_in_words(speak):
    from companion.ui.play import MatchOverScreen

    screen = MatchOverScreen.__new__(MatchOverScreen)
    for code, games, said in (("es", 12, "12 juegos"), ("de", 3, "3 Spiele"),
                              ("en", 12, "12 games")):
        speak(code)
        assert screen.title_right({"games": [{}] * games}) == said


# -- a menu's highlighted row and an accent under it -----------------------------------------


def test_an_accented_capital_under_the_highlighted_row_stays_off_its_bar(speak):
    """Card-Down's colours in Spanish: "Verde" highlighted over "Ámbar"."""
    import test_card_down as rules

    from companion.games import card_down
    from companion.ui.card_down.turns import ColourMenu

    speak("es")
    session, screen = table("card-down", ["Ana", "Eva", "Luz"])
    session.apply({"type": "turn_up", "card": rules.card("7 red hearts")})
    menu = ColourMenu(screen)
    menu.selected = card_down.COLOURS.index("green")
    texts = drawn(menu)
    assert texts.index("Verde") < texts.index("Ámbar")


def test_four_menu_rows_end_above_the_hint_line():
    from companion.ui.canvas import HINT_Y
    from companion.ui.screen import MenuItem

    menu = Menu("Tools", [MenuItem(f"Row {n}", lambda ctx, menu: None) for n in range(6)])
    menu.selected = 3
    picture = menu.render()
    bar = [y for y in range(HINT_Y) if picture.getpixel((127, y))]
    assert bar and bar[-1] < HINT_Y - 1          # a blank row between it and the hint
    assert [text for text in drawn(menu) if text.startswith("Row")][-1] == "Row 3"


# -- French: a narrow no-break space before : ; ? ! ------------------------------------------


def test_a_no_break_space_keeps_its_words_on_one_line():
    from companion.ui.screen import folded, wrap

    text = "Ann\u202f: sortie, Bob\u00a0: encore une carte"
    lines = wrap(text, 10)
    assert lines == ["Ann\u202f:", "sortie,", "Bob\u00a0:", "encore une", "carte"]
    assert not any(line.startswith(":") for line in lines)
    assert folded("Prête\u202f?\nOK") == ["Prête\u202f?", "OK"]


def test_the_font_draws_a_no_break_space_as_the_space():
    from companion import font
    from companion.commands.langcheck import undrawable
    from companion.ui.canvas import Canvas

    for space in ("\u00a0", "\u202f"):
        assert font.glyph(space) == font.glyph(" ")
        assert undrawable(f"Ann{space}: sortie") == []
        spaced, plain = Canvas(), Canvas()
        spaced.text(1, 20, f"Ann{space}:")
        plain.text(1, 20, "Ann :")
        assert spaced.image.tobytes() == plain.image.tobytes()
    assert undrawable("Ann\u2009:") == ["\u2009"]    # a thin space the font has not


def test_lang_check_measures_a_no_break_phrase_as_one_word():
    from companion.commands.langcheck import Place

    assert Place(6, 2).overflow("Ann\u202f: sortie") is None
    assert "longer than a line" in Place(4, 2).overflow("Ann\u202f: sortie")


# -- the walk stays in its language --------------------------------------------------------


def test_a_walk_through_settings_language_stays_in_its_own(speak):
    """Choosing Deutsch under Settings > Language during a French walk: the walk speaks
    French again at once, so what it meets is filed under French."""
    from companion.commands.inspect import Walk
    from companion.ui.language import language_menu

    speak("fr")
    with Inspector() as inspector:
        walk = Walk(inspector, seed=1)
        menu = language_menu(Context(), Menu("Réglages", []))
        menu.selected = lang.LANGUAGES.index("de")
        walk.rng.choice = lambda presses: ("ok", False)      # OK on Deutsch, every time
        walk.run(menu, 3)
    assert walk.language == "fr" == lang.current()
    assert walk.seen == {"Menu"}


# -- the pages: Card-Down's colours and suits, "Game" ----------------------------------------


def test_the_page_says_card_downs_colours_and_suits_in_words(speak):
    import test_card_down as rules

    from companion.remote.web import views
    from companion.ui import pads

    speak("es")
    card = rules.card("7 blue spades")
    assert views.event_words({"type": "play", "player": "Jo", "card": card}) == \
        "Jo jugó 7 azul picas"
    assert "ámbar" in views.event_words({"type": "colour", "player": "Jo", "colour": "yellow"})
    match = rules.started(top="7 blue spades")
    facts = {fact["label"]: fact["text"] for fact in match.context()["facts"]}
    assert facts["Juego"] == "1"            # the game's number in the match
    assert "7 azul picas" in facts.values()
    colour = next(field for pad in pads.pads(match) if pad["type"] == "play"
                  for field in pad["fields"] if field["name"] == "card.colour")
    assert colour["names"]["yellow"] == "ámbar" and "yellow" in colour["values"]
    speak("en")
    assert views.event_words({"type": "play", "player": "Jo", "card": card}) == \
        "Jo played 7 blue spades"


def test_a_games_number_and_the_game_field_are_two_words(speak):
    """Polish: "Gra" is which game (the history's filter), "Partia" a game's number in
    the match (the live page's facts, the score sheet's heading)."""
    from companion.remote.web import views

    speak("pl")
    match = Session.start("count-up-21", ["Ann", "Bob"], {}).match
    labels = [fact["label"] for fact in match.context()["facts"]]
    assert labels[0] == "Partia" and views.sheet_word("game") == "Partia"
    assert lang.gettext("Game") == "Gra"
    speak("fr")
    assert lang.gettext("Game") == "Jeu" and views.sheet_word("game") == "Partie"


def test_a_config_before_the_command_gives_help_its_language(tmp_path, capsys):
    from companion.cli import main

    config = tmp_path / "config.toml"
    config.write_text('[ui]\nlanguage = "de"\n', encoding="utf-8")
    try:
        assert main(["--config", str(config), "--help"]) == 0
        assert "Optionen" in capsys.readouterr().out
        assert main(["--config", str(config), "config"]) == 0
        assert f"# aus {config}" in capsys.readouterr().out
    finally:
        lang.use("en")
