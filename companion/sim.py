"""The simulator: the same app on gpiozero mock pins, drawn in the terminal or as PNGs.

Interactive (``companion sim``): the 128x64 screen is drawn with braille characters
(2x4 pixels each, 64x16 characters) and keys act as the five buttons: each key is one
whole press through the mock pins, played in the order typed however fast the keys
come (:class:`KeyPlayer`, :class:`PressPlayer`).

Scripted (``companion sim --script FILE``): each line of FILE is a step — ``UP``,
``DOWN``, ``OK``, ``BACK``, ``ROLL``, ``HOLD <BUTTON>`` (long press) or ``WAIT <secs>`` —
pressed on the mock pins under a manual clock, so a script runs the same on any
machine. With ``--screens text`` each step prints ``--- step N: <STEP>`` and then the
screen as 64 rows of 128 characters (``#`` lit, ``.`` dark)::

    # roll two dice
    DOWN
    DOWN
    DOWN
    DOWN
    DOWN
    OK
    OK
    ROLL
"""

from __future__ import annotations

import json
import os
import queue
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from companion.app import App
from companion.clock import Clock, ManualClock, monotonic
from companion.config import Config
from companion.device.buttons import BUTTONS, Press
from companion.errors import CompanionError, ScriptError, UnreadableFile
from companion.files import read_text_file
from companion.lang import N_, _, ngettext
from companion.launch import (
    backup_keeper,
    close_voice,
    club_link,
    make_app,
    serial_console,
    warm_history,
    web_page,
)
from companion.logs import SIM_LOG, logging_to
from companion.ui.screen import Context, Screen

#: How long a scripted short press holds the button down (longer than any bounce).
PRESS_SECONDS = 0.1
#: How long a finger is off the button between scripted presses: past the release's
#: debounce window, so the next press (a HOLD of the same button) starts at once.
GAP_SECONDS = 0.05
#: How long a key typed in the terminal holds its button down, and rests after it.
KEY_PRESS_SECONDS = 0.05
#: Animations longer than this are not waited for after a step.
SETTLE_LIMIT = 5.0
#: A script file larger than this is refused (a whole long game is a few KB).
SCRIPT_MAX = 1 << 20
#: Under the simulated screen while the buzzer sounds (a desktop has no buzzer).
BUZZER_MARK = "((( buzzer )))"


@dataclass(frozen=True)
class Step:
    """One script line: a press, a long press or a wait."""

    line: int
    text: str
    button: str = ""
    long: bool = False
    seconds: float = 0.0


def parse_script(text: str) -> list[Step]:
    """The steps of a script; :class:`ScriptError` names the first bad line."""
    steps = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        verb = words[0].upper()
        if verb.lower() in BUTTONS and len(words) == 1:
            steps.append(Step(number, verb, verb.lower()))
        elif verb == "HOLD" and len(words) == 2 and words[1].lower() in BUTTONS:
            steps.append(Step(number, f"HOLD {words[1].upper()}", words[1].lower(), long=True))
        elif verb == "WAIT" and len(words) == 2:
            try:
                seconds = float(words[1])
            except ValueError:
                seconds = -1.0
            if not 0 <= seconds <= 86_400:
                raise ScriptError(_("line {number}: WAIT takes seconds from 0 to 86400: "
                                    "{line}").format(number=number, line=repr(raw)))
            steps.append(Step(number, f"WAIT {words[1]}", seconds=seconds))
        else:
            # Translators: the steps are typed as they are: keep UP, DOWN, OK, BACK,
            # ROLL, HOLD and WAIT in English (<BUTTON> and <secs> may be translated).
            raise ScriptError(_(
                "line {number}: not a step: {line} "
                "(steps: UP, DOWN, OK, BACK, ROLL, HOLD <BUTTON>, WAIT <secs>)"
            ).format(number=number, line=repr(raw.strip())))
    return steps


