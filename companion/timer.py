"""The turn timer at work on the device: whose turn it is, the buzzer and the ROLL LED.

:class:`TableTimer` lives on the app's owner thread. After every change the app tells it
which game is on the screen (:meth:`TableTimer.follow`); whose turn it is comes from the
match's ``expecting()``, the one source every screen and the page use, never from a
game's own code. It has no thread and polls nothing: it gives the app its next deadline
(the moment the shown second changes, a beep's end, the LED's next blink) and the app
wakes then (:meth:`TableTimer.due`).

Ten seconds before the end one short beep; at the end one long beep, the ROLL LED
blinks and the screen says "Ann: time!". That is all: running out decides nothing (the
table does). A long BACK on any game screen pauses everyone's time, and lets it run
again. The buzzer is switched on and off on the app's clock, so tests read the buzzer
pin's levels on gpiozero's mock pins at exact moments, and the simulator shows a mark
while it sounds (:attr:`TableTimer.sounding`).

A game's own choice (its setup screen's Timer row) is its match's ``timer`` option;
otherwise ``[timer]`` applies (:func:`companion.timer_log.match_timer`). A game taken up
again (a resume, after a restart or a power cut) gets its clocks back as the game log
says they read (:func:`companion.timer_log.restored_timer`): for that the timer keeps
its state in the log at a pause, an undo, when the game comes on the screen and leaves
it, and when the log's wall clock jumps (the events' stored times then no longer say
how long a turn took).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image

from companion.lang import pgettext
from companion.table.timer import (
    WARN_AT,
    TurnTimer,
    clock_text,
    short_clock_text,
    whole_seconds,
)
from companion.timer_log import keep_clocks, match_timer, restored_timer
from companion.ui.timer import mark_time

#: Seconds the buzzer sounds ten seconds before the end, and at the end.
SHORT_BEEP, LONG_BEEP = 0.15, 1.0
#: The ROLL LED's blink after the end: seconds on (and off), and for how long at most
#: (a press or the next turn stops it sooner).
BLINK_STEP, BLINK_FOR = 0.5, 30.0
#: Seconds the log's wall clock may go its own way from the device's clock between two
#: records before the timer keeps what its clocks read: the wall clock set forward or
#: back (a Pi without a clock battery finds the network's time after it boots) would
#: otherwise count that jump as someone's turn at the next restart.
WALL_JUMP = 2.0


class TableTimer:
    """The turn timer of the game on the screen, with its sounds and the LED."""

    def __init__(self, clock: Any, config: Any, board: Any = None):
        self.clock = clock
        self.config = config
        self.board = board
        self.session: Any = None
        self.timer: TurnTimer | None = None
        #: Players whose time has been warned about / has run out (this turn, or for
        #: the whole game on a chess clock): each sound is made once.
        self._warned: set[str] = set()
        self._ended: set[str] = set()
        self._buzz_until: float | None = None
        self._blink_at: float | None = None
        self._blink_until: float | None = None
        self._blink_lit = False
        self._tick_at: float | None = None
        #: Called on the owner thread when the time is paused or runs on (the page).
        self.watchers: list[Callable[[], None]] = []
        #: How many events the match on the screen had when last followed (fewer now:
        #: one was undone).
        self._events = 0
        #: Called on the owner thread with ("warning", player, seconds left) ten seconds
        #: before a turn's end and ("end", player, 0) at its end: what is said aloud.
        self.alerts: list[Callable[[str, str, int], None]] = []
        #: (the device's clock, the log's wall clock) when the clocks were last kept.
        self._kept_at: tuple[float, float] | None = None

    # -- following the game ---------------------------------------------------------

    def follow(self, session: Any) -> None:
        """The game on the screen is ``session`` (None: none): start its timer when it is
        new (with its clocks as the log says they read), and hand the turn to whoever
        its match expects now."""
        now = self.clock()
        if session is not self.session:
            self._keep(now)  # the game leaving the screen: its clocks as they read now
            self.session = session
            self._start(session, now)
            # Kept at once: the log's times say when each turn after this began, and
            # the time the game was away (a power cut, the main menu) is nobody's turn.
            self._keep(now)
        if self.timer is None:
            self._tick_at = None
            return
        match = session.match
        player = None if match.over else match.expecting().player
        undone = len(match.events) < self._events
        self._events = len(match.events)
        if player != self.timer.player:
            if self.timer.mode != "clock":  # each turn starts from full, warnings too
                self._warned.discard(player or "")
                self._ended.discard(player or "")
            self._stop_blinking()
            self.timer.follow(player, now)
            if self._wall_jumped(now):
                self._keep(now)  # the log's times no longer measure the turns
        if undone:  # the undone event is gone from the log, and with it its time
            self._keep(now)
        self._catch_up(now)

    def _start(self, session: Any, now: float) -> None:
        """The timer of a game new on the screen, its clocks as the log has them; the
        sounds already made before a restart are not made again."""
        turn, mode = (0, "turn") if session is None else match_timer(session.match,
                                                                      self.config)
        self.timer = restored_timer(session, turn, mode, now) if turn > 0 else None
        self._events = 0 if session is None else len(session.match.events)
        self._warned.clear()
        self._ended.clear()
        self._stop_blinking()
        if self.timer is not None:
            for player, left in self.timer.totals(now).items():
                if left <= WARN_AT:
                    self._warned.add(player)
                if left <= 0:
                    self._ended.add(player)

    def _keep(self, now: float) -> None:
        """Keep the clocks of the game on the screen in its log (not a game over)."""
        if self.timer is not None and self.session is not None and \
                not self.session.match.over:
            keep_clocks(self.session, self.timer, now)
            wall = _wall(self.session)
            self._kept_at = None if wall is None else (now, wall)

    def _wall_jumped(self, now: float) -> bool:
        """True when the log's wall clock has moved more (or less) than the device's
        own clock since the clocks were last kept: set forward or back meanwhile."""
        wall = _wall(self.session)
        if self._kept_at is None or wall is None:
            return False
        since, wall_since = self._kept_at
        return abs((wall - wall_since) - (now - since)) > WALL_JUMP

    @property
    def active(self) -> bool:
        """True while a game with a timer is on the screen."""
        return self.timer is not None

    def toggle_pause(self) -> None:
        """The one press that pauses everyone's time (and lets it run again)."""
        if self.timer is None:
            return
        now = self.clock()
        self.timer.pause(now, not self.timer.paused)
        self._keep(now)  # a pause survives a restart
        self._stop_blinking()
        self._catch_up(now)
        for watcher in self.watchers:
            watcher()

    def pressed(self) -> None:
        """Any press: the LED stops blinking (the table has seen it)."""
        self._stop_blinking()

    # -- what it tells the world ----------------------------------------------------

    def status(self) -> dict[str, Any] | None:
        """``{"player", "left", "turn", "mode", "paused", "totals"}`` for STATUS and the
        page (None: no timer in this game). ``left`` is in whole seconds as the screen
        shows it, 0 once run out; ``totals`` is each player's time left on a chess clock
        ({} in turn mode)."""
        if self.session is not None:  # an event applied a moment ago: whose turn now
            self.follow(self.session)
        if self.timer is None:
            return None
        now = self.clock()
        timer = self.timer
        return {
            "player": timer.player,
            "left": timer.shown(now) if timer.player is not None else timer.turn,
            "turn": timer.turn,
            "mode": timer.mode,
            "paused": timer.paused,
            "totals": timer.totals(now) if timer.mode == "clock" else {},
        }

    def clocks(self) -> dict[str, int]:
        """Each player's seconds left on a chess clock, in seat order ({}: not one)."""
        if self.timer is None or self.timer.mode != "clock":
            return {}
        totals = self.timer.totals(self.clock())
        return {name: totals.get(name, self.timer.turn) for name in self.session.match.players}

    def draw(self, image: Image.Image) -> None:
        """The time left (or "Ann: time!") where the screen leaves room for it."""
        timer = self.timer
        if timer is None or timer.player is None:
            return
        now = self.clock()
        shown = timer.shown(now)
        time, short = clock_text(shown), short_clock_text(shown)
        # The first that fits a free stretch of the title bar or the hint line is drawn.
        if shown == 0:
            texts = [pgettext("screen 12 (if it fits)", "{player}: time!").format(
                         player=timer.player),
                     pgettext("screen 5", "time!"), short]
        elif timer.paused:
            # Translators: {time} is the time left, "1:30".
            texts = [pgettext("screen 12", "paused {time}").format(time=time),
                     f"|| {time}", f"||{short}"]
        else:
            texts = [time, short]
        mark_time(image, texts, timer.left(now) / timer.turn)

    @property
    def sounding(self) -> bool:
        """True while the buzzer sounds."""
        return self._buzz_until is not None

    def led(self) -> bool | None:
        """The ROLL LED while it blinks (None: not blinking, the screen decides)."""
        return self._blink_lit if self._blink_until is not None else None

    # -- the clock's deadlines --------------------------------------------------------

    def next_deadline(self) -> float | None:
        times = (self._tick_at, self._buzz_until, self._blink_at)
        return min((t for t in times if t is not None), default=None)

    def due(self, now: float) -> bool:
        """Do what is due at ``now``; True when the screen's picture changes."""
        changed = False
        if self._buzz_until is not None and now >= self._buzz_until:
            self._buzz(False)
            changed = True  # the simulator's buzzer mark goes
        if self._blink_at is not None and now >= self._blink_at:
            self._blink(now)
            changed = True  # the app sets the LED as it shows the screen
        if self._tick_at is not None and now >= self._tick_at and self.timer is not None:
            self._catch_up(now)
            changed = True
        return changed

    def _catch_up(self, now: float) -> None:
        """Make the sounds due by ``now`` (also when the moment came while something else
        was being done: a press, a STATUS), and wake again when the shown second
        changes."""
        self._sounds(now)
        self._tick_at = self.timer.next_change(now) if self.timer is not None else None

    def sound(self, seconds: float) -> None:
        """Sound the buzzer for ``seconds`` (from now, on this clock)."""
        self._buzz(True)
        self._buzz_until = self.clock() + seconds

    def _sounds(self, now: float) -> None:
        timer = self.timer
        player = timer.player if timer is not None else None
        if timer is None or player is None:
            return
        left = whole_seconds(timer.left(now))
        if left <= 0 and player not in self._ended:
            self._ended.add(player)
            self.sound(LONG_BEEP)
            self._blink_until = now + BLINK_FOR
            self._blink_lit = False
            self._blink(now)
            self._alert("end", player, 0)
        elif 0 < left <= WARN_AT < timer.turn and player not in self._warned:
            self._warned.add(player)
            self.sound(SHORT_BEEP)
            self._alert("warning", player, WARN_AT)

    def _alert(self, alert: str, player: str, seconds: int) -> None:
        for hear in self.alerts:
            hear(alert, player, seconds)

    def _blink(self, now: float) -> None:
        if self._blink_until is None or now >= self._blink_until:
            self._stop_blinking()
            return
        self._blink_lit = not self._blink_lit
        self._blink_at = now + BLINK_STEP

    def _stop_blinking(self) -> None:
        self._blink_at = self._blink_until = None
        self._blink_lit = False

    def _buzz(self, on: bool) -> None:
        if not on:
            self._buzz_until = None
        if self.board is not None:
            self.board.buzz(on)


def _wall(session: Any) -> float | None:
    """The wall clock of ``session``'s game log (None: a game not kept in one)."""
    store = getattr(session, "store", None)
    now = getattr(store, "now", None)
    return float(now()) if callable(now) else None
