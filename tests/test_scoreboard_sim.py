"""A whole scoreboard game pressed on the mock pins (``companion sim --script``), ended
from the game menu, then exported from the state directory and replayed."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from companion.games.scoreboard import Scoreboard
from companion.ui.scoreboard import POINT_STEPS

PLAYERS = ["Ann", "Bob", "Cy"]


def companion(*args):
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True,
                          text=True, timeout=120)


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
    script = tmp_path / "sheet.txt"
    script.write_text("\n".join(presses_for(rounds)) + "\n")
    state = tmp_path / "state"
    done = companion("sim", "--new", "scoreboard", "--players", ",".join(PLAYERS),
                     "--option", "low_wins=true", "--script", str(script),
                     "--state-dir", str(state), "--seed", "1")
    assert done.returncode == 0, done.stderr
    exported = companion("export", "--state-dir", str(state), "--match", "last",
                         "--format", "jsonl")
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in exported.stdout.splitlines() if line.strip()]
    assert lines[0]["options"] == {"target": 0, "low_wins": True} and lines[1:] == events
    log = tmp_path / "sheet.jsonl"
    log.write_text(exported.stdout)
    replayed = companion("replay", "scoreboard", "--events", str(log))
    assert replayed.returncode == 0, replayed.stderr
    result = json.loads(replayed.stdout)
    assert result == expected
    assert result["over"] and result["ended_by"] == "end" and len(result["rounds"]) == 5
