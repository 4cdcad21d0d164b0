"""The dashboard's log lines, at most one per cause, table and minute, with a count.

A hostile or broken table can send thousands of bad messages a minute; each is still
dropped, but the organiser's log gets the first line of a kind at once and then, once a
minute while they go on, one line saying how many more there were (10,000 hostile
messages are a handful of lines, not thousands).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

#: The window (seconds) in which a cause and table log one line.
EVERY = 60.0


@dataclass
class _Window:
    start: float
    level: int
    text: str = ""
    more: int = 0


class Lines:
    """``say`` logs through ``logger``, one line per (cause, table) per :data:`EVERY`
    seconds of ``clock``; ``flush`` (called every few seconds) writes the counts of the
    windows that are over."""

    def __init__(self, logger: logging.Logger, clock: Callable[[], float] = time.monotonic,
                 every: float = EVERY):
        self.log = logger
        self.clock = clock
        self.every = every
        self._windows: dict[tuple[str, str], _Window] = {}
        #: Lines written and lines held back, in all (tests count them).
        self.written = 0
        self.held_back = 0

    def say(self, level: int, cause: str, table: str, text: str, *args: object) -> None:
        key = (cause, table[:64])
        window = self._windows.get(key)
        now = self.clock()
        if window is not None and now - window.start < self.every:
            window.more += 1
            window.level, window.text = level, text % args if args else text
            self.held_back += 1
            return
        if window is not None and window.more:
            self._summary(window)
        self._windows[key] = _Window(now, level)
        self.log.log(level, text, *args)
        self.written += 1

    def flush(self) -> None:
        """Write one line for each window that is over and held lines back (how many,
        and the last of them); forget the windows that are over."""
        now = self.clock()
        for key, window in list(self._windows.items()):
            if now - window.start < self.every:
                continue
            if window.more:
                self._summary(window)
                self._windows[key] = _Window(now, window.level)  # still going: one a minute
            else:
                del self._windows[key]

    def _summary(self, window: _Window) -> None:
        self.log.log(window.level, "%s (%d like it in the last minute)", window.text,
                     window.more)
        self.written += 1
