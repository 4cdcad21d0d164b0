"""The game log: events survive crashes, bad files never crash-loop or get lost."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import store as store_module
from companion.errors import StoreCorrupt, StoreError, StoreTooNew
from companion.store import NAME_MAX, SCHEMA_VERSION, MatchRecord, Store
from companion.store import schema as store_schema

REPO = Path(__file__).resolve().parents[1]
T0 = 1_700_000_000.0


class Ticks:
    """A clock that moves one second on every reading: distinct, ordered, repeatable."""

    def __init__(self, start: float = T0):
        self.now = start - 1

    def __call__(self) -> float:
        self.now += 1
        return self.now


@pytest.fixture
def clock() -> Ticks:
    return Ticks()


@pytest.fixture
def store(tmp_path: Path, clock: Ticks):
    s = Store.in_dir(tmp_path, clock=clock)
    yield s
    s.close()


def make_db(directory: Path, events: int = 3) -> Path:
    """A closed, healthy game log with one match of ``events`` events."""
    with Store.in_dir(directory, clock=Ticks()) as s:
        mid = s.new_match("final-count", ["Ann", "Bob"], {"hit_goal": True})
        for n in range(events):
            s.append(mid, {"type": "roll", "player": "Ann", "value": n % 6 + 1, "pad": "x" * 200})
    return directory / Store.DEFAULT_NAME


def files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


# -- opening --------------------------------------------------------------------------


def test_creates_a_durable_wal_database(tmp_path: Path, store: Store) -> None:
    assert files(tmp_path)[0] == "companion.db"
    conn = store._conn
    assert conn is not None
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    assert conn.execute("PRAGMA application_id").fetchone()[0] == store_module.APPLICATION_ID
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"players", "matches", "events"} <= tables


def test_in_dir_creates_missing_directories(tmp_path: Path) -> None:
    with Store.in_dir(tmp_path / "a" / "b") as s:
        assert s.path == tmp_path / "a" / "b" / "companion.db"
    assert (tmp_path / "a" / "b" / "companion.db").is_file()


def test_in_dir_on_a_file_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(StoreError, match="cannot create the state directory"):
        Store.in_dir(tmp_path / "f")


def test_reopen_keeps_everything(tmp_path: Path) -> None:
    with Store.in_dir(tmp_path, clock=Ticks()) as s:
        mid = s.new_match("final-count", ["Ann", "Bob"], {"hit_goal": False})
        s.append(mid, {"type": "roll", "player": "Ann", "value": 4})
        s.add_player("Cy")
    with Store.in_dir(tmp_path) as s:
        assert s.events(mid) == [{"type": "roll", "player": "Ann", "value": 4}]
        assert s.unfinished() is not None and s.unfinished().id == mid
        assert set(s.roster()) == {"Ann", "Bob", "Cy"}


def test_closed_store_refuses_politely(tmp_path: Path) -> None:
    s = Store.in_dir(tmp_path)
    s.close()
    s.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        s.roster()


def test_memory_store_for_other_modules_tests() -> None:
    with Store(":memory:", clock=Ticks()) as s:
        mid = s.new_match("final-count", ["Ann", "Bob"], {})
        assert s.append(mid, {"type": "call", "player": "Ann"}) == 1


# -- matches and the event log ------------------------------------------------------------


def test_match_life_cycle(store: Store) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {"hit_goal": True})
    first = {"type": "roll", "player": "Ann", "value": 3}
    second = {"type": "hand", "player": "Bob", "cards": ["A", "K", "9"], "note": "Zoë ✓"}
    assert store.append(mid, first) == 1
    assert store.append(mid, second) == 2
    assert store.events(mid) == [first, second]
    assert list(store.events(mid)[1]) == ["type", "player", "cards", "note"]  # key order kept
    record = store.match(mid)
    assert record == MatchRecord(
        id=mid,
        game_id="final-count",
        players=("Ann", "Bob"),
        options={"hit_goal": True},
        started=T0,
        finished=None,
        result=None,
        abandoned=False,
        event_count=2,
        uid=record.uid,
    )
    assert record.in_progress
    result = {"over": True, "totals": {"Ann": 10, "Bob": 300}, "winners": ["Bob"]}
    store.finish(mid, result)
    record = store.match(mid)
    assert record.finished is not None and record.result == result and not record.in_progress
    assert record.to_json()["players"] == ["Ann", "Bob"]


def test_event_times_come_from_the_clock(store: Store, clock: Ticks) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    store.append(mid, {"type": "call", "player": "Ann"})
    at = store._conn.execute("SELECT at FROM events").fetchone()[0]  # type: ignore[union-attr]
    assert at == clock.now


def test_pop_is_undo(store: Store) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    with pytest.raises(StoreError, match="nothing to undo"):
        store.pop(mid)
    store.append(mid, {"type": "roll", "value": 1})
    store.append(mid, {"type": "roll", "value": 2})
    assert store.pop(mid) == {"type": "roll", "value": 2}
    assert store.events(mid) == [{"type": "roll", "value": 1}]
    assert store.append(mid, {"type": "roll", "value": 5}) == 2  # seq reused after undo
    assert store.pop(mid)["value"] == 5
    assert store.pop(mid)["value"] == 1
    with pytest.raises(StoreError, match="nothing to undo"):
        store.pop(mid)


def test_undoing_the_last_event_reopens_a_finished_match(store: Store) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    store.append(mid, {"type": "hand"})
    store.finish(mid, {"totals": {"Ann": 300, "Bob": 0}, "winners": ["Ann"]})
    assert store.unfinished() is None
    store.pop(mid)
    record = store.match(mid)
    assert record.finished is None and record.result is None
    assert store.unfinished() == record


def test_append_refuses_and_writes_nothing(store: Store) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    store.append(mid, {"type": "roll", "value": 1})
    with pytest.raises(StoreError, match="no match 99"):
        store.append(99, {"type": "roll"})
    with pytest.raises(StoreError, match="JSON"):
        store.append(mid, {"type": "roll", "value": float("nan")})
    with pytest.raises(StoreError, match="JSON"):
        store.append(mid, {"type": "roll", "value": object()})
    with pytest.raises(StoreError, match="JSON object"):
        store.append(mid, ["roll"])  # type: ignore[arg-type]
    assert store.events(mid) == [{"type": "roll", "value": 1}]
    store.finish(mid, {"totals": {}, "winners": []})
    with pytest.raises(StoreError, match="finished"):
        store.append(mid, {"type": "roll"})
    other = store.new_match("final-count", ["Ann", "Bob"], {})
    store.abandon(other)
    with pytest.raises(StoreError, match="abandoned"):
        store.append(other, {"type": "roll"})
    with pytest.raises(StoreError, match="abandoned"):
        store.pop(other)
    with pytest.raises(StoreError, match="abandoned"):
        store.finish(other, {})
    with pytest.raises(StoreError, match="already finished"):
        store.abandon(mid)


def test_new_match_checks_its_input(store: Store) -> None:
    with pytest.raises(StoreError, match="game id"):
        store.new_match("", ["Ann"], {})
    with pytest.raises(StoreError, match="list of names"):
        store.new_match("final-count", "Ann,Bob", {})
    with pytest.raises(StoreError, match="list of names"):
        store.new_match("final-count", ["Ann", " "], {})
    with pytest.raises(StoreError, match="JSON"):
        store.new_match("final-count", ["Ann", "Bob"], {"x": {1, 2}})
    assert store.history() == [] and store.unfinished() is None and store.roster() == []


def test_unfinished_is_the_newest_open_match(store: Store) -> None:
    assert store.unfinished() is None
    a = store.new_match("final-count", ["Ann", "Bob"], {})
    b = store.new_match("final-count", ["Ann", "Bob"], {})
    c = store.new_match("final-count", ["Ann", "Bob"], {})
    assert store.unfinished().id == c  # type: ignore[union-attr]
    store.finish(c, {"totals": {"Ann": 1, "Bob": 0}, "winners": ["Ann"]})
    assert store.unfinished().id == b  # type: ignore[union-attr]
    store.abandon(b)
    assert store.unfinished().id == a  # type: ignore[union-attr]


def test_resolve(store: Store) -> None:
    with pytest.raises(StoreError, match="no match in progress"):
        store.resolve("current")
    with pytest.raises(StoreError, match="no finished match"):
        store.resolve("last")
    a = store.new_match("final-count", ["Ann", "Bob"], {})
    b = store.new_match("final-count", ["Ann", "Bob"], {})
    store.finish(a, {})
    assert store.resolve("current") == b
    assert store.resolve(" LAST ") == a
    assert store.resolve(str(b)) == b
    assert store.resolve(a) == a
    with pytest.raises(StoreError, match="no match 42"):
        store.resolve("42")
    for bad in ("-1", "two", "", "²", "1.0"):
        with pytest.raises(StoreError):
            store.resolve(bad)
    with pytest.raises(StoreError, match="no match"):
        store.match(42)
    with pytest.raises(StoreError, match="no match"):
        store.events(42)


def test_last_is_the_most_recently_finished(store: Store) -> None:
    a = store.new_match("final-count", ["Ann", "Bob"], {})
    b = store.new_match("final-count", ["Ann", "Bob"], {})
    store.finish(b, {})
    store.finish(a, {})  # the older match, resumed and finished later
    assert store.resolve("last") == a
    assert [m.id for m in store.history()] == [a, b]


# -- roster -------------------------------------------------------------------------------


def test_roster_order_recently_used_then_recently_added(store: Store) -> None:
    for name in ("Ann", "Bob", "Cy", "Dee"):
        store.add_player(name)
    assert store.roster() == ["Dee", "Cy", "Bob", "Ann"]
    store.new_match("final-count", ["Bob", "Ann"], {})
    # Used together (same time): the more recently added first.
    assert store.roster() == ["Bob", "Ann", "Dee", "Cy"]
    store.new_match("final-count", ["Cy", "Eve"], {})  # Eve is new: added and used
    assert store.roster() == ["Eve", "Cy", "Bob", "Ann", "Dee"]


def test_add_player_rules(store: Store) -> None:
    store.add_player("  Ann  ")
    assert store.roster() == ["Ann"]
    with pytest.raises(StoreError, match="already on the roster"):
        store.add_player("ann")
    store.add_player("Åsa")
    with pytest.raises(StoreError, match="Åsa is already"):
        store.add_player("åSA")  # non-ASCII case folding too
    with pytest.raises(StoreError, match="needs a name"):
        store.add_player("   ")
    with pytest.raises(StoreError, match=f"at most {NAME_MAX}"):
        store.add_player("x" * (NAME_MAX + 1))
    store.add_player("y" * NAME_MAX)
    with pytest.raises(StoreError, match="control"):
        store.add_player("a\nb")
    with pytest.raises(StoreError, match="comma"):
        store.add_player("a,b")
    assert store.roster() == ["y" * NAME_MAX, "Åsa", "Ann"]


def test_remove_player(store: Store) -> None:
    store.add_player("Ann")
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    store.remove_player("ANN")
    assert store.roster() == ["Bob"]
    assert store.match(mid).players == ("Ann", "Bob")  # history keeps the name
    with pytest.raises(StoreError, match="Ann is not on the roster"):
        store.remove_player("Ann")
    with pytest.raises(StoreError):
        store.remove_player(" ")


def test_new_match_marks_existing_players_in_any_case(store: Store) -> None:
    store.add_player("Ann")
    store.add_player("Zed")
    store.new_match("final-count", ["ann", "Bob"], {})
    assert store.roster()[-1] == "Zed"
    assert sorted(store.roster()) == ["Ann", "Bob", "Zed"]  # no second "ann"


# -- history and stats -------------------------------------------------------------------


def finished(store: Store, game: str, totals: dict[str, int], winners: list[str], **extra) -> int:
    mid = store.new_match(game, list(totals), {})
    store.finish(mid, {"over": True, "totals": totals, "winners": winners, **extra})
    return mid


def test_history_newest_first_with_limit(store: Store) -> None:
    ids = [finished(store, "final-count", {"Ann": n, "Bob": 0}, ["Ann"]) for n in range(5)]
    store.new_match("final-count", ["Ann", "Bob"], {})  # unfinished: not history
    abandoned = store.new_match("final-count", ["Ann", "Bob"], {})
    store.abandon(abandoned)
    assert [m.id for m in store.history()] == ids[::-1]
    assert [m.id for m in store.history(limit=2)] == ids[:-3:-1]
    assert store.history(limit=0) == []


# -- migrations ---------------------------------------------------------------------------


def test_an_empty_file_is_migrated_from_version_0(tmp_path: Path) -> None:
    path = tmp_path / "companion.db"
    path.write_bytes(b"")  # e.g. created by touch, or a crash before the first commit
    with Store(path) as s:
        assert s.roster() == []
        assert s._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION  # type: ignore[union-attr]


def test_forward_migration_keeps_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_db(tmp_path, events=2)
    step = ("ALTER TABLE players ADD COLUMN colour TEXT",)
    later = SCHEMA_VERSION + 1
    monkeypatch.setattr(store_schema, "MIGRATIONS", (*store_schema.MIGRATIONS, step))
    monkeypatch.setattr(store_schema, "SCHEMA_VERSION", later)
    with Store(path) as s:
        conn = s._conn
        assert conn is not None
        assert conn.execute("PRAGMA user_version").fetchone()[0] == later
        assert "colour" in [r[1] for r in conn.execute("PRAGMA table_info(players)")]
        assert len(s.events(1)) == 2


def test_a_failing_migration_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_db(tmp_path, events=2)
    step = ("ALTER TABLE players ADD COLUMN colour TEXT", "THIS IS NOT SQL")
    monkeypatch.setattr(store_schema, "MIGRATIONS", (*store_schema.MIGRATIONS, step))
    monkeypatch.setattr(store_schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError):
        Store(path)
    monkeypatch.undo()
    with Store(path) as s:
        conn = s._conn
        assert conn is not None
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert "colour" not in [r[1] for r in conn.execute("PRAGMA table_info(players)")]


# -- bad files: never lost, never a crash loop ------------------------------------------


def bump_version(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def test_newer_version_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = make_db(tmp_path)
    bump_version(path, SCHEMA_VERSION + 1)
    before = path.read_bytes()
    names = files(tmp_path)
    with pytest.raises(StoreTooNew, match="newer version"):
        Store(path)
    with pytest.raises(StoreTooNew):
        Store.open_or_set_aside(tmp_path)  # raises: a newer program's data is never moved
    assert path.read_bytes() == before
    assert files(tmp_path) == names


def test_garbage_file_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "companion.db"
    path.write_bytes(b"this is a shopping list, not a database\n" * 100)
    with pytest.raises(StoreCorrupt, match="damaged"):
        Store(path)
    assert path.read_bytes().startswith(b"this is a shopping list")  # never removed by opening


@pytest.mark.parametrize("cut", ["ragged", "half", "header"])
def test_truncated_file_is_corrupt(tmp_path: Path, cut: str) -> None:
    path = make_db(tmp_path, events=200)
    data = path.read_bytes()
    keep = {"ragged": len(data) - 100, "half": len(data) // 2 // 4096 * 4096, "header": 60}[cut]
    path.write_bytes(data[:keep])
    with pytest.raises(StoreCorrupt):
        Store(path)
    assert path.read_bytes() == data[:keep]  # opening never "repairs" or moves it
    assert files(tmp_path) == ["companion.db"]


def test_set_aside_renames_with_sidecars_and_never_deletes(tmp_path: Path) -> None:
    path = tmp_path / "companion.db"
    path.write_bytes(b"junk")
    (tmp_path / "companion.db-wal").write_bytes(b"wal")
    (tmp_path / "companion.db-shm").write_bytes(b"shm")
    moved = Store.set_aside(path, clock=lambda: 0.0)
    assert moved.name == "companion.db.bad-19700101T000000Z"
    assert files(tmp_path) == [
        "companion.db.bad-19700101T000000Z",
        "companion.db.bad-19700101T000000Z-shm",
        "companion.db.bad-19700101T000000Z-wal",
    ]
    assert moved.read_bytes() == b"junk"
    path.write_bytes(b"more junk")  # same second again: a new name, the old one kept
    again = Store.set_aside(path, clock=lambda: 0.0)
    assert again.name == "companion.db.bad-19700101T000000Z-1"
    assert moved.read_bytes() == b"junk" and again.read_bytes() == b"more junk"
    with pytest.raises(StoreError, match="no game log"):
        Store.set_aside(path)


def test_open_or_set_aside_starts_fresh_after_damage(tmp_path: Path) -> None:
    path = make_db(tmp_path)
    damaged = path.read_bytes()[: len(path.read_bytes()) - 10]
    path.write_bytes(damaged)
    s, message = Store.open_or_set_aside(tmp_path, clock=lambda: T0)
    with s:
        assert message is not None and "companion.db.bad-20231114T221320Z" in message
        assert (tmp_path / "companion.db.bad-20231114T221320Z").read_bytes() == damaged
        assert s.roster() == [] and s.unfinished() is None
        mid = s.new_match("final-count", ["Ann", "Bob"], {})
        assert s.append(mid, {"type": "roll"}) == 1
    s, message = Store.open_or_set_aside(tmp_path)
    with s:
        assert message is None and s.unfinished() is not None


def test_a_foreign_sqlite_file_is_neither_used_nor_moved(tmp_path: Path) -> None:
    path = tmp_path / "companion.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE players (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not a Tabletop Companion") as info:
        Store.open_or_set_aside(tmp_path)
    assert not isinstance(info.value, StoreCorrupt)
    assert files(tmp_path) == ["companion.db"]


# -- write failures: a clear error, nothing half-done --------------------------------------


def test_disk_full_refuses_the_event_and_keeps_the_log_consistent(store: Store) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    store.append(mid, {"type": "roll", "value": 1})
    conn = store._conn
    assert conn is not None
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # the "disk" is now full
    big = {"type": "hand", "cards": ["K"] * 5000}
    with pytest.raises(StoreError, match="^cannot write the game log: disk full$"):
        store.append(mid, big)
    assert not conn.in_transaction
    assert store.events(mid) == [{"type": "roll", "value": 1}]
    conn.execute("PRAGMA max_page_count = 1073741823")  # space freed
    assert store.append(mid, big) == 2


class FullDisk:
    """A connection stand-in whose writes fail the way a full SD card does."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def execute(self, sql: str, *args):
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            raise sqlite3.OperationalError("database or disk is full")
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self.conn, name)


