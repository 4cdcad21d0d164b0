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
from typing import Any

from companion.errors import CompanionError
from companion.games import engine
from companion.lang import lazy, npgettext, pgettext
from companion.session import Session
from companion.table.timer import TIMER_OPTION, clock_text, timer_choices, timer_label
from companion.ui.canvas import (
    BODY_TOP,
    CHAR_W,
    COLUMNS,
    LINE_H,
    WIDTH,
    Canvas,
    fitting,
    text_width,
)
from companion.ui.help import game_help
from companion.ui.keys import SETUP_KEYS, STANDINGS_KEYS, Keys
from companion.ui.moves import describe, move_word
from companion.ui.picker import ValuePicker
from companion.ui.roster import PlayerPicker
from companion.ui.screen import (
    MENU_ROWS,
    Confirm,
    Context,
    Lines,
    Menu,
    MenuItem,
    Message,
    Press,
    Said,
    Screen,
    is_,
    wrap,
)

log = logging.getLogger("companion")


class GameScreen(Screen):
    """A game's main screen. ``home`` is where leaving the game goes; ``all_keys`` are
    the keys of every screen of the game, for its Help (the order a game meets them)."""

    roll_ready = True
    all_keys: tuple[Keys, ...] = ()

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

    def apply(self, ctx: Context, event: dict, after: Screen | None = None, *,
              draw: bool = False) -> Screen:
        """Apply ``event``; on refusal show why over ``after`` (default: this screen).
        ``draw``: the device draws its dice or token first, from the match's own source
        (:meth:`Session.drawn`: the same again at the same place, so undo never
        re-rolls); the event applied is then ``match.events[-1]``."""
        try:
            if draw:
                event = self.session.drawn(event)
            self.session.apply(event)  # a log that refuses the write: applied unsaved
        except CompanionError as err:
            return Message(pgettext("screen 21", "Not allowed"), wrap(str(err)), after or self)
        return self.after_event(ctx)

    def entry_picker(self, title: str, values: Sequence[str],
                     event_of: Callable[[list[str]], dict], parent: Screen,
                     **options: Any) -> ValuePicker:
        """A :class:`ValuePicker` whose entry becomes ``event_of(entered)``, applied to
        this match; a refusal goes back to this same picker, what was entered and the
        cursor as they were. ``options`` as ValuePicker takes them."""
        picker = ValuePicker(title, values,
                             lambda ctx, entered: self.apply(ctx, event_of(entered),
                                                             after=picker),
                             parent, **options)
        return picker

    def after_event(self, ctx: Context) -> Screen:
        """The screen after an event was applied."""
        return self.route(ctx)

    def menu(self, ctx: Context, came_from: Screen | None = None) -> Screen:
        """The game menu: undo, standings, leave, Help (``came_from``: the screen it was
        opened from, whose buttons Help says first; default this one)."""
        came_from = self if came_from is None else came_from
        items = [MenuItem(pgettext("screen 21", "Back to the game"),
                          lambda ctx, menu: self.route(ctx))]
        if self.match.events:
            items.append(MenuItem(self.undo_label(self.match.events[-1]),
                                  lambda ctx, menu: self._undo(ctx)))
        items.append(MenuItem(pgettext("screen 21", "Standings"), lambda ctx, menu: Standings(
            self.match, menu, high_wins=self.match.high_wins)))
        clocks = ctx.clocks()
        if clocks:  # a chess clock: each player's own time left
            items.append(MenuItem(pgettext("screen 21", "Clocks"), lambda ctx, menu: Lines(
                pgettext("screen 21", "Clocks"), [f"{name:<12} {clock_text(left):>8}"
                                                  for name, left in clocks.items()], menu)))
        items.append(MenuItem(pgettext("screen 21", "Leave (kept)"),
                              lambda ctx, menu: self._leave(ctx)))
        if not self.match.over:
            items.append(MenuItem(pgettext("screen 21", "End this game"), lambda ctx, menu: Confirm(
                pgettext("screen 21", "End this game?"),
                wrap(pgettext("screen 21x4", "It will not be offered to resume.")),
                lambda ctx: self._abandon(), menu)))
        items.append(MenuItem(pgettext("screen 21", "Help"), lambda ctx, menu: game_help(
            self.match.game_id, came_from, menu)))
        return Menu(self.session.title, items, self)

    def describe_event(self, event: dict, named: bool = True) -> str:
        """``event`` in a few words for the undo line; without the player's name when
        ``named`` is False."""
        return describe(event if named else {k: v for k, v in event.items() if k != "player"})

    def undo_label(self, event: dict) -> str:
        """"Undo Ann roll 3" as it fits one menu row: a long name leaves out the name,
        then the values ("Undo roll 3", "Undo hand")."""
        # Translators: a menu row; {move} is the move in the log's own words and
        # numbers ("Ann roll 3", "roll 3", "hand").
        undo = pgettext("screen 21", "Undo {move}")
        return fitting(*(undo.format(move=words) for words in (
            self.describe_event(event), self.describe_event(event, named=False),
            move_word(event))),
        pgettext("screen 21", "Undo the last move"))

    def _leave(self, ctx: Context) -> Screen:
        if not self.session.saved and not self.match.over:
            # Only memory holds it: keep it there, offered for resume and written once
            # saving works again (the header says meanwhile that games are not saved).
            ctx.parked = self.session
        return self.parent

    def _undo(self, ctx: Context) -> Screen:
        try:
            self.session.undo()
        except CompanionError as err:
            return Message(pgettext("screen 21", "Cannot undo"), wrap(str(err)), self)
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


