"""What each screen says, said whole in every language with names of the roster's
longest (issue 38.2 and 38.3): the code gives a long name another way (a shorter form,
the name alone) and never drops a score, a result or the count it stands beside."""

from __future__ import annotations

import random
import re

import pytest

from companion import lang
from companion.commands.inspect import Inspector, long_names
from companion.lang import npgettext, pgettext
from companion.session import Session
from companion.ui.games import table_screen
from companion.ui.screen import Context, Menu

TRANSLATED = tuple(code for code in lang.LANGUAGES if code != "en")


@pytest.fixture(params=lang.LANGUAGES)
def spoken(request):
    lang.use(request.param)
    yield request.param
    lang.use("en")


def drawn(screen) -> tuple[list[str], list]:
    """(every text drawn, the problems) of ``screen``."""
    with Inspector() as inspector:
        problems = inspector.check(screen)
        return inspector.texts(), problems


def test_a_blind_cards_outcome_is_shown_whole_in_the_counted_table(spoken):
    """FU7: a face-down card that cannot be played is picked up with the pile; the table's
    right column says so to its last word, whatever the name's length."""
    names = long_names(spoken)[:3]
    session = Session.start("full-counter", list(names), {})
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    table.apply(ctx, {"type": "starter", "value": 2, "face_up": [names[0]]})
    match = session.match
    match.zones.held[names[1]].update(hand=0, face_up=0)
    match.zones.deck = 0
    table.apply(ctx, {"type": "play", "player": names[0], "value": 9, "count": 1})
    assert match.expecting().types[0] == "blind"
    table.apply(ctx, {"type": "blind", "player": names[1], "value": 3})   # 3 on a 9: no
    last = match.state()["last"]
    assert last["player"] == names[1]
    texts, problems = drawn(table.route(ctx))
    said = " ".join(texts)
    assert " ".join(last["text"].split()) in " ".join(said.split()), (last, texts)
    assert names[1] in texts
    if spoken == "en":
        assert last["text"] == "blind 3: picked up" and problems == []


def test_the_full_counter_prompt_is_built_from_its_parts(spoken):
    """The picker's title holds the name and its first line what may be played: no
    string surgery on a translated "Ann: 7 or higher" (French writes "Ann : ...")."""
    names = long_names(spoken)[:2]
    session = Session.start("full-counter", list(names), {"zones": False})
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    table.apply(ctx, {"type": "starter", "value": 2, "face_up": [names[0]]})
    table.apply(ctx, {"type": "play", "player": names[0], "value": 5, "count": 1})
    picker = table.route(ctx)._play_picker()
    assert picker.title == names[1] == session.match.current
    assert picker.prompt == pgettext("screen 21", "{value} or higher").format(value=5)
    assert names[1] not in picker.prompt
    assert session.match.expecting().prompt == pgettext("turn prompt", "{name}: {what}").format(
        name=names[1], what=picker.prompt)


def test_block_lotterys_dice_left_stay_in_the_title_on_every_take(spoken):
    names = long_names(spoken)[:3]
    session = Session.start("block-lottery", list(names), {})
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    session.apply({"type": "pool", "faces": [1, 2, 3, 4, 5, 6] * 2 + [1, 2, 3]})
    session.apply({"type": "take", "player": names[1], "face": 4})  # anyone takes
    left = session.match.state()["pool_left"]
    texts, problems = drawn(table.route(ctx))
    assert npgettext("screen 7", "{n} left", "{n} left", left).format(n=left) in texts
    assert not [problem for problem in problems if problem.kind == "cut"]


def test_count_ups_result_keeps_its_score_beside_a_long_name(spoken):
    """"Bartholomeus gewinnt 4-2" lost its score: a long name now says "{winner}: 4-2"."""
    import test_count_up as rules

    names = long_names(spoken)[:2]
    session = Session.start("count-up-21", list(names), {"games_to_win": 2})
    for event in rules.one_sided_game("Ann", range(1, 9)):  # 8-0, names[0] leading
        session.apply({**event, "player": names[0] if event["player"] == "Ann" else names[1]})
    from companion.ui.count_up.table import GameResult

    result = GameResult(table_screen(session, Menu("Home", [])), 0)
    texts, problems = drawn(result)
    game = session.match.games[0]
    score = re.compile(r"\b\d+-\d+\b")
    line = next(text for text in texts if game["winner"] in text and score.search(text))
    assert "~" not in line and not [p for p in problems if p.kind in ("cut", "overflow")]


def test_card_downs_next_player_says_a_long_name_whole(spoken):
    """The next player's line beside the card (17 columns): a word that does not fit
    beside a long name gives way to the short form, never a cut."""
    from companion.ui.naming import next_player

    name = long_names(spoken)[0]
    said = next_player(name)
    assert name in said and len(said) <= 17


def test_the_italian_card_down_title_keeps_the_name_whole_beside_a_big_draw_pile():
    """Ten players deal from the biggest deck: the pile counts hundreds, and the name of
    the player on turn stays whole in the title (the pile's count is said alone then)."""
    import test_card_down as rules

    lang.use("it")
    try:
        names = long_names("it")
        session = Session.start("card-down", list(names), {})
        session.apply({"type": "turn_up", "card": rules.card("7 red hearts")})
        state = session.match.state()
        assert state["draw_pile"] >= 100
        texts, problems = drawn(table_screen(session, Menu("Home", [])).route(Context()))
        assert texts[0] == state["current"] and texts[1].endswith(str(state["draw_pile"]))
        assert not [problem for problem in problems if problem.kind == "cut"]
    finally:
        lang.use("en")
