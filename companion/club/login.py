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
        self.clear()
        self._was_up = False

    def clear(self) -> None:
        """Forget the drops so far (the broker was away, or the login is ours again)."""
        self._dropped.clear()

    def down(self) -> bool:
        """The connection was dropped; True when this is another client's login fight."""
        now = self.clock()
        if self._was_up:
            self._dropped.append(now)
        self._was_up = False
        while self._dropped and now - self._dropped[0] > self.window:
            self._dropped.popleft()
        return len(self._dropped) >= self.drops


#: After another client took the login, the first try to take it back comes this many
#: seconds later: longer than :data:`WINDOW`, so a client that reconnects by itself
#: (another dashboard) has forgotten the drops of the fight and is not pushed into
#: giving up too; each try the login is still taken waits twice as long, up to
#: :data:`PAUSE_MOST`.
PAUSE_FIRST = 1.5 * WINDOW
PAUSE_MOST = 600.0
#: Connected this long without being dropped: the login is this dashboard's again.
SETTLE = 10.0


class Comeback:
    """When a dashboard pushed off its login tries to take it back: after growing
    pauses (:meth:`taken`), never at once, so the two clients do not push each other
    off for ever; connected for ``settle`` seconds (:meth:`settled`), the login is its
    own again. One try at a time: the dashboard stops its link between tries."""

    def __init__(self, clock: Callable[[], float], *, first: float = PAUSE_FIRST,
                 most: float = PAUSE_MOST, settle: float = SETTLE):
        self.clock = clock
        self.first = first
        self.most = max(first, most)
        self.settle = min(settle, first)
        self.pause = 0.0
        #: When the next try is due (None: not trying now: connected, or not taken).
        self.due: float | None = None
        self._up_at: float | None = None

    @property
    def active(self) -> bool:
        """The login was taken and is not this dashboard's again yet."""
        return self.pause > 0

    def taken(self) -> float:
        """The login is (still) taken: the pause before the next try (each one twice the
        last, from ``first`` up to ``most``)."""
        self.pause = self.first if not self.pause else min(self.pause * 2, self.most)
        self.due = self.clock() + self.pause
        self._up_at = None
        return self.pause

    def try_now(self) -> bool:
        """A try is due (and is being made: not due again until :meth:`taken`)."""
        if self.due is None or self.clock() < self.due:
            return False
        self.due = None
        return True

    def up(self) -> None:
        self._up_at = self.clock()

    def settled(self) -> bool:
        """Connected ``settle`` seconds since the last try: the login is ours again
        (the next push-off starts from the first pause)."""
        if not self.active or self._up_at is None or \
                self.clock() - self._up_at < self.settle:
            return False
        self.pause, self._up_at = 0.0, None
        return True

    def give_up(self) -> None:
        """The broker is away (a failed attempt), not the login taken: retry as usual."""
        self.pause, self.due, self._up_at = 0.0, None, None
