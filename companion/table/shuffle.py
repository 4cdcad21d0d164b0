"""A guided pile shuffle: the screen says, card by card, which pile to deal onto, and a
few passes later a physical deck is in a perfectly random order.

The person at the table follows one fixed procedure (:data:`PROCEDURE`, printable):

* hold the deck face down and deal from the top, one card at a time;
* put each card face down on the TOP of the pile the guide names (piles 1..k);
* when the pass is dealt, gather the piles so pile 1 is on top and pile k at the
  bottom; that stack is the deck for the next pass.

Why it is random
----------------
Before dealing, the companion gives every card a *key*: its final position, 0 = top.
The keys are a uniformly random arrangement of 0..N-1 (:func:`shuffle_keys`, from
``rng.shuffle``). The passes then sort the deck by key, so the card that started at
position ``i`` ends at position ``keys[i]`` whatever the deck held: every one of the N!
orders comes from exactly one arrangement of keys, so each is equally likely.

The passes are a least-significant-digit radix sort with k piles: write each key in
base k with P = ceil(log_k N) digits (:func:`passes_needed`); pass t deals by digit t.
One twist: a card dealt onto the top of a pile lands *above* the cards dealt there
before it, so every pass reverses the order within each pile. A plain radix sort relies
on piles keeping that order and would scramble the deck. So the passes alternate
direction, counted back from the last one:

* after pass t the deck is sorted by its last t+1 digits, rising or falling;
* the last pass deals digit d onto pile d+1 (rising), the one before it onto pile k-d
  (falling), and so on back to pass 1;
* each pass reverses its piles, turning the previous pass's falling order into rising
  (or back), exactly what the next digit needs;
* after the last pass the deck is sorted rising by whole keys: key 0 on top.

The guide reads pile numbers off the deck as it physically lies at the start of each
pass (card 1 = the top card then), found by simulating the same procedure (:func:`deal`).

    >>> import random
    >>> plan = shuffle_plan(52, 3, random.Random(2024))
    >>> len(plan), len(plan[0]), set(plan[0]) <= {1, 2, 3}
    (4, 52, True)
    >>> sorted(run_plan(range(52), plan, 3)) == list(range(52))
    True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from companion.errors import BadSetup
from companion.lang import N_, _, npgettext, pgettext
from companion.words import counted

T = TypeVar("T")

MIN_CARDS = 2
MAX_CARDS = 800
MIN_PILES = 2
MAX_PILES = 10
#: How many pile numbers go on one line of the printed guide.
CARDS_PER_LINE = 10

# Translators: printed for a person dealing; keep each line within 40 characters.
PROCEDURE = N_("""\
How to deal each pass:
- Hold the deck face down.
- Take cards from the top, one by one.
- Put each card face down ON TOP of
  the pile the guide names.
- Some piles may get no cards.
- When the pass is dealt, put pile 1
  on pile 2, those on pile 3, and so
  on: pile 1 on top, the highest pile
  at the bottom.
- That stack is the deck for the
  next pass.
