"""``companion selftest`` on mock pins: a person presses what the screen asks for; every
part gets its line even when the display is missing; the running service is seen
(and stopped and started again only when asked); a manual run names its game log."""

import io
import os
import queue
import subprocess
import sys

import pytest

from companion.cli import state_dir_note
from companion.clock import ManualClock
from companion.commands.selftest import Service, pattern_picture, run_selftest, selftest_main
from companion.config import Config, Display
from companion.device.board import SimBoard
from companion.device.display import Panel, RecordingSerial, open_device
from companion.errors import CompanionError


def NO_SPEAKER(config):  # noqa: N802 - a constant-like stand-in for the speaker check
    return False, "no speaker here"


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
                              prompted=person(board, clock, {}), speaker=NO_SPEAKER)
    finally:
        board.close()
    assert status == 0
    report = out.getvalue()
    assert "display   ok" in report and report.endswith("all parts answered\n")
    assert board.beeps == 1
    for name, pin in config.buttons.pins().items():
        assert f"{name:<9} ok   GPIO{pin}" in report


def test_a_dead_and_a_swapped_button_are_named():
    config, board, panel, edges, clock = rig()
    out = io.StringIO()
    try:
        status = run_selftest(config, board, panel, edges, clock, out, wait=0,
                              prompted=person(board, clock, {"down": None, "ok": "back"}),
                              speaker=NO_SPEAKER)
    finally:
        board.close()
    report = out.getvalue()
    assert status == 1
    assert "down      NOT PRESSED in 0 s   GPIO6" in report
    assert "ok        WRONG: got BACK (GPIO19), check GPIO13" in report
    assert report.endswith("2 parts to check: down, ok\n")


def test_the_pattern_lights_every_edge_pixel():
    image = pattern_picture()
    edges = [(x, 0) for x in range(128)] + [(x, 63) for x in range(128)]
    edges += [(0, y) for y in range(64)] + [(127, y) for y in range(64)]
    assert all(image.getpixel(point) for point in edges)


def test_a_missing_display_does_not_stop_the_buttons_and_the_buzzer():
    config, board, _, edges, clock = rig()
    out = io.StringIO()
    try:
        status = run_selftest(config, board, None, edges, clock, out,
                              display_error="no display answers at 0x3C on I2C bus 1",
                              prompted=person(board, clock, {"back": None}), wait=0,
                              speaker=NO_SPEAKER)
    finally:
        board.close()
    lines = out.getvalue().splitlines()
    assert status == 1
    assert lines[0] == "display   NOT FOUND: no display answers at 0x3C on I2C bus 1"
    assert lines[1] == "buzzer    beeped on GPIO12: did you hear it?" and board.beeps == 1
    assert [line.split()[:2] for line in lines[2:7]] == [
        ["up", "ok"], ["down", "ok"], ["ok", "ok"], ["back", "NOT"], ["roll", "ok"]]
    assert lines[7:] == ["speaker   none ([speech] enabled = false): no speaker here",
                         "2 parts to check: display, back"]


def test_pins_that_cannot_open_still_get_a_line_per_part():
    config, _, panel, edges, clock = rig()
    out = io.StringIO()
    status = run_selftest(config, None, panel, edges, clock, out, wait=0,
                          board_error="cannot open the UP button on GPIO5: GPIO busy",
                          speaker=NO_SPEAKER)
    lines = out.getvalue().splitlines()
    assert status == 1
    assert lines[0].startswith("display   ok")
    assert lines[1] == "pins      CANNOT OPEN: cannot open the UP button on GPIO5: GPIO busy"
    assert [line.split()[0] for line in lines[2:8]] == ["buzzer", "up", "down", "ok", "back",
                                                        "roll"]
    assert all("not checked" in line for line in lines[2:8])
    assert lines[8:] == ["speaker   none ([speech] enabled = false): no speaker here",
                         "1 part to check: pins"]


# --- the service ---------------------------------------------------------------------


class FakeService:
    def __init__(self, active: bool):
        self.active = active
        self.calls: list[str] = []

    def is_active(self) -> bool:
        return self.active

    def stop(self) -> None:
        self.calls.append("stop")

    def start(self) -> None:
        self.calls.append("start")


def test_a_running_service_is_named_with_the_command(monkeypatch):
    def must_not_run(*args, **kwargs):
        raise AssertionError("selftest touched the pins while the service runs")

    monkeypatch.setattr("companion.commands.selftest.selftest_on_device", must_not_run)
    service = FakeService(active=True)
    with pytest.raises(CompanionError) as caught:
        selftest_main(Config(), io.StringIO(), service=service)
    message = str(caught.value)
    assert "\n" not in message
    assert "companion.service is running" in message
    assert "`sudo systemctl stop companion`" in message and "--stop-service" in message
    assert service.calls == []


