"""The clock is in the log (issue 37 point 4): the timer chosen at setup is kept with the
match, and each player's time left, whose clock runs and a pause come back after a
restart or a power cut, as they read at the last event (or pause, or undo).

The device runs on a manual clock and its game log on a manual wall clock that moves
with it (a second on one is a second on the other). A restart is a new app on the same
state dir (a new boot: its monotonic clock starts again, the wall clock has gone on); a
power cut is a new app on the card's image at that moment, as the crash layer says it
would be found (nothing unsynced reaches the card), so what brings the clocks back must
have been synced.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from crash_card import Card
from crash_vfs import VFS_NAME, crash_vfs_or_skip, plugged_in
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.clock import ManualClock
from companion.config import Config, parse_config
from companion.gamelog import GameLog
from companion.launch import make_app
from companion.remote.serial import execute, parse_command
from companion.sim import ScriptRunner, Step, sim_board_factory, sim_panel
from companion.store import Store
from companion.table.timer import TurnTimer, clock_after
from companion.ui.games import setup_screen

QUIET = "[idle]\ndim_after = 0\nblank_after = 0\nshift_every = 0\n"
#: Where the wall clock stands when the manual clock reads 0 (the first boot).
EPOCH = 1_760_000_000.0


class Table:
    """A device booted on ``state`` with its own manual clock; its game log stamps
    times with ``wall`` (a callable the test moves with the device's clock)."""

    def __init__(self, state: Path, config: Config, wall: Callable[[], float], *,
                 vfs: str | None = None, boot_at: float = 0.0):
        self.clock = ManualClock(boot_at)

        def opener(directory: Path) -> tuple[Any, None]:
            return Store(directory / Store.DEFAULT_NAME, clock=wall, vfs=vfs), None

        game_log = GameLog.open(state, self.clock(), opener=opener)
        self.app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(),
                            clock=self.clock, seed=4, game_log=game_log)
        self.app.start()
        self.runner = ScriptRunner(self.app, self.clock, config.buttons.hold_time)

    def command(self, text: str) -> dict:
        reply = execute(self.app, parse_command(text))
        assert reply.startswith("OK "), reply
        return json.loads(reply[3:])

    def play(self, player: str) -> None:
        """``player``, whose move it is, plays the lowest card they may (Count Up 21: the
        move passes on)."""
        expecting = self.command("STATUS")["expecting"]
        assert expecting["player"] == player, expecting
        card = min(expecting["choices"]["card"])
        self.command("EVENT " + json.dumps({"type": "play", "player": player, "card": card}))

    def timer(self) -> dict:
        return self.command("STATUS")["timer"]

    def hold_back(self) -> None:
        self.runner.run(Step(0, "HOLD BACK", "back", long=True))

    def resume(self) -> None:
        """OK on the start's "Resume Count Up 21?"."""
        assert "Resume" in " ".join(getattr(self.app.screen, "lines", [])), self.app.screen
        self.runner.run(Step(0, "OK", "ok"))
        assert self.app.current_session() is not None

    def new_game(self, *moves: float | str) -> None:
        """A new Count Up 21 for Ann and Bob, then ``moves``: seconds to wait, and the
        names of those who play then, in turn (``40, "Ann", 25, "Bob"``)."""
        self.command("NEW count-up-21 Ann,Bob")
        for move in moves:
            if isinstance(move, str):
                self.play(move)
            else:
                self.runner.advance(move)

    def paused_in_bobs_turn(self, first: float, then: float) -> None:
        """A new Count Up 21: Ann plays after ``first`` seconds, then ``then`` seconds
        into Bob's turn a long BACK pauses the time."""
        self.new_game(first, "Ann", then)
        self.hold_back()

    def off(self) -> None:
        self.app.ctx.store.close()
        self.app.board.close()


