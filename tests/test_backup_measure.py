"""Backups that measure before they write (issue 28 point 3): a restore too large for
the card is refused before a byte is written, a folder that cannot be written is one
line, another device's backup asks which id this device keeps, and what a stop leaves
behind (a backup or a restore cut off) is cleaned up, or finished, at the next start.

The bar: a 300 MB backup restored onto a 64 MB card is refused before writing (a real
64 MB tmpfs where root can mount one, and an injected free-space twin that always
runs); a backup into a read-only folder is one line.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from companion_cli import companion
from test_backup import finish_scoreboard, make_backup, one_line_refusal, played  # noqa: F401
from test_owner_folders import keep_one_backup

from companion.commands.backup import devices_state_dir, restore_main
from companion.config import SYSTEM_CONFIG, parse_config
from companion.errors import BackupError, NoRoom, StoreError
from companion.gamelog import GameLog
from companion.store import Store, restoring
from companion.store.backup import free_space, manifest_for
from companion.store.keeper import BackupKeeper, backup_log

MB = 1_000_000


def mount_tmpfs(where: Path, size: str, *options: str) -> None:
    where.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join((f"size={size}", *options)),
                        "tmpfs", str(where)], check=True, capture_output=True, text=True,
                       timeout=30)
    except (OSError, subprocess.SubprocessError) as err:
        detail = getattr(err, "stderr", "") or err
        pytest.skip(f"NOT TESTED ON A REAL CARD: cannot mount a tmpfs here (needs root: "
                    f"{str(detail).strip()}); the injected twin covers the same path")


def unmount(where: Path) -> None:
    subprocess.run(["umount", "-l", str(where)], check=False, capture_output=True, timeout=30)


@pytest.fixture(scope="module")
def huge_backup(tmp_path_factory) -> Iterator[Path]:
    """A true 300 MB backup: a real game log padded to 300 MB, its manifest its own."""
    folder = tmp_path_factory.mktemp("huge")
    db = folder / "companion.db"
    with Store(db) as store:
        store.device_id()
        finish_scoreboard(store, [])
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("CREATE TABLE padding (filler BLOB)")
    for _ in range(30):
        conn.execute("INSERT INTO padding VALUES (zeroblob(10000000))")
    conn.commit()
    conn.close()
    manifest = manifest_for(db, app_version="test", now=1700000000.0)
    assert manifest["db_bytes"] >= 300 * MB
    file = folder / "companion-huge-20231114T221320000Z.companion-backup"
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        archive.write(db, "companion.db")
    db.unlink()
    yield file
    shutil.rmtree(folder, ignore_errors=True)


def test_a_300_mb_backup_onto_a_64_mb_card_is_refused_before_writing(
        huge_backup: Path, tmp_path: Path) -> None:
    card = tmp_path / "card"
    mount_tmpfs(card, "64m")
    try:
        state = card / "state"
        with Store.in_dir(state) as store:
            store.add_player("Zed")
        before = shutil.disk_usage(card).used
        listing = sorted(path.name for path in state.iterdir())
        done = companion("restore", str(huge_backup), "--state-dir", str(state), "--take-id")
        refusal = one_line_refusal(done, 1)
        found = re.search(r"it needs (\d+) MB; (\d+) MB free in ", refusal)
        assert found and int(found[1]) > 300 and 60 < int(found[2]) <= 67, refusal
        assert shutil.disk_usage(card).used == before  # not one byte was written
        assert sorted(path.name for path in state.iterdir()) == listing
    finally:
        unmount(card)


def test_the_injected_twin_refuses_the_same_way(huge_backup: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    asked: list[Path] = []

    def card(directory: Path) -> int:
        asked.append(directory)
        return 62 * MB + 345_678

    with pytest.raises(NoRoom, match=r"it needs 3\d\d MB; 62 MB free in "):
        restore_main(str(huge_backup), state, ids="take", free=card, out=io.StringIO())
    assert asked == [state] and sorted(state.iterdir()) == []


def test_a_backup_that_fits_just_is_not_refused(played: Path, tmp_path: Path) -> None:  # noqa: F811
    backup = make_backup(played, tmp_path / "backups")
    size = json.loads(zipfile.ZipFile(backup).read("manifest.json"))["db_bytes"]
    roomy = size + size // 8 + (1 << 20)
    out = io.StringIO()
    assert restore_main(str(backup), tmp_path / "t", ids="take", out=out,
                        free=lambda _: roomy) == 0
    with pytest.raises(NoRoom):
        restore_main(str(backup), tmp_path / "u", ids="take", free=lambda _: roomy - 1)


def test_a_full_card_while_the_restore_writes_is_said_as_such(played: Path,  # noqa: F811
                                                              tmp_path: Path) -> None:
    """The measure passed (another program filled the card meanwhile: here the probe
    is told the card is roomy): the words are about the card, exit 1, never "disk I/O
    error" or the backup being damaged, and nothing is left behind."""
    backup = make_backup(played, tmp_path / "backups")
    card = tmp_path / "card"
    mount_tmpfs(card, "64k")
    try:
        state = card / "state"
        roomy = iter([10**12])  # the measure; after it, the card as it is
        with pytest.raises(StoreError) as refused:
            restore_main(str(backup), state, ids="take", out=io.StringIO(),
                         free=lambda where: next(roomy, None) or free_space(where))
        assert not isinstance(refused.value, BackupError)
        assert re.fullmatch(rf"cannot restore: the card is full \(6\d KB free in {state}; it "
                            r"needs 1\.\d MB\)", str(refused.value)), refused.value
        assert list(state.iterdir()) == []
    finally:
        unmount(card)


