"""Issue 37 point 6: input said as typed. A refused value is quoted in the JSON it came
in (the string "6" as ``"6"``, 1e999 as ``1e999``) on every way in: the serial console,
the page, replay and import files. A file with a UTF-8 byte order mark reads like one
without (exports, event logs, configs). ``--config ''`` is a usage error. Counts go
through the plural forms ("1 match", never "1 matches"). A never-finished match adds no
row anywhere ("0 played")."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_import import Ticks, export_all, play_scoreboard, run_import
from test_link import ok, owned, run  # noqa: F401  (owned is a fixture)
from web_device import Device, physical_config

from companion import cli, po
from companion.commands.replay import replay_main
from companion.errors import IllegalEvent, typed_number, written
from companion.games import new_match
from companion.remote.web.pages import player_figures
from companion.stats import figures
from companion.stats.report import stats_main
from companion.store import Store

ROOT = Path(__file__).resolve().parents[1]
BOM = "\ufeff"


# -- the bar: a remote roll of the string "6" --------------------------------------------------


def test_bar_a_remote_roll_of_the_string_6_is_refused_quoting_it(owned) -> None:  # noqa: F811
    app = owned(physical_config())
    match_id = ok(app, "NEW final-count Ann,Bob")["match_id"]
    code, message = run(app, 'EVENT {"type": "roll", "player": "Ann", "value": "6"}')
    assert (code, message) == ("ILLEGAL", 'a die shows 1 to 6, not "6"')
    assert app.ctx.store.events(match_id) == []  # refused: nothing stored
    ok(app, 'EVENT {"type": "roll", "player": "Ann", "value": 6}')  # the number is taken


def test_bar_the_page_refuses_the_string_6_quoting_it(tmp_path: Path) -> None:
    device = Device(tmp_path / "state", config=physical_config())
    try:
        device.pair()
        device.client.post("/api/matches", json={"game": "final-count",
                                                 "players": ["Ann", "Bob"]})
        reply = device.client.post("/api/events", json={"event": {
            "type": "roll", "player": "Ann", "value": "6"}})
        assert reply.status_code == 409
        assert reply.json()["error"] == 'a die shows 1 to 6, not "6"'
        assert device.state()["seq"] == 0
        # A number too large for a float is said as typed, not as Python's "inf".
        reply = device.client.post("/api/events", content=b'{"event": {"type": "roll", '
                                   b'"player": "Ann", "value": 1e999}}',
                                   headers={"content-type": "application/json"})
        assert reply.status_code == 400
        assert reply.json()["error"] == "the number 1e999 in the body is out of range"
        reply = device.client.post("/api/events", json={"event": {"type": "roll"}, "x": 1})
        assert reply.json()["error"].startswith('unknown field "x"')
    finally:
        device.close()


def test_1e999_over_the_serial_console_is_said_as_typed(owned) -> None:  # noqa: F811
    app = owned(physical_config())
    ok(app, "NEW final-count Ann,Bob")
    for typed in ("1e999", "-1E400", "1.5e309"):
        code, message = run(app, f'EVENT {{"type": "roll", "player": "Ann", "value": {typed}}}')
        assert (code, message) == ("ILLEGAL", f"a die shows 1 to 6, not {typed}")
        assert "Infinity" not in message and "inf" not in message


@pytest.mark.parametrize(("value", "said"), [
    ("6", '"6"'), ('it"s', '"it\\"s"'), (True, "true"), (None, "null"), ([6, "6"], '[6, "6"]'),
    ({"face": "6"}, '{"face": "6"}'), (typed_number("1e999"), "1e999"),
    ([typed_number("-1E400")], "[-1E400]"), (float("inf"), "Infinity"),
])
def test_a_refused_value_is_quoted_in_json(value, said) -> None:
    assert written(value) == said
    match = new_match("final-count", ["Ann", "Bob"])
    with pytest.raises(IllegalEvent) as refused:
        match.apply({"type": "roll", "player": "Ann", "value": value})
    assert str(refused.value) == f"a die shows 1 to 6, not {said}"


def test_a_value_nested_deep_or_long_is_cut_not_a_crash() -> None:
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert "..." in written(deep) and len(written(deep)) <= 60
    assert len(written(list(range(10_000)))) <= 60


def test_typed_numbers_stay_numbers() -> None:
    assert typed_number("2.5") == 2.5 and type(typed_number("2.5")) is float
    huge = typed_number("1e999")
    assert huge == float("inf") and isinstance(huge, float) and huge.typed == "1e999"


def test_import_and_replay_lines_say_values_as_typed(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text('{"type": "roll", "player": "Ann", "value": 1e999}\n', encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    status = replay_main("final-count", "Ann,Bob", [], str(events), out=out, err=err)
    assert status == 1 and err.getvalue().strip().endswith("not 1e999"), err.getvalue()
    events.write_text('{"type": "roll", "player": "Ann", "value": "6"}\n', encoding="utf-8")
    err = io.StringIO()
    assert replay_main("final-count", "Ann,Bob", [], str(events), out=out, err=err) == 1
    assert err.getvalue().strip().endswith('not "6"'), err.getvalue()


@pytest.mark.parametrize("typed", ["1e999", "30.0", "-0.5"])
def test_an_option_typed_as_a_number_is_said_as_one(owned, typed) -> None:  # noqa: F811
    """target=1e999 on the serial console (or --option) was said as the string "1e999"."""
    app = owned()
    assert run(app, f"NEW scoreboard Ann,Bob target={typed}") == (
        "BADARG", f"option target is a whole number, not {typed}")


def test_a_key_given_twice_is_refused_on_every_way_in(owned, tmp_path: Path) -> None:  # noqa: F811
    """{"value": 6, "value": 5} is 5 to one reader and 6 to another: the page refused it,
    the serial console and a replay took the last."""
    app = owned(physical_config())
    match_id = ok(app, "NEW final-count Ann,Bob")["match_id"]
    twice = '{"type": "roll", "player": "Ann", "value": 6, "value": 5}'
    assert run(app, f"EVENT {twice}") == (
        "BADJSON", 'not JSON (the key "value" is given twice)')
    assert app.ctx.store.events(match_id) == []
    events = tmp_path / "events.jsonl"
    events.write_text(twice + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert replay_main("final-count", "Ann,Bob", [], str(events), out=out, err=err) == 1
    assert err.getvalue() == 'line 1: not JSON (the key "value" is given twice)\n'


# -- a byte order mark ---------------------------------------------------------------------------


@pytest.fixture
def exported(tmp_path: Path) -> str:
    with Store.in_dir(tmp_path / "a", clock=Ticks()) as store:
        play_scoreboard(store, random.Random(3), ["Ann", "Bob"])
    return export_all(tmp_path / "a")


def test_bar_an_export_with_a_bom_imports(exported: str, tmp_path: Path) -> None:
    status, out, err = run_import(tmp_path / "b", BOM + exported, tmp_path)
    assert (status, err) == (0, "") and "decode" not in out
    with Store.in_dir(tmp_path / "b") as store:
        assert len(store.history()) == 1


def test_an_export_with_a_bom_imports_from_standard_input(exported: str, tmp_path: Path,
                                                          monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(BOM + exported))
    out, err = io.StringIO(), io.StringIO()
    from companion.commands.importer import import_main

    assert import_main(str(tmp_path / "c"), "-", out=out, err=err) == 0, err.getvalue()


def test_an_event_log_with_a_bom_replays(tmp_path: Path, monkeypatch) -> None:
    lines = [{"type": "start", "players": ["Ann", "Bob"], "options": {}},
             {"type": "points", "player": "Ann", "points": 3}]
    text = BOM + "".join(json.dumps(line) + "\n" for line in lines)
    events = tmp_path / "log.jsonl"
    events.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert replay_main("scoreboard", None, [], str(events), out=out, err=err) == 0, err.getvalue()
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    out2 = io.StringIO()
    assert replay_main("scoreboard", None, [], "-", out=out2, err=err) == 0, err.getvalue()
    assert out.getvalue() == out2.getvalue() and '"players": ["Ann", "Bob"]' in out.getvalue()


def test_a_bom_on_the_serial_console_is_no_part_of_the_line(owned) -> None:  # noqa: F811
    """A terminal program that sends a byte order mark first, and a JSON pasted from a
    file saved with one after EVENT: it was "not JSON (Unexpected UTF-8 BOM (decode
    using utf-8-sig))", Python's words."""
    app = owned(physical_config())
    ok(app, BOM + "NEW final-count Ann,Bob")
    event = ok(app, "EVENT " + BOM + '{"type": "roll", "player": "Ann", "value": 6}')
    assert event["event"]["value"] == 6


