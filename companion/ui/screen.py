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

What a screen's buttons do is said once, in its :attr:`Screen.keys`
(:mod:`companion.ui.keys`): the hint line along the bottom is read from them and Help
shows their sentences, so no screen has a hint without its Help; a screen cannot set
``hint`` itself.

While nothing can be saved, every screen carries the "not saved" mark: its header band
lit, the words dark (:func:`mark_unsaved`). :meth:`Screen.render` draws it for all of
them (``unsaved=True``), so no screen can forget it and none draws its own.
"""

from __future__ import annotations

import random
import re
from collections import UserString
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from PIL import Image

from companion.chance import SECRET_BYTES
from companion.clock import Clock, monotonic
from companion.lang import lazy
from companion.ui.canvas import CHAR_W, LINE_H, MENU_PITCH, WIDTH, Canvas, clip
from companion.ui.keys import (
    CONFIRM_KEYS,
    LINES_KEYS,
    MENU_KEYS,
    MESSAGE_KEYS,
    MESSAGE_LONG_KEYS,
    NO_KEYS,
    Keys,
)

#: Menu rows that fit between the title bar and the hint line.
MENU_ROWS = 4


class Said:
    """A screen's title as the screen keeps it: a lazy message stays lazy (a
    switch of language shows at the next draw), yet reading it gives a plain str in the
    current language, which the serial STATUS reply and any string code can use."""

    def __init__(self, default: str | UserString = ""):
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, screen: object, owner: type | None = None) -> str:
        text = self.default if screen is None else screen.__dict__.get(self.name, self.default)
        return str(text) if isinstance(text, UserString) else text

    def __set__(self, screen: object, value: str | UserString) -> None:
        screen.__dict__[self.name] = value


class Press(Protocol):
    """A button press as the device reports it."""

    button: str
    long: bool


class Context:
    """What screens may use: outcomes come from ``rng``; ``anim_rng`` only decorates.

    ``store`` is the event store (None when it could not be opened: the Tools still
    work; read-only while the storage cannot be written); ``notice`` is a line to show
    once at start (e.g. a store problem); ``parked`` is a game left while it was not
    saved: kept in memory, offered for resume like a stored one, written once saving
    works again; ``listeners`` are given to every game session (see
    :class:`companion.session.Session`).
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
        self.parked: Any = None
        #: True while the club broker is connected (club mode): the header's club mark.
        self.club_up = False
        #: This table's matches the club's dashboard has not confirmed (after a resend):
        #: the club mark is dashed instead of dotted while there are any.
        self.club_unconfirmed = 0
        self.listeners: list[Callable[..., None]] = []
        #: Sound the buzzer for so many seconds, timed on the app's clock (the sand
        #: timer's end; the app sets it, see :mod:`companion.timer`).
        self.sound: Callable[[float], None] = lambda seconds: None
        #: Each player's time left on a chess clock (``[timer] mode = "clock"``) in the
        #: game on the screen, for its menu; {} otherwise (the app sets it).
        self.clocks: Callable[[], dict[str, int]] = dict
        #: What is said aloud (:class:`companion.speech.announcer.Announcer`; None: the
        #: device has no voice here). Settings > Speech and a long ROLL on a menu use it.
        self.speech: Any = None

    def new_secret(self) -> bytes:
        """A new match's secret (the seed of its draws, :mod:`companion.chance`) from
        ``rng``: the operating system's randomness on the device, the seed's under
        ``sim --seed``."""
        return self.rng.randbytes(SECRET_BYTES)


