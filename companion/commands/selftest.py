"""``companion selftest``: check a freshly soldered device, one part at a time.

The display shows a test pattern (every pixel at the edges, a checkerboard, big text);
the buzzer beeps; then the screen names each button in turn and waits for it; last the
speaker says a test phrase (eSpeak NG, ``[speech]``'s voice) and the line names the ALSA
device it played through. A person checking their wiring sees at once which button is
dead, or which two are swapped. Every part gets its line, even when another is missing,
and the verdict comes last::

    display   NOT FOUND: no display answers at 0x3C on I2C bus 1: ...
    buzzer    beeped on GPIO12: did you hear it?
    up        ok   GPIO5
    down      NOT PRESSED in 10 s   GPIO6
    ok        WRONG: got BACK (GPIO19), check GPIO13
    ...
    speaker   said a test phrase through ALSA default (card 0: bcm2835 Headphones): did you hear it?
    3 parts to check: display, down, ok

A speaker that cannot play counts as a part to check only with ``[speech] enabled``.

The installed service holds the same pins and panel, so :func:`selftest_main` first
asks systemd whether it runs: it says so in one line with the command, or, with
``--stop-service``, stops it for the test and starts it again after.
"""

from __future__ import annotations

import queue
import shutil
import subprocess
from collections.abc import Callable
from typing import Any, TextIO

from PIL import Image

from companion.clock import Clock, monotonic
from companion.config import BUTTON_NAMES, Config
from companion.device.buttons import ButtonDecoder
from companion.errors import CompanionError
from companion.lang import _, ngettext, npgettext, pgettext
from companion.ui.canvas import HEIGHT, WIDTH, Canvas

SERVICE = "companion.service"


class Service:
    """The installed companion service, as ``systemctl`` sees it.

    ``run`` is :func:`subprocess.run` (tests pass a recorder); ``systemctl`` its path
    (default: found on PATH; "" = none). Without systemctl there is no service.
    """

    def __init__(self, run: Callable[..., Any] = subprocess.run,
                 systemctl: str | None = None):
        self._run = run
        self._systemctl = shutil.which("systemctl") if systemctl is None else systemctl

    def _call(self, *args: str) -> Any:
        return self._run([self._systemctl, *args, SERVICE], capture_output=True, text=True)

    def is_active(self) -> bool:
        return bool(self._systemctl) and self._call("is-active", "--quiet").returncode == 0

    def stop(self) -> None:
        self._change("stop")

    def start(self) -> None:
        self._change("start")

    def _change(self, verb: str) -> None:
        result = self._call(verb)
        if result.returncode != 0:
            why = " ".join((result.stderr or "").split()) or \
                _("exit {status}").format(status=result.returncode)
            message = (_("cannot stop {service} ({problem}): run `sudo systemctl stop "
                         "companion` yourself") if verb == "stop" else
                       _("cannot start {service} ({problem}): run `sudo systemctl start "
                         "companion` yourself"))
            raise CompanionError(message.format(service=SERVICE, problem=why))


def pattern_picture() -> Image.Image:
    """A border on every edge pixel, a checkerboard block, and text of both sizes."""
    canvas = Canvas()
    canvas.frame((0, 0, WIDTH - 1, HEIGHT - 1))
    for x in range(4, 36, 2):
        for y in range(4, 36, 2):
            if (x + y) % 4 == 0:
                canvas.draw.rectangle((x, y, x + 1, y + 1), fill=1)
    canvas.big_text(44, 6, pgettext("screen 4", "TEST"))
    canvas.text(44, 34, "companion selftest")  # the command's name
    canvas.text(4, 48, pgettext("screen 20", "edge pixels all lit?"))
    return canvas.image


def prompt_picture(button: str, number: int, seconds: float) -> Image.Image:
    canvas = Canvas()
    canvas.title(pgettext("screen 21", "Button {number} of {total}").format(
        number=number, total=len(BUTTON_NAMES)))
    # Translators: above a button's name as printed on the device (UP, OK, ...).
    canvas.text(2, 14, pgettext("screen 21", "Press"))
    canvas.big_text(2, 26, button.upper())
    canvas.hint(pgettext("screen 21", "waiting {seconds} s").format(seconds=f"{seconds:g}"))
    return canvas.image


