"""No traceback, anywhere (issue 12, item 6): bad config, bad files and bad command
lines each give one line on stderr and the documented exit status. Each case runs the
``companion`` command as a person would (a subprocess); a hypothesis test throws junk
argument lists at the commands that have no side effects."""

from __future__ import annotations

import pytest
from companion_cli import companion
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import cli
from companion.errors import StoreError
from companion.store import Store

BAD_CONFIG = 78
FAILED = 1
USAGE = 2


def one_clean_line(done, status: int, *words: str) -> None:
    """The run exited with ``status`` and said one line (holding ``words``), no trace."""
    assert "Traceback" not in done.stderr
    said = done.stderr[:500]  # what a failure shows: never the whole of a monster
    assert done.returncode == status, said
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, said
    assert len(lines[0]) < 300, said
    for word in words:
        assert word in lines[0], said


@pytest.mark.parametrize(("toml", "words"), [
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", ["nested too deeply"]),
    ("a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n", ["nested too deeply"]),
    ("[serial]\nbaud = " + "9" * 5000 + "\n", ["too many digits"]),
    ("[idle]\nshift_every = nan\n", ["idle.shift_every", "finite"]),
    ("[idle]\ndim_after = inf\n", ["idle.dim_after", "finite"]),
    ("[idle]\nblank_after = 1e300\n", ["idle.blank_after"]),
    ("[buttons]\nhold_time = -inf\n", ["buttons.hold_time"]),
    ("[buttons]\nhold_time = 1" + "0" * 400 + "\n", ["buttons.hold_time", "finite"]),
    ("[buttons]\nbounce_time = 0.4\nhold_time = 0.3\n", ["buttons.bounce_time"]),
    ("[buttons]\nup = 99999999999999999999999\n", ["buttons.up"]),
    ("[display]\ni2c_port = -1\n", ["display.i2c_port"]),
    ("[display]\ngpio_dc = 99999999999999999999\n", ["display.gpio_dc"]),
])
def test_a_bad_number_or_deep_toml_is_refused_naming_it(tmp_path, toml, words):
    config = tmp_path / "config.toml"
    config.write_text(toml)
    one_clean_line(companion("config", "--config", str(config)), BAD_CONFIG, *words)


def test_the_simulator_refuses_a_nan_time_instead_of_spinning(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[idle]\nshift_every = nan\n")
    script = tmp_path / "s.txt"
    script.write_text("OK\n")
    done = companion("sim", "--config", str(config), "--script", str(script))
    one_clean_line(done, BAD_CONFIG, "idle.shift_every")


@pytest.mark.parametrize(("line", "words"), [
    ("[" * 100_000 + "]" * 100_000, ["line 1", "nested too deeply"]),
    ('{"type": "roll", "value": ' + "9" * 5000 + "}", ["line 1", "too many digits"]),
])
def test_replay_of_a_monstrous_line_names_the_line(tmp_path, line, words):
    log = tmp_path / "log.jsonl"
    log.write_text(line + "\n")
    done = companion("replay", "final-count", "--players", "Ann,Bob,Cy", "--events", str(log))
    one_clean_line(done, FAILED, *words)


def test_replay_of_a_monstrous_option_is_usage(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("")
    done = companion("replay", "final-count", "--players", "Ann,Bob,Cy", "--events", str(log),
                     "--option", "hit_goal=" + "[" * 100_000)
    one_clean_line(done, USAGE, "hit_goal")


@pytest.mark.parametrize("option", ["junk", "=1", "x=[1", "x=" + "[" * 100_000])
def test_sim_with_a_junk_option_is_usage(tmp_path, option):
    script = tmp_path / "s.txt"
    script.write_text("OK\n")
    done = companion("sim", "--new", "final-count", "--players", "Ann,Bob,Cy",
                     "--option", option, "--script", str(script))
    one_clean_line(done, USAGE, "--option")


@pytest.mark.parametrize(("where", "status", "said"), [
    ("a-file", USAGE, "is a file, not a directory"),  # a bad argument: before anything
    ("a-file/frames", USAGE, "is inside a file"),  # a folder that cannot be made: too
])
def test_sim_png_where_nothing_can_be_written(tmp_path, where, status, said):
    (tmp_path / "a-file").write_text("a file, not a directory")
    script = tmp_path / "s.txt"
    script.write_text("DOWN\n")
    done = companion("sim", "--script", str(script), "--png", str(tmp_path / where))
    one_clean_line(done, status, said)


@pytest.fixture
def state_with_a_game(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("OK\n")
    state = tmp_path / "state"
    done = companion("sim", "--new", "final-count", "--players", "Ann,Bob,Cy", "--script",
                     str(script), "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    return state


@pytest.mark.parametrize("match", ["99999999999999999999999", "9223372036854775808",
                                   "9" * 5000])
def test_export_of_a_match_id_past_any_number_sqlite_holds(state_with_a_game, match):
    done = companion("export", "--state-dir", str(state_with_a_game), "--match", match)
    one_clean_line(done, FAILED, "no match")


def test_the_store_says_no_match_for_a_huge_id_whatever_asks(state_with_a_game):
    # The store is where the serial console's EXPORT and the CLI's export both look.
    with Store.in_dir(state_with_a_game) as store:
        for ref in ("99999999999999999999999", "9" * 5000, str(2**63)):
            with pytest.raises(StoreError, match="no match"):
                store.resolve(ref)


def test_a_bad_command_line_is_one_line_and_status_2():
    for args in (["shuffle", "--cards", "x"], ["export", "--format", "pdf"], ["nonsense"],
                 ["replay"], ["sim", "--seed", "1.5"]):
        one_clean_line(companion(*args), USAGE, "--help")


# Junk command lines for the commands without side effects, run in-process (the same
# main() the subprocess runs): whatever the arguments, the command ends with a status and
# at most a line of complaint, never an exception.
JUNK = st.one_of(
    st.sampled_from(["--cards", "--piles", "--seed", "--json", "--match", "--format",
                     "--players", "--option", "--events", "--config", "--state-dir",
                     "-", "--", "last", "current", "jsonl", "csv", "final-count", "nan",
                     "inf", "-1", "0", "1e999", "9" * 40, "x=1", "=", "[", "{}"]),
    st.text(max_size=12).filter(lambda text: "\x00" not in text),
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["shuffle", "export", "replay", "config"]), st.lists(JUNK, max_size=6))
def test_junk_arguments_never_raise(tmp_path_factory, command, junk):
    import contextlib
    import io

    where = tmp_path_factory.mktemp("junk")
    args = [command, *junk]
    if command in ("export", "config", "replay") and "--config" not in junk:
        args += ["--config", str(where / "none.toml")]  # never the machine's own config
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            status = cli.main(args)
        except SystemExit as exit_:
            status = exit_.code
    assert isinstance(status, int)
    assert "Traceback" not in err.getvalue()
    if status != 0:
        assert len(err.getvalue().strip().splitlines()) <= 1, err.getvalue()[:500]
