"""The screen inspector: every screen of every game walked and drawn, and each place
where the drawing fails a person named: a word cut ('~'), text off the panel, two
pieces of text (or a die and a text) touching, a count read wrong ("1 dice").

``companion lang-check`` walks the games in every language with it, and the tests
walk them the same way (tests/test_screens_fit.py)::

    >>> with Inspector() as inspector:           # doctest: +SKIP
    ...     walk = Walk(inspector, seed=3, names=long_names("de"))
    ...     walk.game("count-up-21", 2, {}, 300).failures
    {}

Each game is walked by seeded random presses on its own screens, which offer only what
the engine's ``expecting()`` allows, its players named at the longest the roster allows
in the widest letters of the language (:func:`companion.commands.worst.long_names`). While an
:class:`Inspector` is open, every piece of text is drawn once more on its own to find the
pixels it covers; closing it puts the canvas back as it was.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, NamedTuple

from PIL import Image, ImageChops, ImageFilter

import companion.ui.canvas as canvas_module
from companion.commands.worst import long_names
from companion.session import Session
from companion.ui.canvas import HEIGHT, LINE_H, WIDTH, Canvas, text_width
from companion.ui.screen import Context, Menu, Screen

__all__ = ["Inspector", "Problem", "Walk", "game_walks", "long_names", "press",
           "walk_everything"]

#: (button, long) with how often the walk presses it: mostly on through the game.
PRESSES = ([("roll", False)] * 5 + [("ok", False)] * 5 + [("down", False)] * 3
           + [("up", False)] * 2 + [("back", False)]
           + [("ok", True), ("roll", True), ("up", True), ("down", True), ("back", True)])

#: A count of one with an English plural after it: "1 dice", "1 rounds" (issue 21).
WRONG_PLURAL = re.compile(r"(?<![\d.])(?<!Game )(?<!Hand )(?<!Round )(?<!Pass )"
                          r"1 (dice|rounds|games|hands|players|cards|tokens|"
                          r"tricks|wins|points|piles|passes|names|matches)\b")

#: The kinds of problem, as lang-check counts them.
KINDS = ("cut", "overflow", "overlap", "plural")


class Problem(NamedTuple):
    """One thing wrong with a drawn screen: its ``kind`` (one of :data:`KINDS`) and
    what was drawn."""

    kind: str
    detail: str

    def __str__(self) -> str:
        return self.detail


def press(button: str, long: bool = False) -> SimpleNamespace:
    """A press of ``button`` as the device reports it."""
    return SimpleNamespace(button=button, long=long)


Box = tuple[int, int, int, int]


class _Piece(NamedTuple):
    label: str
    box: Box
    banded: bool
    image: Image.Image


class Inspector:
    """Records, while a screen is drawn, every cut, every piece of text off the panel
    and the pixels each piece of text (and each die) covers. Use it in a ``with``: it
    wraps the canvas's drawing for as long as it is open."""

    #: Canvas methods that draw one piece of text (the outermost call is the piece).
    TEXT_METHODS = ("title", "line", "hint", "centered", "big_text", "text")

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.items: list[_Piece] = []
        self.depth = 0
        self._cuts: set[str] = set()
        self._drawn: list[str] = []
        self._restore: list[tuple[Any, str, Any]] = []
        self._alone: dict[tuple, tuple[Box, Image.Image] | None] = {}

    # -- open and close ---------------------------------------------------------------

    def __enter__(self) -> Inspector:
        clip = canvas_module.clip

        def recording_clip(text: Any, columns: int = canvas_module.COLUMNS) -> str:
            text = str(text)
            cut = clip(text, columns)
            if cut != text:
                self._cuts.add(cut)
                self.problem("cut", f"cut to {columns} columns: {text!r}")
            if WRONG_PLURAL.search(text):  # a hint or an inverted line: pasted, not text()
                self.problem("plural", f"a plural after 1: {text!r}")
            return cut

        for module in list(sys.modules.values()):
            if (getattr(module, "__name__", "").startswith("companion.")
                    and getattr(module, "clip", None) is clip):
                self._patch(module, "clip", recording_clip)
        for name in (*self.TEXT_METHODS, "die"):
            self._patch(Canvas, name, self._wrapped(name, getattr(Canvas, name)))
        return self

    def __exit__(self, *exc: object) -> None:
        while self._restore:
            owner, name, original = self._restore.pop()
            setattr(owner, name, original)

    def _patch(self, owner: Any, name: str, value: Any) -> None:
        self._restore.append((owner, name, owner.__dict__[name] if isinstance(owner, type)
                              else getattr(owner, name)))
        setattr(owner, name, value)

    # -- while a screen is drawn ------------------------------------------------------

    def problem(self, kind: str, detail: str) -> None:
        found = Problem(kind, detail)
        if found not in self.problems:
            self.problems.append(found)

    def _wrapped(self, name: str, original: Callable) -> Callable:
        def draw(canvas: Canvas, *args: Any, **kwargs: Any) -> None:
            if name == "text":
                self._check_text(*args, **kwargs)
                self._drawn.append(str(args[2]))
            elif name == "hint" or (name == "line" and kwargs.get("invert")):
                self._drawn.append(str(_text_of(name, args)))  # pasted, not text()
            outer = self.depth == 0
            self.depth += 1
            try:
                original(canvas, *args, **kwargs)
                if outer:
                    self._record(name, original, args, kwargs)
            finally:
                self.depth -= 1

        return draw

    def _check_text(self, x: int, y: int, text: Any, *, invert: bool = False,
                    scale: int = 1) -> None:
        text = str(text)
        if "~" in text and text not in self._cuts:
            self.problem("cut", f"cut: {text!r}")
        if WRONG_PLURAL.search(text):
            self.problem("plural", f"a plural after 1: {text!r}")
        if x < 0 or x + text_width(text, scale) - scale > WIDTH or y < 0 \
                or y + 7 * scale > HEIGHT:
            self.problem("overflow", f"off the panel at ({x}, {y}): {text!r}")

    def _record(self, name: str, original: Callable, args: tuple, kwargs: dict) -> None:
        key = (name, tuple(str(arg) if not isinstance(arg, int) else arg for arg in args),
               tuple(sorted(kwargs.items())))
        if key not in self._alone:  # a piece drawn alone is the same every time
            alone = Canvas()
            original(alone, *args, **kwargs)
            if name == "title":  # the text, not the rule under it
                alone.image = alone.image.crop((0, 0, WIDTH, LINE_H - 1))
            box = alone.image.getbbox()
            self._alone[key] = None if box is None else (box, alone.image)
        drawn = self._alone[key]
        if drawn is not None:
            label = f"die {args[3]}" if name == "die" else repr(str(_text_of(name, args)))
            banded = name == "hint" or bool(kwargs.get("invert"))
            self.items.append(_Piece(label, drawn[0], banded, drawn[1]))

    def overlaps(self) -> Iterator[Problem]:
        """Pieces whose pixels overlap, or touch with not one blank pixel between them
        (text may touch an inverted band: a menu's highlighted row sits right under
        the row above)."""
        for i, first in enumerate(self.items):
            for second in self.items[i + 1:]:
                gap = 0 if first.banded or second.banded else 1
                a, b = first.box, second.box
                if (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1]
                        or b[3] + gap <= a[1]):
                    continue
                if _touching(first.image, second.image, gap):
                    yield Problem("overlap", f"{first.label} {a} touches {second.label} {b}")

    def check(self, screen: Screen) -> list[Problem]:
        """The problems of ``screen`` drawn now (empty when it fits)."""
        self.problems, self.items, self._cuts, self._drawn = [], [], set(), []
        screen.render()
        return [*self.problems, *self.overlaps()]

    def texts(self) -> list[str]:
        """Every text the last :meth:`check` drew (a title's right on its own), in the
        order drawn, as drawn (a cut one with its '~')."""
        return list(self._drawn)


