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
