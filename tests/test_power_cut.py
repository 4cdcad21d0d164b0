"""Pull the power, as SQLite tests itself: games are played through the real Store and
Session on a card that keeps every write not yet synced aside (:mod:`crash_card`, fed
by :mod:`crash_vfs`), and at every sync point, and at every moment the screen has just
shown something, the power is cut: the unsynced writes are all lost, all kept, or some
kept and one torn. Each outcome is booted: the log must be intact
(``integrity_check``), hold every event the screen showed (at most the one in flight
more), and every game must replay.

What the screen showed is read back from the store once a call has returned; that
alone cannot see an app that tells a view of an event before its commit returns. So
each view besides (the table page and the club publisher, which hear of every event
through the session's listeners, as :mod:`companion.launch` attaches them) is recorded
as it is told, and at every cut what each view had been told so far must be on the
card (:class:`Views`).

The same run with ``synchronous`` lowered (OFF, NORMAL), or with the directory syncs
dropped, or with a session that tells its views before it commits, must lose
something: those tests show the power-cut test can fail.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import re
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from crash_card import Card
from crash_vfs import VFS_NAME, crash_vfs_or_skip, plugged_in

from companion.commands.export import export_main
from companion.commands.importer import import_text
from companion.errors import StoreError
from companion.session import Session
from companion.store import PUBLISHED_STATE, Store

PLAYERS = ["Ann", "Bob", "Cy"]


@pytest.fixture
def card_dir(tmp_path: Path) -> Iterator[Path]:
    """Where the games are played and booted: in memory (/dev/shm) when there is one, as
    real syncs cost time and prove nothing here (the card model decides what survives)."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="power-cut-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module", autouse=True)
def _crash_layer() -> None:
    crash_vfs_or_skip()


class Shown(NamedTuple):
    """One match as the screen (or the club) knows it: also the events taken back (kept
    marked undone, each with its place) and the secret its draws come from."""

    game_id: str
    players: tuple[str, ...]
    state: str
    events: tuple[str, ...]
    published: int
    published_state: str | None
    undone: tuple[str, ...]
    secret: bytes | None


def snapshot(store: Store) -> dict[int, Shown]:
    """Every match in ``store`` (ids are 1, 2, ... with none ever deleted)."""
    found: dict[int, Shown] = {}
    while True:
        match_id = len(found) + 1
        try:
            record = store.match(match_id)
        except StoreError as err:
            if str(err) != f"no match {match_id}":
                raise
            return found
        found[match_id] = Shown(
            record.game_id, record.players, record.state,
            events_of(store.events(match_id)),
            store.published(match_id), store.meta(PUBLISHED_STATE + record.uid),
            tuple(json.dumps([move.seq, move.event], sort_keys=True)
                  for move in store.played(match_id) if move.undone),
            store.match_secret(match_id))


def events_of(events: Any) -> tuple[str, ...]:
    return tuple(json.dumps(event, sort_keys=True) for event in events)


Told = dict[str, dict[int, tuple[str, ...]]]


class Views:
    """What the views beside the screen were told, at the moment they were told it: the
    table page and the club publisher hear of each event (and undo) through the
    session's listeners and show the session's match as it is then."""

    NAMES = ("page", "club publisher")

    def __init__(self) -> None:
        self.told: Told = {name: {} for name in self.NAMES}

    def listeners(self) -> list[Any]:
        return [self._listener(name) for name in self.NAMES]

    def _listener(self, name: str) -> Any:
        def heard(session: Session, event: Any, undone: bool = False) -> None:
            self.told[name][session.match_id] = events_of(session.match.events)
        return heard

    def now(self) -> Told:
        return {name: dict(matches) for name, matches in self.told.items()}


def scoreboard(rnd: random.Random, players: list[str], rounds: int) -> list[dict[str, Any]]:
    return [{"type": "points", "player": name, "points": rnd.randint(-5, 30)}
            for _ in range(rounds) for name in players]


