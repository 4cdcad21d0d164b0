"""README: "Bad arguments print one line and exit with status 2." Read literally (issue
21, item 9): every flag the README's command table names that takes a value gets a bad
value here and must exit 2 with one line and no traceback, before anything starts. A
flag added to the table without a bad value here fails the test until one is given (or
a reason why its value can only be found wrong when it is used)."""

from __future__ import annotations

import re

import pytest
from companion_cli import companion
from test_cli_docs import documented_uses, help_of

#: For each (command, flag): argument lists that are wrong in that flag alone. Where a
#: flag needs others to mean anything (--option needs --new), they come along, right.
NEW = ("--new", "final-count", "--players", "Ann,Bob")
BAD: dict[tuple[str, str], list[tuple[str, ...]]] = {
    ("sim", "--script"): [("--script", "{tmp}/no-such-script")],
    ("sim", "--screens"): [("--screens", "svg")],
    ("sim", "--png"): [("--png", "{file}", "--script", "{script}"),
                       ("--png", "{file}/frames", "--script", "{script}"),
                       ("--png", "/proc/companion-frames", "--script", "{script}"),
                       ("--png", "/sys", "--script", "{script}")],
    ("sim", "--seed"): [("--seed", "x")],
    ("sim", "--new"): [("--new", "nope"), ("--new", "nope", "--script", "{script}"),
                       ("--new", ""), ("--new", "", "--script", "{script}")],
    ("sim", "--players"): [("--new", "final-count", "--players", "Ann,,Bob"),
                           ("--new", "final-count", "--players", "Ann"),
                           ("--players", "Ann,Bob")],
    ("sim", "--option"): [(*NEW, "--option", "hit_goal=maybe"),
                          (*NEW, "--option", "nonsense"),
                          (*NEW, "--option", "colour=red"),
                          ("--option", "hit_goal=true")],
    ("sim", "--state-dir"): [("--state-dir", "{file}", "--script", "{script}")],
    ("sim", "--web"): [("--web", "nothing"), ("--web", "host:99999"), ("--web", "[::1"),
                       ("--web", "::1:8080"), ("--web", "[nope]:8080"),
                       ("--web", "127.0.0.1:8080", "--script", "{script}")],
    ("sim", "--serial"): [("--serial", "loop://", "--script", "{script}"),
                          ("--serial", "nope://x"), ("--serial", ""),
                          ("--serial", "socket://localhost:99999"),
                          ("--serial", "socket://localhost")],
    ("sim", "--speech-log"): [("--speech-log", "{tmp}", "--script", "{script}"),
                              ("--speech-log", "{tmp}/no/such/log.jsonl"),
                              ("--speech-log", "", "--script", "{script}")],
    ("say", "--wav"): [("hello", "--wav", "{tmp}"), ("hello", "--wav", "{tmp}/no/x.wav"),
                       ("", "--wav", "{tmp}/x.wav"), ("x" * 2001,)],
    ("run", "--state-dir"): [("--state-dir", "{file}")],
    ("run", "--web"): [("--web", "nothing")],
    ("selftest", "--wait"): [("--wait", "-1"), ("--wait", "nan"), ("--wait", "soon")],
    ("export", "--state-dir"): [("--state-dir", "{file}")],
    ("export", "--match"): [("--match", "nope"), ("--match", "-3")],
    ("export", "--format"): [("--format", "xml")],
    ("import", "--state-dir"): [("{script}", "--state-dir", "{file}")],
    ("stats", "--state-dir"): [("--state-dir", "{file}")],
    ("stats", "--game"): [("--game", "nope")],
    ("stats", "--player"): [("--player", "A", "--player", "B", "--player", "C")],
    ("stats", "--since"): [("--since", "2020-13-01"), ("--since", "yesterday")],
    ("stats", "--table"): [("--table", "no/such"), ("--table", "")],
    ("export", "--table"): [("--all", "--table", "a b"), ("--table", "north")],
    ("shuffle", "--cards"): [("--cards", "1"), ("--cards", "801"), ("--cards", "x")],
    ("shuffle", "--piles"): [("--piles", "1"), ("--piles", "11")],
    ("shuffle", "--seed"): [("--seed", "x")],
    ("lang-check", "--language"): [("--language", "xx"), ("--language", "")],
    ("lang-check", "--steps"): [("--steps", "-1"), ("--steps", "many")],
    ("replay", "--players"): [("final-count", "--players", "Ann,,Bob", "--events",
                               "{script}")],
    ("replay", "--events"): [("final-count", "--players", "Ann,Bob", "--events",
                              "{tmp}/no-such-log")],
    ("console", "--baud"): [("{tmp}/no-port", "--baud", "0"),
                            ("{tmp}/no-port", "--baud", "fast")],
    ("bench", "--tables"): [("--club", "--tables", "0"), ("--tables", "5")],
    ("bench", "--seconds"): [("--club", "--seconds", "0"), ("--seconds", "5")],
    ("bench", "--broker"): [("--club", "--broker", "ftp://x"),
                            ("--broker", "mqtt://localhost")],
    ("bench", "--finished"): [("--club", "--finished", "-1"), ("--club", "--finished", "x"),
                              ("--finished", "5")],
    ("club", "--broker"): [("--broker", "ftp://x"), ("--broker", "mqtt://host:99999"),
                           ()],
    ("club", "--web"): [("--broker", "mqtt://localhost", "--web", "nothing")],
    ("club", "--state-dir"): [("--broker", "mqtt://localhost", "--state-dir", "{file}")],
    ("club", "--season"): [("--broker", "mqtt://localhost", "--season", "Spring"),
                           ("--broker", "mqtt://localhost", "--season",
                            "S: 2026-05-01..2026-03-01")],
    ("club", "--accept"): [("--accept", "a/b"), ("--accept", ""), ("--accept", "x" * 65),
                           ("--review", "--accept", "abc")],
    ("club", "--refuse"): [("--refuse", "x y"), ("--accept", "abc", "--refuse", "abc")],
    ("club", "--seat"): [("--seat", "nope", "--present", "Ann,Bob", "--tables", "1")],
    ("club", "--present"): [("--seat", "final-count", "--present", "Ann,,Bob",
                             "--tables", "1"),
                            ("--seat", "final-count", "--tables", "1")],
    ("club", "--tables"): [("--seat", "final-count", "--present", "Ann,Bob",
                            "--tables", "0"),
                           ("--seat", "final-count", "--present", "Ann,Bob",
                            "--tables", "table/4")],
    ("club", "--seed"): [("--seat", "final-count", "--present", "Ann,Bob", "--tables", "1",
                          "--seed", "-1")],
    ("club", "--move-device"): [("--move-device", "xyz", "--to", "t2"),
                                ("--move-device", "ab12cd34ef56ab78"),
                                ("--move-device", "ab12cd34ef56ab78", "--review", "--to", "t2")],
    ("club", "--to"): [("--move-device", "ab12cd34ef56ab78", "--to", "a/b"), ("--to", "t2")],
    ("club", "--lock-season"): [("--lock-season", ""), ("--lock-season", "x" * 41),
                                ("--lock-season", "Winter", "--season",
                                 "Spring: 2026-03-01..2026-05-31")],
    ("backup", "--state-dir"): [("--state-dir", "{file}")],
    ("backup", "--to"): [("--to", ""), ("--to", " ")],
    ("restore", "--state-dir"): [("{script}", "--state-dir", "{file}")],
    ("restore", "--keep-id"): [("{script}", "--keep-id", "--take-id"),
                               ("{script}", "--keep-id=yes")],
    ("restore", "--take-id"): [("{script}", "--take-id", "--take-id=old")],
}
#: Flags whose value is checked where it is used, not as an argument: the configuration
#: (a bad one exits 78, README says so) and the path of a port that may appear later.
NOT_ARGUMENTS = {"--config": "a bad configuration exits 78",
                 "--serial": "a port that is not there yet is retried while the sim runs "
                             "(a kind of URL pyserial does not know is refused: BAD)"}


