"""Quitting with a full card (issue 28, item 4): quitting while events wait to be
written says how many on the screen and asks; what a quit loses is said again at the
next start, from a note the card can take even when full; ``--log-events`` prints an
event as ``event {json}`` only once it is on disk, and ``not saved yet {json}`` before;
the simulator's own warnings reach the terminal when their file is on the full card."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
from test_storage_lost import fill, small_card, wall  # noqa: F401 - fixtures
from test_store_on_device import Storage, device, stored_events, tap

from companion.clock import ManualClock
from companion.errors import StoreError
from companion.gamelog import GameLog, LostNote
from companion.logs import logging_to
from companion.remote import commands
from companion.sim import NOT_SAVED, EventLines, say_problems
from companion.store import Store
from companion.ui.quit import QuitUnsaved

FULL = "cannot write the game log: disk full"


def refuse(*args, **kw):
    raise StoreError(FULL)


def play_until_unsaved(app, storage: Storage, unsaved: int = 3):
    """Final Count: the start and one roll saved, then the card is full and ``unsaved``
    rolls are played in memory only."""
    tap(app, "ok")  # Final Count
    tap(app, "roll")  # start with the default seats
    tap(app, "roll")
    session = app.current_session()
    storage.refusing = True
    app.ctx.store.append = refuse
    for _ in range(unsaved):
        tap(app, "roll")
    assert not session.saved and len(session.match.events) == 1 + unsaved
    return session


def room_until_played() -> Storage:
    """The storage seam: writable until :func:`play_until_unsaved` fills the card."""
    storage = Storage(FULL)
    storage.refusing = False
    return storage


def ask_to_quit(app) -> None:
    """The simulator's q: a quit a person can be asked about."""
    app.quit(ask=True)
    app.pump()


def screen_words(app) -> str:
    return " ".join(app.screen.lines)


def test_quitting_from_the_keys_asks_first_and_the_next_start_says_what_was_lost(
        tmp_path: Path, wall: ManualClock) -> None:  # noqa: F811 - the fixture
    state = tmp_path / "state"
    storage = room_until_played()
    with device(state, storage) as app:
        session = play_until_unsaved(app, storage)
        table = app.screen
        ask_to_quit(app)
        assert app.running and isinstance(app.screen, QuitUnsaved)
        assert screen_words(app) == ("3 events are not saved: free some space first, or "
                                     "they are lost.")
        tap(app, "back")  # stay: the game goes on as it was
        assert app.running and app.screen is table
        ask_to_quit(app)
        assert isinstance(app.screen, QuitUnsaved)
        tap(app, "ok")  # quit all the same
        assert not app.running
        match_id = session.match_id
    assert len(stored_events(state, match_id)) == 1  # the three rolls are gone
    assert "3 events of Final Count" in LostNote(state).read()

    with device(state, Storage(FULL)) as app:  # the card is still full: read only
        assert app.screen.title == "Game log"
        said = " ".join(app.screen.lines)
        assert "Not saved last time: 3 events of Final Count were lost" in said
        assert "disk full" in said and "Games are not saved" in said
    again = Storage()
    again.refusing = False
    with device(state, again) as app:  # room again: said once more, then cleared
        assert app.screen.title == "Game log" and "3 events" in " ".join(app.screen.lines)
        tap(app, "ok")
        assert app.screen.title != "Game log"  # the offer to resume the game follows
    with device(state, again) as app:
        assert app.screen.title != "Game log"
    assert LostNote(state).read() == ""


def test_a_second_quit_key_at_the_question_quits(tmp_path: Path) -> None:
    state = tmp_path / "state"
    storage = room_until_played()
    with device(state, storage) as app:
        play_until_unsaved(app, storage, unsaved=1)
        ask_to_quit(app)
        assert isinstance(app.screen, QuitUnsaved)
        assert screen_words(app).startswith("1 event is not saved")
        ask_to_quit(app)
        assert not app.running
    assert "1 event of Final Count" in LostNote(state).read()


