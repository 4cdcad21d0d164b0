"""A panel for measuring, not showing: the real ``ssd1306`` driver on a bus that records
every byte instead of sending it over I2C.

The benchmarks (:mod:`companion.bench`) and tests
build their device on it, so a frame goes through exactly the code it would on a Pi.
"""

from __future__ import annotations

from companion.config import Display
from companion.device.display import Panel, RecordingSerial, open_device

__all__ = ["recording_panel"]


def recording_panel() -> Panel:
    """A Panel on the real ssd1306 driver whose bus records the bytes instead of I2C."""
    return Panel(open_device(Display(), serial=RecordingSerial()))
