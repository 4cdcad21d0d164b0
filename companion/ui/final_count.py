"""Final Count at the table: hit-goal rolls, turns with the die's action in words, the
call and the final round, card entry for the Board and each hand, the hand's result,
running totals and the final standings with a chart.

The screens follow the engine (:mod:`companion.games.final_count`): what they offer is
what ``match.expecting()`` allows, and every outcome goes in as an event.
"""

from __future__ import annotations

from companion.games import final_count as rules
from companion.session import Session
from companion.ui.canvas import BODY_TOP, HINT_Y, Canvas, clip
from companion.ui.play import (
    GameOverScreen,
    GameScreen,
    ResultScreen,
    Row,
    SetupScreen,
    Standings,
    ValuePicker,
)
from companion.ui.screen import Context, Menu, MenuItem, Press, Screen, is_
from companion.ui.tools import Spinner

#: The picker starts on the 10s: 16 of the 52 cards are worth ten.
COMMON_RANK = "10"


class FinalCountSetup(SetupScreen):
    """Players and the Hit Goal option; ROLL (or OK on Start) starts the game."""

    title = "Final Count"
    game_id = "final-count"
    note = "First entered starts"

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        self.hit_goal = False

    def option_rows(self) -> list[Row]:
        return [(f"Hit Goal: {'on' if self.hit_goal else 'off'}",
                 lambda ctx: self.change(hit_goal=not self.hit_goal))]

    def start(self, ctx: Context) -> GameScreen:
        session = self.new_session(ctx, {"hit_goal": self.hit_goal})
        return FinalCountTable(session, self.parent)


class FinalCountTable(GameScreen):
    """The hand in play: whose turn, the die, the goal, the draw pile, the final round."""

    def __init__(self, session: Session, home: Screen | None):
        super().__init__(session, home)
        self.goal_first: int | None = None
        self.spinner = Spinner()
        self.spin_face = 1
        self.results_seen = len(self.match.hands)

    # -- routing ---------------------------------------------------------------------

    def route(self, ctx: Context) -> Screen:
        match = self.match
        if len(match.hands) > self.results_seen:
            self.results_seen = len(match.hands)
            return HandResult(self, len(match.hands) - 1)
        if match.phase == rules.BOARD:
            limits = match.state()["card_limits"]["board"]
            return ValuePicker("Board cards", rules.RANKS, self._enter_board, self,
                               start=COMMON_RANK, limits=tuple(limits), summary=_board_sum)
        if match.phase == rules.HANDS:
            state = match.state()
            player = match.expecting().choices["player"][0]
            board = state["entered"]["board"]
            return ValuePicker(f"{player}'s cards", rules.RANKS,
                               lambda ctx, cards: self._enter_hand(ctx, player, cards), self,
                               start=COMMON_RANK,
                               limits=tuple(state["card_limits"]["hands"][player]),
                               summary=lambda cards: _hand_line(cards, board, match.goal))
        if match.over:
            return GameOver(self)
        return self

    def undone(self, ctx: Context) -> None:
        self.goal_first = None
        self.results_seen = min(self.results_seen, len(self.match.hands))

    def _enter_board(self, ctx: Context, cards: list[str]) -> Screen:
        return self.apply(ctx, {"type": "board", "cards": cards}, after=self.route(ctx))

    def _enter_hand(self, ctx: Context, player: str, cards: list[str]) -> Screen:
        picker = self.route(ctx)
        return self.apply(ctx, {"type": "hand", "player": player, "cards": cards}, after=picker)

    # -- buttons ---------------------------------------------------------------------

    @property
    def hint(self) -> str:  # type: ignore[override]
        expect = self.match.expecting()
        if self.match.phase == rules.GOAL:
            return "ROLL roll for goal"
        if "call" in expect.types:
            return f"ROLL {clip(expect.player, 7)}  OK call"
        return f"ROLL {clip(expect.player, 7)}  BACK menu"

    def press(self, ctx: Context, press: Press) -> Screen:
        match = self.match
        if is_(press, "roll") and match.phase == rules.GOAL:
            return self._roll_goal(ctx)
        if is_(press, "roll") and match.phase == rules.PLAY:
            value = ctx.rng.randrange(1, 7)
            self._spin(ctx)
            return self.apply(ctx, {"type": "roll", "player": match.current, "value": value})
        if is_(press, "ok") and "call" in match.expecting().types:
            return self._call(ctx)
        return super().press(ctx, press)

    def _roll_goal(self, ctx: Context) -> Screen:
        value = ctx.rng.randrange(1, 7)
        self._spin(ctx)
        if self.goal_first is None:
            self.goal_first = value
            return self
        first, self.goal_first = self.goal_first, None
        return self.apply(ctx, {"type": "goal", "rolls": [first, value]})

    def _call(self, ctx: Context) -> Screen:
        callers = self.match.expecting().choices["caller"]
        if len(callers) == 1:
            return self.apply(ctx, {"type": "call", "player": callers[0]})
        last = self.match.state()["last_roll"]
        items = [MenuItem(name + (" (rolled)" if last and name == last["player"] else ""),
                          lambda ctx, menu, name=name:
                          self.apply(ctx, {"type": "call", "player": name}))
                 for name in callers]
        return Menu("Who calls?", items, self)

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
        canvas.title(f"Hand {state['hand']}, {state['dealer']} deals")
        if self.match.phase == rules.GOAL:
            self._draw_goal(canvas, state)
        elif not state["rolls"] and not self.spinner.spinning:
            self._draw_hand_start(canvas, state)
        else:
            self._draw_turn(canvas, state)

    def _draw_goal(self, canvas: Canvas, state: dict) -> None:
        canvas.line(0, "Hit Goal: roll twice")
        canvas.line(2, f"Draw pile {state['draw_pile']}")
        faces = [self.goal_first] if self.goal_first else []
        if self.spinner.spinning:
            faces = faces[:-1] + [self.spin_face] if self.goal_first else [self.spin_face]
        for i in range(2):
            x = 72 + i * 28
            if i < len(faces):
                canvas.die(x, BODY_TOP + 12, 26, faces[i])
            else:
                canvas.frame((x, BODY_TOP + 12, x + 25, BODY_TOP + 37))

    def _draw_hand_start(self, canvas: Canvas, state: dict) -> None:
        canvas.line(0, f"{state['current']} plays first")
        if state["goal"] is not None:
            canvas.line(1, f"Goal {state['goal']}")
            for i, face in enumerate(state["goal_rolls"]):
                canvas.die(86 + i * 21, BODY_TOP + 11, 19, face)
        canvas.line(2, f"Draw pile {state['draw_pile']}")

    def _draw_turn(self, canvas: Canvas, state: dict) -> None:
        last = state["last_roll"]
        spinning = self.spinner.spinning
        canvas.die(1, BODY_TOP + 1, 30, self.spin_face if spinning else last["value"])
        right = 36
        if not spinning:
            canvas.text(right, BODY_TOP + 1, clip(f"{last['player']} rolled", 15))
            canvas.text(1, BODY_TOP + 33, clip(f"{last['value']}: {last['action']}"))
        rest = state["final_round"]
        if state["caller"]:
            waiting = "Final: " + ", ".join(rest) if rest else "Final round"
        else:
            waiting = f"Next: {state['current']}"
        canvas.text(right, BODY_TOP + 11, clip(waiting, 15))
        pile = f"pile {state['draw_pile']}"
        if state["goal"] is not None:
            pile += f" goal {state['goal']}"
        canvas.text(right, BODY_TOP + 21, clip(pile, 15))


