"""The README's "Command line" table against the real command line (issue 12, item 8):
every flag a row names is one its command accepts, every command is in the table, and
every command takes ``--config PATH`` as the README says. Generic: whatever rows the
README has, whatever commands ``companion --help`` lists."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from companion_cli import companion

README = Path(__file__).resolve().parents[1] / "README.md"


def command_table() -> list[str]:
    """The first cell of each row of the table under "## Command line"."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Command line\n", 1)[1].split("\n## ", 1)[0]
    cells = []
    for line in section.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells.append(re.split(r"(?<!\\)\|", line)[1].strip())
    return cells[1:]  # the header row names the columns


def documented_uses() -> list[tuple[str, str, list[str]]]:
    """(row, command, flags) for each ``companion COMMAND ...`` a row shows."""
    uses = []
    for cell in command_table():
        for code in re.findall(r"`(companion [^`]*)`", cell):
            words = code.split()
            flags = re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", code)
            uses.append((cell, words[1], flags))
    return uses


@functools.cache
def help_of(*command: str) -> str:
    done = companion(*command, "--help")
    assert done.returncode == 0, done.stderr
    return done.stdout


def commands() -> list[str]:
    """The commands ``companion --help`` lists."""
    listed = help_of().split("COMMAND\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^    (\w[\w-]*)", listed, flags=re.MULTILINE)


def accepts(command: str, flag: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", help_of(command)) is not None


def test_the_table_is_found_and_names_commands():
    assert len(documented_uses()) >= 10
    assert {"sim", "run", "export", "replay"} <= {command for _, command, _ in documented_uses()}


@pytest.mark.parametrize(("row", "command", "flags"), documented_uses(),
                         ids=lambda value: value if isinstance(value, str) else None)
def test_every_flag_the_readme_names_is_accepted(row, command, flags):
    assert command in commands(), f"README row {row!r}: no command {command!r}"
    missing = [flag for flag in flags if not accepts(command, flag)]
    assert not missing, f"README row {row!r}: companion {command} has no {missing}"


def test_every_command_is_in_the_table():
    documented = {command for _, command, _ in documented_uses()}
    assert set(commands()) <= documented, set(commands()) - documented


def test_every_command_takes_config_as_the_readme_says():
    assert "Every command takes `--config PATH`" in README.read_text(encoding="utf-8")
    refusing = [command for command in commands() if not accepts(command, "--config")]
    assert not refusing


def test_a_config_given_to_a_command_that_needs_none_is_still_checked(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[idle]\nshift_every = nan\n")
    done = companion("shuffle", "--cards", "10", "--piles", "2", "--config", str(bad))
    assert done.returncode == 78 and "idle.shift_every" in done.stderr
    good = tmp_path / "good.toml"
    good.write_text("[idle]\nshift_every = 0\n")
    done = companion("shuffle", "--cards", "10", "--piles", "2", "--config", str(good))
    assert done.returncode == 0, done.stderr


def test_the_readme_says_where_the_simulator_keeps_its_games():
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Command line\n", 1)[1].split("\n## ", 1)[0]
    assert "~/.local/share/companion" in section and "[state] dir" in section
