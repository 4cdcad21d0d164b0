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
in :mod:`companion.remote.commands` (shared with the web page); this module is only
the protocol and the port.

Three layers, so each can be tested alone:

- :class:`LineSplitter` (pure): bytes in, complete lines or :class:`BadLine` out.
  Lines end in ``\\n``, ``\\r\\n`` or ``\\r``; at most :data:`MAX_LINE` bytes, UTF-8, no
  NUL or control bytes. A bad line becomes one error and nothing else::

      >>> splitter = LineSplitter()
      >>> splitter.feed(b"STATUS\\r\\nHEL")
      [Line(text='STATUS')]
      >>> splitter.feed(b"P\\n\\xff\\xfe\\n")
      [Line(text='HELP'), BadLine(code='ENCODING', message='the line is not UTF-8 (byte 1)')]

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

:func:`run_console` is the other end: ``companion console PORT`` on a laptop.
:func:`companion.launch.serial_console` runs a :class:`Link` beside ``app.run()``.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import unicodedata
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

import serial

from companion.errors import CompanionError
from companion.names import BadName, check_players
from companion.remote import commands
from companion.remote.commands import HISTORY_DEFAULT, HISTORY_MAX, RemoteError
from companion.store import NAME_MAX, ROSTER_MAX

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

#: Longest command line in bytes, without its line end.
MAX_LINE = 1024
#: Seconds between attempts to open a port that is missing (cable pulled).
RETRY_SECONDS = 3.0
#: Lines waiting for the port: beyond this, EV lines are dropped (and counted).
OUT_MAX = 1000
#: The reader takes no new command while this many lines wait for the port (the other
#: end is not reading): replies are held back by not asking, never dropped.
REPLY_ROOM = OUT_MAX // 2
#: Every line the device sends ends so, for plain terminals as much as for programs.
EOL = "\r\n"
PROMPT = "> "

#: The error codes, each with what it means (``ERR <CODE> <message>``): the line's
#: own, then the commands' (:data:`companion.remote.commands.ERRORS`).
ERRORS: dict[str, str] = {
    "TOOLONG": f"the line was longer than {MAX_LINE} bytes (it was dropped whole)",
    "ENCODING": "the line is not UTF-8",
    "BADLINE": "the line has a NUL or another control byte (binary noise)",
    "UNKNOWN": "no such command (HELP lists them)",
    "BADJSON": "EVENT needs one JSON object",
    **commands.ERRORS,
}

#: (usage, what it does): HELP's reply, one line per command.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("HELP", "this list"),
    ("STATUS", "the game on the screen as JSON: state and what it expects next"),
    ("PLAYERS", "the roster"),
    ("ADD PLAYER Name", f"add a name to the roster (at most {NAME_MAX} characters, "
                        f"{ROSTER_MAX} names)"),
    ("RENAME PLAYER Old,New", "rename a roster name (past games keep the old one)"),
    ("REMOVE PLAYER Name", "take a name off the roster (past games keep it)"),
    ("NEW game Name,Name[,...] [option=value ...] [--force]",
     "start a game, e.g. NEW final-count Ann,Bob,Cy hit_goal=true; while a game is "
     "unfinished: ERR OPEN, unless --force (it is kept as abandoned)"),
    ("LEAVE", "end the unfinished game (kept as abandoned) and go to the main menu"),
    ("EVENT {json}", 'apply an event, e.g. EVENT {"type": "call", "player": "Ann"}'),
    ("ROLL", "press ROLL: roll for the player whose turn it is (or the Hit Goal)"),
    ("UNDO", "take back the last event"),
    ("HISTORY [n]", f"the last n finished matches (default {HISTORY_DEFAULT}, "
                    f"at most {HISTORY_MAX})"),
    ("EXPORT [current|last|ID] [jsonl|csv]", "a match as lines, as companion export writes"),
    ("PROMPT ON|OFF", "for a plain terminal: echo what is typed and show a > prompt"),
)