def test_room_made_before_quitting_again_saves_everything_and_asks_nothing(
        tmp_path: Path) -> None:
    state = tmp_path / "state"
    storage = room_until_played()
    with device(state, storage) as app:
        session = play_until_unsaved(app, storage)
        ask_to_quit(app)
        tap(app, "back")
        storage.refusing = False  # the owner freed some space
        ask_to_quit(app)
        assert not app.running
        assert stored_events(state, session.match_id) == session.match.events
    assert LostNote(state).read() == ""


def test_a_quit_nobody_can_answer_still_leaves_the_note(tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    state = tmp_path / "state"
    storage = room_until_played()
    with device(state, storage) as app:
        play_until_unsaved(app, storage, unsaved=2)
        app.quit()  # systemd's stop, or the end of the simulator's input
        app.pump()
        assert not app.running
    assert "2 events of Final Count are lost" in caplog.text
    assert "2 events of Final Count" in LostNote(state).read()


def test_the_note_is_written_on_a_real_full_card(small_card: Path, wall: ManualClock,  # noqa: F811
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.store import schema

    monkeypatch.setattr(schema, "PAGE_SIZE", 4096)  # as in test_storage_lost
    state = small_card / "state"
    with device(state, None) as app:
        tap(app, "ok")  # Final Count
        tap(app, "roll")
        tap(app, "roll")
        session = app.current_session()
        fill(small_card)
        for _ in range(3):
            tap(app, "roll")
        assert not session.saved and "disk full" in app.game_log.problem
        ask_to_quit(app)
        assert screen_words(app).startswith("3 events are not saved")
        tap(app, "ok")
        assert not app.running
    with _opened(state) as game_log:
        assert "Not saved last time: 3 events of Final Count" in game_log.notice


class _opened:
    """GameLog.open as a context manager (closed after)."""

    def __init__(self, state: Path):
        self.game_log = GameLog.open(state, 0.0)

    def __enter__(self) -> GameLog:
        return self.game_log

    def __exit__(self, *exc: object) -> None:
        self.game_log.close()


def test_log_events_prints_an_event_once_it_is_on_disk(tmp_path: Path) -> None:
    state = tmp_path / "state"
    storage = room_until_played()
    printed: list[str] = []
    with device(state, storage) as app:
        lines = EventLines(printed.append)
        app.ctx.listeners.append(lines)
        app.saved_watchers.append(lines.saved)
        session = play_until_unsaved(app, storage, unsaved=3)
        commands.run(app, "undo")  # as the serial console and the page take one back
        assert len(session.match.events) == 3
        kinds = [line.split(" {")[0] for line in printed]
        assert kinds == ["event", NOT_SAVED, NOT_SAVED, NOT_SAVED]
        storage.refusing = False
        app.clock.advance(30)
        app.pump()
        assert app.screen.title == "Saved again"
    on_disk = [json.loads(line[len("event "):]) for line in printed
               if line.startswith("event ")]
    assert on_disk == session.match.events == stored_events(state, session.match_id)
    assert len(printed) == 4 + 2  # the undone roll never shows as on disk


def test_the_simulators_warnings_reach_the_terminal_when_their_file_cannot_take_them(
        ) -> None:
    with logging_to(Path("/dev/full")) as logged:  # a file on a full disk
        logging.getLogger("companion").error("games are not saved: disk full")
    err = io.StringIO()
    say_problems(logged, Path("/dev/full"), err)
    text = err.getvalue()
    assert "companion: 1 problem; /dev/full could not take it (its disk refused):" in text
    assert "games are not saved: disk full" in text
    assert "logged in" not in text


def test_warnings_in_a_file_that_took_them_are_pointed_at(tmp_path: Path) -> None:
    log_file = tmp_path / "companion.log"
    with logging_to(log_file) as logged:
        logging.getLogger("companion").warning("the club broker is away")
    err = io.StringIO()
    say_problems(logged, log_file, err)
    assert err.getvalue() == f"companion: 1 problem logged in {log_file}\n"
    assert "the club broker is away" in log_file.read_text()


def test_a_log_that_refuses_at_start_makes_no_note_and_says_nothing_old(tmp_path: Path
                                                                          ) -> None:
    state = tmp_path / "state"
    Store.in_dir(state).close()
    game_log = GameLog.open(state, 0.0, opener=Storage(FULL))
    try:
        assert game_log.notice == f"Games are not saved: {FULL}"
        assert not (state / LostNote.NAME).exists()
    finally:
        game_log.close()


@pytest.mark.parametrize("count", [1, 10, 99_999])
def test_the_question_fits_the_panel_and_says_all(count: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.commands.inspect import Inspector
    from companion.ui.screen import Menu

    question = QuitUnsaved(count, lambda ctx: None, Menu("Home", []))
    with Inspector() as inspector:
        assert inspector.check(question) == []
    assert len(question.lines) <= 4  # Confirm shows four lines: none is left off


def test_saving_back_while_the_question_is_shown_takes_the_question_away(
        tmp_path: Path) -> None:
    state = tmp_path / "state"
    storage = room_until_played()
    with device(state, storage) as app:
        session = play_until_unsaved(app, storage)
        table = app.screen
        ask_to_quit(app)
        assert isinstance(app.screen, QuitUnsaved)
        storage.refusing = False
        app.clock.advance(30)
        app.pump()  # the retry's deadline: written
        assert app.screen.title == "Saved again" and app.screen.parent is table
        assert stored_events(state, session.match_id) == session.match.events
        assert app.running


def test_a_blank_note_is_not_written_again_at_every_start(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with _opened(state):
        pass
    note = state / LostNote.NAME
    assert note.read_bytes() == b" " * LostNote.SIZE
    before = note.stat().st_mtime_ns
    with _opened(state):
        pass
    assert note.stat().st_mtime_ns == before


def test_the_simulator_on_a_full_card_asks_at_q_and_quits_at_the_second(
        small_card: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture) -> None:
    """The whole path as typed: a card that filled up after the log (and its note) were
    made; a new game played unsaved; q shows the question, q again quits; the note says
    what was lost, and the terminal says the warnings companion.log could not take."""
    import os
    import pty
    import tty

    from companion.config import Buttons, Config, Idle
    from companion.sim import run_interactive

    state = small_card / "state"
    with _opened(state):
        pass  # the log and its note, made while there is room
    fill(small_card)
    asked: list[list[str]] = []
    shown = QuitUnsaved.__init__

    def shown_and_noted(self, *args, **kw) -> None:
        shown(self, *args, **kw)
        asked.append(self.lines)

    monkeypatch.setattr(QuitUnsaved, "__init__", shown_and_noted)
    frames: list[str] = []
    leader, follower = pty.openpty()
    try:
        tty.setraw(follower)
        # Enter: the "not saved" notice away, Enter: Final Count, space: start, two rolls,
        # then q (the question) and q (quit all the same).
        os.write(leader, b"\r\r   qq")
        clock = ManualClock()
        config = Config(buttons=Buttons(bounce_time=0.0, hold_time=10.0),
                        idle=Idle(0.0, 0.0, 0.0))
        with os.fdopen(follower, "r", closefd=False) as stdin:
            out = io.StringIO()
            status = run_interactive(config, stdin=stdin, out=out, clock=clock,
                                     wait=clock.advance, state_dir=state)
        frames.append(out.getvalue())
    finally:
        os.close(leader)
        os.close(follower)
    assert status == 0
    assert [" ".join(lines) for lines in asked] == [
        "2 events are not saved: free some space first, or they are lost."]
    said = LostNote(state).read()
    assert "2 events of Final Count were lost" in said, said
    err = capsys.readouterr().err
    assert "1 problem; " in err and "could not take it" in err
    assert "2 events of Final Count are lost" in err
