"""``companion bench``: the device's figures, measured on this machine, each held against
its target in docs/design.md (the numbers: :mod:`companion.bench.targets`).

- cold start to first frame, against the floor of importing gpiozero + luma.oled + PIL;
- press-to-frame: a mock pin press until the frame is handed to the real luma ``ssd1306``
  driver on a recording bus (median and p95 of 200 presses);
- bytes sent to the panel per update over a scripted session, against full frames;
- idle CPU while nobody presses anything; peak resident memory;
- replaying a 10,000-event log, and committing one event to the store;
- ``companion import`` of a 50 MB export: how much the peak memory grows (and the time);
- bytes written to the card per event and per finished game (WAL, checkpoints);
- ``companion stats`` over 10,000 stored matches (about 500,000 events), and opening the
  device's History on that store: the first time, after one more game finished (the
  kept figures fold it in), and again unchanged;
- the table page (:mod:`companion.bench.web`): press to the browser's DOM, idle
  CPU with a page open, memory the page adds, page weight;
- speech (:mod:`companion.bench.speech`): with ``[speech] enabled``, a press until
  espeak-ng's first audio sample, and press-to-frame meanwhile.

Timings are wall-clock on whatever machine runs this; they are reported, not asserted
(tests never depend on the machine's speed).
"""

from __future__ import annotations

# Only what first_frame() needs is imported here: the cold-start measurement imports
# this module, and must not pay for the rest of the benchmark.
import resource
import sys
import time
from typing import Any

from companion.bench.targets import SPOKEN
from companion.games import title

FULL_FRAME = 128 * 64 // 8

FLOOR = "import gpiozero, luma.oled.device, PIL.Image"
# The whole start of the device up to its first frame, in a fresh interpreter.
FIRST_FRAME = "from companion.bench.device import first_frame; first_frame({language!r})"


def first_frame(language: str = "en") -> None:
    """Build the app as the device does (mock pins, real ssd1306 driver on a recording
    bus, ``[ui] language``) and show the first frame; prints peak RSS in KiB."""
    from companion.clock import monotonic
    from companion.config import Config, Ui
    from companion.device.board import SimBoard
    from companion.device.recording import recording_panel
    from companion.launch import make_app

    app = make_app(Config(ui=Ui(language=language)), board_factory=SimBoard,
                   panel=recording_panel(), clock=monotonic)
    app.start()
    app.board.close()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _run_python(code: str) -> tuple[float, str]:
    import os
    import subprocess

    # As on an installed device, where pip compiled every module: read bytecode, even
    # where PYTHONDONTWRITEBYTECODE would have us compile our sources at every start.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env)
    return time.perf_counter() - start, done.stdout


def _compile_package() -> None:
    """Byte-compile the companion package, as ``pip install`` does for the floor's."""
    import compileall
    from pathlib import Path

    import companion

    compileall.compile_dir(Path(companion.__file__).parent, quiet=1)


def cold_start(runs: int) -> dict[str, float]:
    """The import floor, and the first frame in English and in :data:`SPOKEN`."""
    import statistics

    english = FIRST_FRAME.format(language="en")
    spoken = FIRST_FRAME.format(language=SPOKEN)
    _compile_package()
    _run_python(english)  # warm the file cache, as the floor's first run does
    _run_python(spoken)
    floors, starts, starts_spoken, rss = [], [], [], []
    for _ in range(runs):
        floors.append(_run_python(FLOOR)[0])
        seconds, out = _run_python(english)
        starts.append(seconds)
        rss.append(int(out.split()[-1]))
        seconds, out = _run_python(spoken)
        starts_spoken.append(seconds)
        rss.append(int(out.split()[-1]))
    floor = statistics.median(floors)
    start, start_spoken = statistics.median(starts), statistics.median(starts_spoken)
    return {"import_floor_s": floor, "first_frame_s": start, "ratio": start / floor,
            f"first_frame_{SPOKEN}_s": start_spoken,
            f"ratio_{SPOKEN}": start_spoken / floor, "peak_rss_mb": max(rss) / 1024}


