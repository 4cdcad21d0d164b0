"""The serial console's line protocol: bytes to lines, lines to commands, replies to lines.

Pure: no port, no thread, no app. The device's end (:mod:`companion.remote.serial`) and
the laptop's end (:mod:`companion.remote.client`) both split what they read with
:class:`LineSplitter`; the device parses each line with :func:`parse_command` and
answers with :func:`ok_line` or :func:`err_line`. docs/events.md ("Serial console") has
the whole grammar.

- :class:`LineSplitter`: bytes in, complete lines or :class:`BadLine` out.
  Lines end in ``\\n``, ``\\r\\n`` or ``\\r``; at most :data:`MAX_LINE` bytes, UTF-8, no
  NUL or control bytes. A bad line becomes one error and nothing else::

      >>> splitter = LineSplitter()
      >>> splitter.feed(b"STATUS\\r\\nHEL")
      [Line(text='STATUS')]
      >>> splitter.feed(b"P\\n\\xff\\xfe\\n")
      [Line(text='HELP'), BadLine(code='ENCODING', message='the line is not UTF-8 (byte 1)')]

- :func:`parse_command`: one line -> :class:`Command` or
  :class:`companion.remote.commands.RemoteError`, before anything reaches the game.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, NamedTuple

from companion.errors import BadName, RemoteError
from companion.games import title
from companion.jsonlines import load_json
from companion.lang import _
from companion.names import check_players
from companion.remote import commands
from companion.remote.commands import HISTORY_DEFAULT, HISTORY_MAX
from companion.store import NAME_MAX, ROSTER_MAX

__all__ = [
    "COMMANDS",
    "EOL",
    "ERRORS",
    "MAX_LINE",
    "PROMPT",
    "BadLine",
    "Command",
    "Line",
    "LineSplitter",
    "err_line",
    "ev_line",
    "is_own_output",
    "ok_line",
    "parse_command",
    "problem_words",
]

#: Longest command line in bytes, without its line end.
MAX_LINE = 1024
#: Every line the device sends ends so, for plain terminals as much as for programs.
EOL = "\r\n"
PROMPT = "> "

#: The error codes, each with what it means (``ERR <CODE> <message>``): the line's
#: own, then the commands' (:data:`companion.remote.commands.ERRORS`). Like HELP, this
#: documents the protocol and stays English; a refusal's own words are translated.
ERRORS: dict[str, str] = {
    "TOOLONG": f"the line was longer than {MAX_LINE} bytes (it was dropped whole)",
    "ENCODING": "the line is not UTF-8",
    "BADLINE": "the line has a NUL or another control byte (binary noise)",
    "UNKNOWN": "no such command (HELP lists them)",
    "BADJSON": "EVENT needs one JSON object",
    **commands.ERRORS,
}

#: (usage, what it does): HELP's reply, one line per command. It stays English in every
#: language: it documents the protocol's keywords and grammar, which are English (a
#: program may read it as it reads any OK line).
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
    ("ROLL", "press ROLL: roll for the player whose turn it is (or the Hit Goal, "
             f"{title('block-lottery')}'s pool or its next lottery token)"),
    ("UNDO", "take back the last event that counts (kept, marked undone; drawn again, a "
             "roll comes back the same)"),
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


def is_own_output(text: str) -> bool:
    """Whether ``text`` looks like a line the device sends (a host's echo of it)."""
    return _OWN_OUTPUT.match(text) is not None


def problem_words(problem: BaseException) -> str:
    """A port's error on one line, for a log line or the console's message."""
    return " ".join(str(problem).split()) or type(problem).__name__



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
            return [BadLine("TOOLONG", _("a line has at most {total} bytes; this one was "
                                         "dropped").format(total=self.max_len))]
        raw = bytes(self._buf)
        self._buf.clear()
        if b"\0" in raw:
            return [BadLine("BADLINE", _("the line has a NUL byte"))]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            return [BadLine("ENCODING", _("the line is not UTF-8 (byte {n})").format(
                n=err.start + 1))]
        for char in text:
            if char != "\t" and unicodedata.category(char) == "Cc":
                return [BadLine("BADLINE", _("the line has a control character {code}")
                                .format(code=f"U+{ord(char):04X}"))]
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


def ev_line(payload: Any) -> str:
    """``EV <json>`` on one line: an event someone applied, for a mirror."""
    return "EV " + _dumps(payload)


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
    # A byte order mark (a terminal program that sends one first) is no part of a line.
    verb, _sep, rest = text.removeprefix("\ufeff").strip().partition(" ")
    verb, rest = verb.upper(), rest.strip()
    if verb in _NO_ARGS:
        if rest:
            raise RemoteError("BADARG", _("{command} takes no arguments").format(command=verb))
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
            raise RemoteError("BADARG", _("usage: {usage}").format(
                usage="EXPORT [current|last|ID] [jsonl|csv]"))
        ref = words[0] if words else "current"
        fmt = words[1].lower() if len(words) > 1 else "jsonl"
        return Command("EXPORT", commands.export_args(ref, fmt))
    if verb == "PROMPT":
        if rest.upper() not in ("ON", "OFF"):
            raise RemoteError("BADARG", _("usage: {usage}").format(usage="PROMPT ON|OFF"))
        return Command("PROMPT", (rest.upper() == "ON",))
    shown = verb if len(verb) <= 20 else verb[:20] + "..."
    raise RemoteError("UNKNOWN", _("no command {command}; HELP lists the commands").format(
        command=repr(shown)))


def _parse_player(name: str, rest: str) -> Command:
    usage = next(usage for usage, _ in COMMANDS if usage.startswith(name))
    word, _sep, names = rest.partition(" ")
    names = names.strip()
    if word.upper() != "PLAYER" or not names:
        raise RemoteError("BADARG", _("usage: {usage}").format(usage=usage))
    if name != "RENAME PLAYER":
        return Command(name, (names,))
    old, comma, new = names.partition(",")
    if not comma or not old.strip() or not new.strip():
        raise RemoteError("BADARG", _("usage: {usage}").format(usage=usage))
    return Command(name, (old.strip(), new.strip()))


def _parse_new(rest: str) -> tuple[str, list[str], dict[str, Any], bool]:
    from companion.jsonlines import parse_option

    usage = _("usage: {usage}").format(
        usage="NEW game Name,Name[,...] [option=value ...] [--force]")
    game, _sep, rest = rest.partition(" ")
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
        raise RemoteError("BADJSON", _("usage: {usage}").format(usage='EVENT {"type": ...}'))
    try:
        # The one reader of JSON typed in: 1e999 said as typed, a key twice refused.
        event = load_json(rest)
    except ValueError as problem:
        raise RemoteError("BADJSON", _("not JSON ({reason})").format(reason=problem)) from None
    if not isinstance(event, dict):
        raise RemoteError("BADJSON", _('an event is a JSON object, like {example}').format(
            example='{"type": "call", ...}'))
    return event



