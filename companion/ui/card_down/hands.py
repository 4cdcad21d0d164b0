"""Final Card-Down after someone goes out: the game's end, each hand entered as one sum
(or card by card on the table's picker), the game's points, and the match's end.

Each goes back to the table that opened it (:mod:`companion.ui.card_down.table`); BACK from a
question there leads to the game menu.
"""

from __future__ import annotations

from companion.games import card_down as rules
from companion.lang import lazy, npgettext, pgettext
from companion.ui.canvas import BODY_TOP, COLUMNS, WIDTH, Canvas
from companion.ui.keys import FINAL_STANDINGS, GAME_DONE, GAME_MENU, Key, Keys
from companion.ui.play import GameScreen, MatchOverScreen, ResultScreen, Standings
from companion.ui.screen import Context, Press, Screen, folded, is_, wrap

# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
WENT_OUT_KEYS = Keys(lazy("screen 21", "Someone went out"),
                     lazy("screen 21", "OK values  DOWN sums"),
                     Key("OK/ROLL", lazy("screen 21xN", "Enter each hand card by card.")),
                     Key("DOWN", lazy("screen 21xN", "Enter each hand as one sum of points.")),
                     GAME_MENU)
SUM_KEYS = Keys(lazy("screen 21", "A hand's sum"), lazy("screen 21", "UP/DOWN sum  ROLL ok"),
                Key("UP/DOWN", lazy("screen 21xN", "One point more or less (held: ten).")),
                Key("OK/ROLL", lazy("screen 21xN", "Enter the sum.")), GAME_MENU)
POINTS_KEYS = Keys(lazy("screen 21", "A game's points"), lazy("screen 21", "OK standings"),
                   Key("UP/DOWN", lazy("screen 21xN", "Scroll the players.")),
                   Key("OK/ROLL", lazy("screen 21xN", "The standings after this game.")),
                   GAME_MENU)
MATCH_OVER_KEYS = Keys(lazy("screen 21", "The match's end"), lazy("screen 21", "DOWN all  OK end"),
                       FINAL_STANDINGS, GAME_DONE, GAME_MENU)


class ToMenu(Screen):
    """Where BACK from a question leads: the game menu (undo, standings, leave)."""

    def __init__(self, table: GameScreen):
        super().__init__(table)
        self.table = table

    def returned(self, ctx: Context) -> Screen:
        return self.table.menu(ctx)


class WentOut(Screen):
    """Someone discarded their last card: the game is over; values or sums next?"""

    roll_ready = True

    keys = WENT_OUT_KEYS

    def __init__(self, table: GameScreen):
        super().__init__(table)
        self.table = table

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "ok") or is_(press, "roll") or is_(press, "down"):
            self.table.by_sum = is_(press, "down")
            return self.table.route(ctx)
        if is_(press, "back"):
            return self.table.menu(ctx, self)
        return self

    def draw(self, canvas: Canvas) -> None:
        state = self.table.match.state()
        # Translators: {n} is the game's number in the match.
        canvas.title(pgettext("screen 21", "Game {n} over").format(n=state["game_number"]))
        # Translators: the player laid their last card: the game is over.
        lines = wrap(pgettext("screen 21x2", "{name} went out!").format(name=state["went_out"]))
        # Translators: the cards left in every other hand are entered next: card by card
        # (values) or as one number (a sum).
        lines += wrap(pgettext("screen 21x2", "Now enter each hand: values, or a sum"))
        canvas.paragraph(lines)


class SumPicker(Screen):
    """One hand's points as a single number: UP/DOWN 1 (held: 10), ROLL or OK enters."""

    roll_ready = True

    keys = SUM_KEYS

    def __init__(self, table: GameScreen, player: str, held: int, parent: Screen):
        super().__init__(parent)
        self.table = table
        self.player = player
        self.held = held
        self.most = held * rules.card_points(rules.VALUES[-1])
        self.total = 0

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            step = (1 if press.button == "up" else -1) * (10 if press.long else 1)
            self.total = max(0, min(self.most, self.total + step))
            return self
        if is_(press, "ok") or is_(press, "roll"):
            return self.table.apply(ctx, {"type": "hand", "player": self.player,
                                          "sum": self.total}, after=self)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.player, f"0-{self.most}")
        # Translators: two lines of 11 left of the sum drawn big: the points of the
        # cards left in the player's hand.
        text = npgettext("screen 11x2", "Sum of\n{n} card", "Sum of\n{n} cards", self.held)
        for row, line in enumerate(folded(text.format(n=self.held), 11)[:2]):
            canvas.text(1, BODY_TOP + 4 + row * 10, line)
        canvas.big_text(WIDTH - 4, BODY_TOP + 4, str(self.total), right=True)


class GameResult(ResultScreen):
    """Each player's points for the game just ended, who went out first; UP/DOWN scroll."""

    ROWS = 4

    keys = POINTS_KEYS

    def __init__(self, table: GameScreen, index: int):
        super().__init__(table)
        self.game = table.match.result()["games"][index]
        self.top = 0

    def next_screen(self, ctx: Context) -> Screen:
        # Translators: the title of the standings after game {n} of the match.
        title = pgettext("screen 17", "After game {n}").format(n=self.game["game"])
        return Standings(self.table.match, self.table, title=title, high_wins=False)

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            step = 1 if press.button == "down" else -1
            count = len(self.game["players"])
            self.top = max(0, min(self.top + step, count - self.ROWS))
            return self
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        rows = sorted(self.game["players"].items(), key=lambda row: row[1]["points"])
        width = max(len(name) for name in self.game["players"])
        # Translators: the title of every player's points for game {n} of the match.
        canvas.title(pgettext("screen 15", "Game {n} points").format(n=self.game["game"]),
                     f"{self.top + 1}/{len(rows)}" if len(rows) > self.ROWS else "")
        for row, (name, player) in enumerate(rows[self.top : self.top + self.ROWS]):
            # Translators: in a player's row of points: they went out (no cards left); or
            # how many cards they were left holding ("c" = cards), 4 characters.
            mark = (pgettext("screen 4", "OUT") if name == self.game["went_out"] else
                    npgettext("screen 4", "{n}c", "{n}c", player["cards"]).format(
                        n=player["cards"]))
            canvas.line(row, f"{name:<{width}} {mark:>4} {player['points']:>{COLUMNS - width - 6}}",
                        invert=name == self.game["went_out"])


class MatchOver(MatchOverScreen):
    """The lowest total wins the match: winner(s) and their total big; DOWN all totals."""

    keys = MATCH_OVER_KEYS

    def extra_line(self, result: dict) -> str:
        # Translators: under "Winner", beside the winning total: the lowest total wins.
        return pgettext("screen 12", "lowest wins")