def selftest_main(
    config: Config,
    out: TextIO,
    *,
    wait: float = 10.0,
    stop_service: bool = False,
    service: Service | None = None,
    clock: Clock = monotonic,
) -> int:
    """``companion selftest``: mind the running service, open the parts, check them."""
    service = Service() if service is None else service
    if not service.is_active():
        return selftest_on_device(config, out, wait=wait, clock=clock)
    if not stop_service:
        raise CompanionError(_(
            "{service} is running and holds the pins and the display: stop it with "
            "`sudo systemctl stop companion` (and start it after), or run "
            "`sudo companion selftest --stop-service`"
        ).format(service=SERVICE))
    out.write(_("stopping {service} for the selftest; it starts again afterwards").format(
        service=SERVICE) + "\n")
    out.flush()
    service.stop()
    try:
        return selftest_on_device(config, out, wait=wait, clock=clock)
    finally:
        service.start()
        out.write(_("started {service} again").format(service=SERVICE) + "\n")


def selftest_on_device(config: Config, out: TextIO, *, wait: float = 10.0,
                       clock: Clock = monotonic) -> int:
    """Open the real display and pins (each may fail alone) and run :func:`run_selftest`."""
    from companion.device.board import Board
    from companion.device.display import Panel, open_device
    from companion.device.pins import open_pin_factory, pin_factory_name
    from companion.errors import DisplayError, GPIOError

    factory = board = panel = None
    board_error = display_error = None
    try:
        factory = open_pin_factory(pin_factory_name(config.gpio.pin_factory))
    except GPIOError as err:
        board_error = str(err)
    if board_error and config.display.interface == "spi":
        display_error = _("its DC and RST pins need GPIO: {problem}").format(
            problem=board_error)
    else:
        try:
            panel = Panel(open_device(config.display, pin_factory=factory))
        except DisplayError as err:
            display_error = str(err)
    edges: queue.Queue = queue.Queue()
    if board_error is None:
        try:
            board = Board(config.buttons, config.buzzer.pin, config.led.pin,
                          sink=lambda *edge: edges.put(edge), clock=clock, pin_factory=factory)
        except GPIOError as err:
            board_error = str(err)
    try:
        return run_selftest(config, board, panel, edges, clock, out, wait=wait,
                            display_error=display_error, board_error=board_error)
    finally:
        if board is not None:
            board.close()
        if factory is not None:
            factory.close()


def run_selftest(
    config: Config,
    board: Any,
    panel: Any,
    edges: queue.Queue,
    clock: Clock,
    out: TextIO,
    *,
    wait: float = 10.0,
    prompted: Callable[[str], None] | None = None,
    display_error: str | None = None,
    board_error: str | None = None,
    speaker: Callable[[Config], tuple[bool, str]] | None = None,
) -> int:
    """Check every part and print a line for each, then the verdict; 0 when all answered.

    ``panel`` None: the display could not be opened (``display_error`` says why), the
    rest is checked all the same. ``board`` None: the pins could not be opened
    (``board_error``). ``edges`` is the queue the board's sink fills with (button,
    pressed, time); ``prompted`` is called after each prompt is on the screen (tests
    press the pin). ``speaker(config)`` says the test phrase: (True, what it played
    through) or (False, why not) (:func:`check_speaker`).
    """
    failed: list[str] = []

    def show(picture: Image.Image) -> None:
        if panel is not None:
            panel.show(picture)

    def report(part: str, text: str) -> None:
        out.write(f"{part:<9} {text}\n")
        out.flush()

    d = config.display
    where = _("I2C bus {port} at {address}").format(
        port=d.i2c_port, address=f"0x{d.i2c_address:02X}") if d.interface == "i2c" else "SPI"
    show(pattern_picture())
    if panel is None:
        failed.append("display")
        report("display", _("NOT FOUND: {problem}").format(problem=display_error))
    elif getattr(panel, "lost", False):
        failed.append("display")
        report("display", _("NOT ANSWERING   {driver}, {where}").format(
            driver=d.driver, where=where))
    else:
        report("display", _("ok   {driver}, {where}").format(driver=d.driver, where=where))
    if board is None:
        failed.append("pins")
        report("pins", _("CANNOT OPEN: {problem}").format(problem=board_error))
        for part in ("buzzer", *BUTTON_NAMES):
            report(part, _("not checked (no pins)"))
    else:
        failed += _check_board(config, board, show, edges, clock, report, wait, prompted)
    played, words = (speaker or check_speaker)(config)
    if played:
        report("speaker", _("said a test phrase through {device}: did you hear it?").format(
            device=words))
    elif config.speech.enabled:
        failed.append("speaker")
        report("speaker", _("NO SOUND: {problem}").format(problem=words))
    else:
        # Translators: [speech] and enabled are written in the file as they are.
        report("speaker", _("none ([speech] enabled = false): {problem}").format(
            problem=words))
    verdict = (_("all parts answered") if not failed
               else ngettext("{n} part to check: {parts}", "{n} parts to check: {parts}",
                             len(failed)).format(n=len(failed), parts=", ".join(failed)))
    canvas = Canvas()
    canvas.title(pgettext("screen 21", "Selftest done"))
    canvas.line(1, pgettext("screen 21", "all parts answered") if not failed else
                npgettext("screen 21", "{n} to check", "{n} to check", len(failed)).format(
                    n=len(failed)), center=True)
    show(canvas.image)
    out.write(verdict + "\n")
    return 0 if not failed else 1


