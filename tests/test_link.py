"""The serial console without a real port: the line splitter (with hypothesis), the
command parser, every command against an app on mock pins, the EV mirror, the reader
fed random bytes, and the whole link over pyserial's ``loop://``."""

from __future__ import annotations

import doctest
import json
import select
import socket
import threading
import time

import pytest
import serial
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import build_parser, main
from companion.clock import ManualClock, monotonic
from companion.config import Buttons, Config, Dice, Idle
from companion.errors import RemoteError
from companion.launch import make_app, serial_console
from companion.remote import protocol
from companion.remote import serial as link_module
from companion.remote.serial import (
    COMMANDS,
    EOL,
    ERRORS,
    MAX_LINE,
    BadLine,
    Command,
    Console,
    Line,
    LineSplitter,
    Link,
    err_line,
    execute,
    parse_command,
)
from companion.sim import sim_board_factory, sim_panel
from companion.transcript import jsonl_lines

WAIT = 30.0  # generous: only a broken build ever waits this long


def test_doctests() -> None:
    results = doctest.testmod(protocol)
    assert results.failed == 0 and results.attempted > 0


# -- the line splitter -------------------------------------------------------------------


def test_line_ends_lf_crlf_and_cr_all_end_one_line() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"A\nB\r\nC\rD\n") == [Line("A"), Line("B"), Line("C"), Line("D")]


def test_crlf_split_across_reads_is_one_line_end() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"STATUS\r") == [Line("STATUS")]
    assert splitter.feed(b"\nHELP\r") == [Line("HELP")]
    assert splitter.feed(b"\n") == []


def test_blank_lines_say_nothing() -> None:
    assert LineSplitter().feed(b"\n\r\n  \t \n\r\r") == []


def test_a_line_of_exactly_max_bytes_is_kept_one_more_is_too_long() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"x" * MAX_LINE + b"\n") == [Line("x" * MAX_LINE)]
    items = splitter.feed(b"y" * (MAX_LINE + 1) + b"\n")
    assert [item.code for item in items] == ["TOOLONG"]


def test_an_over_long_line_gives_one_error_and_the_next_line_is_fine() -> None:
    splitter = LineSplitter()
    items = []
    for _ in range(100):  # 100 KB arriving in pieces, no line end until the last
        items += splitter.feed(b"z" * 1000)
    items += splitter.feed(b"\nSTATUS\n")
    assert items == [BadLine("TOOLONG", items[0].message), Line("STATUS")]
    assert len(splitter._buf) <= MAX_LINE  # never kept more than a line's worth


def test_nul_bytes_invalid_utf8_and_control_characters_are_refused() -> None:
    items = LineSplitter().feed(b"STA\0TUS\n\xc3\x28\nESC\x1b[A\nDEL\x7f\ncaf\xc3\xa9 ok\n")
    assert [getattr(item, "code", None) for item in items] == [
        "BADLINE", "ENCODING", "BADLINE", "BADLINE", None]
    assert items[-1] == Line("café ok")


def test_editing_mode_takes_back_characters_and_echoes() -> None:
    splitter = LineSplitter(editing=True)
    assert splitter.feed("STAX\x7fTUS é\x08!\r".encode()) == [Line("STATUS !")]
    assert bytes(splitter.echo) == b"STAX\b \bTUS \xc3\xa9\b \b!\r\n"
    splitter.echo.clear()
    assert splitter.feed(b"\r") == [] and bytes(splitter.echo) == b"\r\n> "  # Enter alone


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.integers(0, 3000), max_size=8))
def test_random_bytes_split_the_same_whatever_the_chunks(data: bytes, cuts: list[int]) -> None:
    whole = LineSplitter().feed(data)
    splitter = LineSplitter()
    pieces, start = [], 0
    for cut in sorted(cuts):
        pieces.append(data[start:cut])
        start = max(start, cut)
    pieces.append(data[start:])
    chunked = [item for piece in pieces for item in splitter.feed(piece)]
    assert chunked == whole
    line_ends = data.count(b"\n") + data.count(b"\r")
    assert len(whole) <= line_ends
    for item in whole:
        if isinstance(item, Line):
            assert item.text.strip() and len(item.text.encode()) <= MAX_LINE
            assert "\0" not in item.text and "\n" not in item.text and "\r" not in item.text
        else:
            assert item.code in ERRORS and "\n" not in item.message


_TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=60)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_TEXT, st.sampled_from(["\n", "\r\n", "\r"]))))
def test_clean_text_lines_come_back_exactly(lines: list[tuple[str, str]]) -> None:
    data = "".join(text + end for text, end in lines).encode()
    expected = [Line(text) for text, _ in lines if text.strip()]
    assert LineSplitter().feed(data) == expected


# -- parsing commands ----------------------------------------------------------------------


