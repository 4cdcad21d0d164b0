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
from companion.lang import lazy, npgettext, pgettext
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

# Translators: the button names printed on the device (UP, DN/DOWN, OK, BACK, ROLL) stay
# as they are inside every hint of these screens.

#: Width of one face column when the six faces are drawn side by side.
COLUMN = 21
#: Die pictures: the pool and a player's dice (>= 16 px), the tokens on the prize card.
FACE_DIE, TOKEN_DIE = 16, 22
#: Highest value the setup editors offer (prize spaces, cards per number, wilds).
EDIT_MAX = 20
#: How a round ended, as the round's end says it (the event keeps the English code).
ROUND_ENDS = {
    # Translators: Block Lottery, how the round ended: {name} took the pool's last die.
    rules.LAST_DIE: lazy("screen 21x3", "{name} took the last die."),
    # Translators: Block Lottery, how the round ended: {name} played their last card.
    rules.EMPTY_HAND: lazy("screen 21x3", "{name} had no cards in hand."),
    # Translators: Block Lottery, how the round ended: the deck was empty when {name}
    # had to draw.
    rules.DECK_OUT: lazy("screen 21x3", "{name} could not draw."),
}


def token_word(token: str) -> str:
    """A lottery token as a line of text says it: its face, or ALL / NONE."""
    if token == rules.ALL:
        # Translators: Block Lottery, the lottery token that makes every die score that
        # prize space (4 characters).
        return pgettext("screen 4", "ALL")
    if token == rules.NONE:
        # Translators: Block Lottery, the lottery token that makes no die score that
        # prize space (4 characters).
        return pgettext("screen 4", "NONE")
    return token


def dice_count(count: int) -> str:
    """"1 die", "15 dice" (7 characters)."""
    # Translators: how many dice a player has (7 characters).
    return npgettext("screen 7", "{n} die", "{n} dice", count).format(n=count)


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
    # Translators: Block Lottery's undo row ("Undo " and these words, 16 characters):
    # the last thing entered, with the player's name or without it.
    kind, player = event.get("type"), event.get("player", "")
    if kind == "pool":
        # Translators: the roll of the dice pool (the 15 dice in the middle).
        return pgettext("screen 16", "pool roll")
    if kind == "token":
        # Translators: a lottery token drawn ({token}: a face, ALL or NONE).
        return pgettext("screen 16", "token {token}").format(
            token=token_word(str(event.get("token"))))
    if kind == "take":
        face = event.get("face")
        # Translators: a player took a die showing {face} from the pool.
        return (pgettext("screen 16", "{name} took a {face}").format(name=player, face=face)
                if named else pgettext("screen 16", "take of a {face}").format(face=face))
    words = {"end": (lazy("screen 16", "{name}: round end"), lazy("screen 16", "round end")),
             "reroll": (lazy("screen 16", "{name}'s re-roll"), lazy("screen 16", "re-roll")),
             # Translators: the cards a player counted at the round's end.
             "score": (lazy("screen 16", "{name}'s cards"), lazy("screen 16", "card count")),
             }.get(str(kind))
    if words is None:
        return str(kind)
    return str(words[0]).format(name=player) if named else str(words[1])


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
        # Translators: the setup rows of Block Lottery's two variants (the rule sheet's
        # Lucky Card Bonus and Long Game), each on or off.
        lucky = (pgettext("screen 21", "Lucky Card: on") if self.options["lucky_card_bonus"]
                 else pgettext("screen 21", "Lucky Card: off"))
        long_game = (pgettext("screen 21", "Long Game: on") if self.options["long_game"]
                     else pgettext("screen 21", "Long Game: off"))
        rows: list[Row] = [
            (lucky, lambda ctx: self._toggle("lucky_card_bonus")),
            (long_game, lambda ctx: self._toggle("long_game")),
        ]
        for index, values in enumerate(self.options["prizes"]):
            # Translators: the setup row of round {n}'s three prize values (low, mid, high).
            prizes = pgettext("screen 21", "Round {n} prizes {prizes}").format(
                n=index + 1, prizes=" ".join(map(str, values)))
            rows.append((prizes, lambda ctx, index=index: self._edit_prizes(index)))
        wilds = self.options["wilds"]
        # Translators: the setup row of the deck: {cards} cards of each number 1-7 and
        # {n} wild cards.
        deck = npgettext("screen 21", "Deck {cards}x1-7 +{n} wild", "Deck {cards}x1-7 +{n} wild",
                         wilds).format(cards=self.options["cards_per_number"], n=wilds)
        rows.append((deck, lambda ctx: self._edit_deck()))
        return rows

    def _toggle(self, name: str) -> Screen:
        self.options[name] = not self.options[name]
        return self

    def _edit_prizes(self, index: int) -> Screen:
        def done(ctx: Context, values: list[int]) -> Screen:
            self.options["prizes"][index] = values
            return self

        # Translators: the three prize spaces of a round's prize card, lowest first, each
        # label under its value (7 characters).
        labels = [pgettext("screen 7", "low"), pgettext("screen 7", "mid"),
                  pgettext("screen 7", "high")]
        # Translators: the title of the editor of round {n}'s prize values.
        return NumbersEditor(pgettext("screen 21", "Round {n} prizes").format(n=index + 1),
                             labels,
                             self.options["prizes"][index], list(rules.DEFAULT_PRIZES[index]),
                             0, EDIT_MAX, done, self)

    def _edit_deck(self) -> Screen:
        def done(ctx: Context, values: list[int]) -> Screen:
            self.options["cards_per_number"], self.options["wilds"] = values
            return self

        defaults = rules.BlockLottery.option_defaults
        # Translators: under the deck's two numbers (10 characters each): cards of each
        # number 1-7, and wild cards.
        labels = [pgettext("screen 10", "each 1-7"), pgettext("screen 10", "wilds")]
        # Translators: the title of the deck's editor.
        return NumbersEditor(pgettext("screen 21", "Deck"), labels,
                             [self.options["cards_per_number"], self.options["wilds"]],
                             [defaults["cards_per_number"], defaults["wilds"]], 0, EDIT_MAX,
                             done, self)

    def start(self, ctx: Context) -> GameScreen:
        return BlockLotteryTable(self.new_session(ctx, self.options), self.parent)


