"""``companion backup``, ``companion restore``, and the device's own backups.

The file and its checks are :mod:`companion.store.backup`; this module adds what needs
the games (a restore replays every match through its engine before it is put in place)
and the people: the commands' lines, and :class:`BackupKeeper`, which writes a backup to
``[backup] dir`` after each finished game, off the owner thread, keeping the newest
``[backup] keep`` of this device's.

Exit statuses of ``companion restore`` (README, "Command line"): 0 restored; 3 the
backup is from a newer companion; 4 it is damaged or not a backup (checksum, integrity,
a match that does not replay); 5 another program (the running device) has the game log
open; 6 the backup was made by another device, this card has games of its own and
neither ``--keep-id`` nor ``--take-id`` says which id this device is to have (a fresh
card, with no game log or one without a game, takes the backup's id); 1 anything else (the state
directory cannot be written, not enough free space: measured before anything is
written); 2 bad usage.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import sqlite3
import stat
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

from companion import __version__, games
from companion.config import SYSTEM_CONFIG, Config
from companion.errors import (
    BackupError,
    CompanionError,
    FolderNotWritable,
    ForeignDevice,
    LogInUse,
    StoreCorrupt,
    StoreError,
)
from companion.lang import _, pgettext
from companion.store import MatchRecord, Store, restoring
from companion.store.backup import (
    BACKUP_SUFFIX,
    DB_MEMBER,
    FORMAT,
    LEFTOVER_ENDINGS,
    MANIFEST_MAX,
    MANIFEST_MEMBER,
    FreeSpace,
    free_space,
    install,
    open_backup,
    refuse_in_use,
    restore_needs,
    write_backup,
)
from companion.store.room import is_folder, no_folder
from companion.store.sql import READ, translate
from companion.words import counted, size

__all__ = ["BackupKeeper", "ForeignDevice", "backup_log", "backup_main", "backup_name",
           "restore_main"]

log = logging.getLogger("companion")
Clock = Callable[[], float]


#: Where the installed service keeps its game log (StateDirectory=companion in the unit).
SERVICE_STATE = Path("/var/lib/companion")
#: The drop-in deploy/install.sh writes to let the service write ``[backup] dir``.
BACKUP_DROPIN = Path("/etc/systemd/system/companion.service.d/backup-dir.conf")
#: What a path the unit's drop-in can name may not hold (deploy/install.sh refuses it):
#: a space, a quote, a backslash or a percent sign.
_UNSAYABLE = re.compile(r"""[\s"'\\%]""")


def devices_state_dir(config: Config, env: Mapping[str, str] | None = None, *,
                      service: Path = SERVICE_STATE) -> Path:
    """Where ``backup`` and ``restore`` find the game log without ``--state-dir``: on an
    installed device (its configuration is /etc/companion/config.toml, the service's
    state dir is there) the service's, whoever runs them (``sudo -u companion``, ``sudo``);
    else the state dir every command uses (README, "Command line")."""
    env = os.environ if env is None else env
    installed = config.source == str(SYSTEM_CONFIG) and service.is_dir()
    if installed and not config.state.dir and not env.get("STATE_DIRECTORY"):
        return service
    return config.state_dir(dict(env))


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


def backup_main(state_dir: Path, to: str | None, default_dir: str, *, as_json: bool = False,
                out: TextIO | None = None) -> int:
    """``companion backup``: write one backup file; print where (and what it holds)."""
    out = out or sys.stdout
    target = Path(to or default_dir or ".").expanduser()
    dest, manifest = backup_log(Path(state_dir) / Store.DEFAULT_NAME, target)
    if as_json:
        print(json.dumps({"file": str(dest), **manifest}), file=out)
    else:
        print(f"{dest}: {_counts(manifest['counts'])}", file=out)
    return 0


# -- restore ---------------------------------------------------------------------------------