@pytest.mark.parametrize("text, command", [
    ("HELP", Command("HELP")),
    ("status", Command("STATUS")),
    ("PLAYERS", Command("PLAYERS")),
    ("ADD PLAYER Mary Ann", Command("ADD PLAYER", ("Mary Ann",))),
    ("add player Zoë", Command("ADD PLAYER", ("Zoë",))),
    ("NEW final-count Ann,Bob,Cy hit_goal=true",
     Command("NEW", ("final-count", ["Ann", "Bob", "Cy"], {"hit_goal": True}, False))),
    ("NEW final-count Mary Ann, Bob",
     Command("NEW", ("final-count", ["Mary Ann", "Bob"], {}, False))),
    ("NEW final-count Ann,Bob --force",
     Command("NEW", ("final-count", ["Ann", "Bob"], {}, True))),
    ("NEW final-count Ann,Bob --force hit_goal=true",  # not a player "Bob --force"
     Command("NEW", ("final-count", ["Ann", "Bob"], {"hit_goal": True}, True))),
    ("NEW final-count Ann,Bob hit_goal=true --Force",
     Command("NEW", ("final-count", ["Ann", "Bob"], {"hit_goal": True}, True))),
    ("LEAVE", Command("LEAVE")),
    ("REMOVE PLAYER Mary Ann", Command("REMOVE PLAYER", ("Mary Ann",))),
    ("RENAME PLAYER Mary Ann, Marianne", Command("RENAME PLAYER", ("Mary Ann", "Marianne"))),
    ('EVENT {"type": "call", "player": "Ann"}',
     Command("EVENT", ({"type": "call", "player": "Ann"},))),
    ("ROLL", Command("ROLL")),
    ("UNDO", Command("UNDO")),
    ("HISTORY", Command("HISTORY", (10,))),
    ("HISTORY 3", Command("HISTORY", (3,))),
    ("EXPORT current jsonl", Command("EXPORT", ("current", "jsonl"))),
    ("EXPORT", Command("EXPORT", ("current", "jsonl"))),
    ("EXPORT 12 csv", Command("EXPORT", ("12", "csv"))),
    ("PROMPT on", Command("PROMPT", (True,))),
])
def test_commands_parse(text: str, command: Command) -> None:
    assert parse_command(text) == command


@pytest.mark.parametrize("text, code", [
    ("FROB", "UNKNOWN"),
    ("x" * 500, "UNKNOWN"),
    ("STATUS now", "BADARG"),
    ("ADD", "BADARG"),
    ("ADD PLAYERS Ann", "BADARG"),
    ("ADD PLAYER", "BADARG"),
    ("NEW", "BADARG"),
    ("NEW final-count", "BADARG"),
    ("NEW final-count hit_goal=true", "BADARG"),
    ("NEW final-count Ann,,Bob", "BADARG"),
    ('NEW final-count Ann,Bob x={"', "BADARG"),
    ("EVENT", "BADJSON"),
    ("EVENT {", "BADJSON"),
    ("EVENT [1, 2]", "BADJSON"),
    ('EVENT {"type": NaN}', "BADJSON"),
    ("EVENT " + "[" * 1000, "BADJSON"),
    ("HISTORY 0", "BADARG"),
    ("HISTORY 101", "BADARG"),
    ("HISTORY ²", "BADARG"),
    ("EXPORT current pdf", "BADARG"),
    ("EXPORT yesterday", "BADARG"),
    ("EXPORT a b c", "BADARG"),
    ("PROMPT maybe", "BADARG"),
])
def test_bad_commands_are_refused_with_their_code(text: str, code: str) -> None:
    with pytest.raises(RemoteError) as caught:
        parse_command(text)
    assert caught.value.code == code
    reply = err_line(caught.value.code, caught.value.message)
    assert reply.startswith(f"ERR {code} ") and "\n" not in reply and len(reply) < 400


# -- commands against an app (this thread is the owner: nothing else runs) ----------------------


def quiet_config() -> Config:
    # bounce_time 0: every edge counts; hold_time 10 s: a press is never long by accident.
    return Config(buttons=Buttons(bounce_time=0.0, hold_time=10.0), idle=Idle(0.0, 0.0, 0.0))


def physical_config() -> Config:
    """A table that rolls real dice and types the faces in ([dice] physical = true)."""
    return quiet_config()._replace(dice=Dice(physical=True))


@pytest.fixture
def owned(tmp_path):
    """An app on mock pins with a manual clock, driven from the test's own thread."""
    made = []

    def build(config: Config | None = None, store: bool = True):
        app = make_app(config or quiet_config(), board_factory=sim_board_factory,
                       panel=sim_panel(), clock=ManualClock(), seed=3,
                       state_dir=tmp_path / f"state{len(made)}" if store else None)
        app.start()
        made.append(app)
        return app

    yield build
    for app in made:
        app.board.close()
        if app.ctx.store is not None:
            app.ctx.store.close()


def run(app, text: str) -> tuple[str, object]:
    """Execute one command line; (code, payload): ("OK", json) or (ERR code, message)."""
    try:
        reply = execute(app, parse_command(text))
    except RemoteError as problem:
        reply = err_line(problem.code, problem.message)
    assert "\n" not in reply and "\r" not in reply
    head, _, rest = reply.partition(" ")
    if head == "OK":
        return "OK", json.loads(rest)
    assert head == "ERR", reply
    code, _, message = rest.partition(" ")
    assert code in ERRORS and message
    return code, message


def ok(app, text: str):
    code, payload = run(app, text)
    assert code == "OK", payload
    return payload


