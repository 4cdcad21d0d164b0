"""The configuration file: TOML, checked key by key, with one clear line per problem.

Where it is read from, first found wins: ``--config PATH``; ``$COMPANION_CONFIG``;
``/etc/companion/config.toml``; the user config dir (``$XDG_CONFIG_HOME/companion/
config.toml``). No file at all means the defaults. Every key is optional::

    [buttons]            # BCM pin numbers; buttons connect the pin to ground
    up = 5
    down = 6
    ok = 13
    back = 19
    roll = 26
    hold_time = 0.8      # seconds held for a long press
    bounce_time = 0.02   # seconds of contact bounce ignored

    [buzzer]
    pin = 12             # 0 = no buzzer
    [led]
    pin = 16             # LED in the ROLL button; 0 = none

    [display]
    driver = "ssd1306"   # ssd1306, sh1106 or ssd1309
    interface = "i2c"    # i2c or spi
    i2c_port = 1
    i2c_address = 0x3C
    spi_port = 0
    spi_device = 0
    gpio_dc = 24
    gpio_reset = 25
    rotate = 0           # 0 or 2: half turns (the screens are drawn landscape)
    contrast = 207       # 0-255

    [idle]
    dim_after = 60       # seconds without a press before dimming; 0 = never
    blank_after = 600    # seconds before the panel is switched off; 0 = never
    shift_every = 300    # seconds between one-pixel picture shifts; 0 = never

    [state]
    dir = ""             # where the event store lives; "" = the default place

    [serial]
    url = ""             # "" = no serial console
    baud = 115200

    [web]
    listen = ""          # "HOST:PORT" for the table page, e.g. "0.0.0.0:8080"; "" = off
    open_reads = true    # anyone on the network may read; writes always need pairing
    hosts = []           # more names the page answers to (e.g. ["table.lan"]) besides
                         # the device's host name, .local name and addresses

    [club]
    broker = ""          # "mqtt://host:1883" or "mqtts://host:8883"; "" = no club mode
    table = ""           # this table's name in the club, e.g. "table-7"
    username = ""
    password = ""
    ca_file = ""         # a CA certificate file for mqtts:// ("" = the system's)
    seasons = ""         # the dashboard's seasons: "NAME: YYYY-MM-DD..YYYY-MM-DD; ..."

    [backup]
    dir = ""             # a backup after each finished game goes here (a USB stick, a
                         # network share); "" = none
    keep = 10            # the newest this many of this device's backups are kept there

    [dice]
    physical = false     # true: the table rolls real dice and enters the faces (the
                         # buttons, the page and the console take them, marked entered);
                         # false: the device rolls every die a game needs

    [tokens]
    physical = false     # true: the table draws Block Lottery's lottery tokens from the
                         # real tin and enters each (marked entered); false: the device
                         # draws every token

    [timer]
    turn = 0             # seconds a turn may take (a game's setup may change it); 0 = off
    mode = "turn"        # "turn": each turn starts from full; "clock": a chess clock,
                         # each player's own total of `turn` seconds for the whole game

    [ui]
    language = "en"      # en, de, fr, es, it, pl or ru: the screen, the pages and the
                         # command line (Settings > Language on the device changes it
                         # until this file says otherwise)

    [speech]             # the device says rolls, turns and results aloud (eSpeak NG)
    enabled = false      # Settings > Speech on the device turns it on and off too
    rate = 175           # words a minute, 80-450
    volume = 100         # 0-200
    voice = ""           # an espeak-ng voice; "" = the language's
    say = ["rolls", "turns", "results", "refusals", "timer"]   # the kinds said
    device = ""          # the ALSA device to play through (aplay -L); "" = the default

    [gpio]
    pin_factory = "lgpio"  # gpiozero backend: lgpio, rpigpio, native, mock; "" = gpiozero
                           # picks (with its fallbacks); $GPIOZERO_PIN_FACTORY overrides

>>> load_config(None, env={}).buttons.roll
26
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any, NamedTuple

from companion.errors import ConfigError, typed_number, written
from companion.lang import LANGUAGES, N_, _, ngettext
from companion.table.timer import TIMER_MAX, TIMER_MODES
from companion.voices import Speech, check_speech

BUTTON_NAMES = ("up", "down", "ok", "back", "roll")
DRIVERS = ("ssd1306", "sh1106", "ssd1309")
INTERFACES = ("i2c", "spi")
#: gpiozero pin factories [gpio] pin_factory may name ("" = gpiozero's own choice).
PIN_FACTORIES = ("", "lgpio", "rpigpio", "native", "mock")
SYSTEM_CONFIG = Path("/etc/companion/config.toml")
#: A configuration file larger than this is refused (the full one is about 2 KB).
CONFIG_MAX = 64 * 1024
#: The longest idle time (seconds): the timers sleep that long, so it must stay a number
#: the clock and the queue can wait for.
IDLE_MAX = 86_400.0
_FLOAT_MAX = sys.float_info.max


class Buttons(NamedTuple):
    up: int = 5
    down: int = 6
    ok: int = 13
    back: int = 19
    roll: int = 26
    hold_time: float = 0.8
    bounce_time: float = 0.02

    def pins(self) -> dict[str, int]:
        """Button name -> BCM pin."""
        return {name: getattr(self, name) for name in BUTTON_NAMES}


class Output(NamedTuple):
    pin: int = 0


class Display(NamedTuple):
    driver: str = "ssd1306"
    interface: str = "i2c"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    spi_port: int = 0
    spi_device: int = 0
    gpio_dc: int = 24
    gpio_reset: int = 25
    rotate: int = 0
    contrast: int = 207


class Idle(NamedTuple):
    dim_after: float = 60.0
    blank_after: float = 600.0
    shift_every: float = 300.0


class State(NamedTuple):
    dir: str = ""


class Serial(NamedTuple):
    url: str = ""
    baud: int = 115200


class Web(NamedTuple):
    listen: str = ""
    open_reads: bool = True
    hosts: tuple[str, ...] = ()


class Timer(NamedTuple):
    turn: int = 0
    mode: str = "turn"



class Ui(NamedTuple):
    language: str = "en"


class Gpio(NamedTuple):
    pin_factory: str = "lgpio"


class Dice(NamedTuple):
    physical: bool = False


class Tokens(NamedTuple):
    physical: bool = False


class Club(NamedTuple):
    broker: str = ""
    table: str = ""
    username: str = ""
    password: str = ""
    ca_file: str = ""
    seasons: str = ""


class Backup(NamedTuple):
    dir: str = ""
    keep: int = 10


#: The most backups ``[backup] keep`` may keep.
BACKUP_KEEP_MAX = 1000


class Config(NamedTuple):
    buttons: Buttons = Buttons()
    buzzer: Output = Output(12)
    led: Output = Output(16)
    display: Display = Display()
    idle: Idle = Idle()
    state: State = State()
    serial: Serial = Serial()
    web: Web = Web()
    club: Club = Club()
    backup: Backup = Backup()
    dice: Dice = Dice()
    tokens: Tokens = Tokens()
    timer: Timer = Timer()
    ui: Ui = Ui()
    speech: Speech = Speech()
    gpio: Gpio = Gpio()
    #: The file this was read from (None: defaults only).
    source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The effective configuration as plain data (what ``companion config`` prints)."""
        return {name: section._asdict() for name, section in self._asdict().items()
                if name != "source"}

    def state_dir(self, env: dict[str, str] | None = None) -> Path:
        """The state directory: configured, else ``$STATE_DIRECTORY`` (systemd), else the
        user data dir."""
        env = os.environ if env is None else env
        if self.state.dir:
            return Path(self.state.dir).expanduser()
        if env.get("STATE_DIRECTORY"):
            return Path(env["STATE_DIRECTORY"].split(":")[0])
        base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "companion"


