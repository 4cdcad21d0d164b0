"""The ``companion`` command.

::

    companion sim [--serial URL] [--web HOST:PORT]   the simulator in this terminal
    companion sim --script FILE --screens text   run a button script, print the screens
    companion run [--sim] [--web HOST:PORT]   the device; --web serves the table page
    companion config                      print the effective configuration
    companion shuffle --cards 52 --piles 4 [--seed S] [--json]
    companion replay GAME --players A,B --events LOG.jsonl [--state]
    companion export --all / import FILE  carry every finished match to another device
    companion stats [--game G] [--player NAME] [--since DATE] [--json]
    companion bench                       measure speed and memory on this machine
    companion console PORT [--baud N]     the device's serial console from a laptop
    companion club --broker URL [--web HOST:PORT] [--state-dir DIR]   the club dashboard
    companion club --seat GAME --present NAMES --tables N [--json]   seat a club round
    companion backup [--to PATH] / restore FILE   the game log to one file, and back
    companion say TEXT [--wav FILE]       say one phrase with the configured voice

Errors a person can fix print one line and exit non-zero: 78 for a bad configuration,
2 for bad usage or a bad script, 1 for anything else; ``restore`` adds 3 (a newer
companion's backup), 4 (damaged, not a backup) and 5 (the game log is in use).
Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion import speaking
from companion.commands.commandline import build_parser
from companion.config import Config, dump_toml, load_config, masked
from companion.errors import (
    BadSetup,
    CompanionError,
    ConfigError,
    ScriptError,
    UsageError,
    one_line,
)
from companion.lang import _


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Before the parser is built: its help texts are translated as they are added. A
    # language file that cannot be read leaves English and one line in the log, so even
    # --help works on a device whose catalog a power cut tore.
    speaking.speak(speaking.configured_language(argv))
    speaking.argparse_speaks()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error (2): a status
        return done.code if isinstance(done.code, int) else 2
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "config", None) is None:  # --config before the command
        args.config = args.top_config
    try:
        if getattr(args, "config", None):
            _config(args)  # a --config given is checked, even where a command needs none
        return COMMANDS[args.command](args)
    except ConfigError as err:
        print(_("companion: config error: {problem}").format(problem=one_line(err)),
              file=sys.stderr)
        return ConfigError.exit_status
    except ScriptError as err:
        print(_("companion: script error: {problem}").format(problem=one_line(err)),
              file=sys.stderr)
        return 2
    except CompanionError as err:
        print(f"companion: {one_line(err, err.shown_limit)}", file=sys.stderr)
        return getattr(err, "exit_status", 1)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more to say, and no traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as err:
        # A file or folder no check above said in words (one behind a folder this user
        # may not go into, a stick pulled out): one line naming it, never a traceback.
        print(_("companion: cannot use {file}: {reason}").format(
            file=one_line(err.filename if err.filename is not None else "?"),
            reason=err.strerror or err), file=sys.stderr)
        return 1


def _config(args: argparse.Namespace) -> Config:
    """The configuration, read once per command."""
    if getattr(args, "loaded_config", None) is None:
        args.loaded_config = load_config(getattr(args, "config", None))
    return args.loaded_config


def cmd_config(args: argparse.Namespace) -> int:
    config = _config(args)
    if args.json:  # what deploy/install.sh reads: the service's own reading of the file
        print(json.dumps({"source": config.source, **masked(config).as_dict()},
                         ensure_ascii=False))
        return 0
    print(_("# from {source}").format(source=config.source) if config.source
          else _("# from built-in defaults"))
    print(dump_toml(config), end="")
    return 0


def cmd_lang_check(args: argparse.Namespace) -> int:
    from companion.commands import langcheck

    steps = langcheck.WALK_STEPS if args.steps is None else args.steps
    if steps < 0:
        raise UsageError(_("--steps is 0 (no walk) or more, not {value}").format(value=steps))
    return langcheck.run(args.json, sys.stdout, tuple(args.language or ()) or None, steps)


def cmd_shuffle(args: argparse.Namespace) -> int:
    from companion.table.shuffle import plan_json, plan_text, shuffle_plan

    rng = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    try:
        plan = shuffle_plan(args.cards, args.piles, rng)
    except BadSetup as problem:  # its only inputs are --cards and --piles
        raise UsageError(str(problem)) from None
    if args.json:
        print(json.dumps(plan_json(args.cards, args.piles, plan)))
    else:
        print(plan_text(args.cards, args.piles, plan))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from companion.commands.replay import replay_main

    return replay_main(args.game, args.players, args.option, args.events, state=args.state)


def cmd_sim(args: argparse.Namespace) -> int:
    from companion import sim

    config = _config(args)
    root = _new_game(args)
    if args.script:
        if args.serial:
            raise UsageError(_("--serial goes with the interactive simulator, not --script"))
        if args.web:
            raise UsageError(_("--web goes with the interactive simulator, not --script"))
    elif args.screens != "none":
        raise ScriptError(_("--screens goes with --script"))
    with _speech_log(args.speech_log) as speech_log:
        if args.script:
            # A script keeps no game log unless told where (README): not even in the
            # configured [state] dir, which holds the real games a script must not touch.
            return sim.run_script(config, args.script, seed=args.seed, screens=args.screens,
                                  png_dir=args.png, root=root,
                                  state_dir=Path(args.state_dir) if args.state_dir else None,
                                  log_events=args.log_events, speech_log=speech_log)
        state_dir = _stored_dir(args, config)
        return sim.run_interactive(config, seed=args.seed, png_dir=args.png, root=root,
                                   state_dir=state_dir, serial_url=args.serial,
                                   serial_baud=config.serial.baud,
                                   web_listen=_web(args, config),
                                   web_open_reads=config.web.open_reads,
                                   log_events=args.log_events, speech_log=speech_log)


@contextmanager
def _speech_log(path: str | None) -> Iterator[Any]:
    """``--speech-log FILE`` for the run (:class:`companion.speech.announcer.SpeechLog`):
    one line and exit 1 if it cannot be written, at the start or on the way."""
    if path is None:
        yield None
        return
    from companion.speech.announcer import SpeechLog

    log = SpeechLog.open(path)
    try:
        yield log
    finally:
        log.close()


def cmd_say(args: argparse.Namespace) -> int:
    from companion.speech.say import say_main

    return say_main(_config(args), args.text, wav=args.wav)


def _web(args: argparse.Namespace, config: Config) -> str:
    """Where the table page listens: ``--web`` (checked as it was parsed), else
    ``[web] listen`` ("" = off)."""
    if args.web is None:
        return config.web.listen  # checked when the config was read
    return args.web


def _new_game(args: argparse.Namespace):
    """With ``--new GAME``: a first screen that starts that game at once."""
    if args.new is None:
        if args.players or args.option:
            raise UsageError(_("--players and --option go with --new GAME"))
        return None
    from companion.errors import BadName, UnknownGame
    from companion.games import engine, new_match
    from companion.jsonlines import parse_option
    from companion.names import split_players

    try:
        engine(args.new)  # an unknown game is refused before anything starts
    except UnknownGame as problem:
        raise UsageError(f"--new: {problem}") from None
    try:
        players = split_players(args.players) if args.players else []  # the one name rule
    except BadName as problem:
        raise UsageError(f"--players: {problem}") from None
    try:
        options = dict(parse_option(text) for text in args.option)
    except ValueError as err:
        raise UsageError(f"--option: {err}") from None
    try:
        new_match(args.new, players, options)  # bad players or options: refused now
    except (BadSetup, UnknownGame) as problem:
        raise UsageError(str(problem)) from None

    def root(ctx):
        from companion.session import Session
        from companion.timer_log import with_timer
        from companion.ui.games import table_screen
        from companion.ui.home import home_menu

        seats = _seated_by_the_roster(ctx.store, players)  # before anything changes
        waiting = None if ctx.store is None else ctx.store.unfinished()
        if waiting is not None:
            # --new asks for a new game: the unfinished one is kept as abandoned, never
            # pushed out of view behind the new one.
            ctx.store.abandon(waiting.id)
        session = Session.start(args.new, seats, with_timer(args.new, options, ctx.config),
                                store=ctx.store, listeners=ctx.listeners,
                                secret=ctx.new_secret())
        return table_screen(session, home_menu(ctx)).route(ctx)

    return root


def _seated_by_the_roster(store, players: list[str]) -> list[str]:
    """A new game's players as the roster writes them (the one name rule: "Kate" is the
    roster's "ΚΑΤΕ"); UsageError (exit 2) for a new name that would look like a roster
    name on the screen ("Ànn" beside "Ann"), as the roster refuses it when it is added
    by hand, and for new names the full roster has no room for (nobody joins then: the
    game is not started)."""
    from companion.errors import BadName, RosterFull

    if store is None:
        return players
    try:
        return store.seat_players(players)
    except BadName as problem:
        raise UsageError(_("--players: {problem} (a name on the roster)").format(
            problem=problem)) from None
    except RosterFull as problem:
        raise UsageError(f"--players: {problem}") from None
    except CompanionError:
        return players  # no roster to read: the game is played unsaved, nothing joins it


def cmd_selftest(args: argparse.Namespace) -> int:
    from companion.commands.selftest import selftest_main

    return selftest_main(_config(args), sys.stdout, wait=args.wait,
                         stop_service=args.stop_service)


def cmd_export(args: argparse.Namespace) -> int:
    from companion.commands.export import export_main

    if args.every and args.match != "last":
        raise UsageError(_("export: --all and --match go separately"))
    if args.table is not None and not args.every:
        raise UsageError(_("export: --table goes with --all"))
    return export_main(str(_stored_dir(args)), args.match, args.format, every=args.every,
                       table=args.table)


def _stored_dir(args: argparse.Namespace, config: Config | None = None) -> Path:
    """--state-dir, else the configured one (where the device keeps its game log)."""
    if args.state_dir:
        return Path(args.state_dir)
    return (config or _config(args)).state_dir()


def cmd_stats(args: argparse.Namespace) -> int:
    from companion.stats import stats_main

    return stats_main(_stored_dir(args), game=args.game, players=args.player,
                      since=args.since, as_json=args.json, table=args.table)


def cmd_import(args: argparse.Namespace) -> int:
    from companion.commands.importer import import_main

    # A pipe is fine (the importer copies it once); nothing there, or a directory, is not.
    if args.file != "-":
        what = ""
        try:
            if os.path.isdir(args.file):
                what = _("a directory, not a file")
            else:
                os.stat(args.file)
        except FileNotFoundError:
            what = _("no such file")
        except OSError as err:  # a folder on the way this user may not go into
            what = str(err.strerror or err)
        if what:
            raise UsageError(_("import: cannot read {path}: {problem}").format(
                path=args.file, problem=what))
    return import_main(str(_stored_dir(args)), args.file)


def cmd_backup(args: argparse.Namespace) -> int:
    from companion.commands.backup import backup_main

    config = _config(args)
    return backup_main(_devices_dir(args, config), args.to, config.backup.dir,
                       as_json=args.json)


def cmd_restore(args: argparse.Namespace) -> int:
    from companion.commands.backup import restore_main

    return restore_main(args.file, _devices_dir(args, _config(args)), ids=args.ids)


def _devices_dir(args: argparse.Namespace, config: Config) -> Path:
    """--state-dir, else the device's own log: the service's on an installed device."""
    from companion.commands.backup import devices_state_dir

    return Path(args.state_dir) if args.state_dir else devices_state_dir(config)


def on_a_pi(model_file: str = "/proc/device-tree/model") -> bool:
    """True on a Raspberry Pi (its device tree names the model)."""
    try:
        with open(model_file, "rb") as model:
            return b"Raspberry Pi" in model.read()
    except OSError:
        return False


#: Where the installed service keeps its game log (StateDirectory= in the unit).
SERVICE_STATE_DIR = Path("/var/lib/companion")


def state_dir_note(state_dir: Path, env: dict[str, str] | None = None,
                   service_dir: Path = SERVICE_STATE_DIR) -> str | None:
    """The line a manual ``companion run`` prints about its game log (None under
    systemd): a run by hand does not see the service's games unless told to."""
    env = os.environ if env is None else env
    if env.get("INVOCATION_ID"):
        return None
    if state_dir != service_dir and service_dir.is_dir():
        return _("companion: keeping the game log in {path} (the service keeps its own "
                 "in {service_path}; --state-dir chooses another)").format(
                     path=state_dir, service_path=service_dir)
    return _("companion: keeping the game log in {path}").format(path=state_dir)


