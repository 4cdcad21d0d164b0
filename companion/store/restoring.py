"""A restore at work in the state directory, and finishing or undoing one that was cut
off (the device stopped, the power went).

``companion restore`` works in a hidden folder ``.restore-*`` of the state directory
(the same file system, so the checked copy goes in place with one rename). It holds a
lock on ``lock`` in it while it runs. Once every check has passed, the copy is renamed
``companion.db.checked``; then the game log that was there is set aside and the checked
copy takes its place. :func:`recover`, called before the game log is opened, looks at
what a restore that did not end left behind:

- a checked copy and no game log (the old one was already set aside): the restore is
  finished, the copy put in place;
- anything else (a copy half extracted or half checked, or checked while the old log is
  still in place): it is undone, the folder removed, the game log as it was.

Either way the folder (a full copy of a log) is removed and a line says what happened.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from companion.errors import StoreError
from companion.lang import pgettext
from companion.store.sql import fsync_dir

__all__ = ["CHECKED", "WORK_PREFIX", "at_work", "mark_checked", "put_in_place", "recover"]

log = logging.getLogger("companion")

WORK_PREFIX = ".restore-"
#: The copy that passed every check, ready to go in place.
CHECKED = "companion.db.checked"
#: What is being restored (the backup's file name), for the line said afterwards.
ABOUT = "restore.json"
LOCK = "lock"
LOG_NAME = "companion.db"


@contextlib.contextmanager
def at_work(state_dir: Path) -> Iterator[Path]:
    """A locked work folder in ``state_dir`` for one restore, removed afterwards."""
    try:
        work = Path(tempfile.mkdtemp(prefix=WORK_PREFIX, dir=state_dir))
    except OSError as err:
        raise StoreError(pgettext("screen 21x8", "cannot write in {folder}: {reason}").format(
            folder=state_dir, reason=err.strerror or err)) from None
    fd = -1
    try:
        fd = os.open(work / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if fd >= 0:
            os.close(fd)


def mark_checked(work: Path, copy: Path, backup_name: str) -> Path:
    """The copy ``copy`` passed every check: rename it to :data:`CHECKED` (with what it
    is), so that a restore cut off after this point is finished, not undone."""
    about = work / ABOUT
    try:
        about.write_text(json.dumps({"file": backup_name}) + "\n", encoding="utf-8")
        checked = work / CHECKED
        os.replace(copy, checked)
        fsync_dir(work)
    except OSError as err:
        raise StoreError(pgettext("screen 21x8", "cannot write in {folder}: {reason}").format(
            folder=work.parent, reason=err.strerror or err)) from None
    return checked


def put_in_place(checked: Path, state_dir: Path) -> None:
    """Make ``checked`` the game log of ``state_dir`` (none must be there). Run as root,
    it is given the state directory's owner (the device could only read it else)."""
    try:
        if os.geteuid() == 0:
            owner = state_dir.stat()
            os.chown(checked, owner.st_uid, owner.st_gid)
        os.replace(checked, state_dir / LOG_NAME)
        fsync_dir(state_dir)
    except OSError as err:
        raise StoreError(pgettext("screen 21x8", "cannot put the restored game log in place: "
                                  "{reason}").format(reason=err.strerror or err)) from err


def recover(state_dir: str | os.PathLike[str]) -> str | None:
    """Finish or undo a restore of ``state_dir`` that was cut off; a line saying which
    (None when there was none). A restore still running (its lock held) is left alone."""
    state = Path(state_dir)
    try:
        works = sorted(path for path in state.iterdir()
                       if path.name.startswith(WORK_PREFIX) and path.is_dir())
    except OSError:
        return None  # no state dir yet (or unreadable: opening the log will say so)
    said = [line for work in works if (line := _recover_one(work, state))]
    return "; ".join(said) or None


def _recover_one(work: Path, state: Path) -> str | None:
    try:
        fd = os.open(work / LOCK, os.O_RDWR)
    except FileNotFoundError:
        fd = -1  # cut off before its lock was made
    except OSError as err:
        raise StoreError(pgettext("screen 21x8", "cannot look at the restore cut off in "
                                  "{folder}: {reason}").format(
                                      folder=work, reason=err.strerror or err)) from None
    try:
        if fd >= 0:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return None  # a restore running now
        name = _backup_name(work)
        checked = work / CHECKED
        log_files = [Path(f"{state / LOG_NAME}{end}") for end in ("", "-wal", "-shm")]
        if checked.exists() and not any(path.exists() for path in log_files):
            put_in_place(checked, state)
            line = pgettext("screen 21x8", "Restore of {file} was cut off: finished now")\
                .format(file=name)
        elif checked.exists() or (work / LOG_NAME).exists():
            line = pgettext("screen 21x8", "Restore of {file} was cut off: undone, the game "
                                           "log is as it was").format(file=name)
        else:
            line = None  # it ended; only its folder was left
        try:
            shutil.rmtree(work)
        except OSError as err:
            raise StoreError(pgettext("screen 21x8", "cannot remove what a cut-off restore left in "
                                      "{folder}: {reason}").format(
                folder=work, reason=err.strerror or err)) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if line:
        log.warning("%s", line)
    return line


def _backup_name(work: Path) -> str:
    try:
        name = json.loads((work / ABOUT).read_text(encoding="utf-8"))["file"]
    except (OSError, ValueError, KeyError, TypeError):
        return "a backup"
    return name if isinstance(name, str) and name.isprintable() and len(name) <= 80 \
        else "a backup"
