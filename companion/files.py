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

import codecs
import os
import stat

from companion.errors import UnreadableFile
from companion.lang import N_, _

#: What a path names, for the message when it is not a regular file.
_KINDS = ((stat.S_ISDIR, N_("a directory")), (stat.S_ISCHR, N_("a character device")),
          (stat.S_ISBLK, N_("a block device")), (stat.S_ISFIFO, N_("a pipe")),
          (stat.S_ISSOCK, N_("a socket")))


#: The UTF-8 byte order mark: read as no part of a file's text (Python's "utf-8-sig").
BOM = codecs.BOM_UTF8


def read_text_file(path: str | os.PathLike[str], limit: int, what: str) -> str:
    """The UTF-8 text of the regular file at ``path``, at most ``limit`` bytes long,
    without a byte order mark; :class:`UnreadableFile` says why not (``what`` names the
    file in the message)."""
    # O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UnreadableFile(_("{path}: no such file").format(path=path), missing=True) \
            from None
    except (OSError, ValueError) as problem:  # ValueError: a NUL in the path
        reason = getattr(problem, "strerror", None) or str(problem)
        raise UnreadableFile(_("{path}: cannot read: {problem}").format(
            path=path, problem=reason)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), N_("not a file"))
            raise UnreadableFile(_("{path}: {what} must be a regular file (this is {kind})")
                                 .format(path=path, what=_(what), kind=_(kind)))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as problem:
        raise UnreadableFile(_("{path}: cannot read: {problem}").format(
            path=path, problem=problem.strerror or problem)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise UnreadableFile(_("{path}: {what} is larger than {size}").format(
            path=path, what=_(what), size=_size(limit)))
    # A byte order mark (Windows editors write one) is no part of the text.
    skipped = len(BOM) if data.startswith(BOM) else 0
    try:
        return data[skipped:].decode("utf-8")
    except UnicodeDecodeError as problem:
        raise UnreadableFile(_("{path}: {what} is not UTF-8 text (byte {byte})").format(
            path=path, what=_(what), byte=skipped + problem.start + 1)) from None


def _size(limit: int) -> str:
    return f"{limit // (1 << 20)} MB" if limit >= 1 << 20 else f"{limit // 1024} KB"