class Wall:
    """The wall clock: the device's manual clock plus where it stood at the boot."""

    def __init__(self) -> None:
        self.table: Table | None = None
        self.offset = EPOCH

    def __call__(self) -> float:
        assert self.table is not None
        return self.offset + self.table.clock()

    def boot(self, state: Path, config: Config, *, vfs: str | None = None,
             outage: float = 0.0) -> Table:
        """Boot (again) ``outage`` seconds after the last moment of the one before."""
        if self.table is not None:
            self.offset = self() + outage
        self.table = Table(state, config, self, vfs=vfs)
        return self.table


def chess(minutes: int = 10) -> Config:
    return parse_config(QUIET + f'[timer]\nturn = {minutes * 60}\nmode = "clock"\n')


@pytest.fixture
def wall() -> Iterator[Wall]:
    made = Wall()
    yield made
    if made.table is not None:
        made.table.app.board.close()


def close(a: dict, b: dict, within: int = 1) -> bool:
    """Two STATUS timers alike, each clock within ``within`` seconds of the other."""
    same = {key: a[key] for key in ("player", "turn", "mode", "paused")} == \
        {key: b[key] for key in ("player", "turn", "mode", "paused")}
    return same and set(a["totals"]) == set(b["totals"]) and abs(a["left"] - b["left"]) <= within \
        and all(abs(a["totals"][name] - b["totals"][name]) <= within for name in a["totals"])


# -- a restart -----------------------------------------------------------------------------


def test_a_chess_clock_reads_after_a_restart_what_it_read_at_the_last_event(
        tmp_path: Path, wall: Wall) -> None:
    table = wall.boot(tmp_path, chess())
    table.new_game(40, "Ann", 25, "Bob", 0.4)
    read = table.timer()
    assert read["player"] == "Ann" and read["totals"] == {"Ann": 560, "Bob": 575}
    table.runner.advance(30)  # Ann thinks; then the device is switched off
    table.off()
    table = wall.boot(tmp_path, chess(), outage=120)
    table.resume()
    again = table.timer()
    assert close(again, read), (again, read)
    table.runner.advance(5)  # Ann's clock runs on from there, Bob's stands
    assert table.timer()["totals"]["Ann"] == again["totals"]["Ann"] - 5
    assert table.timer()["totals"]["Bob"] == again["totals"]["Bob"]


def test_a_pause_survives_a_restart(tmp_path: Path, wall: Wall) -> None:
    table = wall.boot(tmp_path, chess())
    table.paused_in_bobs_turn(12, 7.5)
    read = table.timer()
    assert read["paused"] and read["totals"] == {"Ann": 588, "Bob": 592}
    table.runner.advance(300)  # paused: nothing runs, then the power goes
    table.off()
    table = wall.boot(tmp_path, chess(), outage=60)
    table.resume()
    again = table.timer()
    assert again["paused"] and close(again, read), (again, read)
    table.runner.advance(50)
    assert table.timer() == again  # still paused
    table.hold_back()  # runs on
    table.runner.advance(10)
    assert table.timer()["totals"] == {"Ann": 588, "Bob": read["totals"]["Bob"] - 10}


def test_a_turn_timer_gives_back_what_was_left_of_the_turn(tmp_path: Path,
                                                           wall: Wall) -> None:
    config = parse_config(QUIET + "[timer]\nturn = 60\n")
    table = wall.boot(tmp_path, config)
    table.paused_in_bobs_turn(20, 8)
    read = table.timer()
    assert read == {"player": "Bob", "left": 52, "turn": 60, "mode": "turn", "paused": True,
                    "totals": {}}
    table.off()
    table = wall.boot(tmp_path, config, outage=30)
    table.resume()
    assert table.timer() == read


def test_undo_keeps_the_time_spent_and_a_restart_after_it_too(tmp_path: Path,
                                                               wall: Wall) -> None:
    """A chess clock never gives time back: Ann's card taken back, the 20 s Bob thought
    meanwhile are still Bob's, and Ann's clock runs on from where it stood."""
    table = wall.boot(tmp_path, chess())
    table.new_game(10, "Ann", 20)
    table.command("UNDO")
    read = table.timer()
    assert read["player"] == "Ann" and read["totals"] == {"Ann": 590, "Bob": 580}
    table.runner.advance(0.5)
    table.off()
    table = wall.boot(tmp_path, chess(), outage=10)
    table.resume()
    assert close(table.timer(), read), (table.timer(), read)


