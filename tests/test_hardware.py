"""The physical build: the wiring diagram, the wiring table, the pin map in
hardware/README.md, the firmware fragment and the default config must all agree."""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

from companion.config import BUTTON_NAMES, Config

REPO = Path(__file__).resolve().parent.parent
SVG = REPO / "hardware" / "wiring.svg"
README = REPO / "hardware" / "README.md"
FRAGMENT = REPO / "firmware" / "config.txt"

#: The Raspberry Pi 40-pin header: physical pin -> BCM GPIO number (None: power/ground/ID).
HEADER_BCM: dict[int, int | None] = {
    1: None, 2: None, 3: 2, 4: None, 5: 3, 6: None, 7: 4, 8: 14, 9: None, 10: 15,
    11: 17, 12: 18, 13: 27, 14: None, 15: 22, 16: 23, 17: None, 18: 24, 19: 10, 20: None,
    21: 9, 22: 25, 23: 11, 24: 8, 25: None, 26: 7, 27: None, 28: None, 29: 5, 30: None,
    31: 6, 32: 12, 33: 13, 34: None, 35: 19, 36: 16, 37: 26, 38: 20, 39: None, 40: 21,
}
GROUND_PINS = {6, 9, 14, 20, 25, 30, 34, 39}
POWER_3V3_PINS = {1, 17}
#: I2C bus 1 is the only bus on the header's GPIO2/3.
I2C1 = {"i2c-sda": 2, "i2c-scl": 3}


def expected_signals(config: Config) -> dict[str, int]:
    """Signal name -> BCM pin, as the default config has it."""
    signals = dict(config.buttons.pins())
    signals["buzzer"] = config.buzzer.pin
    signals["led"] = config.led.pin
    return signals


# --- the diagram ------------------------------------------------------------------------


def svg_wires() -> list[dict[str, str]]:
    root = ET.parse(SVG).getroot()
    return [dict(el.attrib) for el in root.iter() if "data-signal" in el.attrib]


def svg_bcm() -> dict[str, int]:
    out: dict[str, int] = {}
    for wire in svg_wires():
        if "data-bcm" in wire:
            assert wire["data-signal"] not in out, f"{wire['data-signal']} drawn twice"
            out[wire["data-signal"]] = int(wire["data-bcm"])
    return out


def test_svg_is_well_formed_and_titled():
    root = ET.parse(SVG).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox")
    title = root.find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text


def test_svg_wires_match_the_default_config():
    drawn = svg_bcm()
    for signal, pin in expected_signals(Config()).items():
        assert drawn.get(signal) == pin, f"diagram: {signal} on {drawn.get(signal)}, config {pin}"


def test_svg_oled_matches_the_default_display():
    display = Config().display
    assert display.interface == "i2c"
    root = ET.parse(SVG).getroot()
    oleds = [el for el in root.iter() if el.get("data-part") == "oled"]
    assert len(oleds) == 1
    assert int(oleds[0].get("data-i2c-address"), 16) == display.i2c_address
    assert int(oleds[0].get("data-i2c-bus")) == display.i2c_port
    drawn = svg_bcm()
    assert display.i2c_port == 1
    for signal, bcm in I2C1.items():
        assert drawn[signal] == bcm


def test_svg_pins_are_real_header_pins():
    for wire in svg_wires():
        if "data-pin" not in wire:
            continue
        pin = int(wire["data-pin"])
        signal = wire["data-signal"]
        if signal == "gnd":
            assert pin in GROUND_PINS, f"GND wire on pin {pin}"
        elif signal == "3v3":
            assert pin in POWER_3V3_PINS, f"3V3 wire on pin {pin}"
        else:
            assert HEADER_BCM[pin] == int(wire["data-bcm"]), f"{signal}: pin {pin}"


def test_svg_header_drawing_is_the_real_header():
    root = ET.parse(SVG).getroot()
    pins = {
        int(el.get("data-pin")): el.get("data-bcm")
        for el in root.iter()
        if el.get("data-pin") and el.get("data-name")
    }
    assert sorted(pins) == list(range(1, 41))
    for pin, bcm in pins.items():
        assert (int(bcm) if bcm else None) == HEADER_BCM[pin]


def test_every_used_pin_is_used_once():
    drawn = svg_bcm()
    # the power button's wake branch shares GPIO3 with SCL on purpose
    shared = {"power-wake"}
    owners: dict[int, str] = {}
    for signal, bcm in drawn.items():
        if signal in shared:
            continue
        assert bcm not in owners, f"GPIO{bcm} used by {owners.get(bcm)} and {signal}"
        owners[bcm] = signal
    assert drawn["power-wake"] == 3


# --- the README ---------------------------------------------------------------------------


def markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every pipe table in a markdown text, as lists of row dicts keyed by header."""
    tables = []
    lines = text.splitlines()
    i = 0
    while i < len(lines) - 1:
        if lines[i].startswith("|") and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1]):
            header = [c.strip() for c in lines[i].strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                rows.append(dict(zip(header, cells, strict=True)))
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


def wiring_table() -> list[dict[str, str]]:
    for table in markdown_tables(README.read_text(encoding="utf-8")):
        if table and {"Signal", "BCM", "Header pin"} <= table[0].keys():
            if any(row["Signal"].strip("`") == "roll" for row in table):
                return table
    raise AssertionError("hardware/README.md has no wiring table")


def test_readme_shows_the_diagram():
    text = README.read_text(encoding="utf-8")
    assert re.search(r"!\[[^\]]*\]\(wiring\.svg\)", text)


def test_readme_table_matches_the_default_config():
    rows = {}
    for row in wiring_table():
        signal = row["Signal"].strip("`")
        if row["BCM"] != "-":
            rows[signal] = int(row["BCM"])
    for signal, pin in expected_signals(Config()).items():
        assert rows.get(signal) == pin, f"README: {signal} on GPIO{rows.get(signal)}, config {pin}"


def test_readme_table_matches_the_diagram():
    drawn = {(w["data-signal"], int(w["data-pin"])) for w in svg_wires() if "data-pin" in w}
    table = {(r["Signal"].strip("`"), int(r["Header pin"])) for r in wiring_table()}
    assert table == drawn
    for row in wiring_table():
        if row["BCM"] != "-":
            assert HEADER_BCM[int(row["Header pin"])] == int(row["BCM"]), row


def test_readme_names_the_i2c_address():
    text = README.read_text(encoding="utf-8")
    assert f"0x{Config().display.i2c_address:02X}" in text


def test_readme_pin_map_is_the_default_config():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Pin map", 1)[1]
    snippet = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    data = tomllib.loads(snippet)
    defaults = Config().as_dict()
    assert set(data["buttons"]) == set(BUTTON_NAMES)
    for section_name, values in data.items():
        for key, value in values.items():
            assert defaults[section_name][key] == value, f"{section_name}.{key}"


def test_readme_spi_table_matches_the_default_config():
    display = Config().display
    for table in markdown_tables(README.read_text(encoding="utf-8")):
        signals = {row["Signal"].split()[0].strip("`"): row for row in table if "Signal" in row}
        if "spi-dc" in signals:
            assert int(signals["spi-dc"]["BCM"]) == display.gpio_dc
            assert int(signals["spi-reset"]["BCM"]) == display.gpio_reset
            for row in signals.values():
                assert HEADER_BCM[int(row["Header pin"])] == int(row["BCM"]), row
            return
    raise AssertionError("no SPI table")


def test_parts_list_offers_both_displays():
    text = README.read_text(encoding="utf-8")
    parts = text.split("## Parts list", 1)[1].split("\n## ", 1)[0]
    for word in ("SH1106", "SSD1306", '1.3"', '0.96"', "Schottky"):
        assert word in parts


# --- the firmware fragment ----------------------------------------------------------------


FRAGMENTS = sorted(FRAGMENT.parent.glob("*.txt"))


def fragment_lines(path: Path = FRAGMENT) -> list[str]:
    return [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_base_fragment_turns_on_i2c_only():
    lines = fragment_lines()
    assert lines == ["[all]", "dtparam=i2c_arm=on", "dtparam=i2c_arm_baudrate=400000"]


def test_each_choice_has_its_fragment():
    """deploy/install.sh adds one of these per boot choice; the UART is per model."""
    firmware = FRAGMENT.parent
    assert fragment_lines(firmware / "spi.txt") == ["dtparam=spi=on"]
    assert fragment_lines(firmware / "usb-serial.txt") == ["dtoverlay=dwc2"]
    assert fragment_lines(firmware / "uart.txt") == ["enable_uart=1"]
    assert fragment_lines(firmware / "uart-pi5.txt") == ["dtparam=uart0=on"]
    [shutdown] = fragment_lines(firmware / "power-button.txt")
    assert shutdown.startswith("dtoverlay=gpio-shutdown")
    assert fragment_lines(firmware / "i2s-amp.txt") == ["dtoverlay=max98357a"]
    [shutdown] = fragment_lines(firmware / "power-button-i2s.txt")
    assert shutdown.startswith("dtoverlay=gpio-shutdown")
    assert {p.name for p in FRAGMENTS} == {
        "config.txt", "spi.txt", "usb-serial.txt", "uart.txt", "uart-pi5.txt",
        "power-button.txt", "i2s-amp.txt", "power-button-i2s.txt"}
    installer = (REPO / "deploy" / "install.sh").read_text(encoding="utf-8")
    for path in FRAGMENTS:
        assert path.name in installer, f"deploy/install.sh never uses firmware/{path.name}"


def test_fragments_have_no_install_markers():
    # deploy/install.sh adds the BEGIN/END lines; inside a fragment they would nest
    for path in FRAGMENTS:
        for line in path.read_text(encoding="utf-8").splitlines():
            assert not re.match(r"#\s*(BEGIN|END) tabletop-companion$", line), path.name


def shutdown_pin() -> int:
    for line in fragment_lines(FRAGMENT.parent / "power-button.txt"):
        if line.startswith("dtoverlay=gpio-shutdown"):
            match = re.search(r"gpio_pin=(\d+)", line)
            return int(match.group(1)) if match else 3  # the overlay's default
    raise AssertionError("no gpio-shutdown line")


def test_shutdown_pin_matches_the_diagram_and_table():
    pin = shutdown_pin()
    assert svg_bcm()["power-shutdown"] == pin
    rows = {r["Signal"].strip("`"): r for r in wiring_table()}
    assert int(rows["power-shutdown"]["BCM"]) == pin
    assert f"gpio_pin={pin}" in rows["power-shutdown"]["Config key"]


def test_shutdown_pin_is_free():
    """gpio-shutdown must not claim a pin that I2C, the UART or the config uses."""
    pin = shutdown_pin()
    config = Config()
    taken = set(expected_signals(config).values())
    taken |= set(I2C1.values()) | {14, 15}  # I2C bus 1 and the UART
    taken |= {8, 9, 10, 11, config.display.gpio_dc, config.display.gpio_reset}  # SPI
    assert pin not in taken
