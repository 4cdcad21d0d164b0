"""How a command reaches the app's owner thread from another thread, and how its
failures come back: :func:`call` posts it to the app's queue and waits for its answer
(``BUSY`` when the queue is backed up or the owner does not get to it in time; a refused
command never runs), :func:`guarded` turns every exception into :class:`RemoteError`
with one of the :data:`ERRORS` codes (a bug becomes ``INTERNAL``, logged).

Nothing here knows what a command does (that is :mod:`companion.remote.commands`).
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.errors import (
    BadSetup,
    CompanionError,
    IllegalEvent,
    RemoteError,
    StoreError,
    UnknownGame,
)
from companion.lang import _, ngettext
from companion.store import ROSTER_MAX

if TYPE_CHECKING:
    from companion.app import App

log = logging.getLogger("companion")

#: Seconds :func:`call` waits for the owner thread to start a command before it
#: answers BUSY (the thread is stuck in something long: a display that hangs).
CALL_TIMEOUT = 5.0
#: Remote commands waiting in the app's queue at once, from every transport
#: together; one more is answered BUSY rather than piling up behind the buttons.
PENDING_MAX = 8

#: The error codes of the commands, each with what it means.
ERRORS: dict[str, str] = {
    "BADARG": "the command's arguments are missing or wrong",
    "NOGAME": "no game on the screen",
    "ILLEGAL": "the game refused it: against the rules or not the moment",
    "OPEN": "a game is still open: LEAVE it first (it is kept as abandoned), or force",
    "STORE": "the game log cannot do it (no log, a name taken, disk full)",
    "FULL": f"the roster holds at most {ROSTER_MAX} names",
    "BUSY": "the device is busy; the command was not run (send it again)",
    "INTERNAL": "a bug; the device carries on (details in its log)",
}
# A refusal that brings no words of its own says what its code means.
RemoteError.meanings = ERRORS


def guarded(fn: Callable[..., Any], app: App, *args: Any, **kw: Any) -> Any:
    """``fn(app, *args)`` with every exception turned into :class:`RemoteError`."""
    try:
        return fn(app, *args, **kw)
    except RemoteError:
        raise
    except IllegalEvent as problem:
        raise RemoteError("ILLEGAL", str(problem)) from None
    except StoreError as problem:
        code = "FULL" if getattr(problem, "full", False) else "STORE"
        raise RemoteError(code, str(problem)) from None
    except (UnknownGame, BadSetup) as problem:
        raise RemoteError("BADARG", str(problem)) from None
    except CompanionError as problem:
        raise RemoteError("ILLEGAL", str(problem)) from None
    except Exception as problem:  # noqa: BLE001 - a bug must not kill the owner thread
        log.error("remote command %s failed:\n%s", getattr(fn, "__name__", fn),
                  traceback.format_exc())
        raise RemoteError("INTERNAL", f"{type(problem).__name__}: {problem}") from None


class _Pending:
    """One command posted to the app's queue; the owner thread and the caller agree
    under a lock whether it runs (it started) or not (the caller gave up first)."""

    def __init__(self, wake: threading.Event | None) -> None:
        self.lock = threading.Lock()
        self.finished = threading.Event()
        self.wake = wake or self.finished
        self.started = self.cancelled = False
        self.result: Any = None
        self.error: RemoteError | None = None

    def give_up(self) -> bool:
        """True when the command will never run; False when it has started already."""
        with self.lock:
            if not self.started:
                self.cancelled = True
            return self.cancelled


_pending_lock = threading.Lock()
_pending_count: dict[int, int] = {}


def call(app: App, fn: Callable[..., Any], *args: Any, timeout: float = CALL_TIMEOUT,
         wake: threading.Event | None = None, **kw: Any) -> Any:
    """Run ``fn(app, *args)`` on the app's owner thread and return its result, or raise
    :class:`RemoteError` (its own, or ``BUSY``). Call it from any thread but the owner.

    ``BUSY`` when :data:`PENDING_MAX` remote commands wait already, or when the owner
    thread has not started this one within ``timeout`` seconds; the command then never
    runs (the owner skips it), so a refused command has changed nothing. Once started
    it is waited for to the end. ``wake`` (cleared here) lets a transport that is
    closing stop the wait early: setting it gives up as a timeout does.
    """
    if threading.current_thread() is getattr(app, "owner", None):
        return guarded(fn, app, *args, **kw)  # on the owner already: waiting would hang
    key = id(app)
    with _pending_lock:
        if _pending_count.get(key, 0) >= PENDING_MAX:
            # Translators: {command} is the command's name, as the console types it.
            raise RemoteError("BUSY", ngettext(
                "{command} was not run: {n} command is waiting for the device already",
                "{command} was not run: {n} commands are waiting for the device already",
                PENDING_MAX).format(command=_name(fn), n=PENDING_MAX))
        _pending_count[key] = _pending_count.get(key, 0) + 1
    if wake is not None:
        wake.clear()
    pending = _Pending(wake)

    def on_owner(app: App) -> None:
        with pending.lock:
            if pending.cancelled:
                return
            pending.started = True
        try:
            pending.result = guarded(fn, app, *args, **kw)
        except RemoteError as problem:
            pending.error = problem
        finally:
            pending.finished.set()
            pending.wake.set()

    try:
        app.post("call", on_owner)
        pending.wake.wait(timeout)
        if not pending.finished.is_set():
            if pending.give_up():
                raise RemoteError("BUSY", _("{command} was not run: the device did not get "
                                            "to it within {seconds} s").format(
                                                command=_name(fn), seconds=f"{timeout:g}"))
            pending.finished.wait()  # started: it ends soon, and its answer is the truth
    finally:
        with _pending_lock:
            _pending_count[key] -= 1
            if not _pending_count[key]:
                del _pending_count[key]
    if pending.error is not None:
        raise pending.error
    return pending.result


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__name__", "the command").replace("_", " ")
