"""The scoreboard at the table: one package holds all it shows and says.

- :mod:`~companion.ui.scoreboard.table`: the setup and the table (each round's points
  per player, the totals, the leader);
- :mod:`~companion.ui.scoreboard.pads`, :mod:`~companion.ui.scoreboard.aloud`,
  :mod:`~companion.ui.scoreboard.guide`: the phone's pads, the words said aloud, Help.

``SCREENS`` gives them to the device (its line in :data:`companion.games.GAMES` names
this package).
"""

from __future__ import annotations

from companion.games import scoreboard as rules
from companion.ui.games import GameScreens, ScreenWalk
from companion.ui.scoreboard import pads
from companion.ui.scoreboard.aloud import ScoreboardWords
from companion.ui.scoreboard.guide import GUIDE
from companion.ui.scoreboard.table import ScoreboardSetup, ScoreboardTable

SCREENS = GameScreens(
    setup=ScoreboardSetup, table=ScoreboardTable, pads=pads.pads, words=ScoreboardWords,
    guide=GUIDE,
    # A total at its largest target.
    worst=dict.fromkeys(("score", "best", "sum", "total", "after", "average", "target"),
                        str(rules.TARGET_LIMIT)),
    walks=(ScreenWalk({"target": 99999}, frozenset({"ScoreboardTable", "NumberPicker",
                                                    "Menu"})),
           ScreenWalk({"target": 5, "low_wins": True}, frozenset({"ScoreboardTable",
                                                                 "GameOver"}))))
