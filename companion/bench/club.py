"""``companion bench --club``: many tables through one broker to one dashboard.

``tables`` simulated tables (a real store, session and :class:`Publisher` each, fifty to
a worker process) each play one event a second, staggered, through one broker (a throwaway
Mosquitto on a free port unless ``--broker``) to one :class:`Dashboard` in a process of
its own. Measured over ``seconds`` after a short warm-up:

- **lag**: from the moment an event is written to a table's store (its time of play) to
  the moment the dashboard has stored it; p50, p95 and the worst, in ms;
- **dashboard CPU**: the dashboard process's user + system time over the window, as a
  percentage of one core;
- how many events were played in the window, and how many of them arrived (the bench
  waits up to a minute for late ones: an event that never arrives is not hidden);
- seating 200 names from the organiser's form, with viewers' pages open
  (:mod:`companion.bench.club_seat`).

``--load`` runs all of it with a process of the bench's own spinning at 100 % of a core
beside it (another program busy on the machine).

The targets (docs/design.md, their numbers in :mod:`companion.bench.targets`): 200
tables at one event a second, p95 <= 100 ms, with a busy core beside it too; seating 200
players at 50 tables <= 1 s; 200 names from the organiser's form <= 0.2 s, no viewer's
page waiting over 50 ms meanwhile; a dashboard's restart over 10,000 finished matches
<= 2 s. ``--json`` holds the figures against them in ``"targets"``, and the plain output
says met or missed.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bench.targets import CLUB, CLUB_RESTART, finite, held, limit, verdict, verdicts

WARMUP = 3.0
PLAYERS = ("Ann", "Bob", "Cy", "Di")


def _dashboard_process(url: str, state_dir: str, pipe: Any) -> None:
    """The dashboard in its own process, answering the bench's requests on ``pipe``:
    ``("window", t0, t1)`` -> (arrival - time of play) of every event played in it;
    ``"stored"`` -> how many events it has stored in all; ``"cpu"`` -> its own user +
    system seconds so far; ``"stop"``."""
    from companion.club.dashboard import Dashboard

    arrivals: list[tuple[float, float]] = []
    dashboard = Dashboard(url, state_dir)
    dashboard.on_stored = lambda at: arrivals.append((at, time.time()))
    dashboard.start()
    pipe.send("ready")
    try:
        while True:
            request = pipe.recv()
            if request == "stop":
                return
            if request == "cpu":
                times = os.times()
                pipe.send(times.user + times.system)
            elif request == "stored":
                pipe.send(len(arrivals))
            else:
                _, first, last = request
                pipe.send([done - at for at, done in list(arrivals) if first <= at < last])
    finally:
        dashboard.stop()


class SimulatedTable:
    """One table: its store, a publisher, and a scoreboard match played event by event."""

    def __init__(self, directory: Path, name: str, url: str, rng: random.Random):
        from companion.club.publisher import Publisher
        from companion.config import Club
        from companion.session import Session
        from companion.store import Store

        self.store = Store.in_dir(directory / name)
        self.publisher = Publisher(Club(broker=url, table=name), self.store.path).start()
        self.session = Session.start("scoreboard", list(PLAYERS), store=self.store,
                                     listeners=[self.publisher.listener])
        self.rng = rng

    def play(self) -> None:
        match = self.session.match
        seat = len(match.events) % len(PLAYERS)
        self.session.apply({"type": "points", "player": PLAYERS[seat],
                            "points": self.rng.randint(0, 20)})

    def close(self) -> None:
        self.publisher.stop()
        self.store.close()



#: Simulated tables per worker process: paho waits with select(), which cannot watch a
#: socket numbered above 1024, and each table holds two store connections' files.
TABLES_PER_WORKER = 50


def _tables_process(url: str, first: int, count: int, total: int, directory: str,
                    pipe: Any) -> None:
    """Tables ``first .. first + count - 1`` of ``total``: table ``i`` plays at
    ``t0 + i / total`` and every second after, until the window ends; then it reports
    how many events it played inside the window."""
    rng = random.Random(first)
    tables = {i: SimulatedTable(Path(directory), f"bench-{i:03d}", url, rng)
              for i in range(first, first + count)}
    pipe.send("ready")
    t0, window_start, window_end = pipe.recv()
    played = in_window = 0
    try:
        second = 0
        while True:
            for i, table in tables.items():
                due = t0 + second + i / total
                if due >= window_end:
                    pipe.send((in_window, played))
                    return
                wait = due - time.time()
                if wait > 0:
                    time.sleep(wait)
                table.play()
                played += 1
                in_window += due >= window_start
            second += 1
    finally:
        for table in tables.values():
            table.close()


def run(url: str, tables: int, seconds: float, directory: Path) -> dict[str, Any]:
    """Measure (see the module docstring); the figures as a dict."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    dashboard = context.Process(target=_dashboard_process,
                                args=(url, str(directory / "club"), theirs), daemon=True)
    dashboard.start()
    workers = []
    for first in range(0, tables, TABLES_PER_WORKER):
        mine, pipe = context.Pipe()
        count = min(TABLES_PER_WORKER, tables - first)
        process = context.Process(target=_tables_process, daemon=True,
                                  args=(url, first, count, tables, str(directory), pipe))
        process.start()
        workers.append((process, mine))
    try:
        for pipe in [ours] + [mine for _, mine in workers]:
            if _answer(pipe, 120) != "ready":
                raise RuntimeError("a bench process did not start")
        t0 = time.time() + 0.5
        window = (t0 + WARMUP, t0 + WARMUP + seconds)
        for _, mine in workers:
            mine.send((t0, *window))
        time.sleep(max(0.0, window[0] - time.time()))
        ours.send("cpu")
        cpu_start = _answer(ours)
        time.sleep(max(0.0, window[1] - time.time()))
        ours.send("cpu")
        cpu = _answer(ours) - cpu_start
        counts = [_answer(mine, seconds + 60) for _, mine in workers]
        sent = sum(in_window for in_window, _ in counts)
        played = sum(total for _, total in counts)
        # Every event played counts, however late it arrives (up to 60 s): the totals
        # say whether anything was lost, the window's events give the lag.
        deadline = time.monotonic() + 60
        while True:
            ours.send("stored")
            stored = _answer(ours)
            if stored >= played or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        ours.send(("window", *window))
        lags = sorted(_answer(ours))
    finally:
        for process, _ in workers:
            process.join(30)
        ours.send("stop")
        dashboard.join(30)
    return {
        "tables": tables, "seconds": seconds, "events_sent": sent,
        "events_stored": len(lags), "played_total": played, "stored_total": stored,
        "lag_ms": {"p50": _ms(_quantile(lags, 0.50)), "p95": _ms(_quantile(lags, 0.95)),
                   "max": _ms(lags[-1] if lags else None)},
        "dashboard_cpu_percent": round(100 * cpu / seconds, 1),
        "target_p95_ms": limit(CLUB, "lag_ms.p95"),
    }


