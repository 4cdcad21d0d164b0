"""Where the page's data comes from: a live device, or a store that is only read.

A *source* is the one object the web app talks to (see :func:`companion.remote.web.
build_app`). It has

- ``hub``: a :class:`Hub` of :class:`Change` items (one per applied or undone event,
  one when the table's match changes, one per announcement the device makes), fanned
  out to every open stream;
- ``snapshot(started=None)``: the table now (``{"tick", "state", "events", "result"}``),
  with ``state`` as ``GET /api/state`` gives it; ``started()`` is called just before it
  is taken (see :class:`SharedSnapshot`);
- ``read(fn)``: ``fn(store)`` against the game log, from the web server's threads;
- ``command(fn, *args)``: one of :mod:`companion.remote.commands` run on the device's
  owner thread; :class:`StoreSource` refuses every write with ``READONLY``.

:class:`DeviceSource` joins a running :class:`~companion.app.App`: it listens to the
sessions (``ctx.listeners``) on the owner thread and hands each change to the server's
event loop with ``call_soon_threadsafe``; nothing here ever touches the screen.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.errors import RemoteError
from companion.lang import _
from companion.remote import commands

log = logging.getLogger("companion")

#: Items a slow page may have waiting before its stream is closed (it reconnects and
#: catches up from the log, so nothing is lost; the device never waits for it).
QUEUE_MAX = 500


@dataclass
class Change:
    """Something the table's pages must show. ``payload`` is the serial console's
    ``EV`` JSON (None when only the match on the table changed, e.g. a new game);
    ``snapshot`` the table right after it (None: none was taken)."""

    tick: int
    payload: dict[str, Any] | None
    snapshot: dict[str, Any] | None
    #: Filled by the app on the server's loop the first time a page needs it.
    cache: dict[str, str] = field(default_factory=dict)
    #: An announcement ``{"at", "language", "kind", "text"}`` the page may speak.
    said: dict[str, Any] | None = None


class Hub:
    """Fans :class:`Change` items out to the open streams (one asyncio queue each).

    :meth:`publish` may be called from any thread; everything else runs on the
    server's event loop (bound by :meth:`bind` when the server starts).
    """

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queues: set[asyncio.Queue[Change | None]] = set()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def publish(self, change: Change) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return  # no server yet (or any more): nobody is watching
        try:
            loop.call_soon_threadsafe(self._fan_out, change)
        except RuntimeError:
            pass  # the loop closed between the check and the call

    def _fan_out(self, change: Change | None) -> None:
        for queue in list(self.queues):
            if queue.qsize() >= QUEUE_MAX:
                self.queues.discard(queue)
                queue.put_nowait(None)  # this page is stuck: end its stream
            else:
                queue.put_nowait(change)

    def subscribe(self) -> asyncio.Queue[Change | None]:
        """A queue of the changes from now on (call on the server's loop)."""
        self.loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Change | None] = asyncio.Queue()
        self.queues.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[Change | None]) -> None:
        self.queues.discard(queue)

    def close(self) -> None:
        """End every open stream (the server is stopping); safe from any thread."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._fan_out, None)
            except RuntimeError:
                pass


class LockedStore:
    """A store used by one thread at a time, whichever thread asks."""

    def __init__(self, opener: Callable[[], Any]):
        self._opener = opener
        self._store: Any = None
        self._lock = threading.Lock()

    def read(self, fn: Callable[[Any], Any]) -> Any:
        with self._lock:
            if self._store is None:
                self._store = self._opener()
            return commands.guarded(lambda _app: fn(self._store), None)

    def close(self) -> None:
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.close()


class DeviceSource:
    """The live device: snapshots and commands through the app's queue, reads from a
    read-only connection of its own to the same game log (SQLite WAL lets it read
    while the owner thread writes)."""

    writable = True

    def __init__(self, app: Any, *, timeout: float = commands.CALL_TIMEOUT):
        self.app = app
        self.timeout = timeout
        self.hub = Hub()
        self._tick = 0  # changes so far; only the owner thread moves it
        self._last: Any = None  # the table's latest session (owner thread only)
        self._reader: LockedStore | None = None
        store = app.ctx.store
        path = getattr(store, "path", None)
        if store is not None and path is not None and str(path) != ":memory:":
            from companion.store import Store

            self._reader = LockedStore(lambda: Store(path, readonly=True))

    # -- on the owner thread --------------------------------------------------------

    def attach(self) -> None:
        """Start listening (call on the owner thread, or before the app runs)."""
        self.app.ctx.listeners.append(self._on_event)
        watchers = getattr(self.app, "session_watchers", None)
        if watchers is not None:
            watchers.append(self._on_session)
        timer = getattr(self.app, "timer", None)
        if timer is not None:  # a pause: the page's countdown stops with the OLED's
            timer.watchers.append(self._on_timer)
        speech = getattr(self.app.ctx, "speech", None)
        if speech is not None:  # what the device announces, for a page that speaks
            speech.outlets.append(self._on_said)

    def detach(self) -> None:
        if self._on_event in self.app.ctx.listeners:
            self.app.ctx.listeners.remove(self._on_event)
        watchers = getattr(self.app, "session_watchers", None)
        if watchers is not None and self._on_session in watchers:
            watchers.remove(self._on_session)
        timer = getattr(self.app, "timer", None)
        if timer is not None and self._on_timer in timer.watchers:
            timer.watchers.remove(self._on_timer)
        speech = getattr(self.app.ctx, "speech", None)
        if speech is not None and self._on_said in speech.outlets:
            speech.outlets.remove(self._on_said)
        if self._reader is not None:
            self._reader.close()

    def _on_event(self, session: Any, event: dict[str, Any], undone: bool = False) -> None:
        self._tick += 1
        self._last = session
        if not self.hub.queues:
            # Nobody is watching: no snapshot on the owner thread for nothing. A page
            # that opens now subscribes first, then takes its own snapshot here, after.
            return
        payload = commands.ev_payload(session, event, undone)
        self.hub.publish(Change(self._tick, payload, self._snapshot(self.app)))

    def _on_session(self, session: Any) -> None:
        if session is None and self._last is not None and self._last.match.over:
            return  # the Game over picture: the page keeps the final standings
        try:
            self._tick += 1
            self._last = session
            if not self.hub.queues:
                return  # nobody is watching (see _on_event)
            self.hub.publish(Change(self._tick, None, self._snapshot(self.app)))
        except Exception:  # noqa: BLE001 - the page must never stop the buttons
            log.exception("web page: cannot follow the new match")

    def _on_said(self, announcement: Any) -> None:
        self._tick += 1
        if self.hub.queues:  # said once: a page that opens later never hears it
            self.hub.publish(Change(self._tick, None, None, said=announcement.json()))

    def _on_timer(self) -> None:
        self._tick += 1
        if self.hub.queues:
            self.hub.publish(Change(self._tick, None, self._snapshot(self.app)))

    def table_session(self, app: Any) -> Any:
        """The match the table shows: the one on the screen, else the last one seen
        while it is finished (its standings stay up until the next game)."""
        session = app.current_session()
        if session is None and self._last is not None and self._last.match.over:
            return self._last
        return session

    def _snapshot(self, app: Any) -> dict[str, Any]:
        session = self.table_session(app)
        match = None if session is None else session.match
        return {
            "tick": self._tick,
            "state": commands.session_state(app, session),
            "events": [] if match is None else list(match.events),
            "result": None if match is None else match.result(),
            "options": {} if match is None else dict(match.options),
            "waiting": None if session is not None else commands.waiting_state(app),
        }

    # -- from the server's threads ----------------------------------------------------

    def snapshot(self, started: Callable[[], None] | None = None) -> dict[str, Any]:
        def take(app: Any) -> dict[str, Any]:
            if started is not None:
                started()
            return self._snapshot(app)

        return commands.call(self.app, take, timeout=self.timeout)

    def command(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        return commands.call(self.app, fn, *args, timeout=self.timeout, **kw)

    def read(self, fn: Callable[[Any], Any]) -> Any:
        if self._reader is not None:
            return self._reader.read(fn)

        def on_owner(app: Any) -> Any:  # a log in memory (tests): only its thread may read
            if app.ctx.store is None:
                raise RemoteError("STORE", _("this device has no game log now"))
            return fn(app.ctx.store)

        return commands.call(self.app, on_owner, timeout=self.timeout)


class StoreSource:
    """A game log that is only read (the club dashboard): no match at a table, every
    write refused with ``READONLY``. ``hub`` is there for whoever feeds the store to
    :meth:`Hub.publish` changes of its own (ticks counting up from 1: a stream sends
    only changes newer than the snapshot it started from, whose tick is 0 here)."""

    writable = False

    def __init__(self, store: Any):
        self.hub = Hub()
        self._store = LockedStore(lambda: store)

    def attach(self) -> None:
        """Nothing to listen to."""

    def detach(self) -> None:
        """The store belongs to whoever gave it."""

    def snapshot(self, started: Callable[[], None] | None = None) -> dict[str, Any]:
        if started is not None:
            started()
        return {"tick": 0, "state": {"match": None, "saved": False}, "events": [],
                "result": None, "options": {}, "waiting": None}

    def command(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        raise RemoteError("READONLY", _("this page only shows the game log; it changes "
                                        "nothing"))

    def read(self, fn: Callable[[Any], Any]) -> Any:
        return self._store.read(fn)


class _Flight:
    """One snapshot on its way: ``started`` once the device began taking it."""

    def __init__(self) -> None:
        self.started = False
        self.task: asyncio.Future[dict[str, Any]] | None = None

    def start(self) -> None:  # on the owner thread
        self.started = True


class SharedSnapshot:
    """Readers that arrive together share one snapshot of the table (single flight):
    fifty pages loading at once cost the device one snapshot, not fifty, and none of
    them is refused as BUSY.

    A reader joins a snapshot only while the device has not started taking it, so what
    it gets is never older than its own arrival (a stream subscribes to the hub first,
    then asks: nothing falls between the two). Runs on the server's event loop.
    """

    def __init__(self, source: Any):
        self.source = source
        self._flight: _Flight | None = None

    async def get(self) -> dict[str, Any]:
        flight = self._flight
        if flight is None or flight.started or flight.task is None or flight.task.done():
            flight = _Flight()
            loop = asyncio.get_running_loop()
            flight.task = loop.run_in_executor(None, self.source.snapshot, flight.start)
            # A reader that went away leaves nobody to see a refusal: not an error.
            flight.task.add_done_callback(lambda done: done.cancelled() or done.exception())
            self._flight = flight
        assert flight.task is not None
        return await asyncio.shield(flight.task)