_LF, _CR, _BS, _DEL = 0x0A, 0x0D, 0x08, 0x7F
# What the device itself sends. A host tty left in cooked mode echoes everything it
# receives back to the device; answering that echo with ERR would be echoed again,
# forever. So lines that look like our own output are ignored.
_OWN_OUTPUT = re.compile(r"(OK|ERR|EV)(\s|$)")
_OPTION = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


# -- lines ------------------------------------------------------------------------------


class Line(NamedTuple):
    """A complete, clean line of text (without its line end)."""

    text: str


class BadLine(NamedTuple):
    """A line that cannot be a command: it gets ``ERR <code> <message>``."""

    code: str
    message: str


class LineSplitter:
    """Bytes in any chunks -> complete lines and bad lines, in order.

    Memory is bounded: an over-long line is not kept, only remembered as too long until
    its line end, and then reported once. ``\\r\\n`` is one line end even when the two
    bytes arrive in different chunks. Blank lines are skipped.

    With ``editing`` (PROMPT ON: a person at a plain terminal) backspace and DEL take
    the last character back, and :attr:`echo` collects what to send back so the person
    sees what they type; the caller takes it after each :meth:`feed`.
    """

    def __init__(self, max_len: int = MAX_LINE, *, editing: bool = False):
        self.max_len = max_len
        self.editing = editing
        self.echo = bytearray()
        self._buf = bytearray()
        self._too_long = False
        self._after_cr = False

    def reset(self) -> None:
        """Forget a partial line (the port was reopened: its start is gone)."""
        self._buf.clear()
        self._too_long = self._after_cr = False
        self.echo.clear()

    def feed(self, data: bytes) -> list[Line | BadLine]:
        """The lines completed by ``data``."""
        items: list[Line | BadLine] = []
        # Byte by byte: a serial line brings ~11 KB/s at 115200 baud, and the rules
        # (CR LF split across reads, backspace over UTF-8) stay obvious this way.
        for byte in data:
            if byte == _LF and self._after_cr:
                self._after_cr = False
                continue
            self._after_cr = byte == _CR
            if byte in (_CR, _LF):
                ended = self._end_line()
                items.extend(ended)
                if self.editing:
                    # A blank line gets no reply, so the prompt comes from here.
                    self.echo += b"\r\n" if ended else (EOL + PROMPT).encode()
            elif self.editing and byte in (_BS, _DEL):
                if self._buf and not self._too_long:
                    while self._buf and self._buf[-1] & 0xC0 == 0x80:  # UTF-8 continuation
                        self._buf.pop()
                    if self._buf:
                        self._buf.pop()
                    self.echo += b"\b \b"
            elif self._too_long:
                continue
            elif len(self._buf) >= self.max_len:
                self._too_long = True
                self._buf.clear()
            else:
                self._buf.append(byte)
                if self.editing and (byte >= 0x20 and byte != _DEL):
                    self.echo.append(byte)
        return items

    def _end_line(self) -> list[Line | BadLine]:
        if self._too_long:
            self._too_long = False
            return [BadLine("TOOLONG", f"a line has at most {self.max_len} bytes; "
                                       "this one was dropped")]
        raw = bytes(self._buf)
        self._buf.clear()
        if b"\0" in raw:
            return [BadLine("BADLINE", "the line has a NUL byte")]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            return [BadLine("ENCODING", f"the line is not UTF-8 (byte {err.start + 1})")]
        for char in text:
            if char != "\t" and unicodedata.category(char) == "Cc":
                return [BadLine("BADLINE", f"the line has a control character U+{ord(char):04X}")]
        if not text.strip():
            return []  # a blank line (Enter on its own) asks nothing
        return [Line(text)]


# -- commands ---------------------------------------------------------------------------


class Command(NamedTuple):
    """A parsed command line: the command's name (``"ADD PLAYER"``) and its arguments."""

    name: str
    args: tuple[Any, ...] = ()


