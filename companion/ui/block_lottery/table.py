"""Block Lottery's round in play: the 15-die pool rolled and who takes what, how the
round ended, the re-roll list, and the lottery drawn token by token onto the prize card.

What the table offers is what ``match.expecting()`` allows (the engine:
:mod:`companion.games.block_lottery`); every roll and draw is made here from the match's
own source (the same again at the same place: undo never re-rolls), or entered from the
table's own dice and tin (``[dice]``/``[tokens] physical``), and goes in as an event
carrying its outcome. The screens after a round's end (the
announcement, a player's re-roll, counting the cards, the results, the game's end) are
in :mod:`companion.ui.block_lottery.round_end`.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.chance import physical, physical_dice
from companion.games import block_lottery as rules
from companion.lang import lazy, npgettext, pgettext
from companion.session import Session
from companion.table.dice import roll_dice
from companion.ui.block_lottery.draw import (
    DICE_COUNT_COLUMNS,
    centred_x,
    describe_event,
    dice_count,
    draw_faces,
    draw_token,
    face_counts,
    round_right,
    token_word,
)
from companion.ui.block_lottery.round_end import (
    OVER_KEYS,
    REROLL_KEYS,
    REROLL_REAL_KEYS,
    REROLLED_KEYS,
    RESULT_KEYS,
    ROUND_OVER_KEYS,
    SCORE_KEYS,
    GameOver,
    RerollScreen,
    RoundOver,
    RoundResult,
    ScoreEntry,
)
from companion.ui.canvas import BODY_TOP, COLUMNS, Canvas, fitting
from companion.ui.keys import GAME_MENU, PICKER_KEYS, SETUP_KEYS, STANDINGS_KEYS, Key, Keys
from companion.ui.play import GameScreen
from companion.ui.screen import (
    MENU_ROWS,
    Confirm,
    Context,
    Menu,
    MenuItem,
    Message,
    Press,
    Screen,
    folded,
    is_,
    wrap,
)
from companion.ui.tools import Spinner

# -- the table ------------------------------------------------------------------------------

# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
POOL_KEYS = Keys(lazy("screen 21", "A round's start"), lazy("screen 21", "ROLL roll the pool"),
                 Key("ROLL/OK", lazy("screen 21xN", "Roll the 15 dice of the pool (a table "
                                     "with real dice enters their faces).")), GAME_MENU)
TAKE_KEYS = Keys(lazy("screen 21", "The pool"), lazy("screen 21", "OK take  ROLL end"),
                 Key("UP/DOWN", lazy("screen 21xN", "Move to a face still in the pool.")),
                 Key("OK", lazy("screen 21xN", "A player takes a die of that face: say who.")),
                 Key("ROLL", lazy("screen 21xN", "The round is over: say how and who ended "
                                  "it.")), GAME_MENU)
FINALISE_KEYS = Keys(lazy("screen 21", "The re-rolls"), lazy("screen 21", "OK re-roll  ROLL draw"),
                     Key("UP/DOWN", lazy("screen 21xN", "Move to a player with dice.")),
                     Key("OK", lazy("screen 21xN", "That player re-rolls some dice, once a "
                                    "round.")),
                     Key("ROLL", lazy("screen 21xN", "Start the lottery (after asking while "
                                      "someone may still re-roll).")), GAME_MENU)
LOTTERY_KEYS = Keys(lazy("screen 21", "The lottery"), lazy("screen 21", "ROLL draw a token"),
                    Key("ROLL/OK", lazy("screen 21xN", "Draw the next lottery token from the "
                                        "tin.")), GAME_MENU)
#: The setup's editor of prize values and the deck (companion.ui.block_lottery.setup).
NUMBERS_KEYS = Keys(lazy("screen 21", "Editing numbers"),
                    lazy("screen 21", "UP/DOWN set  OK next"),
                    Key("UP/DOWN", lazy("screen 21xN", "Change the number underlined (held: "
                                        "five).")),
                    Key("OK", lazy("screen 21xN", "The next number; after the last, done.")),
                    Key("ROLL", lazy("screen 21xN", "Done: keep these numbers.")),
                    Key("OK", lazy("screen 21xN", "The rule sheet's numbers again."),
                        long=True),
                    Key("BACK", lazy("screen 21xN", "The number before; on the first, leave "
                                     "them as they were.")))

SCORING_KEYS = Keys(lazy("screen 21", "The lottery drawn"),
                    lazy("screen 21", "ROLL count the cards"),
                    Key("ROLL/OK", lazy("screen 21xN", "On to counting each player's cards.")),
                    GAME_MENU)


class Ceremony(Spinner):
    """The lottery's draw: a longer spin than a die roll, so the table can watch it land."""

    FRAMES = 10

    def start(self) -> None:
        self.frames_left = self.FRAMES


