"""Every screen of every game, at its longest, fits the 128x64 panel in every language:
no word is cut (the canvas marks a cut with '~'), no text runs off the panel, no two
pieces of text (or a die and a piece of text) touch or overlap, and no count reads
wrong ("1 dice").

Each game is walked by seeded random presses on its own screens (the product's screen
walker, companion.commands.inspect, which ``companion lang-check`` runs too), with every
player named at the 12-character cap in the widest letters of the language. Screens a
walk cannot reach at their largest (scores in the thousands, 15 dice, an 800-card deck,
ten players) are set up directly. English must be whole; a translation may only show
the problems its list in tests/lang_known.json still holds (the translators empty it).
"""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import pytest
from lang_known import check_only_known, entry

from companion import lang
from companion.commands.inspect import Inspector, Walk, game_walks, long_names
from companion.games import engine
from companion.session import Session
from companion.ui.canvas import Canvas
from companion.ui.games import table_screen
from companion.ui.keys import Key, Keys
from companion.ui.screen import Context, Menu, Screen

#: Names at the 12-character cap in the widest English letters, distinct only at the end.
LONG_NAMES = long_names("en")
#: The languages besides English, whose screens are held to their lists.
TRANSLATED = tuple(code for code in lang.LANGUAGES if code != "en")
#: Presses of a translation's walk through a game, as lang-check makes them.
TRANSLATED_STEPS = 1000
#: Every walk of every game the registry names, as lang-check takes them.
WALKS = game_walks()


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


@pytest.fixture
def inspector():
    with Inspector() as inspecting:
        yield inspecting


@pytest.fixture(params=TRANSLATED)
def spoken(request):
    """Each translation spoken in turn (English again afterwards)."""
    lang.use(request.param)
    yield request.param
    lang.use("en")


def held_to_the_list(code: str, where: str, problems) -> None:
    """A translation's problems met at ``where`` are on its list, each of them."""
    check_only_known("screens", code, {entry(code, f"{where}: {problem.kind}: {problem}")
                                       for problem in problems}, exact=False)


# -- the inspector itself --------------------------------------------------------------------


def test_the_inspector_finds_a_cut_an_overlap_and_text_off_the_panel(inspector):
    class Crowded(Screen):
        title = "Tabletop Companion with a long title"

        def draw(self, canvas: Canvas) -> None:
            canvas.title(self.title)
            canvas.big_text(1, 12, "1234")
            canvas.big_text(1, 33, "5678")      # rows 21 px apart: the digits touch
            canvas.text(100, 50, "far right")

    problems = inspector.check(Crowded())
    details = [str(problem) for problem in problems]
    assert any(p.startswith("cut to 21 columns") for p in details)
    assert any("'1234'" in p and "'5678'" in p and "touches" in p for p in details)
    assert any(p.startswith("off the panel") for p in details)
    assert {problem.kind for problem in problems} == {"cut", "overlap", "overflow"}

    class Tidy(Screen):
        title = "Dice"
        keys = Keys("Dice", "ROLL roll  OK hold", Key("ROLL", "Roll."), Key("OK", "Hold."))

        def draw(self, canvas: Canvas) -> None:
            canvas.title(self.title, "2/3")
            canvas.die(2, 14, 24, 5)
            canvas.big_text(80, 14, "17")
            canvas.line(3, "held: none")

    assert inspector.check(Tidy()) == []


# -- every game --------------------------------------------------------------------------------

def test_the_inspector_tells_apart_pixels_that_touch_from_boxes_that_overlap(inspector):
    """A descender beside an accent of the line under it, their boxes overlapping but
    their pixels a blank pixel apart, is no problem; the same pixels one row closer
    are."""

    class Apart(Screen):
        def draw(self, canvas: Canvas) -> None:
            canvas.text(1, 11, "g")
            canvas.text(30, 21, "É")

    class Touching(Screen):
        def draw(self, canvas: Canvas) -> None:
            canvas.text(1, 11, "g")
            canvas.text(1, 20, "É")

    assert inspector.check(Apart()) == []
    assert [problem.kind for problem in inspector.check(Touching())] == ["overlap"]


