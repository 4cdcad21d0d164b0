"""The device's own backups: one written after each finished game to ``[backup] dir``,
off the owner thread, keeping the newest ``[backup] keep`` of this device's, and the
backup of the game log any command or the table page makes (:func:`backup_log`,
:func:`backup_name`).

The file and its checks are :mod:`companion.store.backup`; ``companion backup`` and
``companion restore`` are :mod:`companion.commands.backup`.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import sqlite3
import stat
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion import __version__
from companion.errors import CompanionError, FolderNotWritable, StoreError
from companion.lang import _, pgettext
from companion.store import Store
from companion.store.backup import (
    BACKUP_SUFFIX,
    FORMAT,
    LEFTOVER_ENDINGS,
    MANIFEST_MAX,
    MANIFEST_MEMBER,
    FreeSpace,
    free_space,
    write_backup,
)
from companion.store.room import is_folder, no_folder
from companion.store.sql import READ, translate

__all__ = ["BackupKeeper", "backup_log", "backup_name"]

log = logging.getLogger("companion")
Clock = Callable[[], float]

#: The drop-in deploy/install.sh writes to let the service write ``[backup] dir``.
BACKUP_DROPIN = Path("/etc/systemd/system/companion.service.d/backup-dir.conf")
#: What a path the unit's drop-in can name may not hold (deploy/install.sh refuses it):
#: a space, a quote, a backslash or a percent sign.
_UNSAYABLE = re.compile(r"""[\s"'\\%]""")


