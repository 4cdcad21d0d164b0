"""Count Up 21 at the table: the highest card in play and what may follow it, cards left
in each hand, tricks won, the match score; each card played or pass entered with a
picker that offers only what the rules allow, then the trick, game and match results.

The screens follow the engine (:mod:`companion.games.count_up`): the picker is built from
``match.expecting().choices``, and every play or pass goes in as an event.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games import count_up as rules
from companion.lang import lazy, pgettext
from companion.session import Session
from companion.table import scores
from companion.ui.canvas import BODY_TOP, CHAR_W, COLUMNS, WIDTH, Canvas, fitting, text_width
from companion.ui.keys import GAME_DONE, GAME_MENU, SETUP_KEYS, Key, Keys
from companion.ui.play import GameOverScreen, GameScreen, ResultScreen, Row, SetupScreen
from companion.ui.screen import Context, Menu, MenuItem, Press, Said, Screen, is_

#: The picker's item for a pass, beside the numbers (shown as :func:`pass_word`).
PASS = "pass"
#: Where the picker row and the "lead"/"high" word go: right of the big number.
RIGHT_X = 44
#: The rows of the two players (name, cards in hand, tricks won) under the big number.
ROWS_Y = BODY_TOP + 22
#: The y of the first of the two rows of a big score (a result screen).
SCORE_Y = BODY_TOP + 11
#: A long UP/DOWN moves the picker this many places.
BIG_STEP = 5

# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
LEAD_KEYS = Keys(lazy("screen 21", "A lead"), lazy("screen 21", "UP/DOWN card  OK lead"),
                 Key("UP/DOWN", lazy("screen 21xN", "Move to the card led (held: five at a "
                                     "time).")),
                 Key("OK", lazy("screen 21xN", "Enter it: the trick begins.")), GAME_MENU)
FOLLOW_KEYS = Keys(lazy("screen 21", "A follow"), lazy("screen 21", "OK play  ROLL pass"),
                   Key("UP/DOWN", lazy("screen 21xN", "Move to the card played: only the cards "
                                       "that may follow are offered, and pass.")),
                   Key("OK", lazy("screen 21xN", "Enter the card (or the pass) under the "
                                  "cursor.")),
                   Key("ROLL", lazy("screen 21xN", "Pass: the other player wins the trick.")),
                   GAME_MENU)
PASS_KEYS = Keys(lazy("screen 21", "Nothing to follow"), lazy("screen 21", "OK or ROLL: pass"),
                 Key("OK/ROLL", lazy("screen 21xN", "The player passes: the other wins the "
                                     "trick.")), GAME_MENU)
OVER = Keys(lazy("screen 21", "The match is over"), "", GAME_MENU)
TRICK_KEYS = Keys(lazy("screen 21", "A trick won"), lazy("screen 21", "OK next  UP/DOWN pick"),
                  Key("OK/ROLL", lazy("screen 21xN", "On: the winner leads the next trick.")),
                  Key("UP/DOWN", lazy("screen 21xN", "On, moving the leader's card at once.")),
                  GAME_MENU)
GAME_KEYS = Keys(lazy("screen 21", "A game won"), lazy("screen 21", "OK next"),
                 Key("OK/ROLL", lazy("screen 21xN", "On to the next game.")), GAME_MENU)
MATCH_KEYS = Keys(lazy("screen 21", "The match won"), lazy("screen 21", "DOWN games  OK end"),
                  Key("DOWN", lazy("screen 21xN", "Every game: its winner and the tricks (*: "
                                   "won on the last trick).")), GAME_DONE, GAME_MENU)


def pass_word() -> str:
    """The word the picker shows for a pass, beside the numbers."""
    # Translators: the picker's item for passing the turn, beside the card numbers.
    return pgettext("screen 6", "pass")


class CountUpSetup(SetupScreen):
    """Two players and how many games win the match; ROLL (or OK on Start) starts."""

    title = "Count Up 21"
    game_id = "count-up-21"
    default_names = ("P1", "P2")
    joiner = " & "
    note = Said(lazy("screen 21", "First entered leads"))

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        self.games_to_win = rules.GAMES_TO_WIN

    def option_rows(self) -> list[Row]:
        # 1 to 5 games: one quick game up to a long evening; the rules say 3.
        return [(pgettext("screen 21", "Match: first to {n}").format(n=self.games_to_win),
                 lambda ctx: self.change(games_to_win=self.games_to_win % 5 + 1))]

    def start(self, ctx: Context) -> GameScreen:
        session = self.new_session(ctx, {"games_to_win": self.games_to_win})
        return CountUpTable(session, self.parent)


class CountUpTable(GameScreen):
    """The trick in play. UP/DOWN pick a card from what the rules allow (and "pass"),
    OK enters it, ROLL passes; BACK opens the game menu (undo, standings, leave)."""

    all_keys = (SETUP_KEYS, LEAD_KEYS, FOLLOW_KEYS, PASS_KEYS, TRICK_KEYS, GAME_KEYS, MATCH_KEYS,
                OVER)

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
    def keys(self) -> Keys:  # type: ignore[override]
        if self.match.over:
            return OVER
        if not self.match.trick:
            return LEAD_KEYS
        return PASS_KEYS if self.choices() == [PASS] else FOLLOW_KEYS

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
        first, second = match.players
        # Translators: the title's right (11 characters beside "Game 17"): the match
        # score, each player's games won (at most 9 each).
        canvas.title(_game_title(match.game_number),
                     pgettext("screen 11", "games {first}-{second}").format(
                         first=match.totals[first], second=match.totals[second]))
        leading = not match.trick
        item = self.selected()
        big = item if leading else match.highest
        canvas.big_text(1, BODY_TOP, str(big) if isinstance(big, int) else "--")
        self._draw_picker(canvas, item)
        # Between the big number and the column header: 5 columns.
        canvas.text(RIGHT_X, BODY_TOP + 11, pgettext("screen 5", "lead") if leading
                    else pgettext("screen 5", "high"))
        # Translators: the header over two columns of numbers at the right end of each
        # player's row: cards left in the hand (5 wide), tricks won (4 wide).
        header = pgettext("screen 8", "hand won")
        canvas.text(WIDTH - 1 - text_width(header), BODY_TOP + 11, header)
        for row, name in enumerate(match.players):
            numbers = f"{match.cards_left[name]:>5}{match.tricks[name]:>4}"
            canvas.text(1, ROWS_Y + row * 10, f"{name:<{COLUMNS - len(numbers)}}{numbers}",
                        invert=name == match.current)

    def _draw_picker(self, canvas: Canvas, item: int | str | None) -> None:
        """"8 [9] 10 pass": the choices in one row right of the big number, the cursor
        inverted; a long list (a lead) scrolls, with < and > where it goes on."""
        player = self.match.current
        room = (WIDTH - RIGHT_X) // CHAR_W
        if self.choices() == [PASS]:
            # Right of the big number: 14 columns.
            canvas.text(RIGHT_X, BODY_TOP, pgettext("screen 14", "no card: pass")
                        if self.match.cards_left[player] == 0
                        else pgettext("screen 14", "no fit: pass"))
            return
        labels = [pass_word() if choice == PASS else str(choice) for choice in self.choices()]
        at = labels.index(pass_word() if item == PASS else str(item))
        first, last = strip_window(labels, at, room - 1)  # a column clear of the ">"
        x = RIGHT_X
        if first > 0:
            canvas.text(x, BODY_TOP, "<")
        x += text_width("< ")
        for index in range(first, last):
            canvas.text(x, BODY_TOP, labels[index], invert=index == at)
            x += text_width(labels[index] + " ")
        if last < len(labels):
            canvas.text(WIDTH - 1 - text_width(">"), BODY_TOP, ">")


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

    keys = TRICK_KEYS

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
        # Beside the tricks won, whose title gives way (never cut) if the two do not fit.
        canvas.title(pgettext("screen 9", "Trick {n}").format(n=self.number),
                     pgettext("screen 11", "tricks won"), right_gives_way=True)
        canvas.line(0, fitting(
            pgettext("screen 21 (if it fits)", "{winner} took it, leads").format(winner=winner),
            pgettext("screen 21 (if it fits)", "{winner} took it").format(winner=winner),
            winner))  # a long name alone: the tricks won are under it, big
        draw_score(canvas, match.players, match.tricks)


def draw_score(canvas: Canvas, players: Sequence[str], counts: dict[str, int]) -> None:
    """Two players' counts big, a row each under the first line: the name on the left,
    the count on the right."""
    for row, name in enumerate(players):
        y = SCORE_Y + row * 16
        canvas.text(1, y + 4, name)
        canvas.big_text(WIDTH - 2, y, str(counts[name]), scale=2, right=True)


class GameResult(ResultScreen):
    """A game's winner, its tricks (and the last-trick tie-break), the match score."""

    keys = GAME_KEYS

    def __init__(self, table: CountUpTable, index: int):
        super().__init__(table)
        self.game = table.match.games[index]

    def draw(self, canvas: Canvas) -> None:
        match = self.table.match
        game = self.game
        winner = game["winner"]
        tricks = scores.tally(game["tricks"], winner)
        canvas.title(_game_title(game["game"]), pgettext("screen 12", "games won"),
                     right_gives_way=True)
        # Translators: {tricks} is the tricks each took, the winner's first: "7-6".
        won = pgettext("screen 21 (if it fits)", "{winner} won {tricks}").format(
            winner=winner, tricks=tricks)
        # Translators: the game's result when a long name leaves no room for the words
        # above: the winner and the tricks ("Ann: 7-6"), at most 9 characters of its own.
        short = pgettext("screen 21", "{winner}: {tricks}").format(winner=winner, tricks=tricks)
        # Equal tricks say the last trick decided it; the words say so when they fit. The
        # score stays whatever the name's length.
        canvas.line(0, fitting(pgettext("screen 21 (if it fits)",
                                        "{winner} won {tricks}, last trick")
                               .format(winner=winner, tricks=tricks), won, short)
                    if game["tie_break"] else fitting(won, short))
        draw_score(canvas, match.players, match.totals)


