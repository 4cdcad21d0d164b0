"""The Tools menu: dice roller, token bag, guided pile shuffle, first-player picker and
sand timer (its screen: :mod:`companion.ui.timer`).

These work for any game at the table. The outcome of every roll or draw is decided the
moment ROLL is pressed (from ``ctx.rng``); the short animation after it only decorates.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from companion import games
from companion.errors import BadSetup
from companion.lang import lazy, npgettext, pgettext
from companion.table.bag import ALL, LOTTERY_TOKENS, NONE, TokenBag
from companion.table.dice import DiceCup
from companion.table.shuffle import (
    MAX_CARDS,
    MAX_PILES,
    MIN_CARDS,
    MIN_PILES,
    passes_needed,
    shuffle_plan,
)
from companion.ui.canvas import (
    BODY_TOP,
    COLUMNS,
    HINT_Y,
    WIDTH,
    Canvas,
    dice_layout,
    first_that_fit,
    fitting,
    newest_that_fit,
    text_width,
)
from companion.ui.help import HelpScreen, help_title, here, tools_sections
from companion.ui.keys import MENU_KEYS, Keys
from companion.ui.screen import (
    Confirm,
    Context,
    Menu,
    MenuItem,
    Press,
    Screen,
    folded,
    is_,
    wrap,
)
from companion.ui.speech import say_again
from companion.ui.tools_keys import (
    BAG_KEYS,
    BAG_LISTED_KEYS,
    DICE_COUNT_KEYS,
    DICE_KEYS,
    DIE_KEYS,
    EMPTY_BAG_KEYS,
    EMPTY_LISTED_KEYS,
    FIRST_PLAYER_KEYS,
    NUMBERED_KEYS,
    SHUFFLE_KEYS,
    SHUFFLE_SETUP_KEYS,
)

#: Animation: frames and seconds per frame after a roll or draw.
SPIN_FRAMES, SPIN_STEP = 4, 0.08


def tools_menu(parent: Screen | None) -> Menu:
    """The Tools menu; a long ROLL on it says the last words again."""
    menu = Menu(
        lazy("screen 21", "Tools"),
        [
            MenuItem(lazy("screen 21", "Dice"), lambda ctx, menu: DiceScreen(menu)),
            MenuItem(lazy("screen 21", "Token bag"), lambda ctx, menu: bag_menu(menu)),
            MenuItem(lazy("screen 21", "Shuffle guide"), lambda ctx, menu: ShuffleSetup(menu)),
            MenuItem(lazy("screen 21", "First player"), lambda ctx, menu: FirstPlayer(menu)),
            MenuItem(lazy("screen 21", "Sand timer"), _sand_timer),
            MenuItem(games.info("scoreboard").title, _scoreboard),
            MenuItem(lazy("screen 21", "Help"), tools_help),
        ],
        parent,
    )
    menu.long_roll = say_again
    return menu


def tools_help(ctx: Context, menu: Screen) -> Screen:
    """Help for the Tools: the menu's buttons, then each tool and its screens' keys."""
    return HelpScreen(help_title(), here(MENU_KEYS) + tools_sections(tool_keys()), menu)


def tool_keys() -> tuple[tuple[Keys, ...], ...]:
    """Each tool's screens' keys, in the Tools menu's order (for Help)."""
    from companion.ui.timer import SAND_KEYS

    return ((DICE_COUNT_KEYS, DICE_KEYS, DIE_KEYS), (NUMBERED_KEYS, BAG_KEYS),
            (SHUFFLE_SETUP_KEYS, SHUFFLE_KEYS), (FIRST_PLAYER_KEYS,), (SAND_KEYS,))


def _sand_timer(ctx: Context, menu: Screen) -> Screen:
    from companion.ui.timer import SandTimerScreen

    return SandTimerScreen(ctx, menu)


