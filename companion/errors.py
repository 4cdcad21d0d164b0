"""Every error the companion raises on purpose, in one tree under :class:`CompanionError`.

The command line and the device turn any of them into one clear line instead of a
traceback; a caller that can do something about one kind catches that kind::

    try:
        match.apply({"type": "roll", "player": "Bob", "value": 7})
    except IllegalEvent as err:
        show(str(err))          # "a die shows 1 to 6, not 7"

The tree follows the floors of docs/architecture.md, each class saying when it is
raised. A class raised by a reader of text is also a ``ValueError``, so a caller that
catches ValueError still does. This module is the ground: it imports nothing of ours.
The few messages made here go through companion.lang all the same: lang raises
:class:`UnknownLanguage`, so it imports this module and hands its translating functions
down when it loads (:func:`speak_with`).
"""

import math
from collections.abc import Callable, Mapping
from typing import Any, ClassVar


def one_line(text: str, limit: int = 200) -> str:
    """A message as one printable line: control characters (a newline typed into an
    argument) shown escaped, and a pasted monster cut at ``limit`` characters."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def written(value: object, limit: int = 60) -> str:
    """A value in a message as the person wrote it, in the JSON (or TOML) they typed:
    text in double quotes (``"6"`` for the string, ``6`` for the number), ``true``,
    ``null``, ``[1, 2]``, a number as typed (``1e999``, never ``Infinity``), never
    Python's ``'6'``, ``True``, ``None`` or ``['a']``; one line, cut at ``limit``::

        >>> written(True), written(None), written(["a", 1]), written("Zed"), written(2.5)
        ('true', 'null', '["a", 1]', '"Zed"', '2.5')
        >>> written(typed_number("1e999")), written({"to": [typed_number("-1E400")]})
        ('1e999', '{"to": [-1E400]}')
    """
    return one_line(_json(value, limit, 0), limit)


#: How deep :func:`written` follows lists and objects before it writes "..." (a value
#: in a message is cut at a line's length anyway).
_DEPTH_SHOWN = 20


def _json(value: object, limit: int, depth: int) -> str:
    """``value`` as JSON text, each :class:`TypedNumber` as it was typed; a part past
    ``limit`` characters or :data:`_DEPTH_SHOWN` levels is left out as "..."."""
    import json  # only when a value is refused: the errors module loads with the device

    if isinstance(value, TypedNumber):
        return value.typed
    if isinstance(value, list | tuple | dict):
        if depth >= _DEPTH_SHOWN:
            return "..."
        items = value.items() if isinstance(value, dict) else ((None, item) for item in value)
        parts: list[str] = []
        size = 0
        for key, item in items:
            if size > limit:
                parts.append("...")
                break
            part = _json(item, limit, depth + 1)
            if isinstance(value, dict):
                part = f"{_json(str(key), limit, depth + 1)}: {part}"
            parts.append(part)
            size += len(part) + 2
        inside = ", ".join(parts)
        return f"{{{inside}}}" if isinstance(value, dict) else f"[{inside}]"
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # a TOML date: as TOML writes it
        return str(value)


class TypedNumber(float):
    """A number that remembers how it was typed: ``1e999`` is infinite to Python, and
    json.dumps writes ``Infinity``, a word nobody typed. The JSON readers make one only
    for a number too large for a float (:func:`typed_number`); the rules refuse it like
    any other number out of range, and :func:`written` says it as it came."""

    typed: str

    def __new__(cls, text: str) -> "TypedNumber":
        number = super().__new__(cls, text)
        number.typed = text
        return number


def typed_number(text: str) -> float:
    """The JSON readers' ``parse_float``: the number, or a :class:`TypedNumber` keeping
    its digits when they overflow a float (``1e999``)."""
    number = float(text)
    return number if math.isfinite(number) else TypedNumber(text)


# -- the words of this module -------------------------------------------------------------

#: How the messages made here are put in the device's language: English until
#: companion.lang loads and hands its own functions down (:func:`speak_with`).
_words: dict[str, Callable[..., str]] = {
    "gettext": lambda message: message,
    "pgettext": lambda context, message: message,
}


def speak_with(gettext: Callable[[str], str], pgettext: Callable[[str, str], str]) -> None:
    """Make the messages built here with ``gettext`` and ``pgettext``: companion.lang's,
    handed down as lang loads (this module imports nothing of ours)."""
    _words.update(gettext=gettext, pgettext=pgettext)


def _(message: str) -> str:
    return _words["gettext"](message)


def pgettext(context: str, message: str) -> str:
    return _words["pgettext"](context, message)


# -- the root -----------------------------------------------------------------------------


class CompanionError(Exception):
    """Base of every error the companion raises on purpose: one line a person can read."""

    #: How much of the message its one line shows: enough for any message of ours, and
    #: a cut for one that echoes a pasted monster back.
    shown_limit = 200


# -- the ground: the config and the files, texts and seasons every floor reads ------------


class ConfigError(CompanionError):
    """Raised when the configuration file is unreadable or names a bad key or value."""

    #: Commands exit with EX_CONFIG on it.
    exit_status = 78


class UnreadableFile(CompanionError):
    """Raised when a named file is missing, not a regular file, too large or not UTF-8."""

    def __init__(self, message: str, missing: bool = False):
        super().__init__(message)
        #: True when nothing is there at all.
        self.missing = missing


class NotStrictJson(CompanionError, ValueError):
    """Raised on JSON two readers may take differently: a key twice, NaN or Infinity."""


class SeasonError(CompanionError):
    """Raised when a season cannot be read (the message says which and why)."""


# -- games and table: a match, its rules and who sits at it -------------------------------


class IllegalEvent(CompanionError):
    """Raised when a match refuses an event (the rules, the moment); it is unchanged."""


class UnknownGame(CompanionError):
    """Raised when no game has the id asked for."""


class BadSetup(CompanionError):
    """Raised when a match cannot start with these players or options."""


class BadName(BadSetup):
    """Raised when a name breaks the one rule for names (the message says why)."""


# -- the store: the game log and its backups ----------------------------------------------
# One class per thing the caller may do next.


class StoreError(CompanionError):
    """Raised when the game log cannot be opened, read or written."""


class StoreCorrupt(StoreError):
    """Raised when the log is damaged or not a database (Store.set_aside moves it away)."""


class StoreTooNew(StoreError):
    """Raised when a newer companion wrote the log; it is left exactly as it is."""


class RosterFull(StoreError):
    """Raised when a name is added to a roster that holds ROSTER_MAX names already."""

    #: What the ways in answer FULL for (companion.remote.calls).
    full = True


class DuplicateMatch(StoreError):
    """Raised when a match with this uid is stored already (an import or a delivery twice)."""

    def __init__(self, uid: str, match_id: int):
        super().__init__(pgettext("screen 21x8", "match {uid} is stored already (as match {n})")
                         .format(uid=uid, n=match_id))
        self.uid = uid
        self.match_id = match_id


class NoRoom(StoreError):
    """Raised before a write the free space cannot hold; nothing was written."""

    exit_status = 1


class FolderNotWritable(StoreError):
    """Raised when a backup's folder cannot be written (read-only, or its owner and mode)."""

    def __init__(self, message: str, read_only: bool = False):
        super().__init__(message)
        #: A read-only mount, or a folder the service was not let write.
        self.read_only = read_only


