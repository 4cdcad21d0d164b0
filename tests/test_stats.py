"""companion.stats: figures checked against a small history worked out by hand, ratings
against openskill used directly, the kept (cached) figures against fresh ones, and the
``companion stats`` command."""

from __future__ import annotations

import io
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from companion import cli
from companion.stats import (
    cached_figures,
    figures,
    format_table,
    keep,
    period_start,
    places,
    ratings,
    since_date,
    stats_main,
    warm,
)
from companion.store import Store


class Clock:
    """The store's clock, set by hand: every stored time is chosen by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def play(store: Store, clock: Clock, game: str, players: list[str], times: list[float],
         result: dict[str, Any] | None, finished: float | None = None) -> int:
    """A match with one event at each of ``times``, finished at ``finished`` with
    ``result`` (None: left unfinished). Stats read stored results, not the engines."""
    clock.now = times[0] - 1
    mid = store.new_match(game, players, {})
    for at in times:
        clock.now = at
        store.append(mid, {"type": "note"})
    if result is not None:
        clock.now = finished if finished is not None else times[-1]
        store.finish(mid, {"over": True, **result})
    return mid


def hands(n: int) -> list[dict]:
    return [{}] * n


@pytest.fixture
def worked(tmp_path: Path):
    """The hand-worked history (see test_the_hand_worked_history for the sums)."""
    clock = Clock()
    store = Store(tmp_path / "companion.db", clock=clock)
    # M1 Final Count: Ann 310 wins, Cy 200 second, Bob 120 third; 600 s; 3 hands.
    play(store, clock, "final-count", ["Ann", "Bob", "Cy"], [1000, 1100, 1600],
         {"totals": {"Ann": 310, "Bob": 120, "Cy": 200}, "winners": ["Ann"],
          "hands": hands(3)}, finished=1700)
    # M2: Bob 305 beats Ann 200; 300 s; 2 hands.
    play(store, clock, "final-count", ["Ann", "Bob"], [2000, 2300],
         {"totals": {"Ann": 200, "Bob": 305}, "winners": ["Bob"], "hands": hands(2)},
         finished=2400)
    # M3: Ann and Bob share the win on 300; Cy 50 is third (1, 1, 3); 60 s; 4 hands.
    play(store, clock, "final-count", ["Ann", "Bob", "Cy"], [3000, 3060],
         {"totals": {"Ann": 300, "Bob": 300, "Cy": 50}, "winners": ["Ann", "Bob"],
          "hands": hands(4)}, finished=3100)
    # Final Card-Down: lowest wins (the engine's rule; the results carry no flag).
    play(store, clock, "card-down", ["Ann", "Bob"], [4000, 4100],
         {"totals": {"Ann": 12, "Bob": 40}, "winners": ["Ann"], "games": hands(1)},
         finished=4200)
    play(store, clock, "card-down", ["Ann", "Bob"], [5000, 5150],
         {"totals": {"Ann": 30, "Bob": 9}, "winners": ["Bob"], "games": hands(1)},
         finished=5200)
    # Abandoned: counts for nothing. Unfinished: only in "last played".
    gone = play(store, clock, "final-count", ["Cy", "Bob"], [5500], None)
    store.abandon(gone)
    play(store, clock, "final-count", ["Ann", "Dee"], [6000], None)
    yield store
    store.close()


def test_the_hand_worked_history(worked: Store) -> None:
    shown = figures(worked)
    assert list(shown["games"]) == ["final-count", "card-down"]  # the menu's order
    fc = shown["games"]["final-count"]
    assert fc["plays"] == 3 and fc["low_wins"] is False
    assert fc["seconds_played"] == 600 + 300 + 60
    assert fc["rounds_per_match"] == 3.0  # (3 + 2 + 4) / 3
    assert fc["last_played"] == 6000  # the unfinished match
    ann, bob, cy = (fc["players"][name] for name in ("Ann", "Bob", "Cy"))
    assert "Dee" not in fc["players"]  # only in the unfinished match: no "0 played" row
    assert {k: ann[k] for k in ann if k != "rating"} == {
        "plays": 3, "wins": 2, "win_rate": 0.6667, "avg_score": 270.0, "best_score": 310,
        "avg_place": 1.33, "seconds_played": 960.0, "longest_streak": 1,
        "last_played": 6000, "rounds_per_match": 3.0,
    }
    assert (bob["wins"], bob["avg_score"], bob["best_score"]) == (2, 241.67, 305)
    assert (bob["avg_place"], bob["longest_streak"], bob["last_played"]) == (1.67, 2, 3100)
    assert (cy["plays"], cy["wins"], cy["win_rate"], cy["avg_score"]) == (2, 0, 0.0, 125.0)
    assert (cy["best_score"], cy["avg_place"], cy["seconds_played"]) == (200, 2.5, 660.0)

    cd = shown["games"]["card-down"]
    assert cd["low_wins"] is True and cd["plays"] == 2
    a, b = cd["players"]["Ann"], cd["players"]["Bob"]
    assert (a["wins"], a["avg_score"], a["best_score"], a["avg_place"]) == (1, 21.0, 12, 1.5)
    assert (b["wins"], b["best_score"], b["seconds_played"]) == (1, 9, 250.0)

    # All games together: Ann W L W W L (streak 2), Bob L W W L W (streak 2).
    everyone = shown["players"]
    assert list(everyone) == ["Ann", "Bob", "Cy"]  # Dee never finished a match
    assert everyone["Ann"] == {"plays": 5, "wins": 3, "win_rate": 0.6, "avg_place": 1.4,
                               "seconds_played": 1210.0, "longest_streak": 2,
                               "last_played": 6000}  # the unfinished match
    assert everyone["Cy"]["last_played"] == 3100  # the abandoned match is no play
    assert (everyone["Bob"]["avg_place"], everyone["Bob"]["longest_streak"]) == (1.6, 2)
    assert shown["plays"] == 5 and "head_to_head" not in shown


def test_ratings_are_openskill_plackett_luce_ordinals(worked: Store) -> None:
    model = PlackettLuce()  # its default parameters
    ann, bob, cy = model.rating(), model.rating(), model.rating()
    [ann], [bob], [cy] = model.rate([[ann], [bob], [cy]], ranks=[1, 3, 2])
    [ann], [bob] = model.rate([[ann], [bob]], ranks=[2, 1])
    [ann], [bob], [cy] = model.rate([[ann], [bob], [cy]], ranks=[1, 1, 3])
    fc = figures(worked)["games"]["final-count"]["players"]
    assert fc["Ann"]["rating"] == round(ann.mu - 3 * ann.sigma, 1)
    assert fc["Bob"]["rating"] == round(bob.ordinal(), 1)
    assert fc["Cy"]["rating"] == round(cy.ordinal(), 1)
    # The table is best rating first.
    ratings = [row["rating"] for row in fc.values() if row["rating"] is not None]
    assert ratings == sorted(ratings, reverse=True)


def test_filters_game_player_period_and_head_to_head(worked: Store) -> None:
    one = figures(worked, game="card-down")
    assert list(one["games"]) == ["card-down"] and one["plays"] == 2
    assert one["players"]["Ann"]["plays"] == 2  # all games = this one game here

    alone = figures(worked, player="cy")  # names are matched as the roster does
    assert list(alone["games"]) == ["final-count"]
    assert list(alone["games"]["final-count"]["players"]) == ["Cy"]
    assert list(alone["players"]) == ["Cy"]

    late = figures(worked, since=2400)  # M2 finished at 2400: it counts
    assert late["games"]["final-count"]["plays"] == 2
    assert late["games"]["final-count"]["players"]["Cy"]["plays"] == 1

    duel = figures(worked, player=["Ann", "Cy"])["head_to_head"]
    assert duel == {"players": ["Ann", "Cy"], "matches": 2, "wins": {"Ann": 2, "Cy": 0},
                    "games": {"final-count": {"matches": 2, "wins": {"Ann": 2, "Cy": 0}}}}
    duel = figures(worked, player=["Ann", "Bob"], game="card-down")["head_to_head"]
    assert (duel["matches"], duel["wins"]) == (2, {"Ann": 1, "Bob": 1})


def test_places() -> None:
    assert places(["A", "B", "C"], {"A": 5, "B": 5, "C": 1}, ["A", "B"], False) == {
        "A": 1, "B": 1, "C": 3}
    # Lowest first when the lowest wins; equal totals share; no total comes last.
    assert places(["A", "B", "C", "D"], {"A": 3, "B": 9, "C": 9}, ["A"], True) == {
        "A": 1, "B": 2, "C": 2, "D": 4}
    # A winner need not have the best total (a tie-break): winners still come first.
    assert places(["A", "B"], {"A": 10, "B": 12}, ["A"], False) == {"A": 1, "B": 2}
    assert places(["A", "B"], {"A": 1, "B": 2}, [], False) == {"B": 1, "A": 2}


def test_one_player_under_two_spellings(tmp_path: Path) -> None:
    clock = Clock()
    with Store(tmp_path / "companion.db", clock=clock) as store:
        play(store, clock, "final-count", ["Ann", "Bob"], [10],
             {"totals": {"Ann": 300, "Bob": 1}, "winners": ["Ann"]})
        play(store, clock, "final-count", ["ann", "Bob"], [20],  # imported from elsewhere
             {"totals": {"ann": 310, "Bob": 2}, "winners": ["ann"]})
        shown = figures(store)["games"]["final-count"]["players"]
    assert list(shown) == ["ann", "Bob"]  # as last spelt
    assert (shown["ann"]["plays"], shown["ann"]["wins"], shown["ann"]["longest_streak"]) == (
        2, 2, 2)


def test_an_empty_log_and_odd_results(tmp_path: Path) -> None:
    clock = Clock()
    with Store(tmp_path / "companion.db", clock=clock) as store:
        assert figures(store) == {"since": None, "plays": 0, "games": {}, "players": {}}
        play(store, clock, "newer-game", ["Ann", "Bob"], [10],
             {"totals": {"Ann": "lots", "Bob": True}, "winners": "Bob"})
        play(store, clock, "newer-game", ["Ann", "Bob"], [20], {})
        shown = figures(store)["games"]["newer-game"]
    assert shown["title"] == "newer-game" and shown["plays"] == 2
    assert shown["players"]["Ann"]["avg_score"] is None
    assert shown["players"]["Ann"]["avg_place"] == 1.0  # no totals: everyone shares 1st


# -- kept figures ----------------------------------------------------------------------------


def test_kept_figures_follow_finish_undo_import_and_abandon(tmp_path: Path) -> None:
    clock = Clock()
    store = Store(tmp_path / "companion.db", clock=clock)
    play(store, clock, "final-count", ["Ann", "Bob"], [10],
         {"totals": {"Ann": 300, "Bob": 1}, "winners": ["Ann"]})
    assert cached_figures(store) == figures(store)
    # A finish: folded in.
    last = play(store, clock, "final-count", ["Ann", "Bob"], [20],
                {"totals": {"Ann": 3, "Bob": 301}, "winners": ["Bob"]})
    assert cached_figures(store) == figures(store)
    # An undo that reopens the last match: built again.
    store.pop(last)
    assert cached_figures(store) == figures(store)
    assert cached_figures(store)["plays"] == 1
    # An import of an older match (finished before the kept ones): built again.
    store.import_match("final-count", ["Cy", "Bob"], {}, [({"type": "note"}, 5)], started=4,
                       finished=6, result={"totals": {"Cy": 2, "Bob": 1}, "winners": ["Cy"]},
                       uid="older")
    assert cached_figures(store) == figures(store)
    assert cached_figures(store)["games"]["final-count"]["players"]["Cy"]["wins"] == 1
    # Abandoning the reopened match drops it from "last played".
    store.abandon(last)
    assert cached_figures(store) == figures(store)
    for since in (None, 5.0, 100.0):
        assert cached_figures(store, since=since) == figures(store, since=since)
    assert cached_figures(store, player="bob") == figures(store, player="bob")
    store.close()


def test_a_tally_warmed_on_another_connection_is_checked_before_it_is_used(
    tmp_path: Path,
) -> None:
    clock = Clock()
    store = Store(tmp_path / "companion.db", clock=clock)
    play(store, clock, "final-count", ["Ann", "Bob"], [10],
         {"totals": {"Ann": 300, "Bob": 1}, "winners": ["Ann"]})
    warmed = warm(store.path)  # what the device builds in a thread after its first frame
    assert warmed.count == 1
    # Meanwhile one more match finishes: the warmed tally folds it in when handed over.
    play(store, clock, "final-count", ["Ann", "Bob"], [20],
         {"totals": {"Ann": 3, "Bob": 301}, "winners": ["Bob"]})
    keep(store, warmed)
    assert cached_figures(store) == figures(store)
    assert warmed.count == 2  # it was the tally used, not one built afresh
    # A stale tally (an undo happened after it was built) is rebuilt, never trusted.
    stale = warm(store.path)
    store.pop(2)
    other = Store(tmp_path / "b.db", clock=clock)
    keep(other, stale)
    assert cached_figures(other) == figures(other)
    store.close()
    other.close()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["finish", "undo", "import", "abandon", "look"]),
                          st.integers(0, 10_000)), max_size=12))
def test_kept_figures_always_equal_fresh_ones(tmp_path_factory, steps) -> None:
    clock = Clock()
    store = Store(tmp_path_factory.mktemp("kept") / "companion.db", clock=clock)
    rnd = random.Random(0)
    clock.now = 1000.0
    for number, (step, seed) in enumerate(steps):
        rnd.seed(seed)
        clock.now += 10
        players = rnd.sample(["Ann", "Bob", "Cy", "Dee"], rnd.randint(2, 4))
        result = random_result(rnd, players)
        if step == "finish":
            play(store, clock, "final-count", players, [clock.now + 1], result)
        elif step == "import":
            at = rnd.uniform(0, clock.now)
            store.import_match("final-count", players, {}, [({"type": "note"}, at)],
                               started=at, finished=at, result=result, uid=f"i{number}")
        elif step in ("undo", "abandon"):
            done = store.history(limit=1)
            if done and step == "undo":
                store.pop(done[0].id)
            elif (open_match := store.unfinished()) is not None:
                store.abandon(open_match.id)
        assert cached_figures(store) == figures(store)
    store.close()


def random_result(rnd: random.Random, players: list[str]) -> dict[str, Any]:
    totals = {name: rnd.randint(0, 5) for name in players}
    best = max(totals.values())
    return {"totals": totals, "winners": [n for n in players if totals[n] == best]}


# -- ratings against openskill, over random histories -------------------------------------------


def reference_places(players, totals, winners):
    """Places the slow, obvious way: sort, then give equal keys the first index."""
    order = sorted(players, key=lambda n: (n not in winners, n in winners or -totals[n]))
    keys = [(n not in winners, 0 if n in winners else -totals[n]) for n in order]
    return {n: keys.index(keys[i]) + 1 for i, n in enumerate(order)}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**32)), min_size=1, max_size=15))
def test_ratings_equal_openskill_over_random_histories(tmp_path_factory, seeds) -> None:
    clock = Clock()
    model = PlackettLuce()
    expected: dict[str, Any] = {}
    with Store(tmp_path_factory.mktemp("rated") / "companion.db", clock=clock) as store:
        for number, (seed,) in enumerate(seeds):
            rnd = random.Random(seed)
            players = rnd.sample(["Ann", "Bob", "Cy", "Dee", "Eve"], rnd.randint(2, 5))
            result = random_result(rnd, players)
            play(store, clock, "final-count", players, [100.0 * (number + 1)], result)
            ranks = reference_places(players, result["totals"], result["winners"])
            teams = [[expected.get(n) or model.rating()] for n in players]
            rated = model.rate(teams, ranks=[ranks[n] for n in players])
            for name, [rating] in zip(players, rated, strict=True):
                expected[name] = rating
        shown = figures(store)["games"]["final-count"]["players"]
    assert {n: row["rating"] for n, row in shown.items()} == {
        n: round(r.ordinal(), 1) for n, r in expected.items()}


#: A match as the ratings take it: 2 to 6 seats of 8 players, each with a place (ties,
#: gaps and a last place shared by everyone among them).
_RATED_MATCH = st.lists(st.sampled_from("ABCDEFGH"), min_size=2, max_size=6, unique=True).flatmap(
    lambda seats: st.tuples(st.just(seats), st.lists(st.integers(1, len(seats)),
                                                     min_size=len(seats), max_size=len(seats))))


@settings(max_examples=200, deadline=None)
@given(st.lists(_RATED_MATCH, min_size=1, max_size=40))
def test_rate_is_openskill_to_the_last_bit(matches) -> None:
    # ratings.rate works out openskill's update itself (the model's rate copies every
    # team and draws a random id per copy): every mu and sigma must be the model's own,
    # not merely close, after every match.
    model = PlackettLuce()
    theirs: dict[str, Any] = {}
    ours: dict[str, ratings.Rating] = {}
    for seats, ranks in matches:
        placed = dict(zip(seats, ranks, strict=True))
        rated = model.rate([[theirs.get(key) or model.rating()] for key in seats],
                           ranks=list(ranks))
        theirs.update((key, rating) for key, (rating,) in zip(seats, rated, strict=True))
        ratings.rate(ours, list(seats), placed)
        assert {key: (r.mu, r.sigma) for key, r in theirs.items()} == {
            key: (r.mu, r.sigma) for key, r in ours.items()}
        assert all(ours[key].ordinal() == theirs[key].ordinal() for key in seats)


# -- periods and the command ----------------------------------------------------------------------


def test_periods_start_at_local_midnight() -> None:
    now = time.mktime((2026, 11, 23, 15, 30, 0, 0, 0, -1))
    assert period_start("all", now) is None
    assert period_start("year", now) == time.mktime((2026, 1, 1, 0, 0, 0, 0, 0, -1))
    assert period_start("30d", now) == time.mktime((2026, 10, 24, 0, 0, 0, 0, 0, -1))
    assert since_date("2026-10-24") == period_start("30d", now)
    with pytest.raises(ValueError):
        period_start("week", now)


def run_stats(state: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    options = dict(game=None, players=None, since=None, as_json=False)
    options.update(dict(arg for arg in args))  # type: ignore[arg-type]
    status = stats_main(state, out=out, err=err, **options)  # type: ignore[arg-type]
    return status, out.getvalue(), err.getvalue()


def test_stats_command_json_is_the_contract(worked: Store, capsys) -> None:
    state = str(worked.path.parent)
    assert cli.main(["stats", "--state-dir", state, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown == json.loads(json.dumps(figures(worked)))
    contract = {"plays", "wins", "win_rate", "avg_score", "best_score", "avg_place",
                "seconds_played", "longest_streak", "rating"}
    for game in shown["games"].values():
        assert isinstance(game["plays"], int)
        for row in game["players"].values():
            assert contract <= set(row)
    assert cli.main(["stats", "--state-dir", state, "--game", "card-down", "--player", "Ann",
                     "--player", "Bob", "--since", "1970-01-01", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert list(shown["games"]) == ["card-down"] and shown["head_to_head"]["matches"] == 2


def test_stats_command_table_and_refusals(worked: Store, capsys, tmp_path: Path) -> None:
    state = str(worked.path.parent)
    assert cli.main(["stats", "--state-dir", state]) == 0
    table = capsys.readouterr().out
    assert table == format_table(figures(worked))
    assert "Final Count (final-count): 3 played" in table and "\n  Ann " in table
    assert "3 hands a match" in table and "rounds" not in table  # Final Count counts hands
    for args, status, message in (
        (["--since", "23.11.2026"], 2, "--since is a date like 2026-01-31"),
        (["--game", "chess"], 2, "--game: no game 'chess'"),
        (["--player", "A", "--player", "B", "--player", "C"], 2, "--player: one name"),
    ):
        assert cli.main(["stats", "--state-dir", state, *args]) == status
        err = capsys.readouterr().err
        assert err.startswith(f"companion stats: {message}") and err.count("\n") == 1
    assert cli.main(["stats", "--state-dir", str(tmp_path / "none")]) == 1
    assert "no game log in" in capsys.readouterr().err
    empty = tmp_path / "empty"
    Store.in_dir(empty).close()
    assert cli.main(["stats", "--state-dir", str(empty)]) == 0
    assert capsys.readouterr().out == "No finished games yet.\n"
    assert cli.main(["stats", "--state-dir", str(empty), "--game", "count-up-21"]) == 0
    assert capsys.readouterr().out == "No finished Count Up 21 games yet.\n"
    assert cli.main(["stats", "--state-dir", str(empty), "--table", "t1"]) == 0
    assert capsys.readouterr().out == "No finished games of table t1 yet.\n"


def test_stats_takes_config_like_every_command(worked: Store, tmp_path: Path,
                                               capsys) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[state]\ndir = "{worked.path.parent}"\n', encoding="utf-8")
    assert cli.main(["stats", "--config", str(config), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plays"] == 5


def test_the_stats_benchmark_store_is_real(tmp_path: Path) -> None:
    from companion.bench.device import stats_speed, stats_store
    from companion.games import replay

    store = stats_store(str(tmp_path / "bench"), 40, events_per_match=20)
    try:
        assert figures(store)["games"]["scoreboard"]["plays"] == 40
        record = store.match(7)
        assert replay("scoreboard", record.players, {}, store.events(7)).result() == (
            record.result)
        assert len(store.events(7)) == 19
    finally:
        store.close()
    measured = stats_speed(30)  # reported by `companion bench`, never asserted on
    assert set(measured) == {"matches", "events", "stats_s", "history_warmup_s",
                             "history_unwarmed_ms", "history_first_ms",
                             "history_after_finish_ms", "history_again_ms"}
