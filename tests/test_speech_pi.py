"""A speaker on a Pi (issue 39.3): the installer's ``--i2s-amp`` adds the MAX98357A's
overlay to the boot block (the shutdown key moves off its data pin, a new config speaks
through it with BACK off its clock pin), remembers the choice and hints for a kept
config; the wiring in hardware/README.md is real header pins and clashes with nothing;
CI installs espeak-ng."""

from __future__ import annotations

import re

import pytest
from test_deploy import (
    REPO,
    active,
    block_of,
    boot_of,
    choices_of,
    expected_block,
    install,
    root,  # noqa: F401 - the fixture
    snapshot,
)
from test_hardware import HEADER_BCM, I2C1, README, markdown_tables

from companion.config import Config, parse_config

I2S_PINS = {"i2s-bclk": 18, "i2s-lrclk": 19, "i2s-din": 21, "amp-sd": 4}


def test_i2s_amp_adds_the_overlay_and_moves_the_shutdown_key(root):  # noqa: F811
    install(root, "--no-venv", "--i2s-amp")
    block = active(block_of(boot_of(root)))
    assert "dtoverlay=max98357a" in block
    assert "dtoverlay=gpio-shutdown,gpio_pin=17" in block
    assert "dtoverlay=gpio-shutdown,gpio_pin=21" not in block  # GPIO21 is the amp's DIN
    assert block_of(boot_of(root)) == expected_block("power-button-i2s.txt", "i2s-amp.txt")
    assert choices_of(root)["i2s_amp"] == "yes"
    config = parse_config((root / "etc/companion/config.toml").read_text())
    assert config.buttons.back == 22 and config.speech.enabled
    assert config.speech.device == "plughw:CARD=MAX98357A,DEV=0"
    before = snapshot(root)
    install(root, "--no-venv")  # remembered: an update changes nothing
    assert snapshot(root) == before


def test_without_a_power_button_only_the_overlay(root):  # noqa: F811
    install(root, "--no-venv", "--i2s-amp", "--no-power-button")
    block = active(block_of(boot_of(root)))
    assert "dtoverlay=max98357a" in block
    assert not [line for line in block if "gpio-shutdown" in line]


def test_a_kept_config_is_told_what_to_change(root):  # noqa: F811
    install(root, "--no-venv")
    out = install(root, "--no-venv", "--i2s-amp").stdout
    assert 'set device = "plughw:CARD=MAX98357A,DEV=0" and enabled = true under [speech]' \
        in " ".join(out.split())
    assert "back = 22 under [buttons]" in " ".join(out.split())
    config = parse_config((root / "etc/companion/config.toml").read_text())
    assert config.buttons.back == 19  # the owner's file is never rewritten
    out = install(root, "--no-venv", "--no-i2s-amp").stdout
    assert "dtoverlay=max98357a" not in active(block_of(boot_of(root)))
    assert "I2S amplifier" not in out


def test_an_edited_block_with_the_overlay_keeps_the_choice(root):  # noqa: F811
    install(root, "--no-venv", "--i2s-amp")
    (root / "etc/companion/install.conf").unlink()
    boot = root / "boot/firmware/config.txt"
    boot.write_text(boot.read_text().replace("# I2S amplifier", "# my amplifier"))
    out = install(root, "--no-venv").stdout
    assert "took the choices from your boot block" in out
    assert choices_of(root)["i2s_amp"] == "yes"


def test_the_installer_installs_espeak_and_aplay_and_the_audio_group():
    text = (REPO / "deploy/install.sh").read_text()
    packages = text.split("\nAPT_PACKAGES=(", 1)[1].split(")", 1)[0].split()
    assert {"espeak-ng", "alsa-utils"} <= set(packages)
    assert "audio" in text.split("GROUPS_NEEDED=(", 1)[1].split(")", 1)[0].split()
    assert "--i2s-amp" in text.split("usage()", 1)[1].split("EOF", 2)[1]


# --- the wiring ------------------------------------------------------------------------------


def i2s_table() -> dict[str, dict[str, str]]:
    for table in markdown_tables(README.read_text(encoding="utf-8")):
        rows = {row["Signal"].strip("`"): row for row in table if "Signal" in row}
        if "i2s-bclk" in rows:
            return rows
    raise AssertionError("hardware/README.md has no I2S amplifier table")


def test_the_amplifier_table_is_real_header_pins():
    rows = i2s_table()
    for signal, bcm in I2S_PINS.items():
        assert int(rows[signal]["BCM"]) == bcm, signal
        assert HEADER_BCM[int(rows[signal]["Header pin"])] == bcm, signal
    assert HEADER_BCM[int(rows["amp-vin"]["Header pin"])] is None  # 5 V
    assert int(rows["amp-gnd"]["Header pin"]) in {6, 9, 14, 20, 25, 30, 34, 39}


def test_with_the_amplifier_nothing_else_uses_its_pins():
    """BACK moves to GPIO22 and the shutdown key to GPIO17: nothing the config, I2C, the
    UART or an SPI display uses is on an I2S pin (18-21) or the SD pin (4)."""
    config = Config()
    i2s = set(I2S_PINS.values()) | {20}  # I2S takes GPIO20 too
    pins = dict(config.buttons.pins(), back=22, buzzer=config.buzzer.pin, led=config.led.pin)
    shutdown = int(re.search(r"gpio_pin=(\d+)", (REPO / "firmware/power-button-i2s.txt")
                             .read_text()).group(1))
    taken = set(pins.values()) | {shutdown} | set(I2C1.values()) | {14, 15} | \
        {8, 9, 10, 11, config.display.gpio_dc, config.display.gpio_reset}
    assert not taken & i2s
    assert len(set(pins.values()) | {shutdown}) == len(pins) + 1  # all different
    text = (REPO / "deploy/install.sh").read_text()
    assert re.search(r"^I2S_BACK_PIN=22$", text, re.M)


def test_ci_installs_espeak():
    ci = (REPO / ".ci/run").read_text()
    assert re.search(r"^need_package espeak-ng espeak-ng ", ci, re.M)


@pytest.mark.parametrize("key", ["enabled", "rate", "volume", "voice", "say", "device"])
def test_the_example_config_explains_every_speech_key(key):
    text = (REPO / "config/config.example.toml").read_text()
    section = text.split("\n[speech]\n", 1)[1].split("\n[", 1)[0]
    assert re.search(rf"^{key} = ", section, re.M)
    assert re.search(rf"^# .*\n{key} = ", section, re.M)  # a comment says what it is
    assert parse_config(text).speech == Config().speech
