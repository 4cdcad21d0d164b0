"""Count Up 21's Help: what the game is and how a turn goes into the device, in the
project's own words (the rule sheets decide the rules; these say them short), for the
device's Help screen and the table page's ``/help``."""

from __future__ import annotations

from companion.lang import lazy
from companion.ui.guides import Guide

# Translators: Help's paragraphs, folded into lines of 21 characters on the device and
# shown whole on the table page. Use the table words of docs/glossary.md; the button
# names printed on the device (UP, DOWN, OK, BACK, ROLL) and TRIO, DUO, UNO stay.
GUIDE = Guide(
    about=(lazy("screen 21xN", "2 players, cards 1 to 21, 8 each. The leader plays any "
                "card; then each in turn plays a card 1 to 3 higher than the highest, "
                "or passes. A pass gives the trick to the other player, who leads the "
                "next."),
           lazy("screen 21xN", "When a hand runs out the game ends: more tricks win, "
                "equal tricks go to the winner of the last one. The first to win 3 "
                "games wins the match.")),
    turn=(lazy("screen 21xN", "The screen offers only the cards that may go: UP/DOWN "
               "move to the card played, OK enters it. ROLL passes."),))
