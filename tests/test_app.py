"""The app on mock pins with a manual clock: presses reach the screen, timers fire at
the right moments, the panel sleeps and wakes, and nothing ever sleeps for real."""

import socket

import pytest

from companion.clock import ManualClock
from companion.config import Config, Idle
from companion.launch import make_app
from companion.notify import Notifier
from companion.sim import PRESS_SECONDS, ScriptRunner, Step, sim_board_factory, sim_panel
from companion.ui.screen import Screen
from companion.ui.tools import DiceScreen


def press(runner, *buttons):
    for button in buttons:
        runner.run(Step(0, button, button.lower()))


def hold(runner, button):
    runner.run(Step(0, "HOLD " + button, button.lower(), long=True))


def test_a_mock_pin_press_of_roll_in_the_dice_tool_shows_the_rolled_faces(rig):
    app, clock, runner = rig(root=lambda ctx: DiceScreen())
    before = app.visible().tobytes()
    app.board.press("roll")
    app.pump()
    clock.advance(PRESS_SECONDS)
    app.board.release("roll")
    app.pump()
    runner.settle()
    assert app.screen.cup.faces is not None
    assert len(app.screen.cup.faces) == 2
    assert app.visible().tobytes() != before
    assert app.panel.last_image.tobytes() == app.screen.render().tobytes()
    assert app.board.beeps == 1


def test_menu_navigation_through_the_pins(rig):
    app, clock, runner = rig()
    assert app.screen.title == "Tabletop Companion"
    press(runner, "DOWN", "DOWN", "DOWN", "DOWN", "DOWN", "OK")
    assert app.screen.title == "Tools"
    press(runner, "OK")
    assert isinstance(app.screen, DiceScreen)
    press(runner, "BACK", "BACK")
    assert app.screen.title == "Tabletop Companion"


def test_long_press_is_not_a_short_press(rig):
    app, clock, runner = rig(root=lambda ctx: DiceScreen())
    press(runner, "UP", "ROLL", "OK")          # 3 dice, rolled, first die held
    assert app.screen.cup.held == {0}
    hold(runner, "OK")                         # long OK: release every hold
    assert app.screen.cup.held == frozenset()
    press(runner, "OK")
    assert app.screen.cup.held == {0}


def test_a_long_press_fires_while_the_button_is_still_down(rig):
    app, clock, runner = rig(root=lambda ctx: DiceScreen())
    press(runner, "ROLL", "OK")
    runner.advance(0.2)  # a finger comes back after the last release's bounce is over
    app.board.press("ok")
    runner.advance(Config().buttons.hold_time)
    assert app.screen.cup.held == frozenset()  # released by the long press already
    app.board.release("ok")
    app.pump()
    assert app.screen.cup.held == frozenset()  # and the release adds nothing


def test_a_bouncing_contact_is_one_press(rig):
    app, clock, runner = rig()
    app.board.bounce("down", True, 5)
    app.pump()
    runner.advance(0.005)
    app.board.bounce("down", True, 3)
    runner.advance(PRESS_SECONDS)
    app.board.bounce("down", False, 5)
    app.pump()
    runner.advance(0.1)
    assert app.screen.selected == 1


def test_dim_then_blank_then_wake_without_acting():
    clock = ManualClock()
    config = Config(idle=Idle(dim_after=60, blank_after=600, shift_every=0))
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(), clock=clock)
    runner = ScriptRunner(app, clock, config.buttons.hold_time)
    try:
        app.start()
        assert app.next_deadline() == 60
        runner.advance(59.9)
        assert not app.dimmed
        runner.advance(0.2)
        assert app.dimmed and not app.blanked and app.panel.dimmed
        assert app.next_deadline() == 600
        runner.advance(540)
        assert app.blanked and app.panel.blanked
        assert not any(app.visible().tobytes())   # a person sees a dark panel
        assert app.next_deadline() is None        # asleep: nothing to wake up for
        press(runner, "DOWN")                     # wakes, but does not move
        assert not app.blanked and not app.dimmed
        assert app.screen.selected == 0
        press(runner, "DOWN")                     # now it moves
        assert app.screen.selected == 1
        assert app.next_deadline() == pytest.approx(clock() + 60, abs=0.5)
    finally:
        app.board.close()


def test_a_press_while_only_dimmed_also_just_wakes(rig):
    app, clock, runner = rig(Config(idle=Idle(dim_after=10, blank_after=0, shift_every=0)))
    runner.advance(11)
    assert app.dimmed
    hold(runner, "DOWN")
    assert not app.dimmed and app.screen.selected == 0


