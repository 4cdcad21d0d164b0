"""``companion export``: JSON lines that replay, a score sheet, one clear line on error."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion import games
from companion.commands.export import export_main
from companion.errors import IllegalEvent
from companion.jsonlines import without_time
from companion.store import SCHEMA_VERSION, Store

REPO = Path(__file__).resolve().parents[1]


def clock() -> float:
    return 1_700_000_000.0


def run(state_dir: Path, match: str, fmt: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = export_main(str(state_dir), match, fmt, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


EVENTS = [
    {"type": "roll", "player": "Ann", "value": 3},
    {"type": "call", "player": "Zoë"},
    {"type": "hand", "player": "Ann", "cards": ["A", "K", "9"]},
]
TOTALS = {"Ann": 310, "Zoë": 120}


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """A log with a finished match (1) and one in progress (2)."""
    with Store.in_dir(tmp_path, clock=clock) as s:
        done = s.new_match("final-count", ["Ann", "Zoë"], {"hit_goal": True})
        for event in EVENTS:
            s.append(done, event)
        s.finish(done, {"over": True, "totals": TOTALS, "winners": ["Ann"]})
        going = s.new_match("final-count", ["Ann", "Bob", "Cy"], {})
        s.append(going, {"type": "roll", "player": "Ann", "value": 6})
    return tmp_path


class Fake:
    """What games.replay returns: something with result()."""

    def __init__(self, result: dict[str, Any]):
        self._result = result

    def result(self) -> dict[str, Any]:
        return self._result


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch):
    """Make games.replay return a given result, recording what it was called with."""
    calls: list[tuple] = []

    def install(result: dict[str, Any] | Exception) -> list[tuple]:
        def fake_replay(game_id, players, options, events):
            calls.append((game_id, tuple(players), options, list(events)))
            if isinstance(result, Exception):
                raise result
            return Fake(result)

        monkeypatch.setattr(games, "replay", fake_replay)
        return calls

    return install


# -- jsonl ------------------------------------------------------------------------------


def test_jsonl_is_a_start_line_then_the_events(state: Path) -> None:
    status, out, err = run(state, "1", "jsonl")
    assert (status, err) == (0, "")
    lines = [json.loads(line) for line in out.splitlines()]
    uid = lines[0].pop("uid")
    assert len(uid) == 32
    assert lines[0] == {
        "type": "start",
        "game": "final-count",
        "players": ["Ann", "Zoë"],
        "options": {"hit_goal": True},
        "started": clock(),
        "finished": clock(),
    }
    # Each event line says when it was stored; the event is the rest of the line.
    assert lines[1:] == [{**event, "at": clock()} for event in EVENTS]
    assert "Zoë" in out  # readable, not \\u-escaped
    assert out.endswith("}\n") and len(out.splitlines()) == 4


def test_jsonl_by_current_and_last(state: Path) -> None:
    status, out, _ = run(state, "current", "jsonl")
    assert status == 0 and json.loads(out.splitlines()[0])["players"] == ["Ann", "Bob", "Cy"]
    status, out, _ = run(state, "last", "jsonl")
    assert status == 0 and json.loads(out.splitlines()[0])["players"] == ["Ann", "Zoë"]


def test_jsonl_replays_to_the_same_log(state: Path, engine) -> None:
    """The exported file carries everything replay needs: game, players, options, events."""
    calls = engine({"totals": TOTALS, "winners": ["Ann"]})
    _, out, _ = run(state, "1", "jsonl")
    start, *events = [json.loads(line) for line in out.splitlines()]
    games.replay(start["game"], start["players"], start["options"],
                 [without_time(event) for event in events])
    assert calls == [("final-count", ("Ann", "Zoë"), {"hit_goal": True}, EVENTS)]


# -- csv --------------------------------------------------------------------------------


def test_csv_rows_per_hand_from_the_replayed_result(state: Path, engine) -> None:
    calls = engine(
        {
            "over": True,
            "totals": {"Ann": 310, "Zoë": 120},
            "winners": ["Ann"],
            "hands": [
                {"points": {"Ann": 75, "Zoë": 0}, "winners": ["Ann"]},
                {"points": {"Ann": 0, "Zoë": 120}},
                {"points": {"Ann": 235}},  # a player missing from a hand: empty cell
            ],
        }
    )
    status, out, err = run(state, "last", "csv")
    assert (status, err) == (0, "")
    assert out == "hand,Ann,Zoë\n1,75,0\n2,0,120\n3,235,\ntotal,310,120\n"
    assert calls[0][0] == "final-count" and calls[0][3] == EVENTS


def test_csv_reads_per_player_hand_records(state: Path, engine) -> None:
    engine(
        {
            "totals": {"Ann": 75, "Zoë": 10},
            "hands": [
                {"hand": 1, "players": {"Ann": {"points": 75, "total": 64}, "Zoë": {"points": 0}}},
                {"hand": 2, "players": {"Ann": {"points": 0}, "Zoë": {"points": 10}}},
            ],
        }
    )
    assert run(state, "1", "csv")[1] == "hand,Ann,Zoë\n1,75,0\n2,0,10\ntotal,75,10\n"


FINAL_COUNT_TWO_HANDS = [
    {"type": "goal", "rolls": [4, 6]},
    {"type": "roll", "player": "Ann", "value": 1},
    {"type": "roll", "player": "Bob", "value": 3},
    {"type": "roll", "player": "Ann", "value": 5},
    {"type": "call", "player": "Ann"},
    {"type": "roll", "player": "Bob", "value": 2},
    {"type": "board", "cards": ["K", "9", "7"]},
    {"type": "hand", "player": "Bob", "cards": ["K", "Q", "5"]},
    {"type": "hand", "player": "Ann", "cards": ["Q", "J", "9", "9"]},
    {"type": "goal", "rolls": [2, 5]},
    {"type": "roll", "player": "Bob", "value": 4},
    {"type": "roll", "player": "Ann", "value": 6},
    {"type": "call", "player": "Bob"},
    {"type": "roll", "player": "Ann", "value": 3},
    {"type": "board", "cards": ["A", "10", "8"]},
    {"type": "hand", "player": "Ann", "cards": ["K", "Q", "5"]},
    {"type": "hand", "player": "Bob", "cards": ["9", "9", "6"]},
]


def test_csv_from_the_real_final_count_engine(tmp_path: Path) -> None:
    """End to end: the log replayed through the engine (docs/events.md, first two hands).

    Hand 1: Ann hits the goal 64 (75 points). Hand 2: Ann's 54 beats Bob's 53 and Bob
    called, so Ann gets 54 + 10.
    """
    if not games.available("final-count"):
        pytest.skip("the Final Count engine is not built")
    with Store.in_dir(tmp_path, clock=clock) as s:
        mid = s.new_match("final-count", ["Ann", "Bob"], {"hit_goal": True})
        for event in FINAL_COUNT_TWO_HANDS:
            s.append(mid, event)
    assert run(tmp_path, "current", "csv") == (
        0,
        "hand,Ann,Bob\n1,75,0\n2,64,0\ntotal,139,0\n",
        "",
    )


def test_jsonl_is_what_companion_replay_reads(tmp_path: Path) -> None:
    replay = pytest.importorskip("companion.commands.replay")
    if not games.available("final-count"):
        pytest.skip("the Final Count engine is not built")
    with Store.in_dir(tmp_path / "state", clock=clock) as s:
        mid = s.new_match("final-count", ["Ann", "Bob"], {"hit_goal": True})
        for event in FINAL_COUNT_TWO_HANDS:
            s.append(mid, event)
    status, exported, _ = run(tmp_path / "state", "current", "jsonl")
    log = tmp_path / "log.jsonl"
    log.write_text(exported, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert replay.replay_main("final-count", None, [], str(log), out=out, err=err) == 0, err
    assert json.loads(out.getvalue())["totals"] == {"Ann": 139, "Bob": 0}


def test_csv_hands_without_points_give_just_totals(state: Path, engine) -> None:
    engine({"totals": {"Ann": 5, "Zoë": 7}, "hands": [{"Ann": 5}, {"points": {"Zoë": 7}}]})
    assert run(state, "1", "csv") == (0, "hand,Ann,Zoë\ntotal,5,7\n", "")


def test_csv_totals_summed_from_hands_when_missing(state: Path, engine) -> None:
    engine({"hands": [{"points": {"Ann": 5, "Zoë": 1}}, {"points": {"Ann": 2, "Zoë": 3}}]})
    assert run(state, "1", "csv")[1] == "hand,Ann,Zoë\n1,5,1\n2,2,3\ntotal,7,4\n"


@pytest.mark.parametrize("failure", [IllegalEvent("bad"), ModuleNotFoundError("x"), KeyError(1)])
def test_csv_falls_back_to_the_saved_result(state: Path, engine, failure: Exception) -> None:
    engine(failure)  # engine not built yet, or refuses/crashes on the log
    assert run(state, "1", "csv") == (0, "hand,Ann,Zoë\ntotal,310,120\n", "")


def test_csv_without_any_scores_is_an_error(state: Path, engine) -> None:
    engine(IllegalEvent("bad"))
    status, out, err = run(state, "current", "csv")  # unfinished: no saved result either
    assert (status, out) == (1, "")
    assert err == "companion export: match 2 has no scores to export\n"


def test_csv_quotes_awkward_names(tmp_path: Path, engine) -> None:
    engine({"totals": {'Ann "A"': 1, "Bo b": 2}})
    with Store.in_dir(tmp_path) as s:
        s.new_match("final-count", ['Ann "A"', "Bo b"], {})
    assert run(tmp_path, "1", "csv")[1] == 'hand,"Ann ""A""",Bo b\ntotal,1,2\n'


