"""``companion export``: matches out of the game log as JSON lines (or a score sheet),
and the JSON Lines format itself, which ``companion replay`` and ``companion import``
(:mod:`companion.importer`) read back.

``jsonl`` writes what ``companion replay`` reads back: a ``start`` line with the game,
players and options, then the match's events, one per line. The start line also says
which match it is and when it was played (``uid``, ``started``, ``finished``; ``origin``
for a club table's match) and each event line carries the time it was stored (``at``),
so an import keeps the match's identity and times (docs/events.md, "Exported matches").
An event taken back by undo stays in the record: its line is marked ``"undone": true``
at the place it held, before the event that took its place; replay and import read
past it (it never counts), and an import keeps it marked.
``--all`` writes every finished match, one after the other. ``csv`` writes the scores:
a row per hand, round or game, as the game is counted at the table (when its result
lists them; the first column is named so: ``hand`` for Final Count, ``round`` for Block
Lottery and the scoreboard, ``game`` for the match games) and a ``total`` row::

    $ companion export --state-dir /var/lib/companion --match last --format csv
    hand,Ann,Bob
    1,64,0
    2,0,71
    total,64,71

The log is opened read-only (``mode=ro``), so exporting while the device plays is safe
and never creates a database where there is none. Every failure is one line on
``err`` and a non-zero exit status; nothing is written to ``out`` then.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from companion import games
from companion.errors import (
    LineError,
    NotStrictJson,
    StoreError,
    typed_number,
    written,
)
from companion.lang import N_, _
from companion.store import MatchRecord, Store

__all__ = [
    "EVENT_TIME",
    "FORMATS",
    "UNDONE",
    "LineError",
    "counting",
    "is_undone",
    "export_main",
    "json_objects",
    "jsonl_lines",
    "load_json",
    "score_rows",
    "without_time",
]

FORMATS = ("jsonl", "csv")
#: The key of an exported event line that says when the event was stored; it is not
#: part of the event (the engine never sees it).
EVENT_TIME = "at"
#: The key of an exported event line that marks an event taken back by undo (``true``);
#: not part of the event either: such a line never counts.
UNDONE = "undone"
#: What a start line may say beyond the game, players and options: which match it is,
#: where and when it was played.
START_EXTRAS = ("uid", "origin", "started", "finished")

_PROG = "companion export"


def export_main(
    state_dir: str,
    match: str,
    fmt: str,
    out: TextIO | None = None,
    err: TextIO | None = None,
    *,
    every: bool = False,
    table: str | None = None,
) -> int:
    """Export one match (``every``: every finished match, as jsonl; ``table``: of that
    club table only); return the exit status (0 ok, 1 failure, 2 bad format).

    ``match`` is a match id, ``current`` or ``last``. ``out``/``err`` default to the
    process's stdout/stderr at call time (so test capture and redirection both work).
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if fmt not in FORMATS:
        print(f"{_PROG}: " + _("unknown format {value} (formats: {formats})").format(
            value=repr(fmt), formats=", ".join(FORMATS)), file=err)
        return 2
    if every and fmt != "jsonl":
        print(f"{_PROG}: " + _("--all writes jsonl (a score sheet is one match)"), file=err)
        return 2
    directory = Path(state_dir)
    if not directory.is_dir():
        print(f"{_PROG}: " + _("no state directory {folder}").format(folder=directory),
              file=err)
        return 1
    path = directory / Store.DEFAULT_NAME
    if not path.is_file():
        print(f"{_PROG}: " + _("no game log in {folder} ({file} not found)").format(
            folder=directory, file=Store.DEFAULT_NAME), file=err)
        return 1
    try:
        with Store(path, readonly=True) as store:
            if every:
                text = "".join(_match_text(store, record)
                               for record in _every_finished(store)
                               if table is None or record.origin == table)
            else:
                record = store.match(store.resolve(match))
                found = match_text(store, record, fmt)
                if found is None:
                    print(f"{_PROG}: " + _("match {n} has no scores to export").format(
                        n=record.id), file=err)
                    return 1
                text = found
    except StoreError as error:
        print(f"{_PROG}: {error}", file=err)
        return 1
    # Built whole first, so a failure above never leaves half a file on ``out``.
    try:
        out.write(text)
        out.flush()
    except OSError as error:  # a full disk, or a closed pipe (``| head``)
        print(f"{_PROG}: " + _("cannot write the export: {reason}").format(
            reason=error.strerror or error), file=err)
        return 1
    return 0


def match_text(store: Store, record: MatchRecord, fmt: str) -> str | None:
    """The match as ``companion export --format fmt`` writes it (the web page's
    downloads are these bytes); None for CSV of a game without a score table."""
    if fmt == "jsonl":
        return _match_text(store, record)
    return csv_text(record, store.events(record.id))


def csv_text(record: MatchRecord, events: Sequence[Mapping[str, Any]]) -> str | None:
    """The score table as CSV (:func:`score_rows`), or None when there is none."""
    rows = score_rows(record, events)
    if rows is None:
        return None
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def _match_text(store: Store, record: MatchRecord) -> str:
    moves = store.played(record.id)  # the events, those taken back too, in one read
    lines = jsonl_lines(record, [move.event for move in moves], [move.at for move in moves],
                        [move.undone for move in moves])
    return "".join(line + "\n" for line in lines)


