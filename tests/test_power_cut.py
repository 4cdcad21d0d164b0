"""Pull the plug: kill -9 a scripted game at random moments, restart, and check that
every event the device had shown is on disk (plus at most the one in flight), and that
the match replays."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

from companion.bench import final_count_script
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


def start(args, **kw):
    return subprocess.Popen([sys.executable, "-m", "companion", "sim", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


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
        printed = []
        wanted = chance.randrange(0, 40)
        while len(printed) < wanted:
            line = game.stdout.readline()
            if not line:
                break
            printed.append(json.loads(line.removeprefix("event ")))
        # Sometimes at once, sometimes a moment later: inside a write, between events.
        time.sleep(chance.choice([0, 0, 0.0005, 0.002, 0.01]))
        os.kill(game.pid, signal.SIGKILL)
        rest, _ = game.communicate(timeout=30)
        printed += [json.loads(line.removeprefix("event ")) for line in rest.splitlines()]

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

        again = start(["--script", str(resume), "--state-dir", str(state)])
        out, err = again.communicate(timeout=60)
        assert again.returncode == 0, err
        assert "Traceback" not in err