def test_a_bom_starting_a_later_line_replays(tmp_path: Path) -> None:
    """Two logs joined (cat a.jsonl b.jsonl), the second saved with a byte order mark."""
    events = tmp_path / "log.jsonl"
    events.write_text('{"type": "points", "player": "Ann", "points": 3}\n' + BOM
                      + '{"type": "points", "player": "Bob", "points": 4}\n', encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert replay_main("scoreboard", "Ann,Bob", [], str(events), out=out, err=err) == 0, \
        err.getvalue()
    assert json.loads(out.getvalue())["totals"] == {"Ann": 3, "Bob": 4}


def test_a_config_with_a_bom_reads(tmp_path: Path, capsys) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(b"\xef\xbb\xbf[web]\nlisten = \"127.0.0.1:8080\"\n")
    assert cli.main(["config", "--config", str(config)]) == 0
    assert 'listen = "127.0.0.1:8080"' in capsys.readouterr().out
    config.write_bytes(b"\xef\xbb\xbf[web]\nlisten = \"\xff\"\n")
    assert cli.main(["config", "--config", str(config)]) == 78
    assert "is not UTF-8 text (byte 20)" in capsys.readouterr().err  # counted with the BOM


@pytest.mark.parametrize(("line", "said"), [
    ("[timer]\nturn = 1e999", "timer.turn must be a whole number, not 1e999"),
    ("[buttons]\nhold_time = -1E400", "buttons.hold_time must be a finite number, not -1E400"),
    ("[buttons]\nhold_time = inf", "buttons.hold_time must be a finite number, not inf"),
])
def test_a_config_number_is_said_as_typed(tmp_path: Path, capsys, line, said) -> None:
    """The config is a way in too: 1e999 was said as Python's Infinity."""
    config = tmp_path / "config.toml"
    config.write_text(line + "\n")
    assert cli.main(["config", "--config", str(config)]) == 78
    assert capsys.readouterr().err == f"companion: config error: {config}: {said}\n"


# -- --config '' ----------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["config", "--config", ""], ["config", "--config="],
                                  ["stats", "--config", " "]])
