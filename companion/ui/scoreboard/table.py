"""The scoreboard at the table, for any game the device does not know: players, a target
(or none), high or low wins; then each round's points per player with a fast number
picker, the totals, the leader and how many rounds each player has entered.

The screens follow the engine (:mod:`companion.games.scoreboard`): who may enter comes
from ``match.expecting()``, and every entry goes in as an event.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.errors import CompanionError
from companion.games import scoreboard as rules
from companion.lang import lazy, npgettext, pgettext
from companion.session import Session
from companion.ui.canvas import BODY_TOP, COLUMNS, WIDTH, Canvas, fitting, text_width
from companion.ui.keys import (
    FINAL_STANDINGS,
    GAME_DONE,
    GAME_MENU,
    SETUP_KEYS,
    STANDINGS_KEYS,
    Key,
    Keys,
)
from companion.ui.play import GameOverScreen, GameScreen, Row, SetupScreen
from companion.ui.screen import (
    MENU_ROWS,
    Confirm,
    Context,
    MenuItem,
    Message,
    Press,
    Said,
    Screen,
    is_,
    wrap,
)

#: The step sizes OK cycles through in the number picker.
POINT_STEPS = (1, 5, 10, 100)
TARGET_STEPS = (10, 50, 100, 1)
#: The target offered first when the setup turns one on.
FIRST_TARGET = 100

# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
NUMBER_KEYS = Keys(lazy("screen 21", "Entering a number"), lazy("screen 21", "OK step  ROLL enter"),
                   Key("UP", lazy("screen 21xN", "Add the step.")),
                   Key("DOWN", lazy("screen 21xN", "Take the step off.")),
                   Key("OK", lazy("screen 21xN", "The next step: 1, 5, 10, 100.")),
                   Key("OK", lazy("screen 21xN", "Back to 0."), long=True),
                   Key("ROLL", lazy("screen 21xN", "Enter the number.")),
                   Key("BACK", lazy("screen 21xN", "Leave without entering it.")))
SHEET = (Key("ROLL", lazy("screen 21xN", "Enter the points of the next player still to enter "
                          "this round.")),
         Key("UP/DOWN", lazy("screen 21xN", "Move to a player.")),
         Key("OK", lazy("screen 21xN", "Enter or change the points of the player picked.")),
         Key("BACK", lazy("screen 21xN", "The game menu: undo, final scores now, standings, "
                          "help, leave.")))
SHEET_KEYS = Keys(lazy("screen 21", "The score sheet"),
                  (lazy("screen 21 (if it fits)", "ROLL {player}  OK pick"),
                   lazy("screen 21", "ROLL next  OK pick")), *SHEET)
ENTERED_KEYS = Keys(lazy("screen 21", "The score sheet"), "", *SHEET)
OVER_KEYS = Keys(lazy("screen 21", "The game's end"), lazy("screen 21", "DOWN totals  OK end"),
                 FINAL_STANDINGS, GAME_DONE, GAME_MENU)


class NumberPicker(Screen):
    """Enter one number fast: UP adds the step, DOWN takes it off (below 0 is fine when
    ``low`` allows), OK changes the step (1, 5, 10, 100), a long OK goes back to 0, ROLL
    enters it, BACK leaves without entering. The step stays between entries, so a game
    scored in fives is set once."""

    keys = NUMBER_KEYS
    roll_ready = True

    def __init__(
        self,
        title: str,
        submit: Callable[[Context, int], Screen],
        parent: Screen,
        *,
        value: int = 0,
        low: int = -rules.POINTS_LIMIT,
        high: int = rules.POINTS_LIMIT,
        steps: Sequence[int] = POINT_STEPS,
        step: int | None = None,
        below: Callable[[int], str] | None = None,
        signed: bool = True,
        right: str = "",
    ):
        super().__init__(parent)
        self.title = title
        #: The right of the title bar ("round 3").
        self.right = right
        self.submit = submit
        self.value = value
        self.low, self.high = low, high
        self.steps = tuple(steps)
        self.step = step if step in self.steps else self.steps[0]
        self.below = below
        self.signed = signed

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            change = self.step if press.button == "up" else -self.step
            self.value = max(self.low, min(self.high, self.value + change))
        elif is_(press, "ok"):
            self.step = self.steps[(self.steps.index(self.step) + 1) % len(self.steps)]
        elif is_(press, "ok", long=True):
            self.value = max(self.low, min(self.high, 0))
        elif is_(press, "roll"):
            return self.submit(ctx, self.value)
        else:
            return super().press(ctx, press)
        return self

    def shown(self) -> str:
        """The value as the picker shows it: "+5", "-5", "0"."""
        return f"{self.value:+d}" if self.signed and self.value else str(self.value)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title, self.right)
        text = self.shown()
        scale = 3 if len(text) <= 4 else 2
        canvas.big_text(1, BODY_TOP + 2 + (3 if scale == 2 else 0), text, scale=scale)
        for row, (button, sign) in enumerate((("UP", "+"), ("DN", "-"))):
            label = f"{button} {sign}{self.step}"
            canvas.text(WIDTH - text_width(label), BODY_TOP + 1 + row * 11, label)
        if self.below is not None:
            canvas.text(1, BODY_TOP + 31, self.below(self.value))


class ScoreboardSetup(SetupScreen):
    """Players (2-10), a target (or none), high or low wins; ROLL (or OK on Start) starts."""

    title = lazy("screen 21", "Scoreboard")
    game_id = "scoreboard"
    default_names = ("P1", "P2")

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        self.target = 0
        self.low_wins = False

    def option_rows(self) -> list[Row]:
        target = pgettext("screen 21", "Target: {target}").format(target=self.target) \
            if self.target else pgettext("screen 21", "Target: none")
        wins = pgettext("screen 21", "Wins: lowest total") if self.low_wins \
            else pgettext("screen 21", "Wins: highest total")
        return [
            (target, self._pick_target),
            (wins, lambda ctx: self.change(low_wins=not self.low_wins)),
        ]

    def _pick_target(self, ctx: Context) -> Screen:
        return NumberPicker(pgettext("screen 21", "Target (0: none)"), self._target_set, self,
                            value=self.target or FIRST_TARGET, low=0,
                            high=rules.TARGET_LIMIT, steps=TARGET_STEPS, signed=False,
                            below=_ends_at)

    def _target_set(self, ctx: Context, value: int) -> Screen:
        self.target = value
        return self

    def start(self, ctx: Context) -> GameScreen:
        options = {"target": self.target, "low_wins": self.low_wins}
        return ScoreboardTable(self.new_session(ctx, options), self.parent)


def _ends_at(target: int) -> str:
    """Under the target picker: where the game will end."""
    if not target:
        return pgettext("screen 21", "ends at none")
    return pgettext("screen 21", "ends at {target}").format(target=target)


class ScoreboardTable(GameScreen):
    """Every player's total and rounds entered, leaders starred. ROLL enters points for
    the next player still to enter this round, OK for the player under the cursor; BACK
    opens the game menu (undo, standings, final scores now, leave)."""

    all_keys = (SETUP_KEYS, SHEET_KEYS, NUMBER_KEYS, STANDINGS_KEYS, OVER_KEYS)

    def __init__(self, session: Session, home: Screen | None):
        super().__init__(session, home)
        self.selected = 0
        self.top = 0
        self.step = POINT_STEPS[0]

    def route(self, ctx: Context) -> Screen:
        if self.match.over:
            return GameOver(self)
        return self

    # -- entering points ---------------------------------------------------------------

    def picker(self, ctx: Context, player: str) -> Screen:
        """The number picker for ``player``'s points this round (or why not)."""
        try:
            self.match.check({"type": "points", "player": player, "points": 0})
        except CompanionError as err:
            return Message(pgettext("screen 21", "Not now"), wrap(str(err)), self)
        state = self.match.state()
        total = state["totals"][player]
        picker = NumberPicker(
            player,
            lambda ctx, points: self._enter(ctx, picker, player, points),
            self,
            step=self.step,
            below=lambda points: fitting(
                pgettext("screen 21", "total {total} -> {after}").format(
                    total=total, after=total + points),
                f"{total} -> {total + points}"),
            # Beside the player's name in the title bar.
            right=pgettext("screen 8", "round {n}").format(n=state["round"]),
        )
        return picker

    def _enter(self, ctx: Context, picker: NumberPicker, player: str, points: int) -> Screen:
        self.step = picker.step  # the next player's picker starts on the same step
        return self.apply(ctx, {"type": "points", "player": player, "points": points},
                          after=picker)

    def after_event(self, ctx: Context) -> Screen:
        """Straight on to the next player while the round is being entered."""
        if not self.match.over and self.match.state()["entered"]:
            return self.picker(ctx, self.match.waiting()[0])
        return self.route(ctx)

    def end_now(self, ctx: Context) -> Screen:
        """The players stop here: the totals now are final."""
        return self.apply(ctx, {"type": "end"})

    # -- buttons -----------------------------------------------------------------------

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        return SHEET_KEYS if self.match.waiting() else ENTERED_KEYS

    def key_values(self) -> dict[str, object]:
        waiting = self.match.waiting()
        return {"player": waiting[0] if waiting else ""}

    def press(self, ctx: Context, press: Press) -> Screen:
        players = self.match.players
        if press.button in ("up", "down") and not press.long:
            step = 1 if press.button == "down" else -1
            self.selected = (self.selected + step) % len(players)
            self.top = min(self.selected, max(self.top, self.selected - MENU_ROWS + 1))
            return self
        if is_(press, "ok"):
            return self.picker(ctx, players[self.selected])
        if is_(press, "roll") and self.match.waiting():
            return self.picker(ctx, self.match.waiting()[0])
        return super().press(ctx, press)

    def menu(self, ctx: Context, came_from: Screen | None = None) -> Screen:
        """The game menu, with "Final scores now" (the ``end`` event) added."""
        menu = super().menu(ctx, came_from)
        standings = pgettext("screen 21", "Standings")
        at = next(i for i, item in enumerate(menu.items) if item.label == standings)
        if not self.match.over:
            menu.items.insert(at, MenuItem(pgettext("screen 21", "Final scores now"),
                                           lambda ctx, menu: Confirm(
                pgettext("screen 21", "Final scores now?"),
                wrap(pgettext("screen 21x4", "The totals now are final: the game ends.")),
                self.end_now, menu)))
        return menu

    # -- picture -----------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        state = self.match.state()
        target = state["target"]
        title = pgettext("screen 9", "Round {n}").format(n=state["round"])
        # Beside "Round 12" in the title bar: 12 columns, more beside a shorter title.
        to_target = pgettext("screen 12", "to {target}").format(target=target)
        if target and state["low_wins"]:
            # Translators: the title's right: the target, and that the lowest total
            # wins; tried first (any length), "to {target}" when it does not fit.
            right = fitting(pgettext("screen 12 (if it fits)", "to {target} low").format(
                target=target), to_target, room=COLUMNS - 1 - len(title))
        elif target:
            right = to_target
        else:
            right = pgettext("screen 12", "low") if state["low_wins"] else ""
        canvas.title(title, right)
        players = self.match.players
        for row, name in enumerate(players[self.top : self.top + MENU_ROWS]):
            star = "*" if name in state["leaders"] and self.match.events else " "
            total = str(state["totals"][name])
            # Translators: rounds entered by a player, shortened ("r3").
            rounds = pgettext("screen 4", "r{n}").format(n=state["rounds_entered"][name])
            line = f"{star}{name} {total} {rounds}"
            # Rounds entered, right-aligned, while they fit beside the name and total.
            if len(line) <= COLUMNS - 1:
                line = f"{star}{name}".ljust(COLUMNS - 2 - len(total) - len(rounds)) \
                    + f"{total} {rounds}"
            else:
                line = f"{star}{name}".ljust(COLUMNS - 1 - len(total)) + total
            canvas.line(row, line, invert=self.top + row == self.selected)


class GameOver(GameOverScreen):
    """The winner(s) and the best total big; DOWN shows every total; OK ends."""

    keys = OVER_KEYS
    standings_title = Said(lazy("screen 15", "Final totals"))

    def title_right(self, result: dict) -> str:
        rounds = len(result["rounds"])
        return npgettext("screen 11", "{n} round", "{n} rounds", rounds).format(n=rounds)
