"""A sixth game added the way docs/adding-a-game.md says: High Card lives in tests/sixth/
(its engine module and its screens module), joins with one registry line
(``companion.games.register``) and is played on the simulator (script mode), over the
serial console (a pty) and on the page (Starlette's TestClient); the registration is
taken back after each test, and nothing else anywhere had to be told about it."""

from __future__ import annotations

import json
import threading

import pytest
from sixth import LINE
from sixth.engine import HighCard
from test_console_pty import WAIT, linked
from web_device import Device, quiet_config

from companion import games
from companion.cli import main
from companion.clock import monotonic
from companion.launch import make_app
from companion.sim import sim_board_factory, sim_panel
from companion.speech.announcer import words_for
from companion.ui.games import has_screens, table_class
from companion.ui.pads import pads

#: One round to win: Ann shows 5, Bob shows 3.
ROUND = [{"type": "card", "player": "Ann", "value": 5},
         {"type": "card", "player": "Bob", "value": 3}]


@pytest.fixture
def high_card():
    before = list(games.GAMES)
    games.register(LINE)
    yield LINE
    games.unregister(LINE.game_id)
    assert games.GAMES == before


def test_the_registry_line_is_all_the_device_needs(high_card) -> None:
    assert games.engine("high-card") is HighCard and games.title("high-card") == "High Card"
    assert has_screens("high-card") and table_class("high-card").__name__ == "HighCardTable"
    assert type(words_for("high-card")).__name__ == "HighCardWords"
    match = games.new_match("high-card", ["Ann", "Bob"])
    [pad] = pads(match)
    assert pad["type"] == "card" and [f["name"] for f in pad["fields"]] == ["player", "value"]
    with pytest.raises(ValueError, match="registered already"):
        games.register(LINE)
    with pytest.raises(ValueError, match="game id"):
        games.register(LINE._replace(game_id="High Card"))
    # A line whose engine says another id or title: the store would write one id and
    # the screens be looked up by the other (a match started and never shown).
    with pytest.raises(ValueError, match="sixth.engine's game id is 'high-card'"):
        games.register(LINE._replace(game_id="high-cards"))
    games.unregister(LINE.game_id)
    try:
        with pytest.raises(ValueError, match="sixth.engine's title is 'High Card'"):
            games.register(LINE._replace(title="High Cards"))
        assert games.info("high-cards") is None and games.info("high-card") is None
    finally:
        games.register(LINE)


def test_unregistered_the_device_does_not_know_it() -> None:
    assert games.info("high-card") is None and not games.available("high-card")
    assert main(["replay", "high-card", "--players", "Ann,Bob"]) != 0


def test_played_on_the_simulator_in_script_mode(high_card, tmp_path, capsys) -> None:
    script = tmp_path / "high-card.txt"
    # Ann moves from 1 up to 5 and shows it; Bob from 1 up to 3.
    script.write_text("UP\nUP\nUP\nUP\nOK\nDOWN\nDOWN\nDOWN\nDOWN\nUP\nUP\nOK\n")
    code = main(["sim", "--new", "high-card", "--players", "Ann,Bob", "--option", "points=1",
                 "--script", str(script), "--state-dir", str(tmp_path / "state"),
                 "--log-events"])
    out = capsys.readouterr().out
    assert code == 0
    logged = [json.loads(line.split(" ", 1)[1]) for line in out.splitlines()
              if line.startswith("event ")]
    assert [{k: v for k, v in event.items() if k in ("type", "player", "value")}
            for event in logged] == ROUND


