"""``companion replay``: options, start lines, exit statuses, and the documented example."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from companion.commands.replay import replay_main
from companion.games.final_count import FinalCount
from companion.jsonlines import parse_option

DOC = Path(__file__).resolve().parent.parent / "docs" / "events.md"


def example_log(game: str = "final-count") -> str:
    """The jsonl block under "### Example game" in the game's section of docs/events.md."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n## {game}\n", 1)[1].split("\n## ", 1)[0]
    example = section.split("### Example game", 1)[1]
    found = re.search(r"```jsonl\n(.*?)```", example, re.S)
    assert found, "no ```jsonl block in the example"
    return found.group(1)


def run(tmp_path: Path, log: str, *, game="final-count", players=None, options=()):
    path = tmp_path / "log.jsonl"
    path.write_text(log, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    status = replay_main(game, players, list(options), str(path), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def lines(*events: dict) -> str:
    return "".join(json.dumps(event) + "\n" for event in events)


START = {"type": "start", "players": ["Ann", "Bob"], "options": {"hit_goal": False}}
CALL = {"type": "call", "player": "Ann"}
ROLL = {"type": "roll", "player": "Bob", "value": 5}


# -- parse_option ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("hit_goal=true", ("hit_goal", True)),
        ("hit_goal=False", ("hit_goal", False)),
        ("target=250", ("target", 250)),
        ("offset=-3", ("offset", -3)),
        ("prizes=[1, 2, 3]", ("prizes", [1, 2, 3])),
        ('name="x y"', ("name", "x y")),
        ('deck={"wild": 3}', ("deck", {"wild": 3})),
        ("profile=standard", ("profile", "standard")),
        (" mode = fast ", ("mode", "fast")),
        ("eq=a=b", ("eq", "a=b")),
    ],
)
def test_parse_option(text: str, parsed: tuple) -> None:
    assert parse_option(text) == parsed


@pytest.mark.parametrize("text", ["hit_goal", "=true", "prizes=[1, 2", ""])
def test_parse_option_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_option(text)


# -- the documented example ------------------------------------------------------------------


def test_the_example_in_the_docs_replays_to_the_end(tmp_path: Path) -> None:
    log = example_log()
    status, out, err = run(tmp_path, log)
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert result["over"] is True
    assert result["totals"] == {"Ann": 309, "Bob": 85}
    assert result["winners"] == ["Ann"]
    assert [hand["winners"] for hand in result["hands"]] == [["Ann"], ["Ann"], ["Bob"]] + [
        ["Ann"],
        ["Ann"],
    ]
    # and the same events applied one by one give the same result
    events = [json.loads(line) for line in log.splitlines() if line.strip()]
    match = FinalCount(events[0]["players"], events[0]["options"])
    for event in events[1:]:
        match.apply(event)
    assert match.result() == result


def test_the_result_json_in_the_docs_matches_the_first_hand(tmp_path: Path) -> None:
    section = DOC.read_text(encoding="utf-8").split("\n## final-count\n", 1)[1]
    shown = json.loads(re.search(r"```json\n(\{\n.*?)```", section, re.S).group(1))
    status, out, _ = run(tmp_path, example_log())
    result = json.loads(out)
    assert status == 0
    assert shown["hands"][0] == result["hands"][0]
    assert {k: v for k, v in shown.items() if k != "hands"} == {
        k: v for k, v in result.items() if k != "hands"
    }


# -- players and options -----------------------------------------------------------------------


def test_players_from_the_command_line(tmp_path: Path) -> None:
    status, out, err = run(tmp_path, lines(CALL, ROLL), players="Ann,Bob")
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert set(result) >= {"over", "totals", "winners", "hands"}
    assert result["over"] is False and result["totals"] == {"Ann": 0, "Bob": 0}
    assert out.count("\n") == 1  # one JSON object


def test_players_given_both_ways_must_agree(tmp_path: Path) -> None:
    assert run(tmp_path, lines(START, CALL), players="Ann,Bob")[0] == 0
    status, out, err = run(tmp_path, lines(START, CALL), players="Bob,Ann")
    assert (status, out) == (2, "")
    assert "disagrees with line 1" in err and err.count("\n") == 1


def test_options_from_the_command_line_and_the_start_line(tmp_path: Path) -> None:
    goal = {"type": "goal", "rolls": [6, 4]}
    status, out, _ = run(tmp_path, lines(goal), players="Ann,Bob", options=["hit_goal=true"])
    assert status == 0
    start = {"type": "start", "players": ["Ann", "Bob"], "options": {"hit_goal": True}}
    assert run(tmp_path, lines(start, goal))[0] == 0
    assert run(tmp_path, lines(start, goal), options=["hit_goal=true"])[0] == 0
    status, _, err = run(tmp_path, lines(start, goal), options=["hit_goal=false"])
    assert status == 2 and "--option hit_goal=false disagrees with line 1" in err