def restore_main(file: str, state_dir: Path, *, ids: str | None = None,
                 out: TextIO | None = None, clock: Clock = time.time,
                 free: FreeSpace = free_space) -> int:
    """``companion restore FILE``: check the backup, replay every match, then make it
    the game log of ``state_dir`` (the log that was there is kept aside). ``ids`` is
    the owner's word on a backup made by another device: "keep" (this device keeps its
    own id) or "take" (it takes the old one over, as its replacement)."""
    out = out or sys.stdout
    state = Path(state_dir)
    try:
        state.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(pgettext("screen 21x8", "cannot create the state directory {folder}: "
                                  "{reason}").format(folder=state, reason=err.strerror or err)
                         ) from None
    target = state / Store.DEFAULT_NAME
    refuse_in_use(target)  # at once, before any long work
    recovered = restoring.recover(state)  # a restore cut off before: finished or undone
    if recovered:
        print(recovered, file=out)
    own_id, own_games = _own_log(target)
    name = Path(file).name
    with restoring.at_work(state) as work:
        manifest = open_backup(file, work, free=free)
        try:
            waiting = check_replays(work / DB_MEMBER, name)
            their_id = manifest["device_id"]
            keep = _which_id(name, own_id, their_id, ids, fresh=not own_games)
            if keep:
                _set_device_id(work / DB_MEMBER, own_id, name)
            checked = restoring.mark_checked(work, work / DB_MEMBER, name)
            kept = install(checked, state, clock=clock)
        except StoreError as err:
            _said_as_a_full_card(err, state, restore_needs(manifest["db_bytes"]), free)
            raise
    when, version = manifest["created_utc"] or "?", manifest["app_version"] or "?"
    made = (_("made {when} by companion {version}") if their_id is None else
            _("made {when} by companion {version} on device {device}")).format(
        when=when, version=version, device=(their_id or "")[:8])
    print(_("restored {file} ({made}): {counts}, into {folder}").format(
        file=file, made=made, counts=_counts(manifest["counts"]), folder=state), file=out)
    if kept is not None:
        print(_("the game log that was there is kept as {file}").format(file=kept), file=out)
    if their_id is not None and their_id != own_id:
        print(_id_outcome(own_id, their_id, keep, fresh=not own_games), file=out)
    if waiting is not None:
        # Translators: {game} is a game's name as its rule sheet prints it (Final Count).
        print(_("the unfinished {game} ({names}) is offered to resume at the next start")
              .format(game=games.title(waiting.game_id), names=", ".join(waiting.players)),
              file=out)
    return 0


def _counts(counts: Mapping[str, int]) -> str:
    """What a backup holds: "12 matches, 340 events, 4 players" ("1 match")."""
    # Translators: what a backup holds: "12 matches, 340 events, 4 players".
    return _("{matches}, {events}, {players}").format(
        matches=counted(counts["matches"], "match"), events=counted(counts["events"], "event"),
        players=counted(counts["players"], "player"))


def _said_as_a_full_card(err: StoreError, state: Path, needed: int, free: FreeSpace) -> None:
    """A write that failed because the card filled meanwhile (another program wrote):
    SQLite says "disk I/O error" then; the person is told the card is full."""
    if isinstance(err, BackupError | ForeignDevice | LogInUse):
        return
    try:
        have = free(state) + _bytes_under(state)  # what the restore's own files took back
    except OSError:
        return
    if have < needed:
        raise StoreError(_("cannot restore: the card is full ({free} free in {folder}; it "
                           "needs {needed})").format(free=size(have, up=False), folder=state,
                                                     needed=size(needed, up=True))) from None


def _bytes_under(state: Path) -> int:
    """The bytes of a restore's work folder still in ``state`` (freed once it is gone)."""
    return sum(path.stat().st_size for work in state.glob(f"{restoring.WORK_PREFIX}*")
               for path in work.iterdir() if path.is_file())