def check_speaker(config: Config) -> tuple[bool, str]:
    """Say the test phrase in ``[speech]``'s voice: (True, the ALSA device it played
    through, in words) or (False, why no sound came out, in one line)."""
    from companion.device.speaker import find_output, say_and_wait
    from companion.errors import SpeechProblem
    from companion.speech.say import configured_utterance

    try:
        output = find_output(config.speech.device)
    except SpeechProblem as problem:
        return False, str(problem)
    text = pgettext("spoken", "Selftest: this is the table's voice.")
    problem = say_and_wait(output, configured_utterance(config, text))
    return (False, problem) if problem else (True, output.through)


def _check_board(config: Config, board: Any, show: Callable[[Image.Image], None],
                 edges: queue.Queue, clock: Clock, report: Callable[[str, str], None],
                 wait: float, prompted: Callable[[str], None] | None) -> list[str]:
    """The buzzer, then each button in turn; the names of the buttons that failed."""
    board.beep(0.3)
    if config.buzzer.pin:
        report("buzzer", _("beeped on GPIO{pin}: did you hear it?").format(
            pin=config.buzzer.pin))
    else:
        report("buzzer", _("none configured"))
    decoder = ButtonDecoder(config.buttons.hold_time, config.buttons.bounce_time)
    pins = config.buttons.pins()
    failed = []
    for number, button in enumerate(BUTTON_NAMES, start=1):
        board.set_led(button == "roll")
        show(prompt_picture(button, number, wait))
        if prompted is not None:
            prompted(button)
        got = _first_press(decoder, edges, clock, wait)
        if got == button:
            report(button, _("ok   GPIO{pin}").format(pin=pins[button]))
            continue
        failed.append(button)
        if got is None:
            report(button, _("NOT PRESSED in {seconds} s   GPIO{pin}").format(
                seconds=f"{wait:g}", pin=pins[button]))
        else:
            # Translators: {button} is a button's name as printed on the device (BACK).
            report(button, _("WRONG: got {button} (GPIO{pin}), check GPIO{wanted}").format(
                button=got.upper(), pin=pins[got], wanted=pins[button]))
    board.set_led(False)
    return failed


def _first_press(decoder: ButtonDecoder, edges: queue.Queue, clock: Clock,
                 wait: float) -> str | None:
    """The first button pressed (short or long) within ``wait`` seconds, or None. A
    press still being decoded when the time is up gets up to a long press more."""
    end = clock() + wait
    while True:
        presses = decoder.due(clock())
        if presses:
            return presses[0].button
        pending = decoder.next_deadline()
        until = end if pending is None else min(max(end, pending), end + decoder.hold_time)
        remaining = until - clock()
        try:
            # Edges already queued count even when the time is up: they came in time.
            button, pressed, when = edges.get(timeout=remaining) if remaining > 0 \
                else edges.get_nowait()
        except queue.Empty:
            if remaining <= 0:
                return None
            continue
        presses = decoder.edge(button, pressed, when)
        if presses:
            return presses[0].button
