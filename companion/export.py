"""``companion export`` and ``companion import``: matches out of the game log as JSON
lines (or a score sheet), and back into another device's log.

``jsonl`` writes what ``companion replay`` reads back: a ``start`` line with the game,
players and options, then the match's events, one per line. The start line also says
which match it is and when it was played (``uid``, ``started``, ``finished``; ``origin``
for a club table's match) and each event line carries the time it was stored (``at``),
so an import keeps the match's identity and times (docs/events.md, "Exported matches").
``--all`` writes every finished match, one after the other. ``csv`` writes the scores:
a row per hand (when the game's result lists them) and a ``total`` row::

    $ companion export --state-dir /var/lib/companion --match last --format csv
    round,Ann,Bob
    1,64,0
    2,0,71
    total,64,71

The log is opened read-only (``mode=ro``), so exporting while the device plays is safe
and never creates a database where there is none. Every failure is one line on
``err`` and a non-zero exit status; nothing is written to ``out`` then.

``companion import FILE`` reads such a file (one match or many), replays every match
through its engine and checks its players by the one name rule, and only if all of them
pass stores each as a finished match with its times and uid (its players join the
roster). A match already stored (the same uid) is refused, never stored twice.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from companion import games
from companion.errors import BadSetup, CompanionError, IllegalEvent, StoreError
from companion.names import BadName, check_name, check_players
from companion.store import DuplicateMatch, MatchRecord, Store, checked_uid

__all__ = [
    "EVENT_TIME",
    "FORMATS",
    "ExportedMatch",
    "ImportRefused",
    "export_main",
    "import_main",
    "jsonl_lines",
    "read_export",
    "score_rows",
    "without_time",
]

FORMATS = ("jsonl", "csv")
#: The key of an exported event line that says when the event was stored; it is not
#: part of the event (the engine never sees it).
EVENT_TIME = "at"
#: What a start line may say beyond the game, players and options: which match it is,
#: where and when it was played.
START_EXTRAS = ("uid", "origin", "started", "finished")

_PROG = "companion export"
_IMPORT = "companion import"


def export_main(
    state_dir: str,
    match: str,
    fmt: str,
    out: TextIO | None = None,
    err: TextIO | None = None,
    *,
    every: bool = False,
) -> int:
    """Export one match (``every``: every finished match, as jsonl); return the exit
    status (0 ok, 1 failure, 2 bad format).

    ``match`` is a match id, ``current`` or ``last``. ``out``/``err`` default to the
    process's stdout/stderr at call time (so test capture and redirection both work).
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if fmt not in FORMATS:
        print(f"{_PROG}: unknown format {fmt!r} (formats: {', '.join(FORMATS)})", file=err)
        return 2
    if every and fmt != "jsonl":
        print(f"{_PROG}: --all writes jsonl (a score sheet is one match)", file=err)
        return 2
    directory = Path(state_dir)
    if not directory.is_dir():
        print(f"{_PROG}: no state directory {directory}", file=err)
        return 1
    path = directory / Store.DEFAULT_NAME
    if not path.is_file():
        print(f"{_PROG}: no game log in {directory} ({Store.DEFAULT_NAME} not found)", file=err)
        return 1
    try:
        with Store(path, readonly=True) as store:
            if every:
                text = "".join(_match_text(store, record)
                               for record in _every_finished(store))
            else:
                record = store.match(store.resolve(match))
                found = match_text(store, record, fmt)
                if found is None:
                    print(f"{_PROG}: match {record.id} has no scores to export", file=err)
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
        print(f"{_PROG}: cannot write the export: {error.strerror or error}", file=err)
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
    rows = store.events_since(record.id, 0)  # the events and their times in one read
    lines = jsonl_lines(record, [event for _, event, _ in rows], [at for _, _, at in rows])
    return "".join(line + "\n" for line in lines)


def jsonl_lines(
    record: MatchRecord,
    events: Sequence[Mapping[str, Any]],
    times: Sequence[float] | None = None,
) -> list[str]:
    """The ``start`` line and one line per event, as ``companion replay`` reads them;
    with ``times`` each event line says when it was stored (``"at"``)."""
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
    if times is None:
        return [_json(start)] + [_json(event) for event in events]
    return [_json(start)] + [_json({**event, EVENT_TIME: at})
                             for event, at in zip(events, times, strict=True)]


