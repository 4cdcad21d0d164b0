"""Final Card-Down at the table: one package holds all the game shows and says.

- :mod:`~companion.ui.card_down.table`: the setup and the table (the top card, whose
  turn, the stacked 2s, every hand's count, the call-outs);
- :mod:`~companion.ui.card_down.turns`: the questions of a turn;
- :mod:`~companion.ui.card_down.hands`: the hands after a game, its points, the end;
- :mod:`~companion.ui.card_down.words`: what every screen says the same way;
- :mod:`~companion.ui.card_down.pads`, :mod:`~companion.ui.card_down.aloud`,
  :mod:`~companion.ui.card_down.guide`: the phone's pads, the words said aloud, Help.

``SCREENS`` gives them to the device (its line in :data:`companion.games.GAMES` names
this package).
"""

from __future__ import annotations

from companion.games.card_down import COLOUR_WORDS, SUIT_WORDS
from companion.ui.card_down import pads
from companion.ui.card_down.aloud import CardDownWords
from companion.ui.card_down.guide import GUIDE
from companion.ui.card_down.table import CardDownSetup, CardDownTable
from companion.ui.games import GameScreens, ScreenWalk

SCREENS = GameScreens(setup=CardDownSetup, table=CardDownTable, pads=pads.pads,
                      words=CardDownWords, guide=GUIDE,
                      worst={"colour": tuple(map(COLOUR_WORDS.text, COLOUR_WORDS)),
                             "suit": tuple(map(SUIT_WORDS.text, SUIT_WORDS))},
                      walks=(ScreenWalk({}, frozenset({
                                 "CardDownTable", "SpecialCard", "WordQuestion", "WentOut",
                                 "ValuePicker", "GameResult", "Standings", "Menu"})),
                             ScreenWalk({"games": 1}, frozenset({
                                 "CardDownTable", "GameResult", "MatchOver"}))))
