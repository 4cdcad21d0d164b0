"""What a screen's buttons do, said once for two readers: the hint line along the bottom
of the screen (a few words) and Help (a sentence for each button).

A screen names its :class:`Keys` and its hint line is read from them
(:attr:`companion.ui.screen.Screen.hint`), so a screen with a hint always has the
sentences Help shows for it, and a new screen cannot give one without the other::

    >>> rolling = Keys("A turn", "ROLL roll  OK call", Key("ROLL", "Roll the die."),
    ...                Key("OK", "Call: the last round starts."), Key("BACK", "The menu."))
    >>> rolling.hint_line()
    'ROLL roll  OK call'
    >>> rolling.said()[0]
    ('ROLL', 'Roll the die.')

(In the code each text is a message: ``lazy("screen 21", ...)`` for the place and the
hint, ``lazy("screen 21xN", ...)`` for a sentence.) The hint says the buttons in whole
words where the line allows ("OK card  DOWN effect"); where it does not, a word is left
out of the hint (BACK above), never out of Help.
"""

from __future__ import annotations

from collections import UserString
from collections.abc import Sequence
from typing import NamedTuple

from companion.lang import lazy, pgettext
from companion.ui.canvas import fitting

#: The names printed on the device's buttons, as hints and Help write them (DN is
#: DOWN where a hint has no room for the whole word).
BUTTONS = ("UP", "DOWN", "DN", "OK", "BACK", "ROLL")

Text = str | UserString


class Key(NamedTuple):
    """One button (or a few doing the same) on one screen: ``button`` as printed on the
    device ("ROLL", "UP/DOWN"), what a press does in a sentence (``does``, a "screen
    21xN" message; ``{fields}`` filled from the screen), and ``long`` for a press held."""

    button: str
    does: Text
    long: bool = False

    def label(self) -> str:
        """The button as Help names it: "ROLL", or "hold OK" for a long press."""
        if not self.long:
            return self.button
        # Translators: a button held down (a long press) in Help: "hold OK: ...".
        # {button} is the name printed on it (OK, UP/DOWN...): keep it as it is.
        return pgettext("screen 21", "hold {button}").format(button=self.button)


class Keys:
    """A screen's buttons in one state: where it is (``place``, Help's heading for it),
    its hint line (``hint``: the first of its forms that fits the line, with the
    screen's ``{fields}`` filled in) and a :class:`Key` for every button that does
    something there, the ones the hint leaves out included."""

    def __init__(self, place: Text, hint: Text | Sequence[Text], *keys: Key):
        self.place = place
        self.hints: tuple[Text, ...] = (hint,) if isinstance(hint, (str, UserString)) \
            else tuple(hint)
        self.keys = keys

    def hint_line(self, **values: object) -> str:
        """The hint line in the current language (empty for a screen without one)."""
        forms = [_filled(form, values) for form in self.hints]
        return fitting(*forms) if len(forms) > 1 else (forms[0] if forms else "")

    def heading(self) -> str:
        return str(self.place)

    def said(self, **values: object) -> list[tuple[str, str]]:
        """(button, sentence) for every key, in the current language."""
        return [(key.label(), _filled(key.does, values)) for key in self.keys]

    def buttons(self) -> set[str]:
        """The button names of the keys ("UP/DOWN" gives UP and DOWN; DN counts as DOWN)."""
        return {("DOWN" if name == "DN" else name)
                for key in self.keys for name in key.button.split("/")}

    def __repr__(self) -> str:
        return f"Keys({self.place.data if isinstance(self.place, lazy) else self.place!r})"


def _filled(text: Text, values: dict[str, object]) -> str:
    return str(text).format(**values) if values else str(text)


#: A screen whose buttons do nothing of their own (BACK goes back, as on every screen).
NO_KEYS = Keys("", "")

# Buttons many screens share, in the words Help uses for them.
# Translators: Help's sentences for a button: what one press does on that screen. The
# button names printed on the device (UP, DOWN, DN, OK, BACK, ROLL) stay as they are.
GO_BACK = Key("BACK", lazy("screen 21xN", "Go back to where you were."))
ANY_BACK = Key("OK/ROLL/BACK", lazy("screen 21xN", "Go back to where you were."))
OK_BACK = Key("OK/ROLL", lazy("screen 21xN", "Go back to where you were."))
GAME_MENU = Key("BACK", lazy("screen 21xN", "The game menu: undo the last move, the "
                             "standings, help, leave the game (it is kept) or end it."))
