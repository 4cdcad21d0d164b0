"""This machine on the local network: the names and addresses it answers to.

Used by the web pages' door (:mod:`companion.remote.web.gate`: which ``Host`` headers
are this device) and by the Pair screen (the address a phone should open). Nothing
here sends a packet.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable

#: Names every machine has.
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def outward_address() -> str:
    """The address this machine reaches the local network from ("" when it has none);
    found by routing a UDP socket, which sends nothing."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))
        return str(probe.getsockname()[0])
    except OSError:
        return ""
    finally:
        probe.close()


def machine_names(extra: Iterable[str] = ()) -> list[str]:
    """The names and addresses this machine answers to: the loopback, its host name
    (short, fully qualified and ``.local``), the addresses its name resolves to, the
    address it reaches the network from, and ``extra`` (``[web] hosts``)."""
    names = list(LOOPBACK)
    hostname = socket.gethostname().lower()
    if hostname:
        short = hostname.split(".")[0]
        names += [hostname, short, f"{short}.local"]
        try:
            names += [str(info[4][0]) for info in socket.getaddrinfo(hostname, None)]
        except OSError:
            pass  # a name the resolver does not know: the names above still count
    names += [outward_address(), *extra]
    return [name for name in names if name]