def play_hand(app, winner_cards=("A", "K", "Q")) -> None:
    """One hand of Final Count through EVENT at a table with real dice (an app made with
    :func:`physical_config`): each player enters a 4 once (no cards drawn), the next
    calls, the final round enters 4s; the first player entered wins."""
    state = ok(app, "STATUS")
    for _ in state["players"]:
        ok(app, 'EVENT ' + json.dumps({"type": "roll", "player": state_player(app),
                                       "value": 4}))
    ok(app, 'EVENT ' + json.dumps({"type": "call", "player": state_player(app)}))
    while ok(app, "STATUS")["state"]["phase"] == "play":
        ok(app, 'EVENT ' + json.dumps({"type": "roll", "player": state_player(app),
                                       "value": 4}))
    ok(app, 'EVENT {"type": "board", "cards": ["10", "J"]}')
    cards = [list(winner_cards), ["2", "3", "4"], ["5", "6", "7"], ["8", "9", "8"]]
    for player, hand in zip(state["players"], cards, strict=False):
        ok(app, "EVENT " + json.dumps({"type": "hand", "player": player, "cards": hand}))


def state_player(app) -> str:
    return ok(app, "STATUS")["state"]["current"]


def test_status_outside_a_game_names_the_screen(owned) -> None:
    app = owned()
    assert ok(app, "STATUS") == {"screen": "Tabletop Companion", "game": None}


def test_roster_commands(owned) -> None:
    app = owned()
    assert ok(app, "PLAYERS") == []
    assert ok(app, "ADD PLAYER Dee") == {"added": "Dee", "count": 1}
    assert run(app, "ADD PLAYER dee")[0] == "STORE"  # already there (any case)
    assert run(app, "ADD PLAYER Bartholomew-Jr")[0] == "BADARG"  # longer than the screen
    assert ok(app, "PLAYERS") == ["Dee"]


def test_new_starts_the_game_on_the_screen(owned) -> None:
    app = owned()
    status = ok(app, "NEW final-count Ann,Bob,Cy hit_goal=true")
    assert status["game"] == "final-count" and status["players"] == ["Ann", "Bob", "Cy"]
    assert status["options"] == {"hit_goal": True}
    assert status["expecting"]["types"] == ["goal"]
    assert app.current_session().match_id == status["match_id"]
    assert ok(app, "STATUS") == status
    assert set(app.ctx.store.roster()) == {"Ann", "Bob", "Cy"}


@pytest.mark.parametrize("text", [
    "NEW chess Ann,Bob",
    "NEW final-count Ann",
    "NEW final-count Ann,Ann",
    "NEW final-count Ann,Bob,Cy,Dee,Eve",
    "NEW final-count Ann,Bartholomew-Jr",
    "NEW final-count Ann,Bob hit_goal=7",
    "NEW final-count Ann,Bob speed=3",
])
def test_new_with_bad_setup_is_refused_and_stores_nothing(owned, text: str) -> None:
    app = owned()
    assert run(app, text)[0] == "BADARG"
    assert app.current_session() is None
    assert app.ctx.store.unfinished() is None


def test_event_applies_through_the_store_and_the_screen_follows(owned) -> None:
    app = owned()
    match_id = ok(app, "NEW final-count Ann,Bob")["match_id"]
    before = app.panel.last_image.tobytes()
    reply = ok(app, 'EVENT {"type": "roll", "player": "Ann"}')  # the device rolls it
    assert reply["seq"] == 1 and reply["match_id"] == match_id
    assert reply["event"] == {"type": "roll", "player": "Ann", "value": reply["event"]["value"]}
    assert reply["event"]["value"] in range(1, 7)
    assert reply["expecting"]["player"] == "Bob"
    assert app.ctx.store.events(match_id) == [reply["event"]]
    shown = app.panel.last_image.tobytes()
    assert shown != before and shown == app.screen.render().tobytes()


@pytest.mark.parametrize("event", [
    {"type": "roll", "player": "Ann", "value": 3},      # Bob's turn now
    {"type": "roll", "player": "Bob", "value": 7},      # no such face
    {"type": "roll", "player": "Bob", "value": 3, "x": 1},
    {"type": "roll", "player": "Dee", "value": 3},
    {"type": "roll", "player": "Bob", "value": 3, "entered": False},  # true, or left out
    {"type": "board", "cards": ["A", "2"]},             # not the moment
    {"type": "teleport"},
    {"player": "Ann"},
])
def test_an_illegal_event_changes_nothing(owned, event) -> None:
    app = owned(physical_config())
    match_id = ok(app, "NEW final-count Ann,Bob")["match_id"]
    ok(app, 'EVENT {"type": "roll", "player": "Ann", "value": 2}')
    state = ok(app, "STATUS")
    screen = app.screen
    code, message = run(app, "EVENT " + json.dumps(event))
    assert code == "ILLEGAL", message
    assert ok(app, "STATUS") == state
    assert app.screen is screen
    assert len(app.ctx.store.events(match_id)) == 1


def test_game_commands_need_a_game(owned) -> None:
    app = owned()
    for text in ("ROLL", "UNDO", 'EVENT {"type": "call", "player": "Ann"}'):
        assert run(app, text)[0] == "NOGAME"
    assert run(app, "EXPORT current")[0] == "NOGAME"


