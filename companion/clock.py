"""Time behind a seam: the real monotonic clock, or a manual one for tests and scripts.

Everything in the companion that measures time (debounce, long press, idle dimming,
animations) asks a clock, never ``time`` directly, so tests advance time by hand and
never sleep::

    >>> clock = ManualClock()
    >>> clock.advance(0.8)
    >>> clock()
    0.8
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable

Clock = Callable[[], float]

monotonic: Clock = time.monotonic


class ManualClock:
    """A clock that moves only when told to."""

    def __init__(self, start: float = 0.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds`` (never back)."""
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self.now += seconds


def said_when(when: float | None, say: Callable[[datetime.datetime], str],
              none: str = "-") -> str:
    """``when`` (seconds since the epoch) as a local time, said by ``say`` (one of
    companion.lang's dates); ``none`` for None and "?" for a time no calendar can show
    (a table whose clock said year 3 billion)."""
    if when is None:
        return none
    try:
        moment = datetime.datetime.fromtimestamp(when)
    except (OverflowError, OSError, ValueError):
        return "?"
    return say(moment)


def day_text(when: float | None, fmt: str = "%Y-%m-%d") -> str:
    """``when`` (seconds since the epoch) as a local date in ``fmt``; "-" for None and
    "?" for a time no calendar can show (a table whose clock said year 3 billion)."""
    if when is None:
        return "-"
    try:
        return time.strftime(fmt, time.localtime(when))
    except (OverflowError, OSError, ValueError):
        return "?"
