"""The command line and the simulator speak ``[ui] language``: ``companion --help``,
argparse's own words, the errors a person reads, the simulator's legend; JSON output
stays English. No catalog is needed: a fake translation ("xx" words in capitals) stands
in for one, installed as the catalog of "de"."""

from __future__ import annotations

import gettext
import json
import re

import pytest
from PIL import Image

import companion.config
import companion.lang as lang
from companion.cli import main
from companion.clock import ManualClock
from companion.config import Config, Ui
from companion.device.terminal import LEGEND, TerminalScreen
from companion.launch import make_app
from companion.sim import sim_board_factory, sim_panel
from companion.speaking import configured_language

#: What a translation keeps as it is: str.format fields and argparse's % placeholders.
_KEPT = re.compile(r"\{[^{}]*\}|%\([^)]*\)[a-z]|%[a-z]")


def _capitals(message: str | None) -> str | None:
    if message is None:  # argparse asks for a description that is not there
        return None
    parts, at = [], 0
    for kept in _KEPT.finditer(message):
        parts += [message[at:kept.start()].upper(), kept.group()]
        at = kept.end()
    return "".join(parts) + message[at:].upper()


class Capitals(gettext.NullTranslations):
    """A fake language: every message in capitals, its placeholders untouched."""

    def gettext(self, message):
        return _capitals(message)

    def pgettext(self, context, message):
        return _capitals(message)

    def ngettext(self, singular, plural, n):
        return _capitals(singular if n == 1 else plural)

    def npgettext(self, context, singular, plural, n):
        return _capitals(singular if n == 1 else plural)


