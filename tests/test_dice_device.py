"""Issue 27, point 2: the die is the device's.

A remote (the serial console, the page) asks the device to roll; an event that carries a
chosen face from it is refused unless the table rolls real dice (``[dice] physical =
true``), and then the face is kept with ``"entered": true``, worded "Ann entered 6",
marked on the history and match pages, in exports and on the club page. The buttons
follow the same setting (a face picker with real dice). Replay and import take stored
rolls as they are, with and without the field.
"""

from __future__ import annotations

import io
import json
import random
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from test_console_pty import WAIT, linked
from web_device import Device, physical_config

from companion.chance import REFUSALS, MatchChances, from_afar, physical_dice
from companion.cli import main
from companion.clock import ManualClock, monotonic
from companion.config import Config, Dice, load_config, parse_config
from companion.device.buttons import Press
from companion.errors import ConfigError, IllegalEvent
from companion.games import new_match
from companion.launch import make_app
from companion.remote import commands
from companion.remote.web.views import event_words, log_lines
from companion.sim import sim_board_factory, sim_panel
from companion.store import Store
from companion.ui.pads import pads

QUIET = physical_config()._replace(dice=Dice())
REFUSAL = REFUSALS["dice"]


def remote_faces(match, event, physical: bool, rng: random.Random):
    """The one rule for a remote's chances, with every kind real or none."""
    return from_afar(match, event, MatchChances(rng.randbytes(32)), lambda kind: physical)


def app_on_a_thread(tmp_path: Path, config: Config):
    """The app on mock pins running its own loop, as on the Pi."""
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(),
                   clock=monotonic, seed=4, state_dir=tmp_path / "state")
    thread = threading.Thread(target=app.run, daemon=True)
    thread.start()
    return app, thread


def stop(app, thread) -> None:
    app.quit()
    thread.join(WAIT)
    app.board.close()
    app.ctx.store.close()


def owned_app(tmp_path: Path, config: Config):
    """An app driven from the test's own thread (it is the owner: commands run at once)."""
    app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock(), seed=9, state_dir=tmp_path / "owned")
    app.start()
    return app


@pytest.fixture
def owned(tmp_path):
    made = []

    def build(config: Config = QUIET):
        app = owned_app(tmp_path / str(len(made)), config)
        made.append(app)
        return app

    yield build
    for app in made:
        app.board.close()
        app.ctx.store.close()


# -- the bar: over the serial console -------------------------------------------------------


def test_bar_over_the_serial_console_a_chosen_face_is_err_and_roll_is_ok(tmp_path) -> None:
    app, thread = app_on_a_thread(tmp_path, QUIET)
    try:
        with linked(app, tmp_path) as (_, cable):
            match_id = cable.ask("NEW final-count Ann,Bob")["match_id"]
            cable.send('EVENT {"type": "roll", "player": "Ann", "value": 6}\n')
            assert cable.reply() == f"ERR ILLEGAL {REFUSAL}"
            assert app.ctx.store.events(match_id) == []  # refused: nothing stored
            rolled = cable.ask("ROLL")  # the device rolls for Ann
            assert rolled["event"]["player"] == "Ann" and rolled["event"]["value"] in range(1, 7)
            assert "entered" not in rolled["event"]
            asked = cable.ask('EVENT {"type": "roll", "player": "Bob"}')  # asks it to roll
            assert asked["event"]["value"] in range(1, 7) and "entered" not in asked["event"]
            assert app.ctx.store.events(match_id) == [rolled["event"], asked["event"]]
    finally:
        stop(app, thread)


def test_bar_with_physical_dice_the_chosen_face_is_stored_entered(tmp_path) -> None:
    app, thread = app_on_a_thread(tmp_path, physical_config())
    try:
        with linked(app, tmp_path) as (_, cable):
            match_id = cable.ask("NEW final-count Ann,Bob")["match_id"]
            applied = cable.ask('EVENT {"type": "roll", "player": "Ann", "value": 6}')
            assert applied["event"] == {"type": "roll", "player": "Ann", "value": 6,
                                        "entered": True}
            cable.wait_events(1)
            assert cable.events[-1]["event"]["entered"] is True  # the mirror says so too
            assert app.ctx.store.events(match_id) == [applied["event"]]
            cable.send("ROLL\n")  # real dice: the device does not roll them
            assert cable.reply().startswith("ERR ILLEGAL this table rolls real dice")
            cable.send('EVENT {"type": "roll", "player": "Bob", "value": 2, "entered": false}\n')
            assert cable.reply().startswith('ERR ILLEGAL "entered" is true')
            assert len(app.ctx.store.events(match_id)) == 1
    finally:
        stop(app, thread)


