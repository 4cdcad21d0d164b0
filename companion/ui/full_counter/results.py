"""Full Counter's results: the loser of a game (who deals the next) and the match's end
(the fewest losses win). UP/DOWN open the table's list of losses.
"""

from __future__ import annotations

from companion.lang import lazy, npgettext, pgettext
from companion.ui.canvas import BODY_TOP, WIDTH, Canvas, clip
from companion.ui.keys import GAME_DONE, GAME_MENU, GO_ON, Key, Keys
from companion.ui.play import GameScreen, MatchOverScreen, ResultScreen
from companion.ui.screen import Context, Press, Screen, is_, wrap

LOSSES = Key("UP", lazy("screen 21xN", "Every player's losses so far."))
# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
LOSER_KEYS = Keys(lazy("screen 21", "A game's loser"), lazy("screen 21", "OK next  DOWN end"),
                  Key("OK/ROLL", lazy("screen 21xN", "The next game: the loser deals.")),
                  Key("DOWN", lazy("screen 21xN", "End the match here (after asking): the "
                                   "fewest losses win.")), LOSSES, GAME_MENU)
LAST_LOSER_KEYS = Keys(lazy("screen 21", "The last game's loser"),
                       lazy("screen 21", "OK on  UP losses"), GO_ON, LOSSES, GAME_MENU)
MATCH_OVER_KEYS = Keys(lazy("screen 21", "The match's end"),
                       lazy("screen 21", "DOWN losses  OK end"),
                       Key("DOWN", lazy("screen 21xN", "Every player's losses.")),
                       GAME_DONE, GAME_MENU)


class GameResult(ResultScreen):
    """The loser of the game, big; they deal the next. OK: next game; DOWN: end."""

    def __init__(self, table: GameScreen, index: int):
        super().__init__(table)
        self.record = table.match.result()["games"][index]

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        return LAST_LOSER_KEYS if self.table.match.over else LOSER_KEYS

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "up"):
            return self.table.losses(self)
        if is_(press, "down") and "end" in self.table.match.expecting().types:
            return self.table.confirm_end(self)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        record = self.record
        # Translators: {n} is the game's number in the match.
        canvas.title(pgettext("screen 21", "Game {n} over").format(n=record["game"]))
        # Translators: Full Counter's game result: this line, the loser's name big
        # under it, then "and deals the next" (game) under the name.
        canvas.line(0, pgettext("screen 21", "Last one left loses:"))
        loser = record["loser"]
        scale = 2 if len(loser) <= 10 else 1
        canvas.text(1, BODY_TOP + 12, clip(loser, 21 // scale), scale=scale)
        canvas.line(3, pgettext("screen 21", "and deals the next"))


class MatchOver(MatchOverScreen):
    """The match's winners (fewest losses) big; DOWN every player's losses."""

    keys = MATCH_OVER_KEYS

    def down_screen(self) -> Screen:
        return self.table.losses(self)

    def draw_result(self, canvas: Canvas, result: dict) -> None:
        winners = result["winners"]
        fewest = result["totals"][winners[0]]
        # Translators: Full Counter's match end: two lines left of the number of losses
        # drawn big ("Won with / losses: 2"); "Shared win," when several tie.
        canvas.text(1, BODY_TOP + 1, pgettext("screen 14", "Won with") if len(winners) == 1
                    else pgettext("screen 14", "Shared win,"))
        canvas.text(1, BODY_TOP + 11, npgettext("screen 14", "loss:", "losses:", fewest))
        canvas.big_text(WIDTH - 2, BODY_TOP + 1, str(fewest), right=True)
        names = " & ".join(winners)
        if len(names) <= 10:
            canvas.text(1, BODY_TOP + 26, names, scale=2)
        else:
            canvas.paragraph(wrap(names)[:2], first_row=2)