def sim_panel():
    """A Panel on luma's dummy device: the frames land in memory."""
    from luma.core.device import dummy

    from companion.device.display import Panel

    return Panel(dummy(width=128, height=64, mode="1"))


def sim_board_factory(*args, **kwargs):
    from companion.device.board import SimBoard

    return SimBoard(*args, **kwargs)


class PressPlayer:
    """Plays whole presses through the board's mock pins, one after another.

    A key is an instant, a press is not: the pin goes down, stays down as long as a
    finger would (longer than ``hold_time`` for a long press), comes up, and stays up for
    ``gap_seconds`` before the next press starts. One player plays every press in the
    order given, so presses never overlap: ten DOWNs typed at once are ten presses, and
    a long OK followed at once by a short OK is exactly that. ``wait(seconds)`` lets the
    time pass on the app's clock: a real sleep on the monotonic clock, or moving a
    manual clock. Every edge travels board -> gpiozero -> decoder, as on the device.

    The time up is at least twice ``bounce_time`` and a short press at least twice
    ``bounce_time`` too, but never as long as ``hold_time`` (a config keeps bounce_time
    under hold_time), so the decoder never takes a press or a gap for contact bounce and
    never takes a short press for a long one. A long press is held ``hold_time`` plus
    ``long_extra``.
    """

    def __init__(self, board: Any, wait: Callable[[float], None], *, hold_time: float,
                 bounce_time: float = 0.0, press_seconds: float = PRESS_SECONDS,
                 gap_seconds: float = GAP_SECONDS, long_extra: float = 0.0):
        self.board = board
        self.wait = wait
        self.press_seconds = min(max(press_seconds, 2 * bounce_time),
                                 (bounce_time + hold_time) / 2)
        self.gap_seconds = max(gap_seconds, 2 * bounce_time)
        self.hold_seconds = hold_time + long_extra

    def play(self, press: Press) -> None:
        """Press, hold, release and rest: the whole press, before anything else."""
        self.board.press(press.button)
        self.wait(self.hold_seconds if press.long else self.press_seconds)
        self.board.release(press.button)
        self.wait(self.gap_seconds)


class ScriptRunner:
    """Runs script steps against an app on mock pins and a manual clock."""

    def __init__(self, app: App, clock: ManualClock, hold_time: float, bounce_time: float = 0.0):
        self.app = app
        self.clock = clock
        # A HOLD lasts exactly hold_time: the long press is reported at that moment.
        self.player = PressPlayer(app.board, self._pump_and_advance, hold_time=hold_time,
                                  bounce_time=bounce_time)

    def run(self, step: Step) -> None:
        if step.button:
            self.player.play(Press(step.button, step.long))
            self.settle()
        else:
            self.advance(step.seconds)

    def _pump_and_advance(self, seconds: float) -> None:
        # The edge just made is handled at the moment it happened, then time moves on.
        self.app.pump()
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        """Move the manual clock, stopping at every deadline on the way."""
        end = self.clock() + seconds
        while True:
            deadline = self.app.next_deadline()
            if deadline is None or deadline > end:
                break
            self.clock.now = max(self.clock.now, deadline)
            self.app.pump()
        self.clock.now = end
        self.app.pump()

    def settle(self) -> None:
        """Let an animation finish, so the printed screen is the settled one."""
        waited = 0.0
        if getattr(self.app.screen, "ticks_on", False):
            return  # a countdown (the sand timer): it never settles
        while self.app.tick_at is not None and waited < SETTLE_LIMIT:
            step = max(0.0, self.app.tick_at - self.clock())
            self.advance(step)
            waited += step


