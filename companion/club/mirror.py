"""One device match as the dashboard holds it (:class:`Mirror`), and the messages of it
that came too early, waiting for what they follow (:class:`Waiting`).

Waiting messages are keyed by generation and seq, so a flood of them costs linear work,
and at most :data:`MAX_WAITING` wait per match; each is tried when it arrives and once
more when its turn comes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from companion.games import Match

#: Meta key prefix under which the dashboard keeps each mirrored match's device and
#: generation.
MIRROR_KEY = "club:"
#: Most messages one match may hold waiting for what they follow; past that the newest
#: is dropped and the table asked to send the match again (a hostile or broken table
#: cannot fill the dashboard's memory).
MAX_WAITING = 2000


@dataclass
class Mirror:
    """One device match as the dashboard holds it."""

    uid: str
    table: str
    device: str = ""
    match_id: int | None = None
    gen: int = 0
    hashes: list[str] | None = field(default_factory=lambda: [""])
    game: Match | None = None
    #: A settled match keeps only its length, chain hash and result, not its engine nor
    #: its hashes (a club with years of history): (count, hash); ``hashes`` is None then.
    summary: tuple[int, str] | None = None
    result: dict[str, Any] | None = None
    cuts: dict[int, dict[str, Any]] = field(default_factory=dict)  # waiting, by gen
    events: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    info: dict[str, Any] | None = None
    state: str = "playing"   # as stored: playing, finished, abandoned; refused or held
    #: A counted match's rewrite the organiser has to decide on: "held" (waiting),
    #: "accepted" (the next rewrite is followed), "refused" (later generations set
    #: aside for good); "" when there is none.
    hold: str = ""
    #: Where a held rewrite parts from the counted log (the ``keep`` of its cut, when
    #: one came), so an accepted rewrite is asked for from there (the audit row then
    #: names only the events it dropped).
    parted: int | None = None
    #: (gen, keep) of a settled match's log being sent again, compared event by event
    #: with the stored one before anything changes.
    candidate: tuple[int, int] | None = None
    #: The round offer the match was started from, when the dashboard took it as one
    #: it sent to the match's table (:mod:`.offers`); its receipts say it.
    offer: str = ""
    checked: tuple[int, int] | None = None  # (gen, count) at the last behind() check
    unanswered: int = 0  # behind() asks since the match last made progress

    @property
    def count(self) -> int:
        return self.summary[0] if self.hashes is None else len(self.hashes) - 1

    @property
    def last_hash(self) -> str:
        return self.summary[1] if self.hashes is None else self.hashes[-1]

    @property
    def waiting(self) -> int:
        return len(self.cuts) + len(self.events)

    def behind(self) -> bool:
        """Its retained state says more than is stored, or messages wait in the buffer
        (never while the organiser holds, or has refused, the table's rewrite)."""
        if self.hold in ("held", "refused"):
            return False
        if self.waiting or self.match_id is None:
            return True  # (nothing stored: a retained state, or a turn come, asked for)
        info = self.info
        if info is None:
            return False
        if (info["gen"], info["count"]) == (self.gen, self.count):
            return info["hash"] != self.last_hash
        return (info["gen"], info["count"]) > (self.gen, self.count)


class Waiting:
    """The receiver's part that keeps and drains the messages that come too early
    (mixed into :class:`~companion.club.receiver.Receiver`, whose ``_verdict`` tries one,
    ``_ask`` asks the table again and ``_say`` logs)."""

    def _hold(self, mirror: Mirror, msg: dict[str, Any]) -> None:
        """Keep a message that comes too early, keyed by where it goes (a duplicate
        replaces its twin: nothing grows but the distinct places)."""
        if mirror.waiting >= MAX_WAITING:
            self._say(logging.WARNING, "waiting", mirror.table,
                      "club: %s/%s: more than %d messages wait; dropped one, asking again",
                      mirror.table, mirror.uid, MAX_WAITING)
            self._ask(mirror)
            return
        if msg["op"] == "cut":
            mirror.cuts[msg["gen"]] = msg
        else:
            mirror.events[(msg["gen"], msg["seq"])] = msg

    def _drain(self, mirror: Mirror) -> None:
        """After something applied: apply what waited for it, each message tried once
        more at most per step (the next event of the generation, then waiting cuts)."""
        gen = None
        while mirror.waiting:
            if gen != mirror.gen:  # a new generation makes older waiting ones stale
                gen = mirror.gen
                self._drop_stale(mirror)
            nxt = mirror.events.pop((mirror.gen, mirror.count + 1), None)
            if nxt is not None:
                verdict = self._verdict(mirror, nxt)
                if verdict == "wait":
                    self._hold(mirror, nxt)
                    return
                continue
            if not self._next_cut(mirror):
                return

    def _next_cut(self, mirror: Mirror) -> bool:
        """Apply the oldest waiting cut that can be applied now; False if none can."""
        for gen in sorted(mirror.cuts):
            msg = mirror.cuts[gen]
            if self._could_cut(mirror, msg):
                del mirror.cuts[gen]
                self._verdict(mirror, msg)
                return True
        return False

    @staticmethod
    def _could_cut(mirror: Mirror, msg: dict[str, Any]) -> bool:
        if mirror.match_id is None:
            return msg["keep"] == 0
        return msg["keep"] <= mirror.count

    @staticmethod
    def _drop_stale(mirror: Mirror) -> None:
        """Forget waiting messages of generations older than the mirror's (called once
        per generation the mirror moves to, so a flood costs linear work)."""
        for gen in [g for g in mirror.cuts if g <= mirror.gen]:
            del mirror.cuts[gen]
        for key in [k for k in mirror.events if k[0] < mirror.gen]:
            del mirror.events[key]


def safe_result(game: Match | None) -> dict[str, Any] | None:
    if game is None:
        return None
    try:
        return game.result()
    except Exception:  # noqa: BLE001 - a view must not break the dashboard
        return None