def test_roll_does_what_the_roll_button_does(owned) -> None:
    app = owned()
    ok(app, "NEW final-count Ann,Bob,Cy hit_goal=true")
    goal = ok(app, "ROLL")  # the Hit Goal: both dice with one ROLL
    assert goal["event"]["type"] == "goal" and len(goal["event"]["rolls"]) == 2
    beeps = app.board.beeps
    roll = ok(app, "ROLL")
    assert roll["event"]["type"] == "roll" and roll["event"]["player"] == "Ann"
    assert roll["event"]["value"] in range(1, 7)
    assert app.board.beeps == beeps + 1  # the same beep and spin as the button
    assert ok(app, "STATUS")["state"]["last_roll"]["value"] == roll["event"]["value"]


def test_roll_when_nothing_is_to_be_rolled_is_illegal(owned) -> None:
    app = owned()
    ok(app, "NEW final-count Ann,Bob")
    ok(app, 'EVENT {"type": "call", "player": "Ann"}')
    ok(app, 'EVENT {"type": "roll", "player": "Bob"}')
    assert ok(app, "STATUS")["state"]["phase"] == "board"
    code, message = run(app, "ROLL")
    assert code == "ILLEGAL" and "Board" in message


def test_roll_from_a_menu_goes_back_to_the_table(owned) -> None:
    from companion.device.buttons import Press

    app = owned()
    ok(app, "NEW final-count Ann,Bob")
    app.set_screen(app.screen.press(app.ctx, Press("back")))  # the game menu
    assert app.screen is not app.game_screen()
    ok(app, "ROLL")
    assert app.screen is app.game_screen()


def test_undo_takes_back_the_last_event_everywhere(owned) -> None:
    app = owned()
    match_id = ok(app, "NEW final-count Ann,Bob")["match_id"]
    rolled = ok(app, 'EVENT {"type": "roll", "player": "Ann"}')["event"]
    reply = ok(app, "UNDO")
    assert reply["undone"] == rolled
    assert reply["seq"] == 0 and reply["expecting"]["player"] == "Ann"
    assert app.ctx.store.events(match_id) == []
    code, message = run(app, "UNDO")
    assert code == "ILLEGAL" and "nothing to undo" in message


def test_a_whole_game_then_history_and_export(owned) -> None:
    app = owned(physical_config())
    match_id = ok(app, "NEW final-count Ann,Bob,Cy")["match_id"]
    for _ in range(8):
        play_hand(app)
        if ok(app, "STATUS")["over"]:
            break
    final = ok(app, "STATUS")
    assert final["over"] and final["state"]["winners"] == ["Ann"]
    assert run(app, 'EVENT {"type": "call", "player": "Ann"}')[0] == "ILLEGAL"
    history = ok(app, "HISTORY 5")
    assert [record["id"] for record in history] == [match_id]
    assert history[0]["result"]["winners"] == ["Ann"]
    store = app.ctx.store
    expected = jsonl_lines(store.match(match_id), store.events(match_id))
    assert ok(app, "EXPORT last jsonl") == expected
    assert ok(app, f"EXPORT {match_id}") == expected
    sheet = ok(app, "EXPORT last csv")
    assert sheet[0] == "hand,Ann,Bob,Cy" and sheet[-1].startswith("total,")
    assert run(app, "EXPORT 99")[0] == "STORE"


def test_export_current_is_the_game_on_the_screen(owned) -> None:
    app = owned()
    ok(app, "NEW final-count Ann,Bob")
    rolled = ok(app, 'EVENT {"type": "roll", "player": "Ann"}')["event"]
    start, *events = [json.loads(line) for line in ok(app, "EXPORT current jsonl")]
    assert start.items() >= {"type": "start", "game": "final-count", "players": ["Ann", "Bob"],
                             "options": {"hit_goal": False}}.items()
    assert events == [rolled]


def test_without_a_game_log_games_still_play_in_memory(owned) -> None:
    app = owned(store=False)
    assert run(app, "PLAYERS")[0] == "STORE"
    assert run(app, "HISTORY")[0] == "STORE"
    assert run(app, "EXPORT last")[0] == "STORE"
    assert ok(app, "NEW final-count Ann,Bob")["match_id"] is None
    ok(app, 'EVENT {"type": "roll", "player": "Ann"}')
    assert len(ok(app, "EXPORT current jsonl")) == 2


def test_a_console_change_wakes_a_dimmed_panel(owned) -> None:
    app = owned(Config(buttons=Buttons(bounce_time=0.0, hold_time=10.0),
                       idle=Idle(dim_after=60.0, blank_after=0.0, shift_every=0.0)))
    ok(app, "NEW final-count Ann,Bob")
    app.clock.advance(61)
    app.pump()
    assert app.dimmed
    ok(app, "STATUS")  # reading changes nothing at the table
    assert app.dimmed
    ok(app, 'EVENT {"type": "roll", "player": "Ann"}')
    assert not app.dimmed


def test_a_bug_in_a_command_is_an_error_reply_not_a_dead_device(owned, monkeypatch) -> None:
    app = owned()

    def broken(app):
        raise KeyError("oops")

    monkeypatch.setitem(link_module._RUN, "STATUS", broken)
    code, message = run(app, "STATUS")
    assert code == "INTERNAL" and "KeyError" in message


