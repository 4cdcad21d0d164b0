"""Final Count at the table: hit-goal rolls, turns with the die's action in words, the
call and the final round, card entry for the Board and each hand, the hand's result,
running totals and the final standings with a chart.

The screens follow the engine (:mod:`companion.games.final_count`): what they offer is
what ``match.expecting()`` allows, and every outcome goes in as an event.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.chance import physical_dice
from companion.games import final_count as rules
from companion.lang import lazy, npgettext, pgettext
from companion.session import Session
from companion.ui.canvas import (
    BODY_TOP,
    CHAR_W,
    COLUMNS,
    HINT_Y,
    LINE_H,
    WIDTH,
    Canvas,
    fitting,
    text_width,
)
from companion.ui.keys import (
    ANY_BACK,
    FINAL_STANDINGS,
    GAME_DONE,
    GAME_MENU,
    PICKER_KEYS,
    SETUP_KEYS,
    STANDINGS_KEYS,
    Key,
    Keys,
)
from companion.ui.naming import next_player
from companion.ui.picker import ValuePicker
from companion.ui.play import GameOverScreen, GameScreen, ResultScreen, Row, SetupScreen, Standings
from companion.ui.screen import Context, Menu, MenuItem, Press, Said, Screen, is_
from companion.ui.tools import Spinner

#: The picker starts on the 10s: 16 of the 52 cards are worth ten.
COMMON_RANK = "10"
#: The die on the turn screen: big enough to read, small enough to leave 17 columns
#: beside it for "next" and a name at the cap.
TURN_DIE = 20
#: Width of a chart legend's marker and the gap after it.
LEGEND_MARK = 8

# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
GOAL_KEYS = Keys(lazy("screen 21", "Rolling for the goal"), lazy("screen 21", "ROLL roll for goal"),
                 Key("ROLL", lazy("screen 21xN", "Roll a die for the Hit Goal; after two the "
                                  "goal is set, the higher face first.")), GAME_MENU)
ROLL = Key("ROLL", lazy("screen 21xN", "Roll the die for the player named (a table with real "
                        "dice enters the face); the screen says what the face means."))
CALL_KEYS = Keys(lazy("screen 21", "A turn"), lazy("screen 21", "ROLL roll  OK call"), ROLL,
                 Key("OK", lazy("screen 21xN", "Call: everyone else has one more turn, then "
                                "the hand ends. Right after a roll the device asks who calls.")),
                 GAME_MENU)
ROLL_KEYS = Keys(lazy("screen 21", "The final round"), lazy("screen 21", "ROLL roll  BACK menu"),
                 ROLL, GAME_MENU)
LAST_ROLL_KEYS = Keys(lazy("screen 21", "The last roll"), lazy("screen 21", "OK Board cards"),
                      Key("OK/ROLL", lazy("screen 21xN", "On to the Board's cards; the last roll "
                                          "stays on the screen until then.")), GAME_MENU)
HAND_KEYS = Keys(lazy("screen 21", "A hand's result"), lazy("screen 21", "OK totals"),
                 Key("OK/ROLL", lazy("screen 21xN", "The totals after this hand.")), GAME_MENU)
OVER_KEYS = Keys(lazy("screen 21", "The game's end"), lazy("screen 21", "UP chart  DOWN totals"),
                 Key("UP", lazy("screen 21xN", "A chart of every total, hand by hand.")),
                 FINAL_STANDINGS, GAME_DONE, GAME_MENU)
CHART_KEYS = Keys(lazy("screen 21", "The chart"), lazy("screen 21", "OK back"), ANY_BACK)


class FinalCountSetup(SetupScreen):
    """Players and the Hit Goal option; ROLL (or OK on Start) starts the game."""

    title = "Final Count"
    game_id = "final-count"
    note = Said(lazy("screen 21", "First entered starts"))

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        self.hit_goal = False

    def option_rows(self) -> list[Row]:
        return [(pgettext("screen 21", "Hit Goal: on") if self.hit_goal
                 else pgettext("screen 21", "Hit Goal: off"),
                 lambda ctx: self.change(hit_goal=not self.hit_goal))]

    def start(self, ctx: Context) -> GameScreen:
        session = self.new_session(ctx, {"hit_goal": self.hit_goal})
        return FinalCountTable(session, self.parent)


class FinalCountTable(GameScreen):
    """The hand in play: whose turn, the die, the goal, the draw pile, the final round."""

    all_keys = (SETUP_KEYS, GOAL_KEYS, CALL_KEYS, ROLL_KEYS, LAST_ROLL_KEYS, PICKER_KEYS,
                HAND_KEYS, STANDINGS_KEYS, OVER_KEYS, CHART_KEYS)

    def __init__(self, session: Session, home: Screen | None):
        super().__init__(session, home)
        self.goal_first: int | None = None
        self.spinner = Spinner()
        self.spin_face = 1
        self.results_seen = len(self.match.hands)
        #: The hand whose Board entry the table has moved on to: until then the last
        #: roll of the final round stays on the screen, so its roller sees what to do.
        self.board_opened: int | None = None

    # -- routing ---------------------------------------------------------------------

    def route(self, ctx: Context) -> Screen:
        match = self.match
        if match.phase != rules.GOAL:
            # The goal was set (from afar, as the phone's "Roll for the goal" does) while
            # one die was rolled here: that die must not start the next hand's goal.
            self.goal_first = None
        if len(match.hands) > self.results_seen:
            self.results_seen = len(match.hands)
            return HandResult(self, len(match.hands) - 1)
        if match.phase == rules.BOARD and self._last_roll_shown():
            limits = match.state()["card_limits"]["board"]
            # The picker's title leaves room for the card limits ("2-4") beside it.
            return self._picker(pgettext("screen 17", "Board cards"),
                                lambda cards: {"type": "board", "cards": cards},
                                tuple(limits), _board_sum)
        if match.phase == rules.HANDS:
            state = match.state()
            player = match.expecting().choices["player"][0]
            board = state["entered"]["board"]
            # A long name is the picker's title alone.
            return self._picker(fitting(pgettext("screen 17 (if it fits)", "{player}'s cards")
                                        .format(player=player), player, room=17),
                                lambda cards: {"type": "hand", "player": player, "cards": cards},
                                tuple(state["card_limits"]["hands"][player]),
                                lambda cards: _hand_line(cards, board, match.goal))
        if match.over:
            return GameOver(self)
        return self

    def undone(self, ctx: Context) -> None:
        self.goal_first = None
        self.results_seen = min(self.results_seen, len(self.match.hands))
        if self.match.phase != rules.BOARD:
            self.board_opened = None

    def _last_roll_shown(self) -> bool:
        """True once OK (or ROLL) went on from the final round's last roll (or there is
        no roll to show: a resumed log without one)."""
        return self.board_opened == self.match.hand_number or not self.match.rolls

    def _picker(self, title: str, event: Callable[[list[str]], dict], limits: tuple[int, int],
                summary: Callable[[list[str]], str]) -> ValuePicker:
        """A card picker whose entry becomes ``event(cards)`` (see entry_picker)."""
        return self.entry_picker(title, rules.RANKS, event, self, start=COMMON_RANK,
                                 limits=limits, summary=summary)

    # -- buttons ---------------------------------------------------------------------

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        # Whose roll it is stands on the screen; the hint is the buttons.
        if self.match.phase == rules.GOAL:
            return GOAL_KEYS
        if self.match.phase == rules.BOARD:
            return LAST_ROLL_KEYS
        return CALL_KEYS if "call" in self.match.expecting().types else ROLL_KEYS

    def press(self, ctx: Context, press: Press) -> Screen:
        match = self.match
        if is_(press, "roll") and match.phase in (rules.GOAL, rules.PLAY) \
                and physical_dice(ctx.config):
            return self._enter_faces()
        if is_(press, "roll") and match.phase == rules.GOAL:
            return self._roll_goal(ctx)
        if is_(press, "roll") and match.phase == rules.PLAY:
            self._spin(ctx)
            return self.apply(ctx, {"type": "roll", "player": match.current}, draw=True)
        if is_(press, "ok") and "call" in match.expecting().types:
            return self._call(ctx)
        if match.phase == rules.BOARD and (is_(press, "ok") or is_(press, "roll")):
            if self.spinner.spinning:  # a second press while the die still turns: the
                return self            # last roll would go unseen (issue 21, item 6)
            self.board_opened = match.hand_number  # the last roll was seen: the cards
            return self.route(ctx)
        return super().press(ctx, press)

    def _roll_goal(self, ctx: Context) -> Screen:
        """Two presses, a die each: the first shows the goal's first die, the second
        sets the goal (both dice are the match's draw at this place, so a first die
        left unsent comes back the same)."""
        self._spin(ctx)
        if self.goal_first is None:
            self.goal_first = self.session.drawn({"type": "goal"})["rolls"][0]
            return self
        self.goal_first = None
        return self.apply(ctx, {"type": "goal"}, draw=True)

    def _enter_faces(self) -> Screen:
        """A table that rolls real dice ([dice] physical): ROLL asks for the face rolled
        (the Hit Goal's two), kept marked as entered rather than rolled here."""
        faces = [str(face) for face in rules.FACES]
        if self.match.phase == rules.GOAL:
            return self.entry_picker(pgettext("screen 19", "Hit Goal dice"), faces, lambda rolled: {
                "type": "goal", "rolls": [int(face) for face in rolled], "entered": True},
                self, limits=(2, 2))
        player = self.match.current
        items = [MenuItem(f"{face}: {rules.FACE_ACTIONS[face]}",
                          lambda ctx, menu, face=face: self.apply(
                              ctx, {"type": "roll", "player": player, "value": face,
                                    "entered": True}, after=menu))
                 for face in rules.FACES]
        return Menu(fitting(pgettext("screen 21 (if it fits)", "{player} rolled?").format(
                            player=player),
                            pgettext("screen 21", "The die shows?")), items, self)

    def _call(self, ctx: Context) -> Screen:
        callers = self.match.expecting().choices["caller"]
        if len(callers) == 1:
            return self.apply(ctx, {"type": "call", "player": callers[0]})
        last = self.match.state()["last_roll"]
        # Translators: beside the name of the player who rolled last, among those who
        # may call (8 characters: a name of 12 beside it).
        rolled = pgettext("screen 8", "rolled")
        items = [MenuItem(name, lambda ctx, menu, name=name:
                          self.apply(ctx, {"type": "call", "player": name}, after=menu),
                          note=rolled if last and name == last["player"] else "")
                 for name in callers]
        return Menu(pgettext("screen 21", "Who calls?"), items, self)

    def _spin(self, ctx: Context) -> None:
        ctx.beep()
        self.spinner.start()

    def tick_after(self) -> float | None:
        return self.spinner.tick_after()

    def tick(self, ctx: Context) -> Screen:
        self.spinner.step()
        self.spin_face = ctx.anim_rng.randrange(1, 7)
        return self

    # -- picture ---------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        state = self.match.state()
        canvas.title(pgettext("screen 9", "Hand {n}").format(n=state["hand"]),
                     pgettext("screen 11", "final round") if state["caller"] else "")
        if self.match.phase == rules.GOAL:
            self._draw_goal(canvas, state)
        elif not state["rolls"] and not self.spinner.spinning:
            self._draw_hand_start(canvas, state)
        else:
            self._draw_turn(canvas, state)

    def _draw_goal(self, canvas: Canvas, state: dict) -> None:
        canvas.line(0, pgettext("screen 21", "Hit Goal: roll twice"))
        canvas.line(2, _draw_pile(state))
        faces = [self.goal_first] if self.goal_first else []
        if self.spinner.spinning:
            faces = faces[:-1] + [self.spin_face] if self.goal_first else [self.spin_face]
        for i in range(2):
            x = 76 + i * 26
            if i < len(faces):
                canvas.die(x, BODY_TOP + 12, 24, faces[i])
            else:
                canvas.frame((x, BODY_TOP + 12, x + 23, BODY_TOP + 35))

    def _draw_hand_start(self, canvas: Canvas, state: dict) -> None:
        canvas.line(0, pgettext("screen 21", "Dealer: {dealer}").format(dealer=state["dealer"]))
        called = self._just_called(state)
        if called:  # called before anyone rolled: say so, and who rolls now
            canvas.line(1, fitting(
                pgettext("screen 21 (if it fits)", "{caller} called, {player} next").format(
                    caller=called, player=state["current"]), *_called(called)))
        else:
            canvas.line(1, pgettext("screen 21", "First: {player}").format(
                player=state["current"]))
        if state["goal"] is not None:
            # Left of the goal's two dice.
            canvas.line(2, pgettext("screen 14", "Goal {goal}").format(goal=state["goal"]))
            for i, face in enumerate(state["goal_rolls"]):
                canvas.die(86 + i * 21, BODY_TOP + 21, 19, face)
        canvas.line(3, _draw_pile(state))

    def _draw_turn(self, canvas: Canvas, state: dict) -> None:
        """The die with who rolled it and what it does; the pile, the goal, who is next."""
        last = state["last_roll"]
        spinning = self.spinner.spinning
        canvas.die(1, BODY_TOP + 1, TURN_DIE, self.spin_face if spinning else last["value"])
        right = TURN_DIE + 5
        room = (WIDTH - right) // CHAR_W
        called = self._just_called(state)
        if not spinning:
            # Translators: beside the die: who rolled it ("entered": typed in from real
            # dice); only the name is shown when the words do not fit.
            rolled = (pgettext("screen 17 (if it fits)", "{name} entered") if last["entered"]
                      else pgettext("screen 17 (if it fits)", "{name} rolled"))
            rolled = rolled.format(name=last["player"])
            canvas.text(right, BODY_TOP, rolled if len(rolled) <= room else last["player"])
            if called:  # the news now is the call; the roll above is what led to it
                canvas.line(3, fitting(*_called(called)))
            else:
                canvas.line(3, f"{last['value']}: {last['action']}")
        # Right of the die: 17 columns.
        if state["goal"] is None:
            pile = pgettext("screen 17", "pile {n}").format(n=state["draw_pile"])
        else:
            pile = pgettext("screen 17", "pile {n} goal {goal}").format(
                n=state["draw_pile"], goal=state["goal"])
        canvas.text(right, BODY_TOP + LINE_H, pile)
        after = pgettext("screen 17", "then cards") if state["current"] is None \
            else next_player(state["current"], room)
        canvas.text(right, BODY_TOP + 2 * LINE_H, after)

    def _just_called(self, state: dict) -> str | None:
        """Who called, when the call is the last thing that happened at the table."""
        events = self.match.events
        return state["caller"] if events and events[-1].get("type") == "call" else None


def _called(caller: str) -> tuple[str, str]:
    """Who called, said whole where the name leaves room, and the form that fits
    beside a name of 12 letters."""
    # Translators: who called (the others have one more turn): tried first (any
    # length), the line's 21 characters after it when it does not fit.
    return (pgettext("screen 21 (if it fits)", "{caller} called").format(caller=caller),
            pgettext("screen 21", "{caller} called").format(caller=caller))


def _draw_pile(state: dict) -> str:
    """"Draw pile 40", left of the goal's dice (12 columns)."""
    return pgettext("screen 12", "Draw pile {n}").format(n=state["draw_pile"])


def _board_sum(cards: list[str]) -> str:
    """The Board's cards counted with every ace as 1 (each player picks their own)."""
    return "=" + str(sum(rules.card_value(card) for card in cards))


def _hand_line(cards: list[str], board: list[str] | None, goal: int | None) -> str:
    """The player's best total with the Board, as the result screen will count it."""
    total = rules.best_total(list(cards) + list(board or []), goal)
    mark = _goal() if total.hit_goal else _bust() if total.bust else ""
    return f"={total.total} {mark}" if mark else f"={total.total}"


def _goal() -> str:
    # Translators: BUST, GOAL and WIN mark a hand's total (a column of 4 on the screen).
    return pgettext("screen 4", "GOAL")


def _bust() -> str:
    return pgettext("screen 4", "BUST")


def _mark(player: dict, won: bool) -> tuple[str, str]:
    """A hand's mark for one player (BUST, GOAL, WIN or none): the whole word, tried
    first, and the column of 4's."""
    if player["bust"]:
        # Translators: BUST, GOAL and WIN whole, in a hand's results when the names
        # leave room (tried first, any length); the column of 4's words otherwise.
        return pgettext("screen 7 (if it fits)", "BUST"), _bust()
    if player["hit_goal"]:
        return pgettext("screen 7 (if it fits)", "GOAL"), _goal()
    if won:
        return pgettext("screen 7 (if it fits)", "WIN"), pgettext("screen 4", "WIN")
    return "", ""


class HandResult(ResultScreen):
    """Every player's best total, BUST/GOAL marks, winners, bonus, split and points."""

    keys = HAND_KEYS

    def __init__(self, table: FinalCountTable, index: int):
        super().__init__(table)
        self.hand = table.match.result()["hands"][index]
        self.number = index + 1

    def next_screen(self, ctx: Context) -> Screen:
        return Standings(self.table.match, self.table,
                         title=pgettext("screen 15", "After hand {n}").format(n=self.number))

    def draw(self, canvas: Canvas) -> None:
        hand = self.hand
        extra = ""
        if hand.get("bonus"):  # the bonus is shared only when more than one player won
            extra = (pgettext("screen 13", "+{points} split") if len(hand["winners"]) > 1
                     else pgettext("screen 13", "+{points} bonus")).format(points=hand["bonus"])
        canvas.title(pgettext("screen 9", "Hand {n}").format(n=self.number), extra)
        width = max(len(name) for name in hand["players"])
        marks = {name: _mark(player, name in hand["winners"])
                 for name, player in hand["players"].items()}
        # The marks whole when every row has room for them, else the column of 4's.
        column = max(4, *(len(whole) for whole, _ in marks.values()))
        whole = width + len(" 999 ") + column + len(" +999") <= COLUMNS
        column = column if whole else 4
        for row, (name, player) in enumerate(hand["players"].items()):
            mark = marks[name][0 if whole else 1]
            points = f"+{player['points']}" if player["points"] else "0"
            line = f"{name:<{width}} {player['total']:>3} {mark:<{column}} {points:>4}"
            if len(line) > COLUMNS:  # long names: the points, or the mark when none
                tail = points if player["points"] else mark or "0"
                line = f"{name:<{width}} {player['total']:>3} {tail:>{COLUMNS - width - 5}}"
            canvas.line(row, line, invert=name in hand["winners"])


class GameOver(GameOverScreen):
    """The winner(s) big; DOWN shows every total; UP a chart of totals by hand."""

    keys = OVER_KEYS

    def title_right(self, result: dict) -> str:
        hands = len(result["hands"])
        return npgettext("screen 11", "{n} hand", "{n} hands", hands).format(n=hands)

    def up_screen(self) -> Screen:
        return TotalsChart(self.table.match, self)


class TotalsChart(Screen):
    """Each player's cumulative total by hand, one line each, with the 300 line."""

    keys = CHART_KEYS

    def __init__(self, match, parent: Screen):
        super().__init__(parent)
        self.match = match

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("ok", "roll", "back", "up", "down") and self.parent is not None:
            return self.parent
        return self

    def draw(self, canvas: Canvas) -> None:
        result = self.match.result()
        players = result["players"]
        running = {name: [0] for name in players}
        for hand in result["hands"]:
            for name in players:
                running[name].append(running[name][-1] + hand["players"][name]["points"])
        top = max([rules.GAME_TARGET] + [line[-1] for line in running.values()])
        canvas.title(pgettext("screen 21", "Totals by hand"))
        # The legend on the right takes what the longest name needs; the chart the rest.
        legend = WIDTH - 1 - LEGEND_MARK - text_width(max(players, key=len))
        left, right, y0, y1 = 1, legend - 4, BODY_TOP, HINT_Y - 2
        hands = max(1, len(result["hands"]))

        def point(i: int, total: int) -> tuple[int, int]:
            return (left + (right - left) * i // hands, y1 - (y1 - y0) * total // top)

        target_y = point(0, rules.GAME_TARGET)[1]
        for x in range(left, right, 3):
            canvas.draw.point((x, target_y), fill=1)
        for index, name in enumerate(players):
            line = [point(i, total) for i, total in enumerate(running[name])]
            canvas.draw.line(line, fill=1, width=1)
            end = line[-1]
            # Each player's line ends in a different marker, named on the right.
            canvas.text(legend + LEGEND_MARK, BODY_TOP + index * 10, name)
            _marker(canvas, end, index)
            _marker(canvas, (legend + 2, BODY_TOP + index * 10 + 3), index)


def _marker(canvas: Canvas, at: tuple[int, int], kind: int) -> None:
    x, y = at
    if kind == 0:
        canvas.draw.rectangle((x - 1, y - 1, x + 1, y + 1), fill=1)
    elif kind == 1:
        canvas.draw.rectangle((x - 1, y - 1, x + 1, y + 1), outline=1, fill=0)
    elif kind == 2:
        canvas.draw.line((x - 2, y, x + 2, y), fill=1)
        canvas.draw.line((x, y - 2, x, y + 2), fill=1)
    else:
        canvas.draw.line((x - 2, y - 2, x + 2, y + 2), fill=1)
        canvas.draw.line((x - 2, y + 2, x + 2, y - 2), fill=1)
