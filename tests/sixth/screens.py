"""High Card at the table: its setup, its table (UP/DOWN the card shown, OK enters it),
its phone pads and its words aloud, gathered in ``SCREENS`` for its registry line."""

from __future__ import annotations

from typing import Any

from companion.ui.canvas import BODY_TOP
from companion.ui.games import GameScreens
from companion.ui.pads import field, fixed
from companion.ui.play import GameOverScreen, GameScreen, SetupScreen
from companion.ui.screen import Context, Press, Screen, is_
from companion.ui.spoken import GameWords
from sixth.engine import VALUES


class HighCardSetup(SetupScreen):
    """The players and Start; High Card has no options of its own on the device."""

    title = "High Card"
    game_id = "high-card"
    default_names = ("P1", "P2")

    def start(self, ctx: Context) -> GameScreen:
        return HighCardTable(self.new_session(ctx, {}), self.parent)


class HighCardTable(GameScreen):
    """Whose card it is, the card picked (UP/DOWN), each player's points; OK enters."""

    def __init__(self, session, home: Screen | None):
        super().__init__(session, home)
        self.value = VALUES[0]

    def route(self, ctx: Context) -> Screen:
        return GameOverScreen(self) if self.match.over else self

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down") and not self.match.over:
            step = 1 if press.button == "up" else -1
            self.value = VALUES[(VALUES.index(self.value) + step) % len(VALUES)]
            return self
        if is_(press, "ok") and not self.match.over:
            return self.apply(ctx, {"type": "card", "player": self.match.current,
                                    "value": self.value})
        return super().press(ctx, press)

    def draw(self, canvas) -> None:
        match = self.match
        canvas.title("High Card", f"round {len(match.rounds) + 1}")
        canvas.text(1, BODY_TOP, f"{match.current}: {self.value}")
        for line, name in enumerate(match.players, start=1):
            canvas.line(line, f"{name} {match.totals[name]}")


def pads(match: Any, expect: Any) -> dict[str, list[dict[str, Any]]]:
    """The phone's pad: the card the player on turn shows."""
    return {"card": [fixed("player", expect.player),
                     field("value", "Card", "one", expect.choices.get("value", ()))]}


class HighCardWords(GameWords):
    """What every game says (whose turn, a refusal); High Card says nothing of its own."""


SCREENS = GameScreens(setup=HighCardSetup, table=HighCardTable, pads=pads,
                      words=HighCardWords, worst={"value": "13"})
