"""Screens: ``(screen, press) -> screen`` and ``screen -> picture``.

A screen is a small object that knows what its buttons do and how it looks. It never
touches hardware: it gets a :class:`Context` (the random source, the clock, a way to
beep) and returns the screen to show next, often itself. BACK goes to the screen it
came from::

    >>> from types import SimpleNamespace as Press
    >>> dice = MenuItem("Dice", lambda ctx, parent: Message("Dice", ["hi"], parent))
    >>> menu = Menu("Tools", [dice])
    >>> menu.press(None, Press(button="ok", long=False)).title
    'Dice'

The five buttons are ``up``, ``down``, ``ok``, ``back`` and ``roll``; a press is short or
long. Screens that animate say when they next want a :meth:`Screen.tick`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from PIL import Image

from companion.clock import Clock, monotonic
from companion.ui.canvas import LINE_H, Canvas, clip

#: Menu rows that fit between the title bar and the hint line.
MENU_ROWS = 4


class Press(Protocol):
    """A button press as the device reports it."""

    button: str
    long: bool


class Context:
    """What screens may use: outcomes come from ``rng``; ``anim_rng`` only decorates.

    ``store`` is the event store (None when it could not be opened: the Tools still
    work); ``notice`` is a line to show once at start (e.g. a store problem);
    ``listeners`` are given to every game session (see :class:`companion.session.Session`).
    """

    def __init__(
        self,
        rng: random.Random | None = None,
        anim_rng: random.Random | None = None,
        clock: Clock = monotonic,
        beep: Callable[[], None] = lambda: None,
        config: Any = None,
        store: Any = None,
        notice: str = "",
    ):
        self.rng = rng or random.SystemRandom()
        self.anim_rng = anim_rng or random.Random()
        self.clock = clock
        self.beep = beep
        self.config = config
        self.store = store
        self.notice = notice
        self.listeners: list[Callable[..., None]] = []


class Screen:
    """Base screen: BACK returns to ``parent``; everything else does nothing."""

    title = ""
    hint = ""
    #: True when ROLL is the thing to press (the LED in the button lights up).
    roll_ready = False

    def __init__(self, parent: Screen | None = None):
        self.parent = parent

    def press(self, ctx: Context, press: Press) -> Screen:
        """The screen after ``press``."""
        if press.button == "back" and self.parent is not None:
            return self.parent.returned(ctx)
        return self

    def returned(self, ctx: Context) -> Screen:
        """Called when a child screen goes back to this one; may refresh state."""
        return self

    def tick_after(self) -> float | None:
        """Seconds until this screen wants :meth:`tick` (None: it is not animating)."""
        return None

    def tick(self, ctx: Context) -> Screen:
        """One animation step."""
        return self

    def draw(self, canvas: Canvas) -> None:
        """Draw the body (title, content); the hint line is added by :meth:`render`."""
        canvas.title(self.title)

    def render(self) -> Image.Image:
        """The finished 128x64 picture of this screen."""
        canvas = Canvas()
        self.draw(canvas)
        canvas.hint(self.hint)
        return canvas.image


def is_(press: Press, button: str, long: bool = False) -> bool:
    """True if ``press`` is ``button``, short (or long when ``long``)."""
    return press.button == button and press.long == long


class MenuItem(NamedTuple):
    """One menu line: ``label``, an optional note on the right, and what OK opens."""

    label: str
    open: Callable[[Context, Screen], Screen | None]
    note: str = ""


class Menu(Screen):
    """A scrolling list. UP/DOWN move (wrapping), OK or ROLL opens, BACK goes back."""

    hint = "UP/DN move  OK pick"

    def __init__(self, title: str, items: Sequence[MenuItem], parent: Screen | None = None):
        super().__init__(parent)
        self.title = title
        self.items = list(items)
        self.selected = 0
        self.top = 0

    def press(self, ctx: Context, press: Press) -> Screen:
        count = len(self.items)
        if press.button in ("up", "down") and count:
            if press.long:
                self.selected = 0 if press.button == "up" else count - 1
            else:
                self.selected = (self.selected + (1 if press.button == "down" else -1)) % count
            self._scroll()
            return self
        if press.button in ("ok", "roll") and not press.long and count:
            opened = self.items[self.selected].open(ctx, self)
            return opened if opened is not None else self
        return super().press(ctx, press)

    def _scroll(self) -> None:
        if self.selected < self.top:
            self.top = self.selected
        elif self.selected >= self.top + MENU_ROWS:
            self.top = self.selected - MENU_ROWS + 1

    def draw(self, canvas: Canvas) -> None:
        where = f"{self.selected + 1}/{len(self.items)}" if len(self.items) > MENU_ROWS else ""
        canvas.title(self.title, where)
        for row, item in enumerate(self.items[self.top : self.top + MENU_ROWS]):
            index = self.top + row
            label = item.label
            if item.note:
                room = 20 - len(item.note)
                label = clip(label, room).ljust(room) + " " + item.note
            canvas.line(row, label, invert=index == self.selected)


class Message(Screen):
    """A few lines of text; any of OK, ROLL or BACK goes back."""

    hint = "OK back"

    def __init__(self, title: str, lines: Sequence[str], parent: Screen | None = None):
        super().__init__(parent)
        self.title = title
        self.lines = list(lines)

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("ok", "roll", "back") and self.parent is not None:
            return self.parent.returned(ctx)
        return self

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        canvas.paragraph(self.lines[:4])


class Confirm(Screen):
    """A yes/no question: OK does ``action`` and goes where it says; BACK declines."""

    hint = "OK yes   BACK no"

    def __init__(
        self,
        title: str,
        lines: Sequence[str],
        action: Callable[[Context], Screen | None],
        parent: Screen,
    ):
        super().__init__(parent)
        self.title = title
        self.lines = list(lines)
        self.action = action

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "ok"):
            after = self.action(ctx)
            return after if after is not None else self.parent.returned(ctx)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        canvas.paragraph(self.lines[:4])


def wrap(text: str, width: int = 21) -> list[str]:
    """Words of ``text`` folded into lines of at most ``width`` characters."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word[:width])
    return lines


__all__ = [
    "Context", "Confirm", "LINE_H", "Menu", "MenuItem", "Message", "Press", "Screen", "is_",
    "wrap",
]
