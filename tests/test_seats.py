"""Seat order (companion.table.seats) and the generic scoreboard (companion.table.scores).

The seat walks are checked against a brute-force model: step one seat at a time round
the table and count who is passed over.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.table import scores
from companion.table.seats import LEFT, RIGHT, Seats

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")

tables = st.integers(min_value=1, max_value=len(NAMES)).map(lambda n: Seats(NAMES[:n]))


def walk(players: tuple[str, ...], start: str, direction: int, skip: int, out) -> str:
    """The model: move one seat at a time; players out are not counted at all."""
    seat = players.index(start)
    passed = 0
    while True:
        seat = (seat + direction) % len(players)
        if players[seat] in out:
            continue
        if passed == skip:
            return players[seat]
        passed += 1


# -- seats --------------------------------------------------------------------------


def test_left_is_the_next_seat_and_wraps() -> None:
    seats = Seats(["Ann", "Bob", "Cy"])
    assert seats.left_of("Ann") == "Bob"
    assert seats.left_of("Cy") == "Ann"
    assert seats.left_of("Ann", RIGHT) == "Cy"


def test_first_dealer_is_the_last_entered_so_the_first_entered_plays_first() -> None:
    seats = Seats(["Ann", "Bob", "Cy"])
    assert seats.first_dealer == "Cy"
    assert seats.left_of(seats.first_dealer) == "Ann"


def test_the_deal_moves_left_every_hand() -> None:
    seats = Seats(["Ann", "Bob", "Cy"])
    dealers = [seats.first_dealer]
    for _ in range(4):
        dealers.append(seats.next_dealer(dealers[-1]))
    assert dealers == ["Cy", "Ann", "Bob", "Cy", "Ann"]
    assert [seats.dealer_of_hand(n) for n in range(1, 6)] == dealers


def test_skip_and_out() -> None:
    seats = Seats(["Ann", "Bob", "Cy", "Dee"])
    assert seats.next_player("Ann", skip=1) == "Cy"
    assert seats.next_player("Ann", RIGHT, skip=1) == "Cy"
    assert seats.next_player("Ann", out={"Bob"}) == "Cy"
    assert seats.next_player("Ann", RIGHT, out={"Dee", "Cy"}) == "Bob"
    # two players left and a skip: the same player goes again
    assert seats.next_player("Ann", skip=1, out={"Cy", "Dee"}) == "Ann"


def test_others_after_is_everyone_else_once_in_order() -> None:
    seats = Seats(["Ann", "Bob", "Cy", "Dee"])
    assert seats.others_after("Bob") == ("Cy", "Dee", "Ann")
    assert seats.others_after("Bob", RIGHT) == ("Ann", "Dee", "Cy")
    assert seats.others_after("Bob", out={"Dee"}) == ("Cy", "Ann")
    assert seats.round_from("Cy") == ("Cy", "Dee", "Ann", "Bob")


def test_bad_seats_and_walks() -> None:
    with pytest.raises(ValueError):
        Seats([])
    with pytest.raises(ValueError):
        Seats(["Ann", "Ann"])
    seats = Seats(["Ann", "Bob"])
    with pytest.raises(ValueError, match="not at the table"):
        seats.left_of("Zed")
    with pytest.raises(ValueError, match="direction"):
        seats.left_of("Ann", 2)
    with pytest.raises(ValueError, match="every player is out"):
        seats.next_player("Ann", out={"Ann", "Bob"})
    with pytest.raises(ValueError):
        seats.next_player("Ann", skip=-1)
    with pytest.raises(ValueError):
        seats.dealer_of_hand(0)


def test_seats_compare_and_iterate() -> None:
    seats = Seats(("Ann", "Bob"))
    assert seats == Seats(["Ann", "Bob"])
    assert list(seats) == ["Ann", "Bob"] and len(seats) == 2 and "Bob" in seats
    with pytest.raises(AttributeError):
        seats.players = ("Cy",)  # type: ignore[misc]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), seats=tables)
def test_next_player_matches_a_seat_by_seat_walk(data, seats: Seats) -> None:
    players = seats.players
    start = data.draw(st.sampled_from(players))
    direction = data.draw(st.sampled_from((LEFT, RIGHT)))
    skip = data.draw(st.integers(min_value=0, max_value=7))
    out = data.draw(st.sets(st.sampled_from(players), max_size=len(players) - 1))
    assert seats.next_player(start, direction, skip, out) == walk(
        players, start, direction, skip, out
    )


@settings(max_examples=100, deadline=None)
@given(data=st.data(), seats=tables)
def test_others_after_matches_repeated_steps(data, seats: Seats) -> None:
    players = seats.players
    start = data.draw(st.sampled_from(players))
    direction = data.draw(st.sampled_from((LEFT, RIGHT)))
    expected = []
    seat = start
    for _ in range(len(players) - 1):
        seat = walk(players, seat, direction, 0, ())
        expected.append(seat)
    assert seats.others_after(start, direction) == tuple(expected)
    assert sorted(seats.others_after(start, direction)) == sorted(set(players) - {start})
    # going round and back again lands where we started
    assert seats.left_of(seats.left_of(start, direction), -direction) == start


@settings(max_examples=60, deadline=None)
@given(seats=tables, hands=st.integers(min_value=1, max_value=20))
def test_every_player_deals_in_turn(seats: Seats, hands: int) -> None:
    dealer = seats.first_dealer
    for number in range(1, hands + 1):
        assert seats.dealer_of_hand(number) == dealer
        dealer = seats.next_dealer(dealer)


# -- scores ---------------------------------------------------------------------------


def test_running_totals_and_final_totals() -> None:
    rounds = [{"Ann": 35, "Bob": 35}, {"Cy": 75}, {}]
    assert scores.running_totals(["Ann", "Bob", "Cy"], rounds) == [
        {"Ann": 35, "Bob": 35, "Cy": 0},
        {"Ann": 35, "Bob": 35, "Cy": 75},
        {"Ann": 35, "Bob": 35, "Cy": 75},
    ]
    assert scores.final_totals(["Ann", "Bob", "Cy"], rounds) == {"Ann": 35, "Bob": 35, "Cy": 75}
    with pytest.raises(ValueError, match="Zed"):
        scores.add_points({"Ann": 0}, {"Zed": 3})


def test_winners_share_ties_high_or_low() -> None:
    totals = {"Ann": 300, "Bob": 300, "Cy": 120}
    assert scores.winners(totals) == ["Ann", "Bob"]
    assert scores.winners(totals, high_wins=False) == ["Cy"]
    assert scores.winners({}) == []


def test_split_points_round_down() -> None:
    assert scores.split_points(71, 2) == 35
    assert scores.split_points(69, 3) == 23
    assert scores.split_points(81, 2) == 40
    with pytest.raises(ValueError):
        scores.split_points(10, 0)


def test_target_and_standings() -> None:
    assert not scores.target_reached({"Ann": 299, "Bob": 12}, 300)
    assert scores.target_reached({"Ann": 299, "Bob": 300}, 300)
    assert scores.standings({"Ann": 10, "Bob": 30, "Cy": 30, "Dee": 5}) == [
        (1, "Bob", 30),
        (1, "Cy", 30),
        (3, "Ann", 10),
        (4, "Dee", 5),
    ]
    assert scores.standings({"Ann": 10, "Bob": 3}, high_wins=False)[0] == (1, "Bob", 3)


def test_scoreboard_is_immutable_and_reaches_its_target() -> None:
    board = scores.Scoreboard(("Ann", "Bob"), target=100)
    after = board.add_round({"Ann": 60}).add_round({"Ann": 40, "Bob": 99})
    assert board.totals == {"Ann": 0, "Bob": 0} and not board.over
    assert after.totals == {"Ann": 100, "Bob": 99} and after.over
    assert after.winners() == ["Ann"]
    assert after.standings()[1] == (2, "Bob", 99)
    with pytest.raises(ValueError):
        after.add_round({"Zed": 1})
    assert not scores.Scoreboard(("Ann",)).add_round({"Ann": 10**6}).over


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(NAMES[:3]), st.integers(min_value=0, max_value=85)),
        max_size=12,
    )
)
def test_running_totals_never_decrease_with_points_from_zero_up(rounds) -> None:
    columns = scores.running_totals(NAMES[:3], rounds)
    previous = scores.zero_totals(NAMES[:3])
    for totals in columns:
        assert all(totals[p] >= previous[p] for p in NAMES[:3])
        previous = totals
    assert previous == scores.final_totals(NAMES[:3], rounds)
