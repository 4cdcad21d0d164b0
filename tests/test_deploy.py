"""deploy/install.sh and deploy/uninstall.sh, run under a scratch --root with
--no-system: idempotent (a second run changes nothing at all), never overwrites a
user's config, remembers the boot choices, keeps a boot block edited by hand, and
uninstall puts things back. The system steps run against stub commands on PATH.

Most tests skip pip with --no-venv or a fake Python; one builds the real virtual
environment (about 10 s with the package registry reachable)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from companion.config import Config, parse_config

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "deploy" / "install.sh"
UNINSTALL = REPO / "deploy" / "uninstall.sh"
EXAMPLE = REPO / "config" / "config.example.toml"
BEGIN = "# BEGIN tabletop-companion"
END = "# END tabletop-companion"
FIRMWARE = REPO / "firmware"
CMDLINE = ("console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
           "fsck.repair=yes rootwait quiet splash\n")
#: The block installers wrote before the choices were remembered (firmware/config.txt
#: then), as it sits in the config.txt of every Pi installed with them.
LEGACY_BLOCK = f"""{BEGIN}
# Tabletop Companion: boot settings for the reference build (see firmware/README.md).
# deploy/install.sh appends this once to /boot/firmware/config.txt, between two
# tabletop-companion marker lines (BEGIN, END); delete that block to undo it.
[all]
# I2C bus 1 on GPIO2 (SDA, pin 3) and GPIO3 (SCL, pin 5) for the OLED, at 400 kHz.
dtparam=i2c_arm=on
dtparam=i2c_arm_baudrate=400000
# UART on GPIO14/15 (pins 8/10) as /dev/serial0, for serial.url = "/dev/serial0".
enable_uart=1
# Power button: a press on GPIO21 (pin 40) asks for a clean shutdown. GPIO3 itself
# is the I2C clock, so the button reaches it through a diode only to wake the Pi.
dtoverlay=gpio-shutdown,gpio_pin=21
# Optional, off by default:
# SPI for an SPI display ([display] interface = "spi").
#dtparam=spi=on
# USB gadget serial (/dev/ttyGS0) on a Zero 2 W; also needs modules-load=dwc2,g_serial
# in cmdline.txt (see firmware/README.md).
#dtoverlay=dwc2
{END}
"""

#: A boot config in the shape Raspberry Pi OS Bookworm ships (trimmed).
PI_CONFIG_TXT = """\
# See /boot/firmware/overlays/README for the overlays and their parameters.

# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=spi=on

dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1
auto_initramfs=1
dtoverlay=vc4-kms-v3d
max_framebuffers=2
arm_64bit=1

[cm4]
otg_mode=1

