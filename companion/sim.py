"""The simulator: the same app on gpiozero mock pins, drawn in the terminal or as PNGs.

Interactive (``companion sim``): the 128x64 screen is drawn with braille characters
(2x4 pixels each, 64x16 characters) and keys act as the five buttons.

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
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from companion.app import App
from companion.clock import ManualClock, monotonic
from companion.config import Config
from companion.device.buttons import BUTTONS, Press
from companion.errors import CompanionError, ScriptError
from companion.launch import make_app, serial_console
from companion.ui.screen import Context, Screen

#: How long a scripted short press holds the button down (longer than any bounce).
PRESS_SECONDS = 0.1
#: How long a finger is off the button between scripted presses: past the release's
#: debounce window, so the next press (a HOLD of the same button) starts at once.
GAP_SECONDS = 0.05
#: Animations longer than this are not waited for after a step.
SETTLE_LIMIT = 5.0


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
                raise ScriptError(f"line {number}: WAIT takes seconds from 0 to 86400: {raw!r}")
            steps.append(Step(number, f"WAIT {words[1]}", seconds=seconds))
        else:
            raise ScriptError(
                f"line {number}: not a step: {raw.strip()!r} "
                "(steps: UP, DOWN, OK, BACK, ROLL, HOLD <BUTTON>, WAIT <secs>)"
            )
    return steps


def sim_panel():
    """A Panel on luma's dummy device: the frames land in memory."""
    from luma.core.device import dummy

    from companion.device.display import Panel

    return Panel(dummy(width=128, height=64, mode="1"))


def sim_board_factory(*args, **kwargs):
    from companion.device.board import SimBoard

    return SimBoard(*args, **kwargs)


class ScriptRunner:
    """Runs script steps against an app on mock pins and a manual clock."""

    def __init__(self, app: App, clock: ManualClock, hold_time: float):
        self.app = app
        self.clock = clock
        self.hold_time = hold_time

    def run(self, step: Step) -> None:
        if step.button:
            self.app.board.press(step.button)
            self.app.pump()
            self.advance(self.hold_time if step.long else PRESS_SECONDS)
            self.app.board.release(step.button)
            self.app.pump()
            self.advance(GAP_SECONDS)
            self.settle()
        else:
            self.advance(step.seconds)

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
        while self.app.tick_at is not None and waited < SETTLE_LIMIT:
            step = max(0.0, self.app.tick_at - self.clock())
            self.advance(step)
            waited += step


def _print_event(event: dict, out: TextIO) -> None:
    out.write("event " + json.dumps(event, separators=(",", ":")) + "\n")
    out.flush()


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
) -> int:
    """Run a script; 0 when it ran, 2 for a script error (message on stderr).

    With ``log_events`` every event is printed as ``event {json}`` (and flushed) right
    after it is committed, so a test can check that nothing printed is ever lost.
    """
    out = out or sys.stdout
    try:
        text = Path(script_path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ScriptError(f"cannot read the script {script_path}: {err}") from None
    steps = parse_script(text)
    clock = ManualClock()
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(), clock=clock,
                   seed=seed, root=root, state_dir=state_dir)
    writer = None
    if png_dir:
        from companion.device.terminal import PngWriter

        writer = PngWriter(png_dir)
    if log_events:
        app.ctx.listeners.append(
            lambda session, event, undone=False: undone or _print_event(event, out))
    runner = ScriptRunner(app, clock, config.buttons.hold_time)
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
    return 0


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
) -> int:
    """The terminal simulator: braille screen, keys as buttons, until ``q``; with
    ``serial_url`` the serial console (:mod:`companion.link`) drives it too."""
    stdin, out = stdin or sys.stdin, out or sys.stdout
    from companion.device.terminal import KeyReader, PngWriter, TerminalScreen, raw_terminal

    if not stdin.isatty():
        raise CompanionError("companion sim needs a terminal to draw in; "
                             "use --script FILE for a run without one")
    terminal = TerminalScreen(stream=out)
    writer = PngWriter(png_dir) if png_dir else None

    def on_frame(image) -> None:
        terminal.draw(image)
        if writer is not None:
            writer.write(image)

    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(), clock=monotonic,
                   seed=seed, root=root, on_frame=on_frame, state_dir=state_dir)
    fd = stdin.fileno()
    keys = KeyReader()
    hold = config.buttons.hold_time

    def press_pins(press: Press) -> None:
        # A key is an instant: hold the mock pin down as long as a finger would.
        app.board.press(press.button)
        time.sleep(hold + 0.1 if press.long else max(0.05, config.buttons.bounce_time * 2))
        app.board.release(press.button)

    def read_keys() -> None:
        while app.running:
            try:
                data = os.read(fd, 64)
            except OSError:
                data = b""
            if not data:
                app.quit()
                return
            for item in keys.feed(data):
                if item == "quit":
                    app.quit()
                    return
                threading.Thread(target=press_pins, args=(item,), daemon=True).start()

    with raw_terminal(fd):
        threading.Thread(target=read_keys, daemon=True).start()
        try:
            with serial_console(app, serial_url, serial_baud):
                app.run()
        finally:
            app.board.close()
            terminal.close()
    return 0