def _touching(first: Image.Image, second: Image.Image, gap: int) -> bool:
    """Whether two pieces drawn alone share a pixel, or (``gap`` 1) lie side by side or
    corner to corner with no blank pixel between them."""
    grown = first.convert("L")
    if gap:
        grown = grown.filter(ImageFilter.MaxFilter(3))
    return ImageChops.multiply(grown, second.convert("L")).getbbox() is not None


def _text_of(method: str, args: tuple) -> str:
    """The text of a canvas call: title(text) and hint(text) take it first,
    line(row, text) and centered(y, text) second, text(x, y, text) and big_text third."""
    return args[{"title": 0, "hint": 0, "line": 1, "centered": 1}.get(method, 2)]


# -- walking the screens ---------------------------------------------------------------


class Walk:
    """Seeded random presses from a screen, every screen met (and every animation frame)
    checked; ``back_in`` says where to go on when a press leaves the screens walked.
    ``names`` seat the games (the longest names of the language spoken, by default)."""

    def __init__(self, inspector: Inspector, seed: int, names: tuple[str, ...] | None = None):
        from companion import lang

        self.inspector = inspector
        self.rng = random.Random(seed)
        self.ctx = Context(rng=random.Random(seed), anim_rng=random.Random(seed + 1))
        self.home = Menu("Home", [])
        #: The language the walk is in: a press on Settings > Language does not take
        #: it elsewhere (it is spoken again at once), so what the walk meets is this
        #: language's.
        self.language = lang.current()
        self.names = names or long_names(self.language)
        self.failures: dict[str, list[Problem]] = {}
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
            self._stay_in_language()
            if screen is None or screen is self.home:
                screen = back_in(last) if back_in else start
            while screen.tick_after() is not None:
                self.look(screen)
                screen = screen.tick(self.ctx)
            last = screen
        return self

    def _stay_in_language(self) -> None:
        """Speak the walk's language again if a press chose another (the language
        menu's rows are lazy: they are drawn in it)."""
        from companion import lang

        if lang.current() != self.language:
            lang.use(self.language)

    def game(self, game_id: str, players: int, options: dict, steps: int) -> Walk:
        """The game's setup, then ``steps`` presses through games of it with ``players``
        seated: a game left goes on (as a resume would), one over starts anew."""
        from companion.ui.games import setup_screen, table_screen

        names = list(self.names[:players])

        def new_table() -> Screen:
            session = Session.start(game_id, names, dict(options),
                                    secret=self.ctx.new_secret())
            return table_screen(session, self.home).route(self.ctx)

        def back_in(last: Screen) -> Screen:
            table = table_of(last)
            return new_table() if table is None or table.match.over else table.route(self.ctx)

        self.look(setup_screen(self.ctx, game_id, self.home, names))
        return self.run(new_table(), steps, back_in)

    def report(self) -> str:
        return "\n".join(f"{kind}: {problem}" for kind, problems in sorted(self.failures.items())
                         for problem in problems[:6])