# -- errors: one line, exit 1, nothing created ---------------------------------------------


def one_error_line(result: tuple[int, str, str], status: int = 1) -> str:
    got_status, out, err = result
    assert got_status == status and out == ""
    assert err.count("\n") == 1 and err.startswith("companion export: ")
    return err


def test_no_directory(tmp_path: Path) -> None:
    err = one_error_line(run(tmp_path / "nope", "last", "jsonl"))
    assert "no state directory" in err
    assert not (tmp_path / "nope").exists()


def test_empty_directory_creates_nothing(tmp_path: Path) -> None:
    err = one_error_line(run(tmp_path, "last", "csv"))
    assert "no game log" in err
    assert list(tmp_path.iterdir()) == []


def test_unknown_or_bad_match(state: Path) -> None:
    assert "no match 9" in one_error_line(run(state, "9", "jsonl"))
    assert "'current', 'last' or a number" in one_error_line(run(state, "first", "jsonl"))


def test_nothing_in_progress_or_finished(tmp_path: Path) -> None:
    Store.in_dir(tmp_path).close()
    assert "no match in progress" in one_error_line(run(tmp_path, "current", "jsonl"))
    assert "no finished match" in one_error_line(run(tmp_path, "last", "jsonl"))


def test_bad_format(state: Path) -> None:
    assert "unknown format 'xml'" in one_error_line(run(state, "1", "xml"), status=2)


