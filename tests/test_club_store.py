"""The store's part of club mode: the outbox mark, and times kept from elsewhere."""

from __future__ import annotations

import pytest

from companion.errors import StoreError
from companion.store import Store


@pytest.fixture
def store(tmp_path):
    with Store.in_dir(tmp_path, clock=iter(range(100, 10_000)).__next__) as opened:
        yield opened


def roll(value: int) -> dict:
    return {"type": "roll", "player": "Ann", "value": value}


def test_the_mark_moves_only_over_the_events_that_were_sent(store):
    mid = store.new_match("final-count", ["Ann", "Bob"])
    for value in (1, 2, 3):
        store.append(mid, roll(value))
    sent = [(event, at) for _, event, at in store.events_since(mid, 0)]
    assert store.published(mid) == 0
    assert store.mark_published(mid, 0, 2, sent[:2])
    assert store.published(mid) == 2
    assert not store.mark_published(mid, 0, 3, sent)  # the mark is not where we thought
    assert [seq for seq, _, _ in store.events_since(mid, 2)] == [3]


def test_an_undo_lowers_the_mark_and_a_replaced_event_is_not_marked(store):
    mid = store.new_match("final-count", ["Ann", "Bob"])
    for value in (1, 2, 3):
        store.append(mid, roll(value))
    sent = [(event, at) for _, event, at in store.events_since(mid, 0)]
    assert store.mark_published(mid, 0, 3, sent)
    store.pop(mid)
    store.pop(mid)
    assert store.published(mid) == 1
    store.append(mid, roll(5))
    # The broker's ack of the old event 2 arrives late: it must not mark the new one.
    assert not store.mark_published(mid, 1, 2, sent[1:2])
    assert store.published(mid) == 1


def test_unpublished_lists_own_matches_until_events_and_state_are_acknowledged(store):
    mine = store.new_match("final-count", ["Ann", "Bob"])
    store.append(mine, roll(4))
    store.import_match("final-count", ["Cy", "Di"], {}, [(roll(2), 5.0)], started=1.0,
                       finished=None, result=None, uid="elsewhere", origin="table-2")
    assert store.unpublished() == [mine]
    sent = [(event, at) for _, event, at in store.events_since(mine, 0)]
    store.mark_published(mine, 0, 1, sent)
    assert store.unpublished() == [mine]  # its state was not acknowledged yet
    uid = store.match(mine).uid
    store.set_meta("published-state:" + uid, "playing")
    assert store.unpublished() == []
    store.finish(mine, {"totals": {}, "winners": []})
    assert store.unpublished() == [mine]
    store.set_meta("published-state:" + uid, "finished")
    assert store.unpublished() == []
    store.set_meta("published-state:" + uid, None)
    assert store.meta("published-state:" + uid) is None


def test_times_from_elsewhere_are_kept(store):
    mid = store.new_match("final-count", ["Ann", "Bob"])
    store.append(mid, roll(3), at=12.5)
    store.finish(mid, {"totals": {}, "winners": []}, at=13.25)
    assert store.event_times(mid) == [12.5]
    assert store.match(mid).finished == 13.25


def test_the_sent_events_must_match_the_mark_move(store):
    mid = store.new_match("final-count", ["Ann", "Bob"])
    with pytest.raises(StoreError):
        store.mark_published(mid, 0, 2, [])
