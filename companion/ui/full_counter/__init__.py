"""Full Counter at the table: one package holds all the game shows and says.

- :mod:`~companion.ui.full_counter.table`: the setup and the table (who starts, whose
  turn, the direction, the value to beat, who is out; plays in a few presses);
- :mod:`~companion.ui.full_counter.cards`: the cards as the screens name them;
- :mod:`~companion.ui.full_counter.deck`: the deck profile;
- :mod:`~companion.ui.full_counter.turns`: the questions and lists of a game;
- :mod:`~companion.ui.full_counter.results`: the loser of a game, the match's end;
- :mod:`~companion.ui.full_counter.pads`, :mod:`~companion.ui.full_counter.aloud`,
  :mod:`~companion.ui.full_counter.guide`: the phone's pads, the words said aloud, Help.

``SCREENS`` gives them to the device (its line in :data:`companion.games.GAMES` names
this package).
"""

from __future__ import annotations

from companion.games.full_counter_cards import NAMES as CARD_NAMES
from companion.games.full_counter_cards import PROFILE_LIMITS
from companion.ui.full_counter import pads
from companion.ui.full_counter.aloud import FullCounterWords
from companion.ui.full_counter.guide import GUIDE
from companion.ui.full_counter.table import FullCounterSetup, FullCounterTable
from companion.ui.games import GameScreens, ScreenWalk


def longest_card() -> str:
    """The longest name a card can have: its largest number with the longest role name
    ("20 Magnetic Rays", as Deck.name says it)."""
    largest = PROFILE_LIMITS["numbers"][1]
    return max((f"{largest} {name}" for name in CARD_NAMES.values()), key=len)


SCREENS = GameScreens(
    setup=FullCounterSetup, table=FullCounterTable, pads=pads.pads, words=FullCounterWords,
    guide=GUIDE,
    worst={"card": longest_card(), "power": max(CARD_NAMES.values(), key=len)},
    walks=(ScreenWalk({"zones": False}, frozenset({
               "FullCounterTable", "ValuePicker", "BlindPicker", "StarterQuestion",
               "GameResult", "MatchOver", "Menu"})),
           ScreenWalk({}, frozenset({"FullCounterTable", "ValuePicker", "StarterQuestion",
                                     "CardsHeld", "Menu"})),
           ScreenWalk({"quick": True}, frozenset({"FullCounterTable", "GameResult", "Menu"}))))
