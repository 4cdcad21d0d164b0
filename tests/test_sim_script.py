"""``companion sim --script`` end to end, as a subprocess: the exact output format, the
exit statuses, and a whole Final Count game pressed on the mock pins."""


import pytest
from companion_cli import companion, play_export_replay

from companion.bench.device import FINAL_COUNT_GAME, final_count_script
from companion.errors import ScriptError
from companion.sim import parse_script


def screens(stdout):
    """{step number: (step text, 64 rows)} from --screens text output."""
    lines = stdout.splitlines()
    found = {}
    for i, line in enumerate(lines):
        if line.startswith("--- step "):
            number, text = line[len("--- step "):].split(": ", 1)
            found[int(number)] = (text, lines[i + 1 : i + 65])
    return found


def test_text_screens_after_every_step(tmp_path):
    script = tmp_path / "dice.txt"
    script.write_text("# into Tools, Dice, roll\nDOWN\nDOWN\nDOWN\nDOWN\nDOWN\n\nOK\nOK\n"
                      "ROLL  # roll two dice\nHOLD OK\nWAIT 0.5\n")
    done = companion("sim", "--script", str(script), "--screens", "text", "--seed", "1")
    assert done.returncode == 0, done.stderr
    shown = screens(done.stdout)
    assert [shown[n][0] for n in sorted(shown)] == [
        "DOWN", "DOWN", "DOWN", "DOWN", "DOWN", "OK", "OK", "ROLL", "HOLD OK", "WAIT 0.5"]
    for _text, rows in shown.values():
        assert len(rows) == 64
        assert all(len(row) == 128 and set(row) <= {"#", "."} for row in rows)
    assert shown[7][1] != shown[8][1]  # the roll changed the screen
    assert len(done.stdout.splitlines()) == 10 * 65


def test_the_same_seed_gives_the_same_screens(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("DOWN\n" * 5 + "OK\nOK\nROLL\nROLL\n")
    runs = [companion("sim", "--script", str(script), "--screens", "text", "--seed", "9").stdout
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_screens_none_prints_nothing_and_png_writes_frames(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("DOWN\nOK\n")
    done = companion("sim", "--script", str(script), "--png", str(tmp_path / "png"))
    assert done.returncode == 0 and done.stdout == ""
    assert sorted(p.name for p in (tmp_path / "png").iterdir())[:1] == ["frame-0001.png"]


@pytest.mark.parametrize(("text", "line"), [
    ("DOWN\nJUMP\n", 2), ("OK\n\n# fine\nHOLD\n", 4), ("WAIT soon\n", 1), ("HOLD SPACE\n", 1),
    ("WAIT -3\n", 1),
])
def test_a_script_error_exits_2_naming_the_line(tmp_path, text, line):
    script = tmp_path / "bad.txt"
    script.write_text(text)
    done = companion("sim", "--script", str(script), "--screens", "text")
    assert done.returncode == 2
    assert f"line {line}:" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""  # checked before anything runs


def test_a_missing_script_is_a_script_error(tmp_path):
    done = companion("sim", "--script", str(tmp_path / "none.txt"))
    assert done.returncode == 2 and "cannot read the script" in done.stderr


def test_parse_script_knows_every_step():
    steps = parse_script("up\nDown\nOK\nback\nROLL\nhold roll\nWAIT 2.5\n")
    assert [(s.button, s.long, s.seconds) for s in steps] == [
        ("up", False, 0), ("down", False, 0), ("ok", False, 0), ("back", False, 0),
        ("roll", False, 0), ("roll", True, 0), ("", False, 2.5)]
    with pytest.raises(ScriptError):
        parse_script("ROLL ROLL\n")


def test_waiting_dims_then_blanks_the_screen(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[idle]\ndim_after = 5\nblank_after = 20\nshift_every = 0\n")
    script = tmp_path / "s.txt"
    script.write_text("WAIT 30\nDOWN\nDOWN\n")
    done = companion("sim", "--config", str(config), "--script", str(script),
                     "--screens", "text")
    shown = screens(done.stdout)
    fresh = tmp_path / "fresh.txt"
    fresh.write_text("WAIT 0\n")
    start = screens(companion("sim", "--script", str(fresh), "--screens", "text").stdout)
    assert all(set(row) == {"."} for row in shown[1][1])        # blank: all dark
    assert shown[2][1] == start[1][1]                           # the wake press did not move
    assert shown[3][1] != shown[2][1]                           # the next press did


def test_a_whole_final_count_game_through_the_pins(tmp_path):
    played = play_export_replay(tmp_path, "final-count", ["Ann", "Bob", "Cy"],
                                final_count_script(), "--seed", "3", "--screens", "text")
    assert len(screens(played.sim.stdout)) == len(FINAL_COUNT_GAME)
    result = played.result
    assert result["over"] is True
    assert result["winners"] == ["Ann"]
    assert result["totals"] == {"Ann": 340, "Bob": 0, "Cy": 0}
    assert len(result["hands"]) == 6


def test_new_refuses_bad_players_and_unknown_games(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("ROLL\n")
    done = companion("sim", "--new", "final-count", "--players", "Ann", "--script", str(script))
    assert done.returncode == 2 and "2 to 4 players" in done.stderr  # bad arguments: 2
    done = companion("sim", "--new", "count-up-21", "--players", "A,B,C", "--script", str(script))
    assert done.returncode == 2 and "takes 2 players, not 3" in done.stderr  # not "2 to 2"
    done = companion("sim", "--new", "poker", "--players", "A,B", "--script", str(script))
    assert done.returncode == 2 and 'no game "poker"' in done.stderr
    done = companion("sim", "--new", "final-count", "--players", "A,B", "--option", "jokers=1",
                     "--script", str(script))
    assert done.returncode == 2 and "unknown option" in done.stderr


def test_new_refuses_a_lookalike_of_a_roster_name(tmp_path):
    """The game's players join the roster: "Ànn" beside the roster's "Ann" (the title
    bar hides the grave) is refused as adding it by hand is, with exit 2 and nothing
    started or stored."""
    from companion.store import Store

    script = tmp_path / "s.txt"
    script.write_text("ROLL\n")
    state = tmp_path / "state"
    first = ("sim", "--script", str(script), "--state-dir", str(state), "--new", "final-count")
    assert companion(*first, "--players", "Ann,Bob").returncode == 0
    done = companion(*first, "--players", "Ànn,Cy")
    assert done.returncode == 2 and "would look like Ann" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    store = Store(state / "companion.db")
    try:
        assert sorted(store.roster()) == ["Ann", "Bob"]
        assert store.unfinished() is not None  # the game left open was not pushed aside
    finally:
        store.close()
    assert companion(*first, "--players", "ann,Cy").returncode == 0  # the same name: fine
