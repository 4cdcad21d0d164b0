"""Players at the table: the roster of names, a letter picker to add one, a picker that
seats players for a new game, and the roster's own menu (under History, see
:mod:`companion.ui.history`).

The roster lives in the event store; without a store the device still seats players,
under the names P1, P2, ...
"""

from __future__ import annotations

from collections.abc import Callable

from companion.errors import CompanionError
from companion.lang import lazy, pgettext
from companion.names import NAME_MAX, check_name, roster_name
from companion.ui.canvas import BODY_TOP, WIDTH, Canvas, clip, text_width
from companion.ui.keys import MOVE, Key, Keys
from companion.ui.screen import (
    MENU_ROWS,
    Confirm,
    Context,
    Menu,
    MenuItem,
    Message,
    Press,
    Screen,
    folded,
    is_,
    wrap,
)

#: The letter ring: A-Z, a space and a hyphen for double names, and SHIFT, which turns
#: the case of the letters the ring offers.
SHIFT = "^"
LETTERS = [chr(code) for code in range(ord("A"), ord("Z") + 1)] + [" ", "-", SHIFT]

Seated = Callable[[Context, list[str]], Screen]


class LetterPicker(Screen):
    """Spell a name: UP/DOWN turn the letter ring, OK adds the letter shown, BACK rubs out
    the last one, a long OK (or ROLL) finishes: ``done(ctx, name)`` gets the name
    checked by the name rule and may raise a CompanionError, which is shown with the
    name kept as spelled.

    The ring shows each letter in the case OK adds: capitals at the start of each word,
    small letters after; OK on ``^`` (SHIFT) turns that for the next letter ("DJ",
    "McCoy")."""

    # The title bar leaves 15 characters beside the letters used ("12/12").
    title = lazy("screen 15", "New name")
    keys = Keys(lazy("screen 21", "Spelling a name"), lazy("screen 21", "OK add  ROLL done"),
                Key("UP/DOWN", lazy("screen 21xN", "Turn the ring of letters (held: five at "
                                    "a time).")),
                Key("OK", lazy("screen 21xN", "Add the letter shown. On ^ the next letter "
                               "turns to a capital or a small one.")),
                Key("BACK", lazy("screen 21xN", "Rub out the last letter; with none left, "
                                 "go back.")),
                Key("ROLL", lazy("screen 21xN", "The name is done: add it.")),
                Key("OK", lazy("screen 21xN", "The name is done, as ROLL."), long=True))

    def __init__(self, done: Callable[[Context, str], Screen], parent: Screen):
        super().__init__(parent)
        self.done = done
        self.name = ""
        self.cursor = 0
        self.shift = False

    def shown(self, letter: str) -> str:
        """``letter`` of the ring as it is shown now, which is what OK adds."""
        capital = (not self.name or self.name.endswith((" ", "-"))) != self.shift
        return letter.upper() if capital else letter.lower()

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            step = (5 if press.long else 1) * (1 if press.button == "down" else -1)
            self.cursor = (self.cursor + step) % len(LETTERS)
        elif is_(press, "ok") and LETTERS[self.cursor] == SHIFT:
            self.shift = not self.shift
        elif is_(press, "ok") and len(self.name) < NAME_MAX:
            self.name += self.shown(LETTERS[self.cursor])
            self.shift = False
        elif is_(press, "back") and self.name:
            self.name = self.name[:-1]
        elif is_(press, "ok", long=True) or is_(press, "roll"):
            try:
                return self.done(ctx, check_name(self.name))
            except CompanionError as refused:
                # Back to this picker with the name as spelled: a refusal loses nothing.
                return Message(pgettext("screen 21", "Not added"), wrap(str(refused)), self)
        else:
            return super().press(ctx, press)
        return self

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title, f"{len(self.name)}/{NAME_MAX}")
        shown = self.name + "_"
        canvas.text(1, BODY_TOP + 1, shown, scale=2 if len(shown) <= 10 else 1)
        for offset in range(-3, 4):
            letter = self.shown(LETTERS[(self.cursor + offset) % len(LETTERS)])
            x = (offset + 3) * 18 + 2
            letter = "_" if letter == " " else letter
            centre = x + (18 - text_width(letter, 2)) // 2
            canvas.text(centre, BODY_TOP + 24, letter, scale=2, invert=offset == 0)