def test_bar_an_empty_config_path_is_a_usage_error(args) -> None:
    done = subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--config: needs a path" in done.stderr


# -- counts through the plural forms -----------------------------------------------------------


def test_backup_counts_say_one_match() -> None:
    from companion.commands.backup import _counts

    assert _counts({"matches": 1, "events": 1, "players": 1}) == "1 match, 1 event, 1 player"
    assert _counts({"matches": 2, "events": 0, "players": 3}) == "2 matches, 0 events, 3 players"


#: Messages whose count is never 1 (a singular would never show): a constant of the
#: program, more than a whole deck, or the players of a game for two or more.
CONSTANT_COUNTS = {
    "the pool is {n} dice: a list of {n} faces",          # POOL_SIZE, 15
    "wrong code {n} times: the device shows a new one",   # TRIES
    "{command} was not run: {n} commands are waiting for the device already",  # PENDING_MAX
    "{n} cards entered this round; the deck has only {total}",  # more than a whole deck
    "{n} cards of rank {rank} entered this hand; a deck has only {most}",  # more than 4
    "a deck of {total} cards cannot deal {each} each to {n} players and leave a deck",
    "a {total}-card deck cannot deal {each} cards to each of {n} players",
    "at most {n} players a night", "at most {n} rounds a night",  # the night's limits
}
#: The club's seating words are another change's (issue 36).
ELSEWHERE = ("companion/club/seating.py",)


