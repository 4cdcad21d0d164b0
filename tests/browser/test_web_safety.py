"""Issue 20 in a real Chromium: the pages hold under their Content-Security-Policy (no
violation reported on any page), a link that goes quiet is noticed and reconnected,
and the Pair screen's QR address pairs a phone in one step.
"""

from __future__ import annotations

import pytest
from web_device import LiveDevice

from companion.remote import commands
from companion.remote.web import asgi
from tests.quiet_link import QuietLink

#: Collects what the browser reports about the page's Content-Security-Policy.
WATCH_CSP = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.cspViolations.push(e.violatedDirective + " " + e.blockedURI));
"""


@pytest.fixture
def device(tmp_path):
    with LiveDevice(tmp_path / "state") as live:
        yield live


def pair(page, device: LiveDevice) -> None:
    device.pair_browser(page)


def test_no_page_breaks_its_content_security_policy(strict_page, device) -> None:
    page = strict_page
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text)
            if message.type == "error" else None)
    page.add_init_script(WATCH_CSP)
    pair(page, device)
    match_id = device.call(commands.new_game, "scoreboard", ["Ann", "Bob"],
                           {"target": 20})["match_id"]
    for player, points in (("Ann", 5), ("Bob", 12), ("Ann", 20), ("Bob", 3)):
        device.call(commands.event, {"type": "points", "player": player, "points": points})
    for path in ("/", f"/matches/{match_id}", "/history", "/players", "/new", "/pair",
                 "/help", "/help/block-lottery", "/nothing"):
        page.goto(device.url + path)
        page.wait_for_load_state("load")
        if path == "/":
            page.wait_for_selector("#live .legend .key")  # the chart's legend drawn
            page.wait_for_selector("#live .prompt.over")  # the script ran (the stream)
        assert page.evaluate("window.cspViolations") == [], path
    assert not [text for text in problems if "Content Security Policy" in text], problems


def test_a_link_that_goes_quiet_is_noticed_and_reconnected(page, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(asgi, "KEEPALIVE", 0.4)  # the page then waits 1 s for a sign of life
    with LiveDevice(tmp_path / "state") as device:
        relay = QuietLink(device.port)
        try:
            device.call(commands.new_game, "final-count", ["Ann", "Bob"], {})
            url = f"http://127.0.0.1:{relay.port}/"
            page.goto(url)
            page.wait_for_function("window.companionViews.length > 0")
            page.evaluate("window.notReloaded = true")
            assert page.is_hidden("#link")
            # The warning may show for a moment only (the new stream opens at once):
            # note every time it shows rather than hope to catch it on screen.
            page.evaluate("""window.linkShown = [];
                const link = document.querySelector('#link');
                new MutationObserver(() => { if (!link.hidden) window.linkShown.push(
                  link.textContent); }).observe(link, {attributes: true});""")
            relay.go_quiet()
            device.press("roll")  # this event never reaches the page on the old link
            page.wait_for_function("window.linkShown.length > 0")
            assert "Reconnecting" in page.evaluate("window.linkShown[0]")
            # The new stream flows: the page catches up and says so.
            page.wait_for_function("document.querySelector('#live').dataset.seq === '1'")
            page.wait_for_selector("#link", state="hidden")
            device.press("roll")
            page.wait_for_function("document.querySelector('#live').dataset.seq === '2'")
            assert page.evaluate("window.notReloaded === true")
        finally:
            relay.close()


def test_the_qr_address_pairs_in_one_step_and_the_oled_says_so(page, device) -> None:
    device.pair_code()
    screen = device.screen()
    url = screen.url().replace(screen.address.removesuffix("/pair"), f"127.0.0.1:{device.port}")
    assert url.startswith(device.url + "/pair?code=")
    page.goto(url)
    page.wait_for_url(device.url + "/")
    assert page.evaluate("document.body.dataset.paired") == "yes"
    shown = device.screen()
    assert type(shown).__name__ == "Message" and shown.title == "Phone paired"
    assert shown.lines[0] == "Chrome on Linux"
    phones = device.call(lambda app: app.ctx.pairing.phones())
    assert [phone.name for phone in phones] == ["Chrome on Linux"]
