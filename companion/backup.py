"""``companion backup``, ``companion restore``, and the device's own backups.

The file and its checks are :mod:`companion.store.backup`; this module adds what needs
the games (a restore replays every match through its engine before it is put in place)
and the people: the commands' lines, and :class:`BackupKeeper`, which writes a backup to
``[backup] dir`` after each finished game, off the owner thread, keeping the newest
``[backup] keep`` of this device's.

Exit statuses of ``companion restore`` (README, "Command line"): 0 restored; 3 the
backup is from a newer companion; 4 it is damaged or not a backup (checksum, integrity,
a match that does not replay); 5 another program (the running device) has the game log
open; 1 anything else (the state directory cannot be written, disk full); 2 bad usage.
"""

from __future__ import annotations

import json
import logging
import queue
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from companion import __version__, games
from companion.errors import CompanionError, StoreError
from companion.store import MatchRecord, Store, StoreCorrupt
from companion.store.backup import (
    BACKUP_SUFFIX,
    DB_MEMBER,
    BackupError,
    install,
    open_backup,
    refuse_in_use,
    write_backup,
)

__all__ = ["BackupKeeper", "backup_log", "backup_main", "backup_name", "restore_main"]

log = logging.getLogger("companion")
Clock = Callable[[], float]


def backup_name(device_id: str | None, now: float) -> str:
    """``companion-<device>-<UTC time to the millisecond>.companion-backup``: sorts by
    time, and tells apart the backups of several devices sharing one directory."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    return f"companion-{(device_id or 'log')[:8]}-{stamp}{int(now * 1000) % 1000:03d}Z" \
           f"{BACKUP_SUFFIX}"


def backup_log(db: Path, to: Path, *, clock: Clock = time.time) -> tuple[Path, dict[str, Any]]:
    """Back up the game log ``db`` to ``to`` (a file, or a directory to name one in);
    (the file written, its manifest). The log is opened read-only: any process may do
    this while the device plays."""
    if not db.is_file():
        raise StoreError(f"no game log in {db.parent} ({db.name} not found)")
    now = float(clock())
    with Store(db, readonly=True) as store:
        dest = to / backup_name(store.meta("device_id"), now) if to.is_dir() else to
        if dest.resolve().parent == db.resolve().parent and \
                dest.name.startswith(db.name):
            raise StoreError(f"{dest} is the game log itself (or one of its files); "
                             "choose another place for the backup")
        manifest = write_backup(store, dest, app_version=__version__, clock=lambda: now)
    return dest, manifest


def backup_main(state_dir: Path, to: str | None, default_dir: str, *, as_json: bool = False,
                out: TextIO | None = None) -> int:
    """``companion backup``: write one backup file; print where (and what it holds)."""
    out = out or sys.stdout
    target = Path(to or default_dir or ".").expanduser()
    dest, manifest = backup_log(Path(state_dir) / Store.DEFAULT_NAME, target)
    if as_json:
        print(json.dumps({"file": str(dest), **manifest}), file=out)
    else:
        counts = manifest["counts"]
        print(f"{dest}: {counts['matches']} matches, {counts['events']} events, "
              f"{counts['players']} players", file=out)
    return 0


# -- restore ---------------------------------------------------------------------------------


def restore_main(file: str, state_dir: Path, *, out: TextIO | None = None,
                 clock: Clock = time.time) -> int:
    """``companion restore FILE``: check the backup, replay every match, then make it
    the game log of ``state_dir`` (the log that was there is kept aside)."""
    out = out or sys.stdout
    state = Path(state_dir)
    try:
        state.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(f"cannot create the state directory {state}: "
                         f"{err.strerror or err}") from None
    refuse_in_use(state / Store.DEFAULT_NAME)  # at once, before any long work
    try:
        work = Path(tempfile.mkdtemp(prefix=".restore-", dir=state))
    except OSError as err:
        raise StoreError(f"cannot write in {state}: {err.strerror or err}") from None
    try:
        manifest = open_backup(file, work)
        waiting = check_replays(work / DB_MEMBER, Path(file).name)
        kept = install(work / DB_MEMBER, state, clock=clock)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    counts = manifest["counts"]
    device = manifest.get("device_id")
    made = f"made {manifest['created_utc'] or '?'} by companion {manifest['app_version'] or '?'}"
    if device is not None:
        made += f" on device {device[:8]}"
    print(f"restored {file} ({made}): {counts['matches']} matches, {counts['events']} "
          f"events, {counts['players']} players, into {state}", file=out)
    if kept is not None:
        print(f"the game log that was there is kept as {kept}", file=out)
    if waiting is not None:
        print(f"the unfinished {games.title(waiting.game_id)} ({', '.join(waiting.players)}) "
              "is offered to resume at the next start", file=out)
    return 0


def check_replays(db: Path, name: str) -> Any:
    """Replay every match of the log ``db`` through its engine (BackupError naming the
    first that fails), bring an older schema up to date, leave the file as one file
    (no -wal); the match waiting to be resumed, or None."""
    try:
        with Store(db) as store:
            for record in store.every_match():
                _check_replay(store, record, name)
            waiting = store.unfinished()
        settle = sqlite3.connect(db, isolation_level=None)
        try:
            settle.execute("PRAGMA journal_mode = DELETE")
        finally:
            settle.close()
    except sqlite3.Error as err:
        raise BackupError(f"{name}: its game log cannot be made ready ({err})") from None
    except StoreCorrupt as err:  # anything else (a full disk) is not the backup's fault
        raise BackupError(f"{name}: {err}") from None
    return waiting


def _check_replay(store: Store, record: MatchRecord, name: str) -> None:
    title = games.title(record.game_id)
    try:
        match = games.engine(record.game_id).replay(record.players, record.options,
                                                    store.events(record.id))
    except StoreError:
        raise
    except Exception as problem:  # noqa: BLE001 - whatever an engine raises, it is refused
        reason = str(problem) if isinstance(problem, CompanionError) else \
            f"{type(problem).__name__}: {problem}"
        raise BackupError(f"{name}: match {record.id} ({title}) does not replay: "
                          f"{reason}") from None
    if record.finished is not None and not record.abandoned and not match.over:
        raise BackupError(f"{name}: match {record.id} ({title}) is marked finished, "
                          "but its events do not end it")


# -- the device's own backups -------------------------------------------------------------


class BackupKeeper:
    """After each finished game, a backup of the game log ``db`` in ``directory`` (a USB
    stick, a network share), keeping the newest ``keep`` of this device's there.

    A thread of its own with its own read-only connection: the owner thread only puts a
    signal on a queue (:meth:`listener`), so the buttons never wait for a slow stick.
    A failure goes to ``on_failure`` as one line (the device shows it); nothing stops.
    """

    def __init__(self, db: Path, directory: Path, keep: int, *,
                 on_failure: Callable[[str], None], clock: Clock = time.time):
        self.db = Path(db)
        self.directory = Path(directory)
        self.keep = keep
        self.on_failure = on_failure
        self.clock = clock
        #: ("backup",), ("stop",) or ("sync", event): handled in order by the thread.
        self.queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        #: The backups written so far (for the tests and the log).
        self.written: list[Path] = []
        self._thread: threading.Thread | None = None

    def listener(self, session: Any, event: Any, undone: bool = False) -> None:
        """A :class:`~companion.session.Session` listener: a game that has just ended
        (and is in the log) gets a backup."""
        if undone or not getattr(session, "saved", False) or not session.match.over:
            return
        self.queue.put(("backup",))

    def start(self) -> BackupKeeper:
        self._thread = threading.Thread(target=self._run, name="backups", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Finish a backup asked for already, then end the thread."""
        self.queue.put(("stop",))
        if self._thread is not None:
            self._thread.join(timeout)

    def wait(self, timeout: float = 30.0) -> bool:
        """Wait until every backup asked for so far is written (or has failed)."""
        done = threading.Event()
        self.queue.put(("sync", done))
        return done.wait(timeout)

    def back_up(self) -> Path:
        """Write one backup now and prune the old ones; StoreError says why not."""
        if not self.directory.is_dir():
            raise StoreError(f"no directory {self.directory} (is the stick or share "
                             "mounted?)")
        dest, _manifest = backup_log(self.db, self.directory, clock=self.clock)
        self.written.append(dest)
        self._prune(dest)
        return dest

    def _prune(self, newest: Path) -> None:
        # Only this device's backups ("companion-<device>-"), oldest first by name.
        prefix = "-".join(newest.name.split("-")[:2]) + "-"
        # The one just written always stays, even when its time sorts first (a Pi
        # without a clock battery may start in 1970 until it finds the network time).
        mine = sorted(path for path in self.directory.iterdir()
                      if path.name.startswith(prefix) and path.name.endswith(BACKUP_SUFFIX)
                      and path != newest)
        for old in mine[: max(0, len(mine) - (self.keep - 1))]:
            try:
                old.unlink()
            except OSError as err:
                log.warning("backups: cannot remove the old backup %s: %s", old, err)

    def _run(self) -> None:
        while True:
            items = [self.queue.get()]
            while not self.queue.empty():  # games that ended meanwhile: one backup
                items.append(self.queue.get())
            if any(item[0] == "backup" for item in items):
                self._back_up_safely()
            for item in items:
                if item[0] == "sync":
                    item[1].set()
            if any(item[0] == "stop" for item in items):
                return

    def _back_up_safely(self) -> None:
        try:
            dest = self.back_up()
            log.info("backups: wrote %s", dest)
        except CompanionError as err:
            log.error("backups: %s", err)
            self.on_failure(str(err))
        except Exception as err:  # noqa: BLE001 - a backup must never stop the table
            log.exception("backups failed")
            self.on_failure(f"{type(err).__name__}: {err}")
