"""The typed error hierarchy.

Every error the companion raises on purpose derives from :class:`CompanionError`, so the
command line and the device can turn it into one clear line instead of a traceback::

    try:
        match.apply({"type": "roll", "player": "Bob", "value": 7})
    except IllegalEvent as err:
        show(str(err))          # "a die shows 1 to 6, not 7"
"""


def one_line(text: str, limit: int = 200) -> str:
    """A message as one printable line: control characters (a newline typed into an
    argument) shown escaped, and a pasted monster cut at ``limit`` characters."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def written(value: object, limit: int = 60) -> str:
    """A value in a message as the person wrote it: text in quotes (``'Zed'``), every
    other value as the JSON (or TOML) they typed, ``true``, ``null``, ``[1, 2]``, never
    Python's ``True``, ``None`` or ``['a']``; one line, cut at ``limit``::

        >>> written(True), written(None), written(["a", 1]), written("Zed"), written(2.5)
        ('true', 'null', '["a", 1]', "'Zed'", '2.5')
    """
    import json  # only when a value is refused: the errors module loads with the device

    if isinstance(value, str):
        return one_line(f"'{value}'", limit)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # a TOML date, or a number too large for JSON
        text = str(value)
    return one_line(text, limit)


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
