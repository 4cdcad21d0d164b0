"""``companion backup`` and ``companion restore``.

The file and its checks are :mod:`companion.store.backup`, the backup itself (also the
device's own after each finished game) :mod:`companion.store.keeper`; this module adds
what needs the games (a restore replays every match through its engine before it is put
in place) and the people: the commands' lines.

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
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

from companion import games
from companion.config import SYSTEM_CONFIG, Config
from companion.errors import (
    BackupError,
    CompanionError,
    ForeignDevice,
    LogInUse,
    StoreCorrupt,
    StoreError,
)
from companion.lang import _, pgettext
from companion.store import MatchRecord, Store, restoring
from companion.store.backup import (
    DB_MEMBER,
    FreeSpace,
    free_space,
    install,
    open_backup,
    refuse_in_use,
    restore_needs,
)
from companion.store.keeper import backup_log
from companion.store.sql import translate
from companion.words import counted, size

__all__ = ["ForeignDevice", "backup_main", "restore_main"]

Clock = Callable[[], float]


#: Where the installed service keeps its game log (StateDirectory=companion in the unit).
SERVICE_STATE = Path("/var/lib/companion")


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


