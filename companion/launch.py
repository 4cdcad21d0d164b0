"""Putting an app together: context, board, panel and the first screen.

The real device, the terminal simulator and the script runner differ only in the board
(real pins or mock pins), the panel (real luma driver or a dummy), the clock (real or
manual) and where the frames go; :func:`make_app` wires the rest the same way for all.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PIL import Image

from companion.app import App
from companion.clock import Clock
from companion.config import Config
from companion.device.buttons import ButtonDecoder
from companion.notify import Notifier
from companion.ui.screen import Context, Screen

BoardFactory = Callable[..., Any]
log = logging.getLogger("companion")


def open_store(state_dir: Path | None) -> tuple[Any, str]:
    """The event store in ``state_dir`` and a notice for the screen ("" if all is well).

    A damaged file is set aside (kept, renamed) and a fresh store started; a file from a
    newer version, or a directory we cannot write, leaves the device without a store:
    the Tools still work, games are not saved, and the notice says so.
    """
    if state_dir is None:
        return None, ""
    from companion.errors import StoreError
    from companion.store import Store

    try:
        store, message = Store.open_or_set_aside(state_dir)
    except StoreError as err:
        log.error("no game log: %s", err)
        return None, f"Games are not saved: {err}"
    if message:
        log.error("%s", message)
    return store, message or ""


@contextmanager
def serial_console(app: App, url: str | None, baud: int = 115200, **kw: Any) -> Iterator[Any]:
    """The serial console (:class:`companion.link.Link`) on ``url`` while the block runs;
    nothing (and no pyserial import, for the cold start) when ``url`` is empty::

        with serial_console(app, config.serial.url, config.serial.baud):
            app.run()
    """
    if not url:
        yield None
        return
    from companion.link import Link

    link = Link(app, url, baud, **kw).start()
    try:
        yield link
    finally:
        link.stop()


def make_context(config: Config, clock: Clock, seed: int | None) -> Context:
    """Outcomes from SystemRandom, or from ``random.Random(seed)`` when a seed is given."""
    if seed is None:
        rng: random.Random = random.SystemRandom()
        anim = random.Random()
    else:
        rng, anim = random.Random(seed), random.Random(seed + 1)
    return Context(rng=rng, anim_rng=anim, clock=clock, config=config)


def make_app(
    config: Config,
    *,
    board_factory: BoardFactory,
    panel: Any,
    clock: Clock,
    seed: int | None = None,
    root: Callable[[Context], Screen] | None = None,
    on_frame: Callable[[Image.Image], None] | None = None,
    notifier: Notifier | None = None,
    state_dir: Path | None = None,
) -> App:
    """An :class:`App` with its board attached; ``root`` builds the first screen
    (default: the main menu, after any notice and the offer to resume)."""
    from companion.ui.home import start_screen

    ctx = make_context(config, clock, seed)
    ctx.store, ctx.notice = open_store(state_dir)
    buttons = config.buttons
    decoder = ButtonDecoder(buttons.hold_time, buttons.bounce_time)
    screen = (root or start_screen)(ctx)
    app = App(ctx, panel, screen, decoder, config.idle, notifier=notifier, on_frame=on_frame)
    board = board_factory(
        buttons, config.buzzer.pin, config.led.pin, sink=app.pin_edge, clock=clock
    )
    app.board = board
    ctx.beep = board.beep
    return app
