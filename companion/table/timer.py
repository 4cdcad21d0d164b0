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

A timer's whole state is a small JSON object (:meth:`TurnTimer.state`): whose time runs,
whether it is paused, and the seconds each player has used. The game log keeps it at a
pause and an undo; with the times of the events after it, :func:`clock_after` says what
every clock read at the last of them, and a restart goes on from there::

    >>> state = clock_after(60, "clock", chess.state(30.0), 30.0, [(40.0, "Bob")])
    >>> TurnTimer.restored(60, "clock", state, now=5.0).totals(5.0)
    {'Ann': 25, 'Bob': 55}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from companion.errors import BadSetup, written
from companion.lang import pgettext

#: Seconds before the end when a timer warns (one short beep).
WARN_AT = 10
#: How turns count (``[timer] mode``, a match's ``timer`` option): every turn from full,
#: or a chess clock.
TIMER_MODES = ("turn", "clock")
#: The longest a turn (or a chess clock's total) may be: a day.
TIMER_MAX = 86_400
#: The match option that keeps the setup's timer: ``{"turn": seconds, "mode": mode}``.
TIMER_OPTION = "timer"
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

    def state(self, now: float) -> dict[str, Any]:
        """What the timer is at ``now``, as JSON: ``{"player", "paused", "used"}``, the
        seconds each player has used (of this turn in ``"turn"`` mode, of the whole game
        on a chess clock)."""
        used = {player: time.seconds - time.left(now) for player, time in self._times.items()}
        if self.mode != "clock":  # only the turn running now counts
            used = {player: spent for player, spent in used.items() if player == self.player}
        return {"player": self.player, "paused": self.paused, "used": used}

    @classmethod
    def restored(cls, turn: int, mode: str, state: Mapping[str, Any], now: float) -> TurnTimer:
        """A timer that goes on at ``now`` from ``state`` (see :meth:`state`)."""
        timer = cls(turn, mode)
        timer.paused = bool(state["paused"])
        for player, spent in state["used"].items():
            timer._times[player] = Countdown(turn)
            timer._times[player].used = float(spent)
        timer.player = state["player"]
        if timer.player is not None:
            timer._times.setdefault(timer.player, Countdown(turn))
            if not timer.paused:
                timer._times[timer.player].start(now)
        return timer


def clock_after(turn: int, mode: str, state: Mapping[str, Any], since: float,
                turns: Iterable[tuple[float, str | None]]) -> dict[str, Any]:
    """The timer's state (:meth:`TurnTimer.state`) after ``turns``: it was ``state`` at
    ``since``, then at each (when, player) the turn was that player's (None: nobody's).
    Read at the last of those moments, so time after it is not counted (nothing says
    what happened then). A stretch that ends before it begins (the clock was set back
    meanwhile) counts as no time; the next is counted from that moment on."""
    timer = TurnTimer.restored(turn, mode, state, since)
    last = since
    for last, player in turns:
        timer.follow(player, last)
    return timer.state(last)


def check_timer_option(value: Any) -> dict[str, Any]:
    """A match's ``timer`` option, checked: ``{"turn": 0 to 86400, "mode": "turn" or
    "clock"}``; BadSetup in one line otherwise."""
    if (isinstance(value, dict) and set(value) == {"turn", "mode"}
            and isinstance(value["turn"], int) and not isinstance(value["turn"], bool)
            and 0 <= value["turn"] <= TIMER_MAX and value["mode"] in TIMER_MODES):
        return {"turn": value["turn"], "mode": value["mode"]}
    # Translators: {value} is what was given, as JSON; "turn", "mode", "clock" are kept
    # as they are (what a program sends).
    raise BadSetup(pgettext("screen 21xN", 'option timer is {{"turn": 0 to {most} seconds, '
                            '"mode": "turn" or "clock"}}, not {value}')
                   .format(most=TIMER_MAX, value=written(value)))


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
