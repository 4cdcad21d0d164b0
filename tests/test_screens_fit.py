"""Every screen of every game, at its longest, fits the 128x64 panel: no word is cut (the
canvas marks a cut with '~'), no text runs off the panel, no two pieces of text (or
a die and a piece of text) touch or overlap, and no count reads wrong ("1 dice").

Each game is walked by seeded random presses on its own screens, which offer only what
the engine's ``expecting()`` allows, with every player named at the 12-character cap in
the widest letters. Screens a walk cannot reach at their largest (scores in the
thousands, 15 dice, an 800-card deck, ten players) are set up directly. Every screen met
is drawn under an :class:`Inspector` that draws each piece of text once more on its own
to find the pixels it covers.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Iterator
from types import SimpleNamespace

import pytest

import companion.ui.block_lottery  # noqa: F401 - every screen module is inspected
import companion.ui.canvas as canvas_module
import companion.ui.card_down  # noqa: F401
import companion.ui.count_up  # noqa: F401
import companion.ui.final_count  # noqa: F401
import companion.ui.full_counter  # noqa: F401
import companion.ui.home  # noqa: F401
import companion.ui.scoreboard  # noqa: F401
import companion.ui.tools  # noqa: F401
from companion.games import engine
from companion.session import Session
from companion.ui.canvas import HEIGHT, LINE_H, WIDTH, Canvas, text_width
from companion.ui.games import setup_screen, table_screen
from companion.ui.keys import Key, Keys
from companion.ui.screen import Context, Menu, Screen

#: Names at the 12-character cap in the widest letters, distinct only at the end.
LONG_NAMES = tuple("WWWWWWWWWWW" + last for last in "MWQOGDHNUB")
#: (button, long) with how often the walk presses it: mostly on through the game.
PRESSES = ([("roll", False)] * 5 + [("ok", False)] * 5 + [("down", False)] * 3
           + [("up", False)] * 2 + [("back", False)]
           + [("ok", True), ("roll", True), ("up", True), ("down", True), ("back", True)])


#: A count of one with a plural after it: "1 dice", "1 rounds", "1 games" (issue 21).
WRONG_PLURAL = re.compile(r"(?<![\d.])(?<!Game )(?<!Hand )(?<!Round )(?<!Pass )"
                          r"1 (dice|rounds|games|hands|players|cards|tokens|"
                          r"tricks|wins|points|piles|passes|names|matches)\b")


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


Box = tuple[int, int, int, int]


class Inspector:
    """Records, while a screen is drawn, every cut, every piece of text off the panel
    and the pixels each piece of text (and each die) covers."""

    #: Canvas methods that draw one piece of text (the outermost call is the piece).
    TEXT_METHODS = ("title", "line", "hint", "centered", "big_text", "text")

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.problems: list[str] = []
        self.items: list[tuple[str, Box, bool]] = []
        self.depth = 0
        self.originals = {name: getattr(Canvas, name) for name in (*self.TEXT_METHODS, "die")}
        clip = canvas_module.clip

        def recording_clip(text: str, columns: int = canvas_module.COLUMNS) -> str:
            if len(text) > columns:
                self.problem(f"cut to {columns} columns: {text!r}")
            if WRONG_PLURAL.search(text):  # a hint or an inverted line: pasted, not text()
                self.problem(f"a plural after 1: {text!r}")
            return clip(text, columns)

        for name, module in list(sys.modules.items()):
            if name.startswith("companion.ui") and getattr(module, "clip", None) is clip:
                monkeypatch.setattr(module, "clip", recording_clip)
        for name, original in self.originals.items():
            monkeypatch.setattr(Canvas, name, self._wrapped(name, original))

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    def _wrapped(self, name: str, original: Callable) -> Callable:
        def draw(canvas: Canvas, *args, **kwargs) -> None:
            if name == "text":
                self._check_text(*args, **kwargs)
            outer = self.depth == 0
            self.depth += 1
            try:
                original(canvas, *args, **kwargs)
                if outer:
                    self._record(name, original, args, kwargs)
            finally:
                self.depth -= 1

        return draw

    def _check_text(self, x: int, y: int, text: str, *, invert: bool = False,
                    scale: int = 1) -> None:
        if "~" in text:
            self.problem(f"cut: {text!r}")
        if WRONG_PLURAL.search(text):
            self.problem(f"a plural after 1: {text!r}")
        if x < 0 or x + text_width(text, scale) - scale > WIDTH or y < 0 \
                or y + 7 * scale > HEIGHT:
            self.problem(f"off the panel at ({x}, {y}): {text!r}")

    def _record(self, name: str, original: Callable, args: tuple, kwargs: dict) -> None:
        alone = Canvas()
        original(alone, *args, **kwargs)
        if name == "title":  # the text, not the rule under it
            alone.image = alone.image.crop((0, 0, WIDTH, LINE_H - 1))
        box = alone.image.getbbox()
        if box is not None:
            label = f"die {args[3]}" if name == "die" else repr(_text_of(name, args))
            banded = name == "hint" or bool(kwargs.get("invert"))
            self.items.append((label, box, banded))

    def overlaps(self) -> Iterator[str]:
        """Pieces that overlap, or touch with not one blank pixel between them (text
        may touch an inverted band: a menu's highlighted row sits right under the
        row above)."""
        for i, (first, a, a_band) in enumerate(self.items):
            for second, b, b_band in self.items[i + 1:]:
                gap = 0 if a_band or b_band else 1
                apart = (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1]
                         or b[3] + gap <= a[1])
                if not apart:
                    yield f"{first} {a} touches {second} {b}"

    def check(self, screen: Screen) -> list[str]:
        """The problems of ``screen`` drawn now (empty when it fits)."""
        self.problems, self.items = [], []
        screen.render()
        return [*self.problems, *self.overlaps()]


def _text_of(method: str, args: tuple) -> str:
    """The text of a canvas call: title(text) and hint(text) take it first,
    line(row, text) and centered(y, text) second, text(x, y, text) and big_text third."""
    return args[{"title": 0, "hint": 0, "line": 1, "centered": 1}.get(method, 2)]


# -- walking the screens ---------------------------------------------------------------------


class Walk:
    """Seeded random presses from a screen, every screen met (and every animation frame)
    checked; ``back_in`` says where to go on when a press leaves the screens walked."""

    def __init__(self, inspector: Inspector, seed: int):
        self.inspector = inspector
        self.rng = random.Random(seed)
        self.ctx = Context(rng=random.Random(seed), anim_rng=random.Random(seed + 1))
        self.home = Menu("Home", [])
        self.failures: dict[str, list[str]] = {}
        self.seen: set[str] = set()

    def look(self, screen: Screen) -> None:
        kind = type(screen).__name__
        self.seen.add(kind)
        for problem in self.inspector.check(screen):
            found = self.failures.setdefault(kind, [])
            if problem not in found:
                found.append(problem)

    def run(self, start: Screen, steps: int,
            back_in: Callable[[Screen], Screen] | None = None) -> Walk:
        screen = last = start
        for _ in range(steps):
            self.look(screen)
            button, long = self.rng.choice(PRESSES)
            screen = screen.press(self.ctx, press(button, long))
            if screen is None or screen is self.home:
                screen = back_in(last) if back_in else start
            while screen.tick_after() is not None:
                self.look(screen)
                screen = screen.tick(self.ctx)
            last = screen
        return self

    def game(self, game_id: str, players: int, options: dict, steps: int) -> Walk:
        """The game's setup, then ``steps`` presses through games of it with ``players``
        at the name cap: a game left goes on (as a resume would), one over starts anew."""
        names = list(LONG_NAMES[:players])

        def new_table() -> Screen:
            session = Session.start(game_id, names, dict(options), secret=self.ctx.new_secret())
            return table_screen(session, self.home).route(self.ctx)

        def back_in(last: Screen) -> Screen:
            table = _table_of(last)
            return new_table() if table is None or table.match.over else table.route(self.ctx)

        self.look(setup_screen(self.ctx, game_id, self.home, names))
        return self.run(new_table(), steps, back_in)

    def report(self) -> str:
        return "\n".join(f"{kind}: {problem}" for kind, problems in sorted(self.failures.items())
                         for problem in problems[:6])


def _table_of(screen: Screen | None):
    """The game screen ``screen`` belongs to (itself or a parent with a session)."""
    while screen is not None:
        if getattr(screen, "session", None) is not None:
            return screen
        screen = getattr(screen, "table", None) or screen.parent
    return None


@pytest.fixture
def inspector(monkeypatch: pytest.MonkeyPatch) -> Inspector:
    return Inspector(monkeypatch)


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
    assert any(p.startswith("cut to 21 columns") for p in problems)
    assert any("'1234'" in p and "'5678'" in p and "touches" in p for p in problems)
    assert any(p.startswith("off the panel") for p in problems)

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

#: (game, players, options, screens the walk must reach): the most players each takes.
GAMES = [
    ("final-count", 4, {"hit_goal": True},
     {"FinalCountTable", "ValuePicker", "HandResult", "Standings", "Menu"}),
    ("full-counter", 5, {"zones": False}, {"FullCounterTable", "ValuePicker", "BlindPicker",
                                           "StarterQuestion", "GameResult", "MatchOver",
                                           "Menu"}),
    ("full-counter", 5, {}, {"FullCounterTable", "ValuePicker", "StarterQuestion",
                             "CardsHeld", "Menu"}),
    ("full-counter", 5, {"quick": True}, {"FullCounterTable", "GameResult", "Menu"}),
    ("card-down", 10, {}, {"CardDownTable", "SpecialCard", "WordQuestion", "WentOut",
                           "ValuePicker", "GameResult", "Standings", "Menu"}),
    ("card-down", 10, {"games": 1}, {"CardDownTable", "GameResult", "MatchOver"}),
    ("block-lottery", 6, {"lucky_card_bonus": True},
     {"BlockLotteryTable", "Menu", "RoundOver", "RerollScreen", "ScoreEntry", "RoundResult"}),
    ("count-up-21", 2, {}, {"CountUpTable", "TrickWon", "GameResult", "MatchOver"}),
    ("scoreboard", 10, {"target": 99999}, {"ScoreboardTable", "NumberPicker", "Menu"}),
    ("scoreboard", 10, {"target": 5, "low_wins": True}, {"ScoreboardTable", "GameOver"}),
]


#: The walk's seed where 3 does not reach every screen: Block Lottery's card count
#: refuses most random counts and asks before BACK drops what was typed, so a walk
#: stays there long; only a round in which dice were taken reaches the re-rolls.
SEEDS = {"block-lottery": 14}


@pytest.mark.parametrize(("game_id", "players", "options", "must_see"), GAMES,
                         ids=[f"{g[0]}-{'-'.join(g[2]) or 'plain'}" for g in GAMES])
def test_every_screen_met_on_a_walk_through_the_game_fits(inspector, game_id, players, options,
                                                          must_see):
    walk = Walk(inspector, seed=SEEDS.get(game_id, 3)).game(game_id, players, options, 2500)
    assert must_see <= walk.seen, f"the walk never reached {must_see - walk.seen}"
    assert not walk.failures, "\n" + walk.report()


def test_the_walks_seat_as_many_players_as_each_game_takes():
    for game_id, players, _, _ in GAMES:
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


def test_final_count_to_300_with_a_shared_win_fits(inspector):
    import test_final_count as engine_tests

    names = LONG_NAMES[:3]
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
    assert not problems, "\n".join(problems)


def test_block_lottery_three_rounds_at_six_players_fits(inspector):
    import test_block_lottery as engine_tests

    names = LONG_NAMES[:6]
    session = Session.start("block-lottery", list(names), {"lucky_card_bonus": True})
    counts = {name: (8, 0) for name in names[:2]} | {name: (0, 9) for name in names[2:]}
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    for _ in range(3):
        engine_tests.play_round(Feed(session), counts, ender=names[0], tokens=("ALL", "6", "5"))
    result = table.route(ctx)
    problems = fits(inspector, result, ctx, " ".join(["ok"] * 9))
    assert session.match.over and not problems, "\n".join(problems)


def test_scoreboard_scores_in_the_tens_of_thousands_fit(inspector):
    names = LONG_NAMES
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
    assert not problems, "\n".join(problems)


# -- the Tools, the main menu and the setup editors ----------------------------------------------


def walk_from(inspector: Inspector, start: Screen, steps: int) -> dict[str, list[str]]:
    """The problems of every screen met on random presses from ``start``, by screen."""
    return Walk(inspector, seed=5).run(start, steps).failures


def test_the_tools_and_the_main_menu_fit(inspector):
    from companion.ui.home import home_menu

    failures = walk_from(inspector, home_menu(Context()), 3000)
    assert not failures, failures


def test_the_tools_at_their_largest_fit(inspector):
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
    assert not problems, "\n".join(problems)


def test_the_setup_editors_fit(inspector):
    from companion.ui.block_lottery import BlockLotterySetup
    from companion.ui.full_counter import DeckScreen, FullCounterSetup

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


def test_full_counter_counted_at_its_largest_fits(inspector):
    """Five long names, a hand of 40 after pick-ups, face-down cards only, a long last
    play: the table, its OK menu and every row of the cards held."""
    session = Session.start("full-counter", list(LONG_NAMES[:5]), {})
    ctx = Context(rng=random.Random(1))
    table = table_screen(session, Menu("Home", []))
    table.apply(ctx, {"type": "starter", "value": 2, "face_up": [LONG_NAMES[0]]})
    match = session.match
    problems = fits(inspector, table.route(ctx), ctx, "down down down down up")
    match.zones.held[LONG_NAMES[0]].update(hand=40)
    match.zones.held[LONG_NAMES[1]].update(hand=0, face_up=0)
    match.zones.deck = 0
    table.apply(ctx, {"type": "play", "player": LONG_NAMES[0], "value": 6, "count": 4})
    table.apply(ctx, {"type": "play", "player": LONG_NAMES[0], "value": 11, "count": 3})
    assert match.expecting().types == ("blind", "pickup")
    problems += fits(inspector, table.route(ctx), ctx, "ok")
    problems += fits(inspector, table.route(ctx), ctx, "roll")
    assert not problems, "\n".join(problems)


def test_card_down_at_ten_players_fits_on_every_entry_screen(inspector):
    from companion.ui.card_down_hands import SumPicker
    from companion.ui.card_down_turns import CardPicker, ColourMenu

    session = Session.start("card-down", list(LONG_NAMES), {})
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
    problems += fits(inspector, SumPicker(table, LONG_NAMES[3], 108, table), ctx, "up")
    problems += fits(inspector, table._hands(table), ctx, " ".join(["down"] * 10))
    assert not problems, "\n".join(problems)


# -- words: what a walk rarely meets (issue 21, item 6) -------------------------------------------


def test_the_inspector_finds_a_plural_after_one(inspector):
    class Counted(Screen):
        title = "1 games"
        keys = Keys("Counted", "1 dice left")

        def draw(self, canvas: Canvas) -> None:
            canvas.title(self.title)
            canvas.line(0, "11 rounds, 1 round")     # right: not a problem

    problems = inspector.check(Counted())
    assert sorted(problems) == ["a plural after 1: '1 dice left'", "a plural after 1: '1 games'"]


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
    from companion.ui.card_down import _counts_line

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
    assert " ".join(seen).startswith("Round 100: WWWWWWWWWWWM, ")
    assert seen[-2].endswith("- start?") and seen[-1] == "Final Card-Down"
    question = Confirm(offer.title, wrap("A game is not finished. Keep it as abandoned "
                                         "and start round 100?"), lambda ctx: None, home)
    assert inspector.check(question) == []
