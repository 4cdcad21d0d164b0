"""Settings > Pair a phone: the 6-digit code a phone types on the table page.

The code comes from the web page's pairing (``ctx.pairing``, set when the page is
switched on); it is valid for two minutes and five wrong tries, and this screen shows
the next one as soon as it changes. Without the page the screen says how to switch it
on. The screen ticks once a second for its countdown, only while it is open.
"""

from __future__ import annotations

import math
import socket
from typing import Any

from companion.ui.canvas import Canvas
from companion.ui.screen import Context, Message, Screen


class PairScreen(Screen):
    """The current code, big, with the page's address and the seconds it has left."""

    title = "Pair a phone"
    hint = "BACK leave"

    def __init__(self, pairing: Any, address: str, parent: Screen | None = None):
        super().__init__(parent)
        self.pairing = pairing
        self.address = address
        self.code, self.expires = pairing.show()

    def tick_after(self) -> float | None:
        return 1.0

    def tick(self, ctx: Context) -> Screen:
        self.code, self.expires = self.pairing.show()  # a new code once this one is gone
        return self

    def draw(self, canvas: Canvas) -> None:
        left = max(0, math.ceil(self.expires - self.pairing.clock()))
        canvas.title(self.title, f"{left // 60}:{left % 60:02d}")
        canvas.centered(15, self.code, scale=3)
        canvas.centered(42, self.address)


def pair_screen(ctx: Context, parent: Screen) -> Screen:
    """The Pair screen, or a note when the web page is off."""
    pairing = getattr(ctx, "pairing", None)
    if pairing is None:
        return Message("Pair a phone", ["The web page is off.", "Set [web] listen in",
                                        "the config file, or", "start with --web."], parent)
    return PairScreen(pairing, page_address(getattr(ctx, "web_address", "")), parent)


def page_address(listen: str) -> str:
    """Where a phone finds the page: ``listen``'s port on this machine's address on the
    local network (found without sending anything)."""
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    if host in ("", "0.0.0.0", "::"):
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.connect(("10.254.254.254", 1))  # UDP: picks a route, sends nothing
            host = probe.getsockname()[0]
        except OSError:
            host = socket.gethostname()
        finally:
            probe.close()
    return f"{host}:{port}/pair" if port else "/pair"
