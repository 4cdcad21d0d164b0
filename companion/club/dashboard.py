"""``companion club``: the club's dashboard, subscribed to every table.

A :class:`Dashboard` is one thread that owns the dashboard's store and a
:class:`~companion.club.receiver.Receiver`; paho's thread only posts what arrives. Its
broker session is persistent (the client id is kept in the store), so the broker queues
every table's messages while the dashboard is down and delivers them when it is back.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.club import wire
from companion.club.receiver import Receiver
from companion.errors import CompanionError, StoreError

log = logging.getLogger("companion.club")


class Dashboard:
    """Keeps every table's matches in ``state_dir``'s store, from ``broker_url``."""

    def __init__(
        self,
        broker_url: str,
        state_dir: str | Path,
        *,
        username: str = "",
        password: str = "",
        ca_file: str = "",
        sync_every: float = 3.0,
        retry: tuple[float, float] = (0.5, 10.0),
    ):
        self.broker = wire.Broker.parse(broker_url)
        self.state_dir = Path(state_dir)
        self.auth = {"username": username, "password": password, "ca_file": ca_file}
        self.sync_every = sync_every
        self.retry = retry
        self.queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self.up = threading.Event()
        self.ready = threading.Event()
        self.error: str | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._snapshot: dict[str, Any] = {"tables": {}}
        #: Called from the dashboard's thread after anything changed (the web page).
        self.on_change: Callable[[dict[str, Any]], None] = lambda snapshot: None

    @property
    def db_path(self) -> Path:
        from companion.store import Store

        return self.state_dir / Store.DEFAULT_NAME

    def start(self) -> Dashboard:
        """Open the store and connect (in the background); raises if the store fails."""
        self._thread = threading.Thread(target=self._run, name="club-dashboard", daemon=True)
        self._thread.start()
        self.ready.wait()
        if self.error:
            raise CompanionError(self.error)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.queue.put(("stop",))
        if self._thread is not None:
            self._thread.join(timeout)

    def snapshot(self) -> dict[str, Any]:
        """Every table now (safe from any thread)."""
        with self._lock:
            return self._snapshot

    def call(self, fn: Callable[[Receiver], Any]) -> None:
        """Run ``fn(receiver)`` on the dashboard's thread (tests, the bench)."""
        self.queue.put(("call", fn))

    def post(self, *item: Any) -> None:
        self.queue.put(item)

    # -- the dashboard's thread --------------------------------------------------------

    def _run(self) -> None:
        from companion.club.mqtt import BrokerLink
        from companion.store import Store

        try:
            store = Store.in_dir(self.state_dir)
            link = BrokerLink(
                self.broker, f"companion-club-{store.device_id()[:12]}", self.post,
                subscribe=wire.DASHBOARD_TOPICS, persistent=True, retry=self.retry,
                **self.auth)
        except (StoreError, CompanionError) as err:
            self.error = str(err)
            self.ready.set()
            return
        receiver = Receiver(store, lambda topic, data: link.publish(topic, data),
                            sync_every=self.sync_every)
        receiver.changed = lambda uid: self._changed(receiver)
        self.ready.set()
        link.start()
        try:
            self._loop(receiver)
        finally:
            link.stop()
            store.close()

    def _loop(self, receiver: Receiver) -> None:
        while True:
            timeout = self.sync_every if receiver.any_behind() else None
            try:
                item = self.queue.get(timeout=timeout)
            except queue.Empty:
                receiver.behind()
                continue
            kind = item[0]
            if kind == "stop":
                return
            try:
                if kind == "message":
                    receiver.handle(item[1], item[2])
                elif kind == "call":
                    item[1](receiver)
                elif kind == "up":
                    self.up.set()
                    log.info("club: connected to %s", self.broker)
                elif kind == "down":
                    self.up.clear()
                    log.warning("club: lost the broker %s; retrying", self.broker)
            except StoreError as err:
                log.error("club dashboard: %s", err)
            except Exception:  # noqa: BLE001 - one bad message must not stop the club
                log.exception("club dashboard failed on %r", kind)

    def _changed(self, receiver: Receiver) -> None:
        snapshot = receiver.snapshot()
        with self._lock:
            self._snapshot = snapshot
        self.on_change(snapshot)

