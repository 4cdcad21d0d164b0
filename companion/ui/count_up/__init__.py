"""Count Up 21 at the table: one package holds all the game shows and says.

- :mod:`~companion.ui.count_up.table`: the setup and the table (the highest card in
  play and what may follow, the hands, the tricks, the match score, the results);
- :mod:`~companion.ui.count_up.pads`, :mod:`~companion.ui.count_up.aloud`,
  :mod:`~companion.ui.count_up.guide`: the phone's pads, the words said aloud, Help.

``SCREENS`` gives them to the device (its line in :data:`companion.games.GAMES` names
this package).
"""

from __future__ import annotations

from companion.games import count_up as rules
from companion.ui.count_up import pads
from companion.ui.count_up.aloud import CountUpWords
from companion.ui.count_up.guide import GUIDE
from companion.ui.count_up.table import CountUpSetup, CountUpTable
from companion.ui.games import GameScreens, ScreenWalk

SCREENS = GameScreens(
    setup=CountUpSetup, table=CountUpTable, pads=pads.pads, words=CountUpWords, guide=GUIDE,
    # The match score: each player's games won, up to the games a match is played to.
    narrower={"games {first}-{second}": dict.fromkeys(("first", "second"),
                                                      str(rules.MAX_GAMES_TO_WIN))},
    walks=(ScreenWalk({}, frozenset({"CountUpTable", "TrickWon", "GameResult",
                                     "MatchOver"})),))
