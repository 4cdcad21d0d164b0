"""Full Counter's deck profile on the device: a line per entry of the ``deck`` option,
edited with UP/DOWN, checked as a whole (:meth:`Deck.from_option`) before it is kept.
"""

from __future__ import annotations

from typing import Any, Protocol

from companion.errors import CompanionError
from companion.games import full_counter as rules
from companion.lang import lazy, npgettext, pgettext
from companion.ui.canvas import Canvas, clip
from companion.ui.keys import Key, Keys
from companion.ui.screen import MENU_ROWS, Context, Message, Press, Screen, is_, wrap


class DeckSetup(Protocol):
    """The setup screen whose deck profile is edited (FullCounterSetup)."""

    deck: dict[str, Any]

    def returned(self, ctx: Context) -> Screen: ...


# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
DECK_KEYS = Keys(lazy("screen 21", "The deck"), lazy("screen 21", "OK edit  BACK done"),
                 Key("UP/DOWN", lazy("screen 21xN", "Move to another line.")),
                 Key("OK", lazy("screen 21xN", "Edit the line picked; on Reset to FU1, the "
                                "standard deck again.")),
                 Key("BACK/ROLL", lazy("screen 21xN", "Done: back to the setup.")))
DECK_EDIT_KEYS = Keys(lazy("screen 21", "The deck: a line"),
                      lazy("screen 21", "UP/DOWN value OK keep"),
                      Key("UP/DOWN", lazy("screen 21xN", "Change the number (a card's number "
                                          "runs to none and round).")),
                      Key("OK/ROLL", lazy("screen 21xN", "Keep it; a deck that does not add up "
                                          "is refused with the reason.")),
                      Key("BACK", lazy("screen 21xN", "Put the number back as it was.")))


class DeckScreen(Screen):
    """The deck profile: UP/DOWN choose a line, OK edits it (UP/DOWN change, OK keeps,
    BACK cancels). A profile that does not add up is refused with the reason."""

    # Translators: the button names printed on the device (UP, DN/DOWN, OK, BACK, ROLL)
    # stay as they are inside the hints. The deck lines name Full Counter's cards as the
    # cards print them; a line with {n} is edited in place (18 characters, " <>" after).
    # A card's line without {n} has its number in a column of its own (14 characters).
    LINES: tuple[tuple[str, lazy], ...] = (
        # Translators: the deck's numbered cards run from 1 to {n}.
        ("numbers", lazy("screen 18", "Numbers 1-{n}")),
        # Translators: how many cards of each number the deck has.
        ("copies", lazy("screen 18", "Copies of each {n}")),
        # Translators: how many Wildfire cards the deck has ("x" = times).
        (rules.WILDFIRE, lazy("screen 18", "Wildfire x{n}")),
        # Translators: how many Dirty Mirror cards the deck has ("x" = times).
        (rules.MIRROR, lazy("screen 18", "Dirty Mirror x{n}")),
        (rules.NUCLEAR_BLAST, lazy("screen 14", "Nuclear Blast")),
        (rules.GOLD_BAR, lazy("screen 14", "Gold Bar")),
        (rules.BLACK_MARKET, lazy("screen 14", "Black Market")),
        (rules.BACK_STABBER, lazy("screen 14", "Back Stabber")),
        (rules.MAGNETIC_RAYS, lazy("screen 14", "Magnetic Rays")),
        # Translators: FU1 is the rule sheet's name of the standard deck: keep it.
        ("reset", lazy("screen 21", "Reset to FU1")),
    )

    def __init__(self, setup: DeckSetup):
        super().__init__(setup)
        self.setup = setup
        self.row = 0
        self.top = 0
        self.editing: Any = None  # the value before editing began, while editing

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        return DECK_KEYS if self.editing is None else DECK_EDIT_KEYS

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
                return Message(pgettext("screen 21", "Not allowed"), wrap(str(err)), self)
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
            cards = rules.Deck.from_option(deck).size
            # Translators: the deck's size in the title's right (up to "176 cards").
            size = npgettext("screen 9", "{n} card", "{n} cards", cards).format(n=cards)
        except CompanionError:
            size = "?"
        # Translators: the title of the deck profile's editor (its size on the right).
        canvas.title(pgettext("screen 11", "Deck"), size)
        for row in range(MENU_ROWS):
            index = self.top + row
            if index >= len(self.LINES):
                break
            key, words = self.LINES[index]
            if key in rules.PROFILE_LIMITS:
                text = str(words).format(n=deck[key])
            elif key == "reset":
                text = str(words)
            else:
                value = deck[key]
                text = f"{words!s:<14}{'--' if value is None else value:>3}"
            if index == self.row and self.editing is not None:
                text = clip(text, 18) + " <>"
            canvas.line(row, text, invert=index == self.row)