def test_leaving_the_game_for_the_menu_keeps_its_clocks(tmp_path: Path, wall: Wall) -> None:
    table = wall.boot(tmp_path, chess())
    table.new_game(10, "Ann", 15)  # Bob thinks, then the table goes to the main menu
    read = table.timer()
    table.runner.run(Step(0, "BACK", "back"))  # the game's menu: "Leave (kept)"
    labels = [item.label for item in table.app.screen.items]
    for _ in range(labels.index("Leave (kept)")):
        table.runner.run(Step(0, "DOWN", "down"))
    table.runner.run(Step(0, "OK", "ok"))
    assert table.app.current_session() is None
    table.runner.advance(100)
    table.off()
    table = wall.boot(tmp_path, chess(), outage=5)
    table.resume()
    assert close(table.timer(), read), (table.timer(), read)


def switched_off_and_on(wall: Wall, state: Path, table: Table, *, after: float,
                        outage: float) -> Table:
    """``after`` seconds more on ``table``, then off for ``outage`` seconds, and the
    game taken up again."""
    table.runner.advance(after)
    table.off()
    table = wall.boot(state, chess(), outage=outage)
    table.resume()
    return table


def ann_plays_then_the_power_goes(wall: Wall, state: Path, table: Table, *,
                                  thinks: float) -> None:
    """Ann plays after ``thinks`` more seconds, leaving 550 s on her clock (575 on
    Bob's); a power cut a moment later, and after it both clocks read what they did."""
    table.runner.advance(thinks)
    table.play("Ann")
    read = table.timer()
    assert read["totals"] == {"Ann": 550, "Bob": 575}
    table = switched_off_and_on(wall, state, table, after=4, outage=60)
    assert close(table.timer(), read), (table.timer(), read)


def test_a_second_restart_counts_neither_outage(tmp_path: Path, wall: Wall) -> None:
    """Resumed after a power cut of an hour, Ann plays, and the power goes again: the
    hour the device was off is nobody's turn (it was counted as Ann's, her clock at 0)."""
    table = wall.boot(tmp_path, chess())
    table.new_game(40, "Ann", 25, "Bob", 0.4)
    table = switched_off_and_on(wall, tmp_path, table, after=30, outage=3600)
    ann_plays_then_the_power_goes(wall, tmp_path, table, thinks=10)


@pytest.mark.parametrize("jump", [23 * 3600, -3600])
def test_a_wall_clock_set_forward_or_back_is_no_ones_time(tmp_path: Path, wall: Wall,
                                                          jump: float) -> None:
    """The Pi finds the network's time in the middle of Ann's turn (its wall clock jumps
    23 hours on, or back an hour): after a restart her clock reads what it read on the
    device, not 23 hours spent (0) or her turn given back."""
    table = wall.boot(tmp_path, chess())
    table.new_game(40, "Ann", 25, "Bob", 5)
    wall.offset += jump
    ann_plays_then_the_power_goes(wall, tmp_path, table, thinks=5)


# -- the choice at setup -------------------------------------------------------------------


def _timer_row(setup):
    """The setup's Timer row (its label names the turn timer or the clock)."""
    [row] = [action for label, action in setup.rows
             if label.startswith(("Turn timer", "Clock"))]
    return row


def test_the_setup_choice_is_kept_with_the_match_and_runs_after_a_restart(
        tmp_path: Path, wall: Wall) -> None:
    """A 45 s turn chosen on the setup, against [timer]'s 20: the resumed game runs 45 s
    turns, and a game set to "off" stays off, whatever [timer] says by then."""
    config = parse_config(QUIET + "[timer]\nturn = 20\n")
    table = wall.boot(tmp_path, config)
    setup = setup_screen(table.app.ctx, "count-up-21", None, ["Ann", "Bob"])
    timer_row = _timer_row(setup)
    for _ in range(30):  # round the timer's choices (bounded: a wrong row never loops)
        if setup.timer_turn == 45:
            break
        timer_row(table.app.ctx)
    table.app.set_screen(setup.begin(table.app.ctx))
    assert table.timer()["turn"] == 45
    with Store(tmp_path / Store.DEFAULT_NAME, readonly=True) as store:
        assert store.unfinished().options["timer"] == {"turn": 45, "mode": "turn"}
    table.off()
    table = wall.boot(tmp_path, parse_config(QUIET + "[timer]\nturn = 90\n"))
    table.resume()
    assert table.timer()["turn"] == 45