class KeyPlayer:
    """Keys typed in the terminal, played as whole presses in the order they were typed.

    A reader thread only reads bytes, decodes them (:class:`KeyReader`) and queues what
    they mean; one player thread takes them off the queue and plays each press through
    the pins (:class:`PressPlayer`) before the next. Typing faster than presses can be
    played makes a queue, never a lost or merged press. ``q`` (and Ctrl-D) takes its
    turn too: what was typed before it happens first, then ``on_quit(True)`` is called,
    and keys are read on (the app may ask first: events not saved yet). The end of the
    input calls ``on_quit(False)``: nobody is left to answer. Ctrl-C, a signal in
    cbreak mode, stops at once.
    """

    def __init__(self, fd: int, player: PressPlayer, on_quit: Callable[[bool], None]):
        from companion.device.terminal import KeyReader

        self.fd = fd
        self.player = player
        self.on_quit = on_quit
        self.decoder = KeyReader()
        self.typed: queue.SimpleQueue[Press | str] = queue.SimpleQueue()
        self._stopping = threading.Event()
        # stop() writes here to wake the reader: it reads on after a quit key (the app
        # may ask first), and must not be left reading a terminal the caller closes.
        self._wake_read, self._wake_write = os.pipe()
        self._threads = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._play, daemon=True)]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Stop reading and playing (the press being played is finished first)."""
        self._stopping.set()
        self.typed.put("quit")  # wakes the player if it waits for keys
        os.write(self._wake_write, b"!")
        for thread in reversed(self._threads):
            if thread.ident is not None:  # started
                thread.join()
        os.close(self._wake_read)
        os.close(self._wake_write)

    def _read(self) -> None:
        while not self._stopping.is_set():
            data = self._read_chunk()
            if not data:
                if not self._stopping.is_set():
                    self.typed.put("end")
                return
            for key in self.decoder.feed(data):
                self.typed.put(key)

    def _read_chunk(self) -> bytes:
        """The bytes typed so far (b"" at the end of input). A chunk that ends in ESC is
        read on while more is already there: a lone ESC at the end is taken as the Esc
        key, so an arrow key must not be cut after its ESC when keys come fast."""
        data = b""
        try:
            if self._wake_read in select.select([self.fd, self._wake_read], [], [])[0]:
                return b""  # stop(): not the end of the input, nobody is told
            data = os.read(self.fd, 4096)
            while data.endswith(b"\x1b") and select.select([self.fd], [], [], 0)[0]:
                more = os.read(self.fd, 4096)
                if not more:
                    break
                data += more
        except OSError:
            pass  # the terminal went away: what was read is still played, then quit
        return data

    def _play(self) -> None:
        while True:
            key = self.typed.get()
            if self._stopping.is_set():
                return
            if key in ("quit", "end"):
                self.on_quit(key == "quit")
                if key == "end":
                    return
                continue
            self.player.play(key)


def event_line(event: dict, prefix: str = "event") -> str:
    """How ``--log-events`` shows an event once it is on disk: ``event {json}``."""
    return f"{prefix} " + json.dumps(event, separators=(",", ":"))


#: What ``--log-events`` prints for an event played while the log cannot take it.
NOT_SAVED = "not saved yet"


class EventLines:
    """``--log-events``: each event as ``event {json}`` once it is on disk. One played
    while the game log cannot take it (the card is full) is shown at once as
    ``not saved yet {json}``, and as ``event {json}`` when saving is back and it is
    written (:meth:`saved`); one taken back before that is never shown as on disk.
    A session listener, so it runs on the app's owner thread."""

    def __init__(self, write: Callable[[str], None]):
        self.write = write
        #: (session, the event's index in its match, the event) not on disk yet.
        self.waiting: list[tuple[Any, int, dict]] = []

    @classmethod
    def follow(cls, app: App, write: Callable[[str], None]) -> EventLines:
        """Lines for ``app``'s events, written with ``write``: told of every event and of
        saving coming back."""
        lines = cls(write)
        app.ctx.listeners.append(lines)
        app.saved_watchers.append(lines.saved)
        return lines

    def __call__(self, session: Any, event: dict, undone: bool = False) -> None:
        if undone:
            kept = len(session.match.events)
            self.waiting = [(s, i, e) for s, i, e in self.waiting
                            if s is not session or i < kept]
            return
        self.saved()  # written by a catch-up before this one
        if session.saved:
            self.write(event_line(event))
        else:
            self.waiting.append((session, len(session.match.events) - 1, event))
            self.write(event_line(event, NOT_SAVED))

    def saved(self) -> None:
        """Print the waiting events that are on disk now."""
        still = []
        for session, index, event in self.waiting:
            if session.saved and index < session.synced:
                self.write(event_line(event))
            else:
                still.append((session, index, event))
        self.waiting = still


