"""Block Lottery after a round's end: who ended it and who deals next, a player's
re-roll (rolled here or entered from the table's dice), counting each player's cards,
every part of each round score, and the final standings.

Each screen goes back to the table it was opened from (a
:class:`~companion.ui.block_lottery.table.BlockLotteryTable`, which opens them), and
every roll is drawn from the match's own source (``draw=True``: the same again at the
same place, so undo never re-rolls) and goes in as an event carrying its outcome.
"""

from __future__ import annotations

from companion.games import block_lottery as rules
from companion.lang import lazy, npgettext, pgettext
from companion.table.dice import roll_dice
from companion.ui.block_lottery.draw import (
    draw_faces,
    face_counts,
    round_right,
    token_word,
)
from companion.ui.canvas import (
    BODY_TOP,
    COLUMNS,
    LINE_H,
    WIDTH,
    Canvas,
    clip,
    fitting,
    text_width,
)
from companion.ui.keys import FINAL_STANDINGS, GAME_DONE, GAME_MENU, Key, Keys
from companion.ui.play import GameOverScreen, GameScreen, ResultScreen, Standings
from companion.ui.screen import Confirm, Context, Message, Press, Screen, folded, is_, wrap
from companion.ui.tools import Spinner, step_value

# Translators: the button names printed on the device (UP, DN/DOWN, OK, BACK, ROLL) stay
# as they are inside every hint of these screens.

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


# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
ROUND_OVER_KEYS = Keys(lazy("screen 21", "A round's end"), lazy("screen 21", "OK re-rolls"),
                       Key("OK/ROLL", lazy("screen 21xN", "On to the re-rolls.")), GAME_MENU)
REROLLED_KEYS = Keys(lazy("screen 21", "A re-roll rolled"), lazy("screen 21", "OK back"),
                     Key("OK/ROLL/BACK", lazy("screen 21xN", "Back to the re-roll list.")))
REROLL = (Key("UP/DOWN", lazy("screen 21xN", "Move to another face of the player's dice.")),
          Key("OK", lazy("screen 21xN", "Pick up one more die of that face (round to none "
                         "again).")),
          Key("OK", lazy("screen 21xN", "Put every die back down."), long=True),
          Key("BACK", lazy("screen 21xN", "Back to the list: nothing is re-rolled.")))
REROLL_KEYS = Keys(lazy("screen 21", "A player's re-roll"),
                   lazy("screen 21", "OK pick up ROLL roll"),
                   *REROLL, Key("ROLL", lazy("screen 21xN", "Roll the dice picked up.")),
                   Key("ROLL", lazy("screen 21xN", "Enter the faces rolled at the table "
                                    "instead."), long=True))
REROLL_REAL_KEYS = Keys(lazy("screen 21", "Re-roll, real dice"),
                        lazy("screen 21", "OK pick up ROLL enter"), *REROLL,
                        Key("ROLL", lazy("screen 21xN", "Enter the faces the table rolled for "
                                         "the dice picked up.")))
SCORE_KEYS = Keys(lazy("screen 21", "Counting the cards"),
                  lazy("screen 21", "UP/DOWN count OK next"),
                  Key("UP/DOWN", lazy("screen 21xN", "Change the number marked (held: by "
                                      "five).")),
                  Key("OK", lazy("screen 21xN", "The next line: cards in blocks, in hand, "
                                 "lucky cards.")),
                  Key("ROLL", lazy("screen 21xN", "Enter the player's count.")),
                  Key("BACK", lazy("screen 21xN", "The line before; on the first, the game menu "
                                   "(after asking, once numbers were typed).")))
RESULT_KEYS = Keys(lazy("screen 21", "A round's scores"), lazy("screen 21", "OK next  UP back"),
                   Key("OK/ROLL/DOWN", lazy("screen 21xN", "The next page: each player's "
                                            "parts, then on.")),
                   Key("UP", lazy("screen 21xN", "The page before.")), GAME_MENU)
OVER_KEYS = Keys(lazy("screen 21", "The game's end"), lazy("screen 21", "DOWN totals  OK end"),
                 FINAL_STANDINGS, GAME_DONE, GAME_MENU)

