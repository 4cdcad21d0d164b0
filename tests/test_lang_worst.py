"""The worst values the device allows, as `companion lang-check` fills a message with
them (issue 38.2), and the checks it runs on each translation besides its fit: no
player's gender made up (38.1), no plural forms glued together by hand (38.3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion import font, lang, names
from companion.commands import agreement, worst
from companion.commands.langcheck import check_language, filled
from companion.ui.canvas import CHAR_W

ROOT = Path(__file__).resolve().parent.parent


def _ink_width(char: str) -> int:
    columns = 0
    for row in font.glyph(char):
        columns |= row
    lit = [x for x in range(font.CELL_W) if columns & (0x80 >> x)]
    return lit[-1] - lit[0] + 1


@pytest.mark.parametrize("code", lang.LANGUAGES)
def test_a_name_is_as_long_as_the_roster_allows_in_the_widest_letters(code):
    seated = worst.long_names(code)
    assert len(seated) == 10 and all(len(name) == names.NAME_MAX for name in seated)
    assert names.check_players(list(seated)) == list(seated)  # the name rule seats them
    letters = worst.widest_letters(code)
    alphabet = [char for char in worst.ALPHABETS[code] if font.drawable(char)]
    assert _ink_width(letters[0]) == max(_ink_width(char) for char in alphabet)
    assert set(seated[0]) == {letters[0]}
    assert worst.worst_values(code)["name"] == seated[0]


def test_the_names_are_written_in_the_tables_own_alphabet():
    assert all("А" <= char <= "я" for char in worst.worst_values("ru")["name"])
    assert worst.worst_values("en")["name"].isascii()


def test_the_numbers_come_from_where_the_games_set_their_limits():
    from companion.games import block_lottery, scoreboard
    from companion.table.dice import DiceCup

    values = worst.worst_values("en")
    assert values["target"] == str(scoreboard.TARGET_LIMIT)
    assert values["prizes"] == " ".join([str(block_lottery.MAX_PRIZE)] * block_lottery.SPACES)
    assert values["dice"] == str(DiceCup.MAX_DICE)
    assert values["card"] == "20 Nuclear Blast"     # the deck's largest number, longest role
    assert worst.filled_with({"n", "unheard_of"}, values) == {"n": "99", "unheard_of": "99"}


def test_the_fixed_advance_leaves_every_letter_the_same_room():
    """Today the font advances 6 pixels a letter (the letters are picked by their ink all
    the same, for a font that advances by width)."""
    assert len(filled("{name}")) * CHAR_W == names.NAME_MAX * 6


def test_lang_check_json_says_what_it_filled_and_walks_the_screens():
    done = subprocess.run([sys.executable, "-m", "companion", "lang-check", "--json",
                           "--language", "ru", "--steps", "60"],
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    report = json.loads(done.stdout)["languages"]["ru"]
    assert report["filled"]["name"] == worst.long_names("ru")[0]
    assert report["filled"]["prizes"] == "99 99 99"
    assert {"cuts", "overlaps", "overflows", "gender"} <= set(report)
    walked = [problem for problem in report["problems"] if problem["context"] is None
              and problem["problem"] in ("cut", "overlap", "overflow")]
    assert report["cuts"] == sum(problem["problem"] == "cut" for problem in walked)


def _catalog(tmp_path: Path, monkeypatch, pairs: list[tuple[str, str, str]]) -> dict:
    """check_language of a made-up language "xx" holding ``pairs`` (context, English,
    translation)."""
    import companion.commands.langcheck as langcheck

    pot, po = ['msgid ""\nmsgstr ""\n'], ['msgid ""\nmsgstr "Plural-Forms: nplurals=2; '
                                          'plural=(n != 1);\\n"\n']
    for context, english, translation in pairs:
        head = f'msgctxt "{context}"\n' if context else ""
        pot.append(f'{head}msgid "{english}"\nmsgstr ""\n')
        po.append(f'{head}msgid "{english}"\nmsgstr "{translation}"\n')
    (tmp_path / "t.pot").write_text("\n".join(pot), encoding="utf-8")
    (tmp_path / "xx.po").write_text("\n".join(po), encoding="utf-8")
    monkeypatch.setattr(langcheck, "TEMPLATE", tmp_path / "t.pot")
    monkeypatch.setattr(langcheck, "catalog_file", lambda code: tmp_path / "xx.po")
    return check_language("xx")


def test_a_translation_too_long_beside_a_long_name_is_found(tmp_path, monkeypatch):
    """Five letters fitted: the roster's twelve do not ("Bartholomeus gewinnt 4-2")."""
    report = _catalog(tmp_path, monkeypatch,
                      [("screen 21", "{winner} won {tricks}", "{winner} gewinnt {tricks}")])
    assert report["overflows"] == 1
    assert len("Marta gewinnt 99") <= 21 < len(filled("{winner} gewinnt {tricks}"))


