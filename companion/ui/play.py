"""What every game's screens share: the session, the game menu (undo, standings, leave),
a value picker for entering cards, and standings drawn big.

A game's table screen subclasses :class:`GameScreen` and says, in :meth:`route`, which
screen the match's current phase needs; after every applied event or undo the screens
ask ``route`` again, so they always follow the match rather than keep their own copy.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from companion.errors import CompanionError, StoreError
from companion.session import Session
from companion.ui.canvas import BODY_TOP, WIDTH, Canvas, clip, text_width
from companion.ui.screen import Confirm, Context, Menu, MenuItem, Message, Press, Screen, is_, wrap

log = logging.getLogger("companion")


class GameScreen(Screen):
    """A game's main screen. ``home`` is where leaving the game goes."""

    roll_ready = True

    def __init__(self, session: Session, home: Screen | None):
        super().__init__(home)
        self.session = session

    @property
    def match(self):
        return self.session.match

    def route(self, ctx: Context) -> Screen:
        """The screen the match's current phase needs (default: this one)."""
        return self

    def returned(self, ctx: Context) -> Screen:
        return self.route(ctx)

    def apply(self, ctx: Context, event: dict, after: Screen | None = None) -> Screen:
        """Apply ``event``; on refusal show why over ``after`` (default: this screen)."""
        try:
            self.session.apply(event)
        except StoreError as err:  # checked fine, but could not be written: not applied
            log.error("event not saved: %s", err)
            return Message("Not saved", wrap(str(err))[:4], after or self)
        except CompanionError as err:
            return Message("Not allowed", wrap(str(err))[:4], after or self)
        return self.after_event(ctx)

    def after_event(self, ctx: Context) -> Screen:
        """The screen after an event was applied."""
        return self.route(ctx)

    def menu(self, ctx: Context) -> Screen:
        """The game menu: undo, standings, leave."""
        items = [MenuItem("Back to the game", lambda ctx, menu: self.route(ctx))]
        if self.match.events:
            items.append(MenuItem("Undo " + describe(self.match.events[-1]),
                                  lambda ctx, menu: self._undo(ctx)))
        items.append(MenuItem("Standings", lambda ctx, menu: Standings(
            self.match, menu, high_wins=self.match.high_wins)))
        items.append(MenuItem("Leave (kept)", lambda ctx, menu: self.parent))
        if not self.match.over:
            items.append(MenuItem("End this game", lambda ctx, menu: Confirm(
                "End this game?", ["It will not be", "offered to resume."],
                lambda ctx: self._abandon(), menu)))
        return Menu(self.session.title, items, self)

    def _undo(self, ctx: Context) -> Screen:
        try:
            self.session.undo()
        except CompanionError as err:
            return Message("Cannot undo", wrap(str(err))[:4], self)
        self.undone(ctx)
        return self.route(ctx)

    def undone(self, ctx: Context) -> None:
        """Forget screen-only state that the undone event may have made stale."""

    def _abandon(self) -> Screen | None:
        self.session.abandon()
        return self.parent

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "back"):
            return self.menu(ctx)
        return self


def describe(event: dict) -> str:
    """A short description of an event for the undo line ("Ann roll 3", "Bob play 9")."""
    words = [str(event.get("player", "")), str(event.get("type", ""))]
    for key, value in event.items():
        if key in ("type", "player"):
            continue
        words.append(" ".join(map(str, value)) if isinstance(value, list) else str(value))
    return " ".join(w for w in words if w)


class ValuePicker(Screen):
    """Enter a list of values (card ranks) fast: UP/DOWN move round a ring, OK adds the
    value under the cursor (again adds it again), BACK takes the last one off, ROLL is
    done. ``submit`` gets the list and returns the next screen (or raises to refuse)."""

    hint = "OK add  ROLL done"
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
    ):
        super().__init__(parent)
        self.title = title
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
        elif is_(press, "back", long=True):
            self.entered.clear()
        elif is_(press, "roll"):
            return self.submit(ctx, list(self.entered))
        return self

    def draw(self, canvas: Canvas) -> None:
        right = f"{self.limits[0]}-{self.limits[1]}" if self.limits else ""
        canvas.title(self.title, right)
        summary = self.summary(self.entered) if self.summary and self.entered else ""
        room = 21 - len(summary) - (1 if summary else 0)
        shown = " ".join(self.entered) or "(none yet)"
        if len(shown) > room:
            shown = "~" + shown[-(room - 1):]
        canvas.text(1, BODY_TOP, shown)
        if summary:
            canvas.text(WIDTH - text_width(summary), BODY_TOP, summary)
        for index, (x, y, width) in enumerate(self._cells()):
            value = self.values[index]
            centre = x + (width - text_width(value, self.scale) + self.scale) // 2
            if index == self.cursor:
                canvas.frame((x, y - 1, x + width - 1, y + 7 * self.scale), fill=1)
            canvas.text(centre, y, value, scale=self.scale, invert=index == self.cursor)

    @property
    def scale(self) -> int:
        return 2 if len(self.values) <= 14 else 1

    def _cells(self) -> list[tuple[int, int, int]]:
        """(x, y, width) of every value: all of them stay in place and only the cursor
        moves, so a move repaints two cells rather than the whole row."""
        per_row = -(-len(self.values) // 2) if self.scale == 2 else 11
        cells = []
        for row_start in range(0, len(self.values), per_row):
            row = self.values[row_start : row_start + per_row]
            widths = [text_width(value, self.scale) + 2 * self.scale for value in row]
            spare = (WIDTH - sum(widths)) // max(1, len(row))
            x = (WIDTH - sum(widths) - spare * len(row)) // 2
            y = BODY_TOP + 10 + (row_start // per_row) * (8 * self.scale + 1)
            for width in widths:
                cells.append((x, y, width + spare))
                x += width + spare
        return cells


class Standings(Screen):
    """Cumulative totals, leader first, the scores big (2 players per screen)."""

    hint = "UP/DN more  OK back"

    def __init__(self, match, parent: Screen | None, title: str = "Standings",
                 high_wins: bool = True):
        super().__init__(parent)
        self.title = title
        result = match.result()
        winners = set(result.get("winners") or ())
        # Winners first: a tie-break can crown a player whose total equals another's.
        self.rows = sorted(result["totals"].items(),
                           key=lambda kv: (kv[0] not in winners, -kv[1] if high_wins else kv[1]))
        self.top = 0

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            step = 2 if press.button == "down" else -2
            self.top = max(0, min(self.top + step, (len(self.rows) - 1) // 2 * 2))
            return self
        if press.button in ("ok", "roll") and self.parent is not None:
            return self.parent.returned(ctx)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        pages = (len(self.rows) + 1) // 2
        canvas.title(self.title, f"{self.top // 2 + 1}/{pages}" if pages > 1 else "")
        for row, (name, total) in enumerate(self.rows[self.top : self.top + 2]):
            y = BODY_TOP + 1 + row * 22
            place = self.top + row + 1
            canvas.text(1, y + 7, clip(f"{place}. {name}", 11))
            canvas.big_text(WIDTH - 2, y, str(total), right=True)