def without_time(event: Mapping[str, Any]) -> dict[str, Any]:
    """An exported event line as the event itself (its ``"at"`` time left out)."""
    return {key: value for key, value in event.items() if key != EVENT_TIME}


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
    rows = [["round", *players]]
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


# -- import --------------------------------------------------------------------------------


class LineError(CompanionError):
    """A line of a log or an export is malformed or refused (its number leads)."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")


def load_json(text: str) -> Any:
    """``json.loads`` whose every failure is a ValueError with a short reason: also a
    nesting too deep for Python and a number of thousands of digits.

    >>> load_json("[" * 100_000)
    Traceback (most recent call last):
    ValueError: nested too deeply
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(err.msg) from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError:  # int() refuses thousands of digits
        raise ValueError("a number with too many digits") from None


def json_objects(text: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSON Lines text; LineError
    for a line that is not one JSON object (``companion replay`` and ``import``)."""
    numbered = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = load_json(line)
        except ValueError as problem:
            raise LineError(number, f"not JSON ({problem})") from None
        if not isinstance(value, dict):
            raise LineError(number, "an event is a JSON object")
        numbered.append((number, value))
    return numbered


class ImportRefused(CompanionError):
    """A file (or a match in it) cannot be imported; the message names the line."""


@dataclass
class ExportedMatch:
    """One match as an export file has it: its start line and its event lines."""

    line: int
    game: str
    players: list[str]
    options: dict[str, Any]
    uid: str | None = None
    origin: str = ""
    started: float | None = None
    finished: float | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    #: When each event was stored (None where the line has no ``"at"``).
    times: list[float | None] = field(default_factory=list)
    #: The line number of each event.
    lines: list[int] = field(default_factory=list)

    def identity(self) -> str:
        """The uid, or (a file from before uids) one made from what was played, so the
        same file imported twice is still seen as the same match."""
        if self.uid:
            return self.uid
        played = [self.game, self.players, self.options, self.events]
        digest = hashlib.sha256(json.dumps(played, sort_keys=True).encode("utf-8"))
        return "import-" + digest.hexdigest()[:32]


def read_export(text: str) -> list[ExportedMatch]:
    """The matches of an export file: each a ``start`` line (with ``game`` and
    ``players``) then its events. ImportRefused names the first line that is wrong."""
    matches: list[ExportedMatch] = []
    try:
        numbered = json_objects(text)
    except LineError as problem:
        raise ImportRefused(str(problem)) from None
    for number, value in numbered:
        if value.get("type") == "start":
            matches.append(_start_line(number, value))
            continue
        if not matches:
            raise ImportRefused(f"line {number}: a match begins with a start line "
                                "(as companion export writes it)")
        at = value.get(EVENT_TIME)
        if at is not None and not _is_time(at):
            raise ImportRefused(f'line {number}: "{EVENT_TIME}" is a time in seconds')
        match = matches[-1]
        match.events.append(without_time(value))
        match.times.append(None if at is None else float(at))
        match.lines.append(number)
    if not matches:
        raise ImportRefused("no match in the file (it is empty)")
    return matches


def _start_line(number: int, start: dict[str, Any]) -> ExportedMatch:
    known = ("type", "game", "players", "options", *START_EXTRAS)
    extra = [key for key in start if key not in known]
    if extra:
        raise ImportRefused(f"line {number}: a start line has no field {extra[0]!r}")
    game, players, options = start.get("game"), start.get("players"), start.get("options", {})
    if not isinstance(game, str) or not game:
        raise ImportRefused(f'line {number}: the start line names no "game"')
    if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
        raise ImportRefused(f'line {number}: "players" is a list of names')
    if not isinstance(options, dict):
        raise ImportRefused(f'line {number}: "options" is an object, like {{"hit_goal": true}}')
    for key in ("started", "finished"):
        if start.get(key) is not None and not _is_time(start[key]):
            raise ImportRefused(f'line {number}: "{key}" is a time in seconds')
    uid, origin = start.get("uid"), start.get("origin", "")
    if uid is not None:
        try:
            checked_uid(uid)  # the store's own rule, before anything is stored
        except StoreError as problem:
            raise ImportRefused(f"line {number}: {problem}") from None
    if not isinstance(origin, str):
        raise ImportRefused(f'line {number}: "origin" is text')
    return ExportedMatch(
        line=number, game=game, players=list(players), options=dict(options), uid=uid,
        origin=origin,
        started=None if start.get("started") is None else float(start["started"]),
        finished=None if start.get("finished") is None else float(start["finished"]),
    )


def _is_time(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 0)


@dataclass
class _Checked:
    """A match that replayed: what the store keeps of it."""

    source: ExportedMatch
    result: dict[str, Any]
    times: list[float]
    started: float
    finished: float


def check_match(match: ExportedMatch, roster: Sequence[str], now: float) -> _Checked:
    """Replay ``match`` through its engine and check its names; ImportRefused (naming
    the line) if it cannot be stored as a finished match."""
    where = f"line {match.line}"
    _check_names(match.players, roster, where)
    try:
        played = games.engine(match.game).replay(match.players, match.options, match.events)
    except (BadSetup, CompanionError) as problem:
        index = getattr(problem, "index", None)
        if isinstance(problem, IllegalEvent) and index is not None:
            raise ImportRefused(f"line {match.lines[index]}: {problem}") from None
        raise ImportRefused(f"{where}: {problem}") from None
    if not played.over:
        last = match.lines[-1] if match.lines else match.line
        raise ImportRefused(f"line {last}: the match is not over (only finished matches "
                            "are imported)")
    known = [at for at in match.times if at is not None]
    if known and len(known) != len(match.times):
        missing = match.lines[match.times.index(None)]
        raise ImportRefused(f'line {missing}: this event has no time ("{EVENT_TIME}") '
                            "but others do")
    started = match.started if match.started is not None else (known or [now])[0]
    finished = match.finished if match.finished is not None else (known or [now])[-1]
    times = [float(at) for at in known] if known else [started] * len(match.events)
    return _Checked(match, played.result(), times, started, finished)


def _check_names(players: Sequence[str], roster: Sequence[str], where: str) -> None:
    """The one name rule (companion.names): each name as the rule writes it, none like
    another seated one, and none that only looks like a different roster name."""
    try:
        cleaned = check_players(players)
        for name in cleaned:
            if not any(name.casefold() == known.casefold() for known in roster):
                check_name(name, roster)
    except BadName as refused:
        raise ImportRefused(f"{where}: {refused}") from None
    for given, clean in zip(players, cleaned, strict=True):
        if given != clean:
            raise ImportRefused(f"{where}: the name {given!r} is written {clean!r} here")


def import_text(
    store: Store, text: str, report: Callable[[str], None], now: float | None = None
) -> tuple[int, int]:
    """Import every match of ``text`` into ``store``: (stored, refused as stored before).

    Every match is read and replayed first: ImportRefused for the first that fails, and
    then nothing is stored. ``report`` gets a line per match stored or refused.
    """
    now = time.time() if now is None else now
    roster = store.roster()
    checked = [check_match(match, roster, now) for match in read_export(text)]
    stored = refused = 0
    for match in checked:
        source = match.source
        uid = source.identity()
        try:
            match_id = store.import_match(
                source.game, source.players, source.options,
                list(zip(source.events, match.times, strict=True)),
                started=match.started, finished=match.finished, result=match.result,
                uid=uid, origin=source.origin)
        except DuplicateMatch as duplicate:
            refused += 1
            report(f"line {source.line}: not imported: this match is stored already "
                   f"(as match {duplicate.match_id})")
            continue
        stored += 1
        title = games.title(source.game)
        report(f"line {source.line}: stored as match {match_id} "
               f"({title}: {', '.join(source.players)})")
    return stored, refused


def import_main(
    state_dir: str, path: str, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """``companion import FILE``: 0 when every match was stored, 1 when any was refused
    (a bad file stores nothing; the line and the reason are printed)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            text = Path(path).read_text(encoding="utf-8")
    except OSError as problem:
        print(f"{_IMPORT}: cannot read {path}: {problem.strerror or problem}", file=err)
        return 1
    except UnicodeDecodeError:
        print(f"{_IMPORT}: cannot read {path}: it is not UTF-8 text", file=err)
        return 1
    try:
        with Store.in_dir(state_dir) as store:
            stored, refused = import_text(store, text, lambda line: print(line, file=out))
    except ImportRefused as problem:
        print(f"{_IMPORT}: {path}: {problem}; nothing was imported", file=err)
        return 1
    except StoreError as problem:
        print(f"{_IMPORT}: {problem}", file=err)
        return 1
    if refused:
        print(f"{_IMPORT}: {refused} match{'es' if refused > 1 else ''} stored already "
              f"(not imported again); {stored} stored", file=err)
        return 1
    return 0