class Standings(Screen):
    """Cumulative totals, leader first, two players a page: the place and name with
    the total big beside them, or (when a long name and a long total do not fit side by
    side) one player a page with the total under the name."""

    keys = STANDINGS_KEYS
    #: How big the totals are drawn: two rows of it fit with a blank line between.
    SCALE = 2

    # A title shares its bar with the page ("10/10"): 15 columns are left for it.
    def __init__(self, match, parent: Screen | None, title: str | None = None,
                 high_wins: bool = True):
        super().__init__(parent)
        self.title = pgettext("screen 15", "Standings") if title is None else title
        result = match.result()
        winners = set(result.get("winners") or ())
        # Winners first: a tie-break can crown a player whose total equals another's.
        self.rows = sorted(result["totals"].items(),
                           key=lambda kv: (kv[0] not in winners, -kv[1] if high_wins else kv[1]))
        self.top = 0
        self.per_page = 2 if all(self._side_by_side(place, name, total) for place, (name, total)
                                 in enumerate(self.rows, start=1)) else 1

    def _side_by_side(self, place: int, name: str, total: int) -> bool:
        room = WIDTH - 3 - text_width(str(total), self.SCALE)
        return text_width(f"{place}. {name} ") <= room

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            step = self.per_page if press.button == "down" else -self.per_page
            last = (len(self.rows) - 1) // self.per_page * self.per_page
            self.top = max(0, min(self.top + step, last))
            return self
        if press.button in ("ok", "roll") and self.parent is not None:
            return self.parent.returned(ctx)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        pages = -(-len(self.rows) // self.per_page)
        canvas.title(self.title, f"{self.top // self.per_page + 1}/{pages}" if pages > 1 else "")
        shown = self.rows[self.top : self.top + self.per_page]
        for row, (name, total) in enumerate(shown):
            place = self.top + row + 1
            if self.per_page == 1:  # the name on its own line, the total big under it
                canvas.text(1, BODY_TOP + 1, f"{place}. {name}")
                canvas.big_text(WIDTH - 2, BODY_TOP + 14, str(total), right=True)
                continue
            y = BODY_TOP + 2 + row * 20
            canvas.text(1, y + 4, f"{place}. {name}")
            canvas.big_text(WIDTH - 2, y, str(total), scale=self.SCALE, right=True)


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

    keys = SETUP_KEYS
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
    #: The turn timer for this game: seconds (0: none) and how turns count ("turn" or
    #: "clock"); ``[timer]`` in the configuration (set by companion.ui.games), the
    #: seconds changed on the Timer row.
    timer_turn = 0
    timer_mode = "turn"
    configured_turn = 0

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent)
        self.names = names
        self.row = 0
        self.top = 0

    @property
    def rows(self) -> list[Row]:
        """(label, what OK does) for every row: the players, the options, Start."""
        names = self.names or self.default_names
        # The names are on the screen OK opens when they do not fit here.
        who = fitting(pgettext("screen 21 (if it fits)", "Players: {names}").format(
                          names=self.joiner.join(names)),
                      npgettext("screen 21", "Players: {n} seated", "Players: {n} seated",
                                len(names)).format(n=len(names)))
        # A game without turns (Block Lottery) has no time to run: no Timer row.
        timer = [(timer_label(self.timer_turn, self.timer_mode), self._next_timer)] \
            if engine(self.game_id).has_turns else []
        return [(who, self.pick_players), *self.option_rows(), *timer,
                (pgettext("screen 21", "Start"), self.begin),
                (pgettext("screen 21", "Help"), lambda ctx: game_help(self.game_id, self, self))]

    def _next_timer(self, ctx: Context) -> Screen:
        choices = timer_choices(self.timer_mode, self.configured_turn)
        now = self.timer_turn if self.timer_turn in choices else self.configured_turn
        return self.change(timer_turn=next_choice(choices, now))

    def option_rows(self) -> list[Row]:
        """The game's own rows, between the players and Start."""
        return []

    @classmethod
    def recent_players(cls, ctx: Context) -> list[str] | None:
        """The roster's most recent names to offer a new game (as many as
        :attr:`default_names`, within what the game takes); None while the roster has
        fewer names than the game needs (or there is no roster)."""
        roster = _roster_of(ctx)
        game = engine(cls.game_id)
        if len(roster) < game.min_players:
            return None
        wanted = max(game.min_players, min(len(cls.default_names), game.max_players))
        return roster[:wanted]

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
        if engine(self.game_id).has_turns and (self.timer_turn or self.configured_turn):
            # Kept with the match, so a resume runs this timer (also "off" against
            # [timer]), whatever the configuration says by then.
            options = {**options, TIMER_OPTION: {"turn": self.timer_turn,
                                                 "mode": self.timer_mode}}
        return Session.start(self.game_id, names, options, store=ctx.store,
                             listeners=ctx.listeners, secret=ctx.new_secret())

    def start(self, ctx: Context) -> GameScreen:
        """The new game's table screen, its session started with the options set here;
        raises one of :attr:`refusals` when the options cannot start a game."""
        raise NotImplementedError

    def begin(self, ctx: Context) -> Screen:
        """Start the game: the table's first screen, or why these options cannot start.
        With names on the roster, a game is never played (and stored) under P1, P2...:
        the players are picked first."""
        if self.names is None and _roster_of(ctx):
            return self.pick_players(ctx)
        try:
            table = self.start(ctx)
        except self.refusals as err:
            return Message(pgettext("screen 21", "Cannot start"), wrap(str(err)), self)
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
            canvas.line(len(rows), str(self.note))


