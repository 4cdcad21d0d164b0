"""The OLED: luma drivers that send only what changed, built from the config.

Three parts:

* **Page-diffing drivers** :class:`SSD1306`, :class:`SSD1309` and :class:`SH1106`:
  subclasses of luma.oled's drivers whose ``display(image)`` sends only the 8-row pages
  that differ from the previous frame, and within them only the changed column span.
  Stock luma re-sends the whole 1 KiB frame every time; at 400 kHz I2C that is ~25 ms a
  frame, and most UI updates change a few characters.
* :func:`open_device` builds the driver named in ``[display]`` on I2C or SPI (or on a
  serial interface given by the caller, e.g. :class:`RecordingSerial` in tests) and
  turns bus failures into one clear :class:`DisplayError`.
* :class:`Panel` is what the app talks to: show a frame (only if it changed), dim,
  blank, and shift the picture a pixel now and then against burn-in.

>>> from PIL import Image
>>> bus = RecordingSerial()
>>> panel = Panel(open_device(Display(), serial=bus))
>>> frame = Image.new("1", (128, 64))
>>> frame.putpixel((10, 20), 1)
>>> panel.show(frame), panel.show(frame)
(True, False)
>>> bus.clear(); frame.putpixel((11, 20), 1); panel.show(frame)
True
>>> bus.data_bytes  # one byte of one page, not 1024
1

The image stays on the panel when the program exits (``persist = True``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import luma.core.error
import luma.oled.device as oled
from luma.core.interface.serial import i2c as luma_i2c
from luma.core.interface.serial import spi as luma_spi
from PIL import Image

from companion.config import Display
from companion.errors import DisplayError
from companion.lang import _

log = logging.getLogger("companion")

__all__ = [
    "DRIVERS",
    "SH1106",
    "SSD1306",
    "SSD1309",
    "DisplayError",
    "GpiozeroGPIO",
    "Panel",
    "RecordingSerial",
    "open_device",
    "pack_pages",
]


class RecordingSerial:
    """A luma serial interface that records every byte instead of sending it.

    Used by tests and the benchmark in place of I2C. ``log`` holds
    ``("command" | "data", bytes)`` in the order sent.

    >>> bus = RecordingSerial()
    >>> bus.command(0xAE); bus.data([1, 2, 3])
    >>> bus.log, bus.bytes_sent, bus.data_bytes
    ([('command', b'\\xae'), ('data', b'\\x01\\x02\\x03')], 4, 3)
    """

    def __init__(self) -> None:
        self.log: list[tuple[str, bytes]] = []
        self.bytes_sent = 0
        self.data_bytes = 0
        self.closed = False

    def command(self, *cmd: int) -> None:
        """Record a command transaction (opcode and arguments)."""
        self.log.append(("command", bytes(cmd)))
        self.bytes_sent += len(cmd)

    def data(self, data: Iterable[int]) -> None:
        """Record a data transaction (display RAM bytes)."""
        block = bytes(data)
        self.log.append(("data", block))
        self.bytes_sent += len(block)
        self.data_bytes += len(block)

    def cleanup(self) -> None:
        """Nothing to release; remembers that it was called."""
        self.closed = True

    def clear(self) -> None:
        """Forget what was recorded so far (counters too)."""
        self.log.clear()
        self.bytes_sent = self.data_bytes = 0


# Bit-reversal table: PIL packs "1" images MSB-first, the controllers want the top row
# of each 8-row page in the least significant bit.
_REVERSE = bytes(int(f"{i:08b}"[::-1], 2) for i in range(256))


def pack_pages(image: Image.Image) -> list[bytes]:
    """Pack a mode "1" image into controller pages: one ``bytes`` of ``width`` columns
    per 8-row page, bit 0 = the page's top row.

    Done with PIL and ``bytes.translate`` (C loops), not per pixel in Python, because it
    runs on every frame: transposing makes each image column one row of packed bytes.

    >>> img = Image.new("1", (128, 64)); img.putpixel((3, 9), 1)
    >>> pages = pack_pages(img)
    >>> len(pages), len(pages[0]), pages[1][3]
    (8, 128, 2)
    """
    width, height = image.size
    if height % 8:
        raise ValueError(f"height must be a multiple of 8, not {height}")
    per_column = height // 8
    raw = image.transpose(Image.Transpose.TRANSPOSE).tobytes().translate(_REVERSE)
    return [raw[page::per_column] for page in range(per_column)]


def _runs(old: bytes, new: bytes, gap: int) -> list[tuple[int, int]]:
    """Column runs (first, last) where two equal-length pages differ; runs separated by
    at most ``gap`` equal columns are joined (re-sending those costs less than a new
    window would).

    >>> _runs(b"abcdefgh", b"aXcdefYh", gap=2), _runs(b"abcdefgh", b"aXcdefYh", gap=4)
    ([(1, 1), (6, 6)], [(1, 6)])
    """
    if old == new:
        return []
    lo, hi = 0, len(new) - 1
    while old[lo] == new[lo]:  # cheap bounds first: most changes are one small area
        lo += 1
    while old[hi] == new[hi]:
        hi -= 1
    runs = []
    first = last = lo
    for x in range(lo + 1, hi + 1):
        if old[x] != new[x]:
            if x - last - 1 > gap:
                runs.append((first, last))
                first = x
            last = x
    runs.append((first, last))
    return runs


# Dimming sets contrast 0. On SSD13xx contrast alone barely dims, so precharge and
# VCOMH go down too (0xD9 0x11 is the shortest legal precharge, 0xDB 0x00 ~0.65 Vcc);
# undimming restores the configured contrast and luma's init values.
DIM_CONTRAST = 0x00


class _PageDiff:
    """Shared part of the page-diffing drivers (mixed in before the luma class).

    Subclasses send windows with :meth:`_send_window`. ``_sent`` is the controller RAM
    as we last wrote it (None: unknown, send everything).
    """

    # Bytes a window costs besides its data: the addressing command plus the framing of
    # two bus transactions. Decides when to split a page's change into several windows
    # and when to merge neighbouring pages into one.
    _WINDOW_COST = 10  # SSD13xx: 6 command bytes + 2x2 bytes of I2C framing
    _CAN_MERGE = True

    _sent: list[bytes] | None = None
    contrast_level = 0xCF

    # luma declares these on its classes.
    mode: str
    size: tuple[int, int]
    _w: int
    _h: int

    def __init__(
        self,
        serial_interface: Any = None,
        width: int = 128,
        height: int = 64,
        rotate: int = 0,
        **kwargs: Any,
    ):
        self._sent = None  # before luma's __init__, which already displays a blank frame
        super().__init__(serial_interface, width, height, rotate, **kwargs)  # type: ignore[call-arg]

    def invalidate(self) -> None:
        """Forget what the panel holds: the next frame is sent in full."""
        self._sent = None

    def contrast(self, level: int) -> None:
        """Set the contrast (0-255) and remember it, so undimming can restore it."""
        if not 0 <= level <= 255:
            raise ValueError(f"contrast must be from 0 to 255, not {level}")
        self.contrast_level = level
        self.command(self._const.SETCONTRAST, level)  # type: ignore[attr-defined]

    def display(self, image: Image.Image) -> None:
        """Send the parts of ``image`` that differ from the last frame sent."""
        if image.mode != self.mode or image.size != self.size:
            raise ValueError(
                f"the panel takes mode {self.mode!r} {self.size[0]}x{self.size[1]} images, "
                f"not mode {image.mode!r} {image.size[0]}x{image.size[1]}"
            )
        pages = pack_pages(self.preprocess(image))  # type: ignore[attr-defined]
        # While sending, what the panel holds is unknown: if the bus fails mid-frame,
        # _sent stays None and the next frame is sent in full.
        previous, self._sent = self._sent, None
        for first, last, lo, hi in self._plan(previous, pages):
            self._send_window(first, last, lo, hi, pages)
        self._sent = pages

    def _plan(
        self, previous: list[bytes] | None, pages: list[bytes]
    ) -> list[tuple[int, int, int, int]]:
        """Windows (first page, last page, first column, last column) to send."""
        n, full = len(pages), self._w - 1
        if previous is None:
            if self._CAN_MERGE:
                return [(0, n - 1, 0, full)]
            return [(page, page, 0, full) for page in range(n)]
        cost = self._WINDOW_COST
        runs = [_runs(old, new, cost) for old, new in zip(previous, pages, strict=True)]
        alone = [[(p, p, lo, hi) for lo, hi in page_runs] for p, page_runs in enumerate(runs)]
        if not self._CAN_MERGE:
            return [window for windows in alone for window in windows]
        # Cheapest cover of the changes: each page on its own (a window per run), or
        # consecutive pages in one window as wide as the union of their runs (one
        # addressing command; pays off when the same columns change on several pages,
        # as in a full-screen change). Eight pages: a tiny dynamic programme.
        best: list[tuple[int, list[tuple[int, int, int, int]]]] = [(0, [])]
        for end in range(1, n + 1):
            page = end - 1
            spent, windows = best[page]
            own = sum(cost + hi - lo + 1 for _, _, lo, hi in alone[page])
            candidates = [(spent + own, windows + alone[page])]
            lo, hi = self._w, -1
            for start in range(page, -1, -1):
                if not runs[start]:
                    continue  # a window never starts on an unchanged page
                lo, hi = min(lo, runs[start][0][0]), max(hi, runs[start][-1][1])
                spent, windows = best[start]
                merged = spent + cost + (end - start) * (hi - lo + 1)
                candidates.append((merged, [*windows, (start, page, lo, hi)]))
            best.append(min(candidates, key=lambda c: c[0]))
        return best[n][1]

    def _send_window(self, first: int, last: int, lo: int, hi: int, pages: list[bytes]) -> None:
        raise NotImplementedError


class _SSD13xxDiff(_PageDiff):
    """SSD1306/SSD1309: horizontal addressing mode (set by luma's init, 0x20 0x00), so a
    window is a column range (0x21) and a page range (0x22) and the data fills it page
    by page."""

    _colstart: int
    # luma's init values, restored when undimming.
    BRIGHT_PRECHARGE = 0xF1
    BRIGHT_VCOMH = 0x40
    DIM_PRECHARGE = 0x11
    DIM_VCOMH = 0x00

    def _send_window(self, first: int, last: int, lo: int, hi: int, pages: list[bytes]) -> None:
        col = self._colstart
        self.command(0x21, col + lo, col + hi, 0x22, first, last)  # type: ignore[attr-defined]
        data = b"".join(pages[page][lo : hi + 1] for page in range(first, last + 1))
        self.data(list(data))  # type: ignore[attr-defined]

    def set_dim(self, on: bool) -> None:
        """Dim (contrast, precharge and VCOMH down) or restore the configured levels."""
        if on:
            self.command(0x81, DIM_CONTRAST, 0xD9, self.DIM_PRECHARGE, 0xDB, self.DIM_VCOMH)  # type: ignore[attr-defined]
        else:
            self.command(  # type: ignore[attr-defined]
                0x81, self.contrast_level, 0xD9, self.BRIGHT_PRECHARGE, 0xDB, self.BRIGHT_VCOMH
            )


class SSD1306(_SSD13xxDiff, oled.ssd1306):
    """luma's SSD1306 driver, sending only the changed part of each frame.

    >>> bus = RecordingSerial()
    >>> device = SSD1306(bus)
    >>> bus.clear(); device.display(Image.new("1", (128, 64))); bus.log
    []
    """


class SSD1309(_SSD13xxDiff, oled.ssd1309):
    """luma's SSD1309 driver (SSD1306 command set), sending only what changed."""


class SH1106(_PageDiff, oled.sh1106):
    """luma's SH1106 driver, sending only what changed.

    The SH1106 has 132 columns of RAM with the 128 visible ones starting at column 2,
    and only page addressing: each window is one page, addressed with 0xB0+page and
    the column's low and high nibbles (0x00-0x0F, 0x10-0x1F), and data fills that page.
    """

    _CAN_MERGE = False
    _WINDOW_COST = 7  # 3 command bytes + 2x2 bytes of I2C framing

    def __init__(self, *args: Any, page_address_offset: int = 0x02, **kwargs: Any):
        # The panel's 128 visible columns start at RAM column 2 (luma's own default).
        super().__init__(*args, page_address_offset=page_address_offset, **kwargs)

    def _send_window(self, first: int, last: int, lo: int, hi: int, pages: list[bytes]) -> None:
        column = self._page_address_offset + lo  # type: ignore[attr-defined]
        for page in range(first, last + 1):
            self.command(0xB0 | page, column & 0x0F, 0x10 | (column >> 4))  # type: ignore[attr-defined]
            self.data(list(pages[page][lo : hi + 1]))  # type: ignore[attr-defined]

    def set_dim(self, on: bool) -> None:
        """Dim (contrast down) or restore the configured contrast."""
        self.command(0x81, DIM_CONTRAST if on else self.contrast_level)  # type: ignore[attr-defined]


DRIVERS: dict[str, type[_PageDiff]] = {"ssd1306": SSD1306, "sh1106": SH1106, "ssd1309": SSD1309}


class GpiozeroGPIO:
    """The slice of the RPi.GPIO API that luma's SPI interface uses for its DC and RST
    pins, on gpiozero output devices, so the pin factory stays gpiozero's choice (and a
    MockFactory in tests) and nothing imports RPi.GPIO.

    >>> from gpiozero.pins.mock import MockFactory
    >>> gpio = GpiozeroGPIO(MockFactory())
    >>> gpio.setup(24, gpio.OUT); gpio.output(24, gpio.HIGH)
    >>> gpio.pins[24].value
    1
    >>> gpio.cleanup()
    """

    BCM = 11
    OUT = 0
    IN = 1
    LOW = 0
    HIGH = 1

    def __init__(self, pin_factory: Any = None):
        self.pin_factory = pin_factory
        self.pins: dict[int, Any] = {}

    def setmode(self, mode: int) -> None:
        """Accepted for compatibility; pins are always BCM numbers."""

    def setup(self, pin: int, mode: int, **kwargs: Any) -> None:
        """Claim ``pin`` as an output (the only direction luma asks for)."""
        from gpiozero import DigitalOutputDevice

        if mode != self.OUT:
            raise ValueError("only outputs are supported")
        if pin not in self.pins:
            self.pins[pin] = DigitalOutputDevice(pin, pin_factory=self.pin_factory)

    def output(self, pin: int, value: int) -> None:
        """Drive ``pin`` high or low."""
        self.pins[pin].value = 1 if value else 0

    def cleanup(self, pins: int | Sequence[int] | None = None) -> None:
        """Release ``pins`` (all when None)."""
        if pins is None:
            chosen = list(self.pins)
        elif isinstance(pins, int):
            chosen = [pins]
        else:
            chosen = list(pins)
        for pin in chosen:
            device = self.pins.pop(pin, None)
            if device is not None:
                device.close()


_BUS_ERRORS = (luma.core.error.Error, OSError, ImportError)


def _where(display: Display) -> str:
    if display.interface == "spi":
        return _("SPI {port}.{device} (DC on GPIO{dc}, RST on GPIO{reset})").format(
            port=display.spi_port, device=display.spi_device, dc=display.gpio_dc,
            reset=display.gpio_reset)
    return _("{address} on I2C bus {port}").format(
        address=f"0x{display.i2c_address:02X}", port=display.i2c_port)


def _not_answering(where: str, err: BaseException) -> str:
    """``no display answers at WHERE: ERROR``, with what may fix it when that is known."""
    text = str(err)
    if isinstance(err, luma.core.error.DevicePermissionError) or "ermission" in text:
        hint = _("is this user in the i2c/spi/gpio groups?")
    elif isinstance(err, ImportError):
        hint = _("a Python package for the bus is missing")
    elif "/dev/" in text or isinstance(err, FileNotFoundError):
        hint = _("is the bus enabled in the boot config?")
    else:
        return _("no display answers at {where}: {problem}").format(where=where, problem=err)
    return _("no display answers at {where}: {problem} ({hint})").format(
        where=where, problem=err, hint=hint)


def _open_interface(display: Display, pin_factory: Any) -> Any:
    if display.interface == "i2c":
        return luma_i2c(port=display.i2c_port, address=display.i2c_address)
    gpio = GpiozeroGPIO(pin_factory)
    try:
        return luma_spi(
            gpio=gpio,
            port=display.spi_port,
            device=display.spi_device,
            gpio_DC=display.gpio_dc,
            gpio_RST=display.gpio_reset,
        )
    except BaseException:
        gpio.cleanup()
        raise


def open_device(display: Display, serial: Any = None, pin_factory: Any = None) -> Any:
    """Build the page-diffing driver the ``[display]`` config names.

    ``serial`` replaces the I2C/SPI interface (tests pass a :class:`RecordingSerial`);
    ``pin_factory`` is the gpiozero factory for the SPI DC/RST pins (None: gpiozero's
    choice). The device keeps its picture when the program exits (``persist``).

    >>> device = open_device(Display(driver="sh1106", contrast=100), serial=RecordingSerial())
    >>> type(device).__name__, device.contrast_level, device.persist
    ('SH1106', 100, True)

    Raises :class:`DisplayError` when the bus or the panel does not answer, e.g.
    ``no display answers at 0x3C on I2C bus 1: I2C device not found: /dev/i2c-1``.
    """
    try:
        driver = DRIVERS[display.driver]
    except KeyError:
        raise DisplayError(_("unknown display driver {driver} (drivers: {drivers})").format(
            driver=repr(display.driver), drivers=", ".join(DRIVERS))) from None
    where = _where(display)
    if serial is None:
        try:
            serial = _open_interface(display, pin_factory)
        except _BUS_ERRORS as err:
            raise DisplayError(_not_answering(where, err)) from err
        except Exception as err:  # gpiozero refusing the DC/RST pins
            raise DisplayError(_("cannot open the display pins for {where}: {problem}").format(
                where=where, problem=err)) from err
    try:
        # The init sequence is the first traffic, so a missing panel fails here.
        device: Any = driver(serial, rotate=display.rotate)  # type: ignore[call-arg]
        device.contrast(display.contrast)
    except _BUS_ERRORS as err:
        try:
            serial.cleanup()
        except Exception:  # noqa: BLE001 - the first error is the one worth reporting
            pass
        raise DisplayError(_not_answering(where, err)) from err
    device.persist = True
    return device


class Panel:
    """The display as the app sees it: frames, dimming, blanking, pixel shift.

    ``show`` sends only frames that differ from the last one shown (and the driver then
    sends only the pages that differ). ``shift`` moves the picture by one pixel around a
    small square, so static pixels (a score's digits) do not burn in; keep a one-pixel
    margin on the right and bottom of screens, which the shift can push off the panel.

    >>> panel = Panel(open_device(Display(), serial=RecordingSerial()))
    >>> panel.shift(); panel.offset
    (1, 0)
    """

    SHIFTS = ((0, 0), (1, 0), (1, 1), (0, 1))
    #: Seconds between attempts to reach a display that stopped answering.
    RETRY_EVERY = 3.0

    def __init__(self, device: Any, reopen: Callable[[], Any] | None = None):
        self.device = device
        #: Builds the device anew when the display comes back (None: retry in place).
        self.reopen = reopen
        self.frames_sent = 0
        self.last_image: Image.Image | None = None
        self.dimmed = False
        self.blanked = False
        #: True while the display does not answer (a loose cable, I2C errors): frames
        #: are still taken and the newest is sent when :meth:`retry` reaches it again.
        self.lost = False
        self._shift = 0
        self._last_bytes: bytes | None = None

    def _talk(self, action: Callable[[], Any]) -> bool:
        """Run one exchange with the display; a bus error marks it lost (logged once)."""
        if self.lost:
            return False
        try:
            action()
        except (OSError, DisplayError, luma.core.error.Error) as err:
            self.lost = True
            log.error("the display stopped answering (%s); the game goes on, retrying every "
                      "%g s", err, self.RETRY_EVERY)
            return False
        return True

    def retry(self) -> bool:
        """Try to reach a lost display again; on success re-send everything (the panel
        may have lost power and its settings). Returns whether it is back."""
        if not self.lost:
            return True
        try:
            if self.reopen is not None:
                self.device = self.reopen()
            invalidate = getattr(self.device, "invalidate", None)
            if invalidate is not None:
                invalidate()
            self.lost = False
            self._restore()
        except (OSError, DisplayError, luma.core.error.Error):
            self.lost = True
            return False
        if self.lost:  # it failed again while being restored
            return False
        log.error("the display answers again")
        return True

    def _restore(self) -> None:
        was_dimmed, was_blanked = self.dimmed, self.blanked
        self.dimmed = self.blanked = False
        if was_blanked:
            self.blank(True)
        if was_dimmed:
            self.dim(True)
        self._send()

    @classmethod
    def absent(cls, reopen: Callable[[], Any]) -> Panel:
        """A panel whose display did not answer at start: it takes frames like any
        other, and :meth:`retry` reaches for the display every few seconds."""
        panel = cls(None, reopen)
        panel.lost = True
        return panel

    @property
    def size(self) -> tuple[int, int]:
        """The frame size ``show`` takes (128x64, or 64x128 when rotated a quarter)."""
        if self.device is None:
            return (128, 64)
        return tuple(self.device.size)  # type: ignore[return-value]

    @property
    def offset(self) -> tuple[int, int]:
        """The current pixel shift (dx, dy)."""
        return self.SHIFTS[self._shift]

    @property
    def bytes_sent(self) -> int | None:
        """Bytes sent over the bus so far, if the interface counts them (else None)."""
        return getattr(getattr(self.device, "_serial_interface", None), "bytes_sent", None)

    def show(self, image: Image.Image) -> bool:
        """Show a frame; returns whether anything was sent (False: same as last time)."""
        if image.size != self.size:
            raise ValueError(
                f"frames are {self.size[0]}x{self.size[1]}, not {image.size[0]}x{image.size[1]}"
            )
        if image.mode != "1":
            image = image.convert("1")
        data = image.tobytes()
        if data == self._last_bytes:
            return False
        self.last_image = image.copy()  # the caller may keep drawing on its image
        self._last_bytes = data
        self._send()
        return True

    def _send(self) -> None:
        if self.last_image is None:
            return
        dx, dy = self.offset
        frame = self.last_image
        if dx or dy:
            frame = Image.new("1", self.size)
            frame.paste(self.last_image, (dx, dy))
        if self._talk(lambda: self.device.display(frame)):
            self.frames_sent += 1

    def shift(self) -> None:
        """Move the picture to the next offset of the cycle and re-send it."""
        self._shift = (self._shift + 1) % len(self.SHIFTS)
        self._send()

    def redraw(self) -> None:
        """Re-send the whole current frame (e.g. after the panel lost power)."""
        invalidate = getattr(self.device, "invalidate", None)
        if invalidate is not None:
            invalidate()
        self._send()

    def dim(self, on: bool) -> None:
        """Dim the panel for idle times (or restore the configured brightness)."""
        if on == self.dimmed:
            return
        self.dimmed = on
        set_dim = getattr(self.device, "set_dim", None)
        if set_dim is not None:
            self._talk(lambda: set_dim(on))
        else:  # a stock luma device: contrast is all it offers
            self._talk(lambda: self.device.contrast(DIM_CONTRAST if on else 0xCF))

    def blank(self, on: bool) -> None:
        """Switch the panel off (its RAM and our frame are kept) or back on."""
        if on == self.blanked:
            return
        self.blanked = on
        self._talk(lambda: self.device.hide() if on else self.device.show())

    def close(self) -> None:
        """Release the bus; the picture stays on the panel (``persist``)."""
        if self.device is None:
            return
        try:
            self.device.cleanup()
        except (OSError, luma.core.error.Error):
            pass  # a display that is gone has nothing left to release