[all]
"""


# --- helpers --------------------------------------------------------------------------------


def run(
    script: Path, *args: str, ok: bool = True, timeout: float = 120, env: dict | None = None
) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [str(script), *args], capture_output=True, text=True, timeout=timeout, env=env
    )
    if ok:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def install(root: Path, *args: str, src: Path = REPO, **kw) -> subprocess.CompletedProcess:
    return run(src / "deploy" / "install.sh", "--root", str(root), "--no-system", *args, **kw)


def uninstall(root: Path, *args: str, src: Path = REPO, **kw) -> subprocess.CompletedProcess:
    return run(src / "deploy" / "uninstall.sh", "--root", str(root), "--no-system", *args, **kw)


def snapshot(root: Path, times: bool = True) -> dict[str, tuple]:
    """Every path under root: kind, mode, content hash (files), target (links), mtime."""
    out: dict[str, tuple] = {}
    paths = [root]
    for dirpath, dirnames, filenames in os.walk(root):
        paths += [Path(dirpath, name) for name in [*dirnames, *filenames]]
    for path in paths:
        st = path.lstat()
        rel = str(path.relative_to(root))
        if stat.S_ISLNK(st.st_mode):
            info: tuple = ("link", os.readlink(path))
        elif stat.S_ISDIR(st.st_mode):
            info = ("dir", stat.S_IMODE(st.st_mode))
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            info = ("file", stat.S_IMODE(st.st_mode), digest)
        if times and not stat.S_ISLNK(st.st_mode):
            info += (st.st_mtime_ns,)
        out[rel] = info
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty system: the usual directories and a stock boot config."""
    root = tmp_path / "root"
    for d in ("boot/firmware", "etc/systemd/system", "etc/modules-load.d", "opt", "var/lib",
              "usr/local/bin"):
        (root / d).mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(PI_CONFIG_TXT)
    return root


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the parts of the repository the installer reads (safe to change)."""
    dest = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("companion", "deploy", "systemd", "firmware", "config"):
        shutil.copytree(REPO / name, dest / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (REPO / name).exists():
            shutil.copy2(REPO / name, dest / name)
    return dest


def block_of(text: str) -> str:
    start = text.index(BEGIN)
    return text[start : text.index(END, start) + len(END) + 1]


def expected_block(*fragments: str) -> str:
    """The block the installer writes: the base fragment, then the chosen ones."""
    parts = ["config.txt", *fragments]
    return f"{BEGIN}\n" + "".join((FIRMWARE / p).read_text() for p in parts) + f"{END}\n"


def active(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def boot_of(root: Path) -> str:
    return (root / "boot/firmware/config.txt").read_text()


def choices_of(root: Path) -> dict[str, str]:
    lines = (root / "etc/companion/install.conf").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def as_model(root: Path, model: str) -> None:
    """Make the scratch root look like that Pi (the device tree's model, with its NUL)."""
    (root / "proc/device-tree").mkdir(parents=True, exist_ok=True)
    (root / "proc/device-tree/model").write_bytes(model.encode() + b"\0")


# --- the scripts themselves ------------------------------------------------------------------


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=lambda p: p.name)
def test_script_is_executable_bash(script):
    assert os.access(script, os.X_OK)
    assert script.read_text().startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script.read_text()
    subprocess.run(["bash", "-n", str(script)], check=True)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_shellcheck_clean():
    result = subprocess.run(
        ["shellcheck", str(INSTALL), str(UNINSTALL)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=lambda p: p.name)
def test_help_and_bad_options(script):
    helptext = run(script, "--help").stdout
    for option in ("--root", "--no-system"):
        assert option in helptext
    bad = run(script, "--frobnicate", ok=False)
    assert bad.returncode == 2 and "unknown option" in bad.stderr


def test_install_help_documents_every_option():
    helptext = run(INSTALL, "--help").stdout
    for option in ("--root", "--no-system", "--no-venv", "--no-firmware", "--python",
                   "--spi", "--no-spi", "--usb-serial", "--uart", "--no-power-button",
                   "--rpi-gpio", "--force-boot-config"):
        assert option in helptext


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=lambda p: p.name)
def test_root_needs_no_system(script, root, tmp_path):
    # Should the guard ever break, these stand in for the commands that change a system.
    refuse = tmp_path / "refuse"
    refuse.mkdir()
    for name in ("apt-get", "groupadd", "useradd", "usermod", "userdel", "systemctl"):
        (refuse / name).write_text("#!/bin/sh\nexit 97\n")
        (refuse / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{refuse}:{os.environ['PATH']}"}
    result = run(script, "--root", str(root), ok=False, env=env)
    assert result.returncode == 1 and "--no-system" in result.stderr
    assert not (root / "etc/companion").exists()


def test_user_groups_match_the_unit():
    text = INSTALL.read_text()
    groups = text.split("GROUPS_NEEDED=(", 1)[1].split(")", 1)[0].split()
    unit = (REPO / "systemd/companion.service").read_text()
    supplementary = unit.split("\nSupplementaryGroups=", 1)[1].split("\n", 1)[0].split()
    assert sorted(groups) == sorted(supplementary) == ["audio", "dialout", "gpio", "i2c", "spi"]


# --- the default config ----------------------------------------------------------------------


def test_example_config_is_the_defaults():
    assert parse_config(EXAMPLE.read_text(encoding="utf-8")).as_dict() == Config().as_dict()


def test_example_config_spells_out_every_key():
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    defaults = Config().as_dict()
    assert data.keys() == defaults.keys()
    for section, values in defaults.items():
        assert data[section].keys() == values.keys(), section


# --- install --------------------------------------------------------------------------------


def test_install_puts_everything_in_place(root):
    out = install(root, "--no-venv").stdout
    assert "installed a new" in out
    config = (root / "etc/companion/config.toml").read_text()
    example = tomllib.loads(EXAMPLE.read_text())
    web = {**example.get("web", {}), "listen": "0.0.0.0:8080"}
    assert tomllib.loads(config) == {**example, "web": web}  # the example, web page on
    assert parse_config(config).web.listen == "0.0.0.0:8080"
    assert (root / "etc/companion/config.example.toml").read_bytes() == EXAMPLE.read_bytes()
    unit = root / "etc/systemd/system/companion.service"
    assert unit.read_bytes() == (REPO / "systemd/companion.service").read_bytes()
    assert stat.S_IMODE(unit.stat().st_mode) == 0o644
    assert stat.S_IMODE((root / "etc/companion/config.toml").stat().st_mode) == 0o644
    assert stat.S_IMODE((root / "var/lib/companion").stat().st_mode) == 0o750
    modules = (root / "etc/modules-load.d/companion.conf").read_text()
    assert "i2c-dev" in modules.split()
    assert not (root / "opt/companion").exists()  # --no-venv

    boot = (root / "boot/firmware/config.txt").read_text()
    assert boot.startswith(PI_CONFIG_TXT)
    assert boot.count(BEGIN) == boot.count(END) == 1
    assert block_of(boot) == expected_block("power-button.txt")
    assert boot.endswith(f"{END}\n")
    assert choices_of(root) == {
        "spi": "no", "usb_serial": "no", "uart": "no", "power_button": "yes",
        "rpi_gpio": "no", "i2s_amp": "no", "checkout": str(REPO),
        "boot_block": hashlib.sha256(block_of(boot).encode()).hexdigest(),
        "config_toml": hashlib.sha256(config.encode()).hexdigest(),
    }


def test_second_install_changes_nothing(root):
    install(root, "--no-venv")
    before = snapshot(root)
    out = install(root, "--no-venv").stdout
    assert snapshot(root) == before
    assert "installed" not in out and "updated" not in out and "created" not in out


def test_changed_config_survives(root):
    install(root, "--no-venv")
    config = root / "etc/companion/config.toml"
    mine = "[display]\ndriver = \"sh1106\"\n"
    config.write_text(mine)
    out = install(root, "--no-venv").stdout
    assert "keeping" in out
    assert config.read_text() == mine
    config.unlink()
    install(root, "--no-venv")  # a deleted config comes back as the default
    assert parse_config(config.read_text()).web.listen == "0.0.0.0:8080"


def test_without_firmware(root):
    install(root, "--no-venv", "--no-firmware")
    assert (root / "boot/firmware/config.txt").read_text() == PI_CONFIG_TXT
    assert not (root / "etc/modules-load.d/companion.conf").exists()


def test_no_boot_config_is_skipped(tmp_path):
    install(tmp_path, "--no-venv")
    assert not (tmp_path / "boot").exists()
    assert (tmp_path / "etc/systemd/system/companion.service").exists()


def test_old_boot_location(tmp_path):
    (tmp_path / "boot").mkdir()
    (tmp_path / "boot/config.txt").write_text("dtparam=audio=on")  # no final newline
    install(tmp_path, "--no-venv")
    text = (tmp_path / "boot/config.txt").read_text()
    assert text.startswith(f"dtparam=audio=on\n{BEGIN}\n")


def test_changed_fragment_replaces_the_block_in_place(root, checkout):
    install(root, "--no-venv", src=checkout)
    boot = root / "boot/firmware/config.txt"
    boot.write_text(boot.read_text() + "# my own line after the block\ndtparam=spi=on\n")
    fragment = checkout / "firmware/config.txt"
    fragment.write_text(fragment.read_text().replace("400000", "100000"))
    install(root, "--no-venv", src=checkout)
    text = boot.read_text()
    assert text.count(BEGIN) == 1
    assert "dtparam=i2c_arm_baudrate=100000" in text and "400000" not in text
    assert text.endswith(f"{END}\n# my own line after the block\ndtparam=spi=on\n")


def test_damaged_block_is_left_alone(root):
    boot = root / "boot/firmware/config.txt"
    damaged = PI_CONFIG_TXT + BEGIN + "\ndtparam=i2c_arm=on\n"
    boot.write_text(damaged)
    result = install(root, "--no-venv", ok=False)
    assert result.returncode == 1 and "by hand" in result.stderr
    assert boot.read_text() == damaged


# --- the virtual environment --------------------------------------------------------------

FAKE_PYTHON = """\
#!/usr/bin/env bash
# Stands in for python3 and for the venv's python: records what it is asked to do.
log={log}
case $1 in
    -c)
        case $2 in
            *version_info*) exit 0 ;;
            *sys.version*) echo 3.11.9; exit 0 ;;
        esac ;;
    -m)
        if [[ $2 == venv ]]; then
            dest=${{*: -1}}
            mkdir -p "$dest/bin"
            cp "$0" "$dest/bin/python"
            echo "venv ${{*:3}}" >>"$log"
            exit 0
        elif [[ $2 == pip ]]; then
            echo "pip ${{*:3}}" >>"$log"
            exit 0
        fi ;;
esac
echo "fake python: unexpected $*" >&2
exit 3
"""


def test_venv_step_runs_pip_only_when_the_sources_change(root, checkout, tmp_path):
    log = tmp_path / "calls.log"
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON.format(log=log))
    fake.chmod(0o755)
    prefix = root / "opt/companion"

    install(root, "--python", str(fake), src=checkout)
    calls = log.read_text().splitlines()
    assert calls[0] == f"venv --clear --system-site-packages {prefix}"
    pip = calls[1].split()
    assert pip[:-1] == [
        "pip", "install", "--disable-pip-version-check", "--no-cache-dir",
        "--root-user-action=ignore", "--upgrade",
    ]
    assert pip[-1].endswith("/src[pi]")  # a copy of the checkout, built out of tree
    assert len(calls) == 2
    stamp = (prefix / ".install-stamp").read_text()
    assert stamp.startswith("tabletop-companion 0.1.0 [pi]\npython 3.11.9\nsources ")
    link = root / "usr/local/bin/companion"
    assert os.readlink(link) == "/opt/companion/bin/companion"

    before = snapshot(root)
    assert "up to date" in install(root, "--python", str(fake), src=checkout).stdout
    assert snapshot(root) == before
    assert len(log.read_text().splitlines()) == 2

    init = checkout / "companion/__init__.py"
    init.write_text(init.read_text() + "\n# changed\n")
    install(root, "--python", str(fake), src=checkout)
    calls = log.read_text().splitlines()
    assert len(calls) == 3 and calls[2].startswith("pip install")  # venv kept, pip again
    assert (prefix / ".install-stamp").read_text() != stamp