def cmd_run(args: argparse.Namespace) -> int:
    config = _config(args)
    forced = bool(os.environ.get("GPIOZERO_PIN_FACTORY"))
    if not args.sim and not on_a_pi() and not forced:
        print(_("companion: not a Raspberry Pi: running the simulator "
                "(set GPIOZERO_PIN_FACTORY to use real pins here)"), file=sys.stderr)
        args.sim = True
    state_dir = _stored_dir(args, config)
    _note_state_dir(state_dir)
    if args.sim:
        from companion import sim

        return sim.run_interactive(config, state_dir=state_dir, serial_url=config.serial.url,
                                   serial_baud=config.serial.baud, web_listen=_web(args, config),
                                   web_open_reads=config.web.open_reads)
    from functools import partial

    from companion.clock import monotonic
    from companion.device.board import Board
    from companion.device.pins import open_pin_factory, pin_factory_name
    from companion.errors import GPIOError
    from companion.launch import (
        backup_keeper,
        close_voice,
        club_link,
        make_app,
        serial_console,
        warm_history,
        web_page,
    )
    from companion.logs import logging_to
    from companion.notify import Notifier

    factory = open_pin_factory(pin_factory_name(config.gpio.pin_factory))
    panel = _open_panel(config, factory)
    try:
        app = make_app(config, board_factory=partial(Board, pin_factory=factory),
                       panel=panel, clock=monotonic,
                       notifier=Notifier(), state_dir=state_dir)
    except CompanionError:
        raise
    except Exception as err:  # gpiozero's own errors: no GPIO on this machine
        raise GPIOError(_("cannot use the GPIO pins here ({problem}); "
                          "`companion sim` runs the simulator").format(problem=err)) from None
    signal.signal(signal.SIGTERM, lambda *_: app.quit())
    warm_history(app)
    try:
        with logging_to(sys.stderr), \
                serial_console(app, config.serial.url, config.serial.baud), \
                web_page(app, _web(args, config), open_reads=config.web.open_reads), \
                club_link(app, config.club), backup_keeper(app, config.backup):
            app.run()
    finally:
        app.board.close()
        close_voice(app)
    return 0


