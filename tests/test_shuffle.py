"""The guided pile shuffle: exactly uniform, and the guide matches the physical deal."""

from __future__ import annotations

import doctest
import itertools
import json
import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BadSetup, CompanionError
from companion.table import shuffle
from companion.table.shuffle import (
    PROCEDURE,
    deal,
    passes_needed,
    plan_from_keys,
    plan_json,
    plan_text,
    run_plan,
    shuffle_keys,
    shuffle_plan,
)


def test_docstring_examples_hold():
    assert doctest.testmod(shuffle).failed == 0


# --- the physical procedure -------------------------------------------------------


def test_deal_puts_each_card_on_top_of_its_pile_and_gathers_pile_1_on_top():
    # Pile 1 gets a, c, e (e lands last, so on top); pile 2 gets b, d.
    assert deal(list("abcde"), [1, 2, 1, 2, 1], 2) == list("ecadb")


def test_deal_with_empty_piles_and_pile_order():
    # Pile 3 gets x then y (y on top), pile 2 stays empty, pile 1 gets z.
    assert deal(["x", "y", "z"], [3, 3, 1], 3) == ["z", "y", "x"]


def test_naive_radix_sort_fails_because_piles_reverse():
    # Dealing digit d onto pile d+1 on every pass is what a textbook LSD sort would do;
    # the reversal within piles breaks it, which is why the plan alternates.
    keys = [0, 1, 2, 3]
    naive = [[key % 2 + 1 for key in keys]]
    deck = deal(keys, naive[0], 2)
    naive.append([key // 2 % 2 + 1 for key in deck])
    assert run_plan(keys, naive, 2) != [0, 1, 2, 3]
    assert run_plan(keys, plan_from_keys(keys, 2), 2) == [0, 1, 2, 3]


# --- exhaustive uniformity ---------------------------------------------------------

# Includes decks where k**P is exactly N (4 with 2 or 4 piles) and where the top digit
# is barely used (5 with 2 piles needs 3 passes for 8 slots).
SMALL_DECKS = [(2, 2), (3, 2), (4, 2), (4, 4), (5, 2), (5, 3), (6, 2), (6, 3), (7, 2), (7, 3)]


def starting_orders(cards: int) -> list[list[str]]:
    """A few different physical decks to start from: in order, reversed, scrambled."""
    names = [f"card{n}" for n in range(cards)]
    scrambled = names[1::2] + names[0::2]
    return [names, names[::-1], scrambled]


@pytest.mark.parametrize(("cards", "piles"), SMALL_DECKS)
def test_every_key_arrangement_gives_its_own_order(cards, piles):
    starts = starting_orders(cards)
    outcomes: list[set[tuple[str, ...]]] = [set() for _ in starts]
    for keys in itertools.permutations(range(cards)):
        plan = plan_from_keys(keys, piles)
        assert len(plan) == passes_needed(cards, piles)
        for start, seen in zip(starts, outcomes, strict=True):
            final = run_plan(start, plan, piles)
            # The card that started at position i ends at position keys[i] ...
            expected = [""] * cards
            for position, key in enumerate(keys):
                expected[key] = start[position]
            assert final == expected
            seen.add(tuple(final))
    # ... so keys -> order is one-to-one onto all N! orders: uniform keys give a uniform
    # deck, whatever order the deck started in.
    for start, seen in zip(starts, outcomes, strict=True):
        assert len(seen) == math.factorial(cards)
        assert seen == set(itertools.permutations(start))


def test_shuffle_plan_hits_every_order_of_four_cards_evenly():
    rng = random.Random(20240611)
    trials = 24_000
    counts = Counter(tuple(run_plan("ABCD", shuffle_plan(4, 2, rng), 2)) for _ in range(trials))
    assert len(counts) == 24
    expected = trials / 24
    chi_square = sum((seen - expected) ** 2 / expected for seen in counts.values())
    # Chi-square critical value for 23 degrees of freedom at p = 0.001.
    assert chi_square < 49.728


# --- the guide agrees with a simulation of the table --------------------------------


@settings(max_examples=60, deadline=None)
@given(
    cards=st.integers(2, 800),
    piles=st.integers(2, 10),
    seed=st.integers(0, 2**32 - 1),
)
def test_guide_matches_simulated_deal(cards, piles, seed):
    plan = shuffle_plan(cards, piles, random.Random(seed))
    keys = shuffle_keys(cards, random.Random(seed))
    assert plan == plan_from_keys(keys, piles)
    assert len(plan) == passes_needed(cards, piles)
    for one_pass in plan:
        assert len(one_pass) == cards
        assert all(1 <= pile <= piles for pile in one_pass)
    final = run_plan(list(range(cards)), plan, piles)
    for card, key in enumerate(keys):
        assert final[key] == card


def test_same_seed_same_plan():
    assert shuffle_plan(52, 4, random.Random(7)) == shuffle_plan(52, 4, random.Random(7))


# --- passes needed -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "piles", "passes"),
    [
        (2, 2, 1),
        (3, 2, 2),
        (4, 2, 2),
        (5, 2, 3),
        (8, 2, 3),
        (9, 2, 4),
        (52, 2, 6),
        (512, 2, 9),
        (513, 2, 10),
        (800, 2, 10),
        (9, 3, 2),
        (10, 3, 3),
        (243, 3, 5),
        (244, 3, 6),
        (729, 3, 6),
        (730, 3, 7),
        (125, 5, 3),
        (126, 5, 4),
        (10, 10, 1),
        (11, 10, 2),
        (100, 10, 2),
        (101, 10, 3),
        (800, 10, 3),
        (2, 10, 1),
    ],
)
def test_passes_needed_at_boundaries(cards, piles, passes):
    assert passes_needed(cards, piles) == passes


@given(cards=st.integers(2, 800), piles=st.integers(2, 10))
def test_passes_needed_is_smallest_power_reaching_the_deck(cards, piles):
    passes = passes_needed(cards, piles)
    assert passes >= 1
    assert piles**passes >= cards
    assert passes == 1 or piles ** (passes - 1) < cards


# --- output ------------------------------------------------------------------------


def test_plan_json_shape():
    plan = shuffle_plan(20, 3, random.Random(1))
    data = plan_json(20, 3, plan)
    assert set(data) == {"cards", "piles", "passes"}
    assert data["cards"] == 20 and data["piles"] == 3
    assert data["passes"] == plan
    assert json.loads(json.dumps(data)) == data


def test_plan_text_lists_every_card_of_every_pass():
    plan = shuffle_plan(23, 3, random.Random(1))
    text = plan_text(23, 3, plan)
    assert text.startswith("Guided shuffle: 23 cards, 3 piles, 3 passes.")
    assert PROCEDURE in text
    for number, one_pass in enumerate(plan, start=1):
        section = text.split(f"Pass {number} of 3\n")[1].split("\n\n")[0]
        rows = section.splitlines()
        assert [row.split(":")[0] for row in rows] == [
            "cards 1-10",
            "cards 11-20",
            "cards 21-23",
        ]
        assert [int(p) for row in rows for p in row.split(":")[1].split()] == one_pass
    assert text.endswith("Done: the deck is shuffled.")


def test_procedure_fits_a_phone():
    assert all(len(line) <= 40 for line in PROCEDURE.splitlines())
    assert "TOP" in PROCEDURE and "pile 1 on top" in PROCEDURE


# --- bad arguments -----------------------------------------------------------------


@pytest.mark.parametrize("cards", [-1, 0, 1, 801, 2.5, True, "52"])
def test_bad_card_counts_refused(cards):
    with pytest.raises(BadSetup, match="cards"):
        shuffle_plan(cards, 2, random.Random(0))
    with pytest.raises(BadSetup, match="cards"):
        passes_needed(cards, 2)


@pytest.mark.parametrize("piles", [-1, 0, 1, 11, 2.0, False])
def test_bad_pile_counts_refused(piles):
    with pytest.raises(BadSetup, match="piles"):
        shuffle_plan(52, piles, random.Random(0))
    with pytest.raises(BadSetup, match="piles"):
        passes_needed(52, piles)


def test_bad_setup_is_a_companion_error():
    with pytest.raises(CompanionError):
        passes_needed(1, 2)


@pytest.mark.parametrize("keys", [[0, 0, 1], [1, 2, 3], [0, 2], [0]])
def test_keys_must_be_each_position_once(keys):
    with pytest.raises(BadSetup):
        plan_from_keys(keys, 2)


def test_deal_refuses_mismatched_pass():
    with pytest.raises(BadSetup, match="deck has 3"):
        deal([1, 2, 3], [1, 2], 2)
    with pytest.raises(BadSetup, match="no pile 3"):
        deal([1, 2, 3], [1, 2, 3], 2)
    with pytest.raises(BadSetup, match="no pile 0"):
        deal([1, 2, 3], [1, 0, 2], 2)


def test_output_refuses_plans_of_the_wrong_shape():
    with pytest.raises(BadSetup, match="pass 2"):
        plan_json(3, 2, [[1, 2, 1], [1, 2]])
    with pytest.raises(BadSetup, match="no pile"):
        plan_text(3, 2, [[1, 2, 5]])
