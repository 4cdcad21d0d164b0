"""A first screen for app tests that only writes down the presses the app gives it."""

from __future__ import annotations

from companion.device.buttons import Press
from companion.ui.screen import Screen


class PressLog(Screen):
    """Every press the app hands its screen, in order, in :attr:`presses`."""

    def __init__(self) -> None:
        super().__init__()
        self.presses: list[Press] = []

    def press(self, ctx, press: Press) -> Screen:
        self.presses.append(press)
        return self
