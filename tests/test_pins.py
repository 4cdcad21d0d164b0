"""The pin factory chosen on purpose ([gpio] pin_factory, $GPIOZERO_PIN_FACTORY), and GPIO
errors told in one line with the fix instead of gpiozero's cascade of fallbacks.

The lgpio cases run gpiozero's real LGPIOFactory against a stand-in ``lgpio`` module
that fails the way the real one does on a Pi ("can not open gpiochip"); the RPi.GPIO
(opt-in) cases run gpiozero's real RPiGPIOFactory on fake-rpi's ``RPi.GPIO``, given a
memory of pin modes and levels so that the board's buttons and LED really work on it.
"""

from __future__ import annotations

import sys
import types
import warnings
from pathlib import Path

import fake_rpi
import gpiozero.pins.local
import pytest
from gpiozero.pins.mock import MockFactory

from companion.config import Buttons, Config, parse_config
from companion.device import pins
from companion.device.board import Board
from companion.device.pins import explain_gpio_error, open_pin_factory, pin_factory_name
from companion.errors import BoardError, ConfigError, GPIOError

PI4_REVISION = 0xC03111
PI5_REVISION = 0xD04170


@pytest.fixture
def on_a_pi(monkeypatch):
    """gpiozero's board detection answers as a Pi 4 (it reads /proc otherwise)."""
    monkeypatch.setattr(gpiozero.pins.local, "get_pi_revision", lambda: PI4_REVISION)


@pytest.fixture
def fresh_backend_modules():
    """Forget gpiozero's backend modules around a test: they bind lgpio / RPi.GPIO at
    import, and the stand-ins must not leak into other tests."""
    names = ("gpiozero.pins.lgpio", "gpiozero.pins.rpigpio", "lgpio", "RPi", "RPi.GPIO")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    forget_local_pins()
    try:
        yield
    finally:
        forget_local_pins()
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def forget_local_pins():
    """gpiozero's local factories share one class-wide table of pins and reservations
    across every instance: a button left over from an earlier test (a failed Board,
    not yet collected) would still hold GPIO5 in a new factory."""
    gpiozero.pins.local.LocalPiFactory.pins.clear()
    gpiozero.pins.local.LocalPiFactory._reservations.clear()


def no_warnings(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            action()
        finally:
            assert not caught, [str(w.message) for w in caught]


# --- the choice --------------------------------------------------------------------------


def test_the_default_is_lgpio_and_the_environment_overrides():
    assert Config().gpio.pin_factory == "lgpio"
    assert pin_factory_name("lgpio", env={}) == "lgpio"
    assert pin_factory_name("lgpio", env={"GPIOZERO_PIN_FACTORY": "mock"}) == "mock"
    assert pin_factory_name("rpigpio", env={"GPIOZERO_PIN_FACTORY": " "}) == "rpigpio"


def test_the_config_names_a_known_factory():
    config = parse_config('[gpio]\npin_factory = "rpigpio"\n')
    assert config.gpio.pin_factory == "rpigpio"
    assert parse_config('[gpio]\npin_factory = ""\n').gpio.pin_factory == ""
    with pytest.raises(ConfigError) as caught:
        parse_config('[gpio]\npin_factory = "pigpiod"\n', source="c.toml")
    assert str(caught.value).startswith("c.toml: gpio.pin_factory must be one of")
    assert "\n" not in str(caught.value)


def test_empty_leaves_the_choice_to_gpiozero_and_mock_is_a_mock():
    assert open_pin_factory("") is None
    factory = open_pin_factory("mock")
    try:
        assert isinstance(factory, MockFactory)
    finally:
        factory.close()


def test_an_unknown_factory_is_one_line():
    with pytest.raises(GPIOError) as caught:
        open_pin_factory("pigpiod")
    assert str(caught.value).startswith("unknown GPIO pin factory 'pigpiod' (known: ")
    assert "lgpio" in str(caught.value)


# --- lgpio ---------------------------------------------------------------------------------


def test_lgpio_missing_says_which_package(fresh_backend_modules, monkeypatch):
    monkeypatch.setitem(sys.modules, "lgpio", None)  # as on a machine without it
    with pytest.raises(GPIOError) as caught:
        no_warnings(lambda: open_pin_factory("lgpio"))
    assert str(caught.value) == (
        "GPIO (lgpio): lgpio is not installed: sudo apt install python3-lgpio "
        "(Raspberry Pi OS), or pip install lgpio")


def stand_in_lgpio(monkeypatch) -> None:
    """An lgpio module whose gpiochip_open fails as the real one does without access."""
    module = types.ModuleType("lgpio")

    class error(Exception):  # noqa: N801 - lgpio's own spelling
        pass

    def gpiochip_open(chip):
        raise error("can not open gpiochip")

    module.error = error
    module.gpiochip_open = gpiochip_open
    module.__getattr__ = lambda name: 0  # gpiozero reads lgpio's constants at import
    monkeypatch.setitem(sys.modules, "lgpio", module)


def test_no_gpio_chip_at_all(fresh_backend_modules, monkeypatch, on_a_pi, tmp_path):
    stand_in_lgpio(monkeypatch)
    with pytest.raises(GPIOError) as caught:
        no_warnings(lambda: open_pin_factory("lgpio", dev=tmp_path))
    message = str(caught.value)
    assert message == (f"GPIO (lgpio): lgpio cannot open the GPIO chip: there is no "
                       f"{tmp_path}/gpiochip0 (not a Raspberry Pi, or a kernel without "
                       "GPIO character devices)")


def test_no_permission_on_the_chip_names_the_group(fresh_backend_modules, monkeypatch,
                                                   on_a_pi, tmp_path):
    """The Pi 4 case that used to end in RPi.GPIO's "No access to /dev/mem" after eight
    warnings: the first factory's own cause, in one line, with the fix."""
    stand_in_lgpio(monkeypatch)
    chip = tmp_path / "gpiochip0"
    chip.touch()
    chip.chmod(0o660)
    # The tests run as root, who may open anything: answer as the owner's user would.
    monkeypatch.setattr(pins.os, "access", lambda path, mode: False)
    monkeypatch.setenv("SUDO_USER", "pi")
    with pytest.raises(GPIOError) as caught:
        no_warnings(lambda: open_pin_factory("lgpio", dev=tmp_path))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"GPIO (lgpio): lgpio cannot open {chip}: no permission (")
    assert "mode 0660" in message
    # owned by root's group here, so the fix is the chip's group, as udev sets it
    assert "sudo chgrp gpio" in message
    assert "/dev/mem" not in message and "RPi.GPIO" not in message


