"""Safe on a LAN (issue 20): the door every request passes on the table page and the
club page, attacked as someone on the same Wi-Fi would: cross-origin writes, foreign
Host names, odd bodies, huge ids, bursts of readers. Then the bar: the simulator
started with ``--web`` in a terminal, checked from outside."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import os
import pty
import select
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from web_device import Device, LiveDevice, qr_decoder

from companion.logs import OneLineFormatter
from companion.remote.web.asgi import build_app
from companion.remote.web.gate import CSP, Gate, same_origin, split_host
from companion.remote.web.server import free_port
from companion.remote.web.source import SharedSnapshot

ROOT = Path(__file__).resolve().parent.parent
HEADERS = {"content-security-policy": CSP, "x-content-type-options": "nosniff",
           "referrer-policy": "no-referrer"}


@pytest.fixture
def device(tmp_path):
    made = Device(tmp_path / "state")
    yield made
    made.close()


def refused(reply, status: int, code: str) -> dict:
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    body = reply.json()
    assert body["code"] == code and "\n" not in body["error"], body
    return body


def paired_client(device: Device) -> TestClient:
    device.pair()
    return device.client


# -- Host (DNS rebinding) ---------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/api/state", "/history", "/static/site.js"])
def test_a_foreign_host_is_not_answered(device, path) -> None:
    refused(device.client.get(path, headers={"host": "evil.example"}), 421, "HOST")
    refused(device.client.get(path, headers={"host": "evil.example:8080"}), 421, "HOST")


def test_a_foreign_host_uses_up_no_pairing_tries(device) -> None:
    code, _ = device.pairing.show()
    for _ in range(20):
        refused(device.client.post("/api/pair", json={"code": "000000"},
                                   headers={"host": "rebound.example"}), 421, "HOST")
    assert device.client.post("/api/pair", json={"code": code}).status_code == 200


@pytest.mark.parametrize("host", ["localhost", "localhost:8080", "127.0.0.1:8080", "[::1]:8080",
                                  socket.gethostname(), socket.gethostname().split(".")[0]
                                  + ".local", "TABLE.LAN."])
def test_the_names_the_device_has_are_answered(device, host) -> None:
    app = build_app(device.source, pairing=device.pairing, hosts=["table.lan"])
    reply = TestClient(app).get("/api/state", headers={"host": host})
    assert reply.status_code == 200, reply.text


def test_two_hosts_or_none_is_a_bad_request() -> None:
    async def inner(scope, receive, send):  # pragma: no cover - never reached
        raise AssertionError("the request went through")

    gate, sent = Gate(inner, names=["localhost"]), []

    async def send(message):
        sent.append(message)

    for headers in ([(b"host", b"localhost"), (b"host", b"evil.example")], []):
        scope = {"type": "http", "method": "GET", "path": "/", "headers": headers,
                 "server": ("127.0.0.1", 8080), "scheme": "http"}
        asyncio.run(gate(scope, None, send))
        assert sent[-2]["status"] == 400


def test_host_and_origin_parsing() -> None:
    assert split_host("[FD00::1]:80") == ("fd00::1", "80")
    assert split_host("Table.Local.") == ("table.local", "")
    assert same_origin("http://pi.local:8080", "http", "PI.local:8080")
    assert same_origin("http://pi.local", "http", "pi.local:80")
    assert not same_origin("http://pi.local:8081", "http", "pi.local:8080")
    assert not same_origin("https://pi.local:8080", "http", "pi.local:8080")
    assert not same_origin("null", "http", "pi.local:8080")


# -- writes: origin and body type, before the body is read -------------------------------------


def test_a_cross_origin_write_is_refused_even_from_a_paired_phone(device) -> None:
    client = paired_client(device)
    before = device.roster()
    for headers in ({"origin": "http://testserver:8081"}, {"origin": "null"},
                    {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"}):
        refused(client.post("/api/players", json={"name": "Eve"}, headers=headers),
                403, "ORIGIN")
    assert device.roster() == before
    ok = client.post("/api/players", json={"name": "Ann"},
                     headers={"origin": "http://testserver", "sec-fetch-site": "same-origin"})
    assert ok.status_code == 200 and device.roster() == [*before, "Ann"]


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", None,
                                  "application/jsonp", "application/json-seq"])
def test_a_write_that_is_not_json_is_refused(device, kind) -> None:
    client = paired_client(device)
    headers = {} if kind is None else {"content-type": kind}
    refused(client.post("/api/players", content=b'{"name": "Eve"}', headers=headers),
            415, "MEDIA")
    refused(client.post("/api/pair", content=b'{"code": "123456"}', headers=headers),
            415, "MEDIA")
    assert "Eve" not in device.roster()
    assert client.post("/api/players", content=b'{"name": "Eve"}', headers={
        "content-type": "application/json; charset=utf-8"}).status_code == 200


def test_a_refused_write_is_refused_before_its_body_is_read() -> None:
    reached = []

    async def inner(scope, receive, send):  # pragma: no cover - never reached
        reached.append(scope)

    async def receive():  # pragma: no cover - reading the body is the failure
        raise AssertionError("the body was read")

    sent = []

    async def send(message):
        sent.append(message)

    gate = Gate(inner, names=["localhost"])
    for headers in ([(b"content-type", b"text/plain")],
                    [(b"content-type", b"application/json"), (b"origin", b"http://x.example")]):
        scope = {"type": "http", "method": "POST", "path": "/api/roll", "scheme": "http",
                 "server": ("127.0.0.1", 80), "headers": [(b"host", b"localhost"), *headers]}
        asyncio.run(gate(scope, receive, send))
    assert not reached and [m["status"] for m in sent if "status" in m] == [415, 403]


# -- headers ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/history", "/players", "/pair", "/api/state",
                                  "/api/history", "/static/site.css", "/nothing",
                                  "/api/matches/99999999999999999999"])
def test_every_answer_has_the_security_headers(device, path) -> None:
    reply = device.client.get(path, headers={"accept": "text/html"})
    for name, value in HEADERS.items():
        assert reply.headers.get(name) == value, (path, name)
    assert "frame-ancestors 'none'" in reply.headers["content-security-policy"]
    if path.startswith("/api/"):
        assert reply.headers["cache-control"] == "no-store"


def test_refusals_at_the_door_have_the_headers_too(device) -> None:
    reply = device.client.get("/api/state", headers={"host": "evil.example"})
    assert reply.headers["content-security-policy"] == CSP
    assert reply.headers["cache-control"] == "no-store"


def test_no_template_has_inline_script_style_or_handlers() -> None:
    for folder in (ROOT / "companion" / "remote" / "web" / "templates",
                   ROOT / "companion" / "club" / "templates"):
        for template in folder.glob("*.html"):
            text = template.read_text()
            assert "<script>" not in text and "<style" not in text, template
            assert " style=" not in text and " onclick=" not in text, template
            for line in text.splitlines():
                if "<script" in line:
                    assert 'src="/static/' in line, (template, line)


# -- huge ids and bugs ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/matches/99999999999999999999",
                                  "/matches/99999999999999999999/export.csv",
                                  "/matches/99999999999999999999/export.jsonl",
                                  "/api/matches/9223372036854775808",
                                  "/api/matches/0"])
def test_a_huge_id_is_not_found(device, path) -> None:
    body = refused(device.client.get(path), 404, "NOTFOUND")
    assert "Error" not in body["error"]


def test_a_huge_id_page_is_a_404_page(device) -> None:
    page = device.client.get("/matches/99999999999999999999", headers={"accept": "text/html"})
    assert page.status_code == 404 and "Traceback" not in page.text and "<html" in page.text


def test_a_bug_is_one_log_line_and_words_not_python(device, monkeypatch, caplog) -> None:
    def broken(fn):
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    monkeypatch.setattr(device.source, "read", broken)
    with caplog.at_level(logging.ERROR, logger="companion"):
        page = device.client.get("/history", headers={"accept": "text/html"})
    assert page.status_code == 500 and "OverflowError" not in page.text
    assert "SQLite" not in page.text and "internal error" in page.text
    lines = [OneLineFormatter().format(record) for record in caplog.records]
    assert len(lines) == 1 and "\n" not in lines[0] and "OverflowError" in lines[0]


# -- small API edges ---------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "words"), [
    (b'{"event": {"type": "roll", "type": "call"}}', "twice"),
    (b'{"event": {"type": "roll", "value": 1e999}}', "out of range"),
    (b'{"event": {"type": "roll", "value": -1e999}}', "out of range"),
    (b'{"event": {"type": "roll", "value": NaN}}', "not a number"),
    (b'{"event": {"type": "roll", "value": Infinity}}', "not a number"),
    (b'{"event": {"type": "roll", "value": 99999999999999999999}}', "out of range"),
])
def test_odd_json_is_refused_at_the_door(device, body, words) -> None:
    client = paired_client(device)
    reply = client.post("/api/events", content=body, headers={"content-type": "application/json"})
    assert reply.status_code == 400 and words in reply.json()["error"], reply.text
    assert reply.json()["code"] == "BADARG"


def test_an_unknown_field_is_named_cut_not_echoed_whole(device) -> None:
    reply = device.client.post("/api/pair", json={"x" * 60_000: 1})
    assert reply.status_code == 400 and "unknown field" in reply.json()["error"]
    assert len(reply.content) < 300, len(reply.content)


def test_a_refusal_that_quotes_the_request_is_cut(device) -> None:
    client = paired_client(device)
    assert client.post("/api/matches", json={"game": "scoreboard", "players": ["Ann", "Bob"],
                                             "options": {"target": 10}}).is_success
    for event in ({"type": "points", "player": "Ann", "points": "x" * 60_000},
                  {"type": "x" * 60_000, "player": "Ann"}):
        reply = client.post("/api/events", json={"event": event})
        assert reply.status_code == 409 and reply.json()["code"] == "ILLEGAL", reply.text[:200]
        assert len(reply.json()["error"]) <= 200, len(reply.content)


@pytest.mark.parametrize("name", ["Bartholomew-Jr", "A,B", "bad\u202ename", " "])
def test_a_name_the_rule_refuses_is_badarg(device, name) -> None:
    client = paired_client(device)
    body = client.post("/api/players", json={"name": name}).json()
    assert body["code"] == "BADARG"
    reply = client.post("/api/players", json={"name": name})
    assert reply.status_code == 400
    client.post("/api/players", json={"name": "Ann"})
    assert client.post("/api/players/rename", json={"name": "Ann", "to": name}).status_code == 400


# -- a burst of readers --------------------------------------------------------------------------


def test_fifty_readers_at_once_all_get_the_table_from_one_snapshot(tmp_path,
                                                                   monkeypatch) -> None:
    asked = []
    share = SharedSnapshot.get

    def counted(self):
        asked.append(1)
        return share(self)

    monkeypatch.setattr(SharedSnapshot, "get", counted)
    with LiveDevice(tmp_path / "state") as live:
        taken = []
        snapshot = live.slot.server.source._snapshot

        def counting(app):
            taken.append(1)
            return snapshot(app)

        live.slot.server.source._snapshot = counting
        host, port = "127.0.0.1", live.port

        def load(path: str) -> int:
            conn = http.client.HTTPConnection(host, port, timeout=30)
            try:
                conn.request("GET", path, headers={"accept": "text/html"})
                reply = conn.getresponse()
                reply.read()
                return reply.status
            finally:
                conn.close()

        # Hold the device's thread until every reader has asked for the table.
        gate = threading.Event()
        live.app.post("call", lambda app: gate.wait(60))
        with ThreadPoolExecutor(50) as pool:
            answers = [pool.submit(load, "/" if i % 2 else "/api/state") for i in range(50)]
            wait_for(lambda: len(asked) == 50, "the fifty readers to ask", 60)
            gate.set()
            statuses = [answer.result() for answer in answers]
        assert statuses == [200] * 50  # nobody refused BUSY
        assert len(taken) == 1  # and the device took one snapshot for them all


# -- the club page has the same door ------------------------------------------------------


class FakeDashboard:
    on_change = None

    def snapshot(self):
        return {"tables": {"north": {"table": "north", "online": True, "device": "d3adb33f" * 4,
                                     "current": "uid-1", "match": {
                                         "uid": "uid-1", "game_id": "scoreboard",
                                         "players": ["Ann"], "events": 2, "state": "playing",
                                         "standings": None, "behind": False}}}}


def test_the_club_page_has_the_same_door_and_shows_no_device_ids(tmp_path) -> None:
    from companion.club.web import ClubPage
    from companion.store import Store

    store = Store(tmp_path / "club.db")
    try:
        client = TestClient(ClubPage(FakeDashboard(), store, hosts=("club.lan",)).asgi())
        for path in ("/", "/api/club", "/api/history"):
            refused(client.get(path, headers={"host": "evil.example"}), 421, "HOST")
            ok = client.get(path, headers={"host": "club.lan"})
            assert ok.status_code == 200 and ok.headers["content-security-policy"] == CSP
        data = client.get("/api/club").json()
        text = json.dumps(data)
        assert "d3adb33f" not in text and "uid-1" not in text
        assert data["tables"]["north"]["match"]["events"] == 2
        refused(client.post("/api/players", content=b"{}", headers={
            "content-type": "text/plain"}), 415, "MEDIA")
    finally:
        store.close()


def test_a_club_table_logs_in_with_its_user_name_as_its_client_id() -> None:
    conf = (ROOT / "deploy" / "club" / "mosquitto.conf").read_text()
    assert "\nuse_username_as_clientid true" in conf
    source = (ROOT / "companion" / "club" / "publisher.py").read_text()
    assert "client_id = club.username or" in source and "self.device[:8]" not in source


# -- the bar: the simulator with --web, from outside ---------------------------------------


class Terminal:
    """``companion sim`` on a pseudo-terminal: everything it draws is collected."""

    def __init__(self, *args: str, env: dict[str, str]):
        self.master, slave = pty.openpty()
        os.set_blocking(self.master, False)
        self.process = subprocess.Popen([sys.executable, "-m", "companion", "sim", *args],
                                        stdin=slave, stdout=slave, stderr=slave, env=env,
                                        cwd=ROOT, start_new_session=True)
        os.close(slave)
        self.output = bytearray()
        self._done = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while not self._done.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self.output += chunk

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def close(self) -> str:
        if self.process.poll() is None:
            self.type(b"q")
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._done.set()
        self._reader.join(5)
        os.close(self.master)
        return self.output.decode("utf-8", "replace")


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        reply = conn.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        conn.close()


def wait_for(check, what: str, timeout: float = 30.0):
    """Poll ``check`` until it gives something true (a hang guard, not a timing test)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def shown_pair_url(frames: Path, after: int = 0) -> str | None:
    """The URL in the QR code of the newest frame the simulator wrote (None: none yet)."""
    import zxingcpp
    from PIL import Image

    pictures = sorted(frames.glob("frame-*.png"))
    if len(pictures) <= after:
        return None
    with Image.open(pictures[-1]) as picture:
        found = zxingcpp.read_barcodes(picture.convert("L"))
    return found[0].text if found else None