def _scoreboard(ctx: Context, menu: Screen) -> Screen:
    """The scoreboard for any other game: a game of its own, kept in the store."""
    from companion.games import available
    from companion.ui.games import has_screens, setup_screen
    from companion.ui.screen import Message

    if not (available("scoreboard") and has_screens("scoreboard")):
        return Message(games.title("scoreboard"),
                       [pgettext("screen 21", "Coming soon.")], menu)
    from companion.ui.resume import unfinished_first

    return unfinished_first(ctx, menu, lambda: setup_screen(ctx, "scoreboard", menu))


class Spinner:
    """A short animation: counts frames down and says when the next one is due."""

    def __init__(self) -> None:
        self.frames_left = 0

    def start(self) -> None:
        self.frames_left = SPIN_FRAMES

    @property
    def spinning(self) -> bool:
        return self.frames_left > 0

    def tick_after(self) -> float | None:
        return SPIN_STEP if self.spinning else None

    def step(self) -> None:
        self.frames_left = max(0, self.frames_left - 1)


def step_value(value: int, press: Press, low: int, high: int, big_step: int = 10) -> int:
    """UP/DOWN change ``value`` by 1 (long press: by ``big_step``) within low..high."""
    step = big_step if press.long else 1
    value += step if press.button == "up" else -step
    return max(low, min(high, value))


# -- dice ------------------------------------------------------------------------------