def ok_line(payload: Any) -> str:
    """``OK <json>`` on one line (JSON escapes every newline inside strings)."""
    return "OK " + _dumps(payload)


def err_line(code: str, message: str) -> str:
    """``ERR <CODE> <message>``, the message folded onto one line."""
    text = " ".join(str(message).split()) or ERRORS.get(code, "error")
    return f"ERR {code} {text[:300]}"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_plain)


def _plain(value: Any) -> Any:
    """JSON for what a game's state may hold besides JSON (tuples are lists already)."""
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    if isinstance(value, Mapping):
        return dict(value)
    return str(value)


_NO_ARGS = ("HELP", "STATUS", "PLAYERS", "ROLL", "UNDO", "LEAVE")
_PLAYER_VERBS = {"ADD": "ADD PLAYER", "REMOVE": "REMOVE PLAYER", "RENAME": "RENAME PLAYER"}


def parse_command(text: str) -> Command:
    """The command on one line, or :class:`RemoteError` (UNKNOWN, BADARG, BADJSON).

    Pure: it runs on the reader's thread and knows nothing of the game::

        >>> parse_command("new final-count Ann,Bob hit_goal=true")
        Command(name='NEW', args=('final-count', ['Ann', 'Bob'], {'hit_goal': True}, False))
        >>> parse_command("HISTORY 3")
        Command(name='HISTORY', args=(3,))
    """
    verb, _, rest = text.strip().partition(" ")
    verb, rest = verb.upper(), rest.strip()
    if verb in _NO_ARGS:
        if rest:
            raise RemoteError("BADARG", f"{verb} takes no arguments")
        return Command(verb)
    if verb in _PLAYER_VERBS:
        return _parse_player(_PLAYER_VERBS[verb], rest)
    if verb == "NEW":
        return Command("NEW", _parse_new(rest))
    if verb == "EVENT":
        return Command("EVENT", (_parse_event(rest),))
    if verb == "HISTORY":
        if not rest:
            return Command("HISTORY", (HISTORY_DEFAULT,))
        number = rest.isascii() and rest.isdigit() and len(rest) < 20
        return Command("HISTORY", (commands.history_limit(int(rest) if number else rest),))
    if verb == "EXPORT":
        words = rest.split()
        if len(words) > 2:
            raise RemoteError("BADARG", "usage: EXPORT [current|last|ID] [jsonl|csv]")
        ref = words[0] if words else "current"
        fmt = words[1].lower() if len(words) > 1 else "jsonl"
        return Command("EXPORT", commands.export_args(ref, fmt))
    if verb == "PROMPT":
        if rest.upper() not in ("ON", "OFF"):
            raise RemoteError("BADARG", "usage: PROMPT ON|OFF")
        return Command("PROMPT", (rest.upper() == "ON",))
    shown = verb if len(verb) <= 20 else verb[:20] + "..."
    raise RemoteError("UNKNOWN", f"no command {shown!r}; HELP lists the commands")


def _parse_player(name: str, rest: str) -> Command:
    usage = next(usage for usage, _ in COMMANDS if usage.startswith(name))
    word, _, names = rest.partition(" ")
    names = names.strip()
    if word.upper() != "PLAYER" or not names:
        raise RemoteError("BADARG", f"usage: {usage}")
    if name != "RENAME PLAYER":
        return Command(name, (names,))
    old, comma, new = names.partition(",")
    if not comma or not old.strip() or not new.strip():
        raise RemoteError("BADARG", f"usage: {usage}")
    return Command(name, (old.strip(), new.strip()))


