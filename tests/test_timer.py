"""The turn timer and the sand timer: on a manual clock, through the app, the serial
commands and the mock pins (the buzzer's levels are read off gpiozero's mock pin), and
the pure countdowns underneath with hypothesis. Nothing here sleeps."""

from __future__ import annotations

import doctest
import io
import json
import os
import pty
import re
import tty

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from companion.clock import ManualClock
from companion.config import Config, Idle, parse_config
from companion.errors import ConfigError
from companion.remote.commands import state as page_state
from companion.remote.serial import execute, parse_command
from companion.sim import (
    BUZZER_MARK,
    Step,
    run_interactive,
)
from companion.table import timer as timer_module
from companion.table.timer import (
    Countdown,
    TurnTimer,
    clock_text,
    short_clock_text,
    whole_seconds,
)
from companion.timer import LONG_BEEP, SHORT_BEEP
from companion.ui import timer as timer_screens
from companion.ui.canvas import Canvas
from companion.ui.games import setup_screen
from companion.ui.screen import Context, Screen
from companion.ui.timer import SandTimerScreen, mark_time
from companion.ui.tools import tools_menu
from tests.press_log import PressLog

QUIET = "[idle]\ndim_after = 0\nblank_after = 0\nshift_every = 0\n"


def config_of(text: str) -> Config:
    return parse_config(QUIET + text)


def command(app, text: str) -> dict:
    reply = execute(app, parse_command(text))
    assert reply.startswith("OK "), reply
    return json.loads(reply[3:])


def play_one(app, player: str) -> None:
    """The player whose lead it is plays a 1 (Count Up 21)."""
    command(app, "EVENT " + json.dumps({"type": "play", "player": player, "card": 1}))


def buzzer_levels(app) -> list[bool]:
    """The buzzer pin's levels so far, as gpiozero's mock pin recorded them."""
    pin = app.board.pin_factory.pin(app.ctx.config.buzzer.pin)
    return [bool(state.state) for state in pin.states]


def test_doctests() -> None:
    assert doctest.testmod(timer_module).failed == 0


# -- the bar: STATUS after NEW, and 4.5 s later ---------------------------------------------


