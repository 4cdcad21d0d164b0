"""Buttons: the pure press decoder (short/long, debounce, deadlines) and the gpiozero
board on mock pins. No sleeps: time comes from a ManualClock."""

from __future__ import annotations

import doctest
import time

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.clock import ManualClock
from companion.config import Buttons, Config
from companion.device import board as board_module
from companion.device import buttons as buttons_module
from companion.device.board import Board, SimBoard
from companion.device.buttons import BUTTONS, ButtonDecoder, Press
from companion.errors import BoardError, CompanionError
from companion.launch import make_app
from companion.sim import sim_panel
from tests.press_log import PressLog

HOLD = 0.8
BOUNCE = 0.02


def decoder() -> ButtonDecoder:
    return ButtonDecoder(hold_time=HOLD, bounce_time=BOUNCE)


def test_doctests() -> None:
    for module in (buttons_module, board_module):
        assert doctest.testmod(module).failed == 0


# --- decoder ---------------------------------------------------------------------


def test_short_press_is_reported_on_release() -> None:
    d = decoder()
    assert d.edge("ok", True, 10.0) == []
    assert d.is_down("ok")
    assert d.edge("ok", False, 10.3) == [Press("ok")]
    assert not d.is_down("ok")
    assert d.next_deadline() is None


def test_long_press_is_reported_when_held_and_release_is_silent() -> None:
    d = decoder()
    d.edge("roll", True, 1.0)
    assert d.next_deadline() == pytest.approx(1.8)
    assert d.due(1.79) == []
    assert d.due(1.8) == [Press("roll", long=True)]
    assert d.due(5.0) == []  # reported once, however long it is held
    assert d.next_deadline() is None
    assert d.edge("roll", False, 6.0) == []
    assert d.next_deadline() is None


def test_held_just_under_hold_time_is_short() -> None:
    d = decoder()
    d.edge("up", True, 0.0)
    assert d.edge("up", False, HOLD - 0.001) == [Press("up")]


def test_release_exactly_at_hold_time_is_long() -> None:
    d = decoder()
    d.edge("up", True, 0.0)
    # the hold timer falls due at the release instant and fires first, even when the
    # app never called due(): edge() settles timers before the edge
    assert d.edge("up", False, HOLD) == [Press("up", long=True)]


def test_late_due_call_still_reports_long_before_release() -> None:
    d = decoder()
    d.edge("back", True, 0.0)
    assert d.edge("back", False, 3.0) == [Press("back", long=True)]


def test_buttons_are_independent() -> None:
    d = decoder()
    d.edge("up", True, 0.0)
    d.edge("down", True, 0.5)
    assert d.next_deadline() == pytest.approx(HOLD)
    assert d.edge("down", False, 0.6) == [Press("down")]
    assert d.due(HOLD) == [Press("up", long=True)]
    assert d.is_down("up") and not d.is_down("down")


def test_timers_fire_in_time_order_across_buttons() -> None:
    d = decoder()
    d.edge("ok", True, 0.2)
    d.edge("up", True, 0.1)
    assert d.due(10) == [Press("up", long=True), Press("ok", long=True)]


def test_unknown_button_is_a_value_error() -> None:
    d = decoder()
    with pytest.raises(ValueError, match="unknown button 'left'"):
        d.edge("left", True, 0.0)
    with pytest.raises(ValueError):
        d.is_down("left")


def test_bad_timings_are_refused() -> None:
    with pytest.raises(ValueError):
        ButtonDecoder(hold_time=0, bounce_time=0.01)
    with pytest.raises(ValueError):
        ButtonDecoder(hold_time=1, bounce_time=-0.01)


def test_custom_button_names() -> None:
    d = ButtonDecoder(1.0, 0.0, buttons=("a", "b"))
    assert d.buttons == ("a", "b")
    d.edge("a", True, 0)
    assert d.edge("a", False, 0.1) == [Press("a")]


def test_repeated_level_is_not_an_edge() -> None:
    d = decoder()
    d.edge("ok", True, 0.0)
    assert d.edge("ok", True, 0.5) == []  # a missed release cannot invent a press
    assert d.next_deadline() == pytest.approx(HOLD)  # the hold still runs from 0.0


def test_bounce_at_press_and_release_gives_one_press() -> None:
    d = decoder()
    out = []
    for level, t in [(True, 0.0), (False, 0.002), (True, 0.004), (False, 0.009), (True, 0.012)]:
        out += d.edge("ok", level, t)
    assert d.next_deadline() == pytest.approx(HOLD)  # settled where it was accepted
    for level, t in [(False, 0.3), (True, 0.303), (False, 0.305)]:
        out += d.edge("ok", level, t)
    out += d.due(1.0)
    assert out == [Press("ok")]


