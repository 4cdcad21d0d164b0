"""A whole scoreboard game pressed on the mock pins (``companion sim --script``), ended
from the game menu, then exported from the state directory and replayed."""

from __future__ import annotations

import random

from companion_cli import play_export_replay

from companion.games.scoreboard import Scoreboard
from companion.ui.scoreboard.table import POINT_STEPS

PLAYERS = ["Ann", "Bob", "Cy"]


def step_to(current: int, wanted: int) -> list[str]:
    """OK presses that cycle the picker's step from ``current`` to ``wanted``."""
    count = (POINT_STEPS.index(wanted) - POINT_STEPS.index(current)) % len(POINT_STEPS)
    return ["OK"] * count


def presses_for(rounds: list[list[int]]) -> list[str]:
    """Each round entered in seat order: ROLL opens the first player's picker, tens with
    step 10 and units with step 1 (UP up, DOWN down), ROLL enters and opens the next;
    then BACK, "Final scores now", OK to confirm."""
    presses: list[str] = []
    step = 1
    for points in rounds:
        presses.append("ROLL")
        for value in points:
            move = "UP" if value > 0 else "DOWN"
            tens, units = divmod(abs(value), 10)
            if tens:
                presses += step_to(step, 10) + [move] * tens
                step = 10
            if units:
                presses += step_to(step, 1) + [move] * units
                step = 1
            presses.append("ROLL")
    return presses + ["BACK", "DOWN", "DOWN", "OK", "OK"]


def test_a_whole_sheet_through_the_pins_then_export_and_replay(tmp_path):
    rnd = random.Random(3)
    rounds = [[rnd.randint(-15, 40) for _ in PLAYERS] for _ in range(5)]
    events = [{"type": "points", "player": player, "points": value}
              for points in rounds for player, value in zip(PLAYERS, points, strict=True)]
    events.append({"type": "end"})
    expected = Scoreboard.replay(PLAYERS, {"low_wins": True}, events).result()
    played = play_export_replay(tmp_path, "scoreboard", PLAYERS,
                                "\n".join(presses_for(rounds)) + "\n",
                                "--option", "low_wins=true", "--seed", "1")
    lines, result = played.log, played.result
    assert lines[0]["options"] == {"target": 0, "low_wins": True} and lines[1:] == events
    assert result == expected
    assert result["over"] and result["ended_by"] == "end" and len(result["rounds"]) == 5
