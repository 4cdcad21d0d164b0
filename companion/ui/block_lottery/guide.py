"""Block Lottery's Help: what the game is and how a turn goes into the device, in the
project's own words (the rule sheets decide the rules; these say them short), for the
device's Help screen and the table page's ``/help``."""

from __future__ import annotations

from companion.lang import lazy
from companion.ui.guides import Guide

# Translators: Help's paragraphs, folded into lines of 21 characters on the device and
# shown whole on the table page. Use the table words of docs/glossary.md; the button
# names printed on the device (UP, DOWN, OK, BACK, ROLL) and TRIO, DUO, UNO stay.
GUIDE = Guide(
    about=(lazy("screen 21xN", "2 to 6 players play blocks of 3 or more cards, the "
                "same number or numbers in a row, and add to others' blocks to take "
                "dice from the pool of 15. The round ends when the pool or the deck "
                "runs out, or a player has no cards left."),
           lazy("screen 21xN", "Then everyone may re-roll their dice once, and 3 "
                "lottery tokens go on the prize card: each die showing a token's number "
                "scores that space. A round scores the cards in blocks, the dice and "
                "the lottery, less the cards in hand. After 3 rounds the highest total "
                "wins.")),
    turn=(lazy("screen 21xN", "ROLL rolls the pool. When a player takes a die, UP/DOWN "
               "move to its face, OK takes it and asks who; ROLL ends the round and "
               "asks how."),
          lazy("screen 21xN", "After the round: OK re-rolls the dice of the player "
               "picked, ROLL draws the lottery tokens one by one, then each player's "
               "cards are counted: UP/DOWN change the number, OK goes to the next "
               "line, ROLL enters them.")))
