"""Final Card-Down's Help: what the game is and how a turn goes into the device, in the
project's own words (the rule sheets decide the rules; these say them short), for the
device's Help screen and the table page's ``/help``."""

from __future__ import annotations

from companion.lang import lazy
from companion.ui.guides import Guide

# Translators: Help's paragraphs, folded into lines of 21 characters on the device and
# shown whole on the table page. Use the table words of docs/glossary.md; the button
# names printed on the device (UP, DOWN, OK, BACK, ROLL) and TRIO, DUO, UNO stay.
GUIDE = Guide(
    about=(lazy("screen 21xN", "2 to 10 players lay cards on the discard pile, each "
                "matching the top card's value, colour or suit (a 0 goes on anything), "
                "or draw one. A 2 makes the next draw 2 (2s stack), an A skips, a B "
                "reverses, a C lays one more, a D names a colour."),
           lazy("screen 21xN", "Going down to 3, 2 or 1 card, say TRIO, DUO or UNO; "
                "who forgets can be called out by the next player and draws 2. A game "
                "ends when someone lays their last card: the cards left in each hand "
                "count against their holder, and the lowest total wins the match.")),
    turn=(lazy("screen 21xN", "Quick entry: OK is a plain card, DOWN a special one (one "
               "more press says which), ROLL draws. Exact entry: OK opens a picker of "
               "value, colour and suit (UP/DOWN change, OK moves on, ROLL enters); a "
               "card that cannot go is refused. The game menu switches between the "
               "two."),
          lazy("screen 21xN", "When a player goes down to 3, 2 or 1 card the device "
               "asks whether they said the word. A word forgotten: the next player's UP "
               "calls it out. After a game, enter each hand card by card or as a "
               "sum.")))
