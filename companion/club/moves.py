"""A device moved to another table, known to every dashboard on the broker.

A device is bound to the first table it is heard on (:class:`~.ledger.Ledger`); the
organiser moves it (``companion club --move-device ID --to TABLE``, Move on the club
page). That move is kept on the broker, where every dashboard learns it: one retained
message per device on ``companion-club/moves/<key>`` (outside the tables' ``companion/``
tree: the ACL lets only the dashboards read or write it, ``deploy/club/companion.acl``)::

    {"v": 1, "device": "7c72...", "table": "table-8", "former": ["table-3"], "at": T}

``device`` is the 16 digits the device's uids carry, ``table`` the table it speaks for
now, ``former`` the tables it was moved away from (its messages there are set aside
without a row for the organiser: they are its past, not a Pi speaking for two tables),
``at`` when the organiser moved it (the dashboard's clock). ``<key>`` is a digest of
``device`` (a device id a table made up may hold characters no topic level can). A
dashboard started later, or rebuilt from nothing, reads every retained move before the
tables' messages (it subscribes to them first) and so takes the moved table's matches
as the first dashboard does.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

from companion.club import wire
from companion.config import valid_table_name
from companion.errors import WireError
from companion.store.records import UID_DEVICE_DIGITS

ROOT = "companion-club"
#: What a dashboard subscribes to (before the tables' topics).
TOPIC = f"{ROOT}/moves/+"
#: Most former tables a move lists (a device carried round the room keeps the newest).
FORMER_MAX = 20


def move_topic(device: str) -> str:
    return f"{ROOT}/moves/{_digest(device)}"


def is_move_topic(topic: str) -> bool:
    return topic.startswith(f"{ROOT}/moves/")


def _digest(device: str) -> str:
    return hashlib.sha256(device.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class Move:
    """A device bound to ``table``, moved away from the tables in ``former`` at ``at``."""

    device: str
    table: str
    former: tuple[str, ...]
    at: float

    def payload(self) -> bytes:
        return wire.encode({"device": self.device, "table": self.table,
                            "former": list(self.former), "at": self.at})


def parse_move(topic: str, data: bytes) -> Move:
    """A move as a dashboard published it; :class:`~companion.errors.WireError` for
    anything else (its topic, size, fields, every table name)."""
    payload = wire.decode(data)
    device = wire.need(payload, "device", str)
    table = wire.need(payload, "table", str)
    former = wire.need(payload, "former", list)
    at = wire.moment(payload, "at")
    if len(device) != UID_DEVICE_DIGITS or not device.isprintable() or \
            topic != move_topic(device):
        raise WireError("a move names a device that is not its topic's")
    if not valid_table_name(table) or len(former) > FORMER_MAX or \
            not all(isinstance(name, str) and valid_table_name(name) for name in former):
        raise WireError("a move names something that is not a table")
    if not math.isfinite(at) or at < 0:
        raise WireError("a move's time is not a time")
    return Move(device, table, tuple(name for name in former if name != table), at)


def former_tables(before: Any, table: str, moved_from: str) -> tuple[str, ...]:
    """The tables a device moved from ``moved_from`` to ``table`` was bound to before:
    ``before`` (the former tables of its last move) and ``moved_from``, newest last, at
    most :data:`FORMER_MAX`, never ``table`` itself."""
    names = [name for name in (*before, moved_from) if name != table]
    kept = list(dict.fromkeys(reversed(names)))[:FORMER_MAX]
    return tuple(reversed(kept))
