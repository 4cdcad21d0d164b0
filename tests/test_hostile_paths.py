"""Issue 21, items 8 and 9: paths that are not what they seem, and the README read
literally. A NUL in ``[state] dir`` is a configuration error (78) before any command
uses it; ``--config`` and ``sim --script`` read only regular files of a sane size; a GPIO
error keeps the fix it names; ``sim --script`` keeps no game log in the configured
``[state] dir``; ``--log-events`` prints in the interactive simulator too; ``stats
--player`` with a name nobody has says so."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import tty
from pathlib import Path

import pytest
from companion_cli import companion

from companion import cli
from companion.clock import ManualClock
from companion.config import CONFIG_MAX, Config, load_config
from companion.errors import ConfigError, GPIOError, UnreadableFile
from companion.files import read_text_file
from companion.sim import SCRIPT_MAX, run_interactive
from companion.store import Store

CONFIG_ERROR = 78
USAGE = 2


def one_line(done, status: int, *words: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr[:500]
    assert done.returncode == status, done.stderr[:500]
    assert done.stderr.count("\n") == 1, done.stderr[:500]
    for word in words:
        assert word in done.stderr, done.stderr


@pytest.fixture
def nul_config(tmp_path: Path) -> Path:
    config = tmp_path / "config.toml"
    config.write_text('[state]\ndir = "\\u0000"\n', encoding="utf-8")
    return config


@pytest.mark.parametrize("command", [
    ("config",), ("sim", "--script", "{script}"), ("import", "{script}"), ("stats",),
    ("export",), ("run", "--sim"),
])
def test_a_nul_in_the_state_dir_is_a_config_error(tmp_path, nul_config, command):
    script = tmp_path / "s.txt"
    script.write_text("OK\n")
    args = [arg.format(script=script) for arg in command]
    done = companion(*args, "--config", str(nul_config))
    one_line(done, CONFIG_ERROR, "state.dir", "NUL")


def test_a_nul_in_any_string_key_is_refused(tmp_path):
    for section, key in (("serial", "url"), ("web", "listen"), ("club", "table")):
        path = tmp_path / f"{key}.toml"
        path.write_text(f'[{section}]\n{key} = "a\\u0000b"\n', encoding="utf-8")
        with pytest.raises(ConfigError, match=f"{section}.{key} must not contain a NUL"):
            load_config(str(path))


def test_config_from_dev_zero_a_fifo_or_a_directory_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody writes to it: reading it would wait for ever
    for path, kind in (("/dev/zero", "a character device"), (fifo, "a pipe"),
                       (tmp_path, "a directory")):
        done = companion("config", "--config", str(path))
        one_line(done, CONFIG_ERROR, "must be a regular file", kind)


def test_a_config_larger_than_the_cap_is_refused(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("# padding\n" * (CONFIG_MAX // 10 + 1))
    done = companion("config", "--config", str(big))
    one_line(done, CONFIG_ERROR, "larger than 64 KB")
    fits = tmp_path / "fits.toml"
    fits.write_text("# padding\n" * (CONFIG_MAX // 10 - 10))
    assert companion("config", "--config", str(fits)).returncode == 0


def test_a_script_from_dev_zero_or_a_fifo_or_too_large_is_a_script_error(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.txt"
    big.write_text("OK\n" * (SCRIPT_MAX // 3 + 1))
    for path, said in (("/dev/zero", "a character device"), (fifo, "a pipe"),
                       (big, "larger than 1 MB")):
        one_line(companion("sim", "--script", str(path)), USAGE, "script error", said)


def test_read_text_file_reads_a_regular_file_and_says_what_else_it_met(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("Ånn\n", encoding="utf-8")
    assert read_text_file(good, 100, "a file") == "Ånn\n"
    (tmp_path / "latin1.txt").write_bytes(b"\xc5nn\n")
    with pytest.raises(UnreadableFile, match="not UTF-8 text"):
        read_text_file(tmp_path / "latin1.txt", 100, "a file")
    with pytest.raises(UnreadableFile) as missing:
        read_text_file(tmp_path / "none.txt", 100, "a file")
    assert missing.value.missing


def test_a_long_gpio_error_keeps_the_fix_it_names(monkeypatch, capsys):
    """A GPIO error line is the cause and then its fix: a cut at 200 characters used to
    drop the fix (issue 21, item 8)."""
    from companion.device import pins

    chip = "/dev/gpiochip0"
    fix = f"sudo chgrp gpio {chip} && sudo chmod g+rw {chip} (Raspberry Pi OS's udev rule"
    message = (f"GPIO (lgpio): lgpio cannot open {chip}: no permission ({chip} is "
               f"root:root mode 0600 and some more words to be long); give it to the gpio "
               f"group: {fix} does this at boot)")
    assert len(message) > 200

    def refuse(name):
        raise GPIOError(message)

    monkeypatch.setattr(pins, "open_pin_factory", refuse)
    monkeypatch.setattr(cli, "on_a_pi", lambda: True)
    monkeypatch.setattr(cli, "_note_state_dir", lambda state_dir: None)
    assert cli.main(["run"]) == 1
    err = capsys.readouterr().err
    assert err == f"companion: {message}\n"


def test_a_script_keeps_no_game_log_in_the_configured_state_dir(tmp_path):
    state = tmp_path / "state"
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{state}"\n', encoding="utf-8")
    script = tmp_path / "s.txt"
    script.write_text("ROLL\n")
    done = companion("sim", "--new", "final-count", "--players", "Ann,Bob", "--script",
                     str(script), "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert not state.exists()  # README: scripts keep none unless --state-dir
    kept = tmp_path / "kept"
    done = companion("sim", "--new", "final-count", "--players", "Ann,Bob", "--script",
                     str(script), "--config", str(config), "--state-dir", str(kept))
    assert done.returncode == 0, done.stderr
    assert (kept / Store.DEFAULT_NAME).is_file() and not state.exists()


def test_log_events_prints_each_event_in_the_interactive_simulator(tmp_path):
    args = cli.build_parser().parse_args(
        ["sim", "--new", "final-count", "--players", "Ann,Bob", "--log-events"])
    root = cli._new_game(args)
    leader, follower = pty.openpty()
    out = io.StringIO()
    try:
        tty.setraw(follower)
        os.write(leader, b"r r q")  # ROLL twice, then quit
        clock = ManualClock()
        with os.fdopen(follower, "r", closefd=False) as stdin:
            assert run_interactive(Config(), root=root, stdin=stdin, out=out, clock=clock,
                                   wait=clock.advance, state_dir=tmp_path / "state",
                                   seed=3, log_events=True) == 0
    finally:
        os.close(leader)
        os.close(follower)
    shown = out.getvalue()
    # each a line of its own above the redrawn screen (after the escape that clears it)
    events = [json.loads(found) for found in re.findall(r"(?m)\x1b\[Jevent (\{.*\})$", shown)]
    assert events and events[0]["type"] == "roll", shown[-2000:]
    with Store.in_dir(tmp_path / "state") as store:
        logged = store.events(store.unfinished().id)
    assert events == logged  # every event on disk printed, once, in order


def test_stats_for_a_player_nobody_has_says_so(tmp_path, capsys):
    state = tmp_path / "state"
    script = tmp_path / "s.txt"
    script.write_text("ROLL\n")
    assert companion("sim", "--new", "final-count", "--players", "Ann,Bob", "--script",
                     str(script), "--state-dir", str(state)).returncode == 0
    assert cli.main(["stats", "--state-dir", str(state), "--player", "Nobody"]) == 1
    err = capsys.readouterr().err
    assert err in ("companion stats: Nobody: no finished games (no player of that name on "
                   f"the roster: {names})\n" for names in ("Ann, Bob", "Bob, Ann"))
    # Playing now, with no finished game: known (no "no player of that name"), and no
    # "0 played" row for the match not finished.
    assert cli.main(["stats", "--state-dir", str(state), "--player", "ann"]) == 1
    assert capsys.readouterr().err == "companion stats: ann: no finished games\n"


def test_replay_reads_no_endless_file():
    done = companion("replay", "final-count", "--players", "Ann,Bob", "--events", "/dev/zero")
    one_line(done, USAGE, "must be a regular file")
