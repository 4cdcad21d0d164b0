"""A value picker for entering a list of card ranks or values fast, on a ring of big
cells: what Final Count's hands and Full Counter's plays are entered with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

from companion.lang import pgettext
from companion.ui.canvas import (
    BODY_TOP,
    COLUMNS,
    WIDTH,
    Canvas,
    fits_beside,
    newest_that_fit,
    text_width,
)
from companion.ui.keys import PICKER_KEYS
from companion.ui.screen import Context, Press, Screen, is_


class ValuePicker(Screen):
    """Enter a list of values (card ranks) fast: UP/DOWN move round a ring, OK adds the
    value under the cursor (again adds it again), BACK takes the last one off (a long
    OK all of them), ROLL is done. ``submit`` gets the list and returns the next screen
    (or raises to refuse)."""

    keys = PICKER_KEYS
    roll_ready = True

    def __init__(
        self,
        title: str,
        values: Sequence[str],
        submit: Callable[[Context, list[str]], Screen],
        parent: Screen,
        *,
        start: str | None = None,
        limits: tuple[int, int] | None = None,
        summary: Callable[[list[str]], str] | None = None,
        prompt: str = "",
    ):
        super().__init__(parent)
        self.title = title
        #: What the first line says while nothing is entered ("2 or higher").
        self.prompt = prompt
        self.values = list(values)
        self.cursor = self.values.index(start) if start in self.values else 0
        self.entered: list[str] = []
        self.submit = submit
        self.limits = limits
        self.summary = summary

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            step = 1 if press.button == "down" else -1
            self.cursor = (self.cursor + step * (3 if press.long else 1)) % len(self.values)
        elif is_(press, "ok"):
            self.entered.append(self.values[self.cursor])
        elif is_(press, "back"):
            if not self.entered:
                return super().press(ctx, press)
            self.entered.pop()
        elif is_(press, "ok", long=True):  # a long BACK is the turn timer's pause
            self.entered.clear()
        elif is_(press, "roll"):
            return self.submit(ctx, list(self.entered))
        return self

    def draw(self, canvas: Canvas) -> None:
        limits = ""
        if self.limits:
            low, high = self.limits
            limits = str(low) if low == high else f"{low}-{high}"
        # The limits go on the title's right while they fit there, else on the first line.
        beside = fits_beside(self.title, limits)
        canvas.title(self.title, limits, right_gives_way=True)
        summary = self.summary(self.entered) if self.summary and self.entered else ""
        room = COLUMNS - len(summary) - (1 if summary else 0)
        if self.entered:  # the newest cards, "<" where older ones are
            shown = newest_that_fit(self.entered, room)
        else:
            shown = self.empty_line(limits if limits and not beside else "")
        canvas.text(1, BODY_TOP, shown)
        if summary:
            canvas.text(WIDTH - text_width(summary), BODY_TOP, summary)
        for index, (x, y, width) in enumerate(self._cells):
            value = self.values[index]
            centre = x + (width - text_width(value, self.scale) + self.scale) // 2
            if index == self.cursor:
                _dark_on_light(canvas, (x, y - 1, x + width - 1, y + 7 * self.scale),
                               centre, y, value, self.scale)
            else:
                canvas.text(centre, y, value, scale=self.scale)

    def empty_line(self, limits: str) -> str:
        """The first line while nothing is entered: the prompt, or how many to enter
        when the title had no room for it."""
        if self.prompt:
            return self.prompt
        if limits:
            # Translators: {limits} is how many cards to enter: "3" or "2-5".
            return pgettext("screen 21", "(enter {limits})").format(limits=limits)
        return pgettext("screen 21", "(none yet)")

    @property
    def scale(self) -> int:
        return self._layout[0]

    # The values never change once the picker is made: its layout is worked out once,
    # not on every frame (the card ranks try up to three layouts each time).
    @cached_property
    def _layout(self) -> tuple[int, int]:
        """(scale, values per row): big in two rows when they fit across, else small
        in up to three."""
        for scale, rows in ((2, 2), (1, 3), (1, 4)):
            per_row = -(-len(self.values) // rows)
            if all(self._row_width(start, per_row, scale) <= WIDTH
                   for start in range(0, len(self.values), per_row)):
                return scale, per_row
        return 1, -(-len(self.values) // 4)

    def _row_width(self, start: int, per_row: int, scale: int) -> int:
        return sum(text_width(value, scale) + 2 * scale
                   for value in self.values[start : start + per_row])

    @cached_property
    def _cells(self) -> list[tuple[int, int, int]]:
        """(x, y, width) of every value: all of them stay in place and only the cursor
        moves, so a move repaints two cells rather than the whole row. Rows are a blank
        pixel apart from the cursor's box, and clear of the hint line."""
        scale, per_row = self._layout
        pitch = 7 * scale + 2
        cells = []
        for row_start in range(0, len(self.values), per_row):
            row = self.values[row_start : row_start + per_row]
            widths = [text_width(value, scale) + 2 * scale for value in row]
            spare = (WIDTH - sum(widths)) // max(1, len(row))
            x = (WIDTH - sum(widths) - spare * len(row)) // 2
            y = BODY_TOP + 11 + (row_start // per_row) * pitch
            for width in widths:
                cells.append((x, y, width + spare))
                x += width + spare
        return cells


def _dark_on_light(canvas: Canvas, box: tuple[int, int, int, int], x: int, y: int, text: str,
                   scale: int) -> None:
    """``text`` dark in a lit ``box`` that hugs its capitals (inverted text keeps room for
    descenders, which digits and card ranks do not have)."""
    canvas.frame(box, fill=1)
    ink = Canvas()
    ink.text(x, y, text, scale=scale)
    canvas.image.paste(0, (0, 0), ink.image)
