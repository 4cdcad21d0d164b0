"""A SQLite VFS over the library the stdlib ``sqlite3`` runs on, that tells a
:class:`crash_card.Card` what reaches the disk.

``sqlite3`` calls into the system's ``libsqlite3.so.0`` on Debian, so a VFS registered in
that same library (through :mod:`ctypes`) is one the store can open with
``?vfs=crash-card``. The VFS wraps the default ``unix`` VFS: every read and write goes to
the real file at once (so the running program sees a normal disk), and the card is told
of each write, truncate, sync and delete.

SQLite's ``unix`` VFS syncs a directory the first time it syncs a journal or WAL it
created, and when ``xDelete`` is asked to; it opens the directory through its
``openDirectory`` system call, which this layer replaces (through ``xSetSystemCall``,
only while a card is plugged in) to see each one, or, with
:attr:`Card.lose_directory_syncs`, to make SQLite skip them. The companion's own
directory syncs (``os.fsync`` on a directory, as the store's ``fsync_dir`` does) and its
``os.rename``/``os.replace`` are seen by wrapping those functions while
:func:`plugged_in` is active.

Why ctypes and not APSW's ``apsw.VFS``: the APSW wheel embeds a private SQLite that the
stdlib module never sees, and building APSW against the system library fetches SQLite's
source from sqlite.org and wants a newer SQLite than Debian 12's 3.40. ctypes needs
neither, only that ``sqlite3`` is linked to a shared ``libsqlite3`` (checked: otherwise
:class:`CardUnavailable`).
"""

from __future__ import annotations

import ctypes
import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from ctypes import CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int64, c_void_p
from dataclasses import dataclass
from typing import Any

from crash_card import Card

VFS_NAME = "crash-card"

SQLITE_OK = 0
SQLITE_IOERR = 10
SQLITE_CANTOPEN = 14
SQLITE_OPEN_DELETEONCLOSE = 0x00000008


class CardUnavailable(RuntimeError):
    """The crash layer cannot load here (the reason says why)."""


# -- ctypes structures of sqlite3.h -----------------------------------------------------

_xClose = CFUNCTYPE(c_int, c_void_p)
_xRead = CFUNCTYPE(c_int, c_void_p, c_void_p, c_int, c_int64)
_xWrite = CFUNCTYPE(c_int, c_void_p, c_void_p, c_int, c_int64)
_xTruncate = CFUNCTYPE(c_int, c_void_p, c_int64)
_xSync = CFUNCTYPE(c_int, c_void_p, c_int)
_xFileSize = CFUNCTYPE(c_int, c_void_p, POINTER(c_int64))
_xLock = CFUNCTYPE(c_int, c_void_p, c_int)
_xCheckReservedLock = CFUNCTYPE(c_int, c_void_p, POINTER(c_int))
_xFileControl = CFUNCTYPE(c_int, c_void_p, c_int, c_void_p)
_xSectorSize = CFUNCTYPE(c_int, c_void_p)
_xShmMap = CFUNCTYPE(c_int, c_void_p, c_int, c_int, c_int, c_void_p)
_xShmLock = CFUNCTYPE(c_int, c_void_p, c_int, c_int, c_int)
_xShmBarrier = CFUNCTYPE(None, c_void_p)
_xShmUnmap = CFUNCTYPE(c_int, c_void_p, c_int)


class _IoMethods(Structure):
    # Version 2 (shared memory for WAL; no xFetch/xUnfetch, so no memory-mapped I/O
    # that would bypass xWrite).
    _fields_ = [
        ("iVersion", c_int),
        ("xClose", _xClose),
        ("xRead", _xRead),
        ("xWrite", _xWrite),
        ("xTruncate", _xTruncate),
        ("xSync", _xSync),
        ("xFileSize", _xFileSize),
        ("xLock", _xLock),
        ("xUnlock", _xLock),
        ("xCheckReservedLock", _xCheckReservedLock),
        ("xFileControl", _xFileControl),
        ("xSectorSize", _xSectorSize),
        ("xDeviceCharacteristics", _xSectorSize),
        ("xShmMap", _xShmMap),
        ("xShmLock", _xShmLock),
        ("xShmBarrier", _xShmBarrier),
        ("xShmUnmap", _xShmUnmap),
    ]


_xOpen = CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_int, POINTER(c_int))
_xDelete = CFUNCTYPE(c_int, c_void_p, c_char_p, c_int)


