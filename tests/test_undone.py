"""Issue 35, item 2: undone events stay visible.

Undo takes back the newest event that counts and keeps it, marked undone at the place
it held: the match page, History's moves and ``companion export`` show it; replay and
import read past it (it never counts), so their results are today's; an export written
before this (``tests/data/export_before_undo_kept.jsonl``, made by main at bb94008
with undos that were lost then) still imports to the same results.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.commands.export import export_main
from companion.commands.importer import import_text
from companion.games import engine
from companion.session import Session
from companion.store import Store
from companion.ui.history import MatchMoves, MatchSheet
from companion.ui.screen import Context

DATA = Path(__file__).resolve().parent / "data"
OLD_EXPORT = DATA / "export_before_undo_kept.jsonl"
OLD_RESULTS = DATA / "export_before_undo_kept.results.json"
NOW = 1_750_000_000.0


class Clock:
    """A wall clock that moves a few seconds a call (the store's and the session's)."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        self.now += 3.0
        return self.now


@pytest.fixture
def played(tmp_path, monkeypatch):
    """A finished scoreboard game with undos along the way: (store, match id, the
    events that count, the events taken back in the order they were)."""
    clock = Clock()
    monkeypatch.setattr(Session, "wall_clock", staticmethod(clock))
    store = Store.in_dir(tmp_path / "state", clock=clock)
    session = Session.start("scoreboard", ["Ann", "Bob"], {"target": 30}, store=store)
    taken = []
    for event in ({"type": "points", "player": "Ann", "points": 9},
                  {"type": "points", "player": "Bob", "points": 7}):
        session.apply(event)
    session.apply({"type": "points", "player": "Ann", "points": 99})  # a slip
    taken.append(session.undo())
    session.apply({"type": "points", "player": "Ann", "points": 12})
    session.apply({"type": "points", "player": "Bob", "points": 3})
    taken.append(session.undo())  # two back: the newest that counts, then the one before
    taken.append(session.undo())
    session.apply({"type": "points", "player": "Ann", "points": 11})
    session.apply({"type": "points", "player": "Bob", "points": 4})
    session.apply({"type": "points", "player": "Ann", "points": 15})
    session.apply({"type": "points", "player": "Bob", "points": 5})
    assert session.match.over
    yield store, session.match_id, list(session.match.events), taken
    store.close()


def test_undo_keeps_each_event_at_the_place_it_held(played) -> None:
    store, match_id, events, taken = played
    assert store.events(match_id) == events  # what counts is as before
    moves = store.played(match_id)
    assert [(move.seq, move.undone) for move in moves] == [
        (1, False), (2, False), (3, True), (3, True), (3, False), (4, True), (4, False),
        (5, False), (6, False)]
    assert [move.event for move in moves if move.undone] == [taken[0], taken[2], taken[1]]
    # Each keeps when it was played: the 99 before the 12 that first took its place.
    assert moves[2].at < moves[3].at < moves[5].at < moves[4].at
    assert store.undone_count(match_id) == 3
    assert store.match(match_id).event_count == 6


