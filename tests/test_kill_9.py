"""Kill the program (kill -9) at random moments, restart, and check that every event the
device had shown is in the log (plus at most the one in flight), and that the match
replays. A killed process leaves the kernel's page cache behind, so this shows the app
and the store hand every event to the kernel before the screen shows it; what reaches
the card through a power cut is tests/test_power_cut.py's part."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

from companion_cli import companion

from companion.bench.device import final_count_script
from companion.session import Session
from companion.store import Store

KILLS = 50


def newest_match(state):
    """The highest match id in the store (0 when none or no file yet)."""
    path = state / Store.DEFAULT_NAME
    if not path.exists():
        return 0
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT coalesce(max(id), 0) FROM matches").fetchone()[0]


def start(args):
    # stderr to a file, not a pipe: nobody reads it while the game runs, and a full pipe
    # would stall the game. Text mode off: lines are split by hand, below.
    return subprocess.Popen([sys.executable, "-m", "companion", "sim", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def shown_events(pipe, wanted=None):
    """The events printed on ``pipe``: ``wanted`` of them, or (None) all up to EOF.

    Why this cannot miss a line: the game writes each ``event`` line with one flushed
    write(2) after the event is committed, and a line (well under PIPE_BUF) lands in the
    pipe whole or not at all, so what is in the pipe outlives a kill -9. Everything is
    read through this one buffered file object, and after the kill it is read to EOF.
    (The old check read the rest with ``communicate()``, which reads the raw pipe and
    never sees lines the file object had already buffered: "printed 35, stored 42".)
    A last piece without a newline was not fully shown, so it is not counted.
    """
    events = []
    while wanted is None or len(events) < wanted:
        line = pipe.readline()
        if not line.endswith(b"\n"):
            break  # EOF (or a torn last piece)
        events.append(json.loads(line.decode().removeprefix("event ")))
    return events


def test_kill_9_at_50_moments_never_loses_a_shown_event(tmp_path):
    script = tmp_path / "game.txt"
    script.write_text(final_count_script())
    resume = tmp_path / "resume.txt"
    resume.write_text("OK\n")  # yes, resume
    state = tmp_path / "state"
    chance = random.Random(2026)
    for kill in range(KILLS):
        before = newest_match(state)
        game = start(["--new", "final-count", "--players", "Ann,Bob,Cy", "--script",
                      str(script), "--state-dir", str(state), "--log-events",
                      "--seed", str(kill)])
        printed = shown_events(game.stdout, wanted=chance.randrange(0, 40))
        # Sometimes at once, sometimes a moment later: inside a write, between events.
        # (Only where the kill lands; the check below holds wherever that is.)
        time.sleep(chance.choice([0, 0, 0.0005, 0.002, 0.01]))
        os.kill(game.pid, signal.SIGKILL)
        printed += shown_events(game.stdout)
        game.stdout.close()
        game.wait(timeout=30)

        match_id = newest_match(state)
        if match_id == before:  # killed before this game even began
            assert printed == [], f"kill {kill}"
            continue
        with Store.in_dir(state) as store:
            record = store.match(match_id)
            stored = store.events(record.id)
            assert stored in (printed, printed + stored[len(printed):][:1]), (
                f"kill {kill}: printed {len(printed)}, stored {len(stored)}")
            assert len(stored) - len(printed) in (0, 1)
            session = Session.resume(store, record.id)
            assert session.match.events == stored

        again = companion("sim", "--script", str(resume), "--state-dir", str(state))
        assert again.returncode == 0, again.stderr
        assert "Traceback" not in again.stderr


def test_reading_after_a_kill_misses_no_line():
    # 300 lines are all in the pipe before the first is read: the first readline()
    # buffers thousands of bytes, the way a loaded machine made it happen by chance.
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import sys\nfor n in range(300):\n"
         "    sys.stdout.write('event {\"n\": %d}\\n' % n); sys.stdout.flush()"],
        stdout=subprocess.PIPE)
    child.wait(timeout=30)
    first = shown_events(child.stdout, wanted=1)
    rest = shown_events(child.stdout)
    child.stdout.close()
    assert [event["n"] for event in first + rest] == list(range(300))