def test_the_inspector_leaves_the_canvas_as_it_found_it():
    drawn = Canvas.text
    with Inspector():
        assert Canvas.text is not drawn
    assert Canvas.text is drawn


@pytest.mark.parametrize(("game_id", "players", "options", "must_see", "seed"), WALKS,
                         ids=[f"{g[0]}-{'-'.join(g[2]) or 'plain'}" for g in WALKS])
def test_every_screen_met_on_a_walk_through_the_game_fits(inspector, game_id, players, options,
                                                          must_see, seed):
    walk = Walk(inspector, seed=3 if seed is None else seed).game(game_id, players, options, 2500)
    assert must_see <= walk.seen, f"the walk never reached {must_see - walk.seen}"
    assert not walk.failures, "\n" + walk.report()


@pytest.mark.parametrize(("game_id", "players", "options", "must_see", "seed"), WALKS,
                         ids=[f"{g[0]}-{'-'.join(g[2]) or 'plain'}" for g in WALKS])
def test_every_screen_of_a_translation_shows_only_what_its_list_holds(
        inspector, spoken, game_id, players, options, must_see, seed):
    """Seated with the language's longest names in its widest letters (Cyrillic for
    Russian): what the walk meets is on the language's list, or it fails."""
    walk = Walk(inspector, seed=3 if seed is None else seed).game(game_id, players, options,
                                                                  TRANSLATED_STEPS)
    assert walk.names == long_names(spoken)
    for screen, problems in walk.failures.items():
        held_to_the_list(spoken, f"{game_id} {screen}", problems)


def test_the_walks_seat_as_many_players_as_each_game_takes():
    for game_id, players, *_ in WALKS:
        assert engine(game_id).max_players == players


# -- the largest numbers, set up directly -------------------------------------------------------


class Feed:
    """A session as the engine tests' helpers see a match: events go through the
    session (so its screens follow), everything else is the match's."""

    def __init__(self, session: Session):
        self.session = session

    def apply(self, event: dict) -> None:
        self.session.apply(event)

    def __getattr__(self, name: str):
        return getattr(self.session.match, name)


def fits(inspector: Inspector, screen: Screen, ctx: Context, presses: str = "") -> list[str]:
    """The problems of ``screen`` and of each screen the ``presses`` lead to."""
    problems = [f"{type(screen).__name__}: {p}" for p in inspector.check(screen)]
    for button in presses.split():
        screen = screen.press(ctx, press(button))
        problems += [f"{type(screen).__name__} after {button}: {p}"
                     for p in inspector.check(screen)]
    return problems


def whole(problems: list[str], code: str | None = None) -> None:
    """English shows none; a translation (``code``, else the one spoken) only what its
    list holds."""
    code = code or lang.current()
    if code == "en":
        assert not problems, "\n".join(problems)
    else:
        check_only_known("screens", code, {entry(code, problem) for problem in problems},
                         exact=False)


@pytest.fixture(params=lang.LANGUAGES)
def every_language(request):
    """English, then each translation (English again afterwards)."""
    lang.use(request.param)
    yield request.param
    lang.use("en")


def test_final_count_to_300_with_a_shared_win_fits(inspector, every_language):
    import test_final_count as engine_tests

    names = long_names(every_language)[:3]
    session = Session.start("final-count", list(names), {})
    # Two tie at 50 every hand and the caller loses: 30 each, ten hands to 300.
    hands = {names[0]: ["K", "K", "Q"], names[1]: ["Q", "Q", "J"], names[2]: ["2", "3", "4"]}
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    for _ in range(10):
        engine_tests.play_hand(Feed(session), ["K", "K"], hands, caller=names[2])
    result = table.route(ctx)
    assert session.match.over
    problems = fits(inspector, result, ctx, "ok")               # the last hand, then the end
    over = table.route(ctx)
    problems += fits(inspector, over, ctx, "up") + fits(inspector, over, ctx, "down down")
    whole(problems)


