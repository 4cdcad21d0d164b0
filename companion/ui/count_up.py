"""Count Up 21 at the table: the highest card in play and what may follow it, cards left
in each hand, tricks won, the match score; each card played or pass entered with a
picker that offers only what the rules allow, then the trick, game and match results.

The screens follow the engine (:mod:`companion.games.count_up`): the picker is built from
``match.expecting().choices``, and every play or pass goes in as an event.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games import count_up as rules
from companion.session import Session
from companion.ui.canvas import BODY_TOP, WIDTH, Canvas, clip, text_width
from companion.ui.play import GameOverScreen, GameScreen, ResultScreen, Row, SetupScreen
from companion.ui.screen import Context, Menu, MenuItem, Press, Screen, is_

#: The picker's word for a pass, beside the numbers.
PASS = "pass"
#: The y of the picker row: under the big number, clear of the hint line.
PICKER_Y = BODY_TOP + 31
#: Where the hand/trick table starts on the right of the big number, and its columns.
TABLE_X, COLUMN_X, COLUMN_W = 40, 77, 26
#: The y of the line under a big score.
BOTTOM_Y = BODY_TOP + 33
#: A long UP/DOWN moves the picker this many places.
BIG_STEP = 5


class CountUpSetup(SetupScreen):
    """Two players and how many games win the match; ROLL (or OK on Start) starts."""

    title = "Count Up 21"
    game_id = "count-up-21"
    default_names = ("P1", "P2")
    joiner = " & "
    note = "First entered leads"

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        self.games_to_win = rules.GAMES_TO_WIN

    def option_rows(self) -> list[Row]:
        # 1 to 5 games: one quick game up to a long evening; the rules say 3.
        return [(f"Match: first to {self.games_to_win}",
                 lambda ctx: self.change(games_to_win=self.games_to_win % 5 + 1))]

    def start(self, ctx: Context) -> GameScreen:
        session = self.new_session(ctx, {"games_to_win": self.games_to_win})
        return CountUpTable(session, self.parent)


class CountUpTable(GameScreen):
    """The trick in play. UP/DOWN pick a card from what the rules allow (and "pass"),
    OK enters it, ROLL passes; BACK opens the game menu (undo, standings, leave)."""

    def __init__(self, session: Session, home: Screen | None):
        super().__init__(session, home)
        self.games_seen = len(self.match.games)
        self.tricks_seen = len(self.match.history)
        self.cursor = 0
        self.turn: tuple | None = None

    # -- routing ---------------------------------------------------------------------

    def route(self, ctx: Context) -> Screen:
        match = self.match
        if len(match.games) > self.games_seen:
            self.games_seen = len(match.games)
            self.tricks_seen = len(match.history)
            return GameResult(self, self.games_seen - 1)
        if match.over:
            return MatchOver(self)
        if len(match.history) > self.tricks_seen:
            self.tricks_seen = len(match.history)
            return TrickWon(self)
        return self

    def undone(self, ctx: Context) -> None:
        # Nothing the undo brought back is announced again.
        self.games_seen = len(self.match.games)
        self.tricks_seen = len(self.match.history)
        self.turn = None

    # -- the picker ------------------------------------------------------------------

    def choices(self) -> list[int | str]:
        """What may be entered now: the legal numbers, then "pass" when it is legal."""
        expect = self.match.expecting()
        items: list[int | str] = list(expect.choices.get("card", ()))
        if "pass" in expect.types:
            items.append(PASS)
        return items

    def selected(self) -> int | str | None:
        """The item under the cursor; a new turn starts on the lowest legal number."""
        items = self.choices()
        if not items:
            return None
        turn = (self.match.game_number, len(self.match.played), self.match.current)
        if turn != self.turn:
            self.turn, self.cursor = turn, 0
        return items[min(self.cursor, len(items) - 1)]

    @property
    def can_pass(self) -> bool:
        return "pass" in self.match.expecting().types

    @property
    def roll_ready(self) -> bool:  # type: ignore[override]
        return self.can_pass

    @property
    def hint(self) -> str:  # type: ignore[override]
        if self.match.over:
            return ""
        if not self.match.trick:
            return "UP/DN card  OK lead"
        if self.choices() == [PASS]:
            return "OK or ROLL: pass"
        return "OK play  ROLL pass"

    def press(self, ctx: Context, press: Press) -> Screen:
        if self.match.over:
            return super().press(ctx, press)
        if press.button in ("up", "down"):
            self.selected()  # a new turn resets the cursor before it moves
            step = (BIG_STEP if press.long else 1) * (1 if press.button == "up" else -1)
            self.cursor = (self.cursor + step) % len(self.choices())
            return self
        if is_(press, "ok"):
            return self.enter(ctx, self.selected())
        if is_(press, "roll") and self.can_pass:
            return self.enter(ctx, PASS)
        return super().press(ctx, press)

    def enter(self, ctx: Context, item: int | str | None) -> Screen:
        """Apply the play (a number) or the pass for whoever is on turn."""
        player = self.match.current
        if item == PASS:
            return self.apply(ctx, {"type": "pass", "player": player})
        return self.apply(ctx, {"type": "play", "player": player, "card": item})

    # -- picture ---------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        match = self.match
        canvas.title(f"Game {match.game_number}", match_score(match))
        leading = not match.trick
        canvas.text(1, BODY_TOP, "lead" if leading else "high")
        item = self.selected()
        big = item if leading else match.highest
        canvas.big_text(1, BODY_TOP + 9, str(big) if isinstance(big, int) else "--")
        self._draw_hands(canvas)
        self._draw_picker(canvas, item)

    def _draw_hands(self, canvas: Canvas) -> None:
        """Cards in hand and tricks won, a column per player; the one on turn inverted."""
        match = self.match
        for column, name in enumerate(match.players):
            x = COLUMN_X + column * COLUMN_W
            canvas.text(x, BODY_TOP, clip(name, 4).rjust(4), invert=name == match.current)
            canvas.text(x, BODY_TOP + 10, str(match.cards_left[name]).rjust(4))
            canvas.text(x, BODY_TOP + 20, str(match.tricks[name]).rjust(4))
        canvas.text(TABLE_X, BODY_TOP + 10, "hand")
        canvas.text(TABLE_X, BODY_TOP + 20, "tricks")

    def _draw_picker(self, canvas: Canvas, item: int | str | None) -> None:
        """"Bob: 8 [9] 10 pass": the choices in one row, the cursor inverted; a long list
        (a lead) scrolls, with < and > where it goes on."""
        player = self.match.current
        prefix = f"{clip(player, 5)}:"
        if self.choices() == [PASS]:
            why = "no cards" if self.match.cards_left[player] == 0 else "no follow"
            canvas.text(1, PICKER_Y, f"{prefix} {why}, pass")
            return
        labels = [str(choice) for choice in self.choices()]
        at = labels.index(str(item))
        room = 21 - len(prefix) - 1
        first, last = strip_window(labels, at, room)
        x = 1 + text_width(prefix + " ")
        canvas.text(1, PICKER_Y, prefix)
        if first > 0:
            canvas.text(x, PICKER_Y, "<")
        x += text_width("<")
        for index in range(first, last):
            canvas.text(x, PICKER_Y, labels[index], invert=index == at)
            x += text_width(labels[index] + " ")
        if last < len(labels):
            canvas.text(WIDTH - text_width(">"), PICKER_Y, ">")


def match_score(match: rules.CountUp) -> str:
    """"Ann 1-0 Bob": games won, in seat order."""
    first, second = match.players
    return (f"{clip(first, 5)} {match.totals[first]}-{match.totals[second]} "
            f"{clip(second, 5)}")


def strip_window(labels: Sequence[str], at: int, room: int) -> tuple[int, int]:
    """The slice [first, last) of ``labels`` to show so that ``at`` is in view: items
    take their length plus a space, and 2 columns stay free for the < > marks."""
    width = room - 2
    first = last = at
    used = len(labels[at]) + 1
    # Grow round the cursor, one item each side in turn, while there is room.
    while True:
        grown = False
        if last + 1 < len(labels) and used + len(labels[last + 1]) + 1 <= width:
            last += 1
            used += len(labels[last]) + 1
            grown = True
        if first > 0 and used + len(labels[first - 1]) + 1 <= width:
            first -= 1
            used += len(labels[first]) + 1
            grown = True
        if not grown:
            return first, last + 1


class TrickWon(ResultScreen):
    """Who took the trick and the tricks so far; the winner leads next. OK or ROLL goes
    on; UP/DOWN go on and already move the leader's picker."""

    hint = "OK next  UP/DN pick"

    def __init__(self, table: CountUpTable):
        super().__init__(table)
        self.trick = table.match.history[-1]
        self.number = len(table.match.history)

    def next_screen(self, ctx: Context) -> Screen:
        return self.table

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            return self.table.press(ctx, press)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        match = self.table.match
        winner = self.trick["winner"]
        canvas.title(f"{winner} takes trick {self.number}")
        canvas.line(0, "tricks won", center=True)
        draw_score(canvas, match.players, match.tricks)
        canvas.centered(BOTTOM_Y, f"{winner} leads next")