class DiceScreen(Screen):
    """1-15 dice: pick how many, ROLL, hold some with OK, ROLL re-rolls the rest.

    Two modes: choosing the count (with the last rolls listed) and the rolled dice.
    """

    title = lazy("screen 21", "Dice")
    roll_ready = True

    def __init__(self, parent: Screen | None = None):
        super().__init__(parent)
        self.cup = DiceCup(count=2)
        self.choosing = True
        self.cursor = 0
        self.spinner = Spinner()
        self.spin_faces: tuple[int, ...] = ()

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        if self.choosing:
            return DICE_COUNT_KEYS
        return DICE_KEYS if self.cup.count > 1 else DIE_KEYS

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "roll"):
            self._roll(ctx)
        elif self.choosing and press.button in ("up", "down"):
            self.cup.count = step_value(self.cup.count, press, 1, DiceCup.MAX_DICE, 5)
        elif self.choosing and is_(press, "ok"):
            self._roll(ctx)
        elif not self.choosing and press.button in ("up", "down") and not press.long:
            step = 1 if press.button == "down" else -1
            self.cursor = (self.cursor + step) % self.cup.count
        elif not self.choosing and is_(press, "ok"):
            self.cup.toggle_hold(self.cursor)
        elif not self.choosing and is_(press, "ok", long=True):
            self.cup.release_all()
        elif not self.choosing and is_(press, "back"):
            self.choosing = True
        else:
            return super().press(ctx, press)
        return self

    def _roll(self, ctx: Context) -> None:
        if self.cup.faces is not None and len(self.cup.held) == self.cup.count:
            self.cup.release_all()  # everything held: a roll means a fresh roll
        self.cup.roll(ctx.rng)
        ctx.beep()
        self.choosing = False
        self.cursor = min(self.cursor, self.cup.count - 1)
        self.spinner.start()
        self._spin(ctx)

    def _spin(self, ctx: Context) -> None:
        faces = self.cup.faces or ()
        self.spin_faces = tuple(
            face if i in self.cup.held else ctx.anim_rng.randrange(1, 7)
            for i, face in enumerate(faces)
        )

    def tick_after(self) -> float | None:
        return self.spinner.tick_after()

    def tick(self, ctx: Context) -> Screen:
        self.spinner.step()
        if self.spinner.spinning:
            self._spin(ctx)
        return self

    def draw(self, canvas: Canvas) -> None:
        if self.choosing:
            self._draw_count(canvas)
        else:
            self._draw_dice(canvas)

    def _draw_count(self, canvas: Canvas) -> None:
        canvas.title(pgettext("screen 21", "Dice: how many?"))
        count = str(self.cup.count)
        canvas.big_text(2, BODY_TOP + 2, count)
        canvas.text(4 + text_width(count, 3), BODY_TOP + 16, _six_sided())
        canvas.text(56, BODY_TOP, pgettext("screen 12", "Last rolls:"))
        for row, faces in enumerate(self.cup.history[:3]):
            canvas.text(56, BODY_TOP + 10 * (row + 1), _roll_line(faces, 12))

    def _draw_dice(self, canvas: Canvas) -> None:
        spinning = self.spinner.spinning
        faces = self.spin_faces if spinning else (self.cup.faces or ())
        area_w, area_h = 88, HINT_Y - 3
        cols, rows, size = dice_layout(len(faces), area_w, area_h)
        top = (area_h - rows * (size + 3) + 3) // 2 + 1
        for i, face in enumerate(faces):
            x = 1 + (i % cols) * (size + 3)
            y = top + (i // cols) * (size + 3)
            canvas.die(x, y, size, face, held=i in self.cup.held)
            if i == self.cursor and len(faces) > 1 and not spinning:
                canvas.underline(x, min(y + size + 1, HINT_Y - 2), size)
        if not spinning:
            # Beside the dice, over the big total: the dice leave 6 characters.
            total = pgettext("screen 6", "total")
            canvas.text(WIDTH - text_width(total), 2, total)
            canvas.big_text(WIDTH - 1, 14, str(self.cup.total), right=True)
            if self.cup.held:
                held = pgettext("screen 6", "held")
                canvas.text(WIDTH - text_width(held), 40, held)


def _six_sided() -> str:
    # Translators: dice notation for six-sided dice, after the number of dice ("2d6");
    # a German table writes W6.
    return pgettext("screen 2", "d6")


def _roll_line(faces: tuple[int, ...], width: int) -> str:
    """"3456=18": the faces and their total, or "15d6=52" when the faces do not fit."""
    total = f"={sum(faces)}"
    shown = "".join(str(face) for face in faces)
    if len(shown) + len(total) > width:
        shown = f"{len(faces)}{_six_sided()}"
    return shown + total


# -- token bag -------------------------------------------------------------------------


def bag_menu(parent: Screen) -> Menu:
    """Which bag: the lottery tokens or numbered tokens."""
    return Menu(
        pgettext("screen 21", "Token bag"),
        [
            # The menu row leaves 17 characters beside the number of tokens.
            MenuItem(pgettext("screen 17", "Lottery tokens"),
                     lambda ctx, menu: BagScreen(TokenBag(LOTTERY_TOKENS), menu),
                     note=str(len(LOTTERY_TOKENS))),
            MenuItem(pgettext("screen 21", "Numbered tokens"),
                     lambda ctx, menu: NumberedBagSetup(menu)),
        ],
        parent,
    )


class NumberedBagSetup(Screen):
    """How many numbered tokens (1..N) go in the bag."""

    title = lazy("screen 21", "Numbered tokens")
    keys = NUMBERED_KEYS

    def __init__(self, parent: Screen | None = None):
        super().__init__(parent)
        self.count = 10

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            self.count = step_value(self.count, press, 2, 99)
            return self
        if is_(press, "ok") or is_(press, "roll"):
            tokens = [str(n) for n in range(1, self.count + 1)]
            return BagScreen(TokenBag(tokens), self.parent)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        canvas.big_text(2, BODY_TOP + 4, str(self.count))
        # Right of the big count (two digits at three times the size): 14 characters.
        label = npgettext("screen 14", "token, 1-{n}", "tokens, 1-{n}", self.count).format(
            n=self.count)
        canvas.text(4 + text_width(str(self.count), 3), BODY_TOP + 18, label)


class BagScreen(Screen):
    """Draw tokens without replacement: ROLL draws, OK refills (after asking), DOWN
    lists every token drawn and left when they do not all fit on the screen."""

    roll_ready = True

    def __init__(self, bag: TokenBag, parent: Screen | None = None):
        super().__init__(parent)
        self.bag = bag
        self.spinner = Spinner()
        self.spin_token = ""

    @property
    def title(self) -> str:  # type: ignore[override]
        left = len(self.bag.remaining)
        return npgettext("screen 21", "Token bag: {n} left", "Token bag: {n} left",
                         left).format(n=left)

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        cut = self._cut()  # the list has more than the lines: DOWN shows it
        if not self.bag.remaining:
            return EMPTY_LISTED_KEYS if cut else EMPTY_BAG_KEYS
        return BAG_LISTED_KEYS if cut else BAG_KEYS

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "roll") and self.bag.remaining:
            self.bag.draw(ctx.rng)
            ctx.beep()
            self.spinner.start()
            self.spin_token = "?"  # the hand goes into the bag at once
            return self
        if is_(press, "ok") and self.bag.drawn:
            return Confirm(pgettext("screen 21", "Refill the bag?"),
                           folded(pgettext("screen 21x4", "Every token goes\nback in the bag.")),
                           lambda ctx: self.bag.reset(), self)
        if is_(press, "down"):
            return self.token_list()
        return super().press(ctx, press)

    def token_list(self) -> Screen:
        """Every token drawn (in order) and left, a scrolling list."""
        from companion.ui.screen import Lines

        drawn, left = self.bag.drawn, self.bag.remaining
        lines = [pgettext("screen 21", "Drawn ({n}):").format(n=len(drawn)),
                 *(wrap(" ".join(_said(drawn))) or ["-"]),
                 pgettext("screen 21", "Left ({n}):").format(n=len(left)),
                 *(wrap(" ".join(_said(left))) or ["-"])]
        return Lines(pgettext("screen 21", "Tokens"), lines, self)

    def _shown(self) -> tuple[str, str]:
        """The tokens the two lines have room for: the newest drawn ("< 4 9 2", < where
        older ones are) and the first left ("1 3 5 >", > where more are)."""
        drawn_line = pgettext("screen 21", "Drawn: {tokens}")
        left_line = pgettext("screen 21", "Left: {tokens}")
        room = COLUMNS - len(drawn_line.replace("{tokens}", ""))
        drawn = newest_that_fit(_said(self.bag.drawn), room) or "-"
        left = first_that_fit(_said(self.bag.remaining),
                              COLUMNS - len(left_line.replace("{tokens}", "")))
        return drawn, left

    def _lines(self) -> tuple[str, str]:
        """"Drawn: < 4 9 2" and "Left: 1 3 5 >" (or "Left: bag empty")."""
        drawn, left = self._shown()
        left_line = (pgettext("screen 21", "Left: {tokens}").format(tokens=left) if left
                     else pgettext("screen 21", "Left: bag empty"))
        return pgettext("screen 21", "Drawn: {tokens}").format(tokens=drawn), left_line

    def _cut(self) -> bool:
        drawn, left = self._shown()
        return drawn.startswith("<") or left.endswith(">")

    def tick_after(self) -> float | None:
        return self.spinner.tick_after()

    def tick(self, ctx: Context) -> Screen:
        self.spinner.step()
        # A blinking "?" while the hand is in the bag: small on the panel's bus.
        self.spin_token = "?" if self.spinner.frames_left % 2 else ""
        return self

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        if self.spinner.spinning:
            shown = self.spin_token
        elif self.bag.drawn:
            shown = token_word(self.bag.drawn[-1])
        else:
            shown = ""
        if shown:
            scale = 3 if text_width(shown, 3) <= WIDTH else 2
            canvas.centered(BODY_TOP + 2, shown, scale)
        elif not self.bag.drawn and not self.spinner.spinning:
            canvas.centered(BODY_TOP + 8, pgettext("screen 21", "ROLL to draw"))
        if not self.spinner.spinning:
            drawn, left = self._lines()
            canvas.text(1, 34, drawn)
            canvas.text(1, 44, left)


