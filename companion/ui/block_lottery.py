"""Block Lottery at the table: the 15-die pool and who takes what, the end of a round,
re-rolls, the lottery drawn token by token onto the prize card, counting the cards,
every part of each round score, and the final standings.

The screens follow the engine (:mod:`companion.games.block_lottery`): what they offer
is what ``match.expecting()`` allows, and every roll and draw is made here with
``ctx.rng`` and goes in as an event carrying its outcome.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from companion.config import physical_dice
from companion.errors import BadSetup
from companion.games import block_lottery as rules
from companion.session import Session
from companion.table.bag import TokenBag
from companion.table.dice import roll_dice
from companion.ui.canvas import BODY_TOP, COLUMNS, WIDTH, Canvas, clip, fitting, text_width
from companion.ui.play import (
    GameOverScreen,
    GameScreen,
    ResultScreen,
    Row,
    SetupScreen,
    Standings,
)
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
from companion.ui.tools import Spinner, step_value
from companion.words import counted

#: Width of one face column when the six faces are drawn side by side.
COLUMN = 21
#: Die pictures: the pool and a player's dice (>= 16 px), the tokens on the prize card.
FACE_DIE, TOKEN_DIE = 16, 22
#: Highest value the setup editors offer (prize spaces, cards per number, wilds).
EDIT_MAX = 20


def _face_x(face: int) -> int:
    """Left edge of the column of ``face`` (1-6), the six centred across the screen."""
    return (WIDTH - COLUMN * len(rules.FACES)) // 2 + (face - 1) * COLUMN


def _centred_x(left: int, width: int, text: str, scale: int) -> int:
    return left + (width - text_width(text, scale) + scale) // 2


def draw_faces(canvas: Canvas, counts: Sequence[int], *, cursor: int | None = None,
               scale: int = 3, picked: Sequence[int] | None = None) -> None:
    """The six faces as dice with how many of each under them; the cursor's die is
    inverted; ``picked`` marks dice picked up for a re-roll (a small inverted count)."""
    top = BODY_TOP + 1
    for face in rules.FACES:
        x = _face_x(face)
        canvas.die(x + (COLUMN - FACE_DIE) // 2, top, FACE_DIE, face, held=face == cursor)
        count = str(counts[face - 1])
        # Picked-up marks need the row under the counts: the counts go small then.
        size = 1 if picked else scale if len(count) == 1 else min(scale, 2)
        canvas.text(_centred_x(x, COLUMN, count, size), top + FACE_DIE + 3, count, scale=size)
        if picked and picked[face - 1]:
            mark = f"x{picked[face - 1]}"
            canvas.text(_centred_x(x, COLUMN, mark, 1), top + FACE_DIE + 14, mark, invert=True)


def _counts(faces: Sequence[int]) -> list[int]:
    tally = Counter(faces)
    return [tally[face] for face in rules.FACES]


def describe_event(event: dict, named: bool = True) -> str:
    """A short line for the undo item ("Ann took a 4"; unnamed: "take of a 4")."""
    kind, player = event.get("type"), event.get("player", "")
    if kind == "pool":
        return "pool roll"
    if kind == "token":
        return f"token {event.get('token')}"
    if kind == "take":
        return f"{player} took a {event.get('face')}" if named else f"take of a {event.get('face')}"
    words = {"end": ("{}: round end", "round end"), "reroll": ("{}'s re-roll", "re-roll"),
             "score": ("{}'s cards", "card count")}.get(str(kind))
    if words is None:
        return str(kind)
    return words[0].format(player) if named else words[1]


# -- setup ----------------------------------------------------------------------------------


class BlockLotterySetup(SetupScreen):
    """Players, the two variants, the prize values per round and the deck; ROLL starts.

    The prize values and the deck are what the printed components say; the editors show
    the defaults of RULINGS.md (BL1, BL2) next to the values in use.
    """

    title = "Block Lottery"
    game_id = "block-lottery"
    refusals = (BadSetup,)

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        defaults = rules.BlockLottery.option_defaults
        self.options = {name: (list(map(list, value)) if name == "prizes" else value)
                        for name, value in defaults.items()}

    def option_rows(self) -> list[Row]:
        on = {True: "on", False: "off"}
        rows: list[Row] = [
            (f"Lucky Card: {on[self.options['lucky_card_bonus']]}",
             lambda ctx: self._toggle("lucky_card_bonus")),
            (f"Long Game: {on[self.options['long_game']]}",
             lambda ctx: self._toggle("long_game")),
        ]
        for index, values in enumerate(self.options["prizes"]):
            rows.append((f"Round {index + 1} prizes {' '.join(map(str, values))}",
                         lambda ctx, index=index: self._edit_prizes(index)))
        deck = f"Deck {self.options['cards_per_number']}x1-7 +{self.options['wilds']} wild"
        rows.append((deck, lambda ctx: self._edit_deck()))
        return rows

    def _toggle(self, name: str) -> Screen:
        self.options[name] = not self.options[name]
        return self

    def _edit_prizes(self, index: int) -> Screen:
        def done(ctx: Context, values: list[int]) -> Screen:
            self.options["prizes"][index] = values
            return self

        return NumbersEditor(f"Round {index + 1} prizes", ["low", "mid", "high"],
                             self.options["prizes"][index], list(rules.DEFAULT_PRIZES[index]),
                             0, EDIT_MAX, done, self)

    def _edit_deck(self) -> Screen:
        def done(ctx: Context, values: list[int]) -> Screen:
            self.options["cards_per_number"], self.options["wilds"] = values
            return self

        defaults = rules.BlockLottery.option_defaults
        return NumbersEditor("Deck", ["each 1-7", "wilds"],
                             [self.options["cards_per_number"], self.options["wilds"]],
                             [defaults["cards_per_number"], defaults["wilds"]], 0, EDIT_MAX,
                             done, self)

    def start(self, ctx: Context) -> GameScreen:
        return BlockLotteryTable(self.new_session(ctx, self.options), self.parent)


class NumbersEditor(Screen):
    """Two or three numbers side by side, big, with their defaults: UP/DOWN change the
    one underlined, OK goes to the next (after the last: done), ROLL is done, a long OK
    puts the defaults back, BACK goes to the previous one or leaves unchanged."""

    hint = "UP/DN set  OK next"
    roll_ready = True

    def __init__(self, title: str, labels: list[str], values: list[int], defaults: list[int],
                 low: int, high: int, done: Callable[[Context, list[int]], Screen],
                 parent: Screen):
        super().__init__(parent)
        self.title = title
        self.labels = labels
        self.values = list(values)
        self.defaults = list(defaults)
        self.low, self.high = low, high
        self.done = done
        self.cursor = 0

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            self.values[self.cursor] = step_value(self.values[self.cursor], press, self.low,
                                                  self.high, 5)
        elif is_(press, "ok"):
            if self.cursor == len(self.values) - 1:
                return self.done(ctx, list(self.values))
            self.cursor += 1
        elif is_(press, "ok", long=True):
            self.values = list(self.defaults)
        elif is_(press, "roll"):
            return self.done(ctx, list(self.values))
        elif is_(press, "back") and self.cursor > 0:
            self.cursor -= 1
        else:
            return super().press(ctx, press)
        return self

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        canvas.line(0, "default " + " ".join(map(str, self.defaults)), center=True)
        width = WIDTH // len(self.values)
        for index, value in enumerate(self.values):
            x = index * width
            text = str(value)
            canvas.text(_centred_x(x, width, self.labels[index], 1), BODY_TOP + 33,
                        self.labels[index])
            canvas.text(_centred_x(x, width, text, 2), BODY_TOP + 13, text, scale=2)
            if index == self.cursor:
                canvas.underline(x + 4, BODY_TOP + 29, width - 8)


# -- the table ------------------------------------------------------------------------------


class Ceremony(Spinner):
    """The lottery's draw: a longer spin than a die roll, so the table can watch it land."""

    FRAMES = 10

    def start(self) -> None:
        self.frames_left = self.FRAMES