@pytest.fixture
def languages(monkeypatch, tmp_path):
    """English now, "de" speaks :class:`Capitals`, and no system config file is read;
    the language spoken is put back afterwards."""
    monkeypatch.setattr(lang, "_current", [lang.DEFAULT, lang._NONE])
    monkeypatch.setitem(lang._loaded, "de", Capitals())
    monkeypatch.setattr(companion.config, "SYSTEM_CONFIG", tmp_path / "no-system.toml")
    monkeypatch.delenv("COMPANION_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    return tmp_path


def _config_file(directory, text: str = '[ui]\nlanguage = "de"\n') -> str:
    path = directory / "config.toml"
    path.write_text(text)
    return str(path)


def test_help_follows_the_configured_language(languages, capsys, monkeypatch):
    monkeypatch.setenv("COMPANION_CONFIG", _config_file(languages))
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("USAGE: companion [-h] [--version] [--config PATH] COMMAND ...")
    assert "TABLETOP COMPANION: DICE, SHUFFLES" in out
    assert "SHOW THIS HELP MESSAGE AND EXIT" in out and "OPTIONS:" in out
    assert "SHOW PROGRAM'S VERSION NUMBER AND EXIT" in out
    assert "THE SIMULATOR: TERMINAL SCREEN, KEYS AS BUTTONS" in out
    assert "show this help" not in out
    assert lang.current() == "de"


def test_a_subcommands_help_follows_its_config_flag(languages, capsys):
    config = _config_file(languages)
    assert main(["sim", "--config", config, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("USAGE: companion sim")
    assert "RUN BUTTON STEPS FROM FILE" in out and "CONFIGURATION FILE (TOML)" in out
    assert main(["shuffle", f"--config={config}", "--help"]) == 0
    assert "CARDS IN THE DECK (2-800)" in capsys.readouterr().out


def test_help_is_english_without_a_config_file(languages, capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: companion [-h] [--version] [--config PATH] COMMAND ...")
    assert "show this help message and exit" in out
    assert lang.current() == "en"


@pytest.mark.parametrize("text", ["[ui\nlanguage = 'de'", '[ui]\nlanguage = "klingon"\n',
                                  'ui = 3\n', '[ui]\nlanguage = 7\n'])
def test_a_bad_config_leaves_help_in_english(languages, capsys, text):
    config = _config_file(languages, text)
    assert main(["sim", "--config", config, "--help"]) == 0
    assert "show this help message and exit" in capsys.readouterr().out
    assert main(["config", "--config", config]) == 78  # the command says what is wrong
    assert capsys.readouterr().err.startswith("companion: config error: ")


def test_usage_errors_are_translated(languages, capsys):
    config = _config_file(languages)
    assert main(["shuffle", "--config", config, "--cards", "x"]) == 2
    err = capsys.readouterr().err
    assert err == ("companion shuffle: ARGUMENT --cards: INVALID int VALUE: 'x' "
                   "(SEE companion shuffle --HELP)\n")
    assert main(["selftest", "--config", config, "--wait", "-1"]) == 2
    assert "MUST BE FROM 0 TO 3600, NOT '-1'" in capsys.readouterr().err
    assert main(["replay", "--config", config, "final-count"]) == 2
    assert "THE FOLLOWING ARGUMENTS ARE REQUIRED: --events" in capsys.readouterr().err


def test_a_command_error_is_translated(languages, capsys):
    config = _config_file(languages)
    assert main(["export", "--config", config, "--all", "--match", "3"]) == 2
    assert capsys.readouterr().err == "companion: EXPORT: --ALL AND --MATCH GO SEPARATELY\n"


def test_the_same_error_in_english_is_unchanged(languages, capsys):
    assert main(["export", "--all", "--match", "3"]) == 2
    assert capsys.readouterr().err == "companion: export: --all and --match go separately\n"


def test_json_output_stays_english(languages, capsys):
    args = ["shuffle", "--cards", "12", "--piles", "3", "--seed", "7", "--json"]
    assert main(args) == 0
    english = capsys.readouterr().out
    assert main([*args, "--config", _config_file(languages)]) == 0
    translated = capsys.readouterr().out
    assert lang.current() == "de"
    assert translated == english
    assert json.loads(translated)


def test_a_missing_language_file_is_english_and_one_line_in_the_log(languages, capsys,
                                                                     monkeypatch, caplog):
    monkeypatch.delitem(lang._loaded, "de")
    monkeypatch.setattr(lang, "LOCALE_DIR", languages / "no-locale")
    config = _config_file(languages)
    assert main(["shuffle", "--config", config, "--cards", "10"]) == 0
    out = capsys.readouterr().out
    assert "Traceback" not in out and lang.current() == "en"
    said = [record.getMessage() for record in caplog.records
            if "cannot be read" in record.getMessage()]
    assert said and all("\n" not in line and "(missing)" in line for line in said)
    assert main(["shuffle", "--config", config, "--help"]) == 0  # help still works
    assert "show this help message and exit" in capsys.readouterr().out
    app = make_app(Config(ui=Ui("de")), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock())
    try:
        assert lang.current() == "en" and str(app.screen.title) == "Language"
        assert " ".join(app.screen.lines) == lang.unreadable()
    finally:
        app.board.close()


def test_a_script_error_is_translated(languages, capsys):
    script = languages / "steps.txt"
    script.write_text("UP\nJUMP\n")
    config = _config_file(languages)
    assert main(["sim", "--config", config, "--script", str(script)]) == 2
    assert capsys.readouterr().err == (
        "COMPANION: SCRIPT ERROR: LINE 2: NOT A STEP: 'JUMP' "
        "(STEPS: UP, DOWN, OK, BACK, ROLL, HOLD <BUTTON>, WAIT <SECS>)\n")


def test_the_app_speaks_its_configured_language_before_its_first_frame(languages):
    app = make_app(Config(ui=Ui("de")), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock())
    try:
        assert lang.current() == "de"
    finally:
        app.board.close()


def test_the_simulators_legend_follows_a_switch_of_language(languages):
    import io

    screen = TerminalScreen(io.StringIO())
    frame = Image.new("1", (128, 64))
    assert screen.lines(frame)[19:] == LEGEND.splitlines()
    lang.use("de")
    assert screen.lines(frame)[19:] == LEGEND.upper().splitlines()
    lang.use("en")
    assert screen.lines(frame)[19:] == LEGEND.splitlines()


@pytest.mark.parametrize("argv", [["sim", "--config", "{}"], ["sim", "--config={}"],
                                  ["stats", "--conf", "{}"], ["--config", "{}"]])
def test_the_config_flag_is_found_as_argparse_reads_it(languages, argv):
    config = _config_file(languages)
    assert configured_language([word.format(config) for word in argv], env={}) == "de"
    assert configured_language(["sim", "--", "--config", config], env={}) == "en"


def test_a_replay_refusal_is_translated(languages, capsys):
    events = languages / "events.jsonl"
    events.write_text("")
    config = _config_file(languages)
    assert main(["replay", "--config", config, "final-count", "--events", str(events)]) == 2
    assert capsys.readouterr().err.startswith("WHO PLAYED? GIVE --PLAYERS")
