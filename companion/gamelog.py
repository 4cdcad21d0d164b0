"""The game log as the device holds it while it runs: written to, or, while the storage
cannot be written (read-only, full), read only, with a retry until saving works again.

Storage that cannot be written must never look like storage that works. So
:class:`GameLog` says at every moment whether games are saved (:attr:`GameLog.problem`
is "" when they are, else why not); the screens show a mark in the header while they
are not (:meth:`companion.ui.screen.Screen.render`). Meanwhile the log is opened for
reading when it can be (an unfinished game is still offered: to look at, or to play
on unsaved), and :meth:`GameLog.retry` tries to open it for writing again every
:attr:`GameLog.retry_every` seconds on the app's clock (a deadline the app's loop
sleeps until, never a polling loop)::

    log = GameLog.open(state_dir, clock)
    if log.problem:                       # "cannot write the game log: disk full"
        ...                               # every screen shows the mark
    if log.due(clock()) and log.retry(clock()):
        ...                               # saving works again: say so

When it comes back, what was played unsaved is written (:meth:`GameLog.retry`):
the game on the screen, and the games ended (abandoned) meanwhile, each event with the
time it was played.

Storage that goes away during play (the card fills up mid-game) takes the same path:
the game's session plays on unsaved, and :meth:`GameLog.lost` turns the log read-only
with the same mark and retry as at start. One path for "storage went away", whenever.

Quitting while events wait to be written loses them (:func:`unsaved_events` counts
them; the app asks first where a person can answer). So that the next start can say
what was lost even though the card was full, :class:`LostNote` keeps a small file of
its own in the state directory, made while there is room and later only overwritten
in place, which needs no free space.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from companion.errors import StoreError
from companion.lang import _

log = logging.getLogger("companion")

__all__ = ["GameLog", "LostNote", "ReadOnlyLog", "unsaved_events"]


Opener = Callable[[Path], tuple[Any, "str | None"]]
Reader = Callable[[Path], Any]


class ReadOnlyLog:
    """The game log opened for reading while it cannot be written: everything a screen
    reads works (the unfinished game, history, the roster); a write is refused with the
    store's own "read-only" error, except :meth:`abandon`, which is noted and done when
    saving works again (ending a game must not wait for the storage)."""

    readonly = True

    def __init__(self, store: Any):
        self._store = store
        #: Matches to mark abandoned once the log can be written.
        self.later: list[int] = []
        #: Games ended while unsaved (sessions): written, then marked abandoned, then.
        self.ended: list[Any] = []
        #: Every game played (partly) unsaved (sessions), written then: also one that
        #: ended meanwhile and is no longer on the screen.
        self.kept: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def abandon(self, match_id: int) -> None:
        if match_id not in self.later:
            self.later.append(match_id)

    def abandon_session(self, session: Any) -> None:
        """A game played (partly) unsaved was ended: kept, to be written with what only
        memory holds and marked abandoned once the log can be written."""
        if session not in self.ended:
            self.ended.append(session)

    def keep_unsaved(self, session: Any) -> None:
        """``session`` plays unsaved: written with what only memory holds once the log
        can be written, wherever it is then (a game over left for the home menu too)."""
        if session not in self.kept:
            self.kept.append(session)

    def unfinished(self) -> Any:
        """The newest unfinished match not ended meanwhile (None if none)."""
        record = self._store.unfinished()
        ended = set(self.later) | {session.match_id for session in self.ended}
        ended |= {session.match_id for session in self.kept if session.match.over}
        return None if record is None or record.id in ended else record


class GameLog:
    """Whether games are saved, the store to read (and write while they are), and the
    retry while they are not. Build it with :meth:`open`."""

    #: Seconds between attempts to write again while the storage refuses.
    retry_every = 30.0

    def __init__(self, state_dir: Path | None, *, opener: Opener | None = None,
                 reader: Reader | None = None):
        self.state_dir = state_dir
        #: The store screens use: writable, a :class:`ReadOnlyLog`, or None.
        self.store: Any = None
        #: Why games are not saved now ("" when they are, or when no log was asked for).
        self.problem = ""
        #: A line for the screen at start ("" when there is nothing to say).
        self.notice = ""
        #: When to try writing again (None: not trying).
        self.retry_at: float | None = None
        #: Where a quit that loses events says so for the next start (None: no log).
        self.note: LostNote | None = None
        self._opener = opener or _open_writable
        self._reader = reader or _open_readonly

    @classmethod
    def open(cls, state_dir: Path | None, now: float, **kw: Any) -> GameLog:
        """The log in ``state_dir`` (None: no log, nothing is saved and nothing is
        marked), opened for writing if it can be, else for reading with a retry."""
        game_log = cls(state_dir, **kw)
        if state_dir is None:
            return game_log
        from companion.errors import StoreTooNew

        try:
            store, message = game_log._opener(state_dir)
        except StoreTooNew as err:
            game_log._read_only(str(err), None)  # a newer version's file: no retry helps
        except StoreError as err:
            game_log._read_only(str(err), now + game_log.retry_every)
        else:
            game_log.store = store
            if message:
                log.error("%s", message)
                game_log.notice = message
        if game_log.problem:
            log.error("games are not saved: %s", game_log.problem)
            game_log.notice = _("Games are not saved: {problem}").format(
                problem=game_log.problem)
        game_log.note = LostNote(state_dir)
        said = game_log.note.read()
        if said:
            log.error("%s", said)
            game_log.notice = " ".join(filter(None, [said, game_log.notice]))
        if game_log.saving:  # room now: the note is cleared (said once) or made
            game_log.note.clear()
        return game_log

    @property
    def saving(self) -> bool:
        """True when what is played is written to the log."""
        return self.store is not None and not self.problem

    def due(self, now: float) -> bool:
        return self.retry_at is not None and now >= self.retry_at

    def retry(self, now: float, session: Any = None) -> bool:
        """Try to write again; True when saving works again. ``session`` (the game on
        the screen) is written first, with the games ended meanwhile: saving only
        counts as back when all of that is in the log."""
        assert self.state_dir is not None
        try:
            store, _ = self._opener(self.state_dir)
        except StoreError as err:
            self.problem = str(err)
            self.retry_at = now + self.retry_every
            return False
        try:
            for match_id in getattr(self.store, "later", ()):
                _abandon(store, match_id)
            for ended in getattr(self.store, "ended", ()):
                ended.save_to(store)
                _abandon(store, ended.match_id)
            for kept in getattr(self.store, "kept", ()):
                if not kept.saved:
                    kept.save_to(store)
            if session is not None and not session.saved:
                session.save_to(store)
        except StoreError as err:
            store.close()
            self.problem = str(err)
            self.retry_at = now + self.retry_every
            return False
        old, self.store = self.store, store
        if old is not None:
            old.close()
        self.problem = ""
        self.retry_at = None
        log.warning("games are saved again")
        return True

    def lost(self, problem: str, now: float) -> None:
        """A write failed during play (``problem`` says why): from now on as if the
        storage had refused at start, read-only with a retry every :attr:`retry_every`
        seconds. Called once; later failures wait for the retry."""
        if self.problem or self.state_dir is None:
            return
        writable = self.store
        self._read_only(problem, now + self.retry_every)
        if writable is not None and writable is not self.store:
            writable.close()
        log.error("games are not saved: %s", problem)

    def sessions(self, session: Any = None) -> list[Any]:
        """Every game that may hold what only memory holds: ``session`` (the one on the
        screen or left), those kept while unsaved and those ended meanwhile."""
        found = [] if session is None else [session]
        for kept in (*getattr(self.store, "kept", ()), *getattr(self.store, "ended", ())):
            if kept not in found:
                found.append(kept)
        return found

    def quit_losing(self, session: Any = None) -> int:
        """Quitting with events unsaved: say what is lost in the journal and in the
        note for the next start; how many events that is."""
        if self.state_dir is None or not self.problem:
            return 0
        sessions = self.sessions(session)
        count = unsaved_events(sessions)
        if count:
            log.error("quitting while games are not saved (%s): %s are lost",
                      self.problem, lost_words(count, sessions))
            if self.note is not None:
                self.note.write(count, sessions, self.problem)
        return count

    def close(self) -> None:
        if self.store is not None:
            self.store.close()

    def _read_only(self, problem: str, retry_at: float | None) -> None:
        self.problem = problem
        self.retry_at = retry_at
        try:
            self.store = ReadOnlyLog(self._reader(self.state_dir))  # type: ignore[arg-type]
        except StoreError as err:
            log.info("the game log cannot be read either: %s", err)
            self.store = None


def _open_writable(state_dir: Path) -> tuple[Any, str | None]:
    """The log in ``state_dir`` for writing, proved by a write (a full disk opens fine
    and fails at the first event otherwise)."""
    import time

    from companion.store import Store

    store, message = Store.open_or_set_aside(state_dir)
    try:
        store.set_meta("written", f"{time.time():.0f}")
    except StoreError:
        store.close()
        raise
    return store, message


def _open_readonly(state_dir: Path) -> Any:
    from companion.store import Store

    return Store(Path(state_dir) / Store.DEFAULT_NAME, readonly=True)


def _abandon(store: Any, match_id: int) -> None:
    """Mark a match ended while unsaved abandoned, unless it is over meanwhile."""
    record = store.match(match_id)
    if record.finished is None and not record.abandoned:
        store.abandon(match_id)


def unsaved_events(sessions: Iterable[Any]) -> int:
    """How many events only memory holds in ``sessions`` (the log has not taken them)."""
    return sum(len(session.match.events) - session.synced
               for session in sessions if not session.saved)


def lost_words(count: int, sessions: Iterable[Any]) -> str:
    """``10 events of Final Count`` (the games that hold them), for the journal and
    the next start."""
    from companion.words import counted

    titles = []
    for session in sessions:
        if not session.saved and len(session.match.events) > session.synced \
                and session.title not in titles:
            titles.append(session.title)
    return f"{counted(count, 'event')} of {' and '.join(titles) or 'a game'}"


class LostNote:
    """A file of :attr:`SIZE` bytes in the state directory that says, at the next start,
    what a quit lost. It is made (spaces) while the card has room, and written later
    only in place: overwriting blocks a file owns needs no free space, so it works on
    the full card that lost the events. Best effort: a card that turned read-only
    takes nothing, and the quit still says what is lost on the screen and the journal.
    """

    NAME = "companion.lost"
    SIZE = 4096

    def __init__(self, state_dir: Path):
        self.path = Path(state_dir) / self.NAME

    def read(self) -> str:
        """What the last quit lost, in words ("" when nothing was)."""
        try:
            with open(self.path, "rb") as file:
                text = file.read(self.SIZE).decode("utf-8").strip()
            said = json.loads(text) if text else {}
            lost = str(said["lost"])[:200]
            problem = str(said.get("problem", ""))[:200]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return ""  # no note, or not ours: nothing to say
        why = f" ({problem})" if problem else ""
        return (f"Not saved last time: {lost} were lost when the game log could not "
                f"be written{why}. Games resume from before them.")

    def clear(self) -> None:
        """Make the note (or blank it after it was said), while there is room; a blank
        note is left as it is (no card write at every start)."""
        try:
            if self.path.read_bytes() == b" " * self.SIZE:
                return
        except OSError:
            pass  # not made yet
        self._put(b"")

    def write(self, count: int, sessions: Iterable[Any], problem: str) -> None:
        """Say what is lost, in place."""
        said = {"lost": lost_words(count, sessions), "problem": problem[:200],
                "at": round(time.time())}
        self._put(json.dumps(said, ensure_ascii=False).encode("utf-8")[: self.SIZE])

    def _put(self, data: bytes) -> None:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600)
        except OSError as err:
            log.info("cannot keep a note of unsaved games in %s: %s", self.path, err)
            return
        try:
            os.write(fd, data.ljust(self.SIZE, b" "))
            os.fsync(fd)
        except OSError as err:
            log.info("cannot keep a note of unsaved games in %s: %s", self.path, err)
        finally:
            os.close(fd)