class PlayerPicker(Screen):
    """Seat players from the roster, most recent first: OK seats or unseats (the order
    of picking is the seat order), "+ New name" adds one, ROLL starts."""

    keys = Keys(lazy("screen 21", "Seating the players"), lazy("screen 21", "OK seat  ROLL done"),
                MOVE,
                Key("OK", lazy("screen 21xN", "Seat the name picked, or take it off its seat: "
                               "the order picked is the order of play. On + New name: spell "
                               "a new one.")),
                Key("ROLL", lazy("screen 21xN", "Done: play with the players seated.")),
                Key("BACK", lazy("screen 21xN", "Go back; the seats stay as they were.")))
    roll_ready = True

    def __init__(self, ctx: Context, low: int, high: int, seated: Seated, parent: Screen,
                 chosen: list[str] | None = None):
        super().__init__(parent)
        self.low, self.high = low, high
        self.seated = seated
        self.chosen: list[str] = list(chosen or [])
        self.can_add = ctx.store is not None
        self.names = self._roster(ctx)
        self.selected = 0
        self.top = 0

    def _roster(self, ctx: Context) -> list[str]:
        if ctx.store is None:
            return [f"P{n}" for n in range(1, self.high + 1)]
        names = ctx.store.roster()
        return names + [name for name in self.chosen if name not in names]

    @property
    def title(self) -> str:  # type: ignore[override]
        span = f"{self.low}" if self.low == self.high else f"{self.low}-{self.high}"
        # "2 of 2", not "2 of 2-2"
        # Translators: {n} players seated of {span}, the number the game takes ("2-6").
        return pgettext("screen 21", "Players {n} of {span}").format(n=len(self.chosen),
                                                                     span=span)

    @property
    def rows(self) -> list[str]:
        return ([pgettext("screen 17", "+ New name")] if self.can_add else []) + self.names

    def press(self, ctx: Context, press: Press) -> Screen:
        rows = self.rows
        if press.button in ("up", "down") and not press.long:
            self.selected = (self.selected + (1 if press.button == "down" else -1)) % len(rows)
            self.top = min(self.selected, max(self.top, self.selected - MENU_ROWS + 1))
        elif is_(press, "ok"):
            row = rows[self.selected]
            if self.can_add and self.selected == 0:  # "+ New name"
                return LetterPicker(self._added, self)
            if row in self.chosen:
                self.chosen.remove(row)
            elif len(self.chosen) < self.high:
                self.chosen.append(row)
        elif is_(press, "roll"):
            if not self.low <= len(self.chosen) <= self.high:
                return Message(pgettext("screen 21", "Players"), folded(
                    pgettext("screen 21x4", "Seat {low} to {high}\nplayers first.").format(
                        low=self.low, high=self.high)), self)
            return self.seated(ctx, list(self.chosen))
        else:
            return super().press(ctx, press)
        return self

    def _added(self, ctx: Context, name: str) -> Screen:
        # A spelling of a roster player is that player ("Kate" seats the roster's
        # "ΚΑΤΕ"): the one name rule, never a refusal as a lookalike of itself.
        (name,) = ctx.store.seat_players([name])  # refused: the letter picker says why
        if roster_name(name, ctx.store.roster()) is None:  # a new player
            name = ctx.store.add_player(name)
        self.names = self._roster(ctx)
        if len(self.chosen) < self.high and name not in self.chosen:
            self.chosen.append(name)
        return self

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        rows = self.rows
        for row, name in enumerate(rows[self.top : self.top + MENU_ROWS]):
            index = self.top + row
            seat = f"{self.chosen.index(name) + 1}." if name in self.chosen else "  "
            canvas.line(row, f"{seat} {clip(name, 17)}", invert=index == self.selected)


def roster_menu(ctx: Context, parent: Screen) -> Screen:
    """Every name; OK on a name offers to take it off; "+ New name" adds one."""
    def add(ctx: Context, name: str) -> Screen:
        ctx.store.add_player(name)  # refused: the letter picker says why
        return roster_menu(ctx, parent)

    items = [MenuItem(pgettext("screen 21", "+ New name"),
                      lambda ctx, menu: LetterPicker(add, menu))]
    for name in ctx.store.roster():
        items.append(MenuItem(name, lambda ctx, menu, name=name: Confirm(
            pgettext("screen 21", "Remove a name"), folded(pgettext(
                "screen 21x4", "Take {name} off\nthe roster? Past games\nkeep the name.")
                .format(name=name)),
            lambda ctx: _remove(ctx, name, menu.parent), menu)))
    return Menu(pgettext("screen 21", "Roster"), items, parent)


def _remove(ctx: Context, name: str, history: Screen) -> Screen:
    ctx.store.remove_player(name)
    return roster_menu(ctx, history)


__all__ = ["LetterPicker", "PlayerPicker", "roster_menu", "WIDTH"]