def rolls(count: int, start: int = 0) -> list[dict[str, Any]]:
    """Final Count rolls in seat order (legal while nobody calls)."""
    return [{"type": "roll", "player": PLAYERS[n % 3], "value": (n * 5) % 6 + 1}
            for n in range(start, start + count)]


def an_export(folder: Path) -> str:
    """``companion export --all`` of another device with two finished games."""
    rnd = random.Random(3)
    with Store.in_dir(folder) as other:
        for players in (["Dee", "Eve"], ["Ann", "Finn", "Gus"]):
            session = Session.start("scoreboard", players, {}, other)
            for event in [*scoreboard(rnd, players, 2), {"type": "end"}]:
                session.apply(event)
    out, err = io.StringIO(), io.StringIO()
    assert export_main(str(folder), "last", "jsonl", out=out, err=err, every=True) == 0, err
    return out.getvalue()


Step = tuple[str, "Store | None"]


def evening(state: Path, export: str, views: Views) -> Iterator[Step]:
    """An evening at the table, through the real Store and Session (``views`` hear of
    every event). Each ``yield`` is a call that returned: what it did is on the screen
    now (the label says what, the store is the open one to read it back from, None while
    the device is off)."""
    rnd = random.Random(8)
    told = views.listeners()
    store = Store.in_dir(state, vfs=VFS_NAME)
    yield "the device starts (a new game log)", store

    first = Session.start("scoreboard", PLAYERS, {}, store, listeners=told)
    yield "a scoreboard game starts", store
    for n, event in enumerate([*scoreboard(rnd, PLAYERS, 3), {"type": "end"}]):
        first.apply(event)
        yield f"scoreboard event {n + 1}", store
        if n == 4:
            first.undo()
            yield "scoreboard undo", store
            first.apply(event)
            yield "scoreboard event again", store

    # The club publisher, on its own connection: the broker acknowledged the game.
    publisher = Store(store.path, vfs=VFS_NAME)
    sent = [(event, at) for _, event, at in publisher.events_since(first.match_id, 0)]
    assert publisher.mark_published(first.match_id, 0, len(sent), sent)
    yield "the broker has the scoreboard game", store
    publisher.set_meta(PUBLISHED_STATE + store.match(first.match_id).uid, "finished")
    yield "the broker has it as finished", store

    second = Session.start("final-count", PLAYERS, {}, store, listeners=told)
    yield "a Final Count game starts", store
    for n, event in enumerate(rolls(7)):
        second.apply(event)
        yield f"final count roll {n + 1}", store
        if n == 2:  # the device's roll, taken back: kept marked undone, drawn the same
            drawn = second.drawn({"type": "roll", "player": PLAYERS[3 % 3]})
            second.apply(drawn)
            yield "the device rolls", store
            second.undo()
            yield "the device's roll undone", store
            assert second.drawn({"type": "roll", "player": PLAYERS[0]}) == drawn
    sent = [(event, at) for _, event, at in publisher.events_since(second.match_id, 0)]
    assert publisher.mark_published(second.match_id, 0, len(sent), sent)
    yield "the broker has 7 rolls", store
    second.undo()
    yield "final count undo (the outbox mark goes back)", store

    publisher.close()
    store.close()
    yield "the device is switched off", None

    store = Store.in_dir(state, vfs=VFS_NAME)
    yield "the device starts again", store
    unfinished = store.unfinished()
    assert unfinished is not None
    second = Session.resume(store, unfinished.id, listeners=told)
    for n, event in enumerate(rolls(5, start=6)):
        second.apply(event)
        yield f"final count roll {n + 7} after the restart", store

    import_text(store, export, lambda line: None)
    yield "two games imported", store

    second.abandon()
    yield "the Final Count game is ended (kept as abandoned)", store
    third = Session.start("scoreboard", ["Dee", "Eve"], {"low_wins": True}, store,
                          listeners=told)
    yield "a low-wins scoreboard starts", store
    for n, event in enumerate(scoreboard(rnd, ["Dee", "Eve"], 3)):
        third.apply(event)
        yield f"low-wins scoreboard event {n + 1}", store
    store.close()
    yield "the device is switched off again", None