def _fast_dir() -> str | None:
    """Where to build a big throwaway store quickly (RAM when there is /dev/shm: the
    restart is measured, not the fsyncs of making its history)."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) \
        else None


def _answer(pipe: Any, timeout: float = 60.0) -> Any:
    """The next message from a bench process; an error (never a hang) if it died."""
    if not pipe.poll(timeout):
        raise RuntimeError("a bench process stopped answering")
    return pipe.recv()


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1]


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


# -- a dashboard's restart over years of finished matches ---------------------------------


def seed_finished(directory: Path, matches: int, tables: int = 20) -> list[tuple[str, bytes]]:
    """A dashboard's state in ``directory`` holding ``matches`` finished matches, as the
    receiver leaves them (store, mirror notes, ledger), and the retained match states a
    broker delivers to it when it subscribes again (topic, payload)."""
    from companion.club.ledger import LEDGER_NAME, Ledger, fingerprint
    from companion.club.receiver import MIRROR_KEY
    from companion.club.wire import encode, match_topic
    from companion.games import replay
    from companion.store import Store

    rng = random.Random(matches)
    retained = []
    now = time.time() - 86400.0
    with Store.in_dir(directory) as store:
        ledger = Ledger(directory / LEDGER_NAME)
        for n in range(matches):
            table, device = f"table-{n % tables:02d}", f"{n % tables:016x}" * 2
            uid = device[:16] + f"{n:016x}"
            players = list(PLAYERS[: 2 + n % 3])
            rows = [({"type": "points", "player": players[i % len(players)],
                      "points": rng.randint(0, 20)}, now + n + i / 10)
                    for i in range(len(players) * 3)] + [({"type": "end"}, now + n + 1)]
            game = replay("scoreboard", players, {}, [event for event, _ in rows])
            result = game.result()
            hashes = wire_chain(rows)
            store.import_match("scoreboard", players, game.options, rows, started=now + n,
                               finished=now + n + 1, result=result, uid=uid, origin=table)
            match_id = store.find_uid(uid)
            store.set_meta(MIRROR_KEY + uid, json.dumps(
                {"device": device, "gen": 1, "state": "finished", "count": len(rows),
                 "hash": hashes[-1], "id": match_id, "table": table}))
            ledger.claim(table, device)
            ledger.count(fingerprint("scoreboard", players, game.options, hashes[-1]), uid)
            retained.append((match_topic(table, uid), encode({
                "device": device, "uid": uid, "table": table, "game_id": "scoreboard",
                "players": players, "options": game.options, "started": now + n, "gen": 1,
                "count": len(rows), "hash": hashes[-1], "state": "finished",
                "finished": now + n + 1, "result": result})))
        ledger.close()
    return retained


def wire_chain(rows: list[tuple[dict[str, Any], float]]) -> list[str]:
    from companion.club.wire import chain

    return chain(rows)


def restart(matches: int, directory: Path) -> dict[str, Any]:
    """Time a dashboard's restart over ``matches`` finished matches: open its store and
    ledger, take the broker's retained state of every match, until all are handled."""
    from companion.club.ledger import LEDGER_NAME, Ledger
    from companion.club.receiver import Receiver
    from companion.store import Store

    retained = seed_finished(directory, matches)
    requests: list[Any] = []
    start, cpu = time.perf_counter(), time.process_time()
    store = Store.in_dir(directory)
    receiver = Receiver(store, lambda *r: requests.append(r),
                        ledger=Ledger(directory / LEDGER_NAME))
    receiver.preload()
    for topic, data in retained:
        receiver.handle(topic, data, True)
    receiver.receipts()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    engines = sum(1 for mirror in receiver.mirrors.values() if mirror.game is not None)
    store.close()
    return {"finished_matches": matches, "restart_s": round(seconds, 2),
            "restart_cpu_s": round(cpu, 2), "engines_kept": engines,
            "syncs_asked": sum(1 for topic, _ in requests if topic.endswith("/sync")),
            "target_restart_s": limit(CLUB_RESTART, "restart_s")}