def test_block_lottery_three_rounds_at_six_players_fits(inspector, every_language):
    import test_block_lottery as engine_tests

    names = long_names(every_language)[:6]
    session = Session.start("block-lottery", list(names), {"lucky_card_bonus": True})
    counts = {name: (8, 0) for name in names[:2]} | {name: (0, 9) for name in names[2:]}
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    for _ in range(3):
        engine_tests.play_round(Feed(session), counts, ender=names[0], tokens=("ALL", "6", "5"))
    result = table.route(ctx)
    problems = fits(inspector, result, ctx, " ".join(["ok"] * 9))
    assert session.match.over
    whole(problems)


def test_scoreboard_scores_in_the_tens_of_thousands_fit(inspector, every_language):
    names = long_names(every_language)
    session = Session.start("scoreboard", list(names), {"target": 99999})
    for round_number in range(10):
        for index, name in enumerate(names):
            points = 9999 if index % 2 else -9999 + round_number
            session.apply({"type": "points", "player": name, "points": points})
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    problems = fits(inspector, table, ctx, "down down down down down")
    picker = table.picker(ctx, names[0])
    picker.value = -9999
    problems += fits(inspector, picker, ctx, "ok ok ok")
    session.apply({"type": "end"})
    over = table.route(ctx)
    problems += fits(inspector, over, ctx, "down down down down down down")
    whole(problems)


# -- the Tools, the main menu and the setup editors ----------------------------------------------


def walk_from(inspector: Inspector, start: Screen, steps: int) -> dict[str, list[str]]:
    """The problems of every screen met on random presses from ``start``, by screen."""
    return Walk(inspector, seed=5).run(start, steps).failures


def test_the_tools_and_the_main_menu_fit(inspector, every_language):
    """Settings > Language is walked too: the walk speaks its own language again at
    once, and what it meets is filed under that language."""
    from companion.ui.home import home_menu

    walk = Walk(inspector, seed=5).run(home_menu(Context()), 3000)
    assert walk.language == every_language == lang.current()
    whole([f"{screen}: {problem}" for screen, found in walk.failures.items()
           for problem in found], walk.language)


def test_the_tools_at_their_largest_fit(inspector, every_language):
    from companion.table.bag import TokenBag
    from companion.table.shuffle import MAX_CARDS, MAX_PILES
    from companion.ui.tools import BagScreen, DiceScreen, FirstPlayer, ShuffleSetup

    ctx = Context(rng=random.Random(2), anim_rng=random.Random(3))
    problems = []
    dice = DiceScreen()
    dice.press(ctx, press("up", long=True))
    dice.press(ctx, press("up", long=True))                  # 15 dice
    problems += fits(inspector, dice, ctx, "roll ok down ok roll back roll back")
    bag = BagScreen(TokenBag([str(n) for n in range(1, 100)]))
    problems += fits(inspector, bag, ctx, " ".join(["roll"] * 60) + " down down")
    problems += fits(inspector, BagScreen(TokenBag()), ctx, " ".join(["roll"] * 8))
    setup = ShuffleSetup()
    setup.cards, setup.piles = MAX_CARDS, MAX_PILES
    problems += fits(inspector, setup, ctx, "roll " + " ".join(["roll"] * 90))
    players = FirstPlayer()
    players.players = 10
    problems += fits(inspector, players, ctx, "roll")
    from companion.ui.timer import SandTimerScreen

    sand = SandTimerScreen(ctx, None, 60)                     # 60:00, running and paused
    problems += fits(inspector, sand, ctx, "up roll roll ok")
    sand.ended = True
    problems += fits(inspector, sand, ctx, "roll")
    whole(problems)


def test_the_setup_editors_fit(inspector):
    from companion.ui.block_lottery.setup import BlockLotterySetup
    from companion.ui.full_counter.table import DeckScreen, FullCounterSetup

    setup = FullCounterSetup(None, list(LONG_NAMES[:5]))
    deck = DeckScreen(setup)
    for key in ("numbers", "copies"):
        setup.deck[key] = {"numbers": 20, "copies": 8}[key]
    assert not walk_from(inspector, deck, 800)
    assert not walk_from(inspector, BlockLotterySetup(None, list(LONG_NAMES[:6])), 800)


