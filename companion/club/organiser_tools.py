"""The organiser's tools on the dashboard: a device bound to another table, two devices
speaking for one table at once, and a season locked.

- A device is bound to the first table it was heard on (:class:`~.ledger.Ledger`); a
  message it sends for another table is dropped, and the device is listed for the
  organiser ("a device bound to table-3 spoke for table-8"; ``companion club --review``
  gives its id, the page none), who may move it there
  (``companion club --move-device ID --to TABLE``, or Move on the club page): a Pi
  carried to another table, an SD card put in another table's Pi. The table sends the
  matches that were dropped again by itself (they are "not confirmed" there). The move
  is published on the broker (:mod:`.moves`, retained), so every dashboard, and one
  started or rebuilt later, binds the device to the same table; a move another
  dashboard published is learned here the same way.
- Two devices heard for one table within :data:`TWO_DEVICES_WINDOW` seconds of each
  other (two Pis given the same table in their config, or one table's login) are said
  in the log and on the page for as long as both speak. The broker's kept copies
  (retained states, from any time) do not count, nor a will ("offline"): a Pi that
  replaced another one is not two devices at once.
- A locked season keeps the standings it had when the organiser locked it (stored in
  the ledger): a match counted later, a held rewrite accepted later, changes nothing
  in it (``companion club --lock-season NAME``, or Lock on the club page).

Mixed into :class:`~companion.club.receiver.Receiver`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from companion.club import wire
from companion.club.ledger import REFUSED_MAX
from companion.club.moves import Move, move_topic, parse_move
from companion.lang import _
from companion.store import UID_DEVICE_DIGITS

#: Two devices heard for one table within this many seconds are speaking at once.
TWO_DEVICES_WINDOW = 30.0
#: The uids of a refused device's matches kept per device and table, to ask its table
#: for them at once when the organiser moves the device there.
DROPPED_MAX = 48


def lock_season(ledger: Any, store: Any, season: Any) -> dict[str, Any] | None:
    """Lock ``season`` with its standings as ``store`` counts them now (the dashboard's
    thread, or ``companion club --lock-season`` over a read-only store); None when it
    was locked already."""
    from companion.club.seasons import season_table

    return ledger.lock(season.name, season_table(store, [season])[0])


def refused_line(row: dict[str, Any]) -> str:
    """A refused device in words (the club page shows no device id: ``companion club
    --review`` prints it beside this line, for ``--move-device``)."""
    return _("a device bound to {bound} spoke for {table}: its matches are dropped until "
             "the organiser moves it to {table}").format(bound=row["bound"], table=row["table"])


class OrganiserTools:
    """Refused devices, two devices at once, locked seasons (see the module doc)."""

    def _organiser_init(self) -> None:
        #: Per table, the devices heard lately (device digits -> when, ``clock``).
        self._speakers: dict[str, dict[str, float]] = {}
        #: Tables where two devices speak at once (table -> the devices).
        self.two_devices: dict[str, list[str]] = {}
        self._refused_rows: list[dict[str, Any]] | None = None
        #: (device digits, table) -> uids of the matches dropped (:data:`DROPPED_MAX`).
        self._dropped: dict[tuple[str, str], set[str]] = {}
        self._locked: dict[str, dict[str, Any]] | None = None
        #: Publishes a retained message (a move); False when it cannot now (no broker).
        self.announce: Callable[[str, bytes], bool] = lambda topic, data: False

    # -- two devices speaking for one table ------------------------------------------------

    def _speaker(self, table: str, payload: dict[str, Any]) -> None:
        """A message of ``table`` heard live (not the broker's kept copy) from the device
        it names; a will ("offline") says nothing of who speaks now."""
        device = payload.get("device")
        if not isinstance(device, str) or len(device) < UID_DEVICE_DIGITS or \
                payload.get("online") is False:
            return
        key, now = device[:UID_DEVICE_DIGITS], self.clock()
        bound = self.ledger.table_of(device)
        if bound is not None and bound != table:
            return  # refused as another table's device (listed for the organiser)
        heard = self._speakers.setdefault(table, {})
        if key not in heard and len(heard) >= 16:
            return  # a table making up device ids: the first few are enough to tell
        heard[key] = now
        others = sorted(d for d, at in heard.items() if d != key
                        and now - at <= TWO_DEVICES_WINDOW)
        if not others:
            return
        devices = sorted([key, *others])
        if self.two_devices.get(table) != devices:
            self.two_devices[table] = devices
            self.changed("")
        self._say(logging.WARNING, "two devices", table,
                  "club: %d devices speak for %s at once (%s): two Pis with the same "
                  "table in their config, or one login on two Pis?", len(devices), table,
                  ", ".join(devices))

    def _quiet_speakers(self) -> None:
        """Forget devices not heard for a while; a table where one device speaks again is
        no longer warned of."""
        now = self.clock()
        for table in list(self._speakers):
            heard = self._speakers[table]
            for key in [d for d, at in heard.items() if now - at > TWO_DEVICES_WINDOW]:
                del heard[key]
            if not heard:
                del self._speakers[table]
            if len(heard) < 2 and self.two_devices.pop(table, None) is not None:
                self.changed("")

    # -- a device bound to another table ---------------------------------------------------

    def _refused_device(self, device: str, table: str, uid: str) -> None:
        key = (device[:UID_DEVICE_DIGITS], table)
        if key in self._dropped or len(self._dropped) < REFUSED_MAX:
            dropped = self._dropped.setdefault(key, set())
            if len(dropped) < DROPPED_MAX and len(uid) <= 64:
                dropped.add(uid)
        if self.ledger.refuse_device(device, table):
            self._refused_rows = None
            self.changed("")

    def refused_rows(self) -> list[dict[str, Any]]:
        """The devices refused for speaking for another table, for the club page."""
        if self._refused_rows is None:
            self._refused_rows = [{"id": row["id"], "table": row["table"],
                                   "bound": row["bound"], "text": refused_line(row)}
                                  for row in self.ledger.refused_devices()]
        return self._refused_rows

    def move_refused(self, ident: int) -> bool:
        """The organiser moves the device of refused row ``ident`` to the table it spoke
        for (the club page); False when no such row is listed."""
        row = next((r for r in self.ledger.refused_devices() if r["id"] == ident), None)
        if row is None or self.ledger.move(row["device"], row["table"]) is None:
            return False
        logging.getLogger("companion.club").info(
            "club: the organiser moved device %s from %s to %s", row["device"],
            row["bound"], row["table"])
        self._organiser_changed()
        return True

    # -- locked seasons --------------------------------------------------------------------

    def locked(self) -> dict[str, dict[str, Any]]:
        """Every locked season (when, and its standings then)."""
        if self._locked is None:
            self._locked = self.ledger.locked()
        return self._locked

    def lock(self, season: Any) -> bool:
        """The organiser locks ``season`` (the club page); False when it was already."""
        if lock_season(self.ledger, self.store, season) is None:
            return False
        logging.getLogger("companion.club").info(
            "club: the organiser locked season %s", season.name)
        self._organiser_changed()
        return True

    # -- a device move, known to every dashboard ------------------------------------------

    def _move_message(self, topic: str, data: bytes) -> None:
        """A move on the broker (:mod:`.moves`): this dashboard binds the device as
        the organiser did on the one that published it (an empty message: nothing)."""
        if not data:
            return
        move = parse_move(topic, data)
        if self.ledger.learn(move):
            logging.getLogger("companion.club").info(
                "club: device %s is %s's now (a move on the broker)", move.device,
                move.table)
            self._organiser_changed()

    def _announce_moves(self) -> None:
        """Publish the organiser's moves the broker does not have yet (retained)."""
        for row in self.ledger.unannounced():
            move = Move(row["device"], row["table"], tuple(row["former"]), row["at"])
            if not self.announce(move_topic(move.device), move.payload()):
                return  # no broker now: the next check tries again
            self.ledger.announced(move.device, move.at)

    def _organiser_changed(self) -> None:
        """The ledger changed under the dashboard (the organiser): read it again, tell
        the broker a move, and ask a moved device's table at once for the matches that
        were dropped (it would send them again by itself, but only as its resend timer
        comes round)."""
        self._announce_moves()
        self._refused_rows = self._locked = None
        for (key, table), uids in list(self._dropped.items()):
            if self.ledger.table_of(key) == table:
                for uid in sorted(uids):
                    self.request(wire.sync_topic(table),
                                 wire.encode({"uid": uid, "have": 0, "hash": ""}))
                del self._dropped[(key, table)]
        self.changed("")

    def _outside(self) -> None:
        """Every few seconds: what the organiser's command line wrote in the ledger."""
        if self.ledger.outside():
            self._organiser_changed()
        else:
            self._announce_moves()  # one made while no broker (or no dashboard) was there
        self._quiet_speakers()
