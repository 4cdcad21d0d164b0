"""The scoreboard's Help: what the game is and how a turn goes into the device, in the
project's own words (the rule sheets decide the rules; these say them short), for the
device's Help screen and the table page's ``/help``."""

from __future__ import annotations

from companion.lang import lazy
from companion.ui.guides import Guide

# Translators: Help's paragraphs, folded into lines of 21 characters on the device and
# shown whole on the table page. Use the table words of docs/glossary.md; the button
# names printed on the device (UP, DOWN, OK, BACK, ROLL) and TRIO, DUO, UNO stay.
GUIDE = Guide(
    about=(lazy("screen 21xN", "Scores for any other game: the players, a target or "
                "none, high or low wins. Each round every player's points are entered; "
                "the device keeps the totals and the leader."),),
    turn=(lazy("screen 21xN", "ROLL opens the picker of the next player to enter (OK "
               "the one picked): UP adds the step, DOWN takes it off, OK changes the "
               "step, ROLL enters the points."),))