def print_screen(image, out: TextIO) -> None:
    from companion.device.terminal import to_text

    out.write("\n".join(to_text(image)) + "\n")


def run_script(
    config: Config,
    script_path: str,
    *,
    seed: int | None = None,
    screens: str = "none",
    png_dir: str | None = None,
    root: Callable[[Context], Screen] | None = None,
    state_dir: Path | None = None,
    log_events: bool = False,
    out: TextIO | None = None,
    speech_log: Callable[[Any], None] | None = None,
) -> int:
    """Run a script; 0 when it ran, 2 for a script error (message on stderr).

    With ``log_events`` every event is printed as ``event {json}`` (and flushed) right
    after it is committed, so a test can check that nothing printed is ever lost. With
    ``speech_log`` each announcement is written there as a JSON line; a script plays no
    sound (its presses take no time: each announcement would cut the one before).
    """
    out = out or sys.stdout
    try:
        text = read_text_file(script_path, SCRIPT_MAX, N_("a script"))
    except UnreadableFile as err:  # /dev/zero, a FIFO, a directory, a huge file
        raise ScriptError(_("cannot read the script: {problem}").format(problem=err)) \
            from None
    steps = parse_script(text)
    clock = ManualClock()
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(), clock=clock,
                   seed=seed, root=root, state_dir=state_dir,
                   voice_options={"find": lambda device: None})
    _log_speech(app, speech_log)
    writer = None
    if png_dir:
        from companion.device.terminal import PngWriter

        writer = PngWriter(png_dir)
    if log_events:
        def write(line: str) -> None:
            out.write(line + "\n")
            out.flush()

        EventLines.follow(app, write)
    runner = ScriptRunner(app, clock, config.buttons.hold_time,
                          config.buttons.bounce_time)
    try:
        app.start()
        runner.settle()
        for number, step in enumerate(steps, start=1):
            runner.run(step)
            if screens == "text":
                out.write(f"--- step {number}: {step.text}\n")
                print_screen(app.visible(), out)
                out.flush()
            if writer is not None:
                writer.write(app.visible())
    finally:
        app.board.close()
        close_voice(app)
    return 0


def _log_speech(app: App, speech_log: Callable[[Any], None] | None) -> None:
    """``--speech-log``: every announcement goes to ``speech_log`` too (a JSON line)."""
    if speech_log is not None and app.ctx.speech is not None:
        app.ctx.speech.outlets.append(speech_log)


@contextmanager
def redrawn_on_resize(app: App, terminal: Any) -> Iterator[None]:
    """While inside, a change of the terminal's size redraws the screen for the new size
    (or says it is too small) at once, not at the next button press. The signal only
    starts a thread that queues the redraw: the owner thread draws, as it draws every
    frame, and a signal handler that took the queue's lock itself could wait on the
    very thread it interrupted."""
    def resized(signum: int, frame: Any) -> None:
        threading.Thread(target=app.post, args=("call", lambda app: terminal.redraw()),
                         daemon=True).start()

    if not hasattr(signal, "SIGWINCH") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGWINCH, resized)
    try:
        yield
    finally:
        signal.signal(signal.SIGWINCH, before)


