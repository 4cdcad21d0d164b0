"""Block Lottery's setup: the players, the two variants, the prize values of each round
and the deck, with an editor of two or three numbers side by side.

ROLL on the setup starts the table (:mod:`companion.ui.block_lottery.table`: the round
in play); the end of a round, the card counts and the results are in
:mod:`companion.ui.block_lottery.round_end`. The screens follow the engine
(:mod:`companion.games.block_lottery`).
"""

from __future__ import annotations

from collections.abc import Callable

from companion.errors import BadSetup
from companion.games import block_lottery as rules
from companion.lang import npgettext, pgettext
from companion.ui.block_lottery.draw import centred_x
from companion.ui.block_lottery.table import NUMBERS_KEYS, BlockLotteryTable
from companion.ui.canvas import BODY_TOP, WIDTH, Canvas
from companion.ui.play import GameScreen, Row, SetupScreen
from companion.ui.screen import Context, Press, Screen, is_
from companion.ui.tools import step_value

#: Highest value the setup editors offer (prize spaces, cards per number, wilds).
EDIT_MAX = 20

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
            # Translators: the setup row of round {n}'s three prize values (low, mid, high),
            # under the other rows of the game's setup ("Round 2: 5 10 20").
            prizes = pgettext("screen 21", "Round {n}: {prizes}").format(
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
    keys = NUMBERS_KEYS

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
            canvas.text(centred_x(x, width, self.labels[index], 1), BODY_TOP + 33,
                        self.labels[index])
            canvas.text(centred_x(x, width, text, 2), BODY_TOP + 13, text, scale=2)
            if index == self.cursor:
                canvas.underline(x + 4, BODY_TOP + 29, width - 8)