# -- the one rule, for every die event -------------------------------------------------------


CHOSEN = [
    ("final-count", {"hit_goal": True}, {"type": "goal", "rolls": [4, 6]}),
    ("block-lottery", {}, {"type": "pool", "faces": [1, 2, 3, 4, 5, 6] * 2 + [1, 2, 3]}),
]


@pytest.mark.parametrize(("game", "options", "event"), CHOSEN)
def test_every_die_event_with_chosen_faces_is_refused_by_default(owned, game, options,
                                                                 event) -> None:
    app = owned()
    commands.new_game(app, game, ["Ann", "Bob"], options)
    with pytest.raises(commands.RemoteError) as refused:
        commands.guarded(commands.event, app, dict(event))
    assert (refused.value.code, refused.value.message) == ("ILLEGAL", REFUSAL)
    rolled = commands.guarded(commands.event, app, {"type": event["type"]})["event"]
    field = next(key for key in event if key != "type")
    assert len(rolled[field]) == len(event[field]) and "entered" not in rolled
    assert all(face in range(1, 7) for face in rolled[field])


@pytest.mark.parametrize(("game", "options", "event"), CHOSEN)
def test_every_die_event_with_physical_dice_is_kept_entered(owned, game, options,
                                                            event) -> None:
    app = owned(physical_config())
    commands.new_game(app, game, ["Ann", "Bob"], options)
    with pytest.raises(commands.RemoteError) as asked:  # real dice: no roll by the device
        commands.guarded(commands.event, app, {"type": event["type"]})
    assert "this table rolls real dice" in asked.value.message
    applied = commands.guarded(commands.event, app, dict(event))["event"]
    assert applied == {**event, "entered": True}
    assert app.ctx.store.events(app.current_session().match_id) == [applied]


def test_a_reroll_from_afar_is_rolled_by_the_device(owned) -> None:
    app = owned()
    commands.new_game(app, "block-lottery", ["Ann", "Bob"], {})
    pool = commands.roll(app)["event"]  # ROLL rolls Block Lottery's pool now
    assert pool["type"] == "pool" and len(pool["faces"]) == 15
    face = pool["faces"][0]
    commands.event(app, {"type": "take", "player": "Ann", "face": face})  # no die: allowed
    commands.event(app, {"type": "end", "player": "Ann", "cause": "deck_out"})
    with pytest.raises(commands.RemoteError, match="the device rolls the dice here"):
        commands.guarded(commands.event, app, {"type": "reroll", "player": "Ann",
                                               "from": [face], "to": [6]})
    rerolled = commands.event(app, {"type": "reroll", "player": "Ann", "from": [face]})
    assert len(rerolled["event"]["to"]) == 1 and "entered" not in rerolled["event"]


@settings(max_examples=60, deadline=None)
@given(physical=st.booleans(), with_faces=st.booleans(), seed=st.integers(0, 2**32),
       value=st.integers(1, 6))
def test_the_rule_never_lets_a_chosen_face_pass_unmarked(physical, with_faces, seed,
                                                        value) -> None:
    match = new_match("final-count", ["Ann", "Bob"])
    event = {"type": "roll", "player": "Ann", **({"value": value} if with_faces else {})}
    try:
        passed = remote_faces(match, dict(event), physical, random.Random(seed))
    except IllegalEvent:
        assert physical != with_faces  # refused: chosen without real dice, or asked with
        return
    match.apply(passed)
    stored = match.events[-1]
    assert stored.get("entered", False) is physical  # an entered face is always marked
    assert physical or stored["value"] in range(1, 7)


# -- the engines: "entered" is true or left out ---------------------------------------------


@pytest.mark.parametrize("bad", [False, 1, "yes", None, [True]])
def test_entered_is_only_true(bad) -> None:
    match = new_match("final-count", ["Ann", "Bob"], {"hit_goal": True})
    before = match.state()
    with pytest.raises(IllegalEvent, match='"entered" is true'):
        match.apply({"type": "goal", "rolls": [4, 6], "entered": bad})
    assert match.state() == before and match.events == []


