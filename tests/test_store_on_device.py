"""The game log's bad days, as the person at the table sees them: a clear message, the
Tools still work, the bad file kept aside, and a refused write changes nothing."""

import random
import sqlite3
from types import SimpleNamespace

from companion.launch import open_store
from companion.store import Store
from companion.ui.final_count import FinalCountSetup, FinalCountTable
from companion.ui.home import home_menu, start_screen
from companion.ui.screen import Context, Message


def press(button, long=False):
    return SimpleNamespace(button=button, long=long)


def test_a_corrupt_log_is_set_aside_and_a_fresh_one_started(tmp_path):
    (tmp_path / "companion.db").write_bytes(b"this is not a database" * 100)
    store, notice = open_store(tmp_path)
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
    store, notice = open_store(tmp_path)
    assert store is None
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
    store, notice = open_store(blocked / "state")
    assert store is None and notice


def test_a_full_disk_refuses_the_event_and_changes_nothing(tmp_path):
    store = Store(tmp_path / "companion.db")
    ctx = Context(rng=random.Random(3), store=store)
    table = FinalCountSetup(home_menu(ctx), ["Ann", "Bob"]).press(ctx, press("roll"))
    assert isinstance(table, FinalCountTable)
    table.press(ctx, press("roll"))
    before = list(table.match.events)

    def full(*args):
        from companion.errors import StoreError

        raise StoreError("cannot write the game log: disk full")

    store.append = full
    shown = table.press(ctx, press("roll"))
    assert isinstance(shown, Message) and shown.title == "Not saved"
    assert table.match.events == before
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