def test_real_install_twice(root, checkout):
    """The one real run: venv, pip from the package registry, the command works."""
    install(root, "--python", sys.executable, src=checkout, timeout=300)
    companion = root / "opt/companion/bin/companion"
    version = subprocess.run(
        [str(companion), "--version"], capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0 and version.stdout.startswith("companion "), version
    before = snapshot(root)
    install(root, "--python", sys.executable, src=checkout)
    assert snapshot(root) == before


# --- uninstall ------------------------------------------------------------------------------


def test_uninstall_puts_things_back(root, tmp_path):
    log = tmp_path / "calls.log"
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON.format(log=log))
    fake.chmod(0o755)
    original = snapshot(root, times=False)
    install(root, "--python", str(fake))
    out = uninstall(root).stdout
    assert "keeping" in out and "game history" in out
    after = snapshot(root, times=False)
    assert after.pop("var/lib/companion") == ("dir", 0o750)  # the state stays
    assert after == original
    assert (root / "boot/firmware/config.txt").read_text() == PI_CONFIG_TXT


def test_uninstall_keeps_a_changed_config_and_the_state(root):
    install(root, "--no-venv")
    (root / "etc/companion/config.toml").write_text("[led]\npin = 0\n")
    (root / "var/lib/companion/companion.sqlite").write_bytes(b"history")
    uninstall(root)
    assert (root / "etc/companion/config.toml").read_text() == "[led]\npin = 0\n"
    assert not (root / "etc/companion/config.example.toml").exists()
    assert (root / "var/lib/companion/companion.sqlite").read_bytes() == b"history"
    assert not (root / "etc/systemd/system/companion.service").exists()
    # and installing again keeps them too
    install(root, "--no-venv")
    assert (root / "etc/companion/config.toml").read_text() == "[led]\npin = 0\n"


