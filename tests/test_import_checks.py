"""``companion import`` trusts no file (issue 21, items 2-4): times that cannot be are
refused (and a whole number of hundreds of digits is a refusal, not a traceback), a
match whose uid was edited is still the same match (refused, counted once by
``stats``), and a long history goes in with flat memory, an error line never echoing
a huge field back."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from companion_cli import companion
from test_import import Ticks, export_all, play_scoreboard, run_import

from companion.bench.device import IMPORT_RUN, big_export
from companion.commands.importer import LINE_MAX, import_text
from companion.errors import ImportRefused
from companion.stats import figures
from companion.store import Store

NOW = 1_700_000_000.0


@pytest.fixture
def one_match(tmp_path: Path) -> list[dict]:
    """The lines of an export of one finished scoreboard game, as JSON objects."""
    state = tmp_path / "source"
    with Store.in_dir(state, clock=Ticks()) as store:
        play_scoreboard(store, random.Random(3), ["Ann", "Bob"])
    return [json.loads(line) for line in export_all(state).splitlines()]


def text_of(lines: list[dict]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def edited(lines: list[dict], line: int, **changes) -> list[dict]:
    return [{**value, **changes} if number == line else value
            for number, value in enumerate(lines, 1)]


HUGE = 10 ** 320  # a whole number of 321 digits: float() of it overflows


@pytest.mark.parametrize("line, changes, message", [
    (1, {"finished": NOW - 1e6}, 'line 1: "finished" is before "started"'),
    (1, {"started": 0}, 'line 1: "started" is before 2000'),
    (1, {"started": 0.0, "finished": 10.0}, 'line 1: "started" is before 2000'),
    (1, {"finished": 1e15}, 'line 1: "finished" is more than a day ahead'),  # year 31 million
    (1, {"started": HUGE}, 'line 1: "started" is more than a day ahead'),
    (1, {"finished": HUGE}, 'line 1: "finished" is more than a day ahead'),
    (1, {"started": -HUGE}, 'line 1: "started" is before 2000'),
    (3, {"at": HUGE}, 'line 3: "at" is more than a day ahead'),
    (2, {"at": NOW - 1e6}, 'line 2: "at" is before it started (outside its match)'),
    (3, {"at": NOW + 1e5}, 'line 3: "at" is more than a day ahead'),
    (4, {"at": NOW + 3600}, 'line 4: "at" is after it finished (outside its match)'),
])
def test_impossible_times_are_refused_with_the_line(one_match, tmp_path, line, changes,
                                                     message) -> None:
    start = one_match[0]
    assert NOW < start["started"] < start["finished"] < NOW + 1000  # the Ticks clock
    with Store.in_dir(tmp_path / "state") as store:
        with pytest.raises(ImportRefused) as refused:
            import_text(store, text_of(edited(one_match, line, **changes)),
                        lambda line: None, now=NOW + 1000)  # this device's clock
        assert message in str(refused.value)
        assert store.history(limit=10) == []


def test_a_huge_whole_number_is_one_line_from_the_command_line(one_match, tmp_path) -> None:
    """Through the real command: no OverflowError traceback, one line, exit 1."""
    for key, line in (("started", 1), ("finished", 1), ("at", 2)):
        source = tmp_path / f"{key}.jsonl"
        source.write_text(text_of(edited(one_match, line, **{key: HUGE})))
        done = companion("import", str(source), "--state-dir", str(tmp_path / "state"))
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert f'"{key}" is more than a day ahead' in done.stderr
        assert done.stderr.count("\n") == 1


def test_a_match_with_its_uid_edited_is_the_same_match(one_match, tmp_path) -> None:
    state = tmp_path / "state"
    status, out, _ = run_import(state, text_of(one_match), tmp_path)
    assert status == 0 and "stored as match 1" in out
    relabelled = edited(one_match, 1, uid="0123456789abcdef0123456789abcdef")
    status, out, err = run_import(state, text_of(relabelled), tmp_path)
    assert status == 1
    assert "line 1: not imported: this match is stored already (as match 1)" in out
    # Without any uid, and from another club table: still the same game.
    unlabelled = [{k: v for k, v in one_match[0].items() if k != "uid"} | {"origin": "t9"},
                  *one_match[1:]]
    assert run_import(state, text_of(unlabelled), tmp_path)[0] == 1
    with Store.in_dir(state) as store:
        assert len(store.history(limit=10)) == 1
        counted = figures(store)
        assert counted["plays"] == 1 and counted["players"]["Ann"]["plays"] == 1


def test_the_same_game_twice_in_one_file_is_stored_once(one_match, tmp_path) -> None:
    twice = [*one_match, *edited(one_match, 1, uid="another-label")]
    status, out, _ = run_import(tmp_path / "state", text_of(twice), tmp_path)
    assert status == 1 and "stored as match 1" in out
    assert f"line {len(one_match) + 1}: not imported: this match is stored already" in out


def test_a_game_that_differs_in_anything_is_a_different_game(one_match, tmp_path) -> None:
    state = tmp_path / "state"
    assert run_import(state, text_of(one_match), tmp_path)[0] == 0
    last_at = one_match[-1]["at"]
    variants = [
        edited(one_match, 1, uid="b1", started=one_match[0]["started"] - 1),
        edited(one_match, 1, uid="b2", finished=one_match[0]["finished"] + 1),
        edited(edited(one_match, len(one_match), at=last_at - 0.5), 1, uid="b3"),
        edited(edited(one_match, 1, uid="b4"), 2, points=one_match[1]["points"] + 1),
    ]
    for variant in variants:
        status, out, err = run_import(state, text_of(variant), tmp_path)
        assert status == 0, err
    with Store.in_dir(state) as store:
        assert len(store.history(limit=10)) == 5


def test_an_error_line_never_echoes_a_huge_field(one_match, tmp_path) -> None:
    long_name = "A" * 500_000  # under the line cap: refused by the name rule, cut
    status, _, err = run_import(tmp_path / "s1", text_of(edited(one_match, 1, players=[
        long_name, "Bob"])), tmp_path)
    assert status == 1 and err.count("\n") == 1 and len(err) < 400, err[:400]
    huge_uid = "u" * (LINE_MAX + 10)  # past the line cap: refused before it is parsed
    status, _, err = run_import(tmp_path / "s2", text_of(edited(one_match, 1, uid=huge_uid)),
                                tmp_path)
    assert status == 1 and err.count("\n") == 1 and len(err) < 400
    assert "line 1: longer than" in err


def test_a_large_export_imports_in_flat_memory(tmp_path) -> None:
    """An 8 MB export (about 8,000 matches) in a fresh interpreter: the peak resident
    memory grows by less than 64 MB (holding the whole file and every match at once
    took about 14 times the file's size). ``companion bench`` measures 50 MB."""
    export = tmp_path / "big.jsonl"
    matches = big_export(export, 8)
    done = subprocess.run([sys.executable, "-c", IMPORT_RUN, str(tmp_path / "state"),
                           str(export)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert run["status"] == 0
    growth_mb = (run["after_kb"] - run["before_kb"]) / 1024
    assert growth_mb <= 64, f"peak memory grew by {growth_mb:.0f} MB"
    with Store.in_dir(tmp_path / "state") as store:
        assert store.finished_mark()[0] == matches


def test_standard_input_and_a_pipe_are_read_twice_from_a_copy(one_match, tmp_path) -> None:
    """``-`` (standard input) and a pipe cannot be read twice: they are copied once into
    the state directory, under the same line cap, and imported from there."""
    import os

    text = text_of(one_match)
    state = tmp_path / "state"
    done = subprocess.run([sys.executable, "-m", "companion", "import", "-", "--state-dir",
                           str(state)], input=text, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "stored as match 1" in done.stdout, done.stderr
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f'cat > "{fifo}"'], stdin=subprocess.PIPE,
                              text=True)
    writer.stdin.write(text_of(edited(one_match, 1, uid="from-a-pipe",
                                      started=one_match[0]["started"] - 5)))
    writer.stdin.close()
    done = companion("import", str(fifo), "--state-dir", str(tmp_path / "other"))
    writer.wait(timeout=60)
    assert done.returncode == 0 and "stored as match 1" in done.stdout, done.stderr
    assert list(state.iterdir()) and not [p for p in state.iterdir() if p.name.startswith("tmp")]


def test_the_import_benchmark_measures_a_real_import() -> None:
    from companion.bench.device import import_memory

    measured = import_memory(0.2)  # reported by `companion bench`, never asserted on speed
    assert measured["matches"] > 100 and 0.19 < measured["export_mb"] < 0.25
    assert measured["import_s"] > 0 and measured["rss_growth_mb"] >= 0