class _Vfs(Structure):
    _fields_ = [
        ("iVersion", c_int),
        ("szOsFile", c_int),
        ("mxPathname", c_int),
        ("pNext", c_void_p),
        ("zName", c_char_p),
        ("pAppData", c_void_p),
        ("xOpen", _xOpen),
        ("xDelete", _xDelete),
        # The rest are taken over from the unix VFS as they are.
        *[(name, c_void_p) for name in (
            "xAccess", "xFullPathname", "xDlOpen", "xDlError", "xDlSym", "xDlClose",
            "xRandomness", "xSleep", "xCurrentTime", "xGetLastError",
            "xCurrentTimeInt64", "xSetSystemCall", "xGetSystemCall", "xNextSystemCall")],
    ]


#: Our sqlite3_file: [our io methods pointer][our handle number][the unix file].
_HEAD = 16


_xSetSystemCall = CFUNCTYPE(c_int, c_void_p, c_char_p, c_void_p)
_xGetSystemCall = CFUNCTYPE(c_void_p, c_void_p, c_char_p)
#: The unix VFS's ``static int openDirectory(const char *zFilename, int *pFd)``.
_openDirectory = CFUNCTYPE(c_int, c_char_p, POINTER(c_int))


@dataclass
class _Handle:
    path: str | None  # None: a temporary file, not on the card
    real: _IoMethods


def _system_sqlite() -> ctypes.CDLL:
    """The SQLite library the stdlib ``sqlite3`` module runs on, or CardUnavailable."""
    import _sqlite3  # noqa: F401 - loads the library so it shows in the maps

    with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
        paths = {line.split()[-1] for line in maps if "libsqlite3" in line}
    if len(paths) != 1:
        raise CardUnavailable(
            "the stdlib sqlite3 module is not linked to a shared libsqlite3 (found "
            f"{sorted(paths) or 'none'}), so no VFS can be added to the SQLite it uses")
    lib = ctypes.CDLL(paths.pop())
    lib.sqlite3_libversion.restype = c_char_p
    lib.sqlite3_vfs_find.restype = c_void_p
    lib.sqlite3_vfs_find.argtypes = [c_char_p]
    lib.sqlite3_vfs_register.argtypes = [c_void_p, c_int]
    version = lib.sqlite3_libversion().decode()
    if version != sqlite3.sqlite_version:
        raise CardUnavailable(f"libsqlite3 {version} is not the {sqlite3.sqlite_version} "
                              "the sqlite3 module reports")
    return lib


