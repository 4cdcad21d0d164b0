"""The game log's bad days, as the person at the table sees them: a clear message, the
Tools still work, the bad file kept aside, a refused write changes nothing, and storage
that cannot be written never looks like storage that works (issue 12, item 3): every
screen carries the "not saved" mark, the unfinished game is still offered, the device
tries again on its own clock and says when saving works again, and what was played
meanwhile is written then."""

import random
import sqlite3
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from companion.gamelog import GameLog
from companion.store import Store
from companion.ui.final_count.table import FinalCountSetup, FinalCountTable
from companion.ui.home import home_menu, start_screen
from companion.ui.screen import Context, Message


def press(button, long=False):
    return SimpleNamespace(button=button, long=long)


def test_a_corrupt_log_is_set_aside_and_a_fresh_one_started(tmp_path):
    (tmp_path / "companion.db").write_bytes(b"this is not a database" * 100)
    game_log = GameLog.open(tmp_path, 0.0)
    store, notice = game_log.store, game_log.notice
    try:
        assert store is not None and notice
        kept = [p.name for p in tmp_path.iterdir() if p.name.startswith("companion.db.bad")]
        assert kept, "the bad file is kept, never deleted"
        screen = start_screen(Context(store=store, notice=notice))
        assert isinstance(screen, Message) and screen.title == "Game log"
        assert screen.press(Context(), press("ok")).title == "Tabletop Companion"
    finally:
        store.close()


def test_a_log_from_a_newer_version_is_left_alone_and_games_are_not_saved(tmp_path):
    path = tmp_path / "companion.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    before = path.read_bytes()
    game_log = GameLog.open(tmp_path, 0.0)
    notice = game_log.notice
    assert game_log.store is None and game_log.problem and game_log.retry_at is None
    assert "not saved" in notice
    assert path.read_bytes() == before
    ctx = Context(rng=random.Random(1), notice=notice)
    assert start_screen(ctx).title == "Game log"
    tools = home_menu(ctx)
    tools.selected = 5
    assert tools.press(ctx, press("ok")).title == "Tools"


def test_an_unwritable_directory_leaves_the_device_working(tmp_path):
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    game_log = GameLog.open(blocked / "state", 0.0)
    assert game_log.store is None and game_log.notice and game_log.retry_at == 30.0


def test_a_full_disk_mid_game_applies_the_event_unsaved_and_says_why(tmp_path):
    """A write refused during play does not stop the game (issue 21, item 1): the event
    is applied and shown, and the session says why it is no longer saved."""
    store = Store(tmp_path / "companion.db")
    ctx = Context(rng=random.Random(3), store=store)
    table = FinalCountSetup(home_menu(ctx), ["Ann", "Bob"]).press(ctx, press("roll"))
    assert isinstance(table, FinalCountTable)
    table.press(ctx, press("roll"))
    before = list(table.match.events)

    def full(*args, **kw):
        from companion.errors import StoreError

        raise StoreError("cannot write the game log: disk full")

    store.append = full
    shown = table.press(ctx, press("roll"))
    assert not isinstance(shown, Message)
    session = table.session
    assert len(table.match.events) == len(before) + 1
    assert not session.saved and session.problem == "cannot write the game log: disk full"
    assert session.synced == len(before)
    store.close()


def test_undo_survives_a_restart(tmp_path):
    ctx = Context(rng=random.Random(5), store=Store(tmp_path / "companion.db"))
    table = FinalCountSetup(home_menu(ctx), ["Ann", "Bob"]).press(ctx, press("roll"))
    for _ in range(3):
        table.press(ctx, press("roll"))
    ctx.store.close()
    again = Context(rng=random.Random(6), store=Store(tmp_path / "companion.db"))
    resumed = start_screen(again).press(again, press("ok"))
    assert len(resumed.match.events) == 3
    menu = resumed.press(again, press("back"))
    undo = next(i for i, item in enumerate(menu.items) if item.label.startswith("Undo"))
    menu.selected = undo
    menu.press(again, press("ok"))
    assert len(resumed.match.events) == 2
    assert len(again.store.events(resumed.session.match_id)) == 2
    again.store.close()