def test_help_lists_every_command_one_line_each() -> None:
    sent: list[bytes] = []
    console = Console(app=None, send=sent.append)  # type: ignore[arg-type]
    console.feed(b"HELP\n")
    (reply,) = sent
    assert reply.endswith(EOL.encode()) and reply.count(b"\n") == 1
    listed = json.loads(reply.decode()[3:])
    assert len(listed) == len(COMMANDS)
    for name in ("HELP", "STATUS", "PLAYERS", "ADD PLAYER", "NEW", "EVENT", "ROLL", "UNDO",
                 "HISTORY", "EXPORT"):
        assert any(line.startswith(name) for line in listed), name


# -- the console with an app on its own thread -----------------------------------------------


@pytest.fixture
def device(tmp_path):
    """An app running headless on its own thread (real clock), as on the Pi."""
    app = make_app(quiet_config(), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=monotonic, seed=5, state_dir=tmp_path / "state")
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    yield app
    app.quit()
    thread.join(WAIT)
    app.board.close()
    app.ctx.store.close()


class Recorder:
    """Collects what a Console sends, split into lines."""

    def __init__(self) -> None:
        self.data = bytearray()

    def __call__(self, data: bytes) -> None:
        self.data += data

    def lines(self) -> list[str]:
        return [line for line in self.data.decode().split(EOL) if line]


def test_ev_mirror_pushes_events_from_buttons_and_console(device) -> None:
    sent = Recorder()
    console = Console(device, sent)
    console.attach()
    console.feed(b"NEW final-count Ann,Bob\n")
    device.board.press("roll")
    device.board.release("roll")
    console.feed(b'EVENT {"type": "call", "player": "Bob"}\n')  # queued after the press
    lines = sent.lines()
    evs = [json.loads(line[3:]) for line in lines if line.startswith("EV ")]
    assert [(ev["seq"], ev["event"]["type"]) for ev in evs] == [(1, "roll"), (2, "call")]
    assert evs[0]["event"]["player"] == "Ann" and evs[0]["game"] == "final-count"
    # The mirror line comes before the reply of the command that caused it.
    assert lines[-2].startswith("EV ") and lines[-1].startswith("OK ")
    console.feed(b"UNDO\n")
    undo = json.loads(sent.lines()[-2][3:])
    assert undo["seq"] == 1 and undo["undone"] == {"type": "call", "player": "Bob"}
    assert "event" not in undo
    console.detach()
    assert console.on_event not in device.ctx.listeners


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks=st.lists(st.binary(max_size=400), max_size=12))
def _fuzz(device, chunks: list[bytes]) -> None:
    sent = Recorder()
    console = Console(device, sent)
    for chunk in chunks:
        console.feed(chunk)
    console.feed(b"\nSTATUS\n")
    lines = sent.data.decode().split(EOL)
    assert lines[-1] == ""  # every reply is a whole line
    replies = lines[:-1]
    assert replies[-1] == 'OK {"screen":"Tabletop Companion","game":null}'
    for line in replies[:-1]:
        assert line.startswith("ERR ") and line.split()[1] in ERRORS, line
    data = b"".join(chunks)
    # At most one reply per line: those ended in the data, and the one "\n" closes.
    assert len(replies) - 1 <= data.count(b"\n") + data.count(b"\r") + 1


def test_random_bytes_never_kill_the_reader_or_change_anything(device) -> None:
    screen = device.screen
    _fuzz(device)
    assert device.screen is screen
    assert device.ctx.store.unfinished() is None and device.ctx.store.roster() == []


# -- the whole link over loop:// -------------------------------------------------------------


def test_link_over_loop_runs_commands_and_ignores_its_own_echo(device) -> None:
    link = Link(device, "loop://", retry=0.05)
    sent = Recorder()
    send = link.console.send
    link.console.send = lambda data: (sent(data), send(data))  # type: ignore[method-assign]
    with link:
        assert link.connected.wait(WAIT)
        # loop:// hands every reply straight back to the reader, like a host tty with
        # echo on: it must be ignored, not answered (that would never end).
        link.port.write(b"ADD PLAYER Zed\r\n")
        wait_for(lambda: link.console.ignored == 1)
        link.port.write(b"FROB\n\xff\n")
        wait_for(lambda: link.console.ignored == 3)
        link.port.write(b"PLAYERS\n")
        wait_for(lambda: link.console.ignored == 4)
    assert sent.lines() == [
        'OK {"added":"Zed","count":1}',
        "ERR UNKNOWN no command 'FROB'; HELP lists the commands",
        "ERR ENCODING the line is not UTF-8 (byte 1)",
        'OK ["Zed"]',
    ]
    assert link.console.on_event not in device.ctx.listeners


def test_reading_a_loop_port_in_pieces_gives_the_same_lines() -> None:
    port = serial.serial_for_url("loop://", timeout=None)
    data = b"HELP\r\nSTA" + b"TUS\r" + b"\nx" * 3 + b"\0\n" + b"q" * 2000 + b"\n"
    for start in range(0, len(data), 7):
        port.write(data[start:start + 7])
    splitter = LineSplitter()
    items: list[Line | BadLine] = []
    while len(items) < 6:
        chunk = port.read(1)
        chunk += port.read(port.in_waiting)
        items += splitter.feed(chunk)
    port.close()
    assert items[:4] == [Line("HELP"), Line("STATUS"), Line("x"), Line("x")]
    assert [item.code for item in items[4:]] == ["BADLINE", "TOOLONG"]  # x NUL; 2000 q


# -- the whole link over socket:// (a TCP server on this machine) -------------------------------


