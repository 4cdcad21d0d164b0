"""Who may write a folder, said so a person can act on it: whom a backup folder belongs
to, and what would let this program's user write it. A FAT or exFAT stick has no owners
of its own (its mount options say who may write it); any other file system's folder is
given to the user with chown. deploy/install.sh says the same at install time.

    >>> mount_of(Path("/media/stick/companion"), MOUNTINFO_EXAMPLE.splitlines())
    Mount(kind='vfat', device='/dev/sda1', point='/media/stick')
"""

from __future__ import annotations

import os
import pwd
import re
import shlex
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from companion.lang import pgettext

#: File systems without Unix owners: who may write them is a mount option.
NO_OWNERS = frozenset({"vfat", "msdos", "exfat", "ntfs", "ntfs3", "fuseblk"})
#: The mounts this process sees (its own namespace: the service's, under systemd).
MOUNTINFO = Path("/proc/self/mountinfo")
MOUNTINFO_EXAMPLE = (
    "22 1 179:2 / / rw,noatime shared:1 - ext4 /dev/root rw\n"
    "40 22 8:1 / /media/stick rw,relatime shared:2 - vfat /dev/sda1 rw,fmask=0022\n")


class Mount(NamedTuple):
    kind: str    # the file system type, as mount names it (vfat, ext4)
    device: str  # what is mounted (/dev/sda1)
    point: str   # where (/media/stick)


def mount_of(path: Path, lines: Iterable[str] | None = None) -> Mount | None:
    """The mount that holds ``path`` (the longest mount point above it), from the
    lines of /proc/self/mountinfo; None when they cannot be read."""
    if lines is None:
        try:
            lines = MOUNTINFO.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return None
    target = os.path.normpath(os.path.abspath(path))
    best: Mount | None = None
    for line in lines:
        fields = line.split()
        if "-" not in fields[6:]:
            continue
        dash = fields.index("-", 6)
        if len(fields) < dash + 3:
            continue
        point = _unescaped(fields[4])
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best.point)):
            best = Mount(fields[dash + 1], _unescaped(fields[dash + 2]), point)
    return best


def _unescaped(field: str) -> str:
    """A mountinfo field with its octal escapes (``\\040`` for a space) undone."""
    return re.sub(r"\\([0-7]{3})", lambda octal: chr(int(octal.group(1), 8)), field)


def _name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except (KeyError, OverflowError):
        return str(uid)


def why_not_writable(directory: Path, uid: int | None = None,
                     mounts: Iterable[str] | None = None) -> str:
    """Why the user ``uid`` (this process's) may not write ``directory``, and what would
    let them, in one line: "it belongs to root, not companion: mount /dev/sda1 with
    uid=companion,gid=companion"; "permission denied" when even that cannot be said."""
    try:
        info = directory.stat()
    except OSError:
        return pgettext("screen 21x8", "permission denied")
    user = _name(os.geteuid() if uid is None else uid)
    owner = _name(info.st_uid)
    mount = mount_of(directory, mounts)
    if mount is not None and mount.kind in NO_OWNERS:
        # Translators: {device} is what is mounted (/dev/sda1), uid= and gid= are mount
        # options, typed as they are.
        fix = pgettext("screen 21x8", "mount {device} with uid={user},gid={user}").format(
            device=mount.device, user=user)
    elif owner == user:
        fix = f"chmod u+w {shlex.quote(str(directory))}"
    else:
        # Quoted as a shell takes it: a folder with a space is one argument.
        fix = f"sudo chown {user}: {shlex.quote(str(directory))}"
    if owner == user:
        # Translators: {mode} is the folder's permissions in octal (555).
        return pgettext("screen 21x8", "its mode {mode} does not let {user} write it: {fix}") \
            .format(mode=f"{stat.S_IMODE(info.st_mode):o}", user=user, fix=fix)
    return pgettext("screen 21x8", "it belongs to {owner}, not {user}: {fix}").format(
        owner=owner, user=user, fix=fix)


def closed_on_the_way(path: Path) -> Path | None:
    """The outermost folder on the way to ``path`` (``path`` itself included) that this
    program's user may not go into (``/media/pi``, ``/home/pi``: a stick a desktop
    mounted for its own user), None when every one lets it."""
    target = Path(os.path.abspath(path))
    for folder in [*reversed(target.parents), target]:
        try:
            if folder.is_dir() and not os.access(folder, os.X_OK):
                return folder
        except OSError:
            return folder
    return None


def why_not_entered(folder: Path, uid: int | None = None) -> str:
    """Why the user ``uid`` (this process's) cannot reach anything inside ``folder``,
    in one line: "companion may not go into /media/pi (it belongs to root, mode 700)"."""
    user = _name(os.geteuid() if uid is None else uid)
    try:
        info = folder.stat()
    except OSError:
        return pgettext("screen 21x8", "permission denied")
    # Translators: {mode} is the folder's permissions in octal (700); {folder} a whole path.
    return pgettext("screen 21x8", "{user} may not go into {folder} (it belongs to {owner}, "
                    "mode {mode})").format(user=user, folder=folder, owner=_name(info.st_uid),
                                           mode=f"{stat.S_IMODE(info.st_mode):o}")