def test_a_chip_in_a_group_names_usermod(monkeypatch, tmp_path):
    chip = tmp_path / "gpiochip0"
    chip.touch()
    chip.chmod(0o660)
    monkeypatch.setattr(pins.os, "access", lambda path, mode: False)
    monkeypatch.setattr(pins, "_name", lambda lookup, number: "gpio")
    monkeypatch.setenv("SUDO_USER", "pi")
    message = explain_gpio_error(OSError("can not open gpiochip"), dev=tmp_path)
    assert message.endswith("; sudo usermod -aG gpio pi, then log in again")


def test_a_busy_pin_names_the_service():
    class LgpioError(Exception):
        pass

    class TakenPins(MockFactory):
        """The pins another process holds: claiming any of them fails like lgpio."""

        def pin(self, spec, **kwargs):
            raise LgpioError("GPIO busy")

    factory = TakenPins()
    try:
        with pytest.raises(BoardError) as caught:
            Board(Buttons(), sink=lambda *edge: None, pin_factory=factory)
    finally:
        factory.close()
    assert str(caught.value) == (
        "cannot open the UP button on GPIO5: another program holds the pin (GPIO busy); "
        "if it is the service: sudo systemctl stop companion")


# --- RPi.GPIO, the opt-in ----------------------------------------------------------------


class PinMemoryGPIO(fake_rpi.RPi._GPIO):
    """fake-rpi's RPi.GPIO with what the board needs of a real one: pin modes, pulled
    levels, outputs and edge callbacks. ``fail`` makes ``setup`` raise as RPi.GPIO does
    when it cannot reach the GPIO registers."""

    def __init__(self, fail: str | None = None):
        super().__init__()
        self.fail = fail
        self.modes: dict[int, int] = {}
        self.levels: dict[int, int] = {}
        self.callbacks: dict[int, object] = {}

    def setup(self, channel, state, pull_up_down=None, initial=0):
        if self.fail:
            raise RuntimeError(self.fail)
        self.modes[channel] = state
        if state == self.IN:
            self.levels[channel] = 1 if pull_up_down == self.PUD_UP else 0
        else:
            self.levels[channel] = initial

    def gpio_function(self, channel):
        return self.modes.get(channel, self.IN)

    def input(self, channel):
        return self.levels.get(channel, 0)

    def output(self, channel, state):
        self.levels[channel] = int(state)

    def add_event_detect(self, channel, edge, callback=None, bouncetime=None):
        self.callbacks[channel] = callback

    def remove_event_detect(self, channel):
        self.callbacks.pop(channel, None)

    def cleanup(self, channel=None):
        pass

    def drive(self, channel: int, level: int) -> None:
        """The contact closes (0) or opens (1), as the pull-up and a button would."""
        self.levels[channel] = level
        if channel in self.callbacks:
            self.callbacks[channel](channel)


