"""install.sh lets the service write the configured ``[backup] dir`` (issue 28 point 3):
the unit's ProtectSystem=strict leaves every other folder read-only, so without a
drop-in the device's automatic backups could never be written on an installed Pi."""

from __future__ import annotations

from pathlib import Path

from test_deploy import install, root, snapshot, uninstall  # noqa: F401

DROPIN = "etc/systemd/system/companion.service.d/backup-dir.conf"


def configure(root: Path, text: str) -> Path:  # noqa: F811
    config = root / "etc/companion/config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    return config


def test_the_service_may_write_the_configured_backup_folder(root: Path) -> None:  # noqa: F811
    configure(root, '[backup]\ndir = "/media/usb/companion"\nkeep = 5\n')
    out = install(root, "--no-venv", "--no-firmware").stdout
    dropin = (root / DROPIN).read_text()
    assert "[Service]\nReadWritePaths=-/media/usb/companion\n" in dropin
    assert "the service may write the backup folder /media/usb/companion" in out
    before = snapshot(root)
    install(root, "--no-venv", "--no-firmware")
    assert snapshot(root) == before  # a second run changes nothing


def test_a_changed_or_removed_backup_folder_changes_the_dropin(root: Path) -> None:  # noqa: F811
    config = configure(root, '[backup]\ndir = "/media/usb/companion"\n')
    install(root, "--no-venv", "--no-firmware")
    config.write_text('[backup]\ndir = "/mnt/share/tables"\n')
    install(root, "--no-venv", "--no-firmware")
    assert "ReadWritePaths=-/mnt/share/tables\n" in (root / DROPIN).read_text()
    config.write_text("[backup]\ndir = \"\"\n")
    out = install(root, "--no-venv", "--no-firmware").stdout
    assert not (root / DROPIN).exists() and not (root / DROPIN).parent.exists()
    assert "the service writes no backup folder now" in out


def test_a_folder_the_service_cannot_be_let_write_is_said(root: Path) -> None:  # noqa: F811
    config = configure(root, '[backup]\ndir = "/home/pi/backups"\n')
    out = install(root, "--no-venv", "--no-firmware").stdout
    assert "cannot see /home" in out and not (root / DROPIN).exists()
    config.write_text('[backup]\ndir = "/media/my stick"\n')
    out = install(root, "--no-venv", "--no-firmware").stdout
    assert "without spaces" in out and not (root / DROPIN).exists()


def test_uninstall_takes_the_dropin_away(root: Path) -> None:  # noqa: F811
    configure(root, '[backup]\ndir = "/media/usb/companion"\n')
    install(root, "--no-venv", "--no-firmware")
    uninstall(root)
    assert not (root / DROPIN).parent.exists()
