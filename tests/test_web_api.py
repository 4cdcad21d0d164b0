"""The table page's HTTP API, through Starlette's test client, against a live app.

The app runs its owner loop in a thread (as on the device); every request goes through
the same queue as the buttons. Pairing runs on a manual clock, so expiry needs no sleep.
"""

from __future__ import annotations

import io
import json

import pytest
from starlette.testclient import TestClient
from web_device import Device

from companion.commands.export import export_main
from companion.remote import commands
from companion.remote.web.asgi import build_app
from companion.remote.web.body import MAX_BODY
from companion.remote.web.pairing import CODE_SECONDS, TRIES
from companion.remote.web.source import StoreSource

SCOREBOARD = {"game": "scoreboard", "players": ["Ann", "Bob"], "options": {"target": 20}}


@pytest.fixture
def device(tmp_path):
    made = Device(tmp_path / "state")
    yield made
    made.close()


def one_line_error(reply, status: int) -> str:
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    body = reply.json()
    assert set(body) <= {"error", "code"} and body["error"]
    assert "\n" not in body["error"] and "Traceback" not in body["error"]
    return body["error"]


def finish_scoreboard(device: Device) -> int:
    """Start a scoreboard to 20 and play it to the end through the API; its match id."""
    device.pair()
    started = device.client.post("/api/matches", json=SCOREBOARD)
    assert started.status_code == 200, started.text
    for player, points in (("Ann", 5), ("Bob", 12), ("Ann", 20), ("Bob", 3)):
        reply = device.client.post("/api/events", json={"event": {
            "type": "points", "player": player, "points": points}})
        assert reply.status_code == 200, reply.text
    assert device.state()["over"] is True
    return started.json()["match_id"]


# -- reading ---------------------------------------------------------------------------------


def test_state_without_a_match_is_null(device) -> None:
    assert device.state()["match"] is None


def test_state_of_a_match_has_the_contract_keys(device) -> None:
    device.pair()
    assert device.client.post("/api/matches", json={
        "game": "final-count", "players": ["Ann", "Bob"]}).status_code == 200
    state = device.state()
    for key in ("game", "players", "totals", "over", "winners", "prompt", "seq"):
        assert key in state
    assert state["game"] == "final-count" and state["players"] == ["Ann", "Bob"]
    assert state["seq"] == 0 and state["prompt"] == "Ann: roll or call"


def test_the_pages_render(device) -> None:
    match_id = finish_scoreboard(device)
    for path in ("/", "/history", "/players", f"/matches/{match_id}", "/pair", "/new"):
        reply = device.client.get(path, headers={"accept": "text/html"})
        assert reply.status_code == 200, path
        assert "<html" in reply.text
    table = device.client.get("/").text
    assert "Game over" in table and "Ann" in table and "<svg" in table


def test_history_lists_finished_and_abandoned_matches_with_filters(device) -> None:
    finished = finish_scoreboard(device)
    open_one = device.client.post("/api/matches", json={
        "game": "final-count", "players": ["Cy", "Dee"]}).json()["match_id"]
    device.client.post("/api/leave", json={})
    rows = device.client.get("/api/history").json()
    assert {(row["id"], row["abandoned"]) for row in rows} == {(finished, False),
                                                               (open_one, True)}
    assert [r["id"] for r in device.client.get("/api/history?player=cy").json()] == [open_one]
    assert [r["id"] for r in
            device.client.get("/api/history?game=scoreboard").json()] == [finished]
    page = device.client.get("/history?game=scoreboard").text
    assert f"/matches/{finished}" in page and f"/matches/{open_one}\"" not in page


def test_a_match_has_its_table_chart_and_log_in_words(device) -> None:
    match_id = finish_scoreboard(device)
    data = device.client.get(f"/api/matches/{match_id}").json()
    assert data["winners"] == ["Ann"]
    assert data["table"][0] == ["round", "Ann", "Bob"] and data["table"][-1][0] == "total"
    assert data["chart"].startswith("<svg")
    assert [line["words"] for line in data["log"]][:2] == [
        "Ann scored 5", "Bob scored 12: round 1 over (Ann +5, Bob +12)"]


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_the_export_download_equals_companion_export(device, tmp_path, fmt) -> None:
    match_id = finish_scoreboard(device)
    reply = device.client.get(f"/matches/{match_id}/export.{fmt}")
    assert reply.status_code == 200
    out = io.StringIO()
    assert export_main(str(tmp_path / "state"), str(match_id), fmt, out=out) == 0
    assert reply.content == out.getvalue().encode("utf-8")
    assert "attachment" in reply.headers["content-disposition"]


