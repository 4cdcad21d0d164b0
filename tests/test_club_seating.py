"""Seating a club night (companion/club/seating.py): hypothesis properties of the pure
algorithm, with a brute force over every seating for small nights."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from companion.club.seating import Seat, pairs, repeats, seat_round, table_sizes
from companion.errors import SeatingError

NAMES = [f"P{i}" for i in range(40)]


def seated_once(seats: list[Seat], players: list[str]) -> bool:
    everyone = [name for seat in seats for name in seat.players]
    return sorted(everyone) == sorted(players)


def sizes_ok(seats: list[Seat], low: int, high: int) -> bool:
    sizes = [len(seat.players) for seat in seats]
    return all(low <= size <= high for size in sizes) and max(sizes) - min(sizes) <= 1


@st.composite
def nights(draw, most: int = 40):
    low = draw(st.integers(2, 4))
    high = draw(st.integers(low, 10))
    count = draw(st.integers(low, most))
    need = -(-count // high)
    assume(seatable(count, low, high))
    tables = draw(st.integers(need, need + 4))
    return NAMES[:count], [f"table-{i}" for i in range(1, tables + 1)], low, high


def seatable(count: int, low: int, high: int) -> bool:
    """Some number of tables of ``low`` to ``high`` holds exactly ``count`` players."""
    return any(t * low <= count <= t * high for t in range(1, count + 1))


@settings(max_examples=150, deadline=None)
@given(nights(), st.integers(0, 2**32), st.integers(1, 5), st.data())
def test_every_round_seats_everyone_once_at_tables_within_the_range(night, seed, rounds, data):
    players, tables, low, high = night
    rng = random.Random(seed)
    history: list[list[Seat]] = []
    for number in range(rounds):
        present = players
        if number:  # a late arrival or a leaver between rounds
            present = data.draw(st.lists(st.sampled_from(NAMES), min_size=low,
                                         max_size=len(NAMES), unique=True))
            assume(seatable(len(present), low, high))
            need = -(-len(present) // high)
            tables = [f"table-{i}" for i in range(1, max(need, len(tables)) + 1)]
        ranking = sorted(present, key=lambda name: rng.random())
        seats = seat_round(present, tables, low, high, rng, ranking=ranking,
                           met=pairs(history))
        assert seated_once(seats, present)
        assert sizes_ok(seats, low, high)
        assert len(seats) <= len(tables)
        assert [seat.table for seat in seats] == tables[:len(seats)]
        history.append(seats)


def any_seating_without_repeats(players: list[str], sizes: list[int], met) -> bool:
    """Brute force: every way to split ``players`` into tables of ``sizes``."""
    if not players:
        return True
    head, rest = players[0], players[1:]
    for size in set(sizes):
        left = list(sizes)
        left.remove(size)
        for mates in itertools.combinations(rest, size - 1):
            group = (head, *mates)
            if any(frozenset((a.casefold(), b.casefold())) in met
                   for a, b in itertools.combinations(group, 2)):
                continue
            if any_seating_without_repeats([p for p in rest if p not in mates], left, met):
                return True
    return False


@settings(max_examples=200, deadline=None)
@given(st.integers(4, 10), st.integers(2, 3), st.integers(0, 2**32), st.integers(1, 4),
       st.data())
def test_no_pair_meets_again_when_any_seating_allows_it(count, low, seed, rounds, data):
    players = NAMES[:count]
    high = data.draw(st.integers(low, 4))
    assume(seatable(count, low, high))
    tables = [f"t{i}" for i in range(1, -(-count // high) + 2)]
    rng = random.Random(seed)
    history: list[list[Seat]] = []
    for _ in range(rounds):
        met = pairs(history)
        seats = seat_round(players, tables, low, high, rng,
                           ranking=data.draw(st.permutations(players)), met=met)
        sizes = table_sizes(count, len(tables), low, high)
        if any_seating_without_repeats(players, sizes, met):
            assert repeats(seats, met) == 0
        history.append(seats)


def test_round_one_is_the_seeds_draw():
    players = NAMES[:9]
    tables = ["a", "b", "c"]
    one = seat_round(players, tables, 2, 4, random.Random(7))
    assert one == seat_round(players, tables, 2, 4, random.Random(7))
    assert any(seat_round(players, tables, 2, 4, random.Random(seed)) != one
               for seed in range(8, 20))


def test_later_rounds_seat_players_of_like_standing_together():
    """Swiss-style: the night's best play the best, where no pair has met."""
    players = NAMES[:8]
    first = [Seat("a", ("P0", "P4")), Seat("b", ("P1", "P5")), Seat("c", ("P2", "P6")),
             Seat("d", ("P3", "P7"))]
    ranking = ["P0", "P1", "P2", "P3", "P4", "P5", "P6", "P7"]
    seats = seat_round(players, ["a", "b", "c", "d"], 2, 2, random.Random(1),
                       ranking=ranking, met=pairs([first]))
    assert [seat.players for seat in seats] == [("P0", "P1"), ("P2", "P3"), ("P4", "P5"),
                                                ("P6", "P7")]


def test_names_differing_in_case_are_one_player():
    with pytest.raises(SeatingError, match="named twice"):
        seat_round(["Ann", "ann", "Bob", "Cy"], ["a", "b"], 2, 2, random.Random(1))
    met = pairs([[Seat("a", ("Ann", "Bob"))]])
    seats = seat_round(["ANN", "bob", "Cy", "Di"], ["a", "b"], 2, 2, random.Random(1),
                       ranking=["ANN", "bob", "Cy", "Di"], met=met)
    assert repeats(seats, met) == 0


@pytest.mark.parametrize(("count", "tables", "low", "high", "sizes"), [
    (9, 3, 2, 4, [3, 3, 3]),
    (10, 3, 2, 4, [4, 3, 3]),
    (5, 4, 2, 4, [3, 2]),          # fewer tables when the players cannot fill them
    (2, 5, 2, 2, [2]),
])
def test_table_sizes_are_as_equal_as_the_range_allows(count, tables, low, high, sizes):
    assert table_sizes(count, tables, low, high) == sizes


@pytest.mark.parametrize(("count", "tables", "low", "high", "why"), [
    (9, 2, 2, 4, "at least 3 tables"),
    (1, 3, 2, 4, "too few"),
    (4, 2, 3, 3, "without one left over"),
])
def test_a_night_that_cannot_be_seated_says_why(count, tables, low, high, why):
    with pytest.raises(SeatingError, match=why):
        table_sizes(count, tables, low, high)
