"""The app every bench presses: mock pins, the real ssd1306 driver on a recording bus,
a manual clock; each frame handed to the driver is timed (:func:`bench_app`)."""

from __future__ import annotations

import time
from typing import Any


def bench_app(root: Any = None, language: str = "en", config: Any = None,
              voice_options: dict[str, Any] | None = None) -> tuple[Any, Any, list[float]]:
    """An app on mock pins + recording panel, with a manual clock, speaking
    ``language`` (or as ``config`` says); the list gets the perf_counter time of each
    frame handed to the driver. ``voice_options``: the speech bench's speaker."""
    from companion.clock import ManualClock
    from companion.config import Config, Ui
    from companion.device.board import SimBoard
    from companion.device.recording import recording_panel
    from companion.launch import make_app

    clock = ManualClock()
    panel = recording_panel()
    handed: list[float] = []
    driver_display = panel.device.display

    def timed_display(image: Any) -> None:
        driver_display(image)
        handed.append(time.perf_counter())

    panel.device.display = timed_display
    app = make_app(config or Config(ui=Ui(language=language)), board_factory=SimBoard,
                   panel=panel, clock=clock, seed=1, root=root, voice_options=voice_options)
    app.start()
    return app, clock, handed