def test_final_count_keeps_and_words_an_entered_roll() -> None:
    match = new_match("final-count", ["Ann", "Bob"], {"hit_goal": True})
    match.apply({"type": "goal", "rolls": [4, 6], "entered": True})
    match.apply({"type": "roll", "player": "Ann", "value": 6, "entered": True})
    match.apply({"type": "roll", "player": "Bob", "value": 3})
    state = match.state()
    assert state["goal_entered"] is True
    assert [roll["entered"] for roll in state["rolls"]] == [True, False]
    facts = {fact["label"]: fact["text"] for fact in match.context()["facts"]}
    assert facts["Hit Goal"] == "64 (entered 4 and 6)"
    assert facts["Last roll"] == "Bob rolled 3: draw for Board"
    game = ("final-count", ["Ann", "Bob"], {"hit_goal": True})
    assert [words for _, words in log_lines(match.events, game=game)] == [
        "Hit Goal: entered 4 and 6, the goal is 64",
        "Ann entered 6: swap with Board",
        "Bob rolled 3: draw for Board"]


def test_block_lottery_keeps_and_words_an_entered_pool_and_reroll() -> None:
    match = new_match("block-lottery", ["Ann", "Bob"])
    pool = {"type": "pool", "faces": [2] * 15, "entered": True}
    match.apply(pool)
    match.apply({"type": "take", "player": "Ann", "face": 2})
    match.apply({"type": "end", "player": "Ann", "cause": "deck_out"})
    reroll = {"type": "reroll", "player": "Ann", "from": [2], "to": [5], "entered": True}
    match.apply(reroll)
    state = match.state()
    assert state["pool_entered"] is True
    assert state["rerolled"]["Ann"] == {"from": [2], "to": [5], "entered": True}
    assert event_words(pool) == "Entered the pool: " + " ".join(["2"] * 15)
    assert event_words(reroll) == "Ann re-rolled 2 and entered 5"
    assert event_words({"type": "reroll", "player": "Ann", "from": [2], "to": [5]}) == \
        "Ann re-rolled 2 and got 5"
    assert event_words({"type": "pool", "faces": [1]}) == "Rolled the pool: 1"


# -- replay and import: the record is taken as it is ----------------------------------------


def test_replay_takes_stored_rolls_with_and_without_entered(tmp_path, capsys) -> None:
    log = tmp_path / "log.jsonl"
    old = [{"type": "roll", "player": "Ann", "value": 6}, {"type": "roll", "player": "Bob",
                                                            "value": 2}]
    log.write_text("".join(json.dumps(event) + "\n" for event in old))
    assert main(["replay", "final-count", "--players", "Ann,Bob", "--events", str(log)]) == 0
    before = json.loads(capsys.readouterr().out)
    marked = [{**old[0], "entered": True}, old[1]]
    log.write_text("".join(json.dumps(event) + "\n" for event in marked))
    assert main(["replay", "final-count", "--players", "Ann,Bob", "--events", str(log)]) == 0
    assert json.loads(capsys.readouterr().out) == before  # the same game, marked or not
    log.write_text(json.dumps({**old[0], "entered": "yes"}) + "\n")
    assert main(["replay", "final-count", "--players", "Ann,Bob", "--events", str(log)]) == 1
    assert "line 1" in capsys.readouterr().err


def test_an_export_keeps_entered_and_import_takes_it_back(tmp_path, capsys) -> None:
    source = tmp_path / "source"
    app = owned_app(source, physical_config())
    try:
        match_id = commands.new_game(app, "final-count", ["Ann", "Bob"])["match_id"]
        while not app.current_session().match.over:  # Ann wins each hand with 51
            first = app.current_session().match.current
            second = "Bob" if first == "Ann" else "Ann"
            for event in ({"type": "roll", "player": first, "value": 6},
                          {"type": "call", "player": first},
                          {"type": "roll", "player": second, "value": 5},
                          {"type": "board", "cards": ["10", "J"]},
                          {"type": "hand", "player": "Ann", "cards": ["A", "K", "Q"]},
                          {"type": "hand", "player": "Bob", "cards": ["2", "3", "4"]}):
                commands.event(app, event)
        lines = commands.export(app, str(match_id), "jsonl")
    finally:
        app.board.close()
        app.ctx.store.close()
    assert json.loads(lines[1])["entered"] is True
    exported = tmp_path / "match.jsonl"
    exported.write_text("\n".join(lines) + "\n")
    target = tmp_path / "target"
    target.mkdir()
    assert main(["import", str(exported), "--state-dir", str(target)]) == 0
    with Store(target / Store.DEFAULT_NAME) as store:
        (record,) = store.past()
        assert store.events(record.id)[0] == {"type": "roll", "player": "Ann", "value": 6,
                                              "entered": True}
        assert store.with_entered_dice([record.id]) == {record.id}