def _note_state_dir(state_dir: Path) -> None:
    note = state_dir_note(state_dir)
    if note:
        print(note, file=sys.stderr)


def _open_panel(config: Config, pin_factory=None):
    """The display; one that does not answer yet (a loose cable) is retried while the
    device runs, so the buttons, the console and the game log work meanwhile.
    ``pin_factory`` drives an SPI display's DC and RST pins."""
    import logging

    from companion.device.display import Panel, open_device
    from companion.errors import DisplayError

    def reopen():
        return open_device(config.display, pin_factory=pin_factory)

    try:
        return Panel(reopen(), reopen=reopen)
    except DisplayError as err:
        logging.getLogger("companion").error("%s; starting without it, retrying", err)
        return Panel.absent(reopen)


def cmd_console(args: argparse.Namespace) -> int:
    from companion.remote.serial import run_console

    return run_console(args.port, args.baud, raw=args.raw, reply_timeout=args.timeout)


#: bench's flags that only club mode reads (each defaults to None: "not given").
_CLUB_BENCH = ("tables", "seconds", "broker", "finished", "load")


def cmd_bench(args: argparse.Namespace) -> int:
    given = {name: getattr(args, name) for name in _CLUB_BENCH
             if getattr(args, name) is not None}
    if args.club:
        from companion.bench.club import bench_club_main

        return bench_club_main(as_json=args.json, **given)
    if given:
        raise UsageError(_("bench: --{flag} goes with --club").format(flag=next(iter(given))))
    from companion.bench.device import bench_main

    return bench_main(as_json=args.json, quick=args.quick)


