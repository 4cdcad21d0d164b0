"""The design lives in the project (issue 40.1): docs/design.md holds every target
``companion bench`` holds its figures against, with the same numbers as
companion/bench/targets.py, and no file of the repository points to a design document
that is not in it."""

from __future__ import annotations

import os
from pathlib import Path

from companion.bench.targets import CLUB, CLUB_RESTART, DEVICE

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
#: The steering document this project once pointed to, outside the repository (spelt
#: in two parts so that this file does not name it either).
OUTSIDE = ("DESIGN" + ".md").encode()
#: Which command measures each tuple of targets, as the table's first column says.
COMMANDS = {"companion bench": DEVICE, "companion bench --club": CLUB,
            "companion bench --club --finished N": CLUB_RESTART}
#: Folders that are not the project's files: git's, caches, what a build makes. The
#: project's own dot-files (.ci/run, .gitignore) are its files and are read.
NOT_OURS = {".git", ".hypothesis", ".pytest_cache", ".ruff_cache", ".mypy_cache",
            "__pycache__", "node_modules", "build", "dist"}


def repository_files(root: Path = ROOT) -> list[Path]:
    files = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [name for name in subfolders if name not in NOT_OURS
                         and not name.endswith(".egg-info")
                         and not (Path(folder) / name / "pyvenv.cfg").exists()]  # a venv
        files += [Path(folder) / name for name in names]
    return files


def design_table(path: Path = DESIGN) -> list[tuple[str, str, str]]:
    """(command, figure, target) of each row of docs/design.md's targets table."""
    section = path.read_text(encoding="utf-8").split("\n## Targets\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and cells[1].startswith("`"):
            rows.append((cells[0].strip("`"), cells[1].strip("`"), cells[2]))
    return rows


def test_no_file_names_a_design_document_outside_the_repository():
    naming = [path.relative_to(ROOT).as_posix() for path in repository_files()
              if OUTSIDE in path.read_bytes()]
    assert naming == []
    assert (ROOT / "docs" / "design.md").is_file()


def test_the_projects_dot_files_are_read_and_environments_are_not(tmp_path: Path):
    """CI's script (.ci/run) is the project's as much as the README: a file there naming
    the outside document is found; a virtual environment's files, whatever its name,
    are not the project's."""
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "run").write_bytes(b"# targets: see " + OUTSIDE + b"\n")
    (tmp_path / "env" / "lib").mkdir(parents=True)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "env" / "lib" / "theirs.py").write_text("x = 1\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    found = {path.relative_to(tmp_path).as_posix() for path in repository_files(tmp_path)}
    assert found == {".ci/run"}


def test_the_design_lists_every_target_the_bench_holds_with_its_number():
    listed = design_table()
    assert len(listed) >= 20
    held = [(command, target.figure, target.shown())
            for command, targets in COMMANDS.items() for target in targets]
    assert sorted(listed) == sorted(held)
    assert len(set(listed)) == len(listed), "a target is listed twice"


def test_the_design_says_what_each_workload_is():
    """The amounts the targets are for are said in words beside the table."""
    text = " ".join(DESIGN.read_text(encoding="utf-8").split())
    for target in (*DEVICE, *CLUB, *CLUB_RESTART):
        if target.size is not None:
            key, amount = target.size
            assert f"`{key}` {amount:,}" in text, (key, amount)


def test_a_number_that_drifts_in_the_design_is_caught(tmp_path: Path):
    drifted = tmp_path / "design.md"
    drifted.write_text(DESIGN.read_text(encoding="utf-8").replace(
        "| `stats.stats_s` | <= 1 s |", "| `stats.stats_s` | <= 2 s |"), encoding="utf-8")
    assert ("companion bench", "stats.stats_s", "<= 2 s") in design_table(drifted)
    assert sorted(design_table(drifted)) != sorted(design_table())
