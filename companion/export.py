"""``companion export``: one match out of the game log, as JSON lines or a score sheet.

``jsonl`` writes what ``companion replay`` reads back: a ``start`` line with the game,
players and options, then the match's events, one per line. ``csv`` writes the scores:
a row per hand (when the game's result lists them) and a ``total`` row::

    $ companion export --state-dir /var/lib/companion --match last --format csv
    round,Ann,Bob
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
from companion.errors import StoreError
from companion.store import MatchRecord, Store

__all__ = ["FORMATS", "export_main", "jsonl_lines", "score_rows"]

FORMATS = ("jsonl", "csv")

_PROG = "companion export"


def export_main(
    state_dir: str,
    match: str,
    fmt: str,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Export one match; return the exit status (0 ok, 1 failure, 2 bad format).

    ``match`` is a match id, ``current`` or ``last``. ``out``/``err`` default to the
    process's stdout/stderr at call time (so test capture and redirection both work).
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if fmt not in FORMATS:
        print(f"{_PROG}: unknown format {fmt!r} (formats: {', '.join(FORMATS)})", file=err)
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
            match_id = store.resolve(match)
            record = store.match(match_id)
            events = store.events(match_id)
    except StoreError as error:
        print(f"{_PROG}: {error}", file=err)
        return 1
    if fmt == "jsonl":
        text = "".join(line + "\n" for line in jsonl_lines(record, events))
    else:
        rows = score_rows(record, events)
        if rows is None:
            print(f"{_PROG}: match {record.id} has no scores to export", file=err)
            return 1
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        text = buffer.getvalue()
    # Built whole first, so a failure above never leaves half a file on ``out``.
    try:
        out.write(text)
        out.flush()
    except OSError as error:  # a full disk, or a closed pipe (``| head``)
        print(f"{_PROG}: cannot write the export: {error.strerror or error}", file=err)
        return 1
    return 0


def jsonl_lines(record: MatchRecord, events: Sequence[Mapping[str, Any]]) -> list[str]:
    """The ``start`` line and one line per event, as ``companion replay`` reads them."""
    start = {
        "type": "start",
        "game": record.game_id,
        "players": list(record.players),
        "options": record.options,
    }
    return [_json(start)] + [_json(event) for event in events]


def score_rows(record: MatchRecord, events: Sequence[Mapping[str, Any]]) -> list[list[str]] | None:
    """The score sheet: header, one row per hand if known, then ``total``; None if no scores.

    Scores come from replaying the log through the game's engine (the source of truth);
    if that fails (engine not built, a bug) the result saved when the match finished is
    used instead. Per-hand rows need every entry of ``result["hands"]`` (or of
    ``result["rounds"]`` or ``result["games"]``) to give each
    player's points (a ``points`` mapping, or ``players`` -> player -> ``points``);
    otherwise only the totals row is written.
    """
    players = list(record.players)
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


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