def test_off_chosen_on_the_setup_stays_off_after_a_restart(tmp_path: Path, wall: Wall) -> None:
    config = parse_config(QUIET + "[timer]\nturn = 20\n")
    table = wall.boot(tmp_path, config)
    setup = setup_screen(table.app.ctx, "count-up-21", None, ["Ann", "Bob"])
    timer_row = _timer_row(setup)
    for _ in range(30):
        if not setup.timer_turn:
            break
        timer_row(table.app.ctx)
    table.app.set_screen(setup.begin(table.app.ctx))
    assert table.timer() is None
    table.off()
    table = wall.boot(tmp_path, config)
    table.resume()
    assert table.timer() is None


def test_a_game_started_from_afar_keeps_the_configured_timer(tmp_path: Path,
                                                             wall: Wall) -> None:
    table = wall.boot(tmp_path, chess(5))
    table.command("NEW count-up-21 Ann,Bob")
    with Store(tmp_path / Store.DEFAULT_NAME, readonly=True) as store:
        assert store.unfinished().options["timer"] == {"turn": 300, "mode": "clock"}
    table.off()
    table = wall.boot(tmp_path, parse_config(QUIET))  # [timer] off by now
    table.resume()
    assert table.timer()["turn"] == 300 and table.timer()["mode"] == "clock"


def test_an_old_log_without_the_option_still_loads_and_takes_timer_from_the_config(
        tmp_path: Path, wall: Wall) -> None:
    with Store.in_dir(tmp_path) as store:  # as a companion before the option wrote it
        match = store.new_match("count-up-21", ["Ann", "Bob"], {"games_to_win": 2})
        store.append(match, {"type": "play", "player": "Ann", "card": 1})
    table = wall.boot(tmp_path, parse_config(QUIET + "[timer]\nturn = 30\n"))
    table.resume()
    assert table.timer()["turn"] == 30 and table.timer()["player"] == "Bob"


def test_export_and_import_carry_the_timer(tmp_path: Path) -> None:
    from companion.commands.export import export_main
    from companion.commands.importer import import_text
    from companion.session import Session

    timed = {"turn": 600, "mode": "clock"}
    with Store.in_dir(tmp_path / "here") as store:
        session = Session.start("scoreboard", ["Ann", "Bob"], {"target": 20, "timer": timed},
                                store=store)
        for player, points in (("Ann", 25), ("Bob", 3)):
            session.apply({"type": "points", "player": player, "points": points})
        assert session.match.over
    out = tmp_path / "out.jsonl"
    with out.open("w") as written:
        assert export_main(tmp_path / "here", "last", "jsonl", out=written) == 0
    start = json.loads(out.read_text().splitlines()[0])
    assert start["options"]["timer"] == timed
    with Store.in_dir(tmp_path / "there") as store:
        import_text(store, out.read_text(), lambda line: None)
        (imported,) = store.every_match()
        assert imported.options["timer"] == timed


# -- a power cut ---------------------------------------------------------------------------