def test_purge_removes_everything(root):
    original = snapshot(root, times=False)
    install(root, "--no-venv")
    (root / "etc/companion/config.toml").write_text("[led]\npin = 0\n")
    (root / "var/lib/companion/companion.sqlite").write_bytes(b"history")
    dropin = root / "etc/systemd/system/companion.service.d"
    dropin.mkdir()
    shutil.copy(REPO / "systemd/allow-network.conf", dropin)
    uninstall(root, "--purge")
    assert snapshot(root, times=False) == original


def test_uninstall_twice_is_harmless(root):
    install(root, "--no-venv")
    uninstall(root)
    before = snapshot(root)
    uninstall(root)
    assert snapshot(root) == before


# --- the system steps, against stub commands ----------------------------------------------

STUB = """\
#!/usr/bin/env bash
# Stub for apt-get, useradd, systemctl & co: records the call, keeps state as files.
state={state}
cmd=$(basename "$0")
echo "$cmd $*" >>"$state/calls"
case $cmd in
    dpkg-query) [[ -e $state/pkg-${{*: -1}} ]] && printf 'install ok installed' ;;
    apt-cache)
        if [[ -e $state/none-${{*: -1}} ]]; then echo "  Candidate: (none)"
        else echo "  Candidate: 1.0"; fi ;;
    apt-get)
        if [[ $1 == install ]]; then
            for arg in "$@"; do [[ $arg == -* || $arg == install ]] || touch "$state/pkg-$arg"; done
        fi ;;
    getent) [[ -e $state/$1-$2 ]] ;;
    groupadd) touch "$state/group-${{*: -1}}" ;;
    useradd)
        while (($#)); do [[ $1 == --groups ]] && groups=$2; shift; done
        echo "${{groups//,/ }}" >"$state/passwd-companion" ;;
    id) echo "companion $(cat "$state/passwd-companion")" ;;
    usermod) ;;
    chown) ;;
    systemctl)
        case $1 in
            is-enabled) [[ -e $state/enabled ]] ;;
            is-active) [[ -e $state/active ]] ;;
            enable) touch "$state/enabled" ;;
            start | restart) touch "$state/active" ;;
        esac ;;
esac
"""
STUBBED = ("dpkg-query", "apt-cache", "apt-get", "getent", "groupadd", "useradd", "id",
           "usermod", "chown", "systemctl")
