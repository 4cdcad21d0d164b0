"""Backup and restore (issue 22 point 2): ``companion backup``/``restore``, the device's
own backups after each finished game, and the paired phone's download.

The bar: a backup restored into an empty state dir gives the same ``stats --json``; a
backup taken while a game is being written restores intact; a backup from a newer
schema, or with a wrong checksum, is refused with one line; a backup taken mid-game
resumes that game.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sqlite3
import stat
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from companion_cli import companion

from companion.bench.device import stats_store
from companion.clock import ManualClock
from companion.commands.backup import restore_main
from companion.config import Backup, Config
from companion.errors import BackupError, BackupTooNew, LogInUse, StoreError
from companion.launch import backup_keeper, make_app
from companion.session import Session
from companion.sim import sim_board_factory, sim_panel
from companion.store import SCHEMA_VERSION, Store
from companion.store.keeper import BackupKeeper, backup_log
from companion.ui.screen import Confirm, Message

POINTS = [("Ann", 5), ("Bob", 12), ("Ann", 20)]


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A state dir with 25 finished scoreboard games and one being played."""
    state = tmp_path / "played"
    store = stats_store(str(state), 25, events_per_match=12)
    match_id = store.new_match("scoreboard", ["Ann", "Bob"], {"target": 30})
    for player, points in POINTS:
        store.append(match_id, {"type": "points", "player": player, "points": points})
    store.close()
    return state