def test_after_a_power_cut_the_clocks_read_what_they_read(tmp_path: Path, wall: Wall) -> None:
    """Cut at the moment after a pause, and after an event: only what was synced is on
    the card, and the clocks come back from it."""
    crash_vfs_or_skip()
    state = tmp_path / "state"
    state.mkdir()
    card = Card(seed=37)
    images: dict[str, tuple[dict[str, bytes], dict]] = {}

    def cut(label: str) -> None:
        (variant, files), *_ = card.images(state)
        assert variant == "lost"  # the first image: what was synced, nothing more
        images[label] = (files, wall.table.timer())

    with plugged_in(card):
        table = wall.boot(state, chess(), vfs=VFS_NAME)
        table.new_game(33, "Ann", 11, "Bob")
        cut("after an event")
        table.runner.advance(9)
        table.hold_back()
        cut("after a pause")
        table.runner.advance(200)
        table.off()
    for label, (files, read) in images.items():
        booted = tmp_path / label.replace(" ", "-")
        booted.mkdir()
        for name, data in files.items():
            (booted / name).write_bytes(data)
        table = wall.boot(booted, chess(), outage=45)
        table.resume()
        assert close(table.timer(), read), (label, table.timer(), read)
        table.off()
    assert images["after a pause"][1]["paused"]


# -- the arithmetic, for any play ----------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(mode=st.sampled_from(["turn", "clock"]),
       before=st.lists(st.tuples(st.sampled_from(["Ann", "Bob", "Cy", None, "pause"]),
                                 st.floats(0, 90)), max_size=12),
       after=st.lists(st.tuples(st.sampled_from(["Ann", "Bob", "Cy", None]),
                                st.floats(0, 90)), max_size=12),
       seed=st.integers(0, 2**16))
def test_a_kept_state_and_the_turns_after_it_fold_to_the_live_clocks(mode, before, after,
                                                                     seed) -> None:
    """Whatever happened before the last record (turns, pauses), the record and the turns
    after it (each at its stored time) fold to what a timer that saw everything reads at
    the last turn; and a timer restored from that at any moment reads the same."""
    live, now = TurnTimer(120, mode), 1000.0
    for what, wait in before:
        now += wait
        if what == "pause":
            live.pause(now, not live.paused)
        else:
            live.follow(what, now)
    kept, since = live.state(now), now
    turns = []
    for player, wait in after:
        now += wait
        live.follow(player, now)
        turns.append((now, player))
    folded = clock_after(120, mode, kept, since, turns)
    expected = live.state(now)
    assert folded["player"] == expected["player"] and folded["paused"] == expected["paused"]
    assert folded["used"].keys() == expected["used"].keys()
    assert all(abs(folded["used"][name] - spent) < 1e-6
               for name, spent in expected["used"].items())
    later = random.Random(seed).uniform(0, 10**6)  # the app's clock after a reboot
    restored = TurnTimer.restored(120, mode, folded, later)
    assert restored.player == live.player and restored.shown(later) == live.shown(now)
    if mode == "clock":  # (a turn timer's totals are not shown: each turn starts full)
        assert restored.totals(later) == live.totals(now)


def test_a_clock_set_back_counts_no_time() -> None:
    """A Pi without a clock battery may set its clock back: a turn stamped before the one
    before it takes nobody's time."""
    start = TurnTimer(60, "clock")
    start.follow("Ann", 100.0)
    state = clock_after(60, "clock", start.state(100.0), 100.0, [(50.0, "Bob"), (70.0, "Ann")])
    assert state["used"] == {"Ann": 0.0, "Bob": 20.0}


def test_a_damaged_record_is_ignored_and_the_events_say_it(tmp_path: Path, wall: Wall) -> None:
    table = wall.boot(tmp_path, chess())
    table.paused_in_bobs_turn(30, 5)
    table.off()
    with Store(tmp_path / Store.DEFAULT_NAME) as store:
        (key,) = store.meta_under("clock:")
        store.set_meta(key, '{"seq": 1, "at": "soon", "used": []}')
    table = wall.boot(tmp_path, chess())
    table.resume()
    # The pause is lost with the record; the events' times still say Ann used 30 s.
    assert table.timer()["totals"]["Ann"] == 570 and not table.timer()["paused"]


def test_the_log_keeps_one_timer_record_at_most(tmp_path: Path, wall: Wall) -> None:
    table = wall.boot(tmp_path, chess())
    for _ in range(3):
        table.command("NEW count-up-21 Ann,Bob --force")
        table.play("Ann")
        table.hold_back()
    with Store(tmp_path / Store.DEFAULT_NAME, readonly=True) as store:
        assert len(store.meta_under("clock:")) == 1