def test_a_command_sent_while_the_socket_opens_is_answered(device, monkeypatch) -> None:
    # The peer's command arrives after the connection stands but before pyserial's
    # open() returns, every time: that open() used to empty its input just then.
    from serial.urlhandler import protocol_socket

    connect = socket.create_connection

    def connect_then_wait_for_the_peer(*args, **kwargs):
        sock = connect(*args, **kwargs)
        select.select([sock], [], [], WAIT)  # bounded: until the peer's bytes are here
        return sock

    monkeypatch.setattr(protocol_socket.socket, "create_connection",
                        connect_then_wait_for_the_peer)
    with socket.create_server(("127.0.0.1", 0)) as server:
        link = Link(device, socket_url(server), retry=0.01).start()
        try:
            assert first_reply(server, b"STATUS\n").startswith("OK {")
        finally:
            link.stop()


def test_every_socket_connect_and_reconnect_answers_its_first_command(device) -> None:
    for fresh in range(4):
        with socket.create_server(("127.0.0.1", 0)) as server:
            link = Link(device, socket_url(server), retry=0.01).start()
            try:
                for again in range(2):  # a fresh connect, then a reconnect
                    reply = first_reply(server, b"PLAYERS\n")
                    assert reply.startswith("OK ["), (fresh, again, reply)
            finally:
                link.stop()


def socket_url(server: socket.socket) -> str:
    host, port = server.getsockname()[:2]
    return f"socket://{host}:{port}"


def first_reply(server: socket.socket, command: bytes) -> str:
    """Take the link's next connection, send ``command`` the moment it stands, and
    return the first line that comes back; then hang up (the link reconnects)."""
    server.settimeout(WAIT)
    peer, _ = server.accept()
    with peer:
        peer.settimeout(WAIT)
        peer.sendall(command)
        data = b""
        while b"\n" not in data:
            chunk = peer.recv(4096)
            assert chunk, "the link hung up without a reply"
            data += chunk
    return data.split(b"\n")[0].decode().rstrip("\r")


def test_serial_console_runs_a_link_only_with_a_url(device) -> None:
    with serial_console(device, "") as link:
        assert link is None
    with serial_console(device, "loop://", retry=0.05) as link:
        assert link is not None and link.connected.wait(WAIT)
    assert not link.connected.is_set()


def wait_for(condition, timeout: float = WAIT) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


# -- the command line -----------------------------------------------------------------------


def test_console_and_serial_options_parse() -> None:
    args = build_parser().parse_args(["console", "/dev/ttyACM0", "--baud", "9600"])
    assert (args.command, args.port, args.baud) == ("console", "/dev/ttyACM0", 9600)
    args = build_parser().parse_args(["sim", "--serial", "loop://"])
    assert args.serial == "loop://"
    for url in ("socket://192.168.1.20:4000", "/dev/ttyACM9", "rfc2217://[::1]:2217"):
        assert build_parser().parse_args(["sim", "--serial", url]).serial == url


@pytest.mark.parametrize("url", ["nope://x", "socket://host", "socket://host:0",
                                 "rfc2217://:2217"])
def test_a_serial_url_that_can_never_open_is_a_config_error(url) -> None:
    from companion.config import ConfigError, parse_config

    with pytest.raises(ConfigError, match=r"serial\.url"):
        parse_config(f'[serial]\nurl = "{url}"\n')
    assert parse_config('[serial]\nurl = "/dev/not-plugged-in-yet"\n').serial.url


def test_sim_serial_with_a_script_is_refused(tmp_path, capsys) -> None:
    script = tmp_path / "s.txt"
    script.write_text("OK\n")
    assert main(["sim", "--script", str(script), "--serial", "loop://"]) == 2
    assert "--serial" in capsys.readouterr().err


