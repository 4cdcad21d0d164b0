"""The command line's grammar: every ``companion`` command, its flags, their help and
the checks on their values (:mod:`companion.commands.arguments`). What each command does is in
:mod:`companion.cli`; README's command table says the same for people.

A usage error is one line and exit status 2 (:class:`OneLineParser`); the help texts
are in the language of ``[ui] language`` (:mod:`companion.speaking` picks it before the
parser is built).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

from companion import __version__
from companion.commands import arguments
from companion.errors import one_line
from companion.lang import LANGUAGES, _


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (which command, what is wrong, where the
    help is) and exit status 2, like every other error a person can fix."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, _("{prog}: {problem} (see {prog} --help)").format(
            prog=self.prog, problem=one_line(message)) + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="companion",
        description=_("Tabletop Companion: dice, shuffles, tokens and scorekeeping "
                      "for card games."),
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}",
                        help=_("show program's version number and exit"))
    # Before the command as after it: "companion --config FILE --help" is the help in
    # that file's language, and "companion --config FILE run" reads it.
    parser.add_argument("--config", metavar="PATH", type=arguments.path, dest="top_config",
                        help=_("configuration file (TOML)"))
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, **kw: str) -> argparse.ArgumentParser:
        # Every command takes --config (README says so), first in its help.
        sub = commands.add_parser(name, **kw)
        sub.add_argument("--config", metavar="PATH", type=arguments.path,
                         help=_("configuration file (TOML)"))
        return sub

    run = command("run", help=_("run the device (real pins and display)"))
    run.add_argument("--sim", action="store_true", help=_("force the simulator"))
    run.add_argument("--state-dir", metavar="DIR", type=arguments.directory,
                     help=_("where the game log is kept"))
    run.add_argument("--web", metavar="HOST:PORT", type=arguments.listen,
                     help=_("serve the table page here, e.g. 0.0.0.0:8080 (default: [web] listen)"))

    sim = command("sim", help=_("the simulator: terminal screen, keys as buttons"))
    sim.add_argument("--script", metavar="FILE", help=_("run button steps from FILE"))
    sim.add_argument("--screens", choices=("text", "none"), default="none",
                     help=_("with --script: print each step's screen as text"))
    sim.add_argument("--png", metavar="DIR", type=arguments.writable_directory,
                     help=_("also write each screen as a PNG in DIR"))
    sim.add_argument("--seed", type=int, help=_("seed all randomness (repeatable runs)"))
    sim.add_argument("--state-dir", metavar="DIR", type=arguments.directory,
                     help=_("where the game log is kept "
                     "(scripts keep none unless given)"))
    # Translators: 'event {json}' is what the program prints for another program (a
    # word and a JSON object): keep it as it is.
    sim.add_argument("--log-events", action="store_true",
                     help=_("print each event as 'event {json}' once it is on disk"))
    sim.add_argument("--new", metavar="GAME", help=_("start this game directly, e.g. final-count"))
    sim.add_argument("--players", help=_("with --new: comma-separated names in seat order"))
    sim.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help=_("with --new: a game option, e.g. hit_goal=true"))
    sim.add_argument("--serial", metavar="URL", type=arguments.serial_url,
                     help=_("attach the serial console to this port or pyserial URL"))
    sim.add_argument("--web", metavar="HOST:PORT", type=arguments.listen,
                     help=_("serve the table page here, e.g. 127.0.0.1:8080 "
                            "(default: [web] listen)"))
    # Translators: the JSON keys in braces are written as they are.
    sim.add_argument("--speech-log", metavar="FILE", type=arguments.new_file,
                     help=_("write each announcement to FILE as a JSON line "
                            "({\"at\", \"language\", \"kind\", \"text\"}), "
                            "whether or not it is played"))

    say = command("say", help=_("say one phrase with the configured voice ([speech])"))
    say.add_argument("text", metavar="TEXT", type=arguments.speech_text,
                     help=_("the words to say"))
    say.add_argument("--wav", metavar="FILE", type=arguments.wav_file,
                     help=_("write the phrase to this WAV file instead of playing it"))

    config = command("config", help=_("print the effective configuration"))
    config.add_argument("--json", action="store_true", help=_("print one JSON object"))

    shuffle = command("shuffle", help=_("print a guided pile shuffle"))
    shuffle.add_argument("--cards", type=int, default=52, help=_("cards in the deck (2-800)"))
    shuffle.add_argument("--piles", type=int, default=4, help=_("piles to deal into (2-10)"))
    shuffle.add_argument("--seed", type=int, help=_("seed (repeatable plans)"))
    shuffle.add_argument("--json", action="store_true", help=_("print one JSON object"))

    check = command("lang-check", help=_("draw every translated message in its place on "
                                         "the screen and list what does not fit"))
    check.add_argument("--json", action="store_true", help=_("print one JSON object"))
    check.add_argument("--language", choices=LANGUAGES, action="append",
                       help=_("check only this language (again for more)"))
    check.add_argument("--steps", type=int, default=None, metavar="N",
                       help=_("presses of the screen walk in each game (0: no walk)"))

    replay = command("replay", help=_("recompute a game from its event log"))
    replay.add_argument("game", help=_("game id, e.g. final-count"))
    replay.add_argument("--players", help=_("comma-separated names in seat order"))
    replay.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    replay.add_argument("--events", required=True, metavar="FILE", help=_("JSON lines"))
    replay.add_argument("--state", action="store_true",
                        help=_("add the match's state() to the output as \"state\""))

    selftest = command("selftest", help=_("check the display, buzzer and buttons"))
    selftest.add_argument("--wait", type=arguments.number(float, 0, 3600), default=10.0,
                          metavar="SECS",
                          help=_("how long to wait for each button (default 10)"))
    selftest.add_argument("--stop-service", action="store_true",
                          help=_("stop companion.service for the test, start it again after"))

    export = command("export", help=_("export a stored game"))
    export.add_argument("--state-dir", metavar="DIR", type=arguments.directory,
                        help=_("where the game log is kept (default: the configured one)"))
    export.add_argument("--match", default="last", metavar="ID|current|last",
                        type=arguments.match_ref)
    export.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    export.add_argument("--all", action="store_true", dest="every",
                        help=_("every finished match, as jsonl (for companion import)"))
    export.add_argument("--table", metavar="NAME", type=arguments.table,
                        help=_("with --all: only the matches of this club table"))

    stats = command("stats", help=_("figures and ratings from the stored games"))
    stats.add_argument("--state-dir", metavar="DIR", type=arguments.directory,
                       help=_("where the game log is kept"))
    stats.add_argument("--game", metavar="GAME", help=_("one game, e.g. final-count"))
    stats.add_argument("--player", action="append", metavar="NAME",
                       help=_("one player's figures (twice: and their head-to-head)"))
    stats.add_argument("--since", metavar="YYYY-MM-DD", help=_("matches finished on or after"))
    stats.add_argument("--json", action="store_true", help=_("print one JSON object"))
    stats.add_argument("--table", metavar="NAME", type=arguments.table,
                       help=_("only the matches of this club table (a club dashboard's store)"))

    import_ = command("import", help=_("store matches from a companion export file"))
    import_.add_argument("file", metavar="FILE.jsonl", help=_("as `companion export` wrote it"))
    import_.add_argument("--state-dir", metavar="DIR", type=arguments.directory,
                         help=_("where the game log is kept"))

    console = command("console", help=_("the device's serial console, from a laptop"))
    console.add_argument("port", help=_("serial port or pyserial URL, e.g. /dev/ttyACM0"))
    console.add_argument("--baud", type=arguments.number(int, 1, 4_000_000), default=115200)
    console.add_argument("--raw", action="store_true", help=_("print replies as received"))
    console.add_argument("--timeout", type=arguments.number(float, 0.1, 3600), default=10.0,
                         metavar="SECONDS",
                         help=_("how long to wait for each reply"))

    bench = command("bench", help=_("measure speed and memory on this machine"))
    bench.add_argument("--json", action="store_true", help=_("print one JSON object"))
    bench.add_argument("--quick", action="store_true", help=_("fewer samples (for tests)"))
    bench.add_argument("--club", action="store_true",
                       help=_("club mode instead: simulated tables through a broker to a "
                            "dashboard (starts its own mosquitto unless --broker)"))
    bench.add_argument("--tables", type=arguments.number(int, 1, 1000),
                       help=_("with --club: tables (50)"))
    bench.add_argument("--seconds", type=arguments.number(float, 1, 3600),
                       help=_("with --club: how long to measure (20)"))
    bench.add_argument("--broker", metavar="URL", type=arguments.broker,
                       help=_("with --club: an existing broker"))
    bench.add_argument("--load", action="store_const", const=True,
                       help=_("with --club: with a process of its own keeping a core busy "
                              "beside it"))
    bench.add_argument("--finished", type=arguments.number(int, 1, 1_000_000),
                       metavar="N", help=_("with --club: time a dashboard's restart over N "
                                         "finished matches instead"))

    club = command("club", help=_("the club dashboard: every table's matches "
                                            "from an MQTT broker, and the club page"))
    club.add_argument("--broker", metavar="URL", type=arguments.broker,
                      help=_("mqtt://HOST[:PORT] or mqtts://... (default: [club] broker)"))
    club.add_argument("--web", metavar="HOST:PORT", type=arguments.listen,
                      help=_("serve the club page here"))
    club.add_argument("--season", action="append", metavar="'NAME: FROM..TO'",
                      type=arguments.season,
                      help=_("a season of the league (dates YYYY-MM-DD; more than one: "
                           "repeat it), besides [club] seasons"))
    club.add_argument("--state-dir", metavar="DIR", type=arguments.directory,
                      help=_("the dashboard's own game log (default: the state dir's club/)"))
    organiser = club.add_mutually_exclusive_group()
    organiser.add_argument("--review", action="store_true",
                           help=_("list the matches held for the organiser (a counted match "
                                "a table rewrote, a counted match again with its times "
                                "moved) and exit"))
    organiser.add_argument("--accept", metavar="UID", type=arguments.match_uid,
                           help=_("accept held match UID (the league follows it) and exit"))
    organiser.add_argument("--refuse", metavar="UID", type=arguments.match_uid,
                           help=_("refuse held match UID (the league keeps what it counted) "
                                "and exit"))
    organiser.add_argument("--move-device", metavar="ID", type=arguments.device_id,
                           help=_("bind device ID (companion club --review lists the refused "
                                "ones) to the table given by --to, and exit"))
    organiser.add_argument("--lock-season", metavar="NAME", type=arguments.season_name,
                           help=_("lock season NAME: its standings stay as counted now "
                                "(whatever arrives later), and exit"))
    club.add_argument("--to", metavar="TABLE", type=arguments.table,
                      help=_("with --move-device: the table the device speaks for from now on"))
    club.add_argument("--seat", metavar="GAME", type=arguments.game,
                      help=_("seat the night's next round of GAME (with --present, --tables) "
                           "and store it; a running dashboard sends it to the tables"))
    club.add_argument("--present", metavar="NAMES", type=arguments.players,
                      help=_("with --seat: the players present, comma-separated"))
    club.add_argument("--tables", metavar="N|NAMES", type=arguments.tables,
                      help=_("with --seat: how many of the tables online now, or which "
                             "tables (comma-separated names)"))
    club.add_argument("--seed", metavar="S", type=arguments.number(int, 0, 2**32 - 1),
                      help=_("with --seat: the draw's seed (default: a random one, shown)"))
    club.add_argument("--json", action="store_true",
                      help=_("with --review or --seat: one JSON object"))
    _backup_commands(command)
    return parser


def _backup_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """``companion backup`` and ``companion restore`` (companion/commands/backup.py)."""
    backup = command("backup", help=_("copy the game log to one backup file "
                                    "(safe while the device plays)"))
    backup.add_argument("--state-dir", metavar="DIR", type=arguments.directory,
                        help=_("where the game log is kept"))
    backup.add_argument("--to", metavar="PATH", type=arguments.path,
                        help=_("the backup file, or a directory to write it in "
                             "(default: [backup] dir, else the current directory)"))
    backup.add_argument("--json", action="store_true", help=_("print the manifest as JSON"))
    restore = command("restore", help=_("make a backup the game log again "
                                      "(the log that was there is kept aside)"))
    restore.add_argument("file", metavar="FILE", help=_("a .companion-backup file"))
    restore.add_argument("--state-dir", metavar="DIR", type=arguments.directory,
                         help=_("where the game log is kept"))
    ids = restore.add_mutually_exclusive_group()
    ids.add_argument("--keep-id", dest="ids", action="store_const", const="keep",
                     help=_("a backup made by another device: this device keeps its own id"))
    ids.add_argument("--take-id", dest="ids", action="store_const", const="take",
                     help=_("a backup made by another device: this device takes its id "
                          "over, as its replacement"))
