"""The turn timer on the screen, and the Tools' sand timer.

The turn timer is drawn over every game screen by :func:`mark_time`, only where that
screen left room: a free stretch of its title bar, else of its hint line, else as a
bar in the blank row under the title's rule. It never covers a pixel the screen drew,
so no game's screen has to make room for it (and none draws it itself).
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from companion.lang import lazy, pgettext
from companion.table.timer import SandTimer, clock_text, whole_seconds
from companion.ui.canvas import BODY_TOP, CHAR_W, HINT_Y, LINE_H, WIDTH, Canvas, text_width
from companion.ui.keys import Key, Keys
from companion.ui.screen import Context, Press, Screen, is_

#: The rows the title's words use (its rule is the row under them).
_TITLE_ROWS = (0, LINE_H - 1)
#: The rows inside the hint line's lit band that its words use.
_HINT_ROWS = (HINT_Y + 1, HINT_Y + LINE_H - 1)
#: The blank rows where the bar goes when no words fit: between the title's rule and
#: the body, else between the body and the hint line.
BAR_ROWS = (BODY_TOP - 1, HINT_Y - 1)


def mark_time(image: Image.Image, texts: Sequence[str], fraction: float) -> str:
    """Draw the first of ``texts`` (the same thing said shorter and shorter) that fits
    a free stretch of the title bar or of the hint line; when none fits, a bar of
    ``fraction`` (time left / the whole) along the blank row under the title's rule,
    else the one over the hint line.
    Returns where it went: ``"title"``, ``"hint"``, ``"bar"`` or ``""`` (no room)."""
    title = _title_gaps(image)
    hint = _hint_gaps(image)
    for text in texts:
        width = text_width(text)
        for where, gaps, ink in (("title", title, 1), ("hint", hint, 0)):
            x = _place(gaps, width)
            if x is not None:
                _write(image, x, where, text, ink)
                return where
    for row, edge in zip(BAR_ROWS, (LINE_H - 1, HINT_Y), strict=True):
        if _blank_row(image, row) and _whole_row(image, edge):  # a rule or band beside it
            length = round(max(0.0, min(1.0, fraction)) * WIDTH)
            if length:
                image.paste(255, (0, row, length, row + 1))
            return "bar"
    return ""


def _write(image: Image.Image, x: int, where: str, text: str, ink: int) -> None:
    words = Canvas()
    words.text(x, 0 if where == "title" else HINT_Y + 1, text)
    image.paste(ink, (0, 0), words.image)


def _columns_where(image: Image.Image, rows: tuple[int, int], lit: bool) -> list[bool]:
    """For each column: True when every pixel in ``rows`` is ``lit`` (or dark)."""
    band = image.crop((0, rows[0], WIDTH, rows[1])).convert("L")
    # Each column's mean in one pass (in C): 0 is all dark, 255 all lit.
    means = band.resize((WIDTH, 1), Image.Resampling.BOX).tobytes()
    want = 255 if lit else 0
    return [mean == want for mean in means]


def _gaps(free: list[bool]) -> list[tuple[int, int]]:
    """The runs of free columns as (first, end), with a character's width kept clear
    of whatever is drawn beside them."""
    runs, start = [], None
    for x, empty in enumerate([*free, False]):
        if empty and start is None:
            start = x
        elif not empty and start is not None:
            first = 1 if start == 0 else start + CHAR_W
            end = WIDTH if x == WIDTH else x - CHAR_W
            if end > first:
                runs.append((first, end))
            start = None
    return runs


def _place(gaps: list[tuple[int, int]], width: int) -> int | None:
    """The x that puts ``width`` pixels flush right in the rightmost gap they fit."""
    for first, end in reversed(gaps):
        if end - first >= width:
            return end - width
    return None


def _whole_row(image: Image.Image, y: int) -> bool:
    row = image.crop((0, y, WIDTH, y + 1))
    return row.getbbox() == (0, 0, WIDTH, 1)


def _blank_row(image: Image.Image, y: int) -> bool:
    return image.crop((0, y, WIDTH, y + 1)).getbbox() is None


def _title_gaps(image: Image.Image) -> list[tuple[int, int]]:
    if not _whole_row(image, LINE_H - 1):  # no rule under it: not a title bar
        return []
    return _gaps(_columns_where(image, _TITLE_ROWS, lit=False))


def _hint_gaps(image: Image.Image) -> list[tuple[int, int]]:
    if not _whole_row(image, HINT_Y):  # no lit band along the bottom: no hint line
        return []
    return _gaps(_columns_where(image, _HINT_ROWS, lit=True))


# -- the sand timer ---------------------------------------------------------------------

#: The minutes a sand timer may be set to.
SAND_MINUTES = (1, 60)
#: How long the buzzer sounds when the sand has run out (seconds).
SAND_END_BEEP = 1.0


SAND = (Key("UP/DOWN", lazy("screen 21xN", "Before it starts: a minute more or less, 1 to "
                             "60 (held: ten).")),
        Key("ROLL", lazy("screen 21xN", "Start the sand running; again to pause it.")),
        Key("OK", lazy("screen 21xN", "Set it back to full.")),
        Key("BACK", lazy("screen 21xN", "Back to Tools: the timer stops.")))
# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
SAND_KEYS = Keys(lazy("screen 21", "Sand timer"), lazy("screen 21", "UP/DOWN time  ROLL go"),
                 *SAND)
SAND_RUNNING_KEYS = Keys(lazy("screen 21", "Sand timer"),
                         lazy("screen 21", "ROLL pause  OK reset"), *SAND)
SAND_PAUSED_KEYS = Keys(lazy("screen 21", "Sand timer"), lazy("screen 21", "ROLL go  OK reset"),
                        *SAND)


class SandTimerScreen(Screen):
    """Tools > Sand timer: UP/DOWN set the minutes, ROLL starts and pauses, OK sets it
    back to full; at the end the buzzer sounds and the screen says "Time!". The screen
    wakes only when the shown second changes."""

    roll_ready = True
    #: Its ticks are a clock running on, not an animation to wait for (scripts).
    ticks_on = True

    def __init__(self, ctx: Context, parent: Screen | None, minutes: int = 3):
        super().__init__(parent)
        self.clock = ctx.clock
        self.sand = SandTimer(minutes)
        self.ended = False

    @property
    def title(self) -> str:  # type: ignore[override]
        # Beside "running" (or "paused", "Time!") in the title bar: 13 columns.
        return pgettext("screen 13", "Sand timer")

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        if self.sand.running:
            return SAND_RUNNING_KEYS
        return SAND_KEYS if self._fresh else SAND_PAUSED_KEYS

    @property
    def _fresh(self) -> bool:
        return not self.sand.running and self.sand.used == 0

    def press(self, ctx: Context, press: Press) -> Screen:
        now = self.clock()
        if press.button in ("up", "down") and self._fresh:
            step = (10 if press.long else 1) * (1 if press.button == "up" else -1)
            low, high = SAND_MINUTES
            self.sand = SandTimer(max(low, min(high, self.sand.minutes + step)))
        elif is_(press, "roll") and not self.ended:
            self.sand.toggle(now)
        elif is_(press, "ok"):
            self.sand, self.ended = SandTimer(self.sand.minutes), False
        elif is_(press, "back"):
            return super().press(ctx, press)
        return self

    def tick_after(self) -> float | None:
        now = self.clock()
        change = self.sand.next_change(now)
        if change is not None:
            return change - now
        if self.sand.running and not self.ended:
            return 0.0  # run out: the end is due now
        return None

    def tick(self, ctx: Context) -> Screen:
        now = self.clock()
        if self.sand.running and self.sand.left(now) <= 0 and not self.ended:
            self.sand.stop(now)
            self.ended = True
            ctx.sound(SAND_END_BEEP)
        return self

    def hidden(self, ctx: Context) -> None:
        """Gone from the panel (BACK to Tools): its time stops with it."""
        self.sand.stop(self.clock())

    def draw(self, canvas: Canvas) -> None:
        now = self.clock()
        # Right of "Sand timer" in the title bar: 10 columns.
        if self.ended:
            state = pgettext("screen 10", "Time!")
        elif self.sand.running:
            state = pgettext("screen 10", "running")
        else:
            state = "" if self._fresh else pgettext("screen 10", "paused")
        canvas.title(self.title, state)
        shown = clock_text(whole_seconds(self.sand.left(now)))
        canvas.big_text((WIDTH - text_width(shown, 3) + 3) // 2, BODY_TOP + 8, shown)
