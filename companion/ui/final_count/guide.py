"""Final Count's Help: what the game is and how a turn goes into the device, in the
project's own words (the rule sheets decide the rules; these say them short), for the
device's Help screen and the table page's ``/help``."""

from __future__ import annotations

from companion.lang import lazy
from companion.ui.guides import Guide

# Translators: Help's paragraphs, folded into lines of 21 characters on the device and
# shown whole on the table page. Use the table words of docs/glossary.md; the button
# names printed on the device (UP, DOWN, OK, BACK, ROLL) and TRIO, DUO, UNO stay.
GUIDE = Guide(
    about=(lazy("screen 21xN", "2 to 4 players draw and swap cards for the best total "
                "up to 75, with their own cards and the Board's: an ace is 1 or 11, "
                "a face card 10. Over 75 is bust."),
           lazy("screen 21xN", "A turn is a roll of the die, whose face says what to "
                "do, or a call: after a call everyone else has one more turn, then the "
                "hand is scored. The best total scores it (a caller who loses gives "
                "the winner 10 more). The first to 300 wins."),
           lazy("screen 21xN", "With Hit Goal two dice set a number before each hand: "
                "a hand that makes it exactly wins 75.")),
    turn=(lazy("screen 21xN", "ROLL rolls for the player named on the screen, and the "
               "screen says what the face means. OK calls; right after a roll the "
               "device asks who calls, the roller or the next player."),
          lazy("screen 21xN", "When the hand ends, enter the Board's cards, then each "
               "player's: UP/DOWN move to a rank, OK adds it (again for a second one), "
               "BACK takes the last off, ROLL enters them. The device scores the "
               "hand.")))