#: What a run that changes nothing may call: questions only (and chown, which is a
#: no-op when the owner is already right; the stubs cannot tell).
QUESTIONS = ("dpkg-query", "getent", "id", "chown", "systemctl is-enabled",
             "systemctl is-active")


class StubbedSystem:
    """The installer against stub system commands: ``run(*options)`` gives the calls
    the stubs saw and the output. ``state`` holds the stubs' state as files."""

    def __init__(self, root: Path, checkout: Path, tmp_path: Path):
        # The real script refuses --root without --no-system and wants root; this copy
        # lets the stubs stand in for the system.
        self.script = checkout / "deploy/install.sh"
        text = self.script.read_text()
        for guard in ('    die "--root installs files only: add --no-system"\n',
                      '    die "run as root (sudo), or add --no-system"\n'):
            assert guard in text
            text = text.replace(guard, "    :\n")
        self.script.write_text(text)
        self.root, self.checkout = root, checkout
        self.state, self.bin = tmp_path / "state", tmp_path / "bin"
        self.state.mkdir()
        self.bin.mkdir()
        for name in STUBBED:
            (self.bin / name).write_text(STUB.format(state=self.state))
            (self.bin / name).chmod(0o755)
        self.env = {**os.environ, "PATH": f"{self.bin}:{os.environ['PATH']}"}

    def run(self, *options: str, ok: bool = True) -> tuple[list[str], str]:
        (self.state / "calls").write_text("")
        result = subprocess.run(
            [str(self.script), "--root", str(self.root), "--no-venv", *options],
            capture_output=True, text=True, env=self.env, timeout=60,
        )
        if ok:
            assert result.returncode == 0, result.stdout + result.stderr
        return (self.state / "calls").read_text().splitlines(), result.stdout + result.stderr


@pytest.fixture
def system(root, checkout, tmp_path) -> StubbedSystem:
    return StubbedSystem(root, checkout, tmp_path)