class BlockLotteryTable(GameScreen):
    """The round in play: the pool roll, the pool with who took what, the re-rolls and the
    lottery. Counting cards, results and the end of the game are screens of their own."""

    all_keys = (SETUP_KEYS, NUMBERS_KEYS, POOL_KEYS, PICKER_KEYS, TAKE_KEYS, ROUND_OVER_KEYS,
                FINALISE_KEYS, REROLL_KEYS, REROLL_REAL_KEYS, REROLLED_KEYS, LOTTERY_KEYS,
                SCORING_KEYS, SCORE_KEYS, RESULT_KEYS, STANDINGS_KEYS, OVER_KEYS)

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
    def keys(self) -> Keys:  # type: ignore[override]
        return {rules.POOL: POOL_KEYS, rules.PLAY: TAKE_KEYS, rules.FINALISE: FINALISE_KEYS,
                rules.LOTTERY: LOTTERY_KEYS}.get(self.match.phase, SCORING_KEYS)

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
        ctx.beep()
        self.spinner.start()
        self.last_taker = None
        self.face = 1
        return self.apply(ctx, {"type": "pool"}, draw=True)

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
                    pgettext("screen 21", "Empty hand"), folded(why), menu),
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
        if physical(ctx.config, "tokens"):  # drawn from the real tin: which one, entered
            items = [MenuItem(token_word(token), lambda ctx, menu, token=token: self.apply(
                ctx, {"type": "token", "token": token, "entered": True}, after=menu))
                     for token in self.match.tokens_left]
            # Translators: the title over the tokens still in the tin: which one the
            # table drew from its real tin.
            return Menu(pgettext("screen 21", "Which token came out?"), items, self)
        ctx.beep()
        self.ceremony.start()
        return self.apply(ctx, {"type": "token"}, draw=True)

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
            self.spin_counts = face_counts(roll_dice(ctx.anim_rng, rules.POOL_SIZE))
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
        # Translators: how many dice are left in the pool (7 characters).
        left = npgettext("screen 7", "{n} left", "{n} left", state["pool_left"]).format(
            n=state["pool_left"])
        room = COLUMNS - len(left) - 1
        if last is None:
            # Translators: {n} is the round's number (the dice left in the pool beside it).
            title = pgettext("screen 13", "Round {n}").format(n=state["round"])
        else:
            # The dice left stay on every take: the take is said shorter beside them, and
            # a long name alone (the face taken shows in the counts under the faces).
            name, face = last["player"], last["face"]
            # Translators: the last take: {name} took a die showing {face} from the
            # pool, beside the dice left (the shorter forms are shown when it is long).
            title = fitting(pgettext("screen 21 (if it fits)", "{name} took a {face}")
                            .format(name=name, face=face),
                            # Translators: the last take, short: the name and the face
                            # taken, beside the dice left.
                            pgettext("screen 13 (if it fits)", "{name}: {face}")
                            .format(name=name, face=face), name, room=room)
        canvas.title(title, left)
        draw_faces(canvas, state["pool"], cursor=self.face)

    def _draw_rerolls(self, canvas: Canvas, state: dict) -> None:
        # Translators: the title of the re-rolls at a round's end (the round on the right).
        canvas.title(pgettext("screen 12", "Re-rolls"), round_right(state["round"]))
        holders = self._holders()
        if not holders:
            # Translators: nobody took a die, so nobody re-rolls; ROLL draws the lottery.
            canvas.paragraph([pgettext("screen 21", "Nobody has dice."),
                              pgettext("screen 21", "ROLL: the lottery.")])
            return
        top = max(0, self.row - MENU_ROWS + 1)
        width = max(len(name) for name in holders)
        # A count with its own noun ("1 die", "15 dice"); "done" once re-rolled.
        # Translators: the player has re-rolled this round (7 characters).
        said = {name: pgettext("screen 7", "done") if name in state["rerolled"]
                else dice_count(len(state["dice"][name])) for name in holders}
        column = min(DICE_COUNT_COLUMNS, max(map(len, said.values())))
        for row, name in enumerate(holders[top : top + MENU_ROWS]):
            text = f"{name:<{width}} {said[name]:>{column}}"
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
            canvas.text(centred_x(x, 40, label, 1), BODY_TOP + 31, label)
            if space == landing:
                draw_token(canvas, x, self.flash, invert=True)
            elif space < len(tokens):
                draw_token(canvas, x, tokens[space])
            else:
                canvas.text(centred_x(x, 40, "?", 2), BODY_TOP + 9, "?", scale=2)
