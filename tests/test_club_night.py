"""A club night (companion/club/night.py, rounds.py): ``companion club --seat`` end to
end, the night's results and standings from the dashboard's store, and a running
dashboard sending the round to the tables over a real Mosquitto."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from companion_cli import companion

from companion.club import night as nights
from companion.club.seating import Seat, pairs
from companion.session import Session
from companion.store import Store

NINE = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy"]


def seat(state: Path, *more: str) -> dict:
    done = companion("club", "--seat", "final-count", "--present", ",".join(NINE),
                     "--tables", "3", "--json", "--state-dir", str(state), *more)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout)


def met_in(round_: dict) -> set[frozenset[str]]:
    return {frozenset(pair) for table in round_["tables"]
            for pair in itertools.combinations(table["players"], 2)}


def test_the_bar_nine_at_three_tables_twice_and_nobody_meets_again(tmp_path):
    state = tmp_path / "club"
    first, second = seat(state), seat(state)
    for number, round_ in ((1, first), (2, second)):
        assert round_["round"] == number and round_["game"] == "final-count"
        assert [len(t["players"]) for t in round_["tables"]] == [3, 3, 3]
        assert sorted(p for t in round_["tables"] for p in t["players"]) == sorted(NINE)
        assert [t["table"] for t in round_["tables"]] == ["table-1", "table-2", "table-3"]
    assert not met_in(first) & met_in(second)
    stored = json.loads((state / nights.NIGHT_FILE).read_text())
    assert [r["round"] for r in stored["rounds"]] == [1, 2]


def test_round_one_is_the_seeds_draw_and_the_seed_is_shown(tmp_path):
    one = seat(tmp_path / "a", "--seed", "42")
    again = seat(tmp_path / "b", "--seed", "42")
    assert one["seed"] == 42 and one["tables"] == again["tables"]
    done = companion("club", "--seat", "final-count", "--present", ",".join(NINE),
                     "--tables", "3", "--state-dir", str(tmp_path / "c"))
    assert done.returncode == 0
    assert done.stdout.startswith("Round 1: Final Count (draw seed ")
    assert "table-1" in done.stdout and "no dashboard running" in done.stderr


def test_a_night_that_cannot_be_seated_is_one_line(tmp_path):
    done = companion("club", "--seat", "count-up-21", "--present", "Ann,Bob,Cy",
                     "--tables", "3", "--state-dir", str(tmp_path / "club"))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "without one left over" in done.stderr
    assert not (tmp_path / "club" / nights.NIGHT_FILE).exists()


def play(store: Store, players: list[str], points: list[int], origin: str = "") -> None:
    """A finished Scoreboard match: points to the players in turn."""
    session = Session.start("scoreboard", players, store=store)
    for value, player in zip(points, itertools.cycle(players), strict=False):
        session.apply({"type": "points", "player": player, "points": value})
    session.apply({"type": "end"})


def test_the_nights_standings_come_from_its_rounds_finished_matches(tmp_path):
    store = Store.in_dir(tmp_path)
    try:
        night = nights.Night("2026-11-26")
        rnd = nights.Round(1, "scoreboard", 1, 0.0, [
            Seat("table-1", ("Ann", "Bob")), Seat("table-2", ("Cy", "Di"))])
        night.rounds.append(rnd)
        play(store, ["Ann", "Bob"], [1, 9])      # Bob wins
        play(store, ["Cy", "Di"], [7, 2])        # Cy wins
        play(store, ["Ann", "Cy"], [5, 1])       # not a table of the round: not counted
        matches = list(store.summaries())
        found = nights.results(rnd, matches)
        assert found["table-1"].winners == ("Bob",) and found["table-2"].winners == ("Cy",)
        rows = nights.standings(night, matches)
        assert [(row["name"], row["wins"]) for row in rows][:2] in (
            [("Bob", 1), ("Cy", 1)], [("Cy", 1), ("Bob", 1)])
        assert {row["name"] for row in rows} == {"Ann", "Bob", "Cy", "Di"}
        # Round 2 seats the winners together, the others together: Swiss-style.
        two = nights.next_round(night, "scoreboard", ["Ann", "Bob", "Cy", "Di"],
                                ["table-1", "table-2"], matches, now=10.0, seed=3)
        assert {frozenset(s.players) for s in two.seats} == {
            frozenset(("Bob", "Cy")), frozenset(("Ann", "Di"))}
        assert not pairs([two.seats]) & pairs([rnd.seats])
    finally:
        store.close()


def test_late_arrivals_and_leavers_are_taken_in(tmp_path):
    night = nights.Night("2026-11-26")
    tables = ["t1", "t2", "t3"]
    night.rounds.append(nights.next_round(night, "final-count", NINE[:6], tables, [], 0, 1))
    later = [*NINE[1:6], "Zoe", "Yan"]  # Ann left, two came
    two = nights.next_round(night, "final-count", later, tables, [], 1, 2)
    assert sorted(p for s in two.seats for p in s.players) == sorted(later)
    assert not pairs([two.seats]) & pairs(r.seats for r in night.rounds)
