"""Dice: single rolls, the cup with held dice, the roll history, and a fair d6."""

from __future__ import annotations

import doctest
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import BadSetup
from companion.table import dice
from companion.table.dice import DiceCup, roll_dice, roll_die


def test_docstring_examples_hold():
    assert doctest.testmod(dice).failed == 0


@given(count=st.integers(0, 40), seed=st.integers(0, 2**32 - 1))
def test_roll_dice_count_and_range(count, seed):
    faces = roll_dice(random.Random(seed), count)
    assert len(faces) == count
    assert all(1 <= face <= 6 for face in faces)


@pytest.mark.parametrize("count", [-1, 1.5, "3", None, True])
def test_roll_dice_refuses_bad_counts(count):
    with pytest.raises(BadSetup):
        roll_dice(random.Random(0), count)


def test_d6_is_fair():
    rng = random.Random(1_234_567)
    rolls = 60_000
    counts = Counter(roll_die(rng) for _ in range(rolls))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    expected = rolls / 6
    chi_square = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    # Chi-square critical value for 5 degrees of freedom at p = 0.001.
    assert chi_square < 20.515


def test_cup_before_first_roll():
    cup = DiceCup(count=5)
    assert cup.count == 5
    assert cup.faces is None
    assert cup.total == 0
    assert cup.held == frozenset()
    assert cup.history == []


@given(count=st.integers(1, 15), seed=st.integers(0, 2**32 - 1))
def test_first_roll_rolls_every_die(count, seed):
    cup = DiceCup(count=count)
    faces = cup.roll(random.Random(seed))
    assert len(faces) == count
    assert all(1 <= face <= 6 for face in faces)
    assert cup.faces == faces
    assert cup.total == sum(faces)


@given(
    holds=st.sets(st.integers(0, 14), max_size=14),
    seed=st.integers(0, 2**32 - 1),
)
def test_held_dice_keep_their_faces(holds, seed):
    rng = random.Random(seed)
    cup = DiceCup(count=15)
    before = cup.roll(rng)
    for index in holds:
        cup.toggle_hold(index)
    assert cup.held == frozenset(holds)
    after = cup.roll(rng)
    assert len(after) == 15
    assert all(after[index] == before[index] for index in holds)
    assert all(1 <= face <= 6 for face in after)


def test_free_dice_are_rerolled():
    # With fourteen free dice, some face changes on one of a handful of seeded re-rolls.
    rng = random.Random(42)
    cup = DiceCup(count=15)
    first = cup.roll(rng)
    cup.toggle_hold(3)
    second = cup.roll(rng)
    assert second != first
    assert second[3] == first[3]


def test_toggle_hold_twice_frees_the_die_and_release_all():
    cup = DiceCup(count=3)
    cup.roll(random.Random(0))
    cup.toggle_hold(1)
    cup.toggle_hold(2)
    cup.toggle_hold(1)
    assert cup.held == frozenset({2})
    cup.release_all()
    assert cup.held == frozenset()


def test_hold_needs_a_roll_first_and_a_real_die():
    cup = DiceCup(count=3)
    with pytest.raises(BadSetup, match="roll the dice first"):
        cup.toggle_hold(0)
    cup.roll(random.Random(0))
    for index in (-1, 3, 15):
        with pytest.raises(BadSetup, match="the cup has 3 dice"):
            cup.toggle_hold(index)
    with pytest.raises(BadSetup):
        cup.toggle_hold("1")
    assert cup.held == frozenset()


def test_rolling_with_every_die_held_is_refused():
    rng = random.Random(0)
    cup = DiceCup(count=2)
    faces = cup.roll(rng)
    cup.toggle_hold(0)
    cup.toggle_hold(1)
    with pytest.raises(BadSetup, match="every die is held"):
        cup.roll(rng)
    assert cup.faces == faces
    assert cup.history == [faces]


def test_history_is_newest_first_and_limited():
    rng = random.Random(5)
    cup = DiceCup(count=2, history=3)
    rolls = [cup.roll(rng) for _ in range(5)]
    assert cup.history == [rolls[4], rolls[3], rolls[2]]
    cup.history.clear()  # a copy: the cup's memory is not touched from outside
    assert len(cup.history) == 3


def test_history_of_zero_keeps_nothing():
    cup = DiceCup(history=0)
    cup.roll(random.Random(0))
    assert cup.history == []


def test_changing_count_clears_faces_and_holds():
    rng = random.Random(9)
    cup = DiceCup(count=4)
    cup.roll(rng)
    cup.toggle_hold(2)
    cup.count = 6
    assert cup.count == 6
    assert cup.faces is None
    assert cup.held == frozenset()
    assert len(cup.roll(rng)) == 6
    assert len(cup.history) == 2


@pytest.mark.parametrize("count", [0, 16, -3, 2.0, "5", True])
def test_bad_counts_refused(count):
    with pytest.raises(BadSetup):
        DiceCup(count=count)
    cup = DiceCup(count=2)
    with pytest.raises(BadSetup):
        cup.count = count
    assert cup.count == 2


def test_count_message_speaks_plainly():
    with pytest.raises(BadSetup, match="1 to 15 dice, not 16"):
        DiceCup(count=16)


@pytest.mark.parametrize("history", [-1, 1.5, None])
def test_bad_history_refused(history):
    with pytest.raises(BadSetup):
        DiceCup(history=history)