class Screen:
    """Base screen: BACK returns to ``parent``; everything else does nothing."""

    title = Said()
    #: What the buttons do on this screen: its hint line and Help's sentences
    #: (:class:`~companion.ui.keys.Keys`); a property where they change with its state.
    keys: Keys = NO_KEYS
    #: True when ROLL is the thing to press (the LED in the button lights up).
    roll_ready = False
    #: True for a screen that only reads (Help): a change of the match from afar (the
    #: page, the serial console) leaves it open, and going back shows the match as it
    #: is by then, instead of taking the screen from under the person reading it.
    stays_open = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # ``title = lazy("screen 21", "Dice")`` in a class body: kept lazy, read as str.
        super().__init_subclass__(**kwargs)
        if "hint" in cls.__dict__:
            raise TypeError(f"{cls.__name__} sets its hint: say what its buttons do in "
                            "keys (companion.ui.keys), which give the hint and Help")
        text = cls.__dict__.get("title")
        if isinstance(text, (str, UserString)):
            said = Said(text)
            said.__set_name__(cls, "title")
            cls.title = said

    @property
    def hint(self) -> str:
        """The hint line: the words of :attr:`keys` in the current language."""
        return self.keys.hint_line(**self.key_values())

    def key_values(self) -> dict[str, object]:
        """The ``{fields}`` this screen fills in its hint and Help ("{word}", "{n}")."""
        return {}

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

    def hidden(self, ctx: Context) -> None:
        """Called when another screen takes this one's place on the panel (a child, a
        parent, anything): whatever lives only while it is seen ends here."""

    def tick_after(self) -> float | None:
        """Seconds until this screen wants :meth:`tick` (None: it is not animating)."""
        return None

    def tick(self, ctx: Context) -> Screen:
        """One animation step."""
        return self

    def draw(self, canvas: Canvas) -> None:
        """Draw the body (title, content); the hint line is added by :meth:`render`."""
        canvas.title(self.title)

    def render(self, *, unsaved: bool = False, club: bool = False,
               club_lag: bool = False,
               overlay: Callable[[Image.Image], None] | None = None) -> Image.Image:
        """The finished 128x64 picture of this screen; ``unsaved`` marks the header "not
        saved", else ``club`` marks it "the link to the club is up" (``club_lag``: "but
        the dashboard has not confirmed some matches"). ``overlay`` draws on the picture
        before the marks (the turn timer, in room the screen left free)."""
        canvas = Canvas()
        self.draw(canvas)
        canvas.hint(self.hint)
        if overlay is not None:
            overlay(canvas.image)
        if unsaved:
            mark_unsaved(canvas.image)
        elif club:
            mark_club(canvas.image, lagging=club_lag)
        return canvas.image


# Both marks take no room from the words: a title at its longest stays whole, and a
# table whose club link comes and goes never sees its screens move.

#: The header band the "not saved" mark lights (the title's row, above its rule).
HEADER = (0, 0, WIDTH, LINE_H - 1)
#: The stretch of the header's rule that the club mark dots.
CLUB_RULE = (WIDTH - 4 * CHAR_W, LINE_H - 1, WIDTH, LINE_H)


def mark_unsaved(image: Image.Image) -> None:
    """The "not saved" mark: the header band drawn inverted, lit with dark words, on
    every screen (a screen without a title has its top rows inverted just the same)."""
    band = image.crop(HEADER)
    image.paste(band.point(lambda lit: 0 if lit else 255, "1"), HEADER)


def mark_club(image: Image.Image, *, lagging: bool = False) -> None:
    """The club mark: the right end of the header's rule dotted (a screen without a
    rule there has nothing to dot, so its picture is left as it is); dashed (two lit,
    two dark) while the club's dashboard has not confirmed some of this table's
    matches."""
    rule = image.crop(CLUB_RULE)
    if rule.getbbox() != (0, 0, rule.width, 1):  # not a whole rule: not a header
        return
    for x in range(CLUB_RULE[0] + 1, WIDTH):
        gap = (x - CLUB_RULE[0]) % 4 >= 2 if lagging else (x - CLUB_RULE[0]) % 2 == 1
        if gap:
            image.putpixel((x, LINE_H - 1), 0)


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

    keys = MENU_KEYS

    def __init__(self, title: str, items: Sequence[MenuItem], parent: Screen | None = None):
        super().__init__(parent)
        self.title = title
        self.items = list(items)
        self.selected = 0
        self.top = 0
        #: What a long ROLL does here (the main menu and Tools: say the last words again).
        self.long_roll: Callable[[Context], None] | None = None

    def press(self, ctx: Context, press: Press) -> Screen:
        count = len(self.items)
        if is_(press, "roll", long=True) and self.long_roll is not None:
            self.long_roll(ctx)
            return self
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
        # The title first: the moving highlight shows where the list is.
        canvas.title(self.title, where, right_gives_way=True)
        for row, item in enumerate(self.items[self.top : self.top + MENU_ROWS]):
            index = self.top + row
            label, note = str(item.label), str(item.note)
            if note:
                room = 20 - len(note)
                label = clip(label, room).ljust(room) + " " + note
            canvas.line(row, label, invert=index == self.selected, pitch=MENU_PITCH)


