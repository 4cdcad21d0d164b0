"""The event stream (``GET /api/stream``) from a real server beside a live device.

Each applied event is one message, ``id`` = its seq, ``data`` = the serial console's
``EV`` JSON; an undo is a message too; ``Last-Event-ID`` resends only what was missed,
also after the device restarted (from the game log). Nothing here sleeps: reads wait
for the server's next message (with a timeout only against a hang).
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest
from web_device import LiveDevice, physical_config

from companion.remote import commands

#: The tests choose the faces, as a table with real dice does (their device is physical).
ROLL = {"type": "roll", "player": "Ann", "value": 2, "entered": True}


class Stream:
    """One open ``/api/stream`` connection, read message by message."""

    def __init__(self, url: str, query: str = "", last: int | None = None):
        where = urlsplit(url)
        self.conn = http.client.HTTPConnection(where.hostname, where.port, timeout=20)
        headers = {"Accept": "text/event-stream"}
        if last is not None:
            headers["Last-Event-ID"] = str(last)
        self.conn.request("GET", "/api/stream" + query, headers=headers)
        self.reply = self.conn.getresponse()
        #: The announcements heard (``event: say``), kept aside from the other messages.
        self.said: list[dict] = []
        assert self.reply.status == 200
        assert self.reply.getheader("content-type").startswith("text/event-stream")

    def next(self) -> dict:
        """The next message: {"event", "id", "data"} (comments, retry and the
        keepalive messages skipped; announcements kept in :attr:`said`)."""
        message: dict = {}
        while True:
            line = self.reply.fp.readline().decode("utf-8")
            assert line, "the stream ended"
            line = line.rstrip("\n")
            if not line:
                if message.get("event") == "say":
                    self.said.append(message["data"])
                elif "data" in message and message.get("event") != "keepalive":
                    message.setdefault("event", "message")
                    return message
                message = {}
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(": ")
            if field == "data":
                message["data"] = json.loads(value)
            elif field in ("id", "event"):
                message[field] = value

    def until_view(self) -> tuple[list[dict], dict]:
        """The event messages up to the next view, and that view."""
        events = []
        while True:
            message = self.next()
            if message["event"] == "view":
                return events, message["data"]
            events.append(message)

    def close(self) -> None:
        self.conn.close()


def new_final_count(device: LiveDevice) -> int:
    return device.call(commands.new_game, "final-count", ["Ann", "Bob"], {})["match_id"]


def roll(device: LiveDevice, player: str, value: int) -> dict:
    return device.call(commands.event, {"type": "roll", "player": player, "value": value})


@pytest.fixture
def device(tmp_path):
    with LiveDevice(tmp_path / "state", config=physical_config()) as live:
        yield live


def test_each_event_is_one_message_with_the_serial_json(device) -> None:
    stream = Stream(device.url)
    try:
        events, view = stream.until_view()
        assert events == [] and view["match_id"] is None
        match_id = new_final_count(device)
        events, view = stream.until_view()  # a new game: the page follows, no message
        assert events == [] and view["match_id"] == match_id and "Ann" in view["html"]
        roll(device, "Ann", 2)
        events, view = stream.until_view()
        assert [m["id"] for m in events] == ["1"]
        assert events[0]["data"] == {"game": "final-count", "match_id": match_id, "seq": 1,
                                     "event": ROLL}
        assert view["seq"] == 1 and "Ann entered 2" in view["html"]
        device.call(commands.undo)
        events, view = stream.until_view()
        assert [(m["id"], m["data"]) for m in events] == [
            ("0", {"game": "final-count", "match_id": match_id, "seq": 0, "undone": ROLL})]
        assert view["seq"] == 0 and "Ann entered 2" not in view["html"]
    finally:
        stream.close()


def test_a_button_press_reaches_the_stream(tmp_path) -> None:
    with LiveDevice(tmp_path / "state") as device:  # the device rolls its own die
        new_final_count(device)
        stream = Stream(device.url)
        try:
            stream.until_view()
            device.press("roll")  # the big button on the game screen rolls for Ann
            events, view = stream.until_view()
            assert [m["data"]["event"]["type"] for m in events] == ["roll"]
            assert view["seq"] == 1
        finally:
            stream.close()


def test_the_device_announcements_reach_the_page_once(tmp_path) -> None:
    """Issue 39.4: what the device announces reaches the page through its stream (the
    TV view speaks it when asked), once: never again on a reconnect."""
    with LiveDevice(tmp_path / "state") as device:
        match_id = new_final_count(device)
        stream = Stream(device.url)
        try:
            stream.until_view()
            device.press("roll")
            events, view = stream.until_view()
            assert [m["data"]["event"]["type"] for m in events] == ["roll"]
            value = events[0]["data"]["event"]["value"]
            assert [(said["kind"], said["text"].split(":")[0]) for said in stream.said] == [
                ("rolls", f"Ann, {value}"), ("turns", "Bob's turn")]
            assert all(said["language"] == "en" and said["at"] > 0 for said in stream.said)
        finally:
            stream.close()
        again = Stream(device.url, f"?match={match_id}", last=0)  # a page that reconnects
        try:
            events, _ = again.until_view()
            assert [m["id"] for m in events] == ["1"] and again.said == []
        finally:
            again.close()


def test_last_event_id_resends_only_what_was_missed(device) -> None:
    match_id = new_final_count(device)
    for player, value in (("Ann", 2), ("Bob", 3), ("Ann", 4)):
        roll(device, player, value)
    stream = Stream(device.url, f"?match={match_id}", last=1)
    try:
        events, view = stream.until_view()
        assert [m["id"] for m in events] == ["2", "3"]
        assert [m["data"]["event"]["value"] for m in events] == [3, 4]
        assert view["seq"] == 3
        roll(device, "Bob", 5)
        events, _ = stream.until_view()
        assert [m["id"] for m in events] == ["4"]  # live again, nothing twice
    finally:
        stream.close()


def test_an_undo_missed_while_away_resets_the_page(device) -> None:
    match_id = new_final_count(device)
    roll(device, "Ann", 2)
    roll(device, "Bob", 3)
    device.call(commands.undo)
    stream = Stream(device.url, f"?match={match_id}", last=2)
    try:
        first = stream.next()
        assert first["event"] == "reset" and first["data"] == {"match_id": match_id, "seq": 1}
        assert stream.next()["event"] == "view"
    finally:
        stream.close()


def test_after_a_restart_the_stream_catches_up_from_the_log(tmp_path) -> None:
    with LiveDevice(tmp_path / "state", config=physical_config()) as device:
        match_id = new_final_count(device)
        for player, value in (("Ann", 2), ("Bob", 3), ("Ann", 4)):
            roll(device, player, value)
    with LiveDevice(tmp_path / "state") as again:  # offers to resume; nothing on screen
        stream = Stream(again.url, f"?match={match_id}", last=1)
        try:
            events, view = stream.until_view()
            assert [(m["id"], m["data"]["event"]["value"]) for m in events] == [("2", 3),
                                                                                ("3", 4)]
            assert view["match_id"] is None
            again.press("ok")  # "Resume Final Count?" yes: the page follows the match
            events, view = stream.until_view()
            assert events == [] and (view["match_id"], view["seq"]) == (match_id, 3)
        finally:
            stream.close()
