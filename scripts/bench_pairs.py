"""Two checkouts' ``companion bench`` figures side by side, in one run, on a busy machine.

    python scripts/bench_pairs.py OLD_PYTHON NEW_PYTHON [--pairs 7] [--only stats,replay]
    python scripts/bench_pairs.py OLD_PYTHON NEW_PYTHON --clock cpu
    python scripts/bench_pairs.py OLD_PYTHON NEW_PYTHON --instructions

OLD_PYTHON and NEW_PYTHON are the interpreters of two checkouts' environments (each
with its checkout installed, ``pip install -e``). Each figure is measured in a fresh
interpreter of one checkout, then of the other, in turn: A B, B A, A B ... (the order
flips every pair, so neither side always runs second), and each pair gives a ratio,
new / old. The figure to quote is the median of those ratios: a neighbour that slows
the machine for a while slows both halves of a pair, and one slow or lucky pair does
not move a median. The median of each side's own figures is printed beside it.

The figures are the ones ``companion bench`` reports, measured by its own functions
(:mod:`companion.bench.device`, or ``companion.bench`` in a checkout from before the
benches were a package), at the full bench's sizes:

- ``stats``: ``stats_s``, the figures of a 10,000-match store;
- ``press``: ``press_to_frame.median_ms``, 200 presses;
- ``replay``: ``replay_ms``, a 10,000-event log;
- ``import``: ``import_s``, ``companion import`` of a 50 MB export (``--import-mb``).

``--clock cpu`` has the bench's stopwatch read the CPU time of the thread it runs in
(what the code costs, without the time other programs held the cores); ``import``
times its own child process and stays wall-clock.

``--instructions`` counts the instructions of the measured call alone, once a side,
with Valgrind's callgrind (``valgrind`` on the PATH; an interpreter built with its
symbols, as pyenv's are): the same count on a busy machine as on an idle one, so a
change of a few percent shows. The sizes are smaller there (callgrind runs about 50
times slower): stats over 2,000 matches, the same 200 presses and 10,000 events, an
export of 1 MB.

Each run starts its interpreter with ``-P``: the working directory stays off
``sys.path``, so each side imports the companion its own environment installed (run
from the new checkout, ``python -c`` would otherwise import the new tree's companion in
the old interpreter too, and compare the new code with itself). Two interpreters that
import the same checkout are refused.

See docs/benchmarks.md for the method.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: Run in each checkout's interpreter: one figure, printed as a number. In the
#: "instructions" mode the measured call alone goes through ``sys.call_tracing``, the
#: C function callgrind is told to count inside (nothing else calls it).
RUN = """
import os, sys, tempfile
from pathlib import Path
try:
    from companion.bench import device as bench
except ImportError:  # a checkout from before the benches were a package
    import companion.bench as bench
figure, size, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3]
bench._compile_package()  # as companion bench does first: no module compiled while timed
if mode == "cpu":  # the bench's own stopwatches read this thread's CPU time instead:
    # every bench module's, as a press's end is stamped by the rig's (bench/rig.py now)
    import importlib, time, types
    cpu = types.SimpleNamespace(perf_counter=time.thread_time)
    for name in ("companion.bench", "companion.bench.device", "companion.bench.rig"):
        try:
            module = importlib.import_module(name)
        except ImportError:  # a checkout from before the benches were a package
            continue
        if getattr(module, "time", None) is time:
            module.time = cpu
if mode != "instructions":
    if figure == "stats":
        print(bench.stats_speed(int(size))["stats_s"])
    elif figure == "press":
        print(bench.press_to_frame(int(size))["median_ms"])
    elif figure == "replay":
        print(bench.replay_speed(int(size))["replay_ms"])
    elif figure == "import":
        print(bench.import_memory(size)["import_s"])
elif figure == "stats":
    from companion.stats import figures
    with tempfile.TemporaryDirectory() as folder:
        store = bench.stats_store(folder, int(size))
        sys.call_tracing(figures, (store,))
        store.close()
