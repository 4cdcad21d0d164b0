"""What the game log costs the SD card: a new log has small pages, so one event writes
about 1 KiB pages to the WAL instead of 4 KiB ones (counted through the crash layer's
VFS, so the figure is exact, not timed), and ``companion bench`` reports the bytes per
event and per finished game."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from crash_card import Card
from crash_vfs import VFS_NAME, crash_vfs_or_skip, plugged_in

from companion.bench.device import card_writes, long_final_count_log
from companion.store import Store
from companion.store.schema import PAGE_SIZE

EVENTS = 400


def page_size(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA page_size").fetchone()[0])
    finally:
        conn.close()


def test_a_new_log_has_small_pages_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    Store.in_dir(tmp_path / "new").close()
    assert page_size(tmp_path / "new" / Store.DEFAULT_NAME) == PAGE_SIZE == 1024
    old = tmp_path / "old" / Store.DEFAULT_NAME
    old.parent.mkdir()
    conn = sqlite3.connect(old)
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("VACUUM")
    conn.close()
    with Store(old) as store:  # a log made before: it opens, keeps its pages, works
        match = store.new_match("final-count", ["Ann", "Bob"], {})
        store.append(match, {"type": "roll", "player": "Ann", "value": 3})
    assert page_size(old) == 4096


def test_one_event_writes_about_two_kilobytes_to_the_log(tmp_path: Path) -> None:
    crash_vfs_or_skip()
    card = Card()
    with plugged_in(card):
        store = Store.in_dir(tmp_path, vfs=VFS_NAME)
        match = store.new_match("final-count", ["Ann", "Bob", "Cy"], {})
        before, syncs = card.bytes_written, card.sync_points
        for event in long_final_count_log(EVENTS):
            store.append(match, event)
        per_event = (card.bytes_written - before) / EVENTS
        store.close()
    assert card.sync_points - syncs >= EVENTS  # each event is its own synced commit
    # 4 KiB pages wrote about 5,200 bytes an event; 1 KiB pages about 1,900.
    assert per_event < 2500, per_event


def test_bench_reports_bytes_per_event_and_per_game() -> None:
    figures = card_writes(60, games=2)
    if "skipped" in figures:
        pytest.skip(figures["skipped"])
    assert figures["page_size"] == PAGE_SIZE
    assert figures["events_per_game"] == 31
    assert 1000 < figures["sqlite_bytes_per_event"] < 2500
    # A game is its start, 31 events and the finish: at least one page each.
    assert figures["sqlite_bytes_per_game"] > 33 * PAGE_SIZE