def test_plural_forms_glued_by_hand_are_a_problem(tmp_path, monkeypatch):
    report = _catalog(tmp_path, monkeypatch, [
        (None, "{n} commands wait", "{n} команда ждёт ||| {n} команды ждут ||| {n} команд")])
    assert [problem["problem"] for problem in report["problems"]] == ["plurals"]


def test_no_catalog_glues_plural_forms():
    from companion.commands.langcheck import GLUE, catalog_file

    for code in lang.LANGUAGES[1:]:
        assert GLUE not in catalog_file(code).read_text(encoding="utf-8"), code


# -- the gender of a player (38.1) ----------------------------------------------------------


@pytest.mark.parametrize(("code", "text", "forms"), [
    ("ru", "{name} бросил {value}", ["бросил"]),
    ("ru", "Партию взял {winner}", ["взял"]),
    ("ru", "{name} вышла", ["вышла"]),
    ("pl", "{name} powiedział {word}", ["powiedział"]),
    ("pl", "Zakończył(a): {name}", ["zakończył"]),
    ("pl", "{name} była pierwsza", ["była", "pierwsza"]),
    ("fr", "{name} est sorti", ["est sorti"]),
    ("fr", "{name} est déjà sortie", ["est déjà sortie"]),
    ("it", "{name} è già inserito", ["è già inserito"]),
    ("it", "{player} si è scordato di dire {word}", ["si è scordato"]),
    # One step beside a past tense: adjectives, short participles, role nouns.
    ("ru", "{name} ходит первым", ["первым"]),
    ("ru", "Первым ходит {name}", ["первым"]),
    ("ru", "{name} готов", ["готов"]),
    ("ru", "Победитель: {name}", ["победитель"]),
    ("pl", "{name} jest gotowy", ["gotowy"]),
    ("pl", "Zwycięzca: {name}", ["zwycięzca"]),
    ("fr", "{name} est prêt", ["est prêt"]),      # listed, and never found before
    ("fr", "{name} prêt?", ["prêt"]),
    ("fr", "{name} est le premier", ["est le premier"]),
    ("fr", "Donneur\u202f: {name}", ["donneur"]),
    ("fr", "{name} s’est trompé", ["s’est trompé"]),
    ("it", "{name} è pronto", ["è pronto"]),
    ("it", "{name} pronto?", ["pronto"]),
    ("it", "{name} è il primo", ["è il primo"]),
    ("it", "Vincitore: {name}", ["vincitore"]),
    # The player called out for not saying the word is a person too.
    ("ru", "Поймали: {offender} забыл сказать {word}", ["забыл"]),
    ("fr", "{offender} est pris", ["est pris"]),
])
def test_a_form_that_agrees_with_one_gender_beside_a_player_is_found(code, text, forms):
    assert agreement.gendered(code, text) == forms


