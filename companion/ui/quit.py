"""The question before quitting while events wait to be written (the card is full)."""

from __future__ import annotations

from collections.abc import Callable

from companion.ui.screen import Confirm, Context, Screen, wrap
from companion.words import counted

__all__ = ["QuitUnsaved"]


class QuitUnsaved(Confirm):
    """Quitting while events wait for the storage: how many, and OK to lose them or BACK
    to stay (and free some space: the retry then writes them, and quitting is plain)."""

    hint = "OK quit  BACK stay"

    def __init__(self, count: int, quit_losing: Callable[[Context], None], parent: Screen):
        one = count == 1
        lines = wrap(f"{counted(count, 'event')} {'is' if one else 'are'} not saved: free "
                     f"some space first, or {'it is' if one else 'they are'} lost.")
        super().__init__("Quit? Not saved", lines, quit_losing, parent)