def test_a_long_refusal_scrolls_instead_of_losing_its_last_words(inspector):
    """Full Counter's reason for a mixed entry takes five lines: UP/DOWN show them all."""
    session = Session.start("full-counter", list(LONG_NAMES[:2]), {})
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    table.apply(ctx, {"type": "starter", "value": 2, "face_up": [LONG_NAMES[0]]})
    picker = table.route(ctx).press(ctx, press("roll"))
    for button in ("ok", "down", "down", "ok"):                  # two values, not a chain
        picker.press(ctx, press(button))
    refusal = picker.press(ctx, press("roll"))
    assert len(refusal.lines) > 4 and refusal.hint == "UP/DOWN more  OK back"
    seen = []
    for _ in refusal.lines:
        assert inspector.check(refusal) == []
        seen += [line for line in refusal.lines[refusal.top : refusal.top + 4] if line not in seen]
        refusal.press(ctx, press("down"))
    assert " ".join(seen).startswith("a play is one value") and seen[-1].endswith("like 5 6 7")
    assert refusal.press(ctx, press("ok")) is picker


def test_full_counter_counted_at_its_largest_fits(inspector, every_language):
    """Five long names, a hand of 40 after pick-ups, face-down cards only, a long last
    play: the table, its OK menu and every row of the cards held."""
    names = long_names(every_language)[:5]
    session = Session.start("full-counter", list(names), {})
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    table.apply(ctx, {"type": "starter", "value": 2, "face_up": [names[0]]})
    match = session.match
    problems = fits(inspector, table.route(ctx), ctx, "down down down down up")
    match.zones.held[names[0]].update(hand=40)
    match.zones.held[names[1]].update(hand=0, face_up=0)
    match.zones.deck = 0
    table.apply(ctx, {"type": "play", "player": names[0], "value": 6, "count": 4})
    table.apply(ctx, {"type": "play", "player": names[0], "value": 11, "count": 3})
    assert match.expecting().types == ("blind", "pickup")
    problems += fits(inspector, table.route(ctx), ctx, "ok")
    problems += fits(inspector, table.route(ctx), ctx, "roll")
    whole(problems)


def test_card_down_at_ten_players_fits_on_every_entry_screen(inspector, every_language):
    from companion.ui.card_down.hands import SumPicker
    from companion.ui.card_down.turns import CardPicker, ColourMenu

    session = Session.start("card-down", list(long_names(every_language)), {})
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    table.exact = True
    problems = fits(inspector, table, ctx, "roll down down roll")     # the first card, exactly
    session.apply({"type": "play", "player": session.match.current, "card": {"value": "D"}})
    colour = table.route(ctx)
    assert isinstance(colour, ColourMenu)
    problems += fits(inspector, colour, ctx, "down down down down")
    problems += fits(inspector, CardPicker(table, session.match.current, session.match.current),
                     ctx, "ok down ok down")
    problems += fits(inspector, SumPicker(table, long_names(every_language)[3], 108, table), ctx,
                     "up")
    problems += fits(inspector, table._hands(table), ctx, " ".join(["down"] * 10))
    whole(problems)


# -- words: what a walk rarely meets (issue 21, item 6) -------------------------------------------


def test_the_inspector_finds_a_plural_after_one(inspector):
    class Counted(Screen):
        title = "1 games"
        keys = Keys("Counted", "1 dice left")

        def draw(self, canvas: Canvas) -> None:
            canvas.title(self.title)
            canvas.line(0, "11 rounds, 1 round")     # right: not a problem

    problems = inspector.check(Counted())
    assert sorted(map(str, problems)) == ["a plural after 1: '1 dice left'",
                                          "a plural after 1: '1 games'"]