# -- pads: no face pads unless the table rolls real dice ------------------------------------


def test_the_pads_have_no_face_pads_unless_physical() -> None:
    match = new_match("final-count", ["Ann", "Bob"], {"hit_goal": True})
    (goal,) = pads(match)
    assert goal["fields"] == [] and goal["send"] == "Roll for the goal"
    (goal,) = pads(match, physical=lambda kind: True)
    assert [f["name"] for f in goal["fields"]] == ["rolls"]
    match.apply({"type": "goal", "rolls": [1, 2]})
    by_type = {pad["type"]: pad for pad in pads(match)}
    assert [f["name"] for f in by_type["roll"]["fields"]] == ["player"]
    by_type = {pad["type"]: pad for pad in pads(match, physical=lambda kind: True)}
    assert [f["name"] for f in by_type["roll"]["fields"]] == ["player", "value"]
    lottery = new_match("block-lottery", ["Ann", "Bob"])
    assert [pad["fields"] for pad in pads(lottery)] == [[]]
    lottery.apply({"type": "pool", "faces": [3] * 15})
    lottery.apply({"type": "take", "player": "Ann", "face": 3})
    lottery.apply({"type": "end", "player": "Ann", "cause": "deck_out"})
    reroll = next(pad for pad in pads(lottery) if pad["type"] == "reroll")
    assert [f["name"] for f in reroll["fields"]] == ["player", "from"]
    reroll = next(pad for pad in pads(lottery, physical=lambda kind: True)
                  if pad["type"] == "reroll")
    assert [f["name"] for f in reroll["fields"]] == ["player", "from", "to"]


# -- the page -------------------------------------------------------------------------------


def test_the_page_refuses_a_chosen_face_and_its_pads_ask_the_device(tmp_path) -> None:
    device = Device(tmp_path / "state")
    try:
        device.pair()
        device.client.post("/api/matches", json={"game": "final-count",
                                                 "players": ["Ann", "Bob"]})
        reply = device.client.post("/api/events", json={"event": {
            "type": "roll", "player": "Ann", "value": 6}})
        assert reply.status_code == 409 and reply.json()["error"] == REFUSAL
        assert device.state()["seq"] == 0
        pad = next(pad for pad in device.state()["pads"] if pad["type"] == "roll")
        assert [field["name"] for field in pad["fields"]] == ["player"]
        sent = device.client.post("/api/events", json={"event": {"type": "roll",
                                                                 "player": "Ann"}})
        assert sent.status_code == 200 and sent.json()["event"]["value"] in range(1, 7)
        assert device.client.post("/api/roll", json={}).status_code == 200  # Bob's roll
        assert device.state()["seq"] == 2
    finally:
        device.close()


def test_the_page_takes_entered_faces_and_marks_them_everywhere(tmp_path) -> None:
    device = Device(tmp_path / "state", config=physical_config())
    try:
        device.pair()
        match_id = device.client.post("/api/matches", json={
            "game": "final-count", "players": ["Ann", "Bob"]}).json()["match_id"]
        pad = next(pad for pad in device.state()["pads"] if pad["type"] == "roll")
        assert [field["name"] for field in pad["fields"]] == ["player", "value"]
        reply = device.client.post("/api/events", json={"event": {
            "type": "roll", "player": "Ann", "value": 6}})
        assert reply.status_code == 200 and reply.json()["event"]["entered"] is True
        refused = device.client.post("/api/roll", json={})
        assert refused.status_code == 409 and "real dice" in refused.json()["error"]
        assert "Ann entered 6: swap with Board" in device.client.get("/").text
        device.client.post("/api/leave", json={})
        rows = device.client.get("/api/history").json()
        assert [(row["id"], row["entered_dice"]) for row in rows] == [(match_id, True)]
        assert "dice entered" in device.client.get("/history").text
        data = device.client.get(f"/api/matches/{match_id}").json()
        assert data["entered_dice"] is True and data["log"][0]["entered"] is True
        assert data["log"][0]["words"] == "Ann entered 6: swap with Board"
        page = device.client.get(f"/matches/{match_id}").text
        assert "dice entered" in page and "were typed in" in page
        exported = device.client.get(f"/matches/{match_id}/export.jsonl").text
        assert json.loads(exported.splitlines()[1])["entered"] is True
    finally:
        device.close()


