"""Full Counter's deck profile on the device: a line per entry of the ``deck`` option,
edited with UP/DOWN, checked as a whole (:meth:`Deck.from_option`) before it is kept.
"""

from __future__ import annotations

from typing import Any, Protocol

from companion.errors import CompanionError
from companion.games import full_counter as rules
from companion.ui.canvas import Canvas, clip
from companion.ui.screen import MENU_ROWS, Context, Message, Press, Screen, is_, wrap


class DeckSetup(Protocol):
    """The setup screen whose deck profile is edited (FullCounterSetup)."""

    deck: dict[str, Any]

    def returned(self, ctx: Context) -> Screen: ...


class DeckScreen(Screen):
    """The deck profile: UP/DOWN choose a line, OK edits it (UP/DOWN change, OK keeps,
    BACK cancels). A profile that does not add up is refused with the reason."""

    LINES: tuple[tuple[str, str], ...] = (
        ("numbers", "Numbers 1-"),
        ("copies", "Copies of each"),
        (rules.WILDFIRE, "Wildfire x"),
        (rules.MIRROR, "Dirty Mirror x"),
        (rules.NUCLEAR_BLAST, "Nuclear Blast"),
        (rules.GOLD_BAR, "Gold Bar"),
        (rules.BLACK_MARKET, "Black Market"),
        (rules.BACK_STABBER, "Back Stabber"),
        (rules.MAGNETIC_RAYS, "Magnetic Rays"),
        ("reset", "Reset to FU1"),
    )

    def __init__(self, setup: DeckSetup):
        super().__init__(setup)
        self.setup = setup
        self.row = 0
        self.top = 0
        self.editing: Any = None  # the value before editing began, while editing

    @property
    def hint(self) -> str:  # type: ignore[override]
        return "UP/DN value  OK keep" if self.editing is not None else "OK edit  BACK done"

    @property
    def key(self) -> str:
        return self.LINES[self.row][0]

    def press(self, ctx: Context, press: Press) -> Screen:
        if self.editing is not None:
            return self._edit(ctx, press)
        if press.button in ("up", "down"):
            self.row = (self.row + (1 if press.button == "down" else -1)) % len(self.LINES)
            self.top = min(max(self.top, self.row - MENU_ROWS + 1), self.row)
        elif is_(press, "ok") and self.key == "reset":
            self.setup.deck = dict(rules.DEFAULT_DECK)
        elif is_(press, "ok"):
            self.editing = self.setup.deck[self.key]
        elif press.button in ("back", "roll"):
            return self.setup.returned(ctx)
        return self

    def _edit(self, ctx: Context, press: Press) -> Screen:
        deck = self.setup.deck
        if press.button in ("up", "down"):
            deck[self.key] = self._step(deck[self.key], 1 if press.button == "up" else -1)
        elif is_(press, "back"):
            deck[self.key], self.editing = self.editing, None
        elif press.button in ("ok", "roll"):
            try:
                rules.Deck.from_option(deck)
            except CompanionError as err:
                # The value stays as set and still being edited: change it, or BACK.
                return Message("Not allowed", wrap(str(err)), self)
            self.editing = None
        return self

    def _step(self, value: int | None, step: int) -> int | None:
        """The next value of the line being edited; a role runs off (None) and back."""
        if self.key in rules.PROFILE_LIMITS:
            low, high = rules.PROFILE_LIMITS[self.key]
            return max(low, min(high, value + step))  # type: ignore[operator]
        ring: list[int | None] = [None, *range(1, self.setup.deck["numbers"] + 1)]
        at = ring.index(value) if value in ring else 0
        return ring[(at + step) % len(ring)]

    def draw(self, canvas: Canvas) -> None:
        deck = self.setup.deck
        try:
            size = f"{rules.Deck.from_option(deck).size} cards"
        except CompanionError:
            size = "?"
        canvas.title("Deck", size)
        for row in range(MENU_ROWS):
            index = self.top + row
            if index >= len(self.LINES):
                break
            key, words = self.LINES[index]
            value = "" if key == "reset" else deck[key]
            if key in rules.PROFILE_LIMITS:
                text = f"{words}{value}" if words.endswith(("-", "x")) else f"{words} {value}"
            elif key == "reset":
                text = words
            else:
                text = f"{words:<14}{'--' if value is None else value:>3}"
            if index == self.row and self.editing is not None:
                text = clip(text, 18) + " <>"
            canvas.line(row, text, invert=index == self.row)
