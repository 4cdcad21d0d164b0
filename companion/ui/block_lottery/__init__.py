"""Block Lottery at the table: one package holds all the game shows and says.

- :mod:`~companion.ui.block_lottery.setup`: the players, the variants, the prizes;
- :mod:`~companion.ui.block_lottery.table`: the round in play (the pool, who takes
  what, how the round ended, the re-rolls, the lottery drawn token by token);
- :mod:`~companion.ui.block_lottery.round_end`: after a round's end, the scores and
  the final standings;
- :mod:`~companion.ui.block_lottery.draw`: what every screen draws the same way;
- :mod:`~companion.ui.block_lottery.pads`, :mod:`~companion.ui.block_lottery.aloud`,
  :mod:`~companion.ui.block_lottery.guide`: the phone's pads, the words said aloud,
  Help.

``SCREENS`` gives them to the device (its line in :data:`companion.games.GAMES` names
this package).
"""

from __future__ import annotations

from companion.games import block_lottery as rules
from companion.ui.block_lottery import pads
from companion.ui.block_lottery.aloud import BlockLotteryWords
from companion.ui.block_lottery.guide import GUIDE
from companion.ui.block_lottery.setup import BlockLotterySetup
from companion.ui.block_lottery.table import BlockLotteryTable
from companion.ui.games import GameScreens, ScreenWalk

SCREENS = GameScreens(
    setup=BlockLotterySetup, table=BlockLotteryTable, pads=pads.pads, words=BlockLotteryWords,
    guide=GUIDE,
    worst={
        # What one round scores at most: three prizes won at once.
        "points": str(rules.MAX_PRIZE * rules.SPACES),
        "prizes": " ".join([str(rules.MAX_PRIZE)] * rules.SPACES),
    },
    # A prize space's points: one prize, not three prizes won at once.
    narrower={"{points} pt": {"points": str(rules.MAX_PRIZE)}},
    # Seed 14: the card count refuses most random counts and asks before BACK drops what
    # was typed, so a walk stays there long; only a round in which dice were taken
    # reaches the re-rolls.
    walks=(ScreenWalk({"lucky_card_bonus": True}, frozenset({
        "BlockLotteryTable", "Menu", "RoundOver", "RerollScreen", "ScoreEntry",
        "RoundResult"}), seed=14),))
