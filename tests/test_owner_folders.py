"""Issue 37 point 5, on the device: a backup folder the service's user cannot write (a
root-owned stick) says whom it belongs to and what would let the user write it, with
whole paths, and says "run sudo deploy/install.sh again" only where running it again
helps (a folder the service was not let write). And the simulator on a terminal that
reports 0x0 (a serial login) takes $COLUMNS and $LINES."""

from __future__ import annotations

import io
import os
import pty
import pwd
from pathlib import Path

import pytest
from test_backup import finish_scoreboard

from companion.device.terminal import NEEDED, STANDARD, TerminalScreen, terminal_size
from companion.errors import StoreError
from companion.store import Store
from companion.store.folders import Mount, mount_of, why_not_writable
from companion.store.keeper import BackupKeeper

#: The mounts of a Pi with a FAT stick at /media/stick (and one with a space in its name).
MOUNTS = [
    "22 1 179:2 / / rw,noatime shared:1 - ext4 /dev/root rw",
    "23 22 0:21 / /proc rw,nosuid shared:12 - proc proc rw",
    "40 22 8:1 / /media/stick rw,relatime shared:2 - vfat /dev/sda1 rw,fmask=0022",
    r"41 22 8:17 / /media/my\040card rw shared:3 - exfat /dev/sdb1 rw",
    "42 22 8:33 / /srv/disk rw - ext4 /dev/sdc1 rw",
]


@pytest.mark.parametrize(("path", "mount"), [
    ("/media/stick/companion", Mount("vfat", "/dev/sda1", "/media/stick")),
    ("/media/stick", Mount("vfat", "/dev/sda1", "/media/stick")),
    ("/media/sticky", Mount("ext4", "/dev/root", "/")),
    ("/media/my card/x", Mount("exfat", "/dev/sdb1", "/media/my card")),
    ("/srv/disk/../x", Mount("ext4", "/dev/root", "/")),
])
def test_the_mount_holding_a_folder(path, mount) -> None:
    assert mount_of(Path(path), MOUNTS) == mount


