"""``--web HOST:PORT`` on ``companion sim`` and ``companion run``: checked before
anything starts, one line when wrong."""

from __future__ import annotations

import pytest

from companion.cli import build_parser, main


@pytest.mark.parametrize("command", ["sim", "run"])
def test_both_commands_take_web(command) -> None:
    args = build_parser().parse_args([command, "--web", "127.0.0.1:8080"])
    assert args.web == "127.0.0.1:8080"


@pytest.mark.parametrize("listen", ["nonsense", "host:0", "host:99999", ":8080"])
def test_a_bad_address_is_one_line(listen, capsys) -> None:
    assert main(["sim", "--web", listen]) == 2  # a bad argument (README)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--web" in err and "Traceback" not in err


def test_web_goes_with_the_interactive_simulator(tmp_path, capsys) -> None:
    script = tmp_path / "steps.txt"
    script.write_text("OK\n")
    assert main(["sim", "--script", str(script), "--web", "127.0.0.1:8080"]) == 2
    assert "--web goes with the interactive simulator" in capsys.readouterr().err
