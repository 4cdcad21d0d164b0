"""Issue 37 point 6: a request says its body's length once. Two Content-Length headers
(equal or not, or one listing two values) and Content-Length beside Transfer-Encoding
are refused with 400 and the pages' one-line JSON, against the real uvicorn server over
a raw socket: h11 merges two equal Content-Length headers before the page sees them, so
the check reads the request's own bytes."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from web_device import LiveDevice

from companion.remote.web.server import framing_problem

HEAD = (b"POST /api/roll HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\n")
TWICE = b"a request gives its Content-Length once"
BOTH = b"a request gives Content-Length or Transfer-Encoding, not both"
FOLDED = b"a request writes each header on one line"


def exchange(port: int, data: bytes, count: int = 1) -> bytes:
    """Send ``data`` on a fresh connection; what the server sends until it closes the
    connection or ``count`` whole answers are in (a connection kept alive)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
        raw.sendall(data)
        answer = b""
        while len(answers(answer)) < count and (chunk := raw.recv(65536)):
            answer += chunk
    return answer


def answers(data: bytes) -> list[tuple[int, dict]]:
    """The (status, JSON body) of each whole answer in ``data``, in order."""
    found = []
    while b"\r\n\r\n" in data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = next(int(line.split(b":")[1]) for line in lines
                      if line.lower().startswith(b"content-length:"))
        if len(rest) < length:
            break
        found.append((int(lines[0].split()[1]), json.loads(rest[:length])))
        data = rest[length:]
    return found


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    with LiveDevice(tmp_path_factory.mktemp("framing") / "state") as live:
        yield live


@pytest.mark.parametrize(("lengths", "said"), [
    (b"Content-Length: 2\r\nContent-Length: 2\r\n", TWICE),      # the bar: equal
    (b"Content-Length: 2\r\ncontent-length: 3\r\n", TWICE),      # not equal
    (b"Content-Length: 2, 2\r\n", TWICE),                         # two values in one
    (b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", BOTH),
    (b"Transfer-Encoding: chunked\r\nContent-Length: 2\r\n", BOTH),
    # Folded onto a second line (obs-fold): h11 joins " ,2" to the Content-Length above
    # (two lengths, merged into one) and a reader that does not join it sees a header
    # of its own, here a Transfer-Encoding beside the Content-Length.
    (b"Content-Length: 2\r\n ,2\r\n", FOLDED),
    (b"Content-Length: 2\r\n\t, 2\r\n", FOLDED),
    (b"Content-Length: 2\r\nX-Note: a\r\n Transfer-Encoding: chunked\r\n", FOLDED),
])
def test_bar_a_body_framed_twice_is_400_in_one_line(device, lengths, said) -> None:
    answer = exchange(device.port, HEAD + lengths + b"Connection: close\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 400 ")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower()
    assert b"content-security-policy" in head.lower()  # the page's headers, as ever
    assert json.loads(body) == {"error": said.decode(), "code": "BADARG"}
    assert body.count(b"\n") == 0


def test_one_content_length_goes_on_to_the_page(device) -> None:
    answer = exchange(device.port, HEAD + b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
    status, body = answers(answer)[0]
    assert status == 401 and body.get("code") != "BADARG"  # the page's own answer: not paired
    chunked = (HEAD + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
               b"2\r\n{}\r\n0\r\n\r\n")
    assert answers(exchange(device.port, chunked))[0][0] == 401


def test_a_pipelined_second_request_framed_twice_is_refused(device) -> None:
    good = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    bad = HEAD + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"
    found = answers(exchange(device.port, good + bad, count=2))
    assert [status for status, _ in found] == [200, 400]
    assert found[1][1]["error"] == TWICE.decode()
    # and the server carries on
    assert answers(exchange(device.port, good))[0][0] == 200


@pytest.mark.parametrize(("head", "said"), [
    (b"POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\n", ""),
    (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", TWICE.decode()),
    (b"POST / HTTP/1.1\nContent-Length: 1\nCONTENT-LENGTH : 1\n\n", TWICE.decode()),
    (b"POST / HTTP/1.1\r\nContent-Length: 1\r\n", ""),  # the head is not all here yet
    (b"POST / HTTP/1.1\r\nX-Note: a\r\n Content-Length: 1\r\nContent-Length: 1\r\n\r\n",
     FOLDED.decode()),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nContent-Length: 1\r\n", ""),
    (b"POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\ncontent-length: 0\r\n\r\n",
     BOTH.decode()),
])
def test_framing_problem_reads_only_the_head(head, said) -> None:
    assert framing_problem(head) == said


def test_the_refusal_is_one_line_in_the_log(device, tmp_path: Path, caplog) -> None:
    with caplog.at_level("WARNING", logger="companion"):
        exchange(device.port, HEAD + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}")
    lines = [record.getMessage() for record in caplog.records
             if "refused a request" in record.getMessage()]
    assert lines == [f"web page: refused a request: {TWICE.decode()}"]
