"""A match written out: the JSON Lines of ``companion export`` and its score sheet.

``jsonl_lines`` writes what ``companion replay`` reads back: a ``start`` line with the
game, players and options, then the match's events, one per line. The start line also
says which match it is and when it was played (``uid``, ``started``, ``finished``;
``origin`` for a club table's match) and each event line carries the time it was stored
(``at``), so an import keeps the match's identity and times (docs/events.md, "Exported
matches"). An event taken back by undo stays in the record: its line is marked
``"undone": true`` at the place it held, before the event that took its place; replay
and import read past it (it never counts, :mod:`companion.jsonlines`), and an import
keeps it marked.

The score sheet (:func:`score_rows`, :func:`csv_text`) has a row per hand, round or
game, as the game is counted at the table (when its result lists them; the first column
is named so, :func:`companion.games.unit`) and a ``total`` row. The History screen, the
table page's downloads, the serial console's EXPORT and ``companion export`` all write
these same bytes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from companion import games
from companion.jsonlines import EVENT_TIME, UNDONE
from companion.store import MatchRecord, Store

__all__ = ["csv_text", "jsonl_lines", "match_text", "score_rows"]


def match_text(store: Store, record: MatchRecord, fmt: str) -> str | None:
    """The match as ``companion export --format fmt`` writes it (the web page's
    downloads are these bytes); None for CSV of a game without a score table."""
    if fmt == "jsonl":
        return _jsonl_text(store, record)
    return csv_text(record, store.events(record.id))


def csv_text(record: MatchRecord, events: Sequence[Mapping[str, Any]]) -> str | None:
    """The score table as CSV (:func:`score_rows`), or None when there is none."""
    rows = score_rows(record, events)
    if rows is None:
        return None
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def _jsonl_text(store: Store, record: MatchRecord) -> str:
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


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