class MatchOver(GameOverScreen):
    """The match winner and the games score big; DOWN lists the games; OK ends."""

    keys = MATCH_KEYS
    # The title bar's right says "first to 5": 10 columns left.
    heading = Said(lazy("screen 10", "Match over"))

    def title_right(self, result: dict) -> str:
        return pgettext("screen 10 (if it fits)", "first to {n}").format(
            n=self.table.match.games_to_win)

    def down_screen(self) -> Screen:
        return games_list(self.table.match, self)

    def draw_result(self, canvas: Canvas, result: dict) -> None:
        match = self.table.match
        winner = result["winners"][0]
        # A long name alone: the games won are under it, big.
        canvas.line(0, fitting(pgettext("screen 21 (if it fits)", "Match to {winner}").format(
            winner=winner), winner))
        draw_score(canvas, match.players, match.totals)


def games_list(match: rules.CountUp, parent: Screen) -> Menu:
    """One line per game: its number, winner and tricks (* = won on the last trick)."""
    first, second = match.players
    items = []
    for game in match.games:
        mark = "*" if game["tie_break"] else ""
        tricks = f"{game['tricks'][first]}-{game['tricks'][second]}{mark}"
        items.append(MenuItem(f"{game['game']}. {game['winner']}", lambda ctx, menu: None,
                              note=tricks))
    # Translators: the list of games played; * marks a game won on the last trick.
    return Menu(pgettext("screen 21", "Games (*: tie)"), items, parent)


def _game_title(number: int) -> str:
    """"Game 3": the title beside the games score ("games 2-1"): 9 columns, a match
    lasts 17 games at the most."""
    # Translators: the game's number in the match, the title's left (9 characters).
    return pgettext("screen 9", "Game {n}").format(n=number)