def test_tap_shorter_than_the_bounce_window_is_reconciled() -> None:
    d = decoder()
    d.edge("ok", True, 0.0)
    assert d.edge("ok", False, 0.01) == []  # inside the window: ignored for now...
    assert d.next_deadline() == pytest.approx(BOUNCE)  # ...but due at the window's end
    assert d.due(BOUNCE) == [Press("ok")]
    assert not d.is_down("ok")
    assert d.next_deadline() is None


def test_release_bounce_that_settles_pressed_is_reconciled() -> None:
    d = decoder()
    d.edge("roll", True, 0.0)
    assert d.edge("roll", False, 0.1) == [Press("roll")]  # accepted release
    assert d.edge("roll", True, 0.105) == []  # closed again within the window
    assert d.next_deadline() == pytest.approx(0.1 + BOUNCE)
    assert d.due(0.1 + BOUNCE) == []  # reconciled: a new press starts at window end
    assert d.is_down("roll")
    assert d.next_deadline() == pytest.approx(0.1 + BOUNCE + HOLD)
    assert d.edge("roll", False, 0.5) == [Press("roll")]


def test_reconciliation_happens_before_a_later_edge() -> None:
    d = decoder()
    d.edge("ok", True, 0.0)
    d.edge("ok", False, 0.01)  # in the window; nobody calls due()
    # the next edge comes long after: the release at the window end is accepted first
    assert d.edge("ok", True, 1.0) == [Press("ok")]
    assert d.is_down("ok")


def test_no_deadline_for_a_window_that_settled_where_it_started() -> None:
    d = decoder()
    d.edge("up", True, 0.0)
    d.edge("up", False, 0.005)
    d.edge("up", True, 0.01)
    assert d.next_deadline() == pytest.approx(HOLD)  # only the hold timer


def test_zero_bounce_time_accepts_every_edge() -> None:
    d = ButtonDecoder(hold_time=HOLD, bounce_time=0)
    assert d.edge("ok", True, 0) == []
    assert d.edge("ok", False, 0) == [Press("ok")]


# A person presses buttons; each real transition comes with a burst of contact bounce
# shorter than the bounce window. Whatever the bursts, the presses decoded are the
# person's presses, classified by how long they really held the button.
@st.composite
def bouncy_presses(draw: st.DrawFn) -> tuple[list[tuple[str, bool, float]], list[Press], float]:
    t = 0.0
    edges: list[tuple[str, bool, float]] = []
    expected: list[Press] = []
    for _ in range(draw(st.integers(1, 6))):
        button = draw(st.sampled_from(BUTTONS))
        t += draw(st.floats(BOUNCE * 1.5, 2.0))
        # held durations well clear of hold_time so float noise cannot flip the class
        held = draw(st.one_of(st.floats(BOUNCE * 1.5, HOLD - 0.01), st.floats(HOLD + 0.01, 3.0)))
        for level, start in ((True, t), (False, t + held)):
            edges.append((button, level, start))
            offsets = sorted(draw(st.lists(st.floats(0.0001, BOUNCE * 0.99), max_size=6)))
            if len(offsets) % 2:  # an even number of extra edges ends at the real level
                offsets.pop()
            for i, offset in enumerate(offsets):
                edges.append((button, level if i % 2 else not level, start + offset))
        expected.append(Press(button, long=held >= HOLD))
        t += held
    return edges, expected, t + 10


def run_app_loop(d: ButtonDecoder, edges: list[tuple[str, bool, float]], end: float) -> list:
    """What the app does: sleep until the next edge or the next deadline."""
    out = []
    for button, level, t in edges:
        while (deadline := d.next_deadline()) is not None and deadline <= t:
            out += d.due(deadline)
        out += d.edge(button, level, t)
    while (deadline := d.next_deadline()) is not None and deadline <= end:
        out += d.due(deadline)
    return out


@settings(max_examples=200, deadline=None)
@given(bouncy_presses())
def test_bouncing_presses_decode_to_the_real_presses(case) -> None:
    edges, expected, end = case
    assert run_app_loop(decoder(), edges, end) == expected


@settings(max_examples=200, deadline=None)
@given(bouncy_presses())
def test_lazy_app_gets_the_same_presses(case) -> None:
    # an app that never calls due() between edges still gets every press, in order
    edges, expected, end = case
    d = decoder()
    out = []
    for button, level, t in edges:
        out += d.edge(button, level, t)
    out += d.due(end)
    assert out == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(BUTTONS), st.booleans(), st.floats(0, 0.5))))