class _CrashVfs:
    """The registered VFS; it forwards to the unix VFS and tells :attr:`card`."""

    def __init__(self) -> None:
        lib = self.lib = _system_sqlite()
        unix_ptr = lib.sqlite3_vfs_find(None)
        if not unix_ptr:
            raise CardUnavailable("SQLite has no default VFS")
        self.unix_ptr = unix_ptr
        self.unix = _Vfs.from_address(unix_ptr)
        self.card: Card | None = None
        self.handles: dict[int, _Handle] = {}
        self.next_handle = 1
        self.opens = 0
        # The card hears of closes, writes, truncates and syncs; the rest go straight
        # through to the unix file behind our head.
        told = {"xClose": self._close, "xWrite": self._write, "xTruncate": self._truncate,
                "xSync": self._sync}
        self.methods = _IoMethods(2, *[
            prototype(told.get(name) or self._forward(name, void=prototype is _xShmBarrier))
            for name, prototype in _IoMethods._fields_[1:]])
        self.vfs = _Vfs()
        ctypes.memmove(ctypes.addressof(self.vfs), unix_ptr, ctypes.sizeof(_Vfs))
        self.name = VFS_NAME.encode()
        self.vfs.zName = self.name
        self.vfs.pNext = None
        self.vfs.szOsFile = _HEAD + self.unix.szOsFile
        self.vfs.xOpen = _xOpen(self._open)
        self.vfs.xDelete = _xDelete(self._delete)
        self._watch_directory_syncs()
        if lib.sqlite3_vfs_register(ctypes.addressof(self.vfs), 0) != SQLITE_OK:
            raise CardUnavailable("SQLite refused to register the crash VFS")

    def _watch_directory_syncs(self) -> None:
        """A replacement for the unix VFS's ``openDirectory``: SQLite opens a directory
        only to fsync it, so each call is a directory sync (or, on request, a skipped
        one). Installed only while a card is plugged in (:meth:`watch`)."""
        if not (self.unix.iVersion >= 3 and self.unix.xGetSystemCall):
            raise CardUnavailable("the unix VFS does not let its system calls be replaced")
        get = _xGetSystemCall(self.unix.xGetSystemCall)
        self.real_open_directory = get(self.unix_ptr, b"openDirectory")
        if not self.real_open_directory:
            raise CardUnavailable("the unix VFS has no openDirectory system call")
        real = _openDirectory(self.real_open_directory)

        def open_directory(path: bytes, fd: object) -> int:
            card = self.card
            if card is not None and card.lose_directory_syncs:
                return SQLITE_CANTOPEN  # unixSync and unixDelete then skip the fsync
            rc = real(path, fd)
            if rc == SQLITE_OK and card is not None:
                card.directory_synced(os.path.dirname(os.path.abspath(path.decode())))
            return rc

        self.open_directory = _openDirectory(lambda p, fd: self._guard(
            lambda: open_directory(p, fd)))
        self.set_system_call = _xSetSystemCall(self.unix.xSetSystemCall)

    def watch(self, on: bool) -> None:
        """Put the watching ``openDirectory`` in (True) or the real one back (False)."""
        pointer = (ctypes.cast(self.open_directory, c_void_p) if on
                   else c_void_p(self.real_open_directory))
        if self.set_system_call(self.unix_ptr, b"openDirectory", pointer) != SQLITE_OK:
            raise CardUnavailable("the unix VFS refused a replaced openDirectory")

    # -- guarded: an exception in a callback is kept and becomes an I/O error --

    def _guard(self, work: Callable[[], int]) -> int:
        try:
            return work()
        except BaseException as err:  # noqa: BLE001 - must not cross into C
            if self.card is not None:
                self.card.errors.append(err)
            return SQLITE_IOERR

    def _handle(self, file: int) -> _Handle:
        return self.handles[c_int64.from_address(file + 8).value]

    # -- sqlite3_vfs --

    def _open(self, vfs: int, name: int | None, file: int, flags: int,
              out_flags: object) -> int:
        def work() -> int:
            self.opens += 1
            path = None
            if name and not flags & SQLITE_OPEN_DELETEONCLOSE:
                path = os.path.abspath(ctypes.string_at(name).decode())
            if path is not None and self.card is not None:
                self.card.opened(path)
            # The real file goes after our head; the name pointer is passed on as it
            # came (SQLite reads URI parameters that follow it in memory).
            rc = self.unix.xOpen(self.unix_ptr, name, file + _HEAD, flags, out_flags)
            real_ptr = c_void_p.from_address(file + _HEAD).value
            if rc != SQLITE_OK or not real_ptr:
                c_void_p.from_address(file).value = None
                return rc
            number = self.next_handle
            self.next_handle += 1
            self.handles[number] = _Handle(path, _IoMethods.from_address(real_ptr))
            c_void_p.from_address(file).value = ctypes.addressof(self.methods)
            c_int64.from_address(file + 8).value = number
            return rc
        return self._guard(work)

    def _delete(self, vfs: int, name: bytes, sync_dir: int) -> int:
        def work() -> int:
            if self.card is not None:  # before: a directory sync inside sees it gone
                self.card.deleted(os.path.abspath(name.decode()))
            return self.unix.xDelete(self.unix_ptr, name, sync_dir)
        return self._guard(work)

    # -- sqlite3_io_methods: forwarded, with the card told about writes and syncs --

    def _close(self, file: int) -> int:
        def work() -> int:
            handle = self._handle(file)
            rc = handle.real.xClose(file + _HEAD)
            del self.handles[c_int64.from_address(file + 8).value]
            return rc
        return self._guard(work)

    def _forward(self, name: str, void: bool = False) -> Callable[..., Any]:
        """A callback for the io method ``name`` that calls the unix file's own."""
        def forward(file: int, *args: Any) -> int | None:
            def work() -> int:
                rc = getattr(self._handle(file).real, name)(file + _HEAD, *args)
                return SQLITE_OK if void else rc
            rc = self._guard(work)
            return None if void else rc
        return forward

    def _write(self, file: int, buf: int, amount: int, offset: int) -> int:
        def work() -> int:
            handle = self._handle(file)
            rc = handle.real.xWrite(file + _HEAD, buf, amount, offset)
            if rc == SQLITE_OK and handle.path is not None and self.card is not None:
                self.card.wrote(handle.path, offset, ctypes.string_at(buf, amount))
            return rc
        return self._guard(work)

    def _truncate(self, file: int, size: int) -> int:
        def work() -> int:
            handle = self._handle(file)
            rc = handle.real.xTruncate(file + _HEAD, size)
            if rc == SQLITE_OK and handle.path is not None and self.card is not None:
                self.card.truncated(handle.path, size)
            return rc
        return self._guard(work)

    def _sync(self, file: int, flags: int) -> int:
        def work() -> int:
            handle = self._handle(file)
            card = self.card if handle.path is not None else None
            if card is not None:
                card.sync_point()
            rc = handle.real.xSync(file + _HEAD, flags)
            if rc == SQLITE_OK and card is not None:
                card.synced(handle.path)
            return rc
        return self._guard(work)