def _parse_new(rest: str) -> tuple[str, list[str], dict[str, Any], bool]:
    from companion.replay import parse_option

    usage = "usage: NEW game Name,Name[,...] [option=value ...] [--force]"
    game, _, rest = rest.partition(" ")
    words = rest.split()
    # --force wherever it stands among the words: before an option it would otherwise
    # be read as part of the last name ("Bob --force"), and seated and put on the roster.
    force = any(word.lower() == "--force" for word in words)
    words = [word for word in words if word.lower() != "--force"]
    # Options are the trailing NAME=VALUE words; names may hold spaces ("Mary Ann").
    split = len(words)
    while split > 0 and _OPTION.match(words[split - 1]):
        split -= 1
    if not game or split == 0:
        raise RemoteError("BADARG", usage)
    try:  # the one name rule, as commands.new_game applies it
        names = check_players(" ".join(words[:split]).split(","))
    except BadName as refused:
        raise RemoteError("BADARG", f"{refused}; {usage}") from None
    options: dict[str, Any] = {}
    for word in words[split:]:
        try:
            name, value = parse_option(word)
        except ValueError as problem:
            raise RemoteError("BADARG", str(problem)) from None
        options[name] = value
    return game.lower(), names, options, force


def _parse_event(rest: str) -> dict[str, Any]:
    if not rest:
        raise RemoteError("BADJSON", 'usage: EVENT {"type": ...}')
    try:
        event = json.loads(rest, parse_constant=_no_constant)
    except (ValueError, RecursionError) as problem:
        if isinstance(problem, json.JSONDecodeError):
            why = problem.msg
        elif isinstance(problem, RecursionError):
            why = "too deeply nested"
        else:  # NaN, Infinity: what _no_constant said
            why = str(problem)
        raise RemoteError("BADJSON", f"not JSON ({why})") from None
    if not isinstance(event, dict):
        raise RemoteError("BADJSON", 'an event is a JSON object, like {"type": "call", ...}')
    return event


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


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
        line = "EV " + _dumps(commands.ev_payload(session, event, undone))
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
        if _OWN_OUTPUT.match(text):
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
            return err_line("BUSY", f"the console is closing; {command.name} was not run")
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
                                self.url, _reason(problem), self.retry)
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
                                self.url, _reason(problem), self.retry)
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


def open_keeping_input(port: Any) -> None:
    """Open ``port`` (made with ``do_not_open=True``) without throwing away what the
    other end has sent already.

    pyserial's POSIX ``open()`` flushes the input queue. The other end does not know
    when the device (re)opens its side (a USB gadget's host sees nothing of it), so a
    command typed just before, or while, the port opened was lost without a reply: the
    first command after a reopen went unanswered in 7 of 12 tries. The flush is skipped
    for this one open; later explicit flushes work as ever.
    """
    if hasattr(port, "_reset_input_buffer"):  # the POSIX Serial: its open() flushes
        port._reset_input_buffer = lambda: None
        try:
            port.open()
        finally:
            del port._reset_input_buffer  # the class's own again
    else:
        port.open()


#: What a write raises when the port goes away under it: besides pyserial's own error,
#: a port the reader thread has just closed fails inside pyserial with TypeError (its
#: file descriptor is None by then) or ValueError/AttributeError on other platforms.
_PORT_GONE = (serial.SerialException, OSError, TypeError, ValueError, AttributeError)


def _reason(problem: BaseException) -> str:
    return " ".join(str(problem).split()) or type(problem).__name__


# -- the laptop's end: companion console PORT -----------------------------------------------