def frame_count(frames: Path) -> int:
    return len(list(frames.glob("frame-*.png")))


def test_the_bar_against_the_simulator_with_web(tmp_path) -> None:
    qr_decoder()  # reads the code off the panel's frames
    port, frames = free_port(), tmp_path / "frames"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "COLUMNS": "100",
           "LINES": "40", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    terminal = Terminal("--web", f"127.0.0.1:{port}", "--state-dir", str(tmp_path / "state"),
                        "--png", str(frames), env=env)
    try:
        wait_for(lambda: _answers(port), "the page to answer")
        own = {"origin": f"http://127.0.0.1:{port}", "content-type": "application/json"}

        # A cross-origin text/plain write (the form or no-cors fetch of another page).
        status, _, body = request(port, "POST", "/api/roll", b"{}", {
            "origin": f"http://127.0.0.1:{port + 1}", "content-type": "text/plain"})
        assert status == 403 and json.loads(body)["code"] == "ORIGIN"
        status, _, body = request(port, "POST", "/api/pair", b'{"code": "1"}',
                                  {"content-type": "text/plain"})
        assert status == 415 and json.loads(body)["code"] == "MEDIA"
        # A foreign Host.
        status, _, body = request(port, "GET", "/api/state", headers={"host": "evil.example"})
        assert status == 421 and json.loads(body)["code"] == "HOST"
        # A huge id.
        for path in ("/matches/99999999999999999999", "/api/matches/99999999999999999999",
                     "/matches/99999999999999999999/export.csv"):
            status, _, body = request(port, "GET", path)
            assert status == 404 and json.loads(body)["code"] == "NOTFOUND", body
        # A negative Content-Length: the same JSON shape (from the HTTP parser itself).
        with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
            raw.sendall(b"POST /api/roll HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Content-Type: application/json\r\nContent-Length: -5\r\n\r\n{}")
            answer = b""
            while chunk := raw.recv(65536):  # the server closes after its answer
                answer += chunk
            answer = answer.decode()
        assert answer.startswith("HTTP/1.1 400") and "application/json" in answer
        assert '"error"' in answer.split("\r\n\r\n", 1)[1]
        # The headers.
        status, headers, _ = request(port, "GET", "/")
        assert status == 200 and all(headers.get(k) == v for k, v in HEADERS.items())
        assert request(port, "GET", "/api/state")[1]["cache-control"] == "no-store"

        # A code is dead once its screen closes: open Settings > Pair a phone (UP wraps
        # to Settings, OK, OK), read the code from the QR code on the panel, BACK.
        seen = frame_count(frames)
        terminal.type(b"\x1b[A")
        wait_for(lambda: frame_count(frames) > seen, "the menu to move")
        terminal.type(b"\r\r")
        url = wait_for(lambda: shown_pair_url(frames), "the Pair screen's QR code")
        assert url.startswith("http://") and "/pair?code=" in url
        code = url.rpartition("=")[2]
        seen = frame_count(frames)
        terminal.type(b"\x7f")
        wait_for(lambda: frame_count(frames) > seen and not shown_pair_url(frames),
                 "the Pair screen to close")
        status, _, body = request(port, "POST", "/api/pair", json.dumps({"code": code}).encode(),
                                  own)
        assert status == 401 and "no pairing code" in json.loads(body)["error"]

        # Pairing locks after repeated wrong codes (the screen open again).
        terminal.type(b"\r")
        url = wait_for(lambda: shown_pair_url(frames), "the Pair screen again")
        wrong = f"{(int(url.rpartition('=')[2]) + 1) % 1_000_000:06d}"
        statuses = []
        for _ in range(10):
            status, headers, body = request(port, "POST", "/api/pair",
                                            json.dumps({"code": wrong}).encode(), own)
            statuses.append(status)
            if status == 429:
                break
        assert statuses[-1] == 429, statuses
        locked = json.loads(body)
        assert locked["code"] == "LOCKED" and locked["seconds"] > 0
        assert headers["retry-after"] == str(locked["seconds"])
    finally:
        output = terminal.close()
    assert "Traceback" not in output and "Error" not in output, output[-2000:]
    # uvicorn's warning about the bad Content-Length went to the log file, as one line,
    # not into the terminal the screen is drawn in.
    assert "Invalid HTTP" not in output
    logged = (tmp_path / "state" / "companion.log").read_text()
    assert "Traceback" not in logged
    assert [line for line in logged.splitlines() if "Invalid HTTP request" in line]


def _answers(port: int) -> bool:
    try:
        return request(port, "GET", "/api/state")[0] == 200
    except OSError:
        return False


def test_a_bug_inside_a_command_is_words_too(device, monkeypatch) -> None:
    from companion.remote.web import asgi

    def broken(store):
        return 1 / 0

    monkeypatch.setattr(asgi, "player_figures", broken)
    said = device.client.get("/api/players").json()["error"]
    assert "internal error" in said and "ZeroDivision" not in said and "division" not in said
    page = device.client.get("/players", headers={"accept": "text/html"})
    assert page.status_code == 500 and "ZeroDivision" not in page.text