def test_damaged_newer_and_empty_logs(tmp_path: Path) -> None:
    path = tmp_path / "companion.db"
    path.write_bytes(b"not a database at all" * 50)
    assert "damaged" in one_error_line(run(tmp_path, "last", "jsonl"))
    path.unlink()
    with Store.in_dir(tmp_path):
        pass
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    assert "newer version" in one_error_line(run(tmp_path, "last", "jsonl"))
    path.unlink()
    path.write_bytes(b"")
    assert "empty" in one_error_line(run(tmp_path, "last", "jsonl"))
    assert path.read_bytes() == b""  # opened read-only: still not a database


def test_export_never_writes_to_the_log(state: Path) -> None:
    path = state / "companion.db"
    before = path.read_bytes()
    assert run(state, "1", "jsonl")[0] == 0
    assert run(state, "1", "csv")[0] == 0
    assert path.read_bytes() == before


def test_default_streams_are_looked_up_at_call_time(state: Path, capsys) -> None:
    assert export_main(str(state), "1", "jsonl") == 0
    assert export_main(str(state), "77", "jsonl") == 1
    captured = capsys.readouterr()
    assert captured.out.startswith('{"type": "start"')
    assert captured.err == "companion export: no match 77\n"


class Broken(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_output_is_one_line_not_a_traceback(state: Path) -> None:
    err = io.StringIO()
    assert export_main(str(state), "1", "jsonl", out=Broken(), err=err) == 1
    assert err.getvalue() == "companion export: cannot write the export: Broken pipe\n"


# -- while the device plays ---------------------------------------------------------------


def test_export_in_another_process_while_the_store_is_open(tmp_path: Path) -> None:
    with Store.in_dir(tmp_path, clock=clock) as s:
        mid = s.new_match("final-count", ["Ann", "Bob"], {})
        s.append(mid, {"type": "roll", "player": "Ann", "value": 2})
        code = (
            "import sys; from companion.commands.export import export_main;"
            f" sys.exit(export_main({str(tmp_path)!r}, 'current', 'jsonl'))"
        )
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert [json.loads(line)["type"] for line in done.stdout.splitlines()] == ["start", "roll"]
        # ...and the app goes on writing afterwards.
        assert s.append(mid, {"type": "call", "player": "Bob"}) == 2


def test_every_line_read_as_json_uses_one_decoder(monkeypatch):
    """An import reads an export line by line through load_json: with json.loads and its
    hooks each line built a JSONDecoder of its own. The rules stay the same."""
    import json

    from companion.errors import NotStrictJson, TypedNumber
    from companion.jsonlines import load_json

    load_json("{}")  # the decoder, made once
    made = []
    real_init = json.JSONDecoder.__init__

    def counted(self, *args, **kw):
        made.append(kw)
        real_init(self, *args, **kw)

    monkeypatch.setattr(json.JSONDecoder, "__init__", counted)
    for number in range(50):
        assert load_json(f'{{"type": "points", "at": {number}.5}}')["at"] == number + 0.5
    assert made == []
    with pytest.raises(NotStrictJson):
        load_json('{"value": 6, "value": 5}')
    with pytest.raises(NotStrictJson):
        load_json("NaN")
    assert isinstance(load_json("[1e999]")[0], TypedNumber)  # its digits kept