def test_card_down_game_two_deal_hint_is_whole(inspector):
    """From the second game on, the deal's hint also offers DOWN end: whole, in both
    modes."""
    import test_card_down as engine_tests

    session = Session.start("card-down", ["Ann", "Bob", "Cy"], {"games": 3})
    table = table_screen(session, Menu("Home", []))
    session.apply({"type": "turn_up", "card": engine_tests.card("7 red hearts")})
    engine_tests.finish_first_game(Feed(session))
    for player in ("Bob", "Cy"):
        session.apply({"type": "hand", "player": player, "sum": 0})
    assert session.match.phase == "deal"
    assert "end_match" in session.match.expecting().types
    problems = []
    for exact in (False, True):
        table.exact = exact
        assert table.hint.endswith("DOWN end")
        problems += inspector.check(table)
    assert not problems, problems


def test_the_settings_screen_at_its_longest_fits(inspector):
    from companion.config import Config, Display, Serial
    from companion.ui.home import settings_screen

    config = Config(display=Display(rotate=2, contrast=255),
                    serial=Serial(url="rfc2217://192.168.100.100:2217"),
                    source="/home/someone/.config/companion/config.toml")
    ctx = Context(config=config)
    ctx.web_address = "companion-table.local:8080"
    screen = settings_screen(ctx, Menu("Settings", []))
    problems = []
    shown = []
    for _ in range(len(screen.lines)):
        problems += inspector.check(screen)
        shown += screen.lines[screen.top : screen.top + 4]
        screen.press(ctx, press("down"))
    assert not problems, problems
    assert "Contrast 255" in shown and "Rotate 180" in shown
    assert "Serial rfc2217://192.168.100.100:2217" in "".join(screen.lines)
    assert "Web companion-table.local:8080" in "".join(screen.lines)
    assert "".join(screen.lines[screen.lines.index("Config file:") + 1:]) == config.source


def test_card_down_says_how_many_more_players_in_words():
    from companion.table.seats import Seats
    from companion.ui.card_down.table import _counts_line

    names = list(LONG_NAMES)
    line = _counts_line({name: 7 for name in names}, names[0], "left", Seats(names))
    assert re.search(r" \d+ more$", line) and "+" not in line, line


@pytest.mark.parametrize(("game_id", "players", "options", "must_see"), [
    ("final-count", 4, {"hit_goal": True}, {"FinalCountTable", "ValuePicker", "Menu"}),
    ("block-lottery", 6, {}, {"BlockLotteryTable", "ValuePicker"}),
])
def test_a_table_with_real_dice_fits_on_every_screen_it_meets(inspector, game_id, players,
                                                              options, must_see):
    """[dice] physical: ROLL asks for the faces (pickers, "Ann rolled?") and the table
    says "entered" where it said "rolled"."""
    from companion.config import Config, Dice

    walk = Walk(inspector, seed=5)
    walk.ctx.config = Config(dice=Dice(physical=True))
    walk.game(game_id, players, options, 1500)
    assert must_see <= walk.seen, f"the walk never reached {must_see - walk.seen}"
    assert not walk.failures, "\n" + walk.report()


def test_the_club_rounds_offer_at_its_longest_fits(inspector):
    """Round 100 at ten players named at the cap: every line reachable with DOWN."""
    from companion.club.offer import RoundOffer
    from companion.club.rounds import Offer
    from companion.ui.screen import Confirm, wrap

    ctx = Context(rng=random.Random(1))
    home = Menu("Home", [])
    offer = RoundOffer(None, Offer("2026-11-26", 100, "card-down", LONG_NAMES), home)
    seen = []
    for _ in offer.lines:
        assert inspector.check(offer) == []
        seen += [line for line in offer.lines[offer.top : offer.top + 4] if line not in seen]
        offer.press(ctx, press("down"))
    assert " ".join(seen).startswith(f"Round 100: {LONG_NAMES[0]}, ")
    assert seen[-2].endswith("- start?") and seen[-1] == "Final Card-Down"
    question = Confirm(offer.title, wrap("A game is not finished. Keep it as abandoned "
                                         "and start round 100?"), lambda ctx: None, home)
    assert inspector.check(question) == []
