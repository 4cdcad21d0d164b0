"""Which gpiozero pin factory drives the board, chosen on purpose, and GPIO errors told
in one line with the fix.

Left to itself, gpiozero tries lgpio, then RPi.GPIO, pigpio and its sysfs backend,
with a warning at every step. When lgpio cannot open the GPIO chip the owner then
reads RPi.GPIO's ``No access to /dev/mem`` (Pi 4) or ``Cannot determine SOC
peripheral base address`` (Pi 5) under eight warnings, and the real cause is hidden
above them. So the factory is named once (``[gpio] pin_factory``, default ``lgpio``;
``$GPIOZERO_PIN_FACTORY`` overrides it), built directly with no fallback, and its own
error is what the owner reads::

    >>> explain_gpio_error(RuntimeError("Cannot determine SOC peripheral base address"))
    'RPi.GPIO does not work on a Raspberry Pi 5: set [gpio] pin_factory = "lgpio"'

Nothing here imports RPi.GPIO: gpiozero does, only when ``rpigpio`` is asked for (the
``[pi-legacy]`` extra installs it).
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
from collections.abc import Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from companion.errors import GPIOError
from companion.lang import N_, _

#: The command that frees pins the installed service holds.
STOP_SERVICE = "sudo systemctl stop companion"
ENV_VAR = "GPIOZERO_PIN_FACTORY"
#: Where deploy/install.sh remembers its choices, and the checkout it ran from.
INSTALL_CONF = Path("/etc/companion/install.conf")
#: Which module each factory needs, and how an owner gets it ({installer}: where
#: deploy/install.sh is, see :func:`installer`).
_PACKAGES = {
    "lgpio": N_("sudo apt install python3-lgpio (Raspberry Pi OS), or pip install lgpio"),
    # pip cannot build RPi.GPIO into the service's venv on Pi OS by hand (no headers, a
    # system-managed Python): the installer knows how, and remembers the choice.
    "RPi": N_("{installer} --rpi-gpio (RPi.GPIO, for systems older than Bookworm; "
              'never on a Pi 5), or set [gpio] pin_factory = "lgpio"'),
}


def installer(conf: Path | None = None) -> str:
    """``sudo .../deploy/install.sh`` as it can be typed from anywhere: the checkout the
    last install ran from (install.conf's ``checkout=``), else where it is in one.

    >>> import tempfile
    >>> conf = Path(tempfile.mkdtemp()) / "install.conf"
    >>> installer(conf)
    'cd to the Tabletop Companion checkout, then sudo deploy/install.sh'
    >>> _ = conf.write_text("spi=no\\ncheckout=/home/pi/tabletop companion\\n")
    >>> installer(conf)
    "sudo '/home/pi/tabletop companion/deploy/install.sh'"
    """
    import shlex

    try:
        lines = (conf or INSTALL_CONF).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    for line in lines:
        key, _equals, value = line.partition("=")
        if key.strip() == "checkout" and value.strip().startswith("/"):
            return f"sudo {shlex.quote(value.strip() + '/deploy/install.sh')}"
    return _("cd to the Tabletop Companion checkout, then sudo deploy/install.sh")


def pin_factory_name(configured: str, env: Mapping[str, str] | None = None) -> str:
    """The factory to use: ``$GPIOZERO_PIN_FACTORY`` if set, else the config's.

    >>> pin_factory_name("lgpio", env={}), pin_factory_name("lgpio", env={ENV_VAR: "mock"})
    ('lgpio', 'mock')
    """
    env = os.environ if env is None else env
    return env.get(ENV_VAR, "").strip() or configured


def open_pin_factory(name: str, *, dev: Path = Path("/dev")) -> Any:
    """Build the named gpiozero factory, or None for ``""`` (gpiozero's own choice).

    Raises :class:`GPIOError` with one line naming the cause and the fix.
    """
    if not name:
        return None
    found = {ep.name: ep for ep in entry_points(group="gpiozero_pin_factories")}
    entry = found.get(name) or found.get(name.lower())
    if entry is None:
        known = ", ".join(sorted(n for n in found if n.islower()))
        raise GPIOError(_("unknown GPIO pin factory {name} (known: {known})").format(
            name=repr(name), known=known))
    try:
        return entry.load()()
    except Exception as err:  # noqa: BLE001 - every backend has its own error classes
        raise GPIOError(f"GPIO ({name}): {explain_gpio_error(err, dev=dev)}") from err


def explain_gpio_error(err: BaseException, *, dev: Path = Path("/dev")) -> str:
    """One line: what a GPIO backend's error means here, and what fixes it."""
    text = " ".join(str(err).split())
    lowered = text.lower()
    if isinstance(err, ImportError):
        module = (err.name or "").split(".")[0]
        fix = _PACKAGES.get(module)
        fix = _(fix).format(installer=installer()) if fix else ""
        return _("{module} is not installed: {fix}").format(module=module or text, fix=fix) \
            if fix else text
    if "can not open gpiochip" in lowered or "cannot open gpiochip" in lowered:
        return _chip_problem(dev / "gpiochip0", text)
    if "busy" in lowered:
        return _("another program holds the pin ({problem}); if it is the service: "
                 "{command}").format(problem=text, command=STOP_SERVICE)
    if "soc peripheral base" in lowered:
        return _('RPi.GPIO does not work on a Raspberry Pi 5: set [gpio] pin_factory = '
                 '"lgpio"')
    if "/dev/mem" in lowered or "gpiomem" in lowered:
        return _('RPi.GPIO cannot open /dev/gpiomem ({problem}): add the user to the gpio '
                 'group ({command}), or use the Bookworm default '
                 '[gpio] pin_factory = "lgpio"').format(problem=text, command=_usermod("gpio"))
    if ("raspberry pi" in lowered and "only" in lowered) or "not running on a rpi" in lowered \
            or "pi revision" in lowered:
        return _("this is not a Raspberry Pi ({problem}): `companion sim` runs the "
                 "simulator, {setting} runs on pretend pins").format(
                     problem=text, setting=f"{ENV_VAR}=mock")
    if isinstance(err, PermissionError) or "permission" in lowered:
        return _("{problem}: add the user to the gpio group ({command})").format(
            problem=text, command=_usermod("gpio"))
    return text or type(err).__name__


def _chip_problem(chip: Path, text: str) -> str:
    """Why lgpio could not open the GPIO chip: lgpio says only 'can not open gpiochip'."""
    try:
        info = chip.stat()
    except FileNotFoundError:
        return _("lgpio cannot open the GPIO chip: there is no {path} (not a Raspberry Pi, "
                 "or a kernel without GPIO character devices)").format(path=chip)
    except OSError as err:
        return _("lgpio cannot open {path}: {problem}").format(path=chip, problem=err)
    if os.access(chip, os.R_OK | os.W_OK):
        return _("lgpio cannot open {path} ({problem}); if the service holds it: "
                 "{command}").format(path=chip, problem=text, command=STOP_SERVICE)
    group = _name(grp.getgrgid, info.st_gid)
    owner = _name(pwd.getpwuid, info.st_uid)
    mode = f"{stat.S_IMODE(info.st_mode):04o}"
    where = _("{path} is {owner}:{group} mode {mode}").format(
        path=chip, owner=owner, group=group, mode=mode)
    if group == "root" or not info.st_mode & stat.S_IWGRP:
        return _("lgpio cannot open {path}: no permission ({where}); give it to the gpio "
                 "group: sudo chgrp gpio {path} && sudo chmod g+rw {path} (Raspberry Pi "
                 "OS's udev rule does this at boot)").format(path=chip, where=where)
    return _("lgpio cannot open {path}: no permission ({where}); {command}").format(
        path=chip, where=where, command=_usermod(group))


def _usermod(group: str) -> str:
    user = os.environ.get("SUDO_USER") or os.environ.get("USER") or "$USER"
    return _("{command}, then log in again").format(
        command=f"sudo usermod -aG {group} {user}")


def _name(lookup: Any, number: int) -> str:
    try:
        return lookup(number)[0]
    except KeyError:
        return str(number)