class Message(Screen):
    """A few lines of text; any of OK, ROLL or BACK goes back. More lines than the
    screen holds scroll with UP/DOWN (the title says where), so no word is lost."""

    def __init__(self, title: str, lines: Sequence[str], parent: Screen | None = None):
        super().__init__(parent)
        self.title = title
        self.lines = list(lines)
        self.top = 0

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        return MESSAGE_LONG_KEYS if len(self.lines) > MENU_ROWS else MESSAGE_KEYS

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down") and len(self.lines) > MENU_ROWS:
            step = 1 if press.button == "down" else -1
            self.top = max(0, min(self.top + step, len(self.lines) - MENU_ROWS))
            return self
        if press.button in ("ok", "roll", "back") and self.parent is not None:
            return self.parent.returned(ctx)
        return self

    def draw(self, canvas: Canvas) -> None:
        more = len(self.lines) > MENU_ROWS
        where = f"{self.top + 1}/{len(self.lines) - MENU_ROWS + 1}" if more else ""
        canvas.title(self.title, where, right_gives_way=True)
        canvas.paragraph(self.lines[self.top : self.top + MENU_ROWS])


class Lines(Screen):
    """Read-only lines that scroll with UP/DOWN."""

    keys = LINES_KEYS

    def __init__(self, title: str, lines: Sequence[str], parent: Screen | None = None):
        super().__init__(parent)
        self.title = title
        self.lines = list(lines) or [lazy("screen 21", "(nothing yet)")]
        self.top = 0

    def press(self, ctx: Context, press: Press) -> Screen:
        last_top = max(0, len(self.lines) - MENU_ROWS)
        if press.button == "up":
            self.top = 0 if press.long else max(0, self.top - 1)
            return self
        if press.button == "down":
            self.top = last_top if press.long else min(last_top, self.top + 1)
            return self
        if press.button in ("ok", "roll") and self.parent is not None:
            return self.parent.returned(ctx)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        more = f"{self.top + 1}/{len(self.lines)}" if len(self.lines) > MENU_ROWS else ""
        canvas.title(self.title, more)
        canvas.paragraph(self.lines[self.top : self.top + MENU_ROWS])


class Confirm(Screen):
    """A yes/no question: OK does ``action`` and goes where it says; BACK declines."""

    keys = CONFIRM_KEYS

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


#: Where a line may break: any space but a no-break one (U+00A0, U+2007, U+202F),
#: which keeps its words together ("Ann\u202f: sortie" never starts a line with ":").
_BREAK = re.compile(r"[^\S\u00a0\u2007\u202f]+")


def words(text: str | UserString) -> list[str]:
    """The words of ``text`` as a line folds it: split at spaces, a no-break space
    kept inside its word."""
    return [word for word in _BREAK.split(str(text)) if word]


def wrap(text: str, width: int = 21) -> list[str]:
    """Words of ``text`` folded into lines of at most ``width`` characters (a word
    longer than a line is cut to it)."""
    lines: list[str] = []
    for word in words(text):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word[:width])
    return lines


def folded(text: str | UserString, width: int = 21) -> list[str]:
    """The lines of a message drawn as several ("screen 21x4"): each of its own lines
    (the English breaks them where the screen always did) folded into ``width``, so a
    translation may break its lines anywhere or leave the folding to the screen."""
    return [line for part in str(text).split("\n") for line in wrap(part, width)]


__all__ = [
    "CLUB_RULE", "HEADER", "Context", "Confirm", "mark_club", "mark_unsaved",
    "LINE_H", "Menu", "MenuItem", "Message", "Press", "Said", "Screen", "is_",
    "folded", "words", "wrap",
]
