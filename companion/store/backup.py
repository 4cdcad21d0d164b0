"""Backups of the game log: one file a person can carry off the SD card, the checks that
make it safe to put back, and putting it back.

A backup is one zip file, ``*.companion-backup``, holding two members:

- ``companion.db``: a copy of the log made with SQLite's online backup API in one read
  transaction, so it is the log as it was at one moment, with everything committed
  (also what is still in the write-ahead log), while the device goes on writing. The
  copy is in rollback-journal mode: one self-contained SQLite file.
- ``manifest.json``: what the copy is (:func:`manifest_for`): ``format`` and
  ``format_version``, ``schema_version``, ``app_version``, ``device_id`` (null when the
  log never made one), ``created`` (Unix time) and ``created_utc``, ``counts``
  (matches, events, players, unfinished), ``db_bytes`` and the ``sha256`` of
  ``companion.db``.

Reading one back (:func:`open_backup`) checks the manifest, refuses a newer format or
schema (:class:`BackupTooNew`), extracts the copy with a size cap, compares the checksum,
runs ``PRAGMA integrity_check`` and compares the counts. :func:`install` puts a checked
copy in place, after setting the log that was there aside (renamed, never deleted) and
only while no other program has that log open (:func:`in_use`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import time
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

from companion.errors import (
    BackupError,
    BackupTooNew,
    FolderNotWritable,
    LogInUse,
    NoRoom,
    StoreError,
)
from companion.lang import _, pgettext
from companion.store import schema
from companion.store.file import Clock, StoreFile
from companion.store.records import SELECT_MATCH, MatchRecord, record
from companion.store.restoring import put_in_place
from companion.store.room import (
    FreeSpace,
    backup_needs,
    block_size,
    free_space,
    measure,
    restore_needs,
    why_not_written,
    writable_dir,
)
from companion.store.sql import fsync_dir, pragma, said, translate

__all__ = [
    "BACKUP_SUFFIX",
    "BackupError",
    "BackupTooNew",
    "FolderNotWritable",
    "FreeSpace",
    "LogInUse",
    "NoRoom",
    "Snapshots",
    "free_space",
    "in_use",
    "install",
    "open_backup",
    "restore_needs",
    "write_backup",
]

#: The file name ending of a backup.
BACKUP_SUFFIX = ".companion-backup"
FORMAT = "companion-backup"
#: The layout of the zip file this program writes; a higher one is refused.
FORMAT_VERSION = 1
DB_MEMBER = "companion.db"
MANIFEST_MEMBER = "manifest.json"
#: The largest manifest read (a real one is a few hundred bytes).
MANIFEST_MAX = 64 * 1024
#: How much is read and written at a time while copying the database.
CHUNK = 1 << 20
#: The byte of a WAL database's ``-shm`` file on which every open SQLite connection
#: holds a shared lock for as long as it is open (the "DMS" lock of SQLite's unix VFS).
_SHM_DMS_BYTE = 128
COUNTS = ("matches", "events", "players", "unfinished")


class Snapshots(StoreFile):
    """What a backup needs of an open store: a copy of the file as it is now, and every
    match (for the restore's replay check)."""

    def copy_to(self, dest: str | os.PathLike[str]) -> None:
        """Write the log as it is now into the new SQLite file ``dest``.

        One step of the backup API (``pages=-1``) is one read transaction: the copy is
        one moment of the log, whatever another connection commits meanwhile (WAL lets
        that writer go on). The copy is switched to rollback-journal mode, one file.
        It is opened for this connection alone (``locking_mode = EXCLUSIVE``), so
        SQLite keeps the copy's WAL index in memory: no 32 KB ``-shm`` file on the
        folder, which a nearly full stick may not have room for. The matches' secrets
        (:mod:`companion.chance`) never leave the device: the moment of the log is first
        copied into a private temporary database of SQLite's on the device (its temp
        folder, a few pages in memory), wiped there (``secure_delete``: no old bytes left
        in a page), and only that is copied to ``dest``, so not one write to the stick
        holds a secret, whenever it is pulled; a match restored from it draws from a new
        one.
        """
        conn = self._live()
        scratch = sqlite3.connect("", isolation_level=None)  # deleted when closed
        target = None
        try:
            conn.backup(scratch, pages=-1)
            scratch.execute("PRAGMA secure_delete = ON")
            scratch.execute("UPDATE matches SET secret = NULL WHERE secret IS NOT NULL")
            try:
                target = sqlite3.connect(dest, isolation_level=None)
            except sqlite3.Error as err:
                raise translate(err, pgettext("screen 21x8", "cannot write the backup {file}")
                                .format(file=Path(dest).name)) from err
            target.execute("PRAGMA locking_mode = EXCLUSIVE")
            scratch.backup(target, pages=-1)
            target.execute("PRAGMA journal_mode = DELETE")
        except sqlite3.Error as err:
            raise translate(err, pgettext("screen 21x8", "cannot copy the game log to {file}")
                            .format(file=Path(dest).name)) from err
        finally:
            if target is not None:
                target.close()
            scratch.close()

    def copy_size(self) -> tuple[int, int]:
        """(the bytes a copy of the log made now takes, its page size): every page of
        the log as a reader sees it, with what the write-ahead log holds."""
        with self._reading() as conn:
            page = pragma(conn, "page_size")
            return pragma(conn, "page_count") * page, page

    def every_match(self) -> list[MatchRecord]:
        """Every match in the log (finished, playing and abandoned), by id."""
        with self._reading() as conn:
            rows = conn.execute(SELECT_MATCH + " ORDER BY id").fetchall()
        return [record(row) for row in rows]


# -- writing -----------------------------------------------------------------------------


def describe(db: Path) -> dict[str, Any]:
    """What a log file holds: schema version, device id, counts, and whether SQLite
    finds it whole (``PRAGMA integrity_check``); BackupError when it is not a log."""
    try:
        conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as err:
        raise BackupError(pgettext("screen 21x8", "the backup's game log cannot be opened "
                                   "({reason})").format(reason=err)) from None
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchmany(3)]
        if problems != ["ok"]:
            raise BackupError(pgettext("screen 21x8", "the backup's game log is damaged "
                                       "({reason})").format(reason=problems[0]))
        if pragma(conn, "application_id") != schema.APPLICATION_ID:
            raise BackupError(pgettext("screen 21x8", "the backup does not hold a Tabletop "
                                       "Companion game log"))
        version = pragma(conn, "user_version")
        row = None
        if version >= 2:  # meta came with schema 2
            row = conn.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()
        counts = {
            "matches": "SELECT COUNT(*) FROM matches",
            "events": "SELECT COUNT(*) FROM events",
            "players": "SELECT COUNT(*) FROM players",
            "unfinished": "SELECT COUNT(*) FROM matches WHERE finished IS NULL"
                          " AND abandoned = 0",
        }
        return {
            "schema_version": version,
            "device_id": None if row is None else str(row[0]),
            "counts": {key: int(conn.execute(sql).fetchone()[0]) for key, sql in counts.items()},
        }
    except sqlite3.Error as err:
        raise BackupError(pgettext("screen 21x8", "the backup's game log is damaged "
                                   "({reason})").format(reason=err)) from None
    finally:
        conn.close()