# -- storage that cannot be written (issue 12, item 3) -----------------------------------------


class Storage:
    """The state directory's storage at the open seam: it refuses writes the way a
    read-only or full card does while ``refusing`` is set, and opens for real once it
    is cleared (as root in a test, file modes do not make a directory read-only)."""

    def __init__(self, why: str = "cannot write the game log: it is read-only"):
        self.why = why
        self.refusing = True
        self.attempts = 0

    def __call__(self, state_dir):
        from companion.errors import StoreError
        from companion.gamelog import _open_writable

        self.attempts += 1
        if self.refusing:
            raise StoreError(self.why)
        return _open_writable(state_dir)


def unfinished_game(state_dir, events=2) -> int:
    """A Final Count game left unfinished in the log by an earlier run."""
    with Store.in_dir(state_dir) as store:
        match_id = store.new_match("final-count", ["Ann", "Bob"], {"hit_goal": False})
        for value in (4, 5)[:events]:
            player = "Ann" if store.match(match_id).event_count % 2 == 0 else "Bob"
            store.append(match_id, {"type": "roll", "player": player, "value": value})
    return match_id


@contextmanager
def device(state_dir, storage):
    """The device on mock pins with ``storage`` at the open seam, closed after."""
    from companion.clock import ManualClock
    from companion.config import Buttons, Config, Idle
    from companion.launch import make_app
    from companion.sim import sim_board_factory, sim_panel

    config = Config(buttons=Buttons(bounce_time=0.0, hold_time=10.0),
                    idle=Idle(0.0, 0.0, 0.0))
    clock = ManualClock()
    game_log = GameLog.open(state_dir, clock(), opener=storage)
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(), clock=clock,
                   seed=4, state_dir=state_dir, game_log=game_log)
    app.start()
    try:
        yield app
    finally:
        app.board.close()
        app.ctx.store.close()


def tap(app, button) -> None:
    app.post("press", press(button))
    app.pump()


def choose(app, label: str) -> None:
    """Move down a menu to ``label`` and press OK on it."""
    for _ in range([item.label for item in app.screen.items].index(label)):
        tap(app, "down")
    tap(app, "ok")


def marked(image) -> bool:
    """The "not saved" mark: the header band lit (its words dark), over the whole width."""
    from companion.ui.screen import HEADER

    band = image.crop(HEADER)
    lit = band.convert("L").histogram()[255]
    return lit >= band.width * band.height * 0.6  # a title's dark words leave the rest lit


def stored_events(state_dir, match_id) -> list:
    with Store(state_dir / Store.DEFAULT_NAME, readonly=True) as reader:
        return reader.events(match_id)


def test_read_only_storage_offers_the_unfinished_game_marks_every_screen_and_recovers(
        tmp_path):
    state = tmp_path / "state"
    match_id = unfinished_game(state)
    storage = Storage()
    with device(state, storage) as app:
        # Said once at start, and then the unfinished game is offered all the same.
        assert app.screen.title == "Game log" and "not saved" in " ".join(app.screen.lines)
        assert marked(app.panel.last_image)
        tap(app, "ok")
        assert app.screen.title == "Unfinished game"
        assert app.screen.lines[-1] == "Not saved for now"
        assert marked(app.panel.last_image)
        tap(app, "ok")  # play on, unsaved
        session = app.current_session()
        assert session.match_id == match_id and len(session.match.events) == 2
        assert marked(app.panel.last_image)
        tap(app, "roll")  # Ann rolls: in memory only
        assert len(session.match.events) == 3
        assert stored_events(state, match_id) == session.match.events[:2]
        # Every screen says it: the game menu, the standings, the main menu, the Tools.
        for button in ("back", "down", "down", "ok"):
            tap(app, button)
            assert marked(app.panel.last_image), app.screen.title
        # It tries again on the app's clock: a deadline, not a busy loop.
        assert app.next_deadline() == 30.0
        app.clock.advance(30)
        app.pump()
        assert storage.attempts == 2 and app.next_deadline() == 60.0
        assert marked(app.panel.last_image)
        storage.refusing = False  # the card is writable again
        app.clock.advance(30)
        app.pump()
        assert app.screen.title == "Saved again"
        assert not marked(app.panel.last_image)
        assert stored_events(state, match_id) == session.match.events  # caught up
        tap(app, "ok")  # the standings again
        tap(app, "back")  # the game menu
        tap(app, "back")  # the game, which saves each event again
        tap(app, "roll")
        assert stored_events(state, match_id) == session.match.events
        assert len(session.match.events) == 4 and not app.unsaved()


