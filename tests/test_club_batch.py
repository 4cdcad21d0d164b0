"""The dashboard stores a burst of messages as one batch of its store (one sync, not one
a message: companion/store/file.py ``batch``, companion/club/dashboard.py ``_burst``):
each write still all or nothing, none seen elsewhere or receipted before the batch is
committed, and a batch that cannot be committed is lost whole and asked for again,
whatever the history."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import StoreError
from companion.session import Session
from companion.store import Store
from tests.test_club_receiver import OPS, Device, assert_mirrored, run


def test_a_batch_commits_its_writes_together_and_each_stays_all_or_nothing(tmp_path):
    store = Store.in_dir(tmp_path)
    reader = Store(store.path, readonly=True)
    try:
        session = Session.start("scoreboard", ["Ann", "Bob"], store=store)
        match = session.match_id
        with store.batch():
            store.append(match, {"type": "points", "player": "Ann", "points": 3})
            store.finish(match, {"over": True})
            with pytest.raises(StoreError):  # a finished match takes no more: refused
                store.append(match, {"type": "points", "player": "Bob", "points": 4})
            store.set_meta("note", "kept")
            assert len(store.events(match)) == 1  # this connection sees its own writes
            assert reader.events(match) == [] and reader.meta("note") is None
        assert len(reader.events(match)) == 1 and reader.meta("note") == "kept"
        assert reader.match(match).finished is not None
    finally:
        reader.close()
        store.close()


def test_a_batch_that_fails_loses_every_write_of_it_and_nothing_before(tmp_path):
    store = Store.in_dir(tmp_path)
    try:
        session = Session.start("scoreboard", ["Ann", "Bob"], store=store)
        store.append(session.match_id, {"type": "points", "player": "Ann", "points": 1})
        with pytest.raises(RuntimeError), store.batch():
            store.append(session.match_id, {"type": "points", "player": "Bob", "points": 2})
            store.set_meta("note", "lost")
            raise RuntimeError("the commit failed")
        assert len(store.events(session.match_id)) == 1 and store.meta("note") is None
        store.append(session.match_id, {"type": "points", "player": "Bob", "points": 2})
        assert len(store.events(session.match_id)) == 2  # the store writes on as before
    finally:
        store.close()


class BatchedDevice(Device):
    """The network of :class:`Device`, delivering each burst as one batch of the
    dashboard's store, as the dashboard does; a batch fails when ``rng`` says so (its
    writes lost whole, as when the commit fails) and the dashboard forgets its matches."""

    failing = True

    def deliver(self, count: int) -> None:
        self._take_sent()
        burst, self.in_flight = self.in_flight[:count], self.in_flight[count:]
        burst = burst * self.copies
        self.rng.shuffle(burst)
        try:
            with self.dashboard.batch():
                for topic, data in burst:
                    self.receiver.handle(topic, data)
                if self.failing and burst and self.rng.random() < 0.3:
                    raise OSError("disk I/O error")  # the commit fails: the batch is lost
        except OSError:
            self.receiver.forget({topic.rsplit("/", 1)[1] for topic, _ in burst
                                  if topic.count("/") == 3})
        self.receiver.receipts()
        replies, self.replies = self.replies, []
        for topic, data in replies:
            self.publisher.handle(("message", topic, data))


@settings(max_examples=60, deadline=None)
@given(ops=OPS, seed=st.integers(0, 2**16), copies=st.integers(1, 3))
def test_any_history_with_lost_batches_ends_equal(ops, seed, copies):
    device = BatchedDevice(random.Random(seed), copies)
    run(device, ops)
    device.failing = False  # the disk is fine again
    device.settle(accept=True)
    assert_mirrored(device)


def test_the_dashboard_forgets_a_burst_its_store_could_not_commit(tmp_path):
    """Dashboard._burst: the messages waiting are handled in one batch; when its commit
    fails nothing of it is said stored (no lag, no receipt) and the burst's matches are
    forgotten, to be read from the store and asked for again."""
    import contextlib

    from companion.club.dashboard import Dashboard

    dashboard = Dashboard("mqtt://127.0.0.1:1", tmp_path, sync_every=1e9)
    stored: list[float] = []
    dashboard.on_stored = stored.append
    forgotten: list[set] = []

    class Failing:
        results = 0

        class store:  # noqa: N801 - stands for the dashboard's Store
            @staticmethod
            @contextlib.contextmanager
            def batch():
                yield
                raise StoreError("cannot write the game log: disk I/O error")

        def handle(self, topic, data, retained=False):
            dashboard._stored.append(1.0)  # the receiver applied an event

        def forget(self, uids):
            forgotten.append(set(uids))

    for uid in ("u1", "u2"):
        dashboard.post("message", f"companion/t1/log/{uid}", b"{}")
    dashboard.post("message", "companion/t1/status", b"{}")
    while not dashboard.queue.empty():
        dashboard.lanes.put(*dashboard.queue.get()[1:4])
    dashboard._burst(Failing())
    assert forgotten == [{"u1", "u2"}] and stored == [] and not dashboard._stored
