"""End to end in a real headless Chromium: the page follows the buttons without a
reload, a phone pairs and types, history and export work, the page survives a restart.

The device is the real app on mock pins (tests/web_device.py) with its page on a free
local port; the browser waits for DOM changes (no sleeps).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from web_device import LiveDevice

from companion.commands.export import export_main
from companion.remote import commands

ROOT = Path(__file__).resolve().parents[2]
#: Page weight budget for the table view (HTML, CSS, JS, icon together).
PAGE_BUDGET = 150 * 1024


@pytest.fixture
def device(tmp_path):
    with LiveDevice(tmp_path / "state") as live:
        yield live


def seq_is(page, seq: int) -> None:
    page.wait_for_function(f"document.querySelector('#live').dataset.seq === '{seq}'")


def mark(page) -> None:
    """Something only this load of the page has: gone if the page reloads."""
    page.evaluate("window.notReloaded = true")


def not_reloaded(page) -> bool:
    return page.evaluate("window.notReloaded === true")


def pair(page, device: LiveDevice) -> None:
    device.pair_browser(page)


def test_a_button_press_changes_the_page_without_a_reload(page, device) -> None:
    device.call(commands.new_game, "final-count", ["Ann", "Bob"], {})
    page.goto(device.url + "/")
    page.wait_for_function("window.companionViews.length > 0")
    mark(page)
    assert "Ann: roll or call" in page.inner_text("#live .prompt")
    device.press("roll")  # ROLL on the table rolls for Ann
    seq_is(page, 1)
    assert "Ann rolled" in page.inner_text("#live .log")
    assert page.inner_text("#live .prompt").startswith("Bob")
    device.call(commands.undo)  # an undo from elsewhere shows too
    seq_is(page, 0)
    assert "Ann rolled" not in page.inner_text("#live")
    assert not_reloaded(page)


def test_a_new_game_on_the_device_appears_on_an_open_page(page, device) -> None:
    page.goto(device.url + "/")
    page.wait_for_selector("text=No game on the table")
    mark(page)
    device.call(commands.new_game, "final-count", ["Cy", "Dee"], {})
    page.wait_for_selector("#live >> text=Cy: roll or call")
    assert not_reloaded(page)


def test_pair_then_add_a_player_by_typing(page, device) -> None:
    page.goto(device.url + "/players")
    assert page.query_selector("#add-player") is None  # not paired: no form
    pair(page, device)
    page.goto(device.url + "/players")
    page.fill("#new-name", "Zoë")
    page.click("#add-player button")
    page.wait_for_selector("tr[data-name='Zoë']")
    assert "Zoë" in device.call(commands.players)


def test_a_wrong_code_says_so_and_pairs_nothing(page, device) -> None:
    code = device.pair_code()
    page.goto(device.url + "/pair")
    page.fill("#code", f"{(int(code) + 1) % 1_000_000:06d}")
    page.click("#pair button")
    page.wait_for_selector("#toast:not([hidden])")
    assert "wrong code" in page.inner_text("#toast")
    assert page.url.endswith("/pair")


def test_a_paired_phone_rolls_and_undoes_through_the_same_queue(page, device) -> None:
    pair(page, device)  # from the main menu: Settings > Pair a phone
    device.call(commands.new_game, "final-count", ["Ann", "Bob"], {})
    page.wait_for_function("window.companionViews.length > 0")
    page.click("button[data-post='/api/roll']")
    seq_is(page, 1)
    assert device.call(commands.state)["seq"] == 1  # the OLED's match moved too
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#undo")
    seq_is(page, 0)
    # an event from the pad: Ann calls (the pads come from what the match expects)
    page.click("#pad .tab:text('Call')")
    page.click("#pad .key:text('Ann')")
    page.click("#pad button.send")
    seq_is(page, 1)
    assert device.call(commands.state)["seq"] == 1


def test_a_refused_event_shows_the_reason_and_changes_nothing(page, device) -> None:
    pair(page, device)  # from the main menu: Settings > Pair a phone
    device.call(commands.new_game, "final-count", ["Ann", "Bob"], {})
    for event in ({"type": "call", "player": "Ann"}, {"type": "roll", "player": "Bob"},
                  {"type": "board", "cards": ["K", "K"]}):
        device.call(commands.event, event)
    seq_is(page, 3)
    page.click("#pad .key:text('Ann')")
    for _ in range(3):  # five kings: one deck has four
        page.click("#pad button[aria-label='add K']")
    page.click("#pad button.send")
    page.wait_for_selector("#toast:not([hidden])")
    assert "a deck has only 4" in page.inner_text("#toast")
    assert device.call(commands.state)["seq"] == 3


def finish_scoreboard(device: LiveDevice) -> int:
    match_id = device.call(commands.new_game, "scoreboard", ["Ann", "Bob"],
                           {"target": 20})["match_id"]
    for player, points in (("Ann", 5), ("Bob", 12), ("Ann", 20), ("Bob", 3)):
        device.call(commands.event, {"type": "points", "player": player, "points": points})
    return match_id


def test_history_shows_the_finished_game_and_the_export_equals_companion_export(
        page, device, tmp_path) -> None:
    match_id = finish_scoreboard(device)
    page.goto(device.url + "/history")
    page.click(f"a[href='/matches/{match_id}']")
    page.wait_for_url(f"{device.url}/matches/{match_id}")
    assert "Ann" in page.inner_text(".prompt") and page.query_selector("svg.chart")
    for fmt in ("jsonl", "csv"):
        with page.expect_download() as info:
            page.click(f"a[href$='export.{fmt}']")
        got = Path(info.value.path()).read_bytes()
        out = io.StringIO()
        assert export_main(str(tmp_path / "state"), str(match_id), fmt, out=out) == 0
        assert got == out.getvalue().encode("utf-8")


def test_game_over_shows_the_final_standings(page, device) -> None:
    page.goto(device.url + "/")
    page.wait_for_function("window.companionViews.length > 0")
    mark(page)
    finish_scoreboard(device)
    page.wait_for_selector("#live .prompt.over")
    assert "Ann" in page.inner_text("#live .prompt.over")
    assert page.query_selector("#live tr.winner")
    assert not_reloaded(page)


def test_the_page_survives_a_device_restart(page, tmp_path) -> None:
    state = tmp_path / "state"
    with LiveDevice(state) as first:
        port = first.port
        first.call(commands.new_game, "final-count", ["Ann", "Bob"], {})
        page.goto(first.url + "/")
        seq_is(page, 0)
        mark(page)
        first.press("roll")
        seq_is(page, 1)
    page.wait_for_selector("#link:not([hidden])")  # the page knows it lost the device
    with LiveDevice(state, port=port) as again:
        again.press("ok")  # resume the unfinished game
        again.press("roll")
        seq_is(page, 2)
        assert page.inner_text("#live .log").count("rolled") == 2  # nothing lost or twice
        page.wait_for_selector("#link", state="hidden")
    assert not_reloaded(page)


def test_the_table_page_weighs_at_most_150_kb_and_uses_no_other_host(page, device) -> None:
    finish_scoreboard(device)
    sizes: dict[str, int] = {}
    page.on("response", lambda reply: sizes.__setitem__(reply.url, len(reply.body()))
            if "/api/stream" not in reply.url else None)
    page.goto(device.url + "/")
    page.wait_for_function("window.companionViews.length > 0")
    assert all(url.startswith(device.url) for url in sizes)
    assert sum(sizes.values()) <= PAGE_BUDGET, sizes


def test_dark_and_light(browser, device) -> None:
    colours = {}
    for scheme in ("dark", "light"):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        page.goto(device.url + "/")
        colours[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        context.close()
    assert colours["dark"] != colours["light"]


def test_the_readme_screenshots_script_runs(browser, tmp_path) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from web_screens import take_screens
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    written = take_screens(browser, tmp_path / "shots", tmp_path / "state")
    assert [path.name for path in written] == ["web-table.png", "web-match.png",
                                               "web-players.png"]
    assert all(path.read_bytes().startswith(b"\x89PNG") for path in written)


def test_a_phone_starts_a_game_with_options_and_asks_before_pushing_one_aside(
        page, device) -> None:
    pair(page, device)
    page.goto(device.url + "/new")
    page.select_option("#game", "final-count")
    page.fill("#players", "Ann, Bob, Cy")
    page.check("input[name='hit_goal']")
    page.click("#new-game button[type='submit']")
    page.wait_for_url(device.url + "/")
    state = device.call(commands.state)
    assert (state["game"], state["players"]) == ("final-count", ["Ann", "Bob", "Cy"])
    assert device.call(commands.status)["options"]["hit_goal"] is True
    first = state["match_id"]
    questions = []
    page.on("dialog", lambda dialog: (questions.append(dialog.message), dialog.accept()))
    page.goto(device.url + "/new")
    page.select_option("#game", "final-count")
    page.fill("#players", "Dee, Eve")
    page.click("#new-game button[type='submit']")
    page.wait_for_url(device.url + "/")
    assert questions and "not finished" in questions[0]
    assert device.call(commands.state)["players"] == ["Dee", "Eve"]
    abandoned = device.call(lambda app: app.ctx.store.match(first).abandoned)
    assert abandoned


def test_a_phone_renames_and_removes_a_player(page, device) -> None:
    device.call(commands.add_player, "Ann")
    device.call(commands.add_player, "Bob")
    pair(page, device)
    page.goto(device.url + "/players")
    page.once("dialog", lambda dialog: dialog.accept("Anne"))
    page.click("[data-rename='Ann']")
    page.wait_for_selector("tr[data-name='Anne']")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-remove='Bob']")
    page.wait_for_selector("tr[data-name='Bob']", state="detached")
    assert sorted(device.call(commands.players)) == ["Anne"]
