"""Room on a folder before a backup or a restore writes in it: is it writable, how much
the whole write takes there, and the one line that refuses it before a byte is written.

What a write takes is counted as the folder's file system stores it: every file rounded
up to whole blocks (a FAT stick's clusters may be 32 KB each), so a log of 11 KB on
such a stick takes 32 KB, not 11.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from companion.errors import FolderNotWritable, NoRoom, StoreError
from companion.lang import pgettext
from companion.store.folders import closed_on_the_way, why_not_entered, why_not_writable
from companion.store.sql import said
from companion.words import size

__all__ = [
    "FolderNotWritable",
    "FreeSpace",
    "NoRoom",
    "backup_needs",
    "block_size",
    "free_space",
    "is_folder",
    "measure",
    "no_folder",
    "restore_needs",
    "why_not_written",
    "writable_dir",
]

#: The free bytes of the file system holding a directory (injected in tests).
FreeSpace = Callable[[Path], int]

#: The block a file system is assumed to store files in when it does not say.
DEFAULT_BLOCK = 4096
#: What a backup's archive holds beyond its copy of the log: the zip's headers, its
#: central directory and the manifest (a few hundred bytes of JSON).
ARCHIVE_EXTRA = 4096


def free_space(directory: Path) -> int:
    """The bytes this program may still write in ``directory``'s file system."""
    stat = os.statvfs(directory)
    return stat.f_bavail * stat.f_frsize


def block_size(directory: Path) -> int:
    """The unit ``directory``'s file system stores files in (what a 1-byte file takes)."""
    with contextlib.suppress(OSError):
        block = os.statvfs(directory).f_frsize
        if block > 0:
            return int(block)
    return DEFAULT_BLOCK


def on_disk(length: int, block: int) -> int:
    """What a file of ``length`` bytes takes on a file system of ``block``-byte blocks."""
    return -(-length // block) * block


def backup_needs(copy_bytes: int, page_size: int, block: int) -> int:
    """The most a backup takes in its folder at any moment while it is written, each
    file in whole ``block`` bytes: the copy of the log (``copy_bytes``: its pages as
    the backup will copy them) with, first, its journal files (the rollback journal,
    at most its first pages and a header, as the copy becomes one file; the write-ahead
    log SQLite opens on the way, empty; no ``-shm``: the copy is opened for this program
    alone), then, once they are gone, the archive, counted as if nothing compressed
    (deflate's worst case adds 1 byte in 4096 and a few more)."""
    journals = on_disk(2 * page_size + 2048, block) + block
    archive = copy_bytes + copy_bytes // 4096 + copy_bytes // 16384 + ARCHIVE_EXTRA
    return on_disk(copy_bytes, block) + max(journals, on_disk(archive, block))


def restore_needs(db_bytes: int) -> int:
    """The free space a restore of a ``db_bytes`` log needs in the state directory: the
    copy, and room for bringing it up to date as it is checked (its write-ahead log)."""
    return db_bytes + db_bytes // 8 + (1 << 20)


def measure(directory: Path, needed: int, doing: str, free: FreeSpace) -> None:
    """NoRoom (one line: "needs 2.1 MB; 40 KB free") before writing ``needed`` bytes in
    ``directory``, when its file system has less than that free. ``doing`` says what
    cannot be done then ("cannot write the backup in /media/stick")."""
    try:
        have = free(directory)
    except OSError as err:
        raise StoreError(said(doing, pgettext("screen 21x8", "{folder}: {reason}").format(
            folder=directory, reason=err.strerror or err))) from None
    if needed > have:
        raise NoRoom(said(doing, pgettext("screen 21x8", "it needs {needed}; {free} free in "
                                          "{folder}").format(
            needed=size(needed, up=True), free=size(have, up=False), folder=directory)))


def is_folder(path: Path, doing: str) -> bool:
    """True when ``path`` is a folder, False when nothing is there (or a file);
    StoreError in words (``doing``, then why) when this program's user may not even
    look: a folder on the way it may not go into (a stick a desktop mounted for its
    own user under ``/media/pi``), or a stick pulled out (an I/O error)."""
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except PermissionError:
        closed = closed_on_the_way(path)
        reason = pgettext("screen 21x8", "permission denied") if closed is None \
            else why_not_entered(closed)
        raise StoreError(said(doing, reason)) from None
    except OSError as err:
        raise StoreError(said(doing, pgettext("screen 21x8", "{folder}: {reason}").format(
            folder=path, reason=err.strerror or err))) from None


def writable_dir(directory: Path, doing: str) -> None:
    """StoreError in words when nothing can be written in ``directory`` (a read-only
    stick, a folder the service may not write, a folder that is not there)."""
    if not is_folder(directory, doing):
        if not os.path.lexists(directory):
            raise StoreError(no_folder(directory))
        raise StoreError(said(doing, pgettext("screen 21x8", "it is not a directory")))
    if os.access(directory, os.W_OK):
        return
    try:
        read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    raise FolderNotWritable(said(doing, pgettext("screen 21x8", "it is read-only") if read_only
                                 else why_not_writable(directory)), read_only=read_only)


def no_folder(directory: Path) -> str:
    """A backup folder that is not there, in one line."""
    return pgettext("screen 21x8", "no directory {folder} (is the stick or share mounted?)"
                    ).format(folder=directory)


def why_not_written(err: OSError) -> str:
    """An OSError of a write as the store says it: "disk full", not the C library's
    "No space left on device"."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return pgettext("screen 21x8", "disk full")
    return str(err.strerror or err)