def manifest_for(db: Path, *, app_version: str, now: float) -> dict[str, Any]:
    """The manifest of the log copy ``db`` (see the module docstring)."""
    about = describe(db)
    digest, size = _sha256(db)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "schema_version": about["schema_version"],
        "app_version": app_version,
        "device_id": about["device_id"],
        "created": now,
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
        "counts": about["counts"],
        "db_bytes": size,
        "sha256": digest,
    }


def write_backup(store: Snapshots, dest: str | os.PathLike[str], *, app_version: str,
                 clock: Clock = time.time, free: FreeSpace = free_space) -> dict[str, Any]:
    """Write a backup of ``store`` to the file ``dest`` and return its manifest.

    The file appears whole or not at all: it is written beside ``dest`` under a
    temporary name, synced, then renamed. Before anything is written, the folder must
    be writable and have room for the whole write (:func:`~companion.store.room.
    backup_needs`: the copy, its journal files, the archive; NoRoom otherwise). A
    failure at any step removes every file the backup wrote, ``dest`` too, and is said
    in one line: NoRoom as before writing when the folder filled up meanwhile.
    """
    dest = Path(dest)
    doing = pgettext("screen 21x8", "cannot write the backup in {folder}").format(
        folder=dest.parent)
    writable_dir(dest.parent, doing)
    copy_bytes, page_size = store.copy_size()
    needed = backup_needs(copy_bytes, page_size, block_size(dest.parent))
    measure(dest.parent, needed, doing, free)
    written = [*leftovers_of(dest), dest]
    try:
        manifest = _write_archive(store, dest, app_version, float(clock()))
        written.remove(dest)  # whole and in place: the one file that stays
    except (OSError, StoreError) as err:
        _remove(written)
        measure(dest.parent, needed, doing, free)  # the stick filled up meanwhile
        if isinstance(err, OSError):
            raise StoreError(said(pgettext("screen 21x8", "cannot write the backup {file}")
                                  .format(file=dest), why_not_written(err))) from None
        raise
    finally:
        _remove(written)  # also when stopped by a signal (KeyboardInterrupt)
    return manifest


