"""Issue 37 point 5: install.sh and the service read the config with one reader. The
installer asks companion itself (`companion config --json`), so a config companion
refuses is said at install with companion's own line, loopback is said as loopback,
and a backup folder the unit hides from the service (/tmp, /var/tmp, /home...) is
refused; a folder the user companion cannot write says whom it belongs to and what
would fix it, with whole paths."""

from __future__ import annotations

import grp
import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest
from test_deploy import REPO, checkout, install, root  # noqa: F401
from test_deploy_backup_dir import DROPIN, configure


def told(root: Path, text: str, **kw) -> str:  # noqa: F811
    """What the installer says with ``text`` as the config (files only, no firmware)."""
    configure(root, text)
    return install(root, "--no-venv", "--no-firmware", **kw).stdout


def companion_says(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "config", "--config", str(config)],
                          capture_output=True, text=True, timeout=60, cwd=REPO)


@pytest.mark.parametrize("listen", ["0.0.0.0:99999", "nonsense", "[::1]8080", "0.0.0.0:"])
def test_bar_a_listen_companion_refuses_is_said_with_its_line(root: Path, listen) -> None:  # noqa: F811
    out = told(root, f'[web]\nlisten = "{listen}"\n')
    config = root / "etc/companion/config.toml"
    refused = companion_says(config)
    assert refused.returncode == 78 and refused.stderr.count("\n") == 1
    assert f"companion refuses {config}, so the service will not start" in out
    assert f"install:   {refused.stderr.strip()}\n" in out  # companion's own line, whole
    assert "the table page is on" not in out and "anyone" not in out


def test_a_config_only_companion_refuses_is_refused_at_install(root: Path) -> None:  # noqa: F811
    """Valid TOML, and [web] reads fine, but companion refuses another key: the service
    would not start, so the installer does not say the page is on."""
    out = told(root, '[web]\nlisten = "0.0.0.0:8080"\n[display]\ncontrast = 300\n')
    assert "display.contrast must be from 0 to 255, not 300" in out
    assert "the table page is on" not in out


def test_the_installer_asks_the_checkouts_own_reader(root: Path, checkout: Path) -> None:  # noqa: F811
    """One reader: a companion that refuses port 8080 is followed by the installer."""
    source = checkout / "companion" / "config.py"
    text = source.read_text()
    rule = "    number = int(port)\n"
    assert rule in text
    source.write_text(text.replace(rule, rule + "    if number == 8080:\n"
                                   "        raise ValueError('8080 is refused here')\n"))
    out = told(root, '[web]\nlisten = "0.0.0.0:8080"\n', src=checkout)
    assert "web.listen 8080 is refused here" in out and "the table page is on" not in out


@pytest.mark.parametrize(("listen", "url"), [
    ("127.0.0.1:8080", "http://127.0.0.1:8080"), ("127.0.0.2:8080", "http://127.0.0.2:8080"),
    ("localhost:8080", "http://localhost:8080"), ("[::1]:8080", "http://[::1]:8080"),
    # The address the service binds, as it finds it: each of these is the loopback too
    # (they were said as "the network at ...", "anyone on that network can read it").
    ("127.1:8080", "http://127.1:8080"), ("2130706433:8080", "http://2130706433:8080"),
    ("[::ffff:127.0.0.1]:8080", "http://[::ffff:127.0.0.1]:8080"),
])
def test_loopback_is_said_as_loopback(root: Path, listen, url) -> None:  # noqa: F811
    out = told(root, f'[web]\nlisten = "{listen}"\n')
    assert f"the table page is on, for this machine only: {url} " in out
    assert "anyone on that network" not in out and "no other machine reaches it" in out
    if "::1" in listen:
        assert "127.0.0.1" not in out


@pytest.mark.parametrize(("listen", "said"), [
    ("[::]:8080", "the whole local network: http://"),
    ("0.0.0.0:8080", "the whole local network: http://"),
    ("192.168.1.4:8080", "the network at http://192.168.1.4:8080 "),
    ("[fd00::4]:8080", "the network at http://[fd00::4]:8080 "),
    ("0:8080", "the whole local network: http://"),  # 0 is 0.0.0.0 to the service
])
def test_the_network_is_said_as_such(root: Path, listen, said) -> None:  # noqa: F811
    out = told(root, f'[web]\nlisten = "{listen}"\n')
    assert said in out and "anyone on that network can read it" in out


def test_a_port_the_unit_does_not_let_bind_is_warned(root: Path) -> None:  # noqa: F811
    out = told(root, '[web]\nlisten = "0.0.0.0:9090"\n')
    assert "so the page on port 9090 will not start" in out and "tcp:8080 only" in out
    dropins = root / "etc/systemd/system/companion.service.d"
    dropins.mkdir(parents=True)
    (dropins / "web-port.conf").write_text("[Service]\nSocketBindAllow=\n"
                                           "SocketBindAllow=tcp:9090\n")
    assert "will not start" not in told(root, '[web]\nlisten = "0.0.0.0:9090"\n')


def test_the_port_is_the_number_the_service_binds(root: Path) -> None:  # noqa: F811
    """08080 is port 8080 to the service, which the unit lets it bind: no warning, and
    the address given is the one a browser reaches."""
    out = told(root, '[web]\nlisten = "0.0.0.0:08080"\n')
    assert "will not start" not in out and ".local:8080 " in out and "08080 " not in out


