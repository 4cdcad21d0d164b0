"""Final Count at the table: one package holds all the game shows and says.

- :mod:`~companion.ui.final_count.table`: the setup and the table (hit-goal rolls, turns
  with the die's action in words, the call, card entry, the hand's result, the end);
- :mod:`~companion.ui.final_count.pads`: the phone's pads;
- :mod:`~companion.ui.final_count.aloud`: what it says aloud;
- :mod:`~companion.ui.final_count.guide`: its Help.

``SCREENS`` gives them to the device (its line in :data:`companion.games.GAMES` names
this package).
"""

from __future__ import annotations

from companion.games.final_count import goal_from_rolls
from companion.table import dice
from companion.ui.final_count import pads
from companion.ui.final_count.aloud import FinalCountWords
from companion.ui.final_count.guide import GUIDE
from companion.ui.final_count.table import FinalCountSetup, FinalCountTable
from companion.ui.games import GameScreens, ScreenWalk

SCREENS = GameScreens(
    setup=FinalCountSetup, table=FinalCountTable, pads=pads.pads, words=FinalCountWords,
    guide=GUIDE,
    # The Hit Goal at its largest: two sixes.
    worst={"goal": str(goal_from_rolls(dice.SIDES, dice.SIDES))},
    walks=(ScreenWalk({"hit_goal": True}, frozenset({
        "FinalCountTable", "ValuePicker", "HandResult", "Standings", "Menu"})),))
