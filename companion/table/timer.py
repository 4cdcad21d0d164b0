"""Time at the table: a turn timer or a chess clock for whoever's turn it is, and the
sand timer of the Tools.

Pure like the rest of ``table/``: nothing here reads a clock. Every method takes
``now`` (seconds on any monotonic scale) from the caller, so tests move time by hand::

    >>> timer = TurnTimer(30)
    >>> timer.follow("Ann", now=0.0)
    >>> timer.shown(12.5)                  # whole seconds, rounded up as a countdown is
    18
    >>> timer.follow("Bob", now=12.5)      # a new turn starts from full
    >>> timer.shown(12.5), timer.left(50.0)
    (30, 0.0)

In ``"clock"`` mode (a chess clock) each player has ``turn`` seconds for the whole
game, and only their own total runs, only on their turn::

    >>> chess = TurnTimer(60, mode="clock")
    >>> chess.follow("Ann", 0.0); chess.follow("Bob", 20.0); chess.follow("Ann", 25.0)
    >>> chess.shown(30.0), chess.totals(30.0)
    (35, {'Ann': 35, 'Bob': 55})

Running out decides nothing: the timer only says so (``left`` 0); the table decides.
"""

from __future__ import annotations

import math

from companion.lang import pgettext

#: Seconds before the end when a timer warns (one short beep).
WARN_AT = 10
#: Rounding slack: a deadline computed for "the shown second changes" lands within
#: this of the change, and must count as past it (else the loop would wake again at once).
_SLACK = 1e-6


def whole_seconds(left: float) -> int:
    """``left`` as a countdown shows it: rounded up, so 0 only once time is up."""
    return max(0, math.ceil(left - _SLACK))