def run_interactive(
    config: Config,
    *,
    seed: int | None = None,
    png_dir: str | None = None,
    root: Callable[[Context], Screen] | None = None,
    state_dir: Path | None = None,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
    serial_url: str | None = None,
    serial_baud: int = 115200,
    clock: Clock = monotonic,
    wait: Callable[[float], None] = time.sleep,
    web_listen: str | None = None,
    web_open_reads: bool = True,
    log_events: bool = False,
    speech_log: Callable[[Any], None] | None = None,
) -> int:
    """The terminal simulator: braille screen, keys as buttons, until ``q``; with
    ``serial_url`` the serial console (:mod:`companion.remote.serial`) drives it too, and
    with ``web_listen`` (``"HOST:PORT"``) the table page (:mod:`companion.remote.web`).
    With ``log_events`` each event is printed as ``event {json}`` once it is on disk,
    above the screen (which is redrawn under it), so the terminal keeps the game's log.
    What is announced is said through the host's sound when ``[speech]`` is on (and
    written to ``speech_log`` either way).

    ``clock`` and ``wait`` are the time the presses are played in (tests pass a manual
    clock and its ``advance``; see :class:`KeyPlayer`)."""
    stdin, out = stdin or sys.stdin, out or sys.stdout
    from companion.device.terminal import PngWriter, TerminalScreen, raw_terminal

    if not stdin.isatty():
        raise CompanionError(_("companion sim needs a terminal to draw in; "
                               "use --script FILE for a run without one"))
    terminal = TerminalScreen(stream=out)
    writer = PngWriter(png_dir) if png_dir else None

    def on_frame(image) -> None:
        terminal.draw(image, BUZZER_MARK if app.board is not None and app.board.buzzing
                      else "")
        if writer is not None:
            writer.write(image)

    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(), clock=clock,
                   seed=seed, root=root, on_frame=on_frame, state_dir=state_dir)
    if log_events:  # listeners run on the owner thread, the one that draws: no race
        EventLines.follow(app, terminal.print_above)
    _log_speech(app, speech_log)
    warm_history(app)
    buttons = config.buttons
    player = PressPlayer(app.board, wait, hold_time=buttons.hold_time,
                         bounce_time=buttons.bounce_time, press_seconds=KEY_PRESS_SECONDS,
                         gap_seconds=KEY_PRESS_SECONDS, long_extra=KEY_PRESS_SECONDS)
    keys = KeyPlayer(stdin.fileno(), player, lambda ask: app.quit(ask=ask))
    # The log (the page's and the club link's too) goes to a file: this terminal is the
    # OLED now, and a line printed into it would tear the picture.
    log_file = None if state_dir is None else Path(state_dir) / SIM_LOG
    with logging_to(log_file) as logged, raw_terminal(stdin.fileno()), \
            redrawn_on_resize(app, terminal):
        keys.start()
        try:
            with serial_console(app, serial_url, serial_baud), \
                    web_page(app, web_listen, open_reads=web_open_reads), \
                    club_link(app, config.club), backup_keeper(app, config.backup):
                app.run()
        finally:
            keys.stop()  # before the pins close: no press is left half played
            app.board.close()
            close_voice(app)
            terminal.close()
    say_problems(logged, log_file, sys.stderr)
    return 0


def say_problems(logged: Any, log_file: Path | None, err: TextIO) -> None:
    """At the simulator's exit: where its warnings went, or, when their file could not
    take them (it is on the card that filled up), the last of them here."""
    if not logged.problems or log_file is None:
        return
    if not logged.lost:
        print(ngettext("companion: {n} problem logged in {path}",
                       "companion: {n} problems logged in {path}", logged.problems).format(
                           n=logged.problems, path=log_file), file=err)
        return
    print(ngettext("companion: {n} problem; {path} could not take it "
                   "(its disk refused):",
                   "companion: {n} problems; {path} could not take them "
                   "(its disk refused), the last {last}:", logged.problems).format(
                       n=logged.problems, path=log_file, last=len(logged.recent)), file=err)
    for line in logged.recent:
        print(f"  {line}", file=err)
