"""What every game's screens share: the setup, the session, the game menu (undo,
standings, leave), a value picker for entering cards, standings drawn big and the end.

A game's setup subclasses :class:`SetupScreen` and names its option rows and how its
session starts. Its table screen subclasses :class:`GameScreen` and says, in
:meth:`route`, which screen the match's current phase needs; after every applied event
or undo the screens ask ``route`` again, so they always follow the match rather than
keep their own copy. Its last screen subclasses :class:`GameOverScreen`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from companion.errors import CompanionError, StoreError
from companion.games import engine
from companion.session import Session
from companion.ui.canvas import BODY_TOP, WIDTH, Canvas, clip, text_width
from companion.ui.roster import PlayerPicker
from companion.ui.screen import (
    MENU_ROWS,
    Confirm,
    Context,
    Menu,
    MenuItem,
    Message,
    Press,
    Screen,
    is_,
    wrap,
)

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


# -- setting up a game ------------------------------------------------------------------

#: What OK does on a setup row: the screen to show next (the setup itself for a toggle).
RowAction = Callable[[Context], Screen]
#: One setup row: its label and what OK does on it.
Row = tuple[str, RowAction]


def next_choice(choices: Sequence[int], current: int) -> int:
    """The choice after ``current`` in ``choices``, round to the first again."""
    return choices[(choices.index(current) + 1) % len(choices)]


class SetupScreen(Screen):
    """A game's setup before its first event: the players row, the game's option rows
    and Start. UP/DOWN move (round the ends), OK does the row's action, ROLL starts from
    any row; a list longer than the screen scrolls and says where it is in the title.

    A game names its engine in ``game_id`` (which also says how many may play), its
    options in :meth:`option_rows` and creates its session and table in :meth:`start`.
    """

    hint = "OK change  ROLL start"
    roll_ready = True
    game_id = ""
    #: The names shown, and played under, while nobody is seated.
    default_names: tuple[str, ...] = ("P1", "P2", "P3")
    #: How the players row joins the names.
    joiner = ", "
    #: A line under the rows that OK cannot pick, drawn when the rows leave room for it.
    note = ""
    #: Errors of :meth:`start` that mean "not with these options": shown, not raised
    #: (the empty tuple catches nothing).
    refusals: tuple[type[Exception], ...] = ()

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent)
        self.names = names
        self.row = 0
        self.top = 0

    @property
    def rows(self) -> list[Row]:
        """(label, what OK does) for every row: the players, the options, Start."""
        who = self.joiner.join(self.names or self.default_names)
        return [(f"Players: {who}", self.pick_players), *self.option_rows(),
                ("Start", self.begin)]

    def option_rows(self) -> list[Row]:
        """The game's own rows, between the players and Start."""
        return []

    def change(self, **values: object) -> Screen:
        """Set options (what OK does on a row that toggles or cycles) and stay here."""
        for name, value in values.items():
            setattr(self, name, value)
        return self

    def pick_players(self, ctx: Context) -> Screen:
        """The roster, to seat as many players as the game takes."""
        game = engine(self.game_id)
        return PlayerPicker(ctx, game.min_players, game.max_players, self._seated, self,
                            chosen=self.names)

    def _seated(self, ctx: Context, names: list[str]) -> Screen:
        self.names = names
        return self

    def new_session(self, ctx: Context, options: dict) -> Session:
        """The game's session with the seated players (or the default names)."""
        names = self.names or list(self.default_names)
        return Session.start(self.game_id, names, options, store=ctx.store,
                             listeners=ctx.listeners)

    def start(self, ctx: Context) -> GameScreen:
        """The new game's table screen, its session started with the options set here;
        raises one of :attr:`refusals` when the options cannot start a game."""
        raise NotImplementedError

    def begin(self, ctx: Context) -> Screen:
        """Start the game: the table's first screen, or why these options cannot start."""
        try:
            table = self.start(ctx)
        except self.refusals as err:
            return Message("Cannot start", wrap(str(err))[:4], self)
        return table.route(ctx)

    def move_to(self, row: int) -> None:
        """Put the cursor on ``row``, scrolling just enough to keep it in view."""
        self.row = row
        self.top = min(row, max(self.top, row - MENU_ROWS + 1))

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down") and not press.long:
            self.move_to((self.row + (1 if press.button == "down" else -1)) % len(self.rows))
        elif is_(press, "ok"):
            return self.rows[self.row][1](ctx)
        elif is_(press, "roll"):
            return self.begin(ctx)
        else:
            return super().press(ctx, press)
        return self

    def draw(self, canvas: Canvas) -> None:
        rows = self.rows
        canvas.title(self.title, f"{self.row + 1}/{len(rows)}" if len(rows) > MENU_ROWS else "")
        for line, (label, _) in enumerate(rows[self.top : self.top + MENU_ROWS]):
            canvas.line(line, label, invert=self.top + line == self.row)
        if self.note and len(rows) < MENU_ROWS:
            canvas.line(len(rows), self.note)