def test_a_device_rolled_match_is_not_marked(tmp_path) -> None:
    device = Device(tmp_path / "state")
    try:
        device.pair()
        device.client.post("/api/matches", json={"game": "final-count",
                                                 "players": ["Ann", "Bob"]})
        device.client.post("/api/roll", json={})
        device.client.post("/api/leave", json={})
        assert [row["entered_dice"] for row in device.client.get("/api/history").json()] == [
            False]
        assert "dice entered" not in device.client.get("/history").text
    finally:
        device.close()


# -- the buttons ------------------------------------------------------------------------------


def test_with_physical_dice_roll_on_the_device_asks_for_the_face(owned) -> None:
    app = owned(physical_config())
    commands.new_game(app, "final-count", ["Ann", "Bob"], {"hit_goal": True})
    game = app.game_screen()
    picker = game.press(app.ctx, Press("roll"))  # the Hit Goal's two dice
    for button in ("ok", "down", "down", "ok", "roll"):  # 1, then 3
        picker = picker.press(app.ctx, Press(button))
    assert game.session.match.events == [{"type": "goal", "rolls": [1, 3], "entered": True}]
    menu = picker.press(app.ctx, Press("roll"))  # Ann's roll: which face?
    assert menu.title == "Ann rolled?" and menu.items[5].label == "6: swap with Board"
    for _ in range(5):
        menu = menu.press(app.ctx, Press("down"))
    shown = menu.press(app.ctx, Press("ok"))
    assert game.session.match.events[-1] == {"type": "roll", "player": "Ann", "value": 6,
                                             "entered": True}
    assert shown is game
    image = shown.render()
    assert image.size == (128, 64)


def test_without_physical_dice_the_device_rolls_as_before(owned) -> None:
    app = owned()
    commands.new_game(app, "final-count", ["Ann", "Bob"], {})
    game = app.game_screen()
    assert game.press(app.ctx, Press("roll")) is game
    (event,) = game.session.match.events
    assert event["type"] == "roll" and "entered" not in event


def test_block_lottery_with_physical_dice_enters_the_pool_and_the_reroll(owned) -> None:
    app = owned(physical_config())
    commands.new_game(app, "block-lottery", ["Ann", "Bob"], {})
    table = app.game_screen()
    picker = table.press(app.ctx, Press("roll"))
    assert picker.title == "The pool's dice"
    for _ in range(15):
        picker = picker.press(app.ctx, Press("ok"))  # fifteen 1s
    picker.press(app.ctx, Press("roll"))
    assert table.session.match.events[-1] == {"type": "pool", "faces": [1] * 15,
                                              "entered": True}
    commands.event(app, {"type": "take", "player": "Ann", "face": 1})
    commands.event(app, {"type": "end", "player": "Ann", "cause": "deck_out"})
    assert type(app.screen).__name__ == "RoundOver"
    screen = app.screen.press(app.ctx, Press("ok"))  # on to the re-rolls
    reroll = screen.press(app.ctx, Press("ok"))  # Ann's dice
    assert reroll.hint == "OK pick up ROLL enter"
    reroll = reroll.press(app.ctx, Press("ok"))  # pick up her 1
    faces = reroll.press(app.ctx, Press("roll"))  # real dice: which faces came up?
    for button in ("down", "down", "down", "ok", "roll"):
        faces = faces.press(app.ctx, Press(button))
    assert table.session.match.events[-1] == {"type": "reroll", "player": "Ann",
                                              "from": [1], "to": [4], "entered": True}


# -- the config ---------------------------------------------------------------------------------