def takes_value(command: str, flag: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(flag)} [A-Z]", help_of(command)) is not None


def documented_value_flags() -> list[tuple[str, str]]:
    found = []
    for _, command, flags in documented_uses():
        for flag in flags:
            if takes_value(command, flag) and (command, flag) not in found:
                found.append((command, flag))
    return found


def test_every_flag_with_a_value_in_the_readme_has_bad_values_here():
    missing = [use for use in documented_value_flags()
               if use not in BAD and use[1] not in NOT_ARGUMENTS]
    assert not missing, f"give these bad values in BAD: {missing}"
    assert len(documented_value_flags()) >= 20


def cases() -> list[tuple[str, tuple[str, ...]]]:
    return [(command, args) for (command, _), variants in BAD.items() for args in variants]


@pytest.mark.parametrize(("command", "args"), cases(), ids=lambda v: " ".join(v)
                         if isinstance(v, tuple) else v)
def test_a_bad_argument_is_one_line_and_exit_2(tmp_path, command, args):
    script = tmp_path / "script.txt"
    script.write_text("OK\n")
    file = tmp_path / "a-file"
    file.write_text("not a directory\n")
    real = [arg.format(tmp=tmp_path, file=file, script=script) for arg in args]
    done = companion(command, *real)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""
    assert not (tmp_path / "state").exists()


def test_the_readme_promises_exit_2_for_bad_arguments():
    from test_cli_docs import README

    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "Bad arguments print one line and exit with status 2." in text


def test_the_readme_says_how_to_put_the_venv_on_path_right_after_the_set_up():
    from test_cli_docs import README

    text = README.read_text(encoding="utf-8")
    setup = text.index(".venv/bin/companion sim")
    first_bare = text.index("`companion ", setup)
    activate = text.find(". .venv/bin/activate", setup)
    assert setup < activate < first_bare
