"""``companion selftest`` on mock pins: a person presses what the screen asks for."""

import io
import queue

from companion.clock import ManualClock
from companion.config import Config, Display
from companion.device.board import SimBoard
from companion.device.display import Panel, RecordingSerial, open_device
from companion.selftest import pattern_picture, run_selftest


def rig():
    clock = ManualClock()
    edges = queue.Queue()
    config = Config()
    board = SimBoard(config.buttons, config.buzzer.pin, config.led.pin,
                     sink=lambda *edge: edges.put(edge), clock=clock)
    panel = Panel(open_device(Display(), serial=RecordingSerial()))
    return config, board, panel, edges, clock


def person(board, clock, answers):
    """Presses the button the screen asks for, or what ``answers`` says instead."""

    def press(asked):
        pressed = answers.get(asked, asked)
        if pressed is None:
            return
        board.press(pressed)
        clock.advance(0.1)
        board.release(pressed)

    return press


def test_every_button_answers():
    config, board, panel, edges, clock = rig()
    out = io.StringIO()
    try:
        status = run_selftest(config, board, panel, edges, clock, out,
                              prompted=person(board, clock, {}))
    finally:
        board.close()
    assert status == 0
    report = out.getvalue()
    assert "display   ok" in report and "all buttons answered" in report
    assert board.beeps == 1
    for name, pin in config.buttons.pins().items():
        assert f"{name:<9} ok   GPIO{pin}" in report


def test_a_dead_and_a_swapped_button_are_named():
    config, board, panel, edges, clock = rig()
    out = io.StringIO()
    try:
        status = run_selftest(config, board, panel, edges, clock, out, wait=0,
                              prompted=person(board, clock, {"down": None, "ok": "back"}))
    finally:
        board.close()
    report = out.getvalue()
    assert status == 1
    assert "down      NOT PRESSED in 0 s   GPIO6" in report
    assert "ok        WRONG: got BACK (GPIO19), check GPIO13" in report
    assert "2 button(s) to check" in report


def test_the_pattern_lights_every_edge_pixel():
    image = pattern_picture()
    edges = [(x, 0) for x in range(128)] + [(x, 63) for x in range(128)]
    edges += [(0, y) for y in range(64)] + [(127, y) for y in range(64)]
    assert all(image.getpixel(point) for point in edges)