#: What reached the card of the writes not yet synced, in each image of a cut.
OUTCOMES = {"lost": "no unsynced write reached the card", "all": "every unsynced write did",
            "some": "some did, one of them torn"}


class PowerCuts:
    """Plays :func:`evening` once on a :class:`Card` and boots every power cut's image."""

    def __init__(self, tmp_path: Path, seed: int = 22) -> None:
        self.state = tmp_path / "state"
        self.state.mkdir()
        self.boot_dir = tmp_path / "booted"
        self.export = an_export(tmp_path / "other")
        self.card = Card(seed, on_sync=self._at_sync)
        self.views = Views()
        #: (where, the card's images then, what the views had been told by then)
        self.in_flight: list[tuple[str, list[tuple[str, dict[str, bytes]]], Told]] = []
        self.shown: dict[int, Shown] = {}
        self.acknowledged = 0
        self.booted = 0
        self.failures: list[str] = []
        self._seen: set[bytes] = set()

    @property
    def cut_points(self) -> int:
        return self.card.sync_points + self.acknowledged

    def run(self) -> PowerCuts:
        with plugged_in(self.card):
            for label, store in evening(self.state, self.export, self.views):
                self._returned(label, store)
        assert not self.card.errors, self.card.errors[:3]
        return self

    def _at_sync(self, card: Card) -> None:
        """The power fails while this sync is on its way: what the card may hold."""
        self.in_flight.append((f"sync point {card.sync_points}", card.images(self.state),
                               self.views.now()))

    def _returned(self, label: str, store: Store | None) -> None:
        shown = self.shown if store is None else snapshot(store)
        for where, images, told in self.in_flight:
            self._boot_each(f"{where}, during '{label}'", images, self.shown, shown, told)
        self.in_flight = []
        self.acknowledged += 1
        self._boot_each(f"just after '{label}' was shown", self.card.images(self.state),
                        shown, shown, self.views.now())
        self.shown = shown

    def _boot_each(self, where: str, images: list[tuple[str, dict[str, bytes]]],
                   before: dict[int, Shown], after: dict[int, Shown], told: Told) -> None:
        for variant, files in images:
            key = hashlib.sha256(repr((sorted(files.items()), before, after, told))
                                 .encode()).digest()
            if key in self._seen:
                continue
            self._seen.add(key)
            self.booted += 1
            problem = self._boot(files, before, after, told)
            if problem:
                self.failures.append(f"power cut at {where} ({OUTCOMES[variant]}): {problem}")

    def _boot(self, files: dict[str, bytes], before: dict[int, Shown],
              after: dict[int, Shown], told: Told) -> str | None:
        """Power back on with ``files``: what is wrong, or None."""
        shutil.rmtree(self.boot_dir, ignore_errors=True)
        self.boot_dir.mkdir()
        for name, data in files.items():
            (self.boot_dir / name).write_bytes(data)
        database = self.boot_dir / Store.DEFAULT_NAME
        if database.exists():
            try:
                with closing(sqlite3.connect(database)) as conn:
                    verdict = conn.execute("PRAGMA integrity_check").fetchall()
            except sqlite3.DatabaseError as err:
                return f"the file is damaged: {err}"
            if verdict != [("ok",)]:
                return f"integrity_check says {verdict[:3]}"
        try:
            with Store.in_dir(self.boot_dir) as store:
                found = snapshot(store)
                for match_id in found:
                    session = Session.resume(store, match_id)  # replays through its engine
                    if found[match_id].state == "finished" and not session.match.over:
                        return f"match {match_id} is finished but its log does not end it"
        except StoreError as err:
            return f"the game log does not open: {err}"
        return differences(found, before, after) or untold(found, after, told)