@pytest.mark.parametrize(("code", "text"), [
    ("ru", "{name}: выход"),
    ("ru", "{name}: бросок {value}"),
    ("ru", "выпало {value}, ходит {name}"),       # neuter: the die, not the player
    ("ru", "{name} берёт стол"),                   # стол is the Board, not a verb
    ("ru", "сначала {name}"),
    ("pl", "{name}: wypadło {value}"),
    ("pl", "Stół: {name}"),
    ("fr", "{name} : sortie"),
    ("fr", "{name} a gagné"),                      # avoir's participle does not agree
    ("fr", "la partie ({names}) sera proposée"),   # the subject is the game
    ("it", "{name} è fuori"),
    ("it", "il round è inserito a metà: si aspetta {names}"),
    ("de", "{name} ist raus"),                     # a language the check does not know
    # The same words where they agree with a noun, not with the player.
    ("ru", "Последний кубик: {name}"),
    ("ru", "{name}: последний бросок"),
    ("pl", "{name}: ostatni rzut"),
    ("pl", "{player} puka: ostatnia kolejka"),
    ("fr", "{name} a posé sa dernière carte"),
    ("it", "{name}: ultimo tiro"),
    ("it", "{name} sceglie prima un colore"),
])
def test_a_sentence_phrased_around_the_player_passes(code, text):
    assert agreement.gendered(code, text) == []


@pytest.mark.parametrize(("code", "english", "label", "forms"), [
    ("ru", "Dealer", "Сдающий", ["сдающий"]),
    ("ru", "Dealer", "Сдаёт", []),
    ("it", "Winner", "Vincitore", ["vincitore"]),
    ("it", "Winner", "Vittoria", []),
    ("pl", "Next", "Następny", ["następny"]),
    ("fr", "Next", "Ensuite", []),
])
def test_a_label_beside_a_players_name_is_checked_with_the_name(code, english, label, forms):
    """The pages' facts ("Dealer" | "Ann") and the word over the winner's name: a
    label with no placeholder, drawn beside a player all the same."""
    assert agreement.gendered(code, label, english) == forms


def test_each_label_beside_a_name_is_a_message_the_code_has():
    from companion.commands.langcheck import template

    english = {entry.msgid for entry in template()}
    assert agreement.PERSON_LABELS <= english


def test_a_gender_made_up_is_a_lang_check_problem(tmp_path, monkeypatch):
    import companion.commands.langcheck as langcheck

    monkeypatch.setattr(langcheck, "catalog_file", lambda code: tmp_path / "xx.po")
    report = _catalog(tmp_path, monkeypatch, [("screen 21", "{name} went out", "{name} вышел")])
    assert report["gender"] == 0  # "xx" is no language the check knows forms of
    catalog = (tmp_path / "xx.po").read_text(encoding="utf-8")
    (tmp_path / "ru.po").write_text(catalog, encoding="utf-8")
    monkeypatch.setattr(langcheck, "catalog_file", lambda code: tmp_path / f"{code}.po")
    report = check_language("ru")
    assert report["gender"] == 1
    assert report["problems"][0]["detail"].startswith("'вышел'")


def test_each_narrower_place_names_a_message_the_code_has():
    """A message filled at less than its placeholder's worst (a prize space's points)
    is one the template holds, with the placeholders it narrows."""
    from companion.commands.langcheck import fields, template
    from companion.games import GAMES
    from companion.ui.games import game_screens

    english = {entry.msgid for entry in template()}
    places = {message: values for info in GAMES
              for message, values in game_screens(info.game_id).narrower.items()}
    assert places  # the games name some
    for message, values in places.items():
        assert worst.narrower(message) == values
        assert message in english, message
        assert set(values) <= fields(message)
        general = worst.worst_values("en")
        # Narrower: a smaller number, or a shorter word ({game}: the games counted in
        # hands, not every game).
        assert all(int(value) < int(general.get(name, worst.DEFAULT_VALUE))
                   if value.isdigit() else len(value) < len(general[name])
                   for name, value in values.items())


