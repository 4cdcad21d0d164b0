"""The ``companion`` command.

::

    companion sim [--serial URL]          the simulator in this terminal
    companion sim --script FILE --screens text   run a button script, print the screens
    companion run [--sim]                 the device (the simulator with --sim)
    companion config                      print the effective configuration
    companion shuffle --cards 52 --piles 4 [--seed S] [--json]
    companion replay GAME --players A,B --events LOG.jsonl
    companion bench                       measure speed and memory on this machine
    companion console PORT [--baud N]     the device's serial console from a laptop

Errors a person can fix print one line and exit non-zero: 78 for a bad configuration,
2 for bad usage or a bad script, 1 for anything else. Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from companion import __version__
from companion.config import Config, dump_toml, load_config
from companion.errors import CompanionError, ConfigError, ScriptError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Tabletop Companion: dice, shuffles, tokens and scorekeeping for card games.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def with_config(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--config", metavar="PATH", help="configuration file (TOML)")

    run = commands.add_parser("run", help="run the device (real pins and display)")
    with_config(run)
    run.add_argument("--sim", action="store_true", help="force the simulator")
    run.add_argument("--state-dir", metavar="DIR", help="where the game log is kept")

    sim = commands.add_parser("sim", help="the simulator: terminal screen, keys as buttons")
    with_config(sim)
    sim.add_argument("--script", metavar="FILE", help="run button steps from FILE")
    sim.add_argument("--screens", choices=("text", "none"), default="none",
                     help="with --script: print each step's screen as text")
    sim.add_argument("--png", metavar="DIR", help="also write each screen as a PNG in DIR")
    sim.add_argument("--seed", type=int, help="seed all randomness (repeatable runs)")
    sim.add_argument("--state-dir", metavar="DIR", help="where the game log is kept "
                     "(scripts keep none unless given)")
    sim.add_argument("--log-events", action="store_true",
                     help="print each event as 'event {json}' once it is on disk")
    sim.add_argument("--new", metavar="GAME", help="start this game directly, e.g. final-count")
    sim.add_argument("--players", help="with --new: comma-separated names in seat order")
    sim.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help="with --new: a game option, e.g. hit_goal=true")
    sim.add_argument("--serial", metavar="URL",
                     help="attach the serial console to this port or pyserial URL")

    config = commands.add_parser("config", help="print the effective configuration")
    with_config(config)

    shuffle = commands.add_parser("shuffle", help="print a guided pile shuffle")
    shuffle.add_argument("--cards", type=int, default=52, help="cards in the deck (2-800)")
    shuffle.add_argument("--piles", type=int, default=4, help="piles to deal into (2-10)")
    shuffle.add_argument("--seed", type=int, help="seed (repeatable plans)")
    shuffle.add_argument("--json", action="store_true", help="print one JSON object")

    replay = commands.add_parser("replay", help="recompute a game from its event log")
    replay.add_argument("game", help="game id, e.g. final-count")
    replay.add_argument("--players", help="comma-separated names in seat order")
    replay.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    replay.add_argument("--events", required=True, metavar="FILE", help="JSON lines")

    selftest = commands.add_parser("selftest", help="check the display, buzzer and buttons")
    with_config(selftest)
    selftest.add_argument("--wait", type=float, default=10.0, metavar="SECS",
                          help="how long to wait for each button (default 10)")

    export = commands.add_parser("export", help="export a stored game")
    export.add_argument("--state-dir", required=True, metavar="DIR")
    export.add_argument("--match", default="last", metavar="ID|current|last")
    export.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")

    console = commands.add_parser("console", help="the device's serial console, from a laptop")
    console.add_argument("port", help="serial port or pyserial URL, e.g. /dev/ttyACM0")
    console.add_argument("--baud", type=int, default=115200)
    console.add_argument("--raw", action="store_true", help="print replies as received")
    console.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                         help="how long to wait for each reply")

    bench = commands.add_parser("bench", help="measure speed and memory on this machine")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--quick", action="store_true", help="fewer samples (for tests)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return COMMANDS[args.command](args)
    except ConfigError as err:
        print(f"companion: config error: {err}", file=sys.stderr)
        return ConfigError.exit_status
    except ScriptError as err:
        print(f"companion: script error: {err}", file=sys.stderr)
        return 2
    except CompanionError as err:
        print(f"companion: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more to say, and no traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _config(args: argparse.Namespace) -> Config:
    return load_config(getattr(args, "config", None))


def cmd_config(args: argparse.Namespace) -> int:
    config = _config(args)
    print(f"# from {config.source or 'built-in defaults'}")
    print(dump_toml(config), end="")
    return 0


def cmd_shuffle(args: argparse.Namespace) -> int:
    from companion.table.shuffle import plan_json, plan_text, shuffle_plan

    rng = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    plan = shuffle_plan(args.cards, args.piles, rng)
    if args.json:
        print(json.dumps(plan_json(args.cards, args.piles, plan)))
    else:
        print(plan_text(args.cards, args.piles, plan))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from companion.replay import replay_main

    return replay_main(args.game, args.players, args.option, args.events)


def cmd_sim(args: argparse.Namespace) -> int:
    from companion import sim

    config = _config(args)
    root = _new_game(args)
    if args.script:
        if args.serial:
            raise CompanionError("--serial goes with the interactive simulator, not --script")
        state_dir = args.state_dir or config.state.dir or None
        return sim.run_script(config, args.script, seed=args.seed, screens=args.screens,
                              png_dir=args.png, root=root,
                              state_dir=Path(state_dir) if state_dir else None,
                              log_events=args.log_events)
    if args.screens != "none":
        raise ScriptError("--screens goes with --script")
    state_dir = Path(args.state_dir) if args.state_dir else config.state_dir()
    return sim.run_interactive(config, seed=args.seed, png_dir=args.png, root=root,
                               state_dir=state_dir, serial_url=args.serial,
                               serial_baud=config.serial.baud)


def _new_game(args: argparse.Namespace):
    """With ``--new GAME``: a first screen that starts that game at once."""
    if not args.new:
        if args.players or args.option:
            raise CompanionError("--players and --option go with --new GAME")
        return None
    from companion.games import engine
    from companion.replay import parse_option

    engine(args.new)  # an unknown game is refused before anything starts
    players = [name.strip() for name in (args.players or "").split(",") if name.strip()]
    options = dict(parse_option(text) for text in args.option)

    def root(ctx):
        from companion.session import Session
        from companion.ui.games import table_screen
        from companion.ui.home import home_menu

        session = Session.start(args.new, players, options, store=ctx.store,
                                listeners=ctx.listeners)
        return table_screen(session, home_menu(ctx)).route(ctx)

    from companion.games import new_match

    new_match(args.new, players, options)  # bad players or options: refused now
    return root


def cmd_selftest(args: argparse.Namespace) -> int:
    import queue

    from companion.clock import monotonic
    from companion.device.board import Board
    from companion.device.display import Panel, open_device
    from companion.selftest import run_selftest

    config = _config(args)
    panel = Panel(open_device(config.display))
    edges: queue.Queue = queue.Queue()
    try:
        board = Board(config.buttons, config.buzzer.pin, config.led.pin,
                      sink=lambda *edge: edges.put(edge), clock=monotonic)
    except CompanionError:
        raise
    except Exception as err:  # gpiozero's own errors: no GPIO on this machine
        raise CompanionError(f"cannot use the GPIO pins here ({err})") from None
    try:
        return run_selftest(config, board, panel, edges, monotonic, sys.stdout, wait=args.wait)
    finally:
        board.close()


def cmd_export(args: argparse.Namespace) -> int:
    from companion.export import export_main

    return export_main(args.state_dir, args.match, args.format)


def on_a_pi(model_file: str = "/proc/device-tree/model") -> bool:
    """True on a Raspberry Pi (its device tree names the model)."""
    try:
        with open(model_file, "rb") as model:
            return b"Raspberry Pi" in model.read()
    except OSError:
        return False


def cmd_run(args: argparse.Namespace) -> int:
    config = _config(args)
    forced = bool(os.environ.get("GPIOZERO_PIN_FACTORY"))
    if not args.sim and not on_a_pi() and not forced:
        print("companion: not a Raspberry Pi: running the simulator "
              "(set GPIOZERO_PIN_FACTORY to use real pins here)", file=sys.stderr)
        args.sim = True
    if args.sim:
        from companion import sim

        state_dir = Path(args.state_dir) if args.state_dir else config.state_dir()
        return sim.run_interactive(config, state_dir=state_dir, serial_url=config.serial.url,
                                   serial_baud=config.serial.baud)
    from companion.clock import monotonic
    from companion.device.board import Board
    from companion.launch import make_app, serial_console
    from companion.notify import Notifier

    state_dir = Path(args.state_dir) if args.state_dir else config.state_dir()
    panel = _open_panel(config)
    try:
        app = make_app(config, board_factory=Board, panel=panel, clock=monotonic,
                       notifier=Notifier(), state_dir=state_dir)
    except CompanionError:
        raise
    except Exception as err:  # gpiozero's own errors: no GPIO on this machine
        raise CompanionError(f"cannot use the GPIO pins here ({err}); "
                             "`companion sim` runs the simulator") from None
    signal.signal(signal.SIGTERM, lambda *_: app.quit())
    try:
        with serial_console(app, config.serial.url, config.serial.baud):
            app.run()
    finally:
        app.board.close()
    return 0


def _open_panel(config: Config):
    """The display; one that does not answer yet (a loose cable) is retried while the
    device runs, so the buttons, the console and the game log work meanwhile."""
    import logging

    from companion.device.display import DisplayError, Panel, open_device

    def reopen():
        return open_device(config.display)

    try:
        return Panel(reopen(), reopen=reopen)
    except DisplayError as err:
        logging.getLogger("companion").error("%s; starting without it, retrying", err)
        return Panel.absent(reopen)


def cmd_console(args: argparse.Namespace) -> int:
    from companion.link import run_console

    return run_console(args.port, args.baud, raw=args.raw, reply_timeout=args.timeout)


def cmd_bench(args: argparse.Namespace) -> int:
    from companion.bench import bench_main

    return bench_main(as_json=args.json, quick=args.quick)


COMMANDS = {
    "run": cmd_run,
    "sim": cmd_sim,
    "config": cmd_config,
    "shuffle": cmd_shuffle,
    "replay": cmd_replay,
    "bench": cmd_bench,
    "export": cmd_export,
    "selftest": cmd_selftest,
    "console": cmd_console,
}
