"""What the pages show, computed from a match's record and log: the log in words, the
standings and the chart of totals (an SVG drawn here, so the page needs no chart code).

Pure functions of plain data: the live table, the history pages and the club
dashboard all use them the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from companion import games

#: Past-tense verbs for the log ("Ann rolled 3"); other types read "Ann: type ...".
VERBS = {
    "roll": "rolled", "goal": "rolled the Hit Goal", "call": "called", "board": "Board:",
    "hand": "showed", "play": "played", "pass": "passed", "points": "scored",
    "end": "ended the round", "turn_up": "turned up", "call_out": "called out",
    "said": "said", "forgot": "forgot to say", "colour": "named the colour",
    "draw": "drew a card", "draw_stack": "drew the stack", "end_match": "ended the match",
    "pool": "rolled the pool", "take": "took a", "reroll": "re-rolled", "token": "drew token",
    "score": "scored", "starter": "asked for", "chain": "laid a chain", "blind": "turned over",
    "pickup": "picked up the pile", "out": "is out",
}
#: Lines of the log on the table view.
LOG_LINES = 12
#: Chart size in SVG user units (it scales to the page).
CHART_W, CHART_H = 600, 260
#: Line colours of the chart, one per seat (readable on dark and light).
COLOURS = ("#e4572e", "#29a3d9", "#f3a712", "#76b041", "#b56ed8", "#d94f8a", "#8c8c8c",
           "#17bebb", "#c6a15b", "#5d6fd9")


game_title = games.title


def _value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return " ".join(_value(item) for item in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {_value(item)}" for key, item in value.items())
    return str(value)


def event_words(event: Mapping[str, Any]) -> str:
    """One event as a line for people: ``{"type": "roll", "player": "Ann", "value": 3}``
    is "Ann rolled 3"."""
    kind = str(event.get("type", "?"))
    who = str(event.get("player", "") or "")
    rest = [_value(value) for key, value in event.items() if key not in ("type", "player")]
    verb = VERBS.get(kind)
    words = [who, verb, *rest] if verb else [f"{who}:" if who else "", kind, *rest]
    return " ".join(word for word in words if word)


def log_lines(events: Sequence[Mapping[str, Any]], last: int | None = LOG_LINES,
              game: tuple[str, Sequence[str], Mapping[str, Any]] | None = None,
              ) -> list[tuple[int, str]]:
    """(seq, words) for the last ``last`` events (all when None), oldest first. With
    ``game`` = (game id, players, options) a line also says what its event meant at the
    table, as the rules tell it: "Ann rolled 3: draw for Board"."""
    start = 0 if last is None else max(0, len(events) - last)
    notes = event_notes(game, events) if game is not None else [""] * len(events)
    return [(seq, event_words(event) + (f": {notes[seq - 1]}" if notes[seq - 1] else ""))
            for seq, event in enumerate(events[start:], start + 1)]


def event_notes(game: tuple[str, Sequence[str], Mapping[str, Any]],
                events: Sequence[Mapping[str, Any]]) -> list[str]:
    """:meth:`Match.note` of each event, by replaying them once through the game's
    engine ("" for every event from where a log stops replaying)."""
    from companion.errors import CompanionError
    from companion.games import new_match

    notes = [""] * len(events)
    try:
        match = new_match(*game)
        for index, event in enumerate(events):
            match.apply(dict(event))
            notes[index] = match.note(event)
    except CompanionError:
        pass  # a log the engine refuses is still shown, in plain words
    return notes


def score_table(record: Any, events: Sequence[Mapping[str, Any]],
                result: Mapping[str, Any] | None = None) -> list[list[str]] | None:
    """The score sheet ``companion export --format csv`` writes (header, a row per
    hand/round, ``total``), or None for a game without scores; ``result`` as
    :func:`companion.export.score_rows` takes it."""
    from companion.export import score_rows

    return score_rows(record, events, result)


def series(table: list[list[str]] | None) -> tuple[list[str], list[list[int]]]:
    """(players, running totals after each hand/round per player) from a score sheet."""
    if not table or len(table) < 3:
        return [], []
    players = table[0][1:]
    running = [0] * len(players)
    points: list[list[int]] = [[0] for _ in players]
    for row in table[1:-1]:
        for index, cell in enumerate(row[1:]):
            try:
                running[index] += int(cell)
            except ValueError:
                continue
            points[index].append(running[index])
    return players, points


def chart_svg(players: Sequence[str], points: Sequence[Sequence[int]], label: str = "hand",
              ) -> str:
    """Running totals as lines, one colour per seat, with a legend; "" with fewer than
    two hands (nothing to draw yet). Every text is escaped."""
    if not points or max(len(line) for line in points) < 2:
        return ""
    left, right, top, bottom = 48, 12, 12, 34
    width, height = CHART_W - left - right, CHART_H - top - bottom
    steps = max(len(line) for line in points) - 1
    low = min(0, *(min(line) for line in points))
    high = max(1, *(max(line) for line in points))
    span = high - low

    def x(i: int) -> float:
        return left + width * i / steps

    def y(v: int) -> float:
        return top + height * (high - v) / span

    parts = [f'<svg class="chart" viewBox="0 0 {CHART_W} {CHART_H}" role="img" '
             f'aria-label="running totals by {escape(label)}">']
    for v in sorted({low, 0, high}):
        parts.append(f'<line class="grid" x1="{left}" x2="{CHART_W - right}" '
                     f'y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
                     f'<text class="axis" x="{left - 6}" y="{y(v) + 5:.1f}" '
                     f'text-anchor="end">{v}</text>')
    for i in range(1, steps + 1):
        parts.append(f'<text class="axis" x="{x(i):.1f}" y="{CHART_H - 14}" '
                     f'text-anchor="middle">{i}</text>')
    for seat, (name, line) in enumerate(zip(players, points, strict=False)):
        colour = COLOURS[seat % len(COLOURS)]
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(line))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="4" '
                     f'points="{path}"><title>{escape(name)}</title></polyline>')
    parts.append("</svg>")
    # The swatch is SVG with a fill attribute: no style attribute, which the page's
    # Content-Security-Policy (no inline style) would refuse.
    legend = "".join(f'<span class="key"><svg class="swatch" viewBox="0 0 10 4" '
                     f'aria-hidden="true"><rect width="10" height="4" '
                     f'fill="{COLOURS[seat % len(COLOURS)]}"/></svg>{escape(name)}</span>'
                     for seat, name in enumerate(players))
    return "".join(parts) + f'<div class="legend">{legend}</div>'


def standings(players: Sequence[str], totals: Mapping[str, Any], winners: Sequence[str],
              high_wins: bool = True) -> list[dict[str, Any]]:
    """Players best first (seat order when nobody has a total yet)."""
    rows = [{"name": name, "total": totals.get(name), "seat": seat,
             "winner": name in winners} for seat, name in enumerate(players)]
    if any(isinstance(row["total"], int | float) for row in rows):
        sign = -1 if high_wins else 1
        rows.sort(key=lambda row: (not row["winner"], sign * (row["total"] or 0), row["seat"]))
    return rows


def high_wins(game_id: str) -> bool:
    from companion.errors import UnknownGame
    from companion.games import engine

    try:
        return bool(engine(game_id).high_wins)
    except UnknownGame:
        return True