def _own_log(db: Path) -> tuple[str | None, int]:
    """(this device's id, how many matches its game log holds), from the log in place
    ((None, 0): no log; an id of None: it never made one). Nothing else has the log
    open (the restore checked): a plain connection, whose close leaves no -wal or -shm
    behind."""
    if not db.is_file():
        return None, 0
    try:
        conn = sqlite3.connect(db, isolation_level=None)
        try:
            games = int(conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
            row = conn.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        # No meta (an old log) or unreadable: no id to keep. Games it may hold are set
        # aside with it, never lost, but the owner is asked which id to keep.
        return None, 1
    return (None if row is None else str(row[0])), games


def _which_id(name: str, own_id: str | None, their_id: str | None, ids: str | None, *,
              fresh: bool) -> bool:
    """True when the restored log is to carry this device's own id. A backup made by
    another device needs the owner's word (ForeignDevice, before anything is put in
    place), unless this card is ``fresh`` (no game log, or one without a game: a new
    card for a device whose card died), which takes the backup's id. One from this
    device, or one without an id, needs none."""
    if their_id is None or their_id == own_id:
        return their_id is None and own_id is not None
    if ids is None and fresh:
        return False
    if ids is None:
        said = (_("this backup was made by device {device} (this one is {own}): add "
                  "--keep-id to keep this device's own id, or --take-id to take that one over "
                  "as its replacement") if own_id else
                _("this backup was made by device {device} (this card has games of its own, "
                  "and no id yet): add --keep-id to give this card an id of its own, or "
                  "--take-id to take that one over as its replacement"))
        raise ForeignDevice(said.format(device=their_id[:8], own=(own_id or "")[:8]))
    return ids == "keep"


def _set_device_id(db: Path, device_id: str | None, name: str) -> None:
    """Give the restored log ``device_id`` (None: a new one is made at the next start)."""
    with Store(db) as store:
        store.set_meta("device_id", device_id)
    _settle(db, name)


def _id_outcome(own_id: str | None, their_id: str, keep: bool, *, fresh: bool) -> str:
    if keep and own_id:
        return _("this device keeps its own id {own}; the backup's games stay marked as "
                 "played on {device}").format(own=own_id[:8], device=their_id[:8])
    if keep:
        return _("this device keeps a new id of its own at the next start; the backup's "
                 "games stay marked as played on {device}").format(device=their_id[:8])
    if fresh:
        # Translators: a new SD card took over the id of the device the backup was made
        # on (its card died); {device} is that id's first 8 characters.
        return _("this card is now device {device}").format(device=their_id[:8])
    return _("this device now has the id {device} of the device that made the backup, as its "
             "replacement: do not run that one with it any more").format(device=their_id[:8])


def check_replays(db: Path, name: str) -> Any:
    """Replay every match of the log ``db`` through its engine (BackupError naming the
    first that fails), bring an older schema up to date, leave the file as one file
    (no -wal); the match waiting to be resumed, or None."""
    try:
        with Store(db) as store:
            for record in store.every_match():
                _check_replay(store, record, name)
            waiting = store.unfinished()
    except StoreCorrupt as err:  # anything else (a full disk) is not the backup's fault
        raise BackupError(f"{name}: {err}") from None
    _settle(db, name)
    return waiting


def _settle(db: Path, name: str) -> None:
    """Leave the log ``db`` as one file (no -wal). A full card is said as such (exit 1),
    only a damaged file is the backup's fault (exit 4)."""
    try:
        settle = sqlite3.connect(db, isolation_level=None)
        try:
            settle.execute("PRAGMA journal_mode = DELETE")
        finally:
            settle.close()
    except sqlite3.Error as err:
        problem = translate(err, _("cannot make the restored game log ready in {folder}")
                            .format(folder=db.parent))
        if isinstance(problem, StoreCorrupt):
            raise BackupError(_("{file}: its game log cannot be made ready ({reason})")
                              .format(file=name, reason=err)) from None
        raise problem from None


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
        raise BackupError(_("{file}: match {n} ({game}) does not replay: {reason}").format(
            file=name, n=record.id, game=title, reason=reason)) from None
    if record.finished is not None and not record.abandoned and not match.over:
        raise BackupError(_("{file}: match {n} ({game}) is marked finished, but its events "
                            "do not end it").format(file=name, n=record.id, game=title))


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