def config_path(explicit: str | None, env: dict[str, str] | None = None) -> Path | None:
    """The config file to read, or None for the defaults (see the module docstring)."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit)
    if env.get("COMPANION_CONFIG"):
        return Path(env["COMPANION_CONFIG"])
    if SYSTEM_CONFIG.exists():
        return SYSTEM_CONFIG
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    user = Path(base) / "companion" / "config.toml"
    return user if user.exists() else None


def load_config(explicit: str | None = None, env: dict[str, str] | None = None) -> Config:
    """Read and check the configuration; :class:`ConfigError` names the key at fault."""
    path = config_path(explicit, env)
    if path is None:
        return Config()
    from companion.errors import UnreadableFile
    from companion.files import read_text_file

    try:
        text = read_text_file(path, CONFIG_MAX, N_("the configuration"))
    except UnreadableFile as err:  # /dev/zero, a FIFO, a directory, a huge file
        raise ConfigError(str(err)) from None
    return parse_config(text, source=str(path))


def parse_config(text: str, source: str = "<config>") -> Config:
    """Check TOML text and build a :class:`Config` from it."""
    import tomllib  # only when there is a file: it costs start-up time

    try:
        # A number too large for a float keeps its digits for the refusal (1e999).
        data = tomllib.loads(text, parse_float=typed_number)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(_("{source}: not valid TOML: {problem}").format(
            source=source, problem=err)) from None
    except RecursionError:
        raise ConfigError(_("{source}: not valid TOML: arrays or tables nested too "
                            "deeply").format(source=source)) \
            from None
    except ValueError:  # Python refuses to read an integer of thousands of digits
        raise ConfigError(_("{source}: not valid TOML: a number with too many "
                            "digits").format(source=source)) from None
    config = Config(source=source)
    sections = [name for name in Config._fields if name != "source"]
    for name, table in data.items():
        if name not in sections and not isinstance(table, dict):
            raise ConfigError(_("{source}: unknown key {key} outside any [section]").format(
                source=source, key=written(name)))
        if name not in sections:
            raise ConfigError(_("{source}: unknown section [{section}] (sections: "
                                "{sections})").format(source=source, section=name,
                                                      sections=", ".join(sections)))
        if not isinstance(table, dict):
            raise ConfigError(_("{source}: {section} must be a [{section}] table").format(
                source=source, section=name))
        current = getattr(config, name)
        config = config._replace(**{name: _section(source, name, current, table)})
    _check_values(source, config)
    return config


def _section(source: str, name: str, current: Any, table: dict[str, Any]) -> Any:
    known = current._fields
    changes = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(_("{source}: unknown key {key} (keys: {keys})").format(
                source=source, key=f"{name}.{key}", keys=", ".join(known)))
        want = type(getattr(current, key))
        changes[key] = _typed(source, f"{name}.{key}", want, value)
    return current._replace(**changes)


def _typed(source: str, key: str, want: type, value: Any) -> Any:
    if want is float and isinstance(value, int | float) and not isinstance(value, bool):
        # nan and inf pass every range check by comparison (nan < 0 is False): refuse
        # them here, for every number. A huge integer would not even become a float.
        if not (abs(value) <= _FLOAT_MAX and math.isfinite(value)):
            shown = written(value) if isinstance(value, float) else _("a number that large")
            raise ConfigError(_("{source}: {key} must be a finite number, not {value}").format(
                source=source, key=key, value=shown))
        return float(value)
    if want is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if want is bool and isinstance(value, bool):
        return value
    if want is str and isinstance(value, str):
        if "\x00" in value:  # a path or URL with it crashes whoever uses it later
            raise ConfigError(_("{source}: {key} must not contain a NUL character "
                                "(\\u0000)").format(source=source, key=key))
        return value
    if want is tuple and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    # Translators: true and false are written in the file as they are (TOML's words).
    words = {float: _("a number"), int: _("a whole number"), str: _("a string"),
             bool: _("true or false"), tuple: _("a list of strings")}
    raise ConfigError(_("{source}: {key} must be {kind}, not {value}").format(
        source=source, key=key, kind=words[want], value=written(value)))


def _check_values(source: str, config: Config) -> None:
    def fail(key: str, problem: str) -> None:
        # Translators: {problem} ends the sentence whose subject is the key {key}: "must
        # be from 0 to 255, not 300" (each of those is a message of its own).
        raise ConfigError(_("{source}: {key} {problem}").format(
            source=source, key=key, problem=problem))

    used: dict[int, str] = {}
    pins = dict(config.buttons.pins())
    pins["buzzer.pin"] = config.buzzer.pin
    pins["led.pin"] = config.led.pin
    for name, pin in pins.items():
        key = name if "." in name else f"buttons.{name}"
        optional = "." in name
        if optional and pin == 0:
            continue
        if not 2 <= pin <= 27:
            fail(key, _("must be a BCM pin from 2 to 27, not {pin}").format(pin=pin))
        if pin in used:
            fail(key, _("uses pin {pin}, which {key} uses already").format(
                pin=pin, key=used[pin]))
        used[pin] = key
    if not 0.05 <= config.buttons.hold_time <= 10:
        fail("buttons.hold_time", _("must be from 0.05 to 10 seconds"))
    if not 0 <= config.buttons.bounce_time <= 0.5:
        fail("buttons.bounce_time", _("must be from 0 to 0.5 seconds"))
    d = config.display
    if d.driver not in DRIVERS:
        fail("display.driver", _("must be one of {choices}, not {value}").format(
            choices=", ".join(DRIVERS), value=written(d.driver)))
    if d.interface not in INTERFACES:
        fail("display.interface", _("must be i2c or spi, not {value}").format(
            value=written(d.interface)))
    if not 0x03 <= d.i2c_address <= 0x77:
        fail("display.i2c_address", _("must be a 7-bit I2C address, not {value}").format(
            value=f"{d.i2c_address:#x}"))
    if d.rotate not in (0, 2):
        # The screens are drawn 128 wide; a quarter turn would need portrait layouts.
        fail("display.rotate", _("must be 0 or 2 (upside down), not {value}").format(
            value=d.rotate))
    if not 0 <= d.contrast <= 255:
        fail("display.contrast", _("must be from {low} to {high}, not {value}").format(
            low=0, high=255, value=d.contrast))
    if d.interface == "spi":
        for key in ("gpio_dc", "gpio_reset"):
            pin = getattr(d, key)
            if pin in used:
                fail(f"display.{key}", _("uses pin {pin}, which {key} uses already").format(
                    pin=pin, key=used[pin]))
    for key in ("dim_after", "blank_after", "shift_every"):
        if not 0 <= getattr(config.idle, key) <= IDLE_MAX:
            fail(f"idle.{key}", _("must be 0 (never) or up to {seconds} seconds (a day)")
                 .format(seconds=f"{IDLE_MAX:.0f}"))
    if config.buttons.bounce_time >= config.buttons.hold_time:
        fail("buttons.bounce_time", _("must be shorter than buttons.hold_time"))
    for key, low, high in (("i2c_port", 0, 255), ("spi_port", 0, 255), ("spi_device", 0, 255),
                           ("gpio_dc", 0, 27), ("gpio_reset", 0, 27)):
        if not low <= getattr(d, key) <= high:
            fail(f"display.{key}", _("must be from {low} to {high}, not {value}").format(
                low=low, high=high, value=getattr(d, key)))
    if not 0 < config.serial.baud <= 4_000_000:
        fail("serial.baud", _("must be a positive baud rate, not {value}").format(
            value=config.serial.baud))
    if config.serial.url:
        try:
            check_serial_url(config.serial.url)
        except ValueError as err:
            fail("serial.url", str(err))
    if config.web.listen:
        try:
            parse_listen(config.web.listen)
        except ValueError as err:
            fail("web.listen", str(err))
    for host in config.web.hosts:
        if not valid_host_name(host):
            fail("web.hosts", _("must hold host names or addresses, not {value}").format(
                value=written(host[:60])))
    _check_club(config.club, fail)
    _check_backup(config.backup, fail)
    _check_timer(config.timer, fail)
    if config.ui.language not in LANGUAGES:
        fail("ui.language", _("must be one of {choices}, not {value}").format(
            choices=", ".join(LANGUAGES), value=written(config.ui.language)))
    check_speech(config.speech, fail)
    if config.gpio.pin_factory not in PIN_FACTORIES:
        names = ", ".join(f'"{name}"' for name in PIN_FACTORIES)
        fail("gpio.pin_factory", _("must be one of {choices}, not {value}").format(
            choices=names, value=written(config.gpio.pin_factory)))


#: A club table's name: it is a topic level, so no '/', '+', '#' or spaces.
TABLE_NAME = N_("1 to 32 letters, digits, '-' or '_'")


def parse_listen(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` as (host, port); ValueError says what is wrong::

        >>> parse_listen("0.0.0.0:8080")
        ('0.0.0.0', 8080)
        >>> parse_listen("[::1]:8080")
        ('::1', 8080)
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isascii() or not port.isdigit():
        raise ValueError(_("must be HOST:PORT, e.g. 0.0.0.0:8080, not {value}").format(
            value=written(text)))
    if host.startswith("["):
        host = host[1:-1] if host.endswith("]") else ""
        if not _ipv6(host):
            raise ValueError(_("must be [IPv6]:PORT, e.g. [::1]:8080, not {value}").format(
                value=written(text)))
    elif ":" in host or "]" in host:
        raise ValueError(_("an IPv6 address goes in brackets, e.g. [::1]:8080, not {value}")
                         .format(value=written(text)))
    number = int(port)
    if not 1 <= number <= 65535:
        raise ValueError(_("port must be from 1 to 65535, not {value}").format(value=number))
    if not all(c.isascii() and (c.isalnum() or c in "-._:") for c in host):
        raise ValueError(_("must be HOST:PORT, not {value}").format(value=written(text)))
    return host, number


def _ipv6(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def valid_host_name(name: str) -> bool:
    """True for a DNS name or an IP address as ``[web] hosts`` may list it."""
    return 1 <= len(name) <= 253 and all(
        c.isascii() and (c.isalnum() or c in "-.:[]_") for c in name)


def valid_table_name(name: str) -> bool:
    """True for a club table name (see :data:`TABLE_NAME`)."""
    return 1 <= len(name) <= 32 and all(c.isascii() and (c.isalnum() or c in "-_") for c in name)


def check_serial_url(url: str) -> str:
    """``url`` if it can name a serial port: a device path, or a URL of a kind pyserial
    knows with a well-formed address; ValueError says what is wrong (the one rule for
    ``[serial] url`` and ``--serial``). A port that is not there yet passes: it is
    opened again every few seconds while the program runs (a cable not yet plugged)."""
    import serial

    if not url.strip():
        raise ValueError(_("needs a port, e.g. /dev/ttyGS0 or socket://HOST:PORT"))
    try:
        port = serial.serial_for_url(url, do_not_open=True)
    except serial.SerialException:
        return url  # hwgrep:// that finds no port yet: it is looked for again later
    except ValueError as problem:  # a protocol pyserial does not know
        raise ValueError(_("{problem} (a port is a path or socket://, rfc2217://, "
                           "loop://...)").format(problem=problem)) from None
    del port  # made only to ask pyserial whether it knows the kind
    scheme = url.partition("://")[0].lower()
    if scheme in ("socket", "rfc2217"):  # pyserial reads the address only on open
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        try:
            number = parts.port
        except ValueError:
            number = None
        if not parts.hostname or number is None or not 1 <= number <= 65535:
            raise ValueError(_("must be {scheme}://HOST:PORT with a port from 1 to 65535, "
                               "not {value}").format(scheme=scheme, value=written(url[:80])))
    return url


def check_broker(url: str) -> str:
    """``url`` if it names an MQTT broker (``mqtt://HOST[:PORT]``, ``mqtts://...``);
    ValueError says what is wrong (the one rule for ``[club] broker`` and ``--broker``)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when asked for it
    except ValueError:
        raise ValueError(_("has a port that is not a number from 0 to 65535: "
                           "{value}").format(value=written(url))) from None
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise ValueError(_("must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not {value}")
                         .format(value=written(url)))
    return url


def _check_club(club: Club, fail: Any) -> None:
    if club.seasons:
        from companion.errors import SeasonError
        from companion.seasons import parse_seasons

        try:
            parse_seasons(club.seasons)
        except SeasonError as err:
            fail("club.seasons", _("cannot be read: {problem}").format(problem=err))
    if not club.broker:
        return
    try:
        check_broker(club.broker)
    except ValueError as err:
        fail("club.broker", str(err))
    if not valid_table_name(club.table):
        fail("club.table", _("must be {rule} when club.broker is set, not {value}").format(
            rule=_(TABLE_NAME), value=written(club.table)))


def _check_backup(backup: Backup, fail: Any) -> None:
    if not 1 <= backup.keep <= BACKUP_KEEP_MAX:
        fail("backup.keep", ngettext("must be from 1 to {n} backup, not {value}",
                                      "must be from 1 to {n} backups, not {value}",
                                      BACKUP_KEEP_MAX).format(n=BACKUP_KEEP_MAX,
                                                              value=backup.keep))
    if not backup.dir:
        return
    if not backup.dir.isprintable():
        fail("backup.dir", _("must be a directory path, not {value}").format(
            value=written(backup.dir)))
    if not Path(backup.dir).expanduser().is_absolute():
        # The service starts in / and a shell anywhere: a relative path means two places.
        fail("backup.dir", _("must be an absolute path, e.g. /media/usb/companion, "
                             "not {value}").format(value=written(backup.dir)))


def _check_timer(timer: Timer, fail: Any) -> None:
    if not 0 <= timer.turn <= TIMER_MAX:
        fail("timer.turn", _("must be 0 (off) or up to {seconds} seconds, not {value}").format(
            seconds=TIMER_MAX, value=timer.turn))
    if timer.mode not in TIMER_MODES:
        # Translators: "turn" and "clock" are written in the file as they are.
        fail("timer.mode", _('must be "turn" or "clock", not {value}').format(
            value=written(timer.mode[:40])))


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def masked(config: Config) -> Config:
    """``config`` with the club password shown as ``********`` (a printed config ends up
    in bug reports)."""
    if not config.club.password:
        return config
    return config._replace(club=config.club._replace(password="********"))


def dump_toml(config: Config) -> str:
    """The configuration as TOML text (the effective config, every key)."""
    lines = []
    for section, values in masked(config).as_dict().items():
        lines.append(f"[{section}]")
        for key, value in values.items():
            if isinstance(value, bool):
                shown = "true" if value else "false"
            elif isinstance(value, str):
                shown = _toml_string(value)
            elif isinstance(value, tuple):
                shown = "[" + ", ".join(_toml_string(item) for item in value) + "]"
            elif key == "i2c_address":
                shown = f"0x{value:02X}"
            else:
                shown = str(value)
            lines.append(f"{key} = {shown}")
        lines.append("")
    return "\n".join(lines)