def jsonl_lines(
    record: MatchRecord,
    events: Sequence[Mapping[str, Any]],
    times: Sequence[float] | None = None,
    undone: Sequence[bool] | None = None,
) -> list[str]:
    """The ``start`` line and one line per event, as ``companion replay`` reads them;
    with ``times`` each event line says when it was stored (``"at"``); ``undone`` marks
    the events taken back (``"undone": true``)."""
    start: dict[str, Any] = {
        "type": "start",
        "game": record.game_id,
        "players": list(record.players),
        "options": record.options,
    }
    if record.uid:
        start["uid"] = record.uid
    if record.origin:
        start["origin"] = record.origin
    start["started"] = record.started
    start["finished"] = record.finished
    marks = [False] * len(events) if undone is None else list(undone)
    lines = [_json(start)]
    for n, (event, gone) in enumerate(zip(events, marks, strict=True)):
        line = dict(event) if times is None else {**event, EVENT_TIME: times[n]}
        lines.append(_json({**line, UNDONE: True} if gone else line))
    return lines


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


def score_rows(record: MatchRecord, events: Sequence[Mapping[str, Any]],
               result: Mapping[str, Any] | None = None) -> list[list[str]] | None:
    """The score sheet: header, one row per hand if known, then ``total``; None if no scores.

    Scores come from replaying the log through the game's engine (the source of truth);
    if that fails (engine not built, a bug) the result saved when the match finished is
    used instead. Per-hand rows need every entry of ``result["hands"]`` (or of
    ``result["rounds"]`` or ``result["games"]``) to give each
    player's points (a ``points`` mapping, or ``players`` -> player -> ``points``);
    otherwise only the totals row is written. ``result``: the standings of those very
    events when the caller has them (a live match), so they are not replayed again.
    """
    players = list(record.players)
    if result is None:
        result = _replayed_result(record, events)
    if result is None:
        result = record.result or {}
    # Per hand (Final Count), per round (Block Lottery, the scoreboard), per game
    # (Final Card-Down): whichever the game's result keeps with points in it.
    hands = next((rows for key in ("hands", "rounds", "games")
                  if (rows := _hand_points(result.get(key)))), [])
    totals = result.get("totals")
    if not isinstance(totals, Mapping):
        if not hands:
            return None
        totals = {p: sum(_number(hand.get(p)) or 0 for hand in hands) for p in players}
    rows = [[games.unit(record.game_id), *players]]
    rows += [[str(n), *(_cell(hand.get(p)) for p in players)] for n, hand in enumerate(hands, 1)]
    rows.append(["total", *(_cell(totals.get(p)) for p in players)])
    return rows


def _replayed_result(
    record: MatchRecord, events: Sequence[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    try:
        replayed = games.replay(record.game_id, record.players, record.options, list(events))
        standings = replayed.result()
    except Exception:
        # Deliberately broad: an unbuilt or buggy engine must not keep a person from
        # getting their scores out; the saved result is the fallback.
        return None
    return standings if isinstance(standings, Mapping) else None


def _hand_points(hands: Any) -> list[dict[str, Any]]:
    """Per-hand points as ``{player: points}``, or [] unless every hand has them."""
    if not isinstance(hands, list) or not hands:
        return []
    rows = [_points_of(hand) for hand in hands]
    # All or nothing: a sheet with some hands missing would add up wrong.
    if any(row is None for row in rows):
        return []
    return rows  # type: ignore[return-value]


def _points_of(hand: Any) -> dict[str, Any] | None:
    # Two shapes: {"points": {player: n}}, or per-player records as Final Count keeps
    # them, {"players": {player: {"points": n, ...}}}.
    if not isinstance(hand, Mapping):
        return None
    points = hand.get("points")
    if isinstance(points, Mapping):
        return dict(points)
    players = hand.get("players")
    if isinstance(players, Mapping) and all(
        isinstance(entry, Mapping) and "points" in entry for entry in players.values()
    ):
        return {player: entry["points"] for player, entry in players.items()}
    return None


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _cell(value: Any) -> str:
    number = _number(value)
    return "" if number is None else str(number)


def _every_finished(store: Store) -> list[MatchRecord]:
    """Every finished match, oldest id first (so an import keeps their order)."""
    return sorted(store.history(limit=2**62), key=lambda record: record.id)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


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
        return _strict().decode(text.removeprefix("\ufeff"))
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


def _strict() -> json.JSONDecoder:
    """The one decoder :func:`load_json` reads with: ``json.loads`` with hooks builds a
    new one each call, and an import reads an export line by line (a tenth of its
    JSON work was making decoders)."""
    if not _DECODER:
        _DECODER.append(json.JSONDecoder(parse_float=typed_number,
                                         parse_constant=_no_constant,
                                         object_pairs_hook=_no_key_twice))
    return _DECODER[0]


#: :func:`_strict`'s decoder, made on first use.
_DECODER: list[json.JSONDecoder] = []


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