def make_backup(state: Path, folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    done = companion("backup", "--state-dir", str(state), "--to", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    return Path(json.loads(done.stdout)["file"])


def rewrite(backup: Path, out: Path, *, manifest=None, db=None) -> Path:
    """A copy of ``backup`` with its manifest (a function of the old one) or its
    database bytes (a function of the old ones) changed."""
    with zipfile.ZipFile(backup) as archive:
        old_manifest = json.loads(archive.read("manifest.json"))
        old_db = archive.read("companion.db")
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("manifest.json", json.dumps((manifest or (lambda m: m))(old_manifest)))
        archive.writestr("companion.db", (db or (lambda d: d))(old_db))
    return out


def one_line_refusal(done: subprocess.CompletedProcess, status: int) -> str:
    assert done.returncode == status, (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stdout == ""
    return done.stderr


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the bar ----------------------------------------------------------------------------------


def test_backup_then_restore_into_an_empty_dir_gives_equal_stats(played: Path,
                                                                 tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    assert backup.name.endswith(".companion-backup")
    with zipfile.ZipFile(backup) as archive:
        assert sorted(archive.namelist()) == ["companion.db", "manifest.json"]
        manifest = json.loads(archive.read("manifest.json"))
        db = archive.read("companion.db")
    assert manifest["format"] == "companion-backup" and manifest["format_version"] == 1
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["app_version"] and manifest["created_utc"].endswith("Z")
    assert manifest["sha256"] == hashlib.sha256(db).hexdigest()
    assert manifest["db_bytes"] == len(db)
    with Store(played / "companion.db", readonly=True) as store:
        events = sum(record.event_count for record in store.every_match())
        assert manifest["counts"] == {"matches": 26, "events": events,
                                      "players": len(store.roster()), "unfinished": 1}

    empty = tmp_path / "restored"
    done = companion("restore", str(backup), "--state-dir", str(empty), "--take-id")
    assert done.returncode == 0, done.stderr
    assert "26 matches" in done.stdout and "offered to resume" in done.stdout
    before = companion("stats", "--json", "--state-dir", str(played))
    after = companion("stats", "--json", "--state-dir", str(empty))
    assert before.returncode == after.returncode == 0
    assert json.loads(after.stdout) == json.loads(before.stdout)
    assert json.loads(before.stdout)  # figures, not an empty answer
    assert sorted(p.name for p in empty.iterdir()) == ["companion.db"]  # nothing left over


def test_a_backup_taken_while_a_game_is_written_restores_intact(tmp_path: Path) -> None:
    state = tmp_path / "busy"
    with Store.in_dir(state) as store:
        match_id = store.new_match("scoreboard", ["Ann", "Bob"], {})
    stop = threading.Event()
    appended: list[int] = []

    def writer() -> None:  # the device, on its own connection, one event after another
        with Store.in_dir(state) as own:
            while not stop.is_set() or len(appended) < 50:
                seat = ("Ann", "Bob")[len(appended) % 2]  # rounds: Ann, then Bob
                appended.append(own.append(match_id, {"type": "points", "player": seat,
                                                      "points": len(appended) % 7}))

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(appended) < 5:
            pass
        taken = [backup_log(state / "companion.db", tmp_path / f"b{n}.companion-backup")
                 for n in range(6)]
        during = len(appended)
    finally:
        stop.set()
        thread.join(30)
    assert during < len(appended)  # the writer was still appending after the last backup
    for n, (file, manifest) in enumerate(taken):
        into = tmp_path / f"into{n}"
        assert restore_main(str(file), into, ids="take", out=io.StringIO()) == 0
        with Store(into / "companion.db") as restored:
            events = restored.events(match_id)
            assert restored.match(match_id).in_progress
        assert len(events) == manifest["counts"]["events"] >= 5
        # One moment of the log: its first events, in order, none torn or missing.
        assert [e["points"] for e in events] == [i % 7 for i in range(len(events))]


def test_a_backup_from_a_newer_schema_is_refused_with_one_line(played: Path,
                                                               tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    newer = rewrite(backup, tmp_path / "newer.companion-backup",
                    manifest=lambda m: {**m, "schema_version": SCHEMA_VERSION + 1})
    target = tmp_path / "target"
    with Store.in_dir(target) as store:
        store.add_player("Zed")
    before = sha(target / "companion.db")
    refusal = one_line_refusal(companion("restore", str(newer), "--state-dir", str(target)), 3)
    assert "newer companion" in refusal and f"schema {SCHEMA_VERSION + 1}" in refusal
    assert sha(target / "companion.db") == before
    assert sorted(p.name for p in target.iterdir()) == ["companion.db"]
    later = rewrite(backup, tmp_path / "later.companion-backup",
                    manifest=lambda m: {**m, "format_version": 2})
    with pytest.raises(BackupTooNew):
        restore_main(str(later), target, ids="take", out=io.StringIO())


def test_a_backup_with_a_wrong_checksum_is_refused(played: Path, tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    target = tmp_path / "target"

    def flip(db: bytes) -> bytes:  # one byte in the last page
        return db[:-100] + bytes([db[-100] ^ 0xFF]) + db[-99:]

    bad = rewrite(backup, tmp_path / "flipped.companion-backup", db=flip)
    refusal = one_line_refusal(companion("restore", str(bad), "--state-dir", str(target)), 4)
    assert "checksum" in refusal
    other = rewrite(backup, tmp_path / "sum.companion-backup",
                    manifest=lambda m: {**m, "sha256": "0" * 64})
    assert "checksum" in one_line_refusal(
        companion("restore", str(other), "--state-dir", str(target)), 4)
    assert not (target / "companion.db").exists()


def test_a_backup_taken_mid_game_resumes_the_game(played: Path, tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    into = tmp_path / "restored"
    assert restore_main(str(backup), into, ids="take", out=io.StringIO()) == 0
    with Store(into / "companion.db") as store:
        waiting = store.unfinished()
        assert waiting is not None and waiting.game_id == "scoreboard"
        assert [(e["player"], e["points"]) for e in store.events(waiting.id)] == POINTS
    # The device (the simulator's app) offers it at start, and OK resumes it there.
    app = make_app(Config(), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock(), state_dir=into)
    try:
        assert isinstance(app.screen, Confirm) and app.screen.title == "Unfinished game"
        assert app.screen.lines[0].startswith("Resume Scoreboard")
        app.start()
        app.post("press", type("P", (), {"button": "ok", "long": False})())
        app.pump()
        session = app.current_session()
        assert session is not None and session.match_id == waiting.id
        assert [(e["player"], e["points"]) for e in session.match.events] == POINTS
    finally:
        app.board.close()
        app.ctx.store.close()


# -- restore's other checks ----------------------------------------------------------------


def test_restore_keeps_the_log_that_was_there(played: Path, tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    target = tmp_path / "target"
    with Store.in_dir(target) as store:
        store.add_player("Zed")
    before = sha(target / "companion.db")
    out = io.StringIO()
    assert restore_main(str(backup), target, ids="take", out=out,
                        clock=lambda: 1700000000.0) == 0
    kept = target / "companion.db.before-restore-20231114T221320Z"
    assert kept.is_file() and sha(kept) == before
    assert str(kept) in out.getvalue()
    with Store(kept) as old:
        assert old.roster() == ["Zed"]
    with Store(target / "companion.db") as new:
        assert "Zed" not in new.roster() and new.unfinished() is not None


def test_restore_is_refused_while_the_log_is_open(played: Path, tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    target = tmp_path / "target"
    Store.in_dir(target).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from companion.store import Store; "
         f"s = Store.in_dir({str(target)!r}); print('open', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        refusal = one_line_refusal(companion("restore", str(backup), "--state-dir",
                                             str(target)), 5)
        assert "open in another program" in refusal and "stop it first" in refusal
    finally:
        holder.stdin.close()
        holder.wait(30)
    assert restore_main(str(backup), target, ids="take", out=io.StringIO()) == 0


def test_a_match_that_does_not_replay_is_refused(played: Path, tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    raw = tmp_path / "raw.db"
    with zipfile.ZipFile(backup) as archive:
        raw.write_bytes(archive.read("companion.db"))
    conn = sqlite3.connect(raw)
    conn.execute("UPDATE events SET event = '{\"type\": \"roll\"}' WHERE match_id = 3 AND seq = 2")
    conn.commit()
    conn.close()
    data = raw.read_bytes()
    bad = rewrite(backup, tmp_path / "bad.companion-backup", db=lambda _: data,
                  manifest=lambda m: {**m, "sha256": hashlib.sha256(data).hexdigest(),
                                      "db_bytes": len(data)})
    refusal = one_line_refusal(companion("restore", str(bad), "--state-dir",
                                         str(tmp_path / "t")), 4)
    assert "match 3 (Scoreboard) does not replay" in refusal


def test_a_damaged_database_with_a_matching_checksum_is_refused(played: Path,
                                                                tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    with zipfile.ZipFile(backup) as archive:
        db = bytearray(archive.read("companion.db"))
    page = 4096
    db[page + 8: page + 400] = b"\xAB" * 392  # garbage over the second page
    data = bytes(db)
    bad = rewrite(backup, tmp_path / "bad.companion-backup", db=lambda _: data,
                  manifest=lambda m: {**m, "sha256": hashlib.sha256(data).hexdigest()})
    refusal = one_line_refusal(companion("restore", str(bad), "--state-dir",
                                         str(tmp_path / "t")), 4)
    assert "damaged" in refusal


@pytest.mark.parametrize("content, words", [
    (b"not a zip at all", "not a companion backup"),
    (None, "not a companion backup"),  # a zip without the members
])
def test_what_is_not_a_backup_is_refused(tmp_path: Path, content, words) -> None:
    path = tmp_path / "x.companion-backup"
    if content is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("hello.txt", "hi")
    else:
        path.write_bytes(content)
    refusal = one_line_refusal(companion("restore", str(path), "--state-dir",
                                         str(tmp_path / "t")), 4)
    assert words in refusal
    missing = one_line_refusal(companion("restore", str(tmp_path / "nope"), "--state-dir",
                                         str(tmp_path / "t")), 1)
    assert "no file" in missing


def test_a_manifest_that_inflates_is_cut_at_its_size(played: Path, tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    small = rewrite(backup, tmp_path / "small.companion-backup",
                    manifest=lambda m: {**m, "db_bytes": 1000})
    with pytest.raises(BackupError, match="larger than its manifest says"):
        restore_main(str(small), tmp_path / "t", ids="take", out=io.StringIO())
    assert [p.name for p in (tmp_path / "t").iterdir()] == []  # the work dir is gone


def test_backup_without_a_log_says_so(tmp_path: Path) -> None:
    refusal = one_line_refusal(companion("backup", "--state-dir", str(tmp_path / "none"),
                                         "--to", str(tmp_path)), 1)
    assert "no game log" in refusal


# -- the device's own backups -------------------------------------------------------------------


def finish_scoreboard(store: Store, listeners) -> Session:
    session = Session.start("scoreboard", ["Ann", "Bob"], {"target": 20}, store=store,
                            listeners=listeners)
    for player, points in (("Ann", 5), ("Bob", 12), ("Ann", 20), ("Bob", 3)):
        session.apply({"type": "points", "player": player, "points": points})
    assert session.match.over
    return session


def test_the_keeper_backs_up_each_finished_game_and_keeps_the_newest(tmp_path: Path) -> None:
    folder = tmp_path / "stick"
    folder.mkdir()
    (folder / "companion-otherdev-20200101T000000000Z.companion-backup").write_text("theirs")
    failures: list[str] = []
    with Store.in_dir(tmp_path / "state") as store:
        store.device_id()
        ticks = iter(range(1700000000, 1700009999, 7))
        keeper = BackupKeeper(store.path, folder, 2, on_failure=failures.append,
                              clock=lambda: float(next(ticks))).start()
        try:
            half = Session.start("scoreboard", ["Ann", "Bob"], {"target": 20}, store=store,
                                 listeners=[keeper.listener])
            half.apply({"type": "points", "player": "Ann", "points": 5})
            assert keeper.wait() and keeper.written == []  # not over: no backup
            for _ in range(3):
                finish_scoreboard(store, [keeper.listener])
                assert keeper.wait()
        finally:
            keeper.stop()
    assert failures == [] and len(keeper.written) == 3
    left = sorted(p.name for p in folder.iterdir())
    assert left == sorted([keeper.written[1].name, keeper.written[2].name,
                           "companion-otherdev-20200101T000000000Z.companion-backup"])
    with zipfile.ZipFile(keeper.written[2]) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    assert manifest["counts"]["matches"] == 4 and manifest["device_id"]


def test_a_failed_backup_is_one_line_on_the_screen_and_play_goes_on(tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    stick.mkdir()
    config = Config(backup=Backup(dir=str(stick), keep=3))
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock(), state_dir=tmp_path / "state")
    try:
        with backup_keeper(app, config.backup) as slot:
            app.start()
            app.pump()  # the keeper starts on the owner thread
            (keeper,) = slot
            finish_scoreboard(app.ctx.store, app.ctx.listeners)
            assert keeper.wait()
            assert len(list(stick.iterdir())) == 1
            for path in stick.iterdir():
                path.unlink()
            stick.rmdir()  # the stick is pulled out
            finish_scoreboard(app.ctx.store, app.ctx.listeners)
            assert keeper.wait()
            app.pump()
            assert isinstance(app.screen, Message) and app.screen.title == "Backup failed"
            assert "is the stick or share mounted?" in " ".join(app.screen.lines)
            finish_scoreboard(app.ctx.store, app.ctx.listeners)  # the table goes on
    finally:
        app.board.close()
        app.ctx.store.close()


def test_backup_config_is_checked(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[backup]\ndir = "/media/usb/companion"\nkeep = 5\n')
    done = companion("config", "--config", str(good))
    assert done.returncode == 0 and 'dir = "/media/usb/companion"' in done.stdout
    for text, words in (("[backup]\nkeep = 0\n", "backup.keep must be from 1 to 1000"),
                        ('[backup]\ndir = "usb"\n', "backup.dir must be an absolute path"),
                        ('[backup]\ndir = "/a\\u0000b"\n', "backup.dir must not contain a NUL"),
                        ('[backup]\nkeep = "all"\n', "backup.keep must be a whole number")):
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        assert words in one_line_refusal(companion("config", "--config", str(bad)), 78)


def test_backup_goes_to_the_configured_dir_by_default(played: Path, tmp_path: Path) -> None:
    folder = tmp_path / "configured"
    folder.mkdir()
    config = tmp_path / "c.toml"
    config.write_text(f'[backup]\ndir = "{folder}"\n')
    done = companion("backup", "--config", str(config), "--state-dir", str(played))
    assert done.returncode == 0, done.stderr
    (made,) = folder.iterdir()
    assert done.stdout.startswith(str(made)) and "26 matches" in done.stdout


def test_a_restore_error_in_the_state_dir_is_a_store_error(played: Path,
                                                          tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot create the state directory"):
        restore_main(str(backup), blocker / "state", ids="take", out=io.StringIO())
    assert not isinstance(LogInUse("x"), BackupError)


def test_a_backup_from_an_older_schema_is_brought_up_to_date(tmp_path: Path) -> None:
    from companion.store import MIGRATIONS
    from companion.store.backup import manifest_for

    old = tmp_path / "old"
    old.mkdir()
    conn = sqlite3.connect(old / "companion.db", isolation_level=None)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("INSERT INTO matches (id, game_id, players, options, started) "
                 "VALUES (1, 'scoreboard', '[\"Ann\",\"Bob\"]', '{}', 100.0)")
    conn.execute("INSERT INTO events VALUES (1, 1, '{\"type\":\"points\",\"player\":\"Ann\","
                 "\"points\":4}', 101.0)")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    manifest = manifest_for(old / "companion.db", app_version="0.0.1", now=100.0)
    assert manifest["schema_version"] == 1 and manifest["device_id"] is None
    file = tmp_path / "old.companion-backup"
    with zipfile.ZipFile(file, "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        archive.write(old / "companion.db", "companion.db")
    assert restore_main(str(file), tmp_path / "new", ids="take",
                        out=io.StringIO()) == 0
    with Store(tmp_path / "new" / "companion.db", readonly=True) as store:
        assert store.unfinished().uid  # schema 2's uid, given on the way in
        assert store.events(1) == [{"type": "points", "player": "Ann", "points": 4}]


def test_backup_never_writes_over_the_game_log(played: Path) -> None:
    before = sha(played / "companion.db")
    for target in ("companion.db", "companion.db-wal"):
        refusal = one_line_refusal(companion("backup", "--state-dir", str(played), "--to",
                                             str(played / target)), 1)
        assert "the game log itself" in refusal
    assert sha(played / "companion.db") == before


def test_backup_never_takes_the_place_of_a_device_a_pipe_or_another_file(
        played: Path, tmp_path: Path) -> None:
    """As root, --to /dev/null put a zip file where the system's /dev/null was (and
    --to notes.txt replaced the notes): a backup only takes the place of a backup."""
    folder = tmp_path / "places"
    folder.mkdir()
    if os.geteuid() == 0:  # a device as /dev/null is (only root makes one)
        os.mknod(folder / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    else:
        os.mkfifo(folder / "null")
    os.mkfifo(folder / "pipe")
    (folder / "notes.txt").write_text("the house rules\n")
    for name, said in (("null", "is not a file"), ("pipe", "is not a file"),
                       ("notes.txt", "is there already and is no backup")):
        before = (folder / name).lstat()
        refusal = one_line_refusal(companion("backup", "--state-dir", str(played), "--to",
                                             str(folder / name)), 1)
        assert refusal == f"companion: {folder / name} {said}" + (
            ": choose another name for the backup\n" if "already" in said else "\n")
        after = (folder / name).lstat()
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert (folder / "notes.txt").read_text() == "the house rules\n"
    assert sorted(path.name for path in folder.iterdir()) == ["notes.txt", "null", "pipe"]
    # A backup of any name takes the place of a backup, as a second run would.
    again = folder / "tonight.zip"
    for _ in range(2):
        assert companion("backup", "--state-dir", str(played), "--to", str(again)
                         ).returncode == 0


def test_the_backup_just_written_stays_when_the_clock_went_back(tmp_path: Path) -> None:
    folder = tmp_path / "stick"
    folder.mkdir()
    times = iter([1700000000.0, 1700000100.0, 5.0])  # then a restart without the time
    with Store.in_dir(tmp_path / "state") as store:
        store.device_id()
        keeper = BackupKeeper(store.path, folder, 2, on_failure=pytest.fail,
                              clock=lambda: next(times))
        written = [keeper.back_up() for _ in range(3)]
    assert sorted(folder.iterdir()) == sorted([written[1], written[2]])


def test_what_a_manifest_only_shows_is_printable(played: Path, tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    odd = rewrite(backup, tmp_path / "odd.companion-backup",
                  manifest=lambda m: {**m, "app_version": "1\nrestored everything",
                                      "device_id": 7, "created_utc": "x" * 500})
    out = io.StringIO()
    assert restore_main(str(odd), tmp_path / "t", ids="take", out=out) == 0
    first = out.getvalue().splitlines()[0]
    assert "made ? by companion ?" in first
    with Store(played / "companion.db", readonly=True) as store:
        # the device named is the log's own, never what the manifest claims
        assert f"on device {store.meta('device_id')[:8]})" in first


def test_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refusal = one_line_refusal(companion("restore", str(fifo), "--state-dir",
                                         str(tmp_path / "t")), 1)
    assert "is not a file" in refusal


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="only root can restore into another user's state directory")
def test_restore_as_root_gives_the_log_to_the_state_dirs_owner(played: Path,
                                                               tmp_path: Path) -> None:
    backup = make_backup(played, tmp_path / "backups")
    service = tmp_path / "var-lib-companion"
    service.mkdir()
    os.chown(service, 4321, 4322)
    assert restore_main(str(backup), service, ids="take", out=io.StringIO()) == 0
    owner = (service / "companion.db").stat()
    assert (owner.st_uid, owner.st_gid) == (4321, 4322)