def cmd_club(args: argparse.Namespace) -> int:
    from companion.club.main import club_main
    from companion.logs import logging_to

    config = _config(args)
    if args.json and not (args.review or args.seat):
        raise UsageError(_("club: --json goes with --review or --seat"))
    if (args.to is None) != (args.move_device is None):
        raise UsageError(_("club: --move-device ID and --to TABLE go together"))
    if args.move_device or args.lock_season:
        from companion.club.main import organiser_main

        state_dir = _club_state_dir(args, config)
        if args.move_device:
            return organiser_main(state_dir, move=(args.move_device, args.to))
        season = _seasons(config, args, "--lock-season").get(args.lock_season)
        if season is None:
            raise UsageError(_("club: --lock-season: no season {season} in "
                               "[club] seasons or --season").format(
                                   season=repr(args.lock_season)))
        return organiser_main(state_dir, season=season)
    if args.review or args.accept or args.refuse:
        from companion.club.main import review_main

        state_dir = _club_state_dir(args, config)
        decision = ("accepted", args.accept) if args.accept else (
            ("refused", args.refuse) if args.refuse else None)
        return review_main(state_dir, decision, as_json=args.json)
    if args.seat or args.present or args.tables or args.seed is not None:
        return _club_seat(args, config)
    broker = args.broker or config.club.broker
    if not broker:
        raise UsageError(_("club needs a broker: --broker mqtt://HOST[:PORT] "
                           "(or [club] broker in the config)"))
    web = _web(args, config) if args.web is not None else ""
    state_dir = _club_state_dir(args, config, writes=True)
    seasons = list(_seasons(config, args, "--season").values())
    with logging_to(sys.stderr):  # one line per problem (the journal under systemd)
        return club_main(broker, state_dir, web=web, club=config.club, hosts=config.web.hosts,
                         seasons=seasons)