def test_the_picture_shifts_by_a_pixel_now_and_then(rig):
    app, clock, runner = rig(Config(idle=Idle(dim_after=0, blank_after=0, shift_every=120)))
    assert app.panel.offset == (0, 0)
    runner.advance(120)
    assert app.panel.offset != (0, 0)


def test_the_roll_led_is_lit_when_roll_is_the_thing_to_press(rig):
    app, clock, runner = rig()
    assert not app.board.led_lit               # a menu
    press(runner, "DOWN", "DOWN", "DOWN", "DOWN", "DOWN", "OK", "OK")
    assert app.board.led_lit                   # the dice


def test_a_failing_screen_shows_a_message_and_the_device_goes_on(rig):
    class Broken(Screen):
        title = "Broken"

        def press(self, ctx, press):
            raise RuntimeError("boom")

    app, clock, runner = rig(root=lambda ctx: Broken())
    press(runner, "OK")
    assert app.screen.title == "Internal error"
    press(runner, "OK")
    assert app.screen.title == "Broken"


def test_a_long_refusal_is_shown_whole(rig):
    from companion.errors import CompanionError

    why = ("this refusal names every word it has, the cause, the fix and the place "
           "to look, far more than four rows of the panel can hold at once")

    class Refusing(Screen):
        title = "Refusing"

        def press(self, ctx, press):
            raise CompanionError(why)

    app, clock, runner = rig(root=lambda ctx: Refusing())
    press(runner, "OK")
    assert app.screen.title == "Sorry"
    assert " ".join(app.screen.lines) == why  # scrolled, never cut


def test_ready_and_watchdog_reach_the_notify_socket(rig, tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        server.settimeout(2)
        notifier = Notifier(env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "20000000"})
        app, clock, runner = rig(notifier=notifier)
        assert server.recv(64) == b"READY=1"
        runner.advance(0.01)
        assert server.recv(64) == b"WATCHDOG=1"
        runner.advance(10)
        assert server.recv(64) == b"WATCHDOG=1"


def test_without_systemd_notify_does_nothing():
    assert Notifier(env={}).send("READY=1") is False
    assert Notifier(env={"NOTIFY_SOCKET": "/nonexistent/sock"}).send("READY=1") is False


def lit_pixels(image):
    return sum(image.convert("L").histogram()[1:])


def test_the_press_that_wakes_a_dimmed_panel_shows_the_screen_again(rig):
    """The simulator shows a dimmed panel half lit; the waking press does nothing else,
    but the person sees it land: the whole picture is back."""
    frames = []
    app, clock, runner = rig(Config(idle=Idle(dim_after=10, blank_after=0, shift_every=0)))
    app.on_frame = frames.append
    lit = app.visible().tobytes()
    runner.advance(11)
    assert app.dimmed and frames and frames[-1].tobytes() == app.visible().tobytes() != lit
    assert 0 < lit_pixels(app.visible()) < lit_pixels(app.image)
    press(runner, "DOWN")
    assert not app.dimmed and app.screen.selected == 0          # woken, not moved
    assert frames[-1].tobytes() == app.visible().tobytes() == lit


def test_history_figures_are_prepared_after_the_first_frame(tmp_path) -> None:
    """The device builds the History tally in a thread of its own once the first frame
    is up, and the owner thread takes it: the first History screen then opens at once."""
    import threading
    import time

    from companion import stats
    from companion.launch import warm_history
    from companion.store import Store

    with Store.in_dir(tmp_path) as store:
        mid = store.new_match("final-count", ["Ann", "Bob"], {})
        store.append(mid, {"type": "call", "player": "Ann"})
        store.finish(mid, {"over": True, "totals": {"Ann": 300, "Bob": 2},
                           "winners": ["Ann"]})
    app = make_app(Config(), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock(), state_dir=tmp_path)
    try:
        warm_history(app)
        app.start()
        assert stats._KEPT.get(app.ctx.store) is None  # nothing built on the owner thread
        deadline = time.monotonic() + 30  # a condition wait, not a speed check
        while stats._KEPT.get(app.ctx.store) is None and time.monotonic() < deadline:
            app.pump()
            warmup = [t for t in threading.enumerate() if t.name == "history-warmup"]
            for thread in warmup:
                thread.join(0.05)
        kept = stats._KEPT.get(app.ctx.store)
        assert kept is not None and kept[None].count == 1
        assert stats.cached_figures(app.ctx.store) == stats.figures(app.ctx.store)
    finally:
        app.board.close()
        if app.ctx.store is not None:
            app.ctx.store.close()
