"""What goes over the club's MQTT broker: topics, payloads and the log's chain hash.

The topic tree (``docs/club.md`` says the same with examples)::

    companion/<table>/status        retained  {"online": true, "current": uid, ...}
                                              (the will sets "online": false)
    companion/<table>/match/<uid>   retained  the match as it is now: game, players,
                                              gen, count, hash, state, result
    companion/<table>/log/<uid>     QoS 1     the log: "cut" and "event" messages
    companion/<table>/sync          QoS 1     a dashboard asks a table to send a match again
    companion/<table>/receipt       QoS 1     a dashboard says "stored up to seq N of match
                                              uid" (the only thing that moves the outbox mark)

Every payload is one JSON object with ``"v": 1``. A match's log travels as a stream of
generations: a ``cut`` starts generation ``gen`` ("keep your first ``keep`` events, whose
chain hash is ``hash``, and drop the rest"), then ``event`` messages ``keep + 1, ...``
of that generation follow. An undo on the device is a new generation cut to the shorter
log; a device that restarts starts a new generation at what the broker acknowledged.
Generations only grow (a counter kept in the device's store), so a receiver can tell an
old message from a new one after any outage, duplicate or reordering.

The chain hash of a log ``h_0 = ""``, ``h_s = sha256(h_{s-1}, event_s, time_s)`` names
a whole prefix of the log in 32 hex digits: two logs with the same count and hash hold
the same events at the same times.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from companion.config import valid_table_name
from companion.errors import CompanionError, WireError
from companion.lang import _

VERSION = 1
ROOT = "companion"
#: Log states a match can be in, as published (and kept in the device's meta table).
STATES = ("playing", "finished", "abandoned")
#: What a receipt may say of a match: one of :data:`STATES`, ``refused`` (the
#: dashboard stored the log but will not count the match: see the receiver), or ``held``
#: (the dashboard has the log as the table has it and holds it for the organiser: the
#: table need not send it again; the dashboard asks for it if the organiser accepts it).
RECEIPT_STATES = (*STATES, "refused", "held")
#: The largest payload a receiver reads (a match header or one event is a few hundred
#: bytes; a whole match never travels in one message). The broker example caps it too
#: (``message_size_limit`` in deploy/club/mosquitto.conf).
MAX_PAYLOAD = 64 * 1024


# -- topics ---------------------------------------------------------------------------


def status_topic(table: str) -> str:
    return f"{ROOT}/{table}/status"


def match_topic(table: str, uid: str) -> str:
    return f"{ROOT}/{table}/match/{uid}"


def log_topic(table: str, uid: str) -> str:
    return f"{ROOT}/{table}/log/{uid}"


def sync_topic(table: str) -> str:
    return f"{ROOT}/{table}/sync"


def receipt_topic(table: str) -> str:
    return f"{ROOT}/{table}/receipt"


#: What a dashboard subscribes to (every table).
DASHBOARD_TOPICS = (f"{ROOT}/+/status", f"{ROOT}/+/match/+", f"{ROOT}/+/log/+")


@dataclass(frozen=True)
class Topic:
    """A parsed topic: ``kind`` is status, match, log, sync or receipt."""

    table: str
    kind: str
    uid: str = ""


def parse_topic(topic: str) -> Topic:
    parts = topic.split("/")
    if len(parts) < 3 or parts[0] != ROOT or not valid_table_name(parts[1]):
        raise WireError(f"not a club topic: {topic!r}")
    table, kind, rest = parts[1], parts[2], parts[3:]
    if kind in ("status", "sync", "receipt") and not rest:
        return Topic(table, kind)
    if kind in ("match", "log") and len(rest) == 1 and rest[0]:
        return Topic(table, kind, rest[0])
    raise WireError(f"not a club topic: {topic!r}")


# -- payloads -------------------------------------------------------------------------


def encode(payload: Mapping[str, Any]) -> bytes:
    return json.dumps({"v": VERSION, **payload}, separators=(",", ":"),
                      allow_nan=False).encode()


def decode(data: bytes) -> dict[str, Any]:
    """A payload as a dict; WireError for anything else (bad JSON, other version, more
    than :data:`MAX_PAYLOAD` bytes)."""
    if len(data) > MAX_PAYLOAD:
        raise WireError(f"{len(data)} bytes is more than a club message may be")
    try:
        payload = json.loads(data)
    except (UnicodeDecodeError, ValueError) as err:
        raise WireError(f"not JSON: {err}") from None
    if not isinstance(payload, dict) or payload.get("v") != VERSION:
        raise WireError("not a version 1 club payload")
    return payload


def need(payload: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """``payload[key]`` if it is of ``kind`` (never a bool for int), else WireError."""
    value = payload.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
        raise WireError(f"{key!r} is missing or not {_names(kind)}")
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise WireError(f"{key!r} is negative")
    return value


def moment(payload: Mapping[str, Any], key: str) -> float:
    """``payload[key]`` as a time: a finite number (JSON's ``1e999``, ``NaN`` and an
    integer too big for a float are WireError, never an OverflowError or a time of
    ``inf`` in the store)."""
    value = need(payload, key, (int, float))
    try:
        when = float(value)
    except OverflowError:
        when = math.inf
    if not math.isfinite(when):
        raise WireError(f"{key!r} is not a finite time")
    return when


def fields(data: bytes, *wanted: tuple[str, type]) -> tuple[Any, ...]:
    """The payload's values of ``wanted`` (key, kind) pairs, in order, each checked by
    :func:`need`; WireError for a bad payload or value."""
    payload = decode(data)
    return tuple(need(payload, key, kind) for key, kind in wanted)


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _names(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _kinds(kind))


# -- the chain hash -------------------------------------------------------------------


def link(prev: str, event: Mapping[str, Any], at: float) -> str:
    """The chain hash after ``event`` (played at ``at``) follows a prefix hashed ``prev``."""
    text = json.dumps([prev, event, float(at)], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def chain(rows: Iterable[tuple[Mapping[str, Any], float]], start: str = "") -> list[str]:
    """``[h_0, h_1, ...]`` for (event, time) rows (``start``: the hash before them)."""
    hashes = [start]
    for event, at in rows:
        hashes.append(link(hashes[-1], event, at))
    return hashes


# -- where the broker is ----------------------------------------------------------------


@dataclass(frozen=True)
class Broker:
    """A broker address from ``mqtt://[user:pass@]host[:port]`` or ``mqtts://...``."""

    host: str
    port: int
    tls: bool
    username: str = ""
    password: str = ""

    @classmethod
    def parse(cls, url: str) -> Broker:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise CompanionError(_("a club broker is mqtt://host[:port] or "
                                   "mqtts://host[:port], not {url!r}").format(url=url))
        try:
            port = parts.port
        except ValueError:
            raise CompanionError(_("the club broker's port is not a number: {url!r}")
                                 .format(url=url)) from None
        tls = parts.scheme == "mqtts"
        return cls(parts.hostname, port or (8883 if tls else 1883), tls,
                   unquote(parts.username or ""), unquote(parts.password or ""))

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def info_key(info: Mapping[str, Any]) -> tuple[int, int, int]:
    """The order of match-info payloads: generation, count, then finished after playing."""
    return (int(info["gen"]), int(info["count"]), int(info["state"] != "playing"))
