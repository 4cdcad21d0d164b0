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

from companion.backup import BackupKeeper
from companion.device.terminal import NEEDED, STANDARD, TerminalScreen, terminal_size
from companion.store import Store
from companion.store.folders import Mount, mount_of, why_not_writable

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
    import companion.backup as keepers
    import companion.store.backup as backups

    stick = tmp_path / "stick"
    stick.mkdir()
    access, statvfs = os.access, os.statvfs
    read_only = []

    class ReadOnly:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(backups.os, "access",
                        lambda path, mode: Path(path) != stick and access(path, mode))
    monkeypatch.setattr(backups.os, "statvfs", lambda path: ReadOnly()
                        if Path(path) == stick and read_only else statvfs(path))
    monkeypatch.setattr(keepers, "BACKUP_DROPIN", tmp_path / "backup-dir.conf")
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    yield stick, read_only


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