def test_players_page_shows_the_roster_and_figures(device) -> None:
    finish_scoreboard(device)
    data = device.client.get("/api/players").json()
    assert set(data["roster"]) >= {"Ann", "Bob"}
    overall = data["figures"]["players"]  # the `companion stats --json` shape
    assert (overall["Ann"]["plays"], overall["Ann"]["wins"]) == (1, 1)
    assert (overall["Bob"]["plays"], overall["Bob"]["wins"]) == (1, 0)
    page = device.client.get("/players").text
    assert "Scoreboard" in page and 'data-name="Ann"' in page


# -- pairing --------------------------------------------------------------------------------


WRITES = [("/api/players", {"name": "Eve"}),
          ("/api/matches", {"game": "final-count", "players": ["Ann", "Bob"]}),
          ("/api/events", {"event": {"type": "call", "player": "Ann"}}),
          ("/api/undo", {})]


@pytest.mark.parametrize(("path", "body"), WRITES)
def test_unpaired_writes_get_401_and_change_nothing(device, path, body) -> None:
    before = (device.state(), device.roster())
    one_line_error(device.client.post(path, json=body), 401)
    assert (device.state(), device.roster()) == before


def test_a_code_nobody_shows_pairs_nothing(device) -> None:
    assert "Pair a phone" in one_line_error(
        device.client.post("/api/pair", json={"code": "123456"}), 401)


def test_the_right_code_pairs_once_and_the_cookie_writes(device) -> None:
    code, _ = device.pairing.show()
    reply = device.client.post("/api/pair", json={"code": code})
    assert reply.status_code == 200 and reply.cookies.get("companion_pair")
    assert device.client.post("/api/players", json={"name": "Eve"}).status_code == 200
    assert "Eve" in device.roster()
    other = TestClient(device.client.app)
    one_line_error(other.post("/api/pair", json={"code": code}), 401)  # used up
    one_line_error(other.post("/api/players", json={"name": "Fay"}), 401)


def test_a_bearer_token_works_too(device) -> None:
    code, _ = device.pairing.show()
    token = device.client.post("/api/pair", json={"code": code}).json()["token"]
    other = TestClient(device.client.app)
    reply = other.post("/api/players", json={"name": "Gus"},
                       headers={"Authorization": f"Bearer {token}"})
    assert reply.status_code == 200


def test_five_wrong_tries_retire_the_code(device) -> None:
    code, _ = device.pairing.show()
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(TRIES):
        one_line_error(device.client.post("/api/pair", json={"code": wrong}), 401)
    one_line_error(device.client.post("/api/pair", json={"code": code}), 401)
    new, _ = device.pairing.show()
    assert device.client.post("/api/pair", json={"code": new}).status_code == 200


def test_a_code_expires_after_two_minutes(device) -> None:
    code, _ = device.pairing.show()
    device.clock.advance(CODE_SECONDS)
    one_line_error(device.client.post("/api/pair", json={"code": code}), 401)


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "status"), [
    (b"{not json", 400),
    (b"[1, 2]", 400),
    (b'{"name": "Eve", "extra": 1}', 400),
    (b'{"name": 5}', 400),
    (b'{"name": NaN}', 400),
    (b"\xff\xfe", 400),
    (b'{"name": "' + b"x" * MAX_BODY + b'"}', 413),
])
def test_bad_bodies_get_4xx_and_change_nothing(device, body, status) -> None:
    device.pair()
    before = device.roster()
    reply = device.client.post("/api/players", content=body,
                               headers={"content-type": "application/json"})
    one_line_error(reply, status)
    assert device.roster() == before


