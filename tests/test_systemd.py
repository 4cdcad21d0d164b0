"""systemd/companion.service: lifecycle, identity, devices, a network that is the web
page's port on the local network only, and a hardening score of 2.0 or lower from
`systemd-analyze security` (when systemd-analyze is here)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.errors import ConfigError

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "companion.service"
DROPIN = REPO / "systemd" / "allow-network.conf"
#: What deploy/install.sh puts in a new config's [web] listen.
INSTALLER_WEB_LISTEN = re.search(
    r"^WEB_LISTEN=(\S+)$", (REPO / "deploy" / "install.sh").read_text(), re.M).group(1)
INSTALLER_WEB_PORT = 8080
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def parse_unit(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Sections -> (key, value) pairs in order; keys may repeat, as in systemd."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        assert current is not None, f"{path.name}: {raw!r} outside a section"
        assert not line.endswith("\\"), "no continuation lines, please"
        key, _, value = line.partition("=")
        current.append((key.strip(), value.strip()))
    return sections


def values(section: list[tuple[str, str]], key: str) -> list[str]:
    return [v for k, v in section if k == key]


def one(section: list[tuple[str, str]], key: str) -> str:
    found = values(section, key)
    assert len(found) == 1, f"{key}= appears {len(found)} times"
    return found[0]


@pytest.fixture(scope="module")
def service() -> list[tuple[str, str]]:
    return parse_unit(UNIT)["Service"]


def test_sections():
    unit = parse_unit(UNIT)
    assert set(unit) == {"Unit", "Service", "Install"}
    assert one(unit["Install"], "WantedBy") == "multi-user.target"


def test_lifecycle(service):
    assert one(service, "Type") == "notify"
    assert one(service, "ExecStart") == "/opt/companion/bin/companion run"
    assert 0 < int(one(service, "WatchdogSec")) <= 120
    assert one(service, "Restart") == "on-failure"


def test_no_restart_loop_on_a_config_error(service):
    prevent = " ".join(values(service, "RestartPreventExitStatus")).split()
    assert str(ConfigError.exit_status) in prevent
    assert ConfigError.exit_status == 78


def test_identity_and_directories(service):
    assert one(service, "User") == "companion"
    assert not values(service, "DynamicUser")
    assert set(one(service, "SupplementaryGroups").split()) == {
        "gpio", "i2c", "spi", "dialout", "audio"}
    assert one(service, "StateDirectory") == "companion"
    assert one(service, "ConfigurationDirectory") == "companion"


def test_lgpio_gets_a_writable_working_directory(service):
    runtime = one(service, "RuntimeDirectory")
    assert one(service, "WorkingDirectory") == f"%t/{runtime}"
    assert f"LG_WD=%t/{runtime}" in " ".join(values(service, "Environment")).split()


def test_devices_stay_reachable(service):
    # PrivateDevices=yes or ProcSubset=pid would break GPIO access (see the unit)
    assert values(service, "PrivateDevices") in ([], ["no"])
    assert values(service, "ProcSubset") in ([], ["all"])
    assert values(service, "PrivateUsers") in ([], ["no"])
    assert one(service, "DevicePolicy") == "closed"
    allowed = {v.split()[0]: v.split()[1] for v in values(service, "DeviceAllow")}
    for device in ("char-gpiochip", "char-i2c", "char-spi", "char-ttyGS", "char-ttyAMA"):
        assert allowed.get(device) == "rw", device


def test_the_speaker_is_reachable_and_nothing_more(service):
    """Issue 39: the unit may reach the sound devices (the audio group, ALSA's
    /dev/snd/*) for [speech]; every hardening line stays."""
    allowed = [v.split()[0] for v in values(service, "DeviceAllow")]
    assert allowed.count("char-alsa") == 1
    assert "audio" in one(service, "SupplementaryGroups").split()
    assert one(service, "DevicePolicy") == "closed"
    for key, value in (("ProtectSystem", "strict"), ("NoNewPrivileges", "yes"),
                       ("PrivateIPC", "yes"), ("MemoryDenyWriteExecute", "yes"),
                       ("RestrictRealtime", "yes"), ("CapabilityBoundingSet", "")):
        assert one(service, key) == value, key
    assert not [v for v in allowed if "snd" in v or v.startswith("/dev")]  # a class only


def test_network_is_the_web_page_on_the_local_network(service):
    """The web page (issue 15) runs inside the service: IP yes, but only the families
    it needs, only its own port to bind, and only local addresses to talk to."""
    assert values(service, "PrivateNetwork") in ([], ["no"])
    families = " ".join(values(service, "RestrictAddressFamilies")).split()
    assert sorted(families) == ["AF_INET", "AF_INET6", "AF_UNIX"]
    assert one(service, "IPAddressDeny") == "any"
    allowed = " ".join(values(service, "IPAddressAllow")).split()
    assert "any" not in allowed
    assert {"localhost", "192.168.0.0/16", "10.0.0.0/8"} <= set(allowed)
    assert one(service, "SocketBindDeny") == "any"
    assert values(service, "SocketBindAllow") == [f"tcp:{INSTALLER_WEB_PORT}"]


def test_the_installer_config_listens_on_the_allowed_port():
    port = int(INSTALLER_WEB_LISTEN.rsplit(":", 1)[1])
    assert port == INSTALLER_WEB_PORT


def test_the_unit_leaves_the_pin_factory_to_the_config(service):
    # GPIOZERO_PIN_FACTORY in the unit would silently override [gpio] pin_factory
    assert "GPIOZERO_PIN_FACTORY" not in " ".join(values(service, "Environment"))


def test_network_dropin_opens_addresses_only():
    dropin = parse_unit(DROPIN)
    assert set(dropin) == {"Service"}
    service = dropin["Service"]
    assert values(service, "IPAddressAllow") == ["any"]
    # binding stays the web page's port, and no new address families
    for key in ("SocketBindAllow", "SocketBindDeny", "RestrictAddressFamilies",
                "IPAddressDeny", "PrivateNetwork"):
        assert not values(service, key), key


def exposure(*args: str) -> float:
    result = subprocess.run(
        [ANALYZE, "security", "--offline=true", "--no-pager", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    return float(match.group(1))


@needs_analyze
def test_hardening_score():
    assert exposure(str(UNIT)) <= 2.0


@needs_analyze
def test_hardening_score_with_the_network_dropin(tmp_path):
    system = tmp_path / "etc" / "systemd" / "system"
    (system / "companion.service.d").mkdir(parents=True)
    shutil.copy(UNIT, system / "companion.service")
    shutil.copy(DROPIN, system / "companion.service.d" / "allow-network.conf")
    with_network = exposure(f"--root={tmp_path}", "companion.service")
    assert exposure(str(UNIT)) <= with_network <= 2.0


@needs_analyze
def test_unit_verifies(tmp_path):
    """No unknown or misspelt directive (ExecStart pointed at a binary that exists)."""
    text = UNIT.read_text(encoding="utf-8")
    true = shutil.which("true")
    unit = tmp_path / "companion.service"
    unit.write_text(text.replace("/opt/companion/bin/companion", true), encoding="utf-8")
    result = subprocess.run(
        [ANALYZE, "verify", "--man=no", "--generators=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Unknown" not in result.stderr and "Failed" not in result.stderr, result.stderr
