"""The laptop's end of the serial console: ``companion console PORT``.

Sends each line typed (or piped) to the device, waits for its one reply, and prints
what comes back, ``EV`` lines as they arrive. The device's end is
:mod:`companion.remote.serial`; both speak :mod:`companion.remote.protocol`.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, TextIO

import serial

from companion import lang
from companion.errors import CompanionError
from companion.lang import _
from companion.remote.protocol import PROMPT, BadLine, Line, LineSplitter, problem_words

__all__ = ["run_console"]


class _Client:
    """Prints what the device sends and counts the replies (OK/ERR lines)."""

    def __init__(self, port: Any, url: str, out: TextIO, err: TextIO, prompt: bool, raw: bool):
        self.port = port
        self.url = url
        self.out = out
        self.err = err
        self.prompt = prompt
        self.raw = raw
        self.replies = 0
        self.lost: str | None = None
        self.at_prompt = False
        self.stopping = False
        self.changed = threading.Condition()
        # Replies can be long (STATUS of a long game): allow far more than commands.
        self.splitter = LineSplitter(1 << 20)

    def read_loop(self) -> None:
        try:
            while not self.stopping:
                data = self.port.read(1)
                if not data:
                    continue
                waiting = self.port.in_waiting
                if waiting:
                    data += self.port.read(waiting)
                for item in self.splitter.feed(data):
                    self.show(item)
        except (serial.SerialException, OSError) as problem:
            if not self.stopping:  # (closing the port ourselves is no loss)
                self.report_lost(problem_words(problem))

    def report_lost(self, reason: str) -> None:
        """The port is gone: say so once, at once (a person may sit at the prompt)."""
        with self.changed:
            if self.lost is None:
                self.lost = reason
                lost = _("lost {port}: {reason}").format(port=self.url, reason=reason)
                self.err.write(f"\ncompanion console: {lost}\n")
                self.err.flush()
            self.changed.notify_all()

    def show(self, item: Line | BadLine) -> None:
        if isinstance(item, BadLine):
            text = _("(an unreadable line from the device: {reason})").format(
                reason=item.message)
        else:
            text = self.format(item.text)
        with self.changed:
            lead = "\r" if self.at_prompt else ""
            self.out.write(lead + text + "\n" + (PROMPT if self.at_prompt else ""))
            self.out.flush()
            if isinstance(item, Line) and item.text.startswith(("OK", "ERR")):
                self.replies += 1
                self.changed.notify_all()

    def format(self, text: str) -> str:
        """A reply made for people: ``OK ["a", "b"]`` (HELP, EXPORT) one item a line."""
        if self.raw or not text.startswith("OK ["):
            return text
        try:
            items = json.loads(text[3:])
        except ValueError:
            return text
        if not all(isinstance(item, str) for item in items):
            return text
        return "\n".join(["OK", *items])

    def wait_reply(self, count: int, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.replies >= count or self.lost, timeout)

    def show_prompt(self) -> None:
        if self.prompt:
            with self.changed:
                self.out.write(PROMPT)
                self.out.flush()
                self.at_prompt = True


def run_console(
    url: str,
    baud: int = 115200,
    *,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    prompt: bool | None = None,
    raw: bool = False,
    reply_timeout: float = 10.0,
) -> int:
    """``companion console PORT``: send each line of ``stdin``, print what comes back.

    Waits for each command's reply (at most ``reply_timeout`` seconds) before sending
    the next, so piped input works; ``EV`` lines are printed as they arrive. The ``>``
    prompt is shown when ``stdin`` is a terminal (or with ``prompt=True``). Exit status
    0, or 1 when a reply did not come or the port went away.
    """
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if prompt is None:
        prompt = stdin.isatty()
    try:
        port = serial.serial_for_url(url, baudrate=baud, timeout=None)
    except (serial.SerialException, OSError, ValueError) as problem:
        raise CompanionError(_("cannot open {port}: {reason}").format(
            port=url, reason=problem_words(problem))) from None
    if not hasattr(port, "cancel_read"):
        port.timeout = 1.0
    client = _Client(port, url, out, err, prompt, raw)
    reader = threading.Thread(target=client.read_loop, name="console-reader", daemon=True)
    reader.start()
    status = 0
    try:
        client.show_prompt()
        while True:
            try:
                line = stdin.readline()
            except UnicodeDecodeError:
                print("companion console: " + _("the input is not UTF-8 text"), file=err)
                status = 1
                break
            if not line:
                break
            text = line.strip()
            client.at_prompt = False
            if not text:
                client.show_prompt()
                continue
            expected = client.replies + 1
            try:
                port.write(text.encode("utf-8") + b"\n")
            except (serial.SerialException, OSError) as problem:
                client.report_lost(problem_words(problem))
            if client.lost:
                break
            if not client.wait_reply(expected, reply_timeout):
                print("companion console: " + _("no reply from {port} within {seconds} s")
                      .format(port=url, seconds=lang.number(reply_timeout)), file=err)
                status = 1
            if client.lost:
                break
            client.show_prompt()
        if prompt:
            out.write("\n")
            out.flush()
    finally:
        client.stopping = True
        if hasattr(port, "cancel_read"):
            port.cancel_read()
        reader.join(2.0)
        port.close()
    return 1 if client.lost else status