def test_an_illegal_event_is_409_with_the_reason(device) -> None:
    device.pair()
    device.client.post("/api/matches", json={"game": "final-count", "players": ["Ann", "Bob"]})
    error = one_line_error(device.client.post("/api/events", json={"event": {
        "type": "roll", "player": "Bob"}}), 409)
    assert "Ann" in error
    assert device.state()["seq"] == 0


def test_a_new_game_over_an_open_one_asks_first(device) -> None:
    device.pair()
    first = device.client.post("/api/matches", json={"game": "final-count",
                                                     "players": ["Ann", "Bob"]}).json()
    reply = device.client.post("/api/matches", json=SCOREBOARD)
    assert reply.status_code == 409 and reply.json()["code"] == "OPEN"
    assert device.state()["match_id"] == first["match_id"]
    forced = device.client.post("/api/matches", json={**SCOREBOARD, "force": True})
    assert forced.status_code == 200
    rows = device.client.get("/api/history").json()
    assert [(r["id"], r["abandoned"]) for r in rows] == [(first["match_id"], True)]


def test_roll_and_undo_go_through_the_game(device) -> None:
    device.pair()
    device.client.post("/api/matches", json={"game": "final-count", "players": ["Ann", "Bob"]})
    rolled = device.client.post("/api/roll", json={})
    assert rolled.status_code == 200 and rolled.json()["seq"] == 1
    assert device.state()["seq"] == 1
    assert device.client.post("/api/undo", json={}).json()["seq"] == 0
    one_line_error(device.client.post("/api/undo", json={}), 409)


def test_unknown_pages_and_methods_are_json(device) -> None:
    one_line_error(device.client.get("/api/nothing"), 404)
    one_line_error(device.client.request("DELETE", "/api/state", json={}), 405)
    one_line_error(device.client.delete("/api/state"), 415)  # refused at the door first
    one_line_error(device.client.get("/api/matches/999"), 404)
    one_line_error(device.client.get("/matches/999/export.csv"), 404)
    one_line_error(device.client.get("/matches/1/export.txt"), 404)
    page = device.client.get("/nothing", headers={"accept": "text/html"})
    assert page.status_code == 404 and "Traceback" not in page.text


def test_a_bug_is_a_500_json_line_and_the_device_carries_on(device, monkeypatch) -> None:
    def broken(fn):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(device.source, "read", broken)
    reply = TestClient(device.client.app, raise_server_exceptions=False).get("/api/history")
    said = one_line_error(reply, 500)
    assert "internal error" in said and "ZeroDivision" not in said  # no Python words
    assert device.state()["match"] is None


