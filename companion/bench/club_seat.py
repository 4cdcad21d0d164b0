"""``companion bench --club``'s seating from the organiser's form: 200 names seated
through ``POST /api/club/seat`` on a running dashboard's club page, round after round,
while viewers' streams are open.

- **seat**: the request's round trip for each round (round 1 a draw, later rounds
  Swiss-style), the longest; target 0.2 s;
- **a viewer's wait**: how late the page's event loop ran a probe due every 5 ms while
  the rounds were seated and the dashboard sent them to the tables (every open page's
  stream is served by that loop, so no stream waits longer); target 50 ms. Beside it,
  the same probe over a few seconds with nothing seated: on a shared machine other
  programs delay the page too, and that is not the seating's.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

from companion.bench.targets import CLUB, limit

#: The probe's period on the page's event loop (seconds).
PROBE_EVERY = 0.005
#: How long the probe runs with nothing seated first (seconds).
IDLE = 3.0


class LoopProbe:
    """A coroutine on the page's event loop that wakes every :data:`PROBE_EVERY` and
    notes how late it woke (what any stream's next message would wait)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.worst = 0.0
        self._running = True
        self._future = asyncio.run_coroutine_threadsafe(self._run(), loop)

    async def _run(self) -> None:
        while self._running:
            due = time.perf_counter() + PROBE_EVERY
            await asyncio.sleep(PROBE_EVERY)
            self.worst = max(self.worst, time.perf_counter() - due)

    def stop(self) -> float:
        """Stop probing; the worst lateness (seconds)."""
        self._running = False
        self._future.result(10)
        return self.worst


def _first_view(reply: Any) -> None:
    """Read a stream's first message (the page as it is when it opens)."""
    seen = False
    while True:
        line = reply.readline()
        if not line:
            raise RuntimeError("a viewer's stream ended")
        seen = seen or line.startswith(b"data:")
        if seen and not line.strip():
            return


def seat_from_the_form(url: str, directory: Path, players: int = 200, tables: int = 50,
                       rounds: int = 6, viewers: int = 20) -> dict[str, Any]:
    """Seat ``rounds`` rounds of ``players`` at ``tables`` named tables through the club
    page of a dashboard on the broker ``url`` in ``directory``, with ``viewers`` streams
    open; the dashboard sends each round to the tables meanwhile."""
    import http.client

    from companion.club.dashboard import Dashboard
    from companion.club.ledger import LEDGER_NAME, Ledger
    from companion.club.organiser import COOKIE
    from companion.club.web import serve
    from companion.remote.web.server import free_port

    state = directory / "club"
    state.mkdir(parents=True, exist_ok=True)
    names = [f"table-{number}" for number in range(1, tables + 1)]
    ledger = Ledger(state / LEDGER_NAME)
    for number, name in enumerate(names):
        ledger.seen(name, time.time() - number)
    ledger.close()
    dashboard = Dashboard(url, state)
    dashboard.on_notice = lambda text: None
    dashboard.start()
    server = serve(dashboard, f"127.0.0.1:{free_port()}")
    token = server.organiser_link.split("token=", 1)[1]
    streams = []
    try:
        # The organiser opens the page before sending the form (it gets the seat worker
        # ready meanwhile).
        with urllib.request.urlopen(urllib.request.Request(
                f"{server.url}/", headers={"Cookie": f"{COOKIE}={token}"}), timeout=30):
            pass
        for _ in range(viewers):  # open pages: each holds a stream the loop serves
            stream = http.client.HTTPConnection(server.host, server.port, timeout=10)
            stream.request("GET", "/api/club/stream")
            _first_view(stream.getresponse())  # the page as it opens: not measured
            streams.append(stream)
        present = [f"Player{number}" for number in range(players)]
        # The same probe with nothing to do first: what the machine's other work costs
        # the page anyway (on a shared, busy machine it is not nothing).
        probe = LoopProbe(server._loop)  # the bench may look inside
        time.sleep(IDLE)
        idle = probe.stop()
        probe = LoopProbe(server._loop)
        seat_times = []
        for _ in range(rounds):
            body = json.dumps({"game": "final-count", "present": ", ".join(present),
                               "tables": names}).encode()
            request = urllib.request.Request(
                f"{server.url}/api/club/seat", data=body, headers={
                    "Content-Type": "application/json", "Origin": server.url,
                    "Cookie": f"{COOKIE}={token}"})
            start = time.perf_counter()
            with urllib.request.urlopen(request, timeout=30) as reply:
                seated = json.loads(reply.read())
            seat_times.append(time.perf_counter() - start)
            if sum(len(t["players"]) for t in seated["tables"]) != players:
                raise RuntimeError("the form seated the wrong number of players")
        time.sleep(2 * dashboard.sync_every)  # the dashboard's turn at the night's file
        worst = probe.stop()
    finally:
        for stream in streams:
            stream.close()
        server.stop()
        dashboard.stop()
    return {"players": players, "tables": tables, "rounds": rounds, "viewers": viewers,
            "seat_max_s": round(max(seat_times), 3), "seat_round_1_s": round(seat_times[0], 3),
            "viewer_wait_max_ms": round(worst * 1000, 1),
            "viewer_wait_idle_ms": round(idle * 1000, 1),
            "target_seat_s": limit(CLUB, "seat_form.seat_max_s"),
            "target_wait_ms": limit(CLUB, "seat_form.viewer_wait_max_ms")}