def test_every_count_of_a_noun_has_its_plural_forms() -> None:
    """No "{n} matches" without a singular: a message counting with {n} before an
    English plural noun is an ngettext pair whose forms differ."""
    # {n} then a plural noun (perhaps after one word: "{n} lucky cards"); not a number
    # that names one thing ("match {n} is", "Round {n} prizes").
    counted = re.compile(r"(?<!match )(?<!Round )(?<!Game )(?<!Seat )"
                         r"\{n\} (?:[a-z]+ )?(?!is\b|was\b|has\b)[a-z]+s\b")
    wrong = []
    for entry in po.read(ROOT / "companion" / "locale" / "companion.pot"):
        if any(place in " ".join(entry.places) for place in ELSEWHERE):
            continue
        if entry.msgid_plural is None:
            if counted.search(entry.msgid) and entry.msgid not in CONSTANT_COUNTS:
                wrong.append(entry.msgid)
        elif entry.msgid == entry.msgid_plural and counted.search(entry.msgid) \
                and entry.msgid not in CONSTANT_COUNTS:
            wrong.append(entry.msgid)
    assert wrong == []


# -- no "0 played" for a match never finished ------------------------------------------------


@pytest.fixture
def one_unfinished(tmp_path: Path) -> Path:
    """Scoreboard finished once by Ann and Bob; Count Up 21 begun by Ann and Dee and
    never finished."""
    state = tmp_path / "state"
    with Store.in_dir(state, clock=Ticks()) as store:
        play_scoreboard(store, random.Random(1), ["Ann", "Bob"])
        open_match = store.new_match("count-up-21", ["Ann", "Dee"], {})
        store.append(open_match, {"type": "note"})
    return state


def test_stats_shows_no_row_for_a_match_never_finished(one_unfinished: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert stats_main(one_unfinished, out=out, err=err) == 0
    table = out.getvalue()
    assert "0 played" not in table and "Count Up 21" not in table and "Dee" not in table
    assert "Scoreboard (scoreboard): 1 played" in table
    out = io.StringIO()
    assert stats_main(one_unfinished, as_json=True, out=out, err=err) == 0
    shown = json.loads(out.getvalue())
    assert list(shown["games"]) == ["scoreboard"] and sorted(shown["players"]) == ["Ann", "Bob"]
    assert all(row["plays"] for row in shown["players"].values())
    out = io.StringIO()
    assert stats_main(one_unfinished, game="count-up-21", out=out, err=err) == 0
    assert out.getvalue() == "No finished Count Up 21 games yet.\n"


def test_stats_of_a_club_table_shows_no_row_for_its_unfinished_match(tmp_path: Path) -> None:
    state = tmp_path / "club"
    with Store.in_dir(state, clock=Ticks()) as store:
        mid = store.new_match("count-up-21", ["Ann", "Dee"], {}, origin="t1")
        store.append(mid, {"type": "note"})
    out, err = io.StringIO(), io.StringIO()
    assert stats_main(state, table="t1", out=out, err=err) == 0
    assert "0 played" not in out.getvalue() and "Dee" not in out.getvalue()
    assert out.getvalue() == "No finished games of table t1 yet.\n"


def test_the_players_pages_show_no_row_for_a_match_never_finished(one_unfinished: Path) -> None:
    with Store.in_dir(one_unfinished) as store:
        for played_only in (False, True):  # the table's page and the club's
            shown = player_figures(store, played_only)["figures"]
            assert sorted(shown["players"]) == ["Ann", "Bob"]
            assert list(shown["games"]) == ["scoreboard"]
        everyone = figures(store)
        # Ann's unfinished match still says when she last played (it is her latest).
        assert everyone["players"]["Ann"]["last_played"] > everyone["games"]["scoreboard"][
            "players"]["Ann"]["last_played"] - 1