@pytest.mark.parametrize(("rule", "forms", "problems"), [
    # German's form 0 is said for 1 alone: "eine Karte" may say the number in words.
    ("nplurals=2; plural=(n != 1);", ["eine Karte", "{n} Karten"], []),
    # French says 0 with the form of 1: "une carte" would read "une carte" for none.
    ("nplurals=2; plural=(n > 1);", ["une carte", "{n} cartes"], ["placeholders"]),
    # Russian says 21 and 101 with the form of 1: "одна карта" for 21 cards.
    ("nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
     "(n%100<10 || n%100>=20) ? 1 : 2);", ["одна карта", "{n} карты", "{n} карт"],
     ["placeholders"]),
])
def test_only_a_form_said_for_one_alone_may_leave_the_number_out(tmp_path, monkeypatch, rule,
                                                                 forms, problems):
    import companion.commands.langcheck as langcheck

    strings = "".join(f'msgstr[{index}] "{text}"\n' for index, text in enumerate(forms))
    (tmp_path / "t.pot").write_text('msgid ""\nmsgstr ""\n\nmsgid "{n} card"\n'
                                    'msgid_plural "{n} cards"\nmsgstr[0] ""\nmsgstr[1] ""\n',
                                    encoding="utf-8")
    (tmp_path / "xx.po").write_text(f'msgid ""\nmsgstr "Plural-Forms: {rule}\\n"\n\n'
                                    'msgid "{n} card"\nmsgid_plural "{n} cards"\n' + strings,
                                    encoding="utf-8")
    monkeypatch.setattr(langcheck, "TEMPLATE", tmp_path / "t.pot")
    monkeypatch.setattr(langcheck, "catalog_file", lambda code: tmp_path / "xx.po")
    report = check_language("xx")
    assert [problem["problem"] for problem in report["problems"]] == problems


def test_the_words_a_placeholder_stands_for_are_filled_at_their_longest():
    """{game}, {colour} and {suit} are words, not numbers: each filled with the longest
    the language says ("Final Card-Down", the French Scoreboard, "morado corazones")."""
    assert worst.worst_values("en")["game"] == "Final Card-Down"
    assert worst.worst_values("fr")["game"] == "Feuille de score"  # the Scoreboard's name
    assert worst.worst_values("es")["colour"] == "morado"
    assert worst.worst_values("es")["suit"] == "corazones"
    assert worst.worst_values("ru")["suit"] == "вопросы"


@pytest.mark.parametrize("code", lang.LANGUAGES)
def test_resuming_the_longest_game_never_cuts_its_row_and_names_it(tmp_path, code):
    """"Resume Final Card-Down" is 22 letters in English, 26 in German: the row says
    "Resume" then, and the game's name is the title."""
    import random

    from companion.store import Store
    from companion.ui.resume import unfinished_first
    from companion.ui.screen import Context, Menu

    with Store.in_dir(tmp_path) as store:
        store.new_match("card-down", list(worst.long_names(code, 3)), {})
        ctx = Context(rng=random.Random(1), store=store)
        lang.use(code)
        try:
            menu = unfinished_first(ctx, Menu("Home", []), lambda: None)
            rows = [str(item.label) for item in menu.items]
        finally:
            lang.use("en")
    assert all(len(row) <= 21 for row in rows) and len(str(menu.title)) <= 21
    assert "Final Card-Down" in str(menu.title) + rows[0]


@pytest.mark.parametrize("code", lang.LANGUAGES)
def test_the_top_card_line_of_the_card_picker_is_never_cut(code):
    """"sobre F morado corazones" is 24 letters: the card alone then ("F morado
    corazones"), its value, colour and suit all said."""
    from companion.games import card_down as rules
    from companion.ui.card_down.turns import _on_card

    lang.use(code)
    try:
        for value in rules.VALUES:
            for colour in rules.COLOURS:
                for suit in rules.SUITS:
                    line = _on_card(rules.Card(value, colour, suit))
                    whole = lang.pgettext("screen 21 (if it fits)",
                                          "on {value} {colour} {suit}").format(
                        value=value, colour=rules.colour_word(colour),
                        suit=rules.suit_word(suit))
                    assert line in (whole, rules.card_words(value, colour, suit)), line
                    assert len(line) <= 21, line
    finally:
        lang.use("en")