def token_word(token: str) -> str:
    """A lottery token as a line of text says it: its face, or ALL / NONE."""
    if token == ALL:
        # Translators: the lottery token that makes every die score that prize space
        # (5 characters: 3 or fewer are drawn twice the size in the space).
        return pgettext("screen 5", "ALL")
    if token == NONE:
        # Translators: the lottery token that makes no die score that prize space (4
        # characters).
        return pgettext("screen 4", "NONE")
    return token


def _said(tokens: Sequence[str]) -> list[str]:
    """Tokens as the screen says them: ALL and NONE in the language (as the lottery's
    own screens say them), any other token as it is named."""
    return [token_word(token) for token in tokens]


# -- shuffle guide ---------------------------------------------------------------------


class ShuffleSetup(Screen):
    """Choose the deck size and the number of piles, then ROLL starts the guide.
    ``source`` (a match's guide: its own random source at the deal, see
    :mod:`companion.chance`) is where the plan comes from; None: ``ctx.rng``."""

    title = lazy("screen 21", "Shuffle guide")
    keys = SHUFFLE_SETUP_KEYS
    roll_ready = True

    def __init__(self, parent: Screen | None = None,
                 source: Callable[[], random.Random] | None = None):
        super().__init__(parent)
        self.cards = 52
        self.piles = 4
        self.field = 0  # 0: cards, 1: piles
        self.source = source

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            if self.field == 0:
                self.cards = step_value(self.cards, press, MIN_CARDS, MAX_CARDS)
            else:
                self.piles = step_value(self.piles, press, MIN_PILES, MAX_PILES, 1)
            return self
        if is_(press, "ok"):
            self.field = 1 - self.field
            return self
        if is_(press, "roll"):
            plan = shuffle_plan(self.cards, self.piles,
                                ctx.rng if self.source is None else self.source())
            return ShuffleGuide(self.cards, self.piles, plan, self)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        canvas.line(0, pgettext("screen 21", "Cards: {n}").format(n=f"{self.cards:>3}"),
                    invert=self.field == 0)
        canvas.line(1, pgettext("screen 21", "Piles: {n}").format(n=f"{self.piles:>3}"),
                    invert=self.field == 1)
        passes = passes_needed(self.cards, self.piles)
        canvas.line(2, npgettext("screen 21", "{n} pass to shuffle", "{n} passes to shuffle",
                                 passes).format(n=passes))
        canvas.line(3, pgettext("screen 21", "UP/DN change value"))