def test_a_root_owned_fat_stick_says_the_mount_option(tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    stick.mkdir()
    owner = pwd.getpwuid(stick.stat().st_uid).pw_name  # root, when the tests run as root
    mounts = [*MOUNTS, f"50 22 8:1 / {stick} rw - vfat /dev/sda1 rw"]
    said = why_not_writable(stick, uid=54321, mounts=mounts)
    assert said == (f"it belongs to {owner}, not 54321: mount /dev/sda1 with "
                    "uid=54321,gid=54321")


def test_a_folder_of_someone_else_says_chown(tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    said = why_not_writable(folder, uid=54321, mounts=MOUNTS)
    assert said.endswith(f": sudo chown 54321: {folder}") and "belongs to" in said


def test_a_folder_of_ones_own_without_write_says_its_mode(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir(mode=0o555)
    said = why_not_writable(folder, uid=os.stat(folder).st_uid, mounts=MOUNTS)
    assert said.startswith("its mode 555 does not let ") and said.endswith(
        f"write it: chmod u+w {folder}")


def keep_one_backup(tmp_path: Path, stick: Path) -> list[str]:
    failures: list[str] = []
    with Store.in_dir(tmp_path / "state") as store:
        keeper = BackupKeeper(store.path, stick, 3, on_failure=failures.append).start()
        try:
            finish_scoreboard(store, [keeper.listener])
            assert keeper.wait()
        finally:
            keeper.stop()
    return failures


@pytest.fixture
def service(tmp_path: Path, monkeypatch):
    """The keeper as the installed service runs it ($STATE_DIRECTORY set) with a stick
    whose folder ``os.access`` says it may not write; yields (stick, set_read_only)."""
    yield as_the_service(tmp_path, monkeypatch, tmp_path / "stick")


def as_the_service(tmp_path: Path, monkeypatch, stick: Path) -> tuple[Path, list]:
    """:func:`service`'s stick at ``stick``."""
    import companion.store.backup as backups
    import companion.store.keeper as keepers

    stick.mkdir()
    access, statvfs = os.access, os.statvfs
    read_only: list = []

    class ReadOnly:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(backups.os, "access",
                        lambda path, mode: Path(path) != stick and access(path, mode))
    monkeypatch.setattr(backups.os, "statvfs", lambda path: ReadOnly()
                        if Path(path) == stick and read_only else statvfs(path))
    monkeypatch.setattr(keepers, "BACKUP_DROPIN", tmp_path / "backup-dir.conf")
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    return stick, read_only


def test_a_stick_the_user_may_not_write_says_who_owns_it_not_install(
        tmp_path: Path, service, monkeypatch) -> None:
    import companion.store.folders as folders

    stick, _read_only = service
    (tmp_path / "mountinfo").write_text(
        "\n".join([*MOUNTS, f"60 22 8:1 / {stick} rw - vfat /dev/sda1 rw"]) + "\n")
    monkeypatch.setattr(folders, "MOUNTINFO", tmp_path / "mountinfo")
    monkeypatch.setattr(folders.os, "geteuid", lambda: 54321)
    (failure,) = keep_one_backup(tmp_path, stick)
    assert failure.startswith(f"cannot write the backup in {stick}: it belongs to ")
    assert failure.endswith(", not 54321: mount /dev/sda1 with uid=54321,gid=54321")
    assert "install.sh" not in failure


def test_a_read_only_folder_the_installer_let_says_restart_not_install(
        tmp_path: Path, service) -> None:
    stick, read_only = service
    read_only.append(True)
    (tmp_path / "backup-dir.conf").write_text(f"[Service]\nReadWritePaths=-{stick}\n")
    (failure,) = keep_one_backup(tmp_path, stick)
    assert failure == (f"cannot write the backup in {stick}: it is read-only (mounted after "
                       "companion started? sudo systemctl restart companion)")


def test_a_folder_the_installer_cannot_let_does_not_send_the_owner_to_it(
        tmp_path: Path, monkeypatch) -> None:
    """A stick at "/media/My Stick": install.sh refuses to name it in the unit, so "run
    sudo deploy/install.sh again" after every game could never help."""
    stick, read_only = as_the_service(tmp_path, monkeypatch, tmp_path / "My Stick")
    read_only.append(True)
    (failure,) = keep_one_backup(tmp_path, stick)
    assert failure == (f"cannot write the backup in {stick}: it is read-only (the service can "
                       "only be let write a folder whose path has no spaces, quotes, \\ or %: "
                       "choose another [backup] dir)")


# -- a folder on the way the user may not go into ------------------------------------------------


@pytest.fixture
def closed_on_the_way(tmp_path: Path, monkeypatch):
    """A stick a desktop mounted for its own user: ``media/pi`` (mode 700, root's) lets
    nobody else in, so for the service's user (uid 54321) every path inside it fails as
    Python 3.11 fails it: ``stat`` (and ``Path.is_dir``) raise PermissionError, which
    ``is_dir`` does not take for "no"; yields (the closed folder, the stick's folder)."""
    import companion.store.folders as folders

    closed = tmp_path / "media" / "pi"
    stick = closed / "STICK" / "companion"
    stick.mkdir(parents=True)
    closed.chmod(0o700)
    real_stat, real_access = Path.stat, os.access

    def stat(path: Path, *, follow_symlinks: bool = True):
        if closed in path.parents:
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, follow_symlinks=follow_symlinks)

    monkeypatch.setattr(Path, "stat", stat)
    monkeypatch.setattr(folders.os, "access",
                        lambda path, mode: Path(path) != closed and real_access(path, mode))
    monkeypatch.setattr(folders.os, "geteuid", lambda: 54321)
    return closed, stick


def test_a_stick_behind_a_folder_the_user_may_not_enter_is_said_on_the_screen(
        tmp_path: Path, closed_on_the_way) -> None:
    """It was "PermissionError: [Errno 13] Permission denied: ..." on the device's
    screen after every game (and a traceback from companion backup)."""
    closed, stick = closed_on_the_way
    owner = pwd.getpwuid(os.stat(closed).st_uid).pw_name
    (failure,) = keep_one_backup(tmp_path, stick)
    assert failure == (f"cannot write the backup in {stick}: 54321 may not go into {closed} "
                       f"(it belongs to {owner}, mode 700)")


def test_backup_to_a_folder_behind_one_the_user_may_not_enter_is_one_line(
        tmp_path: Path, closed_on_the_way) -> None:
    from companion.store.keeper import backup_log

    closed, stick = closed_on_the_way
    with Store.in_dir(tmp_path / "state") as store:
        finish_scoreboard(store, [])
    for to in (stick, stick / "mine.companion-backup"):
        with pytest.raises(StoreError) as refused:
            backup_log(tmp_path / "state" / Store.DEFAULT_NAME, to)
        assert str(refused.value).startswith(f"cannot write the backup in {to}: 54321 may "
                                             f"not go into {closed} (it belongs to ")


def test_a_backup_folder_that_is_not_there_is_said_so(tmp_path: Path) -> None:
    from companion.store.keeper import backup_log

    with Store.in_dir(tmp_path / "state") as store:
        finish_scoreboard(store, [])
    with pytest.raises(StoreError) as refused:
        backup_log(tmp_path / "state" / Store.DEFAULT_NAME,
                   tmp_path / "stick" / "companion" / "x.companion-backup")
    assert str(refused.value) == (f"no directory {tmp_path / 'stick' / 'companion'} (is the "
                                  "stick or share mounted?)")  # not "it is not a directory"


def test_the_fix_quotes_a_folder_with_a_space_as_a_shell_takes_it(tmp_path: Path) -> None:
    folder = tmp_path / "My Stick"
    folder.mkdir()
    said = why_not_writable(folder, uid=54321, mounts=MOUNTS)
    assert said.endswith(f": sudo chown 54321: '{folder}'"), said  # one argument, not two


def test_a_file_the_command_cannot_use_is_one_line_not_a_traceback(
        tmp_path: Path, monkeypatch, capsys) -> None:
    """Any command: a path behind a folder the user may not go into (Python 3.11's
    pathlib raises where it would say "no") is one line and exit 1."""
    import companion.stats as report
    from companion import cli

    def closed(*args, **kwargs):
        raise PermissionError(13, "Permission denied", "/media/pi/state/companion.db")

    monkeypatch.setattr(report, "stats_main", closed)
    with Store.in_dir(tmp_path) as store:
        finish_scoreboard(store, [])
    assert cli.main(["stats", "--state-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == ("companion: cannot use /media/pi/state/companion.db: "
                                       "Permission denied\n")


def test_an_import_the_user_may_not_read_is_not_said_missing(tmp_path: Path, monkeypatch,
                                                             capsys) -> None:
    """os.path.exists says False for a file behind a folder the user may not go into:
    "no such file" sent the owner looking for a file that is there."""
    from companion import cli

    export = tmp_path / "export.jsonl"
    export.write_text("{}\n")
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if str(path) == str(export):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(cli.os, "stat", stat)
    assert cli.main(["import", str(export), "--state-dir", str(tmp_path / "state")]) == 2
    assert capsys.readouterr().err == (f"companion: import: cannot read {export}: "
                                       "Permission denied\n")


# -- the simulator on a terminal that reports 0x0 ------------------------------------------------


@pytest.fixture
def zero_terminal():
    """A pseudo-terminal nobody told its size: it reports 0x0, as a serial login does."""
    leader, follower = pty.openpty()
    stream = os.fdopen(follower, "w")
    try:
        assert os.get_terminal_size(follower) == os.terminal_size((0, 0))
        yield stream
    finally:
        stream.close()
        os.close(leader)


def test_a_0x0_terminal_takes_columns_and_lines(zero_terminal) -> None:
    assert terminal_size(zero_terminal, {"COLUMNS": "100", "LINES": "30"}) == (100, 30)
    assert terminal_size(zero_terminal, {}) == STANDARD  # neither: the standard 80x24
    assert terminal_size(zero_terminal, {"COLUMNS": "abc", "LINES": "0"}) == STANDARD
    assert terminal_size(zero_terminal, {"COLUMNS": "9" * 5000}) == STANDARD
    assert terminal_size(zero_terminal, {"COLUMNS": "50"}) == (50, STANDARD[1])


def test_the_simulator_draws_the_screen_on_a_0x0_terminal(zero_terminal, monkeypatch) -> None:
    from PIL import Image

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    out = io.StringIO()
    screen = TerminalScreen(out, size=lambda: terminal_size(zero_terminal))
    assert screen.draw(Image.new("1", (128, 64)))
    drawn = out.getvalue()
    assert "┌" in drawn and "needs a terminal" not in drawn  # the box, not one letter
    assert STANDARD[0] >= NEEDED[0] and STANDARD[1] >= NEEDED[1]


def test_a_real_size_wins_over_the_environment(zero_terminal) -> None:
    import fcntl
    import struct
    import termios

    fcntl.ioctl(zero_terminal.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", 40, 132, 0, 0))
    assert terminal_size(zero_terminal, {"COLUMNS": "70", "LINES": "20"}) == (132, 40)


def test_a_game_ended_as_the_keeper_starts_is_tried_once(tmp_path: Path, monkeypatch) -> None:
    """The catch-up at start already tried the game that had just ended; the backup its
    end queued a moment later neither writes it twice nor says its failure twice (on a
    busy machine the two arrive in two turns of the keeper's thread)."""
    stick, read_only = as_the_service(tmp_path, monkeypatch, tmp_path / "stick")
    read_only.append(True)
    failures: list[str] = []
    with Store.in_dir(tmp_path / "state") as store:
        finish_scoreboard(store, [])  # ended before the keeper is there
        keeper = BackupKeeper(store.path, stick, 3, on_failure=failures.append).start()
        try:
            assert keeper.wait()  # the catch-up has tried it
            keeper.queue.put(("backup",))  # the game's own request, a turn later
            assert keeper.wait()
        finally:
            keeper.stop()
    assert len(failures) == 1, failures


def test_a_game_ended_as_the_keeper_starts_is_written_once(tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    stick.mkdir()
    with Store.in_dir(tmp_path / "state") as store:
        finish_scoreboard(store, [])
        keeper = BackupKeeper(store.path, stick, 3, on_failure=print).start()
        try:
            assert keeper.wait()
            keeper.queue.put(("backup",))
            assert keeper.wait()
        finally:
            keeper.stop()
    assert len(keeper.written) == 1 and len(list(stick.iterdir())) == 1
