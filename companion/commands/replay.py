"""``companion replay GAME``: recompute a game from its event log and print the result.

The log is JSON Lines: one event object per line, blank lines ignored. The first line
may instead say who plays and with which options::

    {"type": "start", "players": ["Ann", "Bob"], "options": {"hit_goal": true}}

so a log can stand on its own; ``--players`` and ``--option`` then only have to agree
with it. A log without a start line is replayed as a match started now (with the
options a new match gets, :meth:`Match.new_options`); a start line is the record, so
its options are taken as they are. The output is one JSON object, the match's
``result()``; with ``--state`` it also carries ``"state"``, the match's ``state()``.

Exit status: 0 when the whole log replays; 1 when a line is malformed or its event is
refused (the message names the line: ``line 7: it is Bob's turn, not Ann's``); 2 for
problems with the command itself (unknown game, bad option, unreadable file, no or
disagreeing players). Every failure is one line on stderr, never a traceback.

Nothing here knows a particular game: it goes through :func:`companion.games.engine`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from companion.errors import (
    BadName,
    BadSetup,
    CompanionError,
    IllegalEvent,
    LineError,
    UsageError,
    one_line,
    written,
)
from companion.games import Event, Match, engine
from companion.jsonlines import (
    START_EXTRAS,
    counting,
    json_objects,
    parse_option,
    without_time,
)
from companion.lang import N_, _
from companion.names import split_players

START = "start"
#: The largest event log replayed: one game's log is a few hundred KB at most.
EVENTS_MAX = 64 << 20
# An export's start line also says which match it was and when (companion.transcript);
# its event lines carry their time as "at", which is not part of the event.
START_FIELDS = ("type", "game", "players", "options", *START_EXTRAS)


def replay_main(
    game: str,
    players: str | None,
    options: Sequence[str] | None,
    events_path: str,
    out: TextIO | None = None,
    err: TextIO | None = None,
    state: bool = False,
) -> int:
    """Replay ``events_path`` (``-`` for stdin) as a game of ``game`` and print the result.

    ``players`` is the ``--players`` text ("Ann,Bob,Cy") or None; ``options`` are the
    ``--option`` texts (None: none); ``state`` adds the match's ``state()`` to the
    output. Returns the exit status (see the module docstring).
    """
    # Resolved at call time, not as defaults, so redirected or captured streams work.
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        match = _replay(game, players, options or (), events_path)
        result = match.result()
        if state:
            result["state"] = match.state()
    except LineError as problem:
        print(one_line(problem), file=err)
        return 1
    except CompanionError as problem:
        print(one_line(problem), file=err)
        return 2
    print(json.dumps(result, ensure_ascii=False), file=out)
    return 0


def _replay(game: str, players: str | None, options: Sequence[str],
            events_path: str) -> Match:
    match_class = engine(game)  # UnknownGame: usage (exit 2)
    given_options: dict[str, Any] = {}
    for text in options:
        try:
            name, value = parse_option(text)
        except ValueError as problem:
            raise UsageError(str(problem)) from None
        given_options[name] = value
    given_players = _split_players(players) if players is not None else None

    numbered = _read_events(events_path)
    start_line, start = _start(numbered)
    if start is not None:
        numbered = numbered[1:]
        if "game" in start and start["game"] != game:
            raise UsageError(_("line {number}: this log is a game of {game}").format(
                number=start_line, game=written(start["game"])))
    final_players = _agree_players(given_players, start, start_line)
    final_options = _agree_options(given_options, start, start_line)
    if start is None:
        final_options = match_class.new_options(final_options)

    numbered = counting(numbered)  # an event taken back (exported "undone") never counts
    events = [without_time(event) for _, event in numbered]
    try:
        match = match_class.replay(final_players, final_options, events)
    except BadSetup as problem:
        from_log = start is not None and ("players" in start or "options" in start)
        raise UsageError(_("line {number}: {problem}").format(
            number=start_line, problem=problem) if from_log else str(problem)) from None
    except IllegalEvent as problem:
        index = getattr(problem, "index", None)
        if index is None:
            raise
        raise LineError(numbered[index][0], str(problem)) from None
    return match


def _split_players(text: str) -> list[str]:
    try:
        return split_players(text)  # the one name rule (companion.names)
    except BadName as problem:
        raise UsageError(f"--players: {problem}") from None


def _read_events(path: str) -> list[tuple[int, Any]]:
    """(line number, parsed JSON) for every non-blank line."""
    from companion.errors import UnreadableFile
    from companion.files import read_text_file

    try:
        if path == "-":
            text = sys.stdin.read(EVENTS_MAX + 1)
            if len(text) > EVENTS_MAX:
                raise UsageError(_("the log on standard input is larger than "
                                   "{megabytes} MB").format(megabytes=EVENTS_MAX >> 20))
        else:  # a regular file under the cap: /dev/zero would be read for ever
            text = read_text_file(path, EVENTS_MAX, N_("an event log"))
    except UnreadableFile as problem:
        raise UsageError(_("cannot read {problem}").format(problem=problem)) from None
    except OSError as problem:
        raise UsageError(_("cannot read {path}: {problem}").format(
            path=path, problem=problem.strerror or problem)) from None
    except UnicodeDecodeError:
        raise UsageError(_("cannot read {path}: it is not UTF-8 text").format(path=path)) \
            from None
    return json_objects(text)


def _start(numbered: Sequence[tuple[int, Event]]) -> tuple[int, Event | None]:
    """The start line (and its number) if the log begins with one; later ones are refused."""
    for position, (number, event) in enumerate(numbered):
        if event.get("type") == START and position > 0:
            raise LineError(number, _("a start line can only be the first line"))
    if not numbered or numbered[0][1].get("type") != START:
        return 0, None
    number, start = numbered[0]
    extra = [key for key in start if key not in START_FIELDS]
    if extra:
        raise LineError(number, _("a start line has no field {field}").format(
            field=written(extra[0])))
    if "players" in start:
        named = start["players"]
        if not isinstance(named, list) or not all(isinstance(name, str) for name in named):
            # Translators: "players" is the field's name in the log: keep it as it is.
            raise LineError(number, _('"players" is a list of names'))
    if not isinstance(start.get("options", {}), dict):
        # Translators: "options" and the example are written in the log as they are.
        raise LineError(number, _('"options" is an object, like {{"hit_goal": true}}')
                        .format())
    return number, start


def _agree_players(given: list[str] | None, start: Event | None, line: int) -> list[str]:
    logged = start.get("players") if start is not None else None
    if given is not None and logged is not None and list(given) != list(logged):
        raise UsageError(_("--players {given} disagrees with line {number} ({logged})").format(
            given=",".join(given), number=line, logged=",".join(logged)))
    chosen = given if given is not None else logged
    if chosen is None:
        raise UsageError(_("who played? give --players or a start line in the log"))
    return list(chosen)


def _agree_options(given: dict[str, Any], start: Event | None, line: int) -> dict[str, Any]:
    logged = dict(start.get("options", {})) if start is not None else {}
    for name, value in given.items():
        if name in logged and logged[name] != value:
            raise UsageError(_("--option {given} disagrees with line {number} "
                               "({logged})").format(
                given=f"{name}={json.dumps(value)}", number=line,
                logged=f"{name}={json.dumps(logged[name])}"))
    return {**logged, **given}