def test_a_name_nothing_resolves_is_a_page_that_will_not_start(root: Path) -> None:  # noqa: F811
    out = told(root, '[web]\nlisten = "table.invalid:8080"\n')
    assert "the table page will not start: this machine finds no address for table.invalid" \
        in out and "the table page is on" not in out and "anyone" not in out


# -- the backup folder ----------------------------------------------------------------------


@pytest.mark.parametrize(("folder", "why"), [
    ("/tmp/backups", "PrivateTmp=yes"),
    ("/var/tmp/companion", "PrivateTmp=yes"),
    ("/media/../tmp/backups", "PrivateTmp=yes"),
    ("/home/pi/backups", "cannot see /home"),
    ("/root/backups", "ProtectHome=yes"),
    ("/run/user/1000/backups", "ProtectHome=yes"),
    ("/proc/backups", "/proc is the kernel's"),
    ("/dev/shm/backups", "/dev is the kernel's"),
    # The system's own: ReadWritePaths=-/ would have let the service write it whole.
    ("/", "/ is a folder of folders"),
    ("/media", "/media is a folder of folders"),
    ("/etc/companion", "/etc holds the system or its programs"),
    ("/usr/local/backups", "/usr holds the system or its programs"),
    ("/opt/companion/backups", "/opt/companion holds the system or its programs"),
])
def test_a_folder_the_unit_hides_is_refused_at_install(root: Path, folder, why) -> None:  # noqa: F811
    out = told(root, f'[backup]\ndir = "{folder}"\n')
    assert f'[backup] dir = "{folder}"' in out and why in out, out
    assert "use a folder under /media, /mnt or /srv" in out
    assert not (root / DROPIN).exists()


def test_a_link_to_a_folder_the_unit_hides_is_refused(root: Path) -> None:  # noqa: F811
    """/media/usb a link to /tmp/stick: the service would write its own /tmp (emptied at
    each start) through it, and was let write "/media/usb"."""
    (root / "tmp/stick").mkdir(parents=True)
    (root / "media").mkdir()
    (root / "media/usb").symlink_to("../tmp/stick")
    out = told(root, '[backup]\ndir = "/media/usb/companion"\n')
    assert "/media/usb/companion leads to /tmp/stick/companion: PrivateTmp=yes" in out, out
    assert not (root / DROPIN).exists()


def test_the_hidden_folders_follow_the_unit_and_its_dropins(root: Path) -> None:  # noqa: F811
    dropins = root / "etc/systemd/system/companion.service.d"
    dropins.mkdir(parents=True)
    (dropins / "mine.conf").write_text("[Service]\nPrivateTmp=no\nInaccessiblePaths=-/srv/secret\n")
    out = told(root, '[backup]\ndir = "/tmp/backups"\n')
    assert "ReadWritePaths=-/tmp/backups" in (root / DROPIN).read_text(), out
    out = told(root, '[backup]\ndir = "/srv/secret/backups"\n')
    assert "InaccessiblePaths=/srv/secret" in out and not (root / DROPIN).exists()


def test_the_dropin_names_the_folder_written_plainly(root: Path) -> None:  # noqa: F811
    told(root, '[backup]\ndir = "/media/usb/./companion/"\n')
    assert "ReadWritePaths=-/media/usb/companion\n" in (root / DROPIN).read_text()


def owner_of(path: Path) -> str:
    info = path.stat()
    return f"{pwd.getpwuid(info.st_uid).pw_name}:{grp.getgrgid(info.st_gid).gr_name}"


def test_a_folder_companion_cannot_write_says_whose_it_is_and_chown(root: Path) -> None:  # noqa: F811
    stick = root / "media/stick"
    stick.mkdir(parents=True)
    stick.chmod(0o755)
    out = told(root, '[backup]\ndir = "/media/stick"\n')
    assert (f"but the folder does not let the user companion write: /media/stick belongs to "
            f"{owner_of(stick)} (mode 755)") in out
    assert "sudo chown companion:companion /media/stick" in out
    assert "installer again does not change who may write it" in out
    assert "ReadWritePaths=-/media/stick" in (root / DROPIN).read_text()
    stick.chmod(0o777)  # anyone may write: nothing to say
    out = install(root, "--no-venv", "--no-firmware").stdout
    assert "does not let" not in out


def test_a_fat_stick_says_the_mount_option_with_whole_paths(root: Path, tmp_path: Path) -> None:  # noqa: F811
    stick = root / "media/stick"
    stick.mkdir(parents=True)
    stick.chmod(0o755)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "findmnt").write_text(f'#!/bin/sh\necho "vfat /dev/sda1 {stick}"\n')
    (fake / "findmnt").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}")
    out = told(root, '[backup]\ndir = "/media/stick"\n', env=env)
    assert "/dev/sda1 (vfat) has no owners of its own: mount it with" \
        " uid=companion,gid=companion" in out
    assert ("install:     /dev/sda1 /media/stick vfat defaults,nofail,uid=companion,"
            "gid=companion 0 0\n") in out
    assert "sudo umount /media/stick && sudo mount /media/stick" in out
    assert "chown" not in out