# -- a folder that cannot be written ------------------------------------------------------


def test_a_backup_into_a_read_only_folder_is_one_line(played: Path,  # noqa: F811
                                                      tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    mount_tmpfs(stick, "4m", "ro")
    try:
        done = companion("backup", "--state-dir", str(played), "--to", str(stick))
        refusal = one_line_refusal(done, 1)
        assert refusal == f"companion: cannot write the backup in {stick}: it is read-only\n"
    finally:
        unmount(stick)


def test_the_read_only_twin_is_one_line(played: Path, tmp_path: Path,  # noqa: F811
                                        monkeypatch) -> None:
    import companion.store.backup as backups

    stick = tmp_path / "stick"
    stick.mkdir()

    class ReadOnly:
        f_flag = os.ST_RDONLY

    access, statvfs = os.access, os.statvfs
    monkeypatch.setattr(backups.os, "access",
                        lambda path, mode: Path(path) != stick and access(path, mode))
    monkeypatch.setattr(backups.os, "statvfs",
                        lambda path: ReadOnly() if Path(path) == stick else statvfs(path))
    with pytest.raises(StoreError, match=r"cannot write the backup in .*: it is read-only$"):
        backup_log(played / "companion.db", stick)
    assert list(stick.iterdir()) == []


def test_the_service_is_told_how_to_get_its_folder_written(tmp_path: Path,
                                                           monkeypatch) -> None:
    """Under systemd (ProtectSystem=strict), a folder the installer was not told about
    is read-only: the one line on the screen says what to do."""
    import companion.store.backup as backups
    import companion.store.keeper as keepers

    stick = tmp_path / "stick"
    stick.mkdir()

    class ReadOnly:
        f_flag = os.ST_RDONLY

    access, statvfs = os.access, os.statvfs
    monkeypatch.setattr(backups.os, "access",
                        lambda path, mode: Path(path) != stick and access(path, mode))
    monkeypatch.setattr(backups.os, "statvfs",
                        lambda path: ReadOnly() if Path(path) == stick else statvfs(path))
    monkeypatch.setattr(keepers, "BACKUP_DROPIN", tmp_path / "no-dropin.conf")
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    assert keep_one_backup(tmp_path, stick) == [
        f"cannot write the backup in {stick}: it is read-only (run sudo deploy/install.sh "
        "again: it lets the service write it)"]


def test_backup_and_restore_find_the_services_log_on_an_installed_device(
        tmp_path: Path) -> None:
    service = tmp_path / "var-lib-companion"
    service.mkdir()
    installed = parse_config("", source=str(SYSTEM_CONFIG))
    assert devices_state_dir(installed, {}, service=service) == service
    assert devices_state_dir(installed, {"STATE_DIRECTORY": "/x"}, service=service) == \
        Path("/x")
    moved = parse_config("[state]\ndir = '/srv/c'\n", source=str(SYSTEM_CONFIG))
    assert devices_state_dir(moved, {}, service=service) == Path("/srv/c")
    desktop = parse_config("", source=str(tmp_path / "config.toml"))
    assert devices_state_dir(desktop, {"XDG_DATA_HOME": "/d"}, service=service) == \
        Path("/d/companion")
    assert devices_state_dir(installed, {"XDG_DATA_HOME": "/d"},
                             service=tmp_path / "none") == Path("/d/companion")


def test_a_log_the_user_may_not_read_is_said_with_whom_to_run_as(tmp_path: Path,
                                                                 monkeypatch) -> None:
    """`companion backup` by the owner's own user on an installed device: the service's
    folder is the service user's (0750), said so, not "no game log"."""
    import companion.store.keeper as backups

    state = tmp_path / "state"
    Store.in_dir(state).close()
    access = os.access
    monkeypatch.setattr(backups.os, "access",
                        lambda path, mode: Path(path) != state and access(path, mode))
    with pytest.raises(StoreError, match=r"^cannot read the game log in .*: permission "
                                         r"denied \(.*sudo -u companion\)$"):
        backup_log(state / "companion.db", tmp_path)


def test_a_backup_with_no_room_for_its_copy_is_refused_before_writing(
        played: Path, tmp_path: Path) -> None:  # noqa: F811
    stick = tmp_path / "stick"
    stick.mkdir()
    with pytest.raises(NoRoom, match=r"needs \d+ KB; 1 KB free"):
        backup_log(played / "companion.db", stick, free=lambda _: 1000)
    assert list(stick.iterdir()) == []


# -- which id --------------------------------------------------------------------------------


def device_id(state: Path) -> str | None:
    conn = sqlite3.connect(state / "companion.db")  # closed clean: no -wal or -shm left
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()
    finally:
        conn.close()
    return None if row is None else row[0]


@pytest.fixture
def two_devices(played: Path, tmp_path: Path) -> tuple[Path, Path]:  # noqa: F811
    """Another device's backup, and this device's state dir with a game of its own."""
    backup = make_backup(played, tmp_path / "backups")
    mine = tmp_path / "mine"
    with Store.in_dir(mine) as store:
        store.device_id()
        finish_scoreboard(store, [])
    return backup, mine


def test_another_devices_backup_asks_which_id(two_devices, played: Path) -> None:  # noqa: F811
    backup, mine = two_devices
    own, theirs = device_id(mine), device_id(played)
    before = sorted(path.name for path in mine.iterdir())
    refusal = one_line_refusal(companion("restore", str(backup), "--state-dir", str(mine)), 6)
    assert f"made by device {theirs[:8]} (this one is {own[:8]})" in refusal
    assert "--keep-id" in refusal and "--take-id" in refusal
    assert sorted(path.name for path in mine.iterdir()) == before


def test_keep_id_keeps_this_devices_id(two_devices, played: Path) -> None:  # noqa: F811
    backup, mine = two_devices
    own = device_id(mine)
    done = companion("restore", str(backup), "--state-dir", str(mine), "--keep-id")
    assert done.returncode == 0, done.stderr
    assert f"this device keeps its own id {own[:8]}" in done.stdout
    assert device_id(mine) == own
    with Store(mine / "companion.db", readonly=True) as store:
        assert len(store.every_match()) == 26


def test_take_id_takes_the_old_one_over(two_devices, played: Path) -> None:  # noqa: F811
    backup, mine = two_devices
    theirs = device_id(played)
    done = companion("restore", str(backup), "--state-dir", str(mine), "--take-id")
    assert done.returncode == 0, done.stderr
    assert f"this device now has the id {theirs[:8]}" in done.stdout
    assert device_id(mine) == theirs


def test_this_devices_own_backup_asks_nothing(played: Path, tmp_path: Path) -> None:  # noqa: F811
    backup = make_backup(played, tmp_path / "backups")
    done = companion("restore", str(backup), "--state-dir", str(played))
    assert done.returncode == 0, done.stderr
    assert "id" not in done.stdout.replace("kept as", "")


# -- a restore cut off ------------------------------------------------------------------


def cut_off_restore(played: Path, tmp_path: Path, *, checked: bool,  # noqa: F811
                    set_aside: bool) -> tuple[Path, Path]:
    """The state a restore leaves when the power goes: its work folder with the copy
    (checked or not), the old log set aside or still in place."""
    backup = make_backup(played, tmp_path / "backups")
    state = tmp_path / "state"
    with Store.in_dir(state) as store:
        store.add_player("Zed")
    work = state / ".restore-cut"
    work.mkdir()
    (work / "lock").write_text("")
    with zipfile.ZipFile(backup) as archive:
        (work / "companion.db").write_bytes(archive.read("companion.db"))
    if checked:
        restoring.mark_checked(work, work / "companion.db", backup.name)
    if set_aside:
        Store.set_aside(state / "companion.db", label="before-restore")
    return backup, state


def test_a_restore_cut_off_after_its_checks_is_finished_at_the_next_start(
        played: Path, tmp_path: Path) -> None:  # noqa: F811
    backup, state = cut_off_restore(played, tmp_path, checked=True, set_aside=True)
    game_log = GameLog.open(state, 0.0)
    try:
        assert game_log.notice == f"Restore of {backup.name} was cut off: finished now"
        assert len(game_log.store.every_match()) == 26
    finally:
        game_log.close()
    assert not [path for path in state.iterdir() if path.name.startswith(".restore-")]


@pytest.mark.parametrize("checked", [False, True])
def test_a_restore_cut_off_before_it_was_in_place_is_undone(played: Path,  # noqa: F811
                                                            tmp_path: Path,
                                                            checked: bool) -> None:
    backup, state = cut_off_restore(played, tmp_path, checked=checked, set_aside=False)
    game_log = GameLog.open(state, 0.0)
    try:
        name = backup.name if checked else "a backup"
        assert game_log.notice == (f"Restore of {name} was cut off: undone, the game log "
                                   "is as it was")
        assert game_log.store.every_match() == [] and "Zed" in game_log.store.roster()
    finally:
        game_log.close()
    assert not [path for path in state.iterdir() if path.name.startswith(".restore-")]


def test_a_restore_running_now_is_left_alone(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    with restoring.at_work(state) as work:
        (work / "companion.db").write_bytes(b"half")
        assert restoring.recover(state) is None
        assert (work / "companion.db").exists()
    assert list(state.iterdir()) == []


# -- a backup cut off -------------------------------------------------------------------


def test_a_backup_cut_off_is_cleaned_up_and_the_game_backed_up_at_start(
        tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    stick.mkdir()
    with Store.in_dir(tmp_path / "state") as store:
        prefix = f"companion-{store.device_id()[:8]}-"
        first = BackupKeeper(store.path, stick, 5, on_failure=print).start()
        finish_scoreboard(store, [first.listener])
        assert first.wait()
        first.stop()
        (done,) = first.written
        # The device stops while the next game's backup is written: its hidden files stay.
        finish_scoreboard(store, [])
        cut = f".{prefix}20991231T000000000Z.companion-backup"
        leftovers = [stick / f"{cut}.db", stick / f"{cut}.partial", stick / f"{cut}.db-journal"]
        for path in leftovers:
            path.write_bytes(b"\0" * 1000)
        theirs = stick / ".companion-otherdev-20991231T000000000Z.companion-backup.partial"
        theirs.write_bytes(b"another device at work")
        failures: list[str] = []
        keeper = BackupKeeper(store.path, stick, 5, on_failure=failures.append).start()
        try:
            assert keeper.wait()
        finally:
            keeper.stop()
        assert failures == [] and len(keeper.written) == 1
        assert not any(path.exists() for path in leftovers) and theirs.exists()
        with zipfile.ZipFile(keeper.written[0]) as archive:
            counts = json.loads(archive.read("manifest.json"))["counts"]
        assert counts["matches"] == 2 and counts["unfinished"] == 0
        again = BackupKeeper(store.path, stick, 5, on_failure=failures.append).start()
        try:
            assert again.wait()
        finally:
            again.stop()
        assert again.written == [] and done.exists()  # nothing new ended: no backup