# -- the end of a round ---------------------------------------------------------------------


class RoundOver(ResultScreen):
    """Who ended the round and how, and who deals next; then the re-rolls."""

    keys = ROUND_OVER_KEYS

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

    def __init__(self, table: GameScreen, player: str, physical: bool = False):
        super().__init__(table)
        self.table = table
        self.player = player
        self.physical = physical
        self.owned = face_counts(table.match.state()["dice"][player])
        self.picked = [0] * len(rules.FACES)
        self.face = next(face for face in rules.FACES if self.owned[face - 1])
        self.spinner = Spinner()
        self.rolled: list[int] | None = None
        self.spin_counts = list(self.owned)

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        if self.rolled is not None:
            return REROLLED_KEYS
        return REROLL_REAL_KEYS if self.physical else REROLL_KEYS

    @property
    def title(self) -> str:  # type: ignore[override]
        if self.rolled is not None and self.spinner.spinning:
            # Translators: the player's re-roll spinning (a long name is shown alone).
            return fitting(pgettext("screen 21 (if it fits)", "{name} rolls...").format(
                name=self.player), self.player)
        if self.rolled is not None:  # the new faces are also in the counts under the dice
            # Translators: the faces the player's re-roll showed (the shorter form is
            # shown when they do not fit).
            rolled = pgettext("screen 21 (if it fits)", "{name} rolled {faces}").format(
                name=self.player, faces=" ".join(map(str, self.rolled)))
            return fitting(rolled, pgettext("screen 21 (if it fits)", "{name} rolled").format(
                name=self.player), self.player)
        picked = sum(self.picked)
        # Translators: how many of the player's dice are picked up to re-roll (a long
        # name is the title alone: the dice picked up are marked under the faces).
        return fitting(npgettext("screen 21 (if it fits)", "{name}: {n} up", "{name}: {n} up",
                                 picked).format(name=self.player, n=picked), self.player)

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
        return Message(pgettext("screen 21", "Re-roll"), folded(text), self)

    def _roll(self, ctx: Context) -> Screen:
        before = self._from()
        if not before:
            return self._nothing_picked()
        ctx.beep()
        event = {"type": "reroll", "player": self.player, "from": before}
        screen = self.table.apply(ctx, event, after=self, draw=True)
        if isinstance(screen, Message):
            return screen
        self.rolled = self.table.match.events[-1]["to"]
        self.spinner.start()
        return self

    def _enter(self, ctx: Context) -> Screen:
        before = self._from()
        if not before:
            return self._nothing_picked()

        # Translators: the title of the picker of the faces the table re-rolled: the
        # longest that fits is shown.
        title = fitting(pgettext("screen 21 (if it fits)", "{name}'s new faces").format(
                            name=self.player),
                        pgettext("screen 21 (if it fits)", "{name}: faces").format(
                            name=self.player),
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
        spun = face_counts(roll_dice(ctx.anim_rng, sum(self.picked)))
        self.spin_counts = [a + b for a, b in zip(kept, spun, strict=True)]
        return self

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        if self.rolled is None:
            draw_faces(canvas, self.owned, cursor=self.face, scale=2, picked=self.picked)
        elif self.spinner.spinning:
            draw_faces(canvas, self.spin_counts, scale=2)
        else:
            draw_faces(canvas, face_counts(self.table.match.state()["dice"][self.player]), scale=2)


# -- counting the cards ---------------------------------------------------------------------


class ScoreEntry(Screen):
    """One player's cards: in blocks, in hand and (Lucky Card Bonus) the lucky ones.

    UP/DOWN change the line under the cursor (a long press: by 5), OK goes to the next
    line, ROLL enters them. The dice and their lottery points are already known, so the
    round score is shown big as the numbers change.
    """

    roll_ready = True

    keys = SCORE_KEYS

    def __init__(self, table: GameScreen, player: str):
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
        self.first = dict(self.values)  # as the count began: BACK asks once they differ
        self.cursor = 0

    @property
    def title(self) -> str:  # type: ignore[override]
        # Translators: the title of a player's card count (the round on its right; a
        # long name is shown alone).
        cards = pgettext("screen 13 (if it fits)", "{name}'s cards").format(name=self.player)
        right = round_right(rules.ROUNDS)
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
            elif self.values != self.first:
                return self._ask_to_leave(ctx)
            else:
                return self.table.menu(ctx, self)
        return self

    def _ask_to_leave(self, ctx: Context) -> Screen:
        """BACK on the first line once numbers were typed: leave them, or count on."""
        # Translators: a question when BACK would leave a player's card count typed but
        # not entered: OK leaves (the numbers are not kept), BACK counts on.
        lines = folded(pgettext("screen 21x4", "The numbers typed for {name} are not kept: "
                                "OK leaves, BACK counts on.").format(name=self.player))
        return Confirm(pgettext("screen 21", "Leave the count?"), lines,
                       lambda ctx: self.table.menu(ctx, self), self)

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
        canvas.title(self.title, round_right(self.table.match.round_number))
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

    def __init__(self, table: GameScreen, index: int):
        super().__init__(table)
        self.record = table.match.result()["rounds"][index]
        self.players = list(self.record["players"])
        self.summaries = self._summary_pages()
        self.page = 0

    keys = RESULT_KEYS

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
        # Translators: a player's round score page: "R" is short for round {n} (a long
        # name is the title alone).
        canvas.title(fitting(pgettext("screen 15 (if it fits)", "R{n} {name}").format(
            n=self.record["round"], name=name), name, room=15), where)
        # Translators: the parts of a player's round score (8 characters each, the
        # points after them): points for cards in blocks, for dice, won in the lottery,
        # and taken off for the cards left in hand.
        cards, dice = pgettext("screen 8", "Cards"), pgettext("screen 8", "Dice")
        lottery, hand = pgettext("screen 8", "Lottery"), pgettext("screen 8", "Hand")
        lines = []
        if self.record["lucky_number"] is not None:
            # Translators: the points for cards in blocks and for dice, on one line
            # (the first, the screen's whole width: the score is under it).
            lines.append(pgettext("screen 21", "Cards {cards} Dice {dice}").format(
                cards=row["cards"], dice=row["dice"]))
            lines.append(f"{lottery:<9}+{row['lottery']}")
            # Translators: Lucky Card Bonus: {n} lucky cards at {each} points each.
            lines.append(pgettext("screen 16", "Lucky {n}x{each} +{points}").format(
                n=row["lucky_cards"], each=self.record["lucky_each"], points=row["lucky"]))
        else:
            lines += [f"{cards:<9}+{row['cards']}", f"{dice:<9}+{row['dice']}",
                      f"{lottery:<9}+{row['lottery']}"]
        lines.append(f"{hand:<9}-{row['hand']}")
        # With the Lucky Card Bonus two parts share the first line, the whole width:
        # the score is drawn smaller under it (16 characters beside two digits at twice
        # the size), what was below zero beside the last line.
        lucky = self.record["lucky_number"] is not None
        for index, text in enumerate(lines):
            canvas.line(index, clip(text, COLUMNS if lucky and index == 0 else
                                    16 if lucky else 14))
        score_y, raw_y = (BODY_TOP + LINE_H + 1, BODY_TOP + 3 * LINE_H) if lucky \
            else (BODY_TOP + 1, BODY_TOP + 25)
        canvas.big_text(WIDTH - 2, score_y, str(row["score"]), 2 if lucky else 3, right=True)
        if row["raw"] < 0:
            canvas.text(WIDTH - text_width(f"({row['raw']})") - 1, raw_y, f"({row['raw']})")


class GameOver(GameOverScreen):
    """The winner(s) and their total big; DOWN shows every total; round 3 broke a tie?"""

    keys = OVER_KEYS

    def title_right(self, result: dict) -> str:
        return npgettext("screen 9", "{n} round", "{n} rounds", rules.ROUNDS).format(
            n=rules.ROUNDS)

    def extra_line(self, result: dict) -> str:
        # Translators: under "Winner": the totals tied and the last round's points
        # decided.
        return pgettext("screen 12", "tie: round 3") if result["tie_break"] else ""