class LogInUse(StoreError):
    """Raised when another program (the device, a companion stats) has the game log open."""

    exit_status = 5


class BackupError(StoreError):
    """Raised when a file is not a backup this companion can restore (damaged, not one)."""

    exit_status = 4


class BackupTooNew(BackupError):
    """Raised when a backup was made by a newer companion (a newer schema or format)."""

    exit_status = 3


class ForeignDevice(StoreError):
    """Raised by a restore of another device's backup without --keep-id or --take-id."""

    exit_status = 6


# -- the device: the pins and the display -------------------------------------------------


class GPIOError(CompanionError):
    """Raised when the pins cannot be used: no factory, no access, or another program's."""

    # The cause and then its fix, made from short parts: a cut drops the fix.
    shown_limit = 600


class BoardError(GPIOError):
    """Raised when a pin of the board cannot be opened (taken, missing, no GPIO access)."""


class DisplayError(CompanionError):
    """Raised when the display cannot be reached: no bus, nothing at the address, no right."""


# -- speech -------------------------------------------------------------------------------


class SpeechProblem(CompanionError):
    """Raised when no sound can be made (one line that says why)."""


# -- the ways in: the serial console, the table page, the club ----------------------------


class RemoteError(CompanionError):
    """Raised when a command from a second way in is refused: its ``code`` and one line."""

    #: The words of each code, for a refusal that brings none: the commands' codes
    #: (companion.remote.calls.ERRORS, which sets this: they are the commands' to keep).
    meanings: ClassVar[Mapping[str, str]] = {}

    def __init__(self, code: str, message: str):
        message = " ".join(str(message).split()) or self.meanings.get(code, "error")
        super().__init__(message)
        self.code = code
        self.message = message


class Refusal(CompanionError):
    """Raised when a web request is refused before it reaches a command (status, one line)."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None,
                 **extra: Any):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})
        #: What else the JSON answer says (``code``, ``seconds``).
        self.extra = extra


class Refused(CompanionError):
    """Raised by the web pages' door (Host, Origin, headers, body type) to stop a request."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class PairingRefused(CompanionError):
    """Raised when a pairing code is wrong, expired or not shown (the message says which)."""


class PairingLocked(PairingRefused):
    """Raised after too many wrong codes: pairing is locked for ``seconds`` more."""

    def __init__(self, seconds: float):
        self.seconds = max(1, math.ceil(seconds))
        super().__init__(_("too many wrong codes: pairing is locked for {seconds} s").format(
            seconds=self.seconds))


class WireError(CompanionError):
    """Raised when a club message is not a valid payload (it is dropped, never stored)."""


class SeatingError(CompanionError, ValueError):
    """Raised when the players cannot be seated as asked; the message says why."""


class NightError(CompanionError):
    """Raised when a club night's round cannot be made or its file cannot be read."""


class RoundRefused(NightError):
    """Raised when a round cannot be seated (the game, the players, the tables)."""

    # An argument to change: ``--seat`` exits 2, as for any bad argument.
    exit_status = 2


# -- the command line ---------------------------------------------------------------------


class UsageError(CompanionError):
    """Raised when the command line cannot work: an argument bad, missing or at odds."""

    exit_status = 2


class ScriptError(CompanionError):
    """Raised when a simulator script has a bad line (the message names the line)."""


class LineError(CompanionError):
    """Raised when a line of a log or an export is malformed or refused (its number leads)."""

    def __init__(self, line: int, message: str):
        super().__init__(_("line {line}: {reason}").format(line=line, reason=message))


class ImportRefused(CompanionError):
    """Raised when a file, or a match in it, cannot be imported (the message names the line)."""


class FileChanged(ImportRefused):
    """Raised when a file changed between its check and its storing: some matches are stored."""


# -- language and catalogs ----------------------------------------------------------------


class UnknownLanguage(CompanionError, ValueError):
    """Raised when a language code names no catalog the device has."""


class PoError(CompanionError, ValueError):
    """Raised when a catalog file is not valid PO text (the line is in the message)."""
