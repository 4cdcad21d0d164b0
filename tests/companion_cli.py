"""The ``companion`` command run as a person would, for the end-to-end tests: one
subprocess helper, and the whole-game flow every game's test walks through: press a
script on the mock pins with a game log, export that game, replay the export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

from companion.jsonlines import without_time


def companion(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m companion ARGS``, its output captured as text."""
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


class Played(NamedTuple):
    """What a whole game through the pins left behind."""

    sim: subprocess.CompletedProcess  # the scripted run (its screens or event lines)
    log: list[dict[str, Any]]         # the exported start line, then the events (each
                                      # line's "at" time left out)
    result: dict[str, Any]            # what ``companion replay`` printed for the export


def play_export_replay(tmp_path: Path, game: str, players: list[str], script: str,
                       *sim_args: str) -> Played:
    """Press ``script`` in a new ``game`` with a game log in ``tmp_path``, export the
    game as JSON lines and replay the export; each of the three commands must succeed."""
    script_file = tmp_path / f"{game}.txt"
    script_file.write_text(script)
    state = tmp_path / "state"
    done = companion("sim", "--new", game, "--players", ",".join(players), "--script",
                     str(script_file), "--state-dir", str(state), *sim_args)
    assert done.returncode == 0, done.stderr
    exported = companion("export", "--state-dir", str(state), "--match", "last",
                         "--format", "jsonl")
    assert exported.returncode == 0, exported.stderr
    log = tmp_path / f"{game}.jsonl"
    log.write_text(exported.stdout)
    replayed = companion("replay", game, "--events", str(log))
    assert replayed.returncode == 0, replayed.stderr
    lines = [without_time(json.loads(line)) for line in exported.stdout.splitlines()
             if line.strip()]
    return Played(done, lines, json.loads(replayed.stdout))