def backup_name(device_id: str | None, now: float) -> str:
    """``companion-<device>-<UTC time to the millisecond>.companion-backup``: sorts by
    time, and tells apart the backups of several devices sharing one directory."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    return f"companion-{(device_id or 'log')[:8]}-{stamp}{int(now * 1000) % 1000:03d}Z" \
           f"{BACKUP_SUFFIX}"


def backup_log(db: Path, to: Path, *, clock: Clock = time.time,
               free: FreeSpace = free_space) -> tuple[Path, dict[str, Any]]:
    """Back up the game log ``db`` to ``to`` (a file, or a directory to name one in);
    (the file written, its manifest). The log is opened read-only: any process may do
    this while the device plays. A folder that cannot be written, or has no room for
    the copy, is refused before anything is written (one line)."""
    if db.parent.is_dir() and not os.access(db.parent, os.R_OK | os.X_OK):
        raise StoreError(pgettext("screen 21x8", "cannot read the game log in {folder}: "
                                  "permission denied (run it as the user that owns {folder}, "
                                  "e.g. sudo -u companion)").format(folder=db.parent))
    if not db.is_file():
        raise StoreError(pgettext("screen 21x8", "no game log in {folder} ({file} not found)")
                         .format(folder=db.parent, file=db.name))
    now = float(clock())
    doing = pgettext("screen 21x8", "cannot write the backup in {folder}").format(folder=to)
    with Store(db, readonly=True) as store:
        dest = to / backup_name(store.meta("device_id"), now) if is_folder(to, doing) else to
        if dest.resolve().parent == db.resolve().parent and \
                dest.name.startswith(db.name):
            raise StoreError(_("{file} is the game log itself (or one of its files); "
                               "choose another place for the backup").format(file=dest))
        _refuse_to_replace(dest)
        manifest = write_backup(store, dest, app_version=__version__, clock=lambda: now,
                                free=free)
    return dest, manifest


def _refuse_to_replace(dest: Path) -> None:
    """StoreError when ``dest`` is there and is not a backup the new one may take the
    place of: a device or a pipe (as root, ``--to /dev/null`` put a zip file where the
    system's /dev/null was), or a file of another kind (``--to notes.txt``)."""
    try:
        kind = dest.lstat().st_mode
    except FileNotFoundError:
        return
    if not (stat.S_ISREG(kind) or stat.S_ISLNK(kind)):
        raise StoreError(_("{file} is not a file").format(file=dest))
    if not dest.name.endswith(BACKUP_SUFFIX) and \
            (_manifest_of(dest) or {}).get("format") != FORMAT:
        raise StoreError(_("{file} is there already and is no backup: choose another name "
                           "for the backup").format(file=dest))


def _manifest_of(backup: Path) -> dict[str, Any] | None:
    """The manifest of the backup ``backup`` as it says it (None: not a backup)."""
    try:
        with zipfile.ZipFile(backup) as archive:
            if archive.getinfo(MANIFEST_MEMBER).file_size > MANIFEST_MAX:
                return None
            manifest = json.loads(archive.read(MANIFEST_MEMBER))
    except (OSError, zipfile.BadZipFile, KeyError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


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
        #: How many games had ended when a backup was last tried (None: not yet).
        self._attempted: int | None = None

    def listener(self, session: Any, event: Any, undone: bool = False) -> None:
        """A :class:`~companion.session.Session` listener: a game that has just ended
        (and is in the log) gets a backup."""
        if undone or not getattr(session, "saved", False) or not session.match.over:
            return
        self.queue.put(("backup",))

    def start(self) -> BackupKeeper:
        self.queue.put(("start",))  # first, on the thread: what a stop left undone
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
        self._attempted = self._ended_now()
        if not is_folder(self.directory, self._doing()):
            raise StoreError(no_folder(self.directory))
        dest, _manifest = backup_log(self.db, self.directory, clock=self.clock)
        self.written.append(dest)
        self._prune(dest)
        return dest

    def catch_up(self) -> Path | None:
        """At start: remove what a backup cut off by a stop (or a power cut) left in the
        folder, and back up the games that ended after this device's newest backup there
        (the game that had just ended when the device was stopped); the backup written,
        or None. A folder that is not there (the stick is out) is left to the next game."""
        try:
            if not is_folder(self.directory, self._doing()):
                return None
        except StoreError:
            return None  # a folder it may not go into: said by the next game's backup
        prefix = self._prefix()
        for path in self.directory.iterdir():
            if path.name.startswith(f".{prefix}") and any(
                    path.name.endswith(BACKUP_SUFFIX + end) for end in LEFTOVER_ENDINGS):
                try:
                    path.unlink()
                    log.warning("backups: removed %s, left by a backup cut off", path.name)
                except OSError as err:
                    log.warning("backups: cannot remove %s: %s", path, err)
        newest = max(self._mine(prefix), default=None)
        ended = _ended(self.db)
        if ended > (_ended_in_backup(newest) if newest else 0):
            return self.back_up()
        self._attempted = ended  # the newest backup holds every game ended so far
        return None

    def _doing(self) -> str:
        return pgettext("screen 21x8", "cannot write the backup in {folder}").format(
            folder=self.directory)

    def _prefix(self) -> str:
        """``companion-<device>-``: how this device's backups are named."""
        with Store(self.db, readonly=True) as store:
            return _device_prefix(backup_name(store.meta("device_id"), 0.0))

    def _mine(self, prefix: str) -> list[Path]:
        return [path for path in self.directory.iterdir()
                if path.name.startswith(prefix) and path.name.endswith(BACKUP_SUFFIX)]

    def _prune(self, newest: Path) -> None:
        # Only this device's backups ("companion-<device>-"), oldest first by name.
        prefix = _device_prefix(newest.name)
        # The one just written always stays, even when its time sorts first (a Pi
        # without a clock battery may start in 1970 until it finds the network time).
        mine = sorted(path for path in self._mine(prefix) if path != newest)
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
            if any(item[0] == "start" for item in items):
                self._back_up_safely(self.catch_up)
            if any(item[0] == "backup" for item in items) and not self._tried_now():
                self._back_up_safely(self.back_up)
            for item in items:
                if item[0] == "sync":
                    item[1].set()
            if any(item[0] == "stop" for item in items):
                return

    def _under_systemd(self, line: str) -> str:
        """What fixes a read-only backup folder for the service: ProtectSystem= keeps
        every folder read-only that the installer did not let it write (running the
        installer again helps); one it did is mounted read-only, or was mounted after
        the service started (running the installer again would not help)."""
        if _UNSAYABLE.search(str(self.directory)):
            # deploy/install.sh refuses such a folder: running it again cannot help.
            return pgettext("screen 21x8", "{reason} (the service can only be let write a "
                            "folder whose path has no spaces, quotes, \\ or %: choose another "
                            "[backup] dir)").format(reason=line)
        try:
            let = BACKUP_DROPIN.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            let = []
        if f"ReadWritePaths=-{os.path.normpath(self.directory)}" in let:
            return pgettext("screen 21x8", "{reason} (mounted after companion started? sudo "
                            "systemctl restart companion)").format(reason=line)
        return pgettext("screen 21x8", "{reason} (run sudo deploy/install.sh again: "
                        "it lets the service write it)").format(reason=line)

    def _tried_now(self) -> bool:
        """True when a backup of every game ended by now was tried already (written, or
        failed and said), or the newest backup holds them: a game's end that the catch-up
        at start took in, or that ended with others in one turn, is neither written
        twice nor its failure said twice."""
        return self._attempted is not None and self._attempted >= self._ended_now()

    def _ended_now(self) -> int:
        try:
            return _ended(self.db)
        except StoreError:
            return -1

    def _back_up_safely(self, how: Callable[[], Path | None]) -> bool:
        """Run ``how``; True when it wrote a backup. A failure is one line, never more."""
        try:
            dest = how()
        except CompanionError as err:
            line = str(err)
            if isinstance(err, FolderNotWritable) and err.read_only \
                    and os.environ.get("STATE_DIRECTORY"):
                line = self._under_systemd(line)
            log.error("backups: %s", line)
            self.on_failure(line)
        except Exception as err:  # noqa: BLE001 - a backup must never stop the table
            log.exception("backups failed")
            self.on_failure(f"{type(err).__name__}: {err}")
        else:
            if dest is not None:
                log.info("backups: wrote %s", dest)
                return True
        return False


def _device_prefix(name: str) -> str:
    """``companion-<device>-`` of a backup's file name: which device's backups it is."""
    return "-".join(name.split("-")[:2]) + "-"


def _ended(db: Path) -> int:
    """How many matches of the log ``db`` have ended (finished or abandoned)."""
    try:
        conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM matches WHERE finished IS NOT NULL"
                                    " OR abandoned != 0").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error as err:
        raise translate(err, READ) from None


def _ended_in_backup(backup: Path) -> int:
    """How many ended matches the backup ``backup`` holds, by its manifest (0 when it
    cannot be read: a new backup is then the safe side)."""
    try:
        counts = (_manifest_of(backup) or {})["counts"]
        return int(counts["matches"]) - int(counts["unfinished"])
    except (KeyError, ValueError, TypeError):
        return 0
