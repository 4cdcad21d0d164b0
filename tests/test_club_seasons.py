"""Issue 23 point 7: seasons, standings per season in a written tie-break order, and
players matched across tables by the name rule."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from companion.club.seasons import TIE_BREAK, Season, parse_seasons, season_table, standings
from companion.config import parse_config
from companion.errors import ConfigError, SeasonError
from companion.store import Store
from tests.companion_cli import companion


def at(day: str, hour: int = 20) -> float:
    return time.mktime(dt.datetime.fromisoformat(f"{day}T{hour:02d}:00").timetuple())


def finish(store: Store, day: str, totals: dict[str, int], table: str = "t1") -> None:
    players = list(totals)
    best = max(totals.values())
    store.import_match("scoreboard", players, {}, [({"type": "end"}, at(day))],
                       started=at(day, 19), finished=at(day),
                       result={"over": True, "totals": totals,
                               "winners": [p for p in players if totals[p] == best]},
                       uid=f"{table}-{day}-{'-'.join(players)}-{len(store.history(1000))}",
                       origin=table)


def test_seasons_are_read_from_one_line_and_refused_with_the_reason():
    spring, summer = parse_seasons("Spring 2026: 2026-03-01..2026-05-31; "
                                   "Summer: 2026-06-01..2026-08-31")
    assert spring.name == "Spring 2026" and spring.last == dt.date(2026, 5, 31)
    assert spring.holds(at("2026-05-31", 23)) and not spring.holds(at("2026-06-01", 0))
    for bad, why in (("Spring 2026-03-01..2026-05-31", "NAME:"),
                     ("S: 2026-03-01..2026-02-01", "ends before"),
                     ("S: 2026-13-01..2026-12-01", "YYYY-MM-DD"),
                     ("S: 2026-01-01..2026-02-01; S: 2026-03-01..2026-04-01", "two seasons")):
        with pytest.raises(SeasonError, match=why):
            parse_seasons(bad)
    with pytest.raises(ConfigError, match="club.seasons"):
        parse_config('[club]\nseasons = "Spring: 2026-05-01..2026-03-01"\n')


def test_standings_follow_the_written_tie_break_order_within_the_season():
    store = Store(":memory:")
    season = Season("Spring", dt.date(2026, 3, 1), dt.date(2026, 5, 31))
    finish(store, "2026-02-27", {"Di": 50, "Ann": 0})  # before the season: not counted
    finish(store, "2026-03-02", {"Ann": 10, "Bob": 5, "Cy": 1})
    finish(store, "2026-03-09", {"Bob": 10, "Ann": 5, "Cy": 1})
    finish(store, "2026-03-16", {"Cy": 9, "Bob": 9, "Ann": 1})   # Cy and Bob share it
    finish(store, "2026-04-01", {"Di": 3, "Eve": 3})             # Di and Eve: level
    (game,) = standings(store.summaries(), season)
    rows = [(r["rank"], r["name"], r["wins"], r["avg_place"], r["plays"]) for r in game["rows"]]
    # Bob 2 wins; Ann and Cy 1 win each: Ann's places 1,2,3 (2.0) beat Cy's 3,3,1 (2.33);
    # Di and Eve 1 win each, place 1.0 in one match: better place than Ann, fewer plays.
    assert rows[0] == (1, "Bob", 2, 1.33, 3)  # places 2, 1, 1 (a shared first)
    assert [r[1] for r in rows[1:]] == ["Di", "Eve", "Ann", "Cy"]
    assert rows[1][0] == rows[2][0] == 2  # Di and Eve are level on everything: shared
    assert rows[3][0] == 4
    assert TIE_BREAK[0] == "more wins"


def test_players_are_one_across_tables_and_lookalikes_are_one_question():
    store = Store(":memory:")
    finish(store, "2026-03-02", {"Ann": 10, "Bob": 5}, table="t1")
    finish(store, "2026-03-03", {"ann": 10, "Bob": 5}, table="t2")   # the same Ann
    finish(store, "2026-03-04", {"\u0410nn": 10, "Bob": 5}, table="t3")  # Cyrillic А
    (season,) = season_table(store, parse_seasons("All: 2026-01-01..2026-12-31"))
    rows = season["games"][0]["rows"]
    # One row under the latest spelling, as the league (companion.stats) shows it.
    assert [(r["name"], r["wins"], r["plays"]) for r in rows] == [("\u0410nn", 3, 3),
                                                                  ("Bob", 0, 3)]
    assert rows[0]["question"] == "Ann / \u0410nn: one player?"
    assert rows[1]["question"] is None


def test_a_bad_season_on_the_command_line_is_one_line(tmp_path):
    done = companion("club", "--broker", "mqtt://127.0.0.1:1", "--state-dir", str(tmp_path),
                     "--season", "Spring: 2026-05-01..2026-03-01")
    assert done.returncode != 0 and "ends before it starts" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") == 0


def test_the_club_page_shows_each_seasons_standings_and_the_tie_break():
    import asyncio

    from companion.club.receiver import Receiver
    from companion.club.web import ClubPage
    from tests.test_club_truth import FakeDashboard

    store = Store(":memory:")
    finish(store, "2026-03-02", {"Ann": 10, "Bob": 5})
    finish(store, "2026-07-02", {"Ann": 1, "Bob": 5})
    dashboard = FakeDashboard(Receiver(store, lambda *r: None))
    dashboard.seasons = parse_seasons("Spring: 2026-03-01..2026-05-31; "
                                      "Summer: 2026-06-01..2026-08-31")
    page = ClubPage(dashboard, store)
    data = asyncio.run(page.data())
    winners = {s["name"]: s["games"][0]["rows"][0]["name"] for s in data["seasons"]}
    assert winners == {"Spring": "Ann", "Summer": "Bob"}
    assert data["tie_break"] == list(TIE_BREAK)

    class Request:
        app = page.asgi()
    html = asyncio.run(page.live_html(Request()))
    assert "Spring" in html and "Ties are broken by: more wins" in html