def test_console_on_a_missing_port_is_one_line(tmp_path, capsys) -> None:
    assert main(["console", str(tmp_path / "no-such-tty")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("companion: cannot open") and err.count("\n") == 1


# -- a second way in never wrecks the first (issue 12, item 5) ---------------------------------


def test_new_while_a_game_is_open_is_refused_and_the_game_stays(owned) -> None:
    app = owned()
    first = ok(app, "NEW final-count Ann,Bob")["match_id"]
    ok(app, 'EVENT {"type": "roll", "player": "Ann"}')
    screen = app.screen
    code, message = run(app, "NEW final-count Cy,Dee")
    assert code == "OPEN" and "LEAVE" in message and str(first) in message
    assert app.screen is screen and app.current_session().match_id == first
    assert app.ctx.store.unfinished().id == first  # still offered, nothing new stored
    assert [record.id for record in app.ctx.store.history(5)] == []


def test_leave_marks_the_open_game_abandoned_and_shows_the_menu(owned) -> None:
    app = owned()
    first = ok(app, "NEW final-count Ann,Bob")["match_id"]
    assert ok(app, "LEAVE") == {"left": first, "game": "final-count"}
    assert app.current_session() is None and app.screen.title == "Tabletop Companion"
    record = app.ctx.store.match(first)
    assert record.abandoned and record.finished is None  # kept, in view as abandoned
    assert run(app, "LEAVE")[0] == "NOGAME"
    assert ok(app, "NEW final-count Cy,Dee")["players"] == ["Cy", "Dee"]


def test_new_with_force_abandons_the_open_game_never_orphans_it(owned) -> None:
    app = owned()
    first = ok(app, "NEW final-count Ann,Bob")["match_id"]
    second = ok(app, "NEW final-count Cy,Dee --force")["match_id"]
    store = app.ctx.store
    assert store.match(first).abandoned
    assert store.unfinished().id == second
    # Every match is either the one offered for resume or marked abandoned.
    for match_id in (first, second):
        record = store.match(match_id)
        assert record.abandoned or record.id == store.unfinished().id


def test_new_while_an_unfinished_game_waits_to_be_resumed_is_refused(owned, tmp_path) -> None:
    app = owned()
    first = ok(app, "NEW final-count Ann,Bob")["match_id"]
    app.ctx.store.close()
    # The device restarts: the unfinished game is offered, not on the screen yet.
    again = make_app(quiet_config(), board_factory=sim_board_factory, panel=sim_panel(),
                     clock=ManualClock(), seed=3, state_dir=tmp_path / "state0")
    again.start()
    try:
        assert again.current_session() is None
        code, message = run(again, "NEW count-up-21 Cy,Dee")
        assert code == "OPEN" and "resumed" in message
        assert again.ctx.store.unfinished().id == first
        assert ok(again, "LEAVE")["left"] == first
        assert again.ctx.store.match(first).abandoned
    finally:
        again.board.close()
        again.ctx.store.close()


def test_a_finished_game_on_the_screen_does_not_block_a_new_one(owned) -> None:
    app = owned(physical_config())
    ok(app, "NEW final-count Ann,Bob,Cy")
    for _ in range(8):
        play_hand(app)
        if ok(app, "STATUS")["over"]:
            break
    assert ok(app, "NEW final-count Ann,Bob")["seq"] == 0


def test_the_roster_has_a_cap_and_add_says_so(owned) -> None:
    from companion.store import ROSTER_MAX

    app = owned()
    for number in range(ROSTER_MAX):
        assert ok(app, f"ADD PLAYER P{number}") == {"added": f"P{number}", "count": number + 1}
    code, message = run(app, "ADD PLAYER Late")
    assert code == "FULL" and str(ROSTER_MAX) in message
    assert len(ok(app, "PLAYERS")) == ROSTER_MAX
    ok(app, "REMOVE PLAYER P7")
    assert ok(app, "ADD PLAYER Late") == {"added": "Late", "count": ROSTER_MAX}


def test_new_never_puts_a_lookalike_of_a_roster_name_on_the_roster(owned) -> None:
    app = owned()
    ok(app, "ADD PLAYER Ann")
    code, message = run(app, "NEW final-count Ànn,Bob")  # the title bar hides the grave
    assert code == "BADARG" and "look like Ann" in message
    assert ok(app, "PLAYERS") == ["Ann"] and ok(app, "STATUS").get("game") is None
    # The roster's own player in another spelling (a Cyrillic А, another case) is Ann.
    assert ok(app, "NEW final-count \u0410nn,Bob")["players"] == ["Ann", "Bob"]
    ok(app, "LEAVE")
    assert ok(app, "NEW final-count ann,bob")["players"] == ["Ann", "Bob"]
    assert sorted(ok(app, "PLAYERS")) == ["Ann", "Bob"]


def test_new_with_new_names_respects_the_roster_cap(owned) -> None:
    from companion.store import ROSTER_MAX

    app = owned()
    for number in range(ROSTER_MAX - 1):
        ok(app, f"ADD PLAYER P{number}")
    code, message = run(app, "NEW final-count Ann,Bob")  # two new names, room for one
    assert code == "FULL" and "Ann, Bob cannot join" in message
    assert len(ok(app, "PLAYERS")) == ROSTER_MAX - 1 and ok(app, "STATUS").get("game") is None
    ok(app, "NEW final-count P0,P1")  # names on the roster: always a game
    ok(app, "LEAVE")
    ok(app, "NEW final-count Ann,P1")  # one new name fits exactly
    assert len(ok(app, "PLAYERS")) == ROSTER_MAX


def test_event_with_nan_or_infinity_says_so(owned) -> None:
    app = owned()
    ok(app, "NEW final-count Ann,Bob")
    for constant in ("NaN", "Infinity", "-Infinity"):
        code, message = run(app, f'EVENT {{"type": "roll", "player": "Ann", "value": {constant}}}')
        assert code == "BADJSON" and constant in message and "nested" not in message, message


def test_rename_and_remove_players(owned) -> None:
    app = owned()
    ok(app, "ADD PLAYER Ann")
    ok(app, "ADD PLAYER Bob")
    assert ok(app, "RENAME PLAYER ann, Anna") == {"renamed": "ann", "to": "Anna"}
    assert sorted(ok(app, "PLAYERS")) == ["Anna", "Bob"]
    assert run(app, "RENAME PLAYER Anna,bob")[0] == "STORE"  # taken
    assert run(app, "RENAME PLAYER Zed,Zoe")[0] == "STORE"  # not there
    assert ok(app, "REMOVE PLAYER BOB") == {"removed": "BOB", "count": 1}
    assert ok(app, "PLAYERS") == ["Anna"]


def test_export_of_a_match_number_beyond_any_id_is_one_clear_error(owned) -> None:
    app = owned()
    code, message = run(app, "EXPORT 99999999999999999999999")
    assert code == "STORE" and "no match" in message


def test_a_command_the_owner_cannot_take_in_time_is_busy_and_never_runs_late(device) -> None:
    release = threading.Event()
    device.post("call", lambda app: release.wait(WAIT))  # the owner thread is stuck
    sent = Recorder()
    console = Console(device, sent, timeout=0.2)
    console.feed(b"ADD PLAYER Zed\n")
    (line,) = sent.lines()
    assert line.startswith("ERR BUSY ") and "add player was not run" in line
    release.set()
    console.feed(b"PLAYERS\n")  # runs after the refused one would have
    assert sent.lines()[-1] == "OK []"


def test_too_many_waiting_commands_are_busy_at_once(device) -> None:
    from companion.remote import calls, commands

    release = threading.Event()
    device.post("call", lambda app: release.wait(WAIT))
    results: list[object] = []

    def ask(name: str) -> None:
        try:
            results.append(commands.call(device, commands.add_player, name, timeout=WAIT))
        except commands.RemoteError as problem:
            results.append(problem.code)

    waiting = [threading.Thread(target=ask, args=(f"P{n}",)) for n in
               range(commands.PENDING_MAX)]
    for thread in waiting:
        thread.start()
    wait_for(lambda: calls._pending_count.get(id(device)) == commands.PENDING_MAX)
    with pytest.raises(commands.RemoteError) as caught:
        commands.call(device, commands.add_player, "Late", timeout=WAIT)
    assert caught.value.code == "BUSY" and "was not run" in caught.value.message
    release.set()
    for thread in waiting:
        thread.join(WAIT)
    assert len(results) == commands.PENDING_MAX and "BUSY" not in results
    assert "Late" not in device.ctx.store.roster()


# -- the transport-free commands the web page shares ------------------------------------------


def test_state_is_the_match_for_the_page(owned) -> None:
    from companion.remote import commands

    app = owned(physical_config())
    assert commands.state(app)["match"] is None
    ok(app, "NEW final-count Ann,Bob,Cy")
    ok(app, 'EVENT {"type": "roll", "player": "Ann", "value": 5}')
    state = commands.state(app)
    assert state["game"] == "final-count" and state["players"] == ["Ann", "Bob", "Cy"]
    assert state["totals"] == {"Ann": 0, "Bob": 0, "Cy": 0} and state["seq"] == 1
    assert state["over"] is False and state["winners"] == [] and state["turn"] == "Bob"
    assert state["prompt"] == app.current_session().match.expecting().prompt
    assert state["saved"] is True
    json.dumps(state)  # JSON as it is
    for _ in range(8):
        play_hand(app)
        if ok(app, "STATUS")["over"]:
            break
    final = commands.state(app)
    assert final["over"] and final["winners"] == ["Ann"]


def test_ev_payload_is_what_the_serial_mirror_pushes(device) -> None:
    from companion.remote import commands

    sent = Recorder()
    console = Console(device, sent)
    console.attach()
    seen: list[dict] = []
    device.ctx.listeners.append(
        lambda session, event, undone=False: seen.append(
            commands.ev_payload(session, event, undone)))
    console.feed(b"NEW final-count Ann,Bob\nROLL\nUNDO\n")
    pushed = [json.loads(line[3:]) for line in sent.lines() if line.startswith("EV ")]
    assert pushed == seen and [p.get("undone") is not None for p in pushed] == [False, True]
    console.detach()


def test_run_turns_every_failure_into_a_remote_error(owned) -> None:
    from companion.remote import commands

    app = owned()
    with pytest.raises(RemoteError) as caught:
        commands.run(app, "event", {"type": "call"})
    assert caught.value.code == "NOGAME"
    with pytest.raises(RemoteError) as caught:
        commands.run(app, "new_game", "chess", ["Ann", "Bob"], {})
    assert caught.value.code == "BADARG"
    with pytest.raises(RemoteError) as caught:
        commands.run(app, "frobnicate")
    assert caught.value.code == "BADARG"
    # On the owner thread itself call() runs at once instead of waiting for itself.
    assert commands.call(app, commands.players) == []


def test_the_docs_list_every_command_and_every_error_code() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parent.parent / "docs" / "events.md").read_text("utf-8")
    section = docs[docs.index("## Serial console"):]
    for usage, _ in COMMANDS:
        words = usage.split()
        head = " ".join(words[:2]) if words[0] in ("ADD", "RENAME", "REMOVE") else words[0]
        assert f"| `{head}" in section, usage
    for code in ERRORS:
        assert f"| `{code}` |" in section, code


def test_the_outbox_keeps_every_reply_and_says_how_many_ev_lines_it_dropped() -> None:
    from companion.remote.serial import Outbox

    box = Outbox(limit=2, room=2)
    box.put(b"EV 1\r\n", droppable=True)
    box.put(b"EV 2\r\n", droppable=True)
    box.put(b"EV 3\r\n", droppable=True)  # nobody reads: dropped, counted
    box.put(b"OK reply\r\n")  # a reply is never dropped
    assert len(box) == 3
    assert box.take() == b'EV {"missed":1}\r\nEV 1\r\n'
    assert [box.take(), box.take()] == [b"EV 2\r\n", b"OK reply\r\n"]
    box.close()
    assert box.take() is None