class NumbersEditor(Screen):
    """Two or three numbers side by side, big, with their defaults: UP/DOWN change the
    one underlined, OK goes to the next (after the last: done), ROLL is done, a long OK
    puts the defaults back, BACK goes to the previous one or leaves unchanged."""

    roll_ready = True

    @property
    def hint(self) -> str:  # type: ignore[override]
        return pgettext("screen 21", "UP/DN set  OK next")

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
        # Translators: the rule sheet's values, above the values in use.
        canvas.line(0, pgettext("screen 21", "default {values}").format(
            values=" ".join(map(str, self.defaults))), center=True)
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
            # Translators: ROLL rolls the 15 dice of the pool. The button names (UP, DN,
            # OK, BACK, ROLL) are printed on the device: keep them in every hint.
            return pgettext("screen 21", "ROLL roll the pool")
        if phase == rules.PLAY:
            # Translators: OK: a player takes the die picked; ROLL: the round ends ("rnd"
            # = round).
            return pgettext("screen 21", "OK take ROLL end rnd")
        if phase == rules.FINALISE:
            # Translators: OK: the player picked re-rolls; ROLL draws the lottery.
            return pgettext("screen 21", "OK reroll ROLL draw")
        if phase == rules.LOTTERY:
            # Translators: ROLL draws a lottery token from the tin.
            return pgettext("screen 21", "ROLL draw a token")
        return pgettext("screen 21", "ROLL count the cards")

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
                # Translators: the title of the picker of the faces the table rolled on
                # the pool's 15 dice (the count on the right).
                pgettext("screen 18", "The pool's dice"), [str(face) for face in rules.FACES],
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
                          note=dice_count(len(dice[name]))) for name in self.match.players]
        # Translators: the title over the players: who takes a die showing {face}.
        menu = Menu(pgettext("screen 21", "Who takes a {face}?").format(face=face), items, self)
        who = self.last_taker or self.match.first_player
        menu.selected = self.match.players.index(who)
        return menu

    def _take(self, ctx: Context, player: str, face: int, menu: Screen) -> Screen:
        # A refusal goes back to the menu, still on the player picked.
        self.last_taker = player
        return self.apply(ctx, {"type": "take", "player": player, "face": face}, after=menu)

    def _end_menu(self, ctx: Context) -> Screen:
        expect = self.match.expecting()
        # Translators: how the round ended: the deck was empty when someone had to draw.
        items = [MenuItem(pgettext("screen 21", "Deck ran out"), lambda ctx, menu: self._enders(
            ctx, pgettext("screen 21", "Who could not draw?"), self.match.players,
            rules.DECK_OUT, menu))]
        if rules.EMPTY_HAND in expect.choices["cause"]:
            holders = expect.choices["empty_hand"]
            if holders:
                # Translators: how the round ended: a player played their last card.
                items.append(MenuItem(pgettext("screen 21", "Empty hand"),
                                      lambda ctx, menu: self._enders(
                    ctx, pgettext("screen 21", "Whose hand is empty?"), holders,
                    rules.EMPTY_HAND, menu)))
            else:
                # Translators: lines of 21 characters, broken where the English breaks
                # them (break where your words fit; a longer line is folded).
                why = pgettext("screen 21x4", "Only a player with\na die ends the round\n"
                               "this way:\nnobody has one yet.")
                # Translators: beside "Empty hand" (13 characters): nobody has a die.
                items.append(MenuItem(pgettext("screen 13", "Empty hand"),
                                      lambda ctx, menu: Message(
                    pgettext("screen 21", "Empty hand"), _lines(why), menu),
                    note=pgettext("screen 7", "no dice")))
        # Translators: the menu title of how the round ended.
        return Menu(pgettext("screen 21", "End the round"), items, self)

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
                # Translators: a player re-rolls once a round.
                already = pgettext("screen 21x3", "{name} has already re-rolled this round.")
                return Message(pgettext("screen 21", "Re-roll"),
                               wrap(already.format(name=player)), self)
            return RerollScreen(self, player, physical=physical_dice(ctx.config))
        if is_(press, "roll"):
            waiting = self.match.expecting().choices["player"]
            if waiting:
                names = ", ".join(waiting)
                who = names if len(names) <= 21 else npgettext(
                    "screen 21", "{n} player", "{n} players", len(waiting)).format(
                        n=len(waiting))
                # Translators: three lines of 21 under the names of the players who have
                # not re-rolled yet.
                rest = wrap(pgettext("screen 21x3",
                                     "may still re-roll: dice are set after the first token."))
                return Confirm(pgettext("screen 21", "Start the lottery?"), [who, *rest],
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
        # Translators: the round's title; on its right (7 characters, left out when
        # both do not fit) how many cards the dealer deals each player.
        canvas.title(pgettext("screen 14", "Round {n} of {rounds}").format(
            n=state["round"], rounds=rules.ROUNDS),
            pgettext("screen 7", "deal {n}").format(n=rules.HAND_SIZE), right_gives_way=True)
        # Translators: who deals this round.
        canvas.line(0, pgettext("screen 21", "Dealer: {name}").format(name=state["dealer"]))
        # Translators: who plays first.
        canvas.line(1, pgettext("screen 21", "First: {name}").format(
            name=state["first_player"]))
        # Translators: this round's prize values (the prize card's three spaces).
        canvas.line(2, pgettext("screen 21", "Prizes {prizes}").format(
            prizes=" ".join(map(str, state["prizes"]))))
        if state["rounds"]:
            # Translators: who ended the last round.
            canvas.line(3, pgettext("screen 21", "Ended by {name}").format(
                name=state["rounds"][-1]["ended_by"]))

    def _draw_pool(self, canvas: Canvas, state: dict) -> None:
        last = state["last_take"]
        if self.spinner.spinning:
            canvas.title(npgettext("screen 21", "Rolling {n} die", "Rolling {n} dice",
                                   rules.POOL_SIZE).format(n=rules.POOL_SIZE))
            draw_faces(canvas, self.spin_counts)
            return
        if last is None:
            # Translators: {n} is the round's number (the dice left in the pool beside it).
            title = pgettext("screen 13", "Round {n}").format(n=state["round"])
        else:
            # Translators: the last take: {name} took a die showing {face} from the pool
            # (a long name pushes the dice left off the title).
            title = pgettext("screen 21", "{name} took a {face}").format(
                name=last["player"], face=last["face"])
        # Translators: how many dice are left in the pool (7 characters).
        left = npgettext("screen 7", "{n} left", "{n} left", state["pool_left"]).format(
            n=state["pool_left"])
        # The dice left are also the counts under the faces: they give way to a long name.
        canvas.title(title, left, right_gives_way=True)
        draw_faces(canvas, state["pool"], cursor=self.face)

    def _draw_rerolls(self, canvas: Canvas, state: dict) -> None:
        # Translators: the title of the re-rolls at a round's end (the round on the right).
        canvas.title(pgettext("screen 12", "Re-rolls"), _round_right(state["round"]))
        holders = self._holders()
        if not holders:
            # Translators: nobody took a die, so nobody re-rolls; ROLL draws the lottery.
            canvas.paragraph([pgettext("screen 21", "Nobody has dice."),
                              pgettext("screen 21", "ROLL: the lottery.")])
            return
        top = max(0, self.row - MENU_ROWS + 1)
        width = max(len(name) for name in holders)
        for row, name in enumerate(holders[top : top + MENU_ROWS]):
            count = len(state["dice"][name])
            # A count with its own noun ("1 die", "15 dice"); "done" once re-rolled.
            # Translators: the player has re-rolled this round (7 characters).
            done = pgettext("screen 7", "done") if name in state["rerolled"] else dice_count(count)
            text = f"{name:<{width}} {done:>7}"
            canvas.line(row, text, invert=top + row == self.row)

    def _draw_lottery(self, canvas: Canvas, state: dict) -> None:
        tokens = state["tokens"]
        # Translators: the title of the lottery drawn at a round's end (tokens drawn of
        # three on the right).
        canvas.title(pgettext("screen 17", "Lottery, round {n}").format(n=state["round"]),
                     f"{len(tokens)}/{rules.SPACES}")
        landing = len(tokens) - 1 if self.ceremony.spinning else None
        for space, prize in enumerate(state["prizes"]):
            x = 1 + space * 43
            box = (x, BODY_TOP + 1, x + 39, BODY_TOP + 41)
            canvas.frame(box)
            # Translators: a prize space's points, under it (6 characters; "pt" = points).
            label = npgettext("screen 6", "{points} pt", "{points} pt", prize).format(
                points=prize)
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
        # Translators: the lottery token that makes every die score that prize space,
        # drawn big in it (3 characters).
        word = pgettext("screen 3", "ALL")
        canvas.text(_centred_x(x, 40, word, 2), top + 6, word, scale=2, invert=invert)
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

    @property
    def hint(self) -> str:  # type: ignore[override]
        return pgettext("screen 21", "OK re-rolls")

    def draw(self, canvas: Canvas) -> None:
        state = self.table.match.state()
        # Translators: {n} is the round's number.
        canvas.title(pgettext("screen 21", "Round {n} over").format(n=state["round"]))
        lines = wrap(str(ROUND_ENDS[state["end"]]).format(name=state["ended_by"]))
        if state["round"] < rules.ROUNDS:
            # Translators: the player who ended the round deals the next one, round {n}.
            lines.append(pgettext("screen 21", "They deal round {n}.").format(
                n=state["round"] + 1))
        lines.append(pgettext("screen 21", "Re-rolls come next."))
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
            return pgettext("screen 21", "OK back")
        # Translators: OK picks up a die of the face under the cursor; ROLL rolls the
        # dice picked up (or: enters the faces the table rolled).
        return (pgettext("screen 21", "OK pick up ROLL enter") if self.physical
                else pgettext("screen 21", "OK pick up ROLL roll"))

    @property
    def title(self) -> str:  # type: ignore[override]
        if self.rolled is not None and self.spinner.spinning:
            return pgettext("screen 21", "{name} rolls...").format(name=self.player)
        if self.rolled is not None:  # the new faces are also in the counts under the dice
            # Translators: the faces the player's re-roll showed (the shorter form is
            # shown when they do not fit).
            rolled = pgettext("screen 21", "{name} rolled {faces}").format(
                name=self.player, faces=" ".join(map(str, self.rolled)))
            return fitting(rolled, pgettext("screen 21", "{name} rolled").format(
                name=self.player))
        picked = sum(self.picked)
        # Translators: how many of the player's dice are picked up to re-roll.
        return npgettext("screen 21", "{name}: {n} up", "{name}: {n} up", picked).format(
            name=self.player, n=picked)

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
        # Translators: lines of 21 characters, broken where the English breaks them
        # (break where your words fit; a longer line is folded).
        text = pgettext("screen 21x4", "Pick up dice first:\nOK on a face picks\nup one more.")
        return Message(pgettext("screen 21", "Re-roll"), _lines(text), self)

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

        # Translators: the title of the picker of the faces the table re-rolled: the
        # longest that fits is shown.
        title = fitting(pgettext("screen 21", "{name}'s new faces").format(name=self.player),
                        pgettext("screen 21", "{name}: faces").format(name=self.player),
                        pgettext("screen 21", "New faces"))
        return self.table.entry_picker(
            title,
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

    roll_ready = True

    @property
    def hint(self) -> str:  # type: ignore[override]
        # Translators: OK: the next line; ROLL enters the player's cards.
        return pgettext("screen 21", "OK next  ROLL enter")

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
        # Translators: the title of a player's card count (the round on its right; a
        # long name is shown alone).
        cards = pgettext("screen 13", "{name}'s cards").format(name=self.player)
        right = _round_right(rules.ROUNDS)
        return cards if len(cards) + 1 + len(right) <= COLUMNS else self.player

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
        canvas.title(self.title, _round_right(self.table.match.round_number))
        # Translators: the player's dice and the points they won in the lottery.
        canvas.line(0, npgettext("screen 21", "{n} die, lottery +{points}",
                                 "{n} dice, lottery +{points}", part.dice).format(
                                     n=part.dice, points=part.lottery))
        # Translators: the card counts entered (9 characters, the number beside them):
        # cards played in the player's blocks, cards left in hand, and (Lucky Card Bonus)
        # cards of the lucky number in the blocks ("Lucky 5s").
        labels = {"blocks": pgettext("screen 9", "In blocks"),
                  "hand": pgettext("screen 9", "In hand"),
                  "lucky": pgettext("screen 9", "Lucky {number}s").format(
                      number=self.lucky_number)}
        for row, field in enumerate(self.fields, start=1):
            text = f"{labels[field]:<9} {self.values[field]:>2}"
            canvas.text(1, BODY_TOP + row * 10, text, invert=self.cursor == row - 1)
        canvas.big_text(WIDTH - 2, BODY_TOP + 13, str(part.score), right=True)


# -- results --------------------------------------------------------------------------------


class RoundResult(ResultScreen):
    """The round's scores: the summary (every player's points and the tokens, on more
    pages when long names need a line each), then one page per player with every part
    (cards, dice, lottery, lucky, minus hand, the floor at 0). OK/DOWN next, UP back."""

    #: Players on a summary page when each needs a line of their own.
    SUMMARY_ROWS = 3

    def __init__(self, table: BlockLotteryTable, index: int):
        super().__init__(table)
        self.record = table.match.result()["rounds"][index]
        self.players = list(self.record["players"])
        self.summaries = self._summary_pages()
        self.page = 0

    @property
    def hint(self) -> str:  # type: ignore[override]
        return pgettext("screen 21", "OK next  UP back")

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
        # Translators: the lottery tokens drawn this round (faces, ALL, NONE).
        tokens = pgettext("screen 21", "Tokens {tokens}").format(
            tokens=" ".join(map(token_word, self.record["tokens"])))
        return [chunk + [tokens] for chunk in chunks]

    def next_screen(self, ctx: Context) -> Screen:
        """The next page; after the last, the game's end or the standings so far."""
        if self.page < self.pages - 1:
            self.page += 1
            return self
        if self.table.match.over:
            return GameOver(self.table)
        # Translators: the title of the standings after round {n}.
        return Standings(self.table.match, self.table,
                         title=pgettext("screen 17", "After round {n}").format(
                             n=self.record["round"]))

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
            # Translators: the title of every player's points for round {n}.
            canvas.title(pgettext("screen 15", "Round {n} scores").format(
                n=self.record["round"]), where)
            canvas.paragraph(self.summaries[self.page])
        else:
            self._draw_player(canvas, self.players[self.page - len(self.summaries)], where)

    def _draw_player(self, canvas: Canvas, name: str, where: str) -> None:
        row = self.record["players"][name]
        # Translators: a player's round score page: "R" is short for round {n}.
        canvas.title(pgettext("screen 15", "R{n} {name}").format(n=self.record["round"],
                                                                 name=name), where)
        # Translators: the parts of a player's round score (8 characters each, the
        # points after them): points for cards in blocks, for dice, won in the lottery,
        # and taken off for the cards left in hand.
        cards, dice = pgettext("screen 8", "Cards"), pgettext("screen 8", "Dice")
        lottery, hand = pgettext("screen 8", "Lottery"), pgettext("screen 8", "Hand")
        lines = []
        if self.record["lucky_number"] is not None:
            # Translators: the points for cards in blocks and for dice, on one line.
            lines.append(pgettext("screen 16", "Cards {cards} Dice {dice}").format(
                cards=row["cards"], dice=row["dice"]))
            lines.append(f"{lottery:<9}+{row['lottery']}")
            # Translators: Lucky Card Bonus: {n} lucky cards at {each} points each.
            lines.append(pgettext("screen 16", "Lucky {n}x{each} +{points}").format(
                n=row["lucky_cards"], each=self.record["lucky_each"], points=row["lucky"]))
        else:
            lines += [f"{cards:<9}+{row['cards']}", f"{dice:<9}+{row['dice']}",
                      f"{lottery:<9}+{row['lottery']}"]
        lines.append(f"{hand:<9}-{row['hand']}")
        # With the Lucky Card Bonus two parts share a line: the score is drawn smaller
        # to give them room (16 characters beside two digits at twice the size).
        lucky = self.record["lucky_number"] is not None
        for index, text in enumerate(lines):
            canvas.line(index, clip(text, 16 if lucky else 14))
        canvas.big_text(WIDTH - 2, BODY_TOP + 1, str(row["score"]), 2 if lucky else 3,
                        right=True)
        if row["raw"] < 0:
            canvas.text(WIDTH - text_width(f"({row['raw']})") - 1, BODY_TOP + 25,
                        f"({row['raw']})")


class GameOver(GameOverScreen):
    """The winner(s) and their total big; DOWN shows every total; round 3 broke a tie?"""

    @property
    def hint(self) -> str:  # type: ignore[override]
        return pgettext("screen 21", "DN totals  OK end")

    def title_right(self, result: dict) -> str:
        return npgettext("screen 9", "{n} round", "{n} rounds", rules.ROUNDS).format(
            n=rules.ROUNDS)

    def extra_line(self, result: dict) -> str:
        # Translators: under "Winner": the totals tied and the last round's points
        # decided.
        return pgettext("screen 12", "tie: round 3") if result["tie_break"] else ""


def _round_right(number: int) -> str:
    """The title's right: "round 2" (8 characters)."""
    # Translators: the title's right (8 characters): which round it is.
    return pgettext("screen 8", "round {n}").format(n=number)


def _lines(text: str) -> list[str]:
    """A message's lines: where it breaks them, each folded at 21 if longer."""
    return [line for part in text.split("\n") for line in wrap(part)]