def test_any_edge_soup_is_consistent(steps) -> None:
    # arbitrary edges: never a crash, deadlines are in the future of what was processed,
    # and once everything settles each button's level is its last raw level
    d = decoder()
    t = 0.0
    last: dict[str, bool] = {}
    for button, level, dt in steps:
        t += dt
        d.edge(button, level, t)
        last[button] = level
        deadline = d.next_deadline()
        assert deadline is None or deadline > t - 1e-9
    d.due(t + BOUNCE * 2 + HOLD)
    for button, level in last.items():
        assert d.is_down(button) == level


# --- board on mock pins ----------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.edges: list[tuple[str, bool, float]] = []

    def __call__(self, button: str, pressed: bool, now: float) -> None:
        self.edges.append((button, pressed, now))


def test_mock_pin_press_reaches_the_sink(mock_factory: MockFactory) -> None:
    clock, sink = ManualClock(5.0), Recorder()
    board = SimBoard(Buttons(), sink=sink, clock=clock, pin_factory=mock_factory)
    board.press("ok")
    clock.advance(0.25)
    board.release("ok")
    assert sink.edges == [("ok", True, 5.0), ("ok", False, 5.25)]
    board.close()


def test_configured_pins_are_used_with_pull_ups(mock_factory: MockFactory) -> None:
    sink = Recorder()
    pins = Buttons(up=17, down=22, ok=23, back=27, roll=4)
    board = Board(pins, sink=sink, clock=lambda: 0.0, pin_factory=mock_factory)
    for name, number in pins.pins().items():
        pin = mock_factory.pin(number)
        assert pin.pull == "up"
        assert pin.bounce is None  # debounce is ours, not gpiozero's
        pin.drive_low()
        assert board.is_pressed(name)
        pin.drive_high()
    assert [e[:2] for e in sink.edges] == [
        (name, level) for name in BUTTONS for level in (True, False)
    ]
    board.close()


def test_each_button_reports_its_own_name(mock_factory: MockFactory) -> None:
    sink = Recorder()
    board = SimBoard(Buttons(), sink=sink, clock=lambda: 0.0, pin_factory=mock_factory)
    for name in BUTTONS:
        board.press(name)
    assert [e[0] for e in sink.edges] == list(BUTTONS)
    board.close()


def test_simboard_makes_its_own_factory_by_default() -> None:
    sink = Recorder()
    board = SimBoard(Buttons(), sink=sink, clock=lambda: 1.0)
    board.press("roll")
    assert sink.edges == [("roll", True, 1.0)]
    board.close()


def test_board_press_decodes_through_the_decoder(mock_factory: MockFactory) -> None:
    clock, d = ManualClock(), decoder()
    presses: list[Press] = []
    board = SimBoard(
        Buttons(),
        sink=lambda b, p, t: presses.extend(d.edge(b, p, t)),
        clock=clock,
        pin_factory=mock_factory,
    )
    board.press("roll")
    clock.advance(0.1)
    board.release("roll")
    board.press("up")
    clock.advance(HOLD)
    presses += d.due(clock())
    board.release("up")
    assert presses == [Press("roll"), Press("up", long=True)]
    board.close()


def test_bouncing_pin_gives_exactly_one_press(mock_factory: MockFactory) -> None:
    clock, sink = ManualClock(), Recorder()
    board = SimBoard(Buttons(), sink=sink, clock=clock, pin_factory=mock_factory)
    for _ in range(3):
        board.bounce("ok", True, 1)
        clock.advance(0.003)
        board.bounce("ok", False, 1)
        clock.advance(0.003)
    board.bounce("ok", True, 1)
    clock.advance(0.2)
    board.bounce("ok", False, 5)  # a burst at one instant, ending released
    clock.advance(0.004)
    board.bounce("ok", True, 2)  # a late bounce: closed...
    clock.advance(0.004)
    board.bounce("ok", False, 1)  # ...and open again, all inside the window
    assert len(sink.edges) > 10
    d = decoder()
    presses = run_app_loop(d, sink.edges, clock() + 1)
    assert presses == [Press("ok")]
    board.close()