def table_of(screen: Screen | None) -> Any:
    """The game screen ``screen`` belongs to (itself or a parent with a session)."""
    while screen is not None:
        if getattr(screen, "session", None) is not None:
            return screen
        screen = getattr(screen, "table", None) or screen.parent
    return None


def game_walks() -> list[tuple[str, int, dict[str, Any], set[str], int | None]]:
    """(game, players, options, screens the walk must reach, its seed or None) for each
    walk of each game the registry (:data:`companion.games.GAMES`) names with its screens
    built, in menu order: seated with the most players the game takes, in each way to
    play its screens' ``walks`` name (one walk with the default options when none)."""
    from companion import games
    from companion.ui.games import ScreenWalk, game_screens, has_screens

    found = []
    for line in games.GAMES:
        if not (games.available(line.game_id) and has_screens(line.game_id)):
            continue
        players = games.engine(line.game_id).max_players
        for walk in game_screens(line.game_id).walks or (ScreenWalk(),):
            found.append((line.game_id, players, dict(walk.options), set(walk.reaches),
                          walk.seed))
    return found


def walk_everything(steps: int, seed: int = 3) -> dict[str, list[Problem]]:
    """Every walk of :func:`game_walks` taken ``steps`` presses (and the main menu with the
    Tools and Settings under it) in the language spoken now: the problems met, by the
    screen they were met on ("card-down FinalCountTable", "home Menu")."""
    from companion.ui.home import home_menu

    found: dict[str, list[Problem]] = {}
    with Inspector() as inspector:
        for game_id, players, options, _reached, own_seed in game_walks():
            walk = Walk(inspector, seed if own_seed is None else own_seed).game(
                game_id, players, options, steps)
            _gather(found, game_id, walk)
        _gather(found, "home", Walk(inspector, seed + 2).run(home_menu(Context()), steps))
    return found


def _gather(found: dict[str, list[Problem]], where: str, walk: Walk) -> None:
    """The walk's problems by screen, each once: the same text drawn for another of
    the seated names is the same problem."""
    for kind, problems in walk.failures.items():
        known = found.setdefault(f"{where} {kind}", [])
        for problem in problems:
            same = Problem(problem.kind, one_name(problem.detail, walk.names))
            if same not in known:
                known.append(same)


def one_name(text: str, names: tuple[str, ...]) -> str:
    """``text`` with every one of ``names`` written as the first (and its cut forms)."""
    for name in sorted(names[1:], key=len, reverse=True):
        text = text.replace(name, names[0])
    return text
