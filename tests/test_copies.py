"""companion.table.copies: the cards a table has shown, by place, counted against what
the deck holds, and the refusal's words."""

from __future__ import annotations

from companion.table.copies import BURNT, DISCARD, PILE, Hand, Seen, cards_of_value, deck_has


def four(kind: object) -> int:
    return 4


def test_cards_move_between_places_and_are_counted_once():
    seen = Seen()
    seen.add(PILE, [5, 5, 7])
    seen.move(PILE, Hand("Bob"))
    assert seen.at(PILE) == {} and seen.at(Hand("Bob")) == {5: 2, 7: 1}
    seen.remove(Hand("Bob"), [5, 5, 5, 9])          # only what was seen there leaves
    assert seen.at(Hand("Bob")) == {7: 1} and seen.count(5) == 0
    seen.add(BURNT, [7, 7])
    assert seen.count(7) == 3
    assert seen.where(7) == [(Hand("Bob"), 1), (BURNT, 2)]
    seen.move(DISCARD, PILE)                        # an empty place moves nothing
    assert seen.count(7) == 3


def test_too_many_counts_the_hand_they_come_from_once():
    seen = Seen()
    seen.add(Hand("Bob"), [5, 5, 5])
    seen.add(PILE, [5])
    assert seen.too_many([5], four, cards_of_value) == (
        "the deck has 4 cards of value 5: 3 are in Bob's hand and 1 is on the pile already")
    assert seen.too_many([5, 5, 5], four, cards_of_value, mine=Hand("Bob")) is None
    assert seen.too_many([5] * 4, four, cards_of_value, mine=Hand("Bob")) is not None
    assert seen.too_many([6, 6, 6, 6], four, cards_of_value) is None


def test_the_words_for_one_copy_and_for_nothing_seen():
    assert deck_has(1, cards_of_value(9, 1), [(DISCARD, 1)], 1) == (
        "the deck has 1 card of value 9: 1 is on the discard pile already")
    assert deck_has(4, "Gold Bars", [], 5) == "the deck has 4 Gold Bars, not 5"
    seen = Seen()
    assert seen.too_many([3] * 5, four, lambda kind, n: f"{kind}s") == "the deck has 4 3s, not 5"
