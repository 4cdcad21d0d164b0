"""History on the device, driven by presses: the games' tables, a player's card, the
finished games and their score tables, the period, and figures that follow new games."""

from __future__ import annotations

import random
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion.games import replay
from companion.stats import figures
from companion.store import Store
from companion.transcript import score_rows
from companion.ui.history import GameTable, HistoryMenu, MatchSheet, PlayerCard, history_menu
from companion.ui.home import home_menu
from companion.ui.screen import Context, Menu, Message

#: 2023-11-14: the matches below were played then.
PLAYED = 1_700_000_000.0


def press(button: str, long: bool = False) -> SimpleNamespace:
    return SimpleNamespace(button=button, long=long)


def ink(screen) -> bytes:
    """The screen's picture as bytes, checked to be 128x64 and not blank."""
    image = screen.render()
    assert image.size == (128, 64) and image.histogram()[1] > 100  # lit pixels
    return image.tobytes()


def finish(store: Store, players: list[str], points: list[list[int]]) -> int:
    """A real scoreboard game: one list of points per round, in seat order."""
    events = [{"type": "points", "player": name, "points": n}
              for row in points for name, n in zip(players, row, strict=True)]
    events.append({"type": "end"})
    mid = store.new_match("scoreboard", players, {})
    for event in events:
        store.append(mid, event)
    store.finish(mid, replay("scoreboard", players, {}, events).result())
    return mid


@pytest.fixture
def ctx(tmp_path: Path):
    ticks = iter(range(10_000))
    store = Store(tmp_path / "companion.db", clock=lambda: PLAYED + 60 * next(ticks))
    finish(store, ["Ann", "Bob", "Cy"], [[10, 5, 0], [20, 5, 1]])   # Ann 30 wins
    finish(store, ["Bob", "Ann"], [[7, 3]])                         # Bob 7 wins
    finish(store, ["Ann", "Bob", "Cy", "Dee", "Eve"], [[1, 2, 3, 4, 50]])  # Eve
    yield Context(rng=random.Random(1), store=store)
    store.close()


def open_history(ctx: Context, now: float = PLAYED + 86_400) -> HistoryMenu:
    menu = history_menu(ctx, home_menu(ctx), now=lambda: now)
    assert isinstance(menu, HistoryMenu)
    return menu


def test_the_menu_lists_each_game_played(ctx: Context) -> None:
    menu = open_history(ctx)
    assert [(item.label, item.note) for item in menu.items] == [
        ("Scoreboard", "3"), ("Players", ""), ("Finished games", ""), ("All time", "period"),
        ("Roster", "")]
    assert ink(menu)


def test_a_games_table_then_a_players_card(ctx: Context) -> None:
    menu = open_history(ctx)
    table = menu.press(ctx, press("ok"))
    assert isinstance(table, GameTable) and table.plays == 3
    expected = figures(ctx.store)["games"]["scoreboard"]["players"]
    assert [name for name, _ in table.rows] == list(expected)  # best rating first
    assert ink(table)
    table.press(ctx, press("down"))
    table.press(ctx, press("down"))
    assert table.selected == 2
    table.press(ctx, press("up"))
    name = table.rows[1][0]
    card = table.press(ctx, press("ok"))
    assert isinstance(card, PlayerCard) and card.title == name
    assert [heading for heading, _, _ in card.pages] == ["All games", "Scoreboard"]
    rating = expected[name]["rating"]
    assert card.pages[1][1] == f"{rating:g}"  # drawn big beside the figures
    wins, plays = expected[name]["wins"], expected[name]["plays"]
    assert card.pages[1][2][0] == f"won {wins}/{plays}"
    first = ink(card)
    assert card.press(ctx, press("down")) is card and card.page == 1
    assert ink(card) != first
    assert card.press(ctx, press("down")).page == 0  # round again
    assert card.press(ctx, press("back")) is table
    assert table.press(ctx, press("back")) is menu


