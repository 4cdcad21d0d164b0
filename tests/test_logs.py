"""The log, one line per problem: a traceback becomes its last words, and the handler
goes where it is told (a file for the simulator, stderr for the device) and away after."""

from __future__ import annotations

import io
import logging

from companion.logs import OneLineFormatter, logging_to


def test_an_exception_is_one_line_saying_what_and_where() -> None:
    try:
        {}["missing"]
    except KeyError:
        record = logging.LogRecord("companion", logging.ERROR, __file__, 1, "lookup failed",
                                   None, exc_info=__import__("sys").exc_info())
    line = OneLineFormatter().format(record)
    assert "\n" not in line and "lookup failed" in line and "KeyError" in line
    assert "test_logs.py:" in line


def test_a_message_holding_a_traceback_keeps_its_first_and_last_line() -> None:
    record = logging.LogRecord("companion", logging.ERROR, __file__, 1,
                               "step failed:\nTraceback...\n  File x\nValueError: bad\n",
                               None, None)
    assert OneLineFormatter().format(record) == \
        "ERROR companion: step failed: ... ValueError: bad"


def test_records_go_where_told_and_the_handler_leaves_after(tmp_path) -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    stream = io.StringIO()
    with logging_to(stream) as handler:
        logging.getLogger("uvicorn.error").warning("Invalid HTTP request received.")
        logging.getLogger("companion").info("web page on http://x")
    assert handler.problems == 1
    assert stream.getvalue().splitlines() == [
        "WARNING uvicorn.error: Invalid HTTP request received.",
        "INFO companion: web page on http://x"]
    path = tmp_path / "state" / "companion.log"
    with logging_to(path):
        logging.getLogger("companion").error("one\ntwo")
    assert path.read_text().count("\n") == 1 and "ERROR companion: one ... two" in path.read_text()
    assert root.handlers == before


def test_a_log_file_on_a_full_disk_prints_nothing_in_the_terminal(capfd) -> None:
    """The simulator's log lives in the state directory; when that disk fills (the game
    goes unsaved and says so in the log), the failed write is dropped, not printed as
    logging's "--- Logging error ---" traceback into the terminal the OLED is drawn in."""
    from pathlib import Path

    import pytest

    full = Path("/dev/full")
    if not full.exists():
        pytest.skip("no /dev/full here")
    with logging_to(full) as handler:
        logging.getLogger("companion").error("the game is no longer saved: disk full")
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == "", captured.err[:300]
    assert handler.problems == 1
