"""A simulated device with its table page, for the web tests and the README screenshots.

:class:`Device` is the app with its page as Starlette's test client (no socket).

:class:`LiveDevice` runs the real app (mock pins, the real clock, a game log in a
temporary directory) with its owner loop in a thread and the page on a free local
port, exactly as ``companion sim --web`` puts them together (:func:`web_page`).
Nothing here waits for time to pass: presses and commands wait for their answers.
"""

from __future__ import annotations

import os
import random
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from companion.clock import ManualClock, monotonic
from companion.config import Buttons, Config, Dice, Idle
from companion.launch import make_app, web_page
from companion.remote import commands
from companion.remote.web.pairing import Pairing
from companion.remote.web.server import free_port
from companion.remote.web.source import DeviceSource
from companion.sim import sim_board_factory, sim_panel


def quiet_config() -> Config:
    # bounce 0: every edge counts; hold 10 s: a press is never long by accident; no dimming.
    return Config(buttons=Buttons(bounce_time=0.0, hold_time=10.0), idle=Idle(0.0, 0.0, 0.0))


def physical_config() -> Config:
    """:func:`quiet_config` at a table that rolls real dice ([dice] physical = true): the
    faces a test chooses are taken from the page and the console, marked entered."""
    return quiet_config()._replace(dice=Dice(physical=True))


class LiveDevice:
    """``with LiveDevice(tmp_path) as device:`` ... ``device.url``, ``device.press("roll")``."""

    def __init__(self, state_dir: Path, *, seed: int = 1, open_reads: bool = True,
                 port: int | None = None, config: Config | None = None):
        self.app = make_app(config or quiet_config(), board_factory=sim_board_factory,
                            panel=sim_panel(), clock=monotonic, seed=seed, state_dir=state_dir)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.open_reads = open_reads
        self._up = threading.Event()
        self.slot: Any = None
        self._thread = threading.Thread(target=self._run, name="device", daemon=True)

    def _run(self) -> None:
        with web_page(self.app, f"127.0.0.1:{self.port}", open_reads=self.open_reads) as slot:
            self.slot = slot
            self._up.set()
            self.app.run()

    def __enter__(self) -> LiveDevice:
        self._thread.start()
        assert self._up.wait(10)
        self.call(lambda app: None)  # the page starts on the owner thread: it has now
        assert self.slot.server is not None, self.slot.error
        assert self.slot.server.ready.wait(20), "the web server did not start"
        assert self.slot.server.failed is None, self.slot.server.failed
        return self

    def __exit__(self, *exc: object) -> None:
        self.app.quit()
        self._thread.join(20)
        self.app.board.close()
        if self.app.ctx.store is not None:
            self.app.ctx.store.close()

    def call(self, fn: Any, *args: Any, **kw: Any) -> Any:
        """``fn(app, *args)`` on the owner thread, as the serial console and page do."""
        return commands.call(self.app, fn, *args, timeout=20.0, **kw)

    def press(self, button: str) -> None:
        """Press and release a button on the mock pins; returns once the app handled it."""
        self.app.board.press(button)
        self.app.board.release(button)
        self.call(lambda app: None)  # the edges are queued before this: handled first

    def screen(self) -> Any:
        return self.call(lambda app: app.screen)

    def pair_code(self) -> str:
        """Open Settings > Pair a phone with the buttons (from the main menu) and read
        the code it shows."""
        self.press("up")  # the main menu wraps round to its last item, Settings
        self.press("ok")
        self.press("ok")  # Pair a phone
        screen = self.screen()
        assert type(screen).__name__ == "PairScreen", screen
        return screen.code

    def pair_browser(self, page: Any) -> None:
        """Pair a browser page as a person does: type the code the device shows."""
        page.goto(self.url + "/pair")
        page.fill("#code", self.pair_code())
        page.click("#pair button")
        page.wait_for_url(self.url + "/")


class Device:
    """An app with its owner loop in a thread, its page as a TestClient."""

    def __init__(self, state_dir, open_reads: bool = True, config: Config | None = None):
        self.app = make_app(config or quiet_config(), board_factory=sim_board_factory,
                            panel=sim_panel(),
                            clock=monotonic, seed=2, state_dir=state_dir)
        self.clock = ManualClock()
        self.pairing = Pairing(self.clock, random.Random(7))
        self.source = DeviceSource(self.app)
        self.source.attach()
        self.thread = threading.Thread(target=self.app.run, daemon=True)
        self.thread.start()
        from starlette.testclient import TestClient

        from companion.remote.web.asgi import build_app

        self.client = TestClient(build_app(self.source, pairing=self.pairing,
                                           open_reads=open_reads))

    def close(self) -> None:
        self.app.quit()
        self.thread.join(10)
        self.source.detach()
        self.app.board.close()
        self.app.ctx.store.close()

    def pair(self) -> None:
        code, _ = self.pairing.show()
        reply = self.client.post("/api/pair", json={"code": code})
        assert reply.status_code == 200, reply.text

    def state(self) -> dict:
        return self.client.get("/api/state").json()

    def roster(self) -> list[str]:
        return self.client.get("/api/players").json()["roster"]


def qr_decoder() -> Any:
    """zxing-cpp's reader (the [test] extra); the test says loudly when it cannot load,
    and fails under CI (``$CI`` set), which must run it."""
    try:
        import zxingcpp
    except ImportError as missing:
        message = f"QR DECODER NOT AVAILABLE ({missing}): pip install zxing-cpp"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI must run it)")
        print(f"\n*** {message} ***", file=sys.stderr)
        pytest.skip(message)
    return zxingcpp