After the last pass the deck is
shuffled.""")


def _check_cards(cards: int) -> int:
    if isinstance(cards, bool) or not isinstance(cards, int):
        text = pgettext("screen 21xN", "the number of cards must be a whole number, not {value}")
        raise BadSetup(text.format(value=repr(cards)))
    if not MIN_CARDS <= cards <= MAX_CARDS:
        text = pgettext("screen 21xN", "the guided shuffle takes {low} to {high} cards, not "
                                       "{value}")
        raise BadSetup(text.format(low=MIN_CARDS, high=MAX_CARDS, value=cards))
    return cards


def _check_piles(piles: int) -> int:
    if isinstance(piles, bool) or not isinstance(piles, int):
        text = pgettext("screen 21xN", "the number of piles must be a whole number, not {value}")
        raise BadSetup(text.format(value=repr(piles)))
    if not MIN_PILES <= piles <= MAX_PILES:
        text = pgettext("screen 21xN", "the guided shuffle uses {low} to {high} piles, not {value}")
        raise BadSetup(text.format(low=MIN_PILES, high=MAX_PILES, value=piles))
    return piles


def _check_pile_number(pile: Any, piles: int) -> None:
    if isinstance(pile, bool) or not isinstance(pile, int) or not 1 <= pile <= piles:
        text = pgettext("screen 21xN", "there is no pile {value}: the piles are numbered 1 to {n}")
        raise BadSetup(text.format(value=repr(pile), n=piles))


def _check_plan(cards: int, piles: int, plan: Sequence[Sequence[int]]) -> None:
    _check_cards(cards)
    _check_piles(piles)
    for number, one_pass in enumerate(plan, start=1):
        if len(one_pass) != cards:
            text = npgettext("screen 21xN",
                             "pass {value} names a pile for {n} card, but the deck has {total}",
                             "pass {value} names piles for {n} cards, but the deck has {total}",
                             len(one_pass))
            raise BadSetup(text.format(value=number, n=len(one_pass), total=cards))
        for pile in one_pass:
            _check_pile_number(pile, piles)


def passes_needed(cards: int, piles: int) -> int:
    """How many passes shuffle ``cards`` cards with ``piles`` piles: ceil(log_piles cards).

    Counted with whole numbers, so 1000 cards with 10 piles is exactly 3 passes, never
    a rounding error's 4.

    >>> passes_needed(52, 2), passes_needed(52, 4), passes_needed(100, 10)
    (6, 3, 2)
    >>> passes_needed(101, 10)
    3
    """
    _check_cards(cards)
    _check_piles(piles)
    passes, orders_reached = 1, piles
    while orders_reached < cards:
        passes += 1
        orders_reached *= piles
    return passes


def shuffle_keys(cards: int, rng: random.Random) -> list[int]:
    """Draw each card's final position: ``keys[i]`` is where the card now at ``i`` ends.

    A uniformly random arrangement of 0..cards-1; :func:`shuffle_plan` uses exactly
    this, so the same seed gives the same keys and the same plan.

    >>> sorted(shuffle_keys(5, random.Random(1)))
    [0, 1, 2, 3, 4]
    """
    _check_cards(cards)
    keys = list(range(cards))
    rng.shuffle(keys)
    return keys


def plan_from_keys(keys: Sequence[int], piles: int) -> list[list[int]]:
    """The passes that move the card at position ``i`` (0 = top) to position ``keys[i]``.

    Each pass lists, in dealing order (top card first), the pile 1..piles for each card.

    >>> keys = [2, 0, 3, 1]
    >>> plan = plan_from_keys(keys, 2)
    >>> plan
    [[2, 2, 1, 1], [1, 2, 1, 2]]
    >>> run_plan(["A", "B", "C", "D"], plan, 2)   # A to 2, B to 0, C to 3, D to 1
    ['B', 'D', 'A', 'C']
    """
    cards = _check_cards(len(keys))
    _check_piles(piles)
    if sorted(keys) != list(range(cards)):
        text = pgettext("screen 21xN",
                        "the keys must name each final position 0 to {most} exactly once")
        raise BadSetup(text.format(most=cards - 1))
    passes = passes_needed(cards, piles)
    # deck[j] is the key of the card physically at position j right now.
    deck = list(keys)
    plan: list[list[int]] = []
    for step in range(passes):
        place_value = piles**step
        # Each pass reverses the piles, so directions alternate; the last pass is rising.
        rising = (passes - 1 - step) % 2 == 0
        one_pass = [
            digit + 1 if rising else piles - digit
            for digit in (key // place_value % piles for key in deck)
        ]
        plan.append(one_pass)
        deck = deal(deck, one_pass, piles)
    # Cheap proof on every plan that the alternation sorted the deck by key.
    assert deck == list(range(cards)), "guided shuffle plan does not sort its keys"
    return plan


def shuffle_plan(cards: int, piles: int, rng: random.Random) -> list[list[int]]:
    """A fresh random guided shuffle: ``passes_needed(cards, piles)`` passes, each listing
    the pile (1..piles) for every card in dealing order.

    >>> plan = shuffle_plan(10, 3, random.Random(9))
    >>> plan == plan_from_keys(shuffle_keys(10, random.Random(9)), 3)
    True
    """
    _check_piles(piles)
    return plan_from_keys(shuffle_keys(cards, rng), piles)


def deal(deck: Sequence[T], one_pass: Sequence[int], piles: int) -> list[T]:
    """One pass at the table: deal ``deck`` (top first) onto the piles named in
    ``one_pass``, each card on top of its pile, then gather with pile 1 on top.

    >>> deal(["a", "b", "c", "d", "e"], [1, 2, 1, 2, 1], 2)
    ['e', 'c', 'a', 'd', 'b']
    """
    _check_piles(piles)
    if len(one_pass) != len(deck):
        text = npgettext("screen 21xN", "the pass names a pile for {n} card, but the deck has "
                         "{total}", "the pass names piles for {n} cards, but the deck has "
                         "{total}", len(one_pass))
        raise BadSetup(text.format(n=len(one_pass), total=len(deck)))
    stacks: list[list[T]] = [[] for _ in range(piles)]
    for card, pile in zip(deck, one_pass, strict=True):
        _check_pile_number(pile, piles)
        stacks[pile - 1].append(card)
    # A pile read from the top is its dealing order backwards: the last card is on top.
    return [card for stack in stacks for card in reversed(stack)]


def run_plan(deck: Sequence[T], plan: Sequence[Sequence[int]], piles: int) -> list[T]:
    """Every pass of ``plan`` dealt in turn; returns the final deck, top first.

    >>> run_plan(["A", "B", "C"], [[1, 2, 2], [2, 1, 2]], 2)
    ['C', 'B', 'A']
    """
    result = list(deck)
    for one_pass in plan:
        result = deal(result, one_pass, piles)
    return result


def plan_json(cards: int, piles: int, plan: Sequence[Sequence[int]]) -> dict[str, Any]:
    """The plan as JSON-able data: ``{"cards": N, "piles": K, "passes": [[p, ...], ...]}``.

    >>> plan_json(3, 2, [[1, 2, 2], [2, 1, 2]])
    {'cards': 3, 'piles': 2, 'passes': [[1, 2, 2], [2, 1, 2]]}
    """
    _check_plan(cards, piles, plan)
    return {"cards": cards, "piles": piles, "passes": [list(p) for p in plan]}


def plan_text(cards: int, piles: int, plan: Sequence[Sequence[int]]) -> str:
    """Printable instructions: the procedure, then each pass's piles, ten cards a line.

    >>> text = plan_text(3, 2, [[1, 2, 2], [2, 1, 2]])
    >>> print(text[text.index("Pass 1"):])
    Pass 1 of 2
    cards 1-3: 1 2 2
    <BLANKLINE>
    Pass 2 of 2
    cards 1-3: 2 1 2
    <BLANKLINE>
    Done: the deck is shuffled.
    """
    _check_plan(cards, piles, plan)
    total = len(plan)
    lines = [
        # Each count says its own noun: one plural form cannot serve three numbers.
        _("Guided shuffle: {cards}, {piles}, {passes}.").format(
            cards=counted(cards, "card"), piles=counted(piles, "pile"),
            passes=counted(total, "pass")),
        _("Lay out piles 1 to {piles}, left to right.").format(piles=piles),
        "",
        _(PROCEDURE),
    ]
    for number, one_pass in enumerate(plan, start=1):
        lines += ["", _("Pass {value} of {total}").format(value=number, total=total)]
        for start in range(0, cards, CARDS_PER_LINE):
            group = one_pass[start : start + CARDS_PER_LINE]
            end = start + len(group)
            # Translators: which cards of the pass the pile numbers after it are for.
            lines.append(_("cards {first}-{last}: {piles}").format(
                first=start + 1, last=end, piles=" ".join(str(p) for p in group)))
    lines += ["", _("Done: the deck is shuffled.")]
    return "\n".join(lines)