SCROLL = Key("UP/DOWN", lazy("screen 21xN", "Scroll the lines (held: to the first or the "
                             "last)."))
MOVE = Key("UP/DOWN", lazy("screen 21xN", "Move the cursor up or down the list."))

# Translators: a hint line (21 characters): the buttons printed on the device (UP, DN,
# DOWN, OK, BACK, ROLL) stay as they are, each with a word for what it does; two spaces
# between two buttons, one where the line is tight.
MESSAGE_KEYS = Keys(lazy("screen 21", "A message"), lazy("screen 21", "OK back"), ANY_BACK)
MESSAGE_LONG_KEYS = Keys(lazy("screen 21", "A long message"),
                         lazy("screen 21", "UP/DOWN more  OK back"), SCROLL, ANY_BACK)
LINES_KEYS = Keys(lazy("screen 21", "A list to read"), lazy("screen 21", "UP/DOWN more  OK back"),
                  SCROLL, OK_BACK, GO_BACK)
MENU_KEYS = Keys(lazy("screen 21", "A menu"), lazy("screen 21", "UP/DOWN move  OK pick"),
                 Key("UP/DOWN", lazy("screen 21xN", "Move to the row above or below (held: "
                                     "to the first or the last row).")),
                 Key("OK/ROLL", lazy("screen 21xN", "Open the row picked.")), GO_BACK)
CONFIRM_KEYS = Keys(lazy("screen 21", "A question"), lazy("screen 21", "OK yes   BACK no"),
                    Key("OK", lazy("screen 21xN", "Yes: do it.")),
                    Key("BACK", lazy("screen 21xN", "No: go back, nothing changes.")))


# -- the screens every game shares (companion.ui.play) ----------------------------------

PICKER_KEYS = Keys(lazy("screen 21", "Entering values"), lazy("screen 21", "OK add  ROLL done"),
                   Key("UP/DOWN", lazy("screen 21xN", "Move round the values (held: three at "
                                       "a time).")),
                   Key("OK", lazy("screen 21xN", "Add the value under the cursor; again adds "
                                  "one more of it.")),
                   Key("BACK", lazy("screen 21xN", "Take the last value off; with none "
                                    "entered, go back.")),
                   Key("OK", lazy("screen 21xN", "Take every value off."), long=True),
                   Key("ROLL", lazy("screen 21xN", "Enter what the line shows.")))
STANDINGS_KEYS = Keys(lazy("screen 21", "Standings"), lazy("screen 21", "UP/DOWN more  OK back"),
                      Key("UP/DOWN", lazy("screen 21xN", "The players above or below.")),
                      OK_BACK, GO_BACK)
SETUP_KEYS = Keys(lazy("screen 21", "Setting up a game"),
                  lazy("screen 21", "OK change  ROLL start"),
                  Key("UP/DOWN", lazy("screen 21xN", "Move to the row above or below.")),
                  Key("OK", lazy("screen 21xN", "Change the row picked: seat the players, "
                                 "turn an option, set the timer; open Help; on Start, "
                                 "start.")),
                  Key("ROLL", lazy("screen 21xN", "Start the game (with names on the roster "
                                   "and nobody seated: seat the players first).")),
                  Key("BACK", lazy("screen 21xN", "Back to the main menu.")))
#: OK or ROLL on a result: on to what the game needs next.
GO_ON = Key("OK/ROLL", lazy("screen 21xN", "Go on."))
#: The game over screen's buttons.
FINAL_STANDINGS = Key("DOWN", lazy("screen 21xN", "The final standings."))
GAME_DONE = Key("OK/ROLL", lazy("screen 21xN", "Back to the main menu: the game is over and "
                                "kept in History."))

__all__ = ["ANY_BACK", "BUTTONS", "CONFIRM_KEYS", "FINAL_STANDINGS", "GAME_DONE", "GAME_MENU",
           "GO_BACK", "GO_ON", "Key", "Keys", "LINES_KEYS", "MENU_KEYS", "MESSAGE_KEYS",
           "MESSAGE_LONG_KEYS", "MOVE", "NO_KEYS", "OK_BACK", "PICKER_KEYS", "SCROLL",
           "SETUP_KEYS", "STANDINGS_KEYS"]
