"""An SD card that can lose its power: what each file would hold after a cut now.

SQLite tests its own crash safety with a "crash VFS" (``src/test6.c``): writes that were
not yet synced are kept aside, and at a chosen moment the power goes: some of them
reach the disk, some do not, one may be torn. :class:`Card` is that model for the
companion's store; :mod:`crash_vfs` feeds it every write, sync, delete and directory
sync SQLite and the store make. Per file it keeps the bytes as they were at the last
sync plus the writes made since, and :meth:`Card.images` says what the card would hold
if the power went *now*:

- ``lost``: none of the unsynced writes reached the card;
- ``all``: every one did (only the sync itself was missing);
- ``some``: a seeded random choice of them did, and one of those only in part (some of
  its 512-byte sectors written, the rest still old: a torn write).

Directory entries are modelled too: a file created (or renamed) since the last sync of
its directory is not on the card after a cut, and a file deleted since then comes back
with what was synced of it.

The ``-shm`` file is never part of an image: it is shared memory, rebuilt from the WAL
by the first connection after a reboot.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

#: The smallest unit a card writes whole (a torn write keeps some of these, not others).
SECTOR = 512


@dataclass
class Inode:
    """One file's contents: as last synced, and the writes made since (in order).

    A pending write is (offset, bytes); a pending truncate is (size, None).
    """

    durable: bytearray = field(default_factory=bytearray)
    pending: list[tuple[int, bytes | None]] = field(default_factory=list)

    def sync(self) -> None:
        self.durable = apply_ops(self.durable, self.pending)
        self.pending = []


def apply_ops(base: bytes, ops: list[tuple[int, bytes | None]]) -> bytearray:
    """``base`` with the writes and truncates ``ops`` done to it, in order."""
    data = bytearray(base)
    for where, what in ops:
        if what is None:
            del data[where:]
            data.extend(bytes(max(0, where - len(data))))
        else:
            if len(data) < where:
                data.extend(bytes(where - len(data)))
            data[where:where + len(what)] = what
    return data


def torn(base: bytes, offset: int, data: bytes, chance: random.Random) -> tuple[int, bytes]:
    """A write of ``data`` at ``offset`` of which only some 512-byte sectors reached the
    card (at least one sector kept, at least one lost when there are two or more): the
    lost ones keep the bytes ``base`` had there (zeros past its end)."""
    first = offset // SECTOR
    last = (offset + len(data) - 1) // SECTOR
    sectors = list(range(first, last + 1))
    if len(sectors) == 1:  # a short write: only the start of it got there
        return offset, data[: chance.randrange(1, len(data))] if len(data) > 1 else data
    kept = set(chance.sample(sectors, chance.randrange(1, len(sectors))))
    old = bytes(base[offset:offset + len(data)])
    old += bytes(len(data) - len(old))
    mixed = bytearray(old)
    for sector in kept:
        lo = max(sector * SECTOR, offset) - offset
        hi = min((sector + 1) * SECTOR, offset + len(data)) - offset
        mixed[lo:hi] = data[lo:hi]
    return offset, bytes(mixed)


class Card:
    """What each file and directory entry would hold after a power cut now.

    ``live`` maps a path to the inode its directory entry points at now (None: deleted);
    ``entries`` maps it to the inode the *card's* directory entry points at (absent: the
    card has no such name). ``on_sync`` is called at every sync point, before the sync
    happens (the power may fail while the sync is on its way).
    """

    def __init__(self, seed: int = 0, on_sync: Callable[[Card], None] | None = None):
        self.live: dict[str, Inode | None] = {}
        self.entries: dict[str, Inode] = {}
        self.on_sync = on_sync
        self.chance = random.Random(seed)
        self.sync_points = 0
        self.bytes_written = 0
        self.errors: list[BaseException] = []
        #: True: SQLite's directory syncs fail to open the directory, so it skips them
        #: (what a build with SQLITE_DISABLE_DIRSYNC would do); for the test of the test.
        self.lose_directory_syncs = False

    # -- what SQLite (and the store) do to the card --

    def opened(self, path: str) -> None:
        """A file is opened (and created if it was not there)."""
        if self.live.get(path) is None:
            if path not in self.live and os.path.exists(path):
                # There before the card was plugged in: it is on the card as it is.
                inode = Inode(bytearray(Path(path).read_bytes()))
                self.entries[path] = inode
            else:
                inode = Inode()
            self.live[path] = inode

    def wrote(self, path: str, offset: int, data: bytes) -> None:
        self.bytes_written += len(data)
        self._inode(path).pending.append((offset, data))

    def truncated(self, path: str, size: int) -> None:
        self._inode(path).pending.append((size, None))

    def synced(self, path: str) -> None:
        self._inode(path).sync()

    def written_by_python(self, path: str) -> None:
        """A file Python wrote (the card saw none of its writes): what it holds now is
        one write (and a cut to its length) not yet synced."""
        data = Path(path).read_bytes()
        inode = self.live.get(path)
        if inode is None:
            inode = self.live[path] = Inode()
        inode.pending = [(len(data), None), (0, data)] if data else [(0, None)]

    def deleted(self, path: str) -> None:
        self.live[path] = None

    def renamed(self, source: str, target: str) -> None:
        if self.live.get(source) is not None:
            self.live[target] = self.live[source]
            self.live[source] = None

    def directory_synced(self, directory: str) -> None:
        """Every name in ``directory`` is on the card as it is now."""
        for path, inode in self.live.items():
            if os.path.dirname(path) == directory:
                if inode is None:
                    self.entries.pop(path, None)
                else:
                    self.entries[path] = inode

    def sync_point(self) -> None:
        self.sync_points += 1
        if self.on_sync is not None:
            self.on_sync(self)

    # -- what the card holds after a cut --

    def images(self, directory: str | os.PathLike[str]) -> list[tuple[str, dict[str, bytes]]]:
        """The files of ``directory`` after a power cut now, as (variant, {name: bytes})
        for each different outcome (see the module docstring)."""
        folder = os.fspath(directory)
        files = {path: inode for path, inode in self.entries.items()
                 if os.path.dirname(path) == folder}
        lost = {Path(p).name: bytes(i.durable) for p, i in files.items()}
        if not any(inode.pending for inode in files.values()):
            return [("lost", lost)]
        every = {Path(p).name: bytes(apply_ops(i.durable, i.pending)) for p, i in files.items()}
        some: dict[str, bytes] = {}
        kept_ops = [(path, n) for path, inode in files.items()
                    for n in range(len(inode.pending)) if self.chance.random() < 0.5]
        torn_one = self.chance.choice(kept_ops) if kept_ops else None
        kept = set(kept_ops)
        for path, inode in files.items():
            ops = []
            for n, (where, what) in enumerate(inode.pending):
                if (path, n) not in kept:
                    continue
                if (path, n) == torn_one and what is not None:
                    before = apply_ops(inode.durable, ops)
                    where, what = torn(before, where, what, self.chance)
                ops.append((where, what))
            some[Path(path).name] = bytes(apply_ops(inode.durable, ops))
        return [("lost", lost), ("all", every), ("some", some)]

    def _inode(self, path: str) -> Inode:
        inode = self.live.get(path)
        if inode is None:
            inode = self.live[path] = Inode()
        return inode
