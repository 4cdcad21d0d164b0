"""A match being played at the table: its engine, its log on disk, and undo.

The buttons and the serial console both play through a :class:`Session`, so the same
event is checked the same way and stored the same way whoever sends it. The order is
what keeps the table honest after a power cut: the engine checks the event, the store
commits it, and only then does the match (and so the screen) move on::

    >>> session = Session.start("final-count", ["Ann", "Bob"])
    >>> session.apply({"type": "roll", "player": "Ann", "value": 6})
    >>> session.undo()["value"]
    6

Without a store (it could not be opened) a session keeps its log in memory only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.errors import IllegalEvent
from companion.games import GAMES, Event, Match, engine, new_match

Listener = Callable[["Session", Event], None]
log = logging.getLogger("companion")


class Session:
    """One match plus where its events go. ``listeners`` are called with (session,
    event) after every event is committed and applied, and with (session, event,
    undone=True) after an event is taken back (the serial mirror, the event printout of
    the simulator)."""

    def __init__(
        self,
        match: Match,
        store: Any = None,
        match_id: int | None = None,
        listeners: Sequence[Listener] = (),
    ):
        self.match = match
        self.store = store
        self.match_id = match_id
        self.listeners = listeners

    @classmethod
    def start(
        cls,
        game_id: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        store: Any = None,
        listeners: Sequence[Listener] = (),
    ) -> Session:
        """A new match, registered in the store when there is one."""
        match = new_match(game_id, players, options)
        match_id = None
        if store is not None:
            match_id = store.new_match(game_id, list(match.players), match.options)
        return cls(match, store, match_id, listeners)

    @classmethod
    def resume(cls, store: Any, match_id: int, listeners: Sequence[Listener] = ()) -> Session:
        """The stored match rebuilt from its log."""
        record = store.match(match_id)
        match = engine(record.game_id).replay(record.players, record.options,
                                              store.events(match_id))
        return cls(match, store, match_id, listeners)

    @property
    def title(self) -> str:
        return next(info.title for info in GAMES if info.game_id == self.match.game_id)

    def apply(self, event: Event) -> None:
        """Check, commit, then apply; IllegalEvent (or StoreError) leaves all unchanged."""
        self.match.check(event)
        if self.store is not None:
            self.store.append(self.match_id, event)
        self.match.apply(event)
        if self.match.over and self.store is not None:
            self.store.finish(self.match_id, self.match.result())
        self._tell(event)

    def _tell(self, event: Event, **undone: bool) -> None:
        for listener in self.listeners:
            try:
                listener(self, event, **undone)
            except Exception:  # noqa: BLE001 - a mirror going away must not stop the game
                log.exception("event listener failed")

    def undo(self) -> Event:
        """Take back the last event (also from the store); returns it."""
        if not self.match.events:
            raise IllegalEvent("nothing to undo")
        previous = self.match.undone()
        if self.store is not None:
            self.store.pop(self.match_id)  # an undone last event reopens a finished match
        undone = self.match.events[-1]
        self.match = previous
        self._tell(undone, undone=True)
        return undone

    def abandon(self) -> None:
        """Stop this match for good (it is no longer offered for resume)."""
        if self.store is not None and not self.match.over:
            self.store.abandon(self.match_id)