#: Pile numbers shown per screen of the guide: two rows of five.
CARDS_PER_PAGE = 10


class ShuffleGuide(Screen):
    """Card by card, which pile each card goes on; pages of ten, a gather step between
    passes. ROLL, OK or DOWN: next page; UP: previous page; BACK: stop (after asking)."""

    keys = SHUFFLE_KEYS
    roll_ready = True

    def __init__(self, cards: int, piles: int, plan: list[list[int]], parent: Screen | None):
        super().__init__(parent)
        self.cards, self.piles, self.plan = cards, piles, plan
        self.pages = self._pages()
        self.page = 0

    def _pages(self) -> list[tuple[str, int, int]]:
        """("how", 0, 0), then per pass its ("deal", pass, first card) pages and a
        ("gather", pass, 0) page; ("done", 0, 0) last."""
        pages = [("how", 0, 0)]
        for number in range(len(self.plan)):
            pages += [("deal", number, first) for first in range(0, self.cards, CARDS_PER_PAGE)]
            pages.append(("gather", number, 0))
        pages[-1] = ("done", len(self.plan) - 1, 0)
        return pages

    @property
    def title(self) -> str:  # type: ignore[override]
        kind, number, first = self.pages[self.page]
        if kind == "deal":
            last = min(first + CARDS_PER_PAGE, self.cards)
            where = {"number": number + 1, "passes": len(self.plan), "first": first + 1,
                     "last": last}
            return fitting(
                pgettext("screen 21 (if it fits)", "Pass {number}/{passes} cards {first}-{last}")
                .format(**where),
                pgettext("screen 21", "Pass {number}/{passes}: {first}-{last}").format(**where))
        if kind == "how":
            return pgettext("screen 21", "How to deal")
        if kind == "gather":
            return pgettext("screen 21", "End of pass {number}").format(number=number + 1)
        return pgettext("screen 21", "Shuffled!")

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("roll", "ok", "down") and not press.long:
            if self.page < len(self.pages) - 1:
                self.page += 1
                return self
            return self.parent.returned(ctx) if self.parent else self
        if is_(press, "up"):
            self.page = max(0, self.page - 1)
            return self
        if is_(press, "back") and self.parent is not None:
            if self.pages[self.page][0] in ("how", "done"):
                return self.parent
            return Confirm(pgettext("screen 21", "Stop shuffling?"),
                           folded(pgettext("screen 21x4", "The guide starts\nover next time.")),
                           lambda ctx: self.parent, self)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        kind, number, first = self.pages[self.page]
        if kind == "how":
            canvas.paragraph(folded(pgettext(
                "screen 21x4", "Deal face down from\nthe top, each card\nonto the top of its\n"
                "pile (1-{piles}).").format(piles=self.piles)))
        elif kind == "deal":
            piles = self.plan[number][first : first + CARDS_PER_PAGE]
            for i, pile in enumerate(piles):
                x = (i % 5) * 25 + 12 - text_width(str(pile), 2) // 2
                # Rows at y 16 and 34: each 14-pixel row of digits sits within two of
                # the panel's 8-row pages, so a new page of numbers sends less.
                canvas.text(x, 16 + (i // 5) * 18, str(pile), scale=2)
        elif kind == "gather":
            canvas.paragraph(folded(pgettext(
                "screen 21x4", "Gather the piles:\npile 1 on top,\npile {piles} at the bottom\n"
                "Then pass {number}.").format(piles=self.piles, number=number + 2)))
        else:
            canvas.paragraph(folded(pgettext(
                "screen 21x4", "Gather the piles:\npile 1 on top.\nThe deck is in a\n"
                "random order.")))


# -- first player ----------------------------------------------------------------------


class FirstPlayer(Screen):
    """Pick a random seat: UP/DOWN sets how many players, ROLL picks."""

    # The title bar leaves 12 characters beside "10 seats".
    title = lazy("screen 12", "First player")
    keys = FIRST_PLAYER_KEYS
    roll_ready = True

    def __init__(self, parent: Screen | None = None):
        super().__init__(parent)
        self.players = 4
        self.seat: int | None = None
        self.spinner = Spinner()
        self.spin_seat = 1


    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            self.players = step_value(self.players, press, 2, 10, 1)
            self.seat = None
            return self
        if is_(press, "roll") or is_(press, "ok"):
            self.seat = ctx.rng.randrange(self.players) + 1
            ctx.beep()
            self.spinner.start()
            self.spin_seat = ctx.anim_rng.randrange(self.players) + 1
            return self
        return super().press(ctx, press)

    def tick_after(self) -> float | None:
        return self.spinner.tick_after()

    def tick(self, ctx: Context) -> Screen:
        self.spinner.step()
        self.spin_seat = ctx.anim_rng.randrange(self.players) + 1
        return self

    def draw(self, canvas: Canvas) -> None:
        # Translators: how many seats the first player is picked from, beside "First
        # player": tried first (any length), the 8 characters after it when it does
        # not fit.
        seats = fitting(npgettext("screen 10 (if it fits)", "{n} seat", "{n} seats",
                                  self.players).format(n=self.players),
                        npgettext("screen 8", "{n} seat", "{n} seats",
                                  self.players).format(n=self.players),
                        room=COLUMNS - 1 - len(self.title))
        canvas.title(self.title, seats)
        if self.seat is None:
            canvas.paragraph(folded(pgettext(
                "screen 21x4", "Number the seats 1 to\n{n} clockwise from\nanyone, then ROLL.")
                .format(n=self.players)))
            return
        seat = self.spin_seat if self.spinner.spinning else self.seat
        # Translators: drawn with the seat's number big in place of {n}: room for 6
        # characters before it and 8 after it.
        before, _, after = pgettext("screen 14", "Seat {n} starts").partition("{n}")
        canvas.text(4, BODY_TOP + 10, before.strip())
        canvas.big_text(40, BODY_TOP + 3, str(seat))
        if not self.spinner.spinning:
            canvas.text(76, BODY_TOP + 10, after.strip())


__all__ = ["BadSetup", "tools_menu"]