def test_system_steps(root, checkout, system):
    state = system.state
    run_stubbed = system.run
    calls, out = run_stubbed()
    assert "apt-get update" in calls
    installs = [c for c in calls if c.startswith("apt-get install")]
    assert len(installs) == 1
    for pkg in ("python3-venv", "python3-dev", "python3-lgpio", "i2c-tools", "espeak-ng",
                "alsa-utils"):
        assert pkg in installs[0].split()
    assert sorted(c for c in calls if c.startswith("groupadd")) == [
        "groupadd --system audio", "groupadd --system dialout", "groupadd --system gpio",
        "groupadd --system i2c", "groupadd --system spi"]
    [useradd] = [c.split() for c in calls if c.startswith("useradd")]
    assert useradd[-1] == "companion" and "--system" in useradd
    assert useradd[useradd.index("--groups") + 1] == "gpio,i2c,spi,dialout,audio"
    assert useradd[useradd.index("--home-dir") + 1] == "/var/lib/companion"
    assert useradd[useradd.index("--shell") + 1] == "/usr/sbin/nologin"
    assert f"chown -- companion:companion {root}/var/lib/companion" in calls
    assert "systemctl daemon-reload" in calls
    assert "systemctl enable companion.service" in calls
    # the boot settings changed: it waits for the reboot instead of starting now
    assert not any(c.startswith(("systemctl start", "systemctl restart")) for c in calls)
    assert "reboot" in out

    (state / "active").touch()  # after the reboot
    calls, _ = run_stubbed()
    assert calls and all(c.startswith(QUESTIONS) for c in calls), calls

    # a user that lost a group gets it back; a changed unit is reloaded and restarted
    (state / "passwd-companion").write_text("gpio i2c dialout audio\n")
    unit = checkout / "systemd/companion.service"
    unit.write_text(unit.read_text().replace("WatchdogSec=30", "WatchdogSec=40"))
    calls, _ = run_stubbed()
    changes = [c for c in calls if not c.startswith(QUESTIONS)]
    assert changes == [
        "usermod -a -G spi companion",
        "systemctl daemon-reload",
        "systemctl restart companion.service",
    ]


def test_update_keeps_a_hand_edited_block_and_restarts_without_a_reboot(root, checkout, system):
    """The documented update (a second install.sh) after the owner edited the block."""
    system.run()
    (system.state / "active").touch()  # after the reboot
    boot = root / "boot/firmware/config.txt"
    mine = boot.read_text().replace("dtoverlay=gpio-shutdown,gpio_pin=21\n",
                                    "dtparam=spi=on\n")
    boot.write_text(mine)
    unit = checkout / "systemd/companion.service"  # and the update brings a new unit
    unit.write_text(unit.read_text().replace("WatchdogSec=30", "WatchdogSec=40"))
    calls, out = system.run()
    assert boot.read_text() == mine
    assert "keeping your edited boot block" in out
    assert "only in yours: dtparam=spi=on" in out
    assert "the choices would write: dtoverlay=gpio-shutdown,gpio_pin=21" in out
    assert "reboot" not in out.replace("--force-boot-config", "")
    assert "systemctl restart companion.service" in calls
    calls, out = system.run()  # and again: still the owner's, nothing to restart
    assert boot.read_text() == mine
    assert not [c for c in calls if c.startswith(("systemctl restart", "systemctl start"))]


def test_force_boot_config_replaces_an_edited_block(root):
    install(root, "--no-venv")
    boot = root / "boot/firmware/config.txt"
    boot.write_text(boot.read_text().replace("400000", "100000"))
    install(root, "--no-venv")
    assert "100000" in block_of(boot_of(root))
    out = install(root, "--no-venv", "--force-boot-config").stdout
    assert "replacing your edited boot block" in out
    assert block_of(boot_of(root)) == expected_block("power-button.txt")


def test_choices_are_remembered(root):
    install(root, "--no-venv", "--spi", "--no-power-button")
    block = block_of(boot_of(root))
    assert "dtparam=spi=on" in active(block)
    assert not any(line.startswith("dtoverlay=gpio-shutdown") for line in active(block))
    assert choices_of(root)["spi"] == "yes" and choices_of(root)["power_button"] == "no"
    before = snapshot(root)
    out = install(root, "--no-venv").stdout  # the update: no options given
    assert snapshot(root) == before, out
    install(root, "--no-venv", "--no-spi")  # an option given again changes the choice
    assert "dtparam=spi=on" not in active(boot_of(root))
    assert choices_of(root)["spi"] == "no" and choices_of(root)["power_button"] == "no"


def test_a_bad_choices_file_is_one_line(root):
    install(root, "--no-venv")
    conf = root / "etc/companion/install.conf"
    conf.write_text(conf.read_text().replace("spi=no", "spi=maybe"))
    result = install(root, "--no-venv", ok=False)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"install: error: {conf}: spi must be yes or no, not 'maybe'"]


def test_an_old_untouched_block_is_replaced(root):
    boot = root / "boot/firmware/config.txt"
    boot.write_text(PI_CONFIG_TXT + LEGACY_BLOCK)
    install(root, "--no-venv")
    # the UART was on by default then; now only when asked
    assert block_of(boot_of(root)) == expected_block("power-button.txt")
    assert "enable_uart=1" not in boot_of(root)


