"""The table page people use (issue 24), without a browser: each game's context in
/api/state from the same state the OLED draws, the entry pads built from what the match
expects, words a player knows, the game waiting to be resumed, the page title."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_web_api import Device

from companion.errors import IllegalEvent
from companion.games import new_match
from companion.remote.web import views
from companion.session import Session
from companion.ui.canvas import Canvas
from companion.ui.final_count.table import FinalCountTable
from companion.ui.pads import pads

GAMES = [("final-count", ["Ann", "Bob", "Cy"]), ("block-lottery", ["Ann", "Bob"]),
         ("card-down", ["Ann", "Bob"]), ("full-counter", ["Ann", "Bob"]),
         ("count-up-21", ["Ann", "Bob"]), ("scoreboard", ["Ann", "Bob"])]
CSS = Path(views.__file__).parent / "static" / "site.css"


@pytest.fixture
def device(tmp_path):
    made = Device(tmp_path / "state")
    yield made
    made.close()


def facts(match) -> dict[str, str]:
    return {fact["label"]: fact["text"] for fact in match.context()["facts"]}


# -- 1: the context ---------------------------------------------------------------------


def test_final_count_context_is_what_the_oled_shows() -> None:
    match = new_match("final-count", ["Ann", "Bob"], {"hit_goal": True})
    match.apply({"type": "goal", "rolls": [4, 6]})
    match.apply({"type": "roll", "player": "Ann", "value": 3})
    state = match.state()  # what FinalCountTable.draw reads
    seen = facts(match)
    assert seen["Hand"] == str(state["hand"]) and seen["Dealer"] == state["dealer"]
    assert seen["Hit Goal"] == "64 (rolled 4 and 6)"
    assert seen["Last roll"] == "Ann rolled 3: draw for Board"
    assert seen["Draw pile"] == f"{state['draw_pile']} cards"
    match.apply({"type": "call", "player": "Bob"})
    assert facts(match)["Called"] == "Bob; last turns: Ann"


class Recording(Canvas):
    """A canvas that keeps the words the OLED draws."""

    def __init__(self) -> None:
        super().__init__()
        self.said: list[str] = []

    def text(self, x: int, y: int, text: str, **kw) -> None:
        self.said.append(text)
        super().text(x, y, text, **kw)


def test_the_oled_and_the_page_say_the_same_roll_and_pile() -> None:
    """The OLED's turn screen and the page's context come from one state()."""
    session = Session.start("final-count", ["Ann", "Bob"], {"hit_goal": True})
    for event in ({"type": "goal", "rolls": [4, 6]},
                  {"type": "roll", "player": "Ann", "value": 3}):
        session.match.apply(event)
    canvas = Recording()
    FinalCountTable(session, None).draw(canvas)
    seen = facts(session.match)
    pile = seen["Draw pile"].split()[0]
    assert f"pile {pile} goal 64" in canvas.said and seen["Hit Goal"].startswith("64")
    assert "3: draw for Board" in canvas.said
    assert seen["Last roll"].endswith("3: draw for Board")


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_every_game_has_a_context_in_the_state(device, game, players) -> None:
    device.pair()
    assert device.client.post("/api/matches", json={
        "game": game, "players": players}).status_code == 200
    context = device.state()["context"]
    assert context["facts"] and context["outcome"] is None
    assert all(set(fact) == {"label", "text"} and fact["text"] for fact in context["facts"])


def test_block_lottery_shows_pool_dice_and_prize_card() -> None:
    match = new_match("block-lottery", ["Ann", "Bob"])
    match.apply({"type": "pool", "faces": [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3]})
    match.apply({"type": "take", "player": "Ann", "face": 4})
    seen = facts(match)
    assert seen["Round"] == "1 of 3"
    assert seen["Pool"] == "14 dice: 1 1 1 2 2 2 3 3 3 4 5 5 6 6"
    assert seen["Ann's dice"] == "4" and seen["Bob's dice"] == "none"
    assert seen["Prize card"] == "1: - | 2: - | 3: -"


def test_a_shared_win_and_a_tie_break_are_explained() -> None:
    match = new_match("scoreboard", ["Ann", "Bob"], {"target": 10})
    match.apply({"type": "points", "player": "Ann", "points": 12})
    match.apply({"type": "points", "player": "Bob", "points": 12})
    assert match.context()["outcome"] == "Ann and Bob tie on 12 and share the win"
    lottery = new_match("block-lottery", ["Ann", "Bob"])
    lottery.tie_break, lottery.winners = True, ["Bob"]
    lottery.totals = {"Ann": 30, "Bob": 30}
    lottery.rounds = [{"points": {"Ann": 8, "Bob": 11}}]
    assert lottery.outcome() == "Ann and Bob tie on 30; Bob wins the tie on round 3 (11 to 8)"


# -- 2: pads --------------------------------------------------------------------------------


def event_from(pad: dict) -> dict:
    """What a phone sends after tapping the first values of each field."""
    event: dict = {"type": pad["type"]}
    for field in pad["fields"]:
        if field["kind"] == "fixed":
            value = field["value"]
        elif field["kind"] == "one":
            if field.get("optional") or not field["values"]:
                continue
            value = field["values"][0]
        elif field["kind"] == "many":
            value = [field["values"][i % len(field["values"])] for i in range(field["min"])]
        else:
            value = field["value"]
        into = event
        *path, last = field["name"].split(".")
        for part in path:
            into = into.setdefault(part, {})
        into[last] = value
    return event


@pytest.mark.parametrize("physical", [False, True])
@pytest.mark.parametrize(("game", "players"), GAMES)
def test_every_pad_sends_the_fields_its_event_has(game, players, physical) -> None:
    """An event built from a pad, as the one rule for a remote's dice passes it on (the
    device rolls what the pad left out; real dice: the faces entered), is never refused
    for its shape (a missing or an unknown field): only the rules may refuse it."""
    from companion.chance import MatchChances, from_afar

    match = new_match(game, players)
    real = lambda kind: physical  # noqa: E731 - every kind real, or none
    assert {pad["type"] for pad in pads(match, real)} == set(match.expecting().types)
    for pad in pads(match, real):
        try:
            match.check(from_afar(match, event_from(pad), MatchChances(bytes(32)), real))
        except IllegalEvent as refused:
            assert "needs" not in str(refused) and "has no field" not in str(refused), refused


def test_the_final_count_board_pad_is_rank_buttons_within_the_limits() -> None:
    match = new_match("final-count", ["Ann", "Bob"])
    match.apply({"type": "roll", "player": "Ann", "value": 3})
    match.apply({"type": "call", "player": "Ann"})
    match.apply({"type": "roll", "player": "Bob", "value": 5})
    (board,) = pads(match)
    (cards,) = board["fields"]
    low, high = match.state()["card_limits"]["board"]
    assert (board["type"], cards["kind"], cards["min"], cards["max"]) == (
        "board", "many", low, high)
    assert cards["values"] == list(match.expecting().choices["cards"])
    match.apply(event_from(board))
    assert match.state()["entered"]["board"] == ["A", "2"]


def test_a_stepper_for_scores_and_no_pads_at_game_over() -> None:
    match = new_match("scoreboard", ["Ann", "Bob"], {"target": 5})
    (points,) = pads(match)
    assert [f["kind"] for f in points["fields"]] == ["one", "number"]
    match.apply({"type": "points", "player": "Ann", "points": 9})
    match.apply({"type": "points", "player": "Bob", "points": 1})
    assert pads(match) == []


# -- 4: words -------------------------------------------------------------------------------


@pytest.mark.parametrize(("event", "words"), [
    ({"type": "end", "player": "Bob", "cause": "deck_out"}, "Bob ended the round: could not draw"),
    ({"type": "end", "player": "Bob", "cause": "empty_hand"},
     "Bob ended the round: had no cards left"),
    ({"type": "score", "player": "Ann", "blocks": 10, "hand": 7},
     "Ann counted 10 cards in blocks and 7 in hand"),
    ({"type": "reroll", "player": "Ann", "from": [2, 4], "to": [5, 1]},
     "Ann re-rolled 2 4 and got 5 1"),
    ({"type": "goal", "rolls": [2, 5]}, "Hit Goal: rolled 2 and 5, the goal is 52"),
    ({"type": "play", "player": "Ann", "value": 7, "count": 2}, "Ann played 2 x 7"),
])
def test_log_lines_read_as_a_person_says_them(event, words) -> None:
    assert views.event_words(event) == words


def test_the_log_gives_each_hands_result() -> None:
    players = ["Ann", "Bob"]
    events = [{"type": "roll", "player": "Ann", "value": 5},
              {"type": "call", "player": "Bob"}, {"type": "roll", "player": "Ann", "value": 5},
              {"type": "board", "cards": ["K", "9"]},
              {"type": "hand", "player": "Ann", "cards": ["10", "10", "9"]},
              {"type": "hand", "player": "Bob", "cards": ["2", "3", "4"]}]
    lines = views.log_lines(events, game=("final-count", players, {}))
    assert lines[-1][1] == ("Bob has 2 3 4: Ann wins with 48, +10 as Bob called and lost; "
                            "hand 1 over (Ann +58, Bob +0)")


def test_a_full_counter_match_is_won_with_the_fewest_losses() -> None:
    match = new_match("full-counter", ["Ann", "Bob"])
    match.phase, match.losses = "over", {"Ann": 1, "Bob": 2}
    assert match.outcome() == "Ann wins with the fewest losses, 1 loss"
    card_down = new_match("card-down", ["Ann", "Bob"])
    card_down.totals = {"Ann": 12, "Bob": 30}
    card_down.phase = "over"
    assert card_down.outcome() == "Ann wins with the lowest total, 12"


def test_the_chart_counts_final_count_by_hand() -> None:
    chart = views.chart_svg(["Ann", "Bob"], [[0, 5, 9], [0, 5, 9]], views.unit("final-count"))
    assert 'aria-label="running totals by hand"' in chart
    # equal totals: the two lines still differ (dashes, markers) and have seat colours
    assert chart.count('stroke-dasharray="') == 1 and "<circle" in chart and "<rect" in chart
    assert 'class="line p0"' in chart and 'class="line p1"' in chart
    assert "style=" not in chart


# -- 5: waiting to be resumed ----------------------------------------------------------------


def test_after_a_restart_the_page_says_the_game_waits_to_be_resumed(tmp_path) -> None:
    first = Device(tmp_path / "state")
    try:
        first.pair()
        started = first.client.post("/api/matches", json={
            "game": "scoreboard", "players": ["Ann", "Bob"], "options": {"target": 50}})
        for player, points in (("Ann", 7), ("Bob", 3)):
            first.client.post("/api/events", json={"event": {
                "type": "points", "player": player, "points": points}})
    finally:
        first.close()
    again = Device(tmp_path / "state")
    try:
        page = again.client.get("/", headers={"accept": "text/html"}).text
        match_id = started.json()["match_id"]
        assert f"match {match_id}</small>" in page
        assert "Waiting to be resumed on the device" in page
        assert "No game on the table" not in page and "from a paired phone" not in page
        assert re.search(r"Ann</td><td class=\"num\">7<", page)
        again.pair()
        new = again.client.get("/new", headers={"accept": "text/html"}).text
        assert "waits to be resumed" in new and "abandoned" in new
    finally:
        again.close()


# -- 8: names, titles, contrast ------------------------------------------------------------


def test_the_page_title_names_the_game_and_whose_turn(device) -> None:
    device.pair()
    device.client.post("/api/matches", json={"game": "final-count", "players": ["Ann", "Bob"]})
    page = device.client.get("/", headers={"accept": "text/html"}).text
    assert "<title>Final Count: Ann to play · Tabletop Companion</title>" in page
    assert 'aria-live="polite"' in page and "to play</span>" in page


def _luminance(colour: str) -> float:
    rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def theme(name: str) -> dict[str, str]:
    block = re.search(r':root\[data-theme="light"\] \{(.*?)\}', CSS.read_text(), re.S)
    if name == "dark":
        block = re.search(r"^:root \{(.*?)\}", CSS.read_text(), re.S | re.M)
    assert block
    return dict(re.findall(r"--([a-z0-9]+): (#[0-9a-f]{6})", block.group(1)))


@pytest.mark.parametrize("name", ["light", "dark"])
def test_text_and_chart_lines_stand_out_in_both_themes(name) -> None:
    colours = theme(name)
    for text in ("fg", "dim", "accent"):
        assert contrast(colours[text], colours["bg"]) >= 4.5, text
        assert contrast(colours[text], colours["turn"]) >= 4.5, text
    for seat in range(views.SEAT_COLOURS):
        assert contrast(colours[f"c{seat}"], colours["bg"]) >= 3, seat


def test_no_template_has_inline_script_handlers_or_styles() -> None:
    folder = CSS.parent.parent / "templates"
    for template in folder.glob("*.html"):
        text = template.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template.name
        assert not re.search(r"\son[a-z]+=", text) and "style=" not in text, template.name


# -- 9: a page a phone keeps ---------------------------------------------------------------


def test_the_manifest_and_its_icons_are_served_by_the_device(device) -> None:
    page = device.client.get("/", headers={"accept": "text/html"}).text
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    manifest = device.client.get("/static/manifest.webmanifest").json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        reply = device.client.get(icon["src"])
        assert reply.status_code == 200 and reply.content


def test_a_pad_narrows_to_the_player_chosen() -> None:
    """Block Lottery: the dice a player picks up to re-roll are the ones they hold."""
    match = new_match("block-lottery", ["Ann", "Bob"])
    match.apply({"type": "pool", "faces": [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3]})
    for face in (4, 4, 6):
        match.apply({"type": "take", "player": "Ann", "face": face})
    match.apply({"type": "take", "player": "Bob", "face": 2})
    match.apply({"type": "end", "player": "Bob", "cause": "deck_out"})
    reroll = next(pad for pad in pads(match) if pad["type"] == "reroll")
    picked = next(f for f in reroll["fields"] if f["name"] == "from")
    assert picked["by_player"] == {"Ann": {"values": [4, 6], "max": 3},
                                   "Bob": {"values": [2], "max": 1}}


# -- 6: history people use ---------------------------------------------------------------


def play_scoreboards(device: Device, results: list[tuple[int, int, int]]) -> None:
    """One scoreboard to 10 per (Ann, Bob, Cy) points, all through the API."""
    device.pair()
    for points in results:
        assert device.client.post("/api/matches", json={
            "game": "scoreboard", "players": ["Ann", "Bob", "Cy"],
            "options": {"target": 10}}).status_code == 200
        for name, score in zip(["Ann", "Bob", "Cy"], points, strict=True):
            device.client.post("/api/events", json={"event": {
                "type": "points", "player": name, "points": score}})


def test_a_player_page_has_head_to_head_rival_and_nemesis(device) -> None:
    play_scoreboards(device, [(10, 20, 0), (30, 20, 0), (0, 20, 5)])
    assert device.client.post("/api/matches", json={
        "game": "scoreboard", "players": ["Ann", "Cy"], "options": {"target": 10}}).is_success
    data = device.client.get("/api/players/ann").json()
    assert data["name"] == "Ann" and len(data["matches"]) == 3
    assert [row["players"] for row in data["opponents"]] == [["Ann", "Bob"], ["Ann", "Cy"]]
    assert data["opponents"][0]["wins"] == {"Ann": 1, "Bob": 2}
    assert data["rival"] == {"name": "Bob", "matches": 3, "won": 1, "lost": 2}
    assert data["nemesis"] == {"name": "Bob", "matches": 3, "won": 1, "lost": 2}
    page = device.client.get("/players/Ann", headers={"accept": "text/html"}).text
    assert "Rival" in page and "Nemesis" in page and 'href="/players/Bob"' in page
    history = device.client.get("/history", headers={"accept": "text/html"}).text
    assert 'href="/players/Cy"' in history and "min</td>" in history
    assert device.client.get("/api/players/Nobody").status_code == 404
    device.client.post("/api/players", json={"name": "A/B? #1"})
    assert 'href="/players/A%2FB%3F%20%231"' in device.client.get("/players").text
    assert device.client.get("/api/players/A%2FB%3F%20%231").json()["name"] == "A/B? #1"
    assert device.client.get("/api/players/" + "x" * 100).status_code == 404


def test_game_over_on_the_table_explains_the_tie(device) -> None:
    device.pair()
    device.client.post("/api/matches", json={"game": "scoreboard", "players": ["Ann", "Bob"],
                                              "options": {"target": 10}})
    for name in ("Ann", "Bob"):
        device.client.post("/api/events", json={"event": {
            "type": "points", "player": name, "points": 12}})
    assert device.state()["context"]["outcome"] == "Ann and Bob tie on 12 and share the win"
    page = device.client.get("/", headers={"accept": "text/html"}).text
    assert '<p class="outcome">Ann and Bob tie on 12 and share the win</p>' in page
    assert "<title>Scoreboard: Ann and Bob win · Tabletop Companion</title>" in page


def test_history_filters_and_player_pages_reach_past_the_newest_200(tmp_path) -> None:
    """A filter (game, player) looks through every match, not only the newest 200: Zed
    played once, long ago, and is on nobody's roster; his page and the history of his
    game still find that match."""
    from companion.remote.web.pages import past_matches, player_page_data
    from companion.store import Store

    store = Store(tmp_path / "log.db")
    try:
        old = store.new_match("scoreboard", ["Zed", "Ann"], {}, started=1000.0)
        store.finish(old, {"totals": {"Zed": 5, "Ann": 1}, "winners": ["Zed"]}, at=1100.0)
        for at in range(2000, 2000 + 201):
            newer = store.new_match("final-count", ["Ann", "Bob"], {}, started=float(at))
            store.abandon(newer)
        assert [row["id"] for row in past_matches(store, game="scoreboard")] == [old]
        assert [row["id"] for row in past_matches(store, player="zed")] == [old]
        assert len(past_matches(store)) == 200  # the unfiltered list stays the newest 200
        assert player_page_data(store, "Zed")["name"] == "Zed"
    finally:
        store.close()


def test_a_time_no_calendar_can_show_is_a_question_mark_not_a_500(tmp_path) -> None:
    """A match finished at 1e17 (a table's wild clock, an old log): the history and the
    match page show "?" for its date, as ``companion stats`` does, not an internal error."""
    from starlette.testclient import TestClient

    from companion.remote.web.asgi import build_app
    from companion.remote.web.source import StoreSource
    from companion.store import Store

    store = Store(tmp_path / "log.db")
    try:
        wild = store.new_match("scoreboard", ["Ann", "Bob"], {}, started=1000.0)
        store.finish(wild, {"totals": {"Ann": 1, "Bob": 2}, "winners": ["Bob"]}, at=1e17)
        client = TestClient(build_app(StoreSource(store)), base_url="http://localhost")
        for path in ("/history", f"/matches/{wild}", "/players/Ann"):
            page = client.get(path, headers={"accept": "text/html"})
            assert page.status_code == 200, (path, page.text[-300:])
        history = client.get("/history", headers={"accept": "text/html"}).text
        assert '<td data-label="When">?</td>' in history
    finally:
        store.close()


def test_every_pad_button_is_in_words_not_a_field_value() -> None:
    """A button shows what the log says ("could not draw"), never the event's own value
    ("deck_out"): every value with an underscore has a name of its own."""
    import random

    match = new_match("block-lottery", ["Ann", "Bob"])
    match.apply({"type": "pool", "faces": [random.Random(2).randint(1, 6) for _ in range(15)]})
    (end,) = [pad for pad in pads(match) if pad["type"] == "end"]
    (cause,) = [field for field in end["fields"] if field["name"] == "cause"]
    assert cause["values"] and all(cause["names"][value] for value in cause["values"])
    assert "could not draw" in cause["names"].values()
    for game, players in GAMES:
        for pad in pads(new_match(game, players)):
            for field in pad["fields"]:
                for value in field.get("values", ()):
                    if isinstance(value, str) and "_" in value:
                        assert value in field.get("names", {}), (game, pad["type"], value)
