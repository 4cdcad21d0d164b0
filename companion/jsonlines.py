"""JSON as every way in reads it, and the lines of an exported match.

One rule for JSON, whichever way it arrives: a value (the serial console's EVENT, an
option typed on the command line or the console, a line of a replay log or an import)
is read by :func:`load_json`, which refuses a key given twice and NaN or Infinity as the
page refuses them; a JSON Lines text by :func:`json_objects`, line by line; an option
``NAME=VALUE`` by :func:`parse_option`. An exported event line carries two marks that
are not part of the event, when it was stored (``"at"``) and whether it was taken back
(``"undone"``): :func:`without_time` and :func:`counting` read past them.

The lines are written by :mod:`companion.transcript`; ``companion replay`` and
``companion import`` read them back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from companion.errors import LineError, NotStrictJson, typed_number, written
from companion.lang import N_, _

__all__ = ["EVENT_TIME", "START_EXTRAS", "UNDONE", "counting", "is_undone", "json_objects",
           "load_json", "parse_option", "without_time"]

#: The key of an exported event line that says when the event was stored; it is not
#: part of the event (the engine never sees it).
EVENT_TIME = "at"
#: The key of an exported event line that marks an event taken back by undo (``true``);
#: not part of the event either: such a line never counts.
UNDONE = "undone"
#: What a start line may say beyond the game, players and options: which match it is,
#: where and when it was played.
START_EXTRAS = ("uid", "origin", "started", "finished")


def without_time(event: Mapping[str, Any]) -> dict[str, Any]:
    """An exported event line as the event itself (its ``"at"`` time and ``"undone"``
    mark left out)."""
    return {key: value for key, value in event.items() if key not in (EVENT_TIME, UNDONE)}


def is_undone(line: Mapping[str, Any], number: int) -> bool:
    """True for an exported event line marked taken back (``"undone": true``); LineError
    for a mark that is anything but true."""
    if UNDONE not in line:
        return False
    if line[UNDONE] is not True:
        # Translators: "undone" is the field's name in the log: keep it as it is.
        raise LineError(number, _('"undone" is true (an event taken back) or left out, '
                                  'not {value}').format(value=json.dumps(line[UNDONE])[:40]))
    return True


def counting(numbered: Sequence[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """The (line number, line) of a log's events that count: those taken back left out
    (LineError for a bad ``"undone"`` mark)."""
    return [(number, line) for number, line in numbered if not is_undone(line, number)]


def parse_option(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` as given to ``--option``, with VALUE read as JSON-ish.

    ``true``/``false`` become booleans, whole numbers ints, anything that starts like a
    JSON list, object or string is parsed as JSON, and the rest stays a plain string::

        >>> parse_option("hit_goal=true")
        ('hit_goal', True)
        >>> parse_option("target=250")
        ('target', 250)

    ValueError when the text is not NAME=VALUE or the JSON does not parse.
    """
    name, equals, raw = text.partition("=")
    name = name.strip()
    if not equals or not name:
        raise ValueError(_("an option is NAME=VALUE, not {value}").format(
            value=repr(_short(text))))
    raw = raw.strip()
    if raw.lower() in ("true", "false"):
        return name, raw.lower() == "true"
    try:
        return name, int(raw)
    except ValueError:
        pass
    if raw[:1] in ("[", "{", '"') or _JSON_NUMBER.fullmatch(raw):
        # A number is a number as typed (30.0, 1e999), so a refusal says it so and
        # not as the string "30.0".
        try:
            return name, load_json(raw)
        except ValueError as err:
            raise ValueError(_("option {name}: {value} is not valid JSON ({problem})").format(
                name=_short(name), value=repr(_short(raw)), problem=err)) from None
    return name, raw


#: A number as JSON writes one (what ``int`` does not take: 30.0, 1e999, -0.5).
_JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def _short(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for a message (a pasted monster stays one line)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- reading JSON Lines back (replay, import) ----------------------------------------------


def load_json(text: str) -> Any:
    """``json.loads`` as every way in reads JSON (the serial console's EVENT, a replay
    log, an import, an option typed on the command line; the page's body is read by the
    same rules): a key twice in one object and NaN or Infinity are refused, as the page
    refuses them; every failure is a ValueError with a short reason, also a nesting too
    deep for Python and a number of thousands of digits.

    >>> load_json("[" * 100_000)
    Traceback (most recent call last):
    ValueError: nested too deeply
    >>> load_json('{"value": 6, "value": 5}')
    Traceback (most recent call last):
    companion.errors.NotStrictJson: the key "value" is given twice
    """
    try:
        # A number too large for a float keeps its digits for the refusal (1e999). A
        # byte order mark is no part of the text: a file saved by a Windows editor,
        # pasted after EVENT, or joined to another (`cat a.jsonl b.jsonl`).
        return _DECODER.decode(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as err:
        raise ValueError(json_problem(err)) from None
    except NotStrictJson:
        raise
    except RecursionError:
        raise ValueError(_("nested too deeply")) from None
    except ValueError:  # int() refuses thousands of digits
        raise ValueError(_("a number with too many digits")) from None


#: What the JSON reader says went wrong (its own English, by how it begins) -> what a
#: person reads in the language, with where: a refusal keeps no English after its code.
_JSON_PROBLEMS = (
    ("Expecting value", N_("a value is missing at character {n}")),
    ("Expecting property name", N_("a key in double quotes is missing at character {n}")),
    ("Expecting ':'", N_("a ':' is missing at character {n}")),
    ("Expecting ','", N_("a ',' is missing at character {n}")),
    ("Extra data", N_("more follows the end at character {n}")),
    ("Unterminated string", N_("the text starting at character {n} has no closing quote")),
    ("Invalid control character", N_("a control character in a text at character {n}")),
    ("Invalid \\", N_("a wrong \\ escape at character {n}")),
    ("Illegal trailing comma", N_("a ',' before the end at character {n}")),
)


def json_problem(err: json.JSONDecodeError) -> str:
    """What is wrong with a JSON text, in the language spoken: the JSON reader's own
    message is English, so it is said with the catalog's words::

        >>> json_problem(json.JSONDecodeError("Expecting value", "{", 1))
        'a value is missing at character 2'
    """
    said = next((words for start, words in _JSON_PROBLEMS if err.msg.startswith(start)),
                N_("not readable from character {n}"))
    return _(said).format(n=err.pos + 1)


def _no_constant(name: str) -> Any:
    raise NotStrictJson(_("{value} is not a JSON value").format(value=name))


def _no_key_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose every key is there once: ``{"value": 6, "value": 5}`` is 5 to one
    reader and 6 to another, so it is refused."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _value in pairs if key in seen or seen.add(key))
        # Translators: {key} is the key as typed, in double quotes ("value").
        raise NotStrictJson(_("the key {key} is given twice").format(key=written(twice, 40)))
    return data


#: The one decoder :func:`load_json` reads with: ``json.loads`` with hooks builds a new
#: one each call, and an import reads an export line by line (a tenth of its JSON work
#: was making decoders).
_DECODER = json.JSONDecoder(parse_float=typed_number, parse_constant=_no_constant,
                            object_pairs_hook=_no_key_twice)


def json_objects(text: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSON Lines text; LineError
    for a line that is not one JSON object (``companion replay`` and ``import``)."""
    numbered = []
    # A byte order mark (an export saved by a Windows editor) is no part of line 1.
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = load_json(line)
        except ValueError as problem:
            raise LineError(number, _("not JSON ({reason})").format(reason=problem)) from None
        if not isinstance(value, dict):
            raise LineError(number, _("an event is a JSON object"))
        numbered.append((number, value))
    return numbered
