"""Screenshots of the table page for the README, taken in a real headless Chromium.

The browser tests run :func:`take_screens` too (tests/browser), so the pictures in the
README come from the same script the tests check::

    .venv/bin/python scripts/web_screens.py            # writes docs/images/web-*.png

It starts a simulated device with its page (tests/web_device.py), plays a finished
scoreboard and a Final Count under way through the same commands a phone or the serial console
use, and photographs the table view, the match page and the players page.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from web_device import LiveDevice  # noqa: E402

from companion.remote import commands  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cy"]
FINISHED = [(12, 5, 9), (8, 20, 14), (15, 11, 30), (10, 30, 12)]
#: Hand 1 (Cy calls, Ann wins it), then the goal of hand 2 and three rolls.
FINAL_COUNT = [
    {"type": "goal", "rolls": [6, 5]},
    {"type": "roll", "player": "Ann", "value": 3}, {"type": "roll", "player": "Bob", "value": 1},
    {"type": "call", "player": "Cy"}, {"type": "roll", "player": "Ann", "value": 5},
    {"type": "roll", "player": "Bob", "value": 4},
    {"type": "board", "cards": ["K", "7", "2"]},
    {"type": "hand", "player": "Ann", "cards": ["Q", "9", "A"]},
    {"type": "hand", "player": "Bob", "cards": ["8", "6", "5", "3"]},
    {"type": "hand", "player": "Cy", "cards": ["10", "J", "4"]},
    {"type": "goal", "rolls": [4, 6]},
    {"type": "roll", "player": "Bob", "value": 2}, {"type": "roll", "player": "Cy", "value": 6},
    {"type": "roll", "player": "Ann", "value": 3},
]
SHOTS = {"web-table.png": "/", "web-match.png": "/matches/{finished}",
         "web-players.png": "/players"}


def play_rounds(device: LiveDevice, rounds: list[tuple[int, ...]]) -> None:
    for scores in rounds:
        for player, points in zip(PLAYERS, scores, strict=True):
            device.call(commands.event, {"type": "points", "player": player, "points": points})


def stage(device: LiveDevice) -> int:
    """A finished scoreboard (its id) and a Final Count under way on the table: one hand
    scored, the Hit Goal rolled for the next, a few turns into it."""
    finished = device.call(commands.new_game, "scoreboard", PLAYERS, {"target": 60})
    play_rounds(device, FINISHED)
    device.call(commands.new_game, "final-count", PLAYERS, {"hit_goal": True})
    for event in FINAL_COUNT:
        device.call(played, event)
    return finished["match_id"]


def played(app: Any, event: dict[str, Any]) -> None:
    """``event`` as if played on the device's own buttons (its rolls as the device rolled
    them): a staged scene, not a remote, so the rule for a remote's dice does not apply."""
    app.current_session().apply(event)
    app.refresh_game()


def take_screens(browser: Any, out_dir: Path, state_dir: Path) -> list[Path]:
    """Photograph the pages (dark, 1280x800) into ``out_dir``; the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with LiveDevice(state_dir) as device:
        finished = stage(device)
        context = browser.new_context(bypass_csp=True,  # Playwright's waits use eval
                                      viewport={"width": 1280, "height": 800},
                                      color_scheme="dark")
        page = context.new_page()
        try:
            for name, path in SHOTS.items():
                page.goto(device.url + path.format(finished=finished))
                if path == "/":  # the live page keeps its stream open: wait for the view
                    page.wait_for_function("window.companionViews.length > 0")
                else:
                    page.wait_for_load_state("networkidle")
                target = out_dir / name
                page.screenshot(path=str(target), full_page=False)
                written.append(target)
        finally:
            context.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"), help="where to write")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver, tempfile.TemporaryDirectory() as state:
        browser = driver.chromium.launch(executable_path=args.chromium, headless=True)
        try:
            for path in take_screens(browser, Path(args.out), Path(state)):
                print(path)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