def test_status_right_after_new_shows_anns_timer_running_and_4_5_s_later_run_out(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 3\n"))
    command(app, "NEW final-count Ann,Bob")
    timer = command(app, "STATUS")["timer"]
    assert timer["player"] == "Ann" and timer["turn"] == 3 and timer["left"] == 3
    assert not timer["paused"]
    runner.advance(1.2)
    assert command(app, "STATUS")["timer"]["left"] == 2   # running: 1.8 s, shown as 2
    runner.advance(3.3)
    timer = command(app, "STATUS")["timer"]
    assert timer["player"] == "Ann" and timer["left"] == 0
    assert page_state(app)["timer"]["left"] == 0          # /api/state says the same
    assert command(app, "STATUS")["seq"] == 0             # running out decided nothing


def test_without_a_timer_status_says_null(rig):
    app, clock, runner = rig(config_of(""))
    command(app, "NEW final-count Ann,Bob")
    assert command(app, "STATUS")["timer"] is None
    assert page_state(app)["timer"] is None
    assert app.timer.next_deadline() is None


def test_a_new_turn_starts_from_full(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 30\n"))
    command(app, "NEW count-up-21 Ann,Bob")
    runner.advance(12)
    first = command(app, "STATUS")
    assert first["timer"]["left"] == 18
    player = first["expecting"]["player"]
    play_one(app, player)
    timer = command(app, "STATUS")["timer"]
    assert timer["player"] != player and timer["left"] == 30


# -- sounds and the LED on the mock pins -------------------------------------------------------


def test_a_short_beep_ten_seconds_before_the_end_a_long_one_at_the_end(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 15\n"))
    command(app, "NEW final-count Ann,Bob")
    assert buzzer_levels(app) == [False]
    runner.advance(4.9)
    assert buzzer_levels(app) == [False]                     # 10.1 s left: quiet
    runner.advance(0.1)
    assert buzzer_levels(app) == [False, True] and app.timer.sounding
    runner.advance(SHORT_BEEP)
    assert buzzer_levels(app) == [False, True, False]        # one short beep
    runner.advance(9.8)
    assert buzzer_levels(app) == [False, True, False]
    runner.advance(0.05)                                     # 15 s: the end
    assert buzzer_levels(app) == [False, True, False, True]
    runner.advance(LONG_BEEP - 0.01)
    assert app.board.buzzing
    runner.advance(0.01)
    assert buzzer_levels(app) == [False, True, False, True, False]
    runner.advance(60)
    assert buzzer_levels(app) == [False, True, False, True, False]   # once only


def test_a_short_turn_has_no_warning_only_the_end(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 3\n"))
    command(app, "NEW final-count Ann,Bob")
    runner.advance(3)
    assert buzzer_levels(app) == [False, True]


def test_the_roll_led_blinks_at_the_end_until_a_press(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 3\n"))
    command(app, "NEW final-count Ann,Bob")
    assert app.board.led_lit                                 # ROLL is the thing to press
    runner.advance(3)
    seen = []
    for _ in range(6):
        seen.append(app.board.led_lit)
        runner.advance(0.5)
    assert seen == [True, False, True, False, True, False]
    runner.run(Step(0, "DOWN", "down"))                      # the table has seen it
    lit = app.board.led_lit
    runner.advance(2)
    assert app.board.led_lit == lit == app.screen.roll_ready


def test_the_screen_says_ann_time_and_the_time_left_before(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 42\n"))
    command(app, "NEW final-count Ann,Bob")
    bare = app.screen.render()
    assert app.image.tobytes() != bare.tobytes()
    assert words_in(app.image, bare) == "0:42"
    runner.advance(42)
    assert words_in(app.image, bare) == "Ann: time!"


def words_in(image: Image.Image, bare: Image.Image) -> str:
    """The words drawn on ``image`` over ``bare``, read back by drawing each candidate."""
    for text in ("0:42", "Ann: time!", "time!"):
        trial = bare.copy()
        mark_time(trial, [text], 1.0)
        if trial.tobytes() == image.tobytes():
            return text
    return ""


# -- pausing: one press ------------------------------------------------------------------------


def test_a_long_back_pauses_and_lets_it_run_again(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 30\n"))
    command(app, "NEW final-count Ann,Bob")
    screen = app.screen
    runner.advance(5)
    runner.run(Step(0, "HOLD BACK", "back", long=True))
    assert app.screen is screen                               # no menu, nothing else
    left = command(app, "STATUS")["timer"]
    assert left["paused"] and left["left"] in (25, 24)
    assert app.timer.next_deadline() is None                  # nothing to wake for
    runner.advance(100)
    assert command(app, "STATUS")["timer"]["left"] == left["left"]
    runner.run(Step(0, "HOLD BACK", "back", long=True))
    runner.advance(3)
    after = command(app, "STATUS")["timer"]
    assert not after["paused"] and after["left"] < left["left"]


def test_a_long_back_still_opens_nothing_new_without_a_timer(rig):
    app, clock, runner = rig(config_of(""))
    command(app, "NEW final-count Ann,Bob")
    screen = app.screen
    runner.run(Step(0, "HOLD BACK", "back", long=True))
    assert app.screen is screen


def test_the_pause_reaches_the_page(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 30\n"))
    command(app, "NEW final-count Ann,Bob")
    heard = []
    app.timer.watchers.append(lambda: heard.append(page_state(app)["timer"]["paused"]))
    runner.run(Step(0, "HOLD BACK", "back", long=True))
    assert heard == [True]


def test_the_timer_wakes_the_loop_only_when_the_shown_second_changes(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 60\n"))
    command(app, "NEW final-count Ann,Bob")
    wakes = 0
    end = clock() + 20
    while (deadline := app.next_deadline()) is not None and deadline <= end:
        clock.now = deadline
        app.pump()
        wakes += 1
    assert wakes == 20                                        # once a second, no more


# -- a chess clock -----------------------------------------------------------------------------


def test_clock_mode_runs_each_players_own_total_and_lists_them(rig):
    app, clock, runner = rig(config_of('[timer]\nturn = 600\nmode = "clock"\n'))
    command(app, "NEW count-up-21 Ann,Bob")
    first = command(app, "STATUS")["expecting"]["player"]
    runner.advance(100)
    play_one(app, first)
    second = command(app, "STATUS")["expecting"]["player"]
    runner.advance(40)
    timer = command(app, "STATUS")["timer"]
    assert timer["mode"] == "clock" and timer["player"] == second
    assert timer["totals"] == {first: 500, second: 560}
    assert page_state(app)["timer"]["totals"] == {first: 500, second: 560}


# -- the setup screens -------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["final-count", "full-counter", "card-down", "count-up-21",
                                  "scoreboard"])
def test_every_setup_with_turns_has_the_timer_row_and_the_match_keeps_it(game):
    ctx = Context(config=config_of("[timer]\nturn = 20\n"))
    setup = setup_screen(ctx, game, None, None)
    labels = [label for label, _ in setup.rows]
    assert labels[-3:] == ["Turn timer: 20 s", "Start", "Help"]
    setup.rows[-3][1](ctx)
    assert setup.rows[-3][0] == "Turn timer: 30 s"
    session = setup.new_session(ctx, {})
    assert session.match.options["timer"] == {"turn": 30, "mode": "turn"}


def test_block_lottery_has_no_turns_and_no_timer_row(rig):
    """Everyone takes from the pool at once: nobody's time would ever run."""
    app, clock, runner = rig(config_of("[timer]\nturn = 20\n"))
    setup = setup_screen(app.ctx, "block-lottery", None, ["Ann", "Bob"])
    labels = [label for label, _ in setup.rows]
    assert not any("timer" in label.lower() for label in labels)
    assert labels[-2:] == ["Start", "Help"]
    assert "timer" not in setup.new_session(app.ctx, {}).match.options
    command(app, "NEW block-lottery Ann,Bob")  # from afar, with [timer] on: no timer either
    assert command(app, "STATUS")["timer"] is None
    reply = execute(app, parse_command(
        'NEW block-lottery Ann,Bob timer={"turn":30,"mode":"turn"} --force'))
    assert reply.startswith("ERR ") and "no turns" in reply, reply


def test_off_on_the_setup_is_off_for_that_game(rig):
    config = config_of("[timer]\nturn = 20\n")
    app, clock, runner = rig(config)
    setup = setup_screen(app.ctx, "final-count", None, ["Ann", "Bob"])
    while setup.timer_turn:
        setup.rows[-3][1](app.ctx)
    assert setup.rows[-3][0] == "Turn timer: off"
    app.set_screen(setup.begin(app.ctx))
    assert app.current_session() is not None
    assert command(app, "STATUS")["timer"] is None


def test_clock_mode_setup_offers_minutes_each():
    ctx = Context(config=config_of('[timer]\nturn = 600\nmode = "clock"\n'))
    setup = setup_screen(ctx, "final-count", None, None)
    assert setup.rows[-3][0] == "Clock: 10 min each"


# -- bad configuration ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, key", [
    ("[timer]\nturn = -1\n", "timer.turn"),
    ("[timer]\nturn = 86401\n", "timer.turn"),
    ("[timer]\nturn = 2.5\n", "timer.turn"),
    ('[timer]\nturn = "30"\n', "timer.turn"),
    ('[timer]\nmode = "sand"\n', "timer.mode"),
    ("[timer]\nmode = 1\n", "timer.mode"),
    ("[timer]\nlength = 3\n", "timer.length"),
])
def test_a_bad_timer_setting_is_one_line_naming_the_key(text, key):
    with pytest.raises(ConfigError) as err:
        config_of(text)
    assert key in str(err.value) and "\n" not in str(err.value)


# -- the picture: never over what the screen drew --------------------------------------------


def drawn(title: str, right: str, hint: str) -> Image.Image:
    canvas = Canvas()
    canvas.title(title, right)
    canvas.line(0, "body words here")
    canvas.hint(hint)
    return canvas.image


@settings(deadline=None)  # a busy machine is no failure
@given(st.text("ABCabc 123:", max_size=21), st.text("abc 12/", max_size=8),
       st.text("OKROL dnup", max_size=21), st.sampled_from(["0:42", "Ann: time!", "paused 9:59"]))
def test_the_time_never_covers_what_the_screen_drew(title, right, hint, text):
    bare = drawn(title, right, hint)
    marked = bare.copy()
    where = mark_time(marked, [text], 0.5)
    assert_only_free_pixels_changed(bare, marked, where)


def assert_only_free_pixels_changed(bare: Image.Image, marked: Image.Image, where: str) -> None:
    """Only dark pixels of the title bar or the bar's row lit up, or lit pixels of the
    hint band went dark (words written in it): nothing the screen drew is covered."""
    before, after = bare.load(), marked.load()
    for y in range(64):
        for x in range(128):
            if before[x, y] != after[x, y]:
                assert (where in ("title", "bar") and not before[x, y]) or \
                    (where == "hint" and before[x, y])
                assert y < 10 if where == "title" else y >= 54 if where == "hint" \
                    else y in timer_screens.BAR_ROWS


def test_with_no_room_anywhere_the_time_is_a_bar_under_the_rule():
    bare = drawn("A title that is long", "1/9", "ROLL roll  OK call xx")
    marked = bare.copy()
    assert mark_time(marked, ["0:42"], 0.5) == "bar"
    row = [marked.getpixel((x, timer_screens.BAR_ROWS[0])) for x in range(128)]
    assert row == [255] * 64 + [0] * 64


# -- the sand timer ------------------------------------------------------------------------------


def test_the_sand_timer_is_in_the_tools():
    assert "Sand timer" in [item.label for item in tools_menu(None).items]


def test_the_sand_timer_runs_pauses_and_sounds_the_buzzer_at_the_end(rig):
    app, clock, runner = rig(config_of(""), root=lambda ctx: SandTimerScreen(ctx, None, 3))
    press = lambda name: runner.run(Step(0, name.upper(), name))  # noqa: E731
    press("down")
    press("down")
    assert app.screen.sand.minutes == 1
    press("roll")
    runner.advance(20)
    press("roll")                                           # paused
    runner.advance(300)
    assert whole_seconds(app.screen.sand.left(clock())) in (40, 39)
    assert buzzer_levels(app) == [False]
    press("roll")
    runner.advance(45)
    assert app.screen.ended and app.screen.title == "Sand timer"
    assert buzzer_levels(app)[:2] == [False, True]
    runner.advance(5)
    assert buzzer_levels(app) == [False, True, False]


# -- the simulator's buzzer mark -------------------------------------------------------------------


class Beeper(PressLog):
    def press(self, ctx, press) -> Screen:
        ctx.sound(1.0)
        return super().press(ctx, press)


def test_the_simulator_shows_a_buzzer_mark_while_it_sounds():
    leader, follower = pty.openpty()
    out = io.StringIO()
    try:
        tty.setraw(follower)
        os.write(leader, b"rq")
        clock = ManualClock()
        with os.fdopen(follower, "r", closefd=False) as stdin:
            run_interactive(Config(idle=Idle(0, 0, 0)), root=lambda ctx: Beeper(), stdin=stdin,
                            out=out, clock=clock, wait=clock.advance)
    finally:
        os.close(leader)
        os.close(follower)
    assert BUZZER_MARK in out.getvalue()


# -- the pure countdowns ---------------------------------------------------------------------------


@settings(deadline=None)  # a busy machine is no failure
@given(st.lists(st.tuples(st.sampled_from(["Ann", "Bob", "Cy", None, "pause"]),
                          st.floats(0, 50)), max_size=30),
       st.sampled_from(["turn", "clock"]))
def test_time_left_never_grows_within_a_turn_and_stays_within_the_limit(steps, mode):
    timer = TurnTimer(40, mode)
    now = 0.0
    for who, wait in steps:
        before = timer.left(now)
        player = timer.player
        now += wait
        assert 0.0 <= timer.left(now) <= 40
        assert timer.left(now) <= before or player is None
        if who == "pause":
            timer.pause(now, not timer.paused)
        else:
            timer.follow(who, now)
        if timer.paused:
            assert timer.next_change(now) is None
    assert all(0 <= left <= 40 for left in timer.totals(now).values())


@settings(deadline=None)  # a busy machine is no failure
@given(st.floats(0.5, 100), st.floats(0, 100))
def test_the_next_change_is_when_the_shown_second_changes(seconds, at):
    count = Countdown(seconds)
    count.start(0.0)
    change = count.next_change(at)
    if change is None:
        assert whole_seconds(count.left(at)) == 0
        return
    assert change > at
    assert whole_seconds(count.left(change)) == whole_seconds(count.left(at)) - 1
    assert whole_seconds(count.left((at + change) / 2)) == whole_seconds(count.left(at))


def test_the_sand_timer_screen_fits(rig):
    ctx = Context(config=Config())
    screen = SandTimerScreen(ctx, None, 60)
    assert screen.render().size == (128, 64)


def test_a_chess_clock_game_menu_lists_every_players_clock(rig):
    app, clock, runner = rig(config_of('[timer]\nturn = 86400\nmode = "clock"\n'))
    command(app, "NEW count-up-21 WWWWWWWWWWWM,Bob")
    runner.advance(61)
    menu = app.screen.menu(app.ctx)
    labels = [item.label for item in menu.items]
    assert "Clocks" in labels
    clocks = menu.items[labels.index("Clocks")].open(app.ctx, menu)
    first = command(app, "STATUS")["expecting"]["player"]
    assert clocks.lines == [f"{name:<12} {'23:58:59' if name == first else '24:00:00':>8}"
                            for name in ("WWWWWWWWWWWM", "Bob")]
    assert all(len(line) <= 21 for line in clocks.lines)


def test_a_turn_timer_game_menu_has_no_clocks(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 30\n"))
    command(app, "NEW count-up-21 Ann,Bob")
    assert "Clocks" not in [item.label for item in app.screen.menu(app.ctx).items]


# -- the page ---------------------------------------------------------------------------------


def test_the_page_shows_whose_time_runs_and_api_state_carries_it(tmp_path):
    from web_device import Device

    from companion.config import Timer

    device = Device(tmp_path / "state")
    try:
        device.app.timer.config = Config(timer=Timer(turn=90))
        device.pair()
        device.client.post("/api/matches", json={"game": "final-count", "players": ["Ann", "Bob"]})
        timer = device.state()["timer"]
        assert timer["player"] == "Ann" and timer["turn"] == 90 and 85 <= timer["left"] <= 90
        page = device.client.get("/", headers={"accept": "text/html"}).text
        shown = re.search(r'<p class="timer" id="timer" data-left="(\d+)" data-paused="">'
                          r'Ann: <span class="left">(\d):(\d\d)</span></p>', page)
        assert shown, page
        assert int(shown.group(2)) * 60 + int(shown.group(3)) == int(shown.group(1))
    finally:
        device.close()


@pytest.mark.parametrize("game, players", [
    ("final-count", "Ann,Bob"), ("full-counter", "Ann,Bob"), ("card-down", "Ann,Bob"),
    ("count-up-21", "Ann,Bob"), ("scoreboard", "Ann,Bob"),
    ("final-count", "WWWWWWWWWWWM,WWWWWWWWWWWW,WWWWWWWWWWWQ")])
def test_every_game_screen_shows_the_time_and_keeps_all_it_drew(rig, game, players):
    app, clock, runner = rig(config_of("[timer]\nturn = 600\n"))
    command(app, f"NEW {game} {players}")
    seen = 0
    for press in ["", "ROLL", "OK", "DOWN", "ROLL", "OK", "ROLL", "OK", "BACK"]:
        if press:
            runner.run(Step(0, press, press.lower()))
        if app.timer.timer is None or app.timer.timer.player is None:
            continue  # nobody's move (cards being entered, the game over): no time runs
        bare = app.screen.render()
        marked = bare.copy()
        timer = app.timer.timer
        shown = timer.shown(clock())
        where = mark_time(marked, [clock_text(shown), short_clock_text(shown)],
                          timer.left(clock()) / timer.turn)
        assert where, f"no room for the time on {type(app.screen).__name__}"
        assert marked.tobytes() == app.image.tobytes()     # what the panel shows
        assert_only_free_pixels_changed(bare, marked, where)
        seen += 1
    assert seen


def test_a_move_that_is_nobodys_runs_no_time(rig):
    """Card-Down begins with a card turned up for the table: the rules name no player,
    so no time runs (and nothing is drawn)."""
    app, clock, runner = rig(config_of("[timer]\nturn = 30\n"))
    command(app, "NEW card-down Ann,Bob")
    runner.advance(40)
    assert command(app, "STATUS")["timer"] == {
        "player": None, "left": 30, "turn": 30, "mode": "turn", "paused": False, "totals": {}}
    assert app.image.tobytes() == app.screen.render().tobytes()
    assert buzzer_levels(app) == [False]


def test_the_end_lights_a_dimmed_panel(rig):
    app, clock, runner = rig(parse_config("[idle]\ndim_after = 5\nblank_after = 20\n"
                                          "[timer]\nturn = 60\n"))
    command(app, "NEW final-count Ann,Bob")
    runner.advance(30)
    assert app.blanked
    runner.advance(30)
    assert not app.blanked and not app.dimmed and app.timer.sounding


def test_a_game_on_the_screen_from_the_start_has_its_timer_running(rig, tmp_path):
    from companion.session import Session
    from companion.ui.games import table_screen

    session = Session.start("count-up-21", ["Ann", "Bob"], {})
    app, clock, runner = rig(config_of("[timer]\nturn = 12\n"),
                             root=lambda ctx: table_screen(session, None))
    runner.advance(3)
    assert command(app, "STATUS")["timer"]["left"] == 9
    assert app.image.tobytes() != app.screen.render().tobytes()   # shown from the start


def test_the_end_sounds_even_when_a_command_comes_first_at_that_moment(rig):
    app, clock, runner = rig(config_of("[timer]\nturn = 3\n"))
    command(app, "NEW final-count Ann,Bob")
    clock.advance(3.2)                          # the loop has not woken yet ...
    assert command(app, "STATUS")["timer"]["left"] == 0   # ... a STATUS comes first
    app.pump()
    assert buzzer_levels(app) == [False, True]