# -- results and the end of a game ------------------------------------------------------


class ResultScreen(Screen):
    """What just happened at the table (a trick, a hand, a game, a round): OK or ROLL
    goes on to :meth:`next_screen`, BACK opens the game menu (the last event can still
    be undone)."""

    def __init__(self, table: GameScreen):
        super().__init__(table)
        self.table = table

    def next_screen(self, ctx: Context) -> Screen:
        """Where OK or ROLL goes: what the match needs now."""
        return self.table.route(ctx)

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("ok", "roll") and not press.long:
            return self.next_screen(ctx)
        if is_(press, "back"):
            return self.table.menu(ctx)
        return self


class GameOverScreen(Screen):
    """The game's end: who won and with what, big. DOWN shows the final standings (in
    the order that wins), UP a game's extra screen where it has one, BACK the game menu
    (an undo can still take the last event back), OK or ROLL goes home.

    A game says its title bar in ``heading`` and :meth:`title_right`, may add a last
    line in :meth:`extra_line`, and draws its own body in :meth:`draw_result` where the
    winner-and-total picture does not fit it.
    """

    heading = "Game over"
    standings_title = "Final standings"

    def __init__(self, table: GameScreen):
        super().__init__(table.parent)
        self.table = table

    def title_right(self, result: dict) -> str:
        """The right of the title bar (how long the game went)."""
        return ""

    def extra_line(self, result: dict) -> str:
        """A last line under the result (nothing when empty)."""
        return ""

    def down_screen(self) -> Screen:
        """What DOWN shows: the final standings."""
        match = self.table.match
        return Standings(match, self, title=self.standings_title, high_wins=match.high_wins)

    def up_screen(self) -> Screen | None:
        """What UP shows, if anything."""
        return None

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "down"):
            return self.down_screen()
        if is_(press, "up"):
            shown = self.up_screen()
            return self if shown is None else shown
        if is_(press, "back"):
            return self.table.menu(ctx)
        if press.button in ("ok", "roll") and self.parent is not None:
            return self.parent
        return self

    def draw(self, canvas: Canvas) -> None:
        result = self.table.match.result()
        canvas.title(self.heading, self.title_right(result))
        self.draw_result(canvas, result)
        extra = self.extra_line(result)
        if extra:
            canvas.line(3, extra)

    def draw_result(self, canvas: Canvas, result: dict) -> None:
        """"Winner" (or "Shared win") with the winning total big on the right, the
        winners' names under it, big while they fit."""
        winners = result["winners"]
        canvas.text(1, BODY_TOP + 1, "Winner" if len(winners) == 1 else "Shared win")
        total = str(result["totals"][winners[0]])
        canvas.big_text(WIDTH - 2, BODY_TOP + 1, total, scale=self.total_scale(total),
                        right=True)
        names = " & ".join(winners)
        scale = 2 if len(names) <= 10 else 1
        canvas.text(1, self.names_top(scale), clip(names, 21 // scale), scale=scale)

    def total_scale(self, total: str) -> int:
        """How big the winning total is drawn."""
        return 3

    def names_top(self, scale: int) -> int:
        """The y of the winners' names drawn at ``scale``."""
        return BODY_TOP + (13 if scale == 1 else 12)
