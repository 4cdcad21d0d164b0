"""The dashboard's side: every table's matches, kept in one ordinary :class:`Store`.

A :class:`Receiver` takes club messages in whatever order and number the broker
delivers them and keeps the store equal, event for event, to each device's own log:

- a message already applied (same generation, seq and chain hash) is dropped;
- one from an older generation is dropped (an undo or a restart replaced it);
- one that comes too early (a gap before it, or a generation whose cut has not arrived)
  waits in the match's buffer (keyed by generation and seq, so a flood of them costs
  linear work, and at most :data:`MAX_WAITING` per match) until what it follows is there;
- a message that contradicts what is stored (another chain hash at the same place) asks
  the table to send the match again (``sync``), as does a match that stays behind what
  its retained state says (:meth:`Receiver.behind`): a dashboard that starts late, or a
  broker that lost its queue, catches up that way.

What it stores it confirms: :meth:`Receiver.receipts` sends each table, on its receipt
topic, "stored up to seq N of match uid" (the table's outbox mark moves on that only).

Results are recomputed, never taken: every event goes through the game's engine before
it is stored, and a finished match is counted with the engine's result. A table's claim
that disagrees, the same match again under a new uid (same content fingerprint), or a
match whose uid does not carry the device id of the table that sent it is refused, in
one log line and a row of the :class:`~companion.club.ledger.Ledger`'s audit trail; a
counted match rewritten by a later generation is held for the organiser (review.py).

This module checks each message (its topic, fields and who may speak for a match)
and holds the receiver together; the rest lives by concern: :mod:`.mirror` (a match
as held, its waiting messages), :mod:`.matchbook` (storing and judging a match),
:mod:`.tables` (per-table bookkeeping, receipts, sync pacing, the live view),
:mod:`.review` (what is held for the organiser: a counted match rewritten, a counted
match again with its times moved), :mod:`.organiser` (a device bound to another table,
two devices at once, a locked season) and :mod:`.lines` (one log line per cause, table and
minute).

Matches are stored with ``origin`` = the table's name, so stats, export, History and
ratings work across the club.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from companion.club import wire
from companion.club.ledger import Ledger
from companion.club.lines import Lines
from companion.club.matchbook import EARLIEST, SKEW, MatchBook
from companion.club.mirror import MAX_WAITING, MIRROR_KEY, Mirror, Waiting
from companion.club.moves import is_move_topic
from companion.club.organiser_tools import OrganiserTools
from companion.club.review import Review
from companion.club.tables import ASK_MAX, TableBook
from companion.errors import WireError
from companion.store import UID_DEVICE_DIGITS

__all__ = ["ASK_MAX", "EARLIEST", "LATER_MAX", "MAX_WAITING", "MIRROR_KEY", "SKEW",
           "UNKNOWN_MAX", "Mirror", "Receiver"]

log = logging.getLogger("companion.club")

#: Most matches one table may have the dashboard hold nothing but a retained state of
#: (a match it has not sent the log of yet); past that, a new one only has its uid noted
#: (at most :data:`LATER_MAX` a table) and is asked for once one of those is stored. A
#: table making up thousands of retained states costs the dashboard a few MB, and an
#: honest table's history still comes in, in turns (the table sends it again when asked).
UNKNOWN_MAX = 48
LATER_MAX = 20_000


class Receiver(TableBook, OrganiserTools, Review, MatchBook, Waiting):
    """Applies club messages to ``store`` (owned by the caller's thread).

    ``request(topic, payload)`` publishes: a ``sync`` to ask a table for a match again
    (spaced ``sync_every`` seconds apart on ``clock`` per match) and the receipts.
    ``ledger`` is the dashboard's book (default: one in memory).
    """

    def __init__(
        self,
        store: Any,
        request: Callable[[str, bytes], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        sync_every: float = 3.0,
        ledger: Ledger | None = None,
        wall: Callable[[], float] = time.time,
    ):
        self.store = store
        self.request = request
        self.clock = clock
        self.sync_every = sync_every
        self.ledger = ledger or Ledger()
        self.wall = wall
        #: Grows whenever a stored result changes (a match finished, reopened, abandoned):
        #: the key of the league the club page shows.
        self.results = 0
        self.mirrors: dict[str, Mirror] = {}
        self.tables: dict[str, dict[str, Any]] = {}
        self._asked: dict[str, float] = {}
        self._receipts_due: set[str] = set()
        #: How many times a buffered or arriving message was tried (the work a flood of
        #: out-of-order messages costs: tests count it, never time it).
        self.tries = 0
        #: Called (uid; "" for a table's status) after something changed (the web page).
        self.changed: Callable[[str], None] = lambda uid: None
        #: Called with an event's time of play once it is stored (``bench --club``).
        self.on_applied: Callable[[float], None] = lambda at: None
        #: Every round offer this dashboard sent, with its table; None when it seated no
        #: night (:func:`companion.club.night.offers_sent`).
        self.offers_sent: Callable[[], Mapping[str, str] | None] = lambda: None
        self._views: dict[str, dict[str, Any]] = {}
        #: Per table, the uids of the matches held as a retained state only, and of
        #: those whose turn has not come (:data:`UNKNOWN_MAX`).
        self._unknown: dict[str, set[str]] = {}
        self._later: dict[str, OrderedDict[str, None]] = {}
        self._held_rows: list[dict[str, Any]] | None = None  # for the page, in words
        #: The log, one line per cause, table and minute (:mod:`.lines`).
        self.lines = Lines(log, clock)
        self._organiser_init()

    def _say(self, level: int, cause: str, table: str, text: str, *args: Any) -> None:
        self.lines.say(level, cause, table, text, *args)

    # -- messages ------------------------------------------------------------------

    def handle(self, topic: str, data: bytes, retained: bool = False) -> None:
        """One message from the broker (``retained``: the broker's kept copy, which says
        nothing of when the table was last heard); a bad one is logged and dropped."""
        try:
            if is_move_topic(topic):
                return self._move_message(topic, data)  # the organiser's, via the broker
            where = wire.parse_topic(topic)
            if not retained:
                self._heard(where.table)
            if not data:
                return  # a retained message being cleared
            payload = wire.decode(data)
            if not retained:
                self._speaker(where.table, payload)
            if where.kind == "status":
                self._status(where.table, payload)
            elif where.kind == "match":
                self._info(where.table, where.uid, payload)
            elif where.kind == "log":
                self._log(where.table, where.uid, payload)
        except WireError as err:
            table = topic.split("/")[1] if topic.count("/") >= 2 else ""
            self._say(logging.WARNING, "dropped", table,
                      "club: dropped a message on %s: %s", topic[:200], err)

    def _info(self, table: str, uid: str, payload: dict[str, Any]) -> None:
        for key in ("gen", "count"):
            wire.need(payload, key, int)
        wire.need(payload, "hash", str)
        if payload.get("state") not in wire.STATES:
            raise WireError("'state' is not playing, finished or abandoned")
        mirror = self._mirror(table, uid, payload)
        if mirror is None:
            return
        if mirror.info is None or wire.info_key(payload) >= wire.info_key(mirror.info):
            mirror.info = payload
            self._info_rewrites(mirror, payload)
        if mirror.match_id is None and not mirror.waiting:
            self._ask(mirror)  # a match we never saw the start of (a late dashboard)
        self._settle(mirror)
        self._touch(mirror)

    def _log(self, table: str, uid: str, payload: dict[str, Any]) -> None:
        op = payload.get("op")
        wire.need(payload, "gen", int)
        if op == "cut":
            wire.need(payload, "keep", int)
            wire.need(payload, "hash", str)
            wire.need(payload, "match", dict)
        elif op == "event":
            wire.need(payload, "seq", int)
            for key in ("prev", "hash"):
                wire.need(payload, key, str)
            wire.need(payload, "event", dict)
            wire.moment(payload, "at")
        else:
            raise WireError(f"unknown log op {op!r}")
        mirror = self._mirror(table, uid, payload)
        if mirror is None:
            return
        if self._held_drops(mirror, payload["gen"]):
            if op == "cut":
                keep = payload["keep"]
                mirror.parted = keep if mirror.parted is None else min(keep, mirror.parted)
            return
        if mirror.hashes is None:
            self._hydrate(mirror)  # a settled match hears of its log again
        verdict = self._verdict(mirror, payload)
        if verdict == "wait":
            self._hold(mirror, payload)
        elif verdict == "applied":
            self._drain(mirror)
        self._settle(mirror)
        self._touch(mirror)

    def _mirror(self, table: str, uid: str, payload: Mapping[str, Any]) -> Mirror | None:
        """The match's mirror, or None (logged) when this table may not speak for it: the
        uid must carry the device's id, the device must be the table's, and a match
        seen from one table stays that table's."""
        device = wire.need(payload, "device", str)
        mirror = self.mirrors.get(uid)
        if mirror is not None and mirror.device == device and mirror.table == table:
            return mirror  # the common case, checked when the mirror was made
        if len(device) < UID_DEVICE_DIGITS or not uid.startswith(device[:UID_DEVICE_DIGITS]):
            self._say(logging.WARNING, "device", table,
                      "club: %s sent match %s, which was not made on its device %s; "
                      "dropped", table, uid[:40], device[:40])
            return None
        if not self.ledger.claim(table, device):
            if self.ledger.moved_from(device, table, _started(payload)):  # its past there
                self._say(logging.INFO, "moved", table,
                          "club: device %s was moved away from %s; a message for match %s "
                          "set aside", device[:40], table, uid[:40])
                return None
            self._refused_device(device, table, uid)
            self._say(logging.WARNING, "device", table,
                      "club: device %s is %s's, not %s's; a message for match %s dropped",
                      device[:40], self.ledger.table_of(device), table, uid[:40])
            return None
        if mirror is None and self._turn_later(table, uid, payload):
            return None
        mirror = mirror or self._load(table, uid)
        if mirror.device and mirror.device != device or mirror.table != table:
            self._say(logging.WARNING, "device", table,
                      "club: %s/%s claims match %s of another device; dropped",
                      table, device[:40], uid[:40])
            return None
        mirror.device = device
        if mirror.match_id is None:
            self._unknown.setdefault(table, set()).add(uid)
        return mirror

    def _turn_later(self, table: str, uid: str, payload: Mapping[str, Any]) -> bool:
        """True when a new match of ``table`` must wait its turn: the table has
        :data:`UNKNOWN_MAX` matches held as a retained state only (a cut that starts a
        match is never kept waiting: it stores it at once)."""
        if payload.get("op") == "cut" and payload.get("keep") == 0:
            return False
        if len(self._unknown.get(table, ())) < UNKNOWN_MAX or \
                self.store.find_uid(uid) is not None:
            return False
        later = self._later.setdefault(table, OrderedDict())
        if "count" in payload and len(later) < LATER_MAX and len(uid) <= 64:
            later[uid] = None  # a retained state: asked for when its turn comes
        self._say(logging.WARNING, "unknown", table,
                  "club: %s has %d matches the dashboard holds no log of; match %s waits "
                  "its turn", table, UNKNOWN_MAX, uid[:40])
        return True

    def _next_turns(self) -> None:
        """Ask for the matches that waited their turn, as far as each table has room."""
        for table, later in list(self._later.items()):
            unknown = self._unknown.setdefault(table, set())
            while later and len(unknown) < UNKNOWN_MAX:
                uid, _ = later.popitem(last=False)
                if uid in self.mirrors or self.store.find_uid(uid) is not None:
                    continue
                mirror = self.mirrors[uid] = Mirror(uid, table)
                unknown.add(uid)
                self._ask(mirror)
            if not later:
                del self._later[table]

    def forget(self, uids: Iterable[str]) -> None:
        """Let go of what is held in memory of these matches: what was stored of them
        lately was lost (a batch the store could not commit), so each is read from the
        store again when it is next heard of, and the table, which has had no receipt,
        sends it again."""
        for uid in uids:
            mirror = self.mirrors.pop(uid, None)
            self._views.pop(uid, None)
            self._receipts_due.discard(uid)
            self._asked.pop(uid, None)
            if mirror is not None:
                self._unknown.get(mirror.table, set()).discard(uid)
        self.changed("")


def _started(payload: Mapping[str, Any]) -> float | None:
    """When a message says its match started (a cut's header, a retained state), or
    None (an event)."""
    header = payload.get("match", payload)
    started = header.get("started") if isinstance(header, Mapping) else None
    return float(started) if isinstance(started, (int, float)) and \
        not isinstance(started, bool) else None