def fake_rpi_gpio(monkeypatch, gpio: PinMemoryGPIO) -> None:
    """fake-rpi's way in: its modules put in sys.modules as RPi and RPi.GPIO."""
    fake_rpi.toggle_print(False)
    monkeypatch.setattr(fake_rpi.RPi, "GPIO", gpio)
    monkeypatch.setitem(sys.modules, "RPi", fake_rpi.RPi)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", gpio)


def test_the_board_runs_on_rpi_gpio_when_asked(fresh_backend_modules, monkeypatch, on_a_pi):
    gpio = PinMemoryGPIO()
    fake_rpi_gpio(monkeypatch, gpio)
    config = parse_config('[gpio]\npin_factory = "rpigpio"\n')
    factory = open_pin_factory(pin_factory_name(config.gpio.pin_factory, env={}))
    assert type(factory).__name__ == "RPiGPIOFactory"
    edges = []
    board = Board(config.buttons, config.buzzer.pin, config.led.pin,
                  sink=lambda *edge: edges.append(edge[:2]), clock=lambda: 0.0,
                  pin_factory=factory)
    try:
        ok = config.buttons.ok
        assert gpio.modes[ok] == gpio.IN and gpio.levels[ok] == 1  # pulled up
        gpio.drive(ok, 0)
        assert board.is_pressed("ok")
        gpio.drive(ok, 1)
        assert edges == [("ok", True), ("ok", False)]
        board.set_led(True)
        assert gpio.levels[config.led.pin] == 1
    finally:
        board.close()
        factory.close()


@pytest.mark.parametrize("failure, told", [
    ("No access to /dev/mem.  Try running as root!",
     "RPi.GPIO cannot open /dev/gpiomem (No access to /dev/mem. Try running as root!): "
     "add the user to the gpio group (sudo usermod -aG gpio pi, then log in again), or "
     'use the Bookworm default [gpio] pin_factory = "lgpio"'),
    ("Cannot determine SOC peripheral base address",
     'RPi.GPIO does not work on a Raspberry Pi 5: set [gpio] pin_factory = "lgpio"'),
])
def test_rpi_gpio_failures_are_told_plainly(fresh_backend_modules, monkeypatch, on_a_pi,
                                            failure, told):
    monkeypatch.setenv("SUDO_USER", "pi")
    fake_rpi_gpio(monkeypatch, PinMemoryGPIO(fail=failure))
    factory = open_pin_factory("rpigpio")
    try:
        with pytest.raises(BoardError) as caught:
            no_warnings(lambda: Board(Buttons(), sink=lambda *edge: None,
                                      pin_factory=factory))
    finally:
        factory.close()
    assert str(caught.value) == f"cannot open the UP button on GPIO5: {told}"


def test_rpi_gpio_not_installed_points_at_the_extra(fresh_backend_modules, monkeypatch,
                                                   tmp_path):
    from companion.device import pins

    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setattr(pins, "INSTALL_CONF", tmp_path / "no-install.conf")
    with pytest.raises(GPIOError) as caught:
        open_pin_factory("rpigpio")
    # the installer builds it where a bare pip install fails (Pi OS): name that, and
    # where it is when no install says (the path works only from inside the checkout)
    assert "cd to the Tabletop Companion checkout, then sudo deploy/install.sh --rpi-gpio" \
        in str(caught.value)
    assert 'pin_factory = "lgpio"' in str(caught.value)


def test_rpi_gpio_hint_names_the_checkout_the_installer_ran_from(fresh_backend_modules,
                                                                  monkeypatch, tmp_path):
    from companion.device import pins

    conf = tmp_path / "install.conf"
    conf.write_text("spi=no\ncheckout=/home/pi/tabletop-companion\nrpi_gpio=no\n")
    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setattr(pins, "INSTALL_CONF", conf)
    with pytest.raises(GPIOError) as caught:
        open_pin_factory("rpigpio")
    assert "RPi is not installed: sudo /home/pi/tabletop-companion/deploy/install.sh " \
           "--rpi-gpio" in str(caught.value)


def test_not_a_pi_is_said_plainly(fresh_backend_modules, monkeypatch):
    stand_in_lgpio(monkeypatch)

    def no_revision():
        raise gpiozero.PinUnknownPi(
            "unable to locate Pi revision in /proc/device-tree or /proc/cpuinfo")

    monkeypatch.setattr(gpiozero.pins.local, "get_pi_revision", no_revision)
    with pytest.raises(GPIOError) as caught:
        open_pin_factory("lgpio")
    assert str(caught.value).startswith("GPIO (lgpio): this is not a Raspberry Pi (")
    assert "companion sim" in str(caught.value)


def test_product_code_never_imports_rpi_gpio():
    root = Path(__file__).resolve().parent.parent / "companion"
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import RPi" not in text and "from RPi" not in text, path