def _club_state_dir(args: argparse.Namespace, config: Config, *, writes: bool = False) -> Path:
    """The dashboard's state dir: ``--state-dir``, else the state dir's ``club/``;
    ``writes``: one this command can write in, or a usage error (exit 2)."""
    path = Path(args.state_dir) if args.state_dir else config.state_dir() / "club"
    if writes:
        from companion.commands.arguments import writable_directory

        try:
            writable_directory(str(path))
        except argparse.ArgumentTypeError as problem:
            raise UsageError(_("club: --state-dir: {problem}").format(problem=problem)) \
                from None
    return path


def _seasons(config: Any, args: argparse.Namespace, flag: str) -> dict[str, Any]:
    """The club's seasons by name (``[club] seasons`` and ``--season``), in order."""
    from companion.seasons import parse_seasons

    try:
        seasons = parse_seasons("; ".join([config.club.seasons, *(args.season or [])]))
    except CompanionError as problem:  # e.g. the same name in the config and here
        raise UsageError(f"club: {flag}: {problem}") from None
    return {season.name: season for season in seasons}


def _club_seat(args: argparse.Namespace, config: Config) -> int:
    """``companion club --seat GAME --present NAMES --tables N``: the night's next round."""
    from companion.club.rounds import seat_main

    if not (args.seat and args.present and args.tables):
        raise UsageError(_("club: --seat GAME --present NAMES --tables N go together"))
    state_dir = _club_state_dir(args, config, writes=True)
    return seat_main(state_dir, args.seat, args.present, args.tables, as_json=args.json,
                     seed=args.seed)


COMMANDS = {
    "club": cmd_club,
    "run": cmd_run,
    "sim": cmd_sim,
    "config": cmd_config,
    "shuffle": cmd_shuffle,
    "lang-check": cmd_lang_check,
    "replay": cmd_replay,
    "bench": cmd_bench,
    "export": cmd_export,
    "stats": cmd_stats,
    "import": cmd_import,
    "selftest": cmd_selftest,
    "console": cmd_console,
    "backup": cmd_backup,
    "restore": cmd_restore,
    "say": cmd_say,
}
