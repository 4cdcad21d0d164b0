"""The table page people use (issue 24), in a real headless Chromium: a TV sees the
whole game on one screen, a phone enters a Board with taps, axe finds nothing serious,
no page is wider than the screen, Undo says what it undoes, the screen stays awake.

The device is the real app on mock pins (tests/web_device.py); the browser waits for
DOM changes (no sleeps).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from test_web_browser import pair, seq_is
from web_device import LiveDevice, physical_config

from companion.remote import commands

#: Twelve characters, the longest name the roster takes.
LONG = ["Annabelle-Jo", "Bartholomew2", "Cyrillia-Mae", "Dorothea-Kim"]
TV = [(1920, 1080), (1280, 720)]
WIDTHS = [320, 390, 768, 1280, 1920]


@pytest.fixture
def device(tmp_path) -> Iterator[LiveDevice]:
    with LiveDevice(tmp_path / "state") as live:
        yield live


def open_page(browser: Any, device: LiveDevice, path: str, width: int, height: int,
              scheme: str = "dark", paired_from: Any = None) -> Any:
    """The page at ``path`` in a fresh context. Its Content Security Policy is bypassed
    (as conftest's ``page`` does): Playwright's waits and axe evaluate scripts the
    policy refuses; test_web_safety.py checks the policy itself."""
    context = browser.new_context(viewport={"width": width, "height": height},
                                  color_scheme=scheme, bypass_csp=True)
    if paired_from is not None:
        context.add_cookies(paired_from.cookies())
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(device.url + path)
    if path == "/":
        page.wait_for_function("window.companionViews.length > 0")
    return page


def inside_first_screen(page: Any, selector: str) -> bool:
    """Every element ``selector`` finds is shown and ends above the fold (no scroll)."""
    return page.evaluate("""(sel) => {
        const found = [...document.querySelectorAll(sel)];
        return found.length > 0 && found.every((el) => {
            const box = el.getBoundingClientRect();
            return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight
                && box.right <= innerWidth;
        });
    }""", selector)


def paired_phone(browser: Any, device: LiveDevice) -> Any:
    """A 390x844 phone, paired from the device's main menu (before any game starts)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    phone = context.new_page()
    phone.set_default_timeout(15_000)
    pair(phone, device)
    return phone


def play_final_count(device: LiveDevice, names: list[str]) -> None:
    """A Final Count with the Hit Goal, a finished hand and many rolls into the next."""
    device.call(commands.new_game, "final-count", names, {"hit_goal": True})
    device.call(commands.event, {"type": "goal"})  # the device rolls the Hit Goal
    device.call(commands.event, {"type": "call", "player": names[0]})
    for _ in names[1:]:
        device.press("roll")
    device.call(commands.event, {"type": "board", "cards": ["K", "9"]})
    for name in names:
        device.call(commands.event, {"type": "hand", "player": name, "cards": ["5", "4", "3"]})
    device.call(commands.event, {"type": "goal"})
    for _ in range(20):
        device.press("roll")


@pytest.mark.parametrize(("width", "height"), TV)
def test_a_tv_shows_whose_turn_the_prompt_every_total_the_context_and_the_newest_event(
        browser, device, width, height) -> None:
    play_final_count(device, LONG)
    page = open_page(browser, device, "/", width, height)
    assert inside_first_screen(page, "#live .prompt")
    assert inside_first_screen(page, "#live .scores td")  # every name and total
    assert inside_first_screen(page, "#live .context dd")
    assert inside_first_screen(page, "#live .log li:first-child")
    state = device.call(commands.state)
    newest = page.inner_text("#live .log li:first-child")
    assert newest.split()[0] == str(state["seq"])  # newest first
    assert page.inner_text("#live tr.turn").startswith(state["turn"])
    assert "to play" in page.inner_text("#live tr.turn")  # in words, not only a glyph
    goal = device.call(lambda app: app.current_session().match.goal)  # the device rolled it
    assert "Hit Goal" in page.inner_text("#live .context") and str(goal) in page.inner_text(
        "#live .context")
    assert page.title() == f"Final Count: {state['turn']} to play · Tabletop Companion"


@pytest.mark.parametrize(("width", "height"), TV)
def test_ten_players_and_their_card_down_table_fit_a_tv_too(browser, device, width,
                                                            height) -> None:
    names = [f"{letter * 3}-Longname"[:12] for letter in "ABCDEFGHIJ"]
    device.call(commands.new_game, "card-down", names, {})
    device.call(commands.event, {"type": "turn_up",
                                 "card": {"value": "7", "colour": "red", "suit": "hearts"}})
    device.call(commands.event, {"type": "draw", "player": names[0]})
    page = open_page(browser, device, "/", width, height)
    for part in ("#live .prompt", "#live .scores td", "#live .context dd",
                 "#live .log li:first-child"):
        assert inside_first_screen(page, part), part
    assert "7 red hearts" in page.inner_text("#live .context")


def test_a_phone_enters_a_final_count_board_with_three_taps(browser, tmp_path) -> None:
    with LiveDevice(tmp_path / "real-dice", config=physical_config()) as device:
        phone_enters_a_board(browser, device)


def phone_enters_a_board(browser: Any, device: LiveDevice) -> None:
    """At a table with real dice (the faces typed in), Ann and Bob draw for the Board."""
    phone = paired_phone(browser, device)
    device.call(commands.new_game, "final-count", ["Ann", "Bob", "Cy"], {})
    for value in (3, 3):  # Ann and Bob draw for the Board: it may hold 4
        device.call(commands.event, {"type": "roll", "player": device.call(
            commands.state)["turn"], "value": value})
    device.call(commands.event, {"type": "call", "player": "Cy"})
    for _ in range(2):  # the final round: Ann and Bob enter a 6 (no card drawn)
        device.call(commands.event, {"type": "roll", "player": device.call(
            commands.state)["turn"], "value": 6})
    assert device.call(commands.state)["prompt"] == "Enter the Board cards"
    phone.goto(device.url + "/")
    phone.wait_for_function("window.companionViews.length > 0")
    seq = device.call(commands.state)["seq"]
    for rank in ("K", "9", "A"):
        phone.click(f"#pad button[aria-label='add {rank}']")
    assert phone.inner_text("#pad .picked").split() == ["K", "×", "9", "×", "A", "×"]
    send = phone.locator("#pad button.send")
    assert inside_first_screen(phone, "#pad button.send")
    assert inside_first_screen(phone, "button[data-post='/api/roll']")
    assert inside_first_screen(phone, "#undo")
    send.click()
    seq_is(phone, seq + 1)
    stored = device.call(lambda app: app.ctx.store.events(app.current_session().match_id))
    assert stored[-1] == {"type": "board", "cards": ["K", "9", "A"]}
    assert not phone.query_selector("#event-extra")  # no JSON box
    phone.context.close()


def test_undo_says_what_it_undoes(browser, device) -> None:
    page = paired_phone(browser, device)
    device.call(commands.new_game, "final-count", ["Ann", "Bob"], {})
    value = device.call(commands.event, {"type": "roll", "player": "Ann"})["event"]["value"]
    page.goto(device.url + "/")
    seq_is(page, 1)
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    assert page.inner_text("#undo") == f"Undo “Ann rolled {value}”"
    page.click("#undo")
    seq_is(page, 0)
    assert asked == [f"Undo “Ann rolled {value}”?"]
    assert device.call(commands.state)["seq"] == 0
    page.context.close()


def test_a_scoreboard_takes_points_with_the_stepper(browser, device) -> None:
    page = paired_phone(browser, device)
    device.call(commands.new_game, "scoreboard", ["Ann", "Bob"], {})
    page.goto(device.url + "/")
    page.wait_for_function("window.companionViews.length > 0")
    for _ in range(3):
        page.click("#pad button[aria-label='Points plus one']")
    page.click("#pad button.send")
    seq_is(page, 1)
    assert device.call(commands.state)["totals"] == {"Ann": 0, "Bob": 0}  # round not done
    events = device.call(lambda app: list(app.current_session().match.events))
    assert events == [{"type": "points", "player": "Ann", "points": 3}]
    page.context.close()


# -- 8: axe on every page, both themes -------------------------------------------------------


def need_axe() -> Any:
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        message = "AXE CHECKS NOT RUN: pip install axe-playwright-python (the [test] extra)"
        if os.environ.get("CI"):
            pytest.fail(message)
        print(f"\n*** {message} ***", file=sys.stderr)
        pytest.skip(message)
    return Axe()


def finished_scoreboard(device: LiveDevice) -> int:
    match_id = device.call(commands.new_game, "scoreboard", LONG[:3], {"target": 30})["match_id"]
    for points in ((12, 5, 9), (8, 20, 14), (15, 11, 30)):
        for name, score in zip(LONG[:3], points, strict=True):
            device.call(commands.event, {"type": "points", "player": name, "points": score})
    return match_id


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_axe_finds_nothing_serious_on_any_page(browser, device, scheme) -> None:
    axe = need_axe()
    phone = browser.new_context(bypass_csp=True)
    pair(phone.new_page(), device)  # from the main menu, before any game
    for name in LONG:
        device.call(commands.add_player, name)
    match_id = finished_scoreboard(device)
    device.call(commands.new_game, "final-count", LONG[:2], {})
    device.press("roll")
    problems = {}
    for path in ("/", "/history", f"/matches/{match_id}", "/players", f"/players/{LONG[0]}",
                     "/new", "/pair", "/help", "/help/card-down", "/help/tools"):
        for paired in (None, phone):
            page = open_page(browser, device, path, 1280, 800, scheme, paired)
            found = axe.run(page).response["violations"]
            bad = [f"{v['id']}: {v['help']} ({len(v['nodes'])})" for v in found
                   if v["impact"] in ("serious", "critical")]
            if bad:
                problems[f"{path} paired={paired is not None}"] = bad
            page.context.close()
    phone.close()
    assert not problems, problems


# -- 7: layouts that hold ---------------------------------------------------------------------


def test_no_page_is_wider_than_the_screen(browser, device) -> None:
    phone = browser.new_context(bypass_csp=True)
    pair(phone.new_page(), device)  # from the main menu, before any game
    for name in LONG:
        device.call(commands.add_player, name)
    match_id = finished_scoreboard(device)
    play_final_count(device, LONG)
    wide = {}
    for width in WIDTHS:
        for path in ("/", "/history", f"/matches/{match_id}", "/players", f"/players/{LONG[0]}",
                     "/new", "/pair", "/help", "/help/full-counter"):
            page = open_page(browser, device, path, width, 800, paired_from=phone)
            scroll = page.evaluate("document.documentElement.scrollWidth")
            if scroll > width:
                wide[f"{path} at {width}"] = scroll
            page.context.close()
    phone.close()
    assert not wide, wide


def test_chart_text_is_readable_on_a_phone_and_colours_follow_the_player(browser,
                                                                         device) -> None:
    match_id = finished_scoreboard(device)
    page = open_page(browser, device, f"/matches/{match_id}", 320, 700, "light")
    smallest = page.evaluate("""() => {
        const svg = document.querySelector('svg.chart');
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return Math.min(...[...svg.querySelectorAll('text.axis')].map(
            (t) => parseFloat(getComputedStyle(t).fontSize) * scale));
    }""")
    assert smallest >= 12
    colour = "(sel) => getComputedStyle(document.querySelector(sel)).backgroundColor"
    stroke = "(sel) => getComputedStyle(document.querySelector(sel)).stroke"
    on_match = [page.evaluate(colour, f".legend .p{seat} i") for seat in range(3)]
    assert len(set(on_match)) == 3
    assert page.evaluate(stroke, "svg.chart .line.p1") == on_match[1]
    table = open_page(browser, device, "/", 320, 700, "light")
    rows = table.evaluate("""() => [...document.querySelectorAll('#live .scores tbody tr')]
        .map((tr) => [tr.querySelector('td').innerText.trim().split(/\\s/)[0],
                      getComputedStyle(tr.querySelector('.sw')).backgroundColor])""")
    seat_of = {name: seat for seat, name in enumerate(LONG[:3])}
    assert all(on_match[seat_of[name]] == shade for name, shade in rows), rows
    page.context.close()
    table.context.close()


# -- 9: a wake lock while the table is open -------------------------------------------------


def test_the_table_view_keeps_the_screen_awake(browser, device) -> None:
    context = browser.new_context(bypass_csp=True)
    context.add_init_script("""
        window.wakeRequests = [];
        Object.defineProperty(navigator, 'wakeLock', { value: { request: async (kind) => {
            window.wakeRequests.push(kind);
            return { addEventListener: () => {} };
        } } });""")
    page = context.new_page()
    page.goto(device.url + "/")
    page.wait_for_function("window.companionViews.length > 0")
    page.wait_for_function("document.querySelector('#live').dataset.awake === 'yes'")
    assert page.evaluate("window.wakeRequests") == ["screen"]
    context.close()


def test_over_plain_http_the_page_says_once_that_it_cannot_lock_and_plays_a_film(
        browser, device) -> None:
    # 127.0.0.1 is a secure context; a phone on the Wi-Fi opens the page over plain
    # http under the device's address, where no browser has navigator.wakeLock.
    context = browser.new_context(bypass_csp=True)
    context.add_init_script("""
        delete Navigator.prototype.wakeLock;
        Object.defineProperty(window, 'isSecureContext', { value: false });""")
    page = context.new_page()
    page.goto(device.url + "/")
    page.wait_for_function("window.companionViews.length > 0")
    note = page.locator("#awake-note")
    note.wait_for(state="visible")
    assert "plain http" in note.inner_text()
    # A tap starts the silent film that keeps some phones awake.
    page.locator("#awake-ok").click()
    page.wait_for_function("document.querySelector('#live').dataset.awake === 'video'")
    assert note.is_hidden()
    # Said once: not again on the next visit.
    page.reload()
    page.wait_for_function("window.companionViews.length > 0")
    page.wait_for_function("document.querySelector('#live').dataset.awake === 'no'")
    assert page.locator("#awake-note").is_hidden()
    context.close()


# -- many tabs, one stream ------------------------------------------------------------------


def test_eight_tabs_of_one_browser_share_one_stream_and_all_stay_live(browser,
                                                                      device) -> None:
    # Six connections a host is all HTTP/1.1 gives a browser: with a stream per tab the
    # seventh tab never loaded. The tabs elect one to hold the stream.
    device.call(commands.new_game, "scoreboard", ["Ann", "Bob"], {"target": 50})
    context = browser.new_context(bypass_csp=True)
    tabs = []
    for _ in range(8):
        tab = context.new_page()
        tab.set_default_timeout(15_000)
        tab.goto(device.url + "/")
        tab.wait_for_function("window.companionViews.length > 0")
        tabs.append(tab)
    assert sum(tab.evaluate("window.companionStreams") for tab in tabs) == 1
    device.call(commands.event, {"type": "points", "player": "Ann", "points": 7})
    for tab in tabs:
        seq_is(tab, 1)
    # The tab holding the stream goes: another takes it up from what it has shown, and
    # every tab left stays live.
    leader = next(tab for tab in tabs if tab.evaluate("window.companionStreams") == 1)
    tabs.remove(leader)
    leader.close()
    device.call(commands.event, {"type": "points", "player": "Bob", "points": 3})
    for tab in tabs:
        seq_is(tab, 2)
    context.close()


def test_the_phone_asks_the_device_to_roll_and_has_no_face_pads(browser, device) -> None:
    phone = paired_phone(browser, device)
    device.call(commands.new_game, "final-count", ["Ann", "Bob"], {})
    phone.goto(device.url + "/")
    phone.wait_for_function("window.companionViews.length > 0")
    phone.click("#pad .tab:text('Roll the die')")
    assert phone.query_selector_all("#pad .key") == []  # no faces to choose from
    phone.click("#pad button.send:text('Roll the die')")
    seq_is(phone, 1)
    (event,) = device.call(lambda app: app.ctx.store.events(app.current_session().match_id))
    assert event["player"] == "Ann" and event["value"] in range(1, 7)
    assert "entered" not in event
    phone.context.close()


# -- speaking aloud (issue 39.4) -------------------------------------------------------------


SPEECH_STUB = """
    window.spoken = [];
    window.cancelled = 0;
    class Words { constructor(text) { this.text = text; this.lang = ''; } }
    Object.defineProperty(window, 'SpeechSynthesisUtterance', { value: Words });
    Object.defineProperty(window, 'speechSynthesis', { value: {
        speak: (words) => window.spoken.push([words.text, words.lang]),
        cancel: () => { window.cancelled += 1; } } });"""


def test_the_tv_speaks_the_announcements_once_switched_on_by_a_press(browser, device) -> None:
    device.call(commands.new_game, "final-count", ["Ann", "Bob"], {})
    context = browser.new_context(bypass_csp=True)
    context.add_init_script(SPEECH_STUB)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(device.url + "/")
    page.wait_for_function("window.companionViews.length > 0")
    speak = page.locator("#speak")
    assert speak.is_visible() and speak.get_attribute("aria-pressed") == "false"
    device.press("roll")  # off until pressed: nothing is said
    page.wait_for_function("window.companionViews.length > 1")
    assert page.evaluate("window.spoken") == []
    speak.click()
    assert speak.get_attribute("aria-pressed") == "true"
    assert page.evaluate("window.spoken.length") == 1  # it says so, in the page's language
    cancelled = page.evaluate("window.cancelled")
    views = page.evaluate("window.companionViews.length")
    device.press("roll")
    page.wait_for_function(f"window.companionViews.length > {views}")
    spoken = page.evaluate("window.spoken")
    assert [lang for _, lang in spoken] == ["en", "en", "en"]
    assert spoken[1][0].startswith("Bob, ") and spoken[2][0] == "Ann's turn"
    # the newer moment cancels what is still being said; its own words follow each other
    assert page.evaluate("window.cancelled") == cancelled + 1
    speak.click()
    assert speak.get_attribute("aria-pressed") == "false"
    device.press("roll")
    page.wait_for_function(f"window.companionViews.length > {views + 1}")
    assert len(page.evaluate("window.spoken")) == 3
    context.close()


def test_without_speech_synthesis_there_is_no_button(browser, device) -> None:
    context = browser.new_context(bypass_csp=True)
    context.add_init_script("delete window.speechSynthesis; delete window.SpeechSynthesis;")
    page = context.new_page()
    page.goto(device.url + "/")
    page.wait_for_function("window.companionViews.length > 0")
    assert page.locator("#speak").is_hidden()
    context.close()