def test_bounce_settling_opposite_is_reconciled_from_the_pin(mock_factory: MockFactory) -> None:
    clock, sink = ManualClock(), Recorder()
    board = SimBoard(Buttons(), sink=sink, clock=clock, pin_factory=mock_factory)
    board.press("back")
    clock.advance(0.005)
    board.bounce("back", False, 3)  # released (and bouncing) within the window
    d = decoder()
    presses = run_app_loop(d, sink.edges, clock() + 1)
    assert presses == [Press("back")]  # the release was not lost
    assert not board.is_pressed("back")
    board.close()


def test_bounce_needs_an_edge(mock_factory: MockFactory) -> None:
    board = SimBoard(Buttons(), sink=Recorder(), pin_factory=mock_factory)
    with pytest.raises(ValueError):
        board.bounce("ok", True, 0)
    with pytest.raises(ValueError):
        board.press("left")
    with pytest.raises(ValueError):
        board.is_pressed("left")
    board.close()


def test_beep_and_led(mock_factory: MockFactory) -> None:
    board = SimBoard(
        Buttons(), buzzer_pin=12, led_pin=16, sink=Recorder(), pin_factory=mock_factory
    )
    started = time.perf_counter()
    board.beep(5.0)  # a long beep must return at once: gpiozero times it on its thread
    assert time.perf_counter() - started < 1.0
    assert board.beeps == 1
    board.set_led(True)
    assert board.led_lit and mock_factory.pin(16).state == 1
    board.set_led(False)
    assert not board.led_lit and mock_factory.pin(16).state == 0
    board.close()  # stops the beep
    assert mock_factory.pin(12).state == 0


def test_no_buzzer_no_led_is_fine(mock_factory: MockFactory) -> None:
    board = SimBoard(Buttons(), sink=Recorder(), pin_factory=mock_factory)
    board.beep()
    board.set_led(True)
    assert board.beeps == 1 and board.led_lit  # what the app asked for, for the simulator
    board.close()


def test_close_releases_the_pins(mock_factory: MockFactory) -> None:
    with SimBoard(Buttons(), 12, 16, sink=Recorder(), pin_factory=mock_factory):
        pass
    again = SimBoard(Buttons(), 12, 16, sink=Recorder(), pin_factory=mock_factory)
    again.close()
    again.close()  # twice is fine


def test_a_taken_pin_is_a_board_error_and_nothing_leaks(mock_factory: MockFactory) -> None:
    first = SimBoard(Buttons(), sink=Recorder(), pin_factory=mock_factory)
    # UP on the free GPIO12 opens, then DOWN on GPIO6 clashes with the first board
    with pytest.raises(BoardError, match="DOWN button on GPIO6") as info:
        SimBoard(Buttons(up=12), sink=Recorder(), pin_factory=mock_factory)
    assert isinstance(info.value, CompanionError)
    first.close()
    # the failed board released GPIO12 again
    SimBoard(Buttons(), buzzer_pin=12, sink=Recorder(), pin_factory=mock_factory).close()


# --- presses as fast as the debounce allows ------------------------------------------


# Taps of one button back to back, each down and each up phase at least bounce_time:
# the fastest a contact can go and still be told from bounce. Every tap counts.
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(BUTTONS), st.floats(BOUNCE, HOLD * 0.99),
                          st.floats(BOUNCE, 0.2)), min_size=1, max_size=30))
def test_every_press_at_least_a_bounce_window_long_is_counted(taps) -> None:
    d = decoder()
    t, edges = 0.0, []
    for button, down, up in taps:
        edges += [(button, True, t), (button, False, t + down)]
        t += down + up
    assert run_app_loop(d, edges, t + 10) == [Press(button) for button, _, _ in taps]


def test_a_press_and_release_inside_one_bounce_window_is_one_press() -> None:
    # The documented limit (docs/buttons.md): on the pin this is exactly what bounce
    # looks like, so a second tap this fast cannot be counted.
    d = decoder()
    edges = [("ok", True, 0.0), ("ok", False, 0.005), ("ok", True, 0.01), ("ok", False, 0.1)]
    assert run_app_loop(d, edges, 5) == [Press("ok")]


def test_a_release_waiting_in_the_queue_keeps_a_short_press_short() -> None:
    # The app thread was busy (a slow write) for five seconds while a short press came
    # and went: both edges wait in its queue. The long-press timer must not run first.
    clock = ManualClock()
    log = PressLog()
    app = make_app(Config(), board_factory=SimBoard, panel=sim_panel(), clock=clock,
                   root=lambda ctx: log)
    try:
        app.board.press("ok")
        clock.advance(0.1)
        app.board.release("ok")
        app.quit()
        clock.advance(5)
        app.run()
    finally:
        app.board.close()
    assert log.presses == [Press("ok")]
