"""Full Counter's questions and lists during a game: who starts it (the face-up card,
then the card in hand, asked value by value), the face-down card a player turned over,
and every player's cards by count.

Each goes back to the table that opened it (:mod:`companion.ui.full_counter.table`), and what
it offers is what the engine's ``match.expecting()`` allows.
"""

from __future__ import annotations

from typing import Any

from companion.games import full_counter as rules
from companion.lang import lazy, pgettext
from companion.ui.canvas import Canvas, fitting
from companion.ui.full_counter.cards import card_of, label
from companion.ui.keys import ANY_BACK, SCROLL, Key, Keys
from companion.ui.picker import ValuePicker
from companion.ui.play import GameScreen
from companion.ui.screen import MENU_ROWS, Context, Menu, MenuItem, Press, Screen, is_

# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
CARDS_HELD_KEYS = Keys(lazy("screen 21", "Every player's cards"),
                       lazy("screen 21", "UP/DOWN more  OK back"), SCROLL, ANY_BACK)
BLIND_KEYS = Keys(lazy("screen 21", "A face-down card"), lazy("screen 21", "OK this card"),
                  Key("UP/DOWN", lazy("screen 21xN", "Move to the card the player turned "
                                      "over.")),
                  Key("OK/ROLL", lazy("screen 21xN", "Enter it.")),
                  Key("BACK", lazy("screen 21xN", "Go back without a card.")))
STARTER_KEYS = Keys(lazy("screen 21", "Who starts"), lazy("screen 21", "OK pick  BACK menu"),
                    Key("UP/DOWN", lazy("screen 21xN", "Move to the player who has the card, "
                                        "or to Nobody.")),
                    Key("OK/ROLL", lazy("screen 21xN", "That player has it; Nobody: the next "
                                        "question.")),
                    Key("BACK", lazy("screen 21xN", "The game menu; on the question about the "
                                     "hand, the question about the table again.")))


class CardsHeld(Screen):
    """Every player's cards by count, the deck and the pile (a counted match): one row
    a player, hand / face-up / face-down, "out" for who is out. UP/DOWN scroll (five
    players need six rows), any other button goes back."""

    keys = CARDS_HELD_KEYS

    def __init__(self, match: Any, parent: Screen):
        super().__init__(parent)
        self.match = match
        self.top = 0

    def rows(self) -> list[str]:
        """The deck and the pile, then a row a player: the name (up to 12 characters)
        and the cards in hand, face up and face down, under the title's words."""
        state = self.match.state()
        # Translators: Full Counter, how many cards are in the deck (the face-down stack
        # hands are refilled from) and in the pile played onto this round.
        rows = [pgettext("screen 21", "deck {deck}, pile {n}").format(
            deck=state["deck"], n=state["pile"])]
        for name in self.match.players:
            held = state["zones"][name]
            # Translators: in a player's row of card counts: the player is out of the game.
            counts = (pgettext("screen 9", "out") if name in state["out"] else
                      f"{held['hand']:>3}{held['face_up']:>3}{held['blind']:>3}")
            rows.append(f"{name:<12}{counts:>9}")
        return rows

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            last_top = max(0, len(self.rows()) - MENU_ROWS)
            self.top = max(0, min(last_top, self.top + (1 if press.button == "down" else -1)))
            return self
        return self.parent.returned(ctx)

    def draw(self, canvas: Canvas) -> None:
        # Translators: the title over three columns of counts (3 characters each, the
        # last ending at the right edge): cards in hand, face up, face down.
        canvas.title(pgettext("screen 21", "Cards: hand up down"))
        for row, text in enumerate(self.rows()[self.top:self.top + MENU_ROWS]):
            canvas.line(row, text)


class BlindPicker(ValuePicker):
    """The face-down card that was turned over: UP/DOWN to it, OK enters it."""

    keys = BLIND_KEYS

    def __init__(self, table: GameScreen, player: str, parent: Screen):
        deck = table.deck
        # Translators: the title of the picker of a face-down card the player turned
        # over (played blind); a long name is the title alone.
        title = fitting(pgettext("screen 21 (if it fits)", "{name}'s blind").format(name=player),
                        player)
        super().__init__(title, [label(card) for card in deck.cards()],
                         self._flipped, parent, start=str(table.lowest_plain()))
        self.table = table
        self.player = player

    def _flipped(self, ctx: Context, entered: list[str]) -> Screen:
        event = {"type": "blind", "player": self.player, "value": card_of(entered[-1])}
        return self.table.apply(ctx, event, after=self)

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "ok") or is_(press, "roll"):  # one card: no list to finish
            return self._flipped(ctx, [self.values[self.cursor]])
        return super().press(ctx, press)


class StarterQuestion(Menu):
    """FU2 as questions: who has a face-up Gold Bar (first from the dealer's left)?
    Nobody: who has one in hand? Nobody again: the same for the next value."""

    keys = STARTER_KEYS

    def __init__(self, table: GameScreen, face_up: bool):
        match = table.match
        self.table = table
        self.face_up = face_up
        self.value = match.asking_value
        # Translators: who starts a Full Counter game: the question over the players,
        # first who shows the card face up on the table, then who holds it in hand (Gold
        # Bar is a card's name).
        if match.deck.role(self.value) == rules.GOLD_BAR and face_up:
            title = pgettext("screen 21", "Face-up Gold Bar?")
        elif match.deck.role(self.value) == rules.GOLD_BAR:
            title = pgettext("screen 21", "Gold Bar in hand?")
        elif face_up:
            title = pgettext("screen 21", "Who has a face-up {number}?").format(
                number=self.value)
        else:
            title = pgettext("screen 21", "Who has a {number} in hand?").format(
                number=self.value)
        # Translators: beside the name of the player who deals this game.
        deals = pgettext("screen 8", "deals")
        items = [MenuItem(name, lambda ctx, menu, name=name: self._holder(ctx, name),
                          note=deals if name == match.dealer else "")
                 for name in match.from_dealers_left]
        items.append(MenuItem(pgettext("screen 21", "Nobody"),
                              lambda ctx, menu: self._nobody(ctx)))
        super().__init__(title, items, table)

    def _holder(self, ctx: Context, name: str) -> Screen:
        event: dict[str, Any] = {"type": "starter", "value": self.value,
                                 "face_up": [name] if self.face_up else []}
        if not self.face_up:
            event["in_hand"] = [name]
        return self.table.apply(ctx, event, after=self)

    def _nobody(self, ctx: Context) -> Screen:
        if self.face_up:
            return StarterQuestion(self.table, face_up=False)
        event = {"type": "starter", "value": self.value, "face_up": [], "in_hand": []}
        return self.table.apply(ctx, event, after=self)

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "back"):
            return self.table.menu(ctx, self) if self.face_up else StarterQuestion(self.table, True)
        return super().press(ctx, press)