def _board_sum(cards: list[str]) -> str:
    """The Board's cards counted with every ace as 1 (each player picks their own)."""
    return "=" + str(sum(rules.card_value(card) for card in cards))


def _hand_line(cards: list[str], board: list[str] | None, goal: int | None) -> str:
    """The player's best total with the Board, as the result screen will count it."""
    total = rules.best_total(list(cards) + list(board or []), goal)
    mark = " GOAL" if total.hit_goal else " BUST" if total.bust else ""
    return f"={total.total}{mark}"


class HandResult(ResultScreen):
    """Every player's best total, BUST/GOAL marks, winners, bonus, split and points."""

    hint = "OK totals"

    def __init__(self, table: FinalCountTable, index: int):
        super().__init__(table)
        self.hand = table.match.result()["hands"][index]
        self.number = index + 1

    def next_screen(self, ctx: Context) -> Screen:
        return Standings(self.table.match, self.table,
                         title=f"Totals after hand {self.number}")

    def draw(self, canvas: Canvas) -> None:
        hand = self.hand
        extra = []
        if hand.get("bonus"):
            extra.append(f"+{hand['bonus']} bonus")
        if hand.get("split"):
            extra.append("split")
        canvas.title(f"Hand {self.number}", " ".join(extra))
        for row, (name, player) in enumerate(hand["players"].items()):
            if player["bust"]:
                total, mark = str(player["total"]), "BUST"
            elif player["hit_goal"]:
                total, mark = str(player["total"]), "GOAL"
            else:
                total, mark = str(player["total"]), ""
            if name in hand["winners"]:
                mark = mark or "WIN"
            points = f"+{player['points']}" if player["points"] else "0"
            canvas.line(row, f"{clip(name, 7):<7} {total:>3} {mark:<4} {points:>4}",
                        invert=name in hand["winners"])


class GameOver(GameOverScreen):
    """The winner(s) big; DOWN shows every total; UP a chart of totals by hand."""

    hint = "UP plot DN all OK end"

    def title_right(self, result: dict) -> str:
        return f"{len(result['hands'])} hands"

    def up_screen(self) -> Screen:
        return TotalsChart(self.table.match, self)


class TotalsChart(Screen):
    """Each player's cumulative total by hand, one line each, with the 300 line."""

    hint = "OK back"

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
        canvas.title("Totals by hand")
        left, right, y0, y1 = 1, 100, BODY_TOP, HINT_Y - 2
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
            canvas.text(104, BODY_TOP + index * 10, clip(name, 4))
            _marker(canvas, end, index)
            _marker(canvas, (124, BODY_TOP + index * 10 + 3), index)


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