class BlockLotteryTable(GameScreen):
    """The round in play: the pool roll, the pool with who took what, the re-rolls and the
    lottery. Counting cards, results and the end of the game are screens of their own."""

    def __init__(self, session: Session, home: Screen | None):
        super().__init__(session, home)
        self.spinner = Spinner()
        self.spin_counts = [0] * len(rules.FACES)
        self.ceremony = Ceremony()
        self.flash = rules.NONE
        self.face = 1
        self.row = 0
        self.last_taker: str | None = None
        self.rounds_seen = len(self.match.rounds)
        # Screen-only: which round's end was announced and whose lottery was looked at.
        self.end_shown: int | None = None
        self.lottery_shown: int | None = None

    # -- routing ---------------------------------------------------------------------------

    def route(self, ctx: Context) -> Screen:
        match = self.match
        if len(match.rounds) > self.rounds_seen:
            self.rounds_seen = len(match.rounds)
            return RoundResult(self, len(match.rounds) - 1)
        if match.over:
            return GameOver(self)
        if match.phase in (rules.FINALISE, rules.LOTTERY, rules.SCORING) \
                and self.end_shown != match.round_number:
            self.end_shown = match.round_number
            if match.phase == rules.FINALISE:
                return RoundOver(self)
        if match.phase == rules.SCORING and self.lottery_shown == match.round_number:
            return ScoreEntry(self, match.expecting().choices["player"][0])
        if match.phase == rules.PLAY:
            self._keep_face()
        if match.phase == rules.FINALISE:
            self.row = min(self.row, max(0, len(self._holders()) - 1))
        return self

    def undone(self, ctx: Context) -> None:
        match = self.match
        self.rounds_seen = min(self.rounds_seen, len(match.rounds))
        if match.phase in (rules.POOL, rules.PLAY):
            self.end_shown = None
        if match.phase != rules.SCORING:
            self.lottery_shown = None
        self.spinner.frames_left = 0
        self.ceremony.frames_left = 0

    def describe_event(self, event: dict, named: bool = True) -> str:
        return describe_event(event, named)

    # -- buttons ---------------------------------------------------------------------------

    @property
    def hint(self) -> str:  # type: ignore[override]
        phase = self.match.phase
        if phase == rules.POOL:
            return "ROLL roll the pool"
        if phase == rules.PLAY:
            return "OK take ROLL end rnd"
        if phase == rules.FINALISE:
            return "OK reroll ROLL draw"
        if phase == rules.LOTTERY:
            return "ROLL draw a token"
        return "ROLL count the cards"

    def press(self, ctx: Context, press: Press) -> Screen:
        phase = self.match.phase
        go = is_(press, "roll") or is_(press, "ok")
        if phase == rules.POOL and go:
            return self._roll_pool(ctx)
        if phase == rules.PLAY:
            return self._press_play(ctx, press)
        if phase == rules.FINALISE:
            return self._press_finalise(ctx, press)
        if phase == rules.LOTTERY and go:
            return self._draw_token(ctx)
        if phase == rules.SCORING and go:
            self.lottery_shown = self.match.round_number
            return self.route(ctx)
        return super().press(ctx, press)

    def _roll_pool(self, ctx: Context) -> Screen:
        if physical_dice(ctx.config):  # the table rolled the 15 dice: their faces, entered
            return self.entry_picker(
                "The pool's dice", [str(face) for face in rules.FACES],
                lambda faces: {"type": "pool", "faces": [int(face) for face in faces],
                               "entered": True},
                self, limits=(rules.POOL_SIZE, rules.POOL_SIZE))
        faces = roll_dice(ctx.rng, rules.POOL_SIZE)
        ctx.beep()
        self.spinner.start()
        self.last_taker = None
        self.face = 1
        return self.apply(ctx, {"type": "pool", "faces": faces})

    def _press_play(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down") and not press.long:
            self._move_face(1 if press.button == "down" else -1)
            return self
        if is_(press, "ok"):
            return self._who_takes(ctx)
        if is_(press, "roll"):
            return self._end_menu(ctx)
        return super().press(ctx, press)

    def _in_pool(self) -> list[int]:
        return list(self.match.expecting().choices.get("face", ()))

    def _keep_face(self) -> None:
        """Leave the cursor where it is while that face is in the pool, else move on."""
        if self.face not in self._in_pool():
            self._move_face(1)

    def _move_face(self, step: int) -> None:
        faces = self._in_pool()
        if not faces:
            return
        face = self.face
        for _ in rules.FACES:
            face = (face - 1 + step) % len(rules.FACES) + 1
            if face in faces:
                break
        self.face = face

    def _who_takes(self, ctx: Context) -> Screen:
        face = self.face
        dice = self.match.state()["dice"]
        items = [MenuItem(name, lambda ctx, menu, name=name: self._take(ctx, name, face, menu),
                          note=counted(len(dice[name]), "die")) for name in self.match.players]
        menu = Menu(f"Who takes a {face}?", items, self)
        who = self.last_taker or self.match.first_player
        menu.selected = self.match.players.index(who)
        return menu

    def _take(self, ctx: Context, player: str, face: int, menu: Screen) -> Screen:
        # A refusal goes back to the menu, still on the player picked.
        self.last_taker = player
        return self.apply(ctx, {"type": "take", "player": player, "face": face}, after=menu)

    def _end_menu(self, ctx: Context) -> Screen:
        expect = self.match.expecting()
        items = [MenuItem("Deck ran out", lambda ctx, menu: self._enders(
            ctx, "Who could not draw?", self.match.players, rules.DECK_OUT, menu))]
        if rules.EMPTY_HAND in expect.choices["cause"]:
            holders = expect.choices["empty_hand"]
            if holders:
                items.append(MenuItem("Empty hand", lambda ctx, menu: self._enders(
                    ctx, "Whose hand is empty?", holders, rules.EMPTY_HAND, menu)))
            else:
                items.append(MenuItem("Empty hand", lambda ctx, menu: Message(
                    "Empty hand", ["Only a player with", "a die ends the round", "this way:",
                                   "nobody has one yet."], menu), note="no dice"))
        return Menu("End the round", items, self)

    def _enders(self, ctx: Context, title: str, players: Sequence[str], cause: str,
                parent: Screen) -> Screen:
        items = [MenuItem(name, lambda ctx, menu, name=name: self.apply(
            ctx, {"type": "end", "player": name, "cause": cause}, after=menu))
                 for name in players]
        return Menu(title, items, parent)

    def _holders(self) -> list[str]:
        """Players with dice: the re-roll list."""
        dice = self.match.state()["dice"]
        return [name for name in self.match.players if dice[name]]

    def _press_finalise(self, ctx: Context, press: Press) -> Screen:
        holders = self._holders()
        if press.button in ("up", "down") and not press.long and holders:
            self.row = (self.row + (1 if press.button == "down" else -1)) % len(holders)
            return self
        if is_(press, "ok") and holders:
            player = holders[self.row]
            if player not in self.match.expecting().choices["player"]:
                return Message("Re-roll", [f"{player} has already", "re-rolled this round."],
                               self)
            return RerollScreen(self, player, physical=physical_dice(ctx.config))
        if is_(press, "roll"):
            waiting = self.match.expecting().choices["player"]
            if waiting:
                names = ", ".join(waiting)
                who = names if len(names) <= 21 else f"{len(waiting)} players"
                return Confirm("Start the lottery?", [who, "may still re-roll:",
                                                      "dice are set after", "the first token."],
                               lambda ctx: self._draw_token(ctx), self)
            return self._draw_token(ctx)
        return super().press(ctx, press)

    def _draw_token(self, ctx: Context) -> Screen:
        token = TokenBag(self.match.tokens_left).draw(ctx.rng)
        ctx.beep()
        self.ceremony.start()
        return self.apply(ctx, {"type": "token", "token": token})

    # -- animation -------------------------------------------------------------------------

    def tick_after(self) -> float | None:
        return self.ceremony.tick_after() or self.spinner.tick_after()

    def tick(self, ctx: Context) -> Screen:
        if self.ceremony.spinning:
            self.ceremony.step()
            if self.ceremony.spinning:
                drawn = self.match.tokens
                self.flash = ctx.anim_rng.choice(
                    [t for t in rules.LOTTERY_TOKENS if t not in drawn[:-1]])
            else:
                ctx.beep()  # the token lands
        elif self.spinner.spinning:
            self.spinner.step()
            self.spin_counts = _counts(roll_dice(ctx.anim_rng, rules.POOL_SIZE))
        return self

    # -- picture ---------------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        state = self.match.state()
        phase = state["phase"]
        if phase == rules.POOL:
            self._draw_round_start(canvas, state)
        elif phase == rules.PLAY:
            self._draw_pool(canvas, state)
        elif phase == rules.FINALISE:
            self._draw_rerolls(canvas, state)
        else:
            self._draw_lottery(canvas, state)

    def _draw_round_start(self, canvas: Canvas, state: dict) -> None:
        canvas.title(f"Round {state['round']} of {rules.ROUNDS}", f"deal {rules.HAND_SIZE}")
        canvas.line(0, f"Dealer: {state['dealer']}")
        canvas.line(1, f"First: {state['first_player']}")
        canvas.line(2, "Prizes " + " ".join(map(str, state["prizes"])))
        if state["rounds"]:
            canvas.line(3, f"Ended by {state['rounds'][-1]['ended_by']}")

    def _draw_pool(self, canvas: Canvas, state: dict) -> None:
        last = state["last_take"]
        if self.spinner.spinning:
            canvas.title("Rolling 15 dice")
            draw_faces(canvas, self.spin_counts)
            return
        title = f"Round {state['round']}" if last is None \
            else f"{last['player']} took a {last['face']}"
        left = f"{state['pool_left']} left"
        # The dice left are also the counts under the faces: they give way to a long name.
        canvas.title(title, left, right_gives_way=True)
        draw_faces(canvas, state["pool"], cursor=self.face)

    def _draw_rerolls(self, canvas: Canvas, state: dict) -> None:
        canvas.title("Re-rolls", f"round {state['round']}")
        holders = self._holders()
        if not holders:
            canvas.paragraph(["Nobody has dice.", "ROLL: the lottery."])
            return
        top = max(0, self.row - MENU_ROWS + 1)
        width = max(len(name) for name in holders)
        for row, name in enumerate(holders[top : top + MENU_ROWS]):
            count = len(state["dice"][name])
            # A count with its own noun ("1 die", "15 dice"); "done" once re-rolled.
            done = "done" if name in state["rerolled"] else counted(count, "die")
            text = f"{name:<{width}} {done:>7}"
            canvas.line(row, text, invert=top + row == self.row)

    def _draw_lottery(self, canvas: Canvas, state: dict) -> None:
        tokens = state["tokens"]
        canvas.title(f"Lottery, round {state['round']}", f"{len(tokens)}/{rules.SPACES}")
        landing = len(tokens) - 1 if self.ceremony.spinning else None
        for space, prize in enumerate(state["prizes"]):
            x = 1 + space * 43
            box = (x, BODY_TOP + 1, x + 39, BODY_TOP + 41)
            canvas.frame(box)
            label = f"{prize} pt"
            canvas.text(_centred_x(x, 40, label, 1), BODY_TOP + 31, label)
            if space == landing:
                draw_token(canvas, x, self.flash, invert=True)
            elif space < len(tokens):
                draw_token(canvas, x, tokens[space])
            else:
                canvas.text(_centred_x(x, 40, "?", 2), BODY_TOP + 9, "?", scale=2)


def draw_token(canvas: Canvas, x: int, token: str, *, invert: bool = False) -> None:
    """One lottery token in the prize space whose box starts at ``x``: a die for a face,
    ALL in big letters, NONE as a crossed-out die."""
    left, top = x + (40 - TOKEN_DIE) // 2, BODY_TOP + 4
    if token == rules.ALL:
        canvas.text(_centred_x(x, 40, "ALL", 2), top + 6, "ALL", scale=2, invert=invert)
    elif token == rules.NONE:
        right, bottom = left + TOKEN_DIE - 1, top + TOKEN_DIE - 1
        canvas.draw.rounded_rectangle((left, top, right, bottom), radius=3, outline=1,
                                      fill=1 if invert else 0)
        ink = 0 if invert else 1
        canvas.draw.line((left + 3, top + 3, right - 3, bottom - 3), fill=ink, width=2)
        canvas.draw.line((left + 3, bottom - 3, right - 3, top + 3), fill=ink, width=2)
    else:
        canvas.die(left, top, TOKEN_DIE, int(token), held=invert)


# -- the end of a round ---------------------------------------------------------------------


class RoundOver(ResultScreen):
    """Who ended the round and how, and who deals next; then the re-rolls."""

    hint = "OK re-rolls"

    def draw(self, canvas: Canvas) -> None:
        state = self.table.match.state()
        canvas.title(f"Round {state['round']} over")
        lines = wrap(f"{state['ended_by']} {rules.CAUSE_WORDS[state['end']]}.")
        if state["round"] < rules.ROUNDS:
            lines.append(f"They deal round {state['round'] + 1}.")
        lines.append("Re-rolls come next.")
        canvas.paragraph(lines)


class RerollScreen(Screen):
    """A player's dice by face: OK picks up one more die of the face under the cursor
    (round to none again), ROLL rolls the picked-up dice, a long ROLL enters the faces
    rolled at the table instead, a long OK puts every die back down. At a table that
    rolls real dice (``physical``) ROLL too asks for the faces. Entered faces are kept
    marked as entered, so the record never passes them off as the device's roll."""

    roll_ready = True

    def __init__(self, table: BlockLotteryTable, player: str, physical: bool = False):
        super().__init__(table)
        self.table = table
        self.player = player
        self.physical = physical
        self.owned = _counts(table.match.state()["dice"][player])
        self.picked = [0] * len(rules.FACES)
        self.face = next(face for face in rules.FACES if self.owned[face - 1])
        self.spinner = Spinner()
        self.rolled: list[int] | None = None
        self.spin_counts = list(self.owned)

    @property
    def hint(self) -> str:  # type: ignore[override]
        if self.rolled is not None:
            return "OK back"
        return "OK pick up ROLL enter" if self.physical else "OK pick up ROLL roll"

    @property
    def title(self) -> str:  # type: ignore[override]
        if self.rolled is not None and self.spinner.spinning:
            return f"{self.player} rolls..."
        if self.rolled is not None:  # the new faces are also in the counts under the dice
            rolled = f"{self.player} rolled " + " ".join(map(str, self.rolled))
            return fitting(rolled, f"{self.player} rolled")
        return f"{self.player}: {sum(self.picked)} up"

    def press(self, ctx: Context, press: Press) -> Screen:
        if self.rolled is not None:
            if press.button in ("ok", "roll", "back"):
                return self.table.route(ctx)
            return self
        if press.button in ("up", "down") and not press.long:
            self._move(1 if press.button == "down" else -1)
        elif is_(press, "ok"):
            index = self.face - 1
            self.picked[index] = (self.picked[index] + 1) % (self.owned[index] + 1)
        elif is_(press, "ok", long=True):
            self.picked = [0] * len(rules.FACES)
        elif is_(press, "roll"):
            return self._enter(ctx) if self.physical else self._roll(ctx)
        elif is_(press, "roll", long=True):
            return self._enter(ctx)
        elif is_(press, "back"):
            return self.table.route(ctx)
        return self

    def _move(self, step: int) -> None:
        face = self.face
        for _ in rules.FACES:
            face = (face - 1 + step) % len(rules.FACES) + 1
            if self.owned[face - 1]:
                break
        self.face = face

    def _from(self) -> list[int]:
        return [face for face in rules.FACES for _ in range(self.picked[face - 1])]

    def _nothing_picked(self) -> Screen:
        return Message("Re-roll", ["Pick up dice first:", "OK on a face picks", "up one more."],
                       self)

    def _roll(self, ctx: Context) -> Screen:
        before = self._from()
        if not before:
            return self._nothing_picked()
        after = roll_dice(ctx.rng, len(before))
        ctx.beep()
        event = {"type": "reroll", "player": self.player, "from": before, "to": after}
        screen = self.table.apply(ctx, event, after=self)
        if isinstance(screen, Message):
            return screen
        self.rolled = after
        self.spinner.start()
        return self

    def _enter(self, ctx: Context) -> Screen:
        before = self._from()
        if not before:
            return self._nothing_picked()

        return self.table.entry_picker(
            fitting(f"{self.player}'s new faces", f"{self.player}: faces", "New faces"),
            [str(face) for face in rules.FACES],
            lambda faces: {"type": "reroll", "player": self.player, "from": before,
                           "to": [int(face) for face in faces], "entered": True},
            self, limits=(len(before), len(before)))

    def tick_after(self) -> float | None:
        return self.spinner.tick_after()

    def tick(self, ctx: Context) -> Screen:
        self.spinner.step()
        kept = [owned - picked for owned, picked in zip(self.owned, self.picked, strict=True)]
        spun = _counts(roll_dice(ctx.anim_rng, sum(self.picked)))
        self.spin_counts = [a + b for a, b in zip(kept, spun, strict=True)]
        return self

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        if self.rolled is None:
            draw_faces(canvas, self.owned, cursor=self.face, scale=2, picked=self.picked)
        elif self.spinner.spinning:
            draw_faces(canvas, self.spin_counts, scale=2)
        else:
            draw_faces(canvas, _counts(self.table.match.state()["dice"][self.player]), scale=2)


# -- counting the cards ---------------------------------------------------------------------


class ScoreEntry(Screen):
    """One player's cards: in blocks, in hand and (Lucky Card Bonus) the lucky ones.

    UP/DOWN change the line under the cursor (a long press: by 5), OK goes to the next
    line, ROLL enters them. The dice and their lottery points are already known, so the
    round score is shown big as the numbers change.
    """

    hint = "OK next  ROLL enter"
    roll_ready = True

    def __init__(self, table: BlockLotteryTable, player: str):
        super().__init__(table)
        self.table = table
        self.player = player
        state = table.match.state()
        self.dice = state["dice"][player]
        self.tokens = state["tokens"]
        self.prizes = state["prizes"]
        self.lucky_number = state["lucky_number"]
        self.lucky_each = state["lucky_each"]
        self.fields = ["blocks", "hand"] + (["lucky"] if self.lucky_number else [])
        # Whoever took a die has played a block, so at least 3 cards.
        self.values = {"blocks": rules.MIN_BLOCK if self.dice else 0, "hand": 0, "lucky": 0}
        self.cursor = 0

    @property
    def title(self) -> str:  # type: ignore[override]
        cards = f"{self.player}'s cards"
        return cards if len(cards) + len(" round 3") <= COLUMNS else self.player

    def press(self, ctx: Context, press: Press) -> Screen:
        field = self.fields[self.cursor]
        if press.button in ("up", "down"):
            self.values[field] = self._stepped(field, press)
        elif is_(press, "ok"):
            self.cursor = (self.cursor + 1) % len(self.fields)
        elif is_(press, "roll"):
            return self._submit(ctx)
        elif is_(press, "back"):
            if self.cursor:
                self.cursor -= 1
            else:
                return self.table.menu(ctx)
        return self

    def _stepped(self, field: str, press: Press) -> int:
        value = step_value(self.values[field], press, 0, 99, 5)
        if field == "blocks" and 0 < value < rules.MIN_BLOCK:
            # Blocks hold 0 or at least 3 cards: step over 1 and 2.
            value = rules.MIN_BLOCK if press.button == "up" else 0
        return value

    def _submit(self, ctx: Context) -> Screen:
        event = {"type": "score", "player": self.player, "blocks": self.values["blocks"],
                 "hand": self.values["hand"]}
        if self.lucky_number:
            event["lucky"] = self.values["lucky"]
        return self.table.apply(ctx, event, after=self)

    def score(self) -> rules.RoundScore:
        return rules.score_round(self.values["blocks"], self.values["hand"], self.dice,
                                 self.tokens, self.prizes,
                                 self.values["lucky"] * self.lucky_each)

    def draw(self, canvas: Canvas) -> None:
        part = self.score()
        canvas.title(self.title, f"round {self.table.match.round_number}")
        canvas.line(0, f"{counted(part.dice, 'die')}, lottery +{part.lottery}")
        labels = {"blocks": "In blocks", "hand": "In hand",
                  "lucky": f"Lucky {self.lucky_number}s"}
        for row, field in enumerate(self.fields, start=1):
            text = f"{labels[field]:<9} {self.values[field]:>2}"
            canvas.text(1, BODY_TOP + row * 10, text, invert=self.cursor == row - 1)
        canvas.big_text(WIDTH - 2, BODY_TOP + 13, str(part.score), right=True)


# -- results --------------------------------------------------------------------------------


class RoundResult(ResultScreen):
    """The round's scores: the summary (every player's points and the tokens, on more
    pages when long names need a line each), then one page per player with every part
    (cards, dice, lottery, lucky, minus hand, the floor at 0). OK/DOWN next, UP back."""

    hint = "OK next  UP back"
    #: Players on a summary page when each needs a line of their own.
    SUMMARY_ROWS = 3

    def __init__(self, table: BlockLotteryTable, index: int):
        super().__init__(table)
        self.record = table.match.result()["rounds"][index]
        self.players = list(self.record["players"])
        self.summaries = self._summary_pages()
        self.page = 0

    @property
    def pages(self) -> int:
        return len(self.summaries) + len(self.players)

    def _summary_pages(self) -> list[list[str]]:
        """Each summary page's lines: two players a line while the names are short."""
        points = self.record["points"]
        width = max(len(name) for name in self.players)
        if width <= 6:
            cells = [f"{name:<6}{points[name]:>3}" for name in self.players]
            lines = [" ".join(cells[row : row + 2]) for row in range(0, len(cells), 2)]
            chunks = [lines]
        else:
            lines = [f"{name:<{width}} {points[name]:>3}" for name in self.players]
            chunks = [lines[i : i + self.SUMMARY_ROWS]
                      for i in range(0, len(lines), self.SUMMARY_ROWS)]
        tokens = "Tokens " + " ".join(self.record["tokens"])
        return [chunk + [tokens] for chunk in chunks]

    def next_screen(self, ctx: Context) -> Screen:
        """The next page; after the last, the game's end or the standings so far."""
        if self.page < self.pages - 1:
            self.page += 1
            return self
        if self.table.match.over:
            return GameOver(self.table)
        return Standings(self.table.match, self.table,
                         title=f"After round {self.record['round']}")

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "up"):
            self.page = max(0, self.page - 1)
            return self
        if is_(press, "down"):
            return self.next_screen(ctx)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        where = f"{self.page + 1}/{self.pages}"
        if self.page < len(self.summaries):
            canvas.title(f"Round {self.record['round']} scores", where)
            canvas.paragraph(self.summaries[self.page])
        else:
            self._draw_player(canvas, self.players[self.page - len(self.summaries)], where)

    def _draw_player(self, canvas: Canvas, name: str, where: str) -> None:
        row = self.record["players"][name]
        canvas.title(f"R{self.record['round']} {name}", where)
        lines = []
        if self.record["lucky_number"] is not None:
            lines.append(f"Cards {row['cards']} Dice {row['dice']}")
            lines.append(f"Lottery  +{row['lottery']}")
            lines.append(f"Lucky {row['lucky_cards']}x{self.record['lucky_each']} +{row['lucky']}")
        else:
            lines += [f"Cards    +{row['cards']}", f"Dice     +{row['dice']}",
                      f"Lottery  +{row['lottery']}"]
        lines.append(f"Hand     -{row['hand']}")
        for index, text in enumerate(lines):
            canvas.line(index, clip(text, 14))
        canvas.big_text(WIDTH - 2, BODY_TOP + 1, str(row["score"]), right=True)
        if row["raw"] < 0:
            canvas.text(WIDTH - text_width(f"({row['raw']})") - 1, BODY_TOP + 25,
                        f"({row['raw']})")


class GameOver(GameOverScreen):
    """The winner(s) and their total big; DOWN shows every total; round 3 broke a tie?"""

    hint = "DN totals  OK end"

    def title_right(self, result: dict) -> str:
        return counted(rules.ROUNDS, "round")

    def extra_line(self, result: dict) -> str:
        return "tie: round 3" if result["tie_break"] else ""
