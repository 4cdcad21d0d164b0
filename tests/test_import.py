"""``companion import``: an export goes back in whole (times, uid, roster) or not at all;
export --all then import gives a fresh device the same figures."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import cli
from companion.commands.export import export_main
from companion.commands.importer import import_main, import_text, read_export
from companion.commands.replay import replay_main
from companion.errors import ImportRefused
from companion.games import replay
from companion.stats import figures
from companion.store import Store


class Ticks:
    """A clock that moves 7 seconds at every reading."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 7
        return self.now


def scoreboard_events(rnd: random.Random, players: list[str], rounds: int) -> list[dict]:
    events = [{"type": "points", "player": name, "points": rnd.randint(-5, 30)}
              for _ in range(rounds) for name in players]
    return [*events, {"type": "end"}]


def play_scoreboard(store: Store, rnd: random.Random, players: list[str], *,
                    low_wins: bool = False, rounds: int = 2, finish: bool = True) -> int:
    """A real scoreboard game through the engine, stored as the device stores it."""
    options = {"low_wins": low_wins}
    mid = store.new_match("scoreboard", players, options)
    events = scoreboard_events(rnd, players, rounds)
    for event in events if finish else events[:-1]:
        store.append(mid, event)
    if finish:
        store.finish(mid, replay("scoreboard", players, options, events).result())
    return mid


