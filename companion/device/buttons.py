"""Button decoding: raw contact edges in, short and long presses out.

This module is pure: no gpiozero, no threads, no clock of its own. The board reports
every raw edge with a timestamp (from the app's clock), and the app asks
:meth:`ButtonDecoder.due` when :meth:`ButtonDecoder.next_deadline` says something is
due, so debounce and long-press timing run on the same injectable clock as everything
else and tests never sleep.

Why not gpiozero's ``bounce_time``/``hold_time``: mock pins do not simulate bounce, and
gpiozero's hold detection runs on wall-clock threads, so neither could be tested
deterministically.

Fast presses: every press is counted as long as the contact stays closed, and then
open, for at least ``bounce_time`` each (20 ms by default; a finger tapping as fast as
it can stays well over 50 ms in each). What is lost is only a whole press *and* release
inside one bounce window: on the pin that is the very pattern contact bounce makes, so
no decoder can tell the two apart, and counting it would turn every bouncing press into
two. Edges are never dropped on the way: gpiozero calls the board for each one, the
board stamps it with the clock and the app queues it (an unbounded queue) until the
decoder takes it. See docs/buttons.md.

>>> decoder = ButtonDecoder(hold_time=0.8, bounce_time=0.02)
>>> decoder.edge("ok", True, 0.0)
[]
>>> decoder.edge("ok", False, 0.1)
[Press(button='ok', long=False)]
>>> decoder.edge("roll", True, 1.0)
[]
>>> decoder.next_deadline()
1.8
>>> decoder.due(1.8)
[Press(button='roll', long=True)]
>>> decoder.edge("roll", False, 2.5)  # the release after a long press says nothing
[]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

BUTTONS = ("up", "down", "ok", "back", "roll")


class Press(NamedTuple):
    """A short or long press of one button: what the app receives.

    >>> Press("roll", long=True)
    Press(button='roll', long=True)
    """

    button: str
    long: bool = False


class _State:
    """One button's decoding state."""

    __slots__ = ("raw", "down", "window_end", "pressed_at", "long_sent")

    def __init__(self) -> None:
        self.raw = False  # the last level the pin reported (may still be bouncing)
        self.down = False  # the accepted (debounced) level
        self.window_end: float | None = None  # edges before this time are bounce
        self.pressed_at = 0.0
        self.long_sent = False


class ButtonDecoder:
    """Turns timestamped raw edges into :class:`Press` events.

    * A press shorter than ``hold_time`` is reported on release.
    * A press held ``hold_time`` is reported as long by :meth:`due` at that moment;
      its release reports nothing.
    * Edges within ``bounce_time`` of the last accepted edge of a button are ignored,
      but when that window ends the raw level is reconciled: if the contact settled in
      the other state, the transition is accepted at the window's end. So bounce never
      loses a real press or release.

    Feed edges in time order, and feed all queued edges before calling :meth:`due`.
    Not thread-safe: one thread (the app's) owns it.

    >>> d = ButtonDecoder(hold_time=0.8, bounce_time=0.02)
    >>> [d.edge("up", level, t) for level, t in [(True, 0), (False, 0.005), (True, 0.01)]]
    [[], [], []]
    >>> d.edge("up", False, 0.3)
    [Press(button='up', long=False)]
    """

    def __init__(self, hold_time: float, bounce_time: float, buttons: Iterable[str] = BUTTONS):
        if hold_time <= 0:
            raise ValueError(f"hold_time must be positive, not {hold_time}")
        if bounce_time < 0:
            raise ValueError(f"bounce_time must be 0 or more, not {bounce_time}")
        self.hold_time = float(hold_time)
        self.bounce_time = float(bounce_time)
        self._states = {name: _State() for name in buttons}

    @property
    def buttons(self) -> tuple[str, ...]:
        """The button names this decoder knows."""
        return tuple(self._states)

    def _state(self, button: str) -> _State:
        try:
            return self._states[button]
        except KeyError:
            raise ValueError(
                f"unknown button {button!r} (buttons: {', '.join(self._states)})"
            ) from None

    def edge(self, button: str, pressed: bool, now: float) -> list[Press]:
        """Take one raw edge from a pin (``pressed``: the contact is closed).

        Returns the presses this completes, including any timer that fell due before
        ``now`` (so a late :meth:`due` call cannot reorder events).
        """
        state = self._state(button)
        # Settle every timer up to `now` first: a debounce window that ended before this
        # edge must be reconciled with the level the pin had *before* this edge.
        out = self.due(now)
        state.raw = bool(pressed)
        if state.window_end is not None and now < state.window_end:
            return out  # bounce; reconciled when the window ends
        if state.raw != state.down:
            out.extend(self._accept(button, state, state.raw, now))
        return out

    def due(self, now: float) -> list[Press]:
        """Run the timers up to ``now``: long presses that reached ``hold_time`` and
        debounce windows that ended with the contact in the other state."""
        out: list[Press] = []
        while True:
            # Process events strictly in time order across all buttons, because a
            # reconciled press starts a hold timer that may itself fall before `now`.
            best: tuple[float, int, str] | None = None
            for name, state in self._states.items():
                for when, kind in self._pending(state):
                    if when <= now and (best is None or (when, kind) < best[:2]):
                        best = (when, kind, name)
            if best is None:
                return out
            when, kind, name = best
            state = self._states[name]
            if kind == 0:  # hold timer
                state.long_sent = True
                out.append(Press(name, long=True))
            else:  # debounce window over and the contact is in the other state
                state.window_end = None
                out.extend(self._accept(name, state, state.raw, when))

    def next_deadline(self) -> float | None:
        """When :meth:`due` next has something to do; None when nothing is pending.

        The app sleeps until then (or until the next edge) instead of polling. A window
        whose contact settled where it started is not a deadline: nothing would happen.
        """
        times = [when for state in self._states.values() for when, _ in self._pending(state)]
        return min(times, default=None)

    def is_down(self, button: str) -> bool:
        """Whether the button is held down (debounced level)."""
        return self._state(button).down

    def _pending(self, state: _State) -> list[tuple[float, int]]:
        # kind 0 = hold timer, 1 = reconciliation; on a tie the hold fires first because
        # the debounced level has been "down" for hold_time at that instant.
        pending = []
        if state.down and not state.long_sent:
            pending.append((state.pressed_at + self.hold_time, 0))
        if state.window_end is not None and state.raw != state.down:
            pending.append((state.window_end, 1))
        return pending

    def _accept(self, name: str, state: _State, pressed: bool, when: float) -> list[Press]:
        state.down = pressed
        state.window_end = when + self.bounce_time if self.bounce_time > 0 else None
        if pressed:
            state.pressed_at = when
            state.long_sent = False
            return []
        if state.long_sent:
            return []
        return [Press(name)]