def _write_archive(store: Snapshots, dest: Path, app_version: str,
                   now: float) -> dict[str, Any]:
    """The steps of :func:`write_backup`: the copy, its manifest, the zip beside
    ``dest``, synced, renamed to ``dest``."""
    partial, copy = _hidden(dest, ".partial"), _hidden(dest, ".db")
    store.copy_to(copy)
    manifest = manifest_for(copy, app_version=app_version, now=now)
    with open(partial, "wb") as raw:
        with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(MANIFEST_MEMBER, json.dumps(manifest, indent=2) + "\n")
            archive.write(copy, DB_MEMBER)
        raw.flush()
        os.fsync(raw.fileno())
    os.replace(partial, dest)
    fsync_dir(dest.parent)
    return manifest


def _remove(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):  # what failed is said once, by the caller
            path.unlink(missing_ok=True)


#: The endings of the hidden files a backup to NAME writes on its way (``.NAME.partial``,
#: the log's copy ``.NAME.db`` and that copy's journal files: the rollback journal, and
#: the write-ahead log and its index SQLite may open while the copy becomes one file).
LEFTOVER_ENDINGS = (".partial", ".db", ".db-journal", ".db-wal", ".db-shm")


def _hidden(dest: Path, ending: str) -> Path:
    return dest.with_name(f".{dest.name}{ending}")


def leftovers_of(dest: Path) -> list[Path]:
    """The hidden files a backup to ``dest`` writes on its way (left behind when the
    device stops halfway)."""
    return [_hidden(dest, ending) for ending in LEFTOVER_ENDINGS]


# -- reading -----------------------------------------------------------------------------


def open_backup(file: str | os.PathLike[str], work: Path, *,
                free: FreeSpace = free_space) -> dict[str, Any]:
    """Check the backup ``file`` and extract its log to ``work/companion.db``; return
    its manifest. Before extracting, the manifest's size is measured against the free
    space of ``work`` (NoRoom: nothing written). BackupTooNew for a newer companion's
    backup, BackupError for anything else wrong with it, StoreError when it cannot be
    read at all or ``work`` cannot be written."""
    path = Path(file)
    name = path.name
    if path.exists() and not path.is_file():
        # A directory, a FIFO, /dev/zero: nothing a backup could be (and a FIFO would
        # be waited on for ever).
        raise StoreError(_("{file} is not a file").format(file=path))
    try:
        with zipfile.ZipFile(path) as archive:
            manifest = _read_manifest(archive, name)
            measure(work.parent, restore_needs(manifest["db_bytes"]),
                    _("cannot restore {file}").format(file=name), free)
            with archive.open(DB_MEMBER) as member, open(work / DB_MEMBER, "wb") as out:
                digest = _copy_capped(member, out, manifest["db_bytes"], name)
    except FileNotFoundError:
        raise StoreError(_("no file {file}").format(file=path)) from None
    except (zipfile.BadZipFile, EOFError, KeyError, ValueError, NotImplementedError):
        # A zip whose data fails its own CRC, that is cut short or uses what zipfile
        # cannot read: not a backup we can trust.
        raise BackupError(_("{file} is not a companion backup, or it is damaged")
                          .format(file=name)) from None
    except OSError as err:
        raise StoreError(_("cannot read {file}: {reason}").format(
            file=path, reason=err.strerror or err)) from None
    if digest != manifest["sha256"]:
        raise BackupError(_("{file} is damaged: its game log does not match its checksum")
                          .format(file=name))
    about = describe(work / DB_MEMBER)
    if about["schema_version"] != manifest["schema_version"]:
        raise BackupError(_("{file} is damaged: its game log is schema {value}, its "
                            "manifest says {total}").format(
            file=name, value=about["schema_version"], total=manifest["schema_version"]))
    if about["counts"] != manifest["counts"]:
        raise BackupError(_("{file} is damaged: its game log holds {value}, its manifest "
                            "says {total}").format(
            file=name, value=about["counts"], total=manifest["counts"]))
    manifest["device_id"] = about["device_id"]  # the log's own word, not the manifest's
    return manifest