class _Client:
    """Prints what the device sends and counts the replies (OK/ERR lines)."""

    def __init__(self, port: Any, url: str, out: TextIO, err: TextIO, prompt: bool, raw: bool):
        self.port = port
        self.url = url
        self.out = out
        self.err = err
        self.prompt = prompt
        self.raw = raw
        self.replies = 0
        self.lost: str | None = None
        self.at_prompt = False
        self.stopping = False
        self.changed = threading.Condition()
        # Replies can be long (STATUS of a long game): allow far more than commands.
        self.splitter = LineSplitter(1 << 20)

    def read_loop(self) -> None:
        try:
            while not self.stopping:
                data = self.port.read(1)
                if not data:
                    continue
                waiting = self.port.in_waiting
                if waiting:
                    data += self.port.read(waiting)
                for item in self.splitter.feed(data):
                    self.show(item)
        except (serial.SerialException, OSError) as problem:
            if not self.stopping:  # (closing the port ourselves is no loss)
                self.report_lost(_reason(problem))

    def report_lost(self, reason: str) -> None:
        """The port is gone: say so once, at once (a person may sit at the prompt)."""
        with self.changed:
            if self.lost is None:
                self.lost = reason
                self.err.write(f"\ncompanion console: lost {self.url}: {reason}\n")
                self.err.flush()
            self.changed.notify_all()

    def show(self, item: Line | BadLine) -> None:
        if isinstance(item, BadLine):
            text = f"(an unreadable line from the device: {item.message})"
        else:
            text = self.format(item.text)
        with self.changed:
            lead = "\r" if self.at_prompt else ""
            self.out.write(lead + text + "\n" + (PROMPT if self.at_prompt else ""))
            self.out.flush()
            if isinstance(item, Line) and item.text.startswith(("OK", "ERR")):
                self.replies += 1
                self.changed.notify_all()

    def format(self, text: str) -> str:
        """A reply made for people: ``OK ["a", "b"]`` (HELP, EXPORT) one item a line."""
        if self.raw or not text.startswith("OK ["):
            return text
        try:
            items = json.loads(text[3:])
        except ValueError:
            return text
        if not all(isinstance(item, str) for item in items):
            return text
        return "\n".join(["OK", *items])

    def wait_reply(self, count: int, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.replies >= count or self.lost, timeout)

    def show_prompt(self) -> None:
        if self.prompt:
            with self.changed:
                self.out.write(PROMPT)
                self.out.flush()
                self.at_prompt = True


def run_console(
    url: str,
    baud: int = 115200,
    *,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    prompt: bool | None = None,
    raw: bool = False,
    reply_timeout: float = 10.0,
) -> int:
    """``companion console PORT``: send each line of ``stdin``, print what comes back.

    Waits for each command's reply (at most ``reply_timeout`` seconds) before sending
    the next, so piped input works; ``EV`` lines are printed as they arrive. The ``>``
    prompt is shown when ``stdin`` is a terminal (or with ``prompt=True``). Exit status
    0, or 1 when a reply did not come or the port went away.
    """
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if prompt is None:
        prompt = stdin.isatty()
    try:
        port = serial.serial_for_url(url, baudrate=baud, timeout=None)
    except (serial.SerialException, OSError, ValueError) as problem:
        raise CompanionError(f"cannot open {url}: {_reason(problem)}") from None
    if not hasattr(port, "cancel_read"):
        port.timeout = 1.0
    client = _Client(port, url, out, err, prompt, raw)
    reader = threading.Thread(target=client.read_loop, name="console-reader", daemon=True)
    reader.start()
    status = 0
    try:
        client.show_prompt()
        while True:
            try:
                line = stdin.readline()
            except UnicodeDecodeError:
                print("companion console: the input is not UTF-8 text", file=err)
                status = 1
                break
            if not line:
                break
            text = line.strip()
            client.at_prompt = False
            if not text:
                client.show_prompt()
                continue
            expected = client.replies + 1
            try:
                port.write(text.encode("utf-8") + b"\n")
            except (serial.SerialException, OSError) as problem:
                client.report_lost(_reason(problem))
            if client.lost:
                break
            if not client.wait_reply(expected, reply_timeout):
                print(f"companion console: no reply from {url} within {reply_timeout:g} s",
                      file=err)
                status = 1
            if client.lost:
                break
            client.show_prompt()
        if prompt:
            out.write("\n")
            out.flush()
    finally:
        client.stopping = True
        if hasattr(port, "cancel_read"):
            port.cancel_read()
        reader.join(2.0)
        port.close()
    return 1 if client.lost else status

