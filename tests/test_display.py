"""The display: page-diffing drivers checked against a tiny fake controller that
interprets the recorded command stream, open_device from config, and the Panel."""

from __future__ import annotations

import doctest
import errno
import random

import luma.oled.device as stock
import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st
from luma.core.device import dummy
from luma.core.interface.serial import i2c as luma_i2c
from luma.core.interface.serial import spi as luma_spi
from PIL import Image, ImageDraw

from companion.config import Display
from companion.device import display as display_module
from companion.device.display import (
    DRIVERS,
    SH1106,
    SSD1306,
    SSD1309,
    GpiozeroGPIO,
    Panel,
    RecordingSerial,
    open_device,
    pack_pages,
)
from companion.errors import CompanionError, DisplayError

SIZE = (128, 64)

# luma's stock drivers (compared against here) still call Image.getdata; ours do not.
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")


class FakeController:
    """Display RAM of an SSD1306/SSD1309 or SH1106, driven by the bytes a driver sent.

    Only what the tests need, but faithful where it matters: the SSD13xx starts in page
    addressing mode (its reset default) and follows 0x20 memory mode, 0x21/0x22 windows
    with wrap-around in horizontal mode; the SH1106 has 132 columns, only page
    addressing, and shows columns 2..129. Command arguments are consumed by count so an
    argument is never mistaken for an address command. RAM starts as garbage so a driver
    that forgets to write something is caught.
    """

    SSD_ARGS = {
        0x20: 1,
        0x21: 2,
        0x22: 2,
        0x26: 6,
        0x27: 6,
        0x29: 5,
        0x2A: 5,
        0x81: 1,
        0x8D: 1,
        0xA3: 2,
        0xA8: 1,
        0xD3: 1,
        0xD5: 1,
        0xD9: 1,
        0xDA: 1,
        0xDB: 1,
    }
    SH_ARGS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}

    def __init__(self, kind: str):
        self.kind = kind
        self.columns, self.offset = (132, 2) if kind == "sh1106" else (128, 0)
        self.ram = [bytearray([0xA5] * self.columns) for _ in range(8)]
        self.horizontal = False
        self.col_lo, self.col_hi, self.page_lo, self.page_hi = 0, 127, 0, 7
        self.col = self.page = 0
        self.on = False
        self.regs: dict[int, int] = {}

    def run(self, log: list[tuple[str, bytes]]) -> FakeController:
        for kind, payload in log:
            if kind == "command":
                self.command(payload)
            else:
                for byte in payload:
                    self.write(byte)
        return self

    def command(self, payload: bytes) -> None:
        args = self.SH_ARGS if self.kind == "sh1106" else self.SSD_ARGS
        i = 0
        while i < len(payload):
            op = payload[i]
            n = args.get(op, 0)
            operands = payload[i + 1 : i + 1 + n]
            assert len(operands) == n, f"command {op:#x} cut short in {payload.hex()}"
            self.execute(op, operands)
            i += 1 + n

    def execute(self, op: int, a: bytes) -> None:
        if op in (0xAE, 0xAF):
            self.on = op == 0xAF
        elif op in (0x81, 0xD9, 0xDB):
            self.regs[op] = a[0]
        elif self.kind != "sh1106" and op == 0x20:
            assert a[0] in (0, 1, 2)
            self.horizontal = a[0] == 0
        elif self.kind != "sh1106" and op == 0x21:
            self.col_lo, self.col_hi = a[0], a[1]
            self.col = a[0]
        elif self.kind != "sh1106" and op == 0x22:
            self.page_lo, self.page_hi = a[0], a[1]
            self.page = a[0]
        elif 0xB0 <= op <= 0xB7:
            self.page = op - 0xB0
        elif op <= 0x0F:
            self.col = (self.col & 0xF0) | op
        elif 0x10 <= op <= 0x1F:
            self.col = (self.col & 0x0F) | ((op & 0x0F) << 4)

    def write(self, byte: int) -> None:
        assert self.col < self.columns, "write past the last column"
        self.ram[self.page][self.col] = byte
        if self.kind != "sh1106" and self.horizontal:
            self.col += 1
            if self.col > self.col_hi:
                self.col = self.col_lo
                self.page = self.page_lo if self.page >= self.page_hi else self.page + 1
        else:
            self.col = min(self.col + 1, self.columns - 1)

    def image(self) -> Image.Image:
        img = Image.new("1", SIZE)
        px = img.load()
        for y in range(64):
            for x in range(128):
                px[x, y] = (self.ram[y // 8][x + self.offset] >> (y % 8)) & 1
        return img


def same(a: Image.Image, b: Image.Image) -> bool:
    return a.convert("1").tobytes() == b.convert("1").tobytes()


def random_image(rng: random.Random) -> Image.Image:
    return Image.frombytes("1", SIZE, rng.randbytes(SIZE[0] * SIZE[1] // 8))


def test_doctests() -> None:
    assert doctest.testmod(display_module).failed == 0


# --- the model itself, checked against luma's stock drivers -----------------------


@pytest.mark.parametrize("name", ["ssd1306", "sh1106", "ssd1309"])
def test_fake_controller_agrees_with_stock_luma(name: str) -> None:
    bus = RecordingSerial()
    device = getattr(stock, name)(bus)
    image = random_image(random.Random(1))
    device.display(image)
    assert same(FakeController(name).run(bus.log).image(), image)


def test_pack_pages_layout() -> None:
    img = Image.new("1", SIZE)
    img.putpixel((0, 0), 1)
    img.putpixel((127, 63), 1)
    img.putpixel((5, 10), 1)
    pages = pack_pages(img)
    assert pages[0][0] == 0x01 and pages[7][127] == 0x80 and pages[1][5] == 0x04
    assert sum(map(sum, pages)) == 0x01 + 0x80 + 0x04
    with pytest.raises(ValueError):
        pack_pages(Image.new("1", (8, 12)))


# --- page-diffing drivers: the panel always holds the last frame ------------------

DRIVER_CASES = [("ssd1306", SSD1306), ("sh1106", SH1106), ("ssd1309", SSD1309)]

frame_op = st.one_of(
    st.tuples(
        st.just("rect"),
        st.integers(0, 127),
        st.integers(0, 63),
        st.integers(0, 40),
        st.integers(0, 20),
        st.integers(0, 1),
    ),
    st.tuples(st.just("pixel"), st.integers(0, 127), st.integers(0, 63)),
    st.tuples(
        st.just("text"), st.integers(0, 120), st.integers(0, 56), st.text("0123AB", max_size=6)
    ),
    st.tuples(st.just("random"), st.integers(0, 2**32)),
    st.tuples(st.just("same")),
    st.tuples(st.just("invalidate")),
    st.tuples(st.just("dim"), st.booleans()),
)


@pytest.mark.parametrize(("name", "driver"), DRIVER_CASES)
@settings(max_examples=60, deadline=None)
@given(ops=st.lists(frame_op, min_size=1, max_size=12))
def test_panel_ram_equals_every_frame(name: str, driver: type, ops: list) -> None:
    bus = RecordingSerial()
    device = driver(bus)
    frame = Image.new("1", SIZE)
    for op in ops:
        frame = frame.copy()
        draw = ImageDraw.Draw(frame)
        if op[0] == "rect":
            _, x, y, w, h, fill = op
            draw.rectangle((x, y, min(127, x + w), min(63, y + h)), fill=fill)
        elif op[0] == "pixel":
            frame.putpixel(op[1:], 1 - frame.getpixel(op[1:]))
        elif op[0] == "text":
            draw.text(op[1:3], op[3], fill=1)
        elif op[0] == "random":
            frame = random_image(random.Random(op[1]))
        elif op[0] == "invalidate":
            device.invalidate()
        elif op[0] == "dim":
            device.set_dim(op[1])
        device.display(frame)
        assert same(FakeController(name).run(bus.log).image(), frame), op


@pytest.mark.parametrize(("name", "driver"), DRIVER_CASES)
@pytest.mark.parametrize("rotate", [1, 2, 3])
def test_rotation_goes_through_luma_preprocess(name: str, driver: type, rotate: int) -> None:
    bus = RecordingSerial()
    device = driver(bus, rotate=rotate)
    rng = random.Random(rotate)
    for _ in range(3):
        frame = Image.frombytes("1", device.size, rng.randbytes(1024))
        device.display(frame)
        assert same(FakeController(name).run(bus.log).image(), device.preprocess(frame))


@pytest.mark.parametrize(("name", "driver"), DRIVER_CASES)
def test_unchanged_frame_sends_nothing_unlike_stock(name: str, driver: type) -> None:
    frame = random_image(random.Random(7))
    ours_bus, stock_bus = RecordingSerial(), RecordingSerial()
    ours, theirs = driver(ours_bus), getattr(stock, name)(stock_bus)
    ours.display(frame)
    theirs.display(frame)
    ours_bus.clear()
    stock_bus.clear()
    ours.display(frame)
    theirs.display(frame)
    assert ours_bus.data_bytes == 0 and ours_bus.log == []
    assert stock_bus.data_bytes == 1024


@pytest.mark.parametrize(("name", "driver"), DRIVER_CASES)
def test_first_frame_and_invalidate_send_everything(name: str, driver: type) -> None:
    bus = RecordingSerial()
    device = driver(bus)
    assert bus.data_bytes == 1024  # luma's init clears the panel through our display()
    device.display(Image.new("1", SIZE, 1))
    frame = random_image(random.Random(3))
    device.invalidate()
    mark = len(bus.log)
    device.display(frame)
    assert sum(len(payload) for kind, payload in bus.log[mark:] if kind == "data") == 1024
    assert same(FakeController(name).run(bus.log).image(), frame)


def test_ssd1306_one_pixel_is_one_byte_in_one_window() -> None:
    bus = RecordingSerial()
    device = SSD1306(bus)
    frame = Image.new("1", SIZE)
    frame.putpixel((70, 33), 1)
    bus.clear()
    device.display(frame)
    assert bus.log == [("command", bytes([0x21, 70, 70, 0x22, 4, 4])), ("data", b"\x02")]


def test_sh1106_addresses_with_the_column_offset() -> None:
    bus = RecordingSerial()
    device = SH1106(bus)
    frame = Image.new("1", SIZE)
    frame.putpixel((70, 33), 1)
    bus.clear()
    device.display(frame)
    column = 70 + 2
    assert bus.log == [
        ("command", bytes([0xB4, column & 0x0F, 0x10 | column >> 4])),
        ("data", b"\x02"),
    ]


def test_ssd13xx_merges_pages_when_cheaper_sh1106_cannot() -> None:
    frame = Image.new("1", SIZE)
    ImageDraw.Draw(frame).line((5, 0, 5, 63), fill=1)  # one column through every page
    ssd_bus, sh_bus = RecordingSerial(), RecordingSerial()
    ssd, sh = SSD1306(ssd_bus), SH1106(sh_bus)
    ssd_bus.clear()
    sh_bus.clear()
    ssd.display(frame)
    sh.display(frame)
    assert [kind for kind, _ in ssd_bus.log] == ["command", "data"]
    assert ssd_bus.log[0][1] == bytes([0x21, 5, 5, 0x22, 0, 7])
    assert ssd_bus.data_bytes == 8
    assert [kind for kind, _ in sh_bus.log] == ["command", "data"] * 8
    assert sh_bus.data_bytes == 8


@pytest.mark.parametrize(("name", "driver"), DRIVER_CASES)
def test_far_apart_changes_in_a_page_are_separate_windows(name: str, driver: type) -> None:
    bus = RecordingSerial()
    device = driver(bus)
    frame = Image.new("1", SIZE)
    frame.putpixel((3, 20), 1)
    frame.putpixel((120, 20), 1)  # same page, 116 unchanged columns apart
    frame.putpixel((60, 21), 1)
    frame.putpixel((64, 21), 1)  # 3 unchanged columns apart: cheaper to resend them
    mark = len(bus.log)
    device.display(frame)
    sent = bus.log[mark:]
    assert [len(payload) for kind, payload in sent if kind == "data"] == [1, 5, 1]
    assert same(FakeController(name).run(bus.log).image(), frame)


def test_changed_span_only() -> None:
    bus = RecordingSerial()
    device = SSD1309(bus)
    frame = Image.new("1", SIZE)
    ImageDraw.Draw(frame).rectangle((40, 8, 59, 15), fill=1)  # page 1, columns 40-59
    bus.clear()
    device.display(frame)
    assert bus.data_bytes == 20


def test_bus_error_mid_frame_forces_a_full_resend() -> None:
    class Flaky(RecordingSerial):
        fail = False

        def data(self, data):
            if self.fail:
                raise OSError(errno.EREMOTEIO, "remote I/O error")
            super().data(data)

    bus = Flaky()
    device = SSD1306(bus)
    bus.fail = True
    with pytest.raises(OSError):
        device.display(random_image(random.Random(1)))
    bus.fail = False
    bus.clear()
    frame = random_image(random.Random(2))
    device.display(frame)
    assert bus.data_bytes == 1024


def test_wrong_frame_is_refused() -> None:
    device = SSD1306(RecordingSerial())
    with pytest.raises(ValueError, match="128x64"):
        device.display(Image.new("1", (64, 32)))
    with pytest.raises(ValueError):
        device.display(Image.new("L", SIZE))


def test_contrast_is_remembered_and_checked() -> None:
    bus = RecordingSerial()
    device = SSD1306(bus)
    device.contrast(42)
    assert device.contrast_level == 42 and bus.log[-1] == ("command", bytes([0x81, 42]))
    with pytest.raises(ValueError):
        device.contrast(256)


# --- open_device -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["ssd1306", "sh1106", "ssd1309"])
def test_open_device_builds_the_configured_driver(name: str) -> None:
    bus = RecordingSerial()
    device = open_device(Display(driver=name, rotate=2, contrast=99), serial=bus)
    assert type(device) is DRIVERS[name]
    assert device.persist is True
    assert device.rotate == 2
    assert device.contrast_level == 99
    assert FakeController(name).run(bus.log).regs[0x81] == 99
    device.cleanup()
    assert bus.closed
    assert FakeController(name).run(bus.log).on  # persist: cleanup did not switch it off


def test_open_device_unknown_driver() -> None:
    with pytest.raises(DisplayError, match="unknown display driver 'st7735'"):
        open_device(Display(driver="st7735"), serial=RecordingSerial())


def test_missing_i2c_bus_is_a_clear_display_error() -> None:
    with pytest.raises(DisplayError, match=r"no display answers at 0x3D on I2C bus 97: ") as info:
        open_device(Display(i2c_port=97, i2c_address=0x3D))
    assert isinstance(info.value, CompanionError)


class NobodyHome:
    """An smbus bus on which no device acknowledges."""

    closed = False

    def write_i2c_block_data(self, *args):
        raise OSError(errno.EREMOTEIO, "Remote I/O error")

    def close(self):
        self.closed = True


def test_no_panel_at_the_address(monkeypatch: pytest.MonkeyPatch) -> None:
    bus = NobodyHome()
    monkeypatch.setattr(
        display_module, "luma_i2c", lambda port, address: luma_i2c(bus=bus, address=address)
    )
    with pytest.raises(DisplayError) as info:
        open_device(Display())
    message = str(info.value)
    assert message.startswith("no display answers at 0x3C on I2C bus 1: ")
    assert "I2C device not found on address: 0x3C" in message


def test_serial_failing_during_init_is_cleaned_up() -> None:
    class Dead(RecordingSerial):
        def command(self, *cmd):
            raise OSError(errno.EIO, "I/O error")

    bus = Dead()
    with pytest.raises(DisplayError, match="I/O error"):
        open_device(Display(), serial=bus)
    assert bus.closed


class FakeSpiDev:
    """spidev.SpiDev stand-in that records each write with the DC pin's level."""

    def __init__(self, dc_pin):
        self.dc_pin = dc_pin
        self.opened = None
        self.log: list[tuple[str, bytes]] = []
        self.mode = 0
        self.max_speed_hz = 0

    def open(self, port, device):
        self.opened = (port, device)

    def writebytes(self, data):
        self.log.append(("data" if self.dc_pin.state else "command", bytes(data)))

    def close(self):
        self.opened = None


def test_spi_display_through_gpiozero_pins(
    mock_factory: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    spidev = FakeSpiDev(mock_factory.pin(24))
    monkeypatch.setattr(luma_spi, "__spidev__", lambda self: spidev)
    config = Display(interface="spi", spi_port=0, spi_device=1, gpio_dc=24, gpio_reset=25)
    device = open_device(config, pin_factory=mock_factory)
    assert spidev.opened == (0, 1)
    reset = [state for _, state in mock_factory.pin(25).states]
    assert reset[-2:] == [False, True]  # luma pulsed RST low, then released it
    frame = random_image(random.Random(5))
    device.display(frame)
    assert same(FakeController("ssd1306").run(spidev.log).image(), frame)
    device.cleanup()


def test_spi_without_spidev_releases_the_pins(
    mock_factory: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(self):
        raise ModuleNotFoundError("No module named 'spidev'")

    monkeypatch.setattr(luma_spi, "__spidev__", missing)
    with pytest.raises(DisplayError, match=r"SPI 0\.0 \(DC on GPIO24, RST on GPIO25\)"):
        open_device(Display(interface="spi"), pin_factory=mock_factory)
    gpio = GpiozeroGPIO(mock_factory)  # the DC/RST pins are free again
    gpio.setup(24, gpio.OUT)
    gpio.setup(25, gpio.OUT)
    gpio.cleanup([24, 25])
    assert gpio.pins == {}


def test_gpio_adapter(mock_factory: MockFactory) -> None:
    gpio = GpiozeroGPIO(mock_factory)
    gpio.setmode(gpio.BCM)
    gpio.setup(24, gpio.OUT)
    gpio.output(24, gpio.HIGH)
    assert mock_factory.pin(24).state
    gpio.output(24, gpio.LOW)
    assert not mock_factory.pin(24).state
    with pytest.raises(ValueError):
        gpio.setup(23, gpio.IN)
    gpio.cleanup(24)
    assert gpio.pins == {}


# --- Panel -----------------------------------------------------------------------


def make_panel(name: str = "ssd1306", **config) -> tuple[Panel, RecordingSerial]:
    bus = RecordingSerial()
    panel = Panel(open_device(Display(driver=name, **config), serial=bus))
    bus.clear()
    return panel, bus


def screen(rng_seed: int = 0) -> Image.Image:
    frame = Image.new("1", SIZE)
    draw = ImageDraw.Draw(frame)
    draw.rectangle((10, 10, 60, 40), outline=1)
    draw.text((70, 20), f"{rng_seed:03d}", fill=1)
    return frame


def test_panel_only_sends_on_change() -> None:
    panel, bus = make_panel()
    assert panel.frames_sent == 0 and panel.last_image is None
    frame = screen(1)
    assert panel.show(frame) is True
    sent = panel.bytes_sent
    assert sent == bus.bytes_sent and sent > 0
    assert panel.show(frame.copy()) is False
    assert panel.bytes_sent == sent and panel.frames_sent == 1
    assert panel.show(screen(2)) is True
    assert panel.frames_sent == 2
    assert same(panel.last_image, screen(2))


def test_panel_keeps_its_own_copy() -> None:
    panel, _ = make_panel()
    frame = screen(1)
    panel.show(frame)
    ImageDraw.Draw(frame).rectangle((0, 0, 127, 63), fill=1)  # caller draws on
    assert same(panel.last_image, screen(1))
    assert panel.show(frame) is True


def test_panel_converts_other_modes_and_checks_size() -> None:
    panel, bus = make_panel()
    grey = Image.new("L", SIZE)
    grey.putpixel((3, 3), 255)
    assert panel.show(grey)
    assert panel.last_image.mode == "1"
    with pytest.raises(ValueError, match="frames are 128x64"):
        panel.show(Image.new("1", (64, 128)))


def test_panel_rotated_a_quarter_takes_portrait_frames() -> None:
    panel, bus = make_panel(rotate=1)
    assert panel.size == (64, 128)
    assert panel.show(Image.new("1", (64, 128), 1))


@pytest.mark.parametrize("name", ["ssd1306", "ssd1309"])
def test_dim_on_ssd13xx_lowers_contrast_precharge_and_vcomh(name: str) -> None:
    panel, bus = make_panel(name, contrast=180)
    panel.dim(True)
    regs = FakeController(name).run(bus.log).regs
    assert regs == {0x81: 0x00, 0xD9: 0x11, 0xDB: 0x00}
    assert panel.dimmed
    panel.dim(True)  # already dim: nothing sent
    assert len(bus.log) == 1
    panel.dim(False)
    regs = FakeController(name).run(bus.log).regs
    assert regs == {0x81: 180, 0xD9: 0xF1, 0xDB: 0x40}
    assert not panel.dimmed


def test_dim_on_sh1106_is_contrast_only() -> None:
    panel, bus = make_panel("sh1106", contrast=150)
    panel.dim(True)
    assert bus.log == [("command", bytes([0x81, 0x00]))]
    panel.dim(False)
    assert bus.log[-1] == ("command", bytes([0x81, 150]))


def test_dim_on_a_stock_luma_device_uses_contrast() -> None:
    device = dummy(mode="1")
    panel = Panel(device)
    panel.dim(True)
    panel.dim(False)
    panel.show(screen())
    assert same(device.image, screen())


def test_blank_switches_the_panel_off_and_on() -> None:
    panel, bus = make_panel()
    panel.show(screen())
    panel.blank(True)
    assert bus.log[-1] == ("command", b"\xae") and panel.blanked
    panel.blank(True)
    assert bus.log.count(("command", b"\xae")) == 1
    panel.blank(False)
    assert bus.log[-1] == ("command", b"\xaf") and not panel.blanked


@pytest.mark.parametrize("name", ["ssd1306", "sh1106", "ssd1309"])
def test_shift_moves_the_picture_around_a_square(name: str) -> None:
    bus = RecordingSerial()
    panel = Panel(open_device(Display(driver=name), serial=bus))
    frame = screen(5)
    panel.show(frame)
    seen = []
    for _ in range(4):
        panel.shift()
        dx, dy = panel.offset
        seen.append((dx, dy))
        expected = Image.new("1", SIZE)
        expected.paste(frame, (dx, dy))
        assert same(FakeController(name).run(bus.log).image(), expected)
    assert seen == [(1, 0), (1, 1), (0, 1), (0, 0)]
    assert panel.frames_sent == 5
    assert same(panel.last_image, frame)  # the app's frame, unshifted


def test_shift_applies_to_later_frames_and_before_any_frame() -> None:
    bus = RecordingSerial()
    panel = Panel(open_device(Display(), serial=bus))
    mark = len(bus.log)
    panel.shift()  # nothing shown yet: nothing to send
    assert len(bus.log) == mark and panel.frames_sent == 0
    panel.show(screen(1))
    expected = Image.new("1", SIZE)
    expected.paste(screen(1), (1, 0))
    assert same(FakeController("ssd1306").run(bus.log).image(), expected)


def test_redraw_resends_the_whole_frame() -> None:
    panel, bus = make_panel()
    panel.show(screen(1))
    bus.clear()
    panel.redraw()
    assert bus.data_bytes == 1024


def test_close_keeps_the_picture() -> None:
    panel, bus = make_panel()
    panel.show(screen(1))
    panel.close()
    assert bus.closed
    assert ("command", b"\xae") not in bus.log