def test_closed_reads_need_pairing(tmp_path) -> None:
    closed = Device(tmp_path / "state", open_reads=False)
    try:
        one_line_error(closed.client.get("/api/state"), 401)
        page = closed.client.get("/", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/pair"
        closed.pair()
        assert closed.client.get("/api/state").status_code == 200
    finally:
        closed.close()


def test_a_store_source_only_reads(tmp_path) -> None:
    from companion.store import Store

    store = Store(tmp_path / "club.db")
    client = TestClient(build_app(StoreSource(store)))
    assert client.get("/api/state").json()["match"] is None
    assert client.get("/api/history").json() == []
    one_line_error(client.post("/api/players", json={"name": "Ann"}), 403)
    store.close()


def test_extra_routes_and_templates_mount(tmp_path) -> None:
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from companion.store import Store

    (tmp_path / "tables.html").write_text('{% extends "base.html" %}{% block main %}'
                                          "tables: {{ count }}{% endblock %}")
    store = Store(tmp_path / "club.db")

    async def tables(request):
        return request.app.state.site.render(request, "tables.html", count=3)

    async def ping(request):
        return PlainTextResponse("pong")

    client = TestClient(build_app(StoreSource(store), template_dirs=[tmp_path], title="Club",
                                  extra_routes=[Route("/tables", tables), Route("/ping", ping)]))
    page = client.get("/tables").text
    assert "tables: 3" in page and "Club" in page
    assert client.get("/ping").text == "pong"
    store.close()


def test_commands_are_the_ones_the_serial_console_uses(device) -> None:
    # The page posts through commands.call: a command from elsewhere shows on the page.
    device.pair()
    commands.call(device.app, commands.add_player, "Hal")
    assert "Hal" in device.roster()
    assert json.loads(json.dumps(device.state())) == device.state()


# -- the backup download (issue 22) -------------------------------------------------------------


def test_a_paired_phone_downloads_a_backup_that_restores(device, tmp_path) -> None:
    import zipfile

    from companion.commands.backup import restore_main
    from companion.store import Store

    one_line_error(device.client.get("/api/backup"), 401)  # paired phones only
    match_id = finish_scoreboard(device)
    page = device.client.get("/")
    assert 'href="/api/backup"' in page.text  # offered where the paired writes are
    reply = device.client.get("/api/backup")
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"] == "application/zip"
    assert reply.headers["content-disposition"].endswith('.companion-backup"')
    assert reply.headers["cache-control"] == "no-store"
    file = tmp_path / "phone.companion-backup"
    file.write_bytes(reply.content)
    with zipfile.ZipFile(file) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    assert manifest["counts"]["matches"] == 1 and manifest["counts"]["unfinished"] == 0
    assert restore_main(str(file), tmp_path / "restored", ids="take",
                        out=io.StringIO()) == 0
    with Store(tmp_path / "restored" / "companion.db") as restored:
        assert restored.match(match_id).finished is not None
        assert len(restored.events(match_id)) == 4


# -- the last edges ---------------------------------------------------------------------------


def test_the_qr_address_pairs_by_itself_only_when_the_person_opened_it(device) -> None:
    code, _ = device.pairing.show()
    # Sent here by a link on another site: the form is filled in and waits for a tap.
    page = device.client.get(f"/pair?code={code}", headers={"Sec-Fetch-Site": "cross-site"})
    assert page.status_code == 200 and f'value="{code}"' in page.text
    assert 'data-auto="yes"' not in page.text and "tap Pair" in page.text
    # No header at all (an old browser, a script): the same.
    assert 'data-auto="yes"' not in device.client.get(f"/pair?code={code}").text
    # Typed or scanned: it pairs in one step.
    typed = device.client.get(f"/pair?code={code}", headers={"Sec-Fetch-Site": "none"})
    assert 'data-auto="yes"' in typed.text
    # None of these visits spent a try: the code still pairs.
    assert device.client.post("/api/pair", json={"code": code}).status_code == 200


@pytest.mark.parametrize("digits", [21, 4_300, 4_301, 5_000, 20_000])
def test_an_id_of_any_length_is_404(device, digits) -> None:
    for path in (f"/matches/{'9' * digits}", f"/api/matches/{'9' * digits}",
                 f"/matches/{'9' * digits}/export.csv"):
        reply = device.client.get(path)
        assert reply.status_code == 404, (path[:30], reply.status_code)
        assert reply.json()["code"] == "NOTFOUND"


@pytest.mark.parametrize("name", ["Content-Type", "Origin", "Host", "Content-Length",
                                  "Sec-Fetch-Site"])
def test_a_header_the_door_reads_given_twice_is_refused(device, name) -> None:
    device.pair()
    value = {"Content-Type": "application/json", "Origin": "http://testserver",
             "Host": "testserver", "Content-Length": "15",
             "Sec-Fetch-Site": "same-origin"}[name]
    headers = [(name, value), (name, value)]
    if name != "Content-Type":
        headers.append(("Content-Type", "application/json"))
    before = device.roster()
    reply = device.client.post("/api/players", content=b'{"name": "Eve"}', headers=headers)
    assert reply.status_code == 400, reply.text
    one_line_error(reply, 400)
    assert device.roster() == before


def test_a_player_page_has_no_row_for_a_game_never_finished(device) -> None:
    finish_scoreboard(device)
    started = device.client.post("/api/matches", json={
        "game": "count-up-21", "players": ["Ann", "Bob"], "options": {}})
    assert started.status_code == 200, started.text
    device.client.post("/api/leave", json={})  # kept as abandoned: never finished
    figures = device.client.get("/api/players/Ann").json()["figures"]
    assert list(figures["games"]) == ["scoreboard"]
    page = device.client.get("/players/Ann").text
    assert "0 played" not in page and "Count Up 21" not in page.split("<h2>Matches")[0]