def _spin() -> None:
    """A busy core: what another program on the machine does to the dashboard."""
    while True:
        pass


class BusyCore:
    """A process of the bench's own spinning at 100 % of a core while it is open."""

    def __enter__(self) -> BusyCore:
        self.process = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
        self.process.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.process.terminate()
        self.process.join(10)


def bench_club_main(*, tables: int = 50, seconds: float = 20.0, broker: str | None = None,
                    as_json: bool = False, out: Any = None, finished: int = 0,
                    load: bool = False) -> int:
    """Run the club bench and print the figures (one JSON object with ``as_json``);
    ``finished`` > 0 times a dashboard's restart over that many finished matches;
    ``load``: with a process of its own spinning at 100 % of a core beside it."""
    from companion.bench.club_seat import seat_from_the_form
    from companion.club.localbroker import LocalBroker
    from companion.errors import CompanionError
    from companion.lang import _

    out = out or sys.stdout
    if finished:
        if not 1 <= finished <= 1_000_000:
            raise CompanionError(_("--finished is 1 to 1000000"))
        with tempfile.TemporaryDirectory(prefix="companion-club-restart-",
                                         dir=_fast_dir()) as tmp:
            result = restart(finished, Path(tmp))
        result["targets"] = held(result, CLUB_RESTART)
        if as_json:
            print(json.dumps(finite(result), allow_nan=False), file=out)
        else:
            print(f"club: dashboard restart over {finished} finished matches: "
                  f"{result['restart_s']} s ({result['restart_cpu_s']} s CPU; target <= "
                  f"{result['target_restart_s']} s: "
                  f"{verdict(result['targets']['restart_s'])}); engines kept "
                  f"{result['engines_kept']}, tables asked again {result['syncs_asked']}",
                  file=out)
        return 0
    if not 1 <= tables <= 1000 or not 1 <= seconds <= 3600:
        raise CompanionError(_("--tables is 1 to 1000 and --seconds 1 to 3600"))
    with tempfile.TemporaryDirectory(prefix="companion-club-bench-") as tmp, \
            contextlib.ExitStack() as beside:
        directory = Path(tmp)
        url = broker or beside.enter_context(LocalBroker(directory / "broker")).url
        if load:
            beside.enter_context(BusyCore())
        result = run(url, tables, seconds, directory)
        result["seat_form"] = seat_from_the_form(url, directory / "form")
    result["load"] = load
    result["seating"] = seating_bench()
    result["targets"] = targets = held(result, CLUB)
    if as_json:
        print(json.dumps(finite(result), allow_nan=False), file=out)
    else:
        lag = result["lag_ms"]
        lost = result["played_total"] - result["stored_total"]
        print(f"club: {result['tables']} tables x 1 event/s: {result['played_total']} events "
              f"played (warm-up and window), {result['stored_total']} stored on the dashboard"
              + (" (all of them)" if not lost else f" ({lost} MISSING after 60 s)"), file=out)
        print(f"  end-to-end lag over the {result['events_stored']} events of the "
              f"{result['seconds']} s window: p50 {lag['p50']} ms  p95 {lag['p95']} ms  "
              f"max {lag['max']} ms  (target p95 <= {result['target_p95_ms']} ms: "
              f"{verdict(targets['lag_ms.p95'])})", file=out)
        print(f"  dashboard CPU   {result['dashboard_cpu_percent']} % of one core"
              + ("  (a busy core beside it: --load)" if load else ""), file=out)
        form = result["seat_form"]
        print(f"  seating {form['players']} names from the organiser's form at "
              f"{form['tables']} tables, {form['rounds']} rounds: at most "
              f"{form['seat_max_s']} s a round (target <= {form['target_seat_s']} s: "
              f"{verdict(targets['seat_form.seat_max_s'])}); "
              f"{form['viewers']} viewers' page waited at most {form['viewer_wait_max_ms']} "
              f"ms (target <= {form['target_wait_ms']} ms: "
              f"{verdict(targets['seat_form.viewer_wait_max_ms'])}; "
              f"{form['viewer_wait_idle_ms']} ms with nothing seated)", file=out)
        seating = result["seating"]
        print(f"  seating {seating['players']} players at {seating['tables']} tables: "
              f"round 1 {seating['round_1_s']} s, rounds 2-{seating['rounds']} at most "
              f"{seating['later_max_s']} s, {seating['repeats']} pairs met again "
              f"(target <= {seating['target_s']} s a round: "
              f"{verdicts([targets['seating.round_1_s'], targets['seating.later_max_s']])})",
              file=out)
    return 0


def seating_bench(players: int = 200, tables: int = 50, rounds: int = 6,
                  seed: int = 1) -> dict[str, Any]:
    """Seat a night of ``rounds`` rounds of ``players`` at ``tables`` tables of Final
    Count (2 to 4), each later round by a fresh random standing, and time each seating."""
    import random

    from companion.club.seating import pairs, repeats, seat_round

    names = [f"P{number}" for number in range(players)]
    table_names = [f"table-{number}" for number in range(1, tables + 1)]
    rng = random.Random(seed)
    history: list[Any] = []
    times, again = [], 0
    for _ in range(rounds):
        met = pairs(history)
        ranking = sorted(names, key=lambda name: rng.random())
        start = time.perf_counter()
        seats = seat_round(names, table_names, 2, 4, rng, ranking=ranking, met=met)
        times.append(time.perf_counter() - start)
        again += repeats(seats, met)
        history.append(seats)
    return {"players": players, "tables": tables, "rounds": rounds,
            "round_1_s": round(times[0], 4), "later_max_s": round(max(times[1:]), 4),
            "repeats": again, "target_s": limit(CLUB, "seating.round_1_s")}
