"""The token bag: draws without replacement, an empty bag refused, reset, fair draws."""

from __future__ import annotations

import doctest
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import BadSetup
from companion.table import bag
from companion.table.bag import LOTTERY_TOKENS, TokenBag


def test_docstring_examples_hold():
    assert doctest.testmod(bag).failed == 0


def test_lottery_tokens():
    assert LOTTERY_TOKENS == ("1", "2", "3", "4", "5", "6", "NONE", "ALL")
    assert TokenBag().remaining == LOTTERY_TOKENS


@given(seed=st.integers(0, 2**32 - 1))
def test_draws_without_replacement_until_empty(seed):
    rng = random.Random(seed)
    token_bag = TokenBag()
    drawn = [token_bag.draw(rng) for _ in LOTTERY_TOKENS]
    assert sorted(drawn) == sorted(LOTTERY_TOKENS)
    assert token_bag.drawn == tuple(drawn)
    assert token_bag.remaining == ()
    with pytest.raises(BadSetup, match="the bag is empty"):
        token_bag.draw(rng)


@given(seed=st.integers(0, 2**32 - 1), draws=st.integers(0, 8))
def test_remaining_keeps_original_order(seed, draws):
    rng = random.Random(seed)
    token_bag = TokenBag()
    for _ in range(draws):
        token_bag.draw(rng)
    drawn = set(token_bag.drawn)
    assert token_bag.remaining == tuple(t for t in LOTTERY_TOKENS if t not in drawn)


def test_duplicate_tokens_are_separate_tokens():
    rng = random.Random(3)
    token_bag = TokenBag(["gold", "gold", "silver"])
    drawn = [token_bag.draw(rng) for _ in range(3)]
    assert Counter(drawn) == Counter({"gold": 2, "silver": 1})


def test_reset_puts_everything_back():
    rng = random.Random(1)
    token_bag = TokenBag(["a", "b", "c"])
    token_bag.draw(rng)
    token_bag.draw(rng)
    token_bag.reset()
    assert token_bag.remaining == ("a", "b", "c")
    assert token_bag.drawn == ()
    assert token_bag.draw(rng) in {"a", "b", "c"}


@pytest.mark.parametrize("tokens", [[], (), "ABC", ["a", ""], ["a", 3]])
def test_bad_bags_refused(tokens):
    with pytest.raises(BadSetup):
        TokenBag(tokens)


def test_first_draw_is_fair():
    rng = random.Random(8_675_309)
    trials = 16_000
    counts = Counter(TokenBag().draw(rng) for _ in range(trials))
    assert set(counts) == set(LOTTERY_TOKENS)
    expected = trials / len(LOTTERY_TOKENS)
    chi_square = sum((seen - expected) ** 2 / expected for seen in counts.values())
    # Chi-square critical value for 7 degrees of freedom at p = 0.001.
    assert chi_square < 24.322
