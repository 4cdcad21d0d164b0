"""A match being played at the table: its engine, its log on disk, and undo.

The buttons and the serial console both play through a :class:`Session`, so the same
event is checked the same way and stored the same way whoever sends it. The order is
what keeps the table honest after a power cut: the engine checks the event, the store
commits it, and only then does the match (and so the screen) move on::

    >>> session = Session.start("final-count", ["Ann", "Bob"])
    >>> session.apply({"type": "roll", "player": "Ann", "value": 6})
    >>> session.undo()["value"]
    6

A session also holds the match's own random source (:class:`companion.chance.
MatchChances`): :meth:`Session.drawn` fills an event's dice or token the way the device
draws them, the same again at the same place of the match, so undo is never a re-roll.
Its secret is kept with the match in the store and shown nowhere. An event taken back
is kept too, marked undone (:meth:`companion.store.played.Played.played`).

Without a store a session keeps its log in memory only. A store that can only be
read (the storage is read-only or full) is not written either: the game plays on
unsaved, and :meth:`Session.save_to` writes what only memory holds once saving works
again (:class:`companion.gamelog.GameLog` calls it). A write that fails during play
(the card fills up, or turns read-only) takes the same path: the event is applied all
the same, the session plays on unsaved and says why in :attr:`Session.problem` (the
app then marks every screen and retries, as for storage that failed at start). Each
event keeps the moment it was played, so what is written later carries its own time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.chance import SECRET_BYTES, MatchChances, drawn, new_secret
from companion.errors import IllegalEvent, StoreError
from companion.games import Event, Match, engine, new_match
from companion.games import title as game_title
from companion.lang import pgettext
from companion.names import check_players
from companion.store.played import TakenBack

Listener = Callable[["Session", Event], None]
log = logging.getLogger("companion")


class Session:
    """One match plus where its events go. ``listeners`` are called with (session,
    event) after every event is applied (committed first, while the log takes them;
    :attr:`saved` says which), and with (session, event,
    undone=True) after an event is taken back (the serial mirror, the event printout of
    the simulator)."""

    #: The wall clock that stamps what is played while the log cannot take it (the time
    #: it is written with later); a seam for tests.
    wall_clock: Callable[[], float] = staticmethod(time.time)

    def __init__(
        self,
        match: Match,
        store: Any = None,
        match_id: int | None = None,
        listeners: Sequence[Listener] = (),
        secret: bytes | None = None,
    ):
        self.match = match
        #: The match's own random source (its secret: in the store, never shown).
        self.chances = MatchChances(secret or new_secret())
        #: Events played and taken back while the log could not take them (place,
        #: event, when played, when taken back): written by :meth:`save_to`.
        self.taken_back: list[TakenBack] = []
        #: The game log as given (it may be read-only); ``store`` is it when writable.
        self.log = store
        self.store = _writable(store)
        self.match_id = match_id
        self.listeners = listeners
        #: How many of the match's first events are in the log as they are in memory.
        self.synced = len(match.events) if match_id is not None else 0
        #: Why the game log stopped taking this game's events ("" while it takes them,
        #: or when it never did): the app's cue that storage went away during play.
        self.problem = ""
        #: When each event in memory was played (None: in the log with its time already).
        self.times: list[float | None] = [None] * len(match.events)
        #: When the match began, for one the log has not seen yet.
        self.started_at = self.wall_clock() if match_id is None else None
        #: What the store keeps beside a new match (:meth:`start`), until it has it.
        self.notes: dict[str, str] = {}

    def _notes(self) -> dict[str, Any]:
        """The store's ``notes`` argument, when there are any (a store that keeps none
        is never asked to)."""
        return {"notes": self.notes} if self.notes else {}

    @classmethod
    def start(
        cls,
        game_id: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        store: Any = None,
        listeners: Sequence[Listener] = (),
        notes: Mapping[str, str] | None = None,
        secret: bytes | None = None,
    ) -> Session:
        """A new match, registered in the store when there is one. The players' names
        are checked and cleaned by the one name rule (BadName if one is refused).
        ``notes`` go into the store with the match (:meth:`Store.new_match`). ``secret``
        seeds its draws (default: the operating system's randomness; the app gives one
        from its own source, so ``sim --seed`` draws the same)."""
        options = engine(game_id).new_options(options or {})
        match = new_match(game_id, check_players(players), options)
        session = cls(match, store, None, listeners, secret)
        session.notes = dict(notes or {})
        if session.store is not None:
            try:
                session.match_id = store.new_match(game_id, list(match.players), match.options,
                                                   secret=session.chances.secret,
                                                   **session._notes())
            except StoreError as err:
                session.went_unsaved(err)
        else:
            keep_unsaved(store, session)
        return session

    @classmethod
    def resume(cls, store: Any, match_id: int, listeners: Sequence[Listener] = (),
               secret: bytes | None = None) -> Session:
        """The stored match rebuilt from its log (played on unsaved when the log can
        only be read), drawing from its kept secret; one from before secrets (or
        imported) is given ``secret`` (default: a new one) and keeps it from now on."""
        record = store.match(match_id)
        match = engine(record.game_id).replay(record.players, record.options,
                                              store.events(match_id))
        kept = store.match_secret(match_id)
        if kept is None or len(kept) < SECRET_BYTES:  # none yet (or a damaged one)
            kept = secret or new_secret()
            try:
                kept = store.keep_secret(match_id, kept)
            except StoreError:
                pass  # a log that cannot be written now: save_to keeps it later
        return cls(match, store, match_id, listeners, kept)

    def drawn(self, event: Event) -> Event:
        """``event`` with what the device draws for it (its die faces, its token) from
        the match's own source at the event's place (:func:`companion.chance.drawn`);
        unchanged when no chance decides it. IllegalEvent before anything is drawn."""
        return drawn(self.match, event, self.chances)

    @property
    def saved(self) -> bool:
        """True while each event is written to the game log as it is applied."""
        return self.store is not None

    def save_to(self, store: Any) -> None:
        """Saving works again: write into ``store`` what only memory holds (the match
        itself when it was started unsaved, the events applied or undone since), then
        save each event as usual. StoreError leaves the session unsaved, to try again."""
        if self.match_id is None:
            self.match_id = store.new_match(self.match.game_id, list(self.match.players),
                                            self.match.options, started=self.started_at,
                                            secret=self.chances.secret, **self._notes())
            self.synced = 0
        else:
            store.keep_secret(self.match_id, self.chances.secret)
        in_log = store.match(self.match_id).event_count
        while in_log > self.synced:  # taken back while unsaved
            store.pop(self.match_id)
            in_log -= 1
        if self.taken_back:  # played and taken back while unsaved
            store.keep_undone(self.match_id, self.taken_back)
            self.taken_back = []
        for seq in range(in_log, len(self.match.events)):
            store.append(self.match_id, self.match.events[seq], at=self.times[seq])
            self.synced += 1
        self.synced = len(self.match.events)
        if self.match.over:
            store.finish(self.match_id, self.match.result(),
                         at=self.times[-1] if self.times else None)
        self.store = self.log = store
        self.problem = ""

    def went_unsaved(self, err: StoreError) -> None:
        """The game log refused a write of this game (full, read-only, gone): play on
        in memory, to be written by :meth:`save_to` once saving works again."""
        log.error("the game is no longer saved: %s", err)
        self.problem = str(err) or "the game log cannot be written"
        self.store = None

    @property
    def title(self) -> str:
        return game_title(self.match.game_id)

    def apply(self, event: Event) -> None:
        """Check, commit, then apply; IllegalEvent leaves all unchanged. A log that
        refuses the write does not stop the game: the event is applied unsaved (see
        :meth:`went_unsaved`)."""
        self.match.check(event)
        played_at = self.wall_clock()
        if self.store is not None:
            try:
                self.store.append(self.match_id, event)
            except StoreError as err:
                self.went_unsaved(err)
        self.match.apply(event)
        self.times.append(played_at)
        if self.store is not None:
            self.synced = len(self.match.events)
        else:
            keep_unsaved(self.log, self)
        if self.match.over and self.store is not None:
            try:
                self.store.finish(self.match_id, self.match.result())
            except StoreError as err:
                self.went_unsaved(err)  # save_to finishes it
        self._tell(event)

    def _tell(self, event: Event, **undone: bool) -> None:
        for listener in self.listeners:
            try:
                listener(self, event, **undone)
            except Exception:  # noqa: BLE001 - a mirror going away must not stop the game
                log.exception("event listener failed")

    def undo(self) -> Event:
        """Take back the last event that counts (also from the store, which keeps it
        marked undone); returns it."""
        if not self.match.events:
            raise IllegalEvent(pgettext("screen 21xN", "nothing to undo"))
        previous = self.match.undone()
        place = len(previous.events)
        played_at = self.times[place]
        if self.store is not None:
            try:
                self.store.pop(self.match_id)  # an undone last event reopens a finished match
            except StoreError as err:
                self.went_unsaved(err)  # save_to takes it back from the log later
        undone = self.match.events[-1]
        if self.store is None and place >= self.synced:  # never in the log: kept here
            self.taken_back.append(TakenBack(place + 1, undone, played_at or self.wall_clock(),
                                             self.wall_clock()))
        self.match = previous
        del self.times[len(previous.events):]
        self.synced = min(self.synced, len(previous.events))
        if self.store is None:
            keep_unsaved(self.log, self)
        self._tell(undone, undone=True)
        return undone

    def abandon(self) -> None:
        """Stop this match for good (it is no longer offered for resume). A log that is
        read-only now (:class:`companion.gamelog.ReadOnlyLog`) notes it for later."""
        if self.log is None or self.match.over:
            return
        if not self.saved and hasattr(self.log, "abandon_session"):
            self.log.abandon_session(self)  # with what only memory holds
        elif self.match_id is not None:
            self.log.abandon(self.match_id)


def _writable(store: Any) -> Any:
    """``store`` when events can be written to it; None for a log opened read-only."""
    return None if store is None or getattr(store, "readonly", False) else store


def keep_unsaved(log: Any, session: Session) -> None:
    """Tell a read-only game log (:class:`companion.gamelog.ReadOnlyLog`) that ``session``
    was started or played unsaved, so it is written once saving works again, even when
    it has ended and left the screen by then. (Not a copy only looked at: a stale copy
    written after the one played would take its events back.)"""
    keep = getattr(log, "keep_unsaved", None)
    if keep is not None:
        keep(session)