def _read_manifest(archive: zipfile.ZipFile, name: str) -> dict[str, Any]:
    """The manifest, checked field by field (one rule per field, one line per fault)."""
    members = set(archive.namelist())
    if MANIFEST_MEMBER not in members or DB_MEMBER not in members:
        raise BackupError(_("{file} is not a companion backup (it needs {manifest} and "
                            "{log})").format(file=name, manifest=MANIFEST_MEMBER, log=DB_MEMBER))
    if archive.getinfo(MANIFEST_MEMBER).file_size > MANIFEST_MAX:
        raise BackupError(_("{file}: its manifest is too large to be one").format(file=name))
    with archive.open(MANIFEST_MEMBER) as member:
        text = member.read(MANIFEST_MAX + 1)
    try:
        manifest = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BackupError(_("{file}: its manifest is not JSON").format(file=name)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(_("{file} is not a companion backup (its manifest says no)")
                          .format(file=name))
    for key in ("format_version", "schema_version", "db_bytes"):
        if not _count(manifest.get(key)):
            # Translators: {key} is a manifest field's name (format_version), not translated.
            raise BackupError(_("{file}: its manifest has no valid {key}").format(
                file=name, key=key))
    if manifest["format_version"] > FORMAT_VERSION or \
            manifest["schema_version"] > schema.SCHEMA_VERSION:
        raise BackupTooNew(_(
            "{file} was made by a newer companion (schema {schema}, backup format {format}; "
            "this one knows up to schema {known_schema}, format {known_format}): update the "
            "companion, then restore").format(
                file=name, schema=manifest["schema_version"],
                format=manifest["format_version"], known_schema=schema.SCHEMA_VERSION,
                known_format=FORMAT_VERSION))
    digest = manifest.get("sha256")
    if not (isinstance(digest, str) and len(digest) == 64
            and all(c in "0123456789abcdef" for c in digest)):
        raise BackupError(_("{file}: its manifest has no valid {key}").format(
            file=name, key="sha256"))
    counts = manifest.get("counts")
    if not isinstance(counts, dict) or not all(_count(counts.get(key)) for key in COUNTS):
        raise BackupError(_("{file}: its manifest has no valid {key}").format(
            file=name, key="counts"))
    manifest["counts"] = {key: counts[key] for key in COUNTS}
    # What is only shown to a person: printable and short, or left out.
    for key, longest in (("app_version", 40), ("created_utc", 40), ("device_id", 64)):
        value = manifest.get(key)
        if not (isinstance(value, str) and value.isprintable() and len(value) <= longest):
            manifest[key] = None
    return manifest


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def _copy_capped(src: BinaryIO, out: BinaryIO, size: int, name: str) -> str:
    """Copy at most ``size`` bytes (a zip can claim a small size and inflate to a
    huge one: the manifest's size is the cap); the sha256 of what was copied."""
    digest = hashlib.sha256()
    copied = 0
    while chunk := src.read(CHUNK):
        copied += len(chunk)
        if copied > size:
            raise BackupError(_("{file} is damaged: its game log is larger than its "
                                "manifest says").format(file=name))
        digest.update(chunk)
        _write(out, chunk)
    _write(out, b"")
    return digest.hexdigest()


def _write(out: BinaryIO, chunk: bytes) -> None:
    """Write a chunk of the extracted log (b"": sync it); StoreError about where it goes
    (a full card), not OSError about the backup being read."""
    try:
        if chunk:
            out.write(chunk)
        else:
            out.flush()
            os.fsync(out.fileno())
    except OSError as err:
        raise StoreError(_("cannot write the restored game log in {folder}: {reason}").format(
            folder=Path(str(out.name)).parent.parent, reason=err.strerror or err)) from None


def _sha256(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as source:
        while chunk := source.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


# -- putting one back --------------------------------------------------------------------


def in_use(db: Path) -> bool:
    """True while another process has the game log ``db`` open.

    Every SQLite connection to a WAL database holds a shared lock on one byte of its
    ``-shm`` file while it is open; a write lock on that byte is refused while any
    does. The lock is taken for an instant and given back. (Locks are per process:
    this process must have no connection to ``db`` itself.)
    """
    shm = Path(f"{db}-shm")
    try:
        fd = os.open(shm, os.O_RDWR)
    except FileNotFoundError:
        return False
    except OSError as err:
        raise StoreError(_("cannot tell whether the game log is in use: {reason}").format(
            reason=err.strerror or err)) from None
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _SHM_DMS_BYTE)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, _SHM_DMS_BYTE)
        return False
    finally:
        os.close(fd)


def refuse_in_use(db: Path) -> None:
    """LogInUse when another program has the game log open."""
    if in_use(db):
        raise LogInUse(_("the game log {file} is open in another program (the device?): "
                         "stop it first (sudo systemctl stop companion), then restore")
                       .format(file=db))


def install(checked: Path, state_dir: Path, *, clock: Clock = time.time) -> Path | None:
    """Make the checked log file ``checked`` the game log of ``state_dir``; return where
    the log that was there went (set aside with a time stamp), or None if there was
    none. ``checked`` must be on the same file system (a rename puts it in place). Run
    as root, the new log is given the state directory's owner."""
    target = state_dir / StoreFile.DEFAULT_NAME
    refuse_in_use(target)
    kept = None
    if any(Path(f"{target}{suffix}").exists() for suffix in ("", "-wal", "-shm")):
        kept = StoreFile.set_aside(target, clock=clock, label="before-restore")
    put_in_place(checked, state_dir)
    return kept