def draw_score(canvas: Canvas, players: Sequence[str], counts: dict[str, int]) -> None:
    """Two players' counts big in the middle ("2-1"), their names at either side."""
    first, second = players
    score = f"{counts[first]}-{counts[second]}"
    canvas.centered(BODY_TOP + 10, score, scale=3)
    # The names get what the score leaves at either side.
    room = max(3, (WIDTH - text_width(score, 3)) // (2 * text_width("x")))
    middle = BODY_TOP + 17
    canvas.text(1, middle, clip(first, room))
    canvas.text(WIDTH - text_width(clip(second, room)), middle, clip(second, room))


class GameResult(ResultScreen):
    """A game's winner, its tricks (and the last-trick tie-break), the match score."""

    hint = "OK next"

    def __init__(self, table: CountUpTable, index: int):
        super().__init__(table)
        self.game = table.match.games[index]

    def draw(self, canvas: Canvas) -> None:
        match = self.table.match
        game = self.game
        first, second = match.players
        tricks = f"{game['tricks'][first]}-{game['tricks'][second]}"
        canvas.title(f"Game {game['game']} to {game['winner']}")
        if game["tie_break"]:
            canvas.line(0, clip(f"tricks {tricks}, last {game['last_trick']}"), center=True)
        else:
            canvas.line(0, f"tricks {tricks}", center=True)
        draw_score(canvas, match.players, match.totals)
        if match.over:
            canvas.centered(BOTTOM_Y, f"Match to {clip(game['winner'], 12)}")
        else:
            canvas.centered(BOTTOM_Y, f"games won; {match.first_leader} leads")


class MatchOver(GameOverScreen):
    """The match winner and the games score big; DOWN lists the games; OK ends."""

    hint = "DN games  OK end"
    heading = "Match over"

    def title_right(self, result: dict) -> str:
        return f"first to {self.table.match.games_to_win}"

    def down_screen(self) -> Screen:
        return games_list(self.table.match, self)

    def draw_result(self, canvas: Canvas, result: dict) -> None:
        match = self.table.match
        canvas.line(0, "games won", center=True)
        draw_score(canvas, match.players, match.totals)
        canvas.centered(BOTTOM_Y, f"Match to {clip(result['winners'][0], 12)}")


def games_list(match: rules.CountUp, parent: Screen) -> Menu:
    """One line per game: its number, winner and tricks (* = won on the last trick)."""
    first, second = match.players
    items = []
    for game in match.games:
        mark = "*" if game["tie_break"] else ""
        tricks = f"{game['tricks'][first]}-{game['tricks'][second]}{mark}"
        items.append(MenuItem(f"{game['game']}. {game['winner']}", lambda ctx, menu: None,
                              note=tricks))
    return Menu("Games (*: tie)", items, parent)
