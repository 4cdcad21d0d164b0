"""In a real headless Chromium: Block Lottery's lottery on the page is a Draw button (no
pad per token), and the device draws the token; an undone draw comes back the same."""

from __future__ import annotations

import pytest
from test_web_browser import pair, seq_is
from web_device import LiveDevice

from companion.remote import commands


@pytest.fixture
def device(tmp_path):
    with LiveDevice(tmp_path / "state") as live:
        yield live


def test_the_page_draws_the_lottery_token_with_its_draw_button(page, device) -> None:
    pair(page, device)
    device.call(commands.new_game, "block-lottery", ["Ann", "Bob"], {})
    face = device.call(commands.roll)["event"]["faces"][0]
    for event in ({"type": "take", "player": "Ann", "face": face},
                  {"type": "end", "player": "Bob", "cause": "deck_out"},
                  {"type": "reroll", "player": "Ann", "from": [face]}):
        device.call(commands.event, event)
    seq_is(page, 4)
    page.click("#pad .tab:text('Draw a token')")
    assert page.locator("#pad .key").count() == 0  # no token to choose: the device draws
    page.click("#pad button.send:text('Draw')")
    seq_is(page, 5)
    drawn = device.call(lambda app: app.current_session().match.events[-1])
    assert drawn["type"] == "token" and "entered" not in drawn
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#undo")
    seq_is(page, 4)
    page.click("button[data-post='/api/roll']")  # ROLL: the same token again
    seq_is(page, 5)
    assert device.call(lambda app: app.current_session().match.events[-1]) == drawn
