"""``companion selftest``: check a freshly soldered device, one part at a time.

The display shows a test pattern (every pixel at the edges, a checkerboard, big text);
the buzzer beeps; then the screen names each button in turn and waits for it. A person
checking their wiring sees at once which button is dead, or which two are swapped::

    display   ok   ssd1306, I2C bus 1 at 0x3C
    buzzer    beeped on GPIO12: did you hear it?
    up        ok   GPIO5
    down      NOT PRESSED in 10 s   GPIO6
    ok        WRONG: got BACK (GPIO19), check GPIO13
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Any, TextIO

from PIL import Image

from companion.clock import Clock
from companion.config import BUTTON_NAMES, Config
from companion.device.buttons import ButtonDecoder
from companion.ui.canvas import HEIGHT, WIDTH, Canvas


def pattern_picture() -> Image.Image:
    """A border on every edge pixel, a checkerboard block, and text of both sizes."""
    canvas = Canvas()
    canvas.frame((0, 0, WIDTH - 1, HEIGHT - 1))
    for x in range(4, 36, 2):
        for y in range(4, 36, 2):
            if (x + y) % 4 == 0:
                canvas.draw.rectangle((x, y, x + 1, y + 1), fill=1)
    canvas.big_text(44, 6, "TEST")
    canvas.text(44, 34, "companion selftest")
    canvas.text(4, 48, "every edge pixel lit?")
    return canvas.image


def prompt_picture(button: str, number: int, seconds: float) -> Image.Image:
    canvas = Canvas()
    canvas.title(f"Button {number} of {len(BUTTON_NAMES)}")
    canvas.text(2, 14, "Press")
    canvas.big_text(2, 26, button.upper())
    canvas.hint(f"waiting {seconds:g} s")
    return canvas.image


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
) -> int:
    """Run the checks; 0 when every button answered, 1 otherwise.

    ``edges`` is the queue the board's sink fills with (button, pressed, time);
    ``prompted`` is called after each prompt is on the screen (tests press the pin).
    """
    d = config.display
    where = f"I2C bus {d.i2c_port} at 0x{d.i2c_address:02X}" if d.interface == "i2c" else "SPI"
    panel.show(pattern_picture())
    shown = "ok" if not getattr(panel, "lost", False) else "NOT ANSWERING"
    out.write(f"display   {shown}   {d.driver}, {where}\n")
    board.beep(0.3)
    if config.buzzer.pin:
        out.write(f"buzzer    beeped on GPIO{config.buzzer.pin}: did you hear it?\n")
    else:
        out.write("buzzer    none configured\n")
    decoder = ButtonDecoder(config.buttons.hold_time, config.buttons.bounce_time)
    pins = config.buttons.pins()
    failures = 0
    for number, button in enumerate(BUTTON_NAMES, start=1):
        board.set_led(button == "roll")
        panel.show(prompt_picture(button, number, wait))
        if prompted is not None:
            prompted(button)
        got = _first_press(decoder, edges, clock, wait)
        if got == button:
            out.write(f"{button:<9} ok   GPIO{pins[button]}\n")
        elif got is None:
            failures += 1
            out.write(f"{button:<9} NOT PRESSED in {wait:g} s   GPIO{pins[button]}\n")
        else:
            failures += 1
            out.write(f"{button:<9} WRONG: got {got.upper()} (GPIO{pins[got]}), "
                      f"check GPIO{pins[button]}\n")
        out.flush()
    board.set_led(False)
    verdict = "all buttons answered" if not failures else f"{failures} button(s) to check"
    canvas = Canvas()
    canvas.title("Selftest done")
    canvas.line(1, verdict, center=True)
    panel.show(canvas.image)
    out.write(verdict + "\n")
    return 0 if not failures else 1


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