def clock_text(seconds: int) -> str:
    """``seconds`` as a countdown reads: ``0:42``, ``12:05``, ``1:02:03``.

    >>> clock_text(42), clock_text(725), clock_text(3723)
    ('0:42', '12:05', '1:02:03')
    """
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def short_clock_text(seconds: int) -> str:
    """``seconds`` in three characters at most, for a narrow place: ``42s``, ``10m``
    (whole minutes, rounded up as a countdown is), ``3h``.

    >>> short_clock_text(42), short_clock_text(599), short_clock_text(7200)
    ('42s', '10m', '2h')
    """
    if seconds < 100:
        # Translators: seconds, minutes, hours in at most 3 characters ("42s").
        return pgettext("screen 3", "{value}s").format(value=max(0, seconds))
    if seconds < 100 * 60:
        return pgettext("screen 3", "{value}m").format(value=-(-seconds // 60))
    return pgettext("screen 3", "{value}h").format(value=-(-seconds // 3600))


class Countdown:
    """One stretch of time that runs, pauses and runs out: a turn, a player's chess-clock
    total, a sand timer. ``used`` is the time spent before the current run began."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.used = 0.0
        #: When the current run began (None: paused or stopped).
        self.since: float | None = None

    @property
    def running(self) -> bool:
        return self.since is not None

    def start(self, now: float) -> None:
        if self.since is None:
            self.since = now

    def stop(self, now: float) -> None:
        if self.since is not None:
            self.used += max(0.0, now - self.since)
            self.since = None

    def left(self, now: float) -> float:
        """Seconds left (0.0 once run out)."""
        spent = self.used + (max(0.0, now - self.since) if self.since is not None else 0.0)
        return max(0.0, self.seconds - spent)

    def next_change(self, now: float) -> float | None:
        """When the shown whole second next changes (None: it will not by itself)."""
        if self.since is None:
            return None
        left = self.left(now)
        shown = whole_seconds(left)
        if shown == 0:
            return None
        return now + (left - (shown - 1))


class TurnTimer:
    """Time for whoever's turn it is (see the module docstring). ``player`` is whose
    turn it is (None: nobody's, e.g. cards being entered or the game over); ``paused``
    stops the time of everyone until it is released."""

    def __init__(self, turn: int, mode: str = "turn"):
        self.turn = turn
        self.mode = mode
        self.player: str | None = None
        self.paused = False
        self._times: dict[str, Countdown] = {}

    def _current(self) -> Countdown | None:
        return None if self.player is None else self._times.get(self.player)

    def follow(self, player: str | None, now: float) -> None:
        """The turn is ``player``'s now (the same player again: nothing changes)."""
        if player == self.player:
            return
        current = self._current()
        if current is not None:
            current.stop(now)
        self.player = player
        if player is None:
            return
        if self.mode != "clock" or player not in self._times:
            self._times[player] = Countdown(self.turn)  # a turn starts from full
        if not self.paused:
            self._times[player].start(now)

    def pause(self, now: float, paused: bool) -> None:
        """Stop (or let run again) the time of whoever's turn it is."""
        self.paused = paused
        current = self._current()
        if current is None:
            return
        if paused:
            current.stop(now)
        else:
            current.start(now)

    def left(self, now: float) -> float:
        """Seconds left for the player whose turn it is (0.0 for nobody)."""
        current = self._current()
        return 0.0 if current is None else current.left(now)

    def shown(self, now: float) -> int:
        """:meth:`left` in whole seconds, as the screen shows it."""
        return whole_seconds(self.left(now))

    def next_change(self, now: float) -> float | None:
        """When the shown second next changes (None: paused, nobody's turn or run out)."""
        current = self._current()
        return None if current is None else current.next_change(now)

    def totals(self, now: float) -> dict[str, int]:
        """Each player's seconds left of their own total (a chess clock; players who
        have not had a turn yet are not listed)."""
        return {player: whole_seconds(time.left(now)) for player, time in self._times.items()}


class SandTimer(Countdown):
    """The Tools' sand timer: ``minutes`` that ROLL starts and pauses.

    >>> sand = SandTimer(2)
    >>> sand.start(0.0); sand.stop(30.0)
    >>> clock_text(whole_seconds(sand.left(100.0)))
    '1:30'
    """

    def __init__(self, minutes: int):
        super().__init__(minutes * 60)
        self.minutes = minutes

    def toggle(self, now: float) -> None:
        """ROLL: run, or pause."""
        if self.running:
            self.stop(now)
        else:
            self.start(now)


#: What a game's setup offers (seconds; 0: no timer): a turn, or a chess clock's total.
TURN_CHOICES = (0, 15, 30, 45, 60, 90, 120, 180, 300, 600)
CLOCK_CHOICES = (0, 300, 600, 900, 1200, 1800, 2700, 3600)


def timer_choices(mode: str, configured: int) -> tuple[int, ...]:
    """The setup's choices for ``mode``, with the configured time among them.

    >>> timer_choices("turn", 20)[:4]
    (0, 15, 20, 30)
    """
    choices = CLOCK_CHOICES if mode == "clock" else TURN_CHOICES
    return tuple(sorted({*choices, configured}))


def timer_label(seconds: int, mode: str) -> str:
    """The setup row: ``Turn timer: 45 s``, ``Turn timer: 1:30``, ``Clock: 10 min each``.

    >>> timer_label(0, "turn"), timer_label(45, "turn"), timer_label(600, "clock")
    ('Turn timer: off', 'Turn timer: 45 s', 'Clock: 10 min each')
    """
    if mode == "clock":
        if not seconds:
            # Translators: a chess clock, each player's time for the whole game.
            return pgettext("screen 21", "Clock: off")
        if seconds % 60 == 0:
            return pgettext("screen 21", "Clock: {value} min each").format(value=seconds // 60)
        return pgettext("screen 21", "Clock: {time} each").format(time=clock_text(seconds))
    if not seconds:
        return pgettext("screen 21", "Turn timer: off")
    if seconds < 60:
        return pgettext("screen 21", "Turn timer: {value} s").format(value=seconds)
    return pgettext("screen 21", "Turn timer: {time}").format(time=clock_text(seconds))