def _final_count_root(ctx: Any) -> Any:
    from companion.session import Session
    from companion.ui.final_count.table import FinalCountTable
    from companion.ui.home import home_menu

    session = Session.start("final-count", ["Ann", "Bob", "Cy"], store=ctx.store)
    return FinalCountTable(session, home_menu(ctx)).route(ctx)


def press_to_frame(presses: int, language: str = "en") -> dict[str, float]:
    import statistics

    from companion import lang
    from companion.bench.rig import bench_app
    from companion.sim import PRESS_SECONDS

    app, clock, handed = bench_app(language=language)
    times = []
    for i in range(presses):
        button = "down" if (i // 4) % 2 == 0 else "up"
        app.board.press(button)
        app.pump()
        clock.advance(PRESS_SECONDS)
        handed.clear()
        start = time.perf_counter()
        app.board.release(button)
        app.pump()
        if handed:
            times.append(handed[-1] - start)
    app.board.close()
    lang.use("en")  # the language is the process's: the next bench starts in English
    times.sort()
    return {"median_ms": statistics.median(times) * 1000,
            "p95_ms": times[int(len(times) * 0.95) - 1] * 1000, "presses": len(times)}


#: One Final Count hand for Ann, Bob and Cy as pressed at the table: three rolls, a call
#: (the one who just rolled), the last two turns, OK past the last roll to the cards,
#: then the Board (10 10) and the hands Ann J Q K (50 with the Board), Bob 9 8 7 (44),
#: Cy 5 5 4 (34); the result, the totals.
FINAL_COUNT_HAND = (
    ["roll"] * 3 + ["ok", "ok"] + ["roll"] * 2 + ["ok"]
    + ["ok", "ok", "roll"]
    + ["down", "ok", "down", "ok", "down", "ok", "roll"]
    + ["up", "ok", "up", "ok", "up", "ok", "roll"]
    + ["up"] * 5 + ["ok", "ok", "up", "ok", "roll"]
    + ["ok", "ok"]
)
#: Ann wins every hand: 60 when someone else called (the 10-point bonus), 50 when the
#: caller was Ann; 340 after six hands ends the game.
FINAL_COUNT_GAME = FINAL_COUNT_HAND * 6


def final_count_script() -> str:
    """The whole game as a ``companion sim --script`` file (start it with ``--new
    final-count --players Ann,Bob,Cy``)."""
    lines = [f"# {title('final-count')}, Ann Bob Cy, six hands to 340: see "
             "companion/bench/device.py"]
    return "\n".join(lines + [press.upper() for press in FINAL_COUNT_GAME]) + "\n"


#: A session through the menus and Tools, as a person would press.
SESSION = (["down"] * 5 + ["ok", "ok"] + ["roll", "down", "ok", "roll"] * 6 + ["back", "back"]
           + ["down", "ok", "ok"] + ["roll"] * 8 + ["back", "back", "down", "ok", "roll"]
           + ["roll"] * 30 + ["back", "back"])


def bytes_per_update(presses: list[str] | None = None, game: bool = True) -> dict[str, float]:
    """Bytes on the panel's bus per frame over a whole scripted Final Count game (or
    over ``presses`` from the main menu)."""
    from companion.bench.rig import bench_app
    from companion.sim import ScriptRunner, Step

    root = _final_count_root if game else None
    app, clock, handed = bench_app(root)
    serial = app.panel.device._serial_interface
    runner = ScriptRunner(app, clock, 0.8)
    start_bytes, start_frames = serial.bytes_sent, len(handed)
    for button in presses or (FINAL_COUNT_GAME if game else SESSION):
        runner.run(Step(0, button.upper(), button))
    app.board.close()
    updates = len(handed) - start_frames
    sent = serial.bytes_sent - start_bytes
    return {"updates": updates, "bytes_per_update": sent / max(1, updates),
            "share_of_full_frames": sent / max(1, updates * FULL_FRAME)}


def idle_cpu(seconds: float) -> dict[str, float]:
    import threading

    from companion.clock import monotonic
    from companion.config import Config
    from companion.device.board import SimBoard
    from companion.device.recording import recording_panel
    from companion.launch import make_app

    app = make_app(Config(), board_factory=SimBoard, panel=recording_panel(), clock=monotonic)
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    time.sleep(0.2)
    cpu, wall = time.process_time(), time.perf_counter()
    time.sleep(seconds)
    used = (time.process_time() - cpu) / (time.perf_counter() - wall)
    app.quit()
    thread.join(5)
    app.board.close()
    return {"seconds": seconds, "cpu_percent": used * 100}


def replay_speed(events: int) -> dict[str, float]:
    from companion.games import replay

    log = long_final_count_log(events)
    start = time.perf_counter()
    replay("final-count", ["Ann", "Bob", "Cy"], {}, log)
    return {"events": events, "replay_ms": (time.perf_counter() - start) * 1000}


def long_final_count_log(events: int) -> list[dict[str, Any]]:
    """A legal Final Count hand of ``events`` rolls (nobody calls)."""
    players = ["Ann", "Bob", "Cy"]
    return [{"type": "roll", "player": players[i % 3], "value": i % 6 + 1}
            for i in range(events)]


def store_commit(events: int) -> dict[str, float]:
    import tempfile
    from pathlib import Path

    from companion.store import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.db")
        match = store.new_match("final-count", ["Ann", "Bob", "Cy"], {})
        log = long_final_count_log(events)
        start = time.perf_counter()
        for event in log:
            store.append(match, event)
        per_event = (time.perf_counter() - start) / events
        store.close()
    return {"events": events, "commit_ms": per_event * 1000}


#: The script the import benchmark runs in a fresh interpreter: ``companion import`` of
#: argv[2] into the state dir argv[1]; prints the peak resident memory before and after
#: (KiB), the exit status and the seconds it took, as JSON.
IMPORT_RUN = """
import json, os, resource, sys, time
from companion.commands.importer import import_main
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
began = time.perf_counter()
with open(os.devnull, "w") as out:
    status = import_main(sys.argv[1], sys.argv[2], out=out)
seconds = time.perf_counter() - began
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"before_kb": before, "after_kb": after, "status": status, "s": seconds}))
"""


def big_export(path: Any, megabytes: float) -> int:
    """Write an export of about ``megabytes`` MB to ``path`` as ``companion export
    --all`` writes it: finished scoreboard games of four rounds, each with its own
    uid and times. Returns how many matches it holds."""
    import json

    templates = _scoreboard_templates(40, 4)
    limit = int(megabytes * 1_000_000)
    written = count = 0
    at = 1_600_000_000.0
    with open(path, "w", encoding="utf-8") as out:
        while written < limit:
            players, log, _ = templates[count % len(templates)]
            count += 1
            lines = []
            started = at
            for event in log:
                at += 20.0
                lines.append(json.dumps({**event, "at": at}))
            start = {"type": "start", "game": "scoreboard", "players": players,
                     "options": {}, "uid": f"bench-{count}", "started": started,
                     "finished": at}
            text = "\n".join([json.dumps(start), *lines]) + "\n"
            out.write(text)
            written += len(text.encode("utf-8"))
            at += 600.0
    return count


def import_memory(megabytes: float) -> dict[str, float]:
    """``companion import`` of a ``megabytes`` MB export into an empty log, in a fresh
    interpreter: how much its peak resident memory grows over the start (target:
    <= 64 MB, for a Pi Zero 2 W's 512 MB), and how long it takes."""
    import json
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        export = Path(folder) / "export.jsonl"
        matches = big_export(export, megabytes)
        size = export.stat().st_size
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        done = subprocess.run([sys.executable, "-c", IMPORT_RUN, str(Path(folder) / "state"),
                               str(export)], capture_output=True, text=True, check=True,
                              env=env)
    run = json.loads(done.stdout)
    if run["status"] != 0:
        raise RuntimeError(f"the import benchmark's import failed: {done.stderr.strip()}")
    return {"export_mb": size / 1e6, "matches": matches, "import_s": run["s"],
            "rss_growth_mb": (run["after_kb"] - run["before_kb"]) / 1024}


def _thread_io() -> dict[str, int]:
    """This thread's I/O counters (Linux): ``wchar`` is what it handed to write(2),
    ``write_bytes`` what the kernel sends to the storage for it (whole 4 KiB blocks,
    counted when a block turns dirty)."""
    with open("/proc/thread-self/io", encoding="ascii") as counters:
        return {key: int(value) for key, value in
                (line.split(":") for line in counters if ":" in line)}


def card_writes(events: int, games: int = 10) -> dict[str, Any]:
    """Bytes written for the game log: per event (``events`` rolls appended, each its
    own synced commit, checkpoints included) and per finished game (a 3-player, 10-round
    scoreboard: the match, 31 events, the finish), in a new log in the temporary
    directory (``TMPDIR``: point it at the card to measure the card)."""
    import tempfile
    from pathlib import Path

    from companion.session import Session
    from companion.store import Store

    try:
        _thread_io()
    except OSError:
        return {"skipped": "no /proc/thread-self/io (Linux only)"}
    players = ["Ann", "Bob", "Cy"]
    game = [{"type": "points", "player": name, "points": (7 * n) % 31}
            for n in range(10) for name in players] + [{"type": "end"}]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / Store.DEFAULT_NAME
        store = Store(path)
        match = store.new_match("final-count", players, {})
        before = _thread_io()
        for event in long_final_count_log(events):
            store.append(match, event)
        middle = _thread_io()
        for _ in range(games):
            session = Session.start("scoreboard", players, {}, store)
            for event in game:
                session.apply(event)
        after = _thread_io()
        store.close()
        header = path.read_bytes()[:100]
    page_size = int.from_bytes(header[16:18], "big")  # the file header's; 1 means 65536
    result: dict[str, Any] = {
        "page_size": 65536 if page_size == 1 else page_size,
        "events_per_game": len(game),
        "sqlite_bytes_per_event": (middle["wchar"] - before["wchar"]) / events,
        "sqlite_bytes_per_game": (after["wchar"] - middle["wchar"]) / games,
        "storage_bytes_per_event": (middle["write_bytes"] - before["write_bytes"]) / events,
        "storage_bytes_per_game": (after["write_bytes"] - middle["write_bytes"]) / games,
    }
    if not result["storage_bytes_per_event"]:
        result["storage_note"] = "the temporary directory is in memory; set TMPDIR"
    return result


#: The players the stats benchmark's matches are drawn from.
STATS_NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal")


def _scoreboard_templates(count: int, rounds: int) -> list[tuple[list[str], list[dict], dict]]:
    """``count`` scoreboard games of ``rounds`` rounds, replayed through the engine:
    (players, events, result)."""
    import random

    from companion.games import replay

    rng = random.Random(14)
    made = []
    for _ in range(count):
        players = rng.sample(STATS_NAMES, rng.randint(2, 4))
        events = [{"type": "points", "player": name, "points": rng.randint(-5, 30)}
                  for _ in range(rounds) for name in players]
        events.append({"type": "end"})
        made.append((players, events, replay("scoreboard", players, {}, events).result()))
    return made


def stats_store(folder: str, matches: int, events_per_match: int = 50) -> Any:
    """A store in ``folder`` with ``matches`` finished scoreboard games of about
    ``events_per_match`` events each, written in one transaction (it is a fixture, not
    a measurement)."""
    import json
    import sqlite3
    from pathlib import Path

    from companion.store import Store

    Store.in_dir(folder).close()  # the schema
    templates = _scoreboard_templates(40, max(1, (events_per_match - 1) // 3))
    rows, events = [], []
    at = 1_600_000_000.0
    for match_id in range(1, matches + 1):
        players, log, result = templates[match_id % len(templates)]
        started = at
        for seq, event in enumerate(log, 1):
            at += 20.0
            events.append((match_id, seq, json.dumps(event), at))
        rows.append((match_id, "scoreboard", json.dumps(players), "{}", started, at + 1,
                     json.dumps(result), f"bench-{match_id}"))
        at += 600.0
    conn = sqlite3.connect(Path(folder) / Store.DEFAULT_NAME, isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO matches (id, game_id, players, options, started, finished,"
                     " result, uid) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.executemany("INSERT INTO events (match_id, seq, event, at) VALUES (?, ?, ?, ?)",
                     events)
    conn.execute("COMMIT")
    conn.close()
    return Store.in_dir(folder)


def stats_speed(matches: int) -> dict[str, float]:
    import random
    import tempfile

    from companion import stats
    from companion.stats import figures
    from companion.ui.history import history_menu
    from companion.ui.screen import Context, Menu

    with tempfile.TemporaryDirectory() as folder:
        store = stats_store(folder, matches)
        events = sum(record.event_count for record in store.history(limit=matches))
        start = time.perf_counter()
        figures(store)
        stats_s = time.perf_counter() - start
        ctx = Context(rng=random.Random(1), store=store)

        def open_history() -> float:
            begun = time.perf_counter()
            history_menu(ctx, Menu("Home", [])).render()
            return (time.perf_counter() - begun) * 1000

        # Opened before the device's warm-up thread is done: the figures are built here.
        unwarmed = open_history()
        stats._KEPT.pop(store, None)
        # What the device does after its first frame, off the owner thread
        # (launch.warm_history), then the first History a person opens.
        begun = time.perf_counter()
        stats.keep(store, stats.warm(store.path))
        warmup_s = time.perf_counter() - begun
        first = open_history()
        players, log, result = _scoreboard_templates(1, 16)[0]
        store.import_match("scoreboard", players, {}, [(event, 2e9) for event in log],
                           started=2e9, finished=2e9 + 1, result=result, uid="bench-next")
        after_finish = open_history()
        again = open_history()
        store.close()
    return {"matches": matches, "events": events, "stats_s": stats_s,
            "history_warmup_s": warmup_s, "history_unwarmed_ms": unwarmed,
            "history_first_ms": first, "history_after_finish_ms": after_finish,
            "history_again_ms": again}


def measure(quick: bool = False) -> dict[str, Any]:
    """Every figure of ``companion bench`` (fewer samples and smaller workloads with
    ``quick``), by section."""
    results: dict[str, Any] = {
        "cold_start": cold_start(2 if quick else 5),
        "press_to_frame": press_to_frame(40 if quick else 200),
        f"press_to_frame_{SPOKEN}": press_to_frame(40 if quick else 200, SPOKEN),
        "panel_bytes": bytes_per_update(),
        "panel_bytes_tools": bytes_per_update(game=False),
        "idle": idle_cpu(1.0 if quick else 10.0),
    }
    for name, step, size in (("replay", replay_speed, 10_000),
                             ("stats", stats_speed, 500 if quick else 10_000),
                             ("store", store_commit, 20 if quick else 200),
                             ("import", import_memory, 5 if quick else 50)):
        try:
            results[name] = step(size)
        except ImportError:
            results[name] = {"skipped": "not built yet"}
    results["card_writes"] = card_writes(300 if quick else 2000)
    from companion.bench.speech import speech_bench

    results["speech"] = speech_bench(30 if quick else 100)
    try:
        from companion.bench.web import web_bench

        results["web"] = web_bench(quick)
    except ImportError as missing:  # the web stack is not installed here
        results["web"] = {"skipped": f"no web stack ({missing.name})"}
    results["peak_rss_mb"] = results["cold_start"]["peak_rss_mb"]
    return results


def report(results: dict[str, Any], as_json: bool = False, out: Any = None) -> None:
    """Print the figures with the ``"targets"`` object (``as_json``), or one line a
    figure, each with a target saying whether it was met."""
    import json

    from companion.bench.targets import DEVICE, finite, held, lines

    out = out or sys.stdout
    if as_json:
        print(json.dumps(finite({**results, "targets": held(results, DEVICE)}), indent=2,
                         allow_nan=False), file=out)
        return
    for text in lines(results, DEVICE):
        print(text, file=out)


def bench_main(as_json: bool = False, quick: bool = False) -> int:
    report(measure(quick), as_json)
    return 0
