"""The serial console: a line protocol to the same device the buttons drive.

A laptop on the USB cable (the Pi as a USB serial gadget, ``/dev/ttyGS0``), on the UART
(``/dev/serial0``) or on any pyserial URL (``socket://``, ``loop://`` in tests) types
one command per line and gets one line back::

    > NEW final-count Ann,Bob,Cy
    OK {"screen":"FinalCountTable","game":"final-count","match_id":7,...}
    > EVENT {"type": "roll", "player": "Ann", "value": 3}
    EV {"game":"final-count","match_id":7,"seq":1,"event":{"type":"roll",...}}
    OK {"match_id":7,"seq":1,"event":{...},"over":false,"expecting":{...}}
    > EVENT {"type": "roll", "player": "Ann", "value": 3}
    ERR ILLEGAL it is Bob's turn, not Ann's

Replies are ``OK <json>`` or ``ERR <CODE> <message>``, exactly one per command line;
every event applied by anyone (buttons, console, web page) is also pushed as
``EV <json>``. ``HELP`` lists the commands and :data:`ERRORS` the error codes;
docs/events.md ("Serial console") has the whole grammar. What the commands do lives
in :mod:`companion.remote.commands` (shared with the web page); the lines themselves
(splitting, parsing, formatting) in :mod:`companion.remote.protocol`; this module is
the device's end: the protocol run against the app, and the port.

Two layers, so each can be tested alone:

- :class:`Console`: parses each line (on the reader's thread) and runs the command on
  the app's owner thread through :func:`companion.remote.commands.call`, exactly like a
  button press reaches the app through the queue. The reader waits for its command to
  finish before reading on, so the console never has more than one item in the app's
  queue: a flood of commands can delay a button press by one command, never by a
  backlog.
- :class:`Link`: the port. A reader thread (blocking reads), a writer thread (the app's
  thread only enqueues output, so a terminal that stops reading never stalls the
  buttons), and reopening a vanished port every :data:`RETRY_SECONDS`.

Nothing is dropped without a word. A reply always reaches the port: while the other
end does not read, the reader stops taking commands (so the other end's writes wait,
as on any serial line) instead of throwing replies away. Only ``EV`` lines can be
dropped, when nobody reads them for :data:`OUT_MAX` lines; the next line sent is then
``EV {"missed": n}`` (STATUS re-syncs a mirror).

:func:`run_console` (:mod:`companion.remote.client`) is the other end:
``companion console PORT`` on a laptop.
:func:`companion.launch.serial_console` runs a :class:`Link` beside ``app.run()``.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import serial

from companion.errors import RemoteError
from companion.lang import _
from companion.remote import commands
from companion.remote.client import run_console
from companion.remote.protocol import (
    COMMANDS,
    EOL,
    ERRORS,
    MAX_LINE,
    PROMPT,
    BadLine,
    Command,
    Line,
    LineSplitter,
    err_line,
    ev_line,
    is_own_output,
    ok_line,
    parse_command,
    problem_words,
)

if TYPE_CHECKING:
    from companion.app import App
    from companion.session import Session

__all__ = [
    "COMMANDS",
    "ERRORS",
    "MAX_LINE",
    "BadLine",
    "Command",
    "Console",
    "Line",
    "LineSplitter",
    "Link",
    "execute",
    "parse_command",
    "run_console",
]

log = logging.getLogger("companion")

#: Seconds between attempts to open a port that is missing (cable pulled).
RETRY_SECONDS = 3.0
#: Lines waiting for the port: beyond this, EV lines are dropped (and counted).
OUT_MAX = 1000
#: The reader takes no new command while this many lines wait for the port (the other
#: end is not reading): replies are held back by not asking, never dropped.
REPLY_ROOM = OUT_MAX // 2

#: Each command line's function in :mod:`companion.remote.commands`.
_RUN: dict[str, Callable[..., Any]] = {
    "STATUS": commands.status,
    "PLAYERS": commands.players,
    "ADD PLAYER": commands.add_player,
    "RENAME PLAYER": commands.rename_player,
    "REMOVE PLAYER": commands.remove_player,
    "NEW": commands.new_game,
    "LEAVE": commands.leave,
    "EVENT": commands.event,
    "ROLL": commands.roll,
    "UNDO": commands.undo,
    "HISTORY": commands.history,
    "EXPORT": commands.export,
}


def execute(app: App, command: Command) -> str:
    """Run ``command`` against ``app`` and return the reply line. Never raises.

    Call it only on the app's owner thread: it touches the screen, the match and the
    store, which that thread owns. (:class:`Console` goes through
    :func:`companion.remote.commands.call` instead.)
    """
    try:
        return ok_line(commands.guarded(_RUN[command.name], app, *command.args))
    except RemoteError as problem:
        return err_line(problem.code, problem.message)


# -- the protocol over a byte stream ---------------------------------------------------------


class Console:
    """The command protocol between a byte stream and an app.

    :meth:`feed` takes the bytes read from the port (on the reader's thread) and
    answers every line through ``send`` (bytes, with line ends). Commands that need the
    app are posted to its queue and :meth:`feed` waits until the owner thread has run
    them; nothing here ever waits while holding the owner thread. :meth:`attach` adds
    the ``EV`` mirror to ``app.ctx.listeners`` (which every session shares).
    ``room`` (optional) is called before each command and may block until the output
    has room for its reply (the :class:`Link`'s back-pressure).
    """

    def __init__(self, app: App, send: Callable[[bytes], None], *, max_line: int = MAX_LINE,
                 room: Callable[[], None] | None = None, timeout: float = commands.CALL_TIMEOUT):
        self.app = app
        self.send = send
        self.push = send  # EV lines (the Link makes them droppable)
        self.room = room or (lambda: None)
        self.timeout = timeout
        self.splitter = LineSplitter(max_line)
        self.prompt = False
        #: Lines that looked like the device's own output, echoed back (ignored).
        self.ignored = 0
        #: Lines answered so far (each with exactly one OK or ERR line).
        self.answered = 0
        self._closed = threading.Event()
        self._wake = threading.Event()

    @property
    def prompt(self) -> bool:
        return self._prompt

    @prompt.setter
    def prompt(self, on: bool) -> None:
        self._prompt = on
        self.splitter.editing = on

    def attach(self) -> None:
        """Start pushing ``EV`` lines for every committed event."""
        self._closed.clear()
        self.app.ctx.listeners.append(self.on_event)

    def detach(self) -> None:
        """Stop the mirror and release a :meth:`feed` waiting for the owner thread."""
        self._closed.set()
        if self.on_event in self.app.ctx.listeners:
            self.app.ctx.listeners.remove(self.on_event)
        self._wake.set()

    def on_event(self, session: Session, event: dict[str, Any], undone: bool = False) -> None:
        """A session listener (owner thread): push ``EV <json>``
        (:func:`companion.remote.commands.ev_payload`)."""
        line = ev_line(commands.ev_payload(session, event, undone))
        if self.prompt:  # write over the waiting prompt, then show it again
            self.push(("\r" + line + EOL + PROMPT).encode())
        else:
            self.push((line + EOL).encode())

    def reply(self, line: str) -> None:
        self.answered += 1
        self.send((line + EOL + (PROMPT if self.prompt else "")).encode())

    def feed(self, data: bytes) -> None:
        """Handle the bytes read from the port: every complete line gets its answer."""
        items = self.splitter.feed(data)
        if self.splitter.echo:
            self.send(bytes(self.splitter.echo))
            self.splitter.echo.clear()
        for item in items:
            if self._closed.is_set():
                return
            self.handle(item)

    def handle(self, item: Line | BadLine) -> None:
        self.room()
        if isinstance(item, BadLine):
            self.reply(err_line(item.code, item.message))
            return
        text = item.text.strip()
        if is_own_output(text):
            self.ignored += 1
            return
        try:
            command = parse_command(text)
        except RemoteError as problem:
            self.reply(err_line(problem.code, problem.message))
            return
        if command.name == "HELP":
            self.reply(ok_line([f"{usage}  -  {what}" for usage, what in COMMANDS]))
        elif command.name == "PROMPT":
            self.prompt = command.args[0]
            self.reply(ok_line({"prompt": self.prompt}))
        else:
            self.reply(self._on_owner(command))

    def _on_owner(self, command: Command) -> str:
        if self._closed.is_set():
            return err_line("BUSY", _("the console is closing; {command} was not run").format(
                command=command.name))
        try:
            payload = commands.call(self.app, _RUN[command.name], *command.args,
                                    timeout=self.timeout, wake=self._wake)
        except RemoteError as problem:
            return err_line(problem.code, problem.message)
        return ok_line(payload)


# -- the port ------------------------------------------------------------------------------


Opener = Callable[[], Any]


class Outbox:
    """Lines waiting for the port, between the threads that make them and the writer.

    Replies are always kept; EV lines beyond ``limit`` are dropped and counted, and the
    count goes out as ``EV {"missed": n}`` before the next line. :meth:`wait_room`
    blocks the reader (never the app's thread) while ``room`` lines are waiting.
    """

    def __init__(self, limit: int = OUT_MAX, room: int = REPLY_ROOM):
        self.limit = limit
        self.room = room
        self.missed = 0
        self.closed = False
        #: True while the reader waits for room (the other end is not reading).
        self.held = False
        self._lines: deque[bytes] = deque()
        self._changed = threading.Condition()

    def put(self, data: bytes, *, droppable: bool = False) -> None:
        with self._changed:
            if droppable and len(self._lines) >= self.limit:
                self.missed += 1
                return
            self._lines.append(data)
            self._changed.notify_all()

    def take(self) -> bytes | None:
        """The next bytes to write (with any missed-lines notice first); None once
        closed."""
        with self._changed:
            self._changed.wait_for(lambda: self._lines or self.closed)
            if self.closed:
                return None
            data = self._lines.popleft()
            if self.missed:
                data = f'EV {{"missed":{self.missed}}}{EOL}'.encode() + data
                self.missed = 0
            self._changed.notify_all()
            return data

    def wait_room(self) -> None:
        with self._changed:
            self.held = len(self._lines) >= self.room
            self._changed.wait_for(lambda: len(self._lines) < self.room or self.closed)
            self.held = False

    def clear(self) -> int:
        """Forget what waits (the port went away: nobody is there for it)."""
        with self._changed:
            count = len(self._lines)
            self._lines.clear()
            self.missed = 0
            self._changed.notify_all()
            return count

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def __len__(self) -> int:
        with self._changed:
            return len(self._lines)


class Link:
    """The serial console on ``url`` for ``app``: :meth:`start`, then :meth:`stop`.

    Reading uses blocking reads (``timeout=None``: ``read(1)``, then what is waiting),
    woken for :meth:`stop` by pyserial's ``cancel_read``. A port without
    ``cancel_read`` (``socket://``) reads with a 1 s timeout instead, only so that
    :meth:`stop` is noticed. Writing blocks while the other end does not read (woken
    for :meth:`stop` by ``cancel_write``); the reader then stops taking commands. When
    the port fails (cable pulled, device gone) it is closed and opened again every
    ``retry`` seconds, with one log line per outage.
    """

    def __init__(self, app: App, url: str, baud: int = 115200, *,
                 retry: float = RETRY_SECONDS, opener: Opener | None = None,
                 call_timeout: float = commands.CALL_TIMEOUT):
        self.app = app
        self.url = url
        self.baud = baud
        self.retry = retry
        self.out = Outbox()
        self.console = Console(app, self._enqueue, room=self.out.wait_room,
                               timeout=call_timeout)
        self.console.push = self._push
        self.port: Any = None
        #: Set while the port is open (tests wait on it).
        self.connected = threading.Event()
        #: Lines dropped because the port went away under them, or nobody was there.
        self.dropped = 0
        #: How many times an open port failed.
        self.outages = 0
        self._open = opener or self._open_serial
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one thread at a time swaps self.port
        self._threads: list[threading.Thread] = []

    def _open_serial(self) -> Any:
        port = serial.serial_for_url(self.url, baudrate=self.baud, timeout=None,
                                     write_timeout=None, do_not_open=True)
        open_keeping_input(port)
        if not hasattr(port, "cancel_read"):
            port.timeout = 1.0
        return port

    def start(self) -> Link:
        self.console.attach()
        for name, target in (("serial-reader", self._read_loop),
                             ("serial-writer", self._write_loop)):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop both threads and close the port (safe to call twice)."""
        self._stop.set()
        self.console.detach()
        self.out.close()
        port = self.port
        for cancel in ("cancel_read", "cancel_write"):
            if port is not None and hasattr(port, cancel):
                try:
                    getattr(port, cancel)()
                except (serial.SerialException, OSError):
                    pass  # closed by the reader already: not waiting anyway
        reader, writer = self._threads or (None, None)
        if reader is not None:
            reader.join(timeout)
        if writer is not None:
            # loop:// has no cancel for a write into its full buffer; the reader is gone,
            # so empty the buffer for it until the writer sees the stop.
            while writer.is_alive() and port is not None and self.url.startswith("loop://"):
                try:
                    port.reset_input_buffer()
                except (serial.SerialException, OSError):
                    break  # the reader closed it on its way out: the write failed, done
                writer.join(0.05)
            writer.join(timeout)
        self._close_port()

    def __enter__(self) -> Link:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- threads ----------------------------------------------------------------------

    def _read_loop(self) -> None:
        trouble = False  # an outage was logged and the port is not back yet
        while not self._stop.is_set():
            try:
                port = self._open()
            except (serial.SerialException, OSError, ValueError) as problem:
                if not trouble:
                    log.warning("serial console %s: cannot open (%s); trying every %g s",
                                self.url, problem_words(problem), self.retry)
                    trouble = True
                self._stop.wait(self.retry)
                continue
            with self._lock:
                self.port = port
            self.console.splitter.reset()
            log.info("serial console on %s%s", self.url, " again" if trouble else "")
            trouble = False
            self.connected.set()
            try:
                self._serve(port)
            except (serial.SerialException, OSError) as problem:
                if not self._stop.is_set():
                    self.outages += 1
                    trouble = True
                    log.warning("serial console %s: lost (%s); trying every %g s",
                                self.url, problem_words(problem), self.retry)
            finally:
                self.connected.clear()
                self._close_port()
            # Always pause before reopening: a port that opens but fails every read
            # (a gadget without its host) would otherwise spin.
            self._stop.wait(self.retry)

    def _serve(self, port: Any) -> None:
        while not self._stop.is_set():
            data = port.read(1)  # blocks until a byte (or cancel_read, or 1 s on sockets)
            if not data:
                continue
            waiting = port.in_waiting
            if waiting:
                data += port.read(min(waiting, 4096))
            self.console.feed(data)

    def _write_loop(self) -> None:
        while True:
            data = self.out.take()
            if data is None:
                return
            with self._lock:
                port = self.port
            if port is None:
                if not self._stop.is_set():  # stopping is not dropping
                    self.dropped += 1 + self.out.clear()  # nobody there; a mirror re-syncs
                continue
            try:
                self._write(port, data)
            except _PORT_GONE:
                if self._stop.is_set():
                    # Closed under a write by stop(): pyserial waits for the port to be
                    # writable again *after* handing over the bytes, so the line may well
                    # have gone out; either way the console is closing, nothing is lost
                    # to a peer that stays.
                    continue
                # The port is gone; the reader notices on its side and reopens it.
                # What waited was for the one who was there: it is gone with them.
                self.dropped += 1 + self.out.clear()

    def _write(self, port: Any, data: bytes) -> None:
        # In pieces of about a quarter second of line time, so that stop() is noticed
        # between them even on a slow line.
        piece = max(64, self.baud // 40)
        for start in range(0, len(data), piece):
            if self._stop.is_set():
                return
            port.write(data[start : start + piece])

    def _enqueue(self, data: bytes) -> None:
        """Queue a reply (or echo) for the writer thread; never dropped."""
        self.out.put(data)

    def _push(self, data: bytes) -> None:
        """Queue an EV line; the app's thread calls it, so it never blocks."""
        self.out.put(data, droppable=True)

    def _close_port(self) -> None:
        with self._lock:
            port, self.port = self.port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass  # it is gone already; closing was only tidying up


#: The input flushes a port's ``open()`` makes: the POSIX Serial calls the private one,
#: ``socket://`` and ``rfc2217://`` the public one.
_OPEN_FLUSHES = ("_reset_input_buffer", "reset_input_buffer")


def open_keeping_input(port: Any) -> None:
    """Open ``port`` (made with ``do_not_open=True``) without throwing away what the
    other end has sent already.

    pyserial's ``open()`` flushes the input: on a tty the kernel's queue, on
    ``socket://`` whatever the peer sent as soon as the connection stood. The other end
    does not know when the device (re)opens its side (a USB gadget's host sees nothing
    of it; a TCP peer sends the moment it accepts), so a command typed just before, or
    while, the port opened was lost without a reply: the first command after a reopen
    went unanswered in 7 of 12 tries on a pty and 8 of 25 connects on ``socket://``.
    The flushes are skipped for this one open; later explicit flushes work as ever.
    """
    flushes = [name for name in _OPEN_FLUSHES if hasattr(port, name)]
    for name in flushes:
        setattr(port, name, _keep_input)
    try:
        port.open()
    finally:
        for name in flushes:
            delattr(port, name)  # the class's own again


def _keep_input() -> None:
    """Stands in for a flush while the port opens."""


#: What a write raises when the port goes away under it: besides pyserial's own error,
#: a port the reader thread has just closed fails inside pyserial with TypeError (its
#: file descriptor is None by then) or ValueError/AttributeError on other platforms.
_PORT_GONE = (serial.SerialException, OSError, TypeError, ValueError, AttributeError)


