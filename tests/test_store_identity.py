"""Schema 2: a match's uid, origin and event times, and storing a match played elsewhere."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion import store as store_module
from companion.errors import DuplicateMatch, StoreError
from companion.store import Store


class Ticks:
    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def version_1_file(directory: Path) -> Path:
    """A game log exactly as the first schema wrote it, with two matches."""
    path = directory / Store.DEFAULT_NAME
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in store_module.MIGRATIONS[0]:
        conn.execute(statement)
    for mid in (1, 2):
        conn.execute(
            "INSERT INTO matches (id, game_id, players, options, started) VALUES (?, ?, ?, ?, ?)",
            (mid, "count-up-21", '["Ann","Bob"]', "{}", 100.0 + mid),
        )
        conn.execute(
            "INSERT INTO events (match_id, seq, event, at) VALUES (?, 1, ?, ?)",
            (mid, '{"type":"play","player":"Ann","card":5}', 200.0 + mid),
        )
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    return path


def test_a_version_1_log_gets_a_distinct_uid_per_match_and_keeps_everything(
    tmp_path: Path,
) -> None:
    version_1_file(tmp_path)
    with Store.in_dir(tmp_path) as s:
        one, two = s.match(1), s.match(2)
        assert one.uid and two.uid and one.uid != two.uid
        assert one.origin == two.origin == ""
        assert s.events(1) == [{"type": "play", "player": "Ann", "card": 5}]
        assert s.event_times(2) == [202.0]
        assert s.find_uid(two.uid) == 2


def test_new_matches_have_fresh_uids_and_a_given_uid_is_kept(tmp_path: Path) -> None:
    with Store.in_dir(tmp_path, clock=Ticks()) as s:
        a = s.new_match("count-up-21", ["Ann", "Bob"])
        b = s.new_match("count-up-21", ["Ann", "Bob"], uid="table-7:41", origin="table-7")
        assert s.match(a).uid != s.match(b).uid
        assert (s.match(b).uid, s.match(b).origin) == ("table-7:41", "table-7")
        with pytest.raises(DuplicateMatch, match="stored already"):
            s.new_match("count-up-21", ["Ann", "Bob"], uid="table-7:41")


def test_import_match_keeps_times_and_refuses_a_second_copy(tmp_path: Path) -> None:
    events = [({"type": "play", "player": "Ann", "card": 5}, 1010.0),
              ({"type": "pass", "player": "Bob"}, 1020.5)]
    with Store.in_dir(tmp_path, clock=Ticks()) as s:
        mid = s.import_match("count-up-21", ["Ann", "Bob"], {}, events, started=1000.0,
                             finished=1020.5, result={"winners": ["Ann"]}, uid="abc")
        record = s.match(mid)
        assert (record.started, record.finished, record.uid) == (1000.0, 1020.5, "abc")
        assert s.events(mid) == [event for event, _ in events]
        assert s.event_times(mid) == [1010.0, 1020.5]
        assert set(s.roster()) == {"Ann", "Bob"}
        before = s.history()
        with pytest.raises(DuplicateMatch):
            s.import_match("count-up-21", ["Ann", "Bob"], {}, events, started=1.0,
                           finished=2.0, result={}, uid="abc")
        assert s.history() == before


def test_a_bad_event_in_an_import_stores_nothing(tmp_path: Path) -> None:
    with Store.in_dir(tmp_path, clock=Ticks()) as s:
        with pytest.raises(StoreError):
            s.import_match("count-up-21", ["Ann", "Bob"], {},
                           [({"type": "play", "card": float("nan")}, 1.0)],
                           started=0.0, finished=None, result=None, uid="x")
        assert s.find_uid("x") is None and s.history() == []


def test_the_device_id_is_made_once_and_kept(tmp_path: Path) -> None:
    with Store.in_dir(tmp_path) as s:
        first = s.device_id()
        assert first == s.device_id()
    with Store.in_dir(tmp_path) as s:
        assert s.device_id() == first