def export_all(state: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert export_main(str(state), "last", "jsonl", out=out, err=err, every=True) == 0, err
    return out.getvalue()


def run_import(state: Path, text: str, tmp_path: Path) -> tuple[int, str, str]:
    source = tmp_path / "in.jsonl"
    source.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    status = import_main(str(state), str(source), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A device with two finished games, one abandoned and one in progress."""
    state = tmp_path / "a"
    rnd = random.Random(5)
    with Store.in_dir(state, clock=Ticks()) as store:
        play_scoreboard(store, rnd, ["Ann", "Bob", "Zoë"])
        play_scoreboard(store, rnd, ["Bob", "Cy"], low_wins=True)
        store.abandon(play_scoreboard(store, rnd, ["Ann", "Cy"], finish=False))
        play_scoreboard(store, rnd, ["Dee", "Cy"], finish=False)
    return state


def test_import_keeps_times_uid_and_adds_the_players(source: Path, tmp_path: Path) -> None:
    text = export_all(source)
    starts = [json.loads(line) for line in text.splitlines() if '"start"' in line]
    assert len(starts) == 2  # finished games only: not the abandoned or unfinished one
    status, out, err = run_import(tmp_path / "b", text, tmp_path)
    assert (status, err) == (0, "")
    assert out.splitlines() == ["line 1: stored as match 1 (Scoreboard: Ann, Bob, Zoë)",
                                f"line {len(text.splitlines()) - 5}: stored as match 2 "
                                "(Scoreboard: Bob, Cy)"]
    with Store.in_dir(source) as a, Store.in_dir(tmp_path / "b") as b:
        for old, new in ((1, 1), (2, 2)):
            was, now = a.match(old), b.match(new)
            assert (now.uid, now.started, now.finished, now.result, now.players) == (
                was.uid, was.started, was.finished, was.result, was.players)
            assert b.events(new) == a.events(old)
            assert b.event_times(new) == a.event_times(old)
        assert sorted(b.roster()) == ["Ann", "Bob", "Cy", "Zoë"]
        assert b.unfinished() is None


def test_the_same_match_twice_is_refused_and_said(source: Path, tmp_path: Path) -> None:
    text = export_all(source)
    assert run_import(tmp_path / "b", text, tmp_path)[0] == 0
    status, out, err = run_import(tmp_path / "b", text, tmp_path)
    assert status == 1
    assert out.startswith("line 1: not imported: this match is stored already (as match 1)")
    assert err == "companion import: 2 matches stored already (not imported again); 0 stored\n"
    with Store.in_dir(tmp_path / "b") as b:
        assert len(b.history()) == 2


def test_a_file_that_does_not_replay_stores_nothing(source: Path, tmp_path: Path) -> None:
    lines = export_all(source).splitlines()
    bad = len(lines) - 1  # a points event of the second match
    event = json.loads(lines[bad - 1])
    lines[bad - 1] = json.dumps({**event, "player": "Nobody"})
    status, out, err = run_import(tmp_path / "b", "\n".join(lines) + "\n", tmp_path)
    assert status == 1 and out == ""
    assert err.startswith(f"companion import: {tmp_path / 'in.jsonl'}: line {bad}: ")
    assert err.rstrip().endswith("nothing was imported") and err.count("\n") == 1
    with Store.in_dir(tmp_path / "b") as b:
        assert b.history() == [] and b.roster() == []  # not even the good first match


@pytest.mark.parametrize("mangle, message", [
    (lambda lines: lines[:-1], "the match is not over"),
    (lambda lines: lines[1:], "line 1: a match begins with a start line"),
    (lambda lines: ["[1, 2]", *lines], "line 1: an event is a JSON object"),
    (lambda lines: [lines[0][:-1] + ', "colour": 1}', *lines[1:]],
     'line 1: a start line has no field "colour"'),
    (lambda lines: [lines[0].replace('"started": ', '"started": -'), *lines[1:]],
     'line 1: "started" is before 2000'),
    (lambda lines: [lines[0], lines[1].replace('"at": ', '"at": "soon", "x": '),
                    *lines[2:]], 'line 2: "at" is a time in seconds'),
    (lambda lines: [], "no match in the file"),
    (lambda lines: ["[" * 100_000, *lines], "line 1: not JSON (nested too deeply)"),
    (lambda lines: [*lines[:2], '{"type": "points", "points": 1' + "0" * 5000 + "}",
                    *lines[2:]], "line 3: not JSON (a number with too many digits)"),
])
def test_refusals_name_the_line(source: Path, tmp_path: Path, mangle, message) -> None:
    lines = export_all(source).splitlines()
    first = lines[: next(i for i, line in enumerate(lines[1:], 1) if '"start"' in line)]
    status, _, err = run_import(tmp_path / "b", "\n".join(mangle(first)) + "\n", tmp_path)
    assert status == 1 and message in err and err.count("\n") == 1


def test_names_follow_the_one_name_rule(tmp_path: Path) -> None:
    rnd = random.Random(1)
    events = scoreboard_events(rnd, ["Ànn", "Bob"], 1)
    text = "\n".join(json.dumps(line, ensure_ascii=False) for line in [
        {"type": "start", "game": "scoreboard", "players": ["Ànn", "Bob"], "options": {}},
        *events]) + "\n"
    with Store.in_dir(tmp_path / "b") as store:
        store.add_player("Ann")
        with pytest.raises(ImportRefused, match="line 1: Ànn would look like Ann"):
            import_text(store, text, print)
        spaced = text.replace('"Bob"', '"Bob "')
        with pytest.raises(ImportRefused, match='line 1: the name "Bob " is written "Bob"'):
            import_text(store, spaced.replace("Ànn", "Ann"), print)
        # The roster's player in another spelling (another case, a Cyrillic А) is that
        # player: imported as played, and nobody joins the roster twice.
        assert import_text(store, text.replace("Ànn", "ann"), lambda line: None) == (1, 0)
        cyrillic = text.replace("Ànn", "\u0410nn").replace('"Bob"', '"BOB"')
        assert import_text(store, cyrillic, lambda line: None) == (1, 0)
        assert sorted(store.roster()) == ["Ann", "Bob"]  # not a second Ann
        assert [record.players for record in store.history()][-2:] in (
            [("ann", "Bob"), ("\u0410nn", "BOB")], [("\u0410nn", "BOB"), ("ann", "Bob")])


def test_an_old_export_without_uid_or_times_imports_once(tmp_path: Path) -> None:
    rnd = random.Random(2)
    events = scoreboard_events(rnd, ["Ann", "Bob"], 2)
    text = "\n".join(json.dumps(line) for line in [
        {"type": "start", "game": "scoreboard", "players": ["Ann", "Bob"], "options": {}},
        *events]) + "\n"
    with Store.in_dir(tmp_path / "b") as store:
        assert import_text(store, text, lambda line: None, now=1234.0) == (1, 0)
        record = store.match(1)
        assert record.uid.startswith("import-") and record.finished == 1234.0
        assert store.event_times(1) == [1234.0] * len(events)
        assert import_text(store, text, lambda line: None) == (0, 1)  # the same match


def test_replay_reads_an_export_with_times(source: Path, tmp_path: Path) -> None:
    text = export_all(source)
    one = text.splitlines()[: next(i for i, line in enumerate(text.splitlines()[1:], 1)
                                   if '"start"' in line)]
    log = tmp_path / "one.jsonl"
    log.write_text("\n".join(one) + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert replay_main("scoreboard", None, [], str(log), out=out, err=err) == 0, err.getvalue()
    with Store.in_dir(source) as a:
        assert json.loads(out.getvalue()) == a.match(1).result


def test_import_and_export_all_from_the_command_line(source: Path, tmp_path: Path,
                                                     capsys) -> None:
    assert cli.main(["export", "--state-dir", str(source), "--all"]) == 0
    exported = capsys.readouterr().out
    (tmp_path / "all.jsonl").write_text(exported, encoding="utf-8")
    assert cli.main(["import", str(tmp_path / "all.jsonl"), "--state-dir",
                     str(tmp_path / "b")]) == 0
    assert capsys.readouterr().out.count("stored as match") == 2
    assert cli.main(["export", "--state-dir", str(source), "--all", "--format", "csv"]) == 2
    assert "--all writes jsonl" in capsys.readouterr().err
    assert cli.main(["export", "--state-dir", str(source), "--all", "--match", "1"]) == 2
    assert "--all and --match go separately" in capsys.readouterr().err
    assert cli.main(["import", str(tmp_path / "missing.jsonl"), "--state-dir",
                     str(tmp_path / "b")]) == 2  # a bad argument (README)
    assert "import: cannot read " in capsys.readouterr().err
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{tmp_path / "c"}"\n', encoding="utf-8")
    assert cli.main(["import", str(tmp_path / "all.jsonl"), "--config", str(config)]) == 0
    assert Store.in_dir(tmp_path / "c").history()


def test_read_export_splits_matches_and_times() -> None:
    text = ('{"type": "start", "game": "scoreboard", "players": ["A", "B"], "uid": "u1"}\n'
            '{"type": "end", "at": 5}\n\n'
            '{"type": "start", "game": "scoreboard", "players": ["A", "B"]}\n')
    first, second = read_export(text)
    assert (first.uid, first.events, first.times, first.lines) == ("u1", [{"type": "end"}],
                                                                   [5.0], [2])
    assert (second.line, second.events, second.uid) == (4, [], None)


# -- the property: export --all, import on a fresh device, the same figures ---------------------


history = st.lists(st.tuples(
    st.lists(st.sampled_from(["Ann", "Bob", "Cy", "Dee", "Zoë"]), min_size=2, max_size=4,
             unique=True),
    st.booleans(),              # lowest wins
    st.integers(1, 3),          # rounds
    st.sampled_from(["finished", "finished", "abandoned"]),
    st.integers(0, 2**16),      # points
), max_size=8)


@settings(max_examples=25, deadline=None)
@given(history)
def test_export_all_then_import_gives_the_same_figures(tmp_path_factory, matches) -> None:
    folder = tmp_path_factory.mktemp("carry")
    with Store.in_dir(folder / "a", clock=Ticks()) as store:
        for players, low, rounds, how, seed in matches:
            mid = play_scoreboard(store, random.Random(seed), players, low_wins=low,
                                  rounds=rounds, finish=how == "finished")
            if how == "abandoned":
                store.abandon(mid)
        before = figures(store)
        since = figures(store, since=Ticks().now + 50)
    text = export_all(folder / "a")
    with Store.in_dir(folder / "b", clock=lambda: 9e9) as fresh:
        report: list[str] = []
        if text:
            assert import_text(fresh, text, report.append)[1] == 0
        assert figures(fresh) == before
        assert figures(fresh, since=Ticks().now + 50) == since


def test_the_documented_export_imports(tmp_path: Path) -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "events.md").read_text("utf-8")
    section = doc.split("### Exported matches", 1)[1]
    block = section.split("```jsonl\n", 1)[1].split("```", 1)[0]
    with Store.in_dir(tmp_path / "b") as store:
        assert import_text(store, block, lambda line: None) == (1, 0)
        record = store.match(1)
        assert (record.uid, record.started, record.finished) == (
            "5d0c7f0e9a3b4c21a8e6f1d2c3b4a596", 1763900000.0, 1763900090.5)
        assert store.event_times(1) == [1763900012.0, 1763900030.25, 1763900090.5]
        assert record.result["winners"] == ["Ann"]
