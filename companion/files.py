"""Reading a text file a person named on the command line: one rule for all of them.

A path can name anything: ``/dev/zero`` reads forever, a FIFO blocks until someone
writes, a directory fails with an odd message. So a configuration or a button script
is read only from a regular file, and only up to a size that such a file never
reaches; anything else is one clear line::

    >>> try:
    ...     read_text_file("/dev/zero", 1024, "the configuration")
    ... except UnreadableFile as refused:
    ...     print(refused)
    /dev/zero: the configuration must be a regular file (this is a character device)
"""

from __future__ import annotations

import os
import stat

from companion.errors import CompanionError

#: What a path names, for the message when it is not a regular file.
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a pipe"),
          (stat.S_ISSOCK, "a socket"))


class UnreadableFile(CompanionError):
    """A named file is missing, not a regular file, too large or not UTF-8 text.
    ``missing`` is True when nothing is there at all."""

    def __init__(self, message: str, missing: bool = False):
        super().__init__(message)
        self.missing = missing


def read_text_file(path: str | os.PathLike[str], limit: int, what: str) -> str:
    """The UTF-8 text of the regular file at ``path``, at most ``limit`` bytes long;
    :class:`UnreadableFile` says why not (``what`` names the file in the message)."""
    # O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UnreadableFile(f"{path}: no such file", missing=True) from None
    except (OSError, ValueError) as problem:  # ValueError: a NUL in the path
        reason = getattr(problem, "strerror", None) or str(problem)
        raise UnreadableFile(f"{path}: cannot read: {reason}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a file")
            raise UnreadableFile(f"{path}: {what} must be a regular file (this is {kind})")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as problem:
        raise UnreadableFile(f"{path}: cannot read: {problem.strerror or problem}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise UnreadableFile(f"{path}: {what} is larger than {_size(limit)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as problem:
        raise UnreadableFile(f"{path}: {what} is not UTF-8 text (byte {problem.start + 1})") \
            from None


def _size(limit: int) -> str:
    return f"{limit // (1 << 20)} MB" if limit >= 1 << 20 else f"{limit // 1024} KB"
