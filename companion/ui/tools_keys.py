"""What the Tools' buttons do (:mod:`companion.ui.tools`): each screen's hint line and
Help's sentences, in one place (:mod:`companion.ui.keys`)."""

from __future__ import annotations

from companion.lang import lazy
from companion.ui.keys import GO_BACK, Key, Keys

#: BACK on the dice: back to how many (the last rolls are listed there).
DICE_BACK = Key("BACK", lazy("screen 21xN", "Back to how many dice; the last rolls are "
                             "listed there."))
# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
DICE_COUNT_KEYS = Keys(lazy("screen 21", "Dice: how many"),
                       lazy("screen 21", "UP/DOWN count OK roll"),
                       Key("UP/DOWN", lazy("screen 21xN", "One die more or less (held: "
                                           "five).")),
                       Key("OK/ROLL", lazy("screen 21xN", "Roll them.")), GO_BACK)
DICE_KEYS = Keys(lazy("screen 21", "Dice rolled"), lazy("screen 21", "ROLL roll  OK hold"),
                 Key("ROLL", lazy("screen 21xN", "Roll every die that is not held.")),
                 Key("UP/DOWN", lazy("screen 21xN", "Move the mark under the dice.")),
                 Key("OK", lazy("screen 21xN", "Hold the marked die, or let it go.")),
                 Key("OK", lazy("screen 21xN", "Let every die go."), long=True), DICE_BACK)
DIE_KEYS = Keys(lazy("screen 21", "One die rolled"), lazy("screen 21", "ROLL roll  BACK count"),
                Key("ROLL", lazy("screen 21xN", "Roll it again.")), DICE_BACK)

NUMBERED_KEYS = Keys(lazy("screen 21", "Numbered tokens"),
                     lazy("screen 21", "UP/DOWN count OK fill"),
                     Key("UP/DOWN", lazy("screen 21xN", "One token more or less, 2 to 99 "
                                         "(held: ten).")),
                     Key("OK/ROLL", lazy("screen 21xN", "Fill the bag with the tokens 1 to "
                                         "that number.")), GO_BACK)
#: What the bag's buttons do, whatever its hint has room for.
BAG = (Key("ROLL", lazy("screen 21xN", "Draw a token; it stays out of the bag.")),
       Key("OK", lazy("screen 21xN", "Put every token back in the bag (after asking).")),
       Key("DOWN", lazy("screen 21xN", "Every token drawn, in order, and every one left.")),
       GO_BACK)
BAG_KEYS = Keys(lazy("screen 21", "The token bag"), lazy("screen 21", "ROLL draw  OK refill"),
                *BAG)
BAG_LISTED_KEYS = Keys(lazy("screen 21", "The token bag"),
                       lazy("screen 21", "ROLL draw  DOWN list"), *BAG)
EMPTY_BAG_KEYS = Keys(lazy("screen 21", "The token bag"),
                      lazy("screen 21", "OK refill  BACK out"), *BAG)
EMPTY_LISTED_KEYS = Keys(lazy("screen 21", "The token bag"),
                         lazy("screen 21", "OK refill  DOWN list"), *BAG)

SHUFFLE_SETUP_KEYS = Keys(
    lazy("screen 21", "Shuffle: the deck"), lazy("screen 21", "OK next field ROLL go"),
    Key("UP/DOWN", lazy("screen 21xN", "Change the number marked: the cards (held: by ten) or "
                        "the piles.")),
    Key("OK", lazy("screen 21xN", "Mark the other number.")),
    Key("ROLL", lazy("screen 21xN", "Start the guide.")), GO_BACK)

SHUFFLE_KEYS = Keys(
    lazy("screen 21", "Shuffle: dealing"), lazy("screen 21", "ROLL next  UP back"),
    Key("ROLL/OK/DOWN", lazy("screen 21xN", "The next page: the next ten cards, then how to "
                             "gather the piles.")),
    Key("UP", lazy("screen 21xN", "The page before.")),
    Key("BACK", lazy("screen 21xN", "Stop the guide (after asking).")))

FIRST_PLAYER_KEYS = Keys(
    lazy("screen 21", "First player"), lazy("screen 21", "UP/DOWN seats ROLL go"),
    Key("UP/DOWN", lazy("screen 21xN", "One seat more or less, 2 to 10.")),
    Key("ROLL/OK", lazy("screen 21xN", "Pick the seat that starts.")), GO_BACK)