def test_an_old_edited_block_is_kept_and_its_choices_taken(root):
    boot = root / "boot/firmware/config.txt"
    edited = LEGACY_BLOCK.replace("#dtparam=spi=on", "dtparam=spi=on").replace(
        "dtoverlay=gpio-shutdown,gpio_pin=21\n", "")
    boot.write_text(PI_CONFIG_TXT + edited)
    out = install(root, "--no-venv").stdout
    assert boot.read_text() == PI_CONFIG_TXT + edited
    assert "took the choices from your boot block" in out
    choices = choices_of(root)
    assert (choices["spi"], choices["power_button"], choices["uart"]) == ("yes", "no", "yes")


@pytest.mark.parametrize("model", ["Raspberry Pi 4 Model B Rev 1.4",
                                   "Raspberry Pi Zero 2 W Rev 1.0"])
def test_uart_when_asked(root, model):
    as_model(root, model)
    cmdline = root / "boot/firmware/cmdline.txt"
    cmdline.write_text(CMDLINE)
    install(root, "--no-venv")
    assert "enable_uart=1" not in boot_of(root)  # off unless asked
    assert cmdline.read_text() == CMDLINE
    out = install(root, "--no-venv", "--uart").stdout
    assert "enable_uart=1" in active(block_of(boot_of(root)))
    assert "dtparam=uart0=on" not in boot_of(root)
    assert cmdline.read_text() == CMDLINE.replace("console=serial0,115200 ", "")
    assert "removed console=serial0,115200" in out
    assert '"/dev/serial0"' in out  # the config the owner keeps needs the url
    before = snapshot(root)
    install(root, "--no-venv")
    assert snapshot(root) == before


def test_uart_on_a_pi_5(root):
    as_model(root, "Raspberry Pi 5 Model B Rev 1.0")
    cmdline = root / "boot/firmware/cmdline.txt"
    cmdline.write_text(CMDLINE)
    install(root, "--no-venv", "--uart")
    block = active(block_of(boot_of(root)))
    assert "dtparam=uart0=on" in block and "enable_uart=1" not in block
    # serial0 is the debug connector on a Pi 5, not the pins: its console stays
    assert cmdline.read_text() == CMDLINE
    config = parse_config((root / "etc/companion/config.toml").read_text())
    assert config.serial.url == "/dev/ttyAMA0"


def test_usb_serial(root):
    install(root, "--no-venv", "--usb-serial")
    assert "dtoverlay=dwc2" in active(block_of(boot_of(root)))
    modules = (root / "etc/modules-load.d/companion.conf").read_text().split()
    assert "g_serial" in modules and "i2c-dev" in modules
    config = parse_config((root / "etc/companion/config.toml").read_text())
    assert config.serial.url == "/dev/ttyGS0"


def test_rpi_gpio_is_opt_in(root, checkout, tmp_path):
    log = tmp_path / "calls.log"
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON.format(log=log))
    fake.chmod(0o755)
    install(root, "--python", str(fake), src=checkout)
    assert log.read_text().splitlines()[-1].endswith("/src[pi]")
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    extras = pyproject["project"]["optional-dependencies"]
    assert not any(dep.startswith("RPi.GPIO") for dep in extras["pi"])
    assert any(dep.startswith("RPi.GPIO") for dep in extras["pi-legacy"])
    (root / "etc/companion/config.toml").unlink()
    install(root, "--python", str(fake), "--rpi-gpio", src=checkout)
    assert log.read_text().splitlines()[-1].endswith("/src[pi-legacy]")
    config = parse_config((root / "etc/companion/config.toml").read_text())
    assert config.gpio.pin_factory == "rpigpio"


def test_uninstall_removes_the_config_it_wrote_and_the_choices(root):
    install(root, "--no-venv", "--spi")
    uninstall(root)
    assert not (root / "etc/companion").exists()