def test_players_list_opens_cards(ctx: Context) -> None:
    menu = open_history(ctx)
    menu.press(ctx, press("down"))
    players = menu.press(ctx, press("ok"))
    assert isinstance(players, Menu) and players.title == "Players"
    assert [item.label for item in players.items][:2] == ["Ann", "Bob"]  # most wins first
    assert players.items[0].note == "1/3"
    card = players.press(ctx, press("ok"))
    assert isinstance(card, PlayerCard) and card.name == "Ann"
    assert card.pages[0][2][0] == "won 1 of 3 33%"
    assert card.press(ctx, press("ok")) is players


def test_the_period_changes_what_counts(ctx: Context) -> None:
    # Two years after the games: none this year or in the last 30 days.
    menu = open_history(ctx, now=PLAYED + 2 * 365 * 86_400)
    for _ in range(3):
        menu.press(ctx, press("down"))
    assert menu.items[menu.selected].label == "All time"
    menu.press(ctx, press("ok"))
    assert [item.label for item in menu.items] == [
        "Players", "Finished games", "This year", "Roster"]
    assert menu.items[menu.selected].label == "This year"  # the cursor stays on it
    menu.press(ctx, press("ok"))
    assert menu.items[menu.selected].label == "Last 30 days"
    assert isinstance(menu.items[0].open(ctx, menu), Message)  # no players then
    menu.press(ctx, press("ok"))
    assert menu.items[0].label == "Scoreboard"  # all time again


def test_a_finished_game_shows_its_score_table(ctx: Context) -> None:
    menu = open_history(ctx)
    menu.press(ctx, press("down"))
    menu.press(ctx, press("down"))
    games = menu.press(ctx, press("ok"))
    day = time.strftime("%m-%d", time.localtime(PLAYED))
    assert [(item.label, item.note) for item in games.items] == [
        (f"{day} Scoreboard", "Eve"), (f"{day} Scoreboard", "Bob"),
        (f"{day} Scoreboard", "Ann")]
    sheet = games.press(ctx, press("down")).press(ctx, press("down")).press(ctx, press("ok"))
    assert isinstance(sheet, MatchSheet)
    assert sheet.players == ["Ann", "Bob", "Cy"]
    assert sheet.rounds == [["1", "10", "5", "0"], ["2", "20", "5", "1"]]
    assert sheet.totals == ["30", "10", "1"]
    assert ink(sheet)
    assert sheet.press(ctx, press("ok")) is games  # three players: OK goes back
    # Five players: OK shows the fifth, then the first four again.
    wide = games.press(ctx, press("up")).press(ctx, press("up")).press(ctx, press("ok"))
    record = ctx.store.history(limit=1)[0]
    assert [wide.players, wide.totals] == [
        row[1:] for row in (score_rows(record, ctx.store.events(record.id))[i] for i in (0, -1))]
    before = ink(wide)
    assert wide.press(ctx, press("ok")) is wide and wide.first == 4
    assert ink(wide) != before
    assert wide.press(ctx, press("ok")).first == 0
    assert wide.press(ctx, press("down")).top == 0  # one round: nothing to scroll


def test_history_follows_a_newly_finished_game(ctx: Context) -> None:
    menu = open_history(ctx)
    table = menu.press(ctx, press("ok"))
    finish(ctx.store, ["Cy", "Dee"], [[9, 1]])
    assert table.press(ctx, press("back")) is menu
    assert menu.items[0].note == "4"
    again = menu.press(ctx, press("ok"))
    assert again.plays == 4 and "Dee" in dict(again.rows)


def test_history_without_a_game_log_says_so() -> None:
    c = Context(rng=random.Random(1))
    shown = history_menu(c, home_menu(c))
    assert isinstance(shown, Message) and "No game log" in " ".join(shown.lines)


def test_the_home_menu_opens_history(ctx: Context) -> None:
    home = home_menu(ctx)
    home.selected = [item.label for item in home.items].index("History")
    assert isinstance(home.press(ctx, press("ok")), HistoryMenu)
