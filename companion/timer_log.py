"""The turn timer and the game log: which timer a match is played with, and what its
clocks read, from the log, after a restart or a power cut.

The timer chosen on a game's setup is the match's ``timer`` option
(``{"turn": 60, "mode": "clock"}``), kept with the match like its other options, so a
resume, an export and an import carry it; a match without one (an old log, or a game
started from afar) is timed as ``[timer]`` says. A game without turns (Block Lottery)
has no timer.

What the clocks read is folded from the log, as the match itself is: from the start of
the match (or the timer's last record: a pause, a resume, an undo,
:mod:`companion.store.clocks`), each event's stored time hands the turn to whoever the
match expects after it. The clocks are read as they were at the last of those moments;
the time between it and the power cut is not counted (nothing says what happened then).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from companion.errors import CompanionError, StoreError
from companion.games import engine
from companion.table.timer import TIMER_OPTION, TurnTimer, clock_after

__all__ = ["keep_clocks", "match_timer", "restored_timer", "with_timer"]

log = logging.getLogger("companion")

#: A timer's state before anyone's turn: nobody's time runs, nobody's is used.
_UNSTARTED: dict[str, Any] = {"player": None, "paused": False, "used": {}}


def configured(config: Any) -> tuple[int, str]:
    """``[timer]``'s (seconds, mode); (0, "turn") without a configuration."""
    timer = getattr(config, "timer", None)
    return (int(getattr(timer, "turn", 0) or 0), str(getattr(timer, "mode", "turn") or "turn"))


def match_timer(match: Any, config: Any) -> tuple[int, str]:
    """The (seconds, mode) ``match`` is timed with (0: no timer): its ``timer`` option,
    else ``[timer]``; none for a game without turns."""
    if not getattr(type(match), "has_turns", True):
        return 0, "turn"
    chosen = match.options.get(TIMER_OPTION)
    if chosen is not None:
        return int(chosen["turn"]), str(chosen["mode"])
    return configured(config)


def with_timer(game_id: str, options: Mapping[str, Any], config: Any) -> dict[str, Any]:
    """``options`` for a new match of ``game_id`` started without a setup screen (the
    serial console, the page, ``--new``): with ``[timer]``'s timer kept in them, when it
    is on, the game has turns and they name no timer of their own; so a resume runs
    the same timer whatever the configuration says by then."""
    turn, mode = configured(config)
    if turn and TIMER_OPTION not in options and engine(game_id).has_turns:
        return {**options, TIMER_OPTION: {"turn": turn, "mode": mode}}
    return dict(options)


def restored_timer(session: Any, turn: int, mode: str, now: float) -> TurnTimer:
    """The timer of ``session``'s match going on at ``now`` (on the app's clock) as the
    log says its clocks read; a fresh one for a match the log does not hold whole (one
    played unsaved) or cannot be read."""
    store, match = session.log, session.match
    if store is None or session.match_id is None or session.synced != len(match.events):
        return TurnTimer(turn, mode)
    try:
        started = store.match(session.match_id).started
        times = store.event_times(session.match_id)
        kept = store.clock_record(session.match_id)
        whose = _whose_turns(match)
    except (CompanionError, AttributeError) as err:
        log.warning("the turn timer starts from full: %s", err)
        return TurnTimer(turn, mode)
    if len(times) != len(match.events):
        return TurnTimer(turn, mode)
    if kept is not None and _fits(kept, match.players):
        state, since, first = kept, float(kept["at"]), int(kept["seq"])
        turns = []
    else:
        state, since, first = _UNSTARTED, float(started), 0
        turns = [(since, whose[0])]
    turns += [(times[seq - 1], whose[seq]) for seq in range(first + 1, len(times) + 1)]
    return TurnTimer.restored(turn, mode, clock_after(turn, mode, state, since, turns), now)


def keep_clocks(session: Any, timer: TurnTimer, now: float) -> None:
    """Keep what ``timer`` reads at ``now`` in ``session``'s log (a pause, a resume, an
    undo, the game leaving the screen). A log that refuses is said in the log file and
    the game goes on: the clocks then come back as the events say."""
    if session is None or not session.saved or session.match_id is None:
        return
    try:
        session.store.keep_clock(session.match_id, timer.state(now))
    except StoreError as err:
        log.warning("the turn timer's record is not kept: %s", err)


def _whose_turns(match: Any) -> list[str | None]:
    """Whose turn it is after each number of the match's events (0, 1, ... all): None
    where it is nobody's (cards entered by anyone) or the match is over."""
    return [_turn_of(step) for step in type(match).replaying(match.players, match.options,
                                                                match.events)]


def _turn_of(match: Any) -> str | None:
    return None if match.over else match.expecting().player


def _fits(kept: Mapping[str, Any], players: tuple[str, ...]) -> bool:
    """True when a kept record names only this match's players."""
    return (kept["player"] is None or kept["player"] in players) and set(kept["used"]) <= set(
        players)
