"""The README's test command is the one CI runs, and it ends with pytest's summary line
(issue 40.6): with "-q" in pyproject's addopts, a "-q" added on the command line made two
and hid "N passed in ...". Run here on one small test file, in the README's form and
with the "-q" and "-x -q" a developer adds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: A quick, self-contained test file to run the README's command on.
SMALL = "tests/test_written.py"


def readme_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("**Run the tests:**", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    (line,) = block.strip().splitlines()
    return line


def test_ci_runs_the_readme_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == readme_command()


@pytest.mark.parametrize("added", [[], ["-x", "-q"]])
def test_the_readme_command_ends_with_the_summary_line(added: list[str]):
    pytest_part = readme_command().split("&&")[-1].split()
    assert pytest_part[:3] == [".venv/bin/python", "-m", "pytest"], pytest_part
    # The repository's settings only, not this shell's (PYTEST_ADDOPTS).
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}
    done = subprocess.run([sys.executable, *pytest_part[1:], *added, "-p", "no:cacheprovider",
                           SMALL], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"=* ?\d+ passed in [\d.]+s ?=*", last), done.stdout