def test_stop_service_stops_it_and_starts_it_again(monkeypatch):
    service = FakeService(active=True)

    def checks(config, out, **kwargs):
        assert service.calls == ["stop"]
        raise KeyboardInterrupt  # even when the test is cut short

    monkeypatch.setattr("companion.commands.selftest.selftest_on_device", checks)
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        selftest_main(Config(), out, service=service, stop_service=True)
    assert service.calls == ["stop", "start"]
    assert "started companion.service again" in out.getvalue()


def test_service_asks_systemctl():
    seen = []

    class Done:
        def __init__(self, code):
            self.returncode, self.stderr = code, "Access denied"

    def run(argv, **kwargs):
        seen.append(argv)
        return Done(0 if argv[1] == "is-active" else 1)

    service = Service(run=run, systemctl="/bin/systemctl")
    assert service.is_active()
    assert seen == [["/bin/systemctl", "is-active", "--quiet", "companion.service"]]
    with pytest.raises(CompanionError) as caught:
        service.stop()
    assert str(caught.value) == ("cannot stop companion.service (Access denied): run "
                                 "`sudo systemctl stop companion` yourself")
    seen.clear()
    assert not Service(run=run, systemctl="").is_active()  # no systemd here: no service
    assert seen == []


# --- the command, end to end -----------------------------------------------------------

FAKE_SYSTEMCTL = """#!/bin/sh
echo "$*" >>{log}
case $1 in
    is-active) [ -e {active} ] ;;
    stop) rm -f {active} ;;
    start) touch {active} ;;
esac
"""


@pytest.fixture
def device_env(tmp_path):
    """``companion selftest`` as on a Pi with no display: mock pins, a systemctl stub."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log, active = tmp_path / "systemctl.log", tmp_path / "active"
    systemctl = bin_dir / "systemctl"
    systemctl.write_text(FAKE_SYSTEMCTL.format(log=log, active=active))
    systemctl.chmod(0o755)
    config = tmp_path / "config.toml"
    config.write_text("[display]\ni2c_port = 99\n")  # no /dev/i2c-99 anywhere
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
           "GPIOZERO_PIN_FACTORY": "mock", "COMPANION_CONFIG": str(config)}
    return env, log, active


def selftest(env, *args):
    return subprocess.run([sys.executable, "-m", "companion", "selftest", "--wait", "0", *args],
                          capture_output=True, text=True, env=env, timeout=120)


def test_selftest_command_reports_every_part_without_a_display(device_env):
    env, log, _ = device_env
    done = selftest(env)
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stderr
    assert lines[0].startswith("display   NOT FOUND: no display answers at 0x3C on I2C bus 99")
    assert lines[1].startswith("buzzer    beeped on GPIO12")
    assert [line.split()[0] for line in lines[2:7]] == ["up", "down", "ok", "back", "roll"]
    assert lines[-1] == "6 parts to check: display, up, down, ok, back, roll"
    assert log.read_text().split("\n")[0] == "is-active --quiet companion.service"


def test_selftest_command_beside_the_running_service(device_env):
    env, log, active = device_env
    active.touch()
    done = selftest(env)
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("companion: companion.service is running")
    assert "sudo systemctl stop companion" in line

    done = selftest(env, "--stop-service")
    assert done.returncode == 1, done.stderr
    assert [c.split()[0] for c in log.read_text().splitlines()] == [
        "is-active", "is-active", "stop", "start"]
    assert active.exists()  # running again
    assert "display   NOT FOUND" in done.stdout
    assert done.stdout.splitlines()[-1] == "started companion.service again"


# --- a manual run's game log -------------------------------------------------------------


def test_a_manual_run_says_which_game_log_it_uses(tmp_path):
    service_dir = tmp_path / "var/lib/companion"
    mine = tmp_path / "home/.local/share/companion"
    assert state_dir_note(mine, env={}, service_dir=service_dir) == (
        f"companion: keeping the game log in {mine}")
    service_dir.mkdir(parents=True)
    note = state_dir_note(mine, env={}, service_dir=service_dir)
    assert note == (f"companion: keeping the game log in {mine} (the service keeps its own "
                    f"in {service_dir}; --state-dir chooses another)")
    assert state_dir_note(service_dir, env={}, service_dir=service_dir) == (
        f"companion: keeping the game log in {service_dir}")
    # the service itself (systemd sets INVOCATION_ID) says nothing
    assert state_dir_note(service_dir, env={"INVOCATION_ID": "x"}, service_dir=service_dir) \
        is None