def test_no_players_at_all_is_a_usage_error(tmp_path: Path) -> None:
    status, _, err = run(tmp_path, lines(CALL))
    assert status == 2 and "--players" in err


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"game": "poker"}, 'no game "poker"'),
        ({"game": "not-built-yet"}, "coming soon"),
        ({"options": ["hit_goal"]}, "NAME=VALUE"),
        ({"options": ["jokers=2"]}, 'unknown option "jokers"'),
        ({"options": ["hit_goal=3"]}, "true or false"),
        ({"players": "Ann"}, "2 to 4 players"),
        ({"players": "Ann,Ann"}, "same name"),
    ],
)
def test_usage_problems_exit_2_with_one_line(tmp_path: Path, kwargs, message,
                                             monkeypatch) -> None:
    import companion.games as registry

    unbuilt = registry.GameInfo("not-built-yet", "Not Built", "companion.games.not_built",
                                "companion.ui.not_built")
    monkeypatch.setattr(registry, "GAMES", [*registry.GAMES, unbuilt])
    kwargs.setdefault("players", "Ann,Bob")
    status, out, err = run(tmp_path, lines(CALL), **kwargs)
    assert (status, out) == (2, "")
    assert message in err and err.count("\n") == 1


def test_missing_file_exits_2(tmp_path: Path) -> None:
    err = io.StringIO()
    status = replay_main("final-count", "Ann,Bob", [], str(tmp_path / "nope.jsonl"), err=err)
    assert status == 2 and "cannot read" in err.getvalue()


def test_bad_players_on_the_start_line_name_the_line(tmp_path: Path) -> None:
    start = {"type": "start", "players": ["Ann"]}
    status, _, err = run(tmp_path, "\n" + lines(start))
    assert status == 2 and err.startswith("line 2: ")


# -- refused and malformed lines -------------------------------------------------------------


def test_a_refused_event_names_its_line_counting_blank_lines(tmp_path: Path) -> None:
    log = lines(START) + "\n\n" + lines(CALL, {"type": "roll", "player": "Ann", "value": 3})
    status, out, err = run(tmp_path, log)
    assert (status, out) == (1, "")
    assert err == "line 5: it is Bob's turn, not Ann's\n"


@pytest.mark.parametrize(
    "bad, message",
    [
        ("{not json", "line 2: not JSON"),
        ("[1, 2]", "line 2: an event is a JSON object"),
        ('{"type": "roll", "player": "Bob", "value": 9}', "line 2: a die shows 1 to 6, not 9"),
        ('{"type": "start", "players": ["Ann", "Bob"]}', "line 2: a start line can only be"),
        ('{"value": 3}', 'line 2: an event needs a "type"'),
    ],
)
def test_malformed_lines_exit_1(tmp_path: Path, bad: str, message: str) -> None:
    status, out, err = run(tmp_path, lines(CALL) + bad + "\n", players="Ann,Bob")
    assert (status, out) == (1, "")
    assert err.startswith(message) and err.count("\n") == 1


def test_a_bad_start_line_exits_1(tmp_path: Path) -> None:
    status, _, err = run(tmp_path, '{"type": "start", "players": "Ann,Bob"}\n')
    assert status == 1 and err.startswith("line 1: ")
    status, _, err = run(tmp_path, '{"type": "start", "players": ["Ann", "Bob"], "x": 1}\n')
    assert status == 1 and 'no field "x"' in err


def test_a_start_line_for_another_game_is_refused(tmp_path: Path) -> None:
    start = {"type": "start", "game": "card-down", "players": ["Ann", "Bob"]}
    status, _, err = run(tmp_path, lines(start))
    assert status == 2 and "card-down" in err


def test_an_empty_log_is_a_fresh_game(tmp_path: Path) -> None:
    status, out, _ = run(tmp_path, "\n\n", players="Ann,Bob,Cy")
    assert status == 0
    assert json.loads(out)["totals"] == {"Ann": 0, "Bob": 0, "Cy": 0}


def test_every_state_key_is_documented() -> None:
    section = DOC.read_text(encoding="utf-8").split("\n## final-count\n", 1)[1]
    documented = set(re.findall(r"^\| `(\w+)`", section, re.M))
    documented |= {key for row in re.findall(r"^\| `(\w+)`, `(\w+)`", section, re.M) for key in row}
    match = FinalCount(["Ann", "Bob"])
    result_keys = set(match.result())
    assert set(match.state()) - result_keys <= documented
    assert {"over", "totals", "winners", "hands"} <= result_keys


def test_the_log_can_come_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(lines(START, CALL)))
    out = io.StringIO()
    assert replay_main("final-count", None, [], "-", out=out, err=io.StringIO()) == 0
    assert json.loads(out.getvalue())["players"] == ["Ann", "Bob"]