def untold(found: dict[int, Shown], after: dict[int, Shown], told: Told) -> str | None:
    """A view told of events the card does not hold: what it was told must be on the
    card, or what the call in flight is writing (``after``: it may land before the
    views hear of it)."""
    for view, matches in told.items():
        for match_id, events in sorted(matches.items()):
            held = found[match_id].events if match_id in found else ()
            if held != events and (match_id not in after or held != after[match_id].events):
                return (f"the {view} was told match {match_id} has {len(events)} events, "
                        f"the card holds {len(held)}")
    return None


def differences(found: dict[int, Shown], before: dict[int, Shown],
                after: dict[int, Shown]) -> str | None:
    """How ``found`` differs from every mix of what the screen showed ``before`` the
    call in flight and ``after`` it (a call may be cut between its transactions)."""
    for match_id in sorted(set(found) | set(before)):
        had = [shown for shown in (before.get(match_id), after.get(match_id)) if shown]
        if match_id not in found:
            return f"match {match_id} is gone ({len(had[0].events)} events were shown)"
        if not had:
            return f"match {match_id} was never shown"
        for name in Shown._fields:
            value = getattr(found[match_id], name)
            allowed = [getattr(shown, name) for shown in had]
            if value not in allowed:
                if name in ("events", "undone"):
                    value, allowed = len(value), [len(events) for events in allowed]
                if name == "secret":
                    return f"match {match_id}: its secret changed or was lost"
                return f"match {match_id}: {name} is {value!r}, the screen showed {allowed!r}"
        if found[match_id].published > len(found[match_id].events):
            return f"match {match_id}: the outbox mark counts events that are gone"
    return None