def test_without_systemctl_one_line_names_it(root, tmp_path):
    """Off a systemd system: one line naming what is missing, and nothing installed."""
    bare = tmp_path / "bare-bin"
    bare.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not Path(directory).is_dir():
            continue
        for tool in Path(directory).iterdir():
            if tool.name != "systemctl" and not (bare / tool.name).exists() \
                    and os.access(tool, os.X_OK):
                (bare / tool.name).symlink_to(tool)
    env = {**os.environ, "PATH": str(bare)}
    script = INSTALL.read_text().replace(
        '    die "run as root (sudo), or add --no-system"\n', "    :\n").replace(
        '    die "--root installs files only: add --no-system"\n', "    :\n")
    copy = tmp_path / "install.sh"
    copy.write_text(script)
    copy.chmod(0o755)
    result = subprocess.run([str(copy), "--root", str(root), "--no-venv"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert "systemctl (systemd)" in line and "--no-system" in line
    assert not (root / "etc/companion").exists()


def test_a_package_apt_lacks_is_looked_for_once(system):
    """python3-lgpio off Raspberry Pi OS: one apt-get update, not one every run."""
    for package in ("python3-lgpio", "liblgpio-dev"):
        (system.state / f"none-{package}").touch()
    calls, out = system.run()
    assert calls.count("apt-get update") == 1
    assert "no package python3-lgpio here" in out
    [apt_install] = [c for c in calls if c.startswith("apt-get install")]
    assert "python3-lgpio" not in apt_install.split() and "swig" in apt_install.split()
    calls, _ = system.run()
    assert not [c for c in calls if c.startswith("apt-get")], calls


def test_the_closing_lines_say_the_page_is_on_who_can_read_it_and_how_to_limit_it(root):
    out = install(root, "--no-venv").stdout
    closing = out[out.index("the table page is on"):]
    assert "whole local network" in closing and ".local:8080" in closing
    assert "anyone on that network can read it" in closing and "open_reads = true" in closing
    assert "open_reads = false" in closing and 'listen = ""' in closing
    assert "Settings > Pair a phone" in closing
    assert closing.rstrip().endswith("install: done")
    config = root / "etc/companion/config.toml"
    text = config.read_text().replace("open_reads = true", "open_reads = false")
    config.write_text(text)
    assert "reading it needs a paired phone" in install(root, "--no-venv").stdout
    config.write_text(text.replace('listen = "0.0.0.0:8080"', 'listen = "127.0.0.1:8080"'))
    assert "this machine only: http://127.0.0.1:8080" in install(root, "--no-venv").stdout
    config.write_text('[web]\nlisten = ""\n')
    out = install(root, "--no-venv").stdout
    assert "the table page is off" in out and "anyone" not in out


@pytest.mark.parametrize(("web", "told"), [
    ('[ web ]\nlisten = "0.0.0.0:8080"', "the whole local network"),
    ('[web]  # the table page\nlisten = "0.0.0.0:8080"', "the whole local network"),
    ('["web"]\nlisten = "0.0.0.0:8080"', "the whole local network"),
    ('[web]\n    listen = "0.0.0.0:8080"', "the whole local network"),
    ("[web]\nlisten = '127.0.0.1:8080'", "this machine only: http://127.0.0.1:8080 "),
    ("[web]\nlisten = ''", "the table page is off"),
    ('[web]\nopen_reads = false', "the table page is off"),
    ('[web]\nlisten = "0.0.0.0:8080"\n[web.more]\nopen_reads = false',
     "companion refuses"),  # TOML reads it; companion does not (the service would not start)
])
def test_the_page_is_told_as_companion_reads_the_config(root, web, told):
    install(root, "--no-venv")
    (root / "etc/companion/config.toml").write_text(web + "\n")
    out = install(root, "--no-venv").stdout
    assert told in out, out
    assert ":8080'" not in out, out  # no URL ends in a quote
    if "off" in told or "refuses" in told:
        assert "the table page is on, for" not in out


def test_a_config_toml_cannot_read_is_said_not_guessed(root):
    install(root, "--no-venv")
    config = root / "etc/companion/config.toml"
    config.write_text('[web\nlisten = "0.0.0.0:8080"\n')
    out = install(root, "--no-venv").stdout
    assert f"companion refuses {config}, so the service will not start" in out
    assert f"install:   companion: config error: {config}: not valid TOML" in out
    assert "the table page is off (" not in out and "the table page is on, for" not in out


def test_install_conf_records_the_checkout_for_companions_hints(root, checkout):
    install(root, "--no-venv", src=checkout)
    assert choices_of(root)["checkout"] == str(checkout)
    install(root, "--no-venv", src=checkout)  # and reads it back without complaint


def test_rpi_gpio_on_a_pi_5_is_refused_before_anything_changes(root):
    as_model(root, "Raspberry Pi 5 Model B Rev 1.0")
    before = snapshot(root)
    refused = install(root, "--no-venv", "--rpi-gpio", ok=False)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "does not work on a Raspberry Pi 5" in refused.stderr
    assert snapshot(root) == before
    install(root, "--no-venv")  # without it, the Pi 5 installs as ever
    assert choices_of(root)["rpi_gpio"] == "no"
