"""The configuration file: defaults, every kind of bad file, and exit status 78."""

import pytest

from companion.cli import main
from companion.config import Config, dump_toml, load_config, parse_config
from companion.errors import ConfigError


def test_no_file_means_defaults():
    config = load_config(None, env={"XDG_CONFIG_HOME": "/nonexistent"})
    assert config == Config()
    assert config.buttons.pins() == {"up": 5, "down": 6, "ok": 13, "back": 19, "roll": 26}


def test_a_file_overrides_only_what_it_names():
    config = parse_config("[display]\ndriver = 'sh1106'\ni2c_address = 0x3D\n")
    assert config.display.driver == "sh1106"
    assert config.display.i2c_address == 0x3D
    assert config.buttons == Config().buttons


def test_dumped_config_reads_back_the_same():
    config = parse_config("[buttons]\nhold_time = 1.5\n[serial]\nurl = 'loop://'\n")
    again = parse_config(dump_toml(config), source=config.source)
    assert again == config


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[buttons\n", "not valid TOML"),
        ("[screen]\n", "unknown section [screen]"),
        ("[buttons]\nselect = 4\n", "unknown key buttons.select"),
        ("[buttons]\nup = 6\n", "buttons.down uses pin 6, which buttons.up uses already"),
        ("[led]\npin = 26\n", "led.pin uses pin 26, which buttons.roll uses already"),
        ("[buttons]\nup = 'five'\n", "buttons.up must be a whole number"),
        ("[buttons]\nup = true\n", "buttons.up must be a whole number"),
        ("[buttons]\nup = 40\n", "buttons.up must be a BCM pin from 2 to 27"),
        ("[buttons]\nhold_time = 0\n", "buttons.hold_time must be from 0.05 to 10"),
        ("[display]\ndriver = 'ssd1351'\n", "display.driver must be one of"),
        ("[display]\ninterface = 'usb'\n", "display.interface must be i2c or spi"),
        ("[display]\nrotate = 5\n", "display.rotate must be 0 or 2"),
        ("[display]\nrotate = 1\n", "display.rotate must be 0 or 2"),
        ("[display]\ncontrast = 300\n", "display.contrast must be from 0 to 255"),
        ("[display]\ni2c_address = 0x90\n", "display.i2c_address must be a 7-bit"),
        ("[idle]\ndim_after = -1\n", "idle.dim_after must be 0"),
        ("buttons = 3\n", "buttons must be a [buttons] table"),
        ("[display]\ninterface='spi'\ngpio_dc=26\n", "display.gpio_dc uses pin 26"),
    ],
)
def test_bad_config_names_the_key_and_problem(text, words):
    with pytest.raises(ConfigError) as err:
        parse_config(text, source="my.toml")
    assert words in str(err.value)
    assert str(err.value).startswith("my.toml: ")


def test_cli_exits_78_with_one_line_and_no_traceback(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text("[buttons]\nup = 6\n")
    assert main(["config", "--config", str(path)]) == 78
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "buttons.down uses pin 6" in err
    assert "Traceback" not in err


def test_missing_and_unreadable_files(tmp_path, capsys):
    assert main(["config", "--config", str(tmp_path / "nope.toml")]) == 78
    assert "no such file" in capsys.readouterr().err
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    assert main(["config", "--config", str(binary)]) == 78


def test_cli_prints_the_effective_config(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text("[idle]\ndim_after = 30\n")
    assert main(["config", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "dim_after = 30.0" in out
    assert "roll = 26" in out


def test_state_dir_order():
    assert str(Config().state_dir({"STATE_DIRECTORY": "/var/lib/companion"})) == \
        "/var/lib/companion"
    assert str(Config().state_dir({"XDG_DATA_HOME": "/d"})) == "/d/companion"
    configured = parse_config("[state]\ndir = '/srv/c'\n")
    assert str(configured.state_dir({"STATE_DIRECTORY": "/x"})) == "/srv/c"
