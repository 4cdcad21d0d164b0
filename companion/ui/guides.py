"""Help's words about each game, the Tools and the Settings: what a game is and how a
turn goes into the device, in the project's own words (the rule sheets and RULINGS.md
decide the rules; these say them short).

Each text is written once and read in two places: the device's Help screen
(:mod:`companion.ui.help`, folded into lines of 21) and the table page's help pages
(``/help``). What each button does on a screen is not here: the screens say it in their
own keys (:mod:`companion.ui.keys`).
"""

from __future__ import annotations

from typing import NamedTuple

from companion import games
from companion.lang import lazy


class Guide(NamedTuple):
    """A game's help: what it is (``about``) and how a turn is entered (``turn``), each
    a few paragraphs ("screen 21xN" messages)."""

    about: tuple[lazy, ...]
    turn: tuple[lazy, ...]


class Topic(NamedTuple):
    """One thing Tools or Settings offers: its menu name and what it is for."""

    name: lazy
    about: lazy


TOOLS: tuple[Topic, ...] = (
    Topic(lazy("screen 21", "Dice"),
          lazy("screen 21xN", "1 to 15 dice: roll them, hold some, roll the rest again.")),
    Topic(lazy("screen 21", "Token bag"),
          lazy("screen 21xN", "Draws tokens one at a time without putting them back: Block "
               "Lottery's tokens or numbered ones.")),
    Topic(lazy("screen 21", "Shuffle guide"),
          lazy("screen 21xN", "Shuffles a real deck by dealing it into piles: the guide "
               "names the pile for every card, pass by pass.")),
    Topic(lazy("screen 21", "First player"),
          lazy("screen 21xN", "Picks a seat at random to start.")),
    Topic(lazy("screen 21", "Sand timer"),
          lazy("screen 21xN", "Counts minutes down and beeps at the end.")),
    Topic(games.info("scoreboard").title,
          lazy("screen 21xN", "Keeps the scores of any other game, round by round.")),
)

SETTINGS: tuple[Topic, ...] = (
    Topic(lazy("screen 21", "Pair a phone"),
          lazy("screen 21xN", "Shows a code (and a QR code) that lets a phone on the same "
               "network enter moves on the table page.")),
    Topic(lazy("screen 21", "Paired phones"),
          lazy("screen 21xN", "The phones that may enter moves; OK on one forgets it (after "
               "asking).")),
    Topic(lazy("screen 21", "Language"),
          lazy("screen 21xN", "The language of the screen and the table page.")),
    Topic(lazy("screen 21", "Speech"),
          lazy("screen 21xN", "Whether the device says rolls, turns and results aloud, how "
               "fast and how loud; Say a sample lets you hear it. Long ROLL on the main menu "
               "or in Tools says the last words again.")),
    Topic(lazy("screen 21", "This device"),
          lazy("screen 21xN", "How the device is set up: display, buttons, serial, the "
               "page's address, the version. Change them in the config file.")),
)

#: How the five buttons work everywhere, for the Settings' Help and the page.
BUTTON_BASICS: tuple[lazy, ...] = (
    lazy("screen 21xN", "Five buttons: UP and DOWN move or change a number, OK picks, BACK "
         "goes back (on a game's screen: its menu), ROLL rolls, draws or goes on. The line "
         "along the bottom says what they do on each screen; Help says it whole."),
    lazy("screen 21xN", "A press held for a moment is a long press: it jumps further or "
         "does a second thing. A long BACK stops a turn timer and lets it run on again."),
    lazy("screen 21xN", "The ROLL button lights up when ROLL is the thing to press. A dim "
         "or blank screen wakes at any press, which does nothing else."),
)
