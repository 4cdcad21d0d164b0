"""Telling a login another client took from a broker that is only away.

The broker makes a login its client id (``use_username_as_clientid``), so a second
client with the dashboard's login pushes the dashboard off, the dashboard reconnects and
pushes the other off, and so on for ever, neither storing anything. MQTT 3.1.1 gives no
reason when the broker drops a client, but the pattern is plain: connected, dropped,
connected again at once (no failed attempt between: the broker is there and takes the
login), again and again. A broker that restarts or a network that stalls shows failed
attempts between; those clear the count.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

#: This many drops, each right after a good connection and with no failed attempt
#: between, within :data:`WINDOW` seconds: another client is using the login.
DROPS = 3
WINDOW = 30.0


class LoginFight:
    """Fed the link's ``up``/``down``/``failed`` events; :meth:`down` says when the
    drops look like another client with the same login."""

    def __init__(self, clock: Callable[[], float], *, drops: int = DROPS,
                 window: float = WINDOW):
        self.clock = clock
        self.drops = drops
        self.window = window
        self._dropped: deque[float] = deque()
        self._was_up = False

    def up(self) -> None:
        self._was_up = True

    def failed(self) -> None:
        """A connection attempt failed: the broker is away, not taken."""
        self._dropped.clear()
        self._was_up = False

    def down(self) -> bool:
        """The connection was dropped; True when this is another client's login fight."""
        now = self.clock()
        if self._was_up:
            self._dropped.append(now)
        self._was_up = False
        while self._dropped and now - self._dropped[0] > self.window:
            self._dropped.popleft()
        return len(self._dropped) >= self.drops