def _roster_of(ctx: Context) -> list[str]:
    """The roster's names, most recent first ([] without a store, or one that fails)."""
    if ctx.store is None:
        return []
    try:
        return ctx.store.roster()
    except CompanionError:  # storage gone: the setup still works, under P1, P2...
        return []


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
            return self.table.menu(ctx, self)
        return self


class GameOverScreen(Screen):
    """The game's end: who won and with what, big. DOWN shows the final standings (in
    the order that wins), UP a game's extra screen where it has one, BACK the game menu
    (an undo can still take the last event back), OK or ROLL goes home.

    A game says its title bar in ``heading`` and :meth:`title_right`, may add a short
    line under "Winner" in :meth:`extra_line`, and draws its own body in
    :meth:`draw_result` where the winner-and-total picture does not fit it.
    """

    # The title bar's right holds how long the game went ("12 rounds"): 11 columns left.
    heading = Said(lazy("screen 11", "Game over"))
    standings_title = Said(lazy("screen 15", "Final standings"))

    def __init__(self, table: GameScreen):
        super().__init__(table.parent)
        self.table = table

    def title_right(self, result: dict) -> str:
        """The right of the title bar (how long the game went)."""
        return ""

    def extra_line(self, result: dict) -> str:
        """A few words under "Winner", beside the total (nothing when empty)."""
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
            return self.table.menu(ctx, self)
        if press.button in ("ok", "roll") and self.parent is not None:
            return self.parent
        return self

    def draw(self, canvas: Canvas) -> None:
        result = self.table.match.result()
        canvas.title(str(self.heading), self.title_right(result), right_gives_way=True)
        self.draw_result(canvas, result)

    def draw_result(self, canvas: Canvas, result: dict) -> None:
        """"Winner" (or "Shared win") and the extra line on the left, the winning total
        big on the right, the winners' names under them: big while one fits, else on
        two lines (more winners than that: how many, DOWN shows them)."""
        winners = result["winners"]
        # Left of the winning total drawn big: 12 columns while it has 4 digits.
        label = pgettext("screen 12", "Winner") if len(winners) == 1 \
            else pgettext("screen 12", "Shared win")
        extra = self.extra_line(result)
        total, names = str(result["totals"][winners[0]]), " & ".join(winners)
        left = text_width(max(label, extra, key=len)) + CHAR_W
        # As big as fits beside the words; names on lines under it (an accent reaches
        # up two rows) leave it at twice the size.
        biggest = 3 if len(names) <= COLUMNS // 2 else 2
        scale = next((scale for scale in range(biggest, 1, -1)
                      if left + text_width(total, scale) <= WIDTH - 2), 1)
        canvas.text(1, BODY_TOP + 1, label)
        if extra:
            canvas.text(1, BODY_TOP + 11, extra)
        canvas.big_text(WIDTH - 2, BODY_TOP + 1, total, scale=scale, right=True)
        if len(names) <= COLUMNS // 2:
            canvas.text(1, BODY_TOP + 25, names, scale=2)
            return
        lines = wrap(names)
        if len(lines) > 2:
            lines = [npgettext("screen 21", "{n} player ties:", "{n} players tie:",
                               len(winners)).format(n=len(winners)),
                     pgettext("screen 21", "DOWN lists them")]
        for row, text in enumerate(lines):  # under the total, clear of the hint line
            canvas.text(1, BODY_TOP + 23 + row * LINE_H, text)




class MatchOverScreen(GameOverScreen):
    """The end of a match of several games: "Match over" beside how many it lasted."""

    @property
    def heading(self) -> str:  # type: ignore[override]
        # Translators: the title of a match's end, beside how many games it lasted.
        return pgettext("screen 12", "Match over")

    def title_right(self, result: dict) -> str:
        games = len(result["games"])
        # Translators: how many games the match lasted, beside "Match over": tried
        # first (any length), the 8 characters after it when it does not fit.
        return fitting(npgettext("screen 10 (if it fits)", "{n} game", "{n} games",
                                 games).format(n=games),
                       npgettext("screen 8", "{n} game", "{n} games", games).format(n=games),
                       room=COLUMNS - 1 - len(str(self.heading)))
