"""systemd readiness and watchdog messages (``sd_notify``) without extra dependencies.

Under ``Type=notify`` systemd sets ``NOTIFY_SOCKET``; the app sends ``READY=1`` once the
first frame is on the panel, and ``WATCHDOG=1`` from its main loop at half the
``WATCHDOG_USEC`` interval, so a hung loop gets the service restarted. Outside systemd
every call does nothing::

    >>> Notifier(env={}).send("READY=1")
    False
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class Notifier:
    """Sends sd_notify datagrams to ``$NOTIFY_SOCKET`` (if set)."""

    def __init__(self, env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        # An address starting with '@' is in the Linux abstract namespace.
        self.address = "\0" + address[1:] if address.startswith("@") else address
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        mine = not pid or pid == str(os.getpid())
        self.watchdog_every: float | None = (
            int(usec) / 2_000_000 if usec.isdigit() and int(usec) > 0 and mine else None
        )

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def send(self, message: str) -> bool:
        """Send one message; False when there is no socket or it failed (never raises)."""
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self.address)
                sock.sendall(message.encode())
            return True
        except OSError:
            return False
