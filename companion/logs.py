"""Where the device's log goes, one line per problem.

The companion's own messages, uvicorn's and Starlette's all reach Python's logging;
nothing else configures it, so without this they would fall to logging's last resort:
multi-line tracebacks on stderr, which under the simulator is the terminal the OLED is
drawn in. :func:`logging_to` sends every record, as one line, to

- stderr for ``companion run`` and ``companion club`` (the journal under systemd);
- a file in the state directory for the interactive simulator (``companion.log``,
  kept small), never its terminal.

A traceback becomes its last words: the exception's type and message and where it
was raised, so a journal line says what failed without 23 lines around it.
"""

from __future__ import annotations

import logging
import logging.handlers
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from companion.errors import one_line

#: The log file the simulator writes in its state directory.
SIM_LOG = "companion.log"
#: Its size before it is rotated once (one older file is kept).
SIM_LOG_BYTES = 256 * 1024
#: The longest line written.
LINE_MAX = 400


class OneLineFormatter(logging.Formatter):
    """``LEVEL name: message (Error: text at file:line)`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        lines = [line for line in record.getMessage().splitlines() if line.strip()]
        text = lines[0] if lines else ""
        if len(lines) > 1:  # a message that holds a traceback: its last line says it
            text += " ... " + lines[-1].strip()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({problem_words(record.exc_info[1])})"
        stamp = self.formatTime(record, "%Y-%m-%d %H:%M:%S ") if self.stamped else ""
        return one_line(f"{stamp}{record.levelname} {record.name}: {text}", LINE_MAX)

    def __init__(self, stamped: bool = False):
        super().__init__()
        self.stamped = stamped


def problem_words(exc: BaseException) -> str:
    """``ValueError: bad thing at store.py:120``: an exception in a few words."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {one_line(str(exc), 160)}{where}"


class QuietFile(logging.handlers.RotatingFileHandler):
    """The simulator's log file. A line it cannot write (the state directory's disk is
    full, the card went read-only: just when the game says it is no longer saved) is
    dropped: logging's own answer is a traceback on stderr, the terminal the OLED is
    drawn in."""

    #: Lines the file could not take (the simulator says them in the terminal at exit).
    dropped = 0

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's
        self.dropped += 1

    def flush(self) -> None:
        try:
            super().flush()
        except OSError:
            self.dropped += 1  # closing at exit flushes too: what cannot be written is dropped

    def close(self) -> None:
        try:
            super().close()
        except OSError:
            pass


class Counting(logging.Handler):
    """Counts the warnings and errors passed on (the simulator says where they went),
    and keeps the last :data:`KEPT` of them as lines, for when their file could not
    take them (:attr:`lost`)."""

    KEPT = 5

    def __init__(self, inner: logging.Handler):
        super().__init__(logging.NOTSET)
        self.inner = inner
        self.problems = 0
        self.recent: list[str] = []
        self._words = OneLineFormatter()

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.problems += 1
            self.recent = [*self.recent, self._words.format(record)][-self.KEPT:]
        self.inner.handle(record)

    @property
    def lost(self) -> bool:
        """True when the file dropped lines (its disk is full): it does not hold them."""
        return getattr(self.inner, "dropped", 0) > 0

    def close(self) -> None:
        self.inner.close()
        super().close()


@contextmanager
def logging_to(where: Path | TextIO | None) -> Iterator[Counting]:
    """While the block runs, every log record goes to ``where`` as one line: a file
    (created with its directory), a stream (stderr), or nowhere (None). Records of
    INFO and up; the handler is taken off again afterwards."""
    inner: logging.Handler
    if where is None:
        inner = logging.NullHandler()
    elif isinstance(where, Path):
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            inner = QuietFile(where, maxBytes=SIM_LOG_BYTES, backupCount=1,
                              encoding="utf-8")
        except OSError:
            inner = logging.NullHandler()  # an unwritable state dir: the device carries on
        inner.setFormatter(OneLineFormatter(stamped=True))
    else:
        inner = logging.StreamHandler(where)
        inner.setFormatter(OneLineFormatter())
    handler = Counting(inner)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
