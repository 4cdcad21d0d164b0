"""The serial console over real pseudo-terminals, with the app running headless on its
own thread as on the Pi: a whole Final Count game played from the console while ROLL
is pressed on the mock pins, the EV mirror, noise on the line, the port vanishing and
coming back, plain-terminal PROMPT mode, and ``companion console`` talking to it all.

The test is the far end of the cable: it holds the pty's master side, and the link
opens the slave through a symlink (so a "cable" can be pulled and a new one plugged in
at the same path). Waits are generous and nothing measures time.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pty
import random
import select
import subprocess
import sys
import threading
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion.clock import monotonic
from companion.config import Buttons, Config, Idle
from companion.launch import make_app
from companion.remote.serial import Link, run_console
from companion.sim import sim_board_factory, sim_panel

WAIT = 30.0
ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs ptys")


@pytest.fixture
def device(tmp_path):
    """The app on mock pins, running its loop on its own thread (real clock)."""
    config = Config(buttons=Buttons(bounce_time=0.0, hold_time=10.0), idle=Idle(0.0, 0.0, 0.0))
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(), clock=monotonic,
                   seed=11, state_dir=tmp_path / "state")
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    yield app
    app.quit()
    thread.join(WAIT)
    assert not thread.is_alive()
    app.board.close()
    app.ctx.store.close()


class Cable:
    """A pty pair: the link opens ``path`` (a symlink to the slave), the test talks on
    the master side. Lines from the device are sorted into replies and EV pushes."""

    def __init__(self, path: Path):
        self.path = path
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)  # no echo or CR/LF games before pyserial sets it up
        path.unlink(missing_ok=True)
        path.symlink_to(os.ttyname(self.slave))
        self.buffer = b""
        self.events: list[dict] = []
        self.open = True

    def pull(self) -> None:
        """The cable is pulled: the path goes, then the line hangs up."""
        self.path.unlink()
        self.close()

    def close(self) -> None:
        if self.open:
            self.open = False
            os.close(self.master)
            os.close(self.slave)

    def send(self, data: str | bytes) -> None:
        data = data.encode() if isinstance(data, str) else data
        while data:
            _, ready, _ = select.select([], [self.master], [], WAIT)
            assert ready, "the device stopped reading"
            data = data[os.write(self.master, data[:4096]):]

    def line(self) -> str:
        while b"\r\n" not in self.buffer:
            ready, _, _ = select.select([self.master], [], [], WAIT)
            assert ready, f"no line from the device (so far: {self.buffer[-200:]!r})"
            self.buffer += os.read(self.master, 65536)
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line.decode()

    def reply(self) -> str:
        """The next OK/ERR line; EV lines on the way are kept in :attr:`events`."""
        while True:
            line = self.line()
            if line.startswith("EV "):
                self.events.append(json.loads(line[3:]))
            else:
                assert line.startswith(("OK ", "ERR ")), line
                return line

    def ask(self, command: str):
        """Send a command that must succeed; its JSON."""
        self.send(command + "\n")
        line = self.reply()
        assert line.startswith("OK "), f"{command} -> {line}"
        return json.loads(line[3:])

    def wait_events(self, count: int) -> None:
        while len(self.events) < count:
            line = self.line()
            assert line.startswith("EV "), line
            self.events.append(json.loads(line[3:]))


@contextmanager
def linked(app, tmp_path: Path) -> Iterator[tuple[Link, Cable]]:
    cable = Cable(tmp_path / "ttyGS0")
    link = Link(app, str(cable.path), retry=0.05).start()
    try:
        assert link.connected.wait(WAIT)
        yield link, cable
    finally:
        link.stop()
        cable.close()


def press(app, button: str) -> None:
    app.board.press(button)
    app.board.release(button)


# -- a whole game ---------------------------------------------------------------------------


def test_a_whole_final_count_game_from_the_console_and_the_buttons(device, tmp_path) -> None:
    """Rolls come from the console and from the ROLL button at the same time; both go
    through the one queue, so every one is applied exactly once."""
    with linked(device, tmp_path) as (link, cable):
        match_id = cable.ask("NEW final-count Ann,Bob,Cy")["match_id"]
        rolls = applied = 0
        for _hand in range(8):
            if cable.ask("STATUS")["over"]:
                break
            # From the console first: it also brings the table back after a hand result.
            cable.ask("ROLL")
            rolls, applied = rolls + 1, applied + 1
            # Four console ROLLs and four button presses at once.
            console_replies: list[str] = []

            def console_rolls(replies: list[str]) -> None:
                for _ in range(4):
                    cable.send("ROLL\n")
                    replies.append(cable.reply())

            worker = threading.Thread(target=console_rolls, args=(console_replies,))
            worker.start()
            for _ in range(4):
                press(device, "roll")
            worker.join(WAIT)
            assert console_replies and all(r.startswith("OK ") for r in console_replies)
            assert len(console_replies) == 4
            rolls, applied = rolls + 8, applied + 8
            cable.wait_events(applied)
            status = cable.ask("STATUS")
            assert status["seq"] == applied
            # The current player calls; the other two take their last turn: one on the
            # button, one from the console.
            call = {"type": "call", "player": status["state"]["current"]}
            cable.ask("EVENT " + json.dumps(call))
            press(device, "roll")
            cable.wait_events(applied + 2)
            cable.ask("ROLL")
            rolls, applied = rolls + 2, applied + 3
            assert cable.ask("STATUS")["state"]["phase"] == "board"
            cable.ask('EVENT {"type": "board", "cards": ["10", "J"]}')
            for player, cards in (("Cy", ["5", "6", "7"]), ("Ann", ["A", "K", "Q"]),
                                  ("Bob", ["2", "3", "4"])):
                cable.ask("EVENT " + json.dumps({"type": "hand", "player": player,
                                                 "cards": cards}))
            applied += 4
        final = cable.ask("STATUS")
        assert final["over"] and final["state"]["winners"] == ["Ann"]
        assert final["seq"] == applied
        # Nothing lost, nothing twice: the mirror saw every event once, in order, and
        # the game log holds exactly those events.
        cable.wait_events(applied)
        assert [event["seq"] for event in cable.events] == list(range(1, applied + 1))
        assert {event["match_id"] for event in cable.events} == {match_id}
        logged = [json.loads(line) for line in cable.ask("EXPORT current jsonl")][1:]
        assert logged == [event["event"] for event in cable.events]
        assert sum(event["type"] == "roll" for event in logged) == rolls
        # And the panel shows the screen the app is on.
        assert device.panel.last_image.tobytes() == device.screen.render().tobytes()


def test_the_mirror_shows_button_events_as_they_happen(device, tmp_path) -> None:
    with linked(device, tmp_path) as (link, cable):
        cable.ask("NEW final-count Ann,Bob hit_goal=true")
        press(device, "roll")  # first goal die: not an event yet
        press(device, "roll")  # second: the goal
        cable.wait_events(1)
        assert cable.events[0]["event"]["type"] == "goal"
        press(device, "roll")
        cable.wait_events(2)
        roll = cable.events[1]
        assert roll["seq"] == 2 and roll["event"]["player"] == "Ann"
        status = cable.ask("STATUS")
        assert status["state"]["last_roll"]["value"] == roll["event"]["value"]
        assert status["expecting"]["player"] == "Bob"


# -- bad input ---------------------------------------------------------------------------


def test_noise_on_the_line_gets_errors_and_never_blocks_the_buttons(device, tmp_path) -> None:
    noise = random.Random(1).randbytes(20_000).replace(b"\n", b"\n\0")
    with linked(device, tmp_path) as (link, cable):
        cable.send(noise[:10_000])
        press(device, "down")  # a press while the reader chews noise
        cable.send(noise[10_000:] + b"\n" + b"L" * 5000 + b"\nSTATUS\n")
        errors = []
        while True:
            line = cable.reply()
            if line.startswith("OK "):
                break
            errors.append(line.split()[1])
        assert json.loads(line[3:]) == {"screen": "Tabletop Companion", "game": None}
        assert errors and set(errors) <= {"BADLINE", "ENCODING", "UNKNOWN", "TOOLONG"}
        assert errors[-1] == "TOOLONG"
        assert device.screen.selected == 1  # the DOWN press arrived
        assert device.ctx.store.unfinished() is None and device.ctx.store.roster() == []


def test_prompt_mode_for_a_plain_terminal(device, tmp_path) -> None:
    with linked(device, tmp_path) as (link, cable):
        cable.send("PROMPT ON\r")
        assert cable.line() == 'OK {"prompt":true}'
        cable.send("STAX\x7fTUS\r")  # typed, with a backspace
        assert cable.line() == "> STAX\b \bTUS"  # prompt, then the echo of the typing
        assert cable.line() == 'OK {"screen":"Tabletop Companion","game":null}'
        cable.send("PROMPT OFF\r")
        assert cable.line() == "> PROMPT OFF"
        assert cable.line() == 'OK {"prompt":false}'
        cable.send("PLAYERS\n")
        assert cable.line() == "OK []"


def test_a_flood_of_500_commands_gets_500_replies_in_order(device, tmp_path) -> None:
    """500 commands sent at once by a peer that reads nothing until the device has done
    all it can: every command gets exactly its one reply, in order (none dropped because
    the peer was slow), and every event its EV line."""
    with linked(device, tmp_path) as (link, cable):
        cable.ask("NEW final-count Ann,Bob,Cy")
        flood = ["STATUS" if n % 2 else "ROLL" for n in range(500)]
        cable.send("".join(command + "\n" for command in flood))
        # Not reading: the device answers until its output is full, then holds the
        # rest of the commands (the peer's writes would wait, as on any serial line).
        wait_until(lambda: link.console.answered == 501 or link.out.held)
        replies = [cable.reply() for _ in flood]
        for command, reply in zip(flood, replies, strict=True):
            if command == "STATUS":
                assert reply.startswith("OK ") and '"screen"' in reply, reply
            else:
                assert reply.startswith(("OK {\"match_id\"", "ERR ILLEGAL")), reply
        rolled = sum(reply.startswith("OK ") for reply in replies[::2])
        assert rolled >= 3
        status = cable.ask("STATUS")
        cable.wait_events(status["seq"])
        assert [event["seq"] for event in cable.events] == list(range(1, status["seq"] + 1))
    assert link.dropped == 0


# -- the cable pulled ------------------------------------------------------------------------


def test_a_vanished_port_is_reopened_and_the_game_goes_on(device, tmp_path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="companion")
    path = tmp_path / "ttyGS0"
    first = second = Cable(path)
    attempts = []

    link = Link(device, str(path), retry=0.05)
    opener = link._open

    def counting_open():
        attempts.append(monotonic())
        return opener()

    link._open = counting_open
    link.start()
    try:
        assert link.connected.wait(WAIT)
        first.ask("NEW final-count Ann,Bob")
        first.pull()
        wait_until(lambda: not link.connected.is_set())
        # Unplugged: the buttons still play, and the reader only retries now and then.
        press(device, "roll")
        wait_until(lambda: len(device.current_session().match.events) == 1)
        wait_until(lambda: len(attempts) >= 4)
        second = Cable(path)
        assert link.connected.wait(WAIT)
        status = second.ask("STATUS")
        assert status["seq"] == 1 and status["expecting"]["player"] == "Bob"
        second.ask('EVENT {"type": "roll", "player": "Bob"}')  # the device rolls it
        assert second.events[-1]["seq"] == 2
    finally:
        link.stop()
        second.close()
    assert link.outages >= 1
    # Every retry waited its turn: never more attempts than the waits allow.
    span = attempts[-1] - attempts[0]
    assert len(attempts) - 1 <= span / 0.05 + 1
    # One warning for the whole outage, however many attempts it took.
    warnings = [record.getMessage() for record in caplog.records
                if record.levelno >= logging.WARNING]
    assert len(warnings) == 1 and " lost " in warnings[0]
    assert any(record.getMessage().endswith(" again") for record in caplog.records)


TRIALS = 25


def test_a_command_sent_before_the_port_opens_gets_its_reply(device, tmp_path) -> None:
    """Issue 21, item 7: the other end cannot know when the device opens its side, so a
    command already on the line when it opens must be run and answered, not flushed."""
    for trial in range(TRIALS):
        cable = Cable(tmp_path / f"ttyGS{trial}")
        cable.send("PLAYERS\nSTATUS\n")  # on the line before the link even starts
        link = Link(device, str(cable.path), retry=0.05).start()
        try:
            assert cable.reply().startswith("OK ["), trial
            assert json.loads(cable.reply()[3:])["screen"], trial
        finally:
            link.stop()
            cable.close()


def test_the_first_command_after_a_reopen_gets_its_reply(device, tmp_path) -> None:
    path = tmp_path / "ttyGS0"
    cable = Cable(path)
    link = Link(device, str(path), retry=0.05).start()
    try:
        assert link.connected.wait(WAIT)
        for trial in range(TRIALS):
            cable.pull()
            wait_until(lambda: not link.connected.is_set())
            cable = Cable(path)
            cable.send("STATUS\n")  # at once: the link may not have reopened yet
            assert cable.reply().startswith("OK {"), trial
            assert link.connected.is_set()
    finally:
        link.stop()
        cable.close()


def wait_until(condition) -> None:
    import time

    end = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


# -- companion console on the laptop's end ----------------------------------------------------


@contextmanager
def bridged(device, tmp_path: Path) -> Iterator[Path]:
    """The device's link on one pty, a laptop port on another, wired together: the
    path a laptop program opens."""
    device_side = Cable(tmp_path / "ttyGS0")
    laptop_side = Cable(tmp_path / "ttyACM0")
    stop = threading.Event()

    def wire() -> None:
        ends = {device_side.master: laptop_side.master, laptop_side.master: device_side.master}
        while not stop.is_set():
            ready, _, _ = select.select(list(ends), [], [], 0.1)
            for fd in ready:
                try:
                    os.write(ends[fd], os.read(fd, 65536))
                except OSError:
                    return  # a side hung up: the wire is cut

    link = Link(device, str(device_side.path), retry=0.05).start()
    thread = threading.Thread(target=wire, daemon=True)
    thread.start()
    try:
        assert link.connected.wait(WAIT)
        yield laptop_side.path
    finally:
        stop.set()
        thread.join(WAIT)
        link.stop()
        device_side.close()
        laptop_side.close()


def test_companion_console_with_commands_from_a_pipe(device, tmp_path) -> None:
    commands = "\n".join([
        "HELP", "ADD PLAYER Dee", "PLAYERS", "NEW final-count Ann,Dee", "ROLL", "FROB",
        'EVENT {"type": "call"', "",
    ])
    with bridged(device, tmp_path) as port:
        done = subprocess.run(
            [sys.executable, "-m", "companion", "console", str(port)],
            input=commands, capture_output=True, text=True, timeout=120, cwd=ROOT,
        )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert not any(line.startswith(">") for line in out)  # no prompt: input is a pipe
    assert out[0] == "OK" and out[1].startswith("HELP")  # HELP, one line per command
    assert any(line.startswith("ROLL") for line in out[1:12])
    assert 'OK {"added":"Dee","count":1}' in out
    players = out.index('OK {"added":"Dee","count":1}') + 1
    assert out[players:players + 2] == ["OK", "Dee"]  # a list of names, one a line
    ev = next(line for line in out if line.startswith("EV "))
    assert json.loads(ev[3:])["event"]["player"] == "Ann"
    assert out[-2].startswith("ERR UNKNOWN")
    assert out[-1].startswith("ERR BADJSON")
    assert device.current_session().match.players == ("Ann", "Dee")


def test_companion_console_shows_a_prompt_on_a_terminal(device, tmp_path) -> None:
    out = io.StringIO()
    with bridged(device, tmp_path) as port:
        status = run_console(str(port), stdin=io.StringIO("STATUS\n"), out=out, prompt=True)
    assert status == 0
    assert out.getvalue() == '> OK {"screen":"Tabletop Companion","game":null}\n> \n'


def test_companion_sim_serial_attaches_the_console_to_the_simulator(tmp_path) -> None:
    """``companion sim --serial URL`` in a terminal: the console plays the simulator."""
    cable = Cable(tmp_path / "ttyGS0")
    screen_master, screen_slave = pty.openpty()  # the terminal the simulator draws in
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    env.pop("COMPANION_CONFIG", None)
    sim = subprocess.Popen(
        [sys.executable, "-m", "companion", "sim", "--serial", str(cable.path),
         "--state-dir", str(tmp_path / "state")],
        stdin=screen_slave, stdout=screen_slave, stderr=subprocess.PIPE, cwd=ROOT, env=env,
    )
    os.close(screen_slave)
    drained = threading.Event()

    def drain() -> None:  # keep reading the drawing, or the simulator blocks on it
        while True:
            try:
                if not os.read(screen_master, 65536):
                    break
            except OSError:
                break
        drained.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        # pyserial empties the input when it opens a port, so knock until it answers;
        # each knock is different, so the last answer says every earlier one is in.
        for knock in range(1, 400):
            cable.send(f"ADD PLAYER P{knock}\n")
            if select.select([cable.master], [], [], 0.25)[0]:
                break
        while json.loads(cable.reply()[3:])["added"] != f"P{knock}":
            pass
        assert cable.ask("STATUS") == {"screen": "Tabletop Companion", "game": None}
        assert cable.ask("NEW final-count Ann,Bob")["game"] == "final-count"
        cable.ask("ROLL")
        assert cable.events[0]["event"]["player"] == "Ann"
        os.write(screen_master, b"q")
        assert sim.wait(WAIT) == 0, sim.stderr.read() if sim.stderr else ""
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait(WAIT)
        if sim.stderr:
            sim.stderr.close()
        cable.close()
        drained.wait(WAIT)
        os.close(screen_master)


def test_companion_console_reports_a_silent_or_vanished_device(tmp_path) -> None:
    """The test plays a device that answers once, then says nothing, then is unplugged."""
    cable = Cable(tmp_path / "ttyACM0")
    read_end, write_end = os.pipe()
    stdin = os.fdopen(read_end, "r", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    result: list[int] = []
    client = threading.Thread(target=lambda: result.append(run_console(
        str(cable.path), stdin=stdin, out=out, err=err, reply_timeout=0.3)))
    client.start()
    try:
        os.write(write_end, b"STATUS\n")
        # pyserial empties the input when it opens the port; the line may come later.
        while b"STATUS\n" not in cable.buffer:
            select.select([cable.master], [], [], WAIT)
            cable.buffer += os.read(cable.master, 4096)
        cable.buffer = b""
        cable.send('EV {"seq":1}\r\nOK {"game":null}\r\n')
        os.write(write_end, b"PLAYERS\n")  # never answered: the client gives up on it
        while b"PLAYERS\n" not in cable.buffer:
            select.select([cable.master], [], [], WAIT)
            cable.buffer += os.read(cable.master, 4096)
        cable.pull()
        os.write(write_end, b"HELP\n")
    finally:
        os.close(write_end)
        client.join(WAIT)
        stdin.close()
        cable.close()
    assert result == [1]
    assert out.getvalue() == 'EV {"seq":1}\nOK {"game":null}\n'
    assert f"companion console: lost {cable.path}" in err.getvalue()