def checkpoint_every(frames: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Connections check the WAL back into the file every ``frames`` pages (the device:
    1000), so that cuts also land inside checkpoints in the middle of a game."""
    real_connect = sqlite3.connect

    def connect(*args: Any, **kw: Any) -> sqlite3.Connection:
        conn = real_connect(*args, **kw)
        conn.execute(f"PRAGMA wal_autocheckpoint = {frames}")
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)


@pytest.mark.parametrize(("seed", "checkpoints"), [(22, None), (23, 16), (24, 7)])
def test_no_power_cut_loses_a_shown_event_or_breaks_the_log(
        card_dir: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
        checkpoints: int | None) -> None:
    """Seeds choose which unsynced writes survive (and which is torn) in the "some"
    images; with ``checkpoints`` the WAL is checkpointed every that many pages."""
    if checkpoints:
        checkpoint_every(checkpoints, monkeypatch)
    cuts = PowerCuts(card_dir, seed).run()
    print(f"power cut at {cuts.cut_points} points ({cuts.card.sync_points} sync points, "
          f"{cuts.acknowledged} moments after the screen showed a step); "
          f"{cuts.booted} different card images booted")
    assert cuts.failures == [], "\n".join(cuts.failures[:10])
    # The run really covered what it claims: syncs, the unsynced-write outcomes, a reboot.
    assert cuts.card.sync_points > cuts.acknowledged
    assert cuts.booted > 2 * cuts.card.sync_points
    assert [match.state for match in cuts.shown.values()] == [
        "finished", "abandoned", "finished", "finished", "playing"]
    # The undos were kept, marked, through every cut; the games played here keep secrets.
    assert [len(match.undone) for match in cuts.shown.values()] == [1, 2, 0, 0, 0]
    assert [match.secret is not None for match in cuts.shown.values()] == [
        True, True, False, False, True]
    for view in Views.NAMES:  # the views heard every game played here, to its last event
        assert cuts.views.told[view] == {match_id: cuts.shown[match_id].events
                                         for match_id in (1, 2, 5)}


@pytest.mark.parametrize("level", ["OFF", "NORMAL"])
def test_lowered_synchronous_is_caught(card_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                       level: str) -> None:
    """OFF never syncs; NORMAL (in WAL mode) syncs only at checkpoints, so an event on
    the screen can still be lost."""
    real_connect = sqlite3.connect

    class Lowered(sqlite3.Connection):
        """The store's own connection, with any ``PRAGMA synchronous`` set lower."""

        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            sql = re.sub(r"(?i)(pragma\s+synchronous\s*=\s*)\w+", rf"\g<1>{level}", sql)
            return super().execute(sql, *args)

    monkeypatch.setattr(sqlite3, "connect",
                        lambda *a, **kw: real_connect(*a, factory=Lowered, **kw))
    cuts = PowerCuts(card_dir).run()
    print("\n".join(cuts.failures[:4]))
    assert any("the screen showed" in failure or "is gone" in failure
               for failure in cuts.failures), cuts.failures[:3]


def test_telling_the_views_before_the_commit_is_caught(card_dir: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutant the store's read-back alone lets through: a session that tells the
    page and the club publisher of an event before its commit returns. Every call ends
    with the store and the screen agreeing, so only what the views were told at the
    cuts inside the commit shows it."""

    def apply_telling_first(self: Session, event: Any) -> None:
        self.match.check(event)
        self.match.apply(event)
        self.times.append(self.wall_clock())
        self._tell(event)  # the views hear of it now...
        self.store.append(self.match_id, event)  # ...and the commit comes after
        self.synced = len(self.match.events)
        if self.match.over:
            self.store.finish(self.match_id, self.match.result())

    monkeypatch.setattr(Session, "apply", apply_telling_first)
    cuts = PowerCuts(card_dir).run()
    print("\n".join(cuts.failures[:4]))
    assert any(" was told match " in failure for failure in cuts.failures), cuts.failures[:3]
    assert not [failure for failure in cuts.failures if " was told match " not in failure]


def drop_store_directory_syncs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's own directory syncs (``fsync_dir``, wherever it is imported) do nothing."""
    for name, module in list(sys.modules.items()):
        if name.startswith("companion.store") and hasattr(module, "fsync_dir"):
            monkeypatch.setattr(module, "fsync_dir", lambda directory: None)


def test_dropped_directory_syncs_are_caught(card_dir: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's own directory syncs (for a new WAL) skipped, and the store's too."""
    drop_store_directory_syncs(monkeypatch)
    cuts = PowerCuts(card_dir)
    cuts.card.lose_directory_syncs = True
    cuts.run()
    print("\n".join(cuts.failures[:4]))
    assert cuts.card.sync_points > 0
    assert any("is gone" in failure for failure in cuts.failures), cuts.failures[:3]


@pytest.mark.parametrize("synced", [True, False])
def test_a_log_set_aside_stays_aside_through_a_power_cut(
        card_dir: Path, monkeypatch: pytest.MonkeyPatch, synced: bool) -> None:
    """set_aside renames a damaged log and syncs the directory: after a cut the card has
    it under its new name (and, without that sync, still under the old one)."""
    if not synced:
        drop_store_directory_syncs(monkeypatch)
    card = Card()
    with plugged_in(card):
        with Store.in_dir(card_dir, vfs=VFS_NAME) as store:
            match = store.new_match("final-count", PLAYERS, {})
            for event in rolls(3):
                store.append(match, event)
        moved = Store.set_aside(card_dir / Store.DEFAULT_NAME)
        [(_, files)] = card.images(card_dir)
    names = sorted(files)
    if not synced:
        assert Store.DEFAULT_NAME in names and moved.name not in names
        return
    assert Store.DEFAULT_NAME not in names and moved.name in names
    booted = card_dir / "booted"
    booted.mkdir()
    for name, data in files.items():
        (booted / name).write_bytes(data)
    with Store(booted / moved.name) as aside:
        assert aside.events(match) == rolls(3)


def test_the_card_model() -> None:
    """The pieces the crash layer builds its images from."""
    from crash_card import apply_ops, torn

    assert apply_ops(b"abcdef", [(2, b"XY"), (8, b"Z"), (4, None)]) == bytearray(b"abXY")
    chance = random.Random(1)
    old = bytes(2048)
    offset, data = torn(old, 0, b"\xff" * 2048, chance)
    sectors = [data[n:n + 512] for n in range(0, 2048, 512)]
    assert offset == 0 and len(data) == 2048
    assert set(sectors) == {b"\xff" * 512, bytes(512)}  # some sectors written, some not
