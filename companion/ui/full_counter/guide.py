"""Full Counter's Help: what the game is and how a turn goes into the device, in the
project's own words (the rule sheets decide the rules; these say them short), for the
device's Help screen and the table page's ``/help``."""

from __future__ import annotations

from companion.lang import lazy
from companion.ui.guides import Guide

# Translators: Help's paragraphs, folded into lines of 21 characters on the device and
# shown whole on the table page. Use the table words of docs/glossary.md; the button
# names printed on the device (UP, DOWN, OK, BACK, ROLL) and TRIO, DUO, UNO stay.
GUIDE = Guide(
    about=(lazy("screen 21xN", "2 to 5 players try to get rid of all their cards: the "
                "last one left holding cards loses and deals the next game. The match "
                "counts losses; the fewest win."),
           lazy("screen 21xN", "A play is one value (as many cards of it as you lay) or "
                "a chain of values in a row, equal to or higher than the top of the "
                "pile; who cannot play picks the pile up. Powers go on anything; "
                "abilities reverse the order, skip a player or turn it to descending. "
                "A Wildfire or four of a value burn the pile.")),
    turn=(lazy("screen 21xN", "First the device asks who starts: who has a face-up "
               "Gold Bar, then who has one in hand, and so on."),
          lazy("screen 21xN", "Full mode: ROLL opens the card picker: UP/DOWN move to "
               "the value, OK adds a card (again for each card of a set or a chain), "
               "ROLL enters the play. OK on the table has the rest: a pick-up, a "
               "face-down card, who is out. Once only face-down cards are left, ROLL "
               "enters the one turned over."),
          lazy("screen 21xN", "Quick mode: ROLL is a plain play; OK names a power or an "
               "ability, a burn or a pick-up.")))