elif figure == "press":  # press_to_frame's presses; its releases are what it times
    from companion.sim import PRESS_SECONDS
    try:  # where the bench's app is built: bench/rig.py now, bench/device.py before
        from companion.bench.rig import bench_app
    except ImportError:
        bench_app = bench._bench_app
    app, clock, _ = bench_app()
    for i in range(int(size)):
        button = "down" if (i // 4) % 2 == 0 else "up"
        app.board.press(button)
        app.pump()
        clock.advance(PRESS_SECONDS)
        sys.call_tracing(lambda: (app.board.release(button), app.pump()), ())
    app.board.close()
elif figure == "replay":
    from companion.games import replay
    log = bench.long_final_count_log(int(size))
    sys.call_tracing(replay, ("final-count", ["Ann", "Bob", "Cy"], {}, log))
elif figure == "import":
    from companion.commands.importer import import_main
    with tempfile.TemporaryDirectory() as folder, open(os.devnull, "w") as out:
        export = Path(folder) / "export.jsonl"
        bench.big_export(export, size)
        state = str(Path(folder) / "state")
        status = sys.call_tracing(lambda: import_main(state, str(export), out=out), ())
    assert status == 0, status
"""

#: Each figure's size (as the full ``companion bench`` runs it; under callgrind), unit.
FIGURES = {"stats": (10_000, 2_000, "s"), "press": (200, 200, "ms"),
           "replay": (10_000, 10_000, "ms"), "import": (50, 1, "s")}


#: Printed by each side's interpreter: the checkout whose companion it imports.
WHERE = ("import companion, os; "
         "print(os.path.dirname(os.path.dirname(os.path.realpath(companion.__file__))))")


def interpreter(python: str) -> list[str]:
    """How every run starts ``python``: ``-P`` keeps the working directory (and the
    script's) off ``sys.path``, so it imports its own environment's companion."""
    return [python, "-P"]


def checkout(python: str) -> str:
    """The folder of the checkout whose companion ``python`` imports."""
    done = subprocess.run([*interpreter(python), "-c", WHERE], capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def measure(python: str, figure: str, size: float, clock: str = "wall") -> float:
    """One run of ``figure`` in a fresh interpreter of ``python``; ``clock`` "cpu" times
    it in the CPU time of the thread that runs it (not ``import``'s own process)."""
    done = subprocess.run([*interpreter(python), "-c", RUN, figure, str(size), clock],
                          capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def instructions(python: str, figure: str, size: float) -> int:
    """The instructions of ``figure``'s measured call in ``python``, by callgrind."""
    with tempfile.TemporaryDirectory() as folder:
        counted = Path(folder) / "callgrind.out"
        # A fixed hash seed: the same dict and set layouts, the same count every run.
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                        "--toggle-collect=sys_call_tracing", f"--callgrind-out-file={counted}",
                        *interpreter(python), "-c", RUN, figure, str(size), "instructions"],
                       capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": "0"})
        for line in counted.read_text().splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no summary")


def pairs(old: str, new: str, figure: str, size: float, count: int,
          clock: str = "wall") -> dict[str, float]:
    """``count`` alternated pairs of runs: each side's median and the median ratio."""
    olds: list[float] = []
    news: list[float] = []
    ratios = []
    for number in range(count):
        if number % 2 == 0:
            was = measure(old, figure, size, clock)
            now = measure(new, figure, size, clock)
        else:
            now = measure(new, figure, size, clock)
            was = measure(old, figure, size, clock)
        olds.append(was)
        news.append(now)
        ratios.append(now / was)
    return {"old": statistics.median(olds), "new": statistics.median(news),
            "ratio": statistics.median(ratios), "ratio_min": min(ratios),
            "ratio_max": max(ratios), "pairs": count}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the baseline checkout's python")
    parser.add_argument("new", help="the checkout measured against it")
    parser.add_argument("--pairs", type=int, default=7, help="pairs of runs per figure")
    parser.add_argument("--only", default=",".join(FIGURES),
                        help="figures, comma-separated: " + ", ".join(FIGURES))
    parser.add_argument("--import-mb", type=float, help="size of the export import reads")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="what the bench's stopwatch reads: wall time (as companion bench"
                             " does) or the CPU time of its thread (import stays wall)")
    parser.add_argument("--instructions", action="store_true",
                        help="count the measured call's instructions with callgrind instead")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in FIGURES]
    if unknown or args.pairs < 1:
        parser.error(f"no figure {unknown[0]!r}" if unknown else "--pairs is at least 1")
    sides = {"old": checkout(args.old), "new": checkout(args.new)}
    if sides["old"] == sides["new"]:
        parser.error(f"both interpreters import the companion of {sides['old']}: give each "
                     "checkout's own environment (pip install -e in each)")
    if not args.json:
        print(f"old: {sides['old']}\nnew: {sides['new']}", flush=True)
    results: dict[str, dict[str, float]] = {}
    for figure in wanted:
        timed, counted, unit = FIGURES[figure]
        size = counted if args.instructions else timed
        if figure == "import" and args.import_mb is not None:
            size = args.import_mb
        if args.instructions:
            old, new = instructions(args.old, figure, size), instructions(args.new, figure, size)
            results[figure] = {"old": old, "new": new, "ratio": new / old, "size": size}
            line = (f"{figure:7} old {old:15,} instructions  new {new:15,}"
                    f"  new/old {new / old:.3f}")
        else:
            results[figure] = shown = pairs(args.old, args.new, figure, size, args.pairs,
                                            args.clock)
            line = (f"{figure:7} old {shown['old']:9.3f} {unit:2}  new {shown['new']:9.3f} {unit:2}"
                    f"  new/old {shown['ratio']:.3f} (pairs {shown['ratio_min']:.3f}"
                    f" .. {shown['ratio_max']:.3f}, {args.pairs} pairs)")
        if not args.json:
            print(line, flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