def test_dice_physical_is_off_by_default_and_read_from_the_file(tmp_path) -> None:
    assert physical_dice(load_config(None, env={})) is False
    assert physical_dice(None) is False
    assert parse_config("[dice]\nphysical = true\n").dice.physical is True
    path = tmp_path / "config.toml"
    path.write_text("[dice]\nphysical = true\n")
    out = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        assert main(["config", "--config", str(path)]) == 0
    assert "[dice]\nphysical = true" in out.getvalue()


@pytest.mark.parametrize("text", ['[dice]\nphysical = "yes"\n', "[dice]\nphysical = 1\n",
                                  "[dice]\nreal = true\n", "dice = true\n"])
def test_a_bad_dice_setting_is_one_line_and_exit_78(tmp_path, capsys, text) -> None:
    with pytest.raises(ConfigError):
        parse_config(text)
    path = tmp_path / "config.toml"
    path.write_text(text)
    assert main(["config", "--config", str(path)]) == 78
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "dice" in err


# -- the club ------------------------------------------------------------------------------------


ENTERED_AT_A_CLUB_TABLE = [
    ("final-count", [{"type": "roll", "player": "Ann", "value": 6, "entered": True}],
     "entered_dice", "dice entered"),
    # [tokens] physical (issue 35): a token from the real tin is marked as entered dice are.
    ("block-lottery", [{"type": "pool", "faces": [2] * 15},
                       {"type": "end", "player": "Ann", "cause": "deck_out"},
                       {"type": "token", "token": "ALL", "entered": True}],
     "entered_tokens", "tokens entered"),
]


@pytest.mark.parametrize(("game", "events", "key", "tag"), ENTERED_AT_A_CLUB_TABLE)
def test_a_club_match_with_entered_faces_says_so_on_the_club_page(tmp_path, game, events,
                                                                  key, tag) -> None:
    from test_club_receiver import FakeLink

    from companion.club.publisher import Publisher
    from companion.club.receiver import Receiver
    from companion.club.web import ClubPage
    from companion.config import Club
    from companion.session import Session

    table = Store(":memory:")
    link = FakeLink()
    publisher = Publisher(Club(broker="mqtt://unused", table="t1"), ":memory:",
                          clock=lambda: 0.0, resend_every=1.0)
    publisher.attach(table, link)
    publisher.handle(("up",))
    session = Session.start(game, ["Ann", "Bob"], store=table,
                            listeners=[lambda s, e, undone=False:
                                       publisher.handle(("signal", s.match_id))])
    publisher.handle(("signal", session.match_id))
    for event in events:
        session.apply(event)
    dashboard = Store(tmp_path / "club.db")
    receiver = Receiver(dashboard, lambda *reply: None, clock=lambda: 0.0, sync_every=0.0)
    for _, topic, data in link.sent:
        receiver.handle(topic, data)
    view = receiver.snapshot()["tables"]["t1"]["match"]
    assert view[key] is True and view["events"] == len(events)
    other = next(mark for mark in ("entered_dice", "entered_tokens") if mark != key)
    assert view[other] is False  # dice entered are not tokens entered, nor the other way

    class Snapshot:
        on_change = None

        def snapshot(self):
            return receiver.snapshot()

    try:
        client = TestClient(ClubPage(Snapshot(), dashboard).asgi())
        assert client.get("/api/club").json()["tables"]["t1"]["match"][key] is True
        page = client.get("/").text
        assert tag in page and ("tokens entered" if key == "entered_dice" else
                                "dice entered") not in page
    finally:
        dashboard.close()
        table.close()


def test_a_huge_reroll_from_afar_is_refused_before_anything_is_rolled() -> None:
    match = new_match("block-lottery", ["Ann", "Bob"])
    with pytest.raises(IllegalEvent):
        remote_faces(match, {"type": "reroll", "player": "Ann", "from": [1] * 100_000},
                     False, random.Random(1))
    assert match.events == []


def test_a_goal_rolled_from_afar_forgets_a_die_rolled_on_the_device(owned) -> None:
    app = owned()
    commands.new_game(app, "final-count", ["Ann", "Bob"], {"hit_goal": True})
    game = app.game_screen()
    game.press(app.ctx, Press("roll"))  # the first of the goal's two dice, on the device
    assert game.goal_first is not None
    goal = commands.event(app, {"type": "goal"})["event"]  # the phone asks for the goal
    assert len(goal["rolls"]) == 2 and game.goal_first is None
