"""Per-table bookkeeping: what each table says of itself (online, its current match,
what it has not had confirmed) and when it was last heard; the receipts that tell each
table what is stored; the pace at which a table is asked for a match again; and the live
view of every table that the club page shows.

Mixed into :class:`~companion.club.receiver.Receiver`.
"""

from __future__ import annotations

import logging
from typing import Any

from companion.club import wire
from companion.club.mirror import Mirror, safe_result
from companion.table.bag import entered_tokens
from companion.table.dice import entered_dice
from companion.words import counted

#: A match that stays behind while its table does not answer is asked for again less and
#: less often (``sync_every``, twice that, ... up to this many seconds): a retained state
#: of a match its table no longer has (a replaced SD card) or a flood of made-up ones
#: must not cost a sync message every few seconds each, for ever.
ASK_MAX = 300.0


class TableBook:
    """Tables, receipts, sync pacing and the live view (see the module doc)."""

    def _status(self, table: str, payload: dict[str, Any]) -> None:
        wire.need(payload, "online", bool)
        unconfirmed = payload.get("unconfirmed", 0)
        if not isinstance(unconfirmed, int) or isinstance(unconfirmed, bool) or \
                not 0 <= unconfirmed <= 10**6:
            unconfirmed = 0
        before = self.tables.get(table, {}).get("unconfirmed", 0)
        if unconfirmed and unconfirmed != before:
            # The table sends them again until a receipt comes; if this stays, its
            # receipts do not reach it (its login, the ACL) or its messages do not
            # reach the dashboard.
            self._say(logging.WARNING, "unconfirmed", table, "club: %s: %s not confirmed",
                      table, counted(unconfirmed, "match"))
        # What a table says of itself is only believed in its shape: a "current" that
        # is a list or an object would break every later snapshot (the club page).
        self.tables[table] = {"table": table, "online": payload["online"],
                              "device": _text(payload.get("device")),
                              "current": _text(payload.get("current")),
                              "unconfirmed": unconfirmed,
                              "last_seen": self.ledger.last_seen(table)}
        self.changed("")

    def _heard(self, table: str) -> None:
        """The table spoke just now: its "last seen" (kept in the ledger, so a restarted
        dashboard still knows it)."""
        now = self.wall()
        if self.ledger.seen(table, now) and table in self.tables:
            self.tables[table]["last_seen"] = now
            self.changed("")

    # -- receipts: what the dashboard has stored, for each table -------------------------

    def receipts(self) -> int:
        """Send each table a receipt for every match that changed or was sent again since
        the last call ("stored up to seq N of match uid, chain hash H, state S"); how
        many. The dashboard calls it whenever its queue runs dry."""
        sent = 0
        for uid in sorted(self._receipts_due):
            mirror = self.mirrors.get(uid)
            if mirror is None or mirror.match_id is None:
                continue
            self.request(wire.receipt_topic(mirror.table), wire.encode(_receipt(mirror)))
            sent += 1
        self._receipts_due.clear()
        return sent

    # -- asking a table for a match again --------------------------------------------------

    def behind(self) -> list[str]:
        """Ask again for every match that made no progress since the last call while
        behind; the uids asked for. Call it every ``sync_every`` seconds or so."""
        asked = []
        self._outside()  # the organiser's command line: a device moved, a season locked
        self.review()  # the organiser's decisions (written by another process too)
        self._next_turns()
        self.lines.flush()
        now = self.clock()
        for mirror in self.mirrors.values():
            mark = (mirror.gen, mirror.count)
            if not mirror.behind() or mirror.checked != mark:
                mirror.unanswered = 0  # progress: ask at the normal pace again
            else:
                wait = min(self.sync_every * 2 ** min(mirror.unanswered, 16), ASK_MAX)
                last = self._asked.get(mirror.uid)
                if (last is None or now - last >= wait) and self._ask(mirror):
                    asked.append(mirror.uid)
                    mirror.unanswered += 1
            mirror.checked = mark
        return asked

    def any_behind(self) -> bool:
        return any(mirror.behind() for mirror in self.mirrors.values())

    def _ask(self, mirror: Mirror, have: int | None = None) -> bool:
        """Ask the table for the match from what is stored (``have``: from its first
        ``have`` events only, which the table then keeps); False when asked just now."""
        last = self._asked.get(mirror.uid)
        when = self.clock()
        if last is not None and when - last < self.sync_every:
            return False
        self._asked[mirror.uid] = when
        if have is None or mirror.hashes is None or not 0 <= have <= mirror.count:
            have, digest = mirror.count, mirror.last_hash
        else:
            digest = mirror.hashes[have]
        self.request(wire.sync_topic(mirror.table), wire.encode(
            {"uid": mirror.uid, "have": have, "hash": digest}))
        return True

    # -- the live view ---------------------------------------------------------------------

    def _touch(self, mirror: Mirror) -> None:
        """The match changed: its view is made again when a snapshot needs it (only a
        table's current match is ever shown, so a restart's thousands cost nothing)."""
        self._views.pop(mirror.uid, None)
        self.changed(mirror.uid)

    def snapshot(self) -> dict[str, Any]:
        """Every table as plain JSON: online, its current match and the match's state
        (each match's view is made when it changes, so this stays cheap)."""
        tables = {}
        for name, status in sorted(self.tables.items()):
            entry = dict(status)
            entry["match"] = self._view(status.get("current") or "")
            entry["two_devices"] = name in self.two_devices
            tables[name] = entry
        return {"tables": tables}

    def _view(self, uid: str) -> dict[str, Any] | None:
        view = self._views.get(uid)
        mirror = self.mirrors.get(uid)
        if view is None and mirror is not None:
            view = self._views[uid] = self._match_view(mirror)
        return view

    def _result(self, mirror: Mirror) -> dict[str, Any] | None:
        """A settled match's stored result (read once, when it is first shown)."""
        if mirror.result is None and mirror.match_id is not None:
            mirror.result = self.store.match(mirror.match_id).result
        return mirror.result

    def _match_view(self, mirror: Mirror) -> dict[str, Any]:
        info = mirror.info or {}
        game = mirror.game
        return {
            "uid": mirror.uid,
            "game_id": info.get("game_id") or (game.game_id if game else None),
            "players": list(game.players) if game else info.get("players", []),
            "events": mirror.count,
            "state": mirror.state if mirror.state == "refused" else info.get("state", "playing"),
            "standings": safe_result(game) if game else self._result(mirror),
            "behind": mirror.behind(),
            "entered_dice": self._entered(mirror, tokens=False),
            "entered_tokens": self._entered(mirror, tokens=True),
        }

    def _entered(self, mirror: Mirror, tokens: bool) -> bool:
        """True when the match holds faces the table typed in from real dice ("entered":
        true, ``[dice] physical``), or with ``tokens`` lottery tokens from the real tin
        (``[tokens] physical``), rather than drawn by its device: the page says so."""
        if mirror.game is not None:
            count = entered_tokens if tokens else entered_dice
            return count(mirror.game.events) > 0
        if mirror.match_id is None:
            return False
        look = self.store.with_entered_tokens if tokens else self.store.with_entered_dice
        return mirror.match_id in look([mirror.match_id])


def _receipt(mirror: Mirror) -> dict[str, Any]:
    """What the dashboard tells a table it holds of a match: the stored log and state.
    A match held for the organiser is ``held`` at the table's own log (a rewrite: its
    retained state; a duplicate: the stored log), so the table stops sending it and no
    longer says "not confirmed"; a rewrite the organiser refused is answered at the
    table's own log, ``refused`` (final). A match taken as started from a round's offer
    says the offer (``"offer"``)."""
    info = mirror.info
    if mirror.hold in ("refused", "held") and info is not None:
        receipt = {"uid": mirror.uid, "gen": info["gen"], "seq": info["count"],
                   "hash": info["hash"], "state": mirror.hold}
    else:
        receipt = {"uid": mirror.uid, "gen": mirror.gen, "seq": mirror.count,
                   "hash": mirror.last_hash, "state": mirror.state}
    if mirror.offer:  # the round's offer the dashboard took the match as started from
        receipt["offer"] = mirror.offer
    return receipt


def _text(value: Any) -> str | None:
    """A short string a table said of itself, or None (anything else)."""
    return value if isinstance(value, str) and len(value) <= 200 else None
