"""The question before quitting while events wait to be written (the card is full)."""

from __future__ import annotations

from collections.abc import Callable

from companion.lang import lazy, npgettext, pgettext
from companion.ui.keys import Key, Keys
from companion.ui.screen import Confirm, Context, Screen, wrap

__all__ = ["QuitUnsaved"]


class QuitUnsaved(Confirm):
    """Quitting while events wait for the storage: how many, and OK to lose them or BACK
    to stay (and free some space: the retry then writes them, and quitting is plain)."""

    def __init__(self, count: int, quit_losing: Callable[[Context], None], parent: Screen):
        lines = wrap(npgettext(
            "screen 21x4",
            "{n} event is not saved: free some space first, or it is lost.",
            "{n} events are not saved: free some space first, or they are lost.",
            count).format(n=count))
        super().__init__(pgettext("screen 21", "Quit? Not saved"), lines, quit_losing, parent)

    # Translators: OK and BACK are the names printed on the device's buttons.
    keys = Keys(lazy("screen 21", "Quitting unsaved"), lazy("screen 21", "OK quit  BACK stay"),
                Key("OK", lazy("screen 21xN", "Quit: the events not saved are lost.")),
                Key("BACK", lazy("screen 21xN", "Stay: free some space and they are written.")))
