"""The typed error hierarchy.

Every error the companion raises on purpose derives from :class:`CompanionError`, so the
command line and the device can turn it into one clear line instead of a traceback::

    try:
        match.apply({"type": "roll", "player": "Bob", "value": 7})
    except IllegalEvent as err:
        show(str(err))          # "a die shows 1 to 6, not 7"
"""

import math


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


class CompanionError(Exception):
    """Base of every error the companion reports to a person."""

    #: How much of the message its one line shows: enough for any message of ours, and
    #: a cut for one that echoes a pasted monster back.
    shown_limit = 200


class ConfigError(CompanionError):
    """The configuration file is unreadable or names a bad key or value.

    Commands exit with status 78 (EX_CONFIG) on this error.
    """

    exit_status = 78


class UsageError(CompanionError):
    """The command line cannot work (a bad argument, a missing one, two that do not go
    together): one line and exit status 2, whatever the kind of argument."""

    exit_status = 2


class IllegalEvent(CompanionError):
    """A match refused an event: it breaks the rules or comes at the wrong moment.

    The match is unchanged when this is raised.
    """


class UnknownGame(CompanionError):
    """No game with that id."""


class BadSetup(CompanionError):
    """A match cannot start with these players or options."""


class ScriptError(CompanionError):
    """A simulator script has a bad line (the message names the line number)."""


class StoreError(CompanionError):
    """The event store cannot be opened or written."""