def test_played_over_the_serial_console(high_card, tmp_path) -> None:
    app = make_app(quiet_config(), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=monotonic, seed=3, state_dir=tmp_path / "state")
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    try:
        with linked(app, tmp_path) as (_, cable):
            match_id = cable.ask("NEW high-card Ann,Bob points=1")["match_id"]
            cable.send('EVENT {"type": "card", "player": "Bob", "value": 9}\n')
            assert cable.reply().startswith("ERR ILLEGAL")  # Ann's turn: nothing changes
            replies = [cable.ask("EVENT " + json.dumps(event)) for event in ROUND]
            assert replies[-1]["over"] is True and replies[-1]["seq"] == 2
            # The match is over: the table shows who won.
            assert cable.ask("STATUS") == {"screen": "GameOverScreen", "game": None}
            assert app.ctx.store.events(match_id) == ROUND
    finally:
        app.quit()
        thread.join(WAIT)
        app.board.close()
        app.ctx.store.close()


def test_played_on_the_page(high_card, tmp_path) -> None:
    device = Device(tmp_path / "state")
    try:
        device.pair()
        started = device.client.post("/api/matches", json={
            "game": "high-card", "players": ["Ann", "Bob"], "options": {"points": 1}})
        assert started.status_code == 200, started.text
        [pad] = device.state()["pads"]
        assert pad["type"] == "card"
        assert [field["values"] for field in pad["fields"]] == [[], list(range(1, 14))]
        refused = device.client.post("/api/events", json={"event": {
            "type": "card", "player": "Ann", "value": 14}})
        assert refused.status_code == 409 and device.state()["seq"] == 0
        for event in ROUND:
            reply = device.client.post("/api/events", json={"event": event})
            assert reply.status_code == 200, reply.text
        state = device.state()
        assert state["over"] is True and state["winners"] == ["Ann"]
        assert state["totals"] == {"Ann": 1, "Bob": 0}
    finally:
        device.close()


def test_a_match_of_a_game_taken_back_never_blocks_a_new_one(tmp_path) -> None:
    """An unfinished match of a game this device no longer knows (unregistered, or a
    club's own game gone) stays in the log as it was, and the buttons, the console and
    the page start new games as if it were not there."""
    from companion.remote import commands
    from companion.ui.resume import resume_offer, unfinished_first, waiting_session
    from companion.ui.screen import Menu

    app = make_app(quiet_config(), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=monotonic, seed=3, state_dir=tmp_path / "state")
    try:
        games.register(LINE)
        try:
            started = commands.new_game(app, "high-card", ["Ann", "Bob"], {"points": 1})
            commands.event(app, ROUND[0])
        finally:
            games.unregister(LINE.game_id)
        app.set_screen(Menu("Home", []))  # as after a restart: nothing on the screen
        assert waiting_session(app.ctx) is None
        assert resume_offer(app.ctx, Menu("Home", [])) is None
        assert unfinished_first(app.ctx, Menu("Home", []), lambda: "setup") == "setup"
        assert commands.new_game(app, "final-count", ["Ann", "Bob"])["game"] == "final-count"
        # Nothing of the match taken back was lost: it waits in the log as it was.
        assert app.ctx.store.events(started["match_id"]) == ROUND[:1]
    finally:
        app.board.close()
        app.ctx.store.close()


def test_lang_check_walks_a_registered_game_without_being_told(high_card) -> None:
    """The screen walk of ``companion lang-check`` reads the registry: a game joined
    with its line is walked (seated at its most players, with its default options) and
    one taken back is not; nothing else keeps a list of the games it walks."""
    from companion.commands.inspect import Inspector, Walk, game_walks

    walks = game_walks()
    assert ("high-card", HighCard.max_players, {}, set(), None) in walks
    assert [walk[0] for walk in walks if walk[0] != "high-card"] == [
        walk[0] for walk in _without_high_card()]
    with Inspector() as inspector:
        walk = Walk(inspector, seed=3).game("high-card", HighCard.max_players, {}, 60)
    assert {"HighCardSetup", "HighCardTable"} <= walk.seen


def _without_high_card() -> list:
    from companion.commands.inspect import game_walks

    games.unregister(LINE.game_id)
    try:
        return game_walks()
    finally:
        games.register(LINE)