def test_the_export_marks_the_undone_and_replay_and_import_read_past_them(
        played, tmp_path, capsys) -> None:
    store, match_id, events, taken = played
    out, err = io.StringIO(), io.StringIO()
    assert export_main(str(store.path.parent), str(match_id), "jsonl", out=out, err=err) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line.get("undone", False) for line in lines[1:]] == [
        False, False, True, True, False, True, False, False, False]
    assert [line["points"] for line in lines[1:] if line.get("undone")] == [99, 12, 3]
    assert all("at" in line for line in lines[1:])
    log = tmp_path / "log.jsonl"
    log.write_text(out.getvalue())
    assert main(["replay", "scoreboard", "--events", str(log)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    expected = engine("scoreboard").replay(["Ann", "Bob"], {"target": 30}, events).result()
    assert replayed == json.loads(json.dumps(expected))
    with Store.in_dir(tmp_path / "other") as other:
        report: list[str] = []
        assert import_text(other, out.getvalue(), report.append, now=NOW + 3600) == (1, 0)
        (record,) = other.past()
        assert other.events(record.id) == events and record.result == store.match(
            match_id).result
        assert [(m.seq, m.event, m.undone) for m in other.played(record.id)] == [
            (m.seq, m.event, m.undone) for m in store.played(match_id)]
        # The same file again: the same match, stored already (undone lines or not).
        assert import_text(other, out.getvalue(), report.append, now=NOW + 3600) == (0, 1)


def test_an_export_from_before_still_imports_to_the_same_results(tmp_path) -> None:
    """The fixture was exported by main before undone events were kept; its results
    were recorded by main's own import of it."""
    before = json.loads(OLD_RESULTS.read_text())
    with Store.in_dir(tmp_path) as store:
        report: list[str] = []
        assert import_text(store, OLD_EXPORT.read_text(), report.append,
                           now=1_750_100_000.0) == (2, 0)
        now = [{"game": record.game_id, "result": record.result,
                "events": len(store.events(record.id))}
               for record in sorted(store.past(), key=lambda record: record.id)]
        assert now == before
        assert [store.undone_count(record.id) for record in store.past()] == [0, 0]


def test_replay_of_the_old_export_gives_its_recorded_results(tmp_path, capsys) -> None:
    text = OLD_EXPORT.read_text().splitlines()
    starts = [n for n, line in enumerate(text) if json.loads(line)["type"] == "start"]
    for (first, last), recorded in zip(zip(starts, [*starts[1:], len(text)], strict=True),
                                       json.loads(OLD_RESULTS.read_text()), strict=True):
        log = tmp_path / "one.jsonl"
        log.write_text("\n".join(text[first:last]) + "\n")
        game = json.loads(text[first])["game"]
        assert main(["replay", game, "--events", str(log)]) == 0
        assert json.loads(capsys.readouterr().out) == recorded["result"]


@pytest.mark.parametrize("mark", [False, "yes", 1, None])
def test_an_undone_mark_is_true_or_left_out(tmp_path, capsys, mark) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"type": "points", "player": "Ann", "points": 3,
                               "undone": mark}) + "\n")
    assert main(["replay", "scoreboard", "--players", "Ann,Bob", "--events", str(log)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("line 1:") and '"undone" is true' in err and err.count("\n") == 1
    with Store.in_dir(tmp_path / "state") as store:
        text = (json.dumps({"type": "start", "game": "scoreboard", "players": ["Ann", "Bob"],
                            "options": {}}) + "\n" + log.read_text())
        from companion.errors import ImportRefused

        with pytest.raises(ImportRefused, match='line 2: "undone" is true'):
            import_text(store, text, lambda line: None)


def test_an_undone_line_without_a_type_is_refused(tmp_path) -> None:
    from companion.errors import ImportRefused

    start = json.dumps({"type": "start", "game": "scoreboard", "players": ["Ann", "Bob"],
                        "options": {}})
    for line in ({"undone": True}, {"type": "", "undone": True}, {"type": 7, "undone": True}):
        with Store(":memory:") as store, pytest.raises(
                ImportRefused, match='line 2: an event needs a "type"'):
            import_text(store, start + "\n" + json.dumps(line) + "\n", lambda said: None)


def test_an_undone_line_outside_its_match_is_refused(played) -> None:
    store, match_id, _, _ = played
    out = io.StringIO()
    export_main(str(store.path.parent), str(match_id), "jsonl", out=out, err=io.StringIO())
    lines = out.getvalue().splitlines()
    undone = next(n for n, line in enumerate(lines) if '"undone": true' in line)
    edited = json.loads(lines[undone])
    edited["at"] = NOW - 86_400
    lines[undone] = json.dumps(edited)
    from companion.errors import ImportRefused

    with Store(":memory:") as other, pytest.raises(
            ImportRefused, match=f"line {undone + 1}: \"at\" is before it started"):
        import_text(other, "\n".join(lines) + "\n", lambda line: None, now=NOW + 3600)


def test_history_on_the_device_shows_the_moves_with_the_undone_struck(played) -> None:
    store, match_id, events, taken = played
    ctx = Context(store=store)
    record = store.match(match_id)
    sheet = MatchSheet(ctx, record, None)
    assert sheet.hint == "UP/DN rows ROLL moves"
    moves = sheet.press(ctx, type("P", (), {"button": "roll", "long": False})())
    assert isinstance(moves, MatchMoves) and moves.undone == 3
    plain = moves.render()
    assert [move.undone for move in moves.moves] == [False, False, True, True, False, True,
                                                     False, False, False]
    # A struck move has a line through its words: more ink than the same move plain.
    moves.moves = [move._replace(undone=False) for move in moves.moves]
    moves.undone = 0
    unstruck = moves.render()
    assert plain.tobytes() != unstruck.tobytes()
    down = type("P", (), {"button": "down", "long": False})()
    for _ in range(10):
        moves.press(ctx, down)
    assert moves.top == len(moves.moves) - 4
    ok = type("P", (), {"button": "ok", "long": False})()
    assert moves.press(ctx, ok) is moves.parent


def test_undo_of_an_undone_takes_back_the_newest_that_counts(tmp_path) -> None:
    with Store.in_dir(tmp_path) as store:
        session = Session.start("scoreboard", ["Ann", "Bob"], store=store)
        session.apply({"type": "points", "player": "Ann", "points": 1})
        session.apply({"type": "points", "player": "Bob", "points": 2})
        assert session.undo()["points"] == 2
        assert session.undo()["points"] == 1  # not the undone one again
        from companion.errors import IllegalEvent

        with pytest.raises(IllegalEvent):
            session.undo()
        assert store.events(session.match_id) == []
        assert [move.event["points"] for move in store.played(session.match_id)] == [1, 2]
        resumed = Session.resume(store, session.match_id)
        assert resumed.match.events == []  # the undone never count on a resume