def test_disk_full_message_from_a_mocked_connection(store: Store) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    real = store._conn
    store._conn = FullDisk(real)  # type: ignore[assignment]
    try:
        for write in (
            lambda: store.append(mid, {"type": "roll"}),
            lambda: store.add_player("Cy"),
            lambda: store.new_match("final-count", ["Ann", "Bob"], {}),
            lambda: store.finish(mid, {}),
        ):
            with pytest.raises(StoreError, match="^cannot write the game log: disk full$"):
                write()
            assert real is not None and not real.in_transaction
    finally:
        store._conn = real
    assert store.events(mid) == [] and store.unfinished().id == mid  # type: ignore[union-attr]
    assert store.roster() == ["Ann", "Bob"]


def test_read_only_database_is_a_clear_error(store: Store) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    store.append(mid, {"type": "roll"})
    store._conn.execute("PRAGMA query_only = 1")  # type: ignore[union-attr]
    with pytest.raises(StoreError, match="^cannot write the game log: it is read-only$"):
        store.append(mid, {"type": "roll"})
    with pytest.raises(StoreError, match="read-only"):
        store.pop(mid)
    store._conn.execute("PRAGMA query_only = 0")  # type: ignore[union-attr]
    assert store.events(mid) == [{"type": "roll"}]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores file permissions"
)
def test_read_only_directory_and_file(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(StoreError, match="cannot open the game log"):
            Store.in_dir(ro)
    finally:
        ro.chmod(0o755)
    path = make_db(tmp_path / "rofile")
    path.chmod(0o444)
    try:
        with pytest.raises(StoreError, match="read-only"):
            Store(path)  # refused at open, not at the first event of a game
    finally:
        path.chmod(0o644)
    path.parent.chmod(0o555)  # export by another user while the service is stopped
    try:
        with Store(path, readonly=True) as reader:
            assert len(reader.events(1)) == 3
    finally:
        path.parent.chmod(0o755)


def test_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no directory"):
        Store(tmp_path / "nope" / "companion.db")
    with pytest.raises(StoreError, match="is a directory"):
        Store(tmp_path)


# -- read-only access for export ---------------------------------------------------------


def test_readonly_store_never_creates_or_writes(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no game log"):
        Store(tmp_path / "companion.db", readonly=True)
    assert files(tmp_path) == []
    path = make_db(tmp_path)
    before = path.read_bytes()
    with Store(path, readonly=True) as ro:
        assert len(ro.events(1)) == 3
        with pytest.raises(StoreError, match="read-only"):
            ro.append(1, {"type": "roll"})
    assert path.read_bytes() == before


def test_a_reader_sees_each_event_as_soon_as_append_returns(store: Store) -> None:
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    with Store(store.path, readonly=True) as reader:
        for n in range(1, 4):
            store.append(mid, {"type": "roll", "value": n})
            assert len(reader.events(mid)) == n  # WAL: a reader alongside the writer


# -- crashes -------------------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import os, sys
    from companion.store import Store
    store = Store.in_dir(sys.argv[1])
    mid = store.new_match("final-count", ["Ann", "Bob"], {})
    limit = int(sys.argv[2])
    n = 0
    while limit < 0 or n < limit:
        n += 1
        seq = store.append(mid, {"type": "roll", "n": n, "pad": "x" * 300})
        print(seq, flush=True)  # acknowledged: the screen would show it now
    os._exit(0)  # no close(), no checkpoint: like a power cut as far as SQLite can tell
    """
)


def child(state_dir: Path, limit: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(state_dir), str(limit)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )


def test_events_survive_exit_without_close(tmp_path: Path) -> None:
    proc = child(tmp_path, 25)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out.split() == [str(n) for n in range(1, 26)]
    with Store.in_dir(tmp_path) as s:
        assert [e["n"] for e in s.events(1)] == list(range(1, 26))


def test_kill_9_mid_stream_never_leaves_half_an_event(tmp_path: Path) -> None:
    proc = child(tmp_path, -1)
    assert proc.stdout is not None
    acknowledged = 0
    while acknowledged < 40:
        line = proc.stdout.readline()
        assert line, "the child died early"
        acknowledged = int(line)
    proc.send_signal(signal.SIGKILL)  # somewhere inside the next append()
    proc.communicate(timeout=60)
    with Store.in_dir(tmp_path) as s:
        events = s.events(1)
    assert len(events) >= acknowledged
    assert [e["n"] for e in events] == list(range(1, len(events) + 1))
    assert all(e == {"type": "roll", "n": e["n"], "pad": "x" * 300} for e in events)


# -- a model check of append/pop -------------------------------------------------------------

ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 6)),
        st.tuples(st.just("pop"), st.just(0)),
    ),
    max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(ops)
def test_the_log_behaves_like_a_list(steps: list[tuple[str, int]]) -> None:
    with Store(":memory:", clock=Ticks()) as s:
        mid = s.new_match("final-count", ["Ann", "Bob"], {})
        model: list[dict] = []
        for op, value in steps:
            if op == "append":
                event = {"type": "roll", "value": value}
                assert s.append(mid, event) == len(model) + 1
                model.append(event)
            elif model:
                assert s.pop(mid) == model.pop()
            else:
                with pytest.raises(StoreError, match="nothing to undo"):
                    s.pop(mid)
        assert s.events(mid) == model
        assert s.match(mid).event_count == len(model)


def test_the_module_examples_run() -> None:
    import doctest

    assert doctest.testmod(store_module).failed == 0


def test_a_store_opens_through_a_named_vfs(tmp_path: Path) -> None:
    # The seam a power-cut test uses: the file is opened through the VFS it names.
    with Store(tmp_path / "companion.db", vfs="unix") as s:
        s.add_player("Ann")
    with Store(tmp_path / "companion.db") as s:
        assert s.roster() == ["Ann"]
    with pytest.raises(StoreError, match="no such vfs"):
        Store(tmp_path / "other.db", vfs="no-such-vfs")