_LOADED: _CrashVfs | CardUnavailable | None = None


def crash_vfs() -> _CrashVfs:
    """The crash VFS, registered once per process; CardUnavailable if it cannot be."""
    global _LOADED
    if _LOADED is None:
        try:
            _LOADED = _CrashVfs()
        except (CardUnavailable, OSError, AttributeError) as err:
            _LOADED = err if isinstance(err, CardUnavailable) else CardUnavailable(str(err))
    if isinstance(_LOADED, CardUnavailable):
        raise _LOADED
    return _LOADED


def crash_vfs_or_skip() -> _CrashVfs:
    """:func:`crash_vfs` for a test: where it cannot load, CI fails (the test must run
    there) and elsewhere the test is skipped, saying why."""
    import pytest

    try:
        return crash_vfs()
    except CardUnavailable as why:
        message = f"the crash layer cannot load here: {why}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def plugged_in(card: Card, *, every_connection: bool = False) -> Iterator[_CrashVfs]:
    """Files opened with ``?vfs=crash-card`` inside go through ``card``; directory
    syncs, renames and deletes made by Python (``os.fsync`` on a directory,
    ``os.rename``, ``os.replace``, ``os.unlink``) are told to it too.

    ``every_connection``: the crash VFS is SQLite's default while plugged in, so that
    every connection goes through the card (a backup's copy, a restore's checks), and
    a file Python writes itself (a backup's zip, a restore's extracted copy) is on the
    card once Python fsyncs it: its content then is one write not yet synced until the
    sync returns (renamed before any sync, it is all unsynced). Set ``vfs.card`` to None
    for a while to do what the card must not see (booting an image)."""
    vfs = crash_vfs()
    real = {"fsync": os.fsync, "rename": os.rename, "replace": os.replace,
            "unlink": os.unlink, "remove": os.remove}

    def fsync(fd: int) -> None:
        now = vfs.card
        if now is None:
            real["fsync"](fd)
        elif stat.S_ISDIR(os.fstat(fd).st_mode):
            real["fsync"](fd)
            now.directory_synced(os.path.abspath(os.readlink(f"/proc/self/fd/{fd}")))
        elif every_connection:  # a file Python wrote: it reaches the card now
            path = os.readlink(f"/proc/self/fd/{fd}")
            now.written_by_python(path)
            now.sync_point()
            real["fsync"](fd)
            now.synced(path)
        else:
            real["fsync"](fd)

    def moving(name: str) -> Callable[..., None]:
        def move(source: object, target: object, **kw: object) -> None:
            now = vfs.card
            old = os.path.abspath(os.fspath(source))  # type: ignore[arg-type]
            if now is not None and every_connection and now.live.get(old) is None \
                    and os.path.isfile(old):
                now.written_by_python(old)
            real[name](source, target, **kw)
            if now is not None:
                now.renamed(old, os.path.abspath(os.fspath(target)))  # type: ignore[arg-type]
        return move

    def unlinking(name: str) -> Callable[..., None]:
        def unlink(path: Any, *, dir_fd: int | None = None) -> None:
            where = os.readlink(f"/proc/self/fd/{dir_fd}") if dir_fd is not None else ""
            full = os.path.abspath(os.path.join(where, os.fspath(path)))
            real[name](path, dir_fd=dir_fd)
            if vfs.card is not None:
                vfs.card.deleted(full)
        return unlink

    vfs.card = card
    vfs.watch(True)
    if every_connection:
        vfs.lib.sqlite3_vfs_register(ctypes.addressof(vfs.vfs), 1)
    os.fsync, os.rename, os.replace = fsync, moving("rename"), moving("replace")
    os.unlink, os.remove = unlinking("unlink"), unlinking("remove")
    try:
        yield vfs
    finally:
        os.fsync, os.rename, os.replace = real["fsync"], real["rename"], real["replace"]
        os.unlink, os.remove = real["unlink"], real["remove"]
        if every_connection:
            vfs.lib.sqlite3_vfs_register(vfs.unix_ptr, 1)
        vfs.watch(False)
        vfs.card = None