def test_full_storage_at_start_plays_unsaved_then_writes_the_new_game(tmp_path):
    state = tmp_path / "state"
    Store.in_dir(state).close()
    storage = Storage("cannot write the game log: disk full")
    with device(state, storage) as app:
        assert "disk full" in " ".join(app.screen.lines)
        tap(app, "ok")
        assert app.screen.title == "Tabletop Companion" and marked(app.panel.last_image)
        tap(app, "ok")  # Final Count
        tap(app, "roll")  # start with the default seats
        session = app.current_session()
        assert session is not None and session.match_id is None and not session.saved
        tap(app, "roll")
        tap(app, "roll")
        assert len(session.match.events) == 2
        storage.refusing = False
        app.clock.advance(30)
        app.pump()
        assert app.screen.title == "Saved again"
        assert session.match_id is not None and session.saved
        assert stored_events(state, session.match_id) == session.match.events
        with Store(state / Store.DEFAULT_NAME, readonly=True) as reader:
            assert reader.unfinished().id == session.match_id


def test_a_game_left_while_unsaved_is_kept_offered_and_written_when_saving_works(tmp_path):
    from companion.errors import RemoteError
    from companion.remote.commands import new_game

    state = tmp_path / "state"
    Store.in_dir(state).close()
    storage = Storage("cannot write the game log: disk full")
    with device(state, storage) as app:
        tap(app, "ok")  # past the notice
        tap(app, "ok")  # Final Count
        tap(app, "roll")  # start with the default seats
        session = app.current_session()
        tap(app, "roll")
        tap(app, "roll")
        tap(app, "back")  # the game menu
        choose(app, "Leave (kept)")
        assert app.current_session() is None and app.ctx.parked is session
        assert app.unsaved() and marked(app.panel.last_image)
        # A second way in sees it too: a new game from afar is refused, not a loss.
        with pytest.raises(RemoteError) as refused:
            new_game(app, "scoreboard", ["Ann", "Bob"])
        assert refused.value.code == "OPEN" and "not saved" in str(refused.value)
        tap(app, "ok")  # Final Count again: the game left is in the way, so it asks
        assert app.screen.title == "Unfinished game"
        assert [item.label for item in app.screen.items][0] == "Resume Final Count"
        tap(app, "ok")
        assert app.current_session() is session and app.ctx.parked is None
        assert len(session.match.events) == 2
        tap(app, "back")
        choose(app, "Leave (kept)")  # left again, and then the card can be written
        storage.refusing = False
        app.clock.advance(30)
        app.pump()
        assert app.screen.title == "Saved again"
        assert "The game you left" in app.screen.lines
        assert app.ctx.parked is None and not app.unsaved()
        with Store(state / Store.DEFAULT_NAME, readonly=True) as reader:
            waiting = reader.unfinished()
            assert waiting is not None and reader.events(waiting.id) == session.match.events


