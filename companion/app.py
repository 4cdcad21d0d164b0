"""The app: one queue, one thread that owns the screen, the state and the panel.

Button callbacks (gpiozero threads), the serial reader and anything else from outside
only *post* to the queue. The owner thread takes items off the queue, turns pin edges
into presses, lets the current screen answer, and sends the new picture to the panel.
Timers (long press, debounce, animation, dimming, pixel shift, the systemd watchdog)
are deadlines the loop sleeps until: nothing polls while nobody presses anything.

The same :class:`App` runs on the real device, in the terminal simulator and under a
script with a manual clock (:mod:`companion.sim`), where :meth:`App.pump` does the work
of the loop without waiting.
"""

from __future__ import annotations

import logging
import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PIL import Image

from companion.config import Idle
from companion.device.buttons import ButtonDecoder, Press
from companion.errors import CompanionError
from companion.lang import pgettext
from companion.notify import Notifier
from companion.timer import TableTimer
from companion.ui.canvas import HEIGHT, WIDTH
from companion.ui.quit import QuitUnsaved
from companion.ui.screen import Context, Message, Screen, folded, wrap

log = logging.getLogger("companion")

Item = tuple[Any, ...]


class App:
    """Owns the current screen and the panel; fed by :meth:`post`."""

    def __init__(
        self,
        ctx: Context,
        panel: Any,
        root: Screen,
        decoder: ButtonDecoder,
        idle: Idle,
        *,
        board: Any = None,
        notifier: Notifier | None = None,
        game_log: Any = None,
        on_frame: Callable[[Image.Image], None] | None = None,
    ):
        self.ctx = ctx
        self.clock = ctx.clock
        self.panel = panel
        self.screen = root
        self.decoder = decoder
        self.idle = idle
        self.board = board
        self.notifier = notifier or Notifier(env={})
        #: The game log and whether it can be written (:class:`companion.gamelog.GameLog`;
        #: None: no log was asked for, nothing is marked).
        self.game_log = game_log
        self.on_frame = on_frame
        self.queue: queue.SimpleQueue[Item] = queue.SimpleQueue()
        self.running = True
        #: The thread that owns the screen, the state and the panel (set by start()).
        self.owner: threading.Thread | None = None
        self.dimmed = self.blanked = False
        self.image: Image.Image | None = None
        self._swallow: set[str] = set()
        now = self.clock()
        self.last_press = now
        self.tick_at: float | None = None
        self.shift_at: float | None = now + idle.shift_every if idle.shift_every else None
        self.watchdog_at: float | None = None
        #: When to try a display that stopped answering again (None: it answers).
        self.retry_at: float | None = None
        #: Called on the owner thread with the game session on the screen whenever it
        #: changes (a new game, a resume, leaving one): the web page's news.
        self.session_watchers: list[Callable[[Any], None]] = []
        #: Called on the owner thread once what was played unsaved is written (saving
        #: is back): ``--log-events`` prints those events then.
        self.saved_watchers: list[Callable[[], None]] = []
        self._watched: Any = None
        #: Called on the owner thread with the words of a refusal (:meth:`refused`): a
        #: press the rules refused, or a move from the console or the page.
        self.refusal_watchers: list[Callable[[str], None]] = []
        #: The turn timer of the game on the screen, its buzzer and LED (companion.timer).
        self.timer = TableTimer(self.clock, ctx.config, board)
        self._sounding = False  # the buzzer as the last frame handed on knew it

    # -- what other threads may call ----------------------------------------------

    def post(self, *item: Any) -> None:
        """Queue an item for the owner thread (safe from any thread)."""
        self.queue.put(item)

    def pin_edge(self, button: str, pressed: bool, when: float) -> None:
        """The board's sink: a raw pin edge."""
        self.queue.put(("edge", button, pressed, when))

    def quit(self, ask: bool = False) -> None:
        """Stop the app. With ``ask`` (a person pressed the key that quits, and can
        answer) events not saved yet are said first, and quitting waits for OK."""
        self.queue.put(("quit", ask))

    # -- the owner thread ---------------------------------------------------------

    def start(self) -> None:
        """Show the first frame and tell systemd we are up. The thread that calls this
        is the owner from now on."""
        self.owner = threading.current_thread()
        self.timer.follow(self.current_session())  # a game resumed or started at once
        self._watch_session()
        self._schedule_tick()
        self._show()
        self.notifier.send("READY=1")
        if self.notifier.watchdog_every:
            self.watchdog_at = self.clock()

    def run(self) -> None:
        """The real loop: sleep until an item arrives or the next deadline, until quit."""
        self.start()
        while self.running:
            self._run_due()
            if not self.running:  # a quit taken off the queue by _run_due
                break
            deadline = self.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            try:
                item = self.queue.get(timeout=timeout)
            except queue.Empty:
                continue
            self._handle(item)

    def pump(self) -> None:
        """Handle everything queued and everything due now, without waiting."""
        self._run_due()

    def _take_queued(self) -> None:
        while True:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                return
            self._handle(item)

    def next_deadline(self) -> float | None:
        """When the loop must next wake up by itself (None: only for the queue)."""
        times = [self.decoder.next_deadline(), self.tick_at, self.shift_at, self.watchdog_at,
                 self.retry_at, getattr(self.game_log, "retry_at", None),
                 self.timer.next_deadline()]
        if self.idle.dim_after and not self.dimmed and not self.blanked:
            times.append(self.last_press + self.idle.dim_after)
        if self.idle.blank_after and not self.blanked:
            times.append(self.last_press + self.idle.blank_after)
        return min((t for t in times if t is not None), default=None)

    def game_screen(self) -> Any:
        """The game screen the current screen belongs to (None outside a game): the
        screen itself or the nearest parent with a ``session``."""
        screen: Any = self.screen
        while screen is not None:
            if getattr(screen, "session", None) is not None:
                return screen
            screen = screen.parent
        return None

    def current_session(self) -> Any:
        """The game session being played on the screen, if any."""
        game = self.game_screen()
        return None if game is None else game.session

    def refresh_game(self) -> None:
        """After an event from outside the buttons (the serial console), show the screen
        the match now needs."""
        game = self.game_screen()
        if game is not None:
            self.show_from_afar(lambda: game.route(self.ctx))

    def show_from_afar(self, step: Callable[[], Screen]) -> None:
        """Show the screen ``step`` gives after a change from afar, unless the one on
        the panel stays open over such a change (Help: whoever reads it goes back to
        the match as it is then)."""
        if getattr(self.screen, "stays_open", False):
            self._after_change()
        else:
            self.set_screen(self._guard(step))

    def visible(self) -> Image.Image:
        """What a person sees on the panel now (dark when blanked, half lit when dimmed:
        the simulator shows the dimming, so the press that wakes the panel shows too)."""
        if self.blanked or self.image is None:
            return Image.new("1", (WIDTH, HEIGHT))
        if self.dimmed:
            return _half_lit(self.image)
        return self.image

    # -- inside ---------------------------------------------------------------------

    def _handle(self, item: Item) -> None:
        kind = item[0]
        if kind == "edge":
            _, button, pressed, when = item
            if pressed and self._asleep():
                self._wake()
                self._swallow.add(button)
            self._presses(self.decoder.edge(button, pressed, when))
        elif kind == "press":  # a press that did not come through the pins
            self._presses([item[1]])
        elif kind == "call":  # run a function on the owner thread (serial console)
            item[1](self)
            self._after_change()
        elif kind == "then":  # work that waits until the frame is out (speaking)
            item[1]()
        elif kind == "quit":
            ask = len(item) > 1 and item[1] and not isinstance(self.screen, QuitUnsaved)
            if not self._save_before_quit(ask):
                return  # the question is on the screen
            self.running = False

    def _presses(self, presses: list[Press]) -> None:
        for press in presses:
            if press.button in self._swallow:
                self._swallow.discard(press.button)
                continue  # the press that woke the screen does nothing else
            self.last_press = self.clock()
            if self._asleep():
                self._wake()
            self.timer.pressed()
            if press.button == "back" and press.long and self.timer.active:
                # The turn timer's pause: a long BACK, which no game screen uses.
                self.timer.toggle_pause()
                self._after_change()
                continue
            self.set_screen(self._guard(lambda p=press: self.screen.press(self.ctx, p)))

    def set_screen(self, screen: Screen) -> None:
        """Make ``screen`` current and show it."""
        if screen is not self.screen:
            shown, self.screen = self.screen, screen
            self.tick_at = None
            if shown is not None:
                shown.hidden(self.ctx)
        self._after_change()

    def _after_change(self) -> None:
        self._note_storage_lost()
        self.timer.follow(self.current_session())
        self._schedule_tick()
        self._show()
        self._watch_session()

    def _watch_session(self) -> None:
        """Tell the session watchers when the game on the screen changed."""
        if self.session_watchers:
            session = self.current_session()
            if session is not self._watched:
                self._watched = session
                for watcher in self.session_watchers:
                    watcher(session)

    def _guard(self, step: Callable[[], Screen]) -> Screen:
        """Run a screen step; an error becomes a message, never a dead device."""
        try:
            return step()
        except CompanionError as err:
            self.refused(str(err))
            return Message(pgettext("screen 21", "Sorry"), wrap(str(err)), self.screen)
        except Exception as err:  # noqa: BLE001 - the table must keep working
            log.error("screen step failed:\n%s", traceback.format_exc())
            return Message(pgettext("screen 21", "Internal error"),
                           wrap(f"{type(err).__name__}: {err}"), self.screen)

    def refused(self, reason: str) -> None:
        """A move was refused with ``reason``: a press (shown as "Sorry"), or a move the
        console or the page sent (:mod:`companion.remote.commands`). The refusal
        watchers hear it (what is said aloud); call it on the owner thread."""
        for watcher in self.refusal_watchers:
            watcher(reason)

    def _run_due(self) -> None:
        now = self.clock()
        # The board stamps an edge, then queues it: every edge queued by now happened
        # before `now`. Feed them to the decoder before its timers run, or a release still
        # waiting in the queue (this thread ran late) would make its short press long.
        self._take_queued()
        presses = self.decoder.due(now)
        if presses:
            self._presses(presses)
        if self.tick_at is not None and now >= self.tick_at:
            self.tick_at = None
            self.set_screen(self._guard(lambda: self.screen.tick(self.ctx)))
        if self.shift_at is not None and now >= self.shift_at:
            self.shift_at = now + self.idle.shift_every
            self.panel.shift()
            self._frame()
        if self.watchdog_at is not None and now >= self.watchdog_at:
            self.notifier.send("WATCHDOG=1")
            self.watchdog_at = now + (self.notifier.watchdog_every or 0)
        if self.game_log is not None and self.game_log.due(now):
            self._retry_saving(now)
        if self.timer.due(now):
            self._show()
        if self.retry_at is not None and now >= self.retry_at:
            self.retry_at = None
            self.panel.retry()
        if getattr(self.panel, "lost", False) and self.retry_at is None:
            self.retry_at = now + self.panel.RETRY_EVERY
        idle_for = now - self.last_press
        if self.idle.blank_after and not self.blanked and idle_for >= self.idle.blank_after:
            self.blanked = True
            self.panel.blank(True)
            self._frame()
        elif self.idle.dim_after and not self.dimmed and not self.blanked \
                and idle_for >= self.idle.dim_after:
            self.dimmed = True
            self.panel.dim(True)
            self._frame()

    def _asleep(self) -> bool:
        return self.dimmed or self.blanked

    def unsaved(self) -> bool:
        """True while what is played is not written to the game log: the storage
        refuses, or the game on the screen has not been written yet."""
        if self.game_log is None or self.game_log.state_dir is None:
            return False
        session = self.current_session() or self.ctx.parked
        return bool(self.game_log.problem) or (session is not None and not session.saved)

    def _note_storage_lost(self) -> None:
        """The game's last write failed (the card filled up mid-game): the game log goes
        read-only with its retry, exactly as when storage fails at start, so the header
        is lit from this very frame on and what is played meanwhile is written later."""
        session = self.current_session() or self.ctx.parked
        problem = getattr(session, "problem", "")
        if not problem or self.game_log is None or self.game_log.problem:
            return
        from companion.session import keep_unsaved  # not at start-up: no game yet

        self.game_log.lost(problem, self.clock())
        self.ctx.store = session.log = self.game_log.store
        # Written when saving is back, even if the game ends and is left first.
        keep_unsaved(session.log, session)

    def _save_before_quit(self, ask: bool = False) -> bool:
        """Quitting while games are not saved: one last try, as the storage may be back
        (the owner freed space, then restarted the service). Else, with ``ask``, the
        screen says how many events would be lost and asks (False: not quitting yet);
        without, the journal and the note for the next start say what is lost."""
        if self.game_log is None or not self.game_log.problem or \
                self.game_log.state_dir is None:
            return True
        from companion.gamelog import unsaved_events

        session = self.current_session() or self.ctx.parked
        if self.game_log.retry(self.clock(), session):
            self._tell_saved()
            return True
        count = unsaved_events(self.game_log.sessions(session))
        if ask and count:
            self.wake()
            self.set_screen(QuitUnsaved(count, self._quit_losing, self.screen))
            return False
        self.game_log.quit_losing(session)
        return True

    def _tell_saved(self) -> None:
        for watcher in self.saved_watchers:
            watcher()

    def _quit_losing(self, ctx: Context) -> None:
        """The answer to :class:`QuitUnsaved`: quit all the same."""
        self.game_log.quit_losing(self.current_session() or ctx.parked)
        self.running = False

    def _retry_saving(self, now: float) -> None:
        """Try the game log again (on its deadline); say so when saving works again."""
        # The game on the screen, or one left while unsaved (never both: a new game
        # asks first what becomes of the one waiting).
        session = self.current_session() or self.ctx.parked
        if not self.game_log.retry(now, session):
            return
        self.ctx.store = self.game_log.store
        self._tell_saved()
        if isinstance(self.screen, QuitUnsaved):  # nothing is lost now: no question
            self.set_screen(self.screen.parent)
        # Translators: a line break may be left out: the text is folded into lines of
        # 21 characters either way (a break only chooses where a line ends).
        lines = folded(pgettext("screen 21x2", "Games are saved\nagain."))
        if session is not None and session is self.ctx.parked:
            self.ctx.parked = None  # in the log now: offered from there
            lines += folded(pgettext("screen 21x2", "The game you left\nis saved too."))
        elif session is not None:
            lines += folded(pgettext("screen 21x2", "This game is saved\ntoo."))
        self.wake()
        self.set_screen(Message(pgettext("screen 21", "Saved again"), lines, self.screen))

    def wake(self) -> None:
        """Restart the idle timers, and light a dimmed or blank panel (a press, or news
        from the serial console, for the people at the table)."""
        self.last_press = self.clock()
        if self._asleep():
            self._wake()

    def _wake(self) -> None:
        self.last_press = self.clock()
        if self.blanked:
            self.blanked = False
            self.panel.blank(False)
        if self.dimmed:
            self.dimmed = False
            self.panel.dim(False)
        self._frame()

    def _schedule_tick(self) -> None:
        if self.tick_at is None:
            wait = self.screen.tick_after()
            if wait is not None:
                self.tick_at = self.clock() + wait

    def _show(self) -> bool:
        """Render the screen and send it if it changed (True: it was sent)."""
        if self.timer.sounding and not self._sounding and self._asleep():
            self._wake()  # a beep (the turn or the sand timer): the screen says why
        image = self.screen.render(unsaved=self.unsaved(), club=self.ctx.club_up,
                                   club_lag=self.ctx.club_unconfirmed > 0,
                                   overlay=self.timer.draw if self.timer.active else None)
        sent = self.panel.show(image)  # False: the same frame as last time, nothing sent
        if sent:
            self.image = image
        if sent or self._sounding != self.timer.sounding:
            self._frame()  # (the same picture: the simulator's buzzer mark changed)
        self._sounding = self.timer.sounding
        self._set_led()
        return sent

    def _set_led(self) -> None:
        """The ROLL LED: lit when ROLL is the thing to press, blinking once a turn's
        time has run out."""
        if self.board is not None:
            blinking = self.timer.led()
            self.board.set_led(self.screen.roll_ready and not self.blanked
                               if blinking is None else blinking)

    def _frame(self) -> None:
        if self.on_frame is not None:
            self.on_frame(self.visible())


def _half_lit(image: Image.Image) -> Image.Image:
    """``image`` with every other pixel off, in a checkerboard: a dimmed panel as a
    one-bit picture (the real panel dims by contrast)."""
    mask = Image.new("1", image.size)
    mask.putdata([255 * ((x + y) % 2) for y in range(image.height) for x in range(image.width)])
    return Image.composite(image, Image.new("1", image.size), mask)