def test_a_game_played_and_ended_unsaved_is_written_as_abandoned_when_saving_works(tmp_path):
    state = tmp_path / "state"
    match_id = unfinished_game(state)
    storage = Storage()
    with device(state, storage) as app:
        tap(app, "ok")  # past the notice
        tap(app, "ok")  # resume it, unsaved
        resumed = app.current_session()
        tap(app, "roll")  # a third roll, in memory only
        played = list(resumed.match.events)
        tap(app, "back")  # the game menu: End this game
        choose(app, "End this game")
        tap(app, "ok")  # yes
        assert app.ctx.store.unfinished() is None
        tap(app, "ok")  # Final Count: nothing in the way now
        tap(app, "roll")  # a new game, unsaved
        fresh = app.current_session()
        tap(app, "roll")
        tap(app, "back")
        choose(app, "End this game")
        tap(app, "ok")
        storage.refusing = False
        app.clock.advance(30)
        app.pump()
        assert app.screen.title == "Saved again"
        with Store(state / Store.DEFAULT_NAME, readonly=True) as reader:
            assert reader.events(match_id) == played and reader.match(match_id).abandoned
            assert fresh.match_id is not None and fresh.match_id != match_id
            assert reader.events(fresh.match_id) == fresh.match.events
            assert reader.match(fresh.match_id).abandoned
            assert reader.unfinished() is None


def test_a_game_ended_while_unsaved_is_marked_abandoned_once_saving_works(tmp_path):
    state = tmp_path / "state"
    match_id = unfinished_game(state)
    storage = Storage()
    with device(state, storage) as app:
        tap(app, "ok")  # past the notice
        tap(app, "back")  # not now: the main menu
        tap(app, "ok")  # Final Count: the unfinished game is in the way, so it asks
        assert app.screen.title == "Unfinished game"
        assert [item.label for item in app.screen.items] == ["Resume Final Count",
                                                              "End it, new game"]
        tap(app, "down")
        tap(app, "ok")
        assert app.screen.title.startswith("Final Count")  # the new game's setup
        assert app.ctx.store.unfinished() is None  # noted as ended, not offered again
        storage.refusing = False
        app.clock.advance(30)
        app.pump()
        assert Store(state / Store.DEFAULT_NAME, readonly=True).match(match_id).abandoned


def test_starting_a_game_from_the_buttons_asks_about_the_unfinished_one(tmp_path):
    ctx = Context(rng=random.Random(3), store=Store.in_dir(tmp_path))
    first = unfinished_game(tmp_path, events=1)
    home = home_menu(ctx)
    asked = home.press(ctx, press("ok"))  # Final Count
    assert asked.title == "Unfinished game"
    resumed = asked.press(ctx, press("ok"))
    assert isinstance(resumed, FinalCountTable) and resumed.session.match_id == first
    asked = home.press(ctx, press("ok"))
    asked.selected = 1
    setup = asked.press(ctx, press("ok"))
    assert isinstance(setup, FinalCountSetup)
    assert ctx.store.match(first).abandoned and ctx.store.unfinished() is None
    ctx.store.close()


def test_the_mark_is_drawn_by_the_framework_on_every_kind_of_screen():
    from companion.ui.screen import Confirm, Menu, MenuItem, Screen

    class Bare(Screen):
        def draw(self, canvas):
            canvas.big_text(0, 0, "888888")  # no title bar at all, ink to the corner

    items = [MenuItem(f"Item {n}", lambda ctx, menu: None) for n in range(9)]
    screens = [Menu("A long menu title", items), Message("Note", ["hello"]),
               Confirm("Sure?", ["x"], lambda ctx: None, Message("p", [])), Bare()]
    for screen in screens[:-1]:  # the bare screen's ink fills its top rows: see below
        assert marked(screen.render(unsaved=True)), screen
        assert not marked(screen.render())
    # Nothing is lost under the mark: the header is the same picture, inverted, and the
    # rest of the screen is untouched.
    from PIL import ImageChops

    from companion.ui.screen import HEADER
    for screen in screens:
        plain, with_mark = screen.render(), screen.render(unsaved=True)
        assert ImageChops.invert(plain.crop(HEADER).convert("L")) == \
            with_mark.crop(HEADER).convert("L")
        below = (0, HEADER[3], plain.width, plain.height)
        assert plain.crop(below) == with_mark.crop(below)
